"""The conjecture lab's section of the verification report (the protocol of :mod:`verify.experiments.sections`).

The lab's saved runs (RUNS/conjectures/<name>.json, ``hardmax-verify conjecture --json``) each
state their outcome; the section tabulates them, one line per run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from ..sections import Section, Table

__all__ = ["key", "folder", "patterns", "figures_folder", "produced_by", "item_fields", "figure_files", "section"]

key = "conjectures"
folder = "conjectures"
patterns: tuple[str, ...] = ("*.json",)
figures_folder: str | None = None
produced_by = "`hardmax-verify conjecture run NAME --results-dir RUNS/conjectures` (docs/conjectures.md)"
TITLE = "Conjecture runs (saved results)"


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
