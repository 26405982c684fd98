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


def test_every_built_in_conjecture_has_a_saved_run_and_no_other():
    """The report and the README count the saved runs of runs/conjectures/ as the lab's results: one per conjecture."""
    from verify.experiments.conjectures.builtin import BUILTIN_CONJECTURES

    saved = {path.stem for path in (ROOT / "runs" / "conjectures").glob("*.json")}
    assert saved == set(BUILTIN_CONJECTURES), (
        f"no saved run: {sorted(set(BUILTIN_CONJECTURES) - saved)}; no such conjecture: {sorted(saved - set(BUILTIN_CONJECTURES))} "
        "(hardmax-verify conjecture run NAME --profile dev --seed 0 --results-dir runs/conjectures)")
