"""The float bound: the float trajectory is within its proven rounding bound of the exact one.

A testing assertion about the float engine (:mod:`verify.core.float_dynamics`), role "engine":
:func:`verify.testing.assert_float_within_bound` checks it in ``properties/test_float_bound.py``;
``simulate`` reproduces a counterexample.
"""

from __future__ import annotations

from verify.claims import registry

CLAIM = registry.register(registry.Claim(
    "float", "the float trajectory is within its proven rounding bound of the exact one", "assertion", role="engine",
    reproduce="simulate", property_module="test_float_bound"))
