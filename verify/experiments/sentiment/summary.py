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

import json
import math
from pathlib import Path

import numpy as np

from verify.core.numbers import InputError
from . import AUTHORS_SOFTMAX_TEST_ACCURACY
from .protocol import Protocol

__all__ = ["load_results", "cell", "summarize", "conclusion_sentence", "write_summary"]


def load_results(folder: Path | str) -> tuple[dict[str, dict], dict[str, dict]]:
    """(evaluations, interpretations) by run name from a results folder."""
    folder = Path(folder)
    evaluations: dict[str, dict] = {}
    interpretations: dict[str, dict] = {}
    if not folder.is_dir():
        return evaluations, interpretations
    for path in sorted(folder.glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as error:
            raise InputError(str(path), f"not a readable JSON result ({error})") from None
        if not isinstance(record, dict):
            raise InputError(str(path), "expected a JSON object")
        if path.name.endswith(".interpret.json"):
            interpretations[path.name[:-len(".interpret.json")]] = record
        else:
            evaluations[path.stem] = record
    return evaluations, interpretations


def cell(values: list[float]) -> dict:
    """n, mean and sample sd (None for fewer than two values)."""
    array = np.asarray([v for v in values if v is not None], dtype=np.float64)
    if not len(array):
        return {"n": 0, "mean": None, "sd": None}
    return {"n": int(len(array)), "mean": float(array.mean()),
            "sd": float(array.std(ddof=1)) if len(array) > 1 else None}


def _show(stats: dict, planned: int | None = None) -> str:
    if not stats["n"]:
        return "not run yet"
    text = f"{stats['mean']:.4f}" + (f" ± {stats['sd']:.4f}" if stats["sd"] is not None else "")
    if planned is not None and stats["n"] < planned:
        text += f" ({stats['n']} of {planned} seeds)"
    return text


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


def conclusion_sentence(differences: list[dict], finished: int, planned: int) -> str:
    """The plain sentence on whether clustering helps, from the per-d verdicts (complete cells only)."""
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
    if set(by_verdict) == {"hurts"} or set(by_verdict) <= {"hurts", "no difference resolved"}:
        sentence += " Clustering by the attention layers does not help this task."
    elif set(by_verdict) == {"helps"}:
        sentence += " Clustering by the attention layers helps this task."
    return sentence


def summarize(protocol: Protocol, evaluations: dict[str, dict],
              interpretations: dict[str, dict] | None = None, *, figures_dir: Path | None = None) -> dict:
    """The tables, the conclusion and (with ``figures_dir``) the figures of a protocol's finished runs."""
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
        tables.append({"name": study, "title": f"Accuracy against depth K at d = {d}",
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
        tables.append({"name": "alpha-d2", "title": "Alpha fixed at d = 2, K = 8: accuracy and clustering",
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

    figures = _figures(tables, figures_dir) if figures_dir is not None else []
    sentence = conclusion_sentence(differences, finished, len(protocol.runs))
    return {"title": protocol.title, "summary": sentence, "tables": tables, "figures": figures,
            "runs": {"finished": finished, "planned": len(protocol.runs)},
            "conclusion": {"rule": protocol.report.get("conclusion"), "per_d": differences},
            "protocol": {"file": protocol.path.as_posix(), "sha256": protocol.sha256}}


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
    if any(e["hardmax"]["n"] for e in reproduction):
        fig, ax = plt.subplots(figsize=(5, 3.2))
        dims = [e["d"] for e in reproduction]
        x = np.arange(len(dims))
        for offset, label, stats in ((-0.2, "K = 8 (certified hardmax)", [e["hardmax"] for e in reproduction]),
                                     (0.2, "K = 0 trained", [baselines.get(d, {}).get("K0", {"n": 0}) for d in dims])):
            means = [s["mean"] if s.get("n") else np.nan for s in stats]
            errors = [s["sd"] if s.get("sd") is not None else 0 for s in stats]
            ax.bar(x + offset, means, width=0.4, yerr=errors, label=label, capsize=3)
        ax.scatter(x, [e["authors"] for e in reproduction], marker="_", s=400, c="k", label="authors (best test epoch)",
                   zorder=3)
        ax.set_xticks(x, [f"d = {d}" for d in dims])
        ax.set_ylim(0.5, 0.95)
        ax.set_ylabel("test accuracy")
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = folder / "reproduction.png"
        fig.savefig(path, dpi=120, metadata={"Software": None})
        plt.close(fig)
        paths.append(str(path))
    for name in ("depth-d2", "depth-d16", "alpha-d2"):
        table = by_name.get(name)
        if table is None or not any(e["hardmax"]["n"] for e in table["data"]):
            continue
        key = "alpha" if name == "alpha-d2" else "K"
        fig, ax = plt.subplots(figsize=(4, 3))
        points = [(e[key], e["hardmax"]) for e in table["data"] if e["hardmax"]["n"]]
        ax.errorbar([p[0] for p in points], [p[1]["mean"] for p in points],
                    yerr=[p[1]["sd"] or 0 for p in points], marker="o", capsize=3)
        ax.set_xlabel(key)
        ax.set_ylabel("certified hardmax test accuracy")
        ax.set_title(table["title"], fontsize=8)
        fig.tight_layout()
        path = folder / f"{name}.png"
        fig.savefig(path, dpi=120, metadata={"Software": None})
        plt.close(fig)
        paths.append(str(path))
    return paths


def write_summary(summary: dict, path: Path) -> None:
    from verify.core.io import atomic_write_text
    atomic_write_text(Path(path), json.dumps(summary, indent=1) + "\n")
