"""T3's cross-check (docs/theory.md §2, T3): a limit is in S = vertices of K + A-projections of 0 onto its faces.

The check decides membership from the limit's smallest face alone (:func:`verify.claims.T3.in_candidate_set`);
the oracle here is the definition: every face of K enumerated and the origin projected onto each
(Wolfe's algorithm, exact), the limit compared with every projection.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Sequence

from hypothesis import given, settings, strategies as st

from verify.claims import check_configuration
from verify.claims.T3 import in_candidate_set
from verify.core import geometry
from verify.core.worked import WORKED_CONFIGURATIONS

Point = tuple[Fraction, ...]


def _candidate_set_by_definition(pts: Sequence[Point], Asym: list[list[Fraction]]) -> set[Point]:
    candidates = set(pts)
    for face in geometry.faces(list(pts)):
        members = [pts[i] for i in sorted(face.members)]
        candidates.add(tuple(geometry.min_norm_point(members, Asym).point))
    return candidates


coordinate = st.integers(-6, 6).map(Fraction)


@st.composite
def hulls_with_points(draw: st.DrawFn) -> tuple[list[Point], list[list[Fraction]], list[Point]]:
    d = draw(st.integers(2, 3))
    pts = draw(st.lists(st.tuples(*[coordinate] * d), min_size=1, max_size=7, unique=True))
    # A symmetric positive definite A: L L^T + I with a small integer L.
    L = draw(st.lists(st.lists(st.integers(-2, 2).map(Fraction), min_size=d, max_size=d), min_size=d, max_size=d))
    Asym = [[sum((L[r][k] * L[c][k] for k in range(d)), Fraction(0)) + (r == c) for c in range(d)] for r in range(d)]
    # Points of K: the projections onto faces (in S) and convex combinations (mostly not in S).
    inside: list[Point] = []
    for face in geometry.faces(pts)[: draw(st.integers(1, 6))]:
        inside.append(tuple(geometry.min_norm_point([pts[i] for i in sorted(face.members)], Asym).point))
    for _ in range(draw(st.integers(0, 4))):
        weights = draw(st.lists(st.integers(0, 3), min_size=len(pts), max_size=len(pts)).filter(any))
        total = sum(weights)
        inside.append(tuple(sum((Fraction(w, total) * p[r] for w, p in zip(weights, pts)), Fraction(0))
                            for r in range(d)))
    return pts, Asym, inside


@settings(max_examples=150, deadline=None)
@given(hulls_with_points())
def test_membership_from_the_smallest_face_is_the_definition(case) -> None:
    pts, Asym, inside = case
    by_definition = _candidate_set_by_definition(pts, Asym)
    facet_rows, _ = geometry.facets(pts)
    for x in inside:
        assert in_candidate_set(x, pts, Asym, facet_rows) == (x in by_definition), x


def _T3_cross_check(report) -> dict:
    return next(c for c in report.verdicts["T3"].cross_checks if c["check"].startswith("candidate set S"))


def test_the_worked_configurations_agree_and_a_moved_limit_does_not() -> None:
    config = WORKED_CONFIGURATIONS["non_leader_clusters"]
    report = check_configuration(config)
    check = _T3_cross_check(report)
    assert check["agree"] and check["tokens_not_in_S"] == []
    # A limit on K's boundary that is no projection (a point of an edge, a quarter of the way along):
    # what the cross-check is there to catch, an engine converging to the wrong point.
    from verify.claims import T3
    from verify.claims.run import is_leader

    run = report.run
    limits = {f.token: f.limit for f in run.fates_in_order() if is_leader(f)}
    non_leaders = [f for f in run.fates_in_order() if not is_leader(f)]
    a, b = sorted(limits)[:2]
    moved_limit = tuple(Fraction(3, 4) * p + Fraction(1, 4) * q for p, q in zip(limits[a], limits[b]))
    non_leaders[0] = dataclasses.replace(non_leaders[0], limit=moved_limit)
    moved = T3._candidate_cross_check(run, limits, non_leaders)
    assert moved["agree"] is False and moved["tokens_not_in_S"] == [non_leaders[0].token]


def test_a_limit_that_is_a_vertex_is_in_S() -> None:
    pts = [(Fraction(1), Fraction(0)), (Fraction(0), Fraction(1)), (Fraction(-1), Fraction(-1))]
    identity = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]
    assert in_candidate_set(pts[2], pts, identity, geometry.facets(pts)[0])
    facet_rows = geometry.facets(pts)[0]
    assert in_candidate_set((Fraction(0), Fraction(0)), pts, identity, facet_rows)  # the projection onto K itself
    assert not in_candidate_set((Fraction(1, 10), Fraction(0)), pts, identity, facet_rows)  # interior, not 0
