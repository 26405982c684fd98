"""verify.experiments.conjectures.sweep (measurements): the float screens agree with the exact readings, quantiles, seeds, patterns.

The screens run the float engine under its proven bound (docs/theory.md §6 measurements); where a
screen gives a value it must be the exact engine's value (T1, D3, D7 fates) on the same draw.
"""

from fractions import Fraction

import pytest

from verify.claims.run import run_configuration
from verify.core.families import generate
from verify.experiments.conjectures.sweep import (MEASUREMENTS, STAGES, Cell, FloatRun, applicable, cell_key,
                                                 measure_cell, quantile, sample_seed, screen_cell)


def test_quantile_is_nearest_rank():
    values = list(range(1, 11))  # 1..10
    assert quantile(values, Fraction(1, 2)) == 5
    assert quantile(values, Fraction(9, 10)) == 9
    assert quantile(values, Fraction(99, 100)) == 10
    assert quantile([7], Fraction(1, 2)) == 7
    assert quantile([0, 0, 3], Fraction(1, 2)) == 0


def test_sample_seeds_are_deterministic_and_distinct():
    seeds = [sample_seed(0, j) for j in range(200)]
    assert seeds == [sample_seed(0, j) for j in range(200)]
    assert len(set(seeds)) == 200 and all(0 <= s < 2**64 for s in seeds)
    assert sample_seed(1, 0) != sample_seed(0, 0)


def test_float_run_patterns():
    # Layer 0: point 0 leads, 1 -> 2, 2 -> 1. Layer 1: 2 leads, 1 -> 2: every point leads or attends to a leader.
    run = FloatRun([(0, 2, 1), (0, 2, 2), (0, 2, 2)], layers=2, complete=True)
    assert run.first_leading() == {0: 0, 2: 1}
    assert run.settled_layer() == 1
    assert MEASUREMENTS["last_leader_layer"].screen(run) == 1
    assert MEASUREMENTS["leader_count"].screen(run) == 2
    assert MEASUREMENTS["late_leader"].screen(run) == 1
    assert MEASUREMENTS["constancy_layer"].screen(run) == 1
    assert MEASUREMENTS["distinct_limits"].screen(run) == 2
    unsettled = FloatRun([(1, 0)], layers=3, complete=False)
    assert unsettled.settled_layer() is None
    assert all(m.screen(unsettled) is None for m in MEASUREMENTS.values() if m.screen is not None)


@pytest.mark.parametrize("n, alpha", [(4, Fraction(1, 4)), (5, Fraction(1, 16)), (6, Fraction(1))])
def test_every_screen_value_is_the_exact_value(n, alpha):
    configs = [generate("generic", sample_seed(3, j), n=n, d=2, alpha=alpha) for j in range(12)]
    screens = screen_cell(configs, layers=200)
    compared = 0
    for config, screen in zip(configs, screens):
        run = run_configuration(config, layer_budget=200)
        for measurement in MEASUREMENTS.values():
            if measurement.screen is None or screen is None:
                continue
            value = measurement.screen(screen)
            if value is not None and (measurement.name != "constancy_layer" or measurement.exact(run) is not None):
                # constancy's screen reads the layers it ran; the exact reading may not prove the pattern for ever
                compared += 1
                assert value == measurement.exact(run), (measurement.name, config.name)
    assert compared >= 12  # the screen measured most draws (last_leader_layer and leader_count at least)
    # Stopping at settling (what the leader measurements run) reads the same values.
    for full, short in zip(screens, screen_cell(configs, layers=200, until_settled=True)):
        for measurement in MEASUREMENTS.values():
            if measurement.screen_until_settled:
                assert (full and measurement.screen(full)) == (short and measurement.screen(short))


def test_exact_readings_on_a_late_leader():
    # docs/theory.md §6: n = 3, A = I, token 0 first leads at layer 6 for alpha = 1/32.
    from verify.core.config import parse_configuration
    config = parse_configuration({"tokens": [["-27/64", "5/32"], ["-1/2", "1/64"], ["-17/32", "-55/64"]],
                                  "alpha": "1/32"})
    run = run_configuration(config, layer_budget=200)
    assert MEASUREMENTS["last_leader_layer"].exact(run) == 6
    assert MEASUREMENTS["late_leader"].exact(run) == 1
    assert MEASUREMENTS["settling_layer"].exact(run) == run.settled_layer is not None
    # Token 0's set changes when it starts to lead: the pattern is constant from layer 6 at the earliest.
    assert MEASUREMENTS["constancy_layer"].exact(run) >= 6


def test_cells_name_and_range():
    cell = Cell("coplanar", 4, 2, Fraction(1, 16))
    assert cell_key("leader_count", cell) == "leader_count-coplanar-n4-d2-alpha1_16"
    assert applicable(cell) == "family coplanar needs d >= 3"
    assert applicable(Cell("generic", 4, 2, Fraction(1))) is None
    assert "/" not in cell_key("../../evil", cell) and not cell_key("../../evil", cell).startswith(".")


def test_the_stage_clock_times_every_stage_a_cell_runs_and_changes_nothing() -> None:
    cell = Cell("generic", 4, 2, Fraction(1, 2))
    stages: dict[str, float] = {}
    timed = measure_cell(MEASUREMENTS["last_leader_layer"], cell, samples=12, seed=3, layers=60, stages=stages,
                         optimise_probes=3)
    plain = measure_cell(MEASUREMENTS["last_leader_layer"], cell, samples=12, seed=3, layers=60, optimise_probes=3)
    assert timed == plain
    assert list(stages) == list(STAGES) and all(seconds >= 0 for seconds in stages.values())
    # Without the optimiser its stage is not timed; the others are.
    stages.clear()
    measure_cell(MEASUREMENTS["last_leader_layer"], cell, samples=12, seed=3, layers=60, stages=stages)
    assert list(stages) == [name for name in STAGES if name != "optimiser"]
