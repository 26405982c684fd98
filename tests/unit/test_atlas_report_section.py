"""The atlas section of the report (verify/experiments/conjectures/atlas_section.py, docs/theory.md §6), from a
small sweep made here: one subsection per question opening with its answer, certified and measured said apart,
the figures copied; the independent checker agrees with its fields and first-screen numbers and refuses an
edited one; a malformed sweep is named with its field and the report still renders."""

from __future__ import annotations

import json
import shutil
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from verify.app.cli import main
from verify.app.report.build import collect_optional_sections
from verify.app.report.render import _section_blocks
from verify.certcheck.kernel import jsonvalues as checker_json
from verify.certcheck.results import glance as checker_glance
from verify.certcheck.results import sections as checker_sections
from verify.experiments.conjectures import atlas_section as atlas
from verify.experiments.registry import SECTION_PROVIDERS

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """RUNS/atlas/ as scripts/atlas.sh lays it out, from two tiny sweeps (emerging_leader has late leaders)."""
    root = tmp_path_factory.mktemp("atlas")
    for measurement in ("last_leader_layer", "constancy_layer"):
        work = root / "work" / measurement
        assert main(["sweep", measurement, "--out", str(work), "--families", "emerging_leader", "--n", "4",
                     "--alpha", "1/16,1", "--samples", "3", "--seed", "0"]) == 0
        final = root / "runs" / "atlas" / measurement
        final.mkdir(parents=True)
        for name in ("sweep.json", "sweep.md"):
            shutil.copy(work / name, final / name)
        for png in (work / "figures").glob("*.png"):
            shutil.copy(png, final / png.name)
    return root / "runs"


def _block(runs: Path) -> tuple[dict, list]:
    optional, inputs = collect_optional_sections(runs, "RUNS")
    return json.loads(json.dumps(optional["atlas"])), inputs


def test_one_subsection_per_question_each_opening_with_its_answer(runs: Path) -> None:
    block, _ = _block(runs)
    section = SECTION_PROVIDERS["atlas"].section(block)
    assert [t.heading for t in section.tables] == list(atlas.QUESTIONS.values())
    emergence, constancy = section.tables
    record = json.loads((runs / "atlas" / "last_leader_layer" / "sweep.json").read_text())
    latest = max(c["result"]["extreme"]["certified_value"] for c in record["cells"])
    assert latest > 0  # the family's leader emerges late
    assert emergence.intro.startswith(f"Leaders can emerge late, the latest at layer {latest} in this grid")
    assert "**Certified**: 2 of 2 extremes" in emergence.note and "**Measured**: the medians" in emergence.note
    assert constancy.headers[-2:] == ["fitted c (c / alpha)", "unsettled"]
    assert "c / alpha" in constancy.intro and "**Measured**: the medians and the fit" in constancy.note
    # Rendered: the answer is the paragraph right after the question's heading.
    blocks = _section_blocks(section)
    heading = next(i for i, b in enumerate(blocks) if b.kind == "h3"
                   and b.text == atlas.QUESTIONS["last_leader_layer"])
    assert (blocks[heading + 1].kind, blocks[heading + 1].text) == ("p", emergence.intro)
    files = {Path(f.file).name for f in section.figures}
    assert files == {f"{m}-{kind}-emerging_leader.png" for m in atlas.QUESTIONS for kind in ("heatmap", "curves")}
    assert [f.title.split(":")[0] for f in section.figures] == ["Emergence"] * 2 + ["Eventual constancy"] * 2
    assert section.summary.startswith("4 of 4 cell extremes certified over 2 measurement sweeps")


def test_fitted_c_is_the_least_squares_c_over_alpha() -> None:
    assert atlas.fitted_c([(Fraction(1, 4), 4), (Fraction(1), 1)]) == pytest.approx(1.0)
    # values 8 and 0 at alpha 1/4 and 1: c = (8 * 4 + 0) / (16 + 1)
    assert atlas.fitted_c([(Fraction(1, 4), 8), (Fraction(1), 0)]) == pytest.approx(32 / 17)
    assert atlas.fitted_c([]) is None


def test_the_checker_agrees_with_the_fields_and_the_first_screen_numbers(runs: Path) -> None:
    block, inputs = _block(runs)
    files = {item["path"]: json.loads((runs.parent / item["path"].replace("RUNS", "runs", 1)).read_text(),
                                      parse_float=checker_json.DecimalText) for item in block["files"]}
    assert checker_json.same_json(block["glance"], checker_glance.glance_numbers("atlas", files, len(files)))
    assert block["glance"] == {"sweeps": 2, "cells": 4, "certified": 4}
    assert checker_sections._section_problems("atlas", block, str(runs), "RUNS", inputs, [1 << 30]) == []

    # A certified value edited in the report's copy (not in the file) is refused.
    item = block["files"][0]
    item["sweep"]["cells"][0]["result"]["extreme"]["certified_value"] += 5
    problems = checker_sections._section_problems("atlas", block, str(runs), "RUNS", inputs, [1 << 30])
    assert any("its sweep fields are not the file's" in p for p in problems), problems


def test_a_malformed_sweep_is_named_with_its_field_and_the_section_still_renders(runs: Path, tmp_path: Path) -> None:
    copy = tmp_path / "runs"
    shutil.copytree(runs, copy)
    path = copy / "atlas" / "constancy_layer" / "sweep.json"
    record = json.loads(path.read_text())
    record["cells"][1]["result"]["max"] = "many"
    path.write_text(json.dumps(record))
    block, _ = _block(copy)
    unreadable = [item["summary"]["unreadable"] for item in block["files"] if "unreadable" in item["summary"]]
    assert unreadable == ["sweep.json.cells[1].result.max: expected int or NoneType, got str".replace(
        "sweep.json", "constancy_layer/sweep.json")]
    section = SECTION_PROVIDERS["atlas"].section(block)
    assert [t.heading for t in section.tables] == [atlas.QUESTIONS["last_leader_layer"]]
    assert "could not be read" in section.summary


def test_the_committed_atlas_is_of_the_documented_grid() -> None:
    grid = tomllib.loads((REPO / "scripts" / "atlas.toml").read_text())
    for measurement in atlas.QUESTIONS:
        record = json.loads((REPO / "runs" / "atlas" / measurement / "sweep.json").read_text())
        assert record["measurement"] == measurement
        shown = record["grid"]
        assert {k: shown[k] for k in grid} == grid
        assert sorted(p.name for p in (REPO / "runs" / "atlas" / measurement).glob("*.png")) == sorted(
            f"{kind}-{family}.png" for kind in ("curves", "heatmap") for family in grid["families"])
