"""Safety: model and data files are never unpickled; names from input data never escape the output folder.

Two kinds of test: a static scan of the package source (every way Python can unpickle, and
``np.load`` without ``allow_pickle=False``, is refused wherever it appears), and dynamic
tests that hand the loaders a file whose unpickling would create a marker file, and check
that loading refuses it and the marker never appears.
"""

from __future__ import annotations

import ast
import io
import os
import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import verify
from verify.core.io import safe_name
from verify.core.numbers import InputError

PACKAGE = Path(verify.__file__).parent
# Modules whose loaders execute code from the file (pickle and its relatives).
UNPICKLING_MODULES = {"pickle", "cPickle", "_pickle", "dill", "cloudpickle", "joblib", "shelve", "marshal", "jsonpickle"}


@pytest.fixture(scope="module")
def sources() -> list[tuple[Path, ast.Module]]:
    """Every source file of the package, parsed once for the tests that walk them all (on one xdist worker)."""
    return [(p, ast.parse(p.read_text(encoding="utf-8"), filename=str(p))) for p in sorted(PACKAGE.rglob("*.py"))]


def _call_name(node: ast.Call) -> str:
    parts = []
    target = node.func
    while isinstance(target, ast.Attribute):
        parts.append(target.attr)
        target = target.value
    if isinstance(target, ast.Name):
        parts.append(target.id)
    return ".".join(reversed(parts))


def _keyword(node: ast.Call, name: str) -> object:
    for keyword in node.keywords:
        if keyword.arg == name:
            return keyword.value.value if isinstance(keyword.value, ast.Constant) else "<not a constant>"
    return "<absent>"


def test_the_package_never_imports_an_unpickling_module(sources: list[tuple[Path, ast.Module]]) -> None:
    offenders = []
    for path, tree in sources:
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module.split(".")[0]]
            offenders += [f"{path.relative_to(PACKAGE)}:{node.lineno} imports {n}" for n in names if n in UNPICKLING_MODULES]
    assert not offenders, offenders


def test_every_array_load_refuses_pickles(sources: list[tuple[Path, ast.Module]]) -> None:
    offenders = []
    for path, tree in sources:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = _call_name(node)
            where = f"{path.relative_to(PACKAGE)}:{node.lineno} {name}"
            if name.endswith(("np.load", "numpy.load")) and _keyword(node, "allow_pickle") is not False:
                offenders.append(f"{where} without allow_pickle=False")
            if name.endswith("torch.load") and _keyword(node, "weights_only") is not True:
                offenders.append(f"{where} without weights_only=True")
            if name.endswith(("read_pickle", "yaml.load", "yaml.unsafe_load")):
                offenders.append(where)
            # A literal string cannot carry input (the interrupt handler runs exec("pass") for a CPython flag).
            literal = len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
            if name in ("eval", "exec") and not literal:
                offenders.append(where)
    assert not offenders, offenders


class _Payload:
    """Unpickling this creates ``marker``: proof that a loader unpickled."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # noqa: D105 - the exploit under test
        return (os.mkdir, (str(self.marker),))


def _malicious_npz(marker: Path) -> bytes:
    buffer = io.BytesIO()
    array = np.empty(1, dtype=object)
    array[0] = _Payload(marker)
    np.savez(buffer, ids=array, labels=array, lengths=array, splits=array)
    return buffer.getvalue()


def test_the_payload_is_live_when_unpickled(tmp_path: Path) -> None:
    # Without this, the refusal tests below could pass with a payload that does nothing.
    marker = tmp_path / "unpickled"
    path = tmp_path / "evil.npz"
    path.write_bytes(_malicious_npz(marker))
    with np.load(path, allow_pickle=True) as data:
        data["ids"]
    assert marker.exists()


def test_an_object_array_npz_is_refused_by_np_load_as_the_package_calls_it(tmp_path: Path) -> None:
    marker = tmp_path / "unpickled"
    path = tmp_path / "evil.npz"
    path.write_bytes(_malicious_npz(marker))
    with np.load(path, allow_pickle=False) as data, pytest.raises(ValueError, match="allow_pickle"):
        data["ids"]
    assert not marker.exists()


def test_the_corpus_cache_is_never_unpickled(tmp_path: Path) -> None:
    corpus = pytest.importorskip("verify.experiments.imdb.corpus")
    preprocess = pytest.importorskip("verify.experiments.imdb.preprocess")
    csv = tmp_path / "reviews.csv"
    csv.write_text("review,sentiment,split\nA great film,positive,train\nAn awful film,negative,test\n", encoding="utf-8")
    cache = tmp_path / "cache"
    options = preprocess.PreprocessOptions()
    corpus.load_corpus(csv, options=options, cache_dir=cache)
    cached = sorted(cache.glob("corpus-*.npz"))
    assert cached, "the corpus loader wrote no cache; this test needs one to tamper with"
    marker = tmp_path / "unpickled"
    cached[0].write_bytes(_malicious_npz(marker))
    try:
        corpus.load_corpus(csv, options=options, cache_dir=cache)  # refused, or rebuilt from the source
    except InputError:
        pass
    assert not marker.exists()


def test_a_pickle_in_place_of_model_weights_is_refused(tmp_path: Path) -> None:
    checkpoints = pytest.importorskip("verify.experiments.sentiment.checkpoints")
    pytest.importorskip("safetensors")
    folder = tmp_path / "checkpoint"
    folder.mkdir()
    (folder / "checkpoint.json").write_text('{"format": "%s"}' % checkpoints.FORMAT, encoding="utf-8")
    marker = tmp_path / "unpickled"
    (folder / "weights.safetensors").write_bytes(pickle.dumps(_Payload(marker)))
    with pytest.raises(InputError):
        checkpoints.read_checkpoint(folder)
    assert not marker.exists()


# -- File names derived from input data. --------------------------------------------------------

HOSTILE_NAMES = ["../../etc/x", "..", ".", "", "/etc/passwd", "..\\..\\windows\\x", "a/../../b", "\x00", "~/x",
                 "...", "-rf", " ", "con", "x" * 1000, "名前/../../x", "\ud800", ".hidden", "a\nb"]


def _stays_inside(folder: Path, name: str) -> bool:
    target = (folder / name).resolve()
    return target.parent == folder.resolve() and target.name == name


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_safe_name_of_hostile_names_stays_in_the_folder(name: str, tmp_path: Path) -> None:
    cleaned = safe_name(name)
    assert cleaned and cleaned not in (".", "..") and "/" not in cleaned and "\\" not in cleaned
    assert _stays_inside(tmp_path, cleaned)


@given(name=st.text())
def test_safe_name_of_any_text_stays_in_the_folder(name: str) -> None:
    cleaned = safe_name(name)
    assert cleaned and len(cleaned) <= 80
    assert os.sep not in cleaned and "/" not in cleaned and "\\" not in cleaned and "\x00" not in cleaned
    assert not cleaned.startswith(".") and cleaned not in (".", "..")
    assert _stays_inside(Path("/tmp/out"), cleaned)


def test_a_conjecture_named_like_a_path_writes_inside_results_dir(tmp_path: Path) -> None:
    base = pytest.importorskip("verify.experiments.conjectures.base")
    from verify.core.config import make_configuration

    config = make_configuration([[1, 0], [0, 1]], alpha="1/2", name="../../escape")
    conjecture = base.Conjecture(name="../../etc/x", statement="always holds (a test double)",
                                 strategy=st.just(config), predicate=lambda c: base.Observation.held())
    results = tmp_path / "deep" / "results"
    base.run_conjecture(conjecture, examples=2, results_dir=results)
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written, "run_conjecture wrote nothing"
    assert all(results.resolve() in p.resolve().parents for p in written), written
