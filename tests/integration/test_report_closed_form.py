"""A campaign that needs closed-form certificates (docs/theory.md D9): results.json records what they
did (summary.closed_form) and the claim checks' wall times (environment), the report renders both,
and the independent checker recomputes the summary from the records."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from verify import certcheck
from verify.app.campaign import CampaignSpec, FamilySpec
from verify.app.report.build import build_report
from verify.app.report.schema import validate_results

# face_mean_ties: a token at the mean of a face whose other members move symmetrically (D9's case).
SPEC = CampaignSpec(examples=2, layer_budget=30, worked=False, float_check=False, shrink=False,
                    families=(FamilySpec("face_mean_ties", n=(5, 7), d=(2, 3), alpha=("1/2",)),), source="test")


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "d9"
    outcome = build_report(out=out, seed=0, spec=SPEC, runs_dir=None, command_line="test")
    assert outcome.exit_status == 0, outcome.results["summary"]
    return out


@pytest.fixture()
def results(report_dir: Path) -> dict:
    return json.loads((report_dir / "results.json").read_text(encoding="utf-8"))


def test_the_summary_and_the_wall_times_are_recorded(results: dict) -> None:
    assert validate_results(results) == []
    summary = results["summary"]["closed_form"]
    names = [r["task"]["name"] for r in results["examples"]]
    assert summary["configurations"] == 2 and summary["examples"] == sorted(names)
    assert summary["layers_run"] == sum(r["layers_run"] for r in results["examples"])
    assert summary["budget_layers"] == 2 * SPEC.layer_budget
    assert summary["layers_saved"] == summary["budget_layers"] - summary["layers_run"] > 0
    assert summary["found_at_layer"]["max"] == max(r["settled_layer"] for r in results["examples"])
    # Measured wall times live in the environment block only: the records stay deterministic.
    seconds = results["environment"]["claim_check_seconds"]
    assert sorted(seconds) == sorted(names) and all(value >= 0 for value in seconds.values())
    assert not any(key.startswith("_") for record in results["examples"] for key in record)


def test_the_report_shows_it(report_dir: Path, results: dict) -> None:
    text = (report_dir / "report.md").read_text(encoding="utf-8")
    summary = results["summary"]["closed_form"]
    assert "### Closed-form certificates (D9)" in text
    assert "2 of 2 (100.0%) configurations needed closed-form paths" in text
    row = next(line for line in text.splitlines() if line.startswith("| 2 | "))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[3:6] == [str(summary["layers_run"]), str(summary["budget_layers"]), str(summary["layers_saved"])]
    assert cells[6].endswith("each)")  # the wall time was recorded
    assert "Closed-form certificates (D9)" in (report_dir / "report.html").read_text(encoding="utf-8")


def test_certcheck_recomputes_the_summary(report_dir: Path, results: dict) -> None:
    assert certcheck.check_file(str(report_dir / "results.json")).exit_status == 0
    assert certcheck.check_results(copy.deepcopy(results)).exit_status == 0
    for key, change in (("layers_saved", lambda s: s.__setitem__("layers_saved", s["layers_saved"] + 1)),
                        ("found_at_layer", lambda s: s["found_at_layer"].__setitem__("median", 0.5)),
                        ("examples", lambda s: s["examples"].pop()),
                        ("unsettled", lambda s: s.__setitem__("unsettled", 1))):
        tampered = copy.deepcopy(results)
        change(tampered["summary"]["closed_form"])
        result = certcheck.check_results(tampered)
        reasons = [o.reason for o in result.outcomes if o.status == "rejected"]
        assert result.exit_status == 1 and any(f"summary.closed_form.{key}" in r for r in reasons), (key, reasons)


@pytest.mark.parametrize("field, value", [("fates", 5), ("fates", "path"), ("settled_layer", "4"), ("task", None)])
def test_a_malformed_record_is_rejected_not_a_crash(results: dict, field: str, value: object) -> None:
    tampered = copy.deepcopy(results)
    tampered["examples"][0][field] = value
    result = certcheck.check_results(tampered)
    assert result.exit_status == 1
