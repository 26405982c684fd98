"""Sentiment data the way users have it: the official archive, its folder, a CSV, fetch, the authors' model."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import socket
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest

from verify.app.cli import main
from verify.core.numbers import InputError
from verify.experiments.sentiment import sources
from verify.experiments.imdb.data import canonical_csv_bytes, content_sha256, detect_format, load_reviews

PACKAGE = Path(__file__).resolve().parents[2] / "verify"

REVIEWS = {  # (split, folder, id, rating): text
    ("train", "pos", 0, 9): "A fine film, <br />truly great.",
    ("train", "pos", 10, 7): 'He said "wow", twice',
    ("train", "pos", 2, 8): "Loved it.",
    ("train", "neg", 0, 1): "Awful. A waste of time",
    ("test", "pos", 0, 10): "Superb acting, café scenes",
    ("test", "neg", 3, 2): "boring, boring, boring",
}


def _archive_bytes(extra: dict[str, bytes] | None = None) -> bytes:
    """A tar.gz shaped like aclImdb_v1.tar.gz: the labelled reviews, unsup reviews and other files."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        members = {f"aclImdb/{s}/{f}/{i}_{r}.txt": t.encode("utf-8") for (s, f, i, r), t in REVIEWS.items()}
        members["aclImdb/train/unsup/0_0.txt"] = b"not labelled"
        members["aclImdb/README"] = b"readme"
        members["aclImdb/train/labeledBow.feat"] = b"0:1 1:2"
        members.update(extra or {})
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _tree(root: Path) -> Path:
    for (s, f, i, r), text in REVIEWS.items():
        path = root / "aclImdb" / s / f / f"{i}_{r}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "aclImdb"


def test_archive_folder_and_csv_give_the_same_reviews_and_content_digest(tmp_path):
    archive = tmp_path / "aclImdb_v1.tar.gz"
    archive.write_bytes(_archive_bytes())
    assert detect_format(archive) == "aclimdb-tar"
    from_archive = load_reviews(archive)
    from_folder = load_reviews(_tree(tmp_path / "x"))
    csv_path = tmp_path / "reviews.csv.gz"
    csv_path.write_bytes(gzip.compress(canonical_csv_bytes(from_archive)))
    from_csv = load_reviews(csv_path)
    # The project order: train/pos, train/neg, test/pos, test/neg, ids rising (2 before 10).
    assert from_archive.texts == ("A fine film, <br />truly great.", "Loved it.", 'He said "wow", twice',
                                  "Awful. A waste of time", "Superb acting, café scenes", "boring, boring, boring")
    assert from_archive.labels.tolist() == [1, 1, 1, 0, 1, 0]
    for other in (from_folder, from_csv):
        assert other.texts == from_archive.texts and other.splits == from_archive.splits
        assert np.array_equal(other.labels, from_archive.labels)
    assert content_sha256(from_archive) == content_sha256(from_folder) == content_sha256(from_csv)
    assert content_sha256(from_archive) == hashlib.sha256(gzip.decompress(csv_path.read_bytes())).hexdigest()


@pytest.mark.parametrize("content, expected", [
    (b"not a tar at all", "not gzip-compressed"),
    (lambda: _archive_bytes()[:300], "not a readable tar"),
    (lambda: _archive_bytes({"aclImdb/train/pos/99_9.txt": b"x" * ((1 << 20) + 1)}), "more than the"),
    (lambda: _archive_bytes({"aclImdb/test/neg/5_1.txt": b"\xff\xfe"}), "UTF-8"),
])
def test_a_bad_archive_is_one_input_error(tmp_path, content, expected):
    path = tmp_path / "aclImdb_v1.tar.gz"
    path.write_bytes(content() if callable(content) else content)
    with pytest.raises(InputError, match=expected):
        load_reviews(path)


def test_data_is_found_by_option_then_environment_then_fetched_copy(tmp_path, monkeypatch):
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(sources.DATA_ENV, raising=False)
    with pytest.raises(InputError) as caught:
        sources.resolve_data(None)
    assert "sentiment fetch" in str(caught.value) and sources.DATA_ENV in str(caught.value)
    fetched = sources.fetched_data_path()
    fetched.parent.mkdir(parents=True)
    fetched.write_bytes(b"")
    assert sources.resolve_data(None) == fetched
    (tmp_path / "env.csv").write_bytes(b"")
    monkeypatch.setenv(sources.DATA_ENV, str(tmp_path / "env.csv"))
    assert sources.resolve_data(None) == tmp_path / "env.csv"
    assert sources.resolve_data(tmp_path / "given.csv") == tmp_path / "given.csv"


@pytest.mark.parametrize("variable, resolve", [(sources.DATA_ENV, sources.resolve_data),
                                               (sources.REFERENCE_ENV, sources.resolve_reference)])
def test_an_environment_variable_naming_nothing_is_refused_naming_the_variable(tmp_path, monkeypatch, variable,
                                                                               resolve):
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(variable, str(tmp_path / "missing.csv.gz"))
    with pytest.raises(InputError) as caught:
        resolve(None)
    assert str(caught.value).startswith(f"{variable}: ") and "missing.csv.gz" in str(caught.value)
    assert resolve(tmp_path / "given") == tmp_path / "given"  # an option still wins, unchecked here


def test_missing_data_named_by_the_environment_is_one_line_naming_the_variable(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(sources.DATA_ENV, str(tmp_path / "nowhere.csv.gz"))
    checkpoint = Path(__file__).resolve().parents[2] / "models" / "sentiment-d2-paper"
    assert main(["sentiment", "evaluate", "--checkpoint", str(checkpoint), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"error: {sources.DATA_ENV}: ") and "nowhere.csv.gz" in err


def test_missing_data_is_one_line_saying_how_to_get_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(sources.DATA_ENV, raising=False)
    checkpoint = Path(__file__).resolve().parents[2] / "models" / "sentiment-d2-paper"
    assert main(["sentiment", "evaluate", "--checkpoint", str(checkpoint), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "sentiment fetch" in err and "aclImdb_v1.tar.gz" in err


def test_fetch_checks_the_sha256_and_converts_once(tmp_path, monkeypatch, capsys):
    archive = tmp_path / "served" / "aclImdb_v1.tar.gz"
    archive.parent.mkdir()
    archive.write_bytes(_archive_bytes())
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(sources, "IMDB_URL", archive.as_uri())  # a local file: no network in tests
    monkeypatch.setattr(sources, "IMDB_SHA256", "0" * 64)
    assert main(["sentiment", "fetch", "--quiet"]) == 2
    assert "differs from the expected" in capsys.readouterr().err
    assert not [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]  # nothing kept
    monkeypatch.setattr(sources, "IMDB_SHA256", hashlib.sha256(archive.read_bytes()).hexdigest())
    assert main(["sentiment", "fetch", "--quiet", "--json"]) == 0
    csv_path = sources.fetched_data_path()
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"data": str(csv_path), "url": archive.as_uri(),
                                        "archive_sha256": sources.IMDB_SHA256}
    assert captured.err.startswith(f"{csv_path}: the IMDb reviews")
    assert load_reviews(csv_path).texts == load_reviews(archive).texts
    assert content_sha256(load_reviews(csv_path)) == content_sha256(load_reviews(archive))
    first = csv_path.read_bytes()
    # A second fetch finds the archive in the cache (right digest) and downloads nothing: it
    # succeeds with the served file gone, and converts to the same bytes.
    archive.unlink()
    assert main(["sentiment", "fetch", "--quiet"]) == 0
    assert csv_path.read_bytes() == first


def test_fetch_from_an_unreachable_source_could_not_complete(tmp_path, monkeypatch, capsys):
    """No network is an I/O failure (exit 4, one line), not bad input; tested on a closed local port."""
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path / "cache"))
    url = f"http://127.0.0.1:{port}/aclImdb_v1.tar.gz"
    assert main(["sentiment", "fetch", "--url", url, "--quiet"]) == 4
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"error: could not complete: could not download {url}: ")
    assert "Traceback" not in err and not [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]


def _authors_like_pth(tmp_path: Path, monkeypatch) -> Path:
    """A pickled module shaped like the authors' saved model (their class names, made here)."""
    torch = pytest.importorskip("torch")
    package = tmp_path / "authors_code" / "utils"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "models.py").write_text(
        "import torch\nfrom torch import nn\n"
        "class CustomSelfAttention(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.alpha = nn.Parameter(torch.tensor([2.5]))\n"
        "class TClassifier(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.depth = 8\n"
        "        self.encoder = nn.Embedding(7, 2)\n        self.attention = CustomSelfAttention()\n"
        "        self.decoder = nn.Linear(2, 1)\n        self.sigmoid = nn.Sigmoid()\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "authors_code"))
    import importlib
    models = importlib.import_module("utils.models")
    torch.manual_seed(0)
    model = models.TClassifier()
    path = tmp_path / "model_d=2_epoch=100.pth"
    torch.save(model, path)
    monkeypatch.delitem(sys.modules, "utils.models")
    monkeypatch.delitem(sys.modules, "utils")
    return path, model


def test_the_authors_model_converts_with_the_weights_only_loader(tmp_path, monkeypatch, capsys):
    pth, model = _authors_like_pth(tmp_path, monkeypatch)
    out = tmp_path / "authors.npz"
    assert main(["sentiment", "fetch-reference", "--from-file", str(pth), "--out", str(out), "--quiet"]) == 0
    with np.load(out, allow_pickle=False) as arrays:
        assert np.array_equal(arrays["E"], model.encoder.weight.detach().numpy())
        assert arrays["alpha"].tolist() == [2.5] and arrays["w"].shape == (1, 2) and arrays["b"].shape == (1,)
    # Downloaded the same way from a (local) address into the cache, where --reference finds it.
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(sources.REFERENCE_ENV, raising=False)
    assert sources.resolve_reference(None, required=False) is None
    assert main(["sentiment", "fetch-reference", "--url", pth.as_uri(), "--quiet"]) == 0
    assert sources.resolve_reference(None) == sources.fetched_reference_path()


def test_a_download_is_copied_whole_to_out(tmp_path, monkeypatch):
    pth, model = _authors_like_pth(tmp_path, monkeypatch)
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path / "cache"))
    out = tmp_path / "copies" / "authors.npz"
    assert main(["sentiment", "fetch-reference", "--url", pth.as_uri(), "--out", str(out), "--quiet"]) == 0
    assert out.read_bytes() == sources.fetched_reference_path().read_bytes()
    assert sorted(p.name for p in out.parent.iterdir()) == ["authors.npz"]


class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # the exploit under test
        return (os.mkdir, (str(self.marker),))


def test_a_model_file_that_would_run_code_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pth"
    torch.save({"x": _Payload(marker)}, path)
    with pytest.raises(InputError, match="weights-only loader"):
        sources.convert_reference(path, tmp_path / "out.npz")
    assert not marker.exists() and not (tmp_path / "out.npz").exists()


def test_no_package_file_names_a_machine_path():
    offenders = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*") if p.is_file() and p.suffix in (".py", ".txt", ".toml", ".json")
                 and any(s in p.read_text(encoding="utf-8", errors="replace") for s in ("../shared", "/work/shared"))]
    assert not offenders, offenders


def test_vocabulary_command_compares_cleanings_with_the_authors_size(tmp_path, capsys):
    path = tmp_path / "reviews.csv"
    path.write_text("review,sentiment,split\n\"I don't like movies, he's dull\",negative,train\n"
                    "\"Great movie! Loved it\",positive,test\n", encoding="utf-8")
    import json
    assert main(["sentiment", "vocabulary", "--data", str(path), "--cleaning", "authors", "--cleaning",
                 "delete-punctuation", "--lemmas", "plural", "--lemmas", "none", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    sizes = {(r["cleaning"], r["lemmas"]): r["vocabulary"] for r in result["rows"]}
    # authors: <PAD> I like movie dull Great Loved (don, t, he, s are stopwords); lemmas none: movies too.
    assert sizes[("authors", "plural")] == 7 and sizes[("authors", "none")] == 8
    # the earlier cleaning keeps "dont" and lemmatises "hes" to the stopword "he".
    assert sizes[("delete-punctuation", "plural")] == 9
    assert result["authors"] == 121_296
