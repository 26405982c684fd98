"""Render a report twice from one document model: ``report.md`` and a self-contained ``report.html``.

The content is built once as a list of blocks (headings, paragraphs, lists, tables, figures,
code); :func:`to_markdown` and :func:`to_html` only format them, so the two files always say
the same thing. The HTML embeds every figure as a base64 PNG and needs no other file.
"""

from __future__ import annotations

import base64
import html
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from .. import registry
from .figures import FigureInfo

__all__ = ["Block", "build_document", "to_markdown", "to_html"]

_STATUS_WORD = {"certified": "certified", "failed": "FAILED", "inconclusive": "inconclusive", "error": "ERROR"}


@dataclass
class Block:
    kind: str                      # h1 h2 h3 p list table figure code
    text: str = ""
    items: list[str] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    figure: FigureInfo | None = None


def _h(level: int, text: str) -> Block:
    return Block(f"h{level}", text)


def _p(text: str) -> Block:
    return Block("p", text)


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> Block:
    return Block("table", headers=list(headers), rows=[[str(x) for x in row] for row in rows])


def _count(value: Any) -> str:
    return "n/a" if value is None else str(value)


def _fmt_float(x: float | None) -> str:
    return "—" if x is None else f"{x:.3g}"


def _unchecked_notes(results: Mapping[str, Any]) -> list[str]:
    """Plain statements of what was not certified, computed from the records."""
    notes = []
    records = results["examples"]
    ok = [r for r in records if r.get("status") != "error"]
    unsettled = [(r["task"]["name"], f["token"]) for r in ok for f in r["fates"] if f.get("kind") == "unsettled"]
    budget = results["campaign"]["layer_budget"]
    if unsettled:
        examples = sorted({name for name, _ in unsettled})
        notes.append(f"{len(unsettled)} token(s) in {len(examples)} example(s) neither locked nor became fixed "
                     f"within {budget} layers: their convergence is measured, not certified "
                     f"({', '.join(examples[:6])}{', ...' if len(examples) > 6 else ''}).")
    timed_out = [r["task"]["name"] for r in ok if r.get("stopped_by") == "time budget"]
    if timed_out:
        notes.append(f"{len(timed_out)} example(s) were stopped by the time budget of "
                     f"{results['campaign'].get('time_budget')} s per configuration before every token settled "
                     f"({', '.join(timed_out[:6])}{', ...' if len(timed_out) > 6 else ''}); their unsettled "
                     "claims are inconclusive, and with a time budget the results depend on the machine's speed.")
    else:
        notes.append(f"Every token of every example led, became fixed or locked within {budget} layers "
                     "(THEORY.md D7), so convergence (T3) is certified wherever T3 says so.")
    errors = [r for r in records if r.get("status") == "error"]
    if errors:
        notes.append(f"{len(errors)} task(s) raised an error twice and were not checked: "
                     + "; ".join(f"{r['task']['name']} ({r['error']})" for r in errors[:5]) + ".")
    outside = [r["task"]["name"] for r in ok if r["configuration"].get("outside_hypotheses")]
    if outside:
        notes.append(f"{len(outside)} example(s) lie outside the theorem's hypotheses (recorded as such): "
                     + ", ".join(outside[:6]) + ".")
    summary = results["summary"]
    t4 = summary["claims"].get("T4")
    if t4 is not None and t4["certified"]:
        projections = sum(len((r["verdicts"].get("T4", {}).get("certificate") or {}).get("projections", []))
                          for r in ok)
        notes.append(f"T4 is vacuous (no limit outside the vertices of K) in {t4['vacuous']} of its {t4['certified']} "
                     f"certified verdicts; the other {t4['certified'] - t4['vacuous']} certify {projections} "
                     "non-vertex limit(s) as A-projections of the origin onto faces of K (the persistent-tie "
                     "families are built to reach this case).")
    claims = summary["claims"]
    if claims and next(iter(claims.values()))["recertified"] is None:
        notes.append("The independent certificate checker (verify.certcheck) was not available: no certificate "
                     "was re-verified independently; certified verdicts rest on the suite's own exact checks.")
    elif claims:
        certified = sum(row["certified"] for row in claims.values())
        recertified = sum(row["recertified"] or 0 for row in claims.values())
        rejected = sum(row["rejected_by_checker"] for row in claims.values())
        unsupported = sum(len(r.get("certcheck", {}).get("unsupported", {})) for r in ok)
        text = (f"The independent checker (verify.certcheck: standard library only, replays the dynamics itself) "
                f"re-verified {recertified} of the {certified} certificates, and checked every example's status, "
                "settled layer, inconclusive verdicts and fates (the exact limits shown here) against its own replay")
        if rejected:
            text += f"; it REJECTED {rejected} (each counts as a failure of the suite)"
        if unsupported:
            text += f"; {unsupported} concern a model variant it does not implement"
        notes.append(text + ".")
    notes.append("Measured, not certified: the exact-against-float comparison (float64; the float run's own "
                 "rounding bound flags the attention sets it cannot decide). The convergence curves are exact "
                 "distances to certified limits, rounded to float for plotting.")
    notes.append("Assumed: the facts proved in THEORY.md that carry a certificate beyond the layers computed "
                 "(last column of the table).")
    return notes


def build_document(results: Mapping[str, Any], figures: Sequence[FigureInfo]) -> list[Block]:
    """The report's content, from a validated results dictionary and the figures written."""
    blocks: list[Block] = []
    summary = results["summary"]
    campaign = results["campaign"]
    records = results["examples"]
    ok = [r for r in records if r.get("status") != "error"]
    by_name = {f.name: f for f in figures}
    overall = summary["overall"]

    blocks.append(_h(1, "hardmax-verify: verification report"))
    worked = sum(r["task"]["kind"] == "worked" for r in records)
    families = sorted({r["task"]["family"] for r in records if r["task"]["kind"] == "generated"})
    time_budget = campaign.get("time_budget")
    time_budget_text = "" if time_budget is None else f", time budget {time_budget:g} s per configuration"
    blocks.append(_p(f"**Overall: {_STATUS_WORD.get(overall, overall)}** (exit status {summary['exit_status']}). "
                     f"{len(records)} configurations checked: {worked} worked configurations of THEORY.md §4 and "
                     f"{len(records) - worked} generated from seed {campaign['seed']} across the families "
                     f"{', '.join(families) or '(none)'}; layer budget {campaign['layer_budget']}"
                     f"{time_budget_text}. "
                     "Every verdict below is decided in exact rational arithmetic unless marked as measured."))

    blocks.append(_h(2, "Claims"))
    claims = summary["claims"]
    rows = []
    for claim, row in claims.items():
        record = registry.find(claim)
        rows.append([claim, record.statement if record else "", row["certified"], row["failed"], row["inconclusive"],
                     row["unchecked"], row["exact"], row["measured"], _count(row["recertified"]),
                     record.assumption if record else ""])
    blocks.append(_table(["claim", "statement", "certified", "failed", "inconclusive", "not checked", "exact",
                          "measured", "re-verified by certcheck", "assumed"], rows))
    blocks.append(_p("*exact*: decided in exact arithmetic (certified or failed). *measured*: inconclusive, with "
                     "a float measurement shown instead. *re-verified by certcheck*: certified verdicts whose "
                     "certificate the independent checker (verify.certcheck, standard library only) re-verified "
                     "from the configuration alone (n/a: checker not available)."))
    blocks.append(_h(3, "What was assumed or left unchecked"))
    blocks.append(Block("list", items=_unchecked_notes(results)))

    blocks.append(_h(2, "Counterexamples"))
    if results["counterexamples"]:
        items = []
        for c in results["counterexamples"]:
            items.append(f"{c['claim']} fails on `{c['example']}`: shrunk from {c['original_n']} to {c['shrunk_n']} "
                         f"tokens, reproduce with `hardmax-verify check {c['file']}` (file in this report folder).")
        blocks.append(Block("list", items=items))
        for c in results["counterexamples"]:
            import json
            blocks.append(_p(f"`{c['file']}`:"))
            blocks.append(Block("code", json.dumps(c["config"], indent=1)))
    else:
        blocks.append(_p("None: no claim failed on any configuration."))
    silent = sum(r.get("float_comparison", {}).get("silent_disagreements", 0) for r in ok)
    rejected = sum(len(r.get("certcheck", {}).get("rejected", {})) for r in ok)
    if silent or rejected:
        blocks.append(_p(f"**Defects found in the suite itself:** {silent} float attention set(s) differed from the "
                         f"exact ones without being flagged by the proven rounding bound; {rejected} certificate(s) "
                         "rejected by the independent checker. Each counts as a failure."))

    blocks.append(_h(2, "Worked configurations"))
    worked_records = [r for r in ok if r["task"]["kind"] == "worked"]
    if "worked_panels" in by_name:
        blocks.append(Block("figure", figure=by_name["worked_panels"]))
    rows = []
    for r in worked_records:
        if "(run)" in r.get("certcheck", {}).get("rejected", {}):
            # Limits are rendered only from fates the independent checker verified.
            rows.append([r["task"]["name"], len(r["configuration"]["tokens"]), r["status"],
                         "not shown: certcheck rejected this example's fates", "—", _fmt_settled(r)])
            continue
        leaders = [f for f in r["fates"] if f["kind"] == "leader"]
        others = [f for f in r["fates"] if f["kind"] in ("fixed", "locked")]
        rows.append([r["task"]["name"], len(r["configuration"]["tokens"]), r["status"],
                     ", ".join(f"{f['token']} (layer {f['layer']})" for f in sorted(leaders, key=lambda f: f["token"])),
                     ", ".join(f"{f['token']} {f['kind']} at {f['layer']} -> ({', '.join(f['limit'])})"
                               for f in sorted(others, key=lambda f: f["token"])) or "—",
                     _fmt_settled(r)])
    blocks.append(_table(["configuration", "n", "status", "leaders (first layer)", "non-leaders: fate, layer, exact limit",
                          "settled at layer"], rows))

    blocks.append(_h(2, "Convergence"))
    if "convergence" in by_name:
        blocks.append(Block("figure", figure=by_name["convergence"]))
    rows = []
    for family in sorted({r["task"]["family"] for r in ok}):
        group = [r for r in ok if r["task"]["family"] == family]
        settled = [r["settled_layer"] for r in group if r.get("settled_layer") is not None]
        locks = [f["layer"] for r in group for f in r["fates"] if f["kind"] in ("fixed", "locked")]
        unsettled = sum(f["kind"] == "unsettled" for r in group for f in r["fates"])
        rows.append([family, len(group), len(settled), _median(settled), max(settled, default="—"),
                     _median(locks), max(locks, default="—"), unsettled])
    blocks.append(_table(["family", "examples", "settled", "median settled layer", "max settled layer",
                          "median lock layer", "max lock layer", "unsettled tokens"], rows))

    blocks.append(_h(2, "Exact against float"))
    if "exact_vs_float" in by_name:
        blocks.append(Block("figure", figure=by_name["exact_vs_float"]))
    compared = [r for r in ok if r.get("float_comparison")]
    rows = []
    for family in sorted({r["task"]["family"] for r in compared}):
        group = [r["float_comparison"] for r in compared if r["task"]["family"] == family]
        rows.append([family, len(group), sum(c["first_undecided_layer"] is not None for c in group),
                     sum(c["first_differing_layer"] is not None for c in group),
                     sum(c["silent_disagreements"] for c in group),
                     _fmt_float(max((c["final_max_abs_difference"] for c in group), default=None))])
    blocks.append(_table(["family", "examples", "float flagged undecided", "float chose different sets",
                          "silent disagreements (must be 0)", "max final |float - exact|"], rows))
    blocks.append(_p("Measured: float64 dynamics (verify.float_dynamics) against the exact engine over the same "
                     "layers (30, or more when the claim checks ran longer). "
                     "A float run may legitimately choose different sets once it has flagged a set undecided; "
                     "a difference before that would contradict the proven rounding bound."))

    blocks.append(_h(2, "The cost of exactness"))
    if "denominator_bits" in by_name:
        blocks.append(Block("figure", figure=by_name["denominator_bits"]))
    rows = []
    for family in sorted({r["task"]["family"] for r in ok}):
        group = [r for r in ok if r["task"]["family"] == family and r.get("denominator_bits")]
        if group:
            rows.append([family, max(r["denominator_bits"][-1] for r in group),
                         max(len(r["denominator_bits"]) - 1 for r in group)])
    blocks.append(_table(["family", "largest final denominator (bits)", "most layers computed"], rows))

    blocks.append(_h(2, "Leaders"))
    if "leaders" in by_name:
        blocks.append(Block("figure", figure=by_name["leaders"]))

    blocks.append(_h(2, "Every example"))
    claim_ids = list(claims)
    rows = []
    for r in records:
        task = r["task"]
        if r.get("status") == "error":
            rows.append([task["name"], task["family"], "—", "—", "—", "ERROR", "—", "—"] + ["—"] * len(claim_ids))
            continue
        config = r["configuration"]
        rows.append([task["name"], task["family"], len(config["tokens"]), len(config["tokens"][0]), config["alpha"],
                     r["status"], sum(f["kind"] == "leader" for f in r["fates"]), _fmt_settled(r)]
                    + [_short(r["verdicts"].get(c, {}).get("status")) for c in claim_ids])
    blocks.append(_table(["example", "family", "n", "d", "alpha", "status", "leaders", "settled"] + claim_ids, rows))
    blocks.append(_p("C = certified, F = failed, I = inconclusive, — = not checked. Each example's configuration, "
                     "verdicts, evidence and certificates are in results.json."))

    optional = results["optional_sections"]
    for key, title in (("sentiment", "Sentiment experiment (saved results)"),
                       ("conjectures", "Conjecture runs (saved results)")):
        section = optional.get(key)
        if not section or not section.get("files"):
            continue
        blocks.append(_h(2, title))
        blocks.append(_p(f"Read from `{section['directory']}` (not recomputed by this report)."))
        files = section["files"]
        if key == "sentiment":
            blocks.extend(_sentiment_blocks(section))
        if key == "conjectures" and all("outcome" in item["summary"] for item in files):
            # The conjecture lab's own summary line per run (held / counterexample / inconclusive).
            blocks.append(_table(["conjecture", "outcome", "examples", "summary", "sha256"],
                                 [[item["summary"].get("conjecture", item["path"]), item["summary"]["outcome"],
                                   item["summary"].get("examples_run", "—"), item["summary"].get("summary", ""),
                                   item["sha256"][:12] + "…"] for item in files]))
            blocks.append(_p("A conjecture's counterexample is a finding of the conjecture lab, not a failure of this "
                             "report: optional sections never change the exit status."))
            continue
        items = []
        for item in section["files"]:
            fields = {k: v for k, v in item["summary"].items() if k != "lines"}
            text = ", ".join(f"{k} = {v}" for k, v in fields.items()) or "(no scalar fields)"
            items.append(f"`{item['path']}` (sha256 {item['sha256'][:12]}…): {text}")
        blocks.append(Block("list", items=items))
        for item in section["files"]:
            if item["summary"].get("lines"):
                blocks.append(_p(f"`{item['path']}` says:"))
                blocks.append(Block("list", items=list(item["summary"]["lines"])))
    skipped = [f"{key}: {section['skipped']}" for key, section in optional.items() if section.get("skipped")]
    if skipped:
        blocks.append(_h(2, "Optional sections skipped"))
        blocks.append(Block("list", items=skipped))

    blocks.append(_h(2, "Provenance"))
    env = results["environment"]
    blocks.append(_p(f"Seed {campaign['seed']}; campaign from {campaign['source']}; command line: "
                     f"`{env['command_line']}`; started {env['started']}, finished {env['finished']}; "
                     f"git commit {env.get('git_commit') or 'unknown'}."))
    blocks.append(_table(["input", "role", "sha256"], [[i["path"], i["role"], i["sha256"]] for i in results["inputs"]]
                         or [["(none: embedded defaults only)", "—", "—"]]))
    blocks.append(_table(["dependency", "version"], sorted(env["versions"].items())))
    blocks.append(_table(["step", "seconds"], sorted(env["timings_seconds"].items())))
    blocks.append(_p("results.json holds everything above; its `environment` block (timestamps, timings, versions) "
                     "is the only part that differs between two runs with the same seed and versions."))
    return blocks


def _fmt_settled(record: Mapping[str, Any]) -> str:
    settled = record.get("settled_layer")
    if settled is not None:
        return str(settled)
    return f"no: {record.get('stopped_by', 'layer budget')} spent at layer {record.get('layers_run', '?')}"


def _median(values: Sequence[int]) -> str:
    return "—" if not values else f"{statistics.median(values):g}"


def _short(status: str | None) -> str:
    return {"certified": "C", "failed": "F", "inconclusive": "I"}.get(status or "", "—")


# --------------------------------------------------------------------------- formatting

def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


# Captions of the figures ``hardmax-verify sentiment analyze`` writes, by file-name suffix.
_SENTIMENT_FIGURES = {
    "training_curves": ("training curves",
                        "Loss and accuracy per epoch: softmax attention (as trained) on train, validation and test, "
                        "and certified hardmax on validation and test every few epochs (THEORY.md §5)."),
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
    return f"{check['fails']} of {total}"


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
    changed = (f"{k['predictions_changed']} of {k.get('configurations', '?')}"
               + (f" ({distance:.3g})" if isinstance(distance, (int, float)) else "")
               if "predictions_changed" in k else "—")
    unseen = row.get("unseen_words") or {}
    unseen_text = (f"{_fmt_share(unseen.get('unseen_leader_share'))} of leaders "
                   f"({_fmt_share(unseen.get('unseen_token_share'))} of tokens); "
                   f"{unseen.get('reviews_with_unseen_leader')} of {unseen.get('reviews')} reviews"
                   if "unseen_leaders" in unseen else "—")
    ablation = row.get("without_attention") or {}
    ablation_text = (f"{ablation['accuracy_without_attention']:.4f} (at K: {ablation.get('accuracy_at_K', float('nan')):.4f}); "
                     f"{ablation.get('predictions_changed')} of {ablation.get('reviews')} differ"
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
    return (f"{(exact.get('status_counts') or {}).get('certified', 0)} of {total}; "
            f"{exact.get('predictions_changed')} of {exact.get('limits_certified')}"
            + (f"; {distance:.3g}" if isinstance(distance, (int, float)) else ""))


def _chosen_on_validation(evaluations: Sequence[Mapping[str, Any]]) -> set[int]:
    """ids of the evaluations with the highest validation accuracy per (d, protocol); ties keep the first by name."""
    best: dict[tuple[Any, Any], Mapping[str, Any]] = {}
    for e in sorted(evaluations, key=lambda e: str(e.get("checkpoint"))):
        value = e.get("validation_accuracy")
        if not isinstance(value, (int, float)):
            continue
        key = (e.get("d"), e.get("protocol"))
        if key not in best or value > best[key]["validation_accuracy"]:
            best[key] = e
    return {id(e) for e in best.values()}


def _sentiment_blocks(section: Mapping[str, Any]) -> list[Block]:
    """The accuracy table (from ``sentiment evaluate --json`` files) and the analyses' figures."""
    from ..sentiment import AUTHORS_SOFTMAX_TEST_ACCURACY  # torch-free constants

    blocks: list[Block] = []
    evaluations = [item["evaluation"] for item in section["files"] if item.get("evaluation")]
    if evaluations:
        rows = []
        chosen = _chosen_on_validation(evaluations)
        for e in sorted(evaluations, key=lambda e: (e.get("d") or 0, str(e.get("checkpoint")))):
            authors = AUTHORS_SOFTMAX_TEST_ACCURACY.get(e.get("d"))
            validation = e.get("validation_accuracy")
            like = (f"{e['like_for_like_accuracy']:.4f} (epoch {e['like_for_like_epoch']})"
                    if isinstance(e.get("like_for_like_accuracy"), (int, float)) else "—")
            seconds = e.get("hardmax_seconds")
            softmax = e.get("softmax_accuracy")
            rows.append([str(e.get("d")), f"`{e.get('checkpoint')}`", str(e.get("protocol") or "—"),
                         f"{authors:.4f}" if authors is not None else "—", like,
                         f"**{e['hardmax_accuracy']:.4f}** (epoch {e.get('epoch')})",
                         (f"{validation:.4f}" + (" (chosen for this d)" if id(e) in chosen else ""))
                         if isinstance(validation, (int, float)) else "—",
                         f"{softmax:.4f}" if isinstance(softmax, (int, float)) else "—",
                         str(e.get("exact_path", "—")), str(e.get("reviews", "—")),
                         f"{seconds:.1f}" if isinstance(seconds, (int, float)) else "—"])
        blocks.append(_h(3, "Accuracy"))
        blocks.append(_table(["d", "checkpoint", "protocol", "authors (softmax, best test epoch)",
                              "ours like-for-like (softmax, best test epoch)",
                              "ours honest (certified hardmax, epoch chosen on validation)",
                              "validation accuracy of that epoch", "softmax at that epoch", "exact-path reviews",
                              "test reviews", "hardmax s"], rows))
        blocks.append(_p("The honest number is the certified hardmax test accuracy of the checkpoint selected on a "
                         "validation split carved from train: every prediction is that of exact rational arithmetic "
                         "on the stored float32 weights (reviews the float rounding bound could not decide were "
                         "recomputed exactly; their count is the exact-path column). The like-for-like number uses "
                         "the test set for selection, as the paper did (THEORY.md §5); it is evidence, not a "
                         "certified figure. Several runs of one d (other options) are chosen between on "
                         "validation too: the run marked 'chosen for this d' has the highest validation accuracy "
                         "of that d's runs under that protocol, and its honest number is the one to quote; taking "
                         "the run with the best test number instead would select on the test set. Epochs trained "
                         "are in each checkpoint's `checkpoint.json`."))
    analysis_rows = [row for item in section["files"] for row in item.get("analysis_rows", [])]
    if analysis_rows:
        blocks.append(_h(3, "Leaders and the experiment's claims"))
        blocks.append(_table(
            ["model", "d", "epoch", "leaders per review: mean (std, min-max)", "already leading at layer 0",
             "top leader words (confident, |w.z+b| > 2)", "VADER-polar share: leaders / all words",
             "words never seen in training: share of leaders (of tokens); reviews with such a leader",
             "K = 8 vs converged: predictions changed (max distance)",
             "without attention (K = 0, same weights, certified): accuracy (at K); predictions that differ",
             "T0 fails (exact)", "T2 fails", "T3 fails",
             "exact (claim checks, D7): theorem certified; limit class changed; max distance"],
            [_analysis_cells(row) for row in analysis_rows]))
        blocks.append(_p("Leaders are exact (C_i = {i} within K = 8 layers, certified hardmax). Real reviews repeat "
                         "words and are padded, so they lie outside the theorem's hypotheses (THEORY.md D5); T0 there is "
                         "checked exactly, T2 and T3 on the converged float state (measured, tolerance in "
                         "analysis.json), and the converged state itself is float evidence. The last column is "
                         "exact: on configurations within the hypotheses the claim checks certify T0..T4 and every "
                         "token's limit (D7), so the class of the asymptotic state and its distance from layer 8 "
                         "are decided, not measured."))
    figures = section.get("figures") or []
    if figures:
        blocks.append(_h(3, "Analyses"))
        for figure in figures:
            stem = Path(figure["file"]).stem
            title, caption = next(((f"{stem[:-len(suffix) - 1]}: {t}", c)
                                   for suffix, (t, c) in _SENTIMENT_FIGURES.items() if stem.endswith(suffix)),
                                  (stem, "A figure of the sentiment analysis."))
            blocks.append(Block("figure", figure=FigureInfo(stem, figure["file"], None, title,
                                                            f"{caption} Source: `{figure['path']}`.")))
    return blocks


def to_markdown(blocks: Sequence[Block]) -> str:
    out: list[str] = []
    for block in blocks:
        if block.kind.startswith("h"):
            out.append("#" * int(block.kind[1]) + " " + block.text)
        elif block.kind == "p":
            out.append(block.text)
        elif block.kind == "list":
            out.append("\n".join(f"- {item}" for item in block.items))
        elif block.kind == "code":
            out.append("```json\n" + block.text + "\n```")
        elif block.kind == "table":
            lines = ["| " + " | ".join(_md_cell(h) for h in block.headers) + " |",
                     "|" + "|".join("---" for _ in block.headers) + "|"]
            lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
            out.append("\n".join(lines))
        elif block.kind == "figure" and block.figure is not None:
            f = block.figure
            extra = f" ([SVG]({f.svg}))" if f.svg else ""
            out.append(f"![{f.title}]({f.png})\n\n*{f.title}.* {f.caption}{extra}")
    return "\n\n".join(out) + "\n"


_INLINE_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")
_ITALIC = re.compile(r"\*([^*]+)\*")


def _inline(text: str) -> str:
    escaped = html.escape(text, quote=False)
    escaped = _INLINE_CODE.sub(r"<code>\1</code>", escaped)
    escaped = _BOLD.sub(r"<strong>\1</strong>", escaped)
    return _ITALIC.sub(r"<em>\1</em>", escaped)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
table{border-collapse:collapse;margin:1em 0;font-size:.85em}th,td{border:1px solid #ccc;padding:.25em .5em;
text-align:left;vertical-align:top}th{background:#f3f3f3}figure{margin:1.5em 0}img{max-width:100%}
figcaption{font-size:.9em;color:#444}pre{background:#f6f6f6;padding:.8em;overflow-x:auto;font-size:.8em}
code{background:#f6f6f6;padding:0 .2em}
"""


def to_html(blocks: Sequence[Block], *, report_dir: Path) -> str:
    """A single self-contained HTML file: every figure embedded as a base64 PNG."""
    title = next((b.text for b in blocks if b.kind == "h1"), "report")
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{html.escape(title)}</title>", f"<style>{_CSS}</style>", "</head>", "<body>"]
    for block in blocks:
        if block.kind.startswith("h"):
            level = block.kind[1]
            out.append(f"<h{level}>{_inline(block.text)}</h{level}>")
        elif block.kind == "p":
            out.append(f"<p>{_inline(block.text)}</p>")
        elif block.kind == "list":
            out.append("<ul>" + "".join(f"<li>{_inline(item)}</li>" for item in block.items) + "</ul>")
        elif block.kind == "code":
            out.append(f"<pre><code>{html.escape(block.text)}</code></pre>")
        elif block.kind == "table":
            head = "".join(f"<th>{_inline(h)}</th>" for h in block.headers)
            body = "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>" for row in block.rows)
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        elif block.kind == "figure" and block.figure is not None:
            f = block.figure
            data = base64.b64encode((report_dir / f.png).read_bytes()).decode("ascii")
            out.append(f'<figure><img alt="{html.escape(f.title)}" src="data:image/png;base64,{data}">'
                       f"<figcaption><strong>{html.escape(f.title)}.</strong> {_inline(f.caption)}</figcaption></figure>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
