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

from verify.core import formatting as fmt
from verify.core.figure_text import declared_text_px, png_size
from verify.core.io import json_text
from verify.claims import registry
from verify.experiments.sections import Section
from .citation import Citation
from .figures import FigureInfo
from .glance import Glance, at_a_glance, claim_badge_kind
from .kernel import kernel_sentence, unchecked_shown

__all__ = ["Block", "build_document", "to_markdown", "to_html", "folded_summary", "glance_markdown", "glance_list",
           "saved_results_markdown", "VERIFIED_HEADING", "SAVED_HEADING", "CITE_HEADING"]

_STATUS_WORD = {"certified": "certified", "failed": "FAILED", "inconclusive": "inconclusive", "error": "ERROR"}


# Tables longer than this are folded (<details>) behind a summary line that gives their length.
LONG_TABLE_ROWS = 20


# The two parts of the first screen, and the citable paragraph's heading.
VERIFIED_HEADING = "Verified by this run"
SAVED_HEADING = "Saved results, not recomputed by this run"
SAVED_NOTE = ("read from the saved files named under Provenance, with their sha256; `hardmax-verify certcheck` "
              "recomputes these numbers from the files; they never change the verdict above")
CITE_HEADING = "How to cite this run"


@dataclass
class Block:
    kind: str                      # h1 h2 h3 p list table figure gallery code glance contents cite
    text: str = ""
    items: list[str] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    figure: FigureInfo | None = None
    figures: list[FigureInfo] = field(default_factory=list)   # gallery: always shown folded
    glance: Glance | None = None


def _h(level: int, text: str) -> Block:
    return Block(f"h{level}", text)


def _p(text: str) -> Block:
    return Block("p", text)


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> Block:
    return Block("table", headers=list(headers), rows=[[str(x) for x in row] for row in rows])


def _count(value: Any) -> str:
    return "n/a" if value is None else fmt.count(value)


def _kernel_count(block: Mapping[str, Any] | None, claim: str) -> str:
    if not block or block["status"] in ("skipped", "not completed"):
        return "n/a"
    return fmt.count(block["claims"].get(claim, {}).get("kernel-checked", 0))


def _some(names: Sequence[str], shown: int = 6) -> str:
    """The first names and how many more: never a silent cut."""
    names = list(names)
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


def _unchecked_notes(results: Mapping[str, Any]) -> list[str]:
    """Plain statements of what was not certified, computed from the records."""
    notes = []
    records = results["examples"]
    ok = [r for r in records if r.get("status") != "error"]
    unsettled = [(r["task"]["name"], f["token"]) for r in ok for f in r["fates"] if f.get("kind") == "unsettled"]
    budget = results["campaign"]["layer_budget"]
    if unsettled:
        examples = sorted({name for name, _ in unsettled})
        notes.append(f"{fmt.counted(len(unsettled), 'token')} in {fmt.counted(len(examples), 'example')} neither "
                     f"locked nor became fixed (docs/theory.md D7) nor got a certified closed-form path (D9) within "
                     f"{fmt.counted(budget, 'layer')}: {'its' if len(unsettled) == 1 else 'their'} "
                     f"convergence is measured, not certified ({_some(examples)}).")
    timed_out = [r["task"]["name"] for r in ok if r.get("stopped_by") == "time budget"]
    if timed_out:
        notes.append(f"{fmt.counted(len(timed_out), 'example was', 'examples were')} stopped by the time budget of "
                     f"{results['campaign'].get('time_budget')} s per configuration before every token settled "
                     f"({_some(timed_out)}); {'its' if len(timed_out) == 1 else 'their'} unsettled "
                     "claims are inconclusive, and with a time budget the results depend on the machine's speed.")
    if not unsettled and not timed_out:
        by_paths = sum(any(f.get("kind") == "path" for f in r["fates"]) for r in ok)
        notes.append(f"Every token of every example was settled within {fmt.counted(budget, 'layer')}: it led, "
                     "became fixed or locked (docs/theory.md D7)"
                     + (f", or, in {fmt.counted(by_paths, 'example')}, follows a certified closed-form path (D9)"
                        if by_paths else "")
                     + ", so convergence (T3) is certified wherever T3 says so.")
    errors = [r for r in records if r.get("status") == "error"]
    if errors:
        notes.append(f"{fmt.counted(len(errors), 'task')} raised an error twice and "
                     f"{'was' if len(errors) == 1 else 'were'} not checked: "
                     + _some([f"{r['task']['name']} ({r['error']})" for r in errors], 5) + ".")
    outside = [r["task"]["name"] for r in ok if r["configuration"].get("outside_hypotheses")]
    if outside:
        notes.append(f"{fmt.counted(len(outside), 'example lies', 'examples lie')} outside the theorem's hypotheses "
                     "(recorded as such): " + _some(outside) + ".")
    summary = results["summary"]
    for claim in registry.claims("check"):  # what a claim's own module says about its counts
        row = summary["claims"].get(claim.id)
        if claim.report_note is not None and row is not None:
            note = claim.report_note(row, [r["verdicts"].get(claim.id, {}) for r in ok])
            if note:
                notes.append(note)
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
                f"re-verified {fmt.count(recertified)} of the {fmt.counted(certified, 'certificate')}, and checked every example's status, "
                "settled layer, inconclusive verdicts and fates (the exact limits shown here) against its own replay")
        if rejected:
            text += f"; it REJECTED {rejected} (each counts as a failure of the suite)"
        if unsupported:
            text += f"; {unsupported} {'concerns' if unsupported == 1 else 'concern'} a model variant it does not implement"
        notes.append(text + ".")
    sentence = kernel_sentence(results.get("kernel"))
    if sentence is not None:
        block = results["kernel"]
        reasons = "; ".join(f"{reason} ({fmt.count(n)})" for reason, n in block.get("not_kernel_checked", {}).items())
        notes.append(sentence + ". A kernel-checked claim rests on formal/Statement.v and Coq's kernel with its "
                     "primitive 63-bit integers alone (docs/formal.md)"
                     + (f"; not kernel-checked: {reasons}" if reasons else "") + ".")
        unchecked = block.get("unchecked_configurations", [])
        if unchecked:
            shown = unchecked_shown(block)
            named = "; ".join(f"{u['task']} ({u['reason']})" for u in shown)
            more = len(unchecked) - len(shown)
            notes.append(f"Configurations whose certificate the kernel did not check: {named}"
                         + (f", and {fmt.count(more)} more (results.json names them)" if more > 0 else "") + ".")
    notes.append("Measured, not certified: the exact-against-float comparison (float64; the float run's own "
                 "rounding bound flags the attention sets it cannot decide). The convergence curves are exact "
                 "distances to certified limits, rounded to float for plotting.")
    notes.append("Assumed: the facts proved in docs/theory.md that carry a certificate beyond the layers computed "
                 "(last column of the table).")
    return notes


def build_document(results: Mapping[str, Any], figures: Sequence[FigureInfo],
                   sections: Mapping[str, Section] | None = None, *, cite: Citation | None = None) -> list[Block]:
    """The report's content, from a validated results dictionary, the figures written, the sections
    the experiments and the lab provide for their saved results (by optional-section key) and the
    citable paragraph (:mod:`verify.app.report.citation`)."""
    sections = sections or {}
    blocks: list[Block] = []
    summary = results["summary"]
    campaign = results["campaign"]
    records = results["examples"]
    ok = [r for r in records if r.get("status") != "error"]
    by_name = {f.name: f for f in figures}
    overall = summary["overall"]

    blocks.append(_h(1, "hardmax-verify: verification report"))
    blocks.append(Block("glance", glance=at_a_glance(results, {key: s.summary for key, s in sections.items()})))
    if cite is not None:
        blocks.append(Block("cite", text=cite.paragraph, items=[cite.bibtex]))
    blocks.append(Block("contents"))
    worked = sum(r["task"]["kind"] == "worked" for r in records)
    families = sorted({r["task"]["family"] for r in records if r["task"]["kind"] == "generated"})
    time_budget = campaign.get("time_budget")
    time_budget_text = "" if time_budget is None else f", time budget {time_budget:g} s per configuration"
    blocks.append(_p(f"Overall: {_STATUS_WORD.get(overall, overall)} (exit status {summary['exit_status']}). "
                     f"{fmt.counted(len(records), 'configuration')} checked: "
                     f"{fmt.counted(worked, 'worked configuration')} of docs/theory.md §4 and "
                     f"{fmt.count(len(records) - worked)} generated from seed {campaign['seed']} across the families "
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
                     _kernel_count(results.get("kernel"), claim), record.assumption if record else ""])
    blocks.append(_table(["claim", "statement", "certified", "failed", "inconclusive", "not checked", "exact",
                          "measured", "re-verified by certcheck", "kernel-checked", "assumed"], rows))
    blocks.append(_p("*exact*: decided in exact arithmetic (certified or failed). *measured*: inconclusive, with "
                     "a float measurement shown instead. *re-verified by certcheck*: certified verdicts whose "
                     "certificate the independent checker (verify.certcheck, standard library only) re-verified "
                     "from the configuration alone (n/a: checker not available). *kernel-checked*: configurations on "
                     "which Coq's kernel proved the claim from formal/Statement.v (docs/formal.md; n/a: no kernel "
                     "pass)."))
    blocks.append(_h(3, "What was assumed or left unchecked"))
    blocks.append(Block("list", items=_unchecked_notes(results)))

    blocks.append(_h(2, "Counterexamples"))
    if results["counterexamples"]:
        items = []
        for c in results["counterexamples"]:
            items.append(f"{c['claim']} fails on `{c['example']}`: shrunk from {c['original_n']} to "
                         f"{fmt.counted(c['shrunk_n'], 'token')}, reproduce with `hardmax-verify check {c['file']}` (file in this report folder).")
        blocks.append(Block("list", items=items))
        for c in results["counterexamples"]:
            blocks.append(_p(f"`{c['file']}`:"))
            blocks.append(Block("code", json_text(c["config"], where=str(c.get("file", "a counterexample")),
                                                  newline=False)))
    else:
        blocks.append(_p("None: no claim failed on any configuration."))
    silent = sum(r.get("float_comparison", {}).get("silent_disagreements", 0) for r in ok)
    rejected = sum(len(r.get("certcheck", {}).get("rejected", {})) for r in ok)
    if silent or rejected:
        blocks.append(_p(f"**Defects found in the suite itself:** {fmt.counted(silent, 'float attention set')} "
                         "differed from the exact ones without being flagged by the proven rounding bound; "
                         f"{fmt.counted(rejected, 'certificate')} rejected by the independent checker. Each counts as "
                         "a failure."))

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
        others = [f for f in r["fates"] if f["kind"] in ("fixed", "locked", "path")]
        rows.append([r["task"]["name"], len(r["configuration"]["tokens"]), r["status"],
                     ", ".join(f"{f['token']} (layer {f['layer']})" for f in sorted(leaders, key=lambda f: f["token"])),
                     ", ".join(f"{f['token']} {f['kind']} at {f['layer']} -> "
                               f"({', '.join(fmt.exact(x) for x in f['limit'])})"
                               for f in sorted(others, key=lambda f: f["token"])) or "—",
                     _fmt_settled(r)])
    blocks.append(_table(["configuration", "n", "status", "leaders (first layer)",
                          "non-leaders: fate, layer, limit (exact; ≈ when too long, results.json has it exactly)",
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
    blocks.append(_h(3, "Closed-form certificates (D9)"))
    blocks.extend(closed_form_blocks(results))

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
                     fmt.measured(max((c["final_max_abs_difference"] for c in group), default=None))])
    blocks.append(_table(["family", "examples", "float flagged undecided", "float chose different sets",
                          "silent disagreements (must be 0)", "max final |float - exact|"], rows))
    blocks.append(_p("Measured: float64 dynamics (verify.core.float_dynamics) against the exact engine over the same "
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
    emergence = _last_leader_layers(ok)
    if emergence:
        total = sum(emergence.values())
        blocks.append(_p("The last leader of an example first led at "
                         + "; ".join(f"layer {layer} in {fmt.fraction(n, total, 'example')}"
                                     for layer, n in sorted(emergence.items()))
                         + " (exact; leaders that emerged within the layer budget)."))

    blocks.append(_h(2, "Every example"))
    claim_ids = list(claims)
    rows = []
    for r in records:
        task = r["task"]
        if r.get("status") == "error":
            rows.append([task["name"], task["family"], "—", "—", "—", "ERROR", "—", "—"] + ["—"] * len(claim_ids))
            continue
        config = r["configuration"]
        rows.append([task["name"], task["family"], len(config["tokens"]), len(config["tokens"][0]),
                     fmt.exact(config["alpha"]), r["status"], sum(f["kind"] == "leader" for f in r["fates"]), _fmt_settled(r)]
                    + [_short(r["verdicts"].get(c, {}).get("status")) for c in claim_ids])
    table = _table(["example", "family", "n", "d", "alpha", "status", "leaders", "settled"] + claim_ids, rows)
    # The summary line the folded table shows.
    table.text = (f"{fmt.counted(len(rows), 'example')}: "
                  + ", ".join(f"{fmt.count(n)} {status}" for status, n in
                              sorted(_tally(r.get("status", "error") for r in records).items())))
    blocks.append(table)
    blocks.append(_p("C = certified, F = failed, I = inconclusive, — = not checked. Each example's configuration, "
                     "verdicts, evidence and certificates are in results.json ('hardmax-verify certcheck' re-checks each verdict's "
                     "status, certificate and the replay facts its evidence states; a verdict's summary sentence is the engine's description)."))

    optional = results["optional_sections"]
    for key, shown in sections.items():
        section = optional[key]
        blocks.append(_h(2, shown.title))
        blocks.append(_p(f"Read from `{section['directory']}` (not recomputed by this report)."))
        blocks.extend(_section_blocks(shown))
        if not shown.list_files:
            continue
        items = []
        for item in section["files"]:
            fields = {k: v for k, v in item["summary"].items() if k not in ("lines", "lines_omitted")}
            text = ", ".join(f"{k} = {fmt.by_key(k, v)}" for k, v in fields.items()) or "(no scalar fields)"
            items.append(f"`{item['path']}` (sha256 {item['sha256'][:12]}…): {text}")
        blocks.append(Block("table", headers=["saved file and its fields"], rows=[[item] for item in items]))
        for item in section["files"]:
            lines = item["summary"].get("lines")
            if lines:
                omitted = item["summary"].get("lines_omitted")
                blocks.append(_p(f"`{item['path']}` says ({fmt.counted(len(lines), 'line')}"
                                 + (f"; {fmt.counted(omitted, 'more line')} in that file, not shown" if omitted else "")
                                 + "):"))
                blocks.append(Block("code", "\n".join(_formatted_numbers(line) for line in lines)))
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
    blocks.append(_table(["step", "time"], [[step, fmt.seconds(value)] for step, value in
                                            sorted(env["timings_seconds"].items())]))
    blocks.append(_p("results.json holds everything above; its `environment` block (timestamps, timings, versions) "
                     "is the only part that differs between two runs with the same seed and versions."))
    return blocks


# A decimal with more digits than a measurement is shown with (a float written out in full).
_LONG_DECIMAL = re.compile(r"(?<![\w.])-?\d+\.\d{5,}(?:e[-+]?\d+)?(?![\w.])")


def _formatted_numbers(line: str) -> str:
    """A saved file's own summary line with its long decimals written by the report's formatter."""
    return _LONG_DECIMAL.sub(lambda m: fmt.measured(float(m.group(0))), line)


def closed_form_blocks(results: Mapping[str, Any]) -> list[Block]:
    """What the closed-form certificates (docs/theory.md D9) did in the campaign: the summary the
    campaign recorded (results.json ``summary.closed_form``) and the claim checks' wall time
    (``environment.claim_check_seconds``, measured)."""
    summary = results["summary"].get("closed_form")
    if summary is None:
        return [_p("Not recorded in this results.json.")]
    checked = sum(r.get("status") != "error" for r in results["examples"])
    unsettled = (f" {fmt.counted(summary['unsettled'], 'configuration still has', 'configurations still have')} "
                 "a token settled by neither (listed under \"What was assumed or left unchecked\")." if summary["unsettled"] else "")
    if not summary["configurations"]:
        return [_p(f"No configuration needed a closed-form certificate: D7 settled every token that was "
                   f"settled.{unsettled}")]
    budget = results["campaign"]["layer_budget"]
    blocks = [_p(f"{fmt.fraction(summary['configurations'], checked, 'configuration')} needed closed-form paths "
                 "(docs/theory.md D9): D7 left a token whose attention set keeps tokens that still move "
                 f"({_some(summary['examples'])}). *Found at layer*: the layer whose exact positions the certified "
                 "chain starts from. *Constant from layer*: the layer from which its final segment holds, so every "
                 "attention set is constant from there on; the chain reaches it by jumps, not by simulating the "
                 f"layers between. *Fixed budget*: the layers a run simulates under the layer budget of {budget} "
                 "(capped by the checker's work limit), as a run without D9 does while D7 leaves a token "
                 f"unsettled.{unsettled}")]
    seconds = results.get("environment", {}).get("claim_check_seconds") or {}
    times = [seconds[name] for name in summary["examples"] if name in seconds]
    recorded = len(times) == len(summary["examples"])
    wall = (f"{fmt.seconds(sum(times))} (at most {fmt.seconds(max(times))} each)" if recorded
            else "not recorded")
    blocks.append(_table(["configurations", "found at layer (min / median / max)",
                          "constant from layer (min / median / max)", "layers simulated", "fixed budget",
                          "layers saved", "claim checks, wall time"],
                         [[fmt.count(summary["configurations"]), _spread(summary["found_at_layer"]),
                           _spread(summary["constant_from_layer"]), fmt.count(summary["layers_run"]),
                           fmt.count(summary["budget_layers"]), fmt.count(summary["layers_saved"]), wall]]))
    if recorded and seconds:
        blocks.append(_p(f"Wall time is measured on the machine that ran the campaign: the claim checks of all "
                         f"{fmt.counted(len(seconds), 'configuration')} took {fmt.seconds(sum(seconds.values()))}."))
    return blocks


def _spread(spread: Mapping[str, Any] | None) -> str:
    if spread is None:
        return fmt.MISSING
    return " / ".join(fmt.layer(spread[key]) for key in ("min", "median", "max"))


def _fmt_settled(record: Mapping[str, Any]) -> str:
    settled = record.get("settled_layer")
    if settled is not None:
        return str(settled)
    return f"no: {record.get('stopped_by', 'layer budget')} spent at layer {record.get('layers_run', '?')}"


def _tally(values: Any) -> dict[Any, int]:
    counts: dict[Any, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


def _last_leader_layers(records: Sequence[Mapping[str, Any]]) -> dict[int, int]:
    """Examples by the layer at which their last leader first led (exact fates)."""
    return _tally(max(f["layer"] for f in r["fates"] if f["kind"] == "leader" and f.get("layer") is not None)
                  for r in records
                  if any(f["kind"] == "leader" and f.get("layer") is not None for f in r["fates"]))


def _median(values: Sequence[int]) -> str:
    return fmt.MISSING if not values else fmt.layer(statistics.median(values))


def _short(status: str | None) -> str:
    return {"certified": "C", "failed": "F", "inconclusive": "I"}.get(status or "", "—")


# --------------------------------------------------------------------------- formatting

def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _section_blocks(section: Section) -> list[Block]:
    """A provider's section (verify.experiments.sections): its summary, tables and figures."""
    blocks: list[Block] = [_p(section.summary)] if section.summary else []
    for table in section.tables:
        if table.heading:
            blocks.append(_h(3, table.heading))
        if table.intro:
            blocks.append(_p(table.intro))
        blocks.append(_table(table.headers, table.rows))
        if table.note:
            blocks.append(_p(table.note))
    if section.figures and section.figures_heading:
        blocks.append(_h(3, section.figures_heading))
    # Figures titled "group: what" (a model's analyses) fold into one gallery per group.
    galleries: dict[str, list[FigureInfo]] = {}
    for figure in section.figures:
        group = figure.title.split(": ", 1)[0] if ": " in figure.title else figure.title
        galleries.setdefault(group, []).append(
            FigureInfo(figure.name, figure.file, None, figure.title, figure.caption))
    for group, shown in galleries.items():
        if len(shown) == 1 and ": " not in shown[0].title:
            blocks.append(Block("figure", figure=shown[0]))
        else:
            blocks.append(Block("gallery", text=f"{group}: {', '.join(f.title.split(': ', 1)[-1] for f in shown)}",
                                figures=shown))
    return blocks


def _slug(text: str) -> str:
    """A heading's anchor as GitHub makes it (lower case, punctuation dropped, spaces to hyphens)."""
    plain = re.sub(r"[*`]", "", text).strip().lower()
    return re.sub(r"[^\w\- ]", "", plain).replace(" ", "-")


def _anchors(blocks: Sequence[Block]) -> dict[int, str]:
    """A unique anchor per heading (by block position); repeats get -1, -2 as on GitHub."""
    seen: dict[str, int] = {"at-a-glance": 1, "contents": 1, _slug(CITE_HEADING): 1}
    anchors = {}
    for index, block in enumerate(blocks):
        if block.kind in ("h1", "h2", "h3"):
            base = _slug(block.text) or "section"
            n = seen.get(base, 0)
            seen[base] = n + 1
            anchors[index] = base if n == 0 else f"{base}-{n}"
    return anchors


def _contents(blocks: Sequence[Block], anchors: Mapping[int, str]) -> list[tuple[str, str]]:
    """(anchor, title) of every level-2 heading: the report's contents."""
    return [(anchors[i], b.text) for i, b in enumerate(blocks) if b.kind == "h2"]


_GLANCE_ROWS = (("certified", "certified"), ("failed", "failed"), ("inconclusive", "inconclusive"),
                ("unchecked", "not checked"))


def _glance_rows(glance: Glance) -> list[tuple[str, str, list[int]]]:
    rows = [(status, label, [getattr(c, status) for c in glance.claims]) for status, label in _GLANCE_ROWS]
    # "not checked" only when something was not checked.
    return [row for row in rows if row[0] != "unchecked" or any(row[2])]


def _recertified_text(glance: Glance) -> str:
    if glance.recertified is None:
        return "independent certificate checker not available: no certificate re-verified"
    text = (f"{fmt.count(glance.recertified)} of {fmt.counted(glance.certificates, 'certificate')} re-verified by the "
            "independent checker (verify.certcheck)")
    return text + (f", {fmt.count(glance.rejected)} REJECTED" if glance.rejected else "")


def _glance_markdown(glance: Glance) -> str:
    return "## Results at a glance\n\n" + glance_markdown(glance)


def glance_markdown(glance: Glance) -> str:
    """The at-a-glance block in markdown, without its heading (report.md and the README show the same text).

    Two parts: what this run verified, then the saved results it read and did not recompute.
    """
    overall = _STATUS_WORD.get(glance.overall, glance.overall)
    out = [f"**{VERIFIED_HEADING}** (recomputed now, in exact arithmetic):",
           f"Overall: **{overall}** (exit status {glance.exit_status}) on "
           f"{fmt.counted(glance.configurations, 'configuration')}; {_recertified_text(glance)}"
           + (f"; {glance.kernel}." if glance.kernel else ".")]
    lines = ["| claim | " + " | ".join(c.claim for c in glance.claims) + " |",
             "|---|" + "|".join("---" for _ in glance.claims) + "|"]
    lines += [f"| {label} | " + " | ".join(fmt.count(v) for v in values) + " |"
              for _, label, values in _glance_rows(glance)]
    if glance.kernel_checked is not None:
        lines.append("| kernel-checked | " + " | ".join(fmt.count(glance.kernel_checked.get(c.claim, 0))
                                                        for c in glance.claims) + " |")
    out.append("\n".join(lines))
    out.append(glance_list(glance.verified))
    saved = saved_results_markdown(glance.saved)
    if saved:
        out.append(saved)
    return "\n\n".join(out)


def saved_results_markdown(sentences: Sequence[tuple[str, str]]) -> str:
    """The second part of the first screen: the saved results' lines under their heading ("" when there is none)."""
    if not sentences:
        return ""
    return f"**{SAVED_HEADING}** ({SAVED_NOTE}):\n\n" + glance_list(sentences)


def glance_list(sentences: Sequence[tuple[str, str]]) -> str:
    """The at-a-glance list, one ``- what: conclusion`` line per sentence."""
    return "\n".join(f"- {what}: {sentence}" for what, sentence in sentences)


def _cite_markdown(block: Block) -> str:
    return (f"## {CITE_HEADING}\n\n> {block.text}\n\n<details><summary>BibTeX entry</summary>\n\n```bibtex\n"
            f"{block.items[0]}\n```\n\n</details>")


def to_markdown(blocks: Sequence[Block]) -> str:
    anchors = _anchors(blocks)
    out: list[str] = []
    for block in blocks:
        if block.kind.startswith("h"):
            out.append("#" * int(block.kind[1]) + " " + block.text)
        elif block.kind == "glance" and block.glance is not None:
            out.append(_glance_markdown(block.glance))
        elif block.kind == "cite":
            out.append(_cite_markdown(block))
        elif block.kind == "contents":
            out.append("## Contents\n\n" + "\n".join(f"- [{title}](#{anchor})"
                                                    for anchor, title in _contents(blocks, anchors)))
        elif block.kind == "p":
            out.append(block.text)
        elif block.kind == "list":
            out.append("\n".join(f"- {item}" for item in block.items))
        elif block.kind == "code":
            out.append("```\n" + block.text + "\n```")
        elif block.kind == "table":
            lines = ["| " + " | ".join(_md_cell(h) for h in block.headers) + " |",
                     "|" + "|".join("---" for _ in block.headers) + "|"]
            lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
            out.append(_folded("\n".join(lines), block, markdown=True))
        elif block.kind == "figure" and block.figure is not None:
            out.append(_figure_markdown(block.figure))
        elif block.kind == "gallery":
            out.append(_folded("\n\n".join(_figure_markdown(f) for f in block.figures), block, markdown=True))
    return "\n\n".join(out) + "\n"


def _folded(body: str, block: Block, *, markdown: bool) -> str:
    summary = folded_summary(block)
    return body if summary is None else _details(summary, body, markdown=markdown)


def folded_summary(block: Block) -> str | None:
    """The summary line of a block that both report.md and report.html fold (``<details>``), or None.

    The one folding rule: tables longer than LONG_TABLE_ROWS and every gallery. GitHub renders
    ``<details>`` in markdown, so the two files fold the same blocks behind the same line.
    """
    if block.kind == "table" and len(block.rows) > LONG_TABLE_ROWS:
        return f"Show the table ({block.text or f'{fmt.count(len(block.rows))} rows'})"
    if block.kind == "gallery":
        return f"{block.text} ({fmt.counted(len(block.figures), 'figure')})"
    return None


def _details(summary: str, body: str, *, markdown: bool) -> str:
    """``body`` folded behind ``summary``; in markdown, blank lines keep the body's markdown rendered."""
    if markdown:
        return f"<details><summary>{_inline(summary)}</summary>\n\n{body}\n\n</details>"
    return f"<details><summary>{_inline(summary)}</summary>{body}</details>"


def _figure_markdown(f: FigureInfo) -> str:
    extra = f" ([SVG]({f.svg}))" if f.svg else ""
    return f"![{f.title}]({f.png})\n\n*{f.title}.* {f.caption}{extra}"


_INLINE_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")
_ITALIC = re.compile(r"\*([^*]+)\*")


def _inline(text: str) -> str:
    escaped = html.escape(text, quote=False)
    escaped = _INLINE_CODE.sub(r"<code>\1</code>", escaped)
    escaped = _BOLD.sub(r"<strong>\1</strong>", escaped)
    return _ITALIC.sub(r"<em>\1</em>", escaped)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1200px;margin:1.5em auto;padding:0 1em;
color:#222;line-height:1.45;overflow-wrap:anywhere}
h1{font-size:1.6em;margin:.2em 0 .5em}
.scroll{overflow-x:auto;max-width:100%;margin:1em 0}
table{border-collapse:collapse;font-size:.85em;overflow-wrap:normal}th,td{border:1px solid #ccc;padding:.25em .5em;
text-align:left;vertical-align:top}th{background:#f3f3f3}td{min-width:2.5em}
figure{margin:1.5em 0}img{max-width:100%;height:auto}figure img{width:100%;cursor:zoom-in}
figure.zoomed{position:fixed;inset:0;z-index:10;margin:0;padding:1em;background:rgba(255,255,255,.97);overflow:auto}
figure.zoomed img{width:auto;min-width:96vw;max-width:none!important;cursor:zoom-out}
figcaption{font-size:.9em;color:#444}pre{background:#f6f6f6;padding:.8em;overflow-x:auto;font-size:.8em;
white-space:pre-wrap}
code{background:#f6f6f6;padding:0 .2em}
details{margin:1em 0}summary{cursor:pointer;color:#0645ad}
.glance{border:1px solid #bbb;border-radius:6px;padding:.6em 1em;background:#fafafa}
.glance h2{margin:.1em 0 .4em;font-size:1.25em}.glance .scroll{margin:.5em 0}
.glance table{font-size:.85em}.glance td{text-align:center}
.glance ul{margin:.4em 0;padding-left:1.2em}.glance li{margin:.25em 0}
.what{font-weight:600}
.glance .part{margin:.4em 0 .6em}.glance h3{font-size:1.02em;margin:.5em 0 .2em}
.glance .saved{border-top:1px solid #ccc;padding-top:.2em;color:#333}.glance .note{font-size:.88em;margin:.1em 0}
.cite blockquote{margin:.5em 0;padding:.4em .9em;border-left:4px solid #888;background:#f7f7f7;font-size:.9em}
.cite h2{font-size:1.15em}
.badge{display:inline-block;min-width:1.6em;padding:0 .45em;border-radius:.8em;text-align:center;
font-weight:600;color:#fff}
.badge.ok{background:#1a7f37}.badge.bad{background:#cf222e}.badge.warn{background:#bf8700}
.badge.zero{background:#e6e6e6;color:#666;font-weight:400}
nav.contents ol{columns:3 14em;margin:.3em 0}
.gallery-grid{display:grid;grid-template-columns:1fr;gap:1em}
"""


def _badge(status: str, value: int, text: str | None = None) -> str:
    return f'<span class="badge {claim_badge_kind(status, value)}">{html.escape(text or fmt.count(value))}</span>'


def _sentences_html(sentences: Sequence[tuple[str, str]]) -> str:
    return "".join(f'<li><span class="what">{html.escape(what)}:</span> {_inline(sentence)}</li>'
                   for what, sentence in sentences)


def _glance_html(glance: Glance) -> str:
    overall = _STATUS_WORD.get(glance.overall, glance.overall)
    kind = {"certified": "ok", "failed": "bad"}.get(glance.overall, "warn")
    checker = "ok" if glance.recertified is not None and not glance.rejected else "bad" if glance.rejected else "warn"
    head = "".join(f"<th>{html.escape(c.claim)}</th>" for c in glance.claims)
    body = "".join(f"<tr><th>{label}</th>" + "".join(f"<td>{_badge(status, v)}</td>" for v in values) + "</tr>"
                   for status, label, values in _glance_rows(glance))
    if glance.kernel_checked is not None:
        body += "<tr><th>kernel-checked</th>" + "".join(
            f"<td>{_badge('certified', glance.kernel_checked.get(c.claim, 0))}</td>" for c in glance.claims) + "</tr>"
    kernel = ""
    if glance.kernel:
        kernel_kind = "bad" if "REJECTED" in glance.kernel else "ok" if glance.kernel_checked is not None else "warn"
        kernel = f'; <span class="badge {kernel_kind}">{html.escape(glance.kernel)}</span>'
    saved = ""
    if glance.saved:
        note = SAVED_NOTE[0].upper() + SAVED_NOTE[1:]
        saved = (f'<div class="part saved"><h3>{html.escape(SAVED_HEADING)}</h3><p class="note">{_inline(note)}.</p>'
                 f'<ul>{_sentences_html(glance.saved)}</ul></div>')
    return (f'<section class="glance" aria-labelledby="at-a-glance"><h2 id="at-a-glance">Results at a glance</h2>'
            f'<div class="part verified"><h3>{html.escape(VERIFIED_HEADING)}</h3>'
            f'<p>Overall: <span class="badge {kind}">{html.escape(overall)}</span> (exit status {glance.exit_status}) '
            f"on {fmt.counted(glance.configurations, 'configuration')}, in exact arithmetic; "
            f'<span class="badge {checker}">{html.escape(_recertified_text(glance))}</span>{kernel}</p>'
            f'<div class="scroll"><table><thead><tr><th>claim</th>{head}</tr></thead><tbody>{body}</tbody></table></div>'
            f"<ul>{_sentences_html(glance.verified)}</ul></div>{saved}</section>")


def _cite_html(block: Block) -> str:
    anchor = _slug(CITE_HEADING)
    return (f'<section class="cite" aria-labelledby="{anchor}"><h2 id="{anchor}">{html.escape(CITE_HEADING)}</h2>'
            f"<blockquote>{html.escape(block.text)}</blockquote><details><summary>BibTeX entry</summary>"
            f"<pre><code>{html.escape(block.items[0])}</code></pre></details></section>")


def _figure_html(f: FigureInfo, report_dir: Path) -> str:
    """A figure as wide as the page, its smallest text declared (``data-text-px``), shown at its own size on a click."""
    png = (report_dir / f.png).read_bytes()
    data = base64.b64encode(png).decode("ascii")
    text_px = declared_text_px(png)
    declared = f' data-text-px="{text_px:g}"' if text_px is not None else ""
    size = png_size(png)
    # As wide as the page, never wider than drawn: a figure drawn for the page fills it, a smaller
    # one is shown at its own size (scaling it up would blur it).
    shape = f' width="{size[0]}" height="{size[1]}" style="max-width:min(100%, {size[0]}px)"' if size is not None else ""
    return (f'<figure id="figure-{html.escape(_slug(f.name))}"><img alt="{html.escape(f.title)}"{declared}{shape} '
            f'title="Click to enlarge (click again, or Escape, to close)" '
            f'src="data:image/png;base64,{data}">'
            f"<figcaption><strong>{html.escape(f.title)}.</strong> {_inline(f.caption)}</figcaption></figure>")


# A click on a figure shows it at its own size over the page; a click or Escape closes it.
_ZOOM_SCRIPT = """
document.addEventListener('click', function (event) {
  var open = document.querySelector('figure.zoomed');
  if (open) { open.classList.remove('zoomed'); return; }
  var image = event.target.closest('figure img');
  if (image) { image.closest('figure').classList.add('zoomed'); }
});
document.addEventListener('keydown', function (event) {
  var open = document.querySelector('figure.zoomed');
  if (open && event.key === 'Escape') { open.classList.remove('zoomed'); }
});
"""


def to_html(blocks: Sequence[Block], *, report_dir: Path) -> str:
    """A single self-contained HTML file: every figure embedded as a base64 PNG."""
    anchors = _anchors(blocks)
    title = next((b.text for b in blocks if b.kind == "h1"), "report")
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{html.escape(title)}</title>", f"<style>{_CSS}</style>", "</head>", "<body>"]
    for index, block in enumerate(blocks):
        if block.kind.startswith("h"):
            level = block.kind[1]
            out.append(f'<h{level} id="{anchors[index]}">{_inline(block.text)}</h{level}>')
        elif block.kind == "glance" and block.glance is not None:
            out.append(_glance_html(block.glance))
        elif block.kind == "cite":
            out.append(_cite_html(block))
        elif block.kind == "contents":
            out.append('<nav class="contents" aria-labelledby="contents"><h2 id="contents">Contents</h2><ol>'
                       + "".join(f'<li><a href="#{anchor}">{_inline(text)}</a></li>'
                                 for anchor, text in _contents(blocks, anchors))
                       + "</ol></nav>")
        elif block.kind == "p":
            out.append(f"<p>{_inline(block.text)}</p>")
        elif block.kind == "list":
            out.append("<ul>" + "".join(f"<li>{_inline(item)}</li>" for item in block.items) + "</ul>")
        elif block.kind == "code":
            out.append(f"<pre><code>{html.escape(block.text)}</code></pre>")
        elif block.kind == "table":
            head = "".join(f"<th>{_inline(h)}</th>" for h in block.headers)
            body = "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>" for row in block.rows)
            table = f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
            out.append(_folded(table, block, markdown=False))
        elif block.kind == "figure" and block.figure is not None:
            out.append(_figure_html(block.figure, report_dir))
        elif block.kind == "gallery":
            out.append(_folded('<div class="gallery-grid">' + "".join(_figure_html(f, report_dir) for f in block.figures)
                               + "</div>", block, markdown=False))
    out += [f"<script>{_ZOOM_SCRIPT}</script>", "</body>", "</html>"]
    return "\n".join(out) + "\n"
