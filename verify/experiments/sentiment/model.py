"""The paper's classifier in torch (docs/theory.md §5) and its resumable training loop.

    ids -> E[ids] = Z^0 (n x d) -> K layers  Z <- (Z + alpha softmax(beta Z Z^T) Z) / (1 + alpha)
        -> mean over all n tokens (padding included) -> w.z + b -> sigmoid

A = I, one attention layer shared by the K = 8 layers, beta = 1000 (the paper's temperature
0.001). alpha = softplus(alpha_raw) > 0 always (the authors' ``alpha.clamp(0)`` was out of
place, so their alpha was never constrained). Training: Adam (lr 1e-3), batch 64, gradient
norm clipped to 5, binary cross-entropy (on logits, the numerically stable form of
sigmoid + BCE), seeded.

Two equivalent ways to run the attention in training, recorded in the settings:

* over all n token positions (``merged_tokens = False``, the earlier runs);
* over each review's distinct tokens (``merged_tokens = True``): equal tokens stay equal
  (docs/theory.md D5), so the m copies of a token are one row whose attention weight is
  multiplied by m, i.e. softmax over distinct tokens of beta z_i.z_u + log m_u, and the mean
  over the n positions is sum_u m_u z_u / n. The same function, computed on fewer rows
  (rounding differs; ``bench/train_epoch.py`` measures the difference and the time).

Two implementations of the training step compute the same function and differ only in rounding
(:data:`STEPS`; chosen by ``train(step=...)``, not a setting, so a run may resume under the other):
``reference`` (torch autograd through the layers above, Adam one tensor at a time) and
``compiled`` (the default: the layers' forward and backward passes by
:mod:`verify.experiments.sentiment.attention_kernel`, which visits only the softmax entries that are not 0,
and torch's fused Adam). Each epoch records which one trained it. Evaluation (validation, the
training subset, :func:`softmax_scores`) always runs the reference forward pass.

``bucket_batches = B > 0`` sorts each pool of B batches' worth of shuffled reviews by their
number of distinct tokens before cutting it into batches, then shuffles the batches, so a
batch pads its reviews to similar sizes.

Softmax attention is only the training surrogate; the hardmax predictions are computed by
:mod:`verify.experiments.sentiment.evaluate` with the project's one float implementation of the hardmax
rule and exact arithmetic where it cannot decide. Nothing here implements the hardmax rule.

Randomness: torch's generator, seeded, initialises the weights and is reseeded at the start of
epoch e from ``default_rng([seed, e, 1])`` for the dropout masks (if ``embedding_dropout`` > 0);
the order of the training reviews in epoch e is ``numpy.random.default_rng([seed, e]).permutation``
(with bucketing, the batch order is then ``default_rng([seed, e, 2]).permutation``).
So a run resumed from a checkpoint sees exactly the batches and masks an uninterrupted run would.

Each epoch's history entry records the training reviews two ways:

* ``train_running_loss`` / ``train_running_acc``: the mean over the epoch's batches, taken while
  the weights change and with dropout on (cheap, but not comparable with the validation numbers;
  older checkpoints call them ``train_loss`` / ``train_acc``, and
  :func:`running_train` reads both);
* ``train_subset_loss`` / ``train_subset_acc``: at the end of the epoch, exactly as the
  validation reviews are evaluated (``val_loss`` / ``val_acc``: eval mode, no dropout, softmax
  attention), on a fixed subset of the training reviews as large as the validation set
  (:func:`train_subset_rows`, the same subset every epoch; recorded as ``train_subset`` in the
  checkpoint), so the cost is one more validation pass.

A number of an entry that is NaN or infinite (a loss that overflowed) is recorded as null, and the
entry's ``not_finite`` names it with its value (``{"val_loss": "nan"}``): JSON has no such numbers,
and checkpoint.json stays readable (:func:`recorded_entry`). An epoch that leaves NaN or infinity in
the weights (training diverged) ends the training with :class:`TrainingDiverged` before anything of
that epoch is written: the folder keeps the checkpoint of the epoch before.

torch is imported inside the functions so that the rest of the package works without it.
"""

from __future__ import annotations

import math
import platform
import time
from dataclasses import asdict, fields
from pathlib import Path
from typing import Callable

import numpy as np

from verify.core.exitcodes import CouldNotComplete
from verify.core.numbers import InputError
from verify.core.versions import git_commit
from verify.experiments.imdb.corpus import Corpus, Split
from .checkpoints import ModelWeights, read_checkpoint, write_checkpoint, write_weights
from .network import TrainingSettings, model_class, build_model
from .evaluate import certified_evaluation

__all__ = ["TrainingSettings", "build_model", "weights_from_model", "model_from_weights", "train",
           "softmax_scores", "merge_tokens", "epoch_batches", "softmax_scores_for_snapshots", "train_subset_rows",
           "running_train", "selection_accuracy", "STEPS", "DEFAULT_STEP", "training_record", "epoch_stretches",
           "training_step", "step_inputs", "build_optimizer", "recorded_entry", "TrainingDiverged"]

Progress = Callable[[str, int, int], None]


# How a training step is computed; not a setting: both compute the same function (only rounding
# differs), so a run may change implementation when it resumes. Each epoch records its own.
#   reference: torch autograd through the attention layers, Adam one tensor at a time;
#   compiled:  the attention layers by verify.experiments.sentiment.attention_kernel (numba), fused Adam.
STEPS = ("compiled", "reference")
DEFAULT_STEP = "compiled"
# What an epoch entry written before the implementation was recorded was trained by.
_UNRECORDED_STEP = "reference"
_UNRECORDED_CODE = "not recorded"


class TrainingDiverged(CouldNotComplete):
    """An epoch left NaN or infinity in the weights; nothing of it was written (exit status 4)."""


def recorded_entry(entry: dict) -> dict:
    """An epoch's history entry as checkpoint.json records it: a number that is NaN or infinite is null,
    and ``not_finite`` names each such field with its value ("nan", "inf" or "-inf")."""
    recorded: dict = {}
    not_finite: dict[str, str] = {}
    for key, value in entry.items():
        if isinstance(value, float) and not math.isfinite(value):
            recorded[key], not_finite[key] = None, repr(float(value))
        else:
            recorded[key] = value
    if not_finite:
        recorded["not_finite"] = not_finite
    return recorded


def merge_tokens(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each review's distinct token ids and multiplicities.

    Returns ``tokens`` (N, n) int64 with the distinct ids of row r (rising) in its first
    ``distinct[r]`` slots and 0 after, ``counts`` (N, n) float32 with their multiplicities and
    0 after, and ``distinct`` (N,).
    """
    ids = np.asarray(ids)
    N, n = ids.shape
    ordered = np.sort(ids, axis=1)
    first = np.ones((N, n), dtype=bool)
    first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    slot = np.cumsum(first, axis=1) - 1
    flat = (np.arange(N)[:, None] * n + slot).ravel()
    counts = np.bincount(flat, minlength=N * n).reshape(N, n).astype(np.float32)
    tokens = np.zeros((N, n), dtype=np.int64)
    tokens[np.nonzero(first)[0], slot[first]] = ordered[first]
    return tokens, counts, first.sum(axis=1)


def epoch_batches(count: int, *, seed: int, epoch: int, batch_size: int, bucket_batches: int = 0,
                  distinct: np.ndarray | None = None) -> list[np.ndarray]:
    """The training batches of one epoch (positions into the training rows), from (seed, epoch) alone."""
    order = np.random.default_rng([seed, epoch]).permutation(count)
    if not bucket_batches:
        return [order[start:start + batch_size] for start in range(0, count, batch_size)]
    if distinct is None:
        raise ValueError("bucketing needs the distinct-token counts")
    pool = bucket_batches * batch_size
    batches: list[np.ndarray] = []
    for start in range(0, count, pool):
        chunk = order[start:start + pool]
        chunk = chunk[np.argsort(distinct[chunk], kind="stable")]
        batches.extend(chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size))
    shuffle = np.random.default_rng([seed, epoch, 2]).permutation(len(batches))
    return [batches[i] for i in shuffle]


# The third entry of the seed of the training subset's generator, [seed, 0, 3]: the per-epoch
# streams are [seed, e], [seed, e, 1] and [seed, e, 2], so none of them is this one.
_TRAIN_SUBSET_STREAM = 3


def train_subset_rows(train_count: int, size: int, *, seed: int) -> np.ndarray:
    """The training positions evaluated at the end of every epoch like the validation reviews.

    ``min(size, train_count)`` distinct positions in ``range(train_count)``, rising, drawn by
    ``numpy.random.default_rng([seed, 0, 3]).choice`` without replacement: fixed by the seed, so
    every epoch, and a resumed run, evaluates the same reviews.
    """
    size = min(int(size), int(train_count))
    if size <= 0:
        return np.zeros(0, dtype=np.int64)
    rng = np.random.default_rng([seed, 0, _TRAIN_SUBSET_STREAM])
    return np.sort(rng.choice(int(train_count), size=size, replace=False)).astype(np.int64)


def running_train(entry: dict, metric: str) -> float | None:
    """An epoch's running mean over its batches of ``metric`` ("loss" or "acc"), under either recorded name."""
    value = entry.get(f"train_running_{metric}", entry.get(f"train_{metric}"))
    return None if value is None else float(value)


def selection_accuracy(entry: dict) -> float:
    """What selects the best epoch: the validation softmax accuracy (the running train accuracy without validation)."""
    if "val_acc" in entry:
        return float(entry["val_acc"])
    running = running_train(entry, "acc")
    if running is None:
        raise InputError("history", f"epoch {entry.get('epoch')} records neither val_acc nor a train accuracy")
    return running


def epoch_stretches(history: list[dict], key: str) -> list[dict]:
    """Runs of consecutive epochs with the same ``key`` in their history entries: ``[{key: value, "epochs": [first, last]}]``.

    An entry without ``key`` was written before it was recorded: for "step" that is the
    reference step (the only one then), for "code" the value is "not recorded".
    """
    missing = _UNRECORDED_STEP if key == "step" else _UNRECORDED_CODE
    stretches: list[dict] = []
    for entry in history:
        value, epoch = entry.get(key, missing), int(entry["epoch"])
        if stretches and stretches[-1][key] == value and stretches[-1]["epochs"][1] == epoch - 1:
            stretches[-1]["epochs"][1] = epoch
        else:
            stretches.append({key: value, "epochs": [epoch, epoch]})
    return stretches


def training_record(history: list[dict]) -> dict:
    """What trained a run and what it cost, summed over every stretch of training (each resumption).

    ``training_step``: "compiled", "reference" or "mixed" (then ``step_implementations`` says
    which epochs each trained); ``code_commits``: the package's git commit per stretch of epochs;
    ``training_wall_seconds`` / ``training_cpu_seconds``: the sums of the epochs' ``seconds``
    (wall clock) and ``cpu_seconds`` (this process's CPU time, every thread), rounded to 0.1 s;
    ``training_cpu_seconds_epochs``: how many epochs recorded their CPU time (epochs trained by
    code that did not record it are missing from that sum, and only from it).
    """
    steps = epoch_stretches(history, "step")
    kinds = {stretch["step"] for stretch in steps}
    cpu = [float(entry["cpu_seconds"]) for entry in history if "cpu_seconds" in entry]
    return {"training_step": kinds.pop() if len(kinds) == 1 else ("mixed" if kinds else None),
            "step_implementations": steps, "code_commits": epoch_stretches(history, "code"),
            "training_wall_seconds": round(sum(float(entry.get("seconds", 0.0)) for entry in history), 1),
            "training_cpu_seconds": round(sum(cpu), 1), "training_cpu_seconds_epochs": len(cpu)}


def _epochs_text(epochs: list[int]) -> str:
    return f"epoch {epochs[0]}" if epochs[0] == epochs[1] else f"epochs {epochs[0]}-{epochs[1]}"


def _code_version() -> str:
    """The git commit of this package's checkout ("+dirty" when modified), or "unknown" outside git."""
    return git_commit(Path(__file__).resolve().parent) or "unknown"


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
    model = model_class()(weights.embedding.shape[0], weights.d, layers=settings.layers, beta=settings.beta,
                           alpha_init=1.0, embedding_dropout=settings.embedding_dropout)
    with torch.no_grad():
        model.embedding.weight.copy_(torch.from_numpy(weights.embedding))
        model.alpha_raw.copy_(torch.from_numpy(np.asarray(weights.alpha_raw)))
        model.decoder.weight.copy_(torch.from_numpy(weights.decoder_weight.reshape(1, -1)))
        model.decoder.bias.copy_(torch.from_numpy(np.asarray(weights.decoder_bias).reshape(1)))
    model.alpha_raw.requires_grad_(settings.train_alpha)
    return model


def softmax_scores(model, ids: np.ndarray, *, batch_size: int = 256, merged: bool = False,
                   merged_ids: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
                   progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Softmax-model logits for the reviews ``ids`` (N, n) (float evidence, not certified).

    ``merged`` runs the attention over distinct tokens, reviews sorted by their number (the
    same function, faster); ``merged_ids`` is :func:`merge_tokens` of ``ids`` when already known.
    ``progress(done, total)`` is called after each batch (the last call has done == total).
    """
    import torch
    out = np.empty(len(ids), dtype=np.float64)
    model.eval()
    with torch.no_grad():
        if not merged:
            for start in range(0, len(ids), batch_size):
                batch = torch.from_numpy(np.asarray(ids[start:start + batch_size], dtype=np.int64))
                out[start:start + batch_size] = model(batch).double().numpy()
                if progress is not None:
                    progress(min(start + batch_size, len(ids)), len(ids))
            return out
        tokens, counts, distinct = merged_ids if merged_ids is not None else merge_tokens(ids)
        order = np.argsort(distinct, kind="stable")
        for start in range(0, len(ids), batch_size):
            rows = order[start:start + batch_size]
            width = int(distinct[rows].max())
            out[rows] = model.forward_merged(torch.from_numpy(tokens[rows, :width]),
                                             torch.from_numpy(counts[rows, :width])).double().numpy()
            if progress is not None:
                progress(min(start + batch_size, len(ids)), len(ids))
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
    import numba
    import torch
    return {"python": platform.python_version(), "torch": torch.__version__, "numpy": np.__version__,
            "numba": numba.__version__}


def train(corpus: Corpus, split: Split, *, settings: TrainingSettings, out_dir: Path, epochs: int,
          patience: int | None = 20, hardmax_every: int = 0, threads: int = 1,
          data_description: dict | None = None, epoch_weights_dir: Path | None = None,
          progress: Progress | None = None, log: Callable[[str], None] | None = None,
          on_epoch: Callable[[dict], None] | None = None, step: str = DEFAULT_STEP) -> dict:
    """Train (or resume training) and checkpoint after every epoch; returns the final metadata.

    The test reviews are never looked at here: selection is on validation, and the test set is
    evaluated once, after training (``sentiment evaluate``, the protocol runner).

    Parameters
    ----------
    epochs
        Total number of epochs wanted (a resumed run continues up to this number).
    patience
        Early stopping: stop when the validation accuracy has not improved for this many epochs.
    hardmax_every
        Every this many epochs, also evaluate the certified hardmax model on the training and
        validation reviews (0 = never; it costs about one certified evaluation per call).
    threads
        torch.set_num_threads (the machine is shared; 1 by default).
    on_epoch
        Called with each epoch's history entry once its checkpoint is written (the CLI prints it
        as a table row); without it, ``log`` gets the entry as one line (:func:`epoch_line`).
    epoch_weights_dir
        If given, every epoch's weights are also written there (``epoch-NNN.safetensors``), for
        end-of-run measurements over epochs (the paper's max-over-epochs test accuracy).
    step
        How each training step is computed (:data:`STEPS`): "compiled" (the default: the
        attention layers by :mod:`.attention_kernel`, fused Adam) or "reference" (torch autograd,
        Adam one tensor at a time). The same function either way, so it is not a setting: a run
        may resume under the other one. Each epoch's history entry records its ``step``, the
        package's git commit (``code``), its wall and CPU seconds; the checkpoint's metadata sums
        them up (:func:`training_record`).
    """
    import torch
    from torch import nn

    if step not in STEPS:
        raise InputError("step", f"expected one of {', '.join(STEPS)}, got {step!r}")
    code = _code_version()
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
    optimizer = build_optimizer(model, settings, step=step)
    history: list[dict] = []
    best: dict | None = None
    best_weights: ModelWeights | None = None
    start_epoch = 0
    if (out_dir / "checkpoint.json").exists():
        checkpoint = read_checkpoint(out_dir, with_optimizer=True)
        if checkpoint.selected_only:
            raise InputError(str(out_dir), "holds only the selected weights (no weights.safetensors): "
                                           "a published checkpoint that training cannot resume; choose another --out folder")
        recorded = {k: checkpoint.meta.get(k) for k in identity}
        if isinstance(recorded["settings"], dict):
            # A setting added after the checkpoint was written has the default that reproduces the
            # older runs (embedding_dropout = 0, ...), so such runs still resume.
            recorded["settings"] = {**{f.name: f.default for f in fields(TrainingSettings)}, **recorded["settings"]}
        if recorded != identity:
            raise InputError(str(out_dir), "holds a checkpoint of a different run (settings, split or data differ); "
                                           "choose another --out folder")
        if tuple(checkpoint.vocabulary.words) != tuple(corpus.vocabulary.words):
            raise InputError(str(out_dir), "the checkpoint's vocabulary differs from this data's")
        model = model_from_weights(checkpoint.weights, settings)
        optimizer = build_optimizer(model, settings, step=step)
        _restore_optimizer(model, optimizer, checkpoint.optimizer or {})
        history = list(checkpoint.meta.get("history", []))
        best = checkpoint.meta.get("best")
        best_weights = checkpoint.best
        start_epoch = int(checkpoint.meta.get("epochs_completed", 0))
        if log:
            before = ", ".join(f"{_epochs_text(s['epochs'])} by the {s['step']} step"
                               for s in epoch_stretches(history, "step"))
            log(f"resuming {out_dir} after epoch {start_epoch}" + (f" (trained {before}), continuing with the "
                                                                   f"{step} step" if before else ""))

    criterion = nn.BCEWithLogitsLoss()
    train_ids = corpus.ids[split.train]
    train_labels = corpus.labels[split.train].astype(np.float32)
    merged = merge_tokens(train_ids) if settings.merged_tokens or settings.bucket_batches else None
    validation_merged = merge_tokens(corpus.ids[split.validation]) if settings.merged_tokens else None
    subset = split.train[train_subset_rows(len(split.train), len(split.validation), seed=settings.seed)]
    subset_merged = merge_tokens(corpus.ids[subset]) if settings.merged_tokens and len(subset) else None
    subset_record = {"reviews": int(len(subset)), "of": int(len(split.train)),
                     "drawn_by": "numpy.random.default_rng([seed, 0, 3]).choice(train reviews, reviews, "
                                 "replace=False), the same every epoch"}
    meta: dict = {}
    for epoch in range(start_epoch, epochs):
        if patience is not None and best is not None and epoch - int(best["epoch"]) >= patience:
            if log:
                log(f"early stop: no validation improvement since epoch {best['epoch']}")
            break
        started, started_cpu = time.perf_counter(), time.process_time()
        model.train()
        batches = epoch_batches(len(train_ids), seed=settings.seed, epoch=epoch, batch_size=settings.batch_size,
                                bucket_batches=settings.bucket_batches,
                                distinct=None if merged is None else merged[2])
        # Dropout masks come from torch's global generator: reseeding it per epoch from
        # (seed, epoch) keeps a resumed run identical to an uninterrupted one.
        torch.manual_seed(int(np.random.default_rng([settings.seed, epoch, 1]).integers(2**62)))
        total_loss, total_correct = 0.0, 0
        for b, rows in enumerate(batches):
            target = torch.from_numpy(train_labels[rows])
            loss, logits = training_step(model, optimizer, criterion, step_inputs(settings, rows, train_ids, merged),
                                         target, settings=settings, step=step)
            total_loss += float(loss) * len(rows)
            total_correct += int(((logits > 0) == (target > 0.5)).sum())
            if progress is not None:
                progress(f"epoch {epoch + 1}/{epochs}", b + 1, len(batches))
        entry: dict = {"epoch": epoch + 1, "train_running_loss": total_loss / len(train_ids),
                       "train_running_acc": total_correct / len(train_ids), "alpha": float(model.alpha().detach())}
        # The same evaluation for both (softmax_scores: eval mode, no dropout), so the curves compare.
        for key, rows, rows_merged, phase in (("train_subset", subset, subset_merged, "train subset (softmax)"),
                                              ("val", split.validation, validation_merged, "validation (softmax)")):
            if len(rows):
                scores = softmax_scores(model, corpus.ids[rows], merged=settings.merged_tokens,
                                        merged_ids=rows_merged, progress=_phase(progress, phase))
                entry[f"{key}_loss"], entry[f"{key}_acc"] = _bce_and_accuracy(scores, corpus.labels[rows])
        weights = weights_from_model(model)
        if hardmax_every and ((epoch + 1) % hardmax_every == 0 or epoch + 1 == epochs):
            # Train too: the paper compares softmax and hardmax *training* losses (docs/theory.md §5).
            for name, rows in (("train", split.train), ("val", split.validation)):
                if len(rows):
                    result = certified_evaluation(
                        weights, corpus.ids[rows], corpus.labels[rows], layers=settings.layers,
                        progress=_phase(progress, f"{name} (hardmax, certified)"))
                    entry[f"hardmax_{name}_acc"] = result.accuracy
                    entry[f"hardmax_{name}_loss"] = result.loss
                    entry[f"hardmax_{name}_exact_path"] = result.exact_path
        entry["seconds"] = time.perf_counter() - started
        entry["cpu_seconds"] = time.process_time() - started_cpu
        entry["step"], entry["code"] = step, code
        if not all(np.isfinite(array).all() for array in weights.to_arrays().values()):
            kept = f"{out_dir} keeps the checkpoint of epoch {epoch}" if epoch else f"nothing was written to {out_dir}"
            raise TrainingDiverged(f"training diverged in epoch {epoch + 1}: the weights hold NaN or infinity "
                                   f"(running training loss {entry['train_running_loss']:.4g}); {kept}")
        history.append(recorded_entry(entry))
        selection = selection_accuracy(entry)
        if best is None or selection > best["val_acc"]:
            best = {"epoch": epoch + 1, "val_acc": selection}
            best_weights = weights
        meta = {**identity, "epochs_completed": epoch + 1, "history": history, "best": best,
                "train_subset": subset_record,
                "selection": "validation softmax accuracy (the test set is never used for selection)",
                **training_record(history), "versions": _versions()}
        if epoch_weights_dir is not None:
            # Before the checkpoint: a checkpoint never claims an epoch whose snapshot is missing.
            write_weights(Path(epoch_weights_dir) / f"epoch-{epoch + 1:03d}.safetensors", weights)
        write_checkpoint(out_dir, meta=meta, weights=weights, best=best_weights,
                         optimizer=_optimizer_arrays(model, optimizer), vocabulary=corpus.vocabulary)
        if on_epoch is not None:
            on_epoch(entry)
        elif log:
            log(epoch_line(entry))
    if not meta and (out_dir / "checkpoint.json").exists():
        meta = read_checkpoint(out_dir).meta
    return meta


def _phase(progress: Progress | None, phase: str) -> Callable[[int, int], None] | None:
    """``progress`` for one named phase, as a ``(done, total)`` callback."""
    if progress is None:
        return None
    report = progress
    return lambda done, total: report(phase, done, total)


def epoch_line(entry: dict) -> str:
    """One epoch of the training history in one readable line (for logs)."""
    parts = [f"epoch {entry['epoch']}:"]
    for key, value in entry.items():
        if key == "epoch":
            continue
        parts.append(f"{key.replace('_', ' ')} {value:.4g}" if isinstance(value, float) else
                     f"{key.replace('_', ' ')} {value}")
    return " ".join(parts[:1]) + " " + ", ".join(parts[1:])


def step_inputs(settings: TrainingSettings, rows: np.ndarray, train_ids: np.ndarray,
                merged: tuple[np.ndarray, np.ndarray, np.ndarray] | None) -> tuple:
    """The model's inputs for the training rows ``rows``: (tokens, counts) cut to the batch's widest
    review with merged tokens (``merged`` is :func:`merge_tokens` of ``train_ids``), else (ids,)."""
    import torch
    if settings.merged_tokens:
        if merged is None:
            raise ValueError("merged-token attention needs merge_tokens of the training reviews")
        width = int(merged[2][rows].max())
        return torch.from_numpy(merged[0][rows, :width]), torch.from_numpy(merged[1][rows, :width])
    return (torch.from_numpy(train_ids[rows].astype(np.int64)),)


def training_step(model, optimizer, criterion, inputs: tuple, target, *, settings: TrainingSettings, step: str):
    """One optimiser step on one batch (the loss, gradient clipping, Adam); returns the batch's loss and logits, detached.

    ``step`` selects the implementation (:data:`STEPS`); ``optimizer`` is :func:`build_optimizer`'s
    for the same ``step``.
    """
    from torch import nn
    compiled = step == "compiled"
    optimizer.zero_grad(set_to_none=True)
    if settings.merged_tokens:
        logits = model.forward_merged(*inputs, compiled=compiled)
    else:
        logits = model(*inputs, compiled=compiled)
    loss = criterion(logits, target)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), settings.gradient_clip)
    optimizer.step()
    return loss.detach(), logits.detach()


def build_optimizer(model, settings: TrainingSettings, *, step: str):
    """The Adam optimiser of the training step ``step`` (fused for the compiled step)."""
    return _adam(model, settings, fused=step == "compiled")


def _adam(model, settings: TrainingSettings, *, fused: bool = False):
    """Adam over the trained parameters; ``fused``: torch's one-kernel update (the same update, rounded
    in another order), with the same state (``step``, ``exp_avg``, ``exp_avg_sq``) either way."""
    import torch
    # A fixed alpha is left out of the optimiser (and of its saved state).
    parameters = [p for p in model.parameters() if p.requires_grad]
    return torch.optim.Adam(parameters, lr=settings.learning_rate, weight_decay=settings.weight_decay, fused=fused)


def softmax_scores_for_snapshots(snapshots: list[tuple[int, ModelWeights]], ids: np.ndarray,
                                 settings: TrainingSettings) -> list[tuple[int, np.ndarray]]:
    """Softmax logits of ``ids`` under each (epoch, weights) snapshot (distinct tokens merged once)."""
    merged = merge_tokens(ids)
    return [(epoch, softmax_scores(model_from_weights(weights, settings), ids, merged=True, merged_ids=merged))
            for epoch, weights in snapshots]
