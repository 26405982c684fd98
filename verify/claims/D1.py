"""D1 (docs/theory.md §3): each token of layer k+1 lies in the convex hull of layer k.

Certified with exact convex weights for every token and transition (the rule's own weights, or
any others found); a failure gives an exact separating direction.
"""

from __future__ import annotations

from fractions import Fraction

from verify.claims import registry
from verify.claims.run import ClaimRun, make_verdict, outside_evidence, q, qv, value_matrix_is_the_plain_model
from verify.claims.verdicts import Verdict
from verify.core import geometry


def check_D1(run: ClaimRun) -> Verdict:
    """D1: every token of layer k+1 lies in conv(layer k), with exact convex weights."""
    alpha = run.config.alpha
    keep = 1 / (1 + alpha)
    all_weights = []
    for prev, nxt in zip(run.data, run.data[1:]):
        layer_weights = []
        for i in range(run.n):
            C = sorted(prev.attention[i])
            # The rule's own weights first (D1's proof); any other exact convex weights also certify.
            w: dict[int, Fraction] = {i: keep}
            for j in C:
                w[j] = w.get(j, Fraction(0)) + alpha / ((1 + alpha) * len(C))
            combo = tuple(sum((wt * prev.positions[j][c] for j, wt in w.items()), Fraction(0))
                          for c in range(len(nxt.positions[i])))
            if combo != nxt.positions[i]:
                found = geometry.point_in_hull_weights(nxt.positions[i], prev.positions)
                if found is None:
                    return make_verdict("D1", "failed", f"token {i} at layer {nxt.index} is outside conv(layer {prev.index})",
                                    run, layer=nxt.index, token=i, position=qv(nxt.positions[i]),
                                    **outside_evidence(nxt.positions[i], prev.positions, f"z_{i}^{nxt.index}",
                                                        f"every token of layer {prev.index}"))
                w = found
            layer_weights.append([[j, q(wt)] for j, wt in sorted(w.items()) if wt != 0])
        all_weights.append(layer_weights)
    if not all_weights:
        return make_verdict("D1", "inconclusive", "only one layer was run: no transition to check", run)
    if not value_matrix_is_the_plain_model(run.config):
        return make_verdict("D1", "inconclusive", f"every token of layers 1..{run.last_layer} is an exact convex "
                            "combination of the previous layer, but D1 is proved for V = alpha I only: later layers "
                            "are not decided", run)
    cert = {"first_layer": 0, "last_layer": run.last_layer, "weights": all_weights}
    return make_verdict("D1", "certified", f"every token of layers 1..{run.last_layer} is an exact convex combination "
                    "of the previous layer", run, certificate=cert)


CLAIM = registry.register(registry.Claim(
    "D1", "each token of layer k+1 lies in the convex hull of layer k", "check",
    assumption="V = alpha I (D1's proof); otherwise only a token outside the hull decides", certificate="D1", check=check_D1))
