"""verify.experiments.sentiment.checkpoints: safetensors + JSON round trip, and damaged folders named in the error."""

from __future__ import annotations

import json

import numpy as np
import pytest

from verify.core.numbers import InputError
from verify.experiments.sentiment.checkpoints import ModelWeights, read_checkpoint, write_checkpoint
from verify.experiments.imdb.preprocess import PAD, Vocabulary


def _weights(scale: float = 1.0) -> ModelWeights:
    rng = np.random.default_rng(0)
    return ModelWeights(embedding=(scale * rng.normal(size=(4, 2))).astype(np.float32),
                        alpha_raw=np.float32(0.5).reshape(()), alpha=np.float32(0.974).reshape(()),
                        decoder_weight=np.array([1.5, -2.0], dtype=np.float32),
                        decoder_bias=np.float32(-0.25).reshape(()))


def _write(path, **overrides):
    arguments = dict(meta={"epochs_completed": 3, "history": []}, weights=_weights(), best=_weights(2.0),
                     optimizer={"embedding.exp_avg": np.ones((4, 2), dtype=np.float32)},
                     vocabulary=Vocabulary((PAD, "a", "b", "c")))
    arguments.update(overrides)
    write_checkpoint(path, **arguments)


def test_round_trip_is_exact(tmp_path):
    _write(tmp_path / "ck")
    checkpoint = read_checkpoint(tmp_path / "ck", with_optimizer=True)
    for name, array in _weights().to_arrays().items():
        assert np.array_equal(checkpoint.weights.to_arrays()[name], array), name
    assert np.array_equal(checkpoint.best.embedding, _weights(2.0).embedding)
    assert checkpoint.optimizer["embedding.exp_avg"].shape == (4, 2)
    assert checkpoint.vocabulary.words == (PAD, "a", "b", "c")
    assert checkpoint.meta["epochs_completed"] == 3
    assert checkpoint.weights.alpha.shape == () and checkpoint.weights.d == 2


def test_rewriting_replaces_the_whole_folder(tmp_path):
    _write(tmp_path / "ck")
    _write(tmp_path / "ck", best=None, meta={"epochs_completed": 4})
    checkpoint = read_checkpoint(tmp_path / "ck")
    assert checkpoint.best is None and checkpoint.meta["epochs_completed"] == 4
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left behind


@pytest.mark.parametrize("damage, expected", [
    (lambda d: (d / "checkpoint.json").unlink(), "not a checkpoint folder"),
    (lambda d: (d / "checkpoint.json").write_text("{", encoding="utf-8"), "not valid JSON"),
    (lambda d: (d / "checkpoint.json").write_text(json.dumps({"format": "other"}), encoding="utf-8"),
     "unknown format"),
    (lambda d: (d / "weights.safetensors").write_bytes(b"garbage"), "not a readable safetensors"),
    (lambda d: [(d / n).unlink() for n in ("weights.safetensors", "best.safetensors")], "missing from the checkpoint"),
])
def test_damaged_checkpoint_is_an_input_error_naming_the_file(tmp_path, damage, expected):
    _write(tmp_path / "ck")
    damage(tmp_path / "ck")
    with pytest.raises(InputError, match=expected):
        read_checkpoint(tmp_path / "ck")


def test_vocabulary_must_match_the_embedding(tmp_path):
    _write(tmp_path / "ck", vocabulary=Vocabulary((PAD, "a")))
    with pytest.raises(InputError, match="2 words but the embedding has 4 rows"):
        read_checkpoint(tmp_path / "ck")


def test_nonpositive_alpha_is_refused(tmp_path):
    bad = ModelWeights(**{**_weights().__dict__, "alpha": np.float32(0.0).reshape(())})
    _write(tmp_path / "ck", weights=bad)
    with pytest.raises(InputError, match="alpha"):
        read_checkpoint(tmp_path / "ck")


def test_a_published_folder_with_only_the_selected_weights_reads_as_those(tmp_path):
    """models/ may hold only best.safetensors (a finished run): evaluation uses it, nothing pretends it is the last epoch."""
    _write(tmp_path / "ck")
    for name in ("weights.safetensors", "optimizer.safetensors"):
        (tmp_path / "ck" / name).unlink()
    checkpoint = read_checkpoint(tmp_path / "ck", with_optimizer=True)
    assert checkpoint.selected_only and checkpoint.optimizer is None
    assert np.array_equal(checkpoint.weights.embedding, _weights(2.0).embedding)
    assert checkpoint.best is checkpoint.weights
    assert not read_checkpoint(_write(tmp_path / "full") or tmp_path / "full").selected_only
