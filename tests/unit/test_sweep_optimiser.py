"""The sweep's optimiser stage (verify/experiments/conjectures/sweep.py, ``measure_cell(..., optimise_probes=P)``).

The worst-case optimiser probes a cell from its best samples; its best is re-checked exactly and
certified under the extreme's rule (every claim certified, T1's first leading layers, docs/theory.md
T1, D3). Here: the same seed gives the same bytes, the certified value is the first-leading layer an
independent reading of the exact layers gives, the sampled extreme is never changed (nor lowered),
every probe stays in the cell (n, d, A and alpha), and a best whose exact check is not certified is
never called certified.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from verify.core.config import parse_configuration
from tests.common.first_leading import first_leading_layers
from verify.core.families import generate
from verify.core.io import json_text
from verify.experiments.conjectures import sweep as sweep_module
from verify.experiments.conjectures.sweep import MEASUREMENTS, Cell, certificate_path, measure_cell, optimiser_seed

LAST_LEADER = MEASUREMENTS["last_leader_layer"]
# emerging_leader has a leader that first leads after layer 0: the optimiser has something to push.
CELL = Cell("emerging_leader", 4, 2, Fraction(1, 16))
LAYERS = 80


def measured(cell: Cell = CELL, *, probes: int, samples: int = 5, seed: int = 0, **kw: Any) -> dict[str, Any]:
    return measure_cell(LAST_LEADER, cell, samples=samples, seed=seed, layers=LAYERS, optimise_probes=probes, **kw)


def last_first_leading_layer(config_json: dict[str, Any], layers: int = LAYERS) -> int:
    """An independent reading of the measurement (T1's quantity): the latest first leading layer."""
    return max(first_leading_layers(config_json, layers).values())


def test_the_same_seed_gives_the_same_bytes_and_another_seed_other_probes() -> None:
    first = measured(probes=16)
    assert json_text(first, where="a") == json_text(measured(probes=16), where="b")
    assert first["optimised"]["probes"] == 16 and 0 < first["optimised"]["evaluated"] <= 16
    assert optimiser_seed(0, "last_leader_layer", CELL) != optimiser_seed(1, "last_leader_layer", CELL)
    other = Cell(CELL.family, CELL.n, CELL.d, Fraction(1, 4))
    assert optimiser_seed(0, "last_leader_layer", CELL) != optimiser_seed(0, "last_leader_layer", other)


def test_the_certified_best_is_the_independent_first_leading_layer_and_stays_in_the_cell() -> None:
    result = measured(probes=24)
    best = result["optimised"]
    assert best["certified"] is True and best["claims_status"] == "certified"
    assert best["certified_value"] == best["value"] == last_first_leading_layer(best["config"])
    assert best["improves"] == (best["certified_value"] > result["extreme"]["certified_value"])
    # In the cell: the same n, d and A, alpha fixed, a configuration inside the hypotheses.
    config = parse_configuration(best["config"])
    sample = generate(CELL.family, 0, n=CELL.n, d=CELL.d, alpha=CELL.alpha)
    assert (config.n, config.d, config.alpha, config.A) == (CELL.n, CELL.d, CELL.alpha, sample.A)
    assert not config.outside_hypotheses


def test_the_claims_reports_are_stored_at_the_extremes_and_the_bests_paths() -> None:
    stored: dict[str, dict[str, Any]] = {}

    def keep(report: dict[str, Any], relative: str) -> str:
        stored[relative] = report
        return relative

    result = measured(probes=8, certificate=keep)
    assert sorted(stored) == sorted([certificate_path("last_leader_layer", CELL),
                                     certificate_path("last_leader_layer", CELL, optimised=True)])
    assert result["optimised"]["certificate"].endswith("-optimised.json")
    assert stored[result["optimised"]["certificate"]]["config"] == result["optimised"]["config"]


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**20), alpha=st.sampled_from([Fraction(1, 16), Fraction(1, 4), Fraction(1)]),
       family=st.sampled_from(["generic", "emerging_leader"]))
def test_the_stage_never_changes_or_lowers_the_sampled_extreme(seed: int, alpha: Fraction, family: str) -> None:
    cell = Cell(family, 3, 2, alpha)
    off = measure_cell(LAST_LEADER, cell, samples=4, seed=seed, layers=LAYERS)
    on = measured(cell, probes=6, samples=4, seed=seed)
    best = on.pop("optimised")
    assert {k: v for k, v in on.items() if k not in ("status", "reason")} == {
        k: v for k, v in off.items() if k not in ("status", "reason")}
    if off["status"] == "certified":  # the cell stays certified only if its best is certified too
        assert on["status"] == ("certified" if best["certified"] or best["config"] is None else "inconclusive")
    if best["value"] is not None and best["certified"]:
        assert best["improves"] == (best["certified_value"] > off["extreme"]["certified_value"])


def test_an_uncertified_best_is_never_called_certified(monkeypatch: Any) -> None:
    # The best's exact check within one layer: the family's leader emerges later, so it is inconclusive.
    real = sweep_module.check_configuration

    def short_on_the_best(config: Any, **kw: Any) -> Any:
        if "(optimised)" in (config.name or ""):
            kw.update(layer_budget=1, closed_form_search=False)
        return real(config, **kw)

    monkeypatch.setattr(sweep_module, "check_configuration", short_on_the_best)
    result = measured(Cell("emerging_leader", 6, 2, Fraction(1, 16)), probes=8, samples=3)
    best = result["optimised"]
    assert best["claims_status"] == "inconclusive" and best["value"] is not None
    assert best["certified"] is False and best["certified_value"] is None
    assert result["extreme"]["certified"] is True  # the extreme's own check was not shortened
    assert result["status"] == "inconclusive" and result["reason"].startswith("the optimiser's best: ")
