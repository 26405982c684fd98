"""T3 (docs/theory.md §2): every token converges to a point of S, and S lies on the boundary of K.

Certified when every token has a D7 fate or a D9 path: each non-leader limit is shown in K with
exact convex multipliers and on its boundary with a nonzero supporting direction. A float
cross-check (never deciding) compares every limit with the candidate set S (vertices of K and
the exact A-projections of the origin onto its faces).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

from verify.claims import registry
from verify.claims.run import (ClaimRun, Point, TokenFate, fate_direction, fate_violation_verdict, fates_json,
                               inconclusive_unsettled, is_leader, leader_limits, make_verdict, no_leader,
                               outside_evidence, q, qv, show)
from verify.claims.verdicts import Verdict
from verify.core import geometry
from verify.core.formatting import counted
from verify.core.linalg import IntegerPoints, dot, is_symmetric_positive_definite


def supports_at(direction: Sequence[Fraction], x: Sequence[Fraction], points: IntegerPoints) -> bool:
    """<direction, u> <= <direction, x> for every point u: the hyperplane of ``direction`` through x supports them.

    The points' scores on integers over their common denominator (one per leader and non-leader: the
    quadratic part of T3); only the maximum meets x's score as a Fraction.
    """
    return points.max_score(direction) <= dot(direction, x)


# Cross-check the candidate set S only when K's facets are few to compute.
CANDIDATE_MAX_DIMENSION = 4
CANDIDATE_MAX_VERTICES = 24
CANDIDATE_CHECK = ("candidate set S = vertices of K + exact A-projections of 0 onto every face of K: each limit "
                   "is a vertex or the projection onto its smallest face")


def _in_K(run: ClaimRun, x: Point, limits: dict[int, Point]) -> dict[int, Fraction] | None:
    tokens = sorted(limits)
    weights = geometry.point_in_hull_weights(x, [limits[t] for t in tokens])
    return None if weights is None else {tokens[j]: w for j, w in weights.items()}


def in_candidate_set(x: Point, pts: Sequence[Point], Asym: Sequence[Sequence[Fraction]],
                     facet_rows: Sequence[tuple[Fraction, Sequence[Fraction]]]) -> bool:
    """Is x (a point of K = conv(pts)) a vertex of K or the A-projection of 0 onto some face of K?

    If x is the projection onto a face F, it lies on F, so F contains F_x, the smallest face
    holding x (K cut by the facets ``b + a.y >= 0`` tight at x), and x minimises over F_x too.
    So x is in S exactly when it minimises the A-norm over F_x: <Asym x, v - x> >= 0 for every
    point v on F_x (first-order optimality of a convex quadratic over a polytope), one facet test
    and one score per point instead of a projection per face.
    """
    if x in pts:
        return True
    tight = [(b, a) for b, a in facet_rows if b + dot(a, x) == 0]
    on_face = [v for v in pts if all(b + dot(a, v) == 0 for b, a in tight)]
    gradient = [dot(row, x) for row in Asym]
    level = dot(gradient, x)
    return all(dot(gradient, v) >= level for v in on_face)


def _candidate_cross_check(run: ClaimRun, limits: dict[int, Point], non_leaders: list[TokenFate]) -> dict[str, Any]:
    """Is every limit a vertex of K or the exact A-projection of 0 onto some face of K? (cross-check)."""
    tokens = sorted(limits)
    pts = [limits[t] for t in tokens]
    d = len(pts[0])
    Asym = [[(run.A[r][c] + run.A[c][r]) / 2 for c in range(d)] for r in range(d)]
    if not is_symmetric_positive_definite(Asym):
        return {"check": "candidate set S", "status": "skipped",
                "reason": "the symmetric part of A is not positive definite: no A-norm projections"}
    if len(pts[0]) > CANDIDATE_MAX_DIMENSION or len(pts) > CANDIDATE_MAX_VERTICES:
        return {"check": "candidate set S", "status": "skipped",
                "reason": f"the check runs for d <= {CANDIDATE_MAX_DIMENSION} and at most "
                          f"{CANDIDATE_MAX_VERTICES} leaders (here d = {len(pts[0])}, {len(pts)} leaders)"}
    facet_rows, _ = geometry.facets(pts)
    missing = [f.token for f in non_leaders if not in_candidate_set(f.limit or (), pts, Asym, facet_rows)]
    return {"check": CANDIDATE_CHECK, "facets": len(facet_rows), "agree": not missing, "tokens_not_in_S": missing}


def check_T3(run: ClaimRun) -> Verdict:
    """T3: every token converges to a point of S (D7 fates), and S lies on the boundary of K in R^d."""
    bad = fate_violation_verdict("T3", run)
    if bad is not None:
        return bad
    if not run.settled:
        return inconclusive_unsettled("T3", run, "convergence not certified for every token")
    empty = no_leader("T3", run)
    if empty is not None:
        return empty
    limits = leader_limits(run)
    tokens = sorted(limits)
    pts = [limits[t] for t in tokens]
    points = IntegerPoints(pts)
    boundary: list[dict[str, Any]] = []
    non_leaders = [f for f in run.fates_in_order() if not is_leader(f)]
    for f in non_leaders:
        x = f.limit or ()
        weights = _in_K(run, x, limits)
        if weights is None:
            return make_verdict("T3", "failed", f"token {f.token}'s limit is not in K = conv(leader limits)", run,
                            token=f.token, fate=f.kind, layer=f.layer, limit=qv(x),
                            **outside_evidence(x, pts, "the limit", "every leader limit"))
        direction: list[Fraction] | None = fate_direction(run, f)
        if not (direction is not None and any(t != 0 for t in direction)
                and supports_at(direction, x, points)):
            direction = geometry.supporting_direction(x, pts)
        if direction is None:
            ineq, _ = geometry.facets(pts)
            slack = min(((b + dot(a, x)), a) for b, a in ineq)
            return make_verdict("T3", "failed", f"token {f.token}'s limit {show(x)} is in the interior of K", run,
                            token=f.token, fate=f.kind, layer=f.layer, limit=qv(x),
                            smallest_facet_slack={"facet_normal": qv(slack[1]), "lhs": q(slack[0]), "rhs": "0",
                                                  "compared": "b + a.x vs 0 (strictly positive for every facet)"})
        c = direction
        boundary.append({"token": f.token, "limit": qv(x), "direction": qv(c), "value": q(dot(c, x)),
                         "multipliers": {str(t): q(w) for t, w in sorted(weights.items())}})
    cert = run.with_chain({"settled_layer": run.settled_layer, "fates": fates_json(run), "boundary": boundary})
    distinct = len(set(tuple(b['limit']) for b in boundary) | set(map(tuple, map(qv, pts))))
    verdict = make_verdict("T3", "certified", f"every token certified convergent, settled at layer {run.settled_layer} by {run.settled_by()}; "
                       f"{counted(distinct, 'limit point')}, {'' if distinct == 1 else 'all '}on the boundary of K", run, certificate=cert,
                       kinds={k: sum(1 for f in run.fates if f.kind == k) for k in ("leader", "fixed", "locked", "path")})
    if run.cross_check:
        verdict.cross_checks.append(_candidate_cross_check(run, limits, non_leaders))
    if verdict.cross_checks and not verdict.cross_checks[-1].get("agree", True):
        verdict.summary += " (cross-check disagrees: see cross_checks)"
    return verdict


CLAIM = registry.register(registry.Claim(
    "T3", "every token converges to a point of S, and S lies on the boundary of K", "check", role="theorem",
    assumption="exact convergence from the settled layer on: D7 (leaders stay, locked tokens converge geometrically) "
               "or D9 (every token on its exact closed-form path)", certificate="T3", rests_on=("D3", "D7", "D9"),
    decided_on_limits=True, check=check_T3))
