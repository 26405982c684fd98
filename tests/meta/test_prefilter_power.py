"""The prefilter property has power: it tells the proven bound from no bound and from a bound too small.

properties/test_exact_prefilter.py compares the prefiltered exact engine with its exact-only
path. Here its properties run with the engine's safety factors (verify/core/exact_dynamics.py,
"The prefilter's bound") set to zero (a float argmax that is unique decides) or shrunk 2^20-fold,
one step at a time: each weakened engine is caught, and the engine itself is not.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from properties.test_exact_prefilter import TIE_HEAVY, assert_prefilter_changes_nothing
from verify.core import exact_dynamics
from verify.strategies import configurations
from verify.testing import ClaimFailure

pytestmark = pytest.mark.slow

# Derandomised and without shrinking: a fixed, reproducible search, stopped at the first failure.
SEARCH = settings(max_examples=100, derandomize=True, database=None, phases=(Phase.explicit, Phase.generate),
                  deadline=None, suppress_health_check=[HealthCheck.too_slow])
# The draws of the property module's first two properties.
STRATEGIES = (configurations(max_n=10, max_d=3), configurations(family=TIE_HEAVY, max_n=12, max_d=3))
WEAKENED = {
    "scores step without bound": ("_PREFILTER_FACTOR", 0.0),
    "scores step bound shrunk 2^20-fold": ("_PREFILTER_FACTOR", exact_dynamics._PREFILTER_FACTOR * 2.0 ** -20),
    "differences step without bound": ("_DIFFERENCE_FACTOR", 0.0),
    "differences step bound shrunk 2^20-fold": ("_DIFFERENCE_FACTOR", exact_dynamics._DIFFERENCE_FACTOR * 2.0 ** -20),
}


def _some_property_fails() -> bool:
    for strategy in STRATEGIES:
        try:
            SEARCH(given(strategy)(lambda config: assert_prefilter_changes_nothing(config)))()
        except ClaimFailure:
            return True
    return False


@pytest.mark.parametrize("name", sorted(WEAKENED))
def test_each_weakened_bound_is_caught(name, monkeypatch) -> None:
    constant, value = WEAKENED[name]
    monkeypatch.setattr(exact_dynamics, constant, value)
    assert _some_property_fails()


def test_the_proven_bound_passes() -> None:
    assert not _some_property_fails()
