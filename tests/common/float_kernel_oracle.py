"""The float engine's layer kernel in a row-per-token layout, each score's reduction over d innermost.

The oracle that verify/core/float_kernel.py's vectorised kernel must match bit for bit (the rounding
bound of verify/core/float_dynamics.py counts the roundings of this summation order, which both keep),
and the baseline bench/float_kernel.py times it against. Not imported by the product."""

from __future__ import annotations

import numba
import numpy as np

from verify.core.float_kernel import LARGEST_FLOAT, MARGIN_DOWN, MARGIN_FLOOR, MARGIN_UP
from verify.core.float_rounding import BOUND_SAFETY, UNDERFLOW_SLACK

__all__ = ["row_layout_layer_kernel"]


@numba.njit(inline="always", cache=True)
def _pair_score_bound(eu, ru, ev, rv, pair_scale, score_rounding, d):  # pragma: no cover - compiled
    """E_uv of the docstring of :mod:`verify.core.float_dynamics`, from both points' errors e and sizes rho: the relative part
    scaled by d^2 a, and the absolute underflow part, which does not shrink with a."""
    return (pair_scale * (eu * rv + ru * ev + eu * ev + score_rounding * (ru + eu) * (rv + ev))
            + UNDERFLOW_SLACK * d * (1.0 + d * (ru + rv)))


@numba.njit(parallel=True, cache=True)
def row_layout_layer_kernel(Z, W, counts, At, alpha, error, matrix_bound, score_rounding, step_rounding, record,
                 new_Z, new_error, argmax, undecided, tie, attention, score_error, margin):  # pragma: no cover - compiled
    """One layer for every configuration: scores, attention set, undecided flag, update, error bounds.

    Row u of configuration b: s_v = <A z_u, z_v> for the b's points v. With t the float argmax,
    the set is decided only when the top and every score are finite and every other v has
    fl(s_t - s_v) > (E_ut + E_uv) S, E_uv being the per-pair score bound of :mod:`verify.core.float_dynamics`
    and S = BOUND_SAFETY. Every test is "decided only if ... > ...", which NaN fails. The update
    is (z + alpha m) / (1 + alpha) with m the maximiser (decided rows) or, for undecided rows, the
    multiplicity-weighted mean of the float-equality maximisers; a decided row whose new position
    or bound is not finite becomes undecided. ``new_error`` receives each point's position bound
    for the next layer and ``score_error`` a bound on every pair's E_uv in the configuration.
    ``margin`` receives, for a decided row, a proven lower bound of the exact gap between the
    row's top score and every other point's (+inf when the row has no other point); it is
    meaningless on an undecided row.
    """
    B, m, d = Z.shape
    for b in numba.prange(B):
        count = counts[b]
        a = alpha[b]
        pair_scale = d * d * matrix_bound[b]
        scores = np.empty(count)
        magnitude = np.empty(count)
        direction = np.empty(d)
        largest_error = 0.0
        largest_magnitude = 0.0
        for v in range(count):
            top_coordinate = 0.0
            for r in range(d):
                top_coordinate = max(top_coordinate, abs(Z[b, v, r]))
            magnitude[v] = top_coordinate
            largest_error = max(largest_error, error[b, v])
            largest_magnitude = max(largest_magnitude, top_coordinate)
        worst_pair = 0.0
        for u in range(count):
            for r in range(d):
                acc = 0.0
                for c in range(d):
                    acc += Z[b, u, c] * At[b, c, r]
                direction[r] = acc
            top = -np.inf
            best = 0
            finite = True
            for v in range(count):
                acc = 0.0
                for r in range(d):
                    acc += direction[r] * Z[b, v, r]
                scores[v] = acc
                if not np.isfinite(acc):
                    finite = False
                if acc > top:
                    top = acc
                    best = v
            eu = error[b, u]
            ru = magnitude[u]
            et = error[b, best]
            rt = magnitude[best]
            bound_top = _pair_score_bound(eu, ru, et, rt, pair_scale, score_rounding, d)
            # E_uv is increasing in rho_v and e_v: with the configuration's largest ones it bounds
            # every pair of the row, so most v are settled by one comparison, as fast as a single
            # tolerance per configuration; only the v within it get their own E_uv.
            bound_any = _pair_score_bound(eu, ru, largest_error, largest_magnitude, pair_scale, score_rounding, d)
            worst_pair = max(worst_pair, bound_any)
            quick = (bound_top + bound_any) * BOUND_SAFETY
            near = not (finite and np.isfinite(top))
            equal = 0
            second = -np.inf
            for v in range(count):
                if v != best:
                    second = max(second, scores[v])
                if v != best and not near and not (top - scores[v] > quick):
                    bound_v = _pair_score_bound(eu, ru, error[b, v], magnitude[v], pair_scale, score_rounding, d)
                    if not (top - scores[v] > (bound_top + bound_v) * BOUND_SAFETY):
                        near = True
                if scores[v] == top:
                    equal += 1
                    if record:
                        attention[b, u, v] = True
            argmax[b, u] = best
            tie[b, u] = equal > 1
            if count == 1:
                margin[b, u] = np.inf
            else:
                # Every other v has exact gap >= fl(top - s_v) / (1 + u) - (E_ut + E_uv) >= the same
                # with the row's second score and the configuration-wide E (float_dynamics docstring).
                lower = (top - second) * MARGIN_DOWN - (bound_top + bound_any) * BOUND_SAFETY * MARGIN_UP
                lower = lower * MARGIN_DOWN
                # An overflowed difference is still a huge margin, never "no other point" (+inf).
                margin[b, u] = min(lower, LARGEST_FLOAT) if lower > MARGIN_FLOOR else 0.0
            if equal == 1:
                for r in range(d):
                    new_Z[b, u, r] = (Z[b, u, r] + a * Z[b, best, r]) / (1.0 + a)
                new_error[b, u] = ((eu + a * et) / (1.0 + a) + (max(ru, rt) + max(eu, et)) * step_rounding[b]
                                   + UNDERFLOW_SLACK) * BOUND_SAFETY
            else:
                total = 0.0
                for v in range(count):
                    if scores[v] == top:
                        total += W[b, v]
                for r in range(d):
                    acc = 0.0
                    for v in range(count):
                        if scores[v] == top:
                            acc += W[b, v] * Z[b, v, r]
                    new_Z[b, u, r] = (Z[b, u, r] + a * (acc / total)) / (1.0 + a) if total > 0 else np.nan
                # Only reached on an undecided row, after which no bound of this configuration is
                # claimed; keep a configuration-wide value.
                new_error[b, u] = largest_error + (largest_magnitude + largest_error) * step_rounding[b]
            # An update that overflowed cannot be bounded: the row is undecided (nothing after it is claimed).
            if not np.isfinite(new_error[b, u]):
                near = True
            for r in range(d):
                if not np.isfinite(new_Z[b, u, r]):
                    near = True
            undecided[b, u] = near
        score_error[b] = worst_pair



OUTPUTS = ("new_Z", "new_error", "argmax", "undecided", "tie", "attention", "score_error", "margin")


def layer_inputs(Z: np.ndarray, *, weights: np.ndarray | None = None, counts: np.ndarray | None = None,
                 A_transposed: np.ndarray | None = None, alpha: np.ndarray | float = 0.5,
                 error: np.ndarray | float = 0.0, matrix_bound: np.ndarray | float = 1.0) -> tuple:
    """A kernel's inputs for a (b, m, d) batch as verify.core.float_dynamics.float_layers passes them:
    C-ordered float64 arrays, the rounding constants of the docstring's bound, multiplicity 1 and all m
    points live unless given."""
    from verify.core.float_rounding import UNIT_ROUNDOFF, rounding_gamma

    Z = np.array(Z, dtype=np.float64, order="C")
    b, m, d = Z.shape
    alpha_b = np.array(np.broadcast_to(np.asarray(alpha, dtype=np.float64), (b,)), order="C")
    weights = np.ones((b, m)) if weights is None else np.array(weights, dtype=np.float64, order="C")
    counts = np.full(b, m, dtype=np.int64) if counts is None else np.array(counts, dtype=np.int64, order="C")
    At = np.array(np.broadcast_to(np.eye(d), (b, d, d)) if A_transposed is None else A_transposed, dtype=np.float64, order="C")
    error = np.array(np.broadcast_to(np.asarray(error, dtype=np.float64).reshape(-1, 1) if np.ndim(error) == 1 else error, (b, m)),
                     dtype=np.float64, order="C")
    bound = np.array(np.broadcast_to(np.asarray(matrix_bound, dtype=np.float64), (b,)), order="C")
    score_rounding = 2.0 * (UNIT_ROUNDOFF + rounding_gamma(2 * d) * (1 + UNIT_ROUNDOFF))
    step_rounding = 2.0 * (alpha_b * rounding_gamma(2) + rounding_gamma(3) * (1 + alpha_b * (1 + rounding_gamma(2)))) / (1 + alpha_b)
    return Z, weights, counts, At, alpha_b, error, bound, score_rounding, np.array(step_rounding, order="C")


def run_layer(kernel, inputs: tuple, *, record: bool = True) -> dict[str, np.ndarray]:
    """Every output of one call of ``kernel`` on ``inputs`` (from :func:`layer_inputs`), by name; the
    outputs start from the same fill as in float_layers, NaN for the margins it leaves unwritten."""
    Z = inputs[0]
    b, m, _ = Z.shape
    out = dict(new_Z=np.zeros_like(Z), new_error=np.zeros((b, m)), argmax=np.zeros((b, m), dtype=np.int64),
               undecided=np.zeros((b, m), dtype=np.bool_), tie=np.zeros((b, m), dtype=np.bool_),
               attention=np.zeros((b, m, m) if record else (1, 1, 1), dtype=np.bool_), score_error=np.zeros(b),
               margin=np.full((b, m), np.nan))
    kernel(*inputs, record, *(out[name] for name in OUTPUTS))
    return out
