"""What the closed-form certificates (docs/theory.md D9) did in a campaign: the summary of
verify.app.campaign.closed_form_summary and the report's section that renders it."""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import pytest

from verify import certcheck
from verify.app.campaign import closed_form_summary
from verify.app.campaign.records import claim_record
from verify.claims import check_configuration
from verify.core.config import make_configuration
from verify.app.report.render import build_document, closed_form_blocks, to_markdown
from verify.core.worked import WORKED_CONFIGURATIONS

C = F(-7, 8)
D9_EXAMPLE = make_configuration([[C, F(-1, 2)], [C, F(1, 2)], [C, 0], [C, F(1, 4)], [C, F(-1, 4)]], alpha="1/2")
# At alpha = 1/100 token 4 ties with itself only at layer 200 and leads from 201 (docs/theory.md D9, the jump).
OVERSHOOT = make_configuration([["1/2", 1], ["1/2", -1], ["3/5", "3/4"], ["3/5", "-3/4"], ["2/5", 0]], alpha="1/100")
# Outside the theorem (A not symmetric): the regular tetrahedron, each vertex attending to the next; no solving
# order, so D9 leaves every token unsettled, and no layer is a similar copy of an earlier one (D11).
MUTUAL = make_configuration([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], alpha="1/2",
                            A=[[1, 0, 4], [0, 1, 0], [-4, 0, 1]], outside_hypotheses=True)
BUDGET = 12


def _record(name: str, config: Any) -> dict[str, Any]:
    record = {"task": {"kind": "generated", "family": name.split("-")[0], "seed": 0, "name": name},
              "configuration": config.to_json_dict()}
    record.update(claim_record(check_configuration(config, layer_budget=BUDGET, cross_check=False)))
    return record


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    error = {"task": {"kind": "generated", "family": "broken", "seed": 1, "name": "broken-1"}, "status": "error",
             "error": "RuntimeError: a task that failed twice"}
    return [_record("d9-example", D9_EXAMPLE), _record("overshoot-0", OVERSHOOT),
            _record("clusters-0", WORKED_CONFIGURATIONS["non_leader_clusters"]), _record("mutual-0", MUTUAL), error]


def test_the_records_are_what_the_summary_is_tested_on(records: list[dict[str, Any]]) -> None:
    kinds = [sorted({f["kind"] for f in r["fates"]}) for r in records[:4]]
    assert kinds == [["leader", "locked", "path"], ["leader", "locked", "path"], ["leader", "locked"], ["unsettled"]]
    assert [r["settled_layer"] for r in records[:4]] == [4, 4, 0, None]
    assert [r["layers_run"] for r in records[:4]] == [5, 5, 1, BUDGET]


def test_summary_of_the_configurations_settled_by_paths(records: list[dict[str, Any]]) -> None:
    summary = closed_form_summary(records, BUDGET)
    assert summary == {
        "configurations": 2,
        "examples": ["d9-example", "overshoot-0"],
        "found_at_layer": {"min": 4, "median": 4, "max": 4},
        # The D9 example's chain is one segment from layer 4; the overshoot's final segment starts
        # at layer 201 (4 + 196 + 1), far beyond the 5 layers simulated and the budget of 12.
        "constant_from_layer": {"min": 4, "median": F(4 + 201, 2), "max": 201},
        "layers_run": 10,
        "budget_layers": 2 * BUDGET,
        "layers_saved": 2 * BUDGET - 10,
        "unsettled": 1,
    }


def test_the_budget_is_capped_by_the_checkers_work_limit(records: list[dict[str, Any]]) -> None:
    # A layer budget beyond what the checker replays: runs stop at its work limit, and so would a run without D9.
    huge = 10 ** 6
    # The checker's estimate depends on the inputs' sizes and on how fast alpha makes them grow.
    caps = []
    for config in (D9_EXAMPLE, OVERSHOOT):
        numbers = [x for t in config.tokens for x in t] + [config.alpha]
        caps.append(certcheck.max_checkable_layer(5, 2, bits=certcheck.input_bits(numbers),
                                                  growth=certcheck.replay_growth(config.alpha)))
    assert max(caps) < huge and caps[0] != caps[1]
    summary = closed_form_summary(records, huge)
    assert summary["budget_layers"] == sum(caps) and summary["layers_saved"] == sum(caps) - 10


def test_a_campaign_without_paths(records: list[dict[str, Any]]) -> None:
    summary = closed_form_summary(records[2:], BUDGET)
    assert summary["configurations"] == 0 and summary["found_at_layer"] is None and summary["layers_saved"] == 0
    assert summary["unsettled"] == 1


def _results(records: list[dict[str, Any]], seconds: dict[str, float] | None) -> dict[str, Any]:
    environment: dict[str, Any] = {"command_line": "", "started": "", "finished": "", "versions": {},
                                   "timings_seconds": {}}
    if seconds is not None:
        environment["claim_check_seconds"] = seconds
    return {"summary": {"overall": "inconclusive", "exit_status": 3, "examples": len(records), "errors": 1,
                        "claims": {}, "closed_form": closed_form_summary(records, BUDGET)},
            "campaign": {"seed": 0, "layer_budget": BUDGET, "source": "test", "time_budget": None},
            "examples": records, "counterexamples": [], "optional_sections": {}, "inputs": [],
            "environment": environment}


def test_the_report_renders_the_summary_with_wall_times(records: list[dict[str, Any]]) -> None:
    seconds = {"d9-example": 0.25, "overshoot-0": 1.5, "clusters-0": 4.0, "mutual-0": 2.0}
    text = to_markdown(build_document(_results(records, seconds), []))
    section = text[text.index("### Closed-form certificates (D9)"):]
    assert "2 of 4 (50.0%) configurations needed closed-form paths" in section
    assert "d9-example, overshoot-0" in section
    # configurations | found at | constant from | simulated | fixed budget | saved | wall time
    assert "| 2 | 4 / 4 / 4 | 4 / 102.5 / 201 | 10 | 24 | 14 | 1.75 s (at most 1.50 s each) |" in section
    assert "the claim checks of all 4 configurations took 7.75 s" in section
    assert "1 configuration still has a token settled by neither" in section


def test_wall_times_not_recorded_are_said_so(records: list[dict[str, Any]]) -> None:
    for seconds in (None, {"d9-example": 0.25}):
        text = to_markdown(closed_form_blocks(_results(records, seconds)))
        assert "| 14 | not recorded |" in text and "took" not in text


def test_old_results_without_the_summary_and_campaigns_without_paths(records: list[dict[str, Any]]) -> None:
    results = _results(records, {})
    del results["summary"]["closed_form"]
    assert to_markdown(closed_form_blocks(results)).strip() == "Not recorded in this results.json."
    results = _results(records[2:], {})
    text = to_markdown(closed_form_blocks(results))
    assert text.startswith("No configuration needed a closed-form certificate")


def test_the_note_on_settled_tokens_names_D9(records: list[dict[str, Any]]) -> None:
    # Every token settled (no unsettled record): the note says that some settled by D9 paths.
    text = to_markdown(build_document(_results(records[:3], None), []))
    assert "or, in 2 examples, follows a certified closed-form path (D9)" in text
    # An unsettled token: the note says so, and never that every token settled.
    text = to_markdown(build_document(_results(records, None), []))
    assert "nor got a certified closed-form path (D9) within 12 layers" in text
    assert "Every token of every example was settled" not in text

