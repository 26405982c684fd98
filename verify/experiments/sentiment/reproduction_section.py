"""The preregistered reproduction's section of the verification report (the protocol of :mod:`verify.experiments.sections`).

It shows what ``hardmax-verify sentiment summarize`` wrote (RUNS/sentiment/summary/summary.json
and its figures): the protocol's tables, mean ± sd over seeds, and its conclusion sentence, which
is also the report's at-a-glance sentence for the experiment. Until every run of a compared cell
has finished, that sentence says so instead of concluding. Torch-free.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from ..sections import Figure, Section, Table

__all__ = ["key", "folder", "patterns", "figures_folder", "produced_by", "glance_title", "item_fields", "figure_files",
           "section", "glance_numbers", "glance_sentence"]

key = "reproduction"
folder = "sentiment/summary"
patterns: tuple[str, ...] = ("summary.json",)
figures_folder: str | None = "figures/reproduction"
produced_by = ("`hardmax-verify sentiment protocol collect --runs-dir DIR` then `hardmax-verify sentiment summarize "
               "--out RUNS/sentiment/summary` (docs/sentiment.md)")
TITLE = "Sentiment: the preregistered reproduction"
glance_title = "Sentiment reproduction"
TRAINING_LENGTH_HEADING = "How each run's training ended"

_FIGURE_TEXT = {
    "reproduction": ("Certified hardmax test accuracy by d",
                     "Dots: one seed each; lines: the mean over the finished seeds, of the certified hardmax test "
                     "accuracy at K = 8 and of the trained K = 0 baseline; crosses: the authors' softmax figures "
                     "(best test epoch). The numbers at the foot count finished seeds of those planned; the "
                     "axis range is in its label."),
    "depth-d2": ("Accuracy against depth K at d = 2", "Dots: one seed each; diamonds: their mean. Depths with no "
                 "finished run have no point, and no line joins the depths."),
    "depth-d16": ("Accuracy against depth K at d = 16", "Dots: one seed each; diamonds: their mean. Depths with "
                  "no finished run have no point, and no line joins the depths."),
    "alpha-d2": ("Accuracy against a fixed alpha at d = 2, K = 8", "Dots: one seed each; diamonds: their mean."),
}


def item_fields(path: Path, data: Any) -> dict[str, Any]:
    """The summary's sentence, run counts and display tables (kept in results.json)."""
    if not isinstance(data, Mapping):
        return {}
    tables = []
    for table in data.get("tables") or []:
        if (isinstance(table, Mapping) and isinstance(table.get("columns"), list)
                and isinstance(table.get("rows"), list)):
            tables.append({"title": str(table.get("title", "")), "columns": [str(c) for c in table["columns"]],
                           "rows": [[str(v) for v in row] for row in table["rows"] if isinstance(row, list)]})
    fields: dict[str, Any] = {"reproduction_tables": tables}
    if isinstance(data.get("summary"), str):
        fields["sentence"] = data["summary"]
    runs = data.get("runs")
    if isinstance(runs, Mapping):
        fields["runs"] = {"finished": runs.get("finished"), "planned": runs.get("planned")}
    notes = data.get("notes")
    if isinstance(notes, list):
        fields["notes"] = [str(note) for note in notes]
    protocol = data.get("protocol")
    if isinstance(protocol, Mapping):
        fields["protocol"] = {"file": protocol.get("file"), "sha256": protocol.get("sha256")}
    return fields


def figure_files(paths: Sequence[Path]) -> list[Path]:
    """The summary's figures, beside summary.json."""
    return [png for summary in paths for png in sorted(summary.parent.glob("*.png")) if png.is_file()]


def section(block: Mapping[str, Any]) -> Section:
    item = next((f for f in block["files"] if f.get("reproduction_tables") is not None), None)
    if item is None:
        return Section(TITLE)  # not a summary written by `sentiment summarize`: the generic list of files
    protocol = item.get("protocol") or {}
    runs = item.get("runs") or {}
    note = (f"Protocol `{protocol.get('file')}` (sha256 {str(protocol.get('sha256'))[:16]}…), fixed before the runs; "
            f"{runs.get('finished')} of {runs.get('planned')} runs finished. Test numbers are measured once per "
            "run, after training, on the checkpoint chosen on validation.")
    tables = [Table(heading=t["title"], headers=t["columns"], rows=t["rows"]) for t in item["reproduction_tables"]]
    if tables:
        tables[0] = Table(heading=tables[0].heading, headers=tables[0].headers, rows=tables[0].rows, note=note)
    notes = " ".join(item.get("notes") or [])
    if notes:
        # Said where the reader meets the training lengths (the last table), or under the first.
        at = next((i for i, t in enumerate(tables) if t.heading.startswith(TRAINING_LENGTH_HEADING)), 0)
        joined = f"{tables[at].note} {notes}".strip() if tables[at].note else notes
        tables[at] = Table(heading=tables[at].heading, headers=tables[at].headers, rows=tables[at].rows, note=joined)
    figures = []
    for figure in block.get("figures") or []:
        stem = Path(figure["path"]).stem
        title, caption = _FIGURE_TEXT.get(stem, (stem, "A figure of the reproduction's summary."))
        figures.append(Figure(f"reproduction-{stem}", figure["file"], title, f"{caption} Source: `{figure['path']}`."))
    return Section(TITLE, summary=item.get("sentence", ""), tables=tables, figures=figures, list_files=False)


def glance_numbers(block: Mapping[str, Any]) -> dict[str, Any]:
    """The numbers of the first screen's line (stored in results.json, recomputed by the checker): the
    summary's conclusion sentence and how many of the protocol's runs are finished."""
    item = next((f for f in block["files"] if f.get("reproduction_tables") is not None), None)
    runs = (item or {}).get("runs") or {}
    return {"sentence": (item or {}).get("sentence"), "finished": runs.get("finished"), "planned": runs.get("planned")}


def glance_sentence(numbers: Mapping[str, Any]) -> str:
    """Nothing beyond the section's own summary: the results at a glance count the files."""
    return ""
