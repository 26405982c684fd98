"""The specification ships with the project (docs/theory.md) and every citation of it resolves.

A citation is "docs/theory.md §N" (a section), "docs/theory.md D7" or "docs/theory.md §3 D7"
(a claim or fact id). Until every citation names docs/theory.md the older spelling
"THEORY.md" is read the same way, so a citation of a section or id that does not exist fails
whichever name it uses.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SPECIFICATION = REPO / "docs" / "theory.md"
CITATION = re.compile(r"(?:docs/theory\.md|THEORY\.md)((?:\s+§\d+)?(?:,?\s+[TD]\d\b)*)")
SKIPPED_SUFFIXES = {".safetensors", ".png", ".svg", ".gz", ".npz", ".pt", ".html"}


def _tracked_text_files() -> list[Path]:
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    files = []
    for name in listing.decode("utf-8").split("\0"):
        path = REPO / name
        if name and path.suffix not in SKIPPED_SUFFIXES and path.is_file() and path != SPECIFICATION:
            files.append(path)
    return files


def _sections(text: str) -> set[str]:
    return set(re.findall(r"^## (\d+)\. ", text, flags=re.MULTILINE))


def _defined_ids(text: str) -> set[str]:
    """T0..T4 from the claim table of §2, D0.. from the bold fact headings of §3."""
    claims = set(re.findall(r"^\| (T\d) \|", text, flags=re.MULTILINE))
    facts = set(re.findall(r"^- \*\*(D\d) ", text, flags=re.MULTILINE))
    return claims | facts


def test_specification_defines_the_claims_and_facts_the_suite_checks():
    text = SPECIFICATION.read_text(encoding="utf-8")
    assert _sections(text) >= {"1", "2", "3", "4", "5", "6", "7"}
    assert _defined_ids(text) >= {f"T{i}" for i in range(5)} | {f"D{i}" for i in range(10)}


def test_readme_first_link_is_the_specification_in_the_repository():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    first_link = re.search(r"\]\(([^)]+)\)", readme)
    assert first_link is not None and first_link.group(1) == "docs/theory.md"
    assert (REPO / first_link.group(1)).is_file()


def test_every_cited_section_and_id_exists():
    text = SPECIFICATION.read_text(encoding="utf-8")
    sections, ids = _sections(text), _defined_ids(text)
    dangling = []
    citations = 0
    for path in _tracked_text_files():
        try:
            content = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for match in CITATION.finditer(content):
            citations += 1
            tail = match.group(1)
            for section in re.findall(r"§(\d+)", tail):
                if section not in sections:
                    dangling.append(f"{path.relative_to(REPO)}: {match.group(0)!r}: no section {section}")
            for claim in re.findall(r"[TD]\d", tail):
                if claim not in ids:
                    dangling.append(f"{path.relative_to(REPO)}: {match.group(0)!r}: no {claim}")
    assert citations > 50, "the citation pattern no longer matches the project's citations"
    assert not dangling, "\n".join(dangling)
