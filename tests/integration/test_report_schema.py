"""results.json of ``hardmax-verify report`` follows its versioned schema (issue 4).

The validator is tested both ways: a real report validates, and each kind of damage to it
(missing block, unknown status, counts that do not add up, the environment block not last,
a certificate on a non-certified verdict) is reported.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from verify.claims import registry
from verify.app.report.schema import (ENVIRONMENT_KEY, SCHEMA_NAME, SCHEMA_VERSION, deterministic_part, dumps_results,
                                  validate_results)


@pytest.fixture(scope="module")
def report_dir(small_report: Path) -> Path:
    """The shared small report (tests/common/reports.py: the worked configurations and 3 generated ones)."""
    return small_report


@pytest.fixture()
def results(report_dir: Path) -> dict:
    return json.loads((report_dir / "results.json").read_text(encoding="utf-8"))


def test_report_folder_holds_every_output(report_dir: Path) -> None:
    for name in ("report.md", "report.html", "results.json", "figures/worked_panels.png",
                 "figures/convergence.png", "figures/exact_vs_float.png", "figures/denominator_bits.png",
                 "figures/leaders.png"):
        assert (report_dir / name).is_file(), name
    html = (report_dir / "report.html").read_text(encoding="utf-8")
    # Self-contained: figures embedded, no reference to the PNG files.
    assert html.count("data:image/png;base64,") == 5
    assert 'src="figures/' not in html


def test_results_validate_against_schema(results: dict) -> None:
    assert validate_results(results) == []
    assert results["schema"] == SCHEMA_NAME and results["schema_version"] == SCHEMA_VERSION
    assert list(results)[-1] == ENVIRONMENT_KEY
    # 4 worked + 3 generated, every claim counted once per example.
    assert results["summary"]["examples"] == len(results["examples"]) == 7
    assert set(results["summary"]["claims"]) == set(registry.verdict_ids())
    for row in results["summary"]["claims"].values():
        assert row["certified"] == 7
    # Certified verdicts carry their certificates (issue 8, part 3).
    for record in results["examples"]:
        for verdict in record["verdicts"].values():
            assert (verdict.get("certificate") is not None) == (verdict["status"] == "certified")


def test_examples_sorted_by_kind_family_seed(results: dict) -> None:
    keys = [(r["task"]["kind"] != "worked", r["task"]["family"], r["task"]["seed"]) for r in results["examples"]]
    assert keys == sorted(keys)
    assert [r["task"]["name"] for r in results["examples"][:4]] == [
        "emerging_leader", "triangle", "square", "non_leader_clusters"]


def test_serialisation_is_canonical(results: dict, report_dir: Path) -> None:
    text = (report_dir / "results.json").read_text(encoding="utf-8")
    assert dumps_results(results) == text
    assert deterministic_part(text) + text[len(deterministic_part(text)):] == text
    assert f'"{ENVIRONMENT_KEY}"' not in deterministic_part(text)


def _damaged(results: dict, damage) -> list[str]:
    data = copy.deepcopy(results)
    damage(data)
    return validate_results(data)


@pytest.mark.parametrize("damage, expected", [
    (lambda d: d.pop("summary"), "results.summary: missing"),
    (lambda d: d.__setitem__("schema_version", 99), "results.schema_version"),
    (lambda d: d["examples"][0]["verdicts"]["T1"].__setitem__("status", "probably"), "verdicts.T1.status"),
    (lambda d: d["summary"]["claims"]["T2"].__setitem__("certified", 1), "summary.claims.T2: counts add up"),
    (lambda d: d["summary"].__setitem__("examples", 2), "summary.examples"),
    (lambda d: d["examples"][1].__setitem__("status", "failed"), "examples[1].status"),
    (lambda d: d["examples"][0]["verdicts"]["T3"].__setitem__("status", "inconclusive"), "verdicts.T3.certificate"),
    (lambda d: d.__setitem__("summary", d.pop("summary")), "environment block must be the last key"),
    (lambda d: d["examples"][2]["task"].__setitem__("seed", "3"), "examples[2].task.seed"),
    (lambda d: d["summary"].__setitem__("exit_status", 2), "summary.exit_status"),
])
def test_schema_violations_are_reported(results: dict, damage, expected: str) -> None:
    errors = _damaged(results, damage)
    assert any(expected in e for e in errors), errors


def test_svg_figures_are_the_same_bytes_on_every_run(tmp_path: Path) -> None:
    # Matplotlib names SVG clip paths from a random salt unless one is set; a report's SVG
    # must not change between two runs with the same seed and inputs.
    from matplotlib.figure import Figure

    from verify.app.report.figures import _save

    outputs = []
    for attempt in range(2):
        fig = Figure(figsize=(2, 2))
        ax = fig.add_subplot()
        ax.plot([0, 1], [1, 0])
        ax.set_xlim(0.2, 0.8)  # clipped: the line gets a clip-path id
        _, svg = _save(fig, tmp_path / str(attempt), "panel", svg=True)
        outputs.append((tmp_path / str(attempt) / svg).read_bytes())
    assert b"clip-path" in outputs[0]
    assert outputs[0] == outputs[1]
