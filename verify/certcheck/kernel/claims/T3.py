"""T3 (docs/theory.md §2, by D7 or D9): every token converges to a point of S, and S lies on the boundary of K.

Every token has a verified fate (its limit). Every non-leader has one boundary entry: its limit,
a nonzero direction c with value <c, limit> that no leader exceeds (a supporting hyperplane of K
through the limit), and convex multipliers that write the limit as a combination of the leaders'
limits (so it lies in K, on that hyperplane: on the boundary).
"""

# ruff: noqa: B023 - a message passed to require as a lambda is formatted inside require, before the
# loop it is written in moves on: the loop variables it reads are the current ones.

from __future__ import annotations

from fractions import Fraction

from ..common import require
from ..fates import _convex_combination, _fates_of, _leaders
from ..model import Context, Rows
from ..numbers import _dot, _get, _int, read_number, _point, _q, _show


def check_T3(cert: dict, ctx: Context) -> None:
    m = ctx.model
    fates = _fates_of(cert, ctx)
    leaders = _leaders(fates)
    boundary = _get(cert, "boundary", "certificate")
    require(isinstance(boundary, list), "boundary: expected a list")
    seen = set()
    rows = Rows(leaders)
    for p, e in enumerate(boundary):
        w = f"boundary[{p}]"
        i = _int(_get(e, "token", w), f"{w}.token", high=m.n - 1)
        require(i not in leaders and i not in seen, lambda: f"{w}: token {i} is a leader or listed twice")
        seen.add(i)
        limit = _point(_get(e, "limit", w), m.d, f"{w}.limit")
        require(limit == fates[i].limit, lambda: f"{w}: limit {_show(limit)} is not the fate's {_show(fates[i].limit)}")
        c = _point(_get(e, "direction", w), m.d, f"{w}.direction")
        require(any(c), lambda: f"{w}: the direction is zero")
        value = read_number(_get(e, "value", w), f"{w}.value")
        require(value == _dot(c, limit), lambda: f"{w}: value {_q(value)} is not <c, limit> = {_q(_dot(c, limit))}")
        values, scale = rows.products(c)
        for u in leaders:
            # <c, u> <= value, on the integer scale: values[u] / scale <= p / q.
            require(values[u] * value.denominator <= value.numerator * scale,
                     lambda: f"{w}: leader {u} has <c, u> = {_q(Fraction(values[u], scale))} > {_q(value)}")
        _convex_combination(_get(e, "multipliers", w), leaders, limit, m, f"{w}.multipliers", rows)
    require(seen == set(fates) - set(leaders), lambda: f"boundary covers {_show(seen)}, not every non-leader token")
