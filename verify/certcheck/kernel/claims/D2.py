"""D2 (docs/theory.md §3): the squared A-norm of a token never decreases.

The stated norms are the replay's <A z_i^k, z_i^k> for every layer 0..last_layer and every token,
exactly, and none decreases from one layer to the next.
"""

# ruff: noqa: B023 - a message passed to require as a lambda is formatted inside require, before the
# loop it is written in moves on: the loop variables it reads are the current ones.

from __future__ import annotations

from ..common import require
from ..model import Context, _last_layer
from ..numbers import _get, read_number, _q


def check_D2(cert: dict, ctx: Context) -> None:
    m = ctx.model
    last = _last_layer(cert, ctx)
    norms = _get(cert, "norms", "certificate")
    require(isinstance(norms, list) and len(norms) == last + 1, lambda: f"norms: expected layers 0..{last}")
    for k, row in enumerate(norms):
        require(isinstance(row, list) and len(row) == m.n, lambda: f"norms[{k}]: expected one entry per token")
        for i, raw in enumerate(row):
            exact = m.norm(k, i)
            require(read_number(raw, f"norms[{k}][{i}]") == exact, lambda: f"norms[{k}][{i}] is {str(raw)[:100]}, <A z, z> = {_q(exact)}")
            require(k == 0 or exact >= m.norm(k - 1, i),
                     f"token {i}: squared A-norm decreases from layer {k - 1} to {k}")
