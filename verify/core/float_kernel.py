"""The compiled layer kernel of the float engine (:mod:`verify.core.float_dynamics`, whose docstring derives its bounds).

In a module of its own so that importing the float engine does not import numba: numba takes
about a second of CPU to import, paid only when a float layer runs.
"""

from __future__ import annotations

import contextlib

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

__all__ = ["layer_kernel", "threads_for", "PARALLEL_MIN_WORK"]

# A layer is worth a thread team only from about this many multiply-adds (sum of n^2 d over the
# batch's configurations): waking the threads costs microseconds on an idle machine and
# milliseconds on a busy one (measured: 250 ms instead of 3 ms per 30-layer run of a small
# configuration on a shared 2-core machine).
PARALLEL_MIN_WORK = 1 << 18


@numba.njit(inline="always", cache=True)
def _pair_score_bound(eu, ru, ev, rv, pair_scale, score_rounding, d):  # pragma: no cover - compiled
    """E_uv of the docstring of :mod:`verify.core.float_dynamics`, from both points' errors e and sizes rho: the relative part
    scaled by d^2 a, and the absolute underflow part, which does not shrink with a."""
    return (pair_scale * (eu * rv + ru * ev + eu * ev + score_rounding * (ru + eu) * (rv + ev))
            + UNDERFLOW_SLACK * d * (1.0 + d * (ru + rv)))


ROWS = 4  # rows of scores computed together: each column value loaded once for four rows


@numba.njit(inline="always", cache=True)
def _block_scores(directions, columns, u0, rows, block, count, d):  # pragma: no cover - compiled
    """block[j, v] = <direction of u0 + j, z_v> for j < rows, each summed over r = 0, 1, ... from 0 as the
    rounding bound counts it (float_dynamics docstring, "score"): v innermost, so the compiler
    vectorises over v, and each pass adds four terms r..r+3 in order for all rows at once."""
    for j in range(rows):
        for v in range(count):
            block[j, v] = 0.0
    if rows < ROWS:
        for j in range(rows):
            for r in range(d):
                dr = directions[u0 + j, r]
                cr = columns[r]
                row = block[j]
                for v in range(count):
                    row[v] += dr * cr[v]
        return
    s0 = block[0]
    s1 = block[1]
    s2 = block[2]
    s3 = block[3]
    r = 0
    while r + 4 <= d:
        a0, a1, a2, a3 = directions[u0, r], directions[u0, r + 1], directions[u0, r + 2], directions[u0, r + 3]
        b0, b1, b2, b3 = directions[u0 + 1, r], directions[u0 + 1, r + 1], directions[u0 + 1, r + 2], directions[u0 + 1, r + 3]
        e0, e1, e2, e3 = directions[u0 + 2, r], directions[u0 + 2, r + 1], directions[u0 + 2, r + 2], directions[u0 + 2, r + 3]
        f0, f1, f2, f3 = directions[u0 + 3, r], directions[u0 + 3, r + 1], directions[u0 + 3, r + 2], directions[u0 + 3, r + 3]
        c0, c1, c2, c3 = columns[r], columns[r + 1], columns[r + 2], columns[r + 3]
        for v in range(count):
            x0, x1, x2, x3 = c0[v], c1[v], c2[v], c3[v]
            acc = s0[v]
            acc += a0 * x0
            acc += a1 * x1
            acc += a2 * x2
            acc += a3 * x3
            s0[v] = acc
            acc = s1[v]
            acc += b0 * x0
            acc += b1 * x1
            acc += b2 * x2
            acc += b3 * x3
            s1[v] = acc
            acc = s2[v]
            acc += e0 * x0
            acc += e1 * x1
            acc += e2 * x2
            acc += e3 * x3
            s2[v] = acc
            acc = s3[v]
            acc += f0 * x0
            acc += f1 * x1
            acc += f2 * x2
            acc += f3 * x3
            s3[v] = acc
        r += 4
    while r < d:
        a0, b0, e0, f0 = directions[u0, r], directions[u0 + 1, r], directions[u0 + 2, r], directions[u0 + 3, r]
        c0 = columns[r]
        for v in range(count):
            x0 = c0[v]
            s0[v] += a0 * x0
            s1[v] += b0 * x0
            s2[v] += e0 * x0
            s3[v] += f0 * x0
        r += 1


@numba.njit(inline="always", cache=True)
def _first_maximum(scores, count):  # pragma: no cover - compiled
    """(index, value) of the first v whose score exceeds every earlier one, (-1, -inf) when none exceeds
    -inf: what the scan "if s_v > best: take v" gives, NaN never taken. Four interleaved scans
    (v = 0, 1, 2, 3 mod 4) run without waiting for each other; of their maxima the earliest index among
    the equal ones is the scan's answer."""
    t0 = t1 = t2 = t3 = -np.inf
    i0 = i1 = i2 = i3 = -1
    v = 0
    while v + 4 <= count:
        x = scores[v]
        if x > t0:
            t0 = x
            i0 = v
        x = scores[v + 1]
        if x > t1:
            t1 = x
            i1 = v + 1
        x = scores[v + 2]
        if x > t2:
            t2 = x
            i2 = v + 2
        x = scores[v + 3]
        if x > t3:
            t3 = x
            i3 = v + 3
        v += 4
    while v < count:
        x = scores[v]
        if x > t0:
            t0 = x
            i0 = v
        v += 1
    top, index = t0, i0
    for t, i in ((t1, i1), (t2, i2), (t3, i3)):
        if i >= 0 and (t > top or (t == top and (index < 0 or i < index))):
            top, index = t, i
    return index, top


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
        block = np.empty((ROWS, count))
        for u in range(count):
            j = u % ROWS
            if j == 0:
                _block_scores(directions, columns, u, min(ROWS, count - u), block, count, d)
            scores = block[j]
            best, top = _first_maximum(scores, count)
            if best < 0:
                best = 0
            # Vectorised counts, free of any order: non-finite scores and float maximisers.
            nonfinite = 0
            equal = 0
            for v in range(count):
                acc = scores[v]
                nonfinite += not np.isfinite(acc)
                equal += acc == top
            finite = nonfinite == 0
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
            # With the top score set aside (-inf is never taken), the scan's maximum of the others.
            kept = scores[best]
            scores[best] = -np.inf
            second = _first_maximum(scores, count)[1]
            scores[best] = kept
            if not near:
                failed = 0
                for v in range(count):
                    failed += not (top - scores[v] > quick)
                # The quick test always fails for v = best itself (when top - top = 0 <= quick).
                if failed > (not (top - scores[best] > quick)):
                    for v in range(count):
                        if v != best and not (top - scores[v] > quick):
                            bound_v = _pair_score_bound(eu, ru, error[b, v], magnitude[v], pair_scale, score_rounding, d)
                            if not (top - scores[v] > (bound_top + bound_v) * BOUND_SAFETY):
                                near = True
                                break
            if record or equal != 1:
                found = 0
                for v in range(count):
                    if scores[v] == top:
                        members[found] = v
                        found += 1
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



class _Threads(contextlib.AbstractContextManager["_Threads"]):
    """numba's thread count for the calls within: one when the batch is too little work for a team.

    The kernel parallelises over configurations only, each computed the same way on any thread,
    so the results do not depend on the count.
    """

    def __init__(self, single: bool) -> None:
        self.single = single
        self.previous = 0

    def __enter__(self) -> "_Threads":
        if self.single:
            self.previous = numba.get_num_threads()
            numba.set_num_threads(1)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.single:
            numba.set_num_threads(self.previous)


def threads_for(counts: np.ndarray, d: int) -> _Threads:
    """The thread setting for layers of a batch with ``counts`` points per configuration in dimension ``d``."""
    work = int(np.sum(np.asarray(counts, dtype=np.int64) ** 2)) * d
    return _Threads(single=len(counts) < 2 or work < PARALLEL_MIN_WORK)
