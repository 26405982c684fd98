"""A second, minimal implementation of ONE layer of the hardmax dynamics, written only as an oracle.

docs/theory.md §1::

    C_i(Z) = { j : <A z_i, z_j> = max_l <A z_i, z_l> }
    z_i^{k+1} = ( z_i^k + alpha * mean_{j in C_i(Z^k)} z_j^k ) / (1 + alpha)

The claim checks (:mod:`verify.claims`, verdict "replay") recompute layer k+1 from layer k
with this module and compare exactly with the engine under test. Some wrong update rules
(updating tokens one after another in place, say) keep every claim of the theorem true and
are caught only this way.

Deliberately independent: this module must NOT import ``verify.core.exact_dynamics``,
``verify.core.float_dynamics`` or ``verify.core.trajectory`` (``tests/meta/test_oracle.py`` enforces
it). It works on original token indices (no merging of duplicates), with plain
:class:`fractions.Fraction` and Python integers, and favours obviousness over speed.
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm
from typing import Sequence

__all__ = ["scores", "attention_sets", "one_layer", "replay"]

Point = tuple[Fraction, ...]


def _matrix(A: Sequence[Sequence[Fraction]] | None, d: int) -> list[list[Fraction]]:
    if A is None:
        return [[Fraction(int(r == c)) for c in range(d)] for r in range(d)]
    return [[Fraction(x) for x in row] for row in A]


def scores(positions: Sequence[Sequence[Fraction]], *, A: Sequence[Sequence[Fraction]] | None = None
           ) -> list[list[Fraction]]:
    """The exact score matrix s[i][j] = <A z_i, z_j> = sum_{r,c} A[r][c] z_i[c] z_j[r]."""
    rows, scale = _integer_scores(positions, A)
    return [[s * scale for s in row] for row in rows]


def _integer_scores(positions: Sequence[Sequence[Fraction]], A: Sequence[Sequence[Fraction]] | None
                    ) -> tuple[list[list[int]], Fraction]:
    """(N, scale): <A z_i, z_j> = N[i][j] * scale with N integers and scale > 0."""
    d = len(positions[0])
    M = _matrix(A, d)
    # Integers for speed: positions over one common denominator, A over another.
    den = lcm(*(Fraction(x).denominator for p in positions for x in p))
    a_den = lcm(*(x.denominator for row in M for x in row))
    N = [[int(Fraction(x) * den) for x in p] for p in positions]
    Mi = [[int(x * a_den) for x in row] for row in M]
    AN = [[sum(Mi[r][c] * z[c] for c in range(d)) for r in range(d)] for z in N]  # A z_i
    scale = Fraction(1, den * den * a_den)
    return [[sum(a * b for a, b in zip(Az, z)) for z in N] for Az in AN], scale


def attention_sets(positions: Sequence[Sequence[Fraction]], *, A: Sequence[Sequence[Fraction]] | None = None
                   ) -> list[frozenset[int]]:
    """C_i for every token i: all indices attaining the maximal score (ties kept, docs/theory.md §1)."""
    result = []
    # One positive scale for every score: the maxima and ties of the integers are those of the scores.
    for row in _integer_scores(positions, A)[0]:
        top = max(row)
        result.append(frozenset(j for j, s in enumerate(row) if s == top))
    return result


def _solve(M: list[list[Fraction]], b: list[Fraction]) -> list[Fraction]:
    """Gauss-Jordan elimination (for the value-matrix variant only)."""
    n = len(M)
    aug = [row[:] + [rhs] for row, rhs in zip(M, b)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if aug[r][col] != 0)
        aug[col], aug[pivot] = aug[pivot], aug[col]
        for r in range(n):
            if r != col and aug[r][col] != 0:
                f = aug[r][col] / aug[col][col]
                aug[r] = [x - f * y for x, y in zip(aug[r], aug[col])]
    return [aug[i][n] / aug[i][i] for i in range(n)]


def one_layer(positions: Sequence[Sequence[Fraction]], *, alpha: Fraction,
              A: Sequence[Sequence[Fraction]] | None = None,
              V: Sequence[Sequence[Fraction]] | None = None) -> list[Point]:
    """Layer k+1 from layer k, every token updated from the SAME layer-k positions.

    With a value matrix V (docs/theory.md §6): z' = (I + V)^{-1} (z + V m).
    """
    pos = [tuple(Fraction(x) for x in p) for p in positions]
    d = len(pos[0])
    C = attention_sets(pos, A=A)
    alpha = Fraction(alpha)
    new: list[Point] = []
    for i, z in enumerate(pos):
        members = sorted(C[i])
        m = [sum((pos[j][c] for j in members), Fraction(0)) / len(members) for c in range(d)]
        if V is None:
            new.append(tuple((z[c] + alpha * m[c]) / (1 + alpha) for c in range(d)))
        else:
            Vf = [[Fraction(x) for x in row] for row in V]
            rhs = [z[r] + sum(Vf[r][c] * m[c] for c in range(d)) for r in range(d)]
            IV = [[Fraction(int(r == c)) + Vf[r][c] for c in range(d)] for r in range(d)]
            new.append(tuple(_solve(IV, rhs)))
    return new


def replay(tokens: Sequence[Sequence[Fraction]], *, alpha: Fraction, layers: int,
           A: Sequence[Sequence[Fraction]] | None = None,
           V: Sequence[Sequence[Fraction]] | None = None) -> list[list[Point]]:
    """Positions of layers 0..layers, by repeated :func:`one_layer`."""
    out = [[tuple(Fraction(x) for x in t) for t in tokens]]
    for _ in range(layers):
        out.append(one_layer(out[-1], alpha=alpha, A=A, V=V))
    return out
