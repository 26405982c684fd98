"""Point every citation of the specification at the project's own copy, ``docs/theory.md``.

    python scripts/rewrite_citations.py          # rewrite in place, print the files changed
    python scripts/rewrite_citations.py --check  # change nothing; exit 1 if anything is left

Rewrites, in every tracked text file except the specification itself:

* links to the specification outside the repository (``../shared/THEORY.md``,
  ``/work/shared/THEORY.md``) become a link relative to the file (``docs/theory.md`` from the
  top level, ``theory.md`` inside ``docs/``, ``../docs/theory.md`` one folder down);
* a bare citation ``THEORY.md`` (as in "THEORY.md §3 D7") becomes ``docs/theory.md``.

Idempotent: a second run changes nothing (the new name has no upper-case ``THEORY.md``).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SPECIFICATION = Path("docs") / "theory.md"
OUTSIDE_LINK = re.compile(r"(?:\.\./|/work/)shared/THEORY\.md")
BARE_CITATION = re.compile(r"(?<![\w/.-])THEORY\.md")
# Binary or generated files that are never edited by hand.
SKIPPED_SUFFIXES = {".safetensors", ".png", ".svg", ".gz", ".npz", ".pt", ".html"}
# Files that name the old spelling on purpose: this script and the test that reads both spellings;
# and the preregistered protocols, never edited once their runs start (each run records the sha256).
SKIPPED_FILES = {Path("scripts/rewrite_citations.py"), Path("tests/meta/test_specification.py")}
PREREGISTERED = Path("protocols")


def tracked_files(repo: Path) -> list[Path]:
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=repo, capture_output=True, check=True).stdout
    return [Path(name) for name in listing.decode("utf-8").split("\0") if name]


def rewrite(text: str, relative: Path) -> str:
    """``text`` of the file at ``relative`` (to the repository) with every citation rewritten."""
    link = Path(os.path.relpath(SPECIFICATION, relative.parent)).as_posix()
    text = OUTSIDE_LINK.sub(link, text)
    return BARE_CITATION.sub(SPECIFICATION.as_posix(), text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    args = parser.parse_args(argv)
    changed = []
    for relative in tracked_files(REPO):
        if (relative == SPECIFICATION or relative in SKIPPED_FILES or relative.suffix in SKIPPED_SUFFIXES
                or relative.parent == PREREGISTERED):
            continue
        path = REPO / relative
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite(text, relative)
        if new != text:
            changed.append(relative)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    for relative in changed:
        print(relative.as_posix())
    if args.check and changed:
        print(f"{len(changed)} files cite the specification outside docs/theory.md", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
