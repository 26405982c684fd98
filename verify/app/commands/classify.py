"""``hardmax-verify classify build | check | imdb``: exact sequence classification (docs/theory.md §7)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from verify.core import exitcodes
from verify.certcheck import classify as checker
from verify.experiments.classify.construction import build_network
from verify.experiments.classify.dataset import load_dataset
from verify.experiments.classify.experiment import VARIANTS, run_imdb
from verify.experiments.classify.imdb import DEFAULT_CACHE_DIR
from verify.core.io import atomic_write_text, json_text
from verify.core.numbers import InputError
from .output import echo_summary, emit_json, json_option, writable_file, writable_folder
from .output import progress_reporter as _progress


def _quiet_option(function: Any) -> Any:
    return click.option("--quiet", is_flag=True, help="No progress bar.")(function)


_json_option = json_option("the result")


def _emit(json_to: str | None, record: dict, summary: str) -> None:
    """The summary line, and the JSON record where --json says."""
    echo_summary(summary, json_to)
    emit_json(record, json_to)


@click.group("classify")
def classify() -> None:
    """Exact sequence classification: build a hardmax transformer for a labelled dataset, check it.

    DATA.json is {"sequences": [[token, ...], ...], "labels": [...]} with tokens lists of d exact
    numbers (docs/classify.md). Exit status: 0 every sequence classified correctly, 1 some sequence
    is not, 2 bad input or an inseparable dataset (the pair is named), 4 could not complete.
    """


@classify.command("build")
@click.argument("data_path", metavar="DATA.json", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
              callback=writable_file, help="Where to write the network file (JSON, exact numbers), atomically.")
@click.option("--width-cap", type=click.IntRange(min=3), default=None, metavar="H",
              help="Largest feed-forward width (at least 3). Without it: the wide network of three blocks (two "
                   "when no separation is needed); "
                   "with 4: the narrow network of at most 2N + 1 blocks.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seeds every genericity draw (directions, coefficients, eps).")
@_json_option
@_quiet_option
def build(data_path: Path, out_path: Path, width_cap: int | None, seed: int, json_to: str | None, quiet: bool) -> int:
    """Build a network that classifies every sequence of DATA.json exactly, and write it.

    The network is run through the exact forward pass before it is written; 'classify check'
    replays it independently.
    """
    dataset = load_dataset(data_path)
    with _progress(not quiet) as update:
        result = build_network(dataset, width_cap=width_cap, seed=seed, progress=update)
    atomic_write_text(out_path, json_text(result.to_json(), where=str(out_path), indent=None, separators=(",", ":")))
    record = dict(result.record, network=str(out_path), data=str(data_path), status="certified",
                  seconds=result.seconds)
    blocks = record["blocks"]
    summary = (f"{out_path}: {record['variant']} network for {record['sequences']} sequences (d = {dataset.d}): "
               f"{blocks['total']} blocks, {record['parameters']} parameters, largest width {record['max_width']}, "
               f"{record['thresholds']} thresholds; every sequence classified exactly (exact forward pass) "
               f"in {result.seconds['total']:.1f} s")
    _emit(json_to, record, summary)
    return exitcodes.SUCCESS


@classify.command("check")
@click.argument("network_path", metavar="NET.json", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("data_path", metavar="DATA.json", type=click.Path(dir_okay=False, path_type=Path))
@_json_option
@_quiet_option
def check(network_path: Path, data_path: Path, json_to: str | None, quiet: bool) -> int:
    """Replay NET.json on every sequence of DATA.json with the independent checker.

    The checker (verify/certcheck/classify/) uses the standard library only and shares no code
    with the construction. Exit status 0 every sequence classified as its label, 1 one is not
    (it is named), 2 bad input.
    """
    with _progress(not quiet) as update:
        try:
            result = checker.check_files(str(network_path), str(data_path), progress=update)
        except checker.BadInput as error:
            raise InputError(error.field, error.message) from None
    record = dict(result.to_json_dict(), network=str(network_path), data=str(data_path))
    summary = result.summary()
    if result.exit_status == 0:
        summary += ": certified"
    if result.recorded_outputs and not result.compared_outputs:
        summary += " (the network file records outputs for another dataset; not compared)"
    summary = "\n".join([summary, *result.unchecked_lines()])
    _emit(json_to, record, summary)
    return result.exit_status


def _integers(text: str, option: str, *, low: int = 0) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InputError(option, f"expected comma-separated integers, got {text!r}") from None
    if not values or any(v < low for v in values):
        raise InputError(option, f"expected comma-separated integers >= {low}, got {text!r}")
    return values


@classify.command("imdb")
@click.option("--data", type=click.Path(path_type=Path), required=True,
              help="IMDb reviews: the project CSV, the Kaggle CSV or an aclImdb folder.")
@click.option("--reference", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The d = 2 embedding: an .npz file with the matrix E (one row per word, row 0 the padding).")
@click.option("--sizes", default="1000,10000", show_default=True, help="Numbers of training reviews N.")
@click.option("--variants", default="wide,narrow", show_default=True, help="wide and/or narrow (width cap 4).")
@click.option("--seeds", default="0", show_default=True, help="Construction seeds (comma-separated).")
@click.option("--test-reviews", type=click.IntRange(min=1), default=None,
              help="Test reviews to run the networks on [default: all of the split's test part].")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("runs/classify/imdb.json"), show_default=True, callback=writable_file,
              help="The results file (rewritten atomically after every run).")
@click.option("--networks", type=click.Path(file_okay=False, path_type=Path), default=None, callback=writable_folder,
              help="Also write every network and the training data here, for 'classify check' (large files).")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_CACHE_DIR,
              show_default=True, callback=writable_folder, help="Cache of preprocessed reviews (shared with the sentiment commands).")
@click.option("--resume", is_flag=True,
              help="Keep the runs already in --out (same data, embedding and test reviews) and do only the "
                   "others; the file then holds both.")
@json_option("the results (the contents of --out)")
@_quiet_option
def imdb(data: Path, reference: Path, sizes: str, variants: str, seeds: str, test_reviews: int | None,
         out_path: Path, networks: Path | None, cache_dir: Path, resume: bool, json_to: str | None,
         quiet: bool) -> int:
    """IMDb training reviews embedded in d = 2 and cut or padded to 128 tokens: build, certify, test.

    Groups of reviews with equal empirical distributions and both labels are removed and
    reported; every other review must be certified (exact forward pass and independent check);
    the test accuracy of the same networks is reported beside the majority-class rate.
    """
    sizes_list = _integers(sizes, "--sizes", low=1)
    seeds_list = _integers(seeds, "--seeds")
    variant_list = [v.strip() for v in variants.split(",") if v.strip()]
    unknown = [v for v in variant_list if v not in VARIANTS]
    if unknown or not variant_list:
        raise InputError("--variants", f"expected wide and/or narrow, got {variants!r}")
    with _progress(not quiet) as update:
        results = run_imdb(data=data, reference=reference, sizes=sizes_list, variants=variant_list,
                           seeds=seeds_list, out=out_path, test_size=test_reviews, cache_dir=cache_dir,
                           networks=networks, resume=resume, progress=update,
                           log=lambda text: click.echo(text, err=True))
    failed = [r for r in results["runs"] if r["checker_status"] != "certified"]
    _emit(json_to, results, f"{out_path}: {len(results['runs'])} runs, "
          + ("every kept review certified by the independent checker" if not failed
             else f"{len(failed)} runs NOT certified"))
    return exitcodes.FALSE if failed else exitcodes.SUCCESS
