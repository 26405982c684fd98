"""D3 (docs/theory.md §3): leaders are permanent and fixed.

The certificate is T1's leader list, checked by T1's routine (:mod:`.T1`); the fates it may
carry are checked when present but not required.
"""

from __future__ import annotations

from .T1 import check_T1
from ..model import Context


def check_D3(cert: dict, ctx: Context) -> None:
    check_T1(cert, ctx, needs_fates=False)
