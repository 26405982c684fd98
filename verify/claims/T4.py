"""T4 (docs/theory.md §2): every non-vertex point of S is the A-norm projection of the origin onto a face of K.

Certified with, for each non-vertex limit, a direction exposing a face of K, the limit's convex
multipliers on it and the exact KKT values <A p, v - p> >= 0 (vacuous when every limit is a
vertex, and said so). cvxpy's projection onto the same face is a cross-check that never decides.
The report adds how many verdicts were vacuous and how many projections the others certify.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Iterator, Mapping, Sequence

from verify.claims import registry
from verify.claims.run import (ClaimRun, Point, TokenFate, fate_direction, fate_violation_verdict, fates_json,
                               inconclusive_unsettled, leader_limits, make_verdict, named_tokens, no_leader, q, qv,
                               show)
from verify.claims.verdicts import Verdict
from verify.core import geometry
from verify.core.formatting import counted
from verify.core.linalg import dot, is_symmetric_positive_definite, mat_vec


def _face_of(run: ClaimRun, c: Sequence[Fraction], limits: dict[int, Point]) -> tuple[Fraction, list[int]]:
    values = {t: dot(c, u) for t, u in limits.items()}
    top = max(values.values())
    return top, sorted(t for t, v in values.items() if v == top)


def check_T4(run: ClaimRun) -> Verdict:
    """T4: every non-vertex point of S is the A-norm projection of the origin onto a face of K."""
    bad = fate_violation_verdict("T4", run)
    if bad is not None:
        return bad
    if not run.settled:
        return inconclusive_unsettled("T4", run, "the set S of limits is not known")
    empty = no_leader("T4", run)
    if empty is not None:
        return empty
    limits = leader_limits(run)
    vertex_points = set(limits.values())
    groups: dict[Point, list[TokenFate]] = {}
    for f in run.fates_in_order():
        if f.limit is not None and f.limit not in vertex_points:
            groups.setdefault(f.limit, []).append(f)
    fates = fates_json(run)
    if not groups:
        return make_verdict("T4", "certified", "vacuous: no non-vertex limits", run,
                        certificate=run.with_chain({"vacuous": True, "settled_layer": run.settled_layer, "fates": fates,
                                                    "projections": []}), non_vertex_limits=0)
    Asym = [[(run.A[r][c] + run.A[c][r]) / 2 for c in range(len(run.A))] for r in range(len(run.A))]
    if not is_symmetric_positive_definite(Asym):
        return make_verdict("T4", "inconclusive", "the symmetric part of A is not positive definite: the A-norm "
                        "projection of the origin is not defined", run, non_vertex_limits=len(groups),
                        A_symmetric_positive_definite=False)
    projections = []
    cross = []
    for p, established in groups.items():
        # Canonical form, the one docs/certificates.md states and the checker reads: tokens sorted,
        # the entry's fate copied from the lowest token index.
        members = sorted(established, key=lambda fate: fate.token)
        f = members[0]
        # Consumed within this iteration, so the closure's f and p are this iteration's.
        def candidates() -> Iterator[list[Fraction]]:
            yield fate_direction(run, f)  # noqa: B023 (A z at the D7 layer exposes conv(F))
            # Then the smallest face G0 containing p. p is the A-projection of 0 onto some face
            # iff onto G0: the projection conditions <A p, v - p> >= 0 on a face containing p hold
            # on its subface G0 too, and on G0 they suffice. So only G0 decides a failure; the
            # first direction may expose a larger face, where they can fail although T4 holds.
            yield geometry.smallest_face_direction(p, [limits[t] for t in sorted(limits)])  # noqa: B023

        entry = None
        failure = None
        for c in candidates():
            M, face = _face_of(run, c, limits)
            weights = geometry.point_in_hull_weights(p, [limits[t] for t in face])
            if weights is None:
                continue
            Ap = mat_vec(Asym, p)
            kkt = {t: dot(Ap, tuple(a - b for a, b in zip(limits[t], p))) for t in face}
            if any(v < 0 for v in kkt.values()):
                failure = (face, kkt)  # the last one tried is G0's, the one that decides
                continue
            entry = {"tokens": [m.token for m in members], "limit": qv(p), "fate": f.kind, "layer": f.layer,
                     "set": sorted(f.attention or ()), "direction": qv(c), "face_value": q(M), "face": face,
                     "multipliers": {str(face[j]): q(w) for j, w in sorted(weights.items())},
                     "kkt": {str(t): q(v) for t, v in sorted(kkt.items())}}
            if not run.cross_check:
                break
            solver = geometry.project_origin_cvxpy([limits[t] for t in face], run.A)
            residual = None
            if solver["point"] is not None:
                residual = max(abs(a - float(b)) for a, b in zip(solver["point"], p))
                residual = residual if math.isfinite(residual) else None  # JSON has no infinity
            cross.append({"check": "cvxpy projection onto the same face", "tokens": entry["tokens"],
                          "face": face, "status": solver["status"], "error": solver["error"],
                          "point_float": solver["point"], "residual_max_abs": residual, "tolerance": 1e-6,
                          "agree": solver["status"] == "optimal" and residual is not None and residual <= 1e-6})
            break
        if entry is None and failure is not None:
            face, kkt = failure
            worst = min(kkt, key=lambda t: kkt[t])
            proj = geometry.project_origin_exact([limits[t] for t in face], run.A)
            return make_verdict("T4", "failed", f"limit {show(p)} of {named_tokens([m.token for m in members])} is not the "
                            "A-projection of 0 onto the smallest face of K containing it (so onto no face)", run,
                            tokens=[m.token for m in members], limit=qv(p), face=face,
                            projection=qv(proj.point), vertex=worst, lhs=q(kkt[worst]), rhs="0",
                            compared=f"<A p, v - p> for face vertex (leader) {worst} vs 0")
        if entry is None:
            return make_verdict("T4", "failed", f"limit {show(p)} lies outside K, so on no face of K", run,
                            tokens=[m.token for m in members], limit=qv(p))
        projections.append(entry)
    cert = run.with_chain({"vacuous": False, "settled_layer": run.settled_layer, "fates": fates,
                           "projections": projections})
    summary = (f"{counted(len(projections), 'non-vertex limit')}, {'' if len(projections) == 1 else 'each '}the exact "
               "A-projection of 0 onto a face of K")
    verdict = make_verdict("T4", "certified", summary, run, certificate=cert, non_vertex_limits=len(projections),
                       faces=[e["face"] for e in projections])
    verdict.cross_checks.extend(cross)
    if not all(x["agree"] for x in cross):
        verdict.summary += " (cvxpy cross-check disagrees or failed: see cross_checks; the exact certificate decides)"
    return verdict


def _report_note(row: Mapping[str, Any], verdicts: Sequence[Mapping[str, Any]]) -> str | None:
    """How often T4 held vacuously, and how many projections the other certified verdicts certify."""
    if not row["certified"]:
        return None
    projections = sum(len((verdict.get("certificate") or {}).get("projections", [])) for verdict in verdicts)
    other = row["certified"] - row["vacuous"]
    projected = ("an A-projection of the origin onto a face of K" if projections == 1
                 else "A-projections of the origin onto faces of K")
    return (f"T4 is vacuous (no limit outside the vertices of K) in {row['vacuous']} of its "
            f"{counted(row['certified'], 'certified verdict')}; the other {other} {'certifies' if other == 1 else 'certify'} "
            f"{counted(projections, 'non-vertex limit')} as {projected} (the persistent-tie families are built to reach "
            "this case).")


CLAIM = registry.register(registry.Claim(
    "T4", "every non-vertex point of S is the A-norm projection of the origin onto a face of K", "check",
    role="theorem", assumption="the limits of D7 or D9 (as for T3), and A symmetric positive definite (KKT conditions "
                               "imply the projection)", certificate="T4", rests_on=("D3", "D7", "D9"),
    decided_on_limits=True, report_note=_report_note, check=check_T4))
