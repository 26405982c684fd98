"""The sweep's figures (verify/experiments/conjectures/sweep_figures.py) drawn from the committed atlas record:
no text cut at the figure's edge, no legend over the data, one figure per kind and family; the optimiser's
certified best drawn on the curves as a second marker where the sweep ran it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from figure_checks import legends_over_content, saved_figures, text_outside
from verify.experiments.conjectures.sweep_figures import write_sweep_figures

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("measurement", ["constancy_layer", "last_leader_layer"])  # the second with the optimiser's
def test_the_atlas_figures_keep_their_text_inside_and_their_legends_off_the_data(tmp_path: Path,
                                                                                 measurement: str) -> None:
    record = json.loads((REPO / "runs" / "atlas" / measurement / "sweep.json").read_text())
    with saved_figures() as figures:
        written = write_sweep_figures(record, tmp_path)
    families = record["grid"]["families"]
    assert written == [f"figures/{kind}-{family}.png" for family in families for kind in ("heatmap", "curves")]
    assert len(figures) == len(written)
    for figure in figures:
        assert text_outside(figure) == []
        assert legends_over_content(figure) == []


def test_the_curves_draw_the_optimisers_certified_best_and_only_it(tmp_path: Path) -> None:
    from verify.experiments.conjectures import sweep_figures

    record = json.loads((REPO / "runs" / "atlas" / "last_leader_layer" / "sweep.json").read_text())
    family = "emerging_leader"
    fig = sweep_figures._curves(record, family)
    crosses = [line for ax in fig.axes for line in ax.get_lines() if line.get_marker() == "x"]
    wanted = sorted(c["result"]["optimised"]["certified_value"] for c in record["cells"]
                    if c["cell"]["family"] == family and c["result"]["optimised"]["certified"])
    assert sorted(int(y) for line in crosses for y in line.get_ydata()) == wanted
    # A best whose check is not certified is not drawn; without the stage, no cross at all.
    for cell in record["cells"]:
        cell["result"]["optimised"]["certified"] = False
    fig = sweep_figures._curves(record, family)
    assert not [line for ax in fig.axes for line in ax.get_lines() if line.get_marker() == "x"]
