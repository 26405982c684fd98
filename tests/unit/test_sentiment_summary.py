"""verify.experiments.sentiment.summary: mean ± sd cells, the preregistered conclusion rule, the data a report renders."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify.experiments.sentiment.protocol import load_protocol
from verify.experiments.sentiment.summary import cell, conclusion_sentence, summarize

PROTOCOL = Path(__file__).resolve().parents[2] / "protocols" / "reproduction.toml"


def test_cell_is_mean_and_sample_sd():
    stats = cell([0.80, 0.82, 0.84])
    assert stats["n"] == 3 and stats["mean"] == pytest.approx(0.82) and stats["sd"] == pytest.approx(0.02)
    assert cell([0.8])["sd"] is None and cell([])["mean"] is None


def _records(protocol, accuracy):
    return {run.name: {"hardmax_accuracy": accuracy(run), "validation_accuracy": 0.8, "alpha": 1.0,
                       "softmax_accuracy": accuracy(run), "softmax_best_test_epoch": {"test_acc": 0.9}}
            for run in protocol.runs}


@pytest.mark.parametrize("k8, k0, verdict", [
    (0.85, 0.80, "helps"),
    (0.80, 0.85, "hurts"),
    (0.801, 0.800, "no difference resolved"),
])
def test_the_conclusion_follows_the_preregistered_rule(k8, k0, verdict):
    protocol = load_protocol(PROTOCOL)
    jitter = {0: -0.002, 1: 0.0, 2: 0.002}
    evaluations = _records(protocol, lambda r: (k8 if r.layers == 8 else k0 if r.layers == 0 else 0.7) + jitter[r.seed])
    summary = summarize(protocol, evaluations)
    assert {entry["verdict"] for entry in summary["conclusion"]["per_d"]} == {verdict}
    assert [entry["d"] for entry in summary["conclusion"]["per_d"]] == [2, 4, 8, 16]
    assert "at d = 2, 4, 8, 16" in summary["summary"]
    if verdict == "hurts":
        assert "does not help this task" in summary["summary"]
    if verdict == "helps":
        assert "helps this task" in summary["summary"]
    reproduction = next(t for t in summary["tables"] if t["name"] == "reproduction")
    assert reproduction["rows"][0][0] == "2" and reproduction["rows"][0][4] == "0.7914"
    assert reproduction["rows"][0][1] == f"{k8:.4f} ± 0.0020"


def test_incomplete_cells_give_no_conclusion_and_say_how_many_seeds():
    protocol = load_protocol(PROTOCOL)
    evaluations = {"d2-K8-s0": {"hardmax_accuracy": 0.8}, "d2-K0-s0": {"hardmax_accuracy": 0.82}}
    summary = summarize(protocol, evaluations)
    assert summary["summary"].startswith("No conclusion yet") and "2 of 46 runs" in summary["summary"]
    reproduction = next(t for t in summary["tables"] if t["name"] == "reproduction")
    assert reproduction["rows"][0][1] == "0.8000 (1 of 3 seeds)" and reproduction["rows"][1][1] == "not run yet"
    assert conclusion_sentence([], 0, 46).startswith("No conclusion yet")


def test_figures_are_written_for_finished_cells(tmp_path):
    protocol = load_protocol(PROTOCOL)
    summary = summarize(protocol, _records(protocol, lambda r: 0.8), figures_dir=tmp_path)
    assert {Path(p).name for p in summary["figures"]} == {"reproduction.png", "depth-d2.png", "depth-d16.png",
                                                          "alpha-d2.png"}
    assert all(Path(p).stat().st_size > 1000 for p in summary["figures"])
