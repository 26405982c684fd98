"""Similarity certificates (docs/theory.md D11): an attention pattern that repeats for ever, from p + 1 exact layers.

If a linear map M of R^d satisfies M^T A M = s A for a rational s > 0 and the layers satisfy
z_i^{k+p} = M z_{P(i)}^k for a permutation P of the tokens, then every score of layer k + p is s
times a score of layer k (relabelled), so the attention sets repeat, Z^{k+p+t} = M P Z^{k+t} for
every t >= 0, and a token leads at layer k + p + t exactly when P(i) leads at layer k + t. So a
run with no leader at layers 0..k+p-1 has no leader at any layer. Every position of layer
k + jp + t is M^j applied to a position of layer k + t, so when some power M^q has row sums of
absolute values below 1 (its infinity norm, ``contraction_power`` q), M^j -> 0 and every token
converges to 0.

:func:`find_similarity` searches for (k, p, M, P, s) among the layers of a run and returns a
:class:`Similarity` it has checked exactly (:func:`check_similarity`, the one implementation of
the conditions in the suite; the independent checker has its own, ``verify/certcheck/kernel/similarity.py``).
How M is found: P is searched on the score matrices (s S^k_{P(i) P(j)} = S^{k+p}_{ij} is
necessary); then M is solved on the span U of layer k's positions and, when U is not all of R^d,
extended as t I (t^2 = s) on a complement W that A separates from U (x^T A w = w^T A x = 0), or
M = c I is tried. Finding is a search; the returned certificate is what is checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import isqrt
from typing import Any, Sequence

from .linalg import matmul, nullspace, rank, row_basis, transpose
from .numbers import rational_to_str

__all__ = ["FORMAT", "MAX_PERIOD", "MAX_CONTRACTION_POWER", "Similarity", "find_similarity", "check_similarity",
           "contraction_power", "rational_sqrt", "score_matrix"]

FORMAT = "hardmax-verify/similarity-v1"
MAX_PERIOD = 8           # periods p tried at each layer
MAX_ASSIGNMENT_STEPS = 20_000  # backtracking steps of the relabelling search (a bound, so a search never explodes)
MAX_CONTRACTION_POWER = 16  # powers M^q tried for an infinity norm below 1

Point = tuple[Fraction, ...]
Matrix = Sequence[Sequence[Fraction]]


@dataclass(frozen=True)
class Similarity:
    """z_i^{layer+period} = M z_{relabelling[i]}^{layer} for every token i, with M^T A M = scale A (scale > 0)."""

    layer: int
    period: int
    M: tuple[tuple[Fraction, ...], ...]
    relabelling: tuple[int, ...]
    scale: Fraction
    # q with ||M^q||_inf < 1 (then every token converges to 0), or None: the limits are not certified.
    contraction_power: int | None = None

    @property
    def converges_to_zero(self) -> bool:
        return self.contraction_power is not None

    @property
    def end(self) -> int:
        """The layer k + p: the run's layers 0..end are what the certificate is checked on."""
        return self.layer + self.period

    def to_json_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "layer": self.layer, "period": self.period,
                "M": [[rational_to_str(x) for x in row] for row in self.M],
                "relabelling": list(self.relabelling), "scale": rational_to_str(self.scale),
                "contraction_power": self.contraction_power}

    def describe(self) -> str:
        """One line: Z^{k+p} = M P Z^k with M^T A M = s A."""
        relabel = "" if list(self.relabelling) == sorted(self.relabelling) else " P"
        return (f"Z^{self.end} = M{relabel} Z^{self.layer} with M^T A M = {rational_to_str(self.scale)} A "
                f"(docs/theory.md D11)")


def rational_sqrt(x: Fraction) -> Fraction | None:
    """The nonnegative rational square root of x >= 0, or None when there is none."""
    if x < 0:
        return None
    p, q = isqrt(x.numerator), isqrt(x.denominator)
    return Fraction(p, q) if p * p == x.numerator and q * q == x.denominator else None


def _infinity_norm(M: Matrix) -> Fraction:
    return max(sum((abs(x) for x in row), Fraction(0)) for row in M)


def contraction_power(M: Matrix, *, max_power: int = MAX_CONTRACTION_POWER) -> int | None:
    """The least q <= max_power with ||M^q||_inf < 1 (so M^j -> 0), or None."""
    power = [list(row) for row in M]
    for q in range(1, max_power + 1):
        if _infinity_norm(power) < 1:
            return q
        power = matmul(power, M)
    return None


def score_matrix(positions: Sequence[Sequence[Fraction]], A: Matrix) -> list[list[Fraction]]:
    """S[i][j] = <A z_i, z_j> = z_j^T A z_i (docs/theory.md §1)."""
    d = len(A)
    images = [[sum((A[r][c] * z[c] for c in range(d)), Fraction(0)) for r in range(d)] for z in positions]
    return [[sum((a * b for a, b in zip(image, z)), Fraction(0)) for z in positions] for image in images]


def _scale_of(before: list[list[Fraction]], after: list[list[Fraction]]) -> Fraction | None:
    top_before = max(abs(x) for row in before for x in row)
    top_after = max(abs(x) for row in after for x in row)
    if top_before == 0 or top_after == 0:
        return None
    return top_after / top_before


def _relabellings(before: list[list[Fraction]], after: list[list[Fraction]], s: Fraction) -> list[int] | None:
    """A permutation P with after[i][j] = s before[P(i)][P(j)] for all i, j, or None (bounded backtracking)."""
    n = len(before)
    signature = [(before[c][c], tuple(sorted(before[c])), tuple(sorted(row[c] for row in before))) for c in range(n)]
    candidates: list[list[int]] = []
    for i in range(n):
        wanted = (after[i][i] / s, tuple(sorted(x / s for x in after[i])), tuple(sorted(row[i] / s for row in after)))
        options = [c for c in range(n) if signature[c] == wanted]
        if not options:
            return None
        candidates.append(options)
    order = sorted(range(n), key=lambda i: len(candidates[i]))
    chosen: dict[int, int] = {}
    used: set[int] = set()
    steps = [0]

    def extend(position: int) -> bool:
        if position == n:
            return True
        i = order[position]
        for c in candidates[i]:
            steps[0] += 1
            if steps[0] > MAX_ASSIGNMENT_STEPS:
                return False
            if c in used:
                continue
            if all(after[i][j] == s * before[c][chosen[j]] and after[j][i] == s * before[chosen[j]][c] for j in chosen):
                chosen[i], used_now = c, c
                used.add(used_now)
                if extend(position + 1):
                    return True
                del chosen[i]
                used.discard(used_now)
        return False

    if not extend(0):
        return None
    return [chosen[i] for i in range(n)]


def _solve_map(sources: Sequence[Point], images: Sequence[Point], A: Matrix, s: Fraction) -> list[list[Fraction]] | None:
    """A d x d matrix M with M x = y for every (x, y), defined on all of R^d as described above, or None."""
    d = len(A)
    basis_rows: list[int] = []
    for index in range(len(sources)):
        if rank([sources[i] for i in basis_rows + [index]]) > len(basis_rows):
            basis_rows.append(index)
        if len(basis_rows) == d:
            break
    X = [list(sources[i]) for i in basis_rows]
    Y = [list(images[i]) for i in basis_rows]
    if len(basis_rows) < d:
        t = rational_sqrt(s)
        if t is None:
            return None
        # W: the vectors w with x^T A w = 0 and w^T A x = 0 for every x of U = span(X).
        conditions = [[sum((x[r] * A[r][c] for r in range(d)), Fraction(0)) for c in range(d)] for x in X]
        conditions += [[sum((A[c][r] * x[r] for r in range(d)), Fraction(0)) for c in range(d)] for x in X]
        W = nullspace(conditions, d)
        if len(W) + len(X) != d or rank(X + [list(w) for w in W]) != d:
            return None
        X += [list(w) for w in W]
        Y += [[t * x for x in w] for w in W]
    # M X^T = Y^T, so M = Y^T (X^T)^{-1}: solve X M^T = Y column by column of M^T.
    inverse = _inverse(X)
    if inverse is None:
        return None
    return transpose(matmul(inverse, Y))


def _inverse(X: Sequence[Sequence[Fraction]]) -> list[list[Fraction]] | None:
    d = len(X)
    augmented = [list(row) + [Fraction(int(r == c)) for c in range(d)] for r, row in enumerate(X)]
    reduced = row_basis(augmented)
    if len(reduced) < d or any(reduced[r][r] != 1 for r in range(d)):
        return None
    return [row[d:] for row in reduced]


def check_similarity(layers: Sequence[Sequence[Point]], A: Matrix, candidate: Similarity) -> bool:
    """Every condition of a similarity certificate on the exact positions ``layers[0..end]`` (docs/theory.md D11)."""
    k, p, M, P, s = candidate.layer, candidate.period, candidate.M, candidate.relabelling, candidate.scale
    d = len(A)
    if p < 1 or k < 0 or k + p >= len(layers) or s <= 0 or sorted(P) != list(range(len(layers[0]))):
        return False
    if len(M) != d or any(len(row) != d for row in M):
        return False
    left = matmul(transpose(M), matmul(A, M))
    if any(left[r][c] != s * A[r][c] for r in range(d) for c in range(d)):
        return False
    before, after = layers[k], layers[k + p]
    for i, j in enumerate(P):
        image = tuple(sum((M[r][c] * before[j][c] for c in range(d)), Fraction(0)) for r in range(d))
        if image != tuple(after[i]):
            return False
    q = candidate.contraction_power
    if q is None:
        return True
    power = [list(row) for row in M]
    for _ in range(q - 1):
        power = matmul(power, M)
    return q >= 1 and _infinity_norm(power) < 1


def find_similarity(layers: Sequence[Sequence[Point]], A: Matrix, *, max_period: int = MAX_PERIOD,
                    scores: Sequence[list[list[Fraction]]] | None = None) -> Similarity | None:
    """A certificate whose last layer is the last of ``layers`` (period 1..max_period), checked exactly, or None.

    ``scores`` (optional) are the score matrices of the same layers (:func:`score_matrix`), when the
    caller has them. Calling this after every new layer of a run finds the first layer k + p at
    which the run repeats.
    """
    end = len(layers) - 1
    d = len(A)
    after = scores[end] if scores is not None else score_matrix(layers[end], A)
    for p in range(1, min(max_period, end) + 1):
        k = end - p
        before = scores[k] if scores is not None else score_matrix(layers[k], A)
        s = _scale_of(before, after)
        if s is None:
            continue
        # The A-norms alone: a cheap necessary condition before the relabelling search.
        if sorted(x / s for x in (after[i][i] for i in range(len(after)))) != sorted(before[i][i] for i in range(len(before))):
            continue
        P = _relabellings(before, after, s)
        if P is None:
            continue
        sources = [layers[k][P[i]] for i in range(len(P))]
        maps = [_solve_map(sources, layers[end], A, s)]
        c = rational_sqrt(s)
        if c is not None:
            maps += [[[c if r == q else Fraction(0) for q in range(d)] for r in range(d)],
                     [[-c if r == q else Fraction(0) for q in range(d)] for r in range(d)]]
        for M in maps:
            if M is None:
                continue
            candidate = Similarity(k, p, tuple(tuple(row) for row in M), tuple(P), s, contraction_power(M))
            if check_similarity(layers, A, candidate):
                return candidate
    return None
