"""The independent certificate checker: re-verifies claim certificates with the standard library only.

Every certified verdict of ``hardmax-verify check`` carries a certificate (docs/certificates.md,
issue 8). This module re-checks them without trusting any of the suite's code: it imports
nothing from the package and nothing outside the standard library, replays the hardmax
dynamics of THEORY.md §1 itself with :class:`fractions.Fraction`, re-derives every position,
attention set, score, norm and layer index the certificates name, and verifies every equality
and inequality of the schema exactly, including that each named layer is the FIRST at which
its condition holds.

Usage::

    python -m verify.certcheck claims.json          # a claims report (hardmax-verify/claims-v1)
    python -m verify.certcheck results.json         # a verification report: every embedded one

Exit status: 0 every certificate verified, 1 a certificate rejected, 2 bad input (one line),
3 nothing rejected but a variant the checker does not implement (softmax ``beta``).

What a verified certificate proves rests, beyond the layers replayed, on facts proved in
THEORY.md: D3 (leaders stay fixed) and D7 (fixed tokens, locking), for the update
z' = (z + alpha m)/(1 + alpha) with any A. With a value matrix V that is not a positive
multiple of I neither is proved, so T1-T4 and D3 certificates are then rejected (their finite
conditions are still checked and reported).
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from typing import Any, Callable, NamedTuple, cast

__all__ = ["FORMAT", "BadInput", "Outcome", "CheckResult", "check_report", "check_record", "check_file", "main"]

FORMAT = "hardmax-verify/claims-v1"
RESULTS_SCHEMA = "hardmax-verify/results"
MAX_DIGITS = 100_000  # longest number string read (the largest exact positions have a few thousand digits)
MAX_LAYER = 5000  # a replay bound, so that a mistyped layer index cannot ask for hours of work
NEEDS_D3_D7 = ("T1", "T2", "T3", "T4", "D3")

Point = tuple  # tuple of Fractions


class BadInput(Exception):
    """Nothing can be checked: the file or its configuration is malformed (exit status 2)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


class Rejected(Exception):
    """A certificate is malformed or one of its conditions fails."""


class Outcome(NamedTuple):
    """One verdict: ``status`` is verified, rejected, unsupported or not certified (no certificate to check)."""

    source: str
    claim: str
    status: str
    reason: str


class CheckResult:
    """All outcomes of one file or report, with counts per claim and the exit status."""

    def __init__(self, outcomes: list[Outcome] | None = None) -> None:
        self.outcomes: list[Outcome] = list(outcomes or [])

    def counts(self) -> dict[str, dict[str, int]]:
        table: dict[str, dict[str, int]] = {}
        for o in self.outcomes:
            row = table.setdefault(o.claim, {"verified": 0, "rejected": 0, "unsupported": 0, "not certified": 0})
            row[o.status] += 1
        return table

    @property
    def exit_status(self) -> int:
        statuses = {o.status for o in self.outcomes}
        return 1 if "rejected" in statuses else 3 if "unsupported" in statuses else 0

    def to_json_dict(self) -> dict[str, Any]:
        return {"exit_status": self.exit_status, "counts": self.counts(),
                "outcomes": [o._asdict() for o in self.outcomes]}

    def lines(self, *, verbose: bool = False) -> list[str]:
        out = [f"{o.source}: {o.claim} {o.status}" + (f": {o.reason}" if o.reason else "")
               for o in self.outcomes if verbose or o.status in ("rejected", "unsupported")]
        for claim, row in sorted(self.counts().items()):
            out.append(f"{claim}: " + ", ".join(f"{v} {k}" for k, v in row.items()))
        verdict = {0: "all certificates verified", 1: "a certificate was REJECTED",
                   3: "nothing rejected, but some certificates could not be checked"}[self.exit_status]
        out.append(f"certcheck: {sum(o.status == 'verified' for o in self.outcomes)} certificate(s) verified; {verdict}")
        return out


# --------------------------------------------------------------------------- reading numbers


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise Rejected(message)


def _number(x: Any, where: str) -> Fraction:
    # bool is an int in Python; a float's binary value is not the exact number it was meant to be.
    if isinstance(x, (int, Fraction)) and not isinstance(x, bool):
        return Fraction(x)
    # Only "p", "p/q" or a plain decimal: Fraction would also take "1e999999999", a denial of service.
    if isinstance(x, str) and len(x) <= MAX_DIGITS and _plain(x):
        try:
            return Fraction(x)
        except (ZeroDivisionError, ValueError):  # ValueError: more digits than int() converts
            pass
    raise Rejected(f"{where}: not an exact number: {x!r}"[:300])


def _plain(text: str) -> bool:
    body = text[1:] if text[:1] in "+-" else text
    head, slash, tail = body.partition("/")
    if slash:
        return head.isdigit() and tail.isdigit() and head.isascii() and tail.isascii()
    whole, dot, fraction = head.partition(".")
    return (whole + fraction).isdigit() and (whole + fraction).isascii()


def _get(obj: Any, key: str, where: str) -> Any:
    _require(isinstance(obj, dict) and key in obj, f"{where}: missing {key!r}")
    return obj[key]


def _int(x: Any, where: str, *, low: int = 0, high: int = MAX_LAYER) -> int:
    _require(isinstance(x, int) and not isinstance(x, bool) and low <= x <= high,
             f"{where}: expected an integer in {low}..{high}, got {x!r}")
    return x


def _point(x: Any, d: int, where: str) -> Point:
    _require(isinstance(x, list) and len(x) == d, f"{where}: expected a point with {d} coordinates")
    return tuple(_number(c, f"{where}[{r}]") for r, c in enumerate(x))


def _index_set(x: Any, n: int, where: str) -> frozenset:
    _require(isinstance(x, list), f"{where}: expected a sorted list of token indices")
    items = [_int(j, where, high=n - 1) for j in x]
    _require(items == sorted(set(items)), f"{where}: expected a sorted list of distinct token indices")
    return frozenset(items)


def _weights(x: Any, n: int, where: str) -> dict[int, Fraction]:
    """Multipliers {"token": "lambda"}: keys are token indices as strings."""
    _require(isinstance(x, dict) and all(isinstance(k, str) and k.isdigit() for k in x),
             f"{where}: expected an object keyed by token indices")
    return {_int(int(k), where, high=n - 1): _number(v, f"{where}[{k}]") for k, v in x.items()}


def _show(p: Any) -> str:
    if isinstance(p, Fraction):
        return str(p)
    if isinstance(p, (frozenset, set)):
        return "{" + ", ".join(map(str, sorted(p))) + "}"
    return "(" + ", ".join(str(c) for c in p) + ")"


def _dot(x: Point, y: Point) -> Fraction:
    return sum((a * b for a, b in zip(x, y)), Fraction(0))


def _mean(points: list) -> Point:
    return tuple(sum(col, Fraction(0)) / len(points) for col in zip(*points))


def _matvec(M: list, x: Point) -> Point:
    return tuple(_dot(row, x) for row in M)


# --------------------------------------------------------------------------- the replay


class Model:
    """The configuration and its exact replay (THEORY.md §1), layer by layer on demand."""

    def __init__(self, config: Any) -> None:
        def number(x: Any, where: str) -> Fraction:
            if isinstance(x, float):  # a JSON decimal in a hand-written file: its decimal text, as the suite reads it
                x = repr(x)
            try:
                return _number(x, where)
            except Rejected as error:
                raise BadInput(where, str(error).partition(": ")[2]) from None

        def matrix(x: Any, where: str) -> list:
            if not (isinstance(x, list) and len(x) == self.d and all(isinstance(r, list) and len(r) == self.d for r in x)):
                raise BadInput(where, f"expected a {self.d} x {self.d} matrix")
            return [[number(v, f"{where}[{r}][{c}]") for c, v in enumerate(row)] for r, row in enumerate(x)]

        if not isinstance(config, dict):
            raise BadInput("config", "expected a JSON object")
        tokens = config.get("tokens")
        if not (isinstance(tokens, list) and tokens and all(isinstance(t, list) and t for t in tokens)
                and len({len(t) for t in tokens}) == 1):
            raise BadInput("config.tokens", "expected a nonempty list of points of one dimension")
        self.n, self.d = len(tokens), len(tokens[0])
        self.unsupported = None if config.get("beta") is None else (
            "softmax attention (beta) is not implemented by the checker; no certificate can be re-derived")
        layer0 = [tuple(number(c, f"config.tokens[{i}][{r}]") for r, c in enumerate(t)) for i, t in enumerate(tokens)]
        identity = [[Fraction(int(r == c)) for c in range(self.d)] for r in range(self.d)]
        self.A = identity if config.get("A") is None else matrix(config["A"], "config.A")
        self.V = None if config.get("V") is None else matrix(config["V"], "config.V")
        self.alpha = None
        if self.V is None:
            self.alpha = number(config.get("alpha"), "config.alpha")
            if self.alpha <= 0:
                raise BadInput("config.alpha", f"expected alpha > 0, got {self.alpha}")
        else:
            # z' = (I + V)^{-1} (z + V m) (THEORY.md §6): keep = (I + V)^{-1}, move = (I + V)^{-1} V.
            self.keep = _inverse([[identity[r][c] + self.V[r][c] for c in range(self.d)] for r in range(self.d)])
            if self.keep is None:
                raise BadInput("config.V", "I + V is singular, so the update is undefined")
            self.move = [[_dot(row, col) for col in zip(*self.V)] for row in self.keep]
        # D3 and D7 are proved for z' = (z + alpha m)/(1 + alpha), which V = c I (c > 0) is, with alpha = c.
        self.proved_model = self.V is None or (self.V[0][0] > 0 and all(
            self.V[r][c] == (self.V[0][0] if r == c else 0) for r in range(self.d) for c in range(self.d)))
        self.Asym = [[(self.A[r][c] + self.A[c][r]) / 2 for c in range(self.d)] for r in range(self.d)]
        self._layers = [layer0]
        self._attention: list = []

    def layer(self, k: int) -> list:
        _require(0 <= k <= MAX_LAYER, f"layer {k} outside 0..{MAX_LAYER}")
        while len(self._layers) <= k:
            Z, C = self._layers[-1], self.attention(len(self._layers) - 1)
            new = []
            for z, Ci in zip(Z, C):
                m = _mean([Z[j] for j in sorted(Ci)])
                if self.V is None:  # then alpha is set (checked > 0 on input)
                    alpha = cast(Fraction, self.alpha)
                    new.append(tuple((zr + alpha * mr) / (1 + alpha) for zr, mr in zip(z, m)))
                else:  # then keep and move are set (I + V checked invertible on input)
                    keep, move = cast(list, self.keep), cast(list, self.move)
                    new.append(tuple(a + b for a, b in zip(_matvec(keep, z), _matvec(move, m))))
            self._layers.append(new)
        return self._layers[k]

    def score(self, x: Point, y: Point) -> Fraction:
        """<A x, y> (THEORY.md §1: C_i maximises <A z_i, z_j> over j)."""
        return _dot(_matvec(self.A, x), y)

    def attention(self, k: int) -> list:
        while len(self._attention) <= k:
            Z = self.layer(len(self._attention))
            sets = []
            for z in Z:
                Az = _matvec(self.A, z)
                scores = [_dot(Az, y) for y in Z]
                top = max(scores)
                sets.append(frozenset(j for j, s in enumerate(scores) if s == top))
            self._attention.append(sets)
        return self._attention[k]


def _inverse(M: list) -> list | None:
    """Gauss-Jordan inverse over the rationals; None when singular."""
    d = len(M)
    rows = [list(row) + [Fraction(int(r == c)) for c in range(d)] for r, row in enumerate(M)]
    for p in range(d):
        pivot = next((r for r in range(p, d) if rows[r][p] != 0), None)
        if pivot is None:
            return None
        rows[p], rows[pivot] = rows[pivot], rows[p]
        rows[p] = [x / rows[p][p] for x in rows[p]]
        for r in range(d):
            if r != p and rows[r][p] != 0:
                rows[r] = [a - rows[r][p] * b for a, b in zip(rows[r], rows[p])]
    return [row[d:] for row in rows]


def _positive_definite(S: list) -> bool:
    """Symmetric S is positive definite iff elimination without pivoting meets only positive pivots."""
    S = [list(row) for row in S]
    for p in range(len(S)):
        if S[p][p] <= 0:
            return False
        for r in range(p + 1, len(S)):
            f = S[r][p] / S[p][p]
            S[r] = [a - f * b for a, b in zip(S[r], S[p])]
    return True


# --------------------------------------------------------------------------- fates (THEORY.md D7)


class Fate(NamedTuple):
    kind: str
    layer: int
    set: frozenset
    limit: Point


def _fixed_failure(m: Model, j: int, k: int, G: frozenset, fixed: set) -> str | None:
    """Why D7 (b) does not hold for token j at layer k with G (None when it holds)."""
    # G empty would need C_j = {j} and z_j = mean of nothing; j in G would give j two fates.
    C = m.attention(k)[j]
    if C != G | {j}:
        return f"C_{j} at layer {k} is {_show(C)}, not G + {{{j}}} = {_show(G | {j})}"
    if not G <= fixed:
        return f"tokens {_show(G - fixed)} of G are not established as leader/fixed before"
    Z = m.layer(k)
    mean = _mean([Z[g] for g in sorted(G)])
    if Z[j] != mean:
        return f"z_{j} at layer {k} is {_show(Z[j])}, not the mean of G, {_show(mean)}"
    return None


def _locked_failure(m: Model, i: int, k: int, F: frozenset, fixed: set) -> str | None:
    """Why the D7 locking condition does not hold for token i at layer k with F (None when it holds)."""
    C = m.attention(k)[i]
    if C != F:
        return f"C_{i} at layer {k} is {_show(C)}, not F = {_show(F)}"
    # i in F is caught here: i has no leader/fixed fate before its own entry.
    if not F <= fixed:
        return f"tokens {_show(F - fixed)} of F are not established as leader/fixed before"
    Z = m.layer(k)
    AmF = _matvec(m.A, _mean([Z[v] for v in sorted(F)]))
    on_F = {v: _dot(AmF, Z[v]) for v in sorted(F)}
    top = max(on_F.values())
    if min(on_F.values()) != top:
        return f"<A m_F, v> differs on F at layer {k}: {', '.join(f'{v}: {s}' for v, s in on_F.items())}"
    for w, z in enumerate(Z):
        s = _dot(AmF, z)
        if s > top:
            return f"token {w} scores {s} > {top} = <A m_F, v> on F at layer {k}"
    return None


def _check_fates(raw: Any, m: Model) -> dict[int, Fate]:
    """Verify a fates list (establishment order, one entry per token) and return it by token."""
    _require(isinstance(raw, list) and len(raw) == m.n, f"fates: expected one entry per token ({m.n})")
    fates: dict[int, Fate] = {}
    previous = 0
    for p, e in enumerate(raw):
        w = f"fates[{p}]"
        i = _int(_get(e, "token", w), f"{w}.token", high=m.n - 1)
        _require(i not in fates, f"{w}: token {i} has two fates")
        kind = _get(e, "kind", w)
        _require(kind in ("leader", "fixed", "locked"), f"{w}.kind: {kind!r} is not leader, fixed or locked")
        k = _int(_get(e, "layer", w), f"{w}.layer")
        _require(k >= previous, f"{w}: layer {k} after layer {previous}, not in establishment order")
        previous = k
        S = _index_set(_get(e, "set", w), m.n, f"{w}.set")
        limit = _point(_get(e, "limit", w), m.d, f"{w}.limit")
        Z = m.layer(k)
        # Entries are sorted by layer, so everything earlier in the list has layer <= k.
        fixed_now = {t for t, f in fates.items() if f.kind != "locked"}
        fixed_before = {t for t, f in fates.items() if f.kind != "locked" and f.layer <= k - 1}
        where = f"{w} (token {i}, {kind} at layer {k})"
        if kind == "leader":
            _require(S == {i}, f"{where}: set must be [{i}]")
            C = m.attention(k)[i]
            _require(C == {i}, f"{where}: C_{i} at layer {k} is {_show(C)}, not {{{i}}}")
            _require(k == 0 or m.attention(k - 1)[i] != {i}, f"{where}: not the first layer, C_{i} = {{{i}}} at layer {k - 1}")
            expected = Z[i]
        elif kind == "fixed":
            failure = _fixed_failure(m, i, k, S, fixed_now)
            _require(failure is None, f"{where}: {failure}")
            _require(k == 0 or _fixed_failure(m, i, k - 1, m.attention(k - 1)[i] - {i}, fixed_before) is not None,
                     f"{where}: not the first layer, D7 (b) holds already at layer {k - 1}")
            expected = Z[i]
        else:
            failure = _locked_failure(m, i, k, S, fixed_now)
            _require(failure is None, f"{where}: {failure}")
            _require(k == 0 or _locked_failure(m, i, k - 1, m.attention(k - 1)[i], fixed_before) is not None,
                     f"{where}: not the first layer, the locking condition holds already at layer {k - 1}")
            expected = _mean([Z[v] for v in sorted(S)])
            AmF = _matvec(m.A, expected)
            value = _number(_get(e, "value", w), f"{w}.value")
            top = _dot(AmF, Z[min(S)])
            _require(value == top, f"{where}: value is {value}, but <A m_F, z_v> = {top} on F")
        _require(limit == expected, f"{where}: limit is {_show(limit)}, the replay gives {_show(expected)}")
        fates[i] = Fate(kind, k, S, limit)
    return fates


def _fates_of(cert: dict, ctx: "Context", *, settled: bool = True) -> dict[int, Fate]:
    """The certificate's verified fates; with ``settled``, its settled_layer = the last fate layer."""
    fates = _check_fates(_get(cert, "fates", "certificate"), ctx.model)
    if settled:
        last = max(f.layer for f in fates.values())
        given = _get(cert, "settled_layer", "certificate")
        _require(given == last and not isinstance(given, bool), f"settled_layer is {given!r}, the fates settle at {last}")
        ctx.same("settled_layer", given)
    return fates


def _leaders(fates: dict[int, Fate]) -> dict[int, Point]:
    return {t: f.limit for t, f in fates.items() if f.kind == "leader"}


def _convex_combination(raw: Any, points: dict, target: Point, m: Model, where: str) -> None:
    """``raw`` = {"u": lambda_u} over keys of ``points``: lambda >= 0, sum 1, sum lambda_u points[u] = target."""
    lam = _weights(raw, m.n, where)
    _require(set(lam) <= set(points), f"{where}: keys {_show(set(lam) - set(points))} are not allowed here")
    _require(all(v >= 0 for v in lam.values()), f"{where}: a multiplier is negative")
    _require(sum(lam.values()) == 1, f"{where}: multipliers sum to {sum(lam.values())}, not 1")
    combo = tuple(sum((lam[u] * points[u][r] for u in lam), Fraction(0)) for r in range(m.d))
    _require(combo == target, f"{where}: sum lambda_u u = {_show(combo)}, not {_show(target)}")


# --------------------------------------------------------------------------- one checker per claim


class Context:
    """The replay plus what the enclosing report says (last_layer, settled_layer), to compare with."""

    def __init__(self, model: Model, *, last_layer: Any = None, settled_layer: Any = None) -> None:
        self.model, self.report = model, {"last_layer": last_layer, "settled_layer": settled_layer}

    def same(self, key: str, value: Any) -> None:
        expected = self.report[key]
        _require(expected is None or value == expected, f"{key} is {value!r}, the report says {expected!r}")


def _last_layer(cert: dict, ctx: Context) -> int:
    last = _int(_get(cert, "last_layer", "certificate"), "last_layer")
    ctx.same("last_layer", last)
    return last


def check_T0(cert: dict, ctx: Context) -> None:
    m = ctx.model
    k = _int(_get(cert, "layer", "certificate"), "layer")
    leaders = _index_set(_get(cert, "leaders", "certificate"), m.n, "leaders")
    actual = {i for i in range(m.n) if m.attention(k)[i] == {i}}
    _require(bool(actual) and leaders == actual, f"leaders at layer {k} are {_show(actual)}, not {_show(leaders)}")
    for earlier in range(k):
        lead = [i for i in range(m.n) if m.attention(earlier)[i] == {i}]
        _require(not lead, f"not the first layer with a leader: token {lead[:1]} leads at layer {earlier}")


def check_T1(cert: dict, ctx: Context, *, needs_fates: bool = True) -> None:
    m = ctx.model
    last = _last_layer(cert, ctx)
    entries = _get(cert, "leaders", "certificate")
    _require(isinstance(entries, list), "leaders: expected a list")
    listed: dict[int, int] = {}
    for p, e in enumerate(entries):
        w = f"leaders[{p}]"
        i = _int(_get(e, "token", w), f"{w}.token", high=m.n - 1)
        f = _int(_get(e, "first_layer", w), f"{w}.first_layer", high=last)
        position = _point(_get(e, "position", w), m.d, f"{w}.position")
        _require(i not in listed, f"{w}: token {i} listed twice")
        listed[i] = f
        _require(f == 0 or m.attention(f - 1)[i] != {i}, f"{w}: token {i} leads already at layer {f - 1}")
        for k in range(f, last + 1):
            _require(m.attention(k)[i] == {i}, f"{w}: C_{i} at layer {k} is {_show(m.attention(k)[i])}, not {{{i}}}")
            _require(m.layer(k)[i] == position,
                     f"{w}: z_{i} at layer {k} is {_show(m.layer(k)[i])}, not {_show(position)}")
    leading = {i for k in range(last + 1) for i in range(m.n) if m.attention(k)[i] == {i}}
    _require(set(listed) == leading, f"tokens leading by layer {last} are {_show(leading)}, listed {_show(set(listed))}")
    if needs_fates or "fates" in cert:
        fates = _fates_of(cert, ctx)
        leader_fates = {t: f.layer for t, f in fates.items() if f.kind == "leader"}
        _require(leader_fates == listed, f"leaders {listed} differ from the leader fates {leader_fates}")


def check_D3(cert: dict, ctx: Context) -> None:
    check_T1(cert, ctx, needs_fates=False)


def check_T2(cert: dict, ctx: Context) -> None:
    m = ctx.model
    leaders = _leaders(_fates_of(cert, ctx))
    vertices = _get(cert, "vertices", "certificate")
    _require(isinstance(vertices, list), "vertices: expected a list")
    seen = set()
    for p, e in enumerate(vertices):
        w = f"vertices[{p}]"
        i = _int(_get(e, "token", w), f"{w}.token", high=m.n - 1)
        _require(i in leaders and i not in seen, f"{w}: token {i} is not a leader fate, or listed twice")
        seen.add(i)
        limit = _point(_get(e, "limit", w), m.d, f"{w}.limit")
        _require(limit == leaders[i], f"{w}: limit {_show(limit)} is not the fate's {_show(leaders[i])}")
        c = _point(_get(e, "direction", w), m.d, f"{w}.direction")
        for u, other in leaders.items():
            _require(u == i or _dot(c, limit) > _dot(c, other),
                     f"{w}: <c, v> = {_dot(c, limit)} is not > <c, u> = {_dot(c, other)} for leader {u}")
    _require(seen == set(leaders), f"vertices cover {_show(seen)}, the leaders are {_show(set(leaders))}")


def check_T3(cert: dict, ctx: Context) -> None:
    m = ctx.model
    fates = _fates_of(cert, ctx)
    leaders = _leaders(fates)
    boundary = _get(cert, "boundary", "certificate")
    _require(isinstance(boundary, list), "boundary: expected a list")
    seen = set()
    for p, e in enumerate(boundary):
        w = f"boundary[{p}]"
        i = _int(_get(e, "token", w), f"{w}.token", high=m.n - 1)
        _require(i not in leaders and i not in seen, f"{w}: token {i} is a leader or listed twice")
        seen.add(i)
        limit = _point(_get(e, "limit", w), m.d, f"{w}.limit")
        _require(limit == fates[i].limit, f"{w}: limit {_show(limit)} is not the fate's {_show(fates[i].limit)}")
        c = _point(_get(e, "direction", w), m.d, f"{w}.direction")
        _require(any(c), f"{w}: the direction is zero")
        value = _number(_get(e, "value", w), f"{w}.value")
        _require(value == _dot(c, limit), f"{w}: value {value} is not <c, limit> = {_dot(c, limit)}")
        for u, point in leaders.items():
            _require(_dot(c, point) <= value, f"{w}: leader {u} has <c, u> = {_dot(c, point)} > {value}")
        _convex_combination(_get(e, "multipliers", w), leaders, limit, m, f"{w}.multipliers")
    _require(seen == set(fates) - set(leaders), f"boundary covers {_show(seen)}, not every non-leader token")


def check_T4(cert: dict, ctx: Context) -> None:
    m = ctx.model
    fates = _fates_of(cert, ctx, settled=False)
    leaders = _leaders(fates)
    vertex_limits = set(leaders.values())
    non_vertex: dict[Point, list] = {}
    for t in sorted(fates):
        if fates[t].limit not in vertex_limits:
            non_vertex.setdefault(fates[t].limit, []).append(t)
    vacuous = _get(cert, "vacuous", "certificate")
    projections = _get(cert, "projections", "certificate")
    _require(vacuous is (not non_vertex), f"vacuous is {vacuous!r}, but there are {len(non_vertex)} non-vertex limits")
    _require(isinstance(projections, list) and len(projections) == len(non_vertex),
             f"projections: expected one entry per non-vertex limit ({len(non_vertex)})")
    if non_vertex:
        _require(_positive_definite(m.Asym), "(A + A^T)/2 is not positive definite: KKT does not prove an A-projection")
    seen = set()
    for p, e in enumerate(projections):
        w = f"projections[{p}]"
        point = _point(_get(e, "limit", w), m.d, f"{w}.limit")
        _require(point in non_vertex and point not in seen, f"{w}: {_show(point)} is not a (new) non-vertex limit")
        seen.add(point)
        tokens = non_vertex[point]
        _require(_index_set(_get(e, "tokens", w), m.n, f"{w}.tokens") == set(tokens), f"{w}: tokens with this limit are {tokens}")
        first = fates[tokens[0]]
        _require(_get(e, "fate", w) == first.kind and _int(_get(e, "layer", w), f"{w}.layer") == first.layer
                 and _index_set(_get(e, "set", w), m.n, f"{w}.set") == first.set,
                 f"{w}: fate/layer/set do not copy token {tokens[0]}'s fate ({first.kind}, {first.layer}, {_show(first.set)})")
        c = _point(_get(e, "direction", w), m.d, f"{w}.direction")
        top = _number(_get(e, "face_value", w), f"{w}.face_value")
        face = _index_set(_get(e, "face", w), m.n, f"{w}.face")
        exposed = {u for u, v in leaders.items() if _dot(c, v) == top}
        _require(face == exposed, f"{w}: leaders with <c, u> = {top} are {_show(exposed)}, not face {_show(face)}")
        above = [u for u, v in leaders.items() if _dot(c, v) > top]
        _require(not above, f"{w}: leader {above[:1]} has <c, u> > face_value {top}")
        _convex_combination(_get(e, "multipliers", w), {u: leaders[u] for u in face}, point, m, f"{w}.multipliers")
        kkt = _weights(_get(e, "kkt", w), m.n, f"{w}.kkt")
        _require(set(kkt) == face, f"{w}.kkt: keys must be the face {_show(face)}")
        Ap = _matvec(m.Asym, point)
        for u in sorted(face):
            exact = _dot(Ap, tuple(a - b for a, b in zip(leaders[u], point)))
            _require(kkt[u] == exact, f"{w}.kkt[{u}] is {kkt[u]}, <Asym p, u - p> = {exact}")
            _require(exact >= 0, f"{w}.kkt[{u}] = {exact} < 0: p is not the A-projection of 0 onto the face")


def check_D1(cert: dict, ctx: Context) -> None:
    m = ctx.model
    first = _int(_get(cert, "first_layer", "certificate"), "first_layer")
    last = _last_layer(cert, ctx)
    weights = _get(cert, "weights", "certificate")
    _require(isinstance(weights, list) and len(weights) == last - first,
             f"weights: expected {max(last - first, 0)} layers ({first}..{last - 1})")
    for offset, rows in enumerate(weights):
        k = first + offset
        _require(isinstance(rows, list) and len(rows) == m.n, f"weights[{offset}]: expected one entry per token")
        Z, after = m.layer(k), m.layer(k + 1)
        for i, pairs in enumerate(rows):
            w = f"weights[{offset}][{i}] (layer {k} -> {k + 1})"
            _require(isinstance(pairs, list) and all(isinstance(q, list) and len(q) == 2 for q in pairs),
                     f"{w}: expected [token, weight] pairs")
            lam: dict[int, Fraction] = {}
            for j, v in pairs:
                j = _int(j, w, high=m.n - 1)
                lam[j] = lam.get(j, Fraction(0)) + _number(v, w)
                _require(_number(v, w) >= 0, f"{w}: weight of token {j} is negative")
            _require(sum(lam.values()) == 1, f"{w}: weights sum to {sum(lam.values())}, not 1")
            combo = tuple(sum((lam[j] * Z[j][r] for j in lam), Fraction(0)) for r in range(m.d))
            _require(combo == after[i], f"{w}: sum w z_j = {_show(combo)}, z_{i} at layer {k + 1} is {_show(after[i])}")


def check_D2(cert: dict, ctx: Context) -> None:
    m = ctx.model
    last = _last_layer(cert, ctx)
    norms = _get(cert, "norms", "certificate")
    _require(isinstance(norms, list) and len(norms) == last + 1, f"norms: expected layers 0..{last}")
    for k, row in enumerate(norms):
        _require(isinstance(row, list) and len(row) == m.n, f"norms[{k}]: expected one entry per token")
        for i, raw in enumerate(row):
            exact = m.score(m.layer(k)[i], m.layer(k)[i])
            _require(_number(raw, f"norms[{k}][{i}]") == exact, f"norms[{k}][{i}] is {raw}, <A z, z> = {exact}")
            _require(k == 0 or exact >= m.score(m.layer(k - 1)[i], m.layer(k - 1)[i]),
                     f"token {i}: squared A-norm decreases from layer {k - 1} to {k}")


def check_replay(cert: dict, ctx: Context) -> None:
    m = ctx.model
    last = _last_layer(cert, ctx)
    final = _get(cert, "final_positions", "certificate")
    _require(isinstance(final, list) and len(final) == m.n, "final_positions: expected one point per token")
    for i, raw in enumerate(final):
        p = _point(raw, m.d, f"final_positions[{i}]")
        _require(p == m.layer(last)[i], f"final_positions[{i}] is {_show(p)}, the replay gives {_show(m.layer(last)[i])}")


CHECKS: dict[str, Callable[[dict, Context], None]] = {
    "T0": check_T0, "T1": check_T1, "T2": check_T2, "T3": check_T3, "T4": check_T4,
    "D1": check_D1, "D2": check_D2, "D3": check_D3, "replay": check_replay}


def _check_layer_positions(cert: dict, m: Model) -> None:
    raw = cert.get("layer_positions")
    if raw is None:
        return
    _require(isinstance(raw, dict), "layer_positions: expected an object keyed by layer")
    for key, points in raw.items():
        _require(isinstance(key, str) and key.isdigit(), f"layer_positions: bad layer key {key!r}")
        k = _int(int(key), "layer_positions")
        _require(isinstance(points, list) and len(points) == m.n, f"layer_positions[{key}]: expected one point per token")
        for i, raw_point in enumerate(points):
            p = _point(raw_point, m.d, f"layer_positions[{key}][{i}]")
            _require(p == m.layer(k)[i], f"layer_positions[{key}][{i}] is {_show(p)}, the replay gives {_show(m.layer(k)[i])}")


# --------------------------------------------------------------------------- reports and files


def _verify(claim: str, verdict: Any, ctx: Context) -> tuple[str, str]:
    """(status, reason) for one verdict."""
    if not isinstance(verdict, dict) or verdict.get("status") != "certified":
        return "not certified", f"status {verdict.get('status') if isinstance(verdict, dict) else None!r}, no certificate"
    cert = verdict.get("certificate")
    if not isinstance(cert, dict):
        return "rejected", "a certified verdict without a certificate"
    if ctx.model.unsupported:
        return "unsupported", ctx.model.unsupported
    if claim not in CHECKS:
        return "rejected", f"the checker does not know claim {claim!r}"
    try:
        _check_layer_positions(cert, ctx.model)
        CHECKS[claim](cert, ctx)
    except Rejected as error:
        return "rejected", str(error)
    if claim in NEEDS_D3_D7 and not ctx.model.proved_model:
        return "rejected", ("every condition holds for the layers replayed, but with this value matrix V "
                            "D3/D7 are not proved, so nothing follows beyond them")
    return "verified", ""


_MODELS: dict[str, Model] = {}


def _model(config: Any) -> Model:
    """The replay of ``config``, kept for a few configurations (it depends on the configuration only)."""
    key = json.dumps(config, sort_keys=True, default=str)
    if key not in _MODELS:
        model = Model(config)
        if len(_MODELS) >= 16:
            _MODELS.pop(next(iter(_MODELS)))
        _MODELS[key] = model
    return _MODELS[key]


def _check_verdicts(source: str, config: Any, verdicts: Any, *, last_layer: Any = None,
                    settled_layer: Any = None) -> list[Outcome]:
    if not isinstance(verdicts, dict):
        raise BadInput(f"{source}.verdicts", "expected an object keyed by claim id")
    ctx = Context(_model(config), last_layer=last_layer, settled_layer=settled_layer)
    return [Outcome(source, claim, *_verify(claim, verdicts[claim], ctx)) for claim in sorted(verdicts)]


def check_report(data: dict, *, source: str = "report") -> CheckResult:
    """Re-verify every certificate of one claims report (format ``hardmax-verify/claims-v1``).

    Raises
    ------
    BadInput
        When ``data`` is not a claims report or its configuration is malformed.
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BadInput("format", f"expected {FORMAT!r}, got {data.get('format') if isinstance(data, dict) else data!r}")
    return CheckResult(_check_verdicts(source, data.get("config"), data.get("verdicts"),
                                       last_layer=data.get("last_layer"), settled_layer=data.get("settled_layer")))


def check_record(configuration: dict, verdicts: dict, *, last_layer: int | None = None,
                 settled_layer: int | None = None) -> dict[str, dict[str, Any]]:
    """The report builder's hook: ``{claim: {"ok": bool, "status": str, "reason": str}}`` for the given verdicts."""
    outcomes = _check_verdicts("record", configuration, verdicts, last_layer=last_layer, settled_layer=settled_layer)
    return {o.claim: {"ok": o.status == "verified", "status": o.status, "reason": o.reason} for o in outcomes}


def _embedded(data: Any, where: str) -> list[tuple[str, Any, Any, Any, Any]]:
    """Every claims report or results record inside ``data``: (source, config, verdicts, last, settled)."""
    found = []
    if isinstance(data, dict):
        if data.get("format") == FORMAT:
            return [(where, data.get("config"), data.get("verdicts"), data.get("last_layer"), data.get("settled_layer"))]
        if "configuration" in data and isinstance(data.get("verdicts"), dict):
            task = data.get("task")
            name = task.get("name") if isinstance(task, dict) else None
            return [(f"{where} ({name})" if name else where, data["configuration"], data["verdicts"],
                     data.get("layers_run"), data.get("settled_layer"))]
        for key, value in data.items():
            found += _embedded(value, f"{where}.{key}")
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found += _embedded(value, f"{where}[{i}]")
    return found


def check_file(path: str) -> CheckResult:
    """Re-verify a claims report, or every claims report / record embedded in a ``results.json``."""
    try:
        with open(path, encoding="utf-8") as handle:
            # parse_float=str: a decimal is kept as its text (read exactly later, exponents refused).
            data = json.load(handle, parse_float=str)
    except OSError as error:
        raise BadInput(str(path), error.strerror or str(error)) from None
    except (ValueError, RecursionError) as error:
        raise BadInput(str(path), f"not valid JSON ({error})") from None
    if isinstance(data, dict) and data.get("format") == FORMAT:
        return check_report(data, source=str(path))
    if not (isinstance(data, dict) and data.get("schema") == RESULTS_SCHEMA):
        raise BadInput(str(path), f"neither a claims report ({FORMAT!r}) nor a verification report ({RESULTS_SCHEMA!r})")
    result = CheckResult()
    for source, config, verdicts, last, settled in _embedded(data, "results"):
        result.outcomes += _check_verdicts(source, config, verdicts, last_layer=last, settled_layer=settled)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verify.certcheck", description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="a claims report (hardmax-verify check --json) or a results.json")
    parser.add_argument("--json", action="store_true", help="print the outcomes as JSON")
    parser.add_argument("--verbose", action="store_true", help="print every outcome, not only rejections")
    args = parser.parse_args(argv)
    try:
        result = check_file(args.file)
    except BadInput as error:
        print(f"certcheck: error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(result.to_json_dict(), indent=1) if args.json else "\n".join(result.lines(verbose=args.verbose)))
    return result.exit_status


if __name__ == "__main__":
    sys.exit(main())
