"""The compiled training step computes the reference step's function (docs/theory.md §5): gradients, then resumption.

The yardstick is float32 itself: on the same batches, the reference step's distance from the same
step run in float64 (``reference - exact``). The compiled step must be within ``FACTOR`` = 3 times
that distance of the reference step, for the loss and each gradient (embedding, alpha_raw,
decoder weight and bias), at initial weights and at the committed trained weights. Why 3: two
float32 evaluations of one function each carry rounding of the yardstick's size, so they differ
by up to about twice it (|compiled - reference| <= |compiled - exact| + |reference - exact|), and
with beta = 1000 a one-unit change of a state can move a nearly tied softmax row, so either
error can be larger than the other's by chance; norms are pooled over four batches of 16 reviews
(one protocol batch of 64), where the measured ratio stayed below 1.8 and the kernel's own
distance from exact below 1.3 times the reference's. The yardstick never goes below one float32
unit of the quantity (two correctly rounded float32 results may differ by one). A kernel that
drops the log-multiplicity term, or alpha's gradient, is far outside it (checked below).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402

from test_sentiment_protocol import _protocol  # noqa: E402
from test_sentiment_training import _train, write_fixture_csv  # noqa: E402

from verify.app.cli import main  # noqa: E402
from verify.experiments.sentiment import attention_kernel  # noqa: E402
from verify.experiments.sentiment.checkpoints import read_checkpoint  # noqa: E402
from verify.experiments.sentiment.model import (TrainingSettings, _code_version, build_model, merge_tokens,  # noqa: E402
                                    model_from_weights)
from verify.experiments.sentiment.protocol import load_protocol, run_queue  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
FACTOR = 3.0
BATCHES = 4
EPS32 = float(np.finfo(np.float32).eps)


def zipf_batch(vocabulary: int, *, seed: int | list[int], reviews: int = 16, positions: int = 128):
    """Reviews of word ids drawn with probability ~ 1/rank (so frequent words repeat), padded with 0 to ``positions``."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, vocabulary)
    ids = rng.choice(np.arange(1, vocabulary), size=(reviews, positions), p=weights / weights.sum())
    lengths = rng.integers(10, positions + 1, size=reviews)
    ids[np.arange(positions)[None, :] >= lengths[:, None]] = 0
    labels = torch.from_numpy((rng.random(reviews) < 0.5).astype(np.float32))
    return ids, labels


def merged_inputs(ids: np.ndarray) -> tuple:
    tokens, counts, distinct = merge_tokens(ids)
    width = int(distinct.max())
    return torch.from_numpy(tokens[:, :width]), torch.from_numpy(counts[:, :width])


def loss_and_gradients(model, inputs: tuple, labels, *, compiled: bool, merged: bool = True) -> dict[str, torch.Tensor]:
    model.zero_grad(set_to_none=True)
    dtype = next(model.parameters()).dtype
    inputs = tuple(x.to(dtype) if x.is_floating_point() else x for x in inputs)
    logits = model.forward_merged(*inputs, compiled=compiled) if merged else model(*inputs, compiled=compiled)
    loss = nn.functional.binary_cross_entropy_with_logits(logits, labels.to(dtype))
    loss.backward()
    found = {"loss": loss.detach().double()}
    found.update({name: p.grad.detach().double().clone() for name, p in model.named_parameters() if p.grad is not None})
    return found


def yardstick_failures(model, batches: list[tuple], *, merged: bool = True) -> list[str]:
    """Where the compiled step leaves the float32 yardstick on ``batches`` [(inputs, labels)] (empty: nowhere)."""
    squares: dict[str, np.ndarray] = {}
    for inputs, labels in batches:
        reference = loss_and_gradients(model, inputs, labels, compiled=False, merged=merged)
        exact = loss_and_gradients(copy.deepcopy(model).double(), inputs, labels, compiled=False, merged=merged)
        compiled = loss_and_gradients(model, inputs, labels, compiled=True, merged=merged)
        assert set(compiled) == set(reference) == set(exact)
        for name in reference:
            found = [float(torch.linalg.vector_norm(x)) ** 2 for x in
                     (compiled[name] - reference[name], reference[name] - exact[name], EPS32 * exact[name])]
            squares[name] = squares.get(name, np.zeros(3)) + found
    failures = []
    for name, (apart, yardstick, unit) in squares.items():
        if not apart <= FACTOR ** 2 * max(yardstick, unit):
            failures.append(f"{name}: |compiled - reference| {apart ** 0.5:.3e} > {FACTOR} x {max(yardstick, unit) ** 0.5:.3e}")
    return failures


def zipf_batches(vocabulary: int, *, seed: int, positions: int = 128) -> list[tuple]:
    return [(merged_inputs(ids), labels) for ids, labels in
            (zipf_batch(vocabulary, seed=[seed, b], positions=positions) for b in range(BATCHES))]


# d = 16 in the full suite only: d = 2 and the sabotaged kernels keep a broken kernel failing the fast lane.
@pytest.mark.parametrize("d", [2, pytest.param(16, marks=pytest.mark.slow)])
def test_compiled_step_matches_the_reference_at_initial_weights(d):
    model = build_model(3000, TrainingSettings(d=d, layers=8, merged_tokens=True, seed=d))
    assert yardstick_failures(model, zipf_batches(3000, seed=d)) == []


def _trained(run: str):
    checkpoint = read_checkpoint(REPO / "models" / "reproduction" / run)
    settings = TrainingSettings.from_record(checkpoint.meta["settings"])
    assert settings.merged_tokens and settings.layers == 8 and settings.beta == 1000.0
    return model_from_weights(checkpoint.weights, settings), checkpoint.weights.embedding.shape[0]


@pytest.mark.parametrize("run", ["d2-K8-s0", pytest.param("d16-K8-s0", marks=pytest.mark.slow)])
def test_compiled_step_matches_the_reference_at_trained_weights(run):
    model, vocabulary = _trained(run)
    assert yardstick_failures(model, zipf_batches(vocabulary, seed=0)) == []


def test_compiled_step_over_all_positions_one_layer_and_a_fixed_alpha():
    """The kernel without merged tokens (every position weighted 1), K = 1, and alpha not trained."""
    for settings in (TrainingSettings(d=4, layers=1, seed=1), TrainingSettings(d=3, layers=8, train_alpha=False, seed=2)):
        model = build_model(500, settings)
        batches = [((torch.from_numpy(ids),), labels) for ids, labels in
                   (zipf_batch(500, seed=[3, b], positions=40) for b in range(BATCHES))]
        assert yardstick_failures(model, batches, merged=False) == []
        gradients = loss_and_gradients(model, *batches[0], compiled=True, merged=False)
        assert ("alpha_raw" in gradients) == settings.train_alpha


def _without_log_counts(stack):
    """The kernel with the log-multiplicity term dropped (unused slots still masked): a wrong function."""
    return lambda z0, log_counts, alpha, **options: stack(
        z0, torch.where(torch.isinf(log_counts), log_counts, torch.zeros_like(log_counts)), alpha, **options)


def _without_alpha_gradient(backward):
    return lambda grad_out, saved, **options: (backward(grad_out, saved, **options)[0], 0.0)


@pytest.mark.parametrize("sabotage, where", [
    (lambda monkeypatch: monkeypatch.setattr(attention_kernel, "attention_stack",
                                             _without_log_counts(attention_kernel.attention_stack)), "embedding.weight"),
    (lambda monkeypatch: monkeypatch.setattr(attention_kernel, "attention_backward",
                                             _without_alpha_gradient(attention_kernel.attention_backward)), "alpha_raw"),
])
def test_the_yardstick_catches_a_wrong_kernel(monkeypatch, sabotage, where):
    model, vocabulary = _trained("d2-K8-s0")
    sabotage(monkeypatch)  # the same model and batches pass unsabotaged (test_..._at_trained_weights)
    failures = yardstick_failures(model, zipf_batches(vocabulary, seed=0))
    assert any(failure.startswith(where) for failure in failures), failures




# What the old code wrote per epoch: neither the step nor the code commit nor the CPU time.
NOT_RECORDED_BEFORE = ("step", "code", "cpu_seconds")


def _as_written_before_steps_were_recorded(checkpoint_dir: Path) -> None:
    path = checkpoint_dir / "checkpoint.json"
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta["history"] = [{k: v for k, v in entry.items() if k not in NOT_RECORDED_BEFORE} for entry in meta["history"]]
    for key in ("training_step", "step_implementations", "code_commits", "training_wall_seconds", "training_cpu_seconds",
                "training_cpu_seconds_epochs"):
        meta.pop(key)
    path.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


@pytest.mark.slow  # trains four small models on a fixture
def test_a_run_of_the_reference_step_resumes_with_the_compiled_step_and_records_both(tmp_path):
    data, cache = tmp_path / "tiny.csv.gz", tmp_path / "cache"
    write_fixture_csv(data)
    code = _code_version()
    mixed = [{"step": "reference", "epochs": [1, 1]}, {"step": "compiled", "epochs": [2, 2]}]
    # "recorded": the reference epoch says so; "older": written by code that recorded no step (the reference then).
    for name in ("recorded", "older"):
        assert _train(data, tmp_path / name, cache, 1, extra=("--step", "reference")) == 0
        if name == "older":
            _as_written_before_steps_were_recorded(tmp_path / name)
        assert _train(data, tmp_path / name, cache, 2) == 0  # the default step: compiled
        checkpoint = read_checkpoint(tmp_path / name, with_optimizer=True)
        meta, history = checkpoint.meta, checkpoint.meta["history"]
        assert meta["training_step"] == "mixed" and meta["step_implementations"] == mixed
        assert history[1]["step"] == "compiled" and history[1]["code"] == code and history[1]["cpu_seconds"] > 0
        assert meta["training_wall_seconds"] == round(history[0]["seconds"] + history[1]["seconds"], 1)
        if name == "recorded":
            assert history[0]["step"] == "reference"
            assert meta["code_commits"] == [{"code": code, "epochs": [1, 2]}]
            assert meta["training_cpu_seconds_epochs"] == 2
            assert meta["training_cpu_seconds"] == round(history[0]["cpu_seconds"] + history[1]["cpu_seconds"], 1)
        else:
            assert "step" not in history[0]
            assert meta["code_commits"] == [{"code": "not recorded", "epochs": [1, 1]}, {"code": code, "epochs": [2, 2]}]
            assert meta["training_cpu_seconds_epochs"] == 1
            assert meta["training_cpu_seconds"] == round(history[1]["cpu_seconds"], 1)
        # Adam's state carried over: 189 training reviews in batches of 32 are 6 steps an epoch.
        assert {k: v.shape for k, v in checkpoint.optimizer.items() if k.startswith("embedding")} == {
            "embedding.weight.step": (), "embedding.weight.exp_avg": checkpoint.weights.embedding.shape,
            "embedding.weight.exp_avg_sq": checkpoint.weights.embedding.shape}
        assert all(float(v) == 12 for k, v in checkpoint.optimizer.items() if k.endswith(".step"))
    # The same function: the mixed run ends next to a run of the reference step alone (rounding apart).
    assert _train(data, tmp_path / "reference", cache, 2, extra=("--step", "reference")) == 0
    reference = read_checkpoint(tmp_path / "reference")
    assert reference.meta["training_step"] == "reference"
    for name, array in read_checkpoint(tmp_path / "recorded").weights.to_arrays().items():
        assert np.allclose(array, reference.weights.to_arrays()[name], rtol=1e-3, atol=1e-4), name
    # And back: fused Adam's saved state resumes under the reference step.
    assert _train(data, tmp_path / "recorded", cache, 3, extra=("--step", "reference")) == 0
    checkpoint = read_checkpoint(tmp_path / "recorded", with_optimizer=True)
    assert checkpoint.meta["step_implementations"] == mixed + [{"step": "reference", "epochs": [3, 3]}]
    assert all(float(v) == 18 for k, v in checkpoint.optimizer.items() if k.endswith(".step"))


@pytest.mark.slow  # trains and evaluates a small model on a fixture, twice
def test_the_protocol_record_and_status_say_which_step_trained_which_epochs(tmp_path, capsys):
    data, runs, cache = tmp_path / "tiny.csv.gz", tmp_path / "runs", tmp_path / "cache"
    write_fixture_csv(data)
    assert main(["sentiment", "protocol", "run", "--protocol", str(_protocol(tmp_path, epochs=1)), "--runs-dir",
                 str(runs), "--data", str(data), "--cache-dir", str(cache), "--only", "d2-K1-s0",
                 "--step", "reference"]) == 0
    (runs / "d2-K1-s0" / "evaluation.json").unlink()  # as if stopped before its evaluation
    capsys.readouterr()
    assert main(["sentiment", "protocol", "status", "--protocol", str(_protocol(tmp_path)), "--runs-dir", str(runs)]) == 0
    assert "1 epochs, validation" in capsys.readouterr().out and "reference step" in \
        (runs / "protocol.log").read_text(encoding="utf-8")
    assert run_queue(load_protocol(_protocol(tmp_path)), runs, data=data, cache_dir=cache,
                     only=("d2-K1-s0",)) == ["d2-K1-s0"]  # the default step: compiled
    record = json.loads((runs / "d2-K1-s0" / "evaluation.json").read_text(encoding="utf-8"))
    history = json.loads((runs / "d2-K1-s0" / "checkpoint" / "checkpoint.json").read_text(encoding="utf-8"))["history"]
    assert record["training_step"] == "mixed"
    assert record["step_implementations"] == [{"step": "reference", "epochs": [1, 1]}, {"step": "compiled", "epochs": [2, 2]}]
    assert record["code_commits"] == [{"code": _code_version(), "epochs": [1, 2]}]
    # Summed over both stretches of training, not only the last one.
    assert record["training_wall_seconds"] == round(sum(entry["seconds"] for entry in history), 1)
    assert record["training_cpu_seconds"] == round(sum(entry["cpu_seconds"] for entry in history), 1)
    # On a fast machine the tiny fixture evaluates in under 0.05 s, which rounds to 0.0.
    assert record["training_cpu_seconds_epochs"] == 2 and isinstance(record["wall_seconds"], float) \
        and record["wall_seconds"] >= 0
    log = (runs / "protocol.log").read_text(encoding="utf-8")
    assert "(trained epoch 1 by the reference step), continuing with the compiled step" in log
    capsys.readouterr()
    assert main(["sentiment", "protocol", "status", "--protocol", str(_protocol(tmp_path)), "--runs-dir", str(runs),
                 "--json", "-"]) == 0
    captured = capsys.readouterr()
    status = {r["run"]: r for r in json.loads(captured.out)}
    assert status["d2-K1-s0"]["training_step"] == "mixed"
    assert status["d2-K1-s0"]["step_implementations"] == record["step_implementations"]
    capsys.readouterr()
    assert main(["sentiment", "protocol", "status", "--protocol", str(_protocol(tmp_path)), "--runs-dir", str(runs)]) == 0
    assert "mixed steps: reference 1-1, compiled 2-2" in capsys.readouterr().out
