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
(d,), ``decoder_bias`` (). The whole folder is replaced atomically (:func:`verify.io.atomic_directory`),
so Ctrl-C during a save leaves the previous checkpoint intact. Only numpy and safetensors are
needed to read one (no torch).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..io import atomic_directory
from ..numbers import InputError
from .preprocess import Vocabulary

__all__ = ["FORMAT", "ModelWeights", "Checkpoint", "read_checkpoint", "write_checkpoint", "WEIGHT_NAMES"]

FORMAT = "hardmax-verify/sentiment-checkpoint/1"
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


def _load_arrays(path: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load
    try:
        return load(Path(path).read_bytes())
    except FileNotFoundError:
        raise InputError(str(path), "missing from the checkpoint folder") from None
    except Exception as error:  # safetensors raises its own error types for corrupt files
        raise InputError(str(path), f"not a readable safetensors file ({error})") from None


def write_checkpoint(directory: Path, *, meta: dict, weights: ModelWeights, best: ModelWeights | None,
                     optimizer: dict[str, np.ndarray] | None, vocabulary_file: Path | None = None,
                     vocabulary: Vocabulary | None = None) -> None:
    """Replace ``directory`` by a new checkpoint, atomically."""
    from .corpus import write_vocabulary
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


def read_checkpoint(directory: Path | str, *, with_optimizer: bool = False) -> Checkpoint:
    """Read a checkpoint folder; every problem is an InputError naming the file."""
    from .corpus import read_vocabulary
    directory = Path(directory)
    meta_path = directory / "checkpoint.json"
    if not directory.is_dir():
        raise InputError(str(directory), "no such checkpoint folder")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(str(meta_path), "missing: not a checkpoint folder") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InputError(str(meta_path), f"not valid JSON ({error})") from None
    if meta.get("format") != FORMAT:
        raise InputError(str(meta_path), f"unknown format {meta.get('format')!r} (expected {FORMAT})")
    best_path = directory / "best.safetensors"
    best = ModelWeights.from_arrays(_load_arrays(best_path), where=str(best_path)) if best_path.exists() else None
    selected_only = best is not None and not (directory / "weights.safetensors").exists()
    weights = best if selected_only else ModelWeights.from_arrays(_load_arrays(directory / "weights.safetensors"),
                                                                  where=str(directory / "weights.safetensors"))
    optimizer = _load_arrays(directory / "optimizer.safetensors") if with_optimizer and (
        directory / "optimizer.safetensors").exists() else None
    vocabulary = read_vocabulary(directory / "vocab.txt.gz")
    if len(vocabulary) != weights.embedding.shape[0]:
        raise InputError(str(directory / "vocab.txt.gz"),
                         f"{len(vocabulary)} words but the embedding has {weights.embedding.shape[0]} rows")
    return Checkpoint(directory, meta, weights, best, optimizer, vocabulary, selected_only)
