"""Exact polytope geometry over the rationals: hulls, faces, A-norm projections of the origin.

Used by the claim checks (docs/theory.md §2, T2..T4). Everything that decides a verdict is exact:

* vertices and faces of conv(points) come from pycddlib's GMP backend (``cdd.gmp``), which
  handles hulls of lower dimension than the ambient space (collinear leaders, a single point);
* the A-norm projection of the origin onto conv(V) is computed by Wolfe's minimum-norm-point
  algorithm in rational arithmetic (an active-set method: each step solves the KKT system of
  the current active set exactly) and returned with its optimality certificate
  ``x = sum lambda_v v, lambda >= 0, sum lambda = 1, <A x, v - x> >= 0 for every v``;
* membership in a hull (convex weights, D1 and T3 certificates) and separating directions
  (T2) are the same algorithm with the Euclidean inner product.

:func:`project_origin_cvxpy` (Clarabel) is a float cross-check only; the exact answer decides.
Float Qhull is not used: it drops points on edges and fails on flat input.
"""

from __future__ import annotations

import contextlib
import math
import sys

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterator, Sequence

import cdd
import cdd.gmp as cdd_gmp
from flint import fmpq, fmpq_mat

from .linalg import IntegerPoints, rank

__all__ = [
    "Projection",
    "Face",
    "convex_hull_vertices",
    "facets",
    "faces",
    "affine_dimension",
    "min_norm_point",
    "project_origin_exact",
    "project_origin_cvxpy",
    "point_in_hull_weights",
    "origin_in_hull_weights",
    "separating_direction",
    "separation_from_hull",
    "smallest_face_direction",
    "supporting_direction",
]

Point = tuple[Fraction, ...]
Matrix = Sequence[Sequence[Fraction]]


def _identity(d: int) -> list[list[Fraction]]:
    return [[Fraction(int(r == c)) for c in range(d)] for r in range(d)]


def _inner(M: Matrix, x: Sequence[Fraction], y: Sequence[Fraction]) -> Fraction:
    """x^T M y."""
    return sum((x[r] * sum((M[r][c] * y[c] for c in range(len(y))), Fraction(0)) for r in range(len(x))),
               Fraction(0))


def _symmetric_part(A: Matrix) -> list[list[Fraction]]:
    d = len(A)
    return [[(Fraction(A[r][c]) + Fraction(A[c][r])) / 2 for c in range(d)] for r in range(d)]


def _distinct(points: Sequence[Sequence[Fraction]]) -> list[int]:
    """Index of the first occurrence of each distinct point."""
    seen: dict[tuple, int] = {}
    for i, p in enumerate(points):
        seen.setdefault(tuple(p), i)
    return sorted(seen.values())


def affine_dimension(points: Sequence[Sequence[Fraction]]) -> int:
    """Dimension of the affine hull (exact rank of the differences); -1 for no points."""
    if not points:
        return -1
    base = points[0]
    return rank([[Fraction(a) - Fraction(b) for a, b in zip(p, base)] for p in points[1:]])


# ---------------------------------------------------------------------------------------------
# Hulls and faces (cdd, exact)


@contextlib.contextmanager
def _long_integer_text() -> Iterator[None]:
    """Lift Python's int <-> decimal text limit (about 4300 digits) while pycddlib runs.

    pycddlib hands exact numbers to and from GMP through their decimal text, and exact inputs
    within this suite's limits give longer numbers than that (products of long denominators):
    without this the LP's answer could not be read back. Restored on the way out.
    """
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(previous)


def convex_hull_vertices(points: Sequence[Sequence[Fraction]]) -> list[int]:
    """Indices of the points that are vertices of conv(points) (first index of duplicates), sorted."""
    idx = _distinct(points)
    if len(idx) <= 1:
        return idx
    with _long_integer_text():
        mat = cdd_gmp.matrix_from_array([[Fraction(1)] + [Fraction(x) for x in points[i]] for i in idx],
                                        rep_type=cdd.RepType.GENERATOR)
        redundant = cdd_gmp.redundant_rows(mat)
    return [i for r, i in enumerate(idx) if r not in redundant]


def facets(points: Sequence[Sequence[Fraction]]) -> tuple[list[tuple[Fraction, list[Fraction]]],
                                                          list[tuple[Fraction, list[Fraction]]]]:
    """H-representation of conv(points): (inequalities, equalities), each row (b, a) meaning b + a.x >= 0
    (inequalities) or b + a.x = 0 (equalities: the affine hull when it is not the whole space)."""
    idx = _distinct(points)
    with _long_integer_text():
        mat = cdd_gmp.matrix_from_array([[Fraction(1)] + [Fraction(x) for x in points[i]] for i in idx],
                                        rep_type=cdd.RepType.GENERATOR)
        poly = cdd_gmp.polyhedron_from_matrix(mat)
        h = cdd_gmp.copy_inequalities(poly)
        rows = [list(row) for row in h.array]
    ineq: list[tuple[Fraction, list[Fraction]]] = []
    eq: list[tuple[Fraction, list[Fraction]]] = []
    for r, row in enumerate(rows):
        entry = (Fraction(row[0]), [Fraction(x) for x in row[1:]])
        if all(x == 0 for x in entry[1]):
            continue  # the trivial row 1 >= 0 that cdd emits for a single point
        (eq if r in h.lin_set else ineq).append(entry)
    return ineq, eq


@dataclass(frozen=True)
class Face:
    """A nonempty face of conv(points): the indices of the points lying on it, and its dimension."""

    members: frozenset[int]
    dimension: int


def faces(points: Sequence[Sequence[Fraction]], *, limit: int = 20000) -> list[Face]:
    """All nonempty faces of conv(points), every dimension (K itself included), as point-index sets.

    Faces are the intersections of facets (exact, from :func:`facets`); this works for hulls
    of any dimension, including lower-dimensional ones (collinear points, a single point).
    Duplicate points belong to the same faces. Raises ValueError past ``limit`` faces.
    """
    if not points:
        return []
    all_idx = frozenset(range(len(points)))
    ineq, _ = facets(points)
    facet_sets = []
    for b, a in ineq:
        on = frozenset(i for i in all_idx if b + sum((x * y for x, y in zip(a, points[i])), Fraction(0)) == 0)
        if on:
            facet_sets.append(on)
    found: set[frozenset[int]] = {all_idx}
    frontier = [all_idx]
    while frontier:
        nxt = []
        for face in frontier:
            for f in facet_sets:
                inter = face & f
                if inter and inter != face and inter not in found:
                    found.add(inter)
                    nxt.append(inter)
                    if len(found) > limit:
                        raise ValueError(f"more than {limit} faces")
        frontier = nxt
    result = [Face(s, affine_dimension([points[i] for i in sorted(s)])) for s in found]
    return sorted(result, key=lambda f: (f.dimension, sorted(f.members)))


# ---------------------------------------------------------------------------------------------
# Minimum-norm points (Wolfe), exact


@dataclass(frozen=True)
class Projection:
    """x = argmin { x^T M x : x in conv(V) } with its exact optimality certificate.

    ``multipliers[j]`` (>= 0, sum 1) over the indices of V with x = sum lambda_j V_j;
    ``kkt[j] = <M x, V_j - x>`` for EVERY j (all >= 0 certifies optimality when M is symmetric
    positive definite); ``certified`` says whether all these exact conditions hold.
    """

    point: Point
    multipliers: dict[int, Fraction]
    kkt: dict[int, Fraction]
    certified: bool


def min_norm_point(V: Sequence[Sequence[Fraction]], M: Matrix | None = None, *, max_iterations: int = 10000,
                   gram: Sequence[Sequence[Fraction]] | None = None) -> Projection:
    """Wolfe's minimum-norm-point algorithm in the inner product <x, y>_M = x^T M y, exact.

    M must be symmetric positive definite (identity when None) for the answer to mean anything;
    the returned certificate is checked exactly either way. ``gram``, when the caller has it, is
    the matrix of <V_a, V_b>_M (computed once for many subsets of one point set, e.g. with
    :meth:`verify.core.linalg.IntegerPoints.gram`); the iterate x = sum lam_j V_j enters only through
    it, <x, V_t>_M = sum_j lam_j <V_j, V_t>_M, so the answer is the same with it or without.
    """
    pts = [tuple(Fraction(x) for x in v) for v in V]
    if not pts:
        raise ValueError("min_norm_point needs at least one point")
    d = len(pts[0])
    Mq = _identity(d) if M is None else [[Fraction(x) for x in row] for row in M]
    G = IntegerPoints(pts).gram(Mq) if gram is None else gram
    # The iterations in python-flint's rationals (exact, as Fraction is, and several times faster),
    # the answer returned in Fractions.
    Gq = [[fmpq(x.numerator, x.denominator) for x in row] for row in G]
    zero, one = fmpq(0), fmpq(1)
    n = len(pts)

    def g(a: int, b: int) -> fmpq:
        return Gq[a][b] if a <= b else Gq[b][a]

    def combo(lam: dict[int, Fraction]) -> Point:
        return tuple(sum((w * pts[j][c] for j, w in lam.items()), Fraction(0)) for c in range(d))

    start = min(range(n), key=lambda j: (g(j, j), j))
    weights: dict[int, fmpq] = {start: one}
    for _ in range(max_iterations):
        values = [sum((w * Gq[j][t] for j, w in weights.items()), zero) for t in range(n)]
        xx = sum((w * values[j] for j, w in weights.items()), zero)
        j = min(range(n), key=lambda t: (values[t], t))
        if values[j] >= xx or j in weights:
            break
        weights[j] = zero
        while True:
            S = sorted(weights)
            # Affine minimiser on aff(S): [G 1; 1^T 0] [a; mu] = [0; 1].
            k = len(S)
            entries = [e for r in range(k) for e in [g(S[r], S[c]) for c in range(k)] + [one]] + [one] * k + [zero]
            try:
                solution = fmpq_mat(k + 1, k + 1, entries).solve(fmpq_mat(k + 1, 1, [zero] * k + [one]))
            except ZeroDivisionError:  # affinely dependent active set: drop the newest point (degenerate input)
                solution = None
            if solution is None:
                weights.pop(j, None)
                break
            alpha = {s: solution[r, 0] for r, s in enumerate(S)}
            if all(a > 0 for a in alpha.values()):
                weights = alpha
                break
            theta = min(weights[s] / (weights[s] - alpha[s]) for s in S if alpha[s] <= 0)
            weights = {s: (1 - theta) * weights[s] + theta * alpha[s] for s in S}
            weights = {s: w for s, w in weights.items() if w > 0}
        if solution is None:
            break
    lam = {s: Fraction(int(w.p), int(w.q)) for s, w in weights.items()}
    x = combo(lam)
    if all(Mq[r][c] == Mq[c][r] for r in range(d) for c in range(r)):
        # <M x, V_t - x> = <x, V_t>_M - <x, x>_M for a symmetric M: from the Gram matrix, in fmpq.
        values = [sum((w * Gq[j][t] for j, w in weights.items()), zero) for t in range(n)]
        xx = sum((w * values[j] for j, w in weights.items()), zero)
        kkt = {t: Fraction(int(v.p), int(v.q)) for t, v in enumerate(value - xx for value in values)}
    else:
        Mx = [sum((Mq[r][c] * x[c] for c in range(d)), Fraction(0)) for r in range(d)]
        kkt = {t: sum((Mx[r] * (pts[t][r] - x[r]) for r in range(d)), Fraction(0)) for t in range(len(pts))}
    certified = (all(w >= 0 for w in lam.values()) and sum(lam.values()) == 1
                 and all(v >= 0 for v in kkt.values()))
    return Projection(x, dict(sorted(lam.items())), kkt, certified)


def project_origin_exact(vertices: Sequence[Sequence[Fraction]], A: Matrix | None = None) -> Projection:
    """The A-norm projection of 0 onto conv(vertices), exact, with its optimality certificate.

    ||x||_A^2 = x^T A x depends only on the symmetric part of A, whose gradient 2 Asym x gives
    the optimality condition <Asym x, v - x> >= 0 for every vertex v (A symmetric positive
    definite: then the minimiser is unique and this condition is necessary and sufficient).
    """
    d = len(vertices[0])
    M = _identity(d) if A is None else _symmetric_part(A)
    return min_norm_point(vertices, M)


def point_in_hull_weights(point: Sequence[Fraction], points: Sequence[Sequence[Fraction]]
                          ) -> dict[int, Fraction] | None:
    """Exact convex weights (index -> weight > 0, sum 1) with sum w_j points_j = point, or None if outside.

    The minimum-norm point of conv{points_j - point} is 0 exactly when the point is in the hull.
    """
    if not points:
        return None
    target = tuple(Fraction(x) for x in point)
    for j, p in enumerate(points):  # the common case: the point is one of the points
        if tuple(Fraction(x) for x in p) == target:
            return {j: Fraction(1)}
    shifted = [tuple(Fraction(a) - b for a, b in zip(p, target)) for p in points]
    result = _certified_min_norm_point(shifted)
    if any(x != 0 for x in result.point):
        return None
    return result.multipliers


def origin_in_hull_weights(vectors: Sequence[Sequence[Fraction]]) -> dict[int, Fraction] | None:
    """Exact convex weights (index -> weight > 0, sum 1) with sum w_j vectors_j = 0, or None when 0 is not in
    conv(vectors): an exact linear program (cdd, GMP), for many vectors in high dimension.

    Same question as :func:`point_in_hull_weights` (with the point at the origin), answered by the
    simplex method instead of Wolfe's active-set method, which is much faster for thousands of
    vectors in tens of dimensions (the LP step of docs/theory.md D10). It solves
    max s subject to <v_j, w> >= s for every j, -1 <= w <= 1, s <= 1: by Gordan's alternative the
    optimum is 0 exactly when 0 is in the hull, and then the LP's dual multipliers on the rows
    <v_j, w> >= s are the weights. The weights returned are checked exactly before they are
    returned (a disagreement raises, it is never a wrong answer).
    """
    points = [[Fraction(x) for x in v] for v in vectors]
    if not points:
        return None
    zero = next((j for j, v in enumerate(points) if not any(v)), None)
    if zero is not None:  # the origin itself is one of the vectors
        return {zero: Fraction(1)}
    p = len(points[0])
    rows = [[Fraction(0)] + v + [Fraction(-1)] for v in points]
    for i in range(p):
        rows.append([Fraction(1)] + [Fraction(-int(r == i)) for r in range(p)] + [Fraction(0)])
        rows.append([Fraction(1)] + [Fraction(int(r == i)) for r in range(p)] + [Fraction(0)])
    rows.append([Fraction(1)] + [Fraction(0)] * p + [Fraction(-1)])
    rows.append([Fraction(0)] + [Fraction(0)] * p + [Fraction(1)])  # the objective: s
    with _long_integer_text():
        lp = cdd_gmp.linprog_from_array(rows, obj_type=cdd.LPObjType.MAX)
        cdd_gmp.linprog_solve(lp)
        if lp.status != cdd.LPStatusType.OPTIMAL:  # pragma: no cover - the LP is feasible (w = 0) and bounded
            raise RuntimeError(f"exact LP ended with status {lp.status}")
        objective = Fraction(lp.obj_value)
        dual = list(lp.dual_solution)
    if objective > 0:
        return None
    weights = {int(j): Fraction(y) for j, y in dual if j < len(points) and Fraction(y) != 0}
    combined = [sum((w * points[j][c] for j, w in weights.items()), Fraction(0)) for c in range(p)]
    if not weights or any(w < 0 for w in weights.values()) or sum(weights.values()) != 1 or any(combined):
        raise RuntimeError("exact LP: the dual multipliers are not convex weights of the origin")
    return dict(sorted(weights.items()))


def _certified_min_norm_point(points: Sequence[Sequence[Fraction]]) -> Projection:
    """Euclidean min-norm point whose exact KKT certificate holds (else an error, never a wrong answer).

    With the identity inner product, x in conv(points) and <x, p - x> >= 0 for every p prove
    that x is the minimum-norm point, so "x != 0" proves the origin is outside the hull.
    """
    result = min_norm_point(points)
    if not result.certified:  # pragma: no cover - exact Wolfe always ends certified
        raise RuntimeError("exact minimum-norm point without a valid KKT certificate")
    return result


def separation_from_hull(point: Sequence[Fraction], points: Sequence[Sequence[Fraction]]
                         ) -> list[Fraction] | None:
    """A direction c with c.point > c.p for every p in points (a proof that the point is outside
    conv(points)), or None when the point is in the hull. Exact."""
    x = [Fraction(t) for t in point]
    shifted = [tuple(Fraction(a) - b for a, b in zip(p, x)) for p in points]
    w = _certified_min_norm_point(shifted).point
    if all(t == 0 for t in w):
        return None
    # <w, p - x> >= |w|^2 > 0 for every p, so c = -w scores the point strictly highest.
    return [-t for t in w]


def separating_direction(index: int, points: Sequence[Sequence[Fraction]]) -> list[Fraction] | None:
    """A direction c with c.points[index] > c.points[j] for every other j, or None when none exists
    (the point is in the hull of the others, or repeated). Exact."""
    v = [Fraction(x) for x in points[index]]
    others = [tuple(Fraction(a) - b for a, b in zip(p, v)) for j, p in enumerate(points) if j != index]
    if not others:
        return [Fraction(0)] * len(v)
    w = _certified_min_norm_point(others).point
    if all(x == 0 for x in w):
        return None
    # Optimality of w: <w, y> >= |w|^2 > 0 for every y in conv(others), so c = -w separates.
    return [-x for x in w]


def supporting_direction(point: Sequence[Fraction], points: Sequence[Sequence[Fraction]]
                         ) -> list[Fraction] | None:
    """A nonzero c with c.point >= c.p for every p in points (a supporting hyperplane of
    conv(points) through ``point``, i.e. ``point`` on the boundary in R^d), or None if ``point``
    is in the interior. ``point`` is assumed to lie in conv(points)."""
    ineq, eq = facets(points)
    if eq:
        return [Fraction(x) for x in eq[0][1]]
    a = next(_tight_normals(point, ineq), None)
    return None if a is None else [-s for s in a]


def _tight_normals(point: Sequence[Fraction], ineq: list[tuple[Fraction, list[Fraction]]]) -> Iterator[list[Fraction]]:
    """The inward normals a of the inequalities b + a.x >= 0 that hold with equality at ``point``."""
    x = [Fraction(t) for t in point]
    for b, a in ineq:
        if b + sum((s * t for s, t in zip(a, x)), Fraction(0)) == 0:
            yield a


def smallest_face_direction(point: Sequence[Fraction], points: Sequence[Sequence[Fraction]]) -> list[Fraction]:
    """A direction c whose maximisers over conv(points) are exactly the smallest face containing
    ``point`` (assumed in conv(points)): minus the sum of the inward normals of the facets tight at
    ``point``; the zero vector (which exposes the whole hull) when none is.

    On the hull, -a.x <= b for each facet (b + a.x >= 0), with equality on that facet; the sum is
    maximal exactly where every facet tight at ``point`` is tight, their intersection, which is the
    smallest face containing ``point`` (a polytope's faces are intersections of facets)."""
    ineq, _ = facets(points)
    c = [Fraction(0)] * len(point)
    for a in _tight_normals(point, ineq):
        c = [u - s for u, s in zip(c, a)]
    return c


# ---------------------------------------------------------------------------------------------
# Float cross-check


def load_solver() -> None:
    """Import cvxpy, which :func:`project_origin_cvxpy` imports on first use (about a second): for a caller
    that times its claim checks and wants the time of checking, not of importing."""
    import cvxpy  # noqa: F401


def project_origin_cvxpy(vertices: Sequence[Sequence[Fraction]], A: Matrix | None = None) -> dict[str, Any]:
    """Clarabel's answer to min x^T A x over x = V lam, lam >= 0, sum lam = 1 (float evidence).

    Returns ``{"solver": "clarabel", "status": ..., "point": [floats] | None, "error": str | None}``.
    Any status other than ``optimal`` is a failed cross-check for the caller to show.
    """
    import cvxpy as cp
    import numpy as np

    d = len(vertices[0])
    Aq = _identity(d) if A is None else _symmetric_part(A)
    try:
        Vm = np.array([[float(x) for x in v] for v in vertices], dtype=float).T  # d x m
        Am = np.array([[float(x) for x in row] for row in Aq], dtype=float)
    except OverflowError:  # exact numbers beyond float64: no float cross-check, and no crash
        return {"solver": "clarabel", "status": "error", "point": None,
                "error": "a vertex or A has a coordinate beyond float64's range (about 1.8e308)"}
    lam = cp.Variable(len(vertices), nonneg=True)
    x = Vm @ lam
    try:
        problem = cp.Problem(cp.Minimize(cp.quad_form(x, cp.psd_wrap(Am))), [cp.sum(lam) == 1])
        problem.solve(solver=cp.CLARABEL)
    except Exception as error:  # a solver failure is evidence, not a crash
        return {"solver": "clarabel", "status": "error", "point": None, "error": f"{type(error).__name__}: {error}"}
    status = str(problem.status)
    point = None if lam.value is None else [float(t) for t in Vm @ lam.value]
    if point is not None and not all(math.isfinite(t) for t in point):
        # JSON has no NaN or infinity (a report holding them is refused by its readers).
        return {"solver": "clarabel", "status": "error", "point": None,
                "error": f"the solver's point is not finite (status {status})"}
    return {"solver": "clarabel", "status": status, "point": point, "error": None}
