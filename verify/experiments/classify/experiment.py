"""The IMDb demonstration of exact classification (its report section: :mod:`.report_section`).

Protocol (docs/classify.md, "The IMDb demonstration"): training reviews of the paper split,
embedded with a d = 2 embedding and cut or padded to 128 tokens (:mod:`.imdb`); groups of reviews
with one empirical distribution and both labels are removed and reported; a network is built for
the rest and its classification certified twice, by the construction's exact forward pass and by
the independent checker; then the same network is run on the test reviews, and its accuracy
reported with the majority-class rate beside it. Memorisation is not generalisation: nothing in
the construction aims at test reviews.

Test prediction: the label nearest to the mean first coordinate of a review's final tokens,
decided exactly; a review exactly halfway between two labels counts as wrong.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Sequence

from verify.core.io import atomic_write_text, json_text, read_json
from verify.core.numbers import InputError
from verify.certcheck import classify as checker

from . import IMDB_RESULTS_FORMAT
from .construction import NARROW_WIDTH, build_network
from .dataset import Dataset, dataset_to_json, inseparable_groups, subset
from .imdb import embedded_reviews
from .network import Network, forward, initial_state, to_fraction

__all__ = ["run_imdb", "previous_results", "predict", "VARIANTS", "RESULTS_FORMAT"]

RESULTS_FORMAT = IMDB_RESULTS_FORMAT
VARIANTS = {"wide": None, "narrow": NARROW_WIDTH}
Log = Callable[[str], None]
Progress = Callable[[str, int, int], None]


def predict(network: Network, dataset: Dataset, labels: Sequence[Fraction]) -> list[Fraction | None]:
    """Per sequence: the label in ``labels`` nearest to the mean first coordinate of its final tokens,
    None when two labels are equally near (exact arithmetic throughout)."""
    state = forward(network, initial_state(dataset.tokens, dataset.sequences))
    choices = sorted(set(labels))
    out: list[Fraction | None] = []
    for items in state.sequences:
        total = sum((count * to_fraction(state.points[p][0]) for p, count in items), Fraction(0))
        mean = total / sum(count for _, count in items)
        distances = sorted((abs(mean - y), y) for y in choices)
        tied = len(distances) > 1 and distances[0][0] == distances[1][0]
        out.append(None if tied else distances[0][1])
    return out


# The part of a results file's "source" that names the data and how it was prepared; the rest
# (token counts) describes the first sample drawn and differs between sizes.
SOURCE_IDENTITY = ("data", "reference", "preprocess", "sequence_length", "split", "sample_seed", "vocabulary",
                   "word_to_row")


def _run_key(run: dict) -> tuple[int, int, int]:
    """Sizes ascending, then the variants in the order of VARIANTS, then seeds: one order however the runs came."""
    order = list(VARIANTS)
    return (run["N"], order.index(run["variant"]) if run["variant"] in order else len(order), run["seed"])


def previous_results(out: Path, *, test_size: int | None) -> dict | None:
    """The results file ``out`` to resume from (None when it does not exist), checked against this run.

    Raises :class:`InputError` naming the field when it is not a results file of this protocol or was
    made with another number of test reviews.
    """
    if not out.exists():
        return None
    try:
        data = read_json(out, expected="a JSON results file")
    except InputError as error:
        raise InputError(str(out), f"cannot resume: not a readable JSON results file ({error.message})") from None
    if not isinstance(data, dict) or data.get("format") != RESULTS_FORMAT:
        raise InputError(f"{out}:format", f"cannot resume: expected {RESULTS_FORMAT!r}")
    if data.get("test_size") != test_size:
        def shown(value: Any) -> str:
            return "all" if value is None else str(value)
        raise InputError(f"{out}:test_size", f"cannot resume: the file was made with --test-reviews "
                                             f"{shown(data.get('test_size'))}, this run asks for {shown(test_size)}")
    for field in ("runs", "samples"):
        if not isinstance(data.get(field), list) or not all(isinstance(x, dict) for x in data[field]):
            raise InputError(f"{out}:{field}", "cannot resume: expected a list of objects")
    for n, run in enumerate(data["runs"]):
        if not (isinstance(run.get("N"), int) and run.get("variant") in VARIANTS and isinstance(run.get("seed"), int)):
            raise InputError(f"{out}:runs[{n}]", "cannot resume: expected N, variant and seed")
    return data


def run_imdb(*, data: Path, reference: Path, sizes: Sequence[int], variants: Sequence[str], seeds: Sequence[int],
             out: Path, test_size: int | None = None, cache_dir: Path | None = None, networks: Path | None = None,
             resume: bool = False, progress: Progress | None = None, log: Log | None = None) -> dict:
    """Run the protocol and write the results file ``out`` (atomically, after every run).

    With ``resume``, the runs already in ``out`` (same data, embedding and test reviews; the
    same seed gives the same network) are kept and not repeated; the file then holds the union.
    """
    say = log or (lambda text: None)
    report = progress or (lambda *args: None)

    def labelled(label: str, phase: str | None = None) -> Progress:
        """``report`` with the run's label before the phase (``phase``: one fixed name for every step)."""
        return lambda step, done, total: report(f"{label}: {phase or step}", done, total)

    earlier = previous_results(Path(out), test_size=test_size) if resume else None
    results: dict[str, Any] = {"format": RESULTS_FORMAT, "protocol": "docs/classify.md, The IMDb demonstration",
                               "sizes": list(sizes), "variants": list(variants), "seeds": list(seeds),
                               "test_size": test_size, "runs": [], "samples": []}
    if earlier is not None:
        results["sizes"] = sorted(set(sizes) | {r["N"] for r in earlier["runs"]})
        results["variants"] = [v for v in VARIANTS if v in set(variants) | {r["variant"] for r in earlier["runs"]}]
        results["seeds"] = sorted(set(seeds) | {r["seed"] for r in earlier["runs"]})
        if "source" in earlier:
            results["source"] = earlier["source"]
        results["runs"] = sorted(earlier["runs"], key=_run_key)
        results["samples"] = sorted(earlier["samples"], key=lambda s: s["N"])
    done = {(r["N"], r["variant"], r["seed"]) for r in results["runs"]}
    if done:
        say(f"resuming {out}: {len(done)} runs already done")
    for size in sizes:
        plan = [(variant, seed) for variant in variants for seed in seeds if (size, variant, seed) not in done]
        if not plan:
            say(f"N = {size}: every run already done")
            continue
        reviews = embedded_reviews(data, reference, train_size=size, test_size=test_size, cache_dir=cache_dir,
                                   progress=lambda done, total: report("reading and cleaning reviews", done, total))
        if "source" in results:
            for field in SOURCE_IDENTITY:
                if results["source"].get(field) != reviews.info.get(field):
                    raise InputError(f"{out}:source.{field}", "cannot resume: the results file was made from other "
                                                              "data or another embedding")
        results.setdefault("source", reviews.info)
        groups = inseparable_groups(reviews.train)
        removed = sorted(n for g in groups for n in g)
        dropped = set(removed)
        kept = [n for n in range(len(reviews.train)) if n not in dropped]
        train = subset(reviews.train, kept, name=f"imdb-train-{size}")
        labels = sorted(set(reviews.train.labels))
        sample = {
            "N": size, "kept": len(kept), "removed": len(removed),
            "inseparable_groups": [[{"review_row": int(reviews.train_rows[n]), "label": int(reviews.train.labels[n]),
                                     "length": len(reviews.train.sequences[n])} for n in g] for g in groups],
            "majority_train": max(sum(1 for y in train.labels if y == c) for c in labels) / len(train),
            "test_reviews": len(reviews.test),
            "majority_test": max(sum(1 for y in reviews.test.labels if y == c) for c in labels) / len(reviews.test),
        }
        kept_sample = next((s for s in results["samples"] if s["N"] == size), None)
        if kept_sample is not None and kept_sample != sample:
            raise InputError(f"{out}:samples", f"cannot resume: the sample of N = {size} reviews differs from "
                                               "the one this run draws")
        if kept_sample is None:
            results["samples"] = sorted(results["samples"] + [sample], key=lambda s: s["N"])
        say(f"N = {size}: {len(removed)} reviews in {len(groups)} inseparable groups removed, {len(kept)} kept")
        data_json = json.loads(json.dumps(dataset_to_json(train)))
        for variant, seed in plan:
            label = f"N = {size} {variant}"
            started = time.process_time()
            result = build_network(train, width_cap=VARIANTS[variant], seed=seed, progress=labelled(label))
            build_seconds = time.process_time() - started
            network_json = result.to_json()
            if networks is not None:
                stem = f"imdb-N{size}-{variant}-seed{seed}"
                network_file, data_file = networks / f"{stem}.net.json", networks / f"imdb-N{size}.data.json"
                atomic_write_text(network_file, json_text(network_json, where=str(network_file), indent=None,
                                                          separators=(",", ":"), newline=False))
                atomic_write_text(data_file, json_text(data_json, where=str(data_file), indent=None, newline=False))
            started = time.process_time()
            outcome = checker.check_objects(json.loads(json.dumps(network_json)), data_json,
                                            progress=labelled(label, "independent check"))
            check_seconds = time.process_time() - started
            started = time.process_time()
            predictions = predict(result.network, reviews.test, labels)
            test_seconds = time.process_time() - started
            correct = sum(1 for p, y in zip(predictions, reviews.test.labels) if p == y)
            run = {
                "N": size, "variant": variant, "seed": seed, "sequences": len(train),
                "certified_by_construction": len(result.outputs),
                "certified_by_checker": outcome.sequences - len(outcome.misclassified),
                "checker_status": "certified" if outcome.exit_status == 0 else "failed",
                "checker_summary": outcome.summary(),
                "blocks": len(result.network.blocks), "parameters": result.network.parameter_count(),
                "max_width": max(result.network.widths()), "thresholds": result.record["thresholds"],
                "redraws": result.record["redraws"],
                "test_accuracy": correct / len(predictions),
                "test_ties": sum(1 for p in predictions if p is None),
                "cpu_seconds": {"build": round(build_seconds, 1), "check": round(check_seconds, 1),
                                "test": round(test_seconds, 1)},
            }
            results["runs"] = sorted(results["runs"] + [run], key=_run_key)
            atomic_write_text(out, json_text(results, where=str(out)))
            say(f"N = {size} {variant} seed {seed}: {run['certified_by_checker']}/{len(train)} certified by the "
                f"checker, {run['blocks']} blocks, {run['parameters']} parameters; test accuracy "
                f"{run['test_accuracy']:.4f} (majority {sample['majority_test']:.4f})")
    return results
