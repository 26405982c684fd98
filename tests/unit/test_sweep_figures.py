"""The sweep's figures (verify/experiments/conjectures/sweep_figures.py) drawn from the committed atlas record:
no text cut at the figure's edge, no legend over the data, one figure per kind and family."""

from __future__ import annotations

import json
from pathlib import Path

from figure_checks import legends_over_content, saved_figures, text_outside
from verify.experiments.conjectures.sweep_figures import write_sweep_figures

REPO = Path(__file__).resolve().parents[2]


def test_the_atlas_figures_keep_their_text_inside_and_their_legends_off_the_data(tmp_path: Path) -> None:
    record = json.loads((REPO / "runs" / "atlas" / "constancy_layer" / "sweep.json").read_text())
    with saved_figures() as figures:
        written = write_sweep_figures(record, tmp_path)
    families = record["grid"]["families"]
    assert written == [f"figures/{kind}-{family}.png" for family in families for kind in ("heatmap", "curves")]
    assert len(figures) == len(written)
    for figure in figures:
        assert text_outside(figure) == []
        assert legends_over_content(figure) == []
