"""sentiment protocol: a preregistered TOML grid run as a resumable queue (tiny corpus the test writes)."""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import asdict
from pathlib import Path

import numpy as np

import pytest

pytest.importorskip("torch")

from test_sentiment_training import write_fixture_csv  # noqa: E402

from tests.common.protocols import write_tiny_protocol  # noqa: E402

from verify.app.cli import main  # noqa: E402
from verify.core.numbers import InputError  # noqa: E402
from verify.core.io import sha256_file  # noqa: E402
from verify.experiments.sentiment.checkpoints import (ModelWeights, expand_best_weights, read_checkpoint,  # noqa: E402
                                                     write_weights)
from verify.experiments.sentiment.network import TrainingSettings, initial_embedding  # noqa: E402
from verify.experiments.sentiment.protocol import (MODELS_BUDGET_BYTES, PUBLISHED_FILES, collect,  # noqa: E402
                                                  load_protocol, published_bytes, queue_status, run_queue)




def _protocol(tmp_path, epochs=2):
    return write_tiny_protocol(tmp_path, epochs)


def test_grid_expands_in_phase_order_and_shared_runs_appear_once(tmp_path):
    protocol = load_protocol(_protocol(tmp_path))
    assert [r.name for r in protocol.runs] == ["d2-K1-s0", "d2-K0-s0", "d2-K1-alpha0.5-s0"]
    assert protocol.runs[0].studies == ("main", "baseline")
    assert protocol.runs[2].fixed_alpha == 0.5 and protocol.runs[2].phase == 2


def _finished_run(runs, protocol, name: str, rows: int) -> None:
    """A run folder as the queue leaves it: checkpoint files and an evaluation that records their sha256.

    Its weights: the seeded initial embedding with every other row moved, as training moves them."""
    checkpoint = runs / name / "checkpoint"
    checkpoint.mkdir(parents=True)
    settings = TrainingSettings(d=2, layers=1, seed=len(name))
    embedding = initial_embedding(rows, settings)
    embedding[::2] += np.random.default_rng(len(name)).normal(0, 0.1, embedding[::2].shape).astype(np.float32)
    one = np.ones((), np.float32)
    write_weights(checkpoint / "best.safetensors", ModelWeights(embedding, one, one, np.ones(2, np.float32), one))
    (checkpoint / "checkpoint.json").write_text(json.dumps({"run": name, "settings": asdict(settings)}),
                                                encoding="utf-8")
    (checkpoint / "vocab.txt.gz").write_bytes(b"the same vocabulary for every run" * 100)
    evaluation = {"run": name, "protocol_sha256": protocol.sha256, "command": f"... --only {name}",
                  "checkpoint_sha256": {p.name: sha256_file(p) for p in checkpoint.iterdir()}}
    (runs / name / "evaluation.json").write_text(json.dumps(evaluation), encoding="utf-8")


def test_collect_publishes_in_protocol_order_while_the_checkpoints_fit_their_budget(tmp_path):
    protocol = load_protocol(_protocol(tmp_path))
    runs, results, models = tmp_path / "runs", tmp_path / "results", tmp_path / "models"
    names = ("d2-K1-s0", "d2-K0-s0", "d2-K1-alpha0.5-s0")
    for name in names:
        _finished_run(runs, protocol, name, 5_000)
    # Every run published, without a budget: each one's files in their published form.
    collect(protocol, runs, results_dir=tmp_path / "r0", models_dir=tmp_path / "m0", budget_bytes=10**9)
    each = {name: {p.name: p.stat().st_size for p in (tmp_path / "m0" / name).iterdir()} for name in names}
    assert all(set(files) == {"best.from-init.xz", "checkpoint.json", "vocab.txt.gz"} for files in each.values())
    assert all(files["best.from-init.xz"] < (runs / name / "checkpoint" / "best.safetensors").stat().st_size
               for name, files in each.items())
    shared = each["d2-K1-s0"]["vocab.txt.gz"]
    # Room for two runs: their weights and records, the shared vocabulary once.
    budget = sum(size for name in names[:2] for size in each[name].values()) - shared
    assert sum(published_bytes(tmp_path / "m0").values()) > budget  # all three would not fit
    collect(protocol, runs, results_dir=results, models_dir=models, budget_bytes=budget)
    records = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in results.glob("*.json")}
    assert [records[n]["published"] for n in ("d2-K1-s0", "d2-K0-s0", "d2-K1-alpha0.5-s0")] == [True, True, False]
    assert "exceed their budget" in records["d2-K1-alpha0.5-s0"]["checkpoint"]
    assert "--only d2-K1-alpha0.5-s0" in records["d2-K1-alpha0.5-s0"]["checkpoint"]
    assert sum(published_bytes(models).values()) <= budget
    assert sorted(p.name for p in models.iterdir()) == ["d2-K0-s0", "d2-K1-s0"]
    # Collected again (as after every session): what is published stays, nothing more fits.
    collect(protocol, runs, results_dir=results, models_dir=models, budget_bytes=budget)
    assert json.loads((results / "d2-K0-s0.json").read_text(encoding="utf-8"))["published"]
    assert not json.loads((results / "d2-K1-alpha0.5-s0.json").read_text(encoding="utf-8"))["published"]
    # A folder published in the plain form (best.safetensors) is rewritten in the compact one;
    # a damaged compact file is made again.
    plain = models / "d2-K0-s0"
    (plain / "best.from-init.xz").unlink()
    (plain / "best.safetensors").write_bytes((runs / "d2-K0-s0" / "checkpoint" / "best.safetensors").read_bytes())
    (models / "d2-K1-s0" / "best.from-init.xz").write_bytes(b"damaged")
    collect(protocol, runs, results_dir=results, models_dir=models, budget_bytes=budget)
    assert sorted(p.name for p in plain.iterdir()) == ["best.from-init.xz", "checkpoint.json", "vocab.txt.gz"]
    for name in names[:2]:
        assert (models / name / "best.from-init.xz").read_bytes() == (tmp_path / "m0" / name / "best.from-init.xz").read_bytes()
    # A study left out on purpose says so, without a budget reason.
    collect(protocol, runs, results_dir=tmp_path / "r2", models_dir=tmp_path / "m2", publish=("main",))
    left_out = json.loads((tmp_path / "r2" / "d2-K0-s0.json").read_text(encoding="utf-8"))
    assert not left_out["published"] and "budget" not in left_out["checkpoint"]


def test_an_interrupted_collect_leaves_each_published_folder_as_it_was(tmp_path, monkeypatch):
    import verify.experiments.sentiment.protocol as protocol_module
    protocol = load_protocol(_protocol(tmp_path))
    runs, models = tmp_path / "runs", tmp_path / "models"
    _finished_run(runs, protocol, "d2-K1-s0", 500)
    # Published earlier in the plain form, from weights the run has since replaced.
    old = models / "d2-K1-s0"
    old.mkdir(parents=True)
    before = {"best.safetensors": b"earlier weights", "checkpoint.json": b"{}", "vocab.txt.gz": b"earlier"}
    for name, data in before.items():
        (old / name).write_bytes(data)
    writes = protocol_module.atomic_write_bytes

    def interrupted(path, data):
        if Path(path).name == "checkpoint.json":
            raise KeyboardInterrupt
        writes(path, data)

    monkeypatch.setattr(protocol_module, "atomic_write_bytes", interrupted)
    with pytest.raises(KeyboardInterrupt):
        collect(protocol, runs, results_dir=tmp_path / "results", models_dir=models, budget_bytes=10**9)
    assert {p.name: p.read_bytes() for p in old.iterdir()} == before
    assert [p.name for p in models.iterdir()] == ["d2-K1-s0"]  # nothing half-written beside it
    monkeypatch.setattr(protocol_module, "atomic_write_bytes", writes)
    collect(protocol, runs, results_dir=tmp_path / "results", models_dir=models, budget_bytes=10**9)
    assert sorted(p.name for p in old.iterdir()) == sorted(PUBLISHED_FILES)
    meta = json.loads((old / "checkpoint.json").read_text(encoding="utf-8"))
    assert expand_best_weights(old / "best.from-init.xz", meta) == (
        runs / "d2-K1-s0" / "checkpoint" / "best.safetensors").read_bytes()


def test_a_finished_run_missing_a_checkpoint_file_is_an_input_error_naming_it(tmp_path):
    protocol = load_protocol(_protocol(tmp_path))
    runs = tmp_path / "runs"
    _finished_run(runs, protocol, "d2-K1-s0", 500)
    missing = runs / "d2-K1-s0" / "checkpoint" / "vocab.txt.gz"
    missing.unlink()
    with pytest.raises(InputError) as caught:
        collect(protocol, runs, results_dir=tmp_path / "results", models_dir=tmp_path / "models")
    assert str(missing) in str(caught.value)


@pytest.mark.parametrize("content, expected", [
    (b"{not json", "not a readable evaluation record"),
    (b"[1, 2]", "checkpoint_sha256"),
    (json.dumps({"checkpoint_sha256": {"best.safetensors": 5}}).encode(), "checkpoint_sha256"),
])
def test_collect_refuses_an_unreadable_evaluation_record_naming_it(tmp_path, content, expected):
    protocol = load_protocol(_protocol(tmp_path))
    runs = tmp_path / "runs"
    _finished_run(runs, protocol, "d2-K0-s0", 100)
    (runs / "d2-K0-s0" / "evaluation.json").write_bytes(content)
    with pytest.raises(InputError, match=expected) as caught:
        collect(protocol, runs, results_dir=tmp_path / "results", models_dir=tmp_path / "models")
    assert "d2-K0-s0/evaluation.json" in str(caught.value)
    assert not (tmp_path / "results").exists() and not (tmp_path / "models").exists()  # nothing written


REPOSITORY = Path(__file__).resolve().parents[2]


def _published_records() -> dict[str, dict]:
    results = REPOSITORY / "runs" / "sentiment" / "protocol"
    records = {p.name[:-len(".json")]: json.loads(p.read_text(encoding="utf-8"))
               for p in results.glob("*.json") if not p.name.endswith(".interpret.json")}
    return {name: record for name, record in records.items() if record.get("published")}


def test_the_published_checkpoints_stay_within_their_budget():
    # The repository's own models/reproduction (git stores identical files once, as counted here):
    # every published record's folder, in the published form, and nothing else.
    models = REPOSITORY / "models" / "reproduction"
    published = _published_records()
    assert published and sorted(p.name for p in models.iterdir()) == sorted(published)
    for name, record in published.items():
        assert record["checkpoint"] == f"models/reproduction/{name}"
        assert sorted(p.name for p in (models / name).iterdir()) == sorted(PUBLISHED_FILES)
    assert 0 < sum(published_bytes(models).values()) <= MODELS_BUDGET_BYTES


@pytest.mark.slow  # regenerates each run's initial embedding and expands its weights (about 10 s)
def test_every_published_checkpoint_gives_back_the_weights_its_evaluation_recorded():
    for name, record in _published_records().items():
        folder = REPOSITORY / record["checkpoint"]
        meta = json.loads((folder / "checkpoint.json").read_text(encoding="utf-8"))
        weights = expand_best_weights(folder / "best.from-init.xz", meta)
        assert hashlib.sha256(weights).hexdigest() == record["checkpoint_sha256"]["best.safetensors"], name
        for other in ("checkpoint.json", "vocab.txt.gz"):
            assert sha256_file(folder / other) == record["checkpoint_sha256"][other], name


@pytest.mark.parametrize("edit, field", [
    (lambda t: t.replace("epochs = 2", "epochs = \"2\""), "common.epochs"),
    (lambda t: t.replace("threads = 1", "threads = 1\ncolour = 3"), "common.colour"),
    (lambda t: t.replace("layers = [0, 1]", "layers = []"), "study[1].layers"),
    (lambda t: t.replace("fixed_alpha = [0.5]", "fixed_alpha = [-1]"), "study[2].fixed_alpha"),
    (lambda t: t.replace("name = \"tiny\"", "name = ["), "tiny.toml"),
])
def test_a_bad_protocol_is_refused_naming_the_field(tmp_path, edit, field):
    path = _protocol(tmp_path)
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_protocol(path)
    assert field in str(caught.value)


def test_a_missing_default_protocol_says_where_it_was_looked_for(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # not the repository's root: the default protocols/reproduction.toml is not here
    assert main(["sentiment", "summarize"]) == 2
    line = capsys.readouterr().err.strip()
    assert len(line.splitlines()) == 1 and "protocols/reproduction.toml: no such protocol file" in line
    assert f"from the current folder {tmp_path}" in line and "run from the repository's root" in line
    with pytest.raises(InputError) as caught:  # an absolute path needs no such hint
        load_protocol(tmp_path / "none.toml")
    assert "current folder" not in str(caught.value)


@pytest.mark.slow  # trains and evaluates three small models on a fixture
def test_queue_trains_evaluates_once_skips_finished_and_resumes_interrupted_runs(tmp_path, capsys):
    data = tmp_path / "tiny.csv.gz"
    write_fixture_csv(data)
    runs, cache = tmp_path / "runs", tmp_path / "cache"
    protocol_path = _protocol(tmp_path)
    # An interrupted run: one of its two epochs done (the same settings but for the epoch count,
    # so the protocol resumes it).
    assert main(["sentiment", "protocol", "run", "--protocol", str(_protocol(tmp_path, epochs=1)), "--runs-dir",
                 str(runs), "--data", str(data), "--cache-dir", str(cache), "--only", "d2-K0-s0"]) == 0
    (runs / "d2-K0-s0" / "evaluation.json").unlink()  # as if stopped before its evaluation
    status = {r["run"]: r for r in queue_status(load_protocol(protocol_path), runs)}
    assert status["d2-K0-s0"]["state"] == "in progress" and status["d2-K0-s0"]["epochs"] == 1
    assert status["d2-K1-s0"]["state"] == "not started"

    finished = run_queue(load_protocol(protocol_path), runs, data=data, cache_dir=cache)
    assert finished == ["d2-K1-s0", "d2-K0-s0", "d2-K1-alpha0.5-s0"]
    log = (runs / "protocol.log").read_text(encoding="utf-8")
    assert "d2-K0-s0: resuming" in log and "queue done" in log
    for name in finished:
        record = json.loads((runs / name / "evaluation.json").read_text(encoding="utf-8"))
        assert record["run"] == name and record["split"] == "test" and record["epochs_completed"] == 2
        assert 0 <= record["hardmax_accuracy"] <= 1 and 0 <= record["hardmax_validation_accuracy"] <= 1
        # The like-for-like number from every epoch's kept weights, measured once at the end.
        assert record["softmax_best_test_epoch"]["epochs_measured"] == 2
        assert set(record["checkpoint_sha256"]) == {"best.safetensors", "checkpoint.json", "vocab.txt.gz"}
        assert f"--only {name}" in record["command"]
    alpha_run = json.loads((runs / "d2-K1-alpha0.5-s0" / "evaluation.json").read_text(encoding="utf-8"))
    assert alpha_run["alpha"] == pytest.approx(0.5, rel=1e-6)  # fixed: not trained
    baseline = json.loads((runs / "d2-K0-s0" / "checkpoint" / "checkpoint.json").read_text(encoding="utf-8"))
    assert baseline["settings"]["layers"] == 0 and baseline["settings"]["merged_tokens"] is True

    # Interpretability tests and clustering measures for the runs with attention layers.
    assert not (runs / "d2-K0-s0" / "interpretation.json").exists()
    interpretation = json.loads((runs / "d2-K1-s0" / "interpretation.json").read_text(encoding="utf-8"))
    assert interpretation["reviews"] == 90 and interpretation["layers"] == 1
    assert {"deletion", "matched_polarity", "leader_vote", "clustering"} <= set(interpretation)

    # Collected into the repository's layout: the published studies' checkpoints evaluate as they are.
    results, models = tmp_path / "results", tmp_path / "models"
    capsys.readouterr()
    assert main(["sentiment", "protocol", "collect", "--protocol", str(protocol_path), "--runs-dir", str(runs),
                 "--results", str(results), "--models", str(models), "--publish", "baseline", "--json"]) == 0
    collected = capsys.readouterr()
    assert sorted(json.loads(collected.out)["runs"]) == sorted(finished)
    assert collected.err.strip().endswith(f"3 finished runs copied to {results}")
    assert sorted(p.name for p in results.iterdir()) == sorted([
        "d2-K0-s0.json", "d2-K1-alpha0.5-s0.json", "d2-K1-alpha0.5-s0.interpret.json", "d2-K1-s0.json",
        "d2-K1-s0.interpret.json"])
    published = json.loads((results / "d2-K1-s0.json").read_text(encoding="utf-8"))
    assert published["published"] and sorted(p.name for p in (models / "d2-K1-s0").iterdir()) == [
        "best.from-init.xz", "checkpoint.json", "vocab.txt.gz"]
    # The compact form gives back the very weights the evaluation recorded.
    assert (read_checkpoint(models / "d2-K1-s0").best.to_arrays()["embedding"]
            == read_checkpoint(runs / "d2-K1-s0" / "checkpoint").best.embedding).all()
    alpha_record = json.loads((results / "d2-K1-alpha0.5-s0.json").read_text(encoding="utf-8"))
    assert not alpha_record["published"] and "--only d2-K1-alpha0.5-s0" in alpha_record["checkpoint"]
    capsys.readouterr()
    assert main(["sentiment", "evaluate", "--checkpoint", str(models / "d2-K1-s0"), "--data", str(data),
                 "--cache-dir", str(cache), "--json", "--quiet", "--no-softmax"]) == 0
    assert json.loads(capsys.readouterr().out)["hardmax_accuracy"] == published["hardmax_accuracy"]
    assert main(["sentiment", "summarize", "--protocol", str(protocol_path), "--results", str(results), "--out",
                 str(tmp_path / "summary"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["runs"] == {"finished": 3, "planned": 3}
    assert json.loads((tmp_path / "summary" / "summary.json").read_text(encoding="utf-8")) == summary

    # The protocol is preregistered: collecting under an edited file (one comment added) is refused.
    edited = tmp_path / "edited.toml"
    edited.write_bytes(protocol_path.read_bytes() + b"# edited after the runs\n")
    capsys.readouterr()
    assert main(["sentiment", "protocol", "collect", "--protocol", str(edited), "--runs-dir", str(runs),
                 "--results", str(tmp_path / "results-edited"), "--models", str(models)]) == 2
    error = capsys.readouterr().err
    assert "edited.toml" in error and "sha256" in error and not (tmp_path / "results-edited").exists()

    # Everything finished: a second pass trains nothing.
    assert run_queue(load_protocol(protocol_path), runs, data=data, cache_dir=cache) == []
    capsys.readouterr()
    assert main(["sentiment", "protocol", "status", "--protocol", str(protocol_path), "--runs-dir", str(runs)]) == 0
    assert "3 finished, 0 collected, 0 in progress, 0 not started" in capsys.readouterr().out


def test_two_runners_share_a_folder_and_never_take_the_same_run(tmp_path):
    """Each run is claimed while a runner works on it: a second runner started meanwhile takes the
    others, and every run is trained, evaluated and interpreted once."""
    protocol = load_protocol(_protocol(tmp_path))
    runs = tmp_path / "runs"
    first_run = protocol.runs[0].name
    first_is_training, release_first = threading.Event(), threading.Event()
    trained: list[str] = []

    def train_run(*, out_dir, **_):
        trained.append(out_dir.parent.name)
        if out_dir.parent.name == first_run:
            first_is_training.set()
            assert release_first.wait(30)
        return {"best": {"val_acc": 0.5, "epoch": 1}, "epochs_completed": 1}

    def evaluate_run(checkpoint, **_):
        return {"hardmax_accuracy": 0.5}

    interpreted: list[str] = []

    def interpret_run(checkpoint, **_):
        interpreted.append(checkpoint.parent.name)
        return {}

    fakes = dict(data=None, cache_dir=None, train_run=train_run, evaluate_run=evaluate_run, interpret_run=interpret_run)
    results: dict[str, list[str]] = {}
    first = threading.Thread(target=lambda: results.setdefault("first", run_queue(protocol, runs, **fakes)))
    first.start()
    try:
        assert first_is_training.wait(30)
        results["second"] = run_queue(protocol, runs, **fakes)  # meanwhile: everything but the held run
    finally:
        release_first.set()
        first.join(30)
    everything = [run.name for run in protocol.runs]
    assert results["first"] == [first_run] and results["second"] == everything[1:]
    assert sorted(trained) == sorted(everything)  # each run trained once
    assert sorted(interpreted) == sorted(run.name for run in protocol.runs if run.layers > 0)
    log = (runs / "protocol.log").read_text(encoding="utf-8")
    assert f"{first_run}: another runner is working on it, skipped" in log
    assert f"left to other runners: {first_run}" in log
    # A claim ends with its holder: nothing stays locked after the runners are gone.
    assert run_queue(protocol, runs, **fakes) == [] and "left to other runners" not in \
        (runs / "protocol.log").read_text(encoding="utf-8").splitlines()[-1]


def test_a_fresh_runs_folder_continues_where_the_collected_results_end(tmp_path, capsys):
    """A run collected under this protocol file is finished; one collected under another file is not."""
    protocol_path = _protocol(tmp_path)
    protocol = load_protocol(protocol_path)
    results = tmp_path / "results"
    results.mkdir()
    first, second, third = (run.name for run in protocol.runs)
    (results / f"{first}.json").write_text(json.dumps({"protocol_sha256": protocol.sha256}), encoding="utf-8")
    (results / f"{second}.json").write_text(json.dumps({"protocol_sha256": "0" * 64}), encoding="utf-8")
    trained: list[str] = []

    def train_run(*, out_dir, **_):
        trained.append(out_dir.parent.name)
        return {"best": {"val_acc": 0.5, "epoch": 1}, "epochs_completed": 1}

    finished = run_queue(protocol, tmp_path / "runs", data=None, cache_dir=None, results_dir=results,
                         train_run=train_run, evaluate_run=lambda checkpoint, **_: {"hardmax_accuracy": 0.5},
                         interpret_run=lambda checkpoint, **_: {})
    assert trained == finished == [second, third]
    assert f"{first}: already collected in" in (tmp_path / "runs" / "protocol.log").read_text(encoding="utf-8")
    states = {r["run"]: r["state"] for r in queue_status(protocol, tmp_path / "runs", results_dir=results)}
    assert states == {first: "collected", second: "finished", third: "finished"}
    # Without the results folder nothing counts as collected.
    assert queue_status(protocol, tmp_path / "fresh")[0]["state"] == "not started"
    (results / f"{third}.json").write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match=f"{third}.json"):
        queue_status(protocol, tmp_path / "fresh", results_dir=results)


def test_an_unknown_run_is_bad_input(tmp_path, capsys):
    data = tmp_path / "tiny.csv.gz"
    write_fixture_csv(data)
    assert main(["sentiment", "protocol", "run", "--protocol", str(_protocol(tmp_path)), "--runs-dir",
                 str(tmp_path / "runs"), "--data", str(data), "--only", "d9-K9-s9"]) == 2
