"""Checkpoints of the sentiment model: safetensors arrays + one JSON file, never pickle.

A checkpoint is a folder:

==========================  =====================================================================
``checkpoint.json``         format, model and training settings, data provenance, epoch, history,
                            the best-validation epoch, versions
``weights.safetensors``     the weights after the last completed epoch
``best.safetensors``        the weights of the epoch with the best validation accuracy
``optimizer.safetensors``   Adam's moments and step counts (only needed to resume training)
``vocab.txt.gz``            the vocabulary, one word per line, id = line number (0 = padding)
``best.from-init.xz``       in a published folder, instead of ``best.safetensors``: the same file,
                            stored about 40% smaller (:func:`compact_best_weights`); beside a
                            ``best.safetensors``, it must hold the same file (else neither is read)
==========================  =====================================================================

Weights are float32: ``embedding`` (V, d), ``alpha_raw`` (), ``alpha`` () = softplus(alpha_raw)
as torch computed it in float32 (the value the hardmax evaluation uses, exactly), ``decoder_weight``
(d,), ``decoder_bias`` (). The whole folder is replaced atomically (:func:`verify.core.io.atomic_directory`),
so Ctrl-C during a save leaves the previous checkpoint intact. Only numpy and safetensors are
needed to read one (no torch), except a published ``best.from-init.xz``, whose initial embedding
torch regenerates from the run's seed.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, NoReturn

import numpy as np

from verify.core.io import atomic_directory, atomic_write_bytes, json_from_bytes, json_text, open_input, read_input
from verify.core.numbers import InputError
from verify.experiments.imdb.corpus import (MAX_VOCABULARY_BYTES, Corpus, Split, data_identity_matches, load_corpus,
                                            make_split, read_vocabulary, restrict_vocabulary, write_vocabulary)
from verify.experiments.imdb.preprocess import PreprocessOptions, Vocabulary
from .network import TrainingSettings, initial_embedding

__all__ = ["FORMAT", "COMPACT_BEST", "compact_best_weights", "compact_header", "expand_best_weights", "expand_compact_weights",
           "ModelWeights", "Checkpoint", "read_checkpoint", "write_checkpoint", "WEIGHT_NAMES",
           "write_weights", "read_weights", "required_field", "checkpoint_corpus", "MAX_META_BYTES",
           "MAX_WEIGHTS_BYTES"]

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
    # A published folder may hold only the selected weights (best.safetensors, or its compact form
    # best.from-init.xz): enough to evaluate and analyse, not to resume training. Then ``weights``
    # is ``best``.
    selected_only: bool = False


def _save_arrays(path: Path, arrays: dict[str, np.ndarray], metadata: dict[str, str] | None = None) -> None:
    from safetensors.numpy import save
    path.write_bytes(save(arrays, metadata=metadata))


def _read_limited(path: Path, limit: int, *, expected: str) -> bytes:
    """The bytes of a checkpoint folder's file, read by :func:`verify.core.io.read_input` (a regular
    file of at most ``limit`` bytes, opened without waiting: a FIFO put there is refused, not waited on)."""
    if not os.path.lexists(path):
        raise InputError(str(path), "missing from the checkpoint folder")
    return read_input(path, expected=expected, limit=limit)


def _load_arrays(path: Path) -> dict[str, np.ndarray]:
    return _arrays_from_bytes(_read_limited(path, MAX_WEIGHTS_BYTES, expected="a safetensors weights file"),
                              where=str(path))


def _arrays_from_bytes(data: bytes, *, where: str) -> dict[str, np.ndarray]:
    from safetensors.numpy import load
    try:
        return load(data)
    except Exception as error:  # safetensors raises its own error types for corrupt files
        raise InputError(where, f"not a readable safetensors file ({error})") from None


# The published form of best.safetensors. Trained float32 weights barely compress (xz keeps 84%),
# but about 30% of the embedding's rows (words seen only outside the training reviews) never move
# from their seeded initial values, and the rest keep their sign, exponent and leading mantissa
# bits. So the embedding is stored XOR its initial value, byte planes apart, then xz: about 60%.
COMPACT_BEST = "best.from-init.xz"
_COMPACT_MAGIC = b"hardmax-verify/weights-from-init/1\n"
# What xz may reserve to decompress one (preset 9, which writes these files, needs about 65 MiB):
# a crafted stream that declares a larger dictionary is refused, not allocated.
_XZ_MEMORY_LIMIT = 128 << 20


# A weights file's safetensors header lists five arrays in a few hundred bytes; safetensors itself
# refuses more than 100 MB. Past this limit the header is not parsed.
_MAX_SAFETENSORS_HEADER = 1 << 20
_COMPACT_HEADER_MAX = 4096  # the compact file's JSON line, in bytes


def _count(value: object) -> bool:
    """An integer >= 0 (not a bool), at most what a weights file may hold."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_WEIGHTS_BYTES


def _embedding_layout(data: bytes | memoryview, *, where: str) -> tuple[int, int, int, int]:
    """Where a safetensors file's float32 (rows, d) ``embedding`` lies: ``(start, end, rows, d)``, in bytes
    from the file's start, past the file's header. Only the header is read."""
    size = int.from_bytes(data[:8], "little")
    entry = None
    if 8 <= len(data) and size <= min(_MAX_SAFETENSORS_HEADER, len(data) - 8):
        try:
            header = json.loads(bytes(data[8:8 + size]).decode("utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError):
            header = None
        entry = header.get("embedding") if isinstance(header, dict) else None
    offsets = entry.get("data_offsets") if isinstance(entry, dict) else None
    shape = entry.get("shape") if isinstance(entry, dict) else None
    if not (isinstance(entry, dict) and entry.get("dtype") == "F32"
            and isinstance(offsets, list) and len(offsets) == 2 and all(_count(x) for x in offsets)
            and isinstance(shape, list) and len(shape) == 2 and all(_count(x) for x in shape)):
        raise InputError(where, "not a safetensors file with a float32 (rows, d) embedding")
    start, end = (8 + size + offset for offset in offsets)
    rows, d = shape
    if not (start <= end <= len(data) and end - start == 4 * rows * d):
        raise InputError(where, f"its embedding ({rows} x {d} float32 numbers at bytes {start} to {end}) "
                                f"does not fit the file's {len(data)} bytes")
    return start, end, rows, d


def _settings(meta: object, *, where: str) -> TrainingSettings:
    """The run's settings (they regenerate its initial embedding), checked; ``where`` names checkpoint.json."""
    return TrainingSettings.from_record(meta.get("settings") if isinstance(meta, dict) else None,
                                        where=f"{where}: settings")


def _initial_embedding_words(settings: TrainingSettings, rows: int) -> np.ndarray:
    """The run's seeded initial embedding (torch regenerates it), as uint32 words."""
    return initial_embedding(rows, settings).reshape(-1).view(np.uint32)


def _byte_planes(words: np.ndarray) -> bytes:
    return words.view(np.uint8).reshape(-1, 4).T.tobytes()


def _from_byte_planes(planes: bytes | memoryview) -> np.ndarray:
    return np.frombuffer(planes, dtype=np.uint8).reshape(4, -1).T.copy().view(np.uint32).reshape(-1)


def compact_best_weights(data: bytes, meta: dict, *, where: str = "best.safetensors") -> bytes:
    """The published form of a ``best.safetensors`` file (its bytes ``data``) of the run ``meta`` describes.

    :func:`expand_best_weights` gives back exactly ``data``; this is checked here before anything is returned.
    The same ``data`` and ``meta`` give the same bytes (with the same torch, whose version the file records).
    """
    import torch
    settings = _settings(meta, where=where)
    if len(data) > MAX_WEIGHTS_BYTES:
        raise InputError(where, f"{len(data):,} bytes, more than the limit of {MAX_WEIGHTS_BYTES:,}")
    start, end, rows, d = _embedding_layout(data, where=where)
    if d != settings.d or rows < 1:
        raise InputError(where, f"its embedding ({rows} x {d}) is not rows of d = {settings.d} float32 numbers")
    delta = np.frombuffer(data, dtype=np.uint32, count=rows * d, offset=start) ^ _initial_embedding_words(settings, rows)
    header = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "embedding": [start, end],
              "rows": rows, "d": d, "torch": torch.__version__}
    body = data[:start] + _byte_planes(delta) + data[end:]
    line = json_text(header, where=f"{where}: the compact form's header", indent=None, sort_keys=True, newline=False)
    compact = lzma.compress(_COMPACT_MAGIC + line.encode() + b"\n" + body, preset=9)
    if _expand(compact, settings, where=where) != data:
        raise InputError(where, "the compact form does not give the weights back (torch's generator?)")
    return compact


def _compact_header(raw: bytes, *, where: str) -> tuple[dict, int]:
    """The header of the uncompressed compact form ``raw`` (or its first bytes): the JSON line after
    the magic, checked field by field, and where the body after that line starts."""
    newline = raw.find(b"\n", len(_COMPACT_MAGIC), len(_COMPACT_MAGIC) + _COMPACT_HEADER_MAX)
    if not raw.startswith(_COMPACT_MAGIC) or newline < 0:
        raise InputError(where, f"does not start with {_COMPACT_MAGIC.decode().strip()!r} and a header line")
    try:
        header = json.loads(raw[len(_COMPACT_MAGIC):newline].decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        header = None
    embedding = header.get("embedding") if isinstance(header, dict) else None
    if not (isinstance(header, dict) and isinstance(header.get("sha256"), str)
            and len(header["sha256"]) == 64 and all(c in "0123456789abcdef" for c in header["sha256"])
            and all(_count(header.get(key)) for key in ("bytes", "rows", "d"))
            and isinstance(embedding, list) and len(embedding) == 2 and all(_count(x) for x in embedding)
            and isinstance(header.get("torch"), str)):
        raise InputError(where, "its header is not the expected JSON line (sha256, bytes, embedding, rows, d, "
                                "torch)")
    return header, newline + 1


def compact_header(path: Path) -> dict:
    """What a ``best.from-init.xz`` says of the file it holds (sha256, bytes, embedding's place and shape,
    torch version), read from its first bytes only and checked for its types; whether the file gives
    those weights back is checked by :func:`expand_best_weights`."""
    decompressor = lzma.LZMADecompressor(memlimit=_XZ_MEMORY_LIMIT)
    try:
        with open_input(path, expected=f"a compact weights file ({COMPACT_BEST})") as file:
            start = decompressor.decompress(file.read(1 << 16), max_length=len(_COMPACT_MAGIC) + _COMPACT_HEADER_MAX)
    except (OSError, lzma.LZMAError) as error:
        raise InputError(str(path), f"no readable header ({error})") from None
    return _compact_header(start, where=str(path))[0]


def expand_best_weights(path: Path, meta: dict, *, meta_where: str = "checkpoint.json") -> bytes:
    """The ``best.safetensors`` bytes a published ``best.from-init.xz`` holds (``meta``: its checkpoint.json).

    Raises InputError naming the file when it is malformed, too large, or does not give back the
    file whose sha256 it records (e.g. another torch version regenerated another initial embedding);
    naming ``meta_where`` (where ``meta`` was read) when its settings cannot regenerate one.
    """
    settings = _settings(meta, where=meta_where)  # first: a checkpoint.json that cannot regenerate is named
    compact = _read_limited(Path(path), MAX_WEIGHTS_BYTES, expected=f"a compact weights file ({COMPACT_BEST})")
    return _expand(compact, settings, where=str(path))


def expand_compact_weights(compact: bytes, meta: dict, *, where: str, meta_where: str = "checkpoint.json") -> bytes:
    """:func:`expand_best_weights` of the bytes ``compact`` already read from the file ``where``."""
    return _expand(compact, _settings(meta, where=meta_where), where=where)


def _expand(compact: bytes, settings: TrainingSettings, *, where: str) -> bytes:
    decompressor = lzma.LZMADecompressor(memlimit=_XZ_MEMORY_LIMIT)
    limit = MAX_WEIGHTS_BYTES + len(_COMPACT_MAGIC) + _COMPACT_HEADER_MAX
    try:
        raw = decompressor.decompress(compact, max_length=limit)
    except lzma.LZMAError as error:
        raise InputError(where, f"not an xz file ({error})") from None
    if not decompressor.eof:
        raise InputError(where, f"more than {limit:,} bytes uncompressed: refused" if len(raw) >= limit
                         else "cut short (its xz stream does not end)")
    if decompressor.unused_data:
        raise InputError(where, "trailing data after its xz stream")
    header, body_start = _compact_header(raw, where=where)
    body = memoryview(raw)[body_start:]
    (start, end), rows, d, size = header["embedding"], header["rows"], header["d"], header["bytes"]
    # The embedding's place and shape must be the ones the safetensors header (bytes the XOR leaves
    # alone, before the embedding) gives, with at least one row: only then is the initial embedding
    # regenerated, no larger than the file holds.
    if not (size == len(body) and rows >= 1 and d == settings.d
            and _embedding_layout(body, where=where) == (start, end, rows, d)):
        raise InputError(where, f"its header ({size} bytes, embedding {rows} x {d} at {start}) does not fit "
                                f"the file or the checkpoint's settings (d = {settings.d})")
    embedding = _from_byte_planes(body[start:end])
    embedding ^= _initial_embedding_words(settings, rows)
    data = b"".join((body[:start], embedding.data, body[end:]))
    if hashlib.sha256(data).hexdigest() != header["sha256"]:
        import torch
        raise InputError(where, f"does not give back the weights whose sha256 it records (made with torch "
                                f"{header['torch']}, this is torch {torch.__version__}: another initial embedding?)")
    return data


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
            atomic_write_bytes(staging / "vocab.txt.gz", read_input(vocabulary_file, expected="a vocab.txt.gz",
                                                                    limit=MAX_VOCABULARY_BYTES))
        elif vocabulary is not None:
            write_vocabulary(staging / "vocab.txt.gz", vocabulary)
        else:
            raise ValueError("write_checkpoint needs the vocabulary")
        # NaN and Infinity are refused here, naming the field (:func:`verify.core.io.json_text`): the
        # training records a diverged epoch's metrics as null (see :mod:`.model`).
        (staging / "checkpoint.json").write_text(json_text({"format": FORMAT, **meta},
                                                           where=str(directory / "checkpoint.json")),
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
    raw = _read_limited(meta_path, MAX_META_BYTES, expected="a checkpoint.json")
    try:
        # Strict (a repeated key or NaN refused), as the independent checker reads a published checkpoint.json.
        meta = json_from_bytes(raw, source=str(meta_path), expected="a checkpoint.json")
    except InputError as error:
        raise InputError(str(meta_path), f"not valid JSON ({error.message})") from None
    validate_meta(meta, str(meta_path))
    best_path, compact_path = directory / "best.safetensors", directory / COMPACT_BEST
    if best_path.exists():
        data = _read_limited(best_path, MAX_WEIGHTS_BYTES, expected="a safetensors weights file")
        if compact_path.exists() and hashlib.sha256(data).hexdigest() != compact_header(compact_path)["sha256"]:
            # Both forms of the selected weights, and they differ: neither one can be chosen.
            raise InputError(str(best_path), f"differs from the weights {COMPACT_BEST} beside it holds (its "
                                             f"sha256); a published folder holds one form of them")
        best = ModelWeights.from_arrays(_arrays_from_bytes(data, where=str(best_path)), where=str(best_path))
    elif compact_path.exists():
        expanded = expand_best_weights(compact_path, meta, meta_where=str(meta_path))
        best = ModelWeights.from_arrays(_arrays_from_bytes(expanded, where=str(compact_path)), where=str(compact_path))
    else:
        best = None
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
