"""verify.experiments.sentiment.model: merged-token attention is the same function; batches; fixed alpha; K = 0."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from verify.core.numbers import InputError  # noqa: E402
from verify.experiments.sentiment.model import (TrainingSettings, build_model, epoch_batches, merge_tokens,  # noqa: E402
                                    running_train, selection_accuracy, softmax_scores, train, train_subset_rows,
                                    training_record)


def test_merge_tokens_known_answer():
    tokens, counts, distinct = merge_tokens(np.array([[5, 3, 5, 0, 0, 0], [1, 2, 3, 4, 5, 6]]))
    assert distinct.tolist() == [3, 6]
    assert tokens[0].tolist() == [0, 3, 5, 0, 0, 0] and counts[0].tolist() == [3, 1, 2, 0, 0, 0]
    assert tokens[1].tolist() == [1, 2, 3, 4, 5, 6] and counts[1].tolist() == [1] * 6
    assert counts.sum(axis=1).tolist() == [6, 6]  # every position counted once


@pytest.mark.parametrize("d, beta", [(2, 1000.0), (4, 1000.0), (3, 1.0)])
def test_attention_over_distinct_tokens_is_the_same_function(d, beta):
    """softmax over positions = softmax over distinct tokens + log multiplicity (the values and the gradients)."""
    rng = np.random.default_rng(d)
    settings = TrainingSettings(d=d, beta=beta, layers=8)
    model = build_model(50, settings)
    with torch.no_grad():
        model.embedding.weight.mul_(0.3)
    # Short reviews padded with 0 and repeated words: many duplicates.
    ids = rng.integers(1, 50, size=(12, 32))
    ids[:, 20:] = 0
    ids[:, 5] = ids[:, 6]
    plain = model(torch.from_numpy(ids))
    tokens, counts, distinct = merge_tokens(ids)
    width = int(distinct.max())
    merged = model.forward_merged(torch.from_numpy(tokens[:, :width]), torch.from_numpy(counts[:, :width]))
    assert torch.allclose(plain, merged, rtol=1e-4, atol=1e-5)
    grads = []
    for logits in (plain, merged):
        model.zero_grad()
        logits.sum().backward(retain_graph=True)
        grads.append([p.grad.clone() for p in model.parameters()])
    for a, b in zip(*grads):
        assert torch.allclose(a, b, rtol=1e-3, atol=1e-5)
    scores = softmax_scores(model, ids, merged=True)
    assert np.allclose(scores, plain.detach().double().numpy(), rtol=1e-4, atol=1e-5)


def test_epoch_batches_cover_every_row_once_are_seeded_and_bucketed():
    distinct = np.random.default_rng(0).integers(1, 128, size=1000)
    plain = epoch_batches(1000, seed=3, epoch=2, batch_size=64)
    assert [len(b) for b in plain][:-1] == [64] * 15
    assert np.array_equal(np.concatenate(plain), np.random.default_rng([3, 2]).permutation(1000))
    bucketed = epoch_batches(1000, seed=3, epoch=2, batch_size=64, bucket_batches=4, distinct=distinct)
    again = epoch_batches(1000, seed=3, epoch=2, batch_size=64, bucket_batches=4, distinct=distinct)
    assert all(np.array_equal(a, b) for a, b in zip(bucketed, again))
    assert sorted(np.concatenate(bucketed).tolist()) == list(range(1000))
    # Bucketing makes batches narrower: the mean over batches of the widest review drops.
    width = lambda batches: np.mean([distinct[b].max() for b in batches])  # noqa: E731
    assert width(bucketed) < 0.9 * width(plain)
    assert not np.array_equal(np.concatenate(bucketed), np.concatenate(plain))


def test_settings_refuse_dropout_with_merged_tokens_and_negative_layers():
    with pytest.raises(InputError, match="embedding_dropout"):
        TrainingSettings(merged_tokens=True, embedding_dropout=0.2)
    with pytest.raises(InputError, match="layers"):
        TrainingSettings(layers=-1)
    assert TrainingSettings(layers=0).layers == 0


def test_settings_refuse_seeds_and_initial_alphas_torch_cannot_take():
    for bad in ({"seed": 2 ** 64}, {"seed": -1}, {"alpha_init": 710.0}, {"alpha_init": float("inf")}):
        with pytest.raises(InputError, match=next(iter(bad))):
            TrainingSettings(**bad)
        with pytest.raises(InputError, match=f"where.{next(iter(bad))}"):
            TrainingSettings.from_record(bad, where="where")
    assert TrainingSettings(seed=2 ** 64 - 1, alpha_init=709.0).seed == 2 ** 64 - 1


def test_settings_from_record_fill_defaults_and_refuse_unknown_or_mistyped_fields():
    assert TrainingSettings.from_record({"d": 4}) == TrainingSettings(d=4)
    with pytest.raises(InputError, match="unknown setting heads$"):
        TrainingSettings.from_record({"d": 4, "heads": 2})
    with pytest.raises(InputError, match="unknown settings heads, width$"):
        TrainingSettings.from_record({"d": 4, "heads": 2, "width": 3})
    with pytest.raises(InputError, match="settings.layers"):
        TrainingSettings.from_record({"layers": "8"})
    with pytest.raises(InputError, match="expected an object"):
        TrainingSettings.from_record([1, 2])


def test_fixed_alpha_is_not_a_trained_parameter():
    model = build_model(10, TrainingSettings(train_alpha=False, alpha_init=2.35))
    assert not model.alpha_raw.requires_grad
    assert float(model.alpha()) == pytest.approx(2.35, rel=1e-6)


def test_train_subset_is_fixed_by_the_seed_and_drawn_apart_from_the_epoch_streams():
    rows = train_subset_rows(1000, 90, seed=4)
    assert len(rows) == 90 and len(set(rows.tolist())) == 90
    assert rows.tolist() == sorted(rows.tolist()) and 0 <= rows.min() and rows.max() < 1000
    assert np.array_equal(rows, train_subset_rows(1000, 90, seed=4))  # every epoch, and a resumed run
    assert not np.array_equal(rows, train_subset_rows(1000, 90, seed=5))
    # Not the first reviews of an epoch's shuffle (the stream [seed, epoch]) for any early epoch.
    for epoch in range(5):
        assert set(rows.tolist()) != set(np.random.default_rng([4, epoch]).permutation(1000)[:90].tolist())
    assert train_subset_rows(50, 90, seed=4).tolist() == list(range(50))  # smaller training set: all of it
    assert train_subset_rows(50, 0, seed=4).size == 0  # no validation set: no subset


def test_running_train_numbers_are_read_under_both_names_and_select_without_validation():
    assert running_train({"train_running_loss": 0.25}, "loss") == 0.25
    assert running_train({"train_loss": 0.5, "train_acc": 0.75}, "acc") == 0.75  # an older checkpoint's name
    assert running_train({"train_subset_loss": 0.1}, "loss") is None  # the subset is not the running mean
    assert selection_accuracy({"val_acc": 0.6, "train_running_acc": 0.9}) == 0.6
    assert selection_accuracy({"train_running_acc": 0.9, "train_subset_acc": 0.8}) == 0.9
    with pytest.raises(InputError, match="history"):
        selection_accuracy({"epoch": 3})


def test_training_record_names_each_stretch_of_epochs_and_sums_every_one():
    """Epochs 1-2 written before step, code and CPU time were recorded (the reference step then), 3-4 by the compiled step."""
    history = [{"epoch": 1, "seconds": 10.0}, {"epoch": 2, "seconds": 11.0},
               {"epoch": 3, "seconds": 5.0, "cpu_seconds": 4.5, "step": "compiled", "code": "abc"},
               {"epoch": 4, "seconds": 5.5, "cpu_seconds": 5.0, "step": "compiled", "code": "abc+dirty"}]
    assert training_record(history) == {
        "training_step": "mixed",
        "step_implementations": [{"step": "reference", "epochs": [1, 2]}, {"step": "compiled", "epochs": [3, 4]}],
        "code_commits": [{"code": "not recorded", "epochs": [1, 2]}, {"code": "abc", "epochs": [3, 3]},
                         {"code": "abc+dirty", "epochs": [4, 4]}],
        "training_wall_seconds": 31.5, "training_cpu_seconds": 9.5, "training_cpu_seconds_epochs": 2}
    assert training_record(history[2:])["training_step"] == "compiled"
    assert training_record(history[:2])["step_implementations"] == [{"step": "reference", "epochs": [1, 2]}]
    assert training_record([])["training_step"] is None


def test_an_unknown_step_is_refused_before_anything_is_read(tmp_path):
    with pytest.raises(InputError, match="step"):
        train(None, None, settings=TrainingSettings(), out_dir=tmp_path, epochs=1, step="fast")  # type: ignore[arg-type]
    assert not any(tmp_path.iterdir())
