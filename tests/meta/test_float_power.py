"""The float tests have power: they tell the proven rounding bound from no bound and from a bound too small.

An engine whose score bound is zero (it decides whenever the float argmax is unique) used to
pass properties/test_float_bound.py on 600 examples and the self-test's float check, whose
near-ties have gaps of about 1e-4. Here the same properties and the same self-test check run
against the float variants of verify/app/selftest/mutants.py: each wrong variant is caught, and a
copy of the engine with the proven bound (the control) and the engine itself are not.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, settings

from properties.test_float_bound import float_engine_presents_nothing_wrong
from verify.core.float_dynamics import simulate_batch
from verify.app.selftest.mutants import FLOAT_MUTANTS, proven_bound_copy_simulate_batch
from verify.app.selftest.runner import STRESS_LAYERS, check_float_against_exact, float_stress_set, run_selftest
from verify.strategies import FLOAT_STRESS_KINDS
from verify.testing import ClaimFailure

pytestmark = pytest.mark.slow

NEW_VARIANTS = ("no_bound_float", "bound_shrunk_float")
# Derandomised and without shrinking: a fixed, reproducible search, stopped at the first failure.
SEARCH = settings(max_examples=60, derandomize=True, database=None, phases=(Phase.explicit, Phase.generate),
                  deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _property_fails(engine) -> bool:
    test = SEARCH(float_engine_presents_nothing_wrong(engine))
    try:
        test()
    except ClaimFailure:
        return True
    return False


def test_the_catalogue_has_the_two_bound_variants() -> None:
    assert set(NEW_VARIANTS) <= {m.name for m in FLOAT_MUTANTS}


@pytest.mark.parametrize("mutant", [m for m in FLOAT_MUTANTS if m.name in NEW_VARIANTS], ids=lambda m: m.name)
def test_the_float_property_catches_each_bound_variant(mutant) -> None:
    assert _property_fails(mutant.engine)


@pytest.mark.parametrize("engine", [simulate_batch, proven_bound_copy_simulate_batch], ids=["engine", "copy"])
def test_the_float_property_passes_the_proven_bound(engine) -> None:
    assert not _property_fails(engine)


def test_the_stress_set_reaches_every_kind_and_wrong_decisions() -> None:
    configs = float_stress_set(12)
    assert {c.name.split(" (")[0].removeprefix("float stress ") for c in configs} == set(FLOAT_STRESS_KINDS)
    assert check_float_against_exact(simulate_batch, configs, layers=STRESS_LAYERS) == []
    assert check_float_against_exact(proven_bound_copy_simulate_batch, configs, layers=STRESS_LAYERS) == []


def test_the_selftest_catches_every_float_variant_and_passes_the_engine() -> None:
    result = run_selftest(profile="ci", mutants=FLOAT_MUTANTS)
    assert result.baseline_clean, [d.detail for v in result.baseline for d in v.detections][:3]
    caught = {v.name: v.catching_checks() for v in result.variants}
    assert all(caught[name] for name in caught), caught
    assert set(NEW_VARIANTS) <= set(caught)
