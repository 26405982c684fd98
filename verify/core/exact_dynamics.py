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

The optional value matrix V (docs/theory.md §6, a model variant for the conjecture lab) replaces
alpha: z^{k+1} = (I + V)^{-1} (z + V m). With V = alpha I this is the rule above.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import gcd, lcm
from typing import Iterator, Sequence

from flint import fmpz_mat

from .linalg import identity, matmul, solve, transpose
from .numbers import InputError, to_rational

__all__ = ["TokenGroups", "ExactLayer", "exact_layers", "group_tokens"]


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
    layer k to layer k+1. ``scores`` is the integer matrix the sets were decided from:
    <A z_u, z_v> = scores[u, v] / (denominator^2 * score_scale).
    """

    index: int
    numerators: tuple[tuple[int, ...], ...]
    denominator: int
    attention: tuple[tuple[int, ...], ...]
    groups: TokenGroups
    scores: fmpz_mat | None = None
    score_scale: int = 1

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
    for u in range(m):
        row = entries[u * m:(u + 1) * m]
        top = max(row)
        sets.append(tuple(j for j, s in enumerate(row) if s == top))
    return tuple(sets)


def exact_layers(tokens: Sequence[Sequence[object]], *, alpha: object,
                 A: Sequence[Sequence[object]] | None = None,
                 V: Sequence[Sequence[object]] | None = None) -> Iterator[ExactLayer]:
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
            scores = N * N.transpose()
        else:
            scores = N * score_matrix * N.transpose()
        attention = _attention_sets(scores, m)
        yield ExactLayer(k, numerators, denominator, attention, groups, scores, 1 if A_is_identity else A_scale)

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
