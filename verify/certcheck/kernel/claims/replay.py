"""replay: the suite's engine is the update rule of docs/theory.md §1; the final positions are the replay's.

The stated positions of every token at the run's last layer must be this checker's own exact
replay (verify/certcheck/kernel/model.py), coordinate by coordinate; a run of one layer has no transition
to certify.
"""

# ruff: noqa: B023 - a message passed to require as a lambda is formatted inside require, before the
# loop it is written in moves on: the loop variables it reads are the current ones.

from __future__ import annotations

from ..common import require
from ..model import Context, _last_layer
from ..numbers import _get, _point, _show


def check_replay(cert: dict, ctx: Context) -> None:
    m = ctx.model
    last = _last_layer(cert, ctx)
    require(last >= 1, "last_layer is 0: a run of one layer has no transition to certify")
    final = _get(cert, "final_positions", "certificate")
    require(isinstance(final, list) and len(final) == m.n, "final_positions: expected one point per token")
    for i, raw in enumerate(final):
        p = _point(raw, m.d, f"final_positions[{i}]")
        require(p == m.layer(last)[i], lambda: f"final_positions[{i}] is {_show(p)}, the replay gives {_show(m.layer(last)[i])}")
