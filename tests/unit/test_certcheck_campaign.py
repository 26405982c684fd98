"""What the independent checker holds about a campaign, kept apart from the suite's code: each copy agrees.

The checker (verify/certcheck/) imports nothing from the package, so the few facts it needs about
a campaign and a report are typed into it a second time: the canonical JSON behind the plan's
hashes, the worked configurations of docs/theory.md §4, how a campaign splits into tasks, which saved
files each optional section reads, and how the first screen's numbers are computed from them. These
tests compare each copy with the suite's (and §4 with docs/theory.md itself), and check the rules
that use them: the plan made before any task runs, the work meter, the bound on a chain's powers.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify import certcheck
from verify.certcheck.results import campaign as checker_campaign
from verify.certcheck.results import glance as checker_glance
from verify.certcheck.kernel import jsonvalues as checker_json
from verify.certcheck.kernel import meter as checker_meter
from verify.certcheck.kernel import model as checker_model
from verify.certcheck.results import sections as checker_sections
from verify.core import limits
from verify.app.campaign import CampaignSpec, FamilySpec, plan_tasks
from verify.app.campaign import tasks as campaign_tasks
from verify.app.campaign.executors import error_record
from verify.app.campaign.plan import campaign_block, campaign_plan, canonical_json, canonical_sha256
from verify.experiments.conjectures.base import EXPECTATIONS
from verify.core.families import FAMILIES
from verify.app.report import build
from verify.app.report.glance import section_glance
from verify.experiments.sentiment import report_section as sentiment_section
from verify.core.worked import WORKED_CONFIGURATIONS, WORKED_NAMES

REPO = Path(__file__).resolve().parents[2]

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-10 ** 30, max_value=10 ** 30)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20)


@given(JSON)
def test_the_checker_serialises_json_canonically_as_the_suite_does(value: Any) -> None:
    text = canonical_json(value)
    assert certcheck.canonical_json(value) == text
    # As certcheck reads a file: decimals kept as their text, which it writes back verbatim.
    reread = json.loads(json.dumps(value), parse_float=certcheck.DecimalText)
    assert certcheck.canonical_json(reread) == text
    assert certcheck.canonical_sha256(reread) == canonical_sha256(value)


def test_canonical_json_refuses_what_is_not_json() -> None:
    for value in (float("nan"), {1: 2}, {"a": object()}):
        with pytest.raises(ValueError):
            certcheck.canonical_json(value)
    deep: Any = []
    for _ in range(5000):  # deeper than the recursion limit: the checker's serialiser does not recurse
        deep = [deep]
    assert certcheck.canonical_json(deep) == "[" * 5001 + "]" * 5001


def test_the_worked_configurations_are_typed_twice_and_agree() -> None:
    assert tuple(certcheck.WORKED_TOKENS) == WORKED_NAMES
    for name, config in WORKED_CONFIGURATIONS.items():
        assert [tuple(Fraction(x) for x in t) for t in certcheck.WORKED_TOKENS[name]] == [tuple(t) for t in config.tokens]
        assert config.alpha == Fraction(certcheck.WORKED_ALPHA) and config.A is None and config.V is None


def test_the_worked_configurations_hold_the_points_docs_theory_states() -> None:
    section = re.search(r"^## 4\. .*?(?=^## 5\.)", (REPO / "docs" / "theory.md").read_text(encoding="utf-8"),
                        re.S | re.M)
    assert section is not None
    text = section.group(0)
    assert "alpha = 1/2" in text and "A = I" in text
    names = {"emerging leader": "emerging_leader", "triangle": "triangle", "square": "square",
             "non-leader clusters": "non_leader_clusters"}
    for label, name in names.items():
        bullet = re.search(rf"\*\*{label}\*\*:(.*?)(?=\n- \*\*|\Z)", text, re.S)
        assert bullet is not None, label
        stated = bullet.group(1).split(". ")[0]  # the tokens; later sentences name their limits
        points = re.findall(r"\((\+-)?(-?[\d/]+), (\+-)?(-?[\d/]+)\)", stated)
        tokens = {tuple(Fraction(x) for x in t) for t in certcheck.WORKED_TOKENS[name]}
        assert points, label
        for sx, x, sy, y in points:
            for px in ([1, -1] if sx else [1]):
                for py in ([1, -1] if sy else [1]):
                    assert (px * Fraction(x), py * Fraction(y)) in tokens, (label, x, y)


def test_the_seed_stride_and_the_split_by_share_agree() -> None:
    assert certcheck.SEED_STRIDE == campaign_tasks.SEED_STRIDE and certcheck.WORKED_FAMILY == campaign_tasks.WORKED_FAMILY


@given(st.integers(0, 60), st.lists(st.integers(0, 5), min_size=1, max_size=5), st.integers(0, 3), st.booleans())
def test_the_checker_implies_the_task_list_the_suite_plans(examples: int, shares: list[int], seed: int,
                                                          worked: bool) -> None:
    names = sorted(FAMILIES)[:len(shares)]
    spec = CampaignSpec(examples=examples if sum(shares) else 0, layer_budget=20, worked=worked, float_check=False,
                        shrink=False, families=tuple(FamilySpec(name, share=s, n=(4, 7), d=(2, 3))
                                                     for name, s in zip(names, shares)))
    tasks = plan_tasks(spec, seed=seed)
    block = json.loads(json.dumps(campaign_block(spec, seed=seed, tasks=len(tasks))))
    implied = checker_campaign._implied_tasks(block, len(tasks))
    assert not isinstance(implied, str), implied
    assert [(t["kind"], t["family"], t["seed"], t["name"], t.get("d")) for t in implied] == [
        (t.kind, t.family, t.seed, t.name, t.d if t.kind == "generated" else None) for t in tasks]
    plan = json.loads(json.dumps({"tasks": [{**t.describe(), "configuration_sha256": "0" * 64} for t in tasks]}))
    assert all(checker_campaign._plan_entry_problem(e, t) is None for e, t in zip(plan["tasks"], implied))
    if len(tasks):
        assert isinstance(checker_campaign._implied_tasks(block, len(tasks) + 1), str)


def test_the_plan_is_made_before_any_task_and_hashes_what_the_records_hold() -> None:
    spec = CampaignSpec(examples=2, layer_budget=20, worked=True, float_check=False, shrink=False,
                        families=(FamilySpec("generic", n=(4, 5), d=(2,)),))
    tasks = plan_tasks(spec, seed=1)
    campaign = campaign_block(spec, seed=1, tasks=len(tasks))
    plan = campaign_plan(campaign, tasks)
    assert plan["campaign_sha256"] == certcheck.canonical_sha256(json.loads(json.dumps(campaign)))
    for entry, task in zip(plan["tasks"], tasks):
        config = campaign_tasks.build_configuration(task).to_json_dict()
        assert entry["configuration_sha256"] == certcheck.canonical_sha256(json.loads(json.dumps(config)))
        assert {k: v for k, v in entry.items() if k != "configuration_sha256"} == task.describe()


def test_a_planned_task_without_a_record_becomes_an_error_record() -> None:
    spec = CampaignSpec(examples=2, layer_budget=20, worked=False, float_check=False, shrink=False,
                        families=(FamilySpec("generic", n=(4, 5), d=(2,)),))
    tasks = plan_tasks(spec, seed=0)
    records = [error_record(tasks[0], "x", attempts=2)]
    merged = build._one_record_per_task(tasks, records)
    assert [r["task"]["name"] for r in merged] == [t.name for t in tasks]
    assert merged[1]["status"] == "error" and "no record came back" in merged[1]["error"]
    with pytest.raises(RuntimeError, match="two records"):
        build._one_record_per_task(tasks, records * 2)


def test_the_checker_reads_the_sections_files_the_report_reads() -> None:
    assert certcheck.SECTION_FILES == build.OPTIONAL_SECTIONS
    assert certcheck.CONJECTURE_PREDICTS == EXPECTATIONS
    assert certcheck.SENTIMENT_EVALUATION_FIELDS == sentiment_section._EVALUATION_FIELDS
    assert (certcheck.SUMMARY_FIELDS, certcheck.SUMMARY_LINES) == (build.MAX_SUMMARY_FIELDS, build.MAX_SUMMARY_LINES)
    from verify.core import io
    assert certcheck.SECTION_READ_BYTES == io.MAX_INPUT_BYTES
    from verify.app.campaign.measure import HORIZON
    from verify.experiments.sentiment import AUTHORS_SOFTMAX_TEST_ACCURACY
    assert certcheck.HORIZON == HORIZON
    assert {d: float(v) for d, v in certcheck.AUTHORS_SOFTMAX_TEST_ACCURACY.items()} == AUTHORS_SOFTMAX_TEST_ACCURACY
    assert {key: set(fields) for key, fields in certcheck.SECTION_ITEM_FIELDS.items()} == {
        "sentiment": {"analysis_rows", "evaluation", "softmax_certificate"},
        "reproduction": {"reproduction_tables", "sentence", "runs", "notes", "protocol"},
        "conjectures": {"power"}, "atlas": {"sweep", "census", "leader_control"}, "classify": {"imdb", "scaling"}, "control": {"study"}}


def test_the_first_screen_numbers_agree_on_the_projects_saved_results() -> None:
    sections, _ = build.collect_optional_sections(REPO / "runs", "runs")
    assert {key for key, block in sections.items() if block["files"]} == set(certcheck.SECTION_FILES)
    for key, block in sections.items():
        files = {item["path"]: json.loads((REPO / item["path"]).read_text(encoding="utf-8"),
                                          parse_float=certcheck.DecimalText)
                 for item in block["files"] if "unreadable" not in item["summary"]}
        expected = checker_glance.glance_numbers(key, files, len(block["files"]))
        stored = json.loads(json.dumps(block["glance"]), parse_float=certcheck.DecimalText)
        assert checker_json.same_json(stored, expected), key
        assert checker_sections._section_problems(key, json.loads(json.dumps(block)), str(REPO / "runs"), "runs",
                                                  json.loads(json.dumps(_inputs(sections))), [1 << 30]) == []


def _inputs(sections: dict[str, Any]) -> list[dict[str, str]]:
    return build.collect_optional_sections(REPO / "runs", "runs")[1]


def test_a_conjecture_refuted_where_it_was_expected_to_hold_is_not_as_expected() -> None:
    # The lab's expectations are "held" and "refuted"; the first screen once compared with "true"/"false".
    block = {"files": [{"path": "runs/conjectures/a.json", "sha256": "0" * 64,
                        "summary": {"conjecture": "a", "outcome": "held", "expected": "refuted"}},
                       {"path": "runs/conjectures/b.json", "sha256": "0" * 64,
                        "summary": {"conjecture": "b", "outcome": "counterexample", "expected": "refuted"}}]}
    numbers = section_glance("conjectures", block)
    assert numbers is not None and numbers["not_as_expected"] == ["a"]
    files = {item["path"]: item["summary"] for item in block["files"]}
    assert checker_glance.glance_numbers("conjectures", files, 2) == numbers


def test_the_limits_table_mirrors_the_checkers() -> None:
    assert limits.CHECKER == {limit.name: limit.value for limit in certcheck.CHECKER_LIMITS}
    for limit in certcheck.CHECKER_LIMITS:
        assert getattr(certcheck, limit.name) == limit.value
    assert limits.check_max_tokens(64) < 4096  # check accepts fewer tokens than simulate: the table says so
    assert certcheck.replay_work(limits.check_max_tokens(2), 2, 0) <= certcheck.DEFAULT_MAX_WORK
    assert certcheck.replay_work(limits.check_max_tokens(2) + 1, 2, 0) > certcheck.DEFAULT_MAX_WORK


def test_the_meter_stops_a_file_that_needs_more_work_than_it_may(monkeypatch: pytest.MonkeyPatch) -> None:
    tokens = [[str(i + 1), str((7 * i) % 13)] for i in range(30)]
    report = {"format": certcheck.FORMAT, "config": {"tokens": tokens, "alpha": "1/2"}, "last_layer": 40,
              "settled_layer": None, "verdicts": {"replay": {"claim": "replay", "status": "certified", "summary": "",
                                                             "evidence": {}, "certificate": {"last_layer": 40,
                                                                                             "final_positions": []}}}}
    result = certcheck.check_report(json.loads(json.dumps(report)))
    assert result.exit_status == 1 and result.work > 0  # a wrong certificate, checked within the allowance
    monkeypatch.setattr(checker_meter, "WORK_SLACK", result.work / certcheck.DEFAULT_MAX_TOTAL_WORK / 2)
    checker_model._MODELS.clear()  # the replay is kept per configuration: start it again
    stopped = certcheck.check_report(json.loads(json.dumps(report)))
    assert stopped.exit_status == 3 and {o.status for o in stopped.outcomes} == {"unsupported"}
    assert "raise --max-total-work" in stopped.outcomes[0].reason


def test_a_chain_with_more_powers_than_tokens_is_rejected_before_any_expansion() -> None:
    chain = [{"format": certcheck.CLOSED_FORM_FORMAT, "status": "certified", "start_layer": 0, "segments": [
        {"layer": 0, "status": "certified", "sets": [[0], [1]], "until": None,
         "paths": [[{"base": "1", "power": 0, "coefficient": ["1", "0"]},
                    {"base": "1/2", "power": power, "coefficient": ["1", "0"]}],
                   [{"base": "1", "power": 0, "coefficient": ["0", "1"]}]]}]}
             for power in (1, 10 ** 18)]
    positions = [(Fraction(1), Fraction(0)), (Fraction(0), Fraction(1))]
    for data, needed in zip(chain, (3, 10 ** 18 + 2)):
        with pytest.raises(certcheck.Rejected, match=f"need {needed} independent solutions"):
            certcheck.verify_closed_form(data, positions=positions, alpha=Fraction(1, 2))



def test_two_decimals_are_compared_as_the_floats_the_report_read() -> None:
    """The report reads a saved file's decimals as floats and copies each float's shortest text: a decimal written
    with more digits than its float needs is the same value; another float is not."""
    text = checker_json.DecimalText
    assert checker_json.same_json(text("0.1"), text("0.1000000000000000055511151231257827"))
    assert not checker_json.same_json(text("0.1"), text("0.10000000000000002"))
    assert checker_json.same_json(text("0.1"), 0.1) and not checker_json.same_json(text("0.1"), 0.2)
