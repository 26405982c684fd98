"""The run every claim check shares: the exact dynamics of one configuration, its fates, and the verdicts.

:func:`run_configuration` runs the exact dynamics (any callable with the signature of
:func:`verify.core.exact_dynamics.exact_layers`, so the mutation self-test can pass wrong ones)
until every token is a leader, fixed or locked (docs/theory.md D7) or on a certified closed-form
path (D9), or the layer budget is spent, and returns a :class:`ClaimRun`.
:func:`check_configuration` hands that run to the check of every claim check of the registry
(one module per claim in this package: :mod:`verify.claims.T0` ... :mod:`verify.claims.replay`),
each returning a :class:`~verify.claims.verdicts.Verdict` with an exact certificate when
certified (schema: ``docs/certificates.md``) and, when failed, the layer, the tokens and the two
exact numbers compared. The helpers the checks share (the verdict with its evidence, the leader
limits, the inconclusive verdict of an unsettled run, ...) live here too.

What the checks trust: nothing from the engine but its positions of layers 1, 2, ...; layer 0
is the configuration itself, and the engine's layer 0 must equal it exactly. Scores and
attention sets are recomputed here from the positions (integer arithmetic), and the "replay"
verdict recomputes each layer from the previous one with the independent oracle
:mod:`verify.core.oracle`. When a check of the engine's layers fails (the replay, a claim of role
"engine"), no other verdict is certified (the layers are not this configuration's).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
import time
import math
from math import lcm
from typing import Any, Callable, Iterable, Iterator, Sequence, cast

from flint import fmpz_mat

from verify import certcheck
from verify.claims import registry
from verify.core import closed_form, geometry
from verify.core.similarity import Similarity, find_similarity
from verify.core.formatting import counted
from verify.core.config import Configuration, hypothesis_violations
from verify.core.exact_dynamics import ExactLayer, exact_layers
from verify.core.linalg import dot, mat_vec
from verify.core.numbers import InputError, rational_to_str
from verify.core.text import exact_number
from verify.claims.verdicts import Verdict

__all__ = [
    "leader_layers",
    "TokenFate",
    "LayerData",
    "ClaimRun",
    "ClaimReport",
    "check_configuration",
    "run_configuration",
    "layer_limit",
]


Point = tuple[Fraction, ...]
Dynamics = Callable[..., Iterator[ExactLayer]]
# T1..T4 need every token settled: by D7 (leader, fixed, locked) and, for the tokens D7 leaves,
# by D9 (a closed-form path); a verdict's evidence says which its run used. Their records quote this.
SETTLED = "every token settled by D7 (leader, fixed or locked) or by a D9 closed-form path"
# Certificates keep every layer's positions only for small runs (the checker replays anyway).
POSITIONS_LIMIT = 4000
# D9 (docs/theory.md): the closed-form search runs once D7 has found no new fate for this many layers
# (campaign configurations that D7 settles rarely pause longer), and again after twice as long
# each time it is left unsettled, and at the last layer allowed.
CLOSED_FORM_AFTER = 4
# A path fate's limit is written as a fate entry, which the checker reads with int(): at most
# about 4300 digits (Python's text limit); a longer limit leaves the run unsettled, with the reason.
LIMIT_DIGITS = 4000


def q(x: Fraction | int) -> str:
    return rational_to_str(x)


def qv(p: Iterable[Fraction]) -> list[str]:
    return [rational_to_str(x) for x in p]


def show(p: Iterable[Fraction]) -> str:
    """A point for a one-line summary, exactly (the one rule of verify.core.text): (1/2, -1), (0.309017, 1)."""
    return "(" + ", ".join(exact_number(x) for x in p) + ")"


def named_tokens(indices: Sequence[int]) -> str:
    """Tokens named in a one-line summary: ``token 3``, ``tokens [0, 2]``."""
    return f"token {indices[0]}" if len(indices) == 1 else f"tokens {list(indices)}"


def mean(points: Iterable[Point]) -> Point:
    pts = list(points)
    return tuple(sum((p[c] for p in pts), Fraction(0)) / len(pts) for c in range(len(pts[0])))


# ---------------------------------------------------------------------------------------------
# Data of a run


@dataclass
class LayerData:
    """Layer k with its scores and attention sets recomputed here from the engine's positions.

    ``scores[i][j] = <A z_i, z_j> * scale`` as integers (scale > 0), so comparisons are exact.
    """

    index: int
    positions: list[Point]
    scores: list[list[int]]
    scale: Fraction
    attention: list[frozenset[int]]

    def score(self, i: int, j: int) -> Fraction:
        return self.scores[i][j] * self.scale


@dataclass
class TokenFate:
    """How token ``token`` is certified to converge (docs/theory.md D7, D9), or ``unsettled``.

    ``layer``: the first layer at which the condition holds (for a path: the layer the closed-form
    chain starts from); ``attention``: {i} for a leader, G for a fixed token (without itself), F
    for a locked one, the final segment's set for a path; ``limit``: the exact limit (for a path,
    the constant term of its final path); ``value``: for a locked token, the common score
    <A m_F, v> over F.
    """

    token: int
    kind: str  # leader | fixed | locked | path | unsettled
    layer: int | None = None
    limit: Point | None = None
    attention: frozenset[int] | None = None
    value: Fraction | None = None
    order: int = -1  # establishment order (fates are built inductively)
    start: Point | None = None  # position at the fate layer (a locked token's path starts there)

    def to_json_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"token": self.token, "kind": self.kind, "layer": self.layer,
                                "set": sorted(self.attention) if self.attention is not None else None,
                                "limit": qv(self.limit) if self.limit is not None else None}
        if self.value is not None:
            data["value"] = q(self.value)
        return data


@dataclass
class ClaimRun:
    """Everything the per-claim functions need: the configuration, the engine's layers, fates."""

    config: Configuration
    A: list[list[Fraction]]
    layers: list[ExactLayer]
    data: list[LayerData]
    fates: list[TokenFate]
    settled_layer: int | None
    layer_budget: int
    violations: list[dict[str, Any]] = field(default_factory=list)  # D7 consequences contradicted
    start_mismatch: dict[str, Any] | None = None  # the engine's layer 0 differs from the configuration here
    # settled | layer budget | time budget | work limit (the checker's, see run_configuration) | similarity (D11)
    stopped_by: str = "settled"
    time_budget: float | None = None
    cross_check: bool = True  # run the float cross-checks (cvxpy, candidate set); they never decide
    chain: closed_form.Chain | None = None  # the certified closed-form chain (D9) that settled the run, if any
    closed_form_attempts: list[dict[str, Any]] = field(default_factory=list)  # every D9 search: layer, outcome
    # The similarity certificate (docs/theory.md D11) that stopped a run with no leader: no token ever leads.
    similarity: Similarity | None = None
    _chain_json: dict[str, Any] | None = field(default=None, repr=False)
    # The dynamics, paused after the last of ``layers``: a caller that wants more layers (the
    # campaign's 30-layer figures) continues it instead of recomputing layers 0..last.
    engine: Iterator[ExactLayer] | None = field(default=None, repr=False, compare=False)
    _continued: list[ExactLayer] = field(default_factory=list, repr=False, compare=False)

    def layers_through(self, last: int) -> list[ExactLayer]:
        """Layers 0..``last`` of the run's dynamics: the run's own, then the engine continued (the run's
        ``layers`` stay those its claims were checked on)."""
        layers = (self.layers + self._continued)[:last + 1]
        while len(layers) <= last:
            if self.engine is None:
                raise RuntimeError(f"the run's dynamics cannot be continued past layer {len(layers) - 1}")
            layer = next(self.engine)
            if layer.index != len(layers):
                raise RuntimeError(f"dynamics yielded layer index {layer.index}, expected {len(layers)}")
            self._continued.append(layer)
            layers.append(layer)
        return layers

    @property
    def outside(self) -> bool:
        return self.config.outside_hypotheses

    @property
    def last_layer(self) -> int:
        return self.data[-1].index

    @property
    def n(self) -> int:
        return self.config.n

    @property
    def settled(self) -> bool:
        return self.settled_layer is not None

    def leader_layers(self) -> dict[int, int] | None:
        """The certified final leaders with their first leading layers, or None (see :func:`leader_layers`)."""
        return leader_layers(self)

    def fates_in_order(self) -> list[TokenFate]:
        return sorted((f for f in self.fates if f.kind != "unsettled"), key=lambda f: f.order)

    def leader_fates(self) -> list[TokenFate]:
        return [f for f in self.fates_in_order() if is_leader(f)]

    def chain_json(self) -> dict[str, Any] | None:
        """The certified chain as the checker reads it (hardmax-verify/closed-form-v1), if D9 settled the run."""
        if self.chain is not None and self._chain_json is None:
            self._chain_json = closed_form.chain_to_json(self.chain)
        return self._chain_json

    def with_chain(self, cert: dict[str, Any]) -> dict[str, Any]:
        """A T1..T4 certificate with the chain its path fates rest on (docs/theory.md D9), when there is one."""
        chain = self.chain_json()
        if chain is not None:
            cert["closed_form"] = chain
        return cert

    def settling_facts(self) -> tuple[str, ...]:
        """The facts that settled the run's tokens: D7 (leader, fixed, locked fates), D9 (path fates)."""
        kinds = {f.kind for f in self.fates}
        return tuple(fact for fact, used in (("D7", bool(kinds & {"leader", "fixed", "locked"})),
                                             ("D9", "path" in kinds)) if used)

    def settled_by(self) -> str:
        """The settling facts in words: "D7", "D9 (closed form from layer 4)", "D7 and D9 (...)"."""
        text = " and ".join(self.settling_facts()) or "no fate"
        return text if self.chain is None else f"{text} (closed form from layer {self.chain.start_layer})"

    def facts_used(self, claim: str) -> list[str]:
        """Of the facts ``claim`` may rest on (the registry's ``rests_on``), those this run used."""
        used = set(self.settling_facts()) | ({"D3"} if any(is_leader(f) for f in self.fates) else set())
        return [fact for fact in registry.get(claim).rests_on if fact in used]

    def closed_form_evidence(self) -> dict[str, Any]:
        """What the D9 searches found, for a verdict's evidence (the chain itself goes into certificates)."""
        if not self.closed_form_attempts:
            return {}
        return {"closed_form_searches": self.closed_form_attempts}

    def layer_positions(self, layers: Iterable[int]) -> dict[str, list[list[str]]] | None:
        wanted = sorted(set(layers))
        if self.n * len(wanted) > POSITIONS_LIMIT:
            return None
        return {str(k): [qv(p) for p in self.data[k].positions] for k in wanted}

    def base_evidence(self) -> dict[str, Any]:
        evidence = {"outside_hypotheses": self.outside, "last_layer": self.last_layer,
                    "settled_layer": self.settled_layer}
        evidence.update(self.closed_form_evidence())
        return evidence


def leader_layers(run: "ClaimRun | ClaimReport") -> dict[int, int] | None:
    """The certified final leader set, token -> the first layer at which it leads; None when it is not known.

    Known when every token has a fate (D7, or a closed-form path by D9): the leaders are the D7
    leader fates, with their layer, and the tokens whose closed-form path ends with C_j = {j}, from the
    first segment of the chain where they lead (and no earlier: D7 would have certified a leader at any
    layer before the chain starts). Also known, and empty, when a similarity certificate (D11) shows
    that no token is ever a leader. Otherwise None: tokens without a fate may still lead.
    """
    if isinstance(run, ClaimReport):
        if run.run is None:
            raise ValueError("this report keeps no run (check_configuration keeps it)")
        run = run.run
    if run.similarity is not None and not run.settled:
        return {}
    if not run.settled:
        return None
    chain_leaders = run.chain.leaders() if run.chain is not None else {}
    return {f.token: (f.layer or 0) if f.kind == "leader" else chain_leaders.get(f.token, f.layer or 0)
            for f in run.fates if is_leader(f)}


def is_leader(f: TokenFate) -> bool:
    """A D7 leader, or a token whose closed-form path ends with C_j = {j} (it leads from some layer on, D3)."""
    return f.kind == "leader" or (f.kind == "path" and f.attention == frozenset({f.token}))


def _digits(x: Fraction) -> int:
    return max(abs(x.numerator), x.denominator).bit_length() * 30103 // 100000 + 1


def _closed_form(config: Configuration, data: LayerData) -> tuple[closed_form.Chain | None, dict[str, Any]]:
    """The D9 jump search from the exact positions of ``data``'s layer: the certified chain (or None) and a record."""
    A = [list(r) for r in config.A] if config.A is not None else None
    chain = closed_form.certify(data.positions, alpha=config.alpha, A=A, start_layer=data.index)
    # No timing here: a report's content depends only on its inputs.
    record: dict[str, Any] = {"layer": data.index, "status": chain.status, "final_layer": chain.layer,
                              "jumps": chain.jumps}
    if not chain.certified:
        record["reason"] = chain.reason
        return None, record
    if any(_digits(x) > LIMIT_DIGITS for p in chain.limits() for x in p):
        record.update(status="unsettled", reason=f"a limit has more than {LIMIT_DIGITS} digits, more than a fate entry "
                      "the independent checker reads")
        return None, record
    return chain, record


def _layer_data(index: int, positions: list[Point], *, A_int: fmpz_mat, a_scale: int) -> LayerData:
    den = lcm(*(x.denominator for p in positions for x in p))
    N = fmpz_mat([[int(x * den) for x in p] for p in positions])
    # <A z_i, z_j> = z_i^T A^T z_j.
    S = N * A_int.transpose() * N.transpose()
    n = len(positions)
    entries = [int(x) for x in S.entries()]
    scores = [entries[i * n:(i + 1) * n] for i in range(n)]
    attention = []
    for row in scores:
        top = max(row)
        attention.append(frozenset(j for j, s in enumerate(row) if s == top))
    return LayerData(index, positions, scores, Fraction(1, den * den * a_scale), attention)


def _settle(data: LayerData, fates: dict[int, TokenFate], A: list[list[Fraction]], order: list[int]) -> None:
    """Extend the fates with everything D7 establishes at this layer (leaders, fixed, locked)."""
    k = data.index
    pos = data.positions

    def establish(fate: TokenFate) -> None:
        fate.order = order[0]
        order[0] += 1
        fates[fate.token] = fate

    for i, C in enumerate(data.attention):
        if i not in fates and C == frozenset({i}):
            establish(TokenFate(i, "leader", k, pos[i], frozenset({i})))
    fixed = {t for t, f in fates.items() if f.kind in ("leader", "fixed")}
    changed = True
    while changed:  # D7(b) is inductive: a newly fixed token can make another one fixed
        changed = False
        for j, C in enumerate(data.attention):
            if j in fates or j not in C:
                continue
            G = C - {j}
            if G and G <= fixed and pos[j] == mean(pos[g] for g in sorted(G)):
                establish(TokenFate(j, "fixed", k, pos[j], frozenset(G)))
                fixed.add(j)
                changed = True
    for i, F in enumerate(data.attention):
        if i in fates or i in F or not F <= fixed:
            continue
        locked = locking_value(data, F, A)
        if locked is not None:
            m, value = locked
            establish(TokenFate(i, "locked", k, m, F, value))


def locking_value(data: LayerData, F: frozenset[int], A: list[list[Fraction]]) -> tuple[Point, Fraction] | None:
    """(m_F, <A m_F, v>) when <A m_F, .> is equal on F and maximal over all tokens (D7), else None.

    Decided on the layer's integer scores: <A m_F, z_j> = sum_{v in F} scores[v][j] * scale / |F| (A is
    linear, scale > 0), so the test is n sums of integers instead of n Fraction dot products.
    """
    rows = [data.scores[v] for v in sorted(F)]
    summed = [sum(column) for column in zip(*rows)]  # |F| <A m_F, z_j> / scale
    values = {summed[v] for v in F}
    if len(values) != 1:
        return None
    value = values.pop()
    if max(summed) > value:
        return None
    pos = data.positions
    m = mean(pos[v] for v in sorted(F))
    return m, dot(mat_vec(A, m), pos[min(F)])


def _consequences(data: LayerData, fates: dict[int, TokenFate], alpha: Fraction, with_rate: bool,
                  violations: list[dict[str, Any]], chain: closed_form.Chain | None = None) -> None:
    """Check at layer k what D3/D7/D9 prove for every fate established at an earlier layer."""
    k = data.index
    for t, f in fates.items():
        if f.layer is None or f.layer >= k:
            continue
        C = data.attention[t]
        if f.kind == "path" and chain is not None:
            # D9: the certified chain gives every later layer's positions and attention sets exactly.
            expected_position = chain.positions_at(k)[t]
            if data.positions[t] != expected_position:
                violations.append({"layer": k, "token": t, "fate": "path", "fate_layer": f.layer,
                                   "what": "not on its closed-form path", "expected": qv(expected_position),
                                   "got": qv(data.positions[t])})
            elif C != chain.sets_at(k)[t]:
                violations.append({"layer": k, "token": t, "fate": "path", "fate_layer": f.layer,
                                   "what": "attention set differs from the closed form's",
                                   "expected": sorted(chain.sets_at(k)[t]), "got": sorted(C)})
            continue
        if f.kind in ("leader", "fixed"):
            fate_set = cast(frozenset[int], f.attention)  # set for every established fate
            expected_C = fate_set if f.kind == "leader" else fate_set | {t}
            if data.positions[t] != f.limit:
                violations.append({"layer": k, "token": t, "fate": f.kind, "fate_layer": f.layer,
                                   "what": "position moved", "expected": qv(f.limit or ()),
                                   "got": qv(data.positions[t])})
            elif C != expected_C:
                violations.append({"layer": k, "token": t, "fate": f.kind, "fate_layer": f.layer,
                                   "what": "attention set changed", "expected": sorted(expected_C),
                                   "got": sorted(C)})
        elif f.kind == "locked":
            if C != f.attention:
                violations.append({"layer": k, "token": t, "fate": "locked", "fate_layer": f.layer,
                                   "what": "attention set changed", "expected": sorted(f.attention or ()),
                                   "got": sorted(C)})
            elif with_rate:
                # D7: z^{k'} = m_F + (1+alpha)^{-(k'-k)} (z^k - m_F), exactly.
                start = f.start or ()
                r = (1 + alpha) ** (-(k - f.layer))
                expected = tuple(m + r * (s - m) for m, s in zip(f.limit or (), start))
                if data.positions[t] != expected:
                    violations.append({"layer": k, "token": t, "fate": "locked", "fate_layer": f.layer,
                                       "what": "not on the D7 geometric path", "expected": qv(expected),
                                       "got": qv(data.positions[t])})


def layer_limit(config: Configuration, layer_budget: int) -> int:
    """The last layer a run of ``config`` may compute: ``layer_budget``, or earlier the last layer the
    independent checker replays under its default work limit (then the run stops by "work limit")."""
    # Never run past what the independent checker replays under its default limit, so that the
    # replay is never what keeps `certcheck` from re-verifying a certificate issued here. (A closed-form
    # chain, D9, is checked on top of the replay: on very many tokens it can exceed the checker's work
    # meter, which then stops the file: its certificates are reported unsupported, never verified.)
    # The numbers the checker's replay starts from, as it reads them: alpha, or V when given.
    numbers = [x for t in config.tokens for x in t] + [x for row in config.A_matrix for x in row]
    numbers += [config.alpha] if config.V is None else [x for row in config.V for x in row]
    checkable = certcheck.max_checkable_layer(config.n, config.d, bits=certcheck.input_bits(numbers),
                                              growth=certcheck.replay_growth(config.alpha, config.V),
                                              A=config.A is not None, V=config.V is not None)
    if checkable < 0:
        raise InputError("tokens", f"{config.n} tokens in d = {config.d}: replaying even layer 0 is more work than the "
                         f"independent checker allows by default ({certcheck.DEFAULT_MAX_WORK:g} units), so no "
                         "certificate could be re-verified")
    return min(layer_budget, checkable)


def run_configuration(config: Configuration, *, layer_budget: int = 200, dynamics: Dynamics = exact_layers,
                      progress: Callable[[int], None] | None = None, time_budget: float | None = None,
                      closed_form_search: bool = True) -> ClaimRun:
    """Run ``dynamics`` until every token has a fate (plus one layer), ``layer_budget`` layers,
    or ``time_budget`` seconds of wall-clock time (checked after each layer), whichever comes first.

    Fates come from D7 layer by layer; once D7 stops progressing (no new fate for
    :data:`CLOSED_FORM_AFTER` layers, or at the last layer allowed) the D9 jump search runs from
    the exact positions of that layer and, when it certifies a chain, every remaining token gets
    a "path" fate and the run stops one layer later. ``closed_form_search=False``: D7 only.
    """
    if config.beta is not None:
        raise InputError("beta", "the claims are about hardmax attention; softmax (beta) is studied by the conjecture lab")
    if layer_budget < 1:
        raise InputError("layer_budget", f"expected at least 1 layer, got {layer_budget}")
    if time_budget is not None and not (isinstance(time_budget, (int, float)) and 0 < time_budget < float("inf")):
        raise InputError("time_budget", f"expected a positive number of seconds, got {time_budget!r}")
    last_allowed = layer_limit(config, layer_budget)
    started = time.monotonic()
    stopped_by = "layer budget" if last_allowed == layer_budget else "work limit"
    A = config.A_matrix
    a_scale = lcm(*(x.denominator for row in A for x in row))
    A_int = fmpz_mat([[int(x * a_scale) for x in row] for row in A])
    kwargs: dict[str, Any] = {"alpha": config.alpha, "A": [list(r) for r in config.A] if config.A is not None else None}
    if config.V is not None:
        kwargs["V"] = [list(r) for r in config.V]
    layers: list[ExactLayer] = []
    data: list[LayerData] = []
    fates: dict[int, TokenFate] = {}
    violations: list[dict[str, Any]] = []
    order = [0]
    settled_layer: int | None = None
    with_rate = config.V is None
    start_mismatch: dict[str, Any] | None = None
    # D9 is proved for the rule of docs/theory.md §1 (any A); not for a general value matrix V.
    closed_form_applies = closed_form_search and config.V is None
    chain: closed_form.Chain | None = None
    attempts: list[dict[str, Any]] = []
    progress_layer, wait = 0, CLOSED_FORM_AFTER
    # D11 is proved for the rule of docs/theory.md §1 (any A); it is searched while no token has led.
    similarity_applies = value_matrix_is_the_plain_model(config)
    led = False
    scores: list[list[list[Fraction]]] = []
    similar: Similarity | None = None
    engine = dynamics([list(t) for t in config.tokens], **kwargs)
    for layer in engine:
        if layer.index != len(data):
            raise RuntimeError(f"dynamics yielded layer index {layer.index}, expected {len(data)}")
        engine_positions = [tuple(p) for p in layer.positions()]
        if layer.index == 0:
            # Every check starts from the configuration itself, never from the engine's reading
            # of it: layer 0 is the input, and the engine's layer 0 must equal it exactly.
            start_mismatch = _first_difference(engine_positions, [tuple(t) for t in config.tokens])
            engine_positions = [tuple(t) for t in config.tokens]
        d = _layer_data(layer.index, engine_positions, A_int=A_int, a_scale=a_scale)
        layers.append(layer)
        data.append(d)
        _consequences(d, fates, config.alpha, with_rate, violations, chain)
        if settled_layer is None:
            before = set(fates)
            _settle(d, fates, A, order)
            for t in set(fates) - before:
                fates[t].start = d.positions[t]
                progress_layer = d.index
            if len(fates) == config.n:
                settled_layer = d.index
            elif closed_form_applies and (d.index - progress_layer >= wait or d.index >= last_allowed):
                # D7 has stopped progressing: the closed form (D9) settles every remaining token, or says why not.
                chain, record = _closed_form(config, d)
                attempts.append(record)
                if chain is None:
                    wait *= 2
                else:
                    _path_fates(chain, fates, d, order)
                    settled_layer = d.index
        led = led or any(C == frozenset({i}) for i, C in enumerate(d.attention))
        if similarity_applies and not led and settled_layer is None and similar is None:
            scores.append([[x * d.scale for x in row] for row in d.scores])
            if d.index >= 1:
                similar = find_similarity([x.positions for x in data], A, scores=scores)
            if similar is not None and closed_form_applies:
                # No token will ever lead (D11); the closed form may still give every token's path (D9).
                chain, record = _closed_form(config, d)
                attempts.append(record)
                if chain is not None:
                    _path_fates(chain, fates, d, order)
                    settled_layer = d.index
        if progress is not None:
            progress(d.index)
        if similar is not None and settled_layer is None:
            # No leader at layers 0..k+p-1 and the pattern repeats for ever: no token will ever lead.
            stopped_by = "similarity"
            break
        # One layer past settlement so that D3/D7 consequences and the replay see a transition.
        if (settled_layer is not None and d.index > settled_layer) or d.index >= last_allowed:
            break
        if time_budget is not None and settled_layer is None and time.monotonic() - started > time_budget:
            # Only a wall-clock limit: what was computed stays exact; unsettled tokens are inconclusive.
            stopped_by = "time budget"
            break
    if settled_layer is not None:
        stopped_by = "settled"
    all_fates = [fates.get(t, TokenFate(t, "unsettled")) for t in range(config.n)]
    return ClaimRun(config, A, layers, data, all_fates, settled_layer, layer_budget, violations,
                    stopped_by=stopped_by, time_budget=time_budget, start_mismatch=start_mismatch, chain=chain,
                    closed_form_attempts=attempts, similarity=similar, engine=engine)


def _path_fates(chain: closed_form.Chain, fates: dict[int, TokenFate], d: LayerData, order: list[int]) -> None:
    """Every token without a D7 fate follows its path of the certified chain (docs/theory.md D9)."""
    final = chain.final
    for t, limit in enumerate(chain.limits()):
        if t not in fates:
            fates[t] = TokenFate(t, "path", d.index, limit, final.sets[t], order=order[0], start=d.positions[t])
            order[0] += 1


def _first_difference(engine: list[Point], given: list[Point]) -> dict[str, Any] | None:
    """Where the engine's layer 0 first differs from the configuration's tokens (None: nowhere)."""
    if len(engine) != len(given) or any(len(p) != len(g) for p, g in zip(engine, given)):
        return {"token": None, "what": f"the engine's layer 0 has {len(engine)} tokens of dimension "
                f"{len(engine[0]) if engine else 0}, the configuration {len(given)} of dimension {len(given[0])}"}
    for i, (p, g) in enumerate(zip(engine, given)):
        for c, (x, y) in enumerate(zip(p, g)):
            if x != y:
                return {"token": i, "coordinate": c, "lhs": q(x), "rhs": q(y),
                        "compared": f"engine z_{i}^0[{c}] vs the configuration's token {i}[{c}]"}
    return None


# ---------------------------------------------------------------------------------------------
# Verdict helpers


def make_verdict(claim: str, status: str, summary: str, run: ClaimRun, *, certificate: dict[str, Any] | None = None,
                 **evidence: Any) -> Verdict:
    """The verdict of ``claim`` on ``run``: the run's evidence, ``evidence``, and the certificate when certified.

    A certified verdict of a claim that rests on proved facts names those its run used; a failed
    verdict of a claim decided on the tokens' limits carries the D9 chain they came from.
    """
    record = registry.get(claim)
    ev = run.base_evidence()
    ev.update(evidence)
    if status == "certified" and record.rests_on:
        ev["rests_on"] = run.facts_used(claim)  # beyond the layers computed (docs/theory.md §3)
    if status == "failed" and record.decided_on_limits and run.chain is not None:
        ev["closed_form"] = run.chain_json()  # the limits compared come from this chain (docs/theory.md D9)
    return Verdict(claim, status, summary, ev, certificate if status == "certified" else None)  # type: ignore[arg-type]


def first_leading(run: ClaimRun) -> dict[int, int]:
    first: dict[int, int] = {}
    for d in run.data:
        for i, C in enumerate(d.attention):
            if C == frozenset({i}) and i not in first:
                first[i] = d.index
    return first


def fates_json(run: ClaimRun) -> list[dict[str, Any]]:
    return [f.to_json_dict() for f in run.fates_in_order()]


def leader_limits(run: ClaimRun) -> dict[int, Point]:
    return {f.token: f.limit for f in run.leader_fates() if f.limit is not None}


def _unsettled(run: ClaimRun) -> list[int]:
    return [f.token for f in run.fates if f.kind == "unsettled"]


def _measured_distances(run: ClaimRun) -> dict[str, float | None]:
    """Float distance of each unsettled token to its current attention mean (a measurement);
    None where it does not fit in a float64 (exact inputs may be far larger)."""
    last = run.data[-1]
    out: dict[str, float | None] = {}
    for t in _unsettled(run):
        m = mean(last.positions[j] for j in sorted(last.attention[t]))
        try:
            distance = math.hypot(*(float(a - b) for a, b in zip(last.positions[t], m)))
        except OverflowError:
            distance = math.inf
        out[str(t)] = distance if math.isfinite(distance) else None
    return out


def outside_evidence(x: Sequence[Fraction], points: Sequence[Point], what: str, others: str) -> dict[str, Any]:
    """Exact proof that x is outside conv(points): a direction c with c.x > max c.p."""
    c = geometry.separation_from_hull(x, points)
    if c is None:  # pragma: no cover - only called when the hull test said "outside"
        return {}
    return {"direction": qv(c), "lhs": q(dot(c, x)), "rhs": q(max(dot(c, p) for p in points)),
            "compared": f"c.x for {what} vs max of c.p over {others} (strictly greater: outside the hull)"}


def _budget_spent(run: ClaimRun) -> str:
    if run.stopped_by == "time budget":
        return f"time budget of {run.time_budget:g} s spent"
    if run.stopped_by == "work limit":
        return (f"the independent checker's default work limit allows layers 0..{run.last_layer} for "
                f"{run.n} tokens in d = {run.config.d}")
    return f"layer budget of {run.layer_budget} spent" if run.stopped_by == "layer budget" else run.stopped_by


def no_leader(claim: str, run: ClaimRun) -> Verdict | None:
    """Every fate is known and none leads (duplicates only, outside the hypotheses): K is empty."""
    if leader_limits(run):
        return None
    return make_verdict(claim, "inconclusive", "every token's fate is known and no token ever leads, so K = conv(leader "
                    "limits) is empty and the claim has nothing to refer to", run, fates=fates_json(run))


def similarity_evidence(run: ClaimRun) -> dict[str, Any]:
    """The D11 certificate of a run that repeats for ever with no leader, and what it says of the limits."""
    sim = run.similarity
    if sim is None:
        return {}
    limits = (f"every token converges to 0 (the rows of |M^{sim.contraction_power}| sum to less than 1)"
              if sim.converges_to_zero else "the limits are not certified (no power of M found to contract)")
    return {"similarity": sim.to_json_dict(), "limits": limits}


def not_applicable_without_leaders(claim: str, run: ClaimRun) -> Verdict:
    """T1..T4 on a run that D11 shows never has a leader: the claim speaks of leaders or of K = conv(leader limits),
    which is empty, so it has nothing to refer to (inconclusive, with the certificate and what it says)."""
    sim = run.similarity
    assert sim is not None
    what = ("there is no leader to be fixed" if claim == "T1"
            else "K = conv(leader limits) is empty and the claim has nothing to refer to")
    limits = "; every token converges to 0" if sim.converges_to_zero else ""
    return make_verdict(claim, "inconclusive", f"not applicable: no token is ever a leader ({sim.describe()}), so "
                        f"{what}{limits}", run, **similarity_evidence(run))


def inconclusive_unsettled(claim: str, run: ClaimRun, what: str) -> Verdict:
    if run.similarity is not None:
        return not_applicable_without_leaders(claim, run)
    unsettled = _unsettled(run)
    closed = ""
    if run.closed_form_attempts:
        last = run.closed_form_attempts[-1]
        closed = f"; closed form (D9) from layer {last['layer']} unsettled: {last.get('reason', '')}"
    return make_verdict(claim, "inconclusive",
                    f"{what}: {counted(len(unsettled), 'token')} neither leader, fixed nor locked within "
                    f"{counted(run.last_layer, 'layer')} "
                    f"({_budget_spent(run)}{closed})", run, unsettled=unsettled, stopped_by=run.stopped_by,
                    measured_distance_to_attention_mean={"unit": "float64 Euclidean, measured, not a proof (null: beyond float64)",
                                                         "values": _measured_distances(run)})


def leader_permanence(run: ClaimRun, claim: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Failures of 'a leader stays a leader and does not move' over the layers run, and the certificate."""
    first = first_leading(run)
    failures = []
    for i, k in sorted(first.items()):
        start = run.data[k].positions[i]
        for d in run.data[k + 1:]:
            if d.positions[i] != start:
                moved = next(c for c in range(len(start)) if d.positions[i][c] != start[c])
                failures.append({"token": i, "first_layer": k, "layer": d.index, "what": "leader moved",
                                 "coordinate": moved, "lhs": q(d.positions[i][moved]), "rhs": q(start[moved]),
                                 "compared": f"z_{i}^{d.index}[{moved}] vs z_{i}^{k}[{moved}]"})
                break
            if d.attention[i] != frozenset({i}):
                j = next(j for j in sorted(d.attention[i]) if j != i)
                failures.append({"token": i, "first_layer": k, "layer": d.index, "what": "leader lost C_i = {i}",
                                 "attention": sorted(d.attention[i]), "lhs": q(d.score(i, j)), "rhs": q(d.score(i, i)),
                                 "compared": f"<A z_{i}, z_{j}> vs <A z_{i}, z_{i}> at layer {d.index}"})
                break
    cert = {"last_layer": run.last_layer,
            "leaders": [{"token": i, "first_layer": k, "position": qv(run.data[k].positions[i])}
                        for i, k in sorted(first.items())]}
    lp = run.layer_positions(set(first.values()))
    if lp is not None:
        cert["layer_positions"] = lp
    return failures, cert


def fate_violation_verdict(claim: str, run: ClaimRun) -> Verdict | None:
    if not run.violations:
        return None
    v = run.violations[0]
    return make_verdict(claim, "failed", f"D7 consequence contradicted: token {v['token']} ({v['fate']} from layer "
                    f"{v['fate_layer']}) at layer {v['layer']}: {v['what']}", run, violations=run.violations[:20])


def fate_direction(run: ClaimRun, f: TokenFate) -> list[Fraction]:
    """A z at the fate layer: for D7 it exposes the face conv(F) (or conv(G ∪ {j})) of K."""
    return mat_vec(run.A, run.data[f.layer].positions[f.token]) if f.layer is not None else []


# ---------------------------------------------------------------------------------------------
# The report


@dataclass
class ClaimReport:
    """Every verdict of one configuration (the registry's claim checks), with the run behind them."""

    config: Configuration
    verdicts: dict[str, Verdict]
    layers_run: int
    layers: list[ExactLayer]
    fates: list[TokenFate]
    settled_layer: int | None
    layer_budget: int
    run: ClaimRun | None = field(default=None, repr=False, compare=False)  # scores, attention sets per layer
    time_budget: float | None = None
    stopped_by: str = "settled"  # settled | layer budget | time budget

    @property
    def limits(self) -> dict[int, Point | None]:
        return {f.token: f.limit for f in self.fates}

    def leader_layers(self) -> dict[int, int] | None:
        """The certified final leaders with their first leading layers, or None (see :func:`leader_layers`)."""
        return leader_layers(self)

    @property
    def status(self) -> str:
        statuses = [v.status for v in self.verdicts.values()]
        for s in ("failed", "inconclusive"):
            if s in statuses:
                return s
        return "certified"

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "format": "hardmax-verify/claims-v1",
            "config": self.config.to_json_dict(),
            "outside_hypotheses": self.config.outside_hypotheses,
            "hypothesis_violations": [f"{f}: {m}" for f, m in hypothesis_violations(self.config)],
            "layer_budget": self.layer_budget,
            "time_budget": self.time_budget,
            "stopped_by": self.stopped_by,
            "last_layer": self.layers_run,
            "settled_layer": self.settled_layer,
            "status": self.status,
            "fates": [f.to_json_dict() for f in self.fates],
            "verdicts": {cid: self.verdicts[cid].to_json_dict() for cid in registry.verdict_ids() if cid in self.verdicts},
        }


def value_matrix_is_the_plain_model(config: Configuration) -> bool:
    """True without V, or when V = c I with c > 0: then the rule is docs/theory.md §1's with alpha = c."""
    if config.V is None:
        return True
    c = config.V[0][0]
    return c > 0 and all(config.V[r][k] == (c if r == k else 0) for r in range(config.d) for k in range(config.d))



def _without_unproved_facts(verdicts: dict[str, Verdict]) -> dict[str, Verdict]:
    """Under a general value matrix, nothing that rests on D3/D7 may be certified.

    Which claims rest on which facts is the registry's ``rests_on`` (a certified verdict's evidence
    names those its run used): D3, D7 and D9 are proved for the rule of docs/theory.md §1 only;
    with a general value matrix V they are open (docs/theory.md §6).

    A certified T1..T4 or D3 becomes inconclusive. A failed claim decided on the tokens' limits
    (the registry's ``decided_on_limits``: T2..T4) becomes inconclusive too: it reports a
    contradicted D7 consequence, which shows that D7 does not transfer to the variant, not that
    the claim itself is false. Any other failed verdict (T1, D3) stays failed: a leader that stops
    leading is observed directly, layer by layer.
    """
    adjusted = dict(verdicts)
    for record in registry.claims("check"):
        claim, possible = record.id, record.rests_on
        verdict = verdicts.get(claim)
        if not possible or verdict is None or verdict.status == "inconclusive":
            continue
        if verdict.status == "failed" and not record.decided_on_limits:
            continue
        facts = list(verdict.evidence.get("rests_on") or possible)
        named = facts[0] if len(facts) == 1 else ", ".join(facts[:-1]) + " and " + facts[-1]
        reason = (f"{named} {'is' if len(facts) == 1 else 'are'} proved for V = alpha I only (docs/theory.md §3); with "
                  f"this value matrix the check's {verdict.status} verdict rests on {'it' if len(facts) == 1 else 'them'} "
                  "beyond the layers computed")
        evidence = {key: value for key, value in verdict.evidence.items() if key != "rests_on"}
        evidence.update(unproved_facts=facts, verdict_if_it_held=verdict.status,
                        summary_if_it_held=verdict.summary)
        adjusted[claim] = Verdict(claim, "inconclusive", f"not decided: {reason}", evidence, None,
                                  verdict.cross_checks)
    return adjusted


def _nothing_certified_on_a_wrong_trajectory(verdicts: dict[str, Verdict]) -> dict[str, Verdict]:
    """When a check of the engine's layers fails (role "engine": the replay), they are not this configuration's dynamics.

    Every other check ran on those layers, so a certified verdict would be a statement about
    some other trajectory: it becomes inconclusive, with the reason. Failed verdicts stay
    failed (they are how a wrong engine shows; the engine check says why).
    """
    engine_checks = {c.id for c in registry.claims("check") if c.role == "engine"}
    failed = [verdicts[c] for c in verdicts if c in engine_checks and verdicts[c].status == "failed"]
    if not failed:
        return verdicts
    replay = failed[0]
    adjusted = dict(verdicts)
    for claim, verdict in verdicts.items():
        if claim in engine_checks or verdict.status != "certified":
            continue
        evidence = dict(verdict.evidence, verdict_if_the_engine_were_right="certified",
                        summary_if_the_engine_were_right=verdict.summary)
        adjusted[claim] = Verdict(claim, "inconclusive", "not decided: the engine's layers are not the dynamics of "
                                  f"this configuration ({replay.summary})", evidence, None, verdict.cross_checks)
    return adjusted


def _check_of(claim: registry.Claim) -> Callable[[ClaimRun], Verdict]:
    if claim.check is None:
        raise RuntimeError(f"claim check {claim.id} is registered without a check function")
    return claim.check


def check_configuration(config: Configuration, *, layer_budget: int = 200, dynamics: Dynamics = exact_layers,
                        cross_check: bool = True, progress: Callable[[int], None] | None = None,
                        time_budget: float | None = None, closed_form_search: bool = True) -> ClaimReport:
    """Check every claim check of the registry (T0..T4, D1..D3, the one-step replay) on one configuration.

    Parameters
    ----------
    config
        The configuration (outside the theorem's hypotheses only if ``config.outside_hypotheses``).
    layer_budget
        Largest layer index computed; the run stops earlier, one layer after every token has a
        fate (leader, fixed or locked by D7, or a closed-form path by D9).
    dynamics
        A callable with the signature of :func:`verify.core.exact_dynamics.exact_layers`; every
        check uses its layers (the mutation self-test passes deliberately wrong ones).
    cross_check
        Run the float cross-checks (cvxpy projections, candidate set S); they never decide.
    progress
        Called with each layer index as it is computed.
    time_budget
        Wall-clock seconds for the layers (None: no limit). A run stopped by it says so
        (``stopped_by``); its unsettled tokens make T2..T4 inconclusive, never certified.
        Results then depend on the machine's speed, so reproducible campaigns leave it unset.
    closed_form_search
        Settle what D7 leaves with the closed-form certificates of docs/theory.md D9 (default); False:
        D7 fates only.
    """
    run = run_configuration(config, layer_budget=layer_budget, dynamics=dynamics, progress=progress,
                            time_budget=time_budget, closed_form_search=closed_form_search)
    run.cross_check = cross_check
    verdicts = {claim.id: _check_of(claim)(run) for claim in registry.claims("check")}
    verdicts = _nothing_certified_on_a_wrong_trajectory(verdicts)
    if not value_matrix_is_the_plain_model(config):
        verdicts = _without_unproved_facts(verdicts)
    return ClaimReport(config, verdicts, run.last_layer, run.layers, run.fates, run.settled_layer, layer_budget, run,
                       time_budget=time_budget, stopped_by=run.stopped_by)
