"""``hardmax-verify sentiment ...``: the IMDb experiment of docs/theory.md §5 (train, evaluate, analyze, fetch, protocol)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, ContextManager

import click

from verify.core import exitcodes
from verify.core import formatting as fmt
from verify.core.io import atomic_directory, atomic_write_bytes, atomic_write_text, read_input, read_json
from verify.core.numbers import InputError
from verify.experiments.imdb.data import load_reviews
from verify.experiments.imdb.preprocess import PreprocessOptions, build_vocabulary, tokenize
from verify.experiments.sentiment import DEFAULT_RUNS_DIR, sources
from verify.experiments.sentiment.analyze import run_analyses
from verify.experiments.sentiment.checkpoints import MAX_META_BYTES
from verify.experiments.sentiment.interpret import interpret_checkpoint
from verify.experiments.sentiment.model import DEFAULT_STEP, STEPS, TrainingSettings, running_train, selection_accuracy
from verify.experiments.sentiment.protocol import (MODELS_BUDGET_BYTES, collect, load_protocol, queue_status,
                                                  run_queue)
from verify.experiments.sentiment.sources import DATA_ENV, REFERENCE_ENV, resolve_data, resolve_reference
from verify.experiments.sentiment.steps import corpus_cache, evaluate_checkpoint, train_run
from verify.experiments.sentiment.summary import load_results, summarize, write_summary
from .output import ProgressReporter, echo_summary, emit_json, json_option, json_text, progress_reporter, writable_file, \
    writable_folder


def _progress(enabled: bool) -> ContextManager[ProgressReporter]:
    """Progress bars on standard error; the reporter is also the ``update(phase, done, total)`` callback."""
    return progress_reporter(enabled, remaining=True)


class EpochTable:
    """The training history as a table on standard error: a header, then one row per epoch as it ends.

    "train" and "val" are evaluated the same way at the end of the epoch (the training subset
    and the validation reviews, softmax, no dropout); "running loss" is the mean over the epoch's
    batches while the weights changed (verify.experiments.sentiment.model).
    """

    COLUMNS: tuple[tuple[Callable[[dict], object], str, str], ...] = (
        (lambda e: e.get("epoch"), "epoch", "{}"),
        (lambda e: running_train(e, "loss"), "running loss", "{:.4f}"),
        (lambda e: e.get("train_subset_loss"), "train loss", "{:.4f}"),
        (lambda e: e.get("train_subset_acc"), "train acc", "{:.4f}"),
        (lambda e: e.get("val_loss"), "val loss", "{:.4f}"), (lambda e: e.get("val_acc"), "val acc", "{:.4f}"),
        (lambda e: e.get("alpha"), "alpha", "{:.4g}"),
        (lambda e: e.get("hardmax_train_acc"), "hardmax train acc", "{:.4f}"),
        (lambda e: e.get("hardmax_val_acc"), "hardmax val acc", "{:.4f}"),
        (lambda e: e.get("seconds"), "seconds", "{:.1f}"))

    def __init__(self, print_line: Callable[[str], None], *, hardmax: bool) -> None:
        self._print = print_line
        self._columns = [c for c in self.COLUMNS if hardmax or not c[1].startswith("hardmax")]
        self._best: float | None = None
        self._header_printed = False

    def _cells(self, values: list[str]) -> str:
        return "  ".join(value.rjust(len(title)) for value, (_, title, _) in zip(values, self._columns))

    def row(self, entry: dict) -> None:
        if not self._header_printed:
            self._print(self._cells([title for _, title, _ in self._columns]) + "  best")
            self._header_printed = True
        values = [form.format(value) if (value := get(entry)) is not None else "-" for get, _, form in self._columns]
        # The selection rule of verify.experiments.sentiment.model.train: validation accuracy, strictly better.
        selection = selection_accuracy(entry)
        best = self._best is None or selection > self._best
        if best:
            self._best = selection
        self._print(self._cells(values) + ("  *" if best else ""))


def _preprocess_options(lowercase: bool, stopwords: str, lemmas: str, cleaning: str) -> PreprocessOptions:
    return PreprocessOptions(lowercase=lowercase, stopwords=stopwords, lemmas=lemmas, cleaning=cleaning)


@click.group("sentiment")
def sentiment() -> None:
    """The IMDb sentiment experiment: train, certified hardmax evaluation, analyses."""


_quiet_option = click.option("--quiet", is_flag=True, help="No progress bars (the results are printed all the same).")
_data_option = click.option("--data", type=click.Path(path_type=Path), default=None,
                            help=f"IMDb reviews: the official aclImdb_v1.tar.gz, its extracted aclImdb folder, or a "
                                 f"CSV(.gz) with columns review,sentiment[,split] [default: ${DATA_ENV}, else the "
                                 f"copy `sentiment fetch` made].")
_step_option = click.option(
    "--step", type=click.Choice(list(STEPS)), default=DEFAULT_STEP, show_default=True,
    help="How a training step is computed: compiled (the attention layers compiled with numba, visiting only the "
         "softmax entries that are not 0; fused Adam) or reference (torch autograd). The same function, rounded "
         "differently; each epoch records which one trained it, and a run may resume under the other.")
_cache_option = click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                             callback=writable_folder,
                             help="Where preprocessed corpora are cached, keyed by the data's sha256 "
                                  "[default: the user cache folder, see docs/sentiment.md].")


@sentiment.command("train")
@click.option("--d", "d", type=click.IntRange(min=1), required=True, help="Embedding dimension (2, 4, 8, 16).")
@click.option("--epochs", type=click.IntRange(min=1), default=101, show_default=True,
              help="Total epochs (a resumed run continues up to this number).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              callback=writable_folder, help=f"Checkpoint folder [default: {DEFAULT_RUNS_DIR}/d<d>-<protocol>]; an existing one is resumed.")
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
@click.option("--cleaning", type=click.Choice(["authors", "delete-punctuation"]), default="authors", show_default=True,
              help="authors: punctuation to a space, stopwords removed again after lemmas (the authors' script); "
                   "delete-punctuation: the cleaning of the earlier tuned runs.")
@click.option("--lowercase", is_flag=True, help="Lowercase before stopwords and lemmas (the paper did not).")
@click.option("--stopwords", type=click.Choice(["nltk", "stop-words", "none"]), default="nltk", show_default=True,
              help="Stopword list removed from the reviews (nltk's English list is the paper's).")
@click.option("--lemmas", type=click.Choice(["plural", "all", "none"]), default="plural", show_default=True,
              help="plural: singular nouns only (as the paper's WordNet noun lemmas); all: every simplemma lemma.")
@click.option("--lr", "learning_rate", type=float, default=1e-3, show_default=True, help="Adam's learning rate.")
@click.option("--batch-size", type=click.IntRange(min=1), default=64, show_default=True,
              help="Reviews per training batch.")
@click.option("--weight-decay", type=float, default=0.0, show_default=True, help="Adam's weight decay (L2).")
@click.option("--dropout", "embedding_dropout", type=click.FloatRange(min=0, max=1, max_open=True), default=0.0,
              show_default=True,
              help="Dropout on the embedded tokens during training only (a regulariser; evaluation uses the full "
                   "embeddings). 0 is the paper's model.")
@click.option("--alpha-init", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True,
              help="Initial alpha (trained; softplus keeps it > 0). A small start can settle in a small-alpha, "
                   "weakly clustering regime: see docs/sentiment.md.")
@click.option("--fixed-alpha", is_flag=True, help="Keep alpha at --alpha-init (not trained): the alpha study.")
@click.option("--layers", type=click.IntRange(min=0, max=10_000), default=8, show_default=True,
              help="K, the number of attention layers; 0 is the mean of the embedded tokens, decoded.")
@click.option("--attention-over", type=click.Choice(["auto", "distinct", "positions"]), default="auto",
              show_default=True,
              help="distinct: attention over each review's distinct tokens with log-multiplicity weights (the same "
                   "function, faster); positions: over all n positions (needed by --dropout); auto: distinct "
                   "unless --dropout.")
@click.option("--bucket-batches", type=click.IntRange(min=0), default=None,
              help="Length bucketing: sort pools of N batches by distinct tokens (0: off) [default: 50 with "
                   "distinct-token attention, else 0].")
@click.option("--beta", type=float, default=1000.0, show_default=True, help="Softmax inverse temperature.")
@click.option("--patience", type=click.IntRange(min=1), default=20, show_default=True,
              help="Early stopping: epochs without validation improvement.")
@click.option("--hardmax-every", type=click.IntRange(min=0), default=0, show_default=True,
              help="Certified hardmax evaluation of the training and validation reviews every N epochs (0: never).")
@click.option("--epoch-weights", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Also keep every epoch's weights in this folder (for `evaluate --epoch-weights`).")
@click.option("--threads", type=click.IntRange(min=1), default=1, show_default=True,
              help="CPU threads for torch and the certified evaluation (the machine may be shared).")
@_step_option
@json_option("the checkpoint's metadata (settings, data, history of every epoch, best epoch)")
@_quiet_option
def train(d: int, epochs: int, out_dir: Path | None, data: Path | None, cache_dir: Path, limit_reviews: int | None,
          protocol: str, validation_fraction: float, seed: int, split_seed: int | None, min_count: int | None,
          cleaning: str, lowercase: bool, stopwords: str, lemmas: str,
          learning_rate: float, batch_size: int, weight_decay: float, embedding_dropout: float, alpha_init: float,
          fixed_alpha: bool, layers: int, attention_over: str, bucket_batches: int | None, beta: float,
          patience: int, hardmax_every: int, epoch_weights: Path | None, threads: int, step: str, json_to: str | None,
          quiet: bool) -> int:
    """Train the classifier with softmax attention (resumable; a checkpoint after every epoch).

    Selection is by validation accuracy; the test reviews are not looked at during training
    (``sentiment evaluate`` measures them once, afterwards).
    """
    merged = attention_over == "distinct" or (attention_over == "auto" and embedding_dropout == 0)
    settings = TrainingSettings(d=d, layers=layers, beta=beta, learning_rate=learning_rate, batch_size=batch_size,
                                seed=seed, weight_decay=weight_decay, alpha_init=alpha_init,
                                embedding_dropout=embedding_dropout, train_alpha=not fixed_alpha,
                                merged_tokens=merged,
                                bucket_batches=bucket_batches if bucket_batches is not None else (50 if merged else 0))
    options = _preprocess_options(lowercase, stopwords, lemmas, cleaning)
    out_dir = out_dir if out_dir is not None else Path(DEFAULT_RUNS_DIR) / f"d{d}-{protocol}"
    with _progress(not quiet) as update:
        # Every epoch as a row of a table on standard error, messages above it.
        meta = train_run(settings=settings, options=options, data=data, out_dir=out_dir, epochs=epochs,
                         cache_dir=cache_dir, limit_reviews=limit_reviews, protocol=protocol,
                         validation_fraction=validation_fraction, split_seed=seed if split_seed is None else split_seed,
                         min_count=min_count, patience=patience, hardmax_every=hardmax_every,
                         epoch_weights=epoch_weights, threads=threads, progress=update, log=update.log,
                         on_epoch=EpochTable(update.log, hardmax=hardmax_every > 0).row, step=step)
    best = meta.get("best") or {}
    echo_summary(f"{out_dir}: {meta.get('epochs_completed', 0)} epochs; best validation accuracy "
                 f"{best.get('val_acc', float('nan')):.4f} at epoch {best.get('epoch')}", json_to)
    emit_json(json.loads((out_dir / "checkpoint.json").read_text(encoding="utf-8")), json_to)  # as written
    return exitcodes.SUCCESS


@sentiment.command("evaluate")
@click.option("--checkpoint", "checkpoint_dir", type=click.Path(path_type=Path), required=True,
              help="A checkpoint folder written by 'sentiment train' (or a published one).")
@click.option("--which", type=click.Choice(["best", "last"]), default="best", show_default=True,
              help="best: the epoch selected on validation; last: the last completed epoch.")
@click.option("--split", "split_name", type=click.Choice(["test", "validation", "train"]), default="test",
              show_default=True, help="Which reviews of the checkpoint's own split to evaluate.")
@_data_option
@_cache_option
@click.option("--no-softmax", is_flag=True, help="Skip the softmax accuracy (then torch is not needed).")
@click.option("--epoch-weights", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The folder of every epoch's weights (train --epoch-weights): adds the softmax test accuracy "
                   "of the best epoch chosen on the test set, the authors' way of reporting (like for like).")
@click.option("--softmax-certificate", "softmax_certificate", is_flag=True,
              help="Also count the reviews on which the softmax model (exact real arithmetic, the training "
                   "temperature) is certified to predict what the certified hardmax model predicts "
                   "(docs/softmax.md).")
@json_option("the evaluation record")
@_quiet_option
def evaluate(checkpoint_dir: Path, which: str, split_name: str, data: Path | None, cache_dir: Path | None,
             no_softmax: bool, epoch_weights: Path | None, softmax_certificate: bool, json_to: str | None,
             quiet: bool) -> int:
    """Certified hardmax accuracy (and softmax accuracy) of a checkpoint, under its own protocol."""
    with _progress(not quiet) as update:
        result = evaluate_checkpoint(checkpoint_dir, which=which, split_name=split_name, data=data,
                                     cache_dir=cache_dir, softmax=not no_softmax, epoch_weights=epoch_weights,
                                     progress=update, softmax_certificate=softmax_certificate)
    lines = [f"{checkpoint_dir} ({which}, epoch {result['epoch']}), {split_name} split of {result['reviews']} reviews:",
             f"  hardmax accuracy {result['hardmax_accuracy']:.4f} (certified: exact-arithmetic predictions; "
             f"{result['exact_path']} reviews took the exact path) in {result['hardmax_seconds']:.1f} s"]
    if "softmax_certified_agreement" in result:
        lines.append(f"  softmax certified to predict the hardmax prediction on {result['softmax_certified_agreement']} "
                     f"of {result['reviews']} reviews (beta = {result['softmax_beta']:g}; docs/softmax.md)")
    if result.get("softmax_accuracy") is not None:
        lines.append(f"  softmax accuracy {result['softmax_accuracy']:.4f} (float, evidence) in "
                     f"{result['softmax_seconds']:.1f} s")
    echo_summary("\n".join(lines), json_to)
    emit_json(result, json_to)
    return exitcodes.SUCCESS


SOFTMAX_CERTIFICATE_KIND = "sentiment-softmax-certificate"


@sentiment.command("softmax-certificate")
@click.option("--checkpoint", "checkpoint_dirs", type=click.Path(path_type=Path), multiple=True, required=True,
              help="A checkpoint folder; repeat for several (e.g. every run of models/reproduction).")
@_data_option
@_cache_option
@click.option("--no-softmax", is_flag=True,
              help="Skip the measured (float) agreement of the softmax model (then torch is not needed).")
@click.option("--update", "update_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="A record this command wrote before: keep its rows, evaluate only the checkpoints it does not "
                   "hold yet, and rewrite it (atomically) after each one, so a stopped run resumes where it stopped.")
@json_option("the counts per checkpoint and per model (d, K, alpha trained or fixed)")
@_quiet_option
def softmax_certificate_command(checkpoint_dirs: tuple[Path, ...], data: Path | None, cache_dir: Path | None,
                                no_softmax: bool, update_file: Path | None, json_to: str | None, quiet: bool) -> int:
    """Test reviews on which softmax is certified to predict what certified hardmax predicts, per checkpoint and d.

    For each checkpoint (its own test split, its training temperature beta): the number of
    test reviews on which the softmax model, in exact real arithmetic on the same float32
    weights, is proven to predict the certified hardmax prediction (docs/theory.md §6,
    docs/softmax.md), beside the measured agreement of the float softmax model (evidence).
    """
    rows = _earlier_softmax_rows(update_file) if update_file is not None else []
    held = {row["checkpoint"] for row in rows}
    for directory in checkpoint_dirs:
        if str(directory) in held:
            continue
        with _progress(not quiet) as update:
            record = evaluate_checkpoint(directory, data=data, cache_dir=cache_dir, softmax=not no_softmax,
                                         progress=update, softmax_certificate=True)
        rows.append(softmax_certificate_row(directory, record))
        held.add(str(directory))
        if not quiet:
            click.echo(_softmax_line(rows[-1]), err=True)
        if update_file is not None:  # each finished checkpoint is kept, whatever happens to the next one
            atomic_write_text(update_file, json_text(softmax_certificate_summary(rows), where=str(update_file)))
    result = softmax_certificate_summary(rows)
    echo_summary("\n".join([_softmax_line(row) for row in result["by_d"]] + [result["summary"]]), json_to)
    emit_json(result, json_to)
    return exitcodes.SUCCESS


def _earlier_softmax_rows(path: Path) -> list[dict]:
    """The rows of a record ``sentiment softmax-certificate`` wrote (none if the file does not exist yet)."""
    if not path.exists():
        return []
    try:
        earlier = read_json(path, expected="a record of `sentiment softmax-certificate`")
    except InputError as error:
        raise InputError("--update", f"{path} cannot be read as JSON: {error.message}") from None
    if not isinstance(earlier, dict) or earlier.get("kind") != SOFTMAX_CERTIFICATE_KIND \
            or not isinstance(earlier.get("rows"), list) \
            or not all(isinstance(row, dict) and isinstance(row.get("checkpoint"), str) for row in earlier["rows"]):
        raise InputError("--update", f"{path} is not a record of `sentiment softmax-certificate` "
                         f"(kind {SOFTMAX_CERTIFICATE_KIND!r} with rows naming their checkpoints)")
    rows = list(earlier["rows"])
    for row in rows:
        if "alpha_fixed" not in row:  # written before rows said whether alpha was trained: the checkpoint says
            row["alpha_fixed"] = _alpha_fixed(Path(row["checkpoint"]), path)
    return rows


def _alpha_fixed(checkpoint_dir: Path, update_file: Path) -> float | None:
    """The alpha a checkpoint was trained with held fixed, None if alpha was trained (its checkpoint.json settings)."""
    try:  # read as the evaluation reads them (defaults included)
        record = read_json(checkpoint_dir / "checkpoint.json", expected="a checkpoint.json", limit=MAX_META_BYTES)["settings"]
        settings = TrainingSettings.from_record(record, where=f"{checkpoint_dir}/checkpoint.json: settings")
        return None if settings.train_alpha else settings.alpha_init
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, InputError) as error:
        raise InputError("--update", f"{update_file}: the row of {checkpoint_dir} does not say whether alpha was "
                         f"trained, and its checkpoint.json cannot tell ({type(error).__name__})") from None


def softmax_certificate_row(directory: Path, record: dict) -> dict:
    """One checkpoint's counts, from its evaluation record (``evaluate_checkpoint(..., softmax_certificate=True)``)."""
    return {"run": Path(directory).name, "checkpoint": str(directory), "d": record["d"], "K": record["layers"],
            "alpha": record["alpha"], "alpha_fixed": record.get("alpha_fixed"),
            "beta": record["softmax_beta"], "epoch": record["epoch"],
            "reviews": record["reviews"], "certified": record["softmax_certified_agreement"],
            "not_certified": record["softmax_not_certified"], "stop_layers": record["softmax_stop_layers"],
            "bound_holds": record["softmax_bound_holds"],
            "bound_median": record["softmax_bound_median"], "exact_path": record["exact_path"],
            "hardmax_accuracy": record["hardmax_accuracy"],
            "measured_agreement": record.get("hardmax_softmax_agreement")}


def softmax_certificate_summary(rows: list[dict]) -> dict:
    """Rows per checkpoint, totals per model (d, K, alpha trained or its fixed value), and one sentence.

    The record of ``sentiment softmax-certificate``."""
    # A study that fixes alpha is a model of its own: its runs are not pooled with those that trained alpha.
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        fixed = row.get("alpha_fixed")
        groups.setdefault((row["d"], row["K"], fixed is not None, fixed or 0.0), []).append(row)
    by_d = []
    for (d, K, _, _), members in sorted(groups.items()):
        fixed = members[0].get("alpha_fixed")
        model = f"d = {d}, K = {K}" + (f", alpha fixed at {fixed:g}" if fixed is not None else "")
        reviews = sum(r["reviews"] for r in members)
        certified = sum(r["certified"] for r in members)
        measured = [r["measured_agreement"] for r in members if r["measured_agreement"] is not None]
        reasons: dict[str, int] = {}
        for r in members:
            for reason, count in r["not_certified"].items():
                reasons[reason] = reasons.get(reason, 0) + count
        by_d.append({"run": f"{model} ({fmt.counted(len(members), 'run')})", "model": model, "d": d, "K": K,
                     "alpha_fixed": fixed, "runs": len(members), "reviews": reviews, "certified": certified,
                     "certified_share": certified / reviews if reviews else None, "not_certified": reasons,
                     "measured_agreement": sum(measured) / len(measured) if measured else None})
    attention = [g for g in by_d if g["K"] > 0]
    sentence = "; ".join(f"{g['model']}: {g['certified']:,} of {g['reviews']:,} ({100 * g['certified_share']:.2f}%) certified"
                         + (f" vs {100 * g['measured_agreement']:.2f}% measured" if g["measured_agreement"] is not None
                            else "") for g in attention)
    return {"kind": SOFTMAX_CERTIFICATE_KIND, "rows": rows, "by_d": by_d,
            "summary": ("Test reviews on which softmax attention (exact real arithmetic, beta as trained) is certified "
                        f"to predict what certified hardmax predicts, K > 0: {sentence or 'no run with K > 0'}."),
            "certified": ("a review counts when the per-input bound of docs/theory.md §6 holds through layer K and "
                          "the hardmax logit exceeds ||w|| eps_K, both proven (docs/softmax.md)"),
            "measured": "measured_agreement compares the float32 softmax model with the hardmax predictions (evidence)"}


def _softmax_line(row: dict) -> str:
    measured = row.get("measured_agreement")
    share = row["certified"] / row["reviews"] if row["reviews"] else float("nan")
    reasons = ", ".join(f"{reason} {count}" for reason, count in sorted(row["not_certified"].items())) or "none"
    return (f"{row['run']}: softmax certified to agree on {row['certified']} of {row['reviews']} test reviews "
            f"({100 * share:.2f}%)" + (f", measured {100 * measured:.2f}%" if measured is not None else "")
            + f"; not certified: {reasons}")


@sentiment.command("analyze")
@click.option("--checkpoint", "checkpoint_dirs", type=click.Path(path_type=Path), multiple=True,
              help="A trained checkpoint for the word-based analyses (leaders, leader words, lexicon); "
                   "repeat for several (e.g. one per d).")
@click.option("--reference", "--authors-npz", "authors_npz", type=click.Path(dir_okay=False, path_type=Path),
              default=None,
              help=f"The authors' d=2 model as arrays E, alpha, w, b (.npz) for the word-free checks [default: "
                   f"${REFERENCE_ENV}, else the copy `sentiment fetch-reference` made, if any].")
@_data_option
@_cache_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path(DEFAULT_RUNS_DIR) / "analysis", show_default=True, callback=writable_folder,
              help="Folder for analysis.json and the figures.")
@click.option("--reviews", "max_reviews", type=click.IntRange(min=1), default=None,
              help="Analyse at most this many test reviews (default: all).")
@click.option("--samples", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Configurations drawn from the authors' embeddings.")
@click.option("--converge-layers", type=click.IntRange(min=9), default=200, show_default=True,
              help="Layers run for the 'converged' state compared with K = 8.")
@click.option("--certify-samples", type=click.IntRange(min=0), default=200, show_default=True,
              help="Of the authors' distinct configurations, how many to run through the exact claim checks "
                   "(T0..T4 certified, exact limits by D7, the class of the limit state; about 1 s each).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seeds the sampled configurations and review subsets.")
@json_option("the analyses (the contents of OUT/analysis.json)")
@_quiet_option
def analyze(checkpoint_dirs: tuple[Path, ...], authors_npz: Path | None, data: Path | None, cache_dir: Path | None,
            out_dir: Path, max_reviews: int | None, samples: int, converge_layers: int, certify_samples: int,
            seed: int, json_to: str | None, quiet: bool) -> int:
    """The paper's analyses and the experiment's claims, checked; JSON (and PNG) under --out."""
    authors_npz = resolve_reference(authors_npz, required=False)
    if not checkpoint_dirs and authors_npz is None:
        raise InputError("--checkpoint", "give a checkpoint and/or --reference: nothing to analyse")
    with _progress(not quiet) as update:
        summary = run_analyses(checkpoint_dirs=checkpoint_dirs, authors_npz=authors_npz,
                               data=resolve_data(data) if checkpoint_dirs else None, cache_dir=corpus_cache(cache_dir),
                               out_dir=out_dir, max_reviews=max_reviews, samples=samples,
                               converge_layers=converge_layers, certify_samples=certify_samples, seed=seed,
                               progress=update)
    echo_summary("\n".join([*summary.get("lines", []), f"wrote {out_dir}"]), json_to)
    # The file as written (its numpy numbers already converted).
    emit_json(json.loads((Path(out_dir) / "analysis.json").read_text(encoding="utf-8")), json_to)
    return exitcodes.SUCCESS


@sentiment.group("protocol")
def protocol_group() -> None:
    """Run a preregistered protocol file (protocols/*.toml): the queue of runs, resumable; several runners may share a folder."""


_protocol_option = click.option("--protocol", "protocol_path", type=click.Path(dir_okay=False, path_type=Path),
                                default=Path("protocols/reproduction.toml"), show_default=True,
                                help="The preregistered protocol file (TOML): its runs, settings and studies.")
_runs_dir_option = click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), required=True,
                                help="Where the runs' checkpoints, epoch weights and evaluations are written.")
_collected_option = click.option("--results", "results_dir", type=click.Path(file_okay=False, path_type=Path),
                                 default=Path(DEFAULT_RUNS_DIR) / "protocol", show_default=True,
                                 help="Finished runs' records ('protocol collect' writes them): a run collected "
                                      "here under the same protocol file counts as finished.")


@protocol_group.command("run")
@_protocol_option
@_runs_dir_option
@_data_option
@_cache_option
@click.option("--only", multiple=True, help="Run only this run of the protocol (repeatable), e.g. d2-K8-s0.")
@_collected_option
@_step_option
@json_option("the runs this runner finished and the status of every run")
def protocol_run(protocol_path: Path, runs_dir: Path, data: Path | None, cache_dir: Path | None,
                 only: tuple[str, ...], results_dir: Path, step: str, json_to: str | None) -> int:
    """Work through the protocol's queue: skip finished runs, resume interrupted ones, evaluate each once at its end.

    Progress is appended to RUNS_DIR/protocol.log; Ctrl-C (or a kill) loses at most the epoch
    in progress, and running the same command again continues. Started several times on the same
    RUNS_DIR, the runners share the queue: each skips the runs another is working on. Runs already
    collected into RESULTS are skipped, so a fresh RUNS_DIR continues where the saved results end.
    """
    protocol = load_protocol(protocol_path)
    data = resolve_data(data)
    finished = run_queue(protocol, runs_dir, data=data, cache_dir=cache_dir, only=only, results_dir=results_dir, step=step,
                         echo=lambda line: click.echo(line, err=True))
    status = queue_status(protocol, runs_dir, results_dir=results_dir)
    echo_summary(f"{len(finished)} runs finished by this runner{': ' + ', '.join(finished) if finished else ''}; "
                 f"{_status_counts(status)}", json_to)
    emit_json({"finished_now": finished, "status": status}, json_to)
    return exitcodes.SUCCESS


@protocol_group.command("status")
@_protocol_option
@_runs_dir_option
@_collected_option
@json_option("the status of every run")
def protocol_status(protocol_path: Path, runs_dir: Path, results_dir: Path, json_to: str | None) -> int:
    """Which runs are finished, collected earlier, in progress (epochs, validation accuracy so far) or not started."""
    status = queue_status(load_protocol(protocol_path), runs_dir, results_dir=results_dir)
    lines = []
    for record in status:
        extra = ""
        if record.get("epochs") is not None:
            extra = (f"  {record['epochs']} epochs, validation {record.get('validation_accuracy'):.4f} at epoch "
                     f"{record.get('best_epoch')}, alpha {record.get('alpha'):.3g}, {_steps_text(record)}")
        lines.append(f"{record['run']:<22} {record['state']:<12}{extra}")
    lines.append(_status_counts(status))
    echo_summary("\n".join(lines), json_to)
    emit_json(status, json_to)
    return exitcodes.SUCCESS


def _steps_text(record: dict) -> str:
    """Which step implementation trained the run: one name, or each one's epochs when mixed."""
    stretches = record.get("step_implementations") or []
    if record.get("training_step") is None:
        return "no epoch recorded"
    if record.get("training_step") != "mixed":
        return f"{record.get('training_step')} step"
    return "mixed steps: " + ", ".join(f"{s['step']} {s['epochs'][0]}-{s['epochs'][1]}" for s in stretches)


def _status_counts(status: list[dict]) -> str:
    """``16 finished, 0 collected, 2 in progress, 28 not started``."""
    counts = {state: sum(r["state"] == state for r in status)
              for state in ("finished", "collected", "in progress", "not started")}
    return ", ".join(f"{n} {state}" for state, n in counts.items())


@sentiment.command("fetch")
@click.option("--url", default=None, help="Where to download the archive [default: the dataset's official address].")
@click.option("--no-keep-archive", is_flag=True, help="Delete the 84 MB archive after converting it.")
@json_option("where the reviews were written, and the archive's address and checked sha256")
@_quiet_option
def fetch_command(url: str | None, no_keep_archive: bool, json_to: str | None, quiet: bool) -> int:
    """Download the Large Movie Review Dataset (aclImdb_v1.tar.gz), check its sha256, convert it once.

    The CSV lands in the user cache folder (HARDMAX_VERIFY_CACHE, else
    $XDG_CACHE_HOME/hardmax-verify, else ~/.cache/hardmax-verify),
    where every sentiment command finds it when no --data is given.
    """
    with _progress(not quiet) as update:
        path = sources.fetch(url=url, keep_archive=not no_keep_archive,
                             progress=lambda done, total: update("download", done, total))
    echo_summary(f"{path}: the IMDb reviews (archive sha256 {sources.IMDB_SHA256[:16]}… checked); every sentiment "
                 "command finds them there", json_to)
    emit_json({"data": str(path), "url": url or sources.IMDB_URL, "archive_sha256": sources.IMDB_SHA256}, json_to)
    return exitcodes.SUCCESS


@sentiment.command("fetch-reference")
@click.option("--url", default=None, help="Where to download the model [default: the authors' repository].")
@click.option("--from-file", "from_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Convert this already downloaded .pth instead of downloading.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              callback=writable_file, help="Where to write the arrays [default: the user cache folder, where --reference finds them].")
@json_option("where the arrays were written")
@_quiet_option
def fetch_reference_command(url: str | None, from_file: Path | None, out_path: Path | None, json_to: str | None,
                            quiet: bool) -> int:
    """The authors' trained d = 2 model: download it and convert it to arrays (E, alpha, w, b).

    The file is a pickled PyTorch module; torch's weights-only loader reads it without running
    code from it. The arrays land in the user cache folder, where --reference finds them.
    """
    if from_file is not None:
        path = sources.convert_reference(from_file, out_path or sources.fetched_reference_path())
    else:
        with _progress(not quiet) as update:
            path = sources.fetch_reference(url=url, progress=lambda done, total: update("download", done, total))
        if out_path is not None:
            out_path.parent.mkdir(parents=True, exist_ok=True)
            # Atomic: a stopped copy never leaves a half-written file where --reference would read it.
            atomic_write_bytes(out_path, read_input(path, expected="the converted reference arrays (.npz)"))
            path = out_path
    echo_summary(f"{path}: the authors' d = 2 model as arrays E, alpha, w, b", json_to)
    emit_json({"reference": str(path)}, json_to)
    return exitcodes.SUCCESS


@sentiment.command("interpret")
@click.option("--checkpoint", "checkpoint_dir", type=click.Path(path_type=Path), required=True,
              help="A checkpoint folder written by 'sentiment train' (or a published one).")
@_data_option
@_cache_option
@click.option("--reviews", "max_reviews", type=click.IntRange(min=1), default=None,
              help="Use at most this many test reviews (default: all).")
@click.option("--converge-layers", type=click.IntRange(min=9, max=10_000), default=200, show_default=True,
              help="Layers run for the 'converged' state compared with the model's K layers.")
@click.option("--converge-reviews", type=click.IntRange(min=1), default=3000, show_default=True,
              help="Test reviews run to --converge-layers for the distance to the converged state.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seeds the random-deletion control.")
@json_option("the whole record (every test, every number)")
@_quiet_option
def interpret(checkpoint_dir: Path, data: Path | None, cache_dir: Path | None, max_reviews: int | None,
              converge_layers: int, converge_reviews: int, seed: int, json_to: str | None, quiet: bool) -> int:
    """Interpretability tests on the test reviews: group leaders (certified), deletion, matched polarity, vote,
    clustering measures. See docs/sentiment.md for how to read them."""
    with _progress(not quiet) as update:
        record = interpret_checkpoint(checkpoint_dir, data=resolve_data(data), cache_dir=corpus_cache(cache_dir),
                                      max_reviews=max_reviews, converge_layers=converge_layers,
                                      converge_reviews=converge_reviews, seed=seed, progress=update)
    echo_summary("\n".join(_scalar_lines(record)), json_to)
    emit_json(record, json_to)
    return exitcodes.SUCCESS


def _scalar_lines(record: dict, prefix: str = "", depth: int = 0) -> list[str]:
    """A record's numbers and words, one ``a.b: value`` line each (lists and deeper tables: --json)."""
    lines = []
    for key in sorted(record):
        value = record[key]
        if isinstance(value, dict) and depth < 2:
            lines += _scalar_lines(value, f"{prefix}{key}.", depth + 1)
        elif isinstance(value, float):
            lines.append(f"{prefix}{key}: {value:.4g}")
        elif isinstance(value, (int, str, bool)) or value is None:
            lines.append(f"{prefix}{key}: {value}")
    return lines


@protocol_group.command("collect")
@_protocol_option
@_runs_dir_option
@click.option("--results", "results_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path(DEFAULT_RUNS_DIR) / "protocol", show_default=True,
              help="Where the finished runs' evaluation records are copied (one JSON file per run).")
@click.option("--models", "models_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("models/reproduction"), show_default=True,
              help="Where the selected weights of the published studies' runs are copied.")
@click.option("--publish", "publish", multiple=True,
              help="A study whose checkpoints are published (repeatable; default: every study, within the budget). "
                   "The others: evaluation records with the sha256 and the command that regenerates them.")
@click.option("--budget-mb", type=click.FloatRange(min=0), default=MODELS_BUDGET_BYTES / 1e6, show_default=True,
              help="The published checkpoints in all, in MB (identical files counted once): a run that would "
                   "exceed it is not published.")
@json_option("the runs collected and where they went")
def protocol_collect(protocol_path: Path, runs_dir: Path, results_dir: Path, models_dir: Path,
                     publish: tuple[str, ...], budget_mb: float, json_to: str | None) -> int:
    """Copy the finished runs' evaluations (and interpretations) into RESULTS, and publish the selected
    checkpoints (best.from-init.xz, the selected weights in their compact form, checkpoint.json and
    vocab.txt.gz) into MODELS, in the protocol's order, while they fit the budget."""
    copied = collect(load_protocol(protocol_path), runs_dir, results_dir=results_dir, models_dir=models_dir,
                     publish=publish or None, budget_bytes=int(budget_mb * 1e6))
    echo_summary(f"{fmt.counted(len(copied), 'finished run')} copied to {results_dir}", json_to)
    emit_json({"results": str(results_dir), "models": str(models_dir), "runs": copied}, json_to)
    return exitcodes.SUCCESS


@sentiment.command("summarize")
@_protocol_option
@click.option("--results", "results_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path(DEFAULT_RUNS_DIR) / "protocol", show_default=True,
              help="The finished runs' evaluation records ('sentiment protocol collect' writes them).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path(DEFAULT_RUNS_DIR) / "summary", show_default=True, callback=writable_folder,
              help="summary.json and the figures are written here.")
@click.option("--models", "models_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("models/reproduction"), show_default=True,
              help="Published checkpoints ('protocol collect' writes them): their training histories give the "
                   "validation-loss columns of the training-length table.")
@json_option("the summary (the same as OUT/summary.json)")
def summarize_command(protocol_path: Path, results_dir: Path, out_dir: Path, models_dir: Path,
                      json_to: str | None) -> int:
    """The protocol's tables (mean ± sd over seeds), the authors' figures beside, and the conclusion sentence."""
    protocol = load_protocol(protocol_path)
    evaluations, interpretations = load_results(results_dir)
    with atomic_directory(out_dir) as staging:
        staging.chmod(0o755)
        summary = summarize(protocol, evaluations, interpretations, figures_dir=staging, models_dir=models_dir)
        # Paths as they will be once the folder is in place.
        summary["figures"] = [str(Path(out_dir) / Path(p).name) for p in summary["figures"]]
        write_summary(summary, staging / "summary.json")
    lines = [summary["title"], summary["summary"]]
    for table in summary["tables"]:
        lines.append(f"\n{table['title']}")
        widths = [max(len(str(row[c])) for row in [table["columns"], *table["rows"]]) for c in range(len(table["columns"]))]
        for row in [table["columns"], *table["rows"]]:
            lines.append("  " + "  ".join(str(v).ljust(w) for v, w in zip(row, widths)))
    echo_summary("\n".join(lines), json_to)
    click.echo(f"{summary['runs']['finished']} of {summary['runs']['planned']} runs finished; wrote {out_dir}",
               err=True)
    emit_json(summary, json_to)
    return exitcodes.SUCCESS


# docs/theory.md §5: the vocabulary of the authors' run, padding included.
AUTHORS_VOCABULARY_SIZE = 121_296


@sentiment.command("vocabulary")
@_data_option
@click.option("--cleaning", "cleanings", type=click.Choice(["authors", "delete-punctuation"]), multiple=True,
              default=("authors",), show_default=True, help="A cleaning to count under (repeatable; see train).")
@click.option("--lemmas", "lemma_modes", type=click.Choice(["plural", "all", "none"]), multiple=True,
              default=("plural", "none", "all"), show_default=True,
              help="A lemmatiser to count under (repeatable; see train).")
@click.option("--limit-reviews", type=click.IntRange(min=2), default=None,
              help="Read at most N reviews (a quick look; for a CSV, its first rows).")
@json_option("the vocabulary sizes")
def vocabulary_command(data: Path | None, cleanings: tuple[str, ...], lemma_modes: tuple[str, ...],
                       limit_reviews: int | None, json_to: str | None) -> int:
    """Vocabulary size of the corpus under each cleaning and lemmatiser, next to the authors' 121,296.

    The lemmatiser is what remains different from the authors' preprocessing (they used NLTK's
    WordNet noun lemmatiser): no lemmas and every simplemma lemma bracket its effect.
    """
    reviews = load_reviews(resolve_data(data), limit=limit_reviews)
    rows = []
    for cleaning in cleanings:
        for lemmas in lemma_modes:
            options = _preprocess_options(False, "nltk", lemmas, cleaning)
            size = len(build_vocabulary(tokenize(text, options) for text in reviews.texts))
            rows.append({"cleaning": cleaning, "lemmas": lemmas, "vocabulary": size,
                         "difference_from_authors": size - AUTHORS_VOCABULARY_SIZE})
    lines = [f"{len(reviews)} reviews; the authors' vocabulary: {AUTHORS_VOCABULARY_SIZE:,} (padding included)"]
    for row in rows:
        lines.append(f"  cleaning {row['cleaning']:<19} lemmas {row['lemmas']:<7} {row['vocabulary']:>8,} "
                     f"({row['difference_from_authors']:+,})")
    echo_summary("\n".join(lines), json_to)
    emit_json({"reviews": len(reviews), "authors": AUTHORS_VOCABULARY_SIZE, "rows": rows}, json_to)
    return exitcodes.SUCCESS
