"""hardmax-verify: exact verification of the clustering theorem for hardmax-attention transformers.

Specification: docs/theory.md (claims T0..T4, facts D0..D10). This module is the public API, the
one import path that does not move (docs/api.md, generated from these names' docstrings)::

    from verify import simulate, check_configuration, Conjecture, Observation, configurations

* the dynamics: :func:`simulate` (exact or float, a :class:`Trajectory`), :func:`simulate_batch`
  (float64 batches with a proven rounding bound);
* inputs: :class:`Configuration`, :func:`load_configuration`, :func:`parse_configuration`;
* the claim checks: :func:`check_configuration` (every claim of the theorem, a
  :class:`ClaimReport` with exact certificates), :data:`WORKED_CONFIGURATIONS`;
* property tests and the conjecture lab: the Hypothesis strategies (:func:`configurations`,
  :func:`outside_configurations`, ...), the assertion helpers (:func:`assert_claim_certified`),
  :class:`Conjecture` and :class:`Observation` for conjecture files;
* the geometry the examples use (:func:`convex_hull_vertices`, :func:`project_origin_exact`),
  leader control (:func:`control`, :func:`realisable`), the softmax bound
  (:func:`softmax_certificate`) and exact classification (:func:`build_network`).

Everything else (``verify.core``, ``verify.claims``, ``verify.experiments``, ``verify.app``) is
the implementation and may move; a module that moved keeps its old name for a while, with a
DeprecationWarning naming the new one (:mod:`verify._moved`).
"""

from importlib import import_module
from typing import Any

from . import _moved
from .core.versions import VERSION

__version__ = VERSION

# The public names (name -> the module that defines it), imported on first use (PEP 562):
# ``hardmax-verify`` starts by importing this package, and the float engine's kernel pulls in
# numba, the strategies Hypothesis; a Ctrl-C during those imports would print a traceback before
# the command line can handle it. A new public name is one line here; tests/meta/test_public_api.py
# lists every name and fails when one disappears, and scripts/api_reference.py writes docs/api.md.
_PUBLIC: dict[str, str] = {
    # the dynamics
    "simulate": "core.trajectory",
    "Trajectory": "core.trajectory",
    "simulate_batch": "core.float_dynamics",
    "BatchResult": "core.float_dynamics",
    # inputs
    "Configuration": "core.config",
    "load_configuration": "core.config",
    "parse_configuration": "core.config",
    "HypothesisViolation": "core.config",
    "InputError": "core.numbers",
    # the claim checks
    "check_configuration": "claims.run",
    "run_configuration": "claims.run",
    "leader_layers": "claims.run",
    "certify": "core.closed_form",
    "find_similarity": "core.similarity",
    "ClaimReport": "claims.run",
    "TokenFate": "claims.run",
    "WORKED_CONFIGURATIONS": "core.worked",
    # Hypothesis strategies
    "configurations": "strategies",
    "outside_configurations": "strategies",
    "token_configurations": "strategies",
    "float_stress_configurations": "strategies",
    "spd_matrices": "strategies",
    "nonsymmetric_pd_matrices": "strategies",
    "psd_low_rank_matrices": "strategies",
    "indefinite_matrices": "strategies",
    "alphas": "strategies",
    "rationals": "strategies",
    "positive_rationals": "strategies",
    "vectors": "strategies",
    "nonzero_vectors": "strategies",
    "value_matrices": "strategies",
    "OUTSIDE_KINDS": "strategies",
    # assertion helpers for property tests
    "assert_claim_certified": "testing",
    "assert_claims_not_failed": "testing",
    "ClaimFailure": "testing",
    # the conjecture lab
    "Conjecture": "experiments.conjectures.base",
    "Observation": "experiments.conjectures.base",
    "ConjectureResult": "experiments.conjectures.base",
    "run_conjecture": "experiments.conjectures.base",
    "InternalError": "experiments.conjectures.base",
    "BUILTIN_CONJECTURES": "experiments.conjectures.builtin",
    # measurement sweeps (docs/sweep.md)
    "Measurement": "experiments.conjectures.sweep",
    # geometry
    "convex_hull_vertices": "core.geometry",
    "faces": "core.geometry",
    "project_origin_exact": "core.geometry",
    # leader control (docs/control.md)
    "control": "experiments.control.design",
    "realisable": "experiments.control.design",
    "all_hull_vertices_lead": "experiments.control.leader_sets",
    "decide_leader_sets": "experiments.control.leader_sets",
    # softmax within a certified distance of hardmax (docs/softmax.md)
    "softmax_certificate": "core.softmax_bound",
    # exact sequence classification (docs/classify.md)
    "make_dataset": "experiments.classify.dataset",
    "load_dataset": "experiments.classify.dataset",
    "build_network": "experiments.classify.construction",
}

_moved.install()


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        value = getattr(import_module(f".{_PUBLIC[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))


__all__ = sorted(_PUBLIC) + ["__version__"]
