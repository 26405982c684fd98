"""docs/conjectures.md shows the example files verbatim (the files themselves are run by test_conjectures.py)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def documented_blocks() -> dict[str, str]:
    text = (ROOT / "docs" / "conjectures.md").read_text(encoding="utf-8")
    pattern = re.compile(r"<!-- example: (?P<path>\S+) -->\n```python\n(?P<code>.*?)```", re.S)
    return {m["path"]: m["code"] for m in pattern.finditer(text)}


def test_both_examples_are_documented():
    assert set(documented_blocks()) == {"examples/my_conjecture.py", "examples/test_user_example.py"}


@pytest.mark.parametrize("path", ["examples/my_conjecture.py", "examples/test_user_example.py"])
def test_documented_example_is_the_file(path):
    assert documented_blocks()[path] == (ROOT / path).read_text(encoding="utf-8")
