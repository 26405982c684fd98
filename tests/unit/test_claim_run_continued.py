"""verify/claims/run.py: a claim run's dynamics continued past its last layer (``ClaimRun.layers_through``)
gives the layers a fresh run of the exact engine gives; the run's own layers, those its claims were checked
on, stay as they were. The campaign's 30-layer figures and float comparison use the continued layers."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.app.campaign.measure import exact_run
from verify.claims import check_configuration
from verify.core.config import make_configuration, parse_configuration
from verify.core.families import FAMILIES, generate
from verify.core.numbers import InputError
from verify.core.worked import WORKED_CONFIGURATIONS

HORIZON = 12


def _same_layers(got: list, expected: list) -> None:
    assert [layer.index for layer in got] == list(range(len(expected)))
    for a, b in zip(got, expected):
        assert a.denominator == b.denominator
        assert a.numerators == b.numerators
        assert a.attention_sets() == b.attention_sets()


def _continued_equals_fresh(config, horizon: int = HORIZON, **budgets) -> None:
    report = check_configuration(config, **({"layer_budget": horizon} | budgets))
    own = [layer.index for layer in report.layers]
    _same_layers(report.run.layers_through(horizon), exact_run(config, horizon))
    assert [layer.index for layer in report.layers] == own  # the checked layers are not extended
    _same_layers(report.run.layers_through(horizon), exact_run(config, horizon))  # asked twice: the same


@pytest.mark.parametrize("name", sorted(WORKED_CONFIGURATIONS))
def test_the_worked_configurations_continue_as_a_fresh_run(name: str) -> None:
    _continued_equals_fresh(WORKED_CONFIGURATIONS[name])


@settings(max_examples=25, deadline=None)
@given(family=st.sampled_from(sorted(FAMILIES)), seed=st.integers(0, 10_000), n=st.integers(2, 7),
       d=st.integers(1, 3), alpha=st.sampled_from([Fraction(1, 4), Fraction(1), Fraction(3)]))
def test_every_family_continues_as_a_fresh_run(family: str, seed: int, n: int, d: int, alpha: Fraction) -> None:
    try:
        config = generate(family, seed, n=n, d=d, alpha=alpha)
    except InputError:  # a family that does not exist at this (n, d): nothing to compare
        return
    _continued_equals_fresh(config)


# Runs that stop for each reason a claim run stops, and the engine's other update rules.
STOPPED = {
    # No token ever leads: the D11 similarity certificate stops the run (outside the hypotheses).
    "similarity": (make_configuration([[1, 0], [0, 1], [-1, 0], [0, -1]], alpha=1, A=[[1, -2], [2, 1]],
                                      outside_hypotheses=True), {}),
    "value matrix V": (parse_configuration({"tokens": [[1, 0], [0, 1], [1, 1]], "alpha": "1/2",
                                            "V": [[1, "1/2"], [0, "1/2"]]}, outside_hypotheses=True), {}),
    "duplicate tokens": (make_configuration([[1, 0], [1, 0], [0, 1], ["1/2", "1/3"]], alpha="1/2",
                                            outside_hypotheses=True), {}),
    "layer budget 1": (generate("cyclic_simplices", 0, n=6, d=2, alpha=Fraction(1, 4)), {"layer_budget": 1}),
    "time budget": (WORKED_CONFIGURATIONS["emerging_leader"], {"time_budget": 1e-9}),
}


@pytest.mark.parametrize("case", sorted(STOPPED))
def test_a_run_stopped_for_any_reason_continues_as_a_fresh_run(case: str) -> None:
    config, budgets = STOPPED[case]
    stopped_by = {"similarity": "similarity", "layer budget 1": "layer budget", "time budget": "time budget"}
    if case in stopped_by:  # the case is the stop it is named after
        assert check_configuration(config, **budgets).stopped_by == stopped_by[case]
    _continued_equals_fresh(config, **budgets)


def test_a_run_checked_beyond_the_horizon_is_cut_not_continued() -> None:
    config = WORKED_CONFIGURATIONS[sorted(WORKED_CONFIGURATIONS)[0]]
    report = check_configuration(config)
    last = report.layers[-1].index
    _same_layers(report.run.layers_through(max(last - 1, 0)), exact_run(config, max(last - 1, 0)))
    assert report.run._continued == []  # the engine was not asked for a layer


def test_a_run_without_its_engine_says_so() -> None:
    config = WORKED_CONFIGURATIONS[sorted(WORKED_CONFIGURATIONS)[0]]
    report = check_configuration(config)
    report.run.engine = None
    with pytest.raises(RuntimeError, match="cannot be continued"):
        report.run.layers_through(report.layers[-1].index + 1)
