"""T4 (docs/theory.md §2, by D7 or D9): every non-vertex limit is the A-norm projection of the origin onto a face of K.

Each distinct non-vertex limit p has one projection entry copying its first token's fate: the
face F (the leaders exposed by the direction c at ``face_value``, none above it), convex
multipliers writing p in the face, and KKT values <Asym p, u - p> >= 0 for every u of F, recomputed
exactly (Asym = (A + A^T)/2). They prove an A-projection only when Asym is positive definite,
tested exactly; ``vacuous`` says that there is no non-vertex limit.
"""

# ruff: noqa: B023 - a message passed to require as a lambda is formatted inside require, before the
# loop it is written in moves on: the loop variables it reads are the current ones.

from __future__ import annotations

from fractions import Fraction

from ..common import Point, require
from ..fates import _convex_combination, _fates_of, _leaders
from ..meter import charge, cost
from ..model import Context, Model, Rows
from ..numbers import bits_of, _get, _index_set, _int, integer_rows, read_number, _point, _q, _show, _weights


def check_T4(cert: dict, ctx: Context) -> None:
    m = ctx.model
    fates = _fates_of(cert, ctx)
    leaders = _leaders(fates)
    vertex_limits = set(leaders.values())
    non_vertex: dict[Point, list] = {}
    for t in sorted(fates):
        if fates[t].limit not in vertex_limits:
            non_vertex.setdefault(fates[t].limit, []).append(t)
    vacuous = _get(cert, "vacuous", "certificate")
    projections = _get(cert, "projections", "certificate")
    require(vacuous is (not non_vertex), lambda: f"vacuous is {vacuous!r}, but there are {len(non_vertex)} non-vertex limits")
    require(isinstance(projections, list) and len(projections) == len(non_vertex),
             f"projections: expected one entry per non-vertex limit ({len(non_vertex)})")
    if non_vertex:
        require(m.Asym_positive_definite, "(A + A^T)/2 is not positive definite: KKT does not prove an A-projection")
    seen = set()
    rows = Rows(leaders)
    for p, e in enumerate(projections):
        w = f"projections[{p}]"
        point = _point(_get(e, "limit", w), m.d, f"{w}.limit")
        require(point in non_vertex and point not in seen, lambda: f"{w}: {_show(point)} is not a (new) non-vertex limit")
        seen.add(point)
        tokens = non_vertex[point]
        require(_index_set(_get(e, "tokens", w), m.n, f"{w}.tokens") == set(tokens), lambda: f"{w}: tokens with this limit are {tokens}")
        first = fates[tokens[0]]
        require(_get(e, "fate", w) == first.kind and _int(_get(e, "layer", w), f"{w}.layer") == first.layer
                 and _index_set(_get(e, "set", w), m.n, f"{w}.set") == first.set,
                 lambda: f"{w}: fate/layer/set do not copy token {tokens[0]}'s fate ({first.kind}, {first.layer}, "
                         f"{_show(first.set)})")
        c = _point(_get(e, "direction", w), m.d, f"{w}.direction")
        top = read_number(_get(e, "face_value", w), f"{w}.face_value")
        face = _index_set(_get(e, "face", w), m.n, f"{w}.face")
        values, scale = rows.products(c)
        exposed = {u for u in leaders if values[u] * top.denominator == top.numerator * scale}
        require(face == exposed, lambda: f"{w}: leaders with <c, u> = {_q(top)} are {_show(exposed)}, not face {_show(face)}")
        above = [u for u in leaders if values[u] * top.denominator > top.numerator * scale]
        require(not above, lambda: f"{w}: leader {above[:1]} has <c, u> > face_value {_q(top)}")
        _convex_combination(_get(e, "multipliers", w), {u: leaders[u] for u in face}, point, m, f"{w}.multipliers", rows)
        kkt = _weights(_get(e, "kkt", w), m.n, f"{w}.kkt")
        require(set(kkt) == face, lambda: f"{w}.kkt: keys must be the face {_show(face)}")
        kkt_values = _kkt_values(m, rows, point, face)
        for u in sorted(face):
            exact = kkt_values[u]
            require(kkt[u] == exact, lambda: f"{w}.kkt[{u}] is {_q(kkt[u])}, <Asym p, u - p> = {_q(exact)}")
            require(exact >= 0, lambda: f"{w}.kkt[{u}] = {_q(exact)} < 0: p is not the A-projection of 0 onto the face")


def _kkt_values(m: Model, rows: Rows, point: Point, face: frozenset) -> dict[int, Fraction]:
    """{u: <Asym p, u - p>} for the leaders u of the face, in integer arithmetic."""
    if m._Asym_integer is None:
        m._Asym_integer = integer_rows(m.Asym)
    S, s_scale = m._Asym_integer
    (P,), p_scale = integer_rows([point])
    U, u_scale = rows.rows, rows.denominator
    charge(cost(m.d * m.d, bits_of(S), bits_of(P)) + cost(len(face) * m.d, rows.size + bits_of(P), bits_of(S) + bits_of(P)))
    Ap = [sum(a * x for a, x in zip(row, P)) for row in S]  # s_scale p_scale Asym p
    # u - p = (U_u p_scale - P u_scale) / (u_scale p_scale)
    return {u: Fraction(sum(a * (x * p_scale - y * u_scale) for a, x, y in zip(Ap, U[u], P)),
                        s_scale * p_scale * u_scale * p_scale) for u in face}
