"""The product speaks to its users: no issue numbers or development history in it.

User docs, code, examples, properties, scripts and benchmarks say what the suite does, how to
run it and how to read it; how it came to be belongs in commit messages. The patterns are
those of a lab notebook: "issue 5", "issue #5", "this stop", "stop 3", "previous session",
"round 2".
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PRODUCT = ("README.md", "reports/README.md", "tests/README.md", "docs/", "verify/", "examples/", "properties/",
           "scripts/", "bench/", "pyproject.toml", "CHANGELOG.md", "CITATION.cff")
# The specification is quoted from outside the project, as it is.
EXEMPT = {"docs/theory.md"}
HISTORY = re.compile(r"\bissues? ?#?\d+|\bthis stop\b|\bstops? \d+\b|\b(?:previous|last|this|next|earlier) session\b"
                     r"|\bround \d+\b", re.IGNORECASE)


def _product_files() -> list[Path]:
    listing = subprocess.run(["git", "ls-files", "-z", "--", *PRODUCT], cwd=REPO, capture_output=True,
                             check=True).stdout
    # A link (verify/examples -> examples/) is read where it points, which is listed itself.
    return [REPO / name for name in listing.decode("utf-8").split("\0")
            if name and name not in EXEMPT and not (REPO / name).is_symlink()]


def history_lines(text: str) -> list[tuple[int, str]]:
    return [(number, line.strip()) for number, line in enumerate(text.splitlines(), start=1) if HISTORY.search(line)]


@pytest.mark.parametrize("line", ["Workload (issue 2): B = 2000", "see Issue #12", "as measured this stop",
                                  "fixed in stop 4", "The previous session measured 1.62x", "after round 2 of review",
                                  "issues 3 and 5"])
def test_the_patterns_catch_development_history(line):
    assert history_lines(line) == [(1, line)]


@pytest.mark.parametrize("line", ["an issue of the float bound", "the tokens stop moving at layer 5",
                                  "round(x, 3)", "rounding to nearest", "stops the run", "a session cookie"])
def test_the_patterns_leave_ordinary_words_alone(line):
    assert history_lines(line) == []


def test_no_product_file_carries_development_history():
    files = _product_files()
    assert any(path.match("verify/app/cli.py") for path in files) and any(path.match("docs/sentiment.md") for path in files)
    offenders = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue  # binary files (figures, weights)
        offenders += [f"{path.relative_to(REPO)}:{number}: {line}" for number, line in history_lines(text)]
    assert not offenders, "\n".join(offenders)
