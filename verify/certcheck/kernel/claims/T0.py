"""T0 (docs/theory.md §2): the set of leaders is nonempty; the certificate names the first layer with a leader.

Its ``layer`` and ``leaders`` must be the replay's: the tokens j with C_j = {j} at that layer,
at least one, and no token leads at any earlier layer.
"""

# ruff: noqa: B023 - a message passed to require as a lambda is formatted inside require, before the
# loop it is written in moves on: the loop variables it reads are the current ones.

from __future__ import annotations

from ..common import require
from ..model import Context
from ..numbers import _get, _index_set, _int, _show


def check_T0(cert: dict, ctx: Context) -> None:
    m = ctx.model
    k = _int(_get(cert, "layer", "certificate"), "layer")
    leaders = _index_set(_get(cert, "leaders", "certificate"), m.n, "leaders")
    actual = {i for i in range(m.n) if m.attention(k)[i] == {i}}
    require(bool(actual) and leaders == actual, lambda: f"leaders at layer {k} are {_show(actual)}, not {_show(leaders)}")
    for earlier in range(k):
        lead = [i for i in range(m.n) if m.attention(earlier)[i] == {i}]
        require(not lead, lambda: f"not the first layer with a leader: token {lead[:1]} leads at layer {earlier}")
