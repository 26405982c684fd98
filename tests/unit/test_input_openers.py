"""The experiments read a user's files as verify.core.io reads them: regular files only, never waited on.

A FIFO put in a file's place after a look said "regular file" (or from the start, where nothing
looked) would block a plain ``open`` for ever. Every reader below is run in a thread with a
timeout: it must refuse the FIFO with an InputError naming the file (exit status 2), or, for a
cache, rebuild instead. ``os.stat`` is made to answer for the FIFO what it answered for the
regular file it replaced, so that a check before the open (``is_file``, ``exists``) passes, as it
would when the file is swapped between the check and the open.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import tarfile
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from tests.common.blocking import within_seconds

from verify.core.io import sha256_file
from verify.core.numbers import InputError
from verify.experiments.classify import dataset as dataset_module
from verify.experiments.classify.dataset import load_dataset
from verify.experiments.classify.imdb import load_embedding
from verify.experiments.imdb import data as data_module
from verify.experiments.imdb.corpus import load_corpus, read_vocabulary, write_vocabulary
from verify.experiments.imdb.data import load_reviews
from verify.experiments.imdb.preprocess import PAD, PreprocessOptions, Vocabulary
from verify.experiments.sentiment import protocol as protocol_module
from verify.experiments.sentiment.analyze import authors_configurations
from verify.experiments.sentiment.checkpoints import (COMPACT_BEST, ModelWeights, compact_header, expand_best_weights,
                                                     read_checkpoint, write_checkpoint)
from verify.experiments.sentiment.protocol import load_protocol

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")

CSV = ("review,sentiment,split\nfine film,positive,train\nbad film,negative,train\nfine,positive,train\n"
       "bad,negative,test\nfilm fine,positive,test\nbad bad,negative,train\n")


def _fifo_in_place_of(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Replace the regular file ``path`` by a FIFO that os.stat (so exists, is_file) still sees as that file."""
    info = os.stat(path)
    path.unlink()
    os.mkfifo(path)
    real = os.stat

    def pretend(target: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        return info if os.fspath(target) == str(path) else real(target, *args, **kwargs)

    monkeypatch.setattr(os, "stat", pretend)


def _refused(call: Callable[[], Any], path: Path) -> InputError:
    error = within_seconds(call)
    assert isinstance(error, InputError), error
    assert str(path) in str(error) and "FIFO" in str(error), error
    return error


# --------------------------------------------------------------------------- sentiment checkpoints


def _checkpoint(folder: Path) -> Path:
    weights = ModelWeights(embedding=np.arange(8, dtype=np.float32).reshape(4, 2) / 10,
                           alpha_raw=np.float32(0.5).reshape(()), alpha=np.float32(0.974).reshape(()),
                           decoder_weight=np.array([1.0, -1.0], dtype=np.float32),
                           decoder_bias=np.float32(0.0).reshape(()))
    write_checkpoint(folder, meta={"settings": {"d": 2, "layers": 1}, "epochs_completed": 1, "history": []},
                     weights=weights, best=weights, optimizer=None, vocabulary=Vocabulary((PAD, "bad", "fine", "film")))
    return folder


@pytest.mark.parametrize("name", ["checkpoint.json", "weights.safetensors", "best.safetensors", "vocab.txt.gz"])
def test_a_checkpoint_file_swapped_for_a_fifo_is_refused_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    name: str) -> None:
    folder = _checkpoint(tmp_path / "ck")
    assert read_checkpoint(folder).meta["epochs_completed"] == 1  # readable before the swap
    _fifo_in_place_of(folder / name, monkeypatch)
    _refused(lambda: read_checkpoint(folder), folder / name)


def test_a_compact_weights_file_that_is_a_fifo_is_refused_naming_it(tmp_path: Path) -> None:
    fifo = tmp_path / COMPACT_BEST
    os.mkfifo(fifo)
    _refused(lambda: compact_header(fifo), fifo)
    _refused(lambda: expand_best_weights(fifo, {"settings": {"d": 2, "layers": 1}}), fifo)


def test_a_vocabulary_swapped_for_a_fifo_is_refused_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "vocab.txt.gz"
    write_vocabulary(path, Vocabulary((PAD, "fine")))
    assert read_vocabulary(path).words == (PAD, "fine")
    _fifo_in_place_of(path, monkeypatch)
    _refused(lambda: read_vocabulary(path), path)


# --------------------------------------------------------------------------- IMDb reviews


def _tar(path: Path) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in (("aclImdb/train/pos/0_9.txt", b"fine film"), ("aclImdb/test/neg/0_1.txt", b"bad film")):
            info = tarfile.TarInfo(name)
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text))


@pytest.mark.parametrize("name", ["reviews.csv", "reviews.csv.gz", "aclImdb_v1.tar.gz"])
def test_a_review_file_swapped_for_a_fifo_is_refused_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                name: str) -> None:
    path = tmp_path / name
    if name.endswith(".tar.gz"):
        _tar(path)
    else:
        path.write_bytes(gzip.compress(CSV.encode()) if name.endswith(".gz") else CSV.encode())
    assert len(load_reviews(path)) >= 2
    _fifo_in_place_of(path, monkeypatch)
    _refused(lambda: load_reviews(path), path)


def test_a_review_of_an_aclimdb_folder_swapped_for_a_fifo_is_refused_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for split, label, text in (("train", "pos", "fine film"), ("train", "neg", "bad film"), ("test", "pos", "fine")):
        (tmp_path / "aclImdb" / split / label).mkdir(parents=True, exist_ok=True)
        (tmp_path / "aclImdb" / split / label / "0_5.txt").write_text(text, encoding="utf-8")
    review = tmp_path / "aclImdb" / "train" / "neg" / "0_5.txt"
    assert len(load_reviews(tmp_path / "aclImdb")) == 3
    _fifo_in_place_of(review, monkeypatch)
    _refused(lambda: load_reviews(tmp_path / "aclImdb"), review)
    # The folder's digest (the corpus cache's key) reads every review file too.
    _refused(lambda: load_corpus(tmp_path / "aclImdb", options=PreprocessOptions(), cache_dir=None), review)


def test_a_file_to_hash_that_is_a_fifo_is_refused_naming_it(tmp_path: Path) -> None:
    fifo = tmp_path / "reviews.csv"
    os.mkfifo(fifo)
    _refused(lambda: sha256_file(fifo), fifo)


def test_an_uncompressed_review_file_is_bounded_like_a_compressed_one(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "reviews.csv"
    path.write_text(CSV, encoding="utf-8")
    assert len(load_reviews(path)) == 6
    monkeypatch.setattr(data_module, "MAX_DECOMPRESSED_BYTES", len(CSV) - 1)
    with pytest.raises(InputError, match="more than the limit of") as caught:
        load_reviews(path)
    assert caught.value.field == str(path)


def test_a_corpus_cache_swapped_for_a_fifo_is_rebuilt_not_waited_on(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    data, cache = tmp_path / "reviews.csv", tmp_path / "cache"
    data.write_text(CSV, encoding="utf-8")
    built = load_corpus(data, options=PreprocessOptions(), cache_dir=cache)
    (arrays,) = cache.glob("corpus-*.npz")
    _fifo_in_place_of(arrays, monkeypatch)
    rebuilt = within_seconds(lambda: load_corpus(data, options=PreprocessOptions(), cache_dir=cache))
    assert not isinstance(rebuilt, BaseException), rebuilt
    assert np.array_equal(rebuilt.ids, built.ids) and rebuilt.vocabulary == built.vocabulary
    monkeypatch.undo()
    assert arrays.is_file()  # the rebuilt cache replaced the FIFO


# --------------------------------------------------------------------------- sentiment protocol and arrays


def test_a_protocol_file_swapped_for_a_fifo_is_refused_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "protocol.toml"
    path.write_text("name = 1\n", encoding="utf-8")
    with pytest.raises(InputError, match="name"):  # read, then refused for its content
        load_protocol(path)
    _fifo_in_place_of(path, monkeypatch)
    _refused(lambda: load_protocol(path), path)


def test_a_finished_runs_file_that_is_a_fifo_is_refused_when_publishing(tmp_path: Path) -> None:
    source = tmp_path / "checkpoint"
    source.mkdir()
    os.mkfifo(source / "checkpoint.json")
    _refused(lambda: protocol_module._published_files("run", source, tmp_path / "models" / "run",
                                                      {"checkpoint_sha256": {}}), source / "checkpoint.json")


def test_the_authors_arrays_as_a_fifo_are_refused_naming_the_file(tmp_path: Path) -> None:
    fifo = tmp_path / "authors.npz"
    os.mkfifo(fifo)
    _refused(lambda: authors_configurations(fifo, samples=1, converge_layers=1, seed=0), fifo)
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(InputError, match="not an .npz file with arrays E, alpha, w and b") as caught:
        authors_configurations(garbage, samples=1, converge_layers=1, seed=0)
    assert caught.value.field == str(garbage)


def test_the_authors_saved_model_as_a_fifo_is_refused_naming_it(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from verify.experiments.sentiment.sources import convert_reference
    fifo = tmp_path / "model.pth"
    os.mkfifo(fifo)
    _refused(lambda: convert_reference(fifo, tmp_path / "arrays.npz"), fifo)
    assert not (tmp_path / "arrays.npz").exists()


# --------------------------------------------------------------------------- classify


def test_a_dataset_swapped_for_a_fifo_is_refused_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "data.json"
    path.write_text(json.dumps({"sequences": [[1, 2], [3]], "labels": [0, 1]}), encoding="utf-8")
    assert len(load_dataset(path)) == 2
    _fifo_in_place_of(path, monkeypatch)
    _refused(lambda: load_dataset(path), path)


def test_a_dataset_larger_than_its_limit_is_refused_before_it_is_parsed(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "data.json"
    text = json.dumps({"sequences": [[1, 2], [3]], "labels": [0, 1]})
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(dataset_module, "MAX_DATA_BYTES", len(text))
    assert len(load_dataset(path)) == 2  # at the limit: read
    monkeypatch.setattr(dataset_module, "MAX_DATA_BYTES", len(text) - 1)
    with pytest.raises(InputError, match=f"more than the {len(text) - 1:,} bytes") as caught:
        load_dataset(path)
    assert caught.value.field == str(path)
    # The limit is the independent checker's, so that a file one of them reads the other reads too.
    from verify.certcheck.classify import MAX_BYTES
    monkeypatch.undo()
    assert dataset_module.MAX_DATA_BYTES == MAX_BYTES


def test_an_embedding_swapped_for_a_fifo_is_refused_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "embedding.npz"
    with path.open("wb") as handle:
        np.savez(handle, E=np.arange(6, dtype=np.float32).reshape(3, 2))
    assert load_embedding(path).shape == (3, 2)
    _fifo_in_place_of(path, monkeypatch)
    _refused(lambda: load_embedding(path), path)
