"""The conjecture lab's section of the verification report (the protocol of :mod:`verify.experiments.sections`).

The lab's saved runs (RUNS/conjectures/<name>.json, ``hardmax-verify conjecture --json``) each
state their outcome; the section tabulates them, one line per run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from verify.core import formatting as fmt
from ..sections import Section, Table
from .base import EXPECTATIONS

__all__ = ["key", "folder", "patterns", "figures_folder", "produced_by", "glance_title", "item_fields", "figure_files",
           "section", "glance_numbers", "glance_sentence"]

key = "conjectures"
folder = "conjectures"
patterns: tuple[str, ...] = ("*.json",)
figures_folder: str | None = None
produced_by = "`hardmax-verify conjecture run NAME --results-dir RUNS/conjectures` (docs/conjectures.md)"
TITLE = "Conjecture runs (saved results)"
glance_title = "Conjecture lab"


def item_fields(path: Path, data: Any) -> dict[str, Any]:
    return {}  # the scalar summary (conjecture, outcome, examples_run, summary) is all the table needs


def figure_files(paths: Sequence[Path]) -> list[Path]:
    return []


def section(block: Mapping[str, Any]) -> Section:
    files = block["files"]
    if not all("outcome" in item["summary"] for item in files):
        return Section(TITLE)  # not all lab runs: the report's generic list of files
    # The conjecture lab's own summary line per run (held / counterexample / inconclusive).
    table = Table(headers=["conjecture", "outcome", "examples", "summary", "sha256"],
                  rows=[[item["summary"].get("conjecture", item["path"]), item["summary"]["outcome"],
                         item["summary"].get("examples_run", "—"), item["summary"].get("summary", ""),
                         item["sha256"][:12] + "…"] for item in files],
                  note="A conjecture's counterexample is a finding of the conjecture lab, not a failure of this "
                       "report: optional sections never change the exit status.")
    return Section(TITLE, tables=[table], list_files=False)


def glance_numbers(section: Mapping[str, Any]) -> dict[str, Any]:
    """The saved runs, their outcomes counted, and the conjectures whose decided outcome is not the expected one."""
    summaries = [item.get("summary") or {} for item in section["files"]]
    outcomes: dict[str, int] = {}
    for s in summaries:
        outcome = str(s.get("outcome", "unreadable"))
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return {"runs": len(summaries), "outcomes": dict(sorted(outcomes.items())),
            "expectations_stated": any("expected" in s for s in summaries),
            "not_as_expected": [str(s.get("conjecture", "?")) for s in summaries if _is_surprise(s)]}


def glance_sentence(numbers: Mapping[str, Any]) -> str:
    """The results at a glance, from :func:`glance_numbers`: the runs' outcomes and the surprises."""
    surprises = numbers["not_as_expected"]
    text = (f"{fmt.count(numbers['runs'])} saved conjecture runs: "
            + ", ".join(f"{fmt.count(n)} {outcome}" for outcome, n in numbers["outcomes"].items()))
    if numbers["expectations_stated"]:
        text += ("; every outcome as expected" if not surprises
                 else f"; {fmt.count(len(surprises))} not as expected: {', '.join(surprises)}")
    return text + ". A conjecture's counterexample is a finding, not a failure of the suite."


def _is_surprise(summary: Mapping[str, Any]) -> bool:
    """A decided outcome other than the one the conjecture's expectation predicts (the lab's rule,
    verify.experiments.conjectures.base.EXPECTATIONS); an inconclusive outcome never surprises."""
    predicted = EXPECTATIONS.get(str(summary.get("expected")))
    outcome = summary.get("outcome")
    return predicted is not None and outcome in ("held", "counterexample") and outcome != predicted
