"""The checker's routines, one module per claim whose certificates it re-verifies, and the table of them.

Each module of this folder holds one claim's routine, ``check_<id>(certificate, context)``, which
returns when every condition of the certificate holds and raises :class:`~verify.certcheck.common.Rejected`
otherwise: T0..T4 (docs/theory.md §2), the facts D1..D3 (§3) and the suite's one-step replay.
:data:`CHECKS` maps each claim id to its routine. It is kept here, not read from the suite's claim
registry (verify.claims.registry), so that the checker imports nothing from the package; a meta
test compares the two. Every run decides all of them; a claim the suite emits without a routine
here is reported *unsupported*, never verified. Adding a claim adds its module here and its line
in :data:`CHECKS`.
"""

# ruff: noqa: B023 - a message passed to require as a lambda is formatted inside require, before the
# loop it is written in moves on: the loop variables it reads are the current ones.

from __future__ import annotations

from typing import Callable

from ..common import require
from ..model import Context, Model
from ..numbers import _int, _key_index, _point, _show
from .D1 import check_D1
from .D2 import check_D2
from .D3 import check_D3
from .replay import check_replay
from .T0 import check_T0
from .T1 import check_T1
from .T2 import check_T2
from .T3 import check_T3
from .T4 import check_T4

# The registry's claim checks in its order (§2 claims, §3 facts, the one-step replay): a run's
# outcomes are listed in this order.
CHECKS: dict[str, Callable[[dict, Context], None]] = {
    "T0": check_T0, "T1": check_T1, "T2": check_T2, "T3": check_T3, "T4": check_T4,
    "D1": check_D1, "D2": check_D2, "D3": check_D3, "replay": check_replay}

# The proved facts a certified verdict of each claim may rest on beyond the layers computed
# (docs/theory.md §3); its evidence names those its run used. A meta test compares this with the
# suite's registry.
RESTS_ON: dict[str, tuple[str, ...]] = {
    "T1": ("D3", "D7", "D9"), "T2": ("D3", "D7", "D9"), "T3": ("D3", "D7", "D9"), "T4": ("D3", "D7", "D9"),
    "D3": ("D3",)}


def _check_layer_positions(cert: dict, m: Model) -> None:
    """The positions a certificate states under ``layer_positions`` (any claim's) are the replay's."""
    raw = cert.get("layer_positions")
    if raw is None:
        return
    require(isinstance(raw, dict), "layer_positions: expected an object keyed by layer")
    for key, points in raw.items():
        k = _key_index(key)
        require(k is not None, lambda: f"layer_positions: bad layer key {str(key)[:20]!r}")
        k = _int(k, "layer_positions", high=m.last)
        require(isinstance(points, list) and len(points) == m.n, lambda: f"layer_positions[{key}]: expected one point per token")
        for i, raw_point in enumerate(points):
            p = _point(raw_point, m.d, f"layer_positions[{key}][{i}]")
            require(p == m.layer(k)[i], lambda: f"layer_positions[{key}][{i}] is {_show(p)}, the replay gives {_show(m.layer(k)[i])}")
