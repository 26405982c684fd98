"""Every number of report.md is written by the one rule of verify.core.formatting, whoever wrote the table.

The report renders tables its experiments provide (sentiment, classification, conjectures,
leader control); a provider that writes ``str(15000)`` puts "15000" beside the campaign's
"1,332". Here the shared small report is rendered again with every section of the project's
saved results (runs/) and scanned: no integer of five digits or more without its thousands
separators, no exponent written with padding ("8.83e-06") or with a zero ("1.00e+0"), outside
code, file names and hashes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from verify.app.report.build import collect_optional_sections, provider_sections
from verify.app.report.glance import experiment_sentences
from verify.app.report.render import build_document, to_markdown

REPO = Path(__file__).resolve().parents[2]
LONG_INTEGER = re.compile(r"(?<![\w.,/#:+-])\d{5,}(?![\w./,:-])")
PADDED_EXPONENT = re.compile(r"\d(?:\.\d+)?e[-+](?:0\d*)\b")


def _prose(markdown: str) -> str:
    """The text a reader reads as numbers: without code, inline code, links' targets and hashes."""
    text = re.sub(r"```.*?```", "", markdown, flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"<[^>]+>", "", text)
    return re.sub(r"\b[0-9a-f]{12,64}\b", "", text)


def problems(markdown: str) -> list[str]:
    text = _prose(markdown)
    found = [f"ungrouped integer: …{text[max(0, m.start() - 50):m.end() + 10]}…" for m in LONG_INTEGER.finditer(text)]
    found += [f"padded exponent: …{text[max(0, m.start() - 50):m.end() + 10]}…" for m in PADDED_EXPONENT.finditer(text)]
    return found


def test_the_scan_sees_the_wrong_formats() -> None:
    assert len(problems("| 15000 | 1,332 |\nbound 8.83e-06, norm 1.00e+0\n")) == 3
    assert problems("`runs/x-15000.json` sha256 1a2b3c4d5e6f7a8b9c0d, seed 0, 2.74e-11, 1,332 and 45,000") == []


def test_the_report_with_every_saved_section_writes_numbers_one_way(small_report: Path) -> None:
    results = json.loads((small_report / "results.json").read_text(encoding="utf-8"))
    optional, _ = collect_optional_sections(REPO / "runs", "runs")
    results["optional_sections"] = optional
    markdown = to_markdown(build_document(results, [], provider_sections(optional)))
    assert "Sentiment" in markdown and "Leader control" in markdown  # the sections are there
    assert problems(markdown) == []


def test_no_first_screen_line_repeats_its_title() -> None:
    """'Leader control: Leader control at layer 0 ...' says its subject twice."""
    optional, _ = collect_optional_sections(REPO / "runs", "runs")
    summaries = {key: section.summary for key, section in provider_sections(optional).items()}
    lines = experiment_sentences(optional, summaries)
    assert len(lines) >= 5
    assert [f"{what}: {sentence[:40]}" for what, sentence in lines if sentence.lower().startswith(what.lower())] == []
