"""Every example imports only from the public module ``verify`` (docs/api.md), whose names do not move.

The examples are the files of ``examples/`` and the Python blocks of the README and docs/. A
block that shows the implementation on purpose (a claim's own module, the campaign behind
``report``) says so in its text and carries the marker ``<!-- internal api -->`` on the line
before it; every other ``from verify.X import`` or ``import verify.X`` is an example that would
break when the implementation moves. ``verify.certcheck`` is public too: the independent
checker, which imports nothing of the rest on purpose (docs/certcheck.md).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PUBLIC_MODULES = {"verify", "verify.certcheck"}
MARKER = "<!-- internal api -->"
BLOCK = re.compile(r"(?P<before>[^\n]*)\n```python\n(?P<code>.*?)```", re.S)
# Generated text (docs/api.md's signatures) is not an example: blanked, line numbers kept.
GENERATED = re.compile(r"<!-- generated: [^ ]* -->.*?<!-- end -->", re.S)


def _pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def python_blocks() -> list[tuple[str, str, bool]]:
    """(where, code, marked internal) of every ```python block of the README and docs/."""
    found = []
    for page in _pages():
        text = GENERATED.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), page.read_text(encoding="utf-8"))
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start("code")) + 1
            found.append((f"{page.relative_to(REPO)}:{line}", match["code"], match["before"].strip() == MARKER))
    return found


def non_public_imports(code: str) -> list[str]:
    """The project modules ``code`` imports other than the public ones (the code may be a fragment)."""
    tree = ast.parse(code)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names
                      if alias.name.split(".")[0] == "verify" and alias.name not in PUBLIC_MODULES]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "verify":
            if node.module not in PUBLIC_MODULES:
                found.append(node.module or "")
    return found


def test_the_scan_finds_the_examples() -> None:
    wheres = [where for where, _, _ in python_blocks()]
    assert any(w.startswith("README.md") for w in wheres) and any(w.startswith("docs/conjectures.md") for w in wheres)
    assert non_public_imports("from verify.core.config import Configuration\nimport verify.claims\n") == [
        "verify.core.config", "verify.claims"]
    assert non_public_imports("from verify import simulate\nfrom verify import certcheck\n") == []


@pytest.mark.parametrize("path", sorted(p.relative_to(REPO).as_posix() for p in (REPO / "examples").glob("*.py")))
def test_an_example_file_imports_only_the_public_module(path: str) -> None:
    assert non_public_imports((REPO / path).read_text(encoding="utf-8")) == []


def test_every_python_block_of_the_docs_imports_only_the_public_module() -> None:
    wrong = [f"{where}: {', '.join(modules)}" for where, code, internal in python_blocks()
             if not internal and (modules := non_public_imports(code))]
    assert wrong == [], "examples importing the implementation (import from verify, or mark the block " \
                        f"'{MARKER}' and say why): {wrong}"


def test_a_block_marked_internal_shows_the_implementation() -> None:
    """The marker is for blocks that need it, never a blanket exemption."""
    marked = [(where, code) for where, code, internal in python_blocks() if internal]
    assert marked, "no block is marked internal: remove the marker's support or use it"
    assert [where for where, code in marked if not non_public_imports(code)] == []
