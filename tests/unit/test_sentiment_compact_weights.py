"""The published form of a checkpoint's selected weights (best.from-init.xz): exact, smaller, and refused when wrong."""

from __future__ import annotations

import json
import lzma
from dataclasses import asdict

import numpy as np
import pytest
from safetensors.numpy import save

from verify.core.numbers import InputError
from verify.experiments.imdb.preprocess import PAD, Vocabulary
from verify.experiments.sentiment.checkpoints import (COMPACT_BEST, ModelWeights, compact_best_weights,
                                                      expand_best_weights, read_checkpoint, write_checkpoint)
from verify.experiments.sentiment.network import TrainingSettings, build_model, initial_embedding

ROWS = 3_000
SETTINGS = TrainingSettings(d=4, layers=2, seed=7)
META = {"settings": asdict(SETTINGS), "epochs_completed": 1, "history": []}


def _trained() -> ModelWeights:
    """Weights as training leaves them: a third of the rows untouched, the rest moved a little."""
    embedding = initial_embedding(ROWS, SETTINGS)
    moved = np.random.default_rng(1).random(ROWS) < 2 / 3
    embedding[moved] += np.random.default_rng(2).normal(0, 0.05, (moved.sum(), 4)).astype(np.float32)
    one = np.float32(1.0).reshape(())
    return ModelWeights(embedding, one, np.float32(1.3133).reshape(()), np.arange(4, dtype=np.float32), one)


def _best_bytes() -> bytes:
    return save(_trained().to_arrays())


def test_the_initial_embedding_is_the_one_the_model_starts_from_and_leaves_torchs_generator_alone():
    import torch
    torch.manual_seed(123)
    before = torch.rand(3)
    torch.manual_seed(123)
    embedding = initial_embedding(ROWS, SETTINGS)
    assert torch.equal(torch.rand(3), before)  # the caller's random stream goes on as if nothing happened
    assert np.array_equal(embedding, build_model(ROWS, SETTINGS).embedding.weight.detach().numpy())
    assert not np.array_equal(embedding, initial_embedding(ROWS, TrainingSettings(d=4, layers=2, seed=8)))


def test_the_compact_form_gives_back_the_same_bytes_and_is_smaller(tmp_path):
    data = _best_bytes()
    compact = compact_best_weights(data, META)
    (tmp_path / COMPACT_BEST).write_bytes(compact)
    assert expand_best_weights(tmp_path / COMPACT_BEST, META) == data
    assert len(compact) < 0.8 * len(data)
    # Plain xz of the same file gains much less: the saving comes from the seeded initial values.
    assert len(compact) < 0.9 * len(lzma.compress(data, preset=9))


def test_a_published_folder_in_the_compact_form_reads_as_the_selected_weights(tmp_path):
    folder = tmp_path / "ck"
    trained = _trained()
    write_checkpoint(folder, meta=META, weights=trained, best=trained, optimizer=None,
                     vocabulary=Vocabulary((PAD,) + tuple(f"w{i}" for i in range(1, ROWS))))
    best = folder / "best.safetensors"
    (folder / COMPACT_BEST).write_bytes(compact_best_weights(best.read_bytes(), META))
    for name in ("best.safetensors", "weights.safetensors"):
        (folder / name).unlink()
    checkpoint = read_checkpoint(folder)
    assert checkpoint.selected_only
    for name, array in trained.to_arrays().items():
        assert np.array_equal(checkpoint.best.to_arrays()[name], array), name


def _wrapped(header: dict, body: bytes) -> bytes:
    return lzma.compress(b"hardmax-verify/weights-from-init/1\n" + json.dumps(header).encode() + b"\n" + body)


def _header_of(compact: bytes) -> tuple[dict, bytes]:
    raw = lzma.decompress(compact)
    line, body = raw.split(b"\n", 2)[1:]
    return json.loads(line), body


@pytest.mark.parametrize("damage, expected", [
    (lambda c: b"not xz at all", "not an xz file"),
    (lambda c: c[: len(c) // 2], "more than"),  # cut short: the stream never ends
    (lambda c: c + b"\x00extra", "trailing data"),
    (lambda c: lzma.compress(b"another format\n{}\n"), "does not start with"),
    (lambda c: _wrapped({"sha256": 5}, _header_of(c)[1]), "header is not the expected JSON"),
    (lambda c: _wrapped({**_header_of(c)[0], "rows": ROWS + 1}, _header_of(c)[1]), "does not fit"),
    (lambda c: _wrapped({**_header_of(c)[0], "d": 2}, _header_of(c)[1]), "does not fit"),
    (lambda c: _wrapped(_header_of(c)[0], _header_of(c)[1][:-1] + b"\x01"), "does not give back"),
])
def test_a_damaged_compact_file_is_an_input_error_naming_it(tmp_path, damage, expected):
    path = tmp_path / COMPACT_BEST
    path.write_bytes(damage(compact_best_weights(_best_bytes(), META)))
    with pytest.raises(InputError, match=expected) as caught:
        expand_best_weights(path, META)
    assert str(path) in str(caught.value)


def test_another_initial_embedding_is_caught_by_the_recorded_sha256(tmp_path):
    # What another torch version's generator would do: the same settings give other initial values.
    path = tmp_path / COMPACT_BEST
    path.write_bytes(compact_best_weights(_best_bytes(), META))
    other_seed = {**META, "settings": asdict(TrainingSettings(d=4, layers=2, seed=8))}
    with pytest.raises(InputError, match="does not give back the weights whose sha256 it records.*torch"):
        expand_best_weights(path, other_seed)


def test_an_xz_bomb_is_refused_without_expanding_it(tmp_path, monkeypatch):
    import verify.experiments.sentiment.checkpoints as checkpoints
    monkeypatch.setattr(checkpoints, "MAX_WEIGHTS_BYTES", 1 << 20)
    path = tmp_path / COMPACT_BEST
    path.write_bytes(lzma.compress(b"\x00" * (8 << 20)))
    with pytest.raises(InputError, match="more than"):
        expand_best_weights(path, META)


def test_weights_without_a_float32_embedding_cannot_be_compacted():
    with pytest.raises(InputError, match="float32 embedding"):
        compact_best_weights(save({"embedding": np.zeros((3, 4), np.float64)}), META)
    with pytest.raises(InputError, match="not rows of d = 4"):
        compact_best_weights(save({"embedding": np.zeros((3, 3), np.float32)}), META)
