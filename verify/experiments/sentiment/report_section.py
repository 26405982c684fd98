"""The sentiment experiment's section of the verification report (the protocol of :mod:`verify.experiments.sections`).

The report reads the experiment's saved results (``sentiment evaluate --json`` files and
``sentiment analyze``'s analysis.json, under RUNS/sentiment/) through this module only: which
fields of a file are kept (:func:`item_fields`), which figures are copied
(:func:`figure_files`), the model-selection rule (:func:`chosen_on_validation`) and the
section's tables and figures (:func:`section`). Torch-free.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping, Sequence

from verify.core import formatting as fmt
from ..sections import Figure, Section, Table
from . import AUTHORS_SOFTMAX_TEST_ACCURACY

__all__ = ["key", "folder", "patterns", "figures_folder", "produced_by", "glance_title", "item_fields", "figure_files",
           "chosen_on_validation", "section", "glance_numbers", "glance_sentence", "evaluation_row", "analysis_rows"]

# The sentiment commands write RUNS/sentiment/<run>/checkpoint.json (training),
# RUNS/sentiment/<name>/analysis.json (analysis) and RUNS/sentiment/evaluate-<run>.json (evaluation).
key = "sentiment"
folder = "sentiment"
patterns: tuple[str, ...] = ("*.json", "*/checkpoint.json", "*/analysis.json")
figures_folder: str | None = "figures/sentiment"
produced_by = ("`hardmax-verify sentiment evaluate --checkpoint RUN --json RUNS/sentiment/evaluate-RUN.json` and "
               "`hardmax-verify sentiment analyze` (docs/sentiment.md)")
TITLE = "Sentiment: the earlier tuned study (single runs, saved results)"
glance_title = "Sentiment, earlier tuned study"


def item_fields(path: Path, data: Any) -> dict[str, Any]:
    """The rows the section's tables need from one saved file (kept in results.json)."""
    fields: dict[str, Any] = {}
    if path.name == "analysis.json":
        fields["analysis_rows"] = analysis_rows(data)
    if isinstance(data, Mapping) and isinstance(data.get("hardmax_accuracy"), (int, float)):
        fields["evaluation"] = evaluation_row(data)
    if isinstance(data, Mapping) and data.get("kind") == "sentiment-softmax-certificate":
        fields["softmax_certificate"] = {"by_d": [dict(g) for g in data.get("by_d") or [] if isinstance(g, Mapping)],
                                         "summary": data.get("summary")}
    return fields


def figure_files(paths: Sequence[Path]) -> list[Path]:
    """The analyses' figures (training curves, leader words, token evolution) beside each analysis.json."""
    return [png for analysis in paths if analysis.name == "analysis.json"
            for png in sorted((p for p in analysis.parent.glob("*.png") if p.is_file()), key=_natural_key)]


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


_EVALUATION_FIELDS = ("checkpoint", "d", "protocol", "epoch", "reviews", "hardmax_accuracy", "softmax_accuracy",
                      "exact_path", "hardmax_seconds", "validation_accuracy")


def evaluation_row(data: Mapping[str, Any]) -> dict[str, Any]:
    """The accuracy-table row of a ``sentiment evaluate --json`` file (the summary keeps only 16 fields)."""
    row = {key: data.get(key) for key in _EVALUATION_FIELDS}
    row["like_for_like_epoch"] = _get(data, "softmax_best_test_epoch", "epoch")
    row["like_for_like_accuracy"] = _get(data, "softmax_best_test_epoch", "test_acc")
    return row


def _natural_key(path: Path) -> list[Any]:
    """d2 before d16: digit runs compare as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name)]


def analysis_rows(data: Any) -> list[dict[str, Any]]:
    """One flat row per analysed model (``sentiment analyze``'s analysis.json), for the report's table.

    Missing fields stay None (an analysis run with fewer parts, or an older file).
    """
    rows: list[dict[str, Any]] = []
    for entry in (_get(data, "checkpoints") or []):
        if not isinstance(entry, Mapping):
            continue
        top = _get(entry, "leader_words", "top") or []
        rows.append({
            "model": entry.get("path"), "d": entry.get("d"), "epoch": entry.get("epoch"),
            "leaders": _get(entry, "leader_statistics"),
            "top_words": [w for w in top if isinstance(w, list) and len(w) == 2][:5],
            "reviews_selected": _get(entry, "leader_words", "reviews_selected"),
            "leader_polar_share": _get(entry, "lexicon", "leader_polar_share"),
            "all_polar_share": _get(entry, "lexicon", "all_polar_share"),
            "K_vs_converged": _get(entry, "K_vs_converged"),
            "unseen_words": _get(entry, "unseen_words"),
            "without_attention": _get(entry, "without_attention"),
            "T0": _get(entry, "hypotheses", "T0_leader_within_K"),
            "T2": _get(entry, "hypotheses", "T2_leader_limits_are_hull_vertices"),
            "T3": _get(entry, "hypotheses", "T3_limits_on_boundary_of_K"),
            "within_hypotheses": _get(entry, "hypotheses", "within_hypotheses"),
            "reviews": _get(entry, "hypotheses", "reviews"),
        })
    authors = _get(data, "authors_d2")
    for family in ("distinct", "padded"):
        part = _get(authors, family)
        if isinstance(part, Mapping):
            rows.append({
                "model": f"authors' d=2 embeddings, {family} samples", "d": 2, "epoch": 100,
                "leaders": part.get("leaders"), "top_words": [], "reviews_selected": None,
                "leader_polar_share": None, "all_polar_share": None,
                "K_vs_converged": part.get("K_vs_converged"), "T0": part.get("T0_leader_within_K"),
                "T2": part.get("T2_leader_limits_are_hull_vertices"), "T3": part.get("T3_limits_on_boundary_of_K"),
                "within_hypotheses": _get(authors, "samples") if family == "distinct" else 0,
                "reviews": _get(authors, "samples"), "certified_limits": part.get("certified_limits"),
            })
    return rows


# Captions of the figures ``hardmax-verify sentiment analyze`` writes, by file-name suffix.
_FIGURES = {
    "training_curves": ("training curves",
                        "Loss and accuracy per epoch. Lines: softmax attention (as trained) at the end of each epoch, "
                        "evaluated alike (no dropout) on a fixed subset of the training reviews, on validation and, "
                        "when recorded, on test; markers: certified hardmax every few epochs (docs/theory.md §5). "
                        "For checkpoints that lack the end-of-epoch train number, the dotted line is the running "
                        "mean over the epoch's batches, which is not comparable with the others."),
    "leader_words": ("leader words",
                     "The 15 most frequent leader words (C_i = {i}) among test reviews classified correctly with "
                     "confidence >= 0.95, counting leaders with |w.z + b| > 2, as in the paper's bar chart."),
    "review_positive": ("token evolution of a positive review",
                        "Layers 0..8 of one confident positive test review (d = 2, exact positions): leaders "
                        "labelled with their words, the decision line with its half-planes, the mean token. "
                        "An animated GIF sits next to the source PNG."),
    "review_negative": ("token evolution of a negative review",
                        "As the previous figure, for one confident negative test review."),
}


def _fmt_share(value: Any) -> str:
    return "—" if not isinstance(value, (int, float)) else f"{100 * value:.1f}%"


def _fmt_fails(check: Any, total_key: str = "holds") -> str:
    if not isinstance(check, Mapping) or "fails" not in check:
        return "—"
    total = check.get("fails", 0) + check.get(total_key, 0) + check.get("without_leader", 0)
    return f"{fmt.count(check['fails'])} of {fmt.count(total)}"


def _analysis_cells(row: Mapping[str, Any]) -> list[str]:
    leaders = row.get("leaders") or {}
    leader_text = (f"{leaders['mean']:.2f} ({leaders.get('std', 0):.2f}, {leaders.get('min')}-{leaders.get('max')})"
                   if isinstance(leaders.get("mean"), (int, float)) else "—")
    words = ", ".join(f"{w} {c}" for w, c in row.get("top_words") or []) or "—"
    if row.get("reviews_selected") is not None and row.get("top_words"):
        words += f" ({row['reviews_selected']} reviews)"
    polar = ("—" if row.get("leader_polar_share") is None
             else f"{_fmt_share(row['leader_polar_share'])} / {_fmt_share(row.get('all_polar_share'))}")
    k = row.get("K_vs_converged") or {}
    distance = (k.get("distance_K_to_converged") or {}).get("max")
    changed = (f"{fmt.count(k['predictions_changed'])} of {fmt.count(k.get('configurations'))}"
               + (f" ({distance:.3g})" if isinstance(distance, (int, float)) else "")
               if "predictions_changed" in k else "—")
    unseen = row.get("unseen_words") or {}
    unseen_text = (f"{_fmt_share(unseen.get('unseen_leader_share'))} of leaders "
                   f"({_fmt_share(unseen.get('unseen_token_share'))} of tokens); "
                   f"{fmt.count(unseen.get('reviews_with_unseen_leader'))} of {fmt.count(unseen.get('reviews'))} reviews"
                   if "unseen_leaders" in unseen else "—")
    ablation = row.get("without_attention") or {}
    ablation_text = (f"{ablation['accuracy_without_attention']:.4f} (at K: {ablation.get('accuracy_at_K', float('nan')):.4f}); "
                     f"{fmt.count(ablation.get('predictions_changed'))} of {fmt.count(ablation.get('reviews'))} differ"
                     if isinstance(ablation.get("accuracy_without_attention"), (int, float)) else "—")
    return [f"`{row.get('model')}`", str(row.get("d", "—")), str(row.get("epoch", "—")), leader_text,
            _fmt_share(leaders.get("fraction_initial_leaders_mean")), words, polar, unseen_text, changed,
            ablation_text,
            _fmt_fails(row.get("T0")), _fmt_fails(row.get("T2")), _fmt_fails(row.get("T3")),
            _fmt_certified_limits(row.get("certified_limits"))]


def _fmt_certified_limits(exact: Any) -> str:
    if not isinstance(exact, Mapping) or "configurations" not in exact:
        return "—"
    total = exact["configurations"]
    distance = (exact.get("distance_K_to_limit") or {}).get("max")
    return (f"{fmt.count((exact.get('status_counts') or {}).get('certified', 0))} of {fmt.count(total)}; "
            f"{fmt.count(exact.get('predictions_changed'))} of {fmt.count(exact.get('limits_certified'))}"
            + (f"; {distance:.3g}" if isinstance(distance, (int, float)) else ""))


def _count_cell(value: Any, total: Any) -> str:
    if not isinstance(value, int) or not isinstance(total, int) or not total:
        return "—"
    return fmt.fraction(value, total)


def alpha_cell(group: Mapping[str, Any]) -> str:
    """How a softmax-certificate group's alpha came about: 'trained', or 'fixed 0.1' for the alpha study's runs."""
    fixed = group.get("alpha_fixed")
    return f"fixed {fixed:g}" if isinstance(fixed, (int, float)) and not isinstance(fixed, bool) else "trained"


def _softmax_certificate_tables(block: Mapping[str, Any]) -> list[Table]:
    """Softmax certified to agree with hardmax, per model (d, K, alpha), from ``sentiment softmax-certificate --json``."""
    tables = []
    for item in block["files"]:
        found = item.get("softmax_certificate")
        if not isinstance(found, Mapping):
            continue
        rows = []
        for g in found.get("by_d") or []:
            reasons = g.get("not_certified") or {}
            measured = g.get("measured_agreement")
            rows.append([str(g.get("d")), str(g.get("K")), alpha_cell(g), str(g.get("runs")),
                         _count_cell(g.get("certified"), g.get("reviews")),
                         fmt.share(measured) if isinstance(measured, (int, float)) else "—",
                         fmt.count(reasons.get("margin", 0)), fmt.count(reasons.get("undecided", 0) + reasons.get("tie", 0)),
                         fmt.count(reasons.get("decoder", 0))])
        tables.append(Table(
            heading="Softmax certified to predict what certified hardmax predicts",
            headers=["d", "K", "alpha", "runs", "test reviews certified", "measured agreement (float softmax)",
                     "stopped: delta <= 2 eta", "stopped: no proven margin", "bound holds, decoder margin too small"],
            rows=rows,
            note=(f"{found.get('summary') or ''} A review counts when the per-input bound of docs/theory.md §6 "
                  "(softmax within eps_k of the exact hardmax trajectory at every layer) holds through layer K and "
                  "the hardmax logit exceeds ||w|| eps_K, both proven in outward-rounded arithmetic "
                  "(docs/softmax.md); the measured agreement is the float softmax model's, evidence. The bound "
                  "uses the smallest score margin over all tokens of a review, so reviews with near-tied tokens, "
                  "and models whose tokens cluster fast (large alpha), stop early: the count is a proven lower "
                  f"bound of the agreement, not an estimate of it. Source: `{item.get('path', 'softmax-certificate.json')}`.")))
    return tables


def chosen_on_validation(evaluations: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The experiment's model-selection rule: per (d, protocol), the evaluation with the highest
    validation accuracy; among those that tie on it, the first by checkpoint name.

    Choosing by the test number would select on the test set (docs/theory.md §5); the report marks the
    chosen runs and the README's accuracy table quotes them.
    """
    best: dict[tuple[Any, Any], Mapping[str, Any]] = {}
    for e in sorted(evaluations, key=lambda e: str(e.get("checkpoint"))):
        value = e.get("validation_accuracy")
        if not isinstance(value, (int, float)):
            continue
        key = (e.get("d"), e.get("protocol"))
        if key not in best or value > best[key]["validation_accuracy"]:
            best[key] = e
    return list(best.values())


def section(block: Mapping[str, Any]) -> Section:
    """The accuracy table (from ``sentiment evaluate --json`` files), the analyses' table and figures."""
    tables: list[Table] = []
    evaluations = [item["evaluation"] for item in block["files"] if item.get("evaluation")]
    if evaluations:
        rows = []
        chosen = {id(e) for e in chosen_on_validation(evaluations)}
        for e in sorted(evaluations, key=lambda e: (e.get("d") or 0, str(e.get("checkpoint")))):
            authors = AUTHORS_SOFTMAX_TEST_ACCURACY.get(e.get("d"))
            validation = e.get("validation_accuracy")
            like = (f"{e['like_for_like_accuracy']:.4f} (epoch {e['like_for_like_epoch']})"
                    if isinstance(e.get("like_for_like_accuracy"), (int, float)) else "—")
            seconds = e.get("hardmax_seconds")
            softmax = e.get("softmax_accuracy")
            rows.append([str(e.get("d")), f"`{e.get('checkpoint')}`", str(e.get("protocol") or "—"),
                         f"{authors:.4f}" if authors is not None else "—", like,
                         f"{e['hardmax_accuracy']:.4f} (epoch {e.get('epoch')})",
                         (f"{validation:.4f}" + (" (chosen for this d)" if id(e) in chosen else ""))
                         if isinstance(validation, (int, float)) else "—",
                         f"{softmax:.4f}" if isinstance(softmax, (int, float)) else "—",
                         fmt.count(e.get("exact_path")), fmt.count(e.get("reviews")),
                         f"{seconds:.1f}" if isinstance(seconds, (int, float)) else "—"])
        tables.append(Table(
            heading="Accuracy",
            headers=["d", "checkpoint", "protocol", "authors (softmax, best test epoch)",
                     "ours like-for-like (softmax, best test epoch)",
                     "ours honest (certified hardmax, epoch chosen on validation)",
                     "validation accuracy of that epoch", "softmax at that epoch", "exact-path reviews",
                     "test reviews", "hardmax s"],
            rows=rows,
            note=("The honest number is the certified hardmax test accuracy of the checkpoint selected on a "
                  "validation split carved from train: every prediction is that of exact rational arithmetic "
                  "on the stored float32 weights (reviews the float rounding bound could not decide were "
                  "recomputed exactly; their count is the exact-path column). The like-for-like number uses "
                  "the test set for selection, as the paper did (docs/theory.md §5); it is evidence, not a "
                  "certified figure. Several runs of one d (other options) are chosen between on "
                  "validation too: the run marked 'chosen for this d' has the highest validation accuracy "
                  "of that d's runs under that protocol, and its honest number is the one to quote; taking "
                  "the run with the best test number instead would select on the test set. Epochs trained "
                  "are in each checkpoint's `checkpoint.json`.")))
    tables += _softmax_certificate_tables(block)
    analyses = [row for item in block["files"] for row in item.get("analysis_rows", [])]
    if analyses:
        tables.append(Table(
            heading="Leaders and the experiment's claims",
            headers=["model", "d", "epoch", "leaders per review: mean (std, min-max)", "already leading at layer 0",
                     "top leader words (confident, |w.z+b| > 2)", "VADER-polar share: leaders / all words",
                     "words never seen in training: share of leaders (of tokens); reviews with such a leader",
                     "K = 8 vs converged: predictions changed (max distance)",
                     "without attention (K = 0, same weights, certified): accuracy (at K); predictions that differ",
                     "T0 fails (exact)", "T2 fails", "T3 fails",
                     "exact (claim checks, D7): theorem certified; limit class changed; max distance"],
            rows=[_analysis_cells(row) for row in analyses],
            note=("Leaders are exact (C_i = {i} within K = 8 layers, certified hardmax). Real reviews repeat "
                  "words and are padded, so they lie outside the theorem's hypotheses (docs/theory.md D5); T0 there is "
                  "checked exactly, T2 and T3 on the converged float state (measured, tolerance in "
                  "analysis.json), and the converged state itself is float evidence. The last column is "
                  "exact: on configurations within the hypotheses the claim checks certify T0..T4 and every "
                  "token's limit (D7), so the class of the asymptotic state and its distance from layer 8 "
                  "are decided, not measured.")))
    figures = []
    for figure in block.get("figures") or []:
        stem = Path(figure["file"]).stem
        title, caption = next(((f"{stem[:-len(suffix) - 1]}: {t}", c)
                               for suffix, (t, c) in _FIGURES.items() if stem.endswith(suffix)),
                              (stem, "A figure of the sentiment analysis."))
        figures.append(Figure(stem, figure["file"], title, f"{caption} Source: `{figure['path']}`."))
    # With its tables the section shows every number it reads, formatted; the generic list of the
    # files read (and the analyses' own summary lines, as their older versions wrote them) would
    # repeat them. Every file read is still listed with its sha256 under the report's provenance.
    return Section(TITLE, tables=tables, figures=figures, figures_heading="Analyses", list_files=not tables)


def _number(value: Any) -> float | int | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def glance_numbers(section: Mapping[str, Any]) -> dict[str, Any]:
    """Per (d, protocol), the run chosen on validation: its certified hardmax test accuracy and, from the
    analyses, the same weights' accuracy without the attention layers (K = 0) and at K."""
    evaluations = [item["evaluation"] for item in section["files"] if item.get("evaluation")]
    ablations = {row.get("model"): row.get("without_attention") or {}
                 for item in section["files"] for row in item.get("analysis_rows") or []}
    scored = [e for e in evaluations if isinstance(e.get("d"), int) and _number(e.get("hardmax_accuracy")) is not None]
    chosen = []
    for best in sorted(chosen_on_validation(scored), key=lambda e: (e["d"], str(e.get("protocol")))):
        ablation = ablations.get(best.get("checkpoint")) or {}
        chosen.append({"d": best["d"], "protocol": best.get("protocol"), "checkpoint": best.get("checkpoint"),
                       "hardmax_accuracy": best["hardmax_accuracy"],
                       "validation_accuracy": best.get("validation_accuracy"),
                       "accuracy_without_attention": _number(ablation.get("accuracy_without_attention")),
                       "accuracy_at_K": _number(ablation.get("accuracy_at_K"))})
    return {"files": len(section["files"]), "evaluations": len(evaluations), "chosen": chosen}


def glance_sentence(numbers: Mapping[str, Any]) -> str:
    """The results at a glance, from :func:`glance_numbers`: the chosen runs' accuracies beside the authors'."""
    parts: list[str] = []
    higher: list[str] = []
    lower: list[str] = []
    chosen = numbers["chosen"]
    for best in chosen:
        d = best["d"]
        authors = AUTHORS_SOFTMAX_TEST_ACCURACY.get(d)
        # Several protocols at one d: each has its own chosen run (the selection is per d and protocol).
        several = sum(e["d"] == d for e in chosen) > 1
        label = f"d = {d} ({best.get('protocol')} protocol)" if several else f"d = {d}"
        text = f"{label}: {fmt.probability(best['hardmax_accuracy'])}"
        if authors is not None:
            text += f" (authors' softmax {fmt.probability(authors)})"
        without, with_k = best.get("accuracy_without_attention"), best.get("accuracy_at_K")
        if without is not None and with_k is not None:
            text += f", {fmt.probability(without)} without attention"
            (higher if without > with_k else lower).append(str(d))
        parts.append(text)
    if not parts:
        files = numbers["files"]
        return (f"{fmt.counted(files, 'saved file')}, {'without' if files == 1 else 'none with'} an accuracy; "
                "see the section below.")
    text = ("Certified hardmax test accuracy of the run chosen on validation, per embedding dimension, and of the "
            "same weights without the attention layers (K = 0): " + "; ".join(parts) + ".")
    if higher or lower:
        text += (f" Without attention the same weights score higher at d = {', '.join(higher) or 'none'}"
                 f" and lower or equal at d = {', '.join(lower) or 'none'}.")
    return text + (" Exploratory: single runs, one seed each, of settings tried while their test numbers were "
                   "visible; the preregistered reproduction above is the result to cite.")
