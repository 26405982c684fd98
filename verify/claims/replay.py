"""The replay: each layer of the engine equals the independent oracle's one step from the previous layer.

Not a claim of docs/theory.md but the check that the layers every other check reads are this
configuration's dynamics: the engine's layer 0 must be the configuration, and every transition
and every attention set must equal :mod:`verify.core.oracle`'s. Its role is "engine": when it
fails, no other verdict is certified.
"""

from __future__ import annotations

from verify.claims import registry
from verify.claims.run import ClaimRun, make_verdict, q, qv
from verify.claims.verdicts import Verdict
from verify.core import oracle
from verify.core.formatting import counted


def check_replay(run: ClaimRun) -> Verdict:
    """Replay: layer k+1 of the engine equals the independent oracle's one step from layer k, for every k.

    Also compares the engine's own attention sets with the oracle's (the engine reports them).
    """
    config = run.config
    A = None if config.A is None else run.A
    V = None if config.V is None else [list(r) for r in config.V]
    if run.start_mismatch is not None:
        where = run.start_mismatch
        token = "" if where["token"] is None else f", token {where['token']}"
        return make_verdict("replay", "failed", f"layer 0{token}: the engine's position differs from the configuration "
                        "it was given", run, layer=0, **where)
    for layer, prev, nxt in zip(run.layers, run.data, run.data[1:]):
        engine_C = layer.attention_sets()
        oracle_C = oracle.attention_sets(prev.positions, A=A)
        for i in range(run.n):
            if engine_C[i] != oracle_C[i]:
                return make_verdict("replay", "failed", f"engine's C_{i} at layer {prev.index} differs from the oracle's",
                                run, layer=prev.index, token=i, engine=sorted(engine_C[i]), oracle=sorted(oracle_C[i]))
        expected = oracle.one_layer(prev.positions, alpha=config.alpha, A=A, V=V)
        for i in range(run.n):
            if expected[i] != nxt.positions[i]:
                c = next(c for c in range(len(expected[i])) if expected[i][c] != nxt.positions[i][c])
                return make_verdict("replay", "failed", f"layer {nxt.index}, token {i}: the engine's position differs from "
                                "the oracle's one-step recomputation", run, layer=nxt.index, token=i, coordinate=c,
                                lhs=q(nxt.positions[i][c]), rhs=q(expected[i][c]),
                                compared=f"engine z_{i}^{nxt.index}[{c}] vs oracle")
    if len(run.data) < 2:
        return make_verdict("replay", "inconclusive", "only one layer was run: no transition to replay", run)
    cert = {"last_layer": run.last_layer, "final_positions": [qv(p) for p in run.data[-1].positions]}
    equal = counted(len(run.data) - 1, "layer transition equals", "layer transitions equal")
    return make_verdict("replay", "certified", f"{equal} the independent oracle's", run, certificate=cert)


CLAIM = registry.register(registry.Claim(
    "replay", "each layer equals the independent oracle's one step from the previous layer", "check", role="engine",
    assumption="none", certificate="replay", property_module="test_certificate_round_trip", check=check_replay))
