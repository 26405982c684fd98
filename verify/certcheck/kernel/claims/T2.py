"""T2 (docs/theory.md §2, by D7 or D9): the leaders' limits are distinct and are the vertices of K.

K is the convex hull of the leaders' limits (their verified fates). Every leader has one vertex
entry whose limit is its fate's and whose direction c separates it strictly: <c, v> > <c, u> for
every other leader u (exact, in integers over one denominator).
"""

# ruff: noqa: B023 - a message passed to require as a lambda is formatted inside require, before the
# loop it is written in moves on: the loop variables it reads are the current ones.

from __future__ import annotations

from fractions import Fraction

from ..common import require
from ..fates import _fates_of, _leaders
from ..model import Context, Rows
from ..numbers import _get, _int, _point, _q, _show


def check_T2(cert: dict, ctx: Context) -> None:
    m = ctx.model
    leaders = _leaders(_fates_of(cert, ctx))
    vertices = _get(cert, "vertices", "certificate")
    require(isinstance(vertices, list), "vertices: expected a list")
    seen = set()
    rows = Rows(leaders)
    for p, e in enumerate(vertices):
        w = f"vertices[{p}]"
        i = _int(_get(e, "token", w), f"{w}.token", high=m.n - 1)
        require(i in leaders and i not in seen, lambda: f"{w}: token {i} is not a leader fate, or listed twice")
        seen.add(i)
        limit = _point(_get(e, "limit", w), m.d, f"{w}.limit")
        require(limit == leaders[i], lambda: f"{w}: limit {_show(limit)} is not the fate's {_show(leaders[i])}")
        c = _point(_get(e, "direction", w), m.d, f"{w}.direction")
        values, scale = rows.products(c)
        for u in leaders:
            require(u == i or values[i] > values[u],
                     lambda: f"{w}: <c, v> = {_q(Fraction(values[i], scale))} is not > <c, u> = "
                             f"{_q(Fraction(values[u], scale))} for leader {u}")
    require(seen == set(leaders), lambda: f"vertices cover {_show(seen)}, the leaders are {_show(set(leaders))}")
