"""The paper's classifier in torch (THEORY.md §5) and its resumable training loop.

    ids -> E[ids] = Z^0 (n x d) -> K layers  Z <- (Z + alpha softmax(beta Z Z^T) Z) / (1 + alpha)
        -> mean over all n tokens (padding included) -> w.z + b -> sigmoid

A = I, one attention layer shared by the K = 8 layers, beta = 1000 (the paper's temperature
0.001). alpha = softplus(alpha_raw) > 0 always (the authors' ``alpha.clamp(0)`` was out of
place, so their alpha was never constrained). Training: Adam (lr 1e-3), batch 64, gradient
norm clipped to 5, binary cross-entropy (on logits, the numerically stable form of
sigmoid + BCE), seeded.

Softmax attention is only the training surrogate; the hardmax predictions are computed by
:mod:`verify.sentiment.evaluate` with the project's one float implementation of the hardmax
rule and exact arithmetic where it cannot decide. Nothing here implements the hardmax rule.

Randomness: torch's generator, seeded, initialises the weights and is reseeded at the start of
epoch e from ``default_rng([seed, e, 1])`` for the dropout masks (if ``embedding_dropout`` > 0);
the order of the training reviews in epoch e is ``numpy.random.default_rng([seed, e]).permutation``.
So a run resumed from a checkpoint sees exactly the batches and masks an uninterrupted run would.

torch is imported inside the functions so that the rest of the package works without it.
"""

from __future__ import annotations

import math
import platform
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Callable

import numpy as np

from ..numbers import InputError
from .checkpoints import ModelWeights, read_checkpoint, write_checkpoint
from .corpus import Corpus, Split

__all__ = ["TrainingSettings", "build_model", "weights_from_model", "model_from_weights", "train",
           "softmax_scores"]

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class TrainingSettings:
    """Everything that defines a training run (recorded in the checkpoint; a resume must match)."""

    d: int = 2
    layers: int = 8
    beta: float = 1000.0
    learning_rate: float = 1e-3
    batch_size: int = 64
    gradient_clip: float = 5.0
    seed: int = 0
    alpha_init: float = 1.0
    weight_decay: float = 0.0
    # Training-time dropout on the embedded tokens Z^0 (a regulariser; evaluation, softmax and
    # hardmax alike, always uses the full embeddings). 0 is the paper's model.
    embedding_dropout: float = 0.0

    def __post_init__(self) -> None:
        for name in ("d", "layers", "batch_size"):
            if getattr(self, name) < 1:
                raise InputError(name, f"expected a positive integer, got {getattr(self, name)}")
        for name in ("beta", "learning_rate", "gradient_clip", "alpha_init"):
            if not getattr(self, name) > 0:
                raise InputError(name, f"expected a positive number, got {getattr(self, name)}")
        if not 0 <= self.embedding_dropout < 1:
            raise InputError("embedding_dropout", f"expected a probability in [0, 1), got {self.embedding_dropout}")


_MODEL_CLASS = None


def _model_class():
    global _MODEL_CLASS
    if _MODEL_CLASS is None:
        import torch
        from torch import nn
        from torch.nn import functional as F

        class SentimentTransformer(nn.Module):
            """Embedding -> K shared softmax-attention layers (A = I) -> mean -> linear (logit)."""

            def __init__(self, vocab_size: int, d: int, *, layers: int, beta: float, alpha_init: float,
                         embedding_dropout: float = 0.0) -> None:
                super().__init__()
                self.layers = layers
                self.beta = beta
                self.embedding = nn.Embedding(vocab_size, d)
                # softplus^{-1}(alpha_init): alpha starts at alpha_init and can never reach 0.
                self.alpha_raw = nn.Parameter(torch.tensor(math.log(math.expm1(alpha_init)), dtype=torch.float32))
                self.decoder = nn.Linear(d, 1)
                # Active only in train() mode; nn.Dropout draws from torch's seeded global generator.
                self.embedding_dropout = nn.Dropout(embedding_dropout)

            def alpha(self) -> "torch.Tensor":
                return F.softplus(self.alpha_raw)

            def forward(self, ids: "torch.Tensor") -> "torch.Tensor":
                z = self.embedding_dropout(self.embedding(ids))
                a = self.alpha()
                for _ in range(self.layers):
                    attention = torch.softmax(self.beta * (z @ z.transpose(1, 2)), dim=-1)
                    z = (z + a * (attention @ z)) / (1 + a)
                return self.decoder(z.mean(dim=1)).squeeze(-1)

        _MODEL_CLASS = SentimentTransformer
    return _MODEL_CLASS


def build_model(vocab_size: int, settings: TrainingSettings):
    """A freshly initialised model (torch's generator seeded with ``settings.seed``)."""
    import torch
    torch.manual_seed(settings.seed)
    return _model_class()(vocab_size, settings.d, layers=settings.layers, beta=settings.beta,
                          alpha_init=settings.alpha_init, embedding_dropout=settings.embedding_dropout)


def weights_from_model(model) -> ModelWeights:
    import torch
    with torch.no_grad():
        return ModelWeights(
            embedding=model.embedding.weight.detach().numpy().astype(np.float32, copy=True),
            alpha_raw=model.alpha_raw.detach().numpy().astype(np.float32, copy=True),
            alpha=model.alpha().detach().numpy().astype(np.float32, copy=True),
            decoder_weight=model.decoder.weight.detach().numpy().reshape(-1).astype(np.float32, copy=True),
            decoder_bias=model.decoder.bias.detach().numpy().reshape(()).astype(np.float32, copy=True),
        )


def model_from_weights(weights: ModelWeights, settings: TrainingSettings):
    import torch
    model = _model_class()(weights.embedding.shape[0], weights.d, layers=settings.layers, beta=settings.beta,
                           alpha_init=1.0, embedding_dropout=settings.embedding_dropout)
    with torch.no_grad():
        model.embedding.weight.copy_(torch.from_numpy(weights.embedding))
        model.alpha_raw.copy_(torch.from_numpy(np.asarray(weights.alpha_raw)))
        model.decoder.weight.copy_(torch.from_numpy(weights.decoder_weight.reshape(1, -1)))
        model.decoder.bias.copy_(torch.from_numpy(np.asarray(weights.decoder_bias).reshape(1)))
    return model


def softmax_scores(model, ids: np.ndarray, *, batch_size: int = 256) -> np.ndarray:
    """Softmax-model logits for the reviews ``ids`` (N, n) (float evidence, not certified)."""
    import torch
    out = np.empty(len(ids), dtype=np.float64)
    model.eval()
    with torch.no_grad():
        for start in range(0, len(ids), batch_size):
            batch = torch.from_numpy(np.asarray(ids[start:start + batch_size], dtype=np.int64))
            out[start:start + batch_size] = model(batch).double().numpy()
    return out


def _bce_and_accuracy(logits: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    y = labels.astype(np.float64)
    # log(1 + exp(-|x|)) form: stable for the large logits a beta = 1000 model produces.
    loss = np.maximum(logits, 0) - logits * y + np.log1p(np.exp(-np.abs(logits)))
    return float(loss.mean()), float(((logits > 0) == (labels == 1)).mean())


def _optimizer_arrays(model, optimizer) -> dict[str, np.ndarray]:
    arrays = {}
    names = {id(p): n for n, p in model.named_parameters()}
    for group in optimizer.param_groups:
        for p in group["params"]:
            state = optimizer.state.get(p, {})
            for key, value in state.items():
                # Adam keeps float32 moments and a float32 step counter (exact up to 2^24 steps).
                arrays[f"{names[id(p)]}.{key}"] = value.detach().numpy().copy()
    return arrays


def _restore_optimizer(model, optimizer, arrays: dict[str, np.ndarray]) -> None:
    import torch
    for name, p in model.named_parameters():
        state = {}
        for key in ("step", "exp_avg", "exp_avg_sq"):
            if f"{name}.{key}" in arrays:
                state[key] = torch.from_numpy(np.array(arrays[f"{name}.{key}"]))
        if state:
            optimizer.state[p] = state


def _versions() -> dict[str, str]:
    import torch
    return {"python": platform.python_version(), "torch": torch.__version__, "numpy": np.__version__}


def train(corpus: Corpus, split: Split, *, settings: TrainingSettings, out_dir: Path, epochs: int,
          patience: int | None = 20, hardmax_every: int = 5, threads: int = 1,
          data_description: dict | None = None, progress: Progress | None = None,
          log: Callable[[str], None] | None = None) -> dict:
    """Train (or resume training) and checkpoint after every epoch; returns the final metadata.

    Parameters
    ----------
    epochs
        Total number of epochs wanted (a resumed run continues up to this number).
    patience
        Early stopping: stop when the validation accuracy has not improved for this many epochs.
    hardmax_every
        Every this many epochs, also evaluate the certified hardmax model on validation and test
        (0 = never; it costs about one certified evaluation per call).
    threads
        torch.set_num_threads (the machine is shared; 1 by default).
    """
    import torch
    from torch import nn

    from .evaluate import certified_evaluation

    torch.set_num_threads(threads)
    # The certified hardmax evaluation runs a numba parallel kernel. Numba's OpenMP layer shares
    # torch's libgomp and leaves the OpenMP thread count at all cores, after which torch's own
    # parallel regions run on 2 threads despite set_num_threads(1): measured, 37 s epochs became
    # 105 s with two trainings on 2 cores. Cap numba at the same count.
    import numba

    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    out_dir = Path(out_dir)
    data_description = dict(data_description or {})
    identity = {"settings": asdict(settings), "split": split.describe(), "data": data_description,
                "vocabulary_size": len(corpus.vocabulary)}
    model = build_model(len(corpus.vocabulary), settings)
    optimizer = torch.optim.Adam(model.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay)
    history: list[dict] = []
    best: dict | None = None
    best_weights: ModelWeights | None = None
    start_epoch = 0
    if (out_dir / "checkpoint.json").exists():
        checkpoint = read_checkpoint(out_dir, with_optimizer=True)
        if checkpoint.selected_only:
            raise InputError(str(out_dir), "holds only the selected weights (best.safetensors, no weights.safetensors): "
                                           "a published checkpoint that training cannot resume; choose another --out folder")
        recorded = {k: checkpoint.meta.get(k) for k in identity}
        if isinstance(recorded["settings"], dict):
            # A setting added after the checkpoint was written has the default that reproduces the
            # older runs (embedding_dropout = 0), so such runs still resume.
            recorded["settings"] = {**{f.name: f.default for f in fields(TrainingSettings)}, **recorded["settings"]}
        if recorded != identity:
            raise InputError(str(out_dir), "holds a checkpoint of a different run (settings, split or data differ); "
                                           "choose another --out folder")
        if tuple(checkpoint.vocabulary.words) != tuple(corpus.vocabulary.words):
            raise InputError(str(out_dir), "the checkpoint's vocabulary differs from this data's")
        model = model_from_weights(checkpoint.weights, settings)
        optimizer = torch.optim.Adam(model.parameters(), lr=settings.learning_rate,
                                     weight_decay=settings.weight_decay)
        _restore_optimizer(model, optimizer, checkpoint.optimizer or {})
        history = list(checkpoint.meta.get("history", []))
        best = checkpoint.meta.get("best")
        best_weights = checkpoint.best
        start_epoch = int(checkpoint.meta.get("epochs_completed", 0))
        if log:
            log(f"resuming {out_dir} after epoch {start_epoch}")

    criterion = nn.BCEWithLogitsLoss()
    train_ids = corpus.ids[split.train]
    train_labels = corpus.labels[split.train].astype(np.float32)
    meta: dict = {}
    for epoch in range(start_epoch, epochs):
        if patience is not None and best is not None and epoch - int(best["epoch"]) >= patience:
            if log:
                log(f"early stop: no validation improvement since epoch {best['epoch']}")
            break
        started = time.perf_counter()
        model.train()
        order = np.random.default_rng([settings.seed, epoch]).permutation(len(train_ids))
        # Dropout masks come from torch's global generator: reseeding it per epoch from
        # (seed, epoch) keeps a resumed run identical to an uninterrupted one.
        torch.manual_seed(int(np.random.default_rng([settings.seed, epoch, 1]).integers(2**62)))
        batches = range(0, len(order), settings.batch_size)
        total_loss, total_correct = 0.0, 0
        for b, start in enumerate(batches):
            rows = order[start:start + settings.batch_size]
            ids = torch.from_numpy(train_ids[rows].astype(np.int64))
            target = torch.from_numpy(train_labels[rows])
            optimizer.zero_grad(set_to_none=True)
            logits = model(ids)
            loss = criterion(logits, target)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), settings.gradient_clip)
            optimizer.step()
            total_loss += float(loss.detach()) * len(rows)
            total_correct += int(((logits.detach() > 0) == (target > 0.5)).sum())
            if progress is not None:
                progress(f"epoch {epoch + 1}/{epochs}", b + 1, len(batches))
        entry = {"epoch": epoch + 1, "train_loss": total_loss / len(order), "train_acc": total_correct / len(order),
                 "alpha": float(model.alpha().detach())}
        for name, rows in (("val", split.validation), ("test", split.test)):
            if len(rows):
                loss_value, accuracy = _bce_and_accuracy(softmax_scores(model, corpus.ids[rows]),
                                                         corpus.labels[rows])
                entry[f"{name}_loss"], entry[f"{name}_acc"] = loss_value, accuracy
        weights = weights_from_model(model)
        if hardmax_every and ((epoch + 1) % hardmax_every == 0 or epoch + 1 == epochs):
            # Train too: the paper compares softmax and hardmax *training* losses (THEORY.md §5).
            for name, rows in (("train", split.train), ("val", split.validation), ("test", split.test)):
                if len(rows):
                    result = certified_evaluation(weights, corpus.ids[rows], corpus.labels[rows],
                                                  layers=settings.layers)
                    entry[f"hardmax_{name}_acc"] = result.accuracy
                    entry[f"hardmax_{name}_loss"] = result.loss
                    entry[f"hardmax_{name}_exact_path"] = result.exact_path
        entry["seconds"] = time.perf_counter() - started
        history.append(entry)
        selection = entry.get("val_acc", entry["train_acc"])
        if best is None or selection > best["val_acc"]:
            best = {"epoch": epoch + 1, "val_acc": selection, "test_acc": entry.get("test_acc")}
            best_weights = weights
        meta = {**identity, "epochs_completed": epoch + 1, "history": history, "best": best,
                "selection": "validation softmax accuracy (the test set is never used for selection)",
                "versions": _versions()}
        write_checkpoint(out_dir, meta=meta, weights=weights, best=best_weights,
                         optimizer=_optimizer_arrays(model, optimizer), vocabulary=corpus.vocabulary)
        if log:
            shown = {k: round(v, 4) if isinstance(v, float) else v for k, v in entry.items()}
            log(f"epoch {epoch + 1}: {shown}")
    if not meta and (out_dir / "checkpoint.json").exists():
        meta = read_checkpoint(out_dir).meta
    return meta
