"""hardmax-verify: exact verification of the clustering theorem for hardmax-attention transformers.

Specification: THEORY.md (claims T0..T4, facts D0..D8). Public API:

* :func:`simulate` — the dynamics in exact or float arithmetic, returning a :class:`Trajectory`;
* :func:`simulate_batch` — float64 dynamics for (B, n, d) batches with a proven rounding bound;
* :class:`Configuration`, :func:`load_configuration` — validated exact inputs.
"""

from .config import Configuration, HypothesisViolation, load_configuration, parse_configuration
from .float_dynamics import BatchResult, simulate_batch
from .numbers import InputError
from .trajectory import Trajectory, simulate

__version__ = "0.1.0"

__all__ = [
    "BatchResult",
    "Configuration",
    "HypothesisViolation",
    "InputError",
    "Trajectory",
    "load_configuration",
    "parse_configuration",
    "simulate",
    "simulate_batch",
    "__version__",
]
