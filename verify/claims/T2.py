"""T2 (docs/theory.md §2): the leaders' limits are pairwise distinct and are exactly the vertices of K.

K = conv(leader limits). Certified with a separating direction for every leader limit, once the
leader set is final (D7 fates, or a D9 chain).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from verify.claims import registry
from verify.claims.run import (SETTLED, ClaimRun, Point, fate_violation_verdict, fates_json, inconclusive_unsettled,
                               leader_limits, make_verdict, no_leader, q, qv)
from verify.claims.verdicts import Verdict
from verify.core import geometry
from verify.core.formatting import counted
from verify.core.linalg import IntegerPoints, mat_vec


def scores_itself_highest(A: Sequence[Sequence[Fraction]], pts: Sequence[Point]) -> list[bool]:
    """For every point v of ``pts``: does A v score v strictly above every other point (C = {v})?

    On integers over one common denominator (:class:`IntegerPoints`): the n^2 leader pairs are the
    quadratic part of T2, and the positive scale leaves every comparison as it is.
    """
    if not pts:
        return []
    highest = []
    for idx, scores in enumerate(IntegerPoints(pts).scores_under(A)):
        own = scores[idx]
        highest.append(all(own > s for j, s in enumerate(scores) if j != idx))
    return highest


def check_T2(run: ClaimRun) -> Verdict:
    """T2: the leaders' limits are pairwise distinct and are exactly the vertices of K = conv(leader limits)."""
    bad = fate_violation_verdict("T2", run)
    if bad is not None:
        return bad
    if not run.settled:
        return inconclusive_unsettled("T2", run, "the final set of leaders is not known")
    empty = no_leader("T2", run)
    if empty is not None:
        return empty
    limits = leader_limits(run)
    tokens = sorted(limits)
    seen: dict[Point, int] = {}
    for t in tokens:
        if limits[t] in seen:
            return make_verdict("T2", "failed", f"leaders {seen[limits[t]]} and {t} have the same limit", run,
                            tokens=[seen[limits[t]], t], limit=qv(limits[t]))
        seen[limits[t]] = t
    vertices = []
    pts = [limits[t] for t in tokens]
    highest = scores_itself_highest(run.A, pts)
    for idx, t in enumerate(tokens):
        v = limits[t]
        c = mat_vec(run.A, v)  # C_t = {t}: A z_t scores z_t strictly above every other token
        if not highest[idx]:
            separating = geometry.separating_direction(idx, pts)
            if separating is None:
                weights = geometry.point_in_hull_weights(v, [limits[u] for u in tokens if u != t]) or {}
                others = [u for u in tokens if u != t]
                return make_verdict("T2", "failed", f"leader {t}'s limit is not a vertex of K: it lies in the hull of the others",
                                run, token=t, limit=qv(v),
                                weights={str(others[j]): q(w) for j, w in weights.items()})
            c = separating
        vertices.append({"token": t, "limit": qv(v), "direction": qv(c)})
    cert = run.with_chain({"settled_layer": run.settled_layer, "fates": fates_json(run), "vertices": vertices})
    one = len(tokens) == 1
    return make_verdict("T2", "certified", f"{counted(len(tokens), 'distinct leader limit')}, {'a' if one else 'each a'} "
                    "vertex of K (separating directions)",
                    run, certificate=cert, vertices=len(tokens))


CLAIM = registry.register(registry.Claim(
    "T2", "the leaders' limits are pairwise distinct and are exactly the vertices of K", "check", role="theorem",
    assumption=f"the leader set is final: {SETTLED}, and neither locked nor fixed tokens nor paths whose final set is "
               "not their own token ever lead", certificate="T2", rests_on=("D3", "D7", "D9"), decided_on_limits=True,
    check=check_T2))
