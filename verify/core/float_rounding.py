"""The float64 rounding model of the float engine: its constants (:mod:`verify.core.float_dynamics`'s docstring derives them).

Shared by the engine and its compiled kernel (:mod:`verify.core.float_kernel`), which import it
and not each other's constants: the kernel imports numba, which the engine imports only when a
float layer runs.
"""

from __future__ import annotations

__all__ = ["UNIT_ROUNDOFF", "UNDERFLOW_SLACK", "BOUND_SAFETY", "SMALLEST_NORMAL", "rounding_gamma"]

UNIT_ROUNDOFF = 2.0 ** -53
# Absolute slack for underflow: a float64 product or quotient may lose up to 2^-1075 absolutely
# when its result is subnormal, which no relative bound covers. 2^-1000 (normal, so computing
# with it is itself exact) is far above the few such losses of one score, update or bound.
UNDERFLOW_SLACK = 2.0 ** -1000
# Factor on every bound the kernel evaluates: covers the bound's own evaluation in float64
# (at most 20 roundings on non-negative terms) and the rounding of the compared difference.
BOUND_SAFETY = 1.0 + 2.0 ** -40
SMALLEST_NORMAL = 2.0 ** -1022


def rounding_gamma(k: int) -> float:
    """gamma_k = k u / (1 - k u) of :mod:`verify.core.float_dynamics`'s docstring: the bound of k float64 roundings."""
    return k * UNIT_ROUNDOFF / (1.0 - k * UNIT_ROUNDOFF)
