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


def test_the_power_table_measures_the_whole_catalogue_and_finds_every_statement_false():
    # runs/conjectures/power/power.json is written by bench/conjecture_power.py; the docs' table and the
    # report's are generated from it (scripts/readme_numbers.py --check compares the docs' table).
    import json

    from verify.experiments.conjectures.builtin import BUILTIN_CONJECTURES
    from verify.experiments.conjectures.catalogue import CATALOGUE
    from verify.experiments.conjectures.heldout import HELD_OUT
    from verify.experiments.conjectures.report_section import POWER_FILE, read_power

    power = read_power(json.loads((ROOT / "runs" / "conjectures" / POWER_FILE).read_text(encoding="utf-8")))
    names = {s["name"] for s in power["statements"]}
    # A statement added to the catalogue or the held-out set needs the benchmark run again.
    assert set(CATALOGUE) | set(HELD_OUT) <= names
    assert names <= set(CATALOGUE) | set(HELD_OUT) | {n for n, c in BUILTIN_CONJECTURES.items() if c.expected == "refuted"}
    assert {s["group"] for s in power["statements"] if s["name"] in HELD_OUT} == {"held-out"}
    assert power["seeds"] >= 5 and power["budget_seconds"] == 60
    # Under the default budget every statement the families were built alongside was refuted, on every seed.
    missed = [s["name"] for s in power["statements"] if s["refuted"] < s["seeds"]]
    assert set(missed) <= set(HELD_OUT), missed
    # A held-out statement the search misses stays in the table, and its blind spot is listed in the docs.
    page = (ROOT / "docs" / "conjectures.md").read_text(encoding="utf-8")
    remaining = page.split("Known to remain")[1].split("\n## ")[0]
    assert all(f"`{name}`" in remaining for name in missed), missed
    # The guess of the docs' reader, false by the square: refuted within a few hundred examples.
    square = next(s for s in power["statements"] if s["name"] == "at_most_d_plus_one_leaders")
    assert square["examples"]["max"] <= 300 and square["counterexample_n"]["min"] == 4
    text = (ROOT / "docs" / "conjectures.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in text for name in names)


def test_every_built_in_conjecture_has_a_saved_run_and_no_other():
    """The report and the README count the saved runs of runs/conjectures/ as the lab's results: one per conjecture."""
    from verify.experiments.conjectures.builtin import BUILTIN_CONJECTURES

    saved = {path.stem for path in (ROOT / "runs" / "conjectures").glob("*.json")}
    assert saved == set(BUILTIN_CONJECTURES), (
        f"no saved run: {sorted(set(BUILTIN_CONJECTURES) - saved)}; no such conjecture: {sorted(saved - set(BUILTIN_CONJECTURES))} "
        "(hardmax-verify conjecture run NAME --examples 1000 --seed 0 --results-dir runs/conjectures)")
