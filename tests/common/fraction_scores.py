"""The plain Fraction formulas of the claim checks that run on integer scores (docs/theory.md T2, T3, D7): the
obvious dot products, the tests' oracle for verify/claims T2.scores_itself_highest, T3.supports_at and
run.locking_value (written here, never imported from verify)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Sequence

Vector = Sequence[Fraction]


def _dot(u: Vector, v: Vector) -> Fraction:
    return sum((a * b for a, b in zip(u, v)), Fraction(0))


def _mat_vec(A: Sequence[Vector], v: Vector) -> list[Fraction]:
    return [_dot(row, v) for row in A]


def fraction_scores_itself_highest(A: Sequence[Vector], pts: Sequence[Vector]) -> list[bool]:
    """T2: does A v score v strictly above every other leader limit?"""
    highest = []
    for i, v in enumerate(pts):
        c = _mat_vec(A, v)
        highest.append(all(_dot(c, v) > _dot(c, u) for j, u in enumerate(pts) if j != i))
    return highest


def fraction_supports_at(points: list[Vector]) -> Callable[[Vector, Vector, object], bool]:
    """T3: <direction, u> <= <direction, x> for every leader limit u (the points given to the claim)."""
    def supports_at(direction: Vector, x: Vector, _integer_points: object) -> bool:
        return all(_dot(direction, u) <= _dot(direction, x) for u in points)
    return supports_at


def fraction_locking_value(data: Any, F: frozenset[int], A: Sequence[Vector]) -> tuple[tuple[Fraction, ...], Fraction] | None:
    """D7: (m_F, <A m_F, v>) when <A m_F, .> is equal on F and maximal over the layer's tokens."""
    pos = data.positions
    members = sorted(F)
    m = tuple(sum((pos[v][c] for v in members), Fraction(0)) / len(members) for c in range(len(pos[0])))
    w = _mat_vec(A, m)
    values = {_dot(w, pos[v]) for v in F}
    if len(values) != 1:
        return None
    value = values.pop()
    return None if any(_dot(w, p) > value for p in pos) else (m, value)
