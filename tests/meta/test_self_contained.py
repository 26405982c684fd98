"""The repository stands on its own: nothing of the product names a folder outside it.

* No file of the package, the docs, the examples, the properties or the scripts names
  ``../shared`` or ``/work/shared`` (data reaches the product through its options).
* Every citation of the specification names the project's copy, ``docs/theory.md``
  (``scripts/rewrite_citations.py --check`` finds nothing to rewrite).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PRODUCT = ("verify/", "docs/", "examples/", "properties/", "scripts/", "README.md", "reports/README.md",
           "tests/README.md", "pyproject.toml", "constraints.txt")
OUTSIDE = ("../shared", "/work/shared")


def _product_files() -> list[Path]:
    listing = subprocess.run(["git", "ls-files", "-z", "--", *PRODUCT], cwd=REPO, capture_output=True,
                             check=True).stdout
    # A link (verify/examples -> examples/) is read where it points, which is listed itself.
    return [REPO / name for name in listing.decode("utf-8").split("\0") if name and not (REPO / name).is_symlink()]


def test_no_product_file_names_a_folder_outside_the_repository():
    files = _product_files()
    assert any(path.match("verify/app/cli.py") for path in files)
    offenders = []
    for path in files:
        if path.name == "rewrite_citations.py":  # the rewrite names what it replaces
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if any(outside in line for outside in OUTSIDE):
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_every_citation_names_docs_theory_md():
    check = subprocess.run([sys.executable, "scripts/rewrite_citations.py", "--check"], cwd=REPO,
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
