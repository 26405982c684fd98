"""Results at a glance: what the report opens with.

Two parts, kept apart on the first screen: what **this run verified** (per claim the certified /
failed / inconclusive counts, how many certificates the independent checker re-verified, the
campaign's sentence), and the **saved results it did not recompute** (one sentence per
experiment stating its conclusion with its numbers, read from the files under runs/; they never
change the run's verdict). Everything is computed from ``results.json``; nothing here decides a
verdict.

An experiment section states its own conclusion when its provider gives one (the summary
sentence the provider reads from its saved files, as the sentiment protocol's summary does);
otherwise its provider (:mod:`verify.experiments.registry`) builds the sentence from the
section's ``glance`` numbers, which the independent checker recomputes from the saved files, or
the files are counted, and an absent section says that it is absent and why. A section block
carries no sentence of its own: no text of results.json that certcheck does not check is printed
here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from verify.core import formatting as fmt
from verify.experiments.registry import SECTION_PROVIDERS
from .kernel import kernel_sentence

__all__ = ["ClaimCounts", "Glance", "at_a_glance", "experiment_sentences", "section_glance", "WRITTEN_BY"]

# A skipped section's reason: the cause, then this, then the command that writes its results.
WRITTEN_BY = "; written by "


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
    sentences: list[tuple[str, str]] = field(default_factory=list)   # (what, conclusion): the campaign's first
    kernel: str | None = None                       # what Coq's kernel checked (None: no kernel block)
    kernel_checked: dict[str, int] | None = None    # claim -> configurations kernel-checked

    @property
    def verified(self) -> list[tuple[str, str]]:
        """What this run verified: the campaign's sentence."""
        return self.sentences[:1]

    @property
    def saved(self) -> list[tuple[str, str]]:
        """The saved results' sentences: read from files, not recomputed by this run."""
        return self.sentences[1:]


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
    block = results.get("kernel")
    if block:
        glance.kernel = kernel_sentence(block)
        if block["status"] in ("checked", "rejected"):
            glance.kernel_checked = {claim: row["kernel-checked"] for claim, row in block["claims"].items()}
        if block["status"] == "rejected":  # a certificate the suite issued is false: the report fails
            glance.overall, glance.exit_status = "failed", 1
    glance.sentences.append(("Verification campaign", _campaign_sentence(results, glance)))
    glance.sentences += experiment_sentences(results.get("optional_sections") or {}, section_summaries)
    return glance


def experiment_sentences(optional_sections: Mapping[str, Any],
                         section_summaries: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """The (what, conclusion) line of each saved-results section, in the order of ``optional_sections``.

    They depend on the saved results only, not on the campaign (scripts/readme_numbers.py
    recomputes them without running one). The title and the sentence are the section provider's
    (verify.experiments.registry); a section without one gets its key and a count of its files.
    """
    lines = []
    for key, section in optional_sections.items():
        provider = SECTION_PROVIDERS.get(key)
        title = provider.glance_title if provider is not None else key.replace("_", " ").capitalize()
        lines.append((title, _section_sentence(key, section, (section_summaries or {}).get(key, ""))))
    return lines


def _campaign_sentence(results: Mapping[str, Any], glance: Glance) -> str:
    records = results["examples"]
    worked = sum(r["task"]["kind"] == "worked" for r in records)
    failed = [c.claim for c in glance.claims if c.failed]
    inconclusive = [c.claim for c in glance.claims if c.inconclusive]
    text = (f"{fmt.counted(len(records), 'configuration')} ({fmt.count(worked)} worked, "
            f"{fmt.count(len(records) - worked)} generated from seed {results['campaign']['seed']}): ")
    if not records:
        return text + "nothing was checked, so nothing is certified."
    if failed:
        text += f"{fmt.noun_for(len(failed), 'claim')} {', '.join(failed)} FAILED on at least one configuration (counterexamples below)"
    else:
        text += "no claim failed on any configuration"
    if inconclusive:
        text += f"; {', '.join(inconclusive)} inconclusive on some"
    elif not failed:
        text += "; every checked claim is certified on every configuration"
    errors = results["summary"].get("errors") or 0
    if errors:
        text += f"; {fmt.counted(errors, 'task')} could not be checked"
    return text + "."


def _section_sentence(key: str, section: Mapping[str, Any] | None, provided: str = "") -> str:
    if not section:
        return "absent from this report."
    if not section.get("files"):
        # The command that writes the results is under "Optional sections skipped": the first screen names the cause.
        reason, command, _ = (section.get("skipped") or "no saved results").partition(WRITTEN_BY)
        return f"absent from this report: {reason}" + (" (the command is under Optional sections skipped)." if command
                                                       else ".")
    if provided.strip():
        return provided.strip()
    provider = SECTION_PROVIDERS.get(key)
    numbers = section.get("glance")
    if not isinstance(numbers, Mapping):
        numbers = section_glance(key, section)
    sentence = provider.glance_sentence(numbers) if provider is not None and numbers is not None else ""
    return sentence or f"{fmt.counted(len(section['files']), 'saved result file')}, shown below."


def section_glance(key: str, section: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The numbers a saved-results section's at-a-glance line prints, from its block of results.json.

    The report stores them beside the section (``optional_sections.KEY.glance``) and prints the
    line from them; the independent checker (verify.certcheck, given the saved files) recomputes
    them from the files with its own code. They are the section provider's (``glance_numbers``);
    None for a section without files or without a provider.
    """
    provider = SECTION_PROVIDERS.get(key)
    if not section.get("files") or provider is None:
        return None
    return provider.glance_numbers(section)


def claim_badge_kind(status: str, value: int) -> str:
    """The badge colour class for a count: zero is neutral whatever the status."""
    if not value:
        return "zero"
    return {"certified": "ok", "failed": "bad", "inconclusive": "warn"}.get(status, "zero")

