"""``hardmax-verify sentiment``: epochs as a table, progress that reaches its total, --json [FILE|-]."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from verify.app.cli import main
from verify.app.commands.output import ProgressReporter
from verify.app.commands.sentiment import EpochTable
from verify.experiments.imdb.corpus import build_corpus
from verify.experiments.imdb.data import Reviews
from verify.experiments.imdb.preprocess import PreprocessOptions

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from test_sentiment_training import write_fixture_csv  # noqa: E402  (the training tests' fixture writer)


class _Recorder:
    """A progress callback that keeps every (done, total) it is given."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def __call__(self, phase: str, done: int, total: int) -> None:
        self.calls.append((done, total))


def test_preprocessing_progress_reaches_the_total():
    # 1234 reviews: the bar used to stop at the last multiple of 500 below the count (1000 of 1234).
    reviews = Reviews(tuple(f"review number {i} was fine" for i in range(1234)), np.zeros(1234, dtype=np.int8),
                      None, "memory", "csv")
    calls: list[int] = []
    build_corpus(reviews, options=PreprocessOptions(), progress=calls.append)
    assert calls[-1] == 1234 and calls == sorted(calls) and calls[0] == 500


def test_softmax_pass_reports_progress_to_the_total():
    torch = pytest.importorskip("torch")
    from verify.experiments.sentiment.model import TrainingSettings, build_model, softmax_scores

    model = build_model(20, TrainingSettings(d=2, layers=1))
    ids = np.random.default_rng(0).integers(0, 20, size=(300, 16))
    for merged in (False, True):
        recorder = _Recorder()
        with torch.no_grad():
            softmax_scores(model, ids, batch_size=128, merged=merged, progress=lambda d, t, r=recorder: r("s", d, t))
        assert recorder.calls == [(128, 300), (256, 300), (300, 300)]


def test_epoch_rows_form_a_table_with_the_best_epoch_marked():
    lines: list[str] = []
    table = EpochTable(lines.append, hardmax=False)
    table.row({"epoch": 1, "train_running_loss": 0.69312, "train_running_acc": 0.5, "train_subset_loss": 0.55,
               "train_subset_acc": 0.75, "val_loss": 0.6, "val_acc": 0.61, "alpha": 1.0, "seconds": 2.25})
    table.row({"epoch": 2, "train_running_loss": 0.5, "train_running_acc": 0.7, "train_subset_loss": 0.45,
               "train_subset_acc": 0.8, "val_loss": 0.62, "val_acc": 0.6, "alpha": 1.25, "seconds": 2.0})
    # A history entry of an older checkpoint: the running mean under its old name, no subset.
    table.row({"epoch": 3, "train_loss": 0.4, "train_acc": 0.9, "val_loss": 0.5, "val_acc": 0.65, "alpha": 1.5,
               "seconds": 2.0})
    assert lines[0].split() == ["epoch", "running", "loss", "train", "loss", "train", "acc", "val", "loss", "val",
                                "acc", "alpha", "seconds", "best"]
    assert lines[1].split() == ["1", "0.6931", "0.5500", "0.7500", "0.6000", "0.6100", "1", "2.2", "*"]
    assert lines[2].split() == ["2", "0.5000", "0.4500", "0.8000", "0.6200", "0.6000", "1.25", "2.0"]
    assert lines[3].split() == ["3", "0.4000", "-", "-", "0.5000", "0.6500", "1.5", "2.0", "*"]
    assert len(lines[0]) - len("  best") == len(lines[1]) - len("  *") == len(lines[2])  # aligned columns


def test_a_finished_phase_leaves_the_display():
    class FakeProgress:
        def __init__(self) -> None:
            self.tasks: dict[int, str] = {}

        def add_task(self, description: str, total: int) -> int:
            self.tasks[len(self.tasks) + 100] = description
            return len(self.tasks) + 99

        def update(self, task: int, **fields: int) -> None:
            pass

        def remove_task(self, task: int) -> None:
            del self.tasks[task]

    fake = FakeProgress()
    reporter = ProgressReporter(fake, console=None)  # type: ignore[arg-type]
    for epoch in (1, 2, 3):
        for done in (1, 2):
            reporter(f"epoch {epoch}/3", done, 2)
    reporter("preprocessing", 5, 10)
    assert list(fake.tasks.values()) == ["preprocessing"]  # three epochs, no pile of finished bars


@pytest.mark.slow
def test_train_prints_a_table_and_evaluate_json_is_clean(tmp_path, capsys):
    pytest.importorskip("torch")
    data = tmp_path / "tiny.csv.gz"
    write_fixture_csv(data)
    cache, out = tmp_path / "cache", tmp_path / "run"
    assert main(["sentiment", "train", "--d", "2", "--epochs", "2", "--data", str(data), "--out", str(out),
                 "--cache-dir", str(cache), "--batch-size", "32", "--hardmax-every", "1", "--quiet"]) == 0
    err = capsys.readouterr().err
    lines = err.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:1] == ["epoch"])
    assert "hardmax val acc" in lines[header]
    assert [line.split()[0] for line in lines[header + 1:header + 3]] == ["1", "2"]
    assert "{" not in err and "'train_loss'" not in err  # no Python dicts
    # --json alone: the record alone on standard output, from its first byte.
    assert main(["sentiment", "evaluate", "--checkpoint", str(out), "--data", str(data), "--cache-dir", str(cache),
                 "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("{") and json.loads(captured.out)["split"] == "test"
    assert "hardmax accuracy" in captured.err
    record = tmp_path / "evaluation.json"
    assert main(["sentiment", "evaluate", "--checkpoint", str(out), "--data", str(data), "--cache-dir", str(cache),
                 "--no-softmax", "--json", str(record)]) == 0
    assert "hardmax accuracy" in capsys.readouterr().out and json.loads(record.read_text())["reviews"] > 0


@pytest.mark.slow
def test_softmax_certificate_counts_reviews_of_a_trained_checkpoint(tmp_path, capsys):
    """`sentiment softmax-certificate` and `evaluate --softmax-certificate` on a tiny trained model (docs/softmax.md)."""
    pytest.importorskip("torch")
    data = tmp_path / "tiny.csv.gz"
    write_fixture_csv(data)
    cache, out = tmp_path / "cache", tmp_path / "run"
    assert main(["sentiment", "train", "--d", "2", "--epochs", "1", "--data", str(data), "--out", str(out),
                 "--cache-dir", str(cache), "--batch-size", "32", "--layers", "2", "--quiet"]) == 0
    capsys.readouterr()
    record = tmp_path / "softmax-certificate.json"
    assert main(["sentiment", "softmax-certificate", "--checkpoint", str(out), "--data", str(data),
                 "--cache-dir", str(cache), "--quiet", "--json", str(record)]) == 0
    assert "certified" in capsys.readouterr().out
    result = json.loads(record.read_text())
    [row] = result["rows"]
    assert row["K"] == 2 and row["beta"] == 1000.0 and 0 < row["reviews"]
    assert row["certified"] + sum(row["not_certified"].values()) == row["reviews"]
    assert 0.0 <= row["measured_agreement"] <= 1.0
    assert result["by_d"][0]["certified"] == row["certified"]
    assert main(["sentiment", "evaluate", "--checkpoint", str(out), "--data", str(data), "--cache-dir", str(cache),
                 "--no-softmax", "--softmax-certificate", "--quiet", "--json", "-"]) == 0
    evaluation = json.loads(capsys.readouterr().out)
    assert evaluation["softmax_certified_agreement"] == row["certified"]


def _fake_certificate_record(directory, **_options) -> dict:
    """What evaluate_checkpoint(..., softmax_certificate=True) returns, with counts from the folder's name."""
    certified = int(Path(directory).name.rsplit("-", 1)[1])
    return {"d": 2, "layers": 8, "alpha": 0.5, "softmax_beta": 1000.0, "epoch": 3, "reviews": 10,
            "softmax_certified_agreement": certified, "softmax_not_certified": {"margin": 10 - certified},
            "softmax_stop_layers": {}, "softmax_bound_holds": certified, "softmax_bound_median": 0.1,
            "exact_path": 0, "hardmax_accuracy": 0.8, "hardmax_softmax_agreement": 0.9}


def test_softmax_certificate_update_evaluates_only_the_checkpoints_it_does_not_hold(tmp_path, monkeypatch, capsys):
    """--update keeps earlier rows, evaluates the missing checkpoints, and rewrites the file after each one."""
    import verify.app.commands.sentiment as command

    evaluated: list[str] = []

    def fake(directory, **options):
        evaluated.append(str(directory))
        if Path(directory).name == "run-9":
            raise KeyboardInterrupt  # stopped during the third checkpoint
        return _fake_certificate_record(directory, **options)

    monkeypatch.setattr(command, "evaluate_checkpoint", fake)
    record = tmp_path / "certificate.json"
    first, second, third = (str(tmp_path / name) for name in ("run-3", "run-7", "run-9"))
    assert main(["sentiment", "softmax-certificate", "--checkpoint", first, "--update", str(record), "--quiet"]) == 0
    assert evaluated == [first]
    status = main(["sentiment", "softmax-certificate", "--checkpoint", first, "--checkpoint", second,
                   "--checkpoint", third, "--update", str(record), "--quiet"])
    assert status == 130 and evaluated == [first, second, third]
    kept = json.loads(record.read_text())
    assert [row["checkpoint"] for row in kept["rows"]] == [first, second]  # the finished one survived the stop
    assert kept["by_d"][0]["certified"] == 3 + 7 and kept["by_d"][0]["runs"] == 2
    capsys.readouterr()


@pytest.mark.parametrize("content", ["not json", '{"kind": "something else", "rows": []}', '{"kind": '
                                     '"sentiment-softmax-certificate", "rows": [{"run": "x"}]}'])
def test_softmax_certificate_update_refuses_a_file_it_did_not_write(tmp_path, content, capsys):
    record = tmp_path / "other.json"
    record.write_text(content)
    assert main(["sentiment", "softmax-certificate", "--checkpoint", str(tmp_path / "run-1"), "--update",
                 str(record), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--update" in err and len([line for line in err.splitlines() if line.strip()]) == 1
    assert record.read_text() == content


@pytest.mark.parametrize("settings", [{"train_alpha": False, "alpha_init": 0.5}, None])
def test_softmax_certificate_update_asks_the_checkpoint_whether_an_earlier_row_fixed_alpha(tmp_path, monkeypatch,
                                                                                           capsys, settings):
    """A row written before rows said whether alpha was trained gets it from its checkpoint.json, or is refused."""
    import verify.app.commands.sentiment as command

    monkeypatch.setattr(command, "evaluate_checkpoint", _fake_certificate_record)
    record, earlier, new = tmp_path / "certificate.json", tmp_path / "run-3", str(tmp_path / "run-7")
    assert main(["sentiment", "softmax-certificate", "--checkpoint", str(earlier), "--update", str(record),
                 "--quiet"]) == 0
    data = json.loads(record.read_text())
    del data["rows"][0]["alpha_fixed"]
    record.write_text(json.dumps(data))
    if settings is not None:
        earlier.mkdir()
        (earlier / "checkpoint.json").write_text(json.dumps({"settings": settings}))
    status = main(["sentiment", "softmax-certificate", "--checkpoint", str(earlier), "--checkpoint", new,
                   "--update", str(record), "--quiet"])
    if settings is None:
        assert status == 2 and "does not say whether alpha was trained" in capsys.readouterr().err
        return
    assert status == 0
    by_model = {g["model"]: g["runs"] for g in json.loads(record.read_text())["by_d"]}
    assert by_model == {"d = 2, K = 8": 1, "d = 2, K = 8, alpha fixed at 0.5": 1}
    capsys.readouterr()
