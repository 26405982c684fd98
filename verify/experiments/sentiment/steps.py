"""One run of the sentiment experiment, as ``hardmax-verify sentiment`` and the protocol runner do it.

:func:`train_run` reads the reviews, makes the split and trains (or resumes) one run;
:func:`evaluate_checkpoint` measures a checkpoint once, certified hardmax and softmax, under its
own protocol (the record docs/sentiment.md describes); :func:`best_test_epoch` is the authors'
like-for-like reporting rule. Progress and messages go to the callbacks the caller passes (the
command line draws bars and a table; the protocol runner writes its log).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import numpy as np

from verify.core.formatting import counted
from verify.core.numbers import InputError
from verify.experiments.imdb.corpus import load_corpus, make_split, restrict_vocabulary
from verify.experiments.imdb.data import content_sha256, load_reviews
from .checkpoints import checkpoint_corpus, read_checkpoint, read_weights, required_field
from .evaluate import certified_evaluation
from .model import (DEFAULT_STEP, Progress, TrainingSettings, model_from_weights, softmax_scores,
                    softmax_scores_for_snapshots, train)
from .sources import cache_root, resolve_data

__all__ = ["corpus_cache", "train_run", "evaluate_checkpoint", "best_test_epoch"]


def _no_progress(phase: str, done: int, total: int) -> None:
    return None


def corpus_cache(cache_dir: Path | None) -> Path:
    """Where preprocessed corpora are cached: ``cache_dir``, else the user cache folder's ``corpora``."""
    return cache_dir if cache_dir is not None else cache_root() / "corpora"


def train_run(*, settings, options, data: Path | None, out_dir: Path, epochs: int, cache_dir: Path | None = None,
              limit_reviews: int | None = None, protocol: str = "paper", validation_fraction: float = 0.1,
              split_seed: int = 0, min_count: int | None = None, patience: int | None = 20, hardmax_every: int = 0,
              epoch_weights: Path | None = None, threads: int = 1, progress: Progress | None = None,
              log: Callable[[str], None] | None = None, on_epoch: Callable[[dict], None] | None = None,
              step: str = DEFAULT_STEP) -> dict:
    """Load the data, make the split and train (or resume) one run; the metadata of its checkpoint.

    ``progress(phase, done, total)``: the preprocessing and training progress. ``on_epoch``: called
    with every epoch's history entry as it ends (the command prints a table row); messages
    (resuming, early stop, and each epoch as a line without ``on_epoch``) go to ``log`` (the
    protocol runner's log file). ``step``: the training step's implementation
    (:data:`verify.experiments.sentiment.model.STEPS`).
    """
    data = resolve_data(data)
    update = progress if progress is not None else _no_progress
    corpus = load_corpus(data, options=options, cache_dir=corpus_cache(cache_dir), limit=limit_reviews,
                         progress=lambda done, total: update("preprocessing", done, total))
    split = make_split(corpus, protocol=protocol, seed=split_seed, validation_fraction=validation_fraction)
    # The content digest identifies the reviews whatever the file format (archive, folder, CSV).
    description = {"source": str(data.name), "sha256": corpus.source_sha256,
                   "content_sha256": content_sha256(load_reviews(data)), "limit_reviews": limit_reviews,
                   "preprocess": options.to_json_dict()}
    if min_count is not None:
        corpus = restrict_vocabulary(corpus, split, min_count=min_count)
        description["min_count"] = min_count
    return train(corpus, split, settings=settings, out_dir=out_dir, epochs=epochs, patience=patience,
                 hardmax_every=hardmax_every, threads=threads, data_description=description,
                 epoch_weights_dir=epoch_weights, progress=progress, log=log, on_epoch=on_epoch, step=step)


def evaluate_checkpoint(checkpoint_dir: Path, *, which: str = "best", split_name: str = "test",
                        data: Path | None = None, cache_dir: Path | None = None, softmax: bool = True,
                        epoch_weights: Path | None = None, progress: Progress | None = None,
                        softmax_certificate: bool = False) -> dict:
    """The evaluation record printed by ``sentiment evaluate`` (see docs/sentiment.md).

    ``progress(phase, done, total)``: the preprocessing, hardmax and softmax progress.
    ``softmax_certificate``: also the per-review softmax certificate of docs/theory.md §6 at the
    checkpoint's training temperature (counts by reason; docs/softmax.md).
    """
    update = progress if progress is not None else _no_progress
    checkpoint = read_checkpoint(checkpoint_dir)
    if which != "best" and checkpoint.selected_only:
        raise InputError("--which", f"{checkpoint_dir} holds only the selected (best) weights, not those of the last epoch")
    meta = checkpoint.meta
    settings = TrainingSettings.from_record(required_field(checkpoint, "settings"),
                                            where=f"{checkpoint_dir}/checkpoint.json: settings")
    weights = checkpoint.best if which == "best" and checkpoint.best is not None else checkpoint.weights
    epoch = (meta.get("best") or {}).get("epoch") if which == "best" else meta.get("epochs_completed")
    data = resolve_data(data)
    corpus, split = checkpoint_corpus(checkpoint, data, cache_dir=corpus_cache(cache_dir),
                                      progress=lambda done, total: update("preprocessing", done, total))
    rows = {"test": split.test, "validation": split.validation, "train": split.train}[split_name]
    result = certified_evaluation(weights, corpus.ids[rows], corpus.labels[rows], layers=settings.layers,
                                  softmax_beta=settings.beta if softmax_certificate else None,
                                  progress=lambda done, total: update("hardmax (certified)", done, total))
    record = {
        "checkpoint": str(checkpoint_dir), "which": which, "epoch": epoch, "d": weights.d,
        "protocol": split.protocol, "split": split_name, "reviews": int(len(rows)),
        "hardmax_accuracy": result.accuracy, "hardmax_loss_float": result.loss,
        "exact_path": result.exact_path, "undecided_by_float_bound": int(result.undecided_mask.sum()),
        "hardmax_seconds": result.seconds, "alpha": float(weights.alpha),
        # as configured (0.1), not as stored in float32 (0.10000000149...): the alpha study's cells are named by it
        "alpha_fixed": None if settings.train_alpha else settings.alpha_init,
        "certified": "hardmax predictions are those of exact rational arithmetic on the float32 weights",
    }
    if result.softmax is not None:
        soft = result.softmax
        holds = np.isfinite(soft.bound)
        record.update({
            "layers": result.layers, "softmax_beta": soft.beta, "softmax_certified_agreement": soft.count,
            "softmax_not_certified": soft.reasons(), "softmax_stop_layers": soft.stop_layers(),
            "softmax_bound_holds": int(holds.sum()),
            "softmax_bound_median": float(np.median(soft.bound[holds])) if holds.any() else None,
            "softmax_certificate": ("reviews on which the softmax model (exact real arithmetic, the same float32 "
                                    "weights, beta as trained) is proven to predict the certified hardmax prediction "
                                    "(docs/theory.md §6; docs/softmax.md)"),
        })
    if softmax:
        started = time.perf_counter()
        model = model_from_weights(weights, settings)
        scores = softmax_scores(model, corpus.ids[rows], merged=settings.merged_tokens,
                                progress=lambda done, total: update("softmax (float)", done, total))
        record["softmax_accuracy"] = float(((scores > 0) == (corpus.labels[rows] == 1)).mean())
        record["softmax_seconds"] = time.perf_counter() - started
        record["hardmax_softmax_agreement"] = float(((scores > 0) == (result.predictions == 1)).mean())
    if which == "best" and isinstance(meta.get("best"), dict):
        # What selected this epoch; the report compares it across runs of the same d, since picking
        # the run with the best *test* accuracy would be selection on the test set again.
        record["validation_accuracy"] = meta["best"].get("val_acc")
    history = meta.get("history", [])
    if epoch_weights is not None and split_name == "test":
        record["softmax_best_test_epoch"] = best_test_epoch(epoch_weights, settings, corpus.ids[rows],
                                                            corpus.labels[rows], epochs=meta.get("epochs_completed", 0))
    elif history and all("test_acc" in h for h in history):
        # Runs made before the test set was held out of training recorded it every epoch.
        best_test = max(history, key=lambda h: h["test_acc"])
        record["softmax_best_test_epoch"] = {"epoch": best_test["epoch"], "test_acc": best_test["test_acc"],
                                             "note": "the paper's like-for-like number: epoch chosen on the test set"}
    return record


def best_test_epoch(epoch_weights: Path, settings, ids, labels, *, epochs: int) -> dict:
    """The authors' reporting rule: the softmax test accuracy of the epoch best on the test set.

    Measured once, after training, from the weights kept for every epoch (``train
    --epoch-weights``); never used to select anything.
    """
    paths = [Path(epoch_weights) / f"epoch-{e:03d}.safetensors" for e in range(1, epochs + 1)]
    missing = [p.name for p in paths if not p.exists()]
    if missing:
        raise InputError(str(epoch_weights), f"missing the weights of {counted(len(missing), 'epoch')}, e.g. {missing[0]}")
    scores = softmax_scores_for_snapshots([(e, read_weights(p)) for e, p in enumerate(paths, start=1)], ids, settings)
    accuracies = [(float(((s > 0) == (labels == 1)).mean()), e) for e, s in scores]
    best_accuracy, best_epoch = max(accuracies, key=lambda pair: (pair[0], -pair[1]))
    return {"epoch": best_epoch, "test_acc": best_accuracy, "epochs_measured": len(accuracies),
            "note": "the paper's like-for-like number: softmax test accuracy of the epoch best on the test set, "
                    "measured once after training (selection uses validation only)"}
