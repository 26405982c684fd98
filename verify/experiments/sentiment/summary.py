"""The protocol's results as data: tables (mean ± sd over seeds), the conclusion sentence, figures.

:func:`summarize` reads the evaluation records of a protocol's finished runs (one JSON file per
run, as ``sentiment protocol collect`` writes them, optionally with ``<run>.interpret.json``
beside) and returns a dictionary a report can render without knowing the experiment:

``title``, ``summary`` (the plain conclusion sentence), ``tables`` (each ``name``, ``title``,
``columns``, ``rows`` of display strings, and ``data`` with the numbers), ``figures`` (paths),
``runs`` (finished of planned) and ``conclusion`` (the numbers behind the sentence).

The rules are the protocol's (``protocols/reproduction.toml``): a cell is (study, d, K, alpha);
its number is the mean ± sample sd over its finished seeds of the certified hardmax test
accuracy of the validation-selected epoch. A cell is complete when all its planned seeds are
finished; the conclusion uses complete cells only. At each d, the attention layers help if the
K = 8 mean exceeds the trained K = 0 mean by more than two standard errors
(sqrt(sd8^2/n8 + sd0^2/n0)), hurt if it falls short by more, and otherwise no difference is resolved.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from verify.core.figure_text import png_metadata
from verify.core.formatting import counted, noun_for
from verify.core.io import atomic_write_text, json_text, read_json
from verify.core.numbers import InputError
from . import AUTHORS_SOFTMAX_TEST_ACCURACY
from .checkpoints import MAX_META_BYTES
from .protocol import PlannedRun, Protocol

__all__ = ["load_results", "cell", "summarize", "conclusion_sentence", "comparison_numbers",
           "training_lengths", "write_summary"]


def load_results(folder: Path | str) -> tuple[dict[str, dict], dict[str, dict]]:
    """(evaluations, interpretations) by run name from a results folder."""
    folder = Path(folder)
    evaluations: dict[str, dict] = {}
    interpretations: dict[str, dict] = {}
    if not folder.is_dir():
        return evaluations, interpretations
    for path in sorted(folder.glob("*.json")):
        record = read_json(path, expected="a JSON result")  # strict: a repeated key or NaN is refused, naming the file
        if not isinstance(record, dict):
            raise InputError(str(path), "expected a JSON object")
        if path.name.endswith(".interpret.json"):
            interpretations[path.name[:-len(".interpret.json")]] = record
        else:
            evaluations[path.stem] = record
    return evaluations, interpretations


def cell(values: list[float]) -> dict:
    """n, mean and sample sd (None for fewer than two values), and the values themselves (for plots)."""
    array = np.asarray([v for v in values if v is not None], dtype=np.float64)
    if not len(array):
        return {"n": 0, "mean": None, "sd": None, "values": []}
    return {"n": int(len(array)), "mean": float(array.mean()),
            "sd": float(array.std(ddof=1)) if len(array) > 1 else None, "values": [float(v) for v in array]}


def _show(stats: dict, planned: int | None = None) -> str:
    if not stats["n"]:
        return "not run yet"
    text = f"{stats['mean']:.4f}" + (f" ± {stats['sd']:.4f}" if stats["sd"] is not None else "")
    if planned is not None and stats["n"] < planned:
        text += f" ({stats['n']} of {planned} seeds)"
    return text


def _seeds(runs: list[PlannedRun]) -> str:
    """'seeds 0, 1': a study's seeds, named in its title (its K = 0 and K = 8 cells use fewer seeds than phase 1)."""
    seeds = sorted({r.seed for r in runs})
    return f"{noun_for(len(seeds), 'seed')} {', '.join(map(str, seeds))}"


def _runs_of(protocol: Protocol, study: str, **match) -> list:
    return [r for r in protocol.runs if study in r.studies and all(getattr(r, k) == v for k, v in match.items())]


def _values(runs, evaluations, key: str, nested: str | None = None) -> list[float]:
    out = []
    for run in runs:
        record = evaluations.get(run.name)
        if record is None:
            continue
        value = record.get(key)
        if nested is not None:
            value = value.get(nested) if isinstance(value, dict) else None
        out.append(value)
    return out


def conclusion_sentence(differences: list[dict], finished: int, planned: int, pending: list[int] | None = None) -> str:
    """The plain sentence on whether clustering helps, from the per-d verdicts (complete cells only).

    ``pending``: the dimensions whose compared cells are not complete yet. The sentence about the
    task as a whole is given only when no dimension is pending.
    """
    pending = sorted(pending or [])
    if not differences:
        return (f"No conclusion yet: the reproduction and baseline cells are not complete ({finished} of "
                f"{planned} runs finished).")
    by_verdict: dict[str, list[int]] = {}
    for entry in differences:
        by_verdict.setdefault(entry["verdict"], []).append(entry["d"])
    parts = []
    names = {"helps": "the K = 8 attention layers beat the trained mean-of-embeddings baseline (K = 0)",
             "hurts": "the trained mean-of-embeddings baseline (K = 0) beats the K = 8 attention layers",
             "no difference resolved": "the K = 8 attention layers and the trained K = 0 baseline do not differ "
                                       "by more than two standard errors"}
    for verdict in ("helps", "hurts", "no difference resolved"):
        if verdict in by_verdict:
            dims = ", ".join(str(d) for d in sorted(by_verdict[verdict]))
            parts.append(f"at d = {dims} {names[verdict]}")
    sentence = "On IMDb, under the paper's protocol with validation-selected epochs, " + "; ".join(parts) + "."
    if pending:
        return sentence + (f" At d = {', '.join(str(d) for d in pending)} the compared cells are not complete yet "
                           f"({finished} of {planned} runs finished), so there is no conclusion for the task as a "
                           "whole.")
    if set(by_verdict) <= {"hurts", "no difference resolved"}:
        sentence += " Clustering by the attention layers does not help this task."
    elif set(by_verdict) == {"helps"}:
        sentence += " Clustering by the attention layers helps this task."
    return sentence


def comparison_numbers(baselines: list[dict]) -> str:
    """The K = 8 and K = 0 means ± sd per d, with the authors' figure, as one sentence (empty: no runs yet)."""
    parts = []
    for entry in baselines:
        a, b = entry["K8"], entry["K0"]
        if not a["n"] and not b["n"]:
            continue
        planned8, planned0 = entry["planned"]
        authors = AUTHORS_SOFTMAX_TEST_ACCURACY.get(entry["d"])
        text = f"d = {entry['d']}: {_show(a, planned8)} against {_show(b, planned0)}"
        if authors is not None:
            text += f" (authors' softmax {authors:.4f})"
        parts.append(text)
    if not parts:
        return ""
    return ("Certified hardmax test accuracy, mean ± sd over seeds, K = 8 against the trained K = 0 baseline: "
            + "; ".join(parts) + ".")


def training_lengths(protocol: Protocol, evaluations: dict[str, dict], *,
                     models_dir: Path | None = None) -> dict:
    """How each finished run's training ended, against the protocol's epoch cap and patience.

    A run that reached the cap without an early stop was still finding better validation epochs
    within the last ``patience`` epochs: its accuracy may be limited by the cap. Returns display
    ``rows``, their ``data``, and ``notes`` (sentences for the report), with ``cap`` and ``patience``.
    """
    cap, patience = int(protocol.common["epochs"]), int(protocol.common["patience"])
    rows, data, capped = [], [], []
    for run in protocol.runs:
        record = evaluations.get(run.name)
        if record is None or not isinstance(record.get("epochs_completed"), int) or not isinstance(record.get("epoch"), int):
            continue
        ran, selected = record["epochs_completed"], record["epoch"]
        reached_cap = ran >= cap and ran - selected < patience
        entry = {"run": run.name, "epochs_run": ran, "selected_epoch": selected, "reached_cap": reached_cap}
        history = _history(models_dir, run.name)
        losses = [(e["val_loss"], e["epoch"]) for e in history if isinstance(e.get("val_loss"), (int, float))]
        if losses:
            lowest, lowest_epoch = min(losses)
            entry.update(lowest_val_loss=lowest, lowest_val_loss_epoch=lowest_epoch,
                         val_loss_at_selected=next((v for v, e in losses if e == selected), None))
        data.append(entry)
        if reached_cap:
            capped.append(entry)
        how = (f"reached the {cap}-epoch cap, still improving" if reached_cap
               else f"early stop ({patience} epochs without a better validation accuracy)")
        at_selected = entry.get("val_loss_at_selected")
        entry["published"] = record.get("published") is True
        rows.append([run.name, str(ran), str(selected), how,
                     f"{entry['lowest_val_loss']:.4f} ({entry['lowest_val_loss_epoch']})" if losses else "",
                     f"{at_selected:.4f}" if at_selected is not None else "",
                     "published" if entry["published"] else "record only"])
    notes = []
    if capped:
        described = []
        for entry in capped:
            text = f"{entry['run']} (selected epoch {entry['selected_epoch']}"
            if entry.get("lowest_val_loss_epoch") is not None and entry["lowest_val_loss_epoch"] < entry["selected_epoch"]:
                text += (f"; validation loss lowest at epoch {entry['lowest_val_loss_epoch']} and higher since, "
                         "while validation accuracy still crept up")
            described.append(text + ")")
        notes.append(f"{counted(len(capped), 'run')} reached the protocol's {cap}-epoch cap while still improving on "
                     f"validation: {', '.join(described)}. Their accuracy may be limited by the cap. Training "
                     "longer would be a new preregistered protocol, run after this one; it does not change "
                     "these numbers.")
    return {"rows": rows, "data": data, "notes": notes, "cap": cap, "patience": patience}


def _history(models_dir: Path | None, name: str) -> list[dict]:
    """A published checkpoint's training history (empty when the run has no published checkpoint).

    Raises :class:`InputError` naming the file when its checkpoint.json cannot be read as JSON
    (a repeated key or NaN included: the independent checker would not read its losses).
    """
    path = None if models_dir is None else Path(models_dir) / name / "checkpoint.json"
    if path is None or not path.exists():
        return []
    meta = read_json(path, expected="a checkpoint.json", limit=MAX_META_BYTES)
    history = meta.get("history") if isinstance(meta, dict) else None
    return [e for e in history if isinstance(e, dict)] if isinstance(history, list) else []


def summarize(protocol: Protocol, evaluations: dict[str, dict],
              interpretations: dict[str, dict] | None = None, *, figures_dir: Path | None = None,
              models_dir: Path | None = None) -> dict:
    """The tables, the conclusion and (with ``figures_dir``) the figures of a protocol's finished runs.

    ``models_dir``: the published checkpoints (``<models_dir>/<run>/checkpoint.json``), whose training
    histories give the validation-loss columns of the training-length table where they exist.
    """
    interpretations = interpretations or {}
    finished = sum(1 for r in protocol.runs if r.name in evaluations)
    tables = []

    rows, data = [], []
    for d in sorted({r.d for r in _runs_of(protocol, "reproduction")}):
        runs = _runs_of(protocol, "reproduction", d=d)
        entry = {"d": d, "planned": len(runs),
                 "hardmax": cell(_values(runs, evaluations, "hardmax_accuracy")),
                 "softmax": cell(_values(runs, evaluations, "softmax_accuracy")),
                 "like_for_like": cell(_values(runs, evaluations, "softmax_best_test_epoch", "test_acc")),
                 "validation": cell(_values(runs, evaluations, "validation_accuracy")),
                 "alpha": cell(_values(runs, evaluations, "alpha")),
                 "authors": AUTHORS_SOFTMAX_TEST_ACCURACY.get(d)}
        data.append(entry)
        rows.append([str(d), _show(entry["hardmax"], len(runs)), _show(entry["softmax"]),
                     _show(entry["like_for_like"]), f"{entry['authors']:.4f}" if entry["authors"] else "",
                     _show(entry["validation"]), _show(entry["alpha"])])
    tables.append({"name": "reproduction", "title": "The reproduction: K = 8, the authors' cleaning, 3 seeds per d",
                   "columns": ["d", "certified hardmax test accuracy", "softmax, same epoch",
                               "like for like (softmax, best test epoch)", "authors", "validation", "alpha"],
                   "rows": rows, "data": data})

    rows, data, differences = [], [], []
    for d in sorted({r.d for r in _runs_of(protocol, "baseline-k0")}):
        with_attention = _runs_of(protocol, "reproduction", d=d)
        baseline = _runs_of(protocol, "baseline-k0", d=d)
        a = cell(_values(with_attention, evaluations, "hardmax_accuracy"))
        b = cell(_values(baseline, evaluations, "hardmax_accuracy"))
        entry = {"d": d, "K8": a, "K0": b, "planned": [len(with_attention), len(baseline)]}
        complete = a["n"] == len(with_attention) and b["n"] == len(baseline) and a["n"] > 1 and b["n"] > 1
        if complete:
            difference = a["mean"] - b["mean"]
            se = math.sqrt(a["sd"] ** 2 / a["n"] + b["sd"] ** 2 / b["n"])
            verdict = "helps" if difference > 2 * se else "hurts" if difference < -2 * se else "no difference resolved"
            entry.update(difference=difference, two_se=2 * se, verdict=verdict)
            differences.append({"d": d, "difference": difference, "two_se": 2 * se, "verdict": verdict})
        data.append(entry)
        rows.append([str(d), _show(a, len(with_attention)), _show(b, len(baseline)),
                     f"{entry['difference']:+.4f} ± {entry['two_se']:.4f}" if complete else "",
                     entry.get("verdict", "incomplete")])
    baseline_cells = data
    tables.append({"name": "baselines", "title": "K = 8 against the trained K = 0 baseline (mean of embeddings)",
                   "columns": ["d", "K = 8", "K = 0 (trained)", "difference ± 2 se", "verdict"],
                   "rows": rows, "data": data})

    for study, d in (("depth-d2", 2), ("depth-d16", 16)):
        runs = _runs_of(protocol, study)
        if not runs:
            continue
        rows, data = [], []
        for k in sorted({r.layers for r in runs}):
            cell_runs = [r for r in runs if r.layers == k]
            entry = {"K": k, "hardmax": cell(_values(cell_runs, evaluations, "hardmax_accuracy")),
                     "validation": cell(_values(cell_runs, evaluations, "validation_accuracy")),
                     "planned": len(cell_runs)}
            data.append(entry)
            rows.append([str(k), _show(entry["hardmax"], len(cell_runs)), _show(entry["validation"])])
        tables.append({"name": study, "title": f"Accuracy against depth K at d = {d} ({_seeds(runs)})",
                       "columns": ["K", "certified hardmax test accuracy", "validation"], "rows": rows, "data": data})

    runs = _runs_of(protocol, "alpha-d2")
    if runs:
        rows, data = [], []
        for alpha in sorted({r.fixed_alpha for r in runs}):
            cell_runs = [r for r in runs if r.fixed_alpha == alpha]
            measures = [interpretations[r.name]["clustering"] for r in cell_runs if r.name in interpretations]
            entry = {"alpha": alpha, "planned": len(cell_runs),
                     "hardmax": cell(_values(cell_runs, evaluations, "hardmax_accuracy")),
                     "leaders_per_review": cell([m["leaders_per_review"]["mean"] for m in measures]),
                     "distance_K_to_converged": cell([m["converged"]["distance_K_to_converged_mean"] for m in measures]),
                     "share_settled_by_K": cell([m["converged"]["share_of_tokens_settled_by_K"] for m in measures])}
            data.append(entry)
            rows.append([f"{alpha:g}", _show(entry["hardmax"], len(cell_runs)), _show(entry["leaders_per_review"]),
                         _show(entry["distance_K_to_converged"]), _show(entry["share_settled_by_K"])])
        tables.append({"name": "alpha-d2", "title": f"Alpha fixed at d = 2, K = 8 ({_seeds(runs)}): accuracy and "
                                                    "clustering",
                       "columns": ["alpha", "certified hardmax test accuracy", "leaders per review",
                                   "distance of K = 8 from converged", "share of tokens settled by K = 8"],
                       "rows": rows, "data": data})

    rows, data = [], []
    for run in protocol.runs:
        record = interpretations.get(run.name)
        if record is None or run.layers == 0:
            continue
        deletion, vote, polarity = record["deletion"], record["leader_vote"], record["matched_polarity"]
        entry = {"run": run.name, "deletion": deletion, "leader_vote": vote, "matched_polarity": polarity}
        data.append(entry)
        leaders_flip = (deletion.get("leaders_deleted") or {}).get("flip_rate")
        random_flip = (deletion.get("random_deleted") or {}).get("flip_rate")
        rows.append([run.name, f"{leaders_flip:.3f}" if leaders_flip is not None else "",
                     f"{random_flip:.3f}" if random_flip is not None else "",
                     f"{polarity.get('leader_polar_share', float('nan')):.3f}",
                     f"{(polarity.get('matched_non_leader_polar_share') or float('nan')):.3f}",
                     f"{(vote.get('weighted_vote_accuracy') or float('nan')):.3f}",
                     f"{(vote.get('model_accuracy_same_reviews') or float('nan')):.3f}"])
    if rows:
        tables.append({"name": "interpretability", "title": "Interpretability tests (leaders certified, groups of "
                                                            "equal tokens included)",
                       "columns": ["run", "flips: leaders deleted", "flips: as many random words deleted",
                                   "leader words: polar share", "non-leaders at the same |w.z+b|: polar share",
                                   "weighted leader vote: accuracy", "model: accuracy"],
                       "rows": rows, "data": data})

    lengths = training_lengths(protocol, evaluations, models_dir=models_dir)
    if lengths["rows"]:
        tables.append({"name": "training-length", "title": "How each run's training ended (protocol: at most "
                                                          f"{lengths['cap']} epochs, patience {lengths['patience']})",
                       "columns": ["run", "epochs run", "selected epoch", "how it ended",
                                   "lowest validation loss (epoch)", "validation loss at the selected epoch",
                                   "checkpoint"],
                       "rows": lengths["rows"], "data": lengths["data"]})

    figures = _figures(tables, figures_dir) if figures_dir is not None else []
    decided = {entry["d"] for entry in differences}
    pending = [entry["d"] for entry in baseline_cells if entry["d"] not in decided]
    sentence = conclusion_sentence(differences, finished, len(protocol.runs), pending)
    numbers = comparison_numbers(baseline_cells)
    if numbers:
        sentence += " " + numbers
    return {"title": protocol.title, "summary": sentence, "tables": tables, "figures": figures,
            "notes": lengths["notes"],
            "runs": {"finished": finished, "planned": len(protocol.runs)},
            "conclusion": {"rule": protocol.report.get("conclusion"), "per_d": differences},
            "protocol": {"file": protocol.path.as_posix(), "sha256": protocol.sha256}}


# Every accuracy axis spans at least this much, so that a one-point difference looks like one.
_MIN_ACCURACY_SPAN = 0.15


def accuracy_axis(values: list[float]) -> tuple[float, float]:
    """The y range of an accuracy plot: the values with a margin, on a 0.05 grid, at least 0.15 wide, within [0, 1]."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite:
        return 0.5, 1.0
    low, high = min(finite) - 0.02, max(finite) + 0.02
    if high - low < _MIN_ACCURACY_SPAN:
        middle = (low + high) / 2
        low, high = middle - _MIN_ACCURACY_SPAN / 2, middle + _MIN_ACCURACY_SPAN / 2
    low, high = math.floor(round(low * 20, 9)) / 20, math.ceil(round(high * 20, 9)) / 20
    if high > 1:
        low, high = max(0.0, low - (high - 1)), 1.0
    if low < 0:
        low, high = 0.0, min(1.0, high - low)
    return round(low, 2), round(high, 2)


def _axis_label(low: float, high: float) -> str:
    return f"certified hardmax test accuracy\n(axis from {low:.2f} to {high:.2f})"


def _figures(tables: list[dict], folder: Path) -> list[str]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    by_name = {t["name"]: t for t in tables}
    reproduction = by_name["reproduction"]["data"]
    baselines = {e["d"]: e for e in by_name["baselines"]["data"]}

    def save(fig, name: str) -> None:
        path = folder / f"{name}.png"
        fig.savefig(path, dpi=120, bbox_inches="tight", metadata=png_metadata(fig, 120))
        plt.close(fig)
        paths.append(str(path))

    if any(e["hardmax"]["n"] for e in reproduction):
        dims = [e["d"] for e in reproduction]
        x = np.arange(len(dims))
        series = (("K = 8 (certified hardmax)", -0.2, "tab:blue", [e["hardmax"] for e in reproduction],
                   [e["planned"] for e in reproduction]),
                  ("K = 0, trained baseline", 0.2, "tab:orange",
                   [baselines.get(d, {}).get("K0", {"n": 0, "values": []}) for d in dims],
                   [baselines.get(d, {}).get("planned", [0, 0])[1] for d in dims]))
        every = [v for _, _, _, stats, _ in series for s in stats for v in s.get("values", [])]
        every += [e["authors"] for e in reproduction if e["authors"]]
        low, high = accuracy_axis(every)
        fig, ax = plt.subplots(figsize=(6, 3.6))
        # A dot plot, not bars: the axis does not start at 0, and a bar's length would exaggerate.
        for label, offset, colour, stats, planned in series:
            for i, s in enumerate(stats):
                values = s.get("values", [])
                ax.scatter(np.full(len(values), x[i] + offset), values, s=16, color=colour, alpha=0.7, zorder=3,
                           label=f"{label}: one seed" if i == 0 else "_")
                if s.get("n"):
                    first_mean = not any(t.get("n") for t in stats[:i])
                    ax.hlines(s["mean"], x[i] + offset - 0.12, x[i] + offset + 0.12, colors=colour, linewidth=2.5,
                              zorder=4, label=f"{label}: mean" if first_mean else "_")
                ax.annotate(f"{s.get('n', 0)} of {planned[i]}", (x[i] + offset, low), xytext=(0, 2),
                            textcoords="offset points", ha="center", va="bottom", fontsize=7)
        ax.scatter(x, [e["authors"] if e["authors"] else np.nan for e in reproduction], marker="x", s=40, c="k",
                   label="authors' softmax (best test epoch)", zorder=5)
        ax.set_xticks(x, [f"d = {d}" for d in dims])
        ax.set_ylim(low, high)
        ax.set_ylabel(_axis_label(low, high))
        ax.set_xlim(-0.6, len(dims) - 0.4)
        ax.set_title("Reproduction: K = 8 against the trained K = 0 baseline\n"
                     "(numbers at the foot: finished seeds of planned)", fontsize=9)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        save(fig, "reproduction")
    for name in ("depth-d2", "depth-d16", "alpha-d2"):
        table = by_name.get(name)
        if table is None or not any(e["hardmax"]["n"] for e in table["data"]):
            continue
        key = "alpha" if name == "alpha-d2" else "K"
        entries = table["data"]
        low, high = accuracy_axis([v for e in entries for v in e["hardmax"]["values"]])
        fig, ax = plt.subplots(figsize=(5, 3.4))
        # Points only where runs exist: no line joins cells across a depth that has not run.
        for e in entries:
            values = e["hardmax"]["values"]
            ax.scatter([e[key]] * len(values), values, s=14, color="tab:blue", zorder=3,
                       label="one seed" if e is entries[0] or not ax.get_legend_handles_labels()[1] else None)
            if values:
                ax.scatter([e[key]], [e["hardmax"]["mean"]], marker="D", s=40, facecolor="none", edgecolor="k",
                           zorder=4, label="mean" if "mean" not in ax.get_legend_handles_labels()[1] else None)
            ax.annotate(f"{e['hardmax']['n']} of {e['planned']}", (e[key], low), xytext=(0, 2),
                        textcoords="offset points", ha="center", va="bottom", fontsize=7)
        if key == "alpha":
            ax.set_xscale("log")
            ax.set_xticks([e[key] for e in entries], [f"{e[key]:g}" for e in entries])
            ax.minorticks_off()
            # room either side so that the foot labels of the end points stay inside the axes
            ax.set_xlim(min(e[key] for e in entries) / 1.6, max(e[key] for e in entries) * 1.6)
            ax.set_xlabel("alpha (fixed)")
        else:
            ax.set_xticks([e[key] for e in entries])
            ax.set_xlim(min(e[key] for e in entries) - 0.6, max(e[key] for e in entries) + 0.6)
            ax.set_xlabel("depth K (layers)")
        ax.set_ylim(low, high)
        ax.set_ylabel(_axis_label(low, high))
        ax.set_title(f"{table['title']}\n(numbers at the foot: finished seeds of planned)", fontsize=9)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        save(fig, name)
    return paths


def write_summary(summary: dict, path: Path) -> None:
    atomic_write_text(Path(path), json_text(summary, where=str(path)))
