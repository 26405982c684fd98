"""The IMDb demonstration of exact classification, and the report section built from its results.

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
import statistics
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Sequence

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..io import atomic_write_text
from . import checker
from .construction import NARROW_WIDTH, build_network
from .dataset import Dataset, dataset_to_json, inseparable_groups, subset
from .imdb import embedded_reviews
from .network import Network, forward, initial_state, to_fraction

__all__ = ["run_imdb", "predict", "report_section", "VARIANTS", "RESULTS_FORMAT"]

RESULTS_FORMAT = "hardmax-verify/classify-imdb-v1"
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


def run_imdb(*, data: Path, reference: Path, sizes: Sequence[int], variants: Sequence[str], seeds: Sequence[int],
             out: Path, test_size: int | None = None, cache_dir: Path | None = None, networks: Path | None = None,
             progress: Progress | None = None, log: Log | None = None) -> dict:
    """Run the protocol and write the results file ``out`` (atomically, after every run)."""
    say = log or (lambda text: None)
    report = progress or (lambda *args: None)

    def labelled(label: str, phase: str | None = None) -> Progress:
        """``report`` with the run's label before the phase (``phase``: one fixed name for every step)."""
        return lambda step, done, total: report(f"{label}: {phase or step}", done, total)

    results: dict[str, Any] = {"format": RESULTS_FORMAT, "protocol": "docs/classify.md, The IMDb demonstration",
                               "sizes": list(sizes), "variants": list(variants), "seeds": list(seeds),
                               "test_size": test_size, "runs": [], "samples": []}
    for size in sizes:
        reviews = embedded_reviews(data, reference, train_size=size, test_size=test_size, cache_dir=cache_dir,
                                   progress=lambda done, total: report("reading and cleaning reviews", done, total))
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
        results["samples"].append(sample)
        say(f"N = {size}: {len(removed)} reviews in {len(groups)} inseparable groups removed, {len(kept)} kept")
        data_json = json.loads(json.dumps(dataset_to_json(train)))
        for variant in variants:
            for seed in seeds:
                label = f"N = {size} {variant}"
                started = time.process_time()
                result = build_network(train, width_cap=VARIANTS[variant], seed=seed, progress=labelled(label))
                build_seconds = time.process_time() - started
                network_json = result.to_json()
                if networks is not None:
                    stem = f"imdb-N{size}-{variant}-seed{seed}"
                    atomic_write_text(networks / f"{stem}.net.json", json.dumps(network_json, separators=(",", ":")))
                    atomic_write_text(networks / f"imdb-N{size}.data.json", json.dumps(data_json))
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
                results["runs"].append(run)
                atomic_write_text(out, json.dumps(results, indent=1) + "\n")
                say(f"N = {size} {variant} seed {seed}: {run['certified_by_checker']}/{len(train)} certified by the "
                    f"checker, {run['blocks']} blocks, {run['parameters']} parameters; test accuracy "
                    f"{run['test_accuracy']:.4f} (majority {sample['majority_test']:.4f})")
    return results


# ------------------------------------------------------------------------------- report section

def _mean_sd(values: list[float]) -> str:
    if len(values) == 1:
        return f"{values[0]:.4f} (one seed)"
    return f"{statistics.mean(values):.4f} ± {statistics.stdev(values):.4f} ({len(values)} seeds)"


def _load(source: dict | Path | str) -> dict:
    if isinstance(source, dict):
        return source
    return json.loads(Path(source).read_text(encoding="utf-8"))


def report_section(results: dict | Path | str, bench: dict | Path | str | None = None, *,
                   figure_dir: Path | None = None) -> dict:
    """The report's section on exact classification: title, summary sentence, tables, figure paths.

    ``results`` is the IMDb results file (:func:`run_imdb`), ``bench`` the ``--json`` output of
    ``bench/classify.py``; with ``figure_dir`` a scaling figure is drawn there from ``bench``.
    """
    imdb = _load(results)
    scaling = None if bench is None else _load(bench)
    tables = []
    rows = []
    all_certified = True
    groups_found = 0
    samples = {s["N"]: s for s in imdb["samples"]}
    for size in imdb["sizes"]:
        for variant in imdb["variants"]:
            runs = [r for r in imdb["runs"] if r["N"] == size and r["variant"] == variant]
            if not runs:
                continue
            sample = samples[size]
            certified = all(r["checker_status"] == "certified" and r["certified_by_checker"] == r["sequences"]
                            for r in runs)
            all_certified &= certified
            rows.append([size, variant, sample["removed"], runs[0]["sequences"],
                         "100%" if certified else "NO", runs[0]["blocks"], runs[0]["parameters"],
                         runs[0]["thresholds"], _mean_sd([r["test_accuracy"] for r in runs]),
                         f"{sample['majority_test']:.4f}"])
    for sample in imdb["samples"]:
        groups_found += len(sample["inseparable_groups"])
    tables.append({
        "title": "IMDb training reviews (d = 2, 128 tokens): exact classification, then test reviews",
        "headers": ["N", "variant", "removed (inseparable)", "classified", "certified exactly (independent check)",
                    "blocks", "parameters", "thresholds", "test accuracy", "majority class (test)"],
        "rows": rows,
    })
    pairs = []
    for sample in imdb["samples"]:
        for group in sample["inseparable_groups"]:
            pairs.append([sample["N"], ", ".join(f"row {m['review_row']} (label {m['label']}, {m['length']} words)"
                                                  for m in group)])
    tables.append({"title": "Inseparable groups removed (equal empirical distributions, both labels)",
                   "headers": ["N", "reviews"], "rows": pairs or [["-", "none found"]]})
    figures = []
    if scaling is not None:
        scale_rows = [[r["N"], r["variant"], r["tokens"], r["blocks"], r["parameters"], f"{r['build_s']:.2f}",
                       f"{r['check_s']:.2f}"] for r in scaling["by_size"]]
        tables.append({"title": "Scaling with the number of sequences (bench/classify.py, CPU seconds)",
                       "headers": ["N", "variant", "tokens", "blocks", "parameters", "build s", "check s"],
                       "rows": scale_rows})
        if figure_dir is not None:
            figures.append(str(_scaling_figure(scaling, Path(figure_dir) / "classify_scaling.png")))
    best = max((r for r in imdb["runs"]), key=lambda r: r["N"], default=None)
    summary = (f"Every training review left after removing {groups_found} inseparable group(s) was classified "
               f"exactly by the built networks, certified by an independent checker"
               if all_certified else "Some built network was NOT certified by the independent checker")
    if best is not None:
        accuracies = [r["test_accuracy"] for r in imdb["runs"] if r["N"] == best["N"]]
        summary += (f"; on test reviews the N = {best['N']} networks reach {min(accuracies):.3f} to "
                    f"{max(accuracies):.3f}, against {samples[best['N']]['majority_test']:.3f} for always answering "
                    f"the majority class: exact memorisation, not generalisation.")
    return {"title": "Exact sequence classification", "summary": summary, "tables": tables, "figures": figures}


def _scaling_figure(scaling: dict, path: Path) -> Path:
    figure = Figure(figsize=(7, 3))
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, 2)
    for variant, style in (("wide", "o-"), ("narrow", "s--")):
        rows = [r for r in scaling["by_size"] if r["variant"] == variant]
        for ax, key, label in ((axes[0], "build_s", "build"), (axes[1], "check_s", "independent check")):
            ax.loglog([r["N"] for r in rows], [r[key] for r in rows], style, label=f"{variant}")
            ax.set_title(label)
            ax.set_xlabel("sequences N")
    axes[0].set_ylabel("CPU seconds")
    axes[0].legend()
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    return path
