"""Results at a glance: what the report opens with.

Per claim the certified / failed / inconclusive counts, how many certificates the independent
checker re-verified, and one sentence per experiment stating its conclusion with its numbers.
Everything is computed from ``results.json``; nothing here decides a verdict.

An experiment section states its own conclusion when its provider gives one (the summary
sentence the provider reads from its saved files, as the sentiment protocol's summary does);
otherwise the sentence is built from the section's ``glance`` numbers, which the independent
checker recomputes from the saved files. A section block carries no sentence of its own: no
text of results.json that certcheck does not check is printed here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from verify.experiments.conjectures.report_section import glance_numbers as conjecture_glance_numbers
from verify.experiments.conjectures.report_section import runs_sentence as conjecture_runs_sentence
from verify.experiments.sentiment.report_section import chosen_on_validation
from . import formatting as fmt

__all__ = ["ClaimCounts", "Glance", "at_a_glance", "experiment_sentences", "section_glance", "SECTION_TITLES"]

SECTION_TITLES = {"sentiment": "Sentiment, earlier tuned study", "reproduction": "Sentiment reproduction",
                  "conjectures": "Conjecture lab", "classify": "Exact classification",
                  "control": "Leader control"}


@dataclass(frozen=True)
class ClaimCounts:
    claim: str
    certified: int
    failed: int
    inconclusive: int
    unchecked: int


@dataclass
class Glance:
    overall: str
    exit_status: int
    configurations: int
    claims: list[ClaimCounts]
    certificates: int                      # certified verdicts
    recertified: int | None                # re-verified by verify.certcheck (None: checker not available)
    rejected: int                          # certificates the checker rejected
    sentences: list[tuple[str, str]] = field(default_factory=list)   # (what, conclusion)


def at_a_glance(results: Mapping[str, Any], section_summaries: Mapping[str, str] | None = None) -> Glance:
    """The report's opening summary; ``section_summaries``: the summary sentence each saved-results
    section's provider gave (verify.experiments.sections), used for that section's line when not empty."""
    summary = results["summary"]
    claims = [ClaimCounts(claim, row["certified"], row["failed"], row["inconclusive"], row["unchecked"])
              for claim, row in summary["claims"].items()]
    rows = list(summary["claims"].values())
    available = bool(rows) and rows[0].get("recertified") is not None
    glance = Glance(overall=summary["overall"], exit_status=summary["exit_status"],
                    configurations=summary["examples"], claims=claims,
                    certificates=sum(c.certified for c in claims),
                    recertified=sum(row.get("recertified") or 0 for row in rows) if available else None,
                    rejected=sum(row.get("rejected_by_checker", 0) for row in rows))
    glance.sentences.append(("Verification campaign", _campaign_sentence(results, glance)))
    glance.sentences += experiment_sentences(results.get("optional_sections") or {}, section_summaries)
    return glance


def experiment_sentences(optional_sections: Mapping[str, Any],
                         section_summaries: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """The (what, conclusion) line of each saved-results section, in the order of ``optional_sections``.

    They depend on the saved results only, not on the campaign (scripts/readme_numbers.py
    recomputes them without running one).
    """
    return [(SECTION_TITLES.get(key, key.replace("_", " ").capitalize()),
             _section_sentence(key, section, (section_summaries or {}).get(key, "")))
            for key, section in optional_sections.items()]


def _campaign_sentence(results: Mapping[str, Any], glance: Glance) -> str:
    records = results["examples"]
    worked = sum(r["task"]["kind"] == "worked" for r in records)
    failed = [c.claim for c in glance.claims if c.failed]
    inconclusive = [c.claim for c in glance.claims if c.inconclusive]
    text = (f"{fmt.count(len(records))} configurations ({fmt.count(worked)} worked, "
            f"{fmt.count(len(records) - worked)} generated from seed {results['campaign']['seed']}): ")
    if not records:
        return text + "nothing was checked, so nothing is certified."
    if failed:
        text += f"claims {', '.join(failed)} FAILED on at least one configuration (counterexamples below)"
    else:
        text += "no claim failed on any configuration"
    if inconclusive:
        text += f"; {', '.join(inconclusive)} inconclusive on some"
    elif not failed:
        text += "; every checked claim is certified on every configuration"
    errors = results["summary"].get("errors") or 0
    if errors:
        text += f"; {fmt.count(errors)} task(s) could not be checked"
    return text + "."


def _section_sentence(key: str, section: Mapping[str, Any] | None, provided: str = "") -> str:
    if not section:
        return "absent from this report."
    if not section.get("files"):
        return f"absent from this report: {section.get('skipped') or 'no saved results'}."
    if provided.strip():
        return provided.strip()
    numbers = section.get("glance")
    if not isinstance(numbers, Mapping):
        numbers = section_glance(key, section)
    if key == "sentiment" and numbers is not None:
        return _sentiment_sentence(numbers)
    if key == "conjectures" and numbers is not None:
        return _conjecture_sentence(numbers)
    return f"{fmt.count(len(section['files']))} saved result file(s), shown below."


def section_glance(key: str, section: Mapping[str, Any]) -> dict[str, Any] | None:
    """The numbers a saved-results section's at-a-glance line prints, from its block of results.json.

    The report stores them beside the section (``optional_sections.KEY.glance``) and prints the
    line from them; the independent checker (verify.certcheck, given the saved files) recomputes
    them from the files with its own code. None for a section without files or without a rule here.
    """
    if not section.get("files"):
        return None
    if key == "sentiment":
        return _sentiment_numbers(section)
    if key == "conjectures":
        return _conjecture_numbers(section)
    if key == "reproduction":
        item = next((f for f in section["files"] if f.get("reproduction_tables") is not None), None)
        runs = (item or {}).get("runs") or {}
        return {"sentence": (item or {}).get("sentence"), "finished": runs.get("finished"), "planned": runs.get("planned")}
    if key == "classify":
        from verify.experiments.classify.report_section import glance_numbers

        return glance_numbers(section)
    if key == "control":
        from verify.experiments.control.report_section import glance_numbers as control_numbers

        return control_numbers(section)
    return None


def _number(value: Any) -> float | int | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _sentiment_numbers(section: Mapping[str, Any]) -> dict[str, Any]:
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


def _sentiment_sentence(numbers: Mapping[str, Any]) -> str:
    from verify.experiments.sentiment import AUTHORS_SOFTMAX_TEST_ACCURACY  # torch-free constants

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
        return f"{fmt.count(numbers['files'])} saved file(s), none with an accuracy; see the section below."
    text = ("Certified hardmax test accuracy of the run chosen on validation, per embedding dimension, and of the "
            "same weights without the attention layers (K = 0): " + "; ".join(parts) + ".")
    if higher or lower:
        text += (f" Without attention the same weights score higher at d = {', '.join(higher) or 'none'}"
                 f" and lower or equal at d = {', '.join(lower) or 'none'}.")
    return text + (" Exploratory: single runs, one seed each, of settings tried while their test numbers were "
                   "visible; the preregistered reproduction above is the result to cite.")


def _conjecture_numbers(section: Mapping[str, Any]) -> dict[str, Any]:
    """The lab's own numbers for its line (verify.experiments.conjectures.report_section.glance_numbers)."""
    return conjecture_glance_numbers(section)


def _conjecture_sentence(numbers: Mapping[str, Any]) -> str:
    return conjecture_runs_sentence(numbers)


def claim_badge_kind(status: str, value: int) -> str:
    """The badge colour class for a count: zero is neutral whatever the status."""
    if not value:
        return "zero"
    return {"certified": "ok", "failed": "bad", "inconclusive": "warn"}.get(status, "zero")

