"""What a referee cites agrees with itself: one version, one title, one set of authors, one license.

The version is written once (verify/core/versions.py). pyproject.toml reads it, CITATION.cff
and CHANGELOG.md state it, the README's BibTeX entry is generated from it
(scripts/readme_numbers.py), and the report's citable paragraph uses the same title and
authors (verify.app.report.citation). The license text is MIT, as pyproject.toml says.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import verify
from verify.app.report.citation import AUTHORS, TITLE, release_bibtex
from verify.core.versions import VERSION

REPO = Path(__file__).resolve().parents[2]


def _cff() -> str:
    return (REPO / "CITATION.cff").read_text(encoding="utf-8")


def _field(text: str, name: str) -> str:
    found = re.search(rf"^{name}: (.+)$", text, re.M)
    assert found, f"CITATION.cff has no {name}"
    return found.group(1).strip().strip('"')


def _folded(text: str, name: str) -> str:
    """A ``name: >-`` block of CITATION.cff, joined into one line."""
    found = re.search(rf"^{name}: >-\n((?:  .+\n)+)", text, re.M)
    assert found, f"CITATION.cff has no folded {name}"
    return " ".join(line.strip() for line in found.group(1).splitlines())


def test_the_version_is_written_once_and_stated_everywhere() -> None:
    assert verify.__version__ == VERSION
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "verify.core.versions.VERSION"}
    assert _field(_cff(), "version") == VERSION
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.search(r"^## (\S+) \((\d{4}-\d{2}-\d{2})\)$", changelog, re.M)
    assert newest and newest.group(1) == VERSION, "CHANGELOG.md's newest entry is not the version"
    assert newest.group(2) == _field(_cff(), "date-released")


def test_title_authors_and_license_agree() -> None:
    text = _cff()
    assert _folded(text, "title") == TITLE
    assert re.search(rf"^authors:\n  - name: {re.escape(AUTHORS)}$", text, re.M)
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["authors"] == [{"name": AUTHORS}]
    assert project["license"] == {"text": "MIT"} and _field(text, "license") == "MIT"
    license_text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License\n") and f"Copyright (c) 2026 {AUTHORS}" in license_text
    assert "THE SOFTWARE IS PROVIDED \"AS IS\"" in license_text


def test_the_readme_quotes_the_release_entry() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    year = _field(_cff(), "date-released")[:4]
    assert release_bibtex(VERSION, year) in readme
    assert "{The hardmax-verify developers}" in release_bibtex(VERSION, year)


def test_the_cited_paper_is_the_specifications() -> None:
    text = _cff()
    theory = (REPO / "docs" / "theory.md").read_text(encoding="utf-8")
    assert "arXiv:2407.01602" in text and "arXiv:2407.01602" in theory
    assert "Clustering in pure-attention hardmax transformers and its role in sentiment analysis" in text
