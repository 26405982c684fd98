"""The fates of docs/theory.md D7 (leader, fixed, locked) and D9 (path), verified and searched from the replay.

A certificate's fates list is verified entry by entry in establishment order, each at the FIRST
layer its condition holds (the condition must fail one layer earlier): a leader has C_j = {j}; a
fixed token (D7 (b)) sits at the mean of the rest G of its set, all of G leader or fixed before;
a locked token's set F is leader or fixed, <A m_F, z_v> is the same on F and no other token
scores more. A path fate is accepted only with the run's verified certified closed-form chain.
:func:`_search_fates` finds the same fates from the replay alone, so that a report's fates and
settled layer can be compared with them.
"""

# ruff: noqa: B023 - a message passed to require as a lambda is formatted inside require, before the
# loop it is written in moves on: the loop variables it reads are the current ones.

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any, cast

from .common import Point, require
from .meter import charge, cost
from .model import Chain, Context, Fate, Model, Rows
from .numbers import bits_of, _get, _index_set, _int, read_number, _point, _q, _show, _weights


def _is_leader(token: int, f: Fate) -> bool:
    """A D7 leader, or a token whose verified path ends with C_j = {j} (a leader from some layer on, D3)."""
    return f.kind == "leader" or (f.kind == "path" and f.set == {token})


def _fixed_failure(m: Model, j: int, k: int, G: frozenset, fixed: set) -> str | None:
    """Why D7 (b) does not hold for token j at layer k with G (None when it holds)."""
    # G empty would need C_j = {j} and z_j = mean of nothing; j in G would give j two fates.
    C = m.attention(k)[j]
    if C != G | {j}:
        return f"C_{j} at layer {k} is {_show(C)}, not G + {{{j}}} = {_show(G | {j})}"
    if not G <= fixed:
        return f"tokens {_show(G - fixed)} of G are not established as leader/fixed before"
    if not _at_mean(m, j, k, G):
        return f"z_{j} at layer {k} is {_show(m.layer(k)[j])}, not the mean of G, {_show(_mean_of(m, k, G))}"
    return None


def _at_mean(m: Model, j: int, k: int, G: frozenset) -> bool:
    """z_j = mean of z_g over G at layer k, in the layer's integer numerators: sum_G N_g = |G| N_j."""
    N, _ = m.integer_layer(k)
    charge(cost(len(G) * m.d, bits_of(N)))
    return [sum(col) for col in zip(*(N[g] for g in G))] == [len(G) * x for x in N[j]]


def _mean_of(m: Model, k: int, F: frozenset) -> Point:
    """The mean of the positions of the tokens of F at layer k (exact), from the integer numerators."""
    N, D = m.integer_layer(k)
    charge(cost(len(F) * m.d, bits_of(N)) + cost(m.d, bits_of(N), bits_of(N)))
    return tuple(Fraction(sum(col), len(F) * D) for col in zip(*(N[v] for v in F)))


def _lock_values(m: Model, k: int, F: frozenset) -> list[int]:
    """[sum_{v in F} S_vw for every w]: |F| <A m_F, z_w> on the scale m.scale(k), computed as
    <A_int sum_F N_v, N_w> (the same integers, with d products per token instead of |F|)."""
    key = (k, F)
    if key not in m._locks:
        N, _ = m.integer_layer(k)
        size, a_bits = bits_of(N), m._A_bits
        charge(cost(len(F) * m.d, size) + (cost(m.d * m.d, size, a_bits) if m.given_A else 0)
                + cost(m.n * m.d, size + a_bits, size))
        total = [sum(col) for col in zip(*(N[v] for v in F))]
        direction = total if m._A_integer is None else [sum(a * x for a, x in zip(row, total)) for row in m._A_integer]
        if len(m._locks) >= 256:
            m._locks.pop(next(iter(m._locks)))
        m._locks[key] = [sum(a * y for a, y in zip(direction, other)) for other in N]
    return m._locks[key]


def _locked_failure(m: Model, i: int, k: int, F: frozenset, fixed: set) -> str | None:
    """Why the D7 locking condition does not hold for token i at layer k with F (None when it holds)."""
    C = m.attention(k)[i]
    if C != F:
        return f"C_{i} at layer {k} is {_show(C)}, not F = {_show(F)}"
    # i in F is caught here: i has no leader/fixed fate before its own entry.
    if not F <= fixed:
        return f"tokens {_show(F - fixed)} of F are not established as leader/fixed before"
    # <A m_F, z_w> = (1/|F|) sum_{v in F} <A z_v, z_w>: integer column sums of the score matrix.
    scale = m.scale(k)
    members = sorted(F)
    value = _lock_values(m, k, F)
    on_F = {v: value[v] for v in members}
    top = max(on_F.values())
    exact = lambda x: _q(Fraction(x, scale * len(members)))  # noqa: E731
    if min(on_F.values()) != top:
        shown = ", ".join(f"{v}: {exact(s)}" for v, s in list(on_F.items())[:8])
        return f"<A m_F, v> differs on F at layer {k}: {shown}"
    for w in range(m.n):
        if value[w] > top:
            return f"token {w} scores {exact(value[w])} > {exact(top)} = <A m_F, v> on F at layer {k}"
    return None


def _check_fates(raw: Any, m: Model, chain: Chain | None = None) -> dict[int, Fate]:
    """Verify a fates list (establishment order, one entry per token) and return it by token.

    A "path" fate (docs/theory.md D9) is accepted only with the run's verified certified ``chain``: its
    layer is the chain's first layer, its set the final segment's set, its limit the final path's
    constant term."""
    require(isinstance(raw, list) and len(raw) == m.n, lambda: f"fates: expected one entry per token ({m.n})")
    fates: dict[int, Fate] = {}
    previous = 0
    for p, e in enumerate(raw):
        w = f"fates[{p}]"
        i = _int(_get(e, "token", w), f"{w}.token", high=m.n - 1)
        require(i not in fates, lambda: f"{w}: token {i} has two fates")
        kind = _get(e, "kind", w)
        require(kind in ("leader", "fixed", "locked", "path"), lambda: f"{w}.kind: {kind!r} is not leader, fixed, locked or path")
        require(("value" in e) == (kind == "locked"),
                 lambda: f"{w}: " + ("a locked fate without its value" if kind == "locked"
                                     else f"a {kind} fate states a value (only a locked fate has one)"))
        k = _int(_get(e, "layer", w), f"{w}.layer")
        require(k >= previous, lambda: f"{w}: layer {k} after layer {previous}, not in establishment order")
        previous = k
        S = _index_set(_get(e, "set", w), m.n, f"{w}.set")
        limit = _point(_get(e, "limit", w), m.d, f"{w}.limit")
        if kind == "path":
            where = f"{w} (token {i}, path from layer {k})"
            require(chain is not None, lambda: f"{where}: no verified certified closed-form chain in the run supports it")
            chain = cast(Chain, chain)
            require(k == chain.start, lambda: f"{where}: the run's chain starts at layer {chain.start}")
            require(S == chain.sets[i], lambda: f"{where}: set {_show(S)} is not the final segment's {_show(chain.sets[i])}")
            require(limit == chain.limits[i], lambda: f"{where}: limit is {_show(limit)}, the chain's is {_show(chain.limits[i])}")
            fates[i] = Fate(kind, k, S, limit)
            continue
        Z = m.layer(k)
        # Entries are sorted by layer, so everything earlier in the list has layer <= k.
        fixed_now = {t for t, f in fates.items() if f.kind in ("leader", "fixed")}
        fixed_before = {t for t, f in fates.items() if f.kind in ("leader", "fixed") and f.layer <= k - 1}
        where = f"{w} (token {i}, {kind} at layer {k})"
        if kind == "leader":
            require(S == {i}, lambda: f"{where}: set must be [{i}]")
            C = m.attention(k)[i]
            require(C == {i}, lambda: f"{where}: C_{i} at layer {k} is {_show(C)}, not {{{i}}}")
            require(k == 0 or m.attention(k - 1)[i] != {i}, lambda: f"{where}: not the first layer, C_{i} = {{{i}}} at layer {k - 1}")
            expected = Z[i]
        elif kind == "fixed":
            failure = _fixed_failure(m, i, k, S, fixed_now)
            require(failure is None, lambda: f"{where}: {failure}")
            require(k == 0 or _fixed_failure(m, i, k - 1, m.attention(k - 1)[i] - {i}, fixed_before) is not None,
                     f"{where}: not the first layer, D7 (b) holds already at layer {k - 1}")
            expected = Z[i]
        else:
            failure = _locked_failure(m, i, k, S, fixed_now)
            require(failure is None, lambda: f"{where}: {failure}")
            require(k == 0 or _locked_failure(m, i, k - 1, m.attention(k - 1)[i], fixed_before) is not None,
                     f"{where}: not the first layer, the locking condition holds already at layer {k - 1}")
            expected = _mean_of(m, k, S)
            value = read_number(_get(e, "value", w), f"{w}.value")
            top = _lock_value(m, k, S)
            require(value == top, lambda: f"{where}: value is {_q(value)}, but <A m_F, z_v> = {_q(top)} on F")
        require(limit == expected, lambda: f"{where}: limit is {_show(limit)}, the replay gives {_show(expected)}")
        fates[i] = Fate(kind, k, S, limit)
    return fates


def _lock_value(m: Model, k: int, F: frozenset) -> Fraction:
    """<A m_F, z_v> for v in F at layer k (the common score a locked entry states)."""
    return Fraction(_lock_values(m, k, F)[min(F)], m.scale(k) * len(F))


def _fates_of(cert: dict, ctx: "Context", *, settled: bool = True) -> dict[int, Fate]:
    """The certificate's verified fates; with ``settled``, its settled_layer = the last fate layer.

    T1..T4 usually carry the same list: it is verified once per run (a rejection is not cached).
    """
    raw = _get(cert, "fates", "certificate")
    carried = cert.get("closed_form")
    require(not _rests_on_chain({"fates": raw}) or (isinstance(carried, dict) and carried.get("status") == "certified"),
             "fates: a path fate (D9) in a certificate that does not carry the certified closed-form chain it rests on")
    key = json.dumps(raw, sort_keys=True, default=str)
    fates = ctx.verified_fates.get(key)
    if fates is None:
        fates = ctx.verified_fates[key] = _check_fates(raw, ctx.model, ctx.chain)
    if settled:
        last = max(f.layer for f in fates.values())
        given = _get(cert, "settled_layer", "certificate")
        require(given == last and not isinstance(given, bool), lambda: f"settled_layer is {given!r}, the fates settle at {last}")
        ctx.same("settled_layer", given)
    return fates


def _leaders(fates: dict[int, Fate]) -> dict[int, Point]:
    return {t: f.limit for t, f in fates.items() if _is_leader(t, f)}


def _convex_combination(raw: Any, points: dict, target: Point, m: Model, where: str,
                        rows: "Rows | None" = None) -> None:
    """``raw`` = {"u": lambda_u} over keys of ``points``: lambda >= 0, sum 1, sum lambda_u points[u] = target.

    ``rows``: ``points`` (or more) as integer rows over one denominator, when the caller has them."""
    lam = _weights(raw, m.n, where)
    require(set(lam) <= set(points), lambda: f"{where}: keys {_show(set(lam) - set(points))} are not allowed here")
    require(all(v >= 0 for v in lam.values()), lambda: f"{where}: a multiplier is negative")
    require(sum(lam.values()) == 1, lambda: f"{where}: multipliers sum to {_q(sum(lam.values()))}, not 1")
    rows = rows or Rows({u: points[u] for u in lam})
    combo = rows.combination(lam)
    require(combo == target, f"{where}: sum lambda_u u = {_show(combo)}, not {_show(target)}")


def _rests_on_chain(cert: dict) -> bool:
    """Whether a certificate needs the run's closed-form chain: it carries one, or has a path fate."""
    fates = cert.get("fates")
    return isinstance(cert.get("closed_form"), dict) or (
        isinstance(fates, list) and any(isinstance(e, dict) and e.get("kind") == "path" for e in fates))


def fate_attention_sets(fates: dict[int, Fate]) -> dict[int, frozenset]:
    """{token: its attention set at every later layer, by its D7 fate}: {j} for a leader, F if locked, G + {j} if fixed with leaders G."""
    return {t: f.set | {t} if f.kind == "fixed" else f.set for t, f in fates.items()}


def _search_fates(m: Model, last: int) -> tuple[dict[int, Fate], int | None]:
    """Every D7 fate established within layers 0..last, and the settled layer (None if never): searched once
    per model and layer (the closed-form chain and the run's facts both start from it); a fresh dict each call."""
    if last not in m._fate_searches:
        m._fate_searches[last] = _search_fates_once(m, last)
    fates, settled = m._fate_searches[last]
    return dict(fates), settled


def _search_fates_once(m: Model, last: int) -> tuple[dict[int, Fate], int | None]:
    """Every D7 fate established within layers 0..last, and the settled layer (None if never).

    The same inductive rule the suite applies (docs/theory.md D7), found here from the replay: at
    each layer until every token has a fate, leaders first, then fixed tokens (D7 (b), repeated
    until nothing changes, since a newly fixed token can make another one fixed), then locked
    tokens. A fate is established at the first layer its condition holds, so the result is
    unique and a report's fates can be compared with it entry by entry.
    """
    fates: dict[int, Fate] = {}
    for k in range(last + 1):
        Z, C = m.layer(k), m.attention(k)
        for i in range(m.n):
            if i not in fates and C[i] == {i}:
                fates[i] = Fate("leader", k, frozenset({i}), Z[i])
        fixed = {t for t, f in fates.items() if f.kind != "locked"}
        # D7 (b) is closed under itself (a newly fixed token can fix another): the tokens at the
        # mean of the rest G of their set wait until every token of G is fixed (a worklist, so
        # each membership is looked at once per layer).
        waiting: dict[int, set] = {}
        watchers: dict[int, list] = {}
        ready = []
        for j in range(m.n):
            G = C[j] - {j}
            if j not in fates and j in C[j] and G and _at_mean(m, j, k, G):
                if G <= fixed:
                    ready.append(j)
                else:
                    waiting[j] = set(G - fixed)
                    for t in waiting[j]:
                        watchers.setdefault(t, []).append(j)
        while ready:
            j = ready.pop()
            fates[j] = Fate("fixed", k, C[j] - {j}, Z[j])
            fixed.add(j)
            for watcher in watchers.pop(j, []):
                waiting[watcher].discard(j)
                if not waiting[watcher]:
                    ready.append(watcher)
        for i in range(m.n):
            if i not in fates and i not in C[i] and _locked_failure(m, i, k, C[i], fixed) is None:
                fates[i] = Fate("locked", k, C[i], _mean_of(m, k, C[i]))
        if len(fates) == m.n:
            return fates, k
    return fates, None


def _fate_value(m: Model, f: Fate) -> Fraction:
    """<A m_F, z_v> on F at the fate layer (the common score a locked entry states), from the integer scores."""
    return _lock_value(m, f.layer, f.set)
