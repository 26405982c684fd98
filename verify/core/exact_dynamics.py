"""The hardmax dynamics of docs/theory.md §1 in exact rational arithmetic: the project's reference engine.

    C_i(Z) = { j : <A z_i, z_j> = max_l <A z_i, z_l> }
    z_i^{k+1} = ( z_i^k + alpha * mean_{j in C_i(Z^k)} z_j^k ) / (1 + alpha)

This module is the one exact implementation of that rule; everything exact in the package
(simulate, the claim checks, the sentiment model's certified evaluation, the conjecture lab)
calls :func:`exact_layers`.

How it is fast without giving up exactness:

* All positions of a layer share one positive denominator D, so Z = N / D with an integer
  matrix N. Scores <A z_i, z_j> = (N A^T N^T)_ij / (D^2 a) with a > 0, so the attention sets
  are decided by comparing *integers*, computed with one python-flint ``fmpz_mat`` product.
* Identical tokens stay identical forever (docs/theory.md D5) and always tie, so they are merged
  into one point with a multiplicity; the mean over C_i is the multiplicity-weighted mean.
  Results are expanded back to the original token indices.
* A proven float prefilter decides most attention sets without the quadratic integer product:
  a point is dropped from a row's candidates only where a rigorous rounding bound proves that
  it scores below another, and a row left with one candidate has it as its exact attention
  set. The remaining candidates of a row (every exact tie among them) are compared on the
  integers as before. The prefilter only chooses which integer scores are computed, so the
  layers are the same, number for number, as without it (``prefilter=False``, the oracle of
  the tests). The exact scores of a layer are computed when first read (:attr:`ExactLayer.scores`).

The prefilter's bound
---------------------
Write u = 2^-53 and gamma_k = k u / (1 - k u) (Higham, *Accuracy and Stability of Numerical
Algorithms*, Lemma 3.1; :mod:`verify.core.float_rounding`). The integer score of row u is
s_uv = w_u . N_v with the exact integer row w_u = N_u B (B = A^T times a positive integer, or
I), so only dot products of length d are approximated.

*One scaled dot product.* Let w and y be integer vectors of length d, scaled by 2^-r and 2^-s
(r, s >= 0 the smallest shifts that leave every entry below 2^52 in magnitude, from
``int.bit_length``): x_c = floor(w_c / 2^r) and y'_c = floor(y_c / 2^s) are integers of
magnitude at most 2^52, so converting them to float64 is exact, and w_c / 2^r = x_c + a_c,
y_c / 2^s = y'_c + b_c with a_c, b_c in [0, 1), and a_c = 0 when r = 0, b_c = 0 when s = 0. No value can overflow (|x_c y'_c| <= 2^104, a sum
of d of them at most d 2^104) or underflow (every product and partial sum of integer-valued
floats is an integer: 0 or at least 1 in magnitude), whatever the size of the integers:
thousands of bits only raise r and s. The float t = fl(sum_c x_c y'_c), summed in any order, is
within gamma_d sum_c |x_c| |y'_c| of sum_c x_c y'_c (Higham (3.5); there is no underflow term),
which is within sum_c (a_c |y'_c| + |x_c| b_c + a_c b_c) of S = (w . y) / 2^(r + s). With
X = sum_c |x_c|, Y = max_c |y'_c|, Y1 = sum_c |y'_c| and [P] = 1 if P holds, else 0:

    |t - S| <= R = gamma_d X Y + [r > 0] Y1 + [s > 0] X + [r > 0 and s > 0] d.

R is evaluated in float64 (R') with at most 2d + 10 roundings of non-negative terms, so
R' >= (1 - u)^(2d+10) R > R / 2 for any d < 2^50: the factor 2 below is that safety factor.

*Scores (float_candidates).* Row u is scaled by its own 2^-r_u, all points by one 2^-s, so
the t_uv of one row share one positive scale and a row-wide R_u (Y and Y1 the maxima over the
points) bounds every |t_uv - S_uv|. Let t_* be the row's largest float score. Point v is
dropped when t_*, t_uv and R'_u are finite and fl(t_* - t_uv) > 4 R'_u: then t_* - t_uv >=
fl(t_* - t_uv) / (1 + u) > 2 R_u, so S_* - S_uv >= (t_* - R_u) - (t_uv + R_u) > 0 and v is not
a maximiser. The point of score t_* itself is never dropped.

*Differences (refine_candidates).* Where points are close (late layers: clusters shrink by
1 / (1 + alpha) a layer) their scores agree to more than float64 resolves, but the exact
difference s_uv - s_ur = w_u . (N_v - N_r) against a reference candidate r is a dot product
with a short integer vector, scaled by its own 2^-s_v (its sign is all that is used). When its
float t and R' are finite and -t > 2 R', then S <= t + R < R - 2 R' < 0: v scores below r and
is dropped; r is kept. The next round takes as reference the candidate of largest estimated
difference, so a row whose exact top is r ends with the single candidate r.

Each step keeps every exact maximiser of the row among its candidates, so a single candidate
is the exact attention set, and more than one is compared exactly. A float tie, any
non-finite value, or a gap within the bound keeps a candidate, so exactly equal scores are
always decided on the integers. The resolution of the scores step is relative: a gap is seen
when it exceeds about 4 d^2 2^-52 times the row's largest |score| (as scaled).

The optional value matrix V (docs/theory.md §6, a model variant for the conjecture lab) replaces
alpha: z^{k+1} = (I + V)^{-1} (z + V m). With V = alpha I this is the rule above.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from math import gcd, lcm
from typing import Iterator, Sequence

import numpy as np
from flint import fmpz_mat

from .float_rounding import rounding_gamma
from .linalg import identity, matmul, solve, transpose
from .numbers import InputError, to_rational

__all__ = ["TokenGroups", "ExactLayer", "exact_layers", "group_tokens", "prefilter_candidates", "float_candidates",
           "refine_candidates", "proven_below_top"]


@dataclass(frozen=True)
class TokenGroups:
    """Identical tokens merged: ``members[u]`` are the original indices of distinct point u."""

    members: tuple[tuple[int, ...], ...]
    point_of: tuple[int, ...]  # original token index -> distinct point index

    @property
    def weights(self) -> tuple[int, ...]:
        return tuple(len(m) for m in self.members)

    def expand(self, points: Sequence[int]) -> frozenset[int]:
        """Original token indices of a set of distinct points."""
        return frozenset(i for u in points for i in self.members[u])


def group_tokens(tokens: Sequence[Sequence[object]]) -> TokenGroups:
    first: dict[tuple, int] = {}
    members: list[list[int]] = []
    point_of: list[int] = []
    for i, token in enumerate(tokens):
        key = tuple(token)
        u = first.setdefault(key, len(members))
        if u == len(members):
            members.append([])
        members[u].append(i)
        point_of.append(u)
    return TokenGroups(tuple(tuple(m) for m in members), tuple(point_of))


@dataclass(frozen=True)
class ExactLayer:
    """Layer k of the exact dynamics, on the distinct points.

    Positions are ``numerators[u][c] / denominator`` (one common positive denominator);
    ``attention[u]`` is C_u(Z^k) as sorted distinct-point indices: the set used to go from
    layer k to layer k+1. ``scores`` is the integer matrix the sets are decided by:
    <A z_u, z_v> = scores[u, v] / (denominator^2 * score_scale). ``score_form`` is the integer
    matrix N B with scores = score_form * N^T (N the numerators); ``scores`` is computed from it
    when first read (None when the layer carries no ``score_form``, as a test double's).
    """

    index: int
    numerators: tuple[tuple[int, ...], ...]
    denominator: int
    attention: tuple[tuple[int, ...], ...]
    groups: TokenGroups
    score_form: fmpz_mat | None = None
    score_scale: int = 1

    @cached_property
    def scores(self) -> fmpz_mat | None:
        if self.score_form is None:
            return None
        return self.score_form * fmpz_mat([list(row) for row in self.numerators]).transpose()

    def point(self, u: int) -> tuple[Fraction, ...]:
        return tuple(Fraction(x, self.denominator) for x in self.numerators[u])

    def positions(self) -> list[tuple[Fraction, ...]]:
        """Exact positions of all original tokens."""
        points = [self.point(u) for u in range(len(self.numerators))]
        return [points[u] for u in self.groups.point_of]

    def attention_sets(self) -> list[frozenset[int]]:
        """C_i(Z^k) for every original token i, as original indices."""
        expanded = [self.groups.expand(c) for c in self.attention]
        return [expanded[u] for u in self.groups.point_of]

    def leaders(self) -> list[int]:
        """Original indices with C_i = {i} at this layer (a duplicated token never qualifies)."""
        return [self.groups.members[u][0] for u, c in enumerate(self.attention)
                if c == (u,) and len(self.groups.members[u]) == 1]


def _integer_scaled(matrix: Sequence[Sequence[Fraction]]) -> tuple[list[list[int]], int]:
    """matrix = result / scale with integer entries and a positive integer scale."""
    scale = lcm(*(x.denominator for row in matrix for x in row)) if matrix else 1
    return [[int(x * scale) for x in row] for row in matrix], scale


def _reduce(numerators: list[list[int]], denominator: int) -> tuple[tuple[tuple[int, ...], ...], int]:
    common = denominator
    for row in numerators:
        for x in row:
            common = gcd(common, x)
            if common == 1:
                break
        if common == 1:
            break
    if common > 1:
        numerators = [[x // common for x in row] for row in numerators]
        denominator //= common
    return tuple(tuple(row) for row in numerators), denominator


def _attention_sets(scores: fmpz_mat, m: int) -> tuple[tuple[int, ...], ...]:
    entries = scores.entries()
    sets = []
    for u in range(len(entries) // m):
        row = entries[u * m:(u + 1) * m]
        top = max(row)
        sets.append(tuple(j for j, s in enumerate(row) if s == top))
    return tuple(sets)


# Below 2^52 in magnitude an integer converts to float64 exactly, and a product of two stays finite.
_FLOAT_BITS = 52
# 2 for the two scores of a comparison, times 2 for the bound's own float evaluation (module docstring).
_PREFILTER_FACTOR = 4.0
# One computed sign against its bound, times 2 for the bound's own float evaluation.
_DIFFERENCE_FACTOR = 2.0
# Rounds of refine_candidates: the second starts from the best reference the first estimated.
_REFINE_ROUNDS = 3


def _bit_lengths(rows: Sequence[Sequence[int]]) -> list[int]:
    return [max(map(int.bit_length, row)) for row in rows]


def _scaled_floats(rows: Sequence[Sequence[int]], shifts: Sequence[int], d: int) -> np.ndarray:
    """floor(rows[u][c] / 2^shifts[u]) as float64: exact, each at most 2^52 in magnitude."""
    return np.array([[x >> r for x in row] if r else row for row, r in zip(rows, shifts)],
                    dtype=np.float64).reshape(len(rows), d)


def _float_dots(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """t[u, v] = fl(sum_c x[u, c] y[v, c]), summed left to right, one IEEE rounding per operation."""
    t = np.multiply.outer(x[:, 0], y[:, 0])
    for c in range(1, x.shape[1]):
        t += np.multiply.outer(x[:, c], y[:, c])
    return t


def _dot_bound(x_norm: np.ndarray, y_max: np.ndarray | float, y_sum: np.ndarray | float, d: int,
               x_shifted: np.ndarray, y_shifted: np.ndarray | bool) -> np.ndarray:
    """R = gamma_d X Y + [r > 0] Y1 + [s > 0] X + [r > 0 and s > 0] d of the module docstring
    ("One scaled dot product"), in float64; ``x_shifted`` and ``y_shifted`` say where r > 0 and s > 0."""
    return (rounding_gamma(d) * x_norm * y_max + np.where(x_shifted, y_sum, 0.0) + np.where(y_shifted, x_norm, 0.0)
            + np.where(x_shifted & y_shifted, float(d), 0.0))


def proven_below_top(top: np.ndarray, scores: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Where fl(top_u - t_uv) > 4 R'_u with every value finite: point v is proven to score below row u's top.

    ``top`` and ``bound`` are per row, ``scores`` the float scores (module docstring,
    "Scores"). NaN or an infinity anywhere in a comparison gives False: the point
    stays a candidate and the exact path decides.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        top_column, bound_column = top[:, None], bound[:, None]
        gap = top_column - scores
        finite = np.isfinite(top_column) & np.isfinite(scores) & np.isfinite(bound_column) & np.isfinite(gap)
        return finite & (gap > _PREFILTER_FACTOR * bound_column)


def float_candidates(rows: Sequence[Sequence[int]], points: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    """For each row u, the points that may maximise s_uv = rows[u] . points[v]: every exact maximiser is among them.

    A point is left out only where the float prefilter proves that it scores below another
    (module docstring, "Scores"), so a single candidate is the exact attention set; more than
    one (a tie, a near tie, anything not finite) leaves the row to the next steps. Each tuple
    starts with the row's float argmax, then the other candidates in index order. ``points``
    are the integer numerators of the m distinct points.
    """
    m, d = len(points), len(points[0])
    if m == 1 or d == 0:
        return [tuple(range(m))] * len(rows)
    point_bits = _bit_lengths(points)
    s = max(0, max(point_bits) - _FLOAT_BITS)
    y = _scaled_floats(points, [s] * m, d)
    row_bits = point_bits if rows is points else _bit_lengths(rows)
    row_shifts = [max(0, b - _FLOAT_BITS) for b in row_bits]
    x = _scaled_floats(rows, row_shifts, d)
    t = _float_dots(x, y)
    top = t.max(axis=1)
    abs_y = np.abs(y)
    bound = _dot_bound(np.abs(x).sum(axis=1), abs_y.max(), abs_y.sum(axis=1).max(), d,
                       np.array(row_shifts) > 0, s > 0)
    open_ = ~proven_below_top(top, t, bound)
    count = open_.sum(axis=1)
    best = np.argmax(open_, axis=1)
    top_index = np.argmax(t, axis=1)
    return [(int(b),) if k == 1 else (int(i),) + tuple(int(v) for v in np.flatnonzero(row) if v != i)
            for b, i, k, row in zip(best, top_index, count, open_)]


def refine_candidates(rows: Sequence[Sequence[int]], points: Sequence[Sequence[int]],
                      candidates: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Shrink candidate sets with float signs of exact score differences against a reference candidate.

    ``candidates[u]`` starts with row u's reference r (the float argmax of :func:`float_candidates`,
    or the best estimate of a previous round); a candidate v is dropped where the sign of
    s_uv - s_ur = rows[u] . (points[v] - points[r]) is proven negative in float (module
    docstring, "Differences"). Every exact maximiser of each row stays among its candidates;
    the returned tuples start with the next reference.
    """
    d = len(points[0])
    refined = list(candidates)
    by_reference: dict[int, list[int]] = {}
    for u, row_candidates in enumerate(candidates):
        if len(row_candidates) > 1:
            by_reference.setdefault(row_candidates[0], []).append(u)
    if not by_reference:
        return refined
    row_bits = _bit_lengths(rows)
    for r, open_rows in by_reference.items():
        others = sorted({v for u in open_rows for v in candidates[u]} - {r})
        reference = points[r]
        differences = [[a - b for a, b in zip(points[v], reference)] for v in others]
        shifts = [max(0, b - _FLOAT_BITS) for b in _bit_lengths(differences)]
        y = _scaled_floats(differences, shifts, d)
        row_shifts = [max(0, row_bits[u] - _FLOAT_BITS) for u in open_rows]
        x = _scaled_floats([rows[u] for u in open_rows], row_shifts, d)
        t = _float_dots(x, y)
        abs_y = np.abs(y)
        bound = _dot_bound(np.abs(x).sum(axis=1)[:, None], abs_y.max(axis=1)[None, :], abs_y.sum(axis=1)[None, :], d,
                           (np.array(row_shifts) > 0)[:, None], (np.array(shifts) > 0)[None, :])
        with np.errstate(invalid="ignore", over="ignore"):
            below = np.isfinite(t) & np.isfinite(bound) & (-t > _DIFFERENCE_FACTOR * bound)
        # On one scale per row (the shifts differ between points): only to choose the next reference.
        with np.errstate(over="ignore"):
            estimate = np.ldexp(t, np.array(shifts) - min(shifts))
        column = {v: j for j, v in enumerate(others)}
        for i, u in enumerate(open_rows):
            kept = [v for v in candidates[u] if v != r and not below[i, column[v]]]
            # The next reference: the candidate of largest float difference (r's own is 0).
            best, best_difference = r, 0.0
            for v in kept:
                if estimate[i, column[v]] > best_difference:
                    best, best_difference = v, estimate[i, column[v]]
            refined[u] = (best,) + tuple(sorted(v for v in [r, *kept] if v != best))
    return refined


def prefilter_candidates(rows: Sequence[Sequence[int]], points: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    """Row u's candidates after the whole prefilter: a single one is its exact attention set.

    :func:`float_candidates`, then up to three rounds of :func:`refine_candidates`; every exact
    maximiser of each row is among its candidates (module docstring, "The prefilter's bound").
    """
    candidates = float_candidates(rows, points)
    for _ in range(_REFINE_ROUNDS):
        refined = refine_candidates(rows, points, candidates)
        if refined == candidates:
            break
        candidates = refined
    return candidates


def _decide(W: fmpz_mat, N: fmpz_mat, numerators: Sequence[Sequence[int]], form_rows: Sequence[Sequence[int]],
            m: int, prefilter: bool) -> tuple[tuple[tuple[int, ...], ...], fmpz_mat | None]:
    """Attention sets of one layer, and the full integer score matrix when it was computed."""
    if not prefilter:
        scores = W * N.transpose()
        return _attention_sets(scores, m), scores
    candidates = prefilter_candidates(form_rows, numerators)
    open_rows = [u for u, c in enumerate(candidates) if len(c) > 1]
    if not open_rows:
        return tuple(candidates), None
    if sum(len(candidates[u]) for u in open_rows) > m * m // 2:
        scores = W * N.transpose()
        return _attention_sets(scores, m), scores
    sets = list(candidates)
    for u in open_rows:
        w = form_rows[u]
        row = [sum(a * b for a, b in zip(w, numerators[v])) for v in candidates[u]]
        top = max(row)
        sets[u] = tuple(sorted(v for v, score in zip(candidates[u], row) if score == top))
    return tuple(sets), None


def exact_layers(tokens: Sequence[Sequence[object]], *, alpha: object,
                 A: Sequence[Sequence[object]] | None = None,
                 V: Sequence[Sequence[object]] | None = None, prefilter: bool = True) -> Iterator[ExactLayer]:
    """Yield layers 0, 1, 2, ... of the exact dynamics, without end (the caller decides when to stop).

    Parameters
    ----------
    tokens
        n tokens in Q^d; anything :func:`verify.core.numbers.to_rational` accepts.
    alpha
        The step parameter alpha > 0 (ignored when ``V`` is given).
    A
        The d x d attention matrix, identity when None. Any square rational matrix: the
        theorem's hypotheses are checked by :mod:`verify.core.config`, not here.
    V
        Optional value matrix (docs/theory.md §6 variant); I + V must be invertible.
    prefilter
        Decide the rows the float prefilter proves in float (module docstring). False decides
        every row on the integers: the same layers, kept as the tests' oracle for the prefilter.
    """
    exact_tokens = [tuple(to_rational(x, field=f"tokens[{i}][{c}]") for c, x in enumerate(t))
                    for i, t in enumerate(tokens)]
    if not exact_tokens:
        raise InputError("tokens", "expected at least one token")
    d = len(exact_tokens[0])
    groups = group_tokens(exact_tokens)
    points = [exact_tokens[m[0]] for m in groups.members]
    weights = groups.weights
    m = len(points)

    A_exact = identity(d) if A is None else [[to_rational(x, field="A") for x in row] for row in A]
    # <A z_u, z_v> = z_u^T A^T z_v; scaling A by a positive integer does not change any argmax.
    A_transposed_int, A_scale = _integer_scaled(transpose(A_exact))
    A_is_identity = A is None or A_exact == identity(d)
    score_matrix = fmpz_mat(A_transposed_int)

    if V is None:
        a = to_rational(alpha, field="alpha")
        # z' = (q z + p m) / (p + q) for alpha = p/q: two integer scalars.
        keep_scalar, mean_scalar, step_denominator = a.denominator, a.numerator, a.numerator + a.denominator
        keep_matrix = mean_matrix = None
    else:
        V_exact = [[to_rational(x, field="V") for x in row] for row in V]
        I_plus_V = [[identity(d)[r][c] + V_exact[r][c] for c in range(d)] for r in range(d)]
        columns = [solve(I_plus_V, [Fraction(int(r == c)) for r in range(d)]) for c in range(d)]
        if any(col is None for col in columns):
            raise InputError("V", "I + V is singular, so the value-matrix update is undefined")
        inverse = transpose(columns)  # type: ignore[arg-type]
        keep = inverse
        mean = matmul(inverse, V_exact)
        keep_int, keep_scale = _integer_scaled(keep)
        mean_int, mean_scale = _integer_scaled(mean)
        step_denominator = lcm(keep_scale, mean_scale)
        keep_matrix = [[x * (step_denominator // keep_scale) for x in row] for row in keep_int]
        mean_matrix = [[x * (step_denominator // mean_scale) for x in row] for row in mean_int]
        keep_scalar = mean_scalar = 0

    scaled, denominator = _integer_scaled(points)
    numerators, denominator = _reduce(scaled, denominator)

    k = 0
    while True:
        N = fmpz_mat([list(row) for row in numerators])
        if A_is_identity:
            W, form_rows = N, numerators
        else:
            W = N * score_matrix
            entries = [int(x) for x in W.entries()]
            form_rows = tuple(tuple(entries[u * d:(u + 1) * d]) for u in range(m))
        attention, scores = _decide(W, N, numerators, form_rows, m, prefilter)
        layer = ExactLayer(k, numerators, denominator, attention, groups, W, 1 if A_is_identity else A_scale)
        if scores is not None:
            layer.__dict__["scores"] = scores  # already computed: fill cached_property's cache
        yield layer

        # Means over C_u with multiplicities; L = lcm of the total weights puts them on one denominator.
        totals = [sum(weights[v] for v in c) for c in attention]
        L = lcm(*totals)
        sums = []
        for c, total in zip(attention, totals):
            factor = L // total
            if len(c) == 1:
                v = c[0]
                sums.append([factor * weights[v] * x for x in numerators[v]])
            else:
                sums.append([factor * sum(weights[v] * numerators[v][col] for v in c) for col in range(d)])
        if keep_matrix is None or mean_matrix is None:  # both None exactly when V is None
            new = [[keep_scalar * L * x + mean_scalar * s for x, s in zip(row, total_sum)]
                   for row, total_sum in zip(numerators, sums)]
        else:
            new = [[sum(keep_matrix[r][c] * L * row[c] + mean_matrix[r][c] * total_sum[c] for c in range(d))
                    for r in range(d)] for row, total_sum in zip(numerators, sums)]
        numerators, denominator = _reduce(new, step_denominator * L * denominator)
        k += 1
