"""The work meter: every loop whose length or whose numbers come from a file is paid for before it runs.

Work is counted in work units: one multiply-add of integers of up to WORK_BITS bits; larger
numbers cost in proportion to the product of their sizes (Karatsuba). A file is admitted only
if its estimated replay work (:mod:`.estimate`) is within the limit; the meter then charges what
the checks actually do (the numbers' sizes are known only as the replay goes), and a file that
needs more than WORK_SLACK times its limit is stopped: what is left is reported unsupported.
The softmax and control checkers (:mod:`.softmax`, :mod:`.control`) price their work in the
same units.
"""

from __future__ import annotations

import contextlib
import math
import threading
from typing import Any

from .limits import WORK_BITS, WORK_SLACK


class WorkLimit(Exception):
    """The checks of a file need more work than the limit allows: what is left is unsupported (exit 3)."""


_METER = threading.local()


def cost(count: int, bits_a: int = 0, bits_b: int = 0) -> float:
    """Work units of ``count`` multiply-adds of a ``bits_a``-bit by a ``bits_b``-bit integer (or, with
    ``bits_b`` 0, additions): one unit up to WORK_BITS bits each, then the larger size times the
    smaller's to the power 0.6 (Karatsuba: (b/WORK_BITS)^1.6 for two b-bit integers)."""
    a, b = max(1.0, bits_a / WORK_BITS), max(1.0, bits_b / WORK_BITS)
    return count * max(a, b) * min(a, b) ** 0.6


def charge(units: float) -> None:
    """Pay for work about to be done; WorkLimit when the file's allowance is spent."""
    meter = getattr(_METER, "left", None)
    if meter is not None:
        meter[0] -= units
        if meter[0] < 0:
            raise WorkLimit(f"checking the file needs more than {meter[1]:.3g} work units ({WORK_SLACK} times the "
                            "total work limit): its numbers grow faster than estimated; raise --max-total-work to "
                            "check it")


@contextlib.contextmanager
def metered(max_work: float | None) -> Any:
    """Charge the checks run inside to an allowance of WORK_SLACK * ``max_work`` units (None: unlimited)."""
    previous = getattr(_METER, "left", None)
    _METER.left = [math.inf, math.inf] if max_work is None else [WORK_SLACK * max_work, WORK_SLACK * max_work]
    try:
        yield _METER.left
    finally:
        _METER.left = previous


def gcd_cost(count: int, bits: int) -> float:
    """Work units of ``count`` reductions of fractions of ``bits``-bit integers (gcd: quadratic in the size)."""
    return count * max(1.0, bits / WORK_BITS) ** 2
