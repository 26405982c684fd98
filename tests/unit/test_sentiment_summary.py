"""verify.experiments.sentiment.summary: mean ± sd cells, the preregistered conclusion rule, the data a report renders."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from verify.certcheck.results import reproduction
from verify.experiments.sentiment.protocol import load_protocol
from verify.experiments.sentiment.summary import _seeds, accuracy_axis, cell, conclusion_sentence, summarize

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


def test_the_sentence_gives_the_means_beside_the_baseline_and_the_authors():
    protocol = load_protocol(PROTOCOL)
    evaluations = {"d2-K8-s0": {"hardmax_accuracy": 0.79}, "d2-K8-s1": {"hardmax_accuracy": 0.81},
                   "d2-K0-s0": {"hardmax_accuracy": 0.88}}
    sentence = summarize(protocol, evaluations)["summary"]
    assert sentence.startswith("No conclusion yet")
    assert ("d = 2: 0.8000 ± 0.0141 (2 of 3 seeds) against 0.8800 (1 of 3 seeds) (authors' softmax 0.7914)"
            in sentence)
    assert "d = 4" not in sentence  # no run at d = 4 yet: nothing to show


def test_runs_that_reach_the_epoch_cap_still_improving_are_named(tmp_path):
    protocol = load_protocol(PROTOCOL)
    evaluations = {"d2-K8-s0": {"hardmax_accuracy": 0.79, "epochs_completed": 101, "epoch": 90, "published": True},
                   "d2-K0-s0": {"hardmax_accuracy": 0.88, "epochs_completed": 52, "epoch": 32},
                   "d4-K8-s0": {"hardmax_accuracy": 0.80, "epochs_completed": 101, "epoch": 81}}
    history = [{"epoch": e, "val_loss": 0.6 - 0.001 * e if e <= 55 else 0.55 + 0.002 * (e - 55), "val_acc": 0.7}
               for e in range(1, 102)]
    (tmp_path / "d2-K8-s0").mkdir()
    (tmp_path / "d2-K8-s0" / "checkpoint.json").write_text(json.dumps({"history": history}), encoding="utf-8")
    summary = summarize(protocol, evaluations, models_dir=tmp_path)
    lengths = {e["run"]: e for e in next(t for t in summary["tables"] if t["name"] == "training-length")["data"]}
    # 101 epochs with the last improvement 20 epochs back is an early stop at the cap, not "still improving".
    assert lengths["d2-K8-s0"]["reached_cap"] and not lengths["d2-K0-s0"]["reached_cap"]
    assert not lengths["d4-K8-s0"]["reached_cap"]
    assert lengths["d2-K8-s0"]["lowest_val_loss_epoch"] == 55 and "lowest_val_loss" not in lengths["d2-K0-s0"]
    rows = {r[0]: r for r in next(t for t in summary["tables"] if t["name"] == "training-length")["rows"]}
    assert rows["d2-K8-s0"][-1] == "published" and rows["d2-K0-s0"][-1] == "record only"  # past the budget
    [note] = summary["notes"]
    assert note.startswith("1 run reached the protocol's 101-epoch cap") and "d2-K8-s0 (selected epoch 90; " \
        "validation loss lowest at epoch 55" in note and "d4-K8-s0" not in note


@pytest.mark.parametrize("capped,opening", [(["d2-K8-s0"], "1 run reached"), (["d2-K8-s0", "d4-K8-s0"], "2 runs reached")])
def test_the_independent_checker_writes_the_epoch_cap_note_as_the_summary_does(capped, opening):
    """verify/certcheck/results/reproduction.py recomputes the note with its own count-and-noun helper: the same text for
    one run and for several (runs kept as records only, so no checkpoint history is needed)."""
    document = tomllib.loads(PROTOCOL.read_text(encoding="utf-8"))
    cap = document["common"]["epochs"]
    evaluations = {name: {"hardmax_accuracy": 0.8, "epochs_completed": cap, "epoch": cap - 5, "published": False}
                   for name in capped}
    [note] = summarize(load_protocol(PROTOCOL), evaluations)["notes"]
    assert note.startswith(f"{opening} the protocol's {cap}-epoch cap")
    runs = reproduction._protocol_runs(document)
    assert reproduction._notes_problem([note], runs, evaluations, document["common"], {}) is None
    assert reproduction._notes_problem([note.replace(opening, "3 runs reached")], runs, evaluations,
                                       document["common"], {}) is not None


@pytest.mark.parametrize("values", [[0.79, 0.80], [0.5, 0.99], [0.999], [0.001], [0.78, 0.89], [0.2, 0.21]])
def test_an_accuracy_axis_holds_its_values_and_is_never_narrow(values):
    low, high = accuracy_axis(values)
    assert 0 <= low <= min(values) and max(values) <= high <= 1
    assert high - low >= 0.15 - 1e-12
    assert round(low * 20, 9).is_integer() and round(high * 20, 9).is_integer()


def test_cells_keep_each_seed_for_the_plots():
    assert cell([0.8, None, 0.9])["values"] == [0.8, 0.9] and cell([])["values"] == []


def test_no_sentence_about_the_whole_task_while_a_dimension_is_incomplete():
    protocol = load_protocol(PROTOCOL)
    evaluations = {run.name: {"hardmax_accuracy": 0.80 + 0.001 * run.seed if run.layers == 8 else 0.88 + 0.001 * run.seed}
                   for run in protocol.runs if run.d in (8, 16) and run.layers in (0, 8)}
    evaluations["d2-K8-s0"] = {"hardmax_accuracy": 0.79}
    sentence = summarize(protocol, evaluations)["summary"]
    assert "at d = 8, 16 the trained mean-of-embeddings baseline (K = 0) beats" in sentence
    assert "At d = 2, 4 the compared cells are not complete yet" in sentence
    assert "does not help this task" not in sentence


def test_the_study_tables_name_their_seeds_and_use_only_those():
    # the depth studies share their K = 0 and K = 8 cells with phase 1 but only over their own seeds
    protocol = load_protocol(PROTOCOL)
    summary = summarize(protocol, _records(protocol, lambda r: 0.80 + 0.01 * r.seed))
    tables = {t["name"]: t for t in summary["tables"]}
    assert tables["depth-d2"]["title"] == "Accuracy against depth K at d = 2 (seeds 0, 1)"
    assert _seeds([r for r in protocol.runs if r.seed == 1]) == "seed 1"
    assert tables["alpha-d2"]["title"].startswith("Alpha fixed at d = 2, K = 8 (seeds 0, 1)")
    assert tables["depth-d2"]["rows"][0][1] == "0.8050 ± 0.0071"      # K = 0 over seeds 0, 1
    assert tables["baselines"]["rows"][0][2] == "0.8100 ± 0.0100"     # K = 0 over seeds 0, 1, 2
