"""verify.core.linalg.IntegerPoints and the claim checks built on it (T2's leader pairs, T3's supporting
directions, docs/theory.md T2, T3) give exactly the answers of the plain Fraction formulas, ties included."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, strategies as st

from tests.common.fraction_scores import fraction_scores_itself_highest, fraction_supports_at
from verify.claims.T2 import scores_itself_highest
from verify.claims.T3 import supports_at
from verify.core.linalg import IntegerPoints

# Coordinates on a coarse grid with a few denominators: equal scores (ties) are frequent.
coordinate = st.builds(Fraction, st.integers(-3, 3), st.sampled_from([1, 2, 3, 6]))
DIMENSION = 3
vector = st.lists(coordinate, min_size=DIMENSION, max_size=DIMENSION).map(tuple)
points = st.lists(vector, min_size=1, max_size=8)
diagonal = st.lists(st.builds(Fraction, st.integers(1, 4), st.integers(1, 3)), min_size=DIMENSION,
                    max_size=DIMENSION)


def _dot(u, v) -> Fraction:
    return sum((a * b for a, b in zip(u, v)), Fraction(0))


@given(points, vector)
def test_scaled_scores_are_the_dot_products_times_one_positive_scale(pts, w) -> None:
    scores, scale = IntegerPoints(pts).scaled_scores(w)
    assert scale > 0
    assert [Fraction(s, scale) for s in scores] == [_dot(w, p) for p in pts]
    assert IntegerPoints(pts).max_score(w) == max(_dot(w, p) for p in pts)


@given(points, diagonal)
def test_scores_itself_highest_is_the_fraction_formula(pts, D) -> None:
    A = [[D[r] if r == c else Fraction(0) for c in range(DIMENSION)] for r in range(DIMENSION)]
    assert scores_itself_highest(A, pts) == fraction_scores_itself_highest(A, pts)


@given(points, vector, vector)
def test_supports_at_is_the_fraction_formula(pts, direction, x) -> None:
    assert supports_at(direction, x, IntegerPoints(pts)) == fraction_supports_at(pts)(direction, x, None)


def test_a_tie_is_not_a_strictly_highest_score() -> None:
    """<v, v> = <v, u> = 1 for v = (1, 0), u = (1, 1): v does not score itself strictly highest (T2 falls back to a
    separating direction), u does."""
    identity = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]
    pts = [(Fraction(1), Fraction(0)), (Fraction(1), Fraction(1))]
    assert scores_itself_highest(identity, pts) == [False, True]
    # x = (1, 1/2): direction (1, 0) scores every point 1, and x 1: a tie still supports.
    assert supports_at((Fraction(1), Fraction(0)), (Fraction(1), Fraction(1, 2)), IntegerPoints(pts))
    assert not supports_at((Fraction(0), Fraction(1)), (Fraction(1), Fraction(1, 2)), IntegerPoints(pts))
