"""verify.core.geometry: exact hulls, faces and A-norm projections, on known answers worked out by hand."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from verify.core import geometry


def P(*coords: object) -> tuple[F, ...]:
    return tuple(F(c) for c in coords)  # type: ignore[arg-type]


SQUARE = [P(1, 1), P(1, -1), P(-1, 1), P(-1, -1)]


def test_hull_vertices_drop_points_on_edges_and_inside() -> None:
    # (1, 0) lies on an edge: float Qhull would also drop it, but here it is decided exactly.
    points = SQUARE + [P(1, 0), P("1/3", "1/7"), P(1, 1)]
    assert geometry.convex_hull_vertices(points) == [0, 1, 2, 3]


def test_collinear_hull_is_a_segment_with_its_faces() -> None:
    points = [P(0, 0), P(2, 2), P(1, 1), P(3, 3)]
    assert geometry.convex_hull_vertices(points) == [0, 3]
    found = {(tuple(sorted(f.members)), f.dimension) for f in geometry.faces(points)}
    assert found == {((0,), 0), ((3,), 0), ((0, 1, 2, 3), 1)}
    _, equalities = geometry.facets(points)
    assert equalities, "a segment in the plane has an affine-hull equation"


def test_faces_of_a_square_all_dimensions() -> None:
    found = geometry.faces(SQUARE + [P(0, 0)])
    dims = sorted(f.dimension for f in found)
    assert dims == [0, 0, 0, 0, 1, 1, 1, 1, 2]
    assert frozenset({0, 1}) in {f.members for f in found}  # the edge x = 1


def test_single_point_hull() -> None:
    assert geometry.convex_hull_vertices([P(1, 2)]) == [0]
    assert [f.members for f in geometry.faces([P(1, 2)])] == [frozenset({0})]


def test_projection_of_origin_onto_an_edge_identity() -> None:
    result = geometry.project_origin_exact([P(1, 1), P(1, -1)])
    assert result.point == P(1, 0)
    assert result.multipliers == {0: F(1, 2), 1: F(1, 2)}
    assert result.kkt == {0: 0, 1: 0} and result.certified


def test_projection_with_a_general_spd_matrix_by_hand() -> None:
    # min 2x^2 + 2xy + 3y^2 on the segment x = 1, y in [-1, 1]: derivative 2 + 6y = 0, y = -1/3.
    A = [[F(2), F(1)], [F(1), F(3)]]
    result = geometry.project_origin_exact([P(1, 1), P(1, -1), P(2, 3)], A)
    assert result.point == P(1, F(-1, 3))
    assert result.kkt[2] > 0 and result.kkt[0] == 0 and result.certified


def test_projection_onto_a_polytope_containing_the_origin_is_the_origin() -> None:
    assert geometry.project_origin_exact(SQUARE).point == P(0, 0)


def test_projection_to_a_vertex_3d() -> None:
    result = geometry.project_origin_exact([P(1, 1, 1), P(2, 1, 1), P(1, 2, 1), P(1, 1, 2)])
    assert result.point == P(1, 1, 1) and result.multipliers == {0: 1}


def test_cvxpy_cross_check_agrees_with_exact() -> None:
    A = [[F(2), F(1)], [F(1), F(3)]]
    answer = geometry.project_origin_cvxpy([P(1, 1), P(1, -1), P(2, 3)], A)
    assert answer["status"] == "optimal"
    assert max(abs(a - b) for a, b in zip(answer["point"], (1.0, -1 / 3))) < 1e-6


def test_point_in_hull_weights_are_exact_convex_weights() -> None:
    x = P("1/2", "1/3")
    weights = geometry.point_in_hull_weights(x, SQUARE)
    assert weights is not None
    assert all(w > 0 for w in weights.values()) and sum(weights.values()) == 1
    assert tuple(sum(w * SQUARE[j][c] for j, w in weights.items()) for c in range(2)) == x
    assert geometry.point_in_hull_weights(P(1, "1/1000000000001"), SQUARE) is not None  # on the edge x = 1
    assert geometry.point_in_hull_weights(P("1000001/1000000", 0), SQUARE) is None


def test_separating_direction_exists_exactly_for_vertices() -> None:
    points = SQUARE + [P(0, 0)]
    for i in range(4):
        c = geometry.separating_direction(i, points)
        assert c is not None
        assert all(sum(a * b for a, b in zip(c, points[i])) > sum(a * b for a, b in zip(c, points[j]))
                   for j in range(5) if j != i)
    assert geometry.separating_direction(4, points) is None


@pytest.mark.parametrize(("point", "on_boundary"), [(P(1, 0), True), (P(0, 0), False), (P(1, 1), True)])
def test_supporting_direction_decides_boundary(point: tuple[F, ...], on_boundary: bool) -> None:
    c = geometry.supporting_direction(point, SQUARE)
    assert (c is not None) == on_boundary
    if c is not None:
        assert any(x != 0 for x in c)
        assert all(sum(a * b for a, b in zip(c, v)) <= sum(a * b for a, b in zip(c, point)) for v in SQUARE)


CUBE = [P(x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1)]


@pytest.mark.parametrize(("point", "points", "face"), [
    (P(1, 0), SQUARE, {0, 1}),                                  # an edge's relative interior: that edge
    (P(1, 1), SQUARE, {0}),                                     # a corner: the corner alone
    (P(0, "1/3"), SQUARE, {0, 1, 2, 3}),                        # an interior point: the whole square
    (P(1, 0), [P(1, 1), P(1, -1)], {0, 1}),                     # a segment in the plane: the segment
    (P(1, "1/2", "1/2"), CUBE, {4, 5, 6, 7}),                   # the middle of a cube's facet
    (P(1, 1, "1/3"), CUBE, {6, 7}),                             # on an edge shared by two facets
    (P("1/2", "1/2", "1/2"), CUBE, set(range(8))),
], ids=["edge", "corner", "interior", "lower-dimensional", "cube-facet", "cube-edge", "cube-centre"])
def test_the_smallest_face_direction_exposes_exactly_the_smallest_face(point, points, face) -> None:
    # docs/theory.md T4 is decided on this face: a larger one can fail the projection test although T4 holds.
    c = geometry.smallest_face_direction(point, points)
    values = [sum(a * b for a, b in zip(c, v)) for v in points]
    assert {i for i, value in enumerate(values) if value == max(values)} == face


def test_a_lower_dimensional_hull_is_its_own_boundary() -> None:
    # docs/theory.md §2: K = segment x = 1 in the plane; its relative interior point (1, 0) is on the boundary.
    c = geometry.supporting_direction(P(1, 0), [P(1, 1), P(1, -1)])
    assert c is not None and any(x != 0 for x in c)


def test_affine_dimension() -> None:
    assert geometry.affine_dimension([P(1, 1)]) == 0
    assert geometry.affine_dimension([P(0, 0, 0), P(1, 1, 1), P(2, 2, 2)]) == 1
    assert geometry.affine_dimension([P(0, 0, 0), P(1, 0, 0), P(0, 1, 0), P(1, 1, 0)]) == 2


def test_separation_from_hull_proves_a_point_is_outside() -> None:
    x = P("1000001/1000000", 0)
    c = geometry.separation_from_hull(x, SQUARE)
    assert c is not None
    assert all(sum(a * b for a, b in zip(c, x)) > sum(a * b for a, b in zip(c, v)) for v in SQUARE)
    assert geometry.separation_from_hull(P(1, 0), SQUARE) is None


def test_wolfe_membership_agrees_with_cdd_redundancy_on_seeded_random_sets() -> None:
    import numpy as np

    rng = np.random.default_rng(7)
    for _ in range(60):
        d = int(rng.integers(1, 4))
        points = [tuple(F(int(x), 4) for x in rng.integers(-4, 5, size=d)) for _ in range(int(rng.integers(1, 7)))]
        x = tuple(F(int(t), 8) for t in rng.integers(-8, 9, size=d))
        # x (appended last) is in the hull exactly when cdd finds it redundant (or it repeats a point).
        inside_cdd = len(points) not in geometry.convex_hull_vertices(points + [x])
        weights = geometry.point_in_hull_weights(x, points)
        assert (weights is not None) == inside_cdd, (points, x)
        if weights is not None:
            assert sum(weights.values()) == 1 and min(weights.values()) >= 0
            assert tuple(sum(w * points[j][c] for j, w in weights.items()) for c in range(d)) == x
        else:
            c = geometry.separation_from_hull(x, points)
            assert c is not None


def test_exact_projection_agrees_with_cvxpy_on_seeded_random_faces() -> None:
    import numpy as np

    rng = np.random.default_rng(11)
    for _ in range(15):
        d = int(rng.integers(2, 4))
        points = [tuple(F(int(x), 4) for x in rng.integers(-8, 9, size=d)) for _ in range(int(rng.integers(2, 6)))]
        B = [[F(int(x), 2) for x in rng.integers(-2, 3, size=d)] for _ in range(d)]
        A = [[sum(B[r][k] * B[c][k] for k in range(d)) + (1 if r == c else 0) for c in range(d)] for r in range(d)]
        exact = geometry.project_origin_exact(points, A)
        assert exact.certified
        solver = geometry.project_origin_cvxpy(points, A)
        assert solver["status"] == "optimal"
        assert max(abs(a - float(b)) for a, b in zip(solver["point"], exact.point)) < 1e-5


def _plain_inner(M, x, y) -> F:
    return sum((x[r] * M[r][c] * y[c] for r in range(len(x)) for c in range(len(y))), F(0))


@pytest.mark.parametrize("symmetric", [True, False])
def test_min_norm_point_is_the_same_from_a_given_gram_matrix_and_its_kkt_is_the_direct_one(symmetric: bool) -> None:
    """The Gram matrix a caller passes (T3's cross-check: one per configuration, sliced per face) gives the
    answer computed without it; the certificate's <M x, V_t - x> is the direct sum, also for the Gram
    shortcut a symmetric M takes."""
    import numpy as np

    rng = np.random.default_rng(3)
    for _ in range(12):
        d = int(rng.integers(2, 5))
        V = [tuple(F(int(a), int(b)) for a, b in zip(rng.integers(-9, 10, d), rng.integers(1, 7, d))) for _ in range(int(rng.integers(2, 8)))]
        B = [[F(int(x), 3) for x in row] for row in rng.integers(-3, 4, (d, d))]
        M = [[sum((B[k][r] * B[k][c] for k in range(d)), F(0)) + (F(1) if r == c else F(0)) for c in range(d)] for r in range(d)]
        if not symmetric:
            M[0][d - 1] += F(1, 5)
        gram = [[_plain_inner(M, a, b) for b in V] for a in V]
        plain, given = geometry.min_norm_point(V, M), geometry.min_norm_point(V, M, gram=gram)
        assert plain == given
        Mx = [sum((M[r][c] * plain.point[c] for c in range(d)), F(0)) for r in range(d)]
        assert plain.kkt == {t: sum((Mx[r] * (V[t][r] - plain.point[r]) for r in range(d)), F(0)) for t in range(len(V))}
        assert sum(plain.multipliers.values()) == 1
        assert plain.point == tuple(sum((w * V[j][c] for j, w in plain.multipliers.items()), F(0)) for c in range(d))
