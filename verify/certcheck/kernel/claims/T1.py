"""T1 (docs/theory.md §2, by D3 and D7): each leader is fixed from the first layer at which it leads.

Every listed leader leads (C_j = {j}) from its stated first layer through the run's last layer,
not one layer earlier, and stays at its stated position; the listed tokens are exactly those that
lead within the run; and they are exactly the tokens whose verified fate is a leader's (D7, or a
D9 path ending with C_j = {j} from a replayed layer).
"""

# ruff: noqa: B023 - a message passed to require as a lambda is formatted inside require, before the
# loop it is written in moves on: the loop variables it reads are the current ones.

from __future__ import annotations

from ..common import require
from ..fates import _fates_of, _is_leader
from ..model import Context, _last_layer
from ..numbers import _get, _int, _point, _show


def check_T1(cert: dict, ctx: Context, *, needs_fates: bool = True) -> None:
    m = ctx.model
    last = _last_layer(cert, ctx)
    entries = _get(cert, "leaders", "certificate")
    require(isinstance(entries, list), "leaders: expected a list")
    listed: dict[int, int] = {}
    for p, e in enumerate(entries):
        w = f"leaders[{p}]"
        i = _int(_get(e, "token", w), f"{w}.token", high=m.n - 1)
        f = _int(_get(e, "first_layer", w), f"{w}.first_layer", high=last)
        position = _point(_get(e, "position", w), m.d, f"{w}.position")
        require(i not in listed, lambda: f"{w}: token {i} listed twice")
        listed[i] = f
        require(f == 0 or m.attention(f - 1)[i] != {i}, lambda: f"{w}: token {i} leads already at layer {f - 1}")
        for k in range(f, last + 1):
            require(m.attention(k)[i] == {i}, lambda: f"{w}: C_{i} at layer {k} is {_show(m.attention(k)[i])}, not {{{i}}}")
            require(m.layer(k)[i] == position,
                     lambda: f"{w}: z_{i} at layer {k} is {_show(m.layer(k)[i])}, not {_show(position)}")
    leading = {i for k in range(last + 1) for i in range(m.n) if m.attention(k)[i] == {i}}
    require(set(listed) == leading, lambda: f"tokens leading by layer {last} are {_show(leading)}, listed {_show(set(listed))}")
    if needs_fates or "fates" in cert:
        fates = _fates_of(cert, ctx)
        leader_fates = {t: f.layer for t, f in fates.items() if f.kind == "leader"}
        if ctx.chain is not None:
            # A path fate's leader leads from the chain's layer at which C_j = {j}; listed when replayed.
            leader_fates.update({t: ctx.chain.leaders[t] for t, f in fates.items() if f.kind == "path"
                                 and _is_leader(t, f) and ctx.chain.leaders.get(t, last + 1) <= last})
        require(leader_fates == listed, lambda: f"leaders {listed} differ from the leader fates {leader_fates}")
