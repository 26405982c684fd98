"""Checkpoints of the sentiment model: safetensors arrays + one JSON file, never pickle.

A checkpoint is a folder:

==========================  =====================================================================
``checkpoint.json``         format, model and training settings, data provenance, epoch, history,
                            the best-validation epoch, versions
``weights.safetensors``     the weights after the last completed epoch
``best.safetensors``        the weights of the epoch with the best validation accuracy
``optimizer.safetensors``   Adam's moments and step counts (only needed to resume training)
``vocab.txt.gz``            the vocabulary, one word per line, id = line number (0 = padding)
==========================  =====================================================================

Weights are float32: ``embedding`` (V, d), ``alpha_raw`` (), ``alpha`` () = softplus(alpha_raw)
as torch computed it in float32 (the value the hardmax evaluation uses, exactly), ``decoder_weight``
(d,), ``decoder_bias`` (). The whole folder is replaced atomically (:func:`verify.core.io.atomic_directory`),
so Ctrl-C during a save leaves the previous checkpoint intact. Only numpy and safetensors are
needed to read one (no torch).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, NoReturn

import numpy as np

from verify.core.io import atomic_directory, atomic_write_bytes
from verify.core.numbers import InputError
from verify.experiments.imdb.corpus import (Corpus, Split, data_identity_matches, load_corpus, make_split, read_vocabulary,
                                            restrict_vocabulary, write_vocabulary)
from verify.experiments.imdb.preprocess import PreprocessOptions, Vocabulary

__all__ = ["FORMAT", "ModelWeights", "Checkpoint", "read_checkpoint", "write_checkpoint", "WEIGHT_NAMES",
           "write_weights", "read_weights", "required_field", "checkpoint_corpus", "MAX_META_BYTES", "MAX_WEIGHTS_BYTES"]

FORMAT = "hardmax-verify/sentiment-checkpoint/1"
# Limits on what a checkpoint folder may make this package read (a real checkpoint.json has
# about 100 kB, a d = 16 IMDb model 8 MB): past them the file is refused, not read.
MAX_META_BYTES = 64 << 20
MAX_WEIGHTS_BYTES = 1 << 30
WEIGHT_NAMES = ("embedding", "alpha_raw", "alpha", "decoder_weight", "decoder_bias")


@dataclass(frozen=True)
class ModelWeights:
    """The trained parameters as float32 arrays (the exact values the hardmax model uses)."""

    embedding: np.ndarray
    alpha_raw: np.ndarray
    alpha: np.ndarray
    decoder_weight: np.ndarray
    decoder_bias: np.ndarray

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {name: np.ascontiguousarray(getattr(self, name), dtype=np.float32) for name in WEIGHT_NAMES}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], *, where: str) -> "ModelWeights":
        missing = [n for n in WEIGHT_NAMES if n not in arrays]
        if missing:
            raise InputError(where, f"missing arrays {', '.join(missing)}")
        values = {n: np.asarray(arrays[n], dtype=np.float32) for n in WEIGHT_NAMES}
        for scalar in ("alpha_raw", "alpha", "decoder_bias"):
            if values[scalar].size != 1:
                raise InputError(where, f"{scalar}: expected one number, got shape {values[scalar].shape}")
            # safetensors may store a 0-d array with shape (1,); the model's scalars are 0-d.
            values[scalar] = values[scalar].reshape(())
        values["decoder_weight"] = values["decoder_weight"].reshape(-1)
        weights = cls(**values)
        if weights.embedding.ndim != 2 or weights.decoder_weight.shape != (weights.embedding.shape[1],):
            raise InputError(where, f"inconsistent shapes: embedding {weights.embedding.shape}, "
                                    f"decoder_weight {weights.decoder_weight.shape}")
        if not all(np.isfinite(a).all() for a in weights.to_arrays().values()):
            raise InputError(where, "the weights contain NaN or infinity")
        if not float(weights.alpha) > 0:
            raise InputError(where, f"alpha = {float(weights.alpha)} is not > 0")
        return weights

    @property
    def d(self) -> int:
        return int(self.embedding.shape[1])


@dataclass
class Checkpoint:
    """A checkpoint folder read into memory (``optimizer`` only when asked for)."""

    path: Path
    meta: dict
    weights: ModelWeights
    best: ModelWeights | None
    optimizer: dict[str, np.ndarray] | None
    vocabulary: Vocabulary
    # A published folder may hold only the selected weights (best.safetensors): enough to
    # evaluate and analyse, not to resume training. Then ``weights`` is ``best``.
    selected_only: bool = False


def _save_arrays(path: Path, arrays: dict[str, np.ndarray], metadata: dict[str, str] | None = None) -> None:
    from safetensors.numpy import save
    path.write_bytes(save(arrays, metadata=metadata))


def _read_limited(path: Path, limit: int) -> bytes:
    path = Path(path)
    if not path.exists():
        raise InputError(str(path), "missing from the checkpoint folder")
    if not path.is_file():
        raise InputError(str(path), "not a regular file")
    try:
        if path.stat().st_size > limit:
            raise InputError(str(path), f"{path.stat().st_size:,} bytes, more than the limit of {limit:,}")
        return path.read_bytes()
    except OSError as error:
        raise InputError(str(path), f"cannot read the file ({error})") from None


def _load_arrays(path: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load
    data = _read_limited(path, MAX_WEIGHTS_BYTES)
    try:
        return load(data)
    except Exception as error:  # safetensors raises its own error types for corrupt files
        raise InputError(str(path), f"not a readable safetensors file ({error})") from None


def write_weights(path: Path, weights: ModelWeights) -> None:
    """One set of weights as a safetensors file, written atomically (per-epoch snapshots)."""
    from safetensors.numpy import save
    atomic_write_bytes(Path(path), save(weights.to_arrays()))


def read_weights(path: Path) -> ModelWeights:
    return ModelWeights.from_arrays(_load_arrays(Path(path)), where=str(path))


def write_checkpoint(directory: Path, *, meta: dict, weights: ModelWeights, best: ModelWeights | None,
                     optimizer: dict[str, np.ndarray] | None, vocabulary_file: Path | None = None,
                     vocabulary: Vocabulary | None = None) -> None:
    """Replace ``directory`` by a new checkpoint, atomically."""
    directory = Path(directory)
    with atomic_directory(directory) as staging:
        _save_arrays(staging / "weights.safetensors", weights.to_arrays())
        if best is not None:
            _save_arrays(staging / "best.safetensors", best.to_arrays())
        if optimizer is not None:
            _save_arrays(staging / "optimizer.safetensors", optimizer)
        if vocabulary_file is not None and Path(vocabulary_file).exists():
            shutil.copyfile(vocabulary_file, staging / "vocab.txt.gz")
        elif vocabulary is not None:
            write_vocabulary(staging / "vocab.txt.gz", vocabulary)
        else:
            raise ValueError("write_checkpoint needs the vocabulary")
        (staging / "checkpoint.json").write_text(json.dumps({"format": FORMAT, **meta}, indent=1) + "\n",
                                                 encoding="utf-8")
        # mkdtemp/mkstemp create private files; a checkpoint is meant to be shared (and committed).
        staging.chmod(0o755)
        for entry in staging.iterdir():
            entry.chmod(0o644)


def required_field(checkpoint: "Checkpoint", name: str) -> dict:
    """``checkpoint.meta[name]``, an object; InputError naming the field when missing."""
    value = checkpoint.meta.get(name)
    if not isinstance(value, dict):
        raise InputError(f"{checkpoint.path / 'checkpoint.json'}: {name}", "missing (this checkpoint cannot be "
                                                                         "evaluated without it)")
    return value


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate_meta(meta: object, where: str) -> dict:
    """The structure of ``checkpoint.json``, checked field by field (one-line InputError naming the field).

    Fields are optional here (a checkpoint may lack what only training needs); those present
    must have the expected type, so that no later use of them fails with a traceback.
    """
    def fail(field: str, expected: str, value: object) -> NoReturn:
        raise InputError(f"{where}: {field}", f"expected {expected}, got {type(value).__name__} {str(value)[:60]!r}")

    if not isinstance(meta, dict):
        fail("(top level)", "a JSON object", meta)
    if meta.get("format") != FORMAT:
        raise InputError(where, f"unknown format {str(meta.get('format'))[:80]!r} (expected {FORMAT})")
    for name in ("settings", "split", "data", "best"):
        if name in meta and not (isinstance(meta[name], dict) or (name == "best" and meta[name] is None)):
            fail(name, "an object", meta[name])
    if "history" in meta and not (isinstance(meta["history"], list) and all(isinstance(h, dict) for h in meta["history"])):
        fail("history", "a list of objects", meta["history"])
    if "epochs_completed" in meta and not (_is_int(meta["epochs_completed"]) and meta["epochs_completed"] >= 0):
        fail("epochs_completed", "an integer >= 0", meta["epochs_completed"])
    split = meta.get("split")
    if isinstance(split, dict):
        if split.get("protocol") not in ("paper", "official"):
            fail("split.protocol", "paper or official", split.get("protocol"))
        for key in ("seed", "train", "validation", "test"):
            if not (_is_int(split.get(key)) and (key == "seed" or split[key] >= 0)):
                fail(f"split.{key}", "an integer" + ("" if key == "seed" else " >= 0"), split.get(key))
    settings = meta.get("settings")
    if isinstance(settings, dict) and "layers" in settings and not (
            _is_int(settings["layers"]) and 0 <= settings["layers"] <= 10_000):
        fail("settings.layers", "an integer in [0, 10000]", settings["layers"])
    data = meta.get("data")
    if isinstance(data, dict):
        limit = data.get("limit_reviews")
        if limit is not None and not (_is_int(limit) and limit >= 2):
            fail("data.limit_reviews", "null or an integer >= 2", limit)
        min_count = data.get("min_count")
        if min_count is not None and not (_is_int(min_count) and min_count >= 1):
            fail("data.min_count", "null or an integer >= 1", min_count)
        for key in ("sha256", "content_sha256"):
            if key in data and not isinstance(data[key], str):
                fail(f"data.{key}", "a hex string", data[key])
        if "preprocess" in data:
            PreprocessOptions.from_record(data["preprocess"], where=f"{where}: data.preprocess")
    best = meta.get("best")
    if isinstance(best, dict) and "epoch" in best and not _is_int(best["epoch"]):
        fail("best.epoch", "an integer", best["epoch"])
    return meta


def read_checkpoint(directory: Path | str, *, with_optimizer: bool = False) -> Checkpoint:
    """Read a checkpoint folder; every problem is an InputError naming the file."""
    directory = Path(directory)
    meta_path = directory / "checkpoint.json"
    if not directory.is_dir():
        raise InputError(str(directory), "no such checkpoint folder")
    if not meta_path.exists():
        raise InputError(str(meta_path), "missing: not a checkpoint folder")
    try:
        meta = json.loads(_read_limited(meta_path, MAX_META_BYTES).decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InputError(str(meta_path), f"not valid JSON ({error})") from None
    except RecursionError:
        raise InputError(str(meta_path), "not valid JSON (nested too deeply)") from None
    validate_meta(meta, str(meta_path))
    best_path = directory / "best.safetensors"
    best = ModelWeights.from_arrays(_load_arrays(best_path), where=str(best_path)) if best_path.exists() else None
    if best is not None and not (directory / "weights.safetensors").exists():
        weights, selected_only = best, True
    else:
        weights = ModelWeights.from_arrays(_load_arrays(directory / "weights.safetensors"),
                                           where=str(directory / "weights.safetensors"))
        selected_only = False
    optimizer = _load_arrays(directory / "optimizer.safetensors") if with_optimizer and (
        directory / "optimizer.safetensors").exists() else None
    vocabulary = read_vocabulary(directory / "vocab.txt.gz")
    if len(vocabulary) != weights.embedding.shape[0]:
        raise InputError(str(directory / "vocab.txt.gz"),
                         f"{len(vocabulary)} words but the embedding has {weights.embedding.shape[0]} rows")
    return Checkpoint(directory, meta, weights, best, optimizer, vocabulary, selected_only)


def checkpoint_corpus(checkpoint, data: Path | str, *, cache_dir: Path | None,
                      progress: Callable[[int, int], None] | None = None) -> tuple[Corpus, Split]:
    """The corpus and split a checkpoint was trained on, rebuilt from ``data`` and checked against it.

    Raises InputError when the data holds other reviews than the checkpoint's (by sha256 of the
    file or of its content) or the rebuilt vocabulary differs from the checkpoint's.
    """
    meta = checkpoint.meta
    data_meta = meta.get("data") or {}
    split_meta = required_field(checkpoint, "split")
    options = PreprocessOptions.from_record(data_meta.get("preprocess", {}), where=f"{checkpoint.path}: data.preprocess")
    corpus = load_corpus(data, options=options, cache_dir=cache_dir, limit=data_meta.get("limit_reviews"),
                         progress=progress)
    if not data_identity_matches(data_meta, data, corpus):
        raise InputError(str(data), f"holds other reviews than the checkpoint was trained on (sha256 "
                                    f"{data_meta.get('sha256')}; this data's file sha256 is {corpus.source_sha256})")
    train_size = split_meta["train"] + split_meta["validation"]
    split = make_split(corpus, protocol=split_meta["protocol"], seed=split_meta["seed"],
                       validation_fraction=split_meta["validation"] / train_size if train_size else 0.0)
    if data_meta.get("min_count"):
        corpus = restrict_vocabulary(corpus, split, min_count=int(data_meta["min_count"]))
    if tuple(corpus.vocabulary.words) != tuple(checkpoint.vocabulary.words):
        raise InputError(str(checkpoint.path), "the vocabulary rebuilt from the data differs from the checkpoint's")
    return corpus, split
