"""Results at a glance: what the report opens with.

Per claim the certified / failed / inconclusive counts, how many certificates the independent
checker re-verified, and one sentence per experiment stating its conclusion with its numbers.
Everything is computed from ``results.json``; nothing here decides a verdict.

An experiment section states its own conclusion when it provides one (a ``summary`` sentence,
as the sentiment protocol's summary does); otherwise the sentence is built from the saved
numbers the section holds, and an absent section says that it is absent and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from verify.experiments.sentiment.report_section import chosen_on_validation
from verify.core import formatting as fmt
from verify.experiments.sentiment import AUTHORS_SOFTMAX_TEST_ACCURACY  # torch-free constants

__all__ = ["ClaimCounts", "Glance", "at_a_glance", "SECTION_TITLES"]

SECTION_TITLES = {"sentiment": "Sentiment, earlier tuned study", "reproduction": "Sentiment reproduction",
                  "conjectures": "Conjecture lab", "classify": "Exact classification"}


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
    for key, section in (results.get("optional_sections") or {}).items():
        glance.sentences.append((SECTION_TITLES.get(key, key.replace("_", " ").capitalize()),
                                 _section_sentence(key, section, (section_summaries or {}).get(key, ""))))
    return glance


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
    if isinstance(section.get("summary"), str) and section["summary"].strip():
        return section["summary"].strip()     # the experiment's own conclusion
    if not section.get("files"):
        return f"absent from this report: {section.get('skipped') or 'no saved results'}."
    if provided.strip():
        return provided.strip()
    if key == "sentiment":
        return _sentiment_sentence(section)
    if key == "conjectures":
        return _conjecture_sentence(section)
    return f"{fmt.count(len(section['files']))} saved result file(s), shown below."


def _sentiment_sentence(section: Mapping[str, Any]) -> str:
    evaluations = [item["evaluation"] for item in section["files"] if item.get("evaluation")]
    ablations = {row.get("model"): row.get("without_attention") or {}
                 for item in section["files"] for row in item.get("analysis_rows") or []}
    parts: list[str] = []
    higher: list[str] = []
    lower: list[str] = []
    scored = [e for e in evaluations if isinstance(e.get("d"), int) and isinstance(e.get("hardmax_accuracy"), (int, float))]
    chosen = sorted(chosen_on_validation(scored), key=lambda e: (e["d"], str(e.get("protocol"))))
    for best in chosen:
        d = best["d"]
        authors = AUTHORS_SOFTMAX_TEST_ACCURACY.get(d)
        # Several protocols at one d: each has its own chosen run (the selection is per d and protocol).
        several = sum(e["d"] == d for e in chosen) > 1
        label = f"d = {d} ({best.get('protocol')} protocol)" if several else f"d = {d}"
        text = f"{label}: {fmt.probability(best['hardmax_accuracy'])}"
        if authors is not None:
            text += f" (authors' softmax {fmt.probability(authors)})"
        ablation = ablations.get(best.get("checkpoint")) or {}
        without, with_k = ablation.get("accuracy_without_attention"), ablation.get("accuracy_at_K")
        if isinstance(without, (int, float)) and isinstance(with_k, (int, float)):
            text += f", {fmt.probability(without)} without attention"
            (higher if without > with_k else lower).append(str(d))
        parts.append(text)
    if not parts:
        return f"{fmt.count(len(section['files']))} saved file(s), none with an accuracy; see the section below."
    text = ("Certified hardmax test accuracy of the run chosen on validation, per embedding dimension, and of the "
            "same weights without the attention layers (K = 0): " + "; ".join(parts) + ".")
    if higher or lower:
        text += (f" Without attention the same weights score higher at d = {', '.join(higher) or 'none'}"
                 f" and lower or equal at d = {', '.join(lower) or 'none'}.")
    return text + (" Exploratory: single runs, one seed each, of settings tried while their test numbers were "
                   "visible; the preregistered reproduction above is the result to cite.")


def _conjecture_sentence(section: Mapping[str, Any]) -> str:
    summaries = [item.get("summary") or {} for item in section["files"]]
    outcomes: dict[str, int] = {}
    for s in summaries:
        outcome = str(s.get("outcome", "unreadable"))
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    text = (f"{fmt.count(len(summaries))} saved conjecture runs: "
            + ", ".join(f"{fmt.count(n)} {outcome}" for outcome, n in sorted(outcomes.items())))
    surprises = [s.get("conjecture", "?") for s in summaries if _is_surprise(s)]
    if any("expected" in s for s in summaries):
        text += ("; every outcome as expected" if not surprises
                 else f"; {fmt.count(len(surprises))} not as expected: {', '.join(map(str, surprises))}")
    return text + ". A conjecture's counterexample is a finding, not a failure of the suite."


def _is_surprise(summary: Mapping[str, Any]) -> bool:
    """An outcome against the conjecture's stated expectation ("true" refuted, "false" held); "open" never surprises."""
    expected, outcome = summary.get("expected"), summary.get("outcome")
    return (expected == "true" and outcome == "counterexample") or (expected == "false" and outcome == "held")


def claim_badge_kind(status: str, value: int) -> str:
    """The badge colour class for a count: zero is neutral whatever the status."""
    if not value:
        return "zero"
    return {"certified": "ok", "failed": "bad", "inconclusive": "warn"}.get(status, "zero")

