"""``hardmax-verify sentiment train | evaluate | analyze``: the IMDb experiment of THEORY.md §5 (issue 5)."""

from __future__ import annotations

import json
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import click

from .. import exitcodes
from ..io import atomic_write_text
from ..numbers import InputError
from ..sentiment import DEFAULT_DATA_PATH, DEFAULT_RUNS_DIR

_REPO = Path(__file__).resolve().parents[2]


def _default_data() -> Path:
    return _REPO / DEFAULT_DATA_PATH


@contextmanager
def _progress(enabled: bool) -> Iterator:
    """A rich progress bar whose callback is ``update(description, done, total)`` (no-op when disabled)."""
    if not enabled:
        yield lambda *args: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
        TimeRemainingColumn
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), transient=True) as bar:
        tasks: dict[str, int] = {}

        def update(description: str, done: int, total: int) -> None:
            if description not in tasks:
                tasks[description] = bar.add_task(description, total=total)
            bar.update(tasks[description], completed=done, total=total)
        yield update


def _preprocess_options(lowercase: bool, stopwords: str, lemmas: str):
    from ..sentiment.preprocess import PreprocessOptions
    return PreprocessOptions(lowercase=lowercase, stopwords=stopwords, lemmas=lemmas)


def _load(data: Path, *, options, limit: int | None, cache_dir: Path | None, update):
    from ..sentiment.corpus import load_corpus
    return load_corpus(data, options=options, cache_dir=cache_dir, limit=limit,
                       progress=lambda done, total: update("preprocessing", done, total))


@click.group("sentiment")
def sentiment() -> None:
    """The IMDb sentiment experiment: train, certified hardmax evaluation, analyses."""


_data_option = click.option("--data", type=click.Path(path_type=Path), default=None,
                            help=f"IMDb reviews: project CSV, Kaggle 'IMDB Dataset.csv' or an aclImdb folder "
                                 f"[default: {DEFAULT_DATA_PATH} relative to the repository].")
_cache_option = click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
                             default=Path(DEFAULT_RUNS_DIR) / "cache", show_default=True,
                             help="Where preprocessed corpora are cached (keyed by the data's sha256).")


@sentiment.command("train")
@click.option("--d", "d", type=click.IntRange(min=1), required=True, help="Embedding dimension (2, 4, 8, 16).")
@click.option("--epochs", type=click.IntRange(min=1), default=101, show_default=True,
              help="Total epochs (a resumed run continues up to this number).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help=f"Checkpoint folder [default: {DEFAULT_RUNS_DIR}/d<d>-<protocol>]; an existing one is resumed.")
@_data_option
@_cache_option
@click.option("--limit-reviews", type=click.IntRange(min=2), default=None,
              help="Use a seeded random sample of N reviews (quick runs, tests).")
@click.option("--protocol", type=click.Choice(["paper", "official"]), default="paper", show_default=True,
              help="paper: seeded shuffle of all reviews, 70/30; official: the 25k/25k split.")
@click.option("--validation-fraction", type=float, default=0.1, show_default=True,
              help="Share of the training reviews held out for model selection.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seeds the initialisation, the batch order and (unless --split-seed) the split.")
@click.option("--split-seed", type=int, default=None,
              help="Seed of the train/validation/test split [default: --seed]; fix it to compare training seeds "
                   "on the same test reviews.")
@click.option("--min-count", type=click.IntRange(min=1), default=None,
              help="Words seen fewer than N times in the training reviews become one trained <UNK> token "
                   "(counted on train only; the paper kept every word).")
@click.option("--lowercase", is_flag=True, help="Lowercase before stopwords and lemmas (the paper did not).")
@click.option("--stopwords", type=click.Choice(["nltk", "stop-words", "none"]), default="nltk", show_default=True)
@click.option("--lemmas", type=click.Choice(["plural", "all", "none"]), default="plural", show_default=True,
              help="plural: singular nouns only (as the paper's WordNet noun lemmas); all: every simplemma lemma.")
@click.option("--lr", "learning_rate", type=float, default=1e-3, show_default=True)
@click.option("--batch-size", type=click.IntRange(min=1), default=64, show_default=True)
@click.option("--weight-decay", type=float, default=0.0, show_default=True)
@click.option("--dropout", "embedding_dropout", type=click.FloatRange(min=0, max=1, max_open=True), default=0.0,
              show_default=True,
              help="Dropout on the embedded tokens during training only (a regulariser; evaluation uses the full "
                   "embeddings). 0 is the paper's model.")
@click.option("--alpha-init", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True,
              help="Initial alpha (trained; softplus keeps it > 0). A small start can settle in a small-alpha, "
                   "weakly clustering regime: see docs/sentiment.md.")
@click.option("--layers", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--beta", type=float, default=1000.0, show_default=True, help="Softmax inverse temperature.")
@click.option("--patience", type=click.IntRange(min=1), default=20, show_default=True,
              help="Early stopping: epochs without validation improvement.")
@click.option("--hardmax-every", type=click.IntRange(min=0), default=5, show_default=True,
              help="Certified hardmax evaluation of validation and test every N epochs (0: never).")
@click.option("--threads", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def train(d: int, epochs: int, out_dir: Path | None, data: Path | None, cache_dir: Path, limit_reviews: int | None,
          protocol: str, validation_fraction: float, seed: int, split_seed: int | None, min_count: int | None,
          lowercase: bool, stopwords: str, lemmas: str,
          learning_rate: float, batch_size: int, weight_decay: float, embedding_dropout: float, alpha_init: float,
          layers: int, beta: float,
          patience: int, hardmax_every: int, threads: int, quiet: bool) -> int:
    """Train the classifier with softmax attention (resumable; a checkpoint after every epoch).

    Selection is by validation accuracy (the test set is only reported); the softmax test
    accuracy of every epoch is recorded too, for the paper's like-for-like best-test-epoch number.
    """
    from ..sentiment.corpus import make_split, restrict_vocabulary
    from ..sentiment.model import TrainingSettings, train as run_training

    data = data if data is not None else _default_data()
    out_dir = out_dir if out_dir is not None else Path(DEFAULT_RUNS_DIR) / f"d{d}-{protocol}"
    settings = TrainingSettings(d=d, layers=layers, beta=beta, learning_rate=learning_rate, batch_size=batch_size,
                                seed=seed, weight_decay=weight_decay, alpha_init=alpha_init,
                                embedding_dropout=embedding_dropout)
    options = _preprocess_options(lowercase, stopwords, lemmas)
    with _progress(not quiet) as update:
        corpus = _load(data, options=options, limit=limit_reviews, cache_dir=cache_dir, update=update)
        split = make_split(corpus, protocol=protocol, seed=seed if split_seed is None else split_seed,
                           validation_fraction=validation_fraction)
        description = {"source": str(data.name), "sha256": corpus.source_sha256, "limit_reviews": limit_reviews,
                       "preprocess": options.to_json_dict()}
        if min_count is not None:
            corpus = restrict_vocabulary(corpus, split, min_count=min_count)
            description["min_count"] = min_count
        meta = run_training(corpus, split, settings=settings, out_dir=out_dir, epochs=epochs, patience=patience,
                            hardmax_every=hardmax_every, threads=threads, data_description=description,
                            progress=update, log=lambda text: click.echo(text, err=True))
    best = meta.get("best") or {}
    click.echo(f"{out_dir}: {meta.get('epochs_completed', 0)} epochs; best validation accuracy "
               f"{best.get('val_acc', float('nan')):.4f} at epoch {best.get('epoch')}", err=True)
    return exitcodes.SUCCESS


@sentiment.command("evaluate")
@click.option("--checkpoint", "checkpoint_dir", type=click.Path(path_type=Path), required=True)
@click.option("--which", type=click.Choice(["best", "last"]), default="best", show_default=True,
              help="best: the epoch selected on validation; last: the last completed epoch.")
@click.option("--split", "split_name", type=click.Choice(["test", "validation", "train"]), default="test",
              show_default=True)
@_data_option
@_cache_option
@click.option("--no-softmax", is_flag=True, help="Skip the softmax accuracy (then torch is not needed).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the JSON result here.")
@click.option("--quiet", is_flag=True)
def evaluate(checkpoint_dir: Path, which: str, split_name: str, data: Path | None, cache_dir: Path,
             no_softmax: bool, as_json: bool, out_path: Path | None, quiet: bool) -> int:
    """Certified hardmax accuracy (and softmax accuracy) of a checkpoint, under its own protocol."""
    result = evaluate_checkpoint(checkpoint_dir, which=which, split_name=split_name, data=data, cache_dir=cache_dir,
                                 softmax=not no_softmax, progress=not quiet)
    text = json.dumps(result, indent=1) + "\n"
    if out_path is not None:
        atomic_write_text(out_path, text)
    if as_json:
        click.echo(text, nl=False)
    else:
        click.echo(f"{checkpoint_dir} ({which}, epoch {result['epoch']}), {split_name} split of "
                   f"{result['reviews']} reviews:")
        click.echo(f"  hardmax accuracy {result['hardmax_accuracy']:.4f} (certified: exact-arithmetic predictions; "
                   f"{result['exact_path']} reviews took the exact path) in {result['hardmax_seconds']:.1f} s")
        if result.get("softmax_accuracy") is not None:
            click.echo(f"  softmax accuracy {result['softmax_accuracy']:.4f} (float, evidence)")
    return exitcodes.SUCCESS


def evaluate_checkpoint(checkpoint_dir: Path, *, which: str = "best", split_name: str = "test",
                        data: Path | None = None, cache_dir: Path | None = None, softmax: bool = True,
                        progress: bool = False) -> dict:
    """The evaluation record printed by ``sentiment evaluate`` (see docs/sentiment.md)."""
    from ..sentiment.checkpoints import read_checkpoint
    from ..sentiment.corpus import checkpoint_corpus
    from ..sentiment.evaluate import certified_evaluation

    checkpoint = read_checkpoint(checkpoint_dir)
    if which != "best" and checkpoint.selected_only:
        raise InputError("--which", f"{checkpoint_dir} holds only the selected (best) weights, not those of the last epoch")
    meta = checkpoint.meta
    weights = checkpoint.best if which == "best" and checkpoint.best is not None else checkpoint.weights
    epoch = (meta.get("best") or {}).get("epoch") if which == "best" else meta.get("epochs_completed")
    data = data if data is not None else _default_data()
    with _progress(progress) as update:
        corpus, split = checkpoint_corpus(checkpoint, data, cache_dir=cache_dir,
                                          progress=lambda done, total: update("preprocessing", done, total))
        rows = {"test": split.test, "validation": split.validation, "train": split.train}[split_name]
        settings = meta["settings"]
        result = certified_evaluation(weights, corpus.ids[rows], corpus.labels[rows], layers=settings["layers"],
                                      progress=lambda done, total: update("hardmax (certified)", done, total))
    record = {
        "checkpoint": str(checkpoint_dir), "which": which, "epoch": epoch, "d": weights.d,
        "protocol": split.protocol, "split": split_name, "reviews": int(len(rows)),
        "hardmax_accuracy": result.accuracy, "hardmax_loss_float": result.loss,
        "exact_path": result.exact_path, "undecided_by_float_bound": int(result.undecided_mask.sum()),
        "hardmax_seconds": result.seconds, "alpha": float(weights.alpha),
        "certified": "hardmax predictions are those of exact rational arithmetic on the float32 weights",
    }
    if softmax:
        from ..sentiment.model import TrainingSettings, model_from_weights, softmax_scores
        started = time.perf_counter()
        model = model_from_weights(weights, TrainingSettings(**settings))
        scores = softmax_scores(model, corpus.ids[rows])
        record["softmax_accuracy"] = float(((scores > 0) == (corpus.labels[rows] == 1)).mean())
        record["softmax_seconds"] = time.perf_counter() - started
        record["hardmax_softmax_agreement"] = float(((scores > 0) == (result.predictions == 1)).mean())
    if which == "best" and isinstance(meta.get("best"), dict):
        # What selected this epoch; the report compares it across runs of the same d, since picking
        # the run with the best *test* accuracy would be selection on the test set again.
        record["validation_accuracy"] = meta["best"].get("val_acc")
    history = meta.get("history", [])
    if history and "test_acc" in history[0]:
        best_test = max(history, key=lambda h: h["test_acc"])
        record["softmax_best_test_epoch"] = {"epoch": best_test["epoch"], "test_acc": best_test["test_acc"],
                                             "note": "the paper's like-for-like number: epoch chosen on the test set"}
    return record


@sentiment.command("analyze")
@click.option("--checkpoint", "checkpoint_dirs", type=click.Path(path_type=Path), multiple=True,
              help="A trained checkpoint for the word-based analyses (leaders, leader words, lexicon); "
                   "repeat for several (e.g. one per d).")
@click.option("--authors-npz", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The authors' d=2 arrays (E, alpha, w, b) for the word-free checks "
                   "[default: ../shared/data/reference/authors_d2_epoch100.npz if present].")
@_data_option
@_cache_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path(DEFAULT_RUNS_DIR) / "analysis", show_default=True)
@click.option("--reviews", "max_reviews", type=click.IntRange(min=1), default=None,
              help="Analyse at most this many test reviews (default: all).")
@click.option("--samples", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Configurations drawn from the authors' embeddings.")
@click.option("--converge-layers", type=click.IntRange(min=9), default=200, show_default=True,
              help="Layers run for the 'converged' state compared with K = 8.")
@click.option("--certify-samples", type=click.IntRange(min=0), default=200, show_default=True,
              help="Of the authors' distinct configurations, how many to run through the exact claim checks "
                   "(T0..T4 certified, exact limits by D7, the class of the limit state; about 1 s each).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--quiet", is_flag=True)
def analyze(checkpoint_dirs: tuple[Path, ...], authors_npz: Path | None, data: Path | None, cache_dir: Path,
            out_dir: Path, max_reviews: int | None, samples: int, converge_layers: int, certify_samples: int,
            seed: int, quiet: bool) -> int:
    """The paper's analyses and the experiment's claims, checked; JSON (and PNG) under --out."""
    from ..sentiment.analyze import run_analyses

    if authors_npz is None:
        candidate = _REPO / "../shared/data/reference/authors_d2_epoch100.npz"
        authors_npz = candidate if candidate.exists() else None
    if not checkpoint_dirs and authors_npz is None:
        raise InputError("--checkpoint", "give a checkpoint and/or --authors-npz: nothing to analyse")
    with _progress(not quiet) as update:
        summary = run_analyses(checkpoint_dirs=checkpoint_dirs, authors_npz=authors_npz,
                               data=data if data is not None else _default_data(), cache_dir=cache_dir,
                               out_dir=out_dir, max_reviews=max_reviews, samples=samples,
                               converge_layers=converge_layers, certify_samples=certify_samples, seed=seed,
                               progress=update)
    for line in summary.get("lines", []):
        click.echo(line)
    click.echo(f"wrote {out_dir}", err=True)
    return exitcodes.SUCCESS
