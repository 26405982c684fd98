"""hardmax-verify: exact verification of the clustering theorem for hardmax-attention transformers.

Specification: docs/theory.md (claims T0..T4, facts D0..D8). Public API:

* :func:`simulate` — the dynamics in exact or float arithmetic, returning a :class:`Trajectory`;
* :func:`simulate_batch` — float64 dynamics for (B, n, d) batches with a proven rounding bound;
* :class:`Configuration`, :func:`load_configuration` — validated exact inputs.
"""

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

# The public names are imported on first use (PEP 562): ``hardmax-verify`` starts by importing
# this package, and the float engine's kernel pulls in numba; a Ctrl-C during those imports would print
# a traceback before the command line can handle it (verify.app.cli imports the commands itself).
_PUBLIC = {
    "BatchResult": "core.float_dynamics", "simulate_batch": "core.float_dynamics",
    "Configuration": "core.config", "HypothesisViolation": "core.config", "load_configuration": "core.config",
    "parse_configuration": "core.config", "InputError": "core.numbers", "Trajectory": "core.trajectory", "simulate": "core.trajectory",
}


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        value = getattr(import_module(f".{_PUBLIC[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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
