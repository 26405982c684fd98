"""Hostile sentiment inputs: each is refused in one line with exit status 2, within bounded memory.

Damaged or malicious checkpoint folders and data files; none may end in a traceback (exit 1
means "something checked came out false", which a broken file never is).
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from pathlib import Path

import numpy as np
import pytest

from verify.app.cli import main
from verify.experiments.imdb import data as data_module
from verify.experiments.sentiment.checkpoints import FORMAT, ModelWeights, write_checkpoint
from verify.experiments.imdb.preprocess import PAD, Vocabulary

SETTINGS = {"d": 2, "layers": 1}
SPLIT = {"protocol": "paper", "seed": 0, "train": 3, "validation": 1, "test": 2}
PREPROCESS = {"lowercase": False, "stopwords": "nltk", "lemmas": "plural", "cleaning": "authors"}


def _checkpoint(folder: Path) -> Path:
    weights = ModelWeights(embedding=np.arange(8, dtype=np.float32).reshape(4, 2) / 10,
                           alpha_raw=np.float32(0.5).reshape(()), alpha=np.float32(0.974).reshape(()),
                           decoder_weight=np.array([1.0, -1.0], dtype=np.float32),
                           decoder_bias=np.float32(0.0).reshape(()))
    meta = {"settings": SETTINGS, "split": SPLIT, "data": {"preprocess": PREPROCESS, "limit_reviews": None},
            "epochs_completed": 1, "history": [], "best": {"epoch": 1, "val_acc": 0.5}}
    write_checkpoint(folder, meta=meta, weights=weights, best=weights, optimizer=None,
                     vocabulary=Vocabulary((PAD, "bad", "fine", "film")))
    return folder


def _edit_meta(edit):
    def apply(folder: Path) -> None:
        path = folder / "checkpoint.json"
        meta = json.loads(path.read_text(encoding="utf-8"))
        edit(meta)
        path.write_text(json.dumps(meta), encoding="utf-8")
    return apply


def _replace_meta(text: str):
    def apply(folder: Path) -> None:
        (folder / "checkpoint.json").write_text(text, encoding="utf-8")
    return apply


def _meta_directory(folder: Path) -> None:
    (folder / "checkpoint.json").unlink()
    (folder / "checkpoint.json").mkdir()


def _meta_fifo(folder: Path) -> None:
    (folder / "checkpoint.json").unlink()
    os.mkfifo(folder / "checkpoint.json")


def _vocabulary_bomb(folder: Path) -> None:
    # About 65 kB that inflates to 65 MiB of newlines: past the 64 MiB vocabulary limit.
    (folder / "vocab.txt.gz").write_bytes(gzip.compress(b"\n" * (65 << 20), compresslevel=9))


def _corrupt_deflate(folder: Path) -> None:
    good = gzip.compress("\n".join((PAD, "fine", "film", "bad")).encode() * 50)
    (folder / "vocab.txt.gz").write_bytes(good[:10] + bytes(b ^ 0x5A for b in good[10:-8]) + good[-8:])


CASES = {
    "vocab.txt.gz decompression bomb": (_vocabulary_bomb, "exceeds the limit"),
    "vocab.txt.gz corrupt deflate stream": (_corrupt_deflate, "cannot read the vocabulary"),
    "checkpoint.json is a list": (_replace_meta("[1, 2, 3]"), "expected a JSON object"),
    "checkpoint.json is a directory": (_meta_directory, "not a regular file"),
    "checkpoint.json is a FIFO": (_meta_fifo, "not a regular file"),
    "checkpoint.json nested 100,000 deep": (_replace_meta("[" * 100_000 + "]" * 100_000), "nested too deeply"),
    "data is a list": (_edit_meta(lambda m: m.__setitem__("data", [1, 2])), "data: expected an object"),
    "split is missing": (_edit_meta(lambda m: m.pop("split")), "split: missing"),
    "split.train is text": (_edit_meta(lambda m: m["split"].__setitem__("train", "3")), "split.train"),
    "unknown preprocess key": (_edit_meta(lambda m: m["data"]["preprocess"].__setitem__("stemming", True)),
                               "unknown preprocessing setting"),
    "limit_reviews = -5": (_edit_meta(lambda m: m["data"].__setitem__("limit_reviews", -5)), "data.limit_reviews"),
    "layers = 10**9": (_edit_meta(lambda m: m["settings"].__setitem__("layers", 10**9)), "settings.layers"),
    "unknown setting": (_edit_meta(lambda m: m["settings"].__setitem__("heads", 2)), "unknown setting"),
    "format of another tool": (_edit_meta(lambda m: m.__setitem__("format", {"x": 1})), "unknown format"),
    "weights.safetensors is garbage": (lambda f: (f / "weights.safetensors").write_bytes(b"\x00" * 64),
                                       "not a readable safetensors"),
}


@pytest.fixture
def reviews_csv(tmp_path: Path) -> Path:
    path = tmp_path / "reviews.csv"
    path.write_text("review,sentiment,split\nfine film,positive,train\nbad film,negative,train\n"
                    "fine,positive,train\nbad,negative,test\nfilm fine,positive,test\nbad bad,negative,train\n",
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_checkpoint_is_refused_in_one_line(case, tmp_path, reviews_csv, capsys):
    damage, expected = CASES[case]
    folder = _checkpoint(tmp_path / "ck")
    damage(folder)
    status = main(["sentiment", "evaluate", "--checkpoint", str(folder), "--data", str(reviews_csv),
                   "--cache-dir", str(tmp_path / "cache"), "--no-softmax", "--quiet"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert len(err.strip().splitlines()) == 1 and expected in err, err
    assert "Traceback" not in err


def test_the_undamaged_fixture_checkpoint_evaluates(tmp_path, reviews_csv, capsys):
    # Without this, the refusals above could come from a fixture that never worked.
    folder = _checkpoint(tmp_path / "ck")
    status = main(["sentiment", "evaluate", "--checkpoint", str(folder), "--data", str(reviews_csv),
                   "--cache-dir", str(tmp_path / "cache"), "--no-softmax", "--quiet", "--split", "test"])
    assert status == 0, capsys.readouterr().err


def _data_bomb(path: Path) -> None:
    path.write_bytes(gzip.compress(b"review,sentiment,split\n" + b"\n" * (3 << 20)))


def _data_corrupt_deflate(path: Path) -> None:
    good = gzip.compress(b"review,sentiment,split\n" + b"fine film,positive,train\n" * 2000)
    path.write_bytes(good[:10] + bytes(b ^ 0x5A for b in good[10:-8]) + good[-8:])


@pytest.mark.parametrize("make, expected", [
    (_data_bomb, "exceeds the limit"),
    (_data_corrupt_deflate, "truncated or corrupt"),
    (lambda p: p.write_bytes(gzip.compress(b"review,sentiment\n" + b"x" * (3 << 19) + b",positive\n")),
     "not a valid CSV"),
])
def test_hostile_data_files_are_refused_in_one_line(make, expected, tmp_path, monkeypatch, capsys):
    # The limit is lowered so that the bomb can stay small; the rule is the same at 1 GiB.
    monkeypatch.setattr(data_module, "MAX_DECOMPRESSED_BYTES", 2 << 20)
    path = tmp_path / "reviews.csv.gz"
    make(path)
    status = main(["sentiment", "train", "--d", "2", "--epochs", "1", "--data", str(path), "--out",
                   str(tmp_path / "run"), "--cache-dir", str(tmp_path / "cache"), "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and expected in err, err


def test_a_fifo_as_data_is_refused_without_blocking(tmp_path, capsys):
    fifo = tmp_path / "reviews.csv"
    os.mkfifo(fifo)
    status = main(["sentiment", "train", "--d", "2", "--epochs", "1", "--data", str(fifo), "--out",
                   str(tmp_path / "run"), "--cache-dir", str(tmp_path / "cache"), "--quiet"])
    assert status == 2 and "not a regular file" in capsys.readouterr().err


def test_zlib_is_what_a_corrupt_stream_raises():
    # The refusals above rely on zlib.error reaching the handlers (it is not an OSError).
    assert not issubclass(zlib.error, OSError)
    assert FORMAT.startswith("hardmax-verify/")


@pytest.mark.parametrize("kept,epochs,words", [(0, 1, "missing the weights of 1 epoch, e.g. epoch-001.safetensors"),
                                               (1, 3, "missing the weights of 2 epochs, e.g. epoch-002.safetensors")])
def test_missing_epoch_weights_are_counted(tmp_path: Path, kept: int, epochs: int, words: str) -> None:
    from verify.core.numbers import InputError
    from verify.experiments.sentiment.steps import best_test_epoch
    for e in range(1, kept + 1):
        (tmp_path / f"epoch-{e:03d}.safetensors").write_bytes(b"")
    with pytest.raises(InputError) as caught:
        best_test_epoch(tmp_path, None, None, None, epochs=epochs)
    assert str(caught.value).endswith(words)
