"""Sentiment end to end on a tiny seeded corpus the test writes: train, resume, evaluate (CLI and API)."""

from __future__ import annotations

import csv
import gzip
import io
import json
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from verify.app.cli import main  # noqa: E402
from verify.experiments.sentiment import analyze as analyze_module  # noqa: E402
from verify.experiments.sentiment import model as model_module  # noqa: E402
from verify.experiments.sentiment.checkpoints import read_checkpoint  # noqa: E402
from verify.experiments.sentiment.checkpoints import checkpoint_corpus  # noqa: E402
from verify.experiments.sentiment.model import (TrainingSettings, _bce_and_accuracy, model_from_weights,  # noqa: E402
                                    softmax_scores, train_subset_rows)

POSITIVE = ["great", "wonderful", "loved", "superb", "enjoyed", "amazing"]
NEGATIVE = ["awful", "boring", "waste", "worst", "terrible", "poor"]
NEUTRAL = ["film", "plot", "actor", "scene", "story", "camera", "music", "ending", "director", "cast"]


def write_fixture_csv(path, *, reviews: int = 300, seed: int = 0, test_only_word: str | None = None,
                      train_hapax: str | None = None) -> None:
    """A small project-format CSV: sentiment words mixed into neutral ones, both splits, both labels.

    ``test_only_word`` is appended to every tenth review of the official test split, ``train_hapax``
    to the first review (official train split); neither takes a random draw, so the other words are
    unchanged.
    """
    rng = np.random.default_rng(seed)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["review", "sentiment", "split"])
    for r in range(reviews):
        label = r % 2
        cue = POSITIVE if label else NEGATIVE
        length = int(rng.integers(5, 40))
        words = [str(rng.choice(cue)) if rng.random() < 0.3 else str(rng.choice(NEUTRAL)) for _ in range(length)]
        if test_only_word is not None and r >= reviews // 2 and r % 10 == 0:
            words.append(test_only_word)
        if train_hapax is not None and r == 0:
            words.append(train_hapax)
        writer.writerow([" ".join(words) + ".<br />The end!", "positive" if label else "negative",
                         "train" if r < reviews // 2 else "test"])
    path.write_bytes(gzip.compress(buffer.getvalue().encode("utf-8"), mtime=0))


@pytest.fixture
def fixture_csv(tmp_path):
    path = tmp_path / "tiny.csv.gz"
    write_fixture_csv(path)
    return path


def _train(data, out, cache, epochs, extra=()):
    return main(["sentiment", "train", "--d", "2", "--epochs", str(epochs), "--data", str(data), "--out", str(out),
                 "--cache-dir", str(cache), "--batch-size", "32", "--hardmax-every", "1", "--quiet", *extra])


def _without_review_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    """``sentiment analyze`` without drawing its review figures: seconds each, drawn and checked by
    test_analyze_writes_the_analyses_for_a_checkpoint_and_authors_like_arrays and tests/unit/test_sentiment_figures.py."""
    monkeypatch.setattr(analyze_module, "plot_review_evolution", lambda weights, ids, words, *, layers, **_: {"layers": layers})


def _untimed(history: list[dict]) -> list[dict]:
    return [{key: value for key, value in entry.items() if key not in ("seconds", "cpu_seconds")} for entry in history]


@pytest.mark.slow
def test_training_is_seeded_and_resuming_equals_an_uninterrupted_run(fixture_csv, tmp_path):
    cache = tmp_path / "cache"
    assert _train(fixture_csv, tmp_path / "a", cache, 2) == 0
    assert _train(fixture_csv, tmp_path / "b", cache, 1) == 0
    assert _train(fixture_csv, tmp_path / "b", cache, 2) == 0  # resumes after epoch 1
    a, b = read_checkpoint(tmp_path / "a", with_optimizer=True), read_checkpoint(tmp_path / "b", with_optimizer=True)
    assert a.meta["epochs_completed"] == b.meta["epochs_completed"] == 2
    for name, array in a.weights.to_arrays().items():
        assert np.array_equal(array, b.weights.to_arrays()[name]), name
    assert set(a.optimizer) == set(b.optimizer)
    for name in a.optimizer:
        assert np.array_equal(a.optimizer[name], b.optimizer[name]), name
    assert (tmp_path / "a" / "weights.safetensors").read_bytes() == (tmp_path / "b" / "weights.safetensors").read_bytes()
    history = a.meta["history"]
    assert [h["epoch"] for h in history] == [1, 2]
    assert {"train_running_loss", "train_subset_loss", "train_subset_acc", "val_acc", "hardmax_val_acc",
            "hardmax_train_exact_path"} <= set(history[-1])
    # Same seed, same numbers: the histories agree in every field but the time taken.
    assert _untimed(history) == _untimed(b.meta["history"])
    assert a.meta["train_subset"] == b.meta["train_subset"]
    # The test reviews are not looked at during training.
    assert not [key for entry in history for key in entry if "test" in key]
    assert float(a.weights.alpha) > 0
    # The paper's split of 300 reviews: 210 train (189 + 21 validation), 90 test.
    assert a.meta["split"] == {"protocol": "paper", "seed": 0, "train": 189, "validation": 21, "test": 90}


@pytest.mark.slow
def test_train_subset_is_evaluated_exactly_as_the_validation_reviews(fixture_csv, tmp_path):
    cache = tmp_path / "cache"
    # Dropout on the tokens: a train-mode (dropout on) evaluation would give other numbers.
    assert _train(fixture_csv, tmp_path / "run", cache, 2, extra=("--dropout", "0.3", "--hardmax-every", "0")) == 0
    checkpoint = read_checkpoint(tmp_path / "run")
    corpus, split = checkpoint_corpus(checkpoint, fixture_csv, cache_dir=cache)
    settings = TrainingSettings.from_record(checkpoint.meta["settings"])
    assert settings.embedding_dropout == 0.3
    assert checkpoint.meta["train_subset"]["reviews"] == len(split.validation) == 21
    assert checkpoint.meta["train_subset"]["of"] == len(split.train)
    subset = split.train[train_subset_rows(len(split.train), len(split.validation), seed=settings.seed)]
    model = model_from_weights(checkpoint.weights, settings)  # the last epoch's weights
    last = checkpoint.meta["history"][-1]
    for key, rows in (("train_subset", subset), ("val", split.validation)):
        loss, accuracy = _bce_and_accuracy(softmax_scores(model, corpus.ids[rows]), corpus.labels[rows])
        assert (last[f"{key}_loss"], last[f"{key}_acc"]) == (loss, accuracy), key
    model.train()  # dropout on: not what was recorded
    with torch.no_grad():
        noisy = model(torch.from_numpy(corpus.ids[subset].astype(np.int64))).double().numpy()
    assert _bce_and_accuracy(noisy, corpus.labels[subset])[0] != last["train_subset_loss"]
    assert last["train_running_loss"] != last["train_subset_loss"]


@pytest.mark.slow
def test_resume_refuses_a_folder_of_another_run(fixture_csv, tmp_path):
    cache = tmp_path / "cache"
    assert _train(fixture_csv, tmp_path / "a", cache, 1) == 0
    assert _train(fixture_csv, tmp_path / "a", cache, 2, extra=("--seed", "1")) == 2


@pytest.mark.slow
def test_min_count_and_split_seed_are_recorded_and_evaluation_rebuilds_them(fixture_csv, tmp_path, capsys, monkeypatch):
    _without_review_figures(monkeypatch)
    cache = tmp_path / "cache"
    # Cue words occur about 100 times in the training reviews, neutral words about 300 times:
    # --min-count 150 sends every cue word to <UNK> and keeps the neutral ones.
    restricted = ("--min-count", "150", "--seed", "1", "--split-seed", "0")
    assert _train(fixture_csv, tmp_path / "a", cache, 2, extra=restricted) == 0
    capsys.readouterr()
    assert _train(fixture_csv, tmp_path / "plain", cache, 1, extra=("--json", str(tmp_path / "plain.json"))) == 0
    run, plain = read_checkpoint(tmp_path / "a"), read_checkpoint(tmp_path / "plain")
    # --json FILE: the checkpoint's metadata there, the one-line summary on standard output.
    assert json.loads((tmp_path / "plain.json").read_text(encoding="utf-8")) == json.loads(
        (tmp_path / "plain" / "checkpoint.json").read_text(encoding="utf-8"))
    assert capsys.readouterr().out.startswith(f"{tmp_path / 'plain'}: 1 epochs; best validation accuracy")
    assert run.meta["data"]["min_count"] == 150 and "min_count" not in plain.meta["data"]
    assert run.meta["settings"]["seed"] == 1 and run.meta["split"] == plain.meta["split"]  # split seed 0
    words = run.vocabulary.words
    assert words[:2] == ("<PAD>", "<UNK>") and "film" in words
    assert not set(POSITIVE + NEGATIVE) & set(words)
    capsys.readouterr()
    assert main(["sentiment", "evaluate", "--checkpoint", str(tmp_path / "a"), "--data", str(fixture_csv),
                 "--cache-dir", str(cache), "--json", "--quiet", "--no-softmax"]) == 0
    record = json.loads(capsys.readouterr().out)
    recorded = next(e for e in run.meta["history"] if e["epoch"] == record["epoch"])
    assert record["validation_accuracy"] == run.meta["best"]["val_acc"] == recorded["val_acc"]
    # The evaluation rebuilt the restricted vocabulary and the seed-0 split it was trained on: its
    # certified validation accuracy is the one training recorded.
    assert main(["sentiment", "evaluate", "--checkpoint", str(tmp_path / "a"), "--data", str(fixture_csv),
                 "--cache-dir", str(cache), "--json", "--quiet", "--no-softmax", "--split", "validation"]) == 0
    assert json.loads(capsys.readouterr().out)["hardmax_accuracy"] == recorded["hardmax_val_acc"]
    # The analyses rebuild it too (a leader word is read from the restricted vocabulary).
    analysis = tmp_path / "analysis"
    assert main(["sentiment", "analyze", "--checkpoint", str(tmp_path / "a"), "--data", str(fixture_csv),
                 "--cache-dir", str(cache), "--out", str(analysis), "--reviews", "20", "--samples", "1",
                 "--certify-samples", "0", "--converge-layers", "9", "--quiet", "--json"]) == 0
    result = json.loads((analysis / "analysis.json").read_text(encoding="utf-8"))
    assert json.loads(capsys.readouterr().out) == result  # --json: the analyses alone on standard output
    assert result["checkpoints"][0]["leader_statistics"]["reviews"] == 20
    # A different --min-count is a different run: the folder is not resumed with it.
    assert _train(fixture_csv, tmp_path / "a", cache, 3, extra=("--min-count", "2", "--seed", "1",
                                                                   "--split-seed", "0")) == 2


@pytest.mark.slow
def test_tiny_training_learns_and_evaluate_reports_certified_accuracy(fixture_csv, tmp_path, capsys):
    cache = tmp_path / "cache"
    out = tmp_path / "run"
    assert main(["sentiment", "train", "--d", "2", "--epochs", "6", "--data", str(fixture_csv), "--out", str(out),
                 "--cache-dir", str(cache), "--batch-size", "16", "--lr", "0.05", "--hardmax-every", "0",
                 "--protocol", "official", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["sentiment", "evaluate", "--checkpoint", str(out), "--data", str(fixture_csv),
                 "--cache-dir", str(cache), "--json", "--quiet"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["protocol"] == "official" and record["split"] == "test" and record["reviews"] == 150
    assert record["d"] == 2 and record["exact_path"] >= 0 and record["hardmax_seconds"] >= 0
    # The cue words separate the classes; a few epochs at a high rate must beat chance clearly.
    assert record["softmax_accuracy"] > 0.7
    assert record["hardmax_accuracy"] > 0.7
    # No test accuracy was recorded during training, and no epoch weights were kept.
    assert "softmax_best_test_epoch" not in record


@pytest.mark.slow
def test_evaluate_refuses_other_data(fixture_csv, tmp_path):
    cache = tmp_path / "cache"
    assert _train(fixture_csv, tmp_path / "a", cache, 1) == 0
    other = tmp_path / "other.csv.gz"
    write_fixture_csv(other, seed=5)
    assert main(["sentiment", "evaluate", "--checkpoint", str(tmp_path / "a"), "--data", str(other),
                 "--cache-dir", str(cache), "--quiet", "--no-softmax"]) == 2
    assert main(["sentiment", "evaluate", "--checkpoint", str(tmp_path / "absent"), "--quiet"]) == 2


@pytest.mark.slow
def test_analyze_writes_the_analyses_for_a_checkpoint_and_authors_like_arrays(fixture_csv, tmp_path, capsys):
    cache = tmp_path / "cache"
    out = tmp_path / "run"
    assert main(["sentiment", "train", "--d", "2", "--epochs", "3", "--data", str(fixture_csv), "--out", str(out),
                 "--cache-dir", str(cache), "--batch-size", "16", "--lr", "0.05", "--hardmax-every", "3",
                 "--quiet"]) == 0
    # Arrays shaped like the authors' file (E with a padding row, alpha, w, b), made here.
    rng = np.random.default_rng(1)
    npz = tmp_path / "authors_like.npz"
    np.savez(npz, E=rng.normal(size=(300, 2)).astype(np.float32), alpha=np.array([2.35], dtype=np.float32),
             w=np.array([[-7.3, 5.7]], dtype=np.float32), b=np.array([-0.28], dtype=np.float32))
    analysis = tmp_path / "analysis"
    # One configuration through the exact claim checks (certified_limits is tested on its own in
    # tests/unit/test_sentiment_analyze.py): here, that the command runs them and records them.
    assert main(["sentiment", "analyze", "--checkpoint", str(out), "--authors-npz", str(npz), "--data",
                 str(fixture_csv), "--cache-dir", str(cache), "--out", str(analysis), "--samples", "6",
                 "--certify-samples", "1", "--converge-layers", "30", "--quiet"]) == 0
    result = json.loads((analysis / "analysis.json").read_text(encoding="utf-8"))
    stats = result["checkpoints"][0]["leader_statistics"]
    assert stats["reviews"] == 90 and 0 <= stats["min"] <= stats["mean"] <= stats["max"]
    hypotheses = result["checkpoints"][0]["hypotheses"]
    # Every fixture review repeats a word or is padded (n = 128 > 40 words): none within the hypotheses.
    assert hypotheses["within_hypotheses"] == 0 and hypotheses["with_padding"] == 90
    assert result["checkpoints"][0]["K_vs_converged"]["configurations"] == 90
    # The ablation without attention covers the same 90 test reviews, and its "at K" accuracy is
    # the certified hardmax accuracy of the analysis.
    ablation = result["checkpoints"][0]["without_attention"]
    assert ablation["reviews"] == 90 and ablation["accuracy_at_K"] == result["checkpoints"][0]["hardmax_accuracy"]
    assert 0 <= ablation["accuracy_without_attention"] <= 1 and 0 <= ablation["predictions_changed"] <= 90
    for family in ("distinct", "padded"):
        part = result["authors_d2"][family]
        assert part["leaders"]["reviews"] == 6
        assert part["T0_leader_within_K"]["holds"] + part["T0_leader_within_K"]["fails"] == 6
    # Distinct nonzero tokens: a max-norm token leads at layer 0 (D0), so T0 holds for all.
    assert result["authors_d2"]["distinct"]["T0_leader_within_K"]["fails"] == 0
    assert result["authors_d2"]["distinct"]["certified_limits"]["configurations"] == 1
    assert (analysis / "run_training_curves.png").exists()
    plotted = result["checkpoints"][0]["reviews_plotted"]
    assert plotted and all((analysis / f"run_review_{name}.{kind}").exists() for name in plotted for kind in ("png", "gif"))


@pytest.mark.slow
def test_analyze_counts_leaders_among_words_never_seen_in_training(tmp_path, monkeypatch):
    _without_review_figures(monkeypatch)
    data = tmp_path / "unseen.csv.gz"
    # "zyzzyva" is in 15 official-test reviews and no training review; "quokka" once in training.
    write_fixture_csv(data, test_only_word="zyzzyva", train_hapax="quokka")
    cache = tmp_path / "cache"
    for name, extra in (("plain", ()), ("min2", ("--min-count", "2"))):
        assert _train(data, tmp_path / name, cache, 1, extra=("--protocol", "official", *extra)) == 0
    analysis = tmp_path / "analysis"
    assert main(["sentiment", "analyze", "--checkpoint", str(tmp_path / "plain"), "--checkpoint",
                 str(tmp_path / "min2"), "--data", str(data), "--cache-dir", str(cache), "--out", str(analysis),
                 "--samples", "1", "--certify-samples", "0", "--converge-layers", "9", "--quiet"]) == 0
    plain, restricted = json.loads((analysis / "analysis.json").read_text(encoding="utf-8"))["checkpoints"]
    unseen = plain["unseen_words"]
    assert unseen["reviews"] == 150
    assert unseen["unseen_tokens"] == unseen["reviews_with_unseen_word"] == 15
    assert 0 <= unseen["unseen_leaders"] == unseen["reviews_with_unseen_leader"] <= 15
    # With --min-count 2 both words are <UNK>, a row trained through "quokka": nothing is unseen any more.
    assert restricted["unseen_words"]["unseen_tokens"] == restricted["unseen_words"]["unseen_leaders"] == 0


def test_training_keeps_the_thread_count_it_was_given(fixture_csv, tmp_path):
    """The certified evaluation inside training runs a numba parallel kernel; numba's OpenMP layer
    shares torch's libgomp, so uncapped it left torch's parallel regions on every core (two
    trainings on 2 cores ran 3x slower). Training caps numba at --threads."""
    numba = pytest.importorskip("numba")
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        assert _train(fixture_csv, tmp_path / "a", tmp_path / "cache", 1, extra=("--threads", "1")) == 0
        assert numba.get_num_threads() == 1
    finally:
        numba.set_num_threads(before)


@pytest.mark.slow
def test_a_published_checkpoint_evaluates_but_does_not_resume(fixture_csv, tmp_path, capsys):
    """models/<name> of a finished run holds best.safetensors, checkpoint.json and vocab.txt.gz only."""
    cache = tmp_path / "cache"
    run = tmp_path / "run"
    assert _train(fixture_csv, run, cache, 2) == 0
    published = tmp_path / "published"
    published.mkdir()
    for name in ("best.safetensors", "checkpoint.json", "vocab.txt.gz"):
        (published / name).write_bytes((run / name).read_bytes())
    capsys.readouterr()
    common = ["--data", str(fixture_csv), "--cache-dir", str(cache), "--quiet", "--no-softmax", "--json"]
    assert main(["sentiment", "evaluate", "--checkpoint", str(run), *common]) == 0
    full = json.loads(capsys.readouterr().out)
    assert main(["sentiment", "evaluate", "--checkpoint", str(published), *common]) == 0
    slim = json.loads(capsys.readouterr().out)
    assert slim["hardmax_accuracy"] == full["hardmax_accuracy"] and slim["epoch"] == full["epoch"]
    assert main(["sentiment", "evaluate", "--checkpoint", str(published), "--which", "last", *common]) == 2
    assert "only the selected (best) weights" in capsys.readouterr().err
    assert _train(fixture_csv, published, cache, 3) == 2
    assert "training cannot resume" in capsys.readouterr().err


@pytest.mark.slow
def test_alpha_init_starts_alpha_there_is_recorded_and_must_be_positive(fixture_csv, tmp_path, capsys):
    cache = tmp_path / "cache"
    assert _train(fixture_csv, tmp_path / "small", cache, 1, extra=("--alpha-init", "0.3")) == 0
    assert _train(fixture_csv, tmp_path / "default", cache, 1) == 0
    small = read_checkpoint(tmp_path / "small")
    default = read_checkpoint(tmp_path / "default")
    assert small.meta["settings"]["alpha_init"] == 0.3 and default.meta["settings"]["alpha_init"] == 1.0
    # One epoch of Adam at lr 1e-3 moves alpha_raw by a few hundredths, not from 0.3 to near 1.
    assert abs(float(small.weights.alpha) - 0.3) < 0.1 < abs(float(default.weights.alpha) - 0.3)
    # Another start is another run: the folder is not resumed with it.
    assert _train(fixture_csv, tmp_path / "small", cache, 2, extra=("--alpha-init", "0.5")) == 2
    capsys.readouterr()
    assert _train(fixture_csv, tmp_path / "bad", cache, 1, extra=("--alpha-init", "0")) == 2
    assert "--alpha-init" in capsys.readouterr().err


@pytest.mark.slow
def test_embedding_dropout_is_a_seeded_training_only_regulariser_that_resumes_exactly(fixture_csv, tmp_path, capsys):
    cache = tmp_path / "cache"
    dropout = ("--dropout", "0.3")
    assert _train(fixture_csv, tmp_path / "a", cache, 2, extra=dropout) == 0
    assert _train(fixture_csv, tmp_path / "b", cache, 1, extra=dropout) == 0
    assert _train(fixture_csv, tmp_path / "b", cache, 2, extra=dropout) == 0  # resumes after epoch 1
    assert _train(fixture_csv, tmp_path / "plain", cache, 2) == 0
    a = read_checkpoint(tmp_path / "a")
    plain = read_checkpoint(tmp_path / "plain")
    assert a.meta["settings"]["embedding_dropout"] == 0.3 and plain.meta["settings"]["embedding_dropout"] == 0.0
    # The masks are reseeded per epoch from (seed, epoch): a resumed run draws the same ones.
    assert (tmp_path / "a" / "weights.safetensors").read_bytes() == (tmp_path / "b" / "weights.safetensors").read_bytes()
    # Dropout changed the training ...
    assert not np.array_equal(a.weights.embedding, plain.weights.embedding)
    # ... but not the evaluation: the recorded softmax accuracy of the last epoch is that of the
    # full embeddings (evaluate recomputes it from the weights with the model in eval mode).
    capsys.readouterr()
    assert main(["sentiment", "evaluate", "--checkpoint", str(tmp_path / "a"), "--which", "last", "--data",
                 str(fixture_csv), "--cache-dir", str(cache), "--json", "--quiet"]) == 0
    json.loads(capsys.readouterr().out)  # the output is one JSON document
    assert main(["sentiment", "evaluate", "--checkpoint", str(tmp_path / "a"), "--which", "last", "--data",
                 str(fixture_csv), "--cache-dir", str(cache), "--json", "--quiet", "--split", "validation"]) == 0
    validation = json.loads(capsys.readouterr().out)
    assert validation["softmax_accuracy"] == a.meta["history"][-1]["val_acc"]
    assert a.meta["settings"]["merged_tokens"] is False  # dropout needs every position
    # Another dropout is another run, and a probability outside [0, 1) is refused naming the option.
    assert _train(fixture_csv, tmp_path / "a", cache, 3, extra=("--dropout", "0.2")) == 2
    capsys.readouterr()
    assert _train(fixture_csv, tmp_path / "bad", cache, 1, extra=("--dropout", "1")) == 2
    assert "--dropout" in capsys.readouterr().err


@pytest.mark.slow
def test_a_checkpoint_written_before_a_setting_existed_still_resumes(fixture_csv, tmp_path):
    cache = tmp_path / "cache"
    assert _train(fixture_csv, tmp_path / "a", cache, 1) == 0
    assert _train(fixture_csv, tmp_path / "b", cache, 2) == 0
    # Remove the newest setting from the record, as a run from before it was added would have.
    path = tmp_path / "a" / "checkpoint.json"
    meta = json.loads(path.read_text(encoding="utf-8"))
    del meta["settings"]["embedding_dropout"]
    path.write_text(json.dumps(meta), encoding="utf-8")
    assert _train(fixture_csv, tmp_path / "a", cache, 2) == 0
    assert (tmp_path / "a" / "weights.safetensors").read_bytes() == (tmp_path / "b" / "weights.safetensors").read_bytes()


def test_a_checkpoint_recording_no_cleaning_rebuilds_the_earlier_cleanings_vocabulary(tmp_path, capsys):
    """Checkpoints made before the cleaning was a setting record none: they mean the earlier cleaning."""
    data = tmp_path / "contractions.csv"
    rows = ["review,sentiment,split"]
    for r in range(60):
        text = "I don't like it, he's dull" if r % 2 == 0 else "Great film, it's wellmade and I can't stop"
        rows.append(f"\"{text} {r % 7}x\",{'positive' if r % 2 else 'negative'},{'train' if r < 40 else 'test'}")
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    cache = tmp_path / "cache"
    assert _train(data, tmp_path / "old", cache, 1, extra=("--cleaning", "delete-punctuation")) == 0
    path = tmp_path / "old" / "checkpoint.json"
    meta = json.loads(path.read_text(encoding="utf-8"))
    assert "dont" in read_checkpoint(tmp_path / "old").vocabulary.words
    del meta["data"]["preprocess"]["cleaning"]
    path.write_text(json.dumps(meta), encoding="utf-8")
    common = ["--data", str(data), "--cache-dir", str(cache), "--quiet", "--no-softmax", "--json"]
    capsys.readouterr()
    assert main(["sentiment", "evaluate", "--checkpoint", str(tmp_path / "old"), *common]) == 0
    # Recorded as the authors' cleaning instead, the rebuilt vocabulary differs and is refused.
    meta["data"]["preprocess"]["cleaning"] = "authors"
    path.write_text(json.dumps(meta), encoding="utf-8")
    assert main(["sentiment", "evaluate", "--checkpoint", str(tmp_path / "old"), *common]) == 2
    assert "vocabulary rebuilt from the data differs" in capsys.readouterr().err


@pytest.mark.slow
def test_a_loss_that_is_not_finite_is_recorded_as_null_and_the_checkpoint_reads_back(fixture_csv, tmp_path, monkeypatch):
    # A loss that overflowed (training diverging): JSON has no NaN, and checkpoint.json must stay readable.
    real = model_module._bce_and_accuracy
    monkeypatch.setattr(model_module, "_bce_and_accuracy", lambda scores, labels: (math.nan, real(scores, labels)[1]))
    assert _train(fixture_csv, tmp_path / "run", tmp_path / "cache", 1, extra=("--hardmax-every", "0")) == 0
    entry = read_checkpoint(tmp_path / "run").meta["history"][0]
    assert entry["val_loss"] is None and entry["train_subset_loss"] is None and 0 <= entry["val_acc"] <= 1
    assert entry["not_finite"] == {"train_subset_loss": "nan", "val_loss": "nan"}
    assert math.isfinite(entry["train_running_loss"])


@pytest.mark.slow
def test_an_epoch_that_leaves_nan_in_the_weights_ends_training_keeping_the_epoch_before(fixture_csv, tmp_path,
                                                                                       monkeypatch, capsys):
    real = model_module.weights_from_model
    epochs: list[int] = []

    def diverging(model):
        weights = real(model)
        epochs.append(len(epochs) + 1)
        if len(epochs) == 2:
            weights.embedding[0, 0] = np.nan
        return weights

    monkeypatch.setattr(model_module, "weights_from_model", diverging)
    run, snapshots = tmp_path / "run", tmp_path / "epochs"
    status = _train(fixture_csv, run, tmp_path / "cache", 3, extra=("--hardmax-every", "0", "--epoch-weights", str(snapshots)))
    err = capsys.readouterr().err
    assert status == 4 and "training diverged in epoch 2: the weights hold NaN or infinity" in err, err
    assert f"{run} keeps the checkpoint of epoch 1" in err and "Traceback" not in err
    checkpoint = read_checkpoint(run)  # readable, and nothing of epoch 2 was written
    assert checkpoint.meta["epochs_completed"] == 1 and [h["epoch"] for h in checkpoint.meta["history"]] == [1]
    assert sorted(p.name for p in snapshots.iterdir()) == ["epoch-001.safetensors"]
