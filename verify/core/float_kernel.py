"""The compiled layer kernel of the float engine (:mod:`verify.core.float_dynamics`, whose docstring derives its bounds).

In a module of its own so that importing the float engine does not import numba: numba takes
about a second of CPU to import, paid only when a float layer runs.
"""

from __future__ import annotations

import numba
import numpy as np

from .float_rounding import BOUND_SAFETY, UNDERFLOW_SLACK

# A float64 product or difference rounds by a relative 2^-53 at most: multiplying by these
# (1 -+ 2^-50) after each rounded step turns a computed margin into a lower bound of the exact one.
MARGIN_DOWN = 1.0 - 2.0 ** -50
MARGIN_UP = 1.0 + 2.0 ** -50
# Below this a computed margin may have lost its meaning to underflow: it is reported as 0 (no margin).
MARGIN_FLOOR = 2.0 ** -900
LARGEST_FLOAT = 1.7976931348623157e308

__all__ = ["layer_kernel"]


@numba.njit(inline="always", cache=True)
def _pair_score_bound(eu, ru, ev, rv, pair_scale, score_rounding, d):  # pragma: no cover - compiled
    """E_uv of the docstring of :mod:`verify.core.float_dynamics`, from both points' errors e and sizes rho: the relative part
    scaled by d^2 a, and the absolute underflow part, which does not shrink with a."""
    return (pair_scale * (eu * rv + ru * ev + eu * ev + score_rounding * (ru + eu) * (rv + ev))
            + UNDERFLOW_SLACK * d * (1.0 + d * (ru + rv)))


@numba.njit(parallel=True, cache=True)
def layer_kernel(Z, W, counts, At, alpha, error, matrix_bound, score_rounding, step_rounding, record,
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
        members = np.empty(count, dtype=np.int64)
        # Structure of arrays: coordinate r of every point is contiguous, so a row's scores are d
        # passes over v that the compiler vectorises, each score still summed over r = 0, 1, ...
        # from 0 exactly as the rounding bound counts it (float_dynamics docstring, "score").
        columns = np.empty((d, count))
        directions = np.zeros((count, d))
        largest_error = 0.0
        largest_magnitude = 0.0
        for v in range(count):
            top_coordinate = 0.0
            for r in range(d):
                x = Z[b, v, r]
                columns[r, v] = x
                top_coordinate = max(top_coordinate, abs(x))
            magnitude[v] = top_coordinate
            largest_error = max(largest_error, error[b, v])
            largest_magnitude = max(largest_magnitude, top_coordinate)
        # directions[u, r] = sum_c Z[u, c] At[c, r], summed over c = 0, 1, ... from 0.
        for u in range(count):
            for c in range(d):
                x = Z[b, u, c]
                for r in range(d):
                    directions[u, r] += x * At[b, c, r]
        worst_pair = 0.0
        for u in range(count):
            for v in range(count):
                scores[v] = 0.0
            r = 0
            # Four terms of each score per pass: one load and store of the partial score per four
            # products, the terms still added one at a time in the order of r.
            while r + 4 <= d:
                d0 = directions[u, r]
                d1 = directions[u, r + 1]
                d2 = directions[u, r + 2]
                d3 = directions[u, r + 3]
                c0 = columns[r]
                c1 = columns[r + 1]
                c2 = columns[r + 2]
                c3 = columns[r + 3]
                for v in range(count):
                    acc = scores[v]
                    acc += d0 * c0[v]
                    acc += d1 * c1[v]
                    acc += d2 * c2[v]
                    acc += d3 * c3[v]
                    scores[v] = acc
                r += 4
            while r < d:
                dr = directions[u, r]
                cr = columns[r]
                for v in range(count):
                    scores[v] += dr * cr[v]
                r += 1
            top = -np.inf
            best = 0
            finite = True
            for v in range(count):
                acc = scores[v]
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
                    members[equal] = v
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
                for i in range(equal):
                    total += W[b, members[i]]
                for r in range(d):
                    acc = 0.0
                    for i in range(equal):
                        acc += W[b, members[i]] * Z[b, members[i], r]
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

