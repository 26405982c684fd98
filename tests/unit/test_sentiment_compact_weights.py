"""The published form of a checkpoint's selected weights (best.from-init.xz): exact, smaller, and refused when wrong."""

from __future__ import annotations

import hashlib
import json
import lzma
from dataclasses import asdict

import numpy as np
import pytest
from safetensors.numpy import save

from verify.core.numbers import InputError
from verify.experiments.imdb.preprocess import PAD, Vocabulary
from verify.experiments.sentiment.checkpoints import (COMPACT_BEST, ModelWeights, compact_best_weights, compact_header,
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
    (lambda c: c[: len(c) // 2], "cut short"),
    (lambda c: c + b"\x00extra", "trailing data"),
    (lambda c: c + lzma.compress(b"more"), "trailing data"),
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
    with pytest.raises(InputError, match=r"float32 \(rows, d\) embedding"):
        compact_best_weights(save({"embedding": np.zeros((3, 4), np.float64)}), META)
    with pytest.raises(InputError, match="not rows of d = 4"):
        compact_best_weights(save({"embedding": np.zeros((3, 3), np.float32)}), META)


def test_the_compact_form_is_the_same_bytes_every_time():
    data = _best_bytes()
    assert compact_best_weights(data, META) == compact_best_weights(data, META)


def _published(folder, settings: dict | None = None, compact: bytes | None = None, rows: int = ROWS):
    """A published folder (checkpoint.json, vocabulary, best.from-init.xz), its parts replaceable."""
    trained = _trained()
    write_checkpoint(folder, meta=META, weights=trained, best=trained, optimizer=None,
                     vocabulary=Vocabulary((PAD,) + tuple(f"w{i}" for i in range(1, rows))))
    best = folder / "best.safetensors"
    (folder / COMPACT_BEST).write_bytes(compact if compact is not None else compact_best_weights(best.read_bytes(), META))
    for name in ("best.safetensors", "weights.safetensors"):
        (folder / name).unlink()
    if settings is not None:
        meta = json.loads((folder / "checkpoint.json").read_text(encoding="utf-8"))
        meta["settings"] = {**meta["settings"], **settings}
        (folder / "checkpoint.json").write_text(json.dumps(meta), encoding="utf-8")


def _rewrapped(**changes) -> bytes:
    """The compact form of the test's weights with header fields changed (the body kept)."""
    header, body = _header_of(compact_best_weights(_best_bytes(), META))
    return _wrapped({**header, **changes}, body)


@pytest.mark.parametrize("settings, compact, named", [
    # checkpoint.json's settings, which regenerate the initial embedding
    ({"d": "x"}, None, "checkpoint.json: settings.d"),
    ({"d": 1e400}, None, "checkpoint.json: not valid JSON (Infinity"),  # refused as a file
    ({"seed": 2 ** 80}, None, "checkpoint.json: settings.seed"),
    ({"alpha_init": 1000.0}, None, "checkpoint.json: settings.alpha_init"),
    ({"alpha_init": 1e400}, None, "checkpoint.json: not valid JSON (Infinity"),
    # the compact file's own header
    (None, lambda: _rewrapped(rows=1e400), COMPACT_BEST),
    (None, lambda: _rewrapped(d=True), COMPACT_BEST),
    (None, lambda: _rewrapped(embedding=[0, 4 * ROWS * 4]), COMPACT_BEST),  # over the safetensors header
    (None, lambda: _rewrapped(embedding=str(4 * ROWS * 4)), COMPACT_BEST),
])
def test_a_crafted_published_folder_is_an_input_error_naming_the_file(tmp_path, settings, compact, named):
    _published(tmp_path / "ck", settings, compact() if compact else None)
    with pytest.raises(InputError) as caught:
        read_checkpoint(tmp_path / "ck")
    assert str(tmp_path / "ck" / named) in str(caught.value)


def test_an_empty_embedding_cannot_make_the_reader_build_a_huge_model(tmp_path):
    # 0 rows fit any d (0 bytes of embedding): the initial model of d = 10^12 would need 4 TB.
    huge = 10 ** 12
    empty = save({**_trained().to_arrays(), "embedding": np.zeros((0, huge), np.float32)})
    start = 8 + int.from_bytes(empty[:8], "little") + json.loads(empty[8:8 + int.from_bytes(empty[:8], "little")])[
        "embedding"]["data_offsets"][0]
    header = {"sha256": hashlib.sha256(empty).hexdigest(), "bytes": len(empty), "embedding": [start, start],
              "rows": 0, "d": huge, "torch": "any"}
    _published(tmp_path / "ck", {"d": huge}, _wrapped(header, empty))
    with pytest.raises(InputError) as caught:
        read_checkpoint(tmp_path / "ck")
    assert str(tmp_path / "ck" / COMPACT_BEST) in str(caught.value)


@pytest.mark.parametrize("changes", [{"bytes": "1"}, {"rows": 1e400}, {"d": None}, {"embedding": [1]},
                                     {"sha256": "0" * 63}, {"torch": 2}, {"bytes": -1}])
def test_the_header_alone_is_checked_for_its_types(tmp_path, changes):
    path = tmp_path / COMPACT_BEST
    path.write_bytes(_rewrapped())
    header = compact_header(path)
    assert {key: type(header[key]) for key in ("bytes", "rows", "d")} == {"bytes": int, "rows": int, "d": int}
    path.write_bytes(_rewrapped(**changes))
    with pytest.raises(InputError, match="header") as caught:
        compact_header(path)
    assert str(path) in str(caught.value)
    path.write_bytes(_wrapped({key: value for key, value in header.items() if key != "bytes"}, b""))
    with pytest.raises(InputError, match="header"):
        compact_header(path)


def test_both_forms_in_one_folder_are_read_only_when_they_hold_the_same_weights(tmp_path):
    folder = tmp_path / "ck"
    _published(folder)
    # The plain form beside the compact one: read (without torch) as long as it is the same file.
    (folder / "best.safetensors").write_bytes(_best_bytes())
    assert np.array_equal(read_checkpoint(folder).best.embedding, _trained().embedding)
    # Other weights in the plain form (left from an earlier publication): neither form is chosen.
    stale = _trained().to_arrays()
    stale["embedding"] = stale["embedding"] + np.float32(1)
    (folder / "best.safetensors").write_bytes(save(stale))
    with pytest.raises(InputError, match="differs from the weights") as caught:
        read_checkpoint(folder)
    assert str(folder / "best.safetensors") in str(caught.value)


def _declaring_a_huge_dictionary(stream: bytes) -> bytes:
    """An xz stream whose LZMA2 filter claims a 4 GiB dictionary (its block header's CRC32 made right again)."""
    import struct
    import zlib
    size = (stream[12] + 1) * 4
    header = bytearray(stream[12:12 + size])
    assert header[1] == 0 and header[2:4] == b"\x21\x01"  # no size fields; filter LZMA2 with one property byte
    header[4] = 40  # the dictionary size code of 4 GiB - 1
    header[-4:] = struct.pack("<I", zlib.crc32(bytes(header[:-4])))
    return stream[:12] + bytes(header) + stream[12 + size:]


def test_an_xz_stream_declaring_a_huge_dictionary_is_refused_not_allocated(tmp_path):
    data = _best_bytes()
    honest = lzma.compress(lzma.decompress(compact_best_weights(data, META)), format=lzma.FORMAT_XZ,
                           filters=[{"id": lzma.FILTER_LZMA2, "dict_size": 1 << 20}])
    path = tmp_path / COMPACT_BEST
    path.write_bytes(honest)
    assert expand_best_weights(path, META) == data  # the same content with a small dictionary reads
    path.write_bytes(_declaring_a_huge_dictionary(honest))
    with pytest.raises(InputError, match="Memory usage limit") as caught:
        expand_best_weights(path, META)
    assert str(path) in str(caught.value)
