"""Leader control's section of the report (verify/experiments/control/report_section.py), from a small study file made
here: the rounding rates, the realisable fractions, the figure; an absent study is named with the command that writes
it; a malformed file is named with its field and the report still renders."""

from __future__ import annotations

import json
from pathlib import Path

from verify.experiments.control import report_section as control
from verify.experiments.control.study import FORMAT
from verify.app.report.build import collect_optional_sections
from verify.experiments.registry import SECTION_PROVIDERS
from verify.app.report.glance import at_a_glance
from verify.app.report.render import build_document, to_markdown


def _row(group: str, realisable: int, impossible: int, *, all_vertices: str = "realisable", locked: int = 1) -> dict:
    return {"group": group, "configuration": f"{group}-example", "n": 6, "d": 2, "vertices": 4,
            "subsets": realisable + impossible, "realisable": realisable, "impossible": impossible, "inconclusive": 0,
            "all_vertices": all_vertices, "programs": 2, "lock_tried": 2, "lock_realised": locked}


def study() -> dict:
    return {
        "format": FORMAT, "seed": 0, "plan": {},
        "rounding": {"cases": 10, "solver_feasible": 7, "exact_designs": 7, "exact_designs_of_solver_feasible": 7,
                     "impossible": 2, "inconclusive": 1, "impossible_by_step": {"lambda_min": 1, "facial": 1},
                     "by_family": {"generic": {"cases": 10, "decided": 9}},
                     "inconclusive_cases": [{"configuration": "close_pairs-seed1-n4-d2", "leaders": [0, 1],
                                             "solver_feasible": False}]},
        "against_n_and_d": [_row("n=4, d=2", 15, 0), _row("n=4, d=2", 12, 3, all_vertices="impossible", locked=0)],
        "families": [_row("generic", 15, 0)],
        "worked": [_row("emerging_leader", 63, 0)],
        "two_clusterings": {"configuration": "emerging_leader", "tokens": [],
                            "designs": [{"leaders": [0, 2], "A": [["3", "1"], ["1", "1"]], "targets": []},
                                        {"leaders": [0, 3], "A": [["1", "0"], ["0", "1"]], "targets": []}]},
    }


def _section(tmp_path: Path, data: dict, *, figure: bool = True):
    folder = tmp_path / "runs" / "control"
    folder.mkdir(parents=True)
    (folder / control.STUDY_FILE).write_text(json.dumps(data), encoding="utf-8")
    if figure:
        (folder / control.FIGURE_FILE).write_bytes(b"\x89PNG\r\n\x1a\n")
    optional, _ = collect_optional_sections(tmp_path / "runs", "RUNS")
    return optional["control"], SECTION_PROVIDERS["control"].section(optional["control"])


def test_the_section_shows_the_rates_the_fractions_and_the_figure(tmp_path: Path) -> None:
    block, section = _section(tmp_path, study())
    assert SECTION_PROVIDERS["control"] is control
    # 105 of the 108 subsets of every row (the grid, the family and the worked rows) are realisable
    assert "97.2% of 108 subsets" in section.summary
    assert "all hull vertices lead together in 3 of 4" in section.summary
    assert "7 of 7 feasible cases" in section.summary and "9 of 10 cases were decided exactly (90.0%)" in section.summary
    rates = section.tables[0].rows
    assert ["decided exactly, either way", "9 of 10 (90.0%)"] in rates
    assert any("close_pairs-seed1-n4-d2 L = {0, 1}" in cell for row in rates for cell in row)
    grid = section.tables[2].rows
    assert grid == [["n=4, d=2", "2", "4.0", "27 of 30 (90.0%)", "3 of 30 (10.0%)", "0", "1 of 2 (50.0%)",
                     "1 of 4 (25.0%)"]]
    assert [f.file for f in section.figures] == ["figures/control/control-two-clusterings.png"]
    assert "{0, 2} and {0, 3}" in section.figures[0].caption


def test_a_malformed_study_is_named_with_its_field_and_the_report_still_renders(tmp_path: Path) -> None:
    data = study()
    data["against_n_and_d"][0]["realisable"] = 99
    block, section = _section(tmp_path, data, figure=False)
    assert "could not be read" in section.summary and "against_n_and_d[0]" in section.summary
    document = to_markdown(build_document(_results(block), [], {"control": section}))
    assert "Leader control" in document


def test_without_a_study_the_report_names_the_command(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    optional, _ = collect_optional_sections(tmp_path / "runs", "RUNS")
    assert "scripts/control_study.py" in optional["control"]["skipped"]
    glance = at_a_glance(_results(optional["control"]))
    reason = optional["control"]["skipped"].partition("; written by ")[0]
    assert ("Leader control", f"absent from this report: {reason} (the command is under Optional sections skipped).") \
        in glance.sentences


def _results(block: dict) -> dict:
    """A results.json of no configuration whose only saved-results section is ``block``."""
    return {"summary": {"overall": "inconclusive", "exit_status": 3, "examples": 0, "errors": 0, "claims": {}},
            "campaign": {"seed": 0, "layer_budget": 1, "source": "test", "time_budget": None},
            "examples": [], "counterexamples": [], "optional_sections": {"control": block}, "inputs": [],
            "environment": {"command_line": "", "started": "", "finished": "", "versions": {}, "timings_seconds": {}}}
