"""What a record measures besides the verdicts: the exact run to a fixed horizon, the convergence
series and the float-versus-exact comparison.

The convergence distances and the float comparison are float renderings of exact positions,
labelled as *measured* in the report; nothing here decides a claim.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import islice
from math import lcm
from typing import Any, Sequence

import numpy as np

from verify.core.config import Configuration
from verify.core.exact_dynamics import exact_layers
from verify.core.trajectory import simulate

__all__ = ["HORIZON", "exact_run", "convergence_series", "float_comparison"]

HORIZON = 30  # layers shown in the convergence, float and denominator figures ([P1] Figure 2 runs 30)


def exact_run(config: Configuration, layers: int) -> list[Any]:
    """Layers 0..``layers`` of the exact engine (:func:`verify.core.exact_dynamics.exact_layers`)."""
    A = [list(r) for r in config.A] if config.A is not None else None
    V = [list(r) for r in config.V] if config.V is not None else None
    return list(islice(exact_layers([list(t) for t in config.tokens], alpha=config.alpha, A=A, V=V), layers + 1))


def _significant(x: float, digits: int = 6) -> float:
    """Round for storage: six significant digits are plenty for a plot and keep the file small."""
    return float(f"{x:.{digits}g}") if math.isfinite(x) else x


def convergence_series(config: Configuration, layers: Sequence[Any], fates: list[dict[str, Any]]) -> dict[str, Any]:
    """max_i ||z_i^k - s_i||_A per layer k over the tokens with a certified limit s_i.

    The squared distances are computed exactly in integers and only the final square root is
    taken in float64, so tiny distances (1e-30 after 30 layers with alpha = 10) are not lost
    to the rounding of positions. Tokens without a certified limit are counted, not guessed.
    """
    limits = {f["token"]: [Fraction(x) for x in f["limit"]] for f in fates if f.get("limit")}
    uncertified = sorted(set(range(config.n)) - set(limits))
    series: list[float] = []
    if limits and layers:
        A = config.A_matrix
        a = lcm(*(x.denominator for row in A for x in row))
        A_int = [[int(x * a) for x in row] for row in A]
        identity = config.A is None
        tokens = sorted(limits)
        S = lcm(*(x.denominator for i in tokens for x in limits[i]))
        scaled_limits = {i: [int(x * S) for x in limits[i]] for i in tokens}
        d = config.d
        for layer in layers:
            D = layer.denominator
            best = 0
            for i in tokens:
                row = layer.numerators[layer.groups.point_of[i]]
                diff = [row[c] * S - scaled_limits[i][c] * D for c in range(d)]
                if identity:
                    value = sum(x * x for x in diff)
                else:
                    value = sum(diff[r] * A_int[r][c] * diff[c] for r in range(d) for c in range(d))
                best = max(best, value)
            # ||.||_A^2 = best / (a (S D)^2), exactly; one rounding to float at the end.
            series.append(_significant(math.sqrt(float(Fraction(best, a * (S * D) ** 2)))))
    return {"max_A_distance": series, "tokens_with_limit": len(limits), "tokens_without_limit": uncertified,
            "kind": "exact squared distance, square root in float64"}


def float_comparison(config: Configuration, layers: Sequence[Any]) -> dict[str, Any]:
    """Run the float dynamics for as many layers as ``layers`` (exact) and compare attention sets.

    ``silent_disagreements`` counts layers where a float set the run presents as decided
    differs from the exact one. That includes the decided rows of the first undecided layer
    (all earlier layers were decided, so the proven rounding bound of
    :mod:`verify.core.float_dynamics` still covers them); later layers are all undecided. The bound
    says this cannot happen, so a nonzero count is a defect.
    """
    last = layers[-1].index
    trajectory = simulate(config.tokens, alpha=config.alpha, A=config.A_matrix if config.A is not None else None,
                          layers=last, arithmetic="float")
    differing_layers = []
    differing_tokens = 0
    first_undecided = trajectory.first_undecided_layer
    silent = 0
    for layer in layers:
        exact_sets = layer.attention_sets()
        float_sets = trajectory.attention[layer.index]
        flagged = trajectory.undecided[layer.index]
        wrong = [i for i, (a, b) in enumerate(zip(exact_sets, float_sets)) if a != b]
        if wrong:
            differing_layers.append(layer.index)
            differing_tokens += len(wrong)
            if any(i not in flagged for i in wrong):
                silent += 1
    differences = []
    for layer in layers:
        # n / D for Python ints is correctly rounded: the exact positions' nearest floats.
        exact = np.array([[x / layer.denominator for x in row] for row in layer.numerators], dtype=float)
        exact = exact[list(layer.groups.point_of)]
        differences.append(_significant(float(np.abs(exact - np.asarray(trajectory.positions[layer.index])).max())))
    distance = differences[-1]
    return {
        "layers": last,
        "first_undecided_layer": first_undecided,
        "undecided_token_layers": sum(len(s) for s in trajectory.undecided),
        "first_differing_layer": differing_layers[0] if differing_layers else None,
        "differing_layers": len(differing_layers),
        "differing_token_layers": differing_tokens,
        "silent_disagreements": silent,
        "final_max_abs_difference": distance,
        "max_abs_difference": differences,
        "kind": "measured (float64 run against the exact run)",
    }
