"""The independent certificate checker (verify.certcheck, issue 8; docs/certificates.md).

Certificates are produced by :func:`verify.claims.check_configuration` on small fixtures made
here; the checker must verify them, reject every change of a number it re-derives, and judge a
changed witness (direction, multipliers, D1 weights) exactly as this test decides by its own
arithmetic whether the witness still proves the claim.
"""

from __future__ import annotations

import copy
import functools
import json
import random
import re
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from tests.common.results_files import results_of
from verify import certcheck
from verify.certcheck.kernel import numbers as checker_numbers
from verify.claims import check_configuration
from verify.core.config import parse_configuration
from verify.core.exact_dynamics import exact_layers
from verify.core.families import generate
from verify.core.worked import WORKED_CONFIGURATIONS

F = Fraction


# --------------------------------------------------------------------------- fixtures


def _report(config: Any) -> dict[str, Any]:
    """The producer's claims report, through JSON (as the checker reads it from a file)."""
    return json.loads(json.dumps(check_configuration(config, cross_check=False, layer_budget=60).to_json_dict()))


# A leader at the origin's projection onto an edge: (1/2, 1/2) is fixed from layer 0 by D7 (b).
THREE_WAY_TIE = {"tokens": [["1", "0"], ["0", "1"], ["1/2", "1/2"]], "alpha": "1/2"}
# A value matrix V (not a multiple of I): the producer used to certify T1 and D3, yet leader 1 stops
# leading at layer 3 and "locked" token 4 leads at layer 1 (found by a seeded search); D3/D7 are
# not proved for this rule.
V_LEADER_LOST = {"tokens": [["-1", "1/2"], ["-7/4", "5/4"], ["1", "1/4"], ["3/4", "-7/4"], ["1/2", "-1/4"]],
                 "V": [["-3/2", "-3/2"], ["-1/4", "3/4"]], "alpha": "1/2"}


@functools.lru_cache(maxsize=None)
def reports() -> dict[str, dict[str, Any]]:
    """Certified claims reports covering every fate kind, first layers > 0, T4 with a dense A."""
    out = {name: _report(config) for name, config in WORKED_CONFIGURATIONS.items()}
    out["three_way_tie"] = _report(parse_configuration(THREE_WAY_TIE))
    # fixed and locked tokens, dense symmetric positive definite A, non-vacuous T4
    out["mirror_dense"] = _report(generate("mirror_ties", 4, n=4, d=2, matrix="dense"))
    # two layers after settlement, alpha = 2, fixed and locked tokens
    out["mirror_two_layers"] = _report(generate("mirror_ties", 12, n=5, d=2))
    for name, report in out.items():
        assert report["status"] == "certified", name
    return out


def _outcome(result: certcheck.CheckResult, claim: str) -> certcheck.Outcome:
    return next(o for o in result.outcomes if o.claim == claim)


def _positions(report: dict[str, Any], k: int) -> list[tuple[Fraction, ...]]:
    """Layer k from the exact engine (the test's own source of positions, not the checker's)."""
    config = report["config"]
    A = config.get("A")
    for layer in exact_layers(config["tokens"], alpha=config["alpha"], A=A):
        if layer.index == k:
            return [tuple(p) for p in layer.positions()]
    raise AssertionError  # pragma: no cover


# --------------------------------------------------------------------------- known answers


@pytest.mark.parametrize("name", ["emerging_leader", "triangle", "square", "non_leader_clusters", "three_way_tie",
                                  "mirror_dense", "mirror_two_layers"])
def test_certificates_of_fixtures_verify(name: str) -> None:
    result = certcheck.check_report(reports()[name])
    assert [o for o in result.outcomes if o.status != "verified"] == []
    assert sorted(result.counts()) == ["D1", "D2", "D3", "T0", "T1", "T2", "T3", "T4", "replay"]
    assert result.exit_status == 0


def test_fixtures_reach_every_fate_kind_and_a_later_first_layer() -> None:
    fates = [f for r in reports().values() for f in r["fates"]]
    assert {f["kind"] for f in fates} == {"leader", "fixed", "locked"}
    assert any(f["kind"] == "leader" and f["layer"] > 0 for f in fates)
    assert any(not r["verdicts"]["T4"]["certificate"]["vacuous"] and r["config"].get("A") for r in reports().values())


def test_fixed_token_named_one_layer_late_is_rejected_as_not_first() -> None:
    report = copy.deepcopy(reports()["three_way_tie"])
    fates = report["verdicts"]["T3"]["certificate"]["fates"]
    fixed = next(f for f in fates if f["kind"] == "fixed")
    fixed["layer"] = 1
    outcome = _outcome(certcheck.check_report(report), "T3")
    assert outcome.status == "rejected" and "not the first layer" in outcome.reason


def test_leader_named_late_is_rejected_as_not_first() -> None:
    report = copy.deepcopy(reports()["square"])
    entry = report["verdicts"]["T1"]["certificate"]["leaders"][0]
    entry["first_layer"] = 1
    outcome = _outcome(certcheck.check_report(report), "T1")
    assert outcome.status == "rejected" and "leads already at layer 0" in outcome.reason


def test_value_matrix_regression_leader_lost_after_certified_T1(monkeypatch) -> None:
    """Regression: the producer certified T1 with V = [[-3/2, -3/2], [-1/4, 3/4]]; leader 1 loses at layer 3."""
    config = parse_configuration(V_LEADER_LOST, outside_hypotheses=True)
    layers = list(zip(range(4), exact_layers(config.tokens, alpha=config.alpha, V=config.V)))
    assert layers[0][1].attention_sets()[1] == {1} and layers[3][1].attention_sets()[1] != {1}
    # The producer no longer certifies what rests on D3/D7 under a general V.
    fixed = _report(config)
    assert {fixed["verdicts"][c]["status"] for c in ("T1", "D3", "T2", "T3", "T4")} == {"inconclusive"}
    # Nothing rejected: the inconclusive verdicts are the ones the checker expects for this V, and
    # D1 (the hull shrinks) is reported false, which the checker passes on (exit 1, as check's).
    result = certcheck.check_report(fixed)
    assert {o.status for o in result.outcomes} == {"verified", "inconclusive", "failed"}
    assert [o.claim for o in result.outcomes if o.status == "failed"] == ["D1"] and result.exit_status == 1
    # The checker still rejects such certificates on its own: forge the old producer's report.
    import verify.claims.run

    monkeypatch.setattr(verify.claims.run, "_without_unproved_facts", lambda verdicts: verdicts)
    report = _report(config)
    assert report["verdicts"]["T1"]["status"] == "certified"
    result = certcheck.check_report(report)
    # D3's finite conditions hold on layers 0..1; only the missing proof for this V rejects it.
    assert report["verdicts"]["D3"]["status"] == "certified"
    assert "value matrix V" in _outcome(result, "D3").reason
    # The T1 certificate lists token 4 as leading at layer 1 while its fate says locked at layer 0.
    assert "differ from the leader fates" in _outcome(result, "T1").reason
    for claim in ("T1", "D3"):
        assert _outcome(result, claim).status == "rejected"
    assert {_outcome(result, c).status for c in ("T0", "replay")} == {"verified"}
    assert _outcome(result, "D2").status == "inconclusive"  # D2, too, is proved for V = alpha I only


def test_value_matrix_multiple_of_identity_is_the_proved_model() -> None:
    data = dict(THREE_WAY_TIE, V=[["2", "0"], ["0", "2"]])
    report = _report(parse_configuration(data, outside_hypotheses=True))
    assert certcheck.check_report(report).exit_status == 0


def test_softmax_variant_is_refused_as_unsupported() -> None:
    report = copy.deepcopy(reports()["three_way_tie"])
    report["config"]["beta"] = "1000"
    result = certcheck.check_report(report)
    assert {o.status for o in result.outcomes} == {"unsupported"} and result.exit_status == 3


def test_certified_without_certificate_unknown_claim_and_downgraded_claim() -> None:
    report = copy.deepcopy(reports()["triangle"])
    del report["verdicts"]["T2"]["certificate"]
    report["verdicts"]["T9"] = dict(report["verdicts"]["T0"], claim="T9")
    report["verdicts"]["T3"] = {"claim": "T3", "status": "inconclusive", "summary": "", "evidence": {}}
    result = certcheck.check_report(report)
    assert _outcome(result, "T2").status == "rejected"
    assert _outcome(result, "T9").status == "unsupported" and "no routine" in _outcome(result, "T9").reason
    assert _outcome(result, "T3").status == "rejected" and "downgraded" in _outcome(result, "T3").reason
    assert result.exit_status == 1


def test_positive_definite_known_answers() -> None:
    assert checker_numbers.positive_definite([[F(2), F(1)], [F(1), F(2)]])
    assert not checker_numbers.positive_definite([[F(1), F(2)], [F(2), F(1)]])
    assert not checker_numbers.positive_definite([[F(1), F(0)], [F(0), F(0)]])


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("text, field", [
    ("{not json", "not valid JSON"),
    ('{"format": "something-else"}', "neither a claims report"),
    ('[1, 2]', "neither a claims report"),
])
def test_bad_files_are_bad_input(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "in.json"
    path.write_text(text)
    with pytest.raises(certcheck.BadInput, match=field):
        certcheck.check_file(str(path))


@pytest.mark.parametrize("tamper, fragment", [
    # A repeated key: json.loads keeps the last value, a first-wins reader sees the other one.
    (lambda text: text.replace('"status": "certified"', '"status": "failed", "status": "certified"', 1),
     'key "status" appears twice'),
    (lambda text: text.replace('"time_budget": null', '"time_budget": NaN', 1), "NaN"),
    (lambda text: text.replace('"layer_budget": 60', '"layer_budget": Infinity', 1), "Infinity"),
])
def test_ambiguous_or_non_standard_json_is_refused(tmp_path: Path, tamper: Any, fragment: str) -> None:
    text = json.dumps(reports()["triangle"])
    tampered = tamper(text)
    assert tampered != text
    path = tmp_path / "claims.json"
    path.write_text(tampered)
    with pytest.raises(certcheck.BadInput, match=fragment):
        certcheck.check_file(str(path))


def test_malformed_configuration_is_bad_input_and_main_prints_one_line(tmp_path: Path, capsys: Any) -> None:
    report = copy.deepcopy(reports()["triangle"])
    report["config"]["tokens"][1] = ["1/0", "2"]
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(report))
    assert certcheck.main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "config.tokens[1][0]" in err


def test_main_exit_statuses(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(reports()["emerging_leader"]))
    assert certcheck.main([str(good)]) == 0
    report = copy.deepcopy(reports()["emerging_leader"])
    report["verdicts"]["D2"]["certificate"]["norms"][0][0] = "7"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(report))
    assert certcheck.main([str(bad), "--json"]) == 1


# --------------------------------------------------------------------------- results.json and the report hook


def _results(records: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A results.json around claims reports, assembled by the report's own functions
    (tests/common/results_files.py): a campaign of one family "fixtures" whose plan lists the reports'
    configurations (task j is named fixtures-j), records, their certcheck blocks, summary counts
    and status."""
    return results_of(records.values())


def test_results_file_every_record_and_the_summary(tmp_path: Path) -> None:
    data = _results({n: reports()[n] for n in ("triangle", "square")})
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    result = certcheck.check_file(str(path))
    assert len(result.outcomes) == 18 and {o.status for o in result.outcomes} == {"verified"}
    assert result.exit_status == 0
    data["examples"][1]["verdicts"]["T2"]["certificate"]["vertices"][0]["limit"][0] = "5"
    path.write_text(json.dumps(data))
    result = certcheck.check_file(str(path))
    rejected = [o for o in result.outcomes if o.status == "rejected"]
    # The certificate, the record's own certcheck block (it says T2 verified) and the summary's
    # re-verified count (it says 2) all disagree with what the checker finds now.
    assert [(o.claim, o.source) for o in rejected] == [
        ("T2", f"{path}.examples[1] (fixtures-1)"), ("(run)", f"{path}.examples[1] (fixtures-1)"), ("(summary)", str(path))]
    assert "recertified" in rejected[2].reason


def test_a_record_turned_into_a_task_error_is_not_checked_never_everything_verified(tmp_path: Path) -> None:
    # A forger hides a record (a failed verdict, say) as a task that raised: the record the report writes for it,
    # and the summary the report computes. Nothing in it is false, but none of its claims was checked: exit 3,
    # and the last line says so instead of "everything verified".
    from tests.common.results_files import summary_of

    data = _results({n: reports()[n] for n in ("triangle", "square")})
    data["examples"][1] = {"task": data["examples"][1]["task"], "status": "error",
                           "error": "ZeroDivisionError: injected", "attempts": 2}
    data["summary"] = summary_of(data["examples"], data["campaign"]["layer_budget"])
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    result = certcheck.check_file(str(path))
    assert {o.status for o in result.outcomes if o.status != "verified"} == {certcheck.NOT_CHECKED}, result.outcomes
    assert result.exit_status == 3
    assert "everything verified" not in result.verdict_line()
    assert result.verdict_line().endswith("1 task raised an error and was not checked")
    assert [(o.source, o.claim) for o in result.outcomes if o.status == certcheck.NOT_CHECKED] == [
        (f"{path}.examples[1]", "(run)")]


def test_report_hook_calls_the_checker() -> None:
    from verify.app.campaign.recheck import recheck_certificates

    r = copy.deepcopy(reports()["non_leader_clusters"])
    record = {"configuration": r["config"], "verdicts": r["verdicts"], "layers_run": r["last_layer"],
              "settled_layer": r["settled_layer"], "fates": r["fates"], "status": r["status"],
              "stopped_by": r["stopped_by"]}
    outcome = recheck_certificates(record)
    assert outcome["available"] and outcome["verified"] == sorted(r["verdicts"]) and outcome["rejected"] == {}
    record["verdicts"]["T4"]["certificate"]["projections"][0]["kkt"]["2"] = "1"
    outcome = recheck_certificates(record)
    assert list(outcome["rejected"]) == ["T4"] and "kkt" in outcome["rejected"]["T4"]
    record["verdicts"]["T4"]["certificate"]["projections"][0]["kkt"]["2"] = "0"
    record["fates"][4]["limit"] = ["1", "1/2"]  # the limit the report renders as "exact limit"
    outcome = recheck_certificates(record)
    assert list(outcome["rejected"]) == ["(run)"] and "fates[4]" in outcome["rejected"]["(run)"]


# --------------------------------------------------------------------------- reconciliation: what a reader sees
# Each test is one of the ways a results.json or claims report used to pass with "all
# certificates verified" although the reader would see something the file does not prove.


@functools.lru_cache(maxsize=None)
def _campaign() -> dict[str, Any]:
    return _results({n: reports()[n] for n in ("non_leader_clusters", "three_way_tie", "mirror_dense")})


def _check_results(data: dict[str, Any]) -> certcheck.CheckResult:
    return certcheck.check_results(json.loads(json.dumps(data)))


def _rejections(result: certcheck.CheckResult) -> list[certcheck.Outcome]:
    return [o for o in result.outcomes if o.status == "rejected"]


def test_untampered_results_verify_in_full() -> None:
    result = _check_results(_campaign())
    assert result.exit_status == 0 and {o.status for o in result.outcomes} == {"verified"}
    assert len(result.outcomes) == 27


def test_results_with_no_examples_but_a_certified_summary_are_rejected() -> None:
    data = copy.deepcopy(_campaign())
    data["examples"] = []
    result = _check_results(data)
    reasons = [o.reason for o in _rejections(result)]
    # The plan lists three tasks without a record; the summary is recomputed as well.
    assert result.exit_status == 1 and {o.claim for o in _rejections(result)} == {"(summary)", "(campaign)"}
    assert any("3 planned tasks have no record" in r for r in reasons)
    assert any("the file holds 0" in r for r in reasons)
    assert any("not one certificate in it verifies" in r for r in reasons)



def test_a_consistent_results_file_of_no_configurations_is_never_everything_verified() -> None:
    """Zero tasks planned, zero records, the summary the report would write: nothing false, nothing verified (exit 3)."""
    from tests.common.results_files import canonical_sha256, results_of, summary_of

    data = results_of([reports()["triangle"]])
    data["campaign"].update(examples=0, tasks=0)
    data["plan"] = {"campaign_sha256": canonical_sha256(data["campaign"]), "tasks": []}
    data["examples"], data["summary"] = [], summary_of([], 60)
    for row in data["summary"]["claims"].values():
        row["recertified"] = 0
    result = _check_results(data)
    assert not _rejections(result), _rejections(result)
    assert result.exit_status == 3
    assert [o.reason for o in result.outcomes] == ["the file holds no configurations: there is nothing to verify"]

def test_one_missing_record_is_named_in_the_singular() -> None:
    data = copy.deepcopy(_campaign())
    missing = data["examples"].pop(0)["task"]["name"]
    reasons = [o.reason for o in _rejections(_check_results(data))]
    assert any(f"1 planned task has no record: {missing}" in r for r in reasons), reasons
    assert not any("(s)" in r for r in reasons)


@pytest.mark.parametrize("stated,examples,errors,tasks", [
    (1, "summary says 1 example, the file holds 3", "summary says 1 task error, the file holds 0",
     "says 1 task, the plan lists 3"),
    (2, "summary says 2 examples, the file holds 3", "summary says 2 task errors, the file holds 0",
     "says 2 tasks, the plan lists 3"),
    ("1", "summary says 1 examples, the file holds 3", "summary says 1 task errors, the file holds 0",
     "says 1 tasks, the plan lists 3"),   # not a count: its text, the noun as for any other value
], ids=["one", "two", "text"])
def test_a_count_the_summary_or_the_campaign_states_is_written_in_the_singular_for_one(
        stated: Any, examples: str, errors: str, tasks: str) -> None:
    data = copy.deepcopy(_campaign())
    data["summary"].update(examples=stated, errors=stated)
    data["campaign"]["tasks"] = stated
    reasons = [o.reason for o in _rejections(_check_results(data))]
    for words in (examples, errors, tasks):
        assert any(words in r for r in reasons), (words, reasons)


@pytest.mark.parametrize("examples,worked,expected", [
    (1, False, "campaign: 1 generated configuration makes 1 task, the plan lists 3"),
    (2, False, "campaign: 2 generated configurations make 2 tasks, the plan lists 3"),
    (0, True, "campaign: 0 generated and 4 worked configurations make 4 tasks, the plan lists 3"),
], ids=["one", "two", "worked"])
def test_a_campaign_implying_another_number_of_tasks_counts_them_in_the_singular_for_one(
        examples: int, worked: bool, expected: str) -> None:
    data = copy.deepcopy(_campaign())
    data["campaign"].update(examples=examples, worked=worked)
    reasons = [o.reason for o in _rejections(_check_results(data))]
    assert any(expected in r for r in reasons), reasons


def test_every_verdict_key_renamed_is_rejected() -> None:
    data = copy.deepcopy(_campaign())
    for record in data["examples"]:
        record["verdicts"] = {f"{claim}'": dict(v, claim=f"{claim}'") for claim, v in record["verdicts"].items()}
    result = _check_results(data)
    missing = [o for o in _rejections(result) if "is missing" in o.reason]
    unknown = [o for o in _rejections(result) if "unknown claim" in o.reason]
    assert len(missing) == len(unknown) == 27 and result.exit_status == 1
    assert not [o for o in result.outcomes if o.status == "verified"]


def test_a_verdict_filed_under_another_claim_is_rejected() -> None:
    report = copy.deepcopy(reports()["triangle"])
    report["verdicts"]["T2"], report["verdicts"]["T3"] = report["verdicts"]["T3"], report["verdicts"]["T2"]
    result = certcheck.check_report(report)
    assert {_outcome(result, c).status for c in ("T2", "T3")} == {"rejected"}
    assert "names claim 'T3'" in _outcome(result, "T2").reason


def test_T4_downgraded_to_inconclusive_is_rejected() -> None:
    data = copy.deepcopy(_campaign())
    record = data["examples"][0]
    record["verdicts"]["T4"] = {"claim": "T4", "status": "inconclusive", "summary": "not decided", "evidence": {}}
    record["status"] = "inconclusive"
    # A consistent forgery: the record's status, its certcheck block and the summary follow the downgrade.
    record["certcheck"]["verified"].remove("T4")
    data["summary"]["claims"]["T4"].update(certified=2, inconclusive=1, exact=2, recertified=2)
    data["summary"].update(overall="inconclusive", exit_status=3)
    result = _check_results(data)
    assert _rejections(result)[0].claim == "T4" and "downgraded" in _rejections(result)[0].reason
    assert {o.claim for o in _rejections(result)} == {"T4", "(run)"} and result.exit_status == 1


def test_T3_deleted_is_rejected() -> None:
    data = copy.deepcopy(_campaign())
    record = data["examples"][1]
    del record["verdicts"]["T3"]
    record["certcheck"]["verified"].remove("T3")
    data["summary"]["claims"]["T3"].update(certified=2, unchecked=1, exact=2, recertified=2)
    result = _check_results(data)
    assert _rejections(result)[0].claim == "T3" and "missing" in _rejections(result)[0].reason
    assert {o.claim for o in _rejections(result)} == {"T3", "(run)"} and result.exit_status == 1


def test_a_record_status_set_to_failed_under_a_certified_summary_is_rejected() -> None:
    data = copy.deepcopy(_campaign())
    data["examples"][2]["status"] = "failed"
    result = _check_results(data)
    assert {(o.claim, o.source.rsplit(" ", 1)[-1]) for o in _rejections(result)} == {("(run)", "(fixtures-2)")}
    assert "combine to 'certified'" in _rejections(result)[0].reason


def test_a_record_level_fate_limit_moved_off_the_boundary_of_K_is_rejected() -> None:
    # The report renders its "exact limit" column from the record-level fates. non_leader_clusters:
    # token 4 locks onto the edge x = 1 of K and converges to (1, 0); move its limit inside K.
    data = copy.deepcopy(_campaign())
    fates = data["examples"][0]["fates"]
    t = next(f["token"] for f in fates if f["limit"] == ["1", "0"])
    fates[t]["limit"] = ["1/2", "0"]
    result = _check_results(data)
    assert {o.claim for o in _rejections(result)} == {"(run)"}
    assert f"fates[{t}]" in _rejections(result)[0].reason
    assert "the replay gives locked at layer 0 -> (1, 0)" in _rejections(result)[0].reason


@pytest.mark.parametrize("change, fragment", [
    (lambda r: r.update(settled_layer=r["settled_layer"] + 1), "settled_layer is"),
    (lambda r: r.update(stopped_by="layer budget"), "stopped_by is 'layer budget'"),
    (lambda r: r["fates"][0].update(kind="unsettled", layer=None, set=None, limit=None), "fates[0]"),
    (lambda r: r.update(fates=r["fates"][:-1]), "one entry per token"),
])
def test_what_a_claims_report_states_besides_its_verdicts_is_the_replay(change: Any, fragment: str) -> None:
    report = copy.deepcopy(reports()["three_way_tie"])
    change(report)
    result = certcheck.check_report(report)
    run = [o for o in _rejections(result) if o.claim == "(run)"]
    assert len(run) == 1 and fragment in run[0].reason and result.exit_status == 1


def test_T1_evidence_names_a_path_leader_that_first_leads_after_the_chain_starts() -> None:
    # A = S + K (not symmetric): token 6 has a closed-form path from layer 4 and first leads at layer 5,
    # the last layer run. T1's evidence lists it, as its certificate does; the checker once compared
    # the evidence with the D7 leader fates only and rejected the suite's own report.
    report = _report(generate("nonsymmetric_pd", 159948548, n=11, d=2, alpha=F(1, 50)))
    assert report["verdicts"]["T1"]["status"] == "certified"
    assert report["verdicts"]["T1"]["evidence"]["leaders"] == {"6": 5, "10": 0}
    assert next(f for f in report["fates"] if f["token"] == 6)["kind"] == "path"
    assert not _rejections(certcheck.check_report(copy.deepcopy(report)))
    report["verdicts"]["T1"]["evidence"]["leaders"] = {"6": 4, "10": 0}
    assert any("evidence.leaders" in o.reason for o in _rejections(certcheck.check_report(report)))


# Outside the theorem's hypotheses (docs/theory.md §2): a duplicated token, and an indefinite A.
OUTSIDE = {"duplicate": {"tokens": [["1", "0"], ["0", "1"], ["0", "1"], ["1/2", "1/4"]], "alpha": "1/2",
                         "outside_hypotheses": True},
           "indefinite": {"tokens": [["1"], ["2"]], "alpha": "1/2", "A": [["-1"]], "outside_hypotheses": True}}


@pytest.mark.parametrize("name", sorted(OUTSIDE))
def test_a_configuration_outside_the_hypotheses_must_be_recorded_as_such(name: str) -> None:
    report = _report(parse_configuration(OUTSIDE[name]))
    assert report["outside_hypotheses"] and report["hypothesis_violations"]
    assert not _rejections(certcheck.check_report(copy.deepcopy(report)))
    for change in (lambda r: r["config"].pop("outside_hypotheses"),
                   lambda r: r.update(outside_hypotheses=False),
                   lambda r: r.update(hypothesis_violations=[])):
        tampered = copy.deepcopy(report)
        change(tampered)
        run = [o for o in _rejections(certcheck.check_report(tampered)) if o.claim == "(run)"]
        assert run and all("hypotheses" in o.reason for o in run)
    # A results.json record: the report lists it as outside the hypotheses from its configuration.
    data = _results({name: report})
    assert not _rejections(_check_results(data))
    data["examples"][0]["configuration"].pop("outside_hypotheses")
    assert any("hypotheses" in o.reason for o in _rejections(_check_results(data)))


def test_hypotheses_violations_listed_for_a_configuration_inside_them_are_rejected() -> None:
    report = copy.deepcopy(reports()["triangle"])
    report["hypothesis_violations"] = ["tokens[0]: token is the origin"]
    assert any("hypotheses" in o.reason for o in _rejections(certcheck.check_report(report)))


def test_summary_counts_and_overall_status_are_recomputed() -> None:
    for change in (lambda d: d["summary"]["claims"]["T2"].update(certified=4),
                   lambda d: d["summary"]["claims"]["D1"].update(measured=1),
                   lambda d: d["summary"].update(overall="failed", exit_status=1),
                   lambda d: d["summary"].update(errors=1),
                   lambda d: d["examples"][0]["certcheck"]["rejected"].update(T2="forged rejection")):
        data = copy.deepcopy(_campaign())
        change(data)
        assert _check_results(data).exit_status == 1


def test_an_inconclusive_verdict_the_replay_confirms_is_accepted() -> None:
    # docs/theory.md D9: (c, 0) ties with all five tokens forever and is neither fixed nor locked.
    c = "-7/8"
    config = parse_configuration({"tokens": [[c, "-1/2"], [c, "1/2"], [c, "0"], [c, "1/4"], [c, "-1/4"]],
                                  "alpha": "1/2"})
    # D7 alone (the closed form, D9, would settle it; tests/unit/test_certcheck_closed_form.py).
    report = json.loads(json.dumps(check_configuration(config, cross_check=False, layer_budget=5,
                                                       closed_form_search=False).to_json_dict()))
    assert report["settled_layer"] is None and report["verdicts"]["T2"]["status"] == "inconclusive"
    result = certcheck.check_report(report)
    assert result.exit_status == 0
    assert {o.claim for o in result.outcomes if o.status == "inconclusive"} == {"T1", "T2", "T3", "T4"}
    assert "token 2 has no D7 fate within layers 0..5" in _outcome(result, "T2").reason
    report["verdicts"]["T0"] = {"claim": "T0", "status": "inconclusive", "summary": "", "evidence": {}}
    assert "downgraded" in _outcome(certcheck.check_report(report), "T0").reason


def test_tokens_without_a_fate_are_named_with_the_verb_agreeing() -> None:
    # Two columns like the one above, each with its centre tied to its whole column forever (D7 alone).
    config = parse_configuration({"tokens": [[x, y] for x in ("-7/8", "7/8") for y in ("-1/2", "1/2", "0", "1/4", "-1/4")],
                                  "alpha": "1/2"})
    report = json.loads(json.dumps(check_configuration(config, cross_check=False, layer_budget=5,
                                                       closed_form_search=False).to_json_dict()))
    result = certcheck.check_report(report)
    assert result.exit_status == 0 and _outcome(result, "T2").status == "inconclusive"
    assert "tokens {2, 7} have no D7 fate within layers 0..5" in _outcome(result, "T2").reason


@pytest.mark.parametrize("statuses,line", [
    (["verified"], "certcheck: 1 certificate verified; everything verified"),
    (["verified", "verified"], "certcheck: 2 certificates verified; everything verified"),
    (["inconclusive"], "certcheck: 0 certificates verified; nothing rejected; 1 inconclusive verdict accepted as stated "
                       "(no certificate to verify)"),
    (["verified", "inconclusive", "inconclusive"], "certcheck: 1 certificate verified; everything verified; 2 inconclusive "
                                                   "verdicts accepted as stated (no certificate to verify)"),
], ids=["one", "two", "one inconclusive", "two inconclusive"])
def test_the_verdict_line_counts_in_the_singular_for_one(statuses: list[str], line: str) -> None:
    result = certcheck.CheckResult([certcheck.Outcome("file.json", f"T{i}", status, "") for i, status in enumerate(statuses)])
    assert result.verdict_line() == line


def test_the_checker_counts_by_the_report_s_rule() -> None:
    """The checker's own count-and-noun helper (it imports nothing from the suite) writes what the report's does,
    so a note it recomputes (the reproduction's epoch-cap note) reads the same."""
    from verify.certcheck.kernel.common import counted
    from verify.core.formatting import counted as report_counted
    for value in (0, 1, 2, 999, 1000, 1502, 10 ** 6):
        for noun, plural in (("run", None), ("study", "studies"), ("planned task has", "planned tasks have")):
            assert counted(value, noun, plural) == report_counted(value, noun, plural)


def test_a_failed_verdict_is_passed_on_as_false() -> None:
    report = copy.deepcopy(reports()["triangle"])
    report["verdicts"]["T2"] = {"claim": "T2", "status": "failed", "summary": "", "evidence": {}}
    report["status"] = "failed"
    result = certcheck.check_report(report)
    assert _outcome(result, "T2").status == "failed" and not _rejections(result)
    assert result.exit_status == 1 and "FALSE" in result.verdict_line()


# --------------------------------------------------------------------------- limits: refused before checking


def test_a_small_file_asking_for_layer_5000_is_refused_at_once(tmp_path: Path) -> None:
    # 60 tokens and a T0 certificate at layer 5000: about 1.3 KB that used to keep the checker
    # busy for more than an hour. The replay work is computed from the file before any checking.
    tokens = [[str(i + 1), str((7 * i) % 13)] for i in range(60)]
    claims = {"format": certcheck.FORMAT, "config": {"tokens": tokens, "alpha": "1/2"}, "last_layer": 5000,
              "settled_layer": None, "verdicts": {"T0": {"claim": "T0", "status": "certified", "summary": "",
                                                         "evidence": {}, "certificate": {"layer": 5000, "leaders": [0]}}}}
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(claims))
    assert len(path.read_bytes()) < 2000
    with pytest.raises(certcheck.BadInput, match="more than the limit"):
        certcheck.check_file(str(path))
    assert certcheck.main([str(path)]) == 2
    claims["last_layer"] = 5001
    path.write_text(json.dumps(claims))
    with pytest.raises(certcheck.BadInput, match="beyond the checker's limit of 5000 layers"):
        certcheck.check_file(str(path), max_work=10 ** 18)


def test_the_work_limit_can_be_raised() -> None:
    report = reports()["emerging_leader"]
    work = certcheck.replay_work(len(report["config"]["tokens"]), 2, report["last_layer"])
    with pytest.raises(certcheck.BadInput, match="raise it with --max-work"):
        certcheck.check_report(report, max_work=work - 1)
    assert certcheck.check_report(report, max_work=work).exit_status == 0


def test_max_checkable_layer_is_the_largest_within_the_limit() -> None:
    for n, d, limit in [(3, 2, 10 ** 4), (60, 2, certcheck.DEFAULT_MAX_WORK), (128, 16, certcheck.DEFAULT_MAX_WORK)]:
        last = certcheck.max_checkable_layer(n, d, limit)
        assert certcheck.replay_work(n, d, last) <= limit < certcheck.replay_work(n, d, last + 1)
    assert certcheck.max_checkable_layer(5000, 2) == -1


@pytest.mark.parametrize("n, d", [(150, 16), (120, 32), (200, 2)])
def test_the_estimate_covers_most_of_what_the_meter_charges(n: int, d: int) -> None:
    # Many leaders (random integer points): T2 and T3 compare nearly every token with every leader, n^2 d
    # products the estimate must count (without them the charge is over twice the estimate in d = 32). A
    # run at the per-configuration limit then finishes well within the meter's allowance for its file.
    rng = random.Random(n * d)
    tokens = sorted({tuple(rng.randint(-50, 50) for _ in range(d)) for _ in range(n)})
    config = parse_configuration({"tokens": [[str(x) for x in t] for t in tokens], "alpha": "1/2"})
    report = json.loads(json.dumps(check_configuration(config, cross_check=False,
                                                       closed_form_search=False).to_json_dict()))
    result = certcheck.check_report(report)
    estimate = certcheck.replay_work(config.n, config.d, report["last_layer"])
    assert result.exit_status == 0
    assert estimate <= result.work <= 2 * estimate


def _set_the_checkers_default_work(monkeypatch: Any, limit: int) -> None:
    """DEFAULT_MAX_WORK in every module of the checker that reads it (the estimate, a run's checks, the readers)."""
    modules = [module for name, module in sys.modules.items()
               if (name == "verify.certcheck" or name.startswith("verify.certcheck.")) and hasattr(module, "DEFAULT_MAX_WORK")]
    assert {"verify.certcheck.kernel.estimate", "verify.certcheck.kernel.run"} <= {module.__name__ for module in modules}
    for module in modules:
        monkeypatch.setattr(module, "DEFAULT_MAX_WORK", limit)


def test_the_producer_never_runs_past_the_checkers_default_limit(monkeypatch: Any) -> None:
    # With a limit small enough to bind: the claim checks stop at the last checkable layer and
    # say so, and the checker (same default) accepts the report without --max-work.
    config = WORKED_CONFIGURATIONS["emerging_leader"]  # settles at layer 1
    limit = certcheck.replay_work(config.n, config.d, 0)
    _set_the_checkers_default_work(monkeypatch, limit)
    report = json.loads(json.dumps(check_configuration(config, cross_check=False, closed_form_search=False).to_json_dict()))
    assert report["last_layer"] == 0 and report["stopped_by"] == "work limit"
    assert "work limit" in report["verdicts"]["T2"]["summary"]
    assert certcheck.check_report(report).exit_status == 0
    # At the last checkable layer the closed form (D9) runs and settles it without another layer.
    report = json.loads(json.dumps(check_configuration(config, cross_check=False).to_json_dict()))
    assert report["last_layer"] == 0 and report["stopped_by"] == "settled"
    assert {report["verdicts"][c]["status"] for c in ("T1", "T2", "T3", "T4")} == {"certified"}
    assert certcheck.check_report(report).exit_status == 0
    _set_the_checkers_default_work(monkeypatch, limit - 1)
    from verify.core.numbers import InputError
    with pytest.raises(InputError, match="tokens: .* more work than the independent checker allows"):
        check_configuration(config)


def test_large_input_numbers_count_in_the_work_limit() -> None:
    # Forty tokens with 1,000-digit denominators: a common denominator of about 130,000 bits makes
    # every score a product of huge integers, so even layer 0 is refused before checking.
    primes = [10 ** 999 + k for k in range(1, 400) if all((10 ** 999 + k) % p for p in (2, 3, 5, 7, 11, 13))][:40]
    tokens = [[f"1/{q}", str(i + 1)] for i, q in enumerate(primes)]
    claims = {"format": certcheck.FORMAT, "config": {"tokens": tokens, "alpha": "1/2"}, "last_layer": 0,
              "settled_layer": None, "verdicts": {}}
    assert certcheck.input_bits([F(1, q) for q in primes]) > 100_000
    with pytest.raises(certcheck.BadInput, match="more than the limit"):
        certcheck.check_report(claims)
    assert certcheck.replay_work(40, 2, 0, bits=512) == certcheck.replay_work(40, 2, 0)


@pytest.mark.parametrize("key", ["²", "٣", "0" * 5000 + "1", "01", "-1"])
def test_keys_that_only_look_like_indices_are_rejected_without_a_crash(key: str) -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    cert = report["verdicts"]["T4"]["certificate"]["projections"][0]
    cert["multipliers"][key] = "0"
    assert "keyed by token indices" in _reason(report, "T4")


# --------------------------------------------------------------------------- tampering: re-derived numbers

# Paths (inside a certificate) of witnesses: a changed witness may still prove the claim.
WITNESS_KEYS = {("T2", "direction"), ("T3", "direction"), ("T3", "multipliers"), ("T4", "direction"),
                ("T4", "multipliers"), ("D1", "weights")}
SET_KEYS = {"leaders", "set", "face", "tokens"}


def _sites(claim: str, node: Any, path: tuple) -> list[tuple]:
    """Every leaf of a certificate the checker re-derives, as (claim, path)."""
    if path and (claim, path[-1]) in WITNESS_KEYS or (len(path) >= 3 and (claim, path[-2]) in WITNESS_KEYS):
        return []
    if path and path[0] == "layer_positions" and len(path) == 1:
        # Only the points: relabelling a layer key is no change when the layers coincide (all tokens fixed).
        return [s for key, points in node.items() for s in _sites(claim, points, path + (key,))]
    if isinstance(node, list) and path and path[-1] in SET_KEYS and all(isinstance(x, int) for x in node):
        return [(claim, path, "set")]
    if isinstance(node, dict):
        return [s for key, value in node.items() for s in _sites(claim, value, path + (key,))]
    if isinstance(node, list):
        return [s for i, value in enumerate(node) for s in _sites(claim, value, path + (i,))]
    return [(claim, path, "leaf")]


@functools.lru_cache(maxsize=None)
def derived_sites() -> list[tuple]:
    return [(name,) + s for name, r in sorted(reports().items()) for claim, v in sorted(r["verdicts"].items())
            for s in _sites(claim, v["certificate"], ())]


def _locate(report: dict[str, Any], claim: str, path: tuple) -> tuple[Any, Any]:
    node = report["verdicts"][claim]["certificate"]
    for key in path[:-1]:
        node = node[key]
    return node, path[-1]


def _nonzero(**bounds: Any) -> st.SearchStrategy[Fraction]:
    return st.fractions(**bounds).map(lambda x: x if x else F(1, 2))


def _changed(value: Any, kind: str, n: int, draw: Any) -> Any:
    """A different value of the same JSON type."""
    if kind == "set":
        j = draw(st.integers(0, n - 1))
        return sorted(set(value) ^ {j})
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + draw(st.sampled_from([-2, -1, 1, 2, 3]))
    if value in ("leader", "fixed", "locked"):
        return draw(st.sampled_from(sorted({"leader", "fixed", "locked"} - {value})))
    delta = draw(_nonzero(min_value=-3, max_value=3, max_denominator=7))
    return str(F(value) + delta)


@given(st.data())
def test_changing_any_rederived_number_is_rejected(data: Any) -> None:
    claim = data.draw(st.sampled_from(sorted({s[1] for s in derived_sites()})))
    name, claim, path, kind = data.draw(st.sampled_from([s for s in derived_sites() if s[1] == claim]))
    report = copy.deepcopy(reports()[name])
    parent, key = _locate(report, claim, path)
    parent[key] = _changed(parent[key], kind, len(report["config"]["tokens"]), data.draw)
    outcome = _outcome(certcheck.check_report(report), claim)
    assert outcome.status == "rejected", (name, claim, path, parent[key])


@given(st.data())
def test_changing_a_token_coordinate_is_rejected(data: Any) -> None:
    name = data.draw(st.sampled_from(sorted(reports())))
    report = copy.deepcopy(reports()[name])
    tokens = report["config"]["tokens"]
    i, r = data.draw(st.integers(0, len(tokens) - 1)), data.draw(st.integers(0, len(tokens[0]) - 1))
    tokens[i][r] = _changed(tokens[i][r], "leaf", len(tokens), data.draw)
    # T0 carries the layer-0 positions of every fixture (small n), so the change is seen there at least.
    assert "0" in report["verdicts"]["T0"]["certificate"]["layer_positions"]
    assert certcheck.check_report(report).exit_status == 1


@given(st.data())
def test_changing_alpha_is_rejected_when_a_token_moves(data: Any) -> None:
    name = data.draw(st.sampled_from(sorted(n for n, r in reports().items() if r["last_layer"] == 1)))
    report = copy.deepcopy(reports()[name])
    report["config"]["alpha"] = str(F(report["config"]["alpha"]) * data.draw(st.sampled_from([F(1, 2), F(2), F(3)])))
    # One layer: z' = z + alpha/(1+alpha) (m - z) is injective in alpha wherever m != z.
    moved = report["verdicts"]["replay"]["certificate"]["final_positions"] != report["config"]["tokens"]
    assert (certcheck.check_report(report).exit_status == 1) == moved


# --------------------------------------------------------------------------- tampering: witnesses


def _q(x: Any) -> Fraction:
    return F(x)


def _dot(x: Any, y: Any) -> Fraction:
    return sum((_q(a) * _q(b) for a, b in zip(x, y)), F(0))


def _leader_limits(cert: dict[str, Any]) -> dict[int, tuple[Fraction, ...]]:
    return {f["token"]: tuple(map(_q, f["limit"])) for f in cert["fates"] if f["kind"] == "leader"}


def _combination_ok(lam: dict[str, str], points: dict[int, tuple[Fraction, ...]], target: Any) -> bool:
    weights = {int(k): _q(v) for k, v in lam.items()}
    if not set(weights) <= set(points) or any(w < 0 for w in weights.values()) or sum(weights.values()) != 1:
        return False
    d = len(target)
    return all(sum((w * points[u][r] for u, w in weights.items()), F(0)) == _q(target[r]) for r in range(d))


def _t2_ok(cert: dict[str, Any], p: int) -> bool:
    e, leaders = cert["vertices"][p], _leader_limits(cert)
    return all(_dot(e["direction"], e["limit"]) > _dot(e["direction"], v) for u, v in leaders.items() if u != e["token"])


def _t3_ok(cert: dict[str, Any], p: int) -> bool:
    e, leaders = cert["boundary"][p], _leader_limits(cert)
    c, value = e["direction"], _q(e["value"])
    return (any(_q(x) != 0 for x in c) and value == _dot(c, e["limit"])
            and all(_dot(c, v) <= value for v in leaders.values()) and _combination_ok(e["multipliers"], leaders, e["limit"]))


def _t4_ok(cert: dict[str, Any], p: int, A: list[list[Fraction]]) -> bool:
    e, leaders = cert["projections"][p], _leader_limits(cert)
    c, top, face = e["direction"], _q(e["face_value"]), set(e["face"])
    if {u for u, v in leaders.items() if _dot(c, v) == top} != face or any(_dot(c, v) > top for v in leaders.values()):
        return False
    limit = tuple(map(_q, e["limit"]))
    Ap = [sum(((A[r][s] + A[s][r]) / 2 * limit[s] for s in range(len(limit))), F(0)) for r in range(len(limit))]
    kkt_ok = {int(k) for k in e["kkt"]} == face and all(
        _q(e["kkt"][str(u)]) == _dot(Ap, [a - b for a, b in zip(leaders[u], limit)]) >= 0 for u in face)
    return kkt_ok and _combination_ok(e["multipliers"], {u: leaders[u] for u in face}, e["limit"])


def _d1_ok(report: dict[str, Any], k: int, i: int) -> bool:
    pairs = report["verdicts"]["D1"]["certificate"]["weights"][k][i]
    before, after = _positions(report, k), _positions(report, k + 1)
    if not all(0 <= j < len(before) for j, _ in pairs) or any(_q(w) < 0 for _, w in pairs):
        return False
    if sum((_q(w) for _, w in pairs), F(0)) != 1:
        return False
    return all(sum((_q(w) * before[j][r] for j, w in pairs), F(0)) == after[i][r] for r in range(len(after[i])))


def _mutate_direction(e: dict[str, Any], draw: Any, *, value_key: str | None, points: list) -> None:
    """Scale (stays a witness), negate, or perturb one coordinate; maybe recompute the dependent value."""
    how = draw(st.sampled_from(["scale", "negate", "perturb"]))
    c = [_q(x) for x in e["direction"]]
    if how == "scale":
        c = [x * draw(st.sampled_from([F(1, 3), F(2), F(5, 2)])) for x in c]
    elif how == "negate":
        c = [-x for x in c]
    else:
        r = draw(st.integers(0, len(c) - 1))
        c[r] += draw(_nonzero(min_value=-2, max_value=2, max_denominator=4))
    e["direction"] = [str(x) for x in c]
    if value_key is not None and draw(st.booleans()):
        # recompute what the direction determines, so that the witness itself is what is judged
        e[value_key] = str(max(_dot(c, p) for p in points))


def _mutate_weights(lam: dict[str, str], draw: Any, keys: list[int]) -> None:
    how = draw(st.sampled_from(["move", "add_zero", "set"]))
    key = draw(st.sampled_from(sorted(lam)))
    other = str(draw(st.sampled_from(keys)))
    if how == "move":
        t = draw(_nonzero(min_value=-1, max_value=1, max_denominator=4))
        lam[key] = str(_q(lam[key]) - t)
        lam[other] = str(_q(lam.get(other, "0")) + t)
    elif how == "add_zero":
        lam.setdefault(other, "0")
    else:
        lam[key] = str(draw(st.fractions(min_value=0, max_value=1, max_denominator=4)))


@functools.lru_cache(maxsize=None)
def witness_sites() -> list[tuple]:
    out = []
    for name, r in sorted(reports().items()):
        v = r["verdicts"]
        out += [(name, "T2", p) for p in range(len(v["T2"]["certificate"]["vertices"]))]
        out += [(name, "T3", p) for p in range(len(v["T3"]["certificate"]["boundary"]))]
        out += [(name, "T4", p) for p in range(len(v["T4"]["certificate"]["projections"]))]
        out += [(name, "D1", (k, i)) for k, rows in enumerate(v["D1"]["certificate"]["weights"]) for i in range(len(rows))]
    return out


@pytest.mark.slow
@given(st.data())
def test_changed_witness_rejected_exactly_when_it_no_longer_proves(data: Any) -> None:
    # the claim first, so that rare sites (T4 has few projections) are drawn as often as D1 weights
    claim = data.draw(st.sampled_from(["T2", "T3", "T4", "D1"]))
    name, claim, p = data.draw(st.sampled_from([s for s in witness_sites() if s[1] == claim]))
    report = copy.deepcopy(reports()[name])
    cert = report["verdicts"][claim]["certificate"]
    n = len(report["config"]["tokens"])
    d = len(report["config"]["tokens"][0])
    A = [[_q(x) for x in row] for row in report["config"].get("A") or
         [[int(r == c) for c in range(d)] for r in range(d)]]
    leaders = _leader_limits(cert) if claim != "D1" else {}
    if claim == "T2":
        _mutate_direction(cert["vertices"][p], data.draw, value_key=None, points=[])
        expected = _t2_ok(cert, p)
    elif claim == "T3":
        e = cert["boundary"][p]
        if data.draw(st.booleans()):
            _mutate_direction(e, data.draw, value_key=None, points=[])
            if data.draw(st.booleans()):
                e["value"] = str(_dot(e["direction"], e["limit"]))
        else:
            _mutate_weights(e["multipliers"], data.draw, sorted(leaders) + [n - 1])
        expected = _t3_ok(cert, p)
    elif claim == "T4":
        e = cert["projections"][p]
        if data.draw(st.booleans()):
            _mutate_direction(e, data.draw, value_key="face_value", points=list(leaders.values()))
        else:
            _mutate_weights(e["multipliers"], data.draw, sorted(leaders))
        expected = _t4_ok(cert, p, A)
    else:
        k, i = p
        pairs = cert["weights"][k][i]
        how = data.draw(st.sampled_from(["split", "add_zero", "move", "retarget"]))
        q = data.draw(st.integers(0, len(pairs) - 1))
        j, w = pairs[q]
        if how == "split":
            pairs[q:q + 1] = [[j, str(_q(w) / 2)], [j, str(_q(w) / 2)]]
        elif how == "add_zero":
            pairs.append([data.draw(st.integers(0, n - 1)), "0"])
        elif how == "move":
            t = data.draw(_nonzero(min_value=-1, max_value=1, max_denominator=4))
            pairs[q] = [j, str(_q(w) - t)]
            pairs.append([data.draw(st.integers(0, n - 1)), str(t)])
        else:
            pairs[q] = [data.draw(st.integers(0, n - 1).filter(lambda x: x != j)), w]
        expected = _d1_ok(report, k, i)
    event(f"{claim} witness still proves: {expected}")
    outcome = _outcome(certcheck.check_report(report), claim)
    assert (outcome.status == "verified") == expected, (name, claim, p, outcome.reason)


def test_witness_changes_reach_both_outcomes() -> None:
    """The witness test is not one-sided: a scaled direction or a split weight still proves the claim."""
    report = copy.deepcopy(reports()["square"])
    cert = report["verdicts"]["T2"]["certificate"]
    cert["vertices"][0]["direction"] = [str(2 * _q(x)) for x in cert["vertices"][0]["direction"]]
    report["verdicts"]["D1"]["certificate"]["weights"][0][0].append([1, "0"])
    result = certcheck.check_report(report)
    assert _outcome(result, "T2").status == "verified" and _outcome(result, "D1").status == "verified"
    cert["vertices"][0]["direction"] = [str(-_q(x)) for x in cert["vertices"][0]["direction"]]
    assert _outcome(certcheck.check_report(report), "T2").status == "rejected"


# --------------------------------------------------------------------------- one condition at a time
# Each tampering below is caught by exactly one condition of the checker (the others still hold),
# so that no condition is redundant in the tests' eyes.


def _reason(report: dict[str, Any], claim: str) -> str:
    outcome = _outcome(certcheck.check_report(report), claim)
    assert outcome.status == "rejected", outcome
    return outcome.reason


def test_leader_fate_moved_one_layer_late_to_the_end() -> None:
    # a leader no other fate depends on, so that moving it later breaks nothing but "first"
    name, entry = next((name, f) for name, r in sorted(reports().items()) for f in r["fates"]
                       if f["kind"] == "leader" and not any(f["token"] in g["set"] for g in r["fates"] if g is not f))
    report = copy.deepcopy(reports()[name])
    fates = report["verdicts"]["T4"]["certificate"]["fates"]
    fates.remove(entry)
    fates.append(dict(entry, layer=max([entry["layer"]] + [f["layer"] for f in fates]) + 1))
    assert "not the first layer" in _reason(report, "T4")


def test_locked_fate_moved_one_layer_late_to_the_end() -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    fates = report["verdicts"]["T4"]["certificate"]["fates"]
    entry = next(f for f in fates if f["kind"] == "locked")
    fates.remove(entry)
    fates.append(dict(entry, layer=1))  # still locked at layer 1 (D7), but not first there
    assert "not the first layer" in _reason(report, "T4")


def test_locked_fate_before_the_leaders_it_needs() -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    fates = report["verdicts"]["T3"]["certificate"]["fates"]
    entry = next(f for f in fates if f["kind"] == "locked")
    fates.remove(entry)
    fates.insert(0, entry)
    assert "not established as leader/fixed before" in _reason(report, "T3")


def test_fates_out_of_layer_order() -> None:
    report = copy.deepcopy(reports()["emerging_leader"])
    fates = report["verdicts"]["T4"]["certificate"]["fates"]
    assert fates[-1]["layer"] > fates[0]["layer"]
    fates.insert(0, fates.pop())
    assert "not in establishment order" in _reason(report, "T4")


# Leaders (1,0,0), (0,1,0), (3/5,3/5,-1); token 3 has C_3 = {0, 1} with equal scores against
# m_F = (1/2,1/2,0), but token 2 scores 3/5 > 1/2 against it: D7 locking does not hold.
NOT_LOCKED = {"tokens": [["1", "0", "0"], ["0", "1", "0"], ["3/5", "3/5", "-1"], ["1/4", "1/4", "1/4"]],
              "alpha": "1/2"}


def test_forged_lock_with_a_token_scoring_higher_than_F() -> None:
    report = _report(parse_configuration(NOT_LOCKED))
    forged = [{"token": t, "kind": "leader", "layer": 0, "set": [t], "limit": report["config"]["tokens"][t]}
              for t in (0, 1, 2)]
    forged.append({"token": 3, "kind": "locked", "layer": 0, "set": [0, 1], "limit": ["1/2", "1/2", "0"], "value": "1/2"})
    _forge(report, "T3", {"settled_layer": 0, "fates": forged, "boundary": []})
    assert "token 2 scores 3/5 > 1/2" in _reason(report, "T3")


def test_D3_missing_a_leader() -> None:
    report = copy.deepcopy(reports()["square"])
    report["verdicts"]["D3"]["certificate"]["leaders"].pop()
    assert "tokens leading by layer" in _reason(report, "D3")


def test_T3_missing_a_boundary_entry() -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    report["verdicts"]["T3"]["certificate"]["boundary"].pop()
    assert "not every non-leader token" in _reason(report, "T3")


def test_T4_called_vacuous_with_non_vertex_limits() -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    report["verdicts"]["T4"]["certificate"]["vacuous"] = True
    assert "non-vertex limits" in _reason(report, "T4")


def test_T0_later_layer_with_the_same_leaders() -> None:
    report = copy.deepcopy(reports()["square"])
    cert = report["verdicts"]["T0"]["certificate"]
    cert["layer"] = 1
    del cert["layer_positions"]
    assert "not the first layer with a leader" in _reason(report, "T0")


def test_forged_D2_where_the_A_norm_decreases() -> None:
    """nonsymmetric_pd seed 0 (outside the hypotheses): the producer's D2 fails; exact norms in a forged certificate."""
    report = _report(generate("nonsymmetric_pd", 0, n=3, d=2))
    assert report["verdicts"]["D2"]["status"] == "failed"
    A = [[_q(x) for x in row] for row in report["config"]["A"]]
    last = report["last_layer"]
    norms = [[str(_dot([_dot(row, z) for row in A], z)) for z in _positions(report, k)] for k in range(last + 1)]
    _forge(report, "D2", {"last_layer": last, "norms": norms})
    assert "decreases" in _reason(report, "D2")



def _exact_norms(report: dict[str, Any]) -> list[list[str]]:
    """<A z_i^k, z_i^k> for every layer run, from the exact engine (V when the configuration has one)."""
    config = report["config"]
    A = [[_q(x) for x in row] for row in config["A"]] if config.get("A") else None
    out = []
    for layer in exact_layers(config["tokens"], alpha=config["alpha"], A=config.get("A"), V=config.get("V")):
        if layer.index > report["last_layer"]:
            return out
        out.append([str(_dot([_dot(row, z) for row in A], z) if A else _dot(z, z)) for z in layer.positions()])
    raise AssertionError  # pragma: no cover


# Outside D2's proof (A not symmetric): no norm decreases within the layers run, but the locked token's squared
# A-norm falls later (-25/8 at layer 0, towards -33/8). Certifying D2 from layers 0..1 would certify a false D2.
D2_FALLS_LATER = {"tokens": [["1", "1/2"], ["1", "-1/2"]], "A": [["-3", "-3"], ["2", "-5/2"]], "alpha": "1/2"}


@pytest.mark.parametrize("data, why", [(D2_FALLS_LATER, "A symmetric positive semidefinite only"),
                                       (V_LEADER_LOST, "V = alpha I")])
def test_D2_outside_its_proof_is_inconclusive_and_a_certified_one_rejected(data: dict[str, Any], why: str) -> None:
    report = _report(parse_configuration(data, outside_hypotheses=True))
    verdict = report["verdicts"]["D2"]
    assert verdict["status"] == "inconclusive" and why in verdict["summary"]
    assert _outcome(certcheck.check_report(report), "D2").status == "inconclusive"
    _forge(report, "D2", {"last_layer": report["last_layer"], "norms": _exact_norms(report)})
    report["verdicts"]["D2"]["evidence"]["A_symmetric_positive_definite"] = False
    assert why in _reason(report, "D2")


def test_D2_falls_after_the_layers_run_in_the_adversary_s_case() -> None:
    """The reason D2_FALLS_LATER must not be certified: a later layer's norm is below layer 0's."""
    report = _report(parse_configuration(D2_FALLS_LATER, outside_hypotheses=True))
    A = [[_q(x) for x in row] for row in D2_FALLS_LATER["A"]]
    norms = [[_dot([_dot(row, z) for row in A], z) for z in layer.positions()]
             for _, layer in zip(range(40), exact_layers(D2_FALLS_LATER["tokens"], alpha="1/2", A=D2_FALLS_LATER["A"]))]
    assert report["last_layer"] < 39 and min(row[1] for row in norms) < norms[0][1]


def test_D2_on_a_singular_positive_semidefinite_A_is_certified_and_verified() -> None:
    """D2's proof needs A symmetric positive semidefinite only (formal/Statement.v D2_statement)."""
    data = {"tokens": [["2", "1"], ["0", "1"], ["1", "-1"]], "A": [["1", "0"], ["0", "0"]], "alpha": "1/2"}
    report = _report(parse_configuration(data, outside_hypotheses=True))
    assert report["verdicts"]["D2"]["status"] == "certified"
    assert _outcome(certcheck.check_report(report), "D2").status == "verified"


def test_D1_under_a_value_matrix_is_inconclusive_and_a_certified_one_rejected() -> None:
    """Every token leads at layer 0 and stays put, so D1 holds on the layers run; with this V it is not proved."""
    data = {"tokens": [["1", "0"], ["0", "1"], ["-1", "0"], ["0", "-1"]], "V": [["2", "1"], ["0", "1"]], "alpha": "1/2"}
    report = _report(parse_configuration(data, outside_hypotheses=True))
    verdict = report["verdicts"]["D1"]
    assert verdict["status"] == "inconclusive" and "V = alpha I" in verdict["summary"]
    assert _outcome(certcheck.check_report(report), "D1").status == "inconclusive"
    last = report["last_layer"]
    assert last >= 1
    _forge(report, "D1", {"first_layer": 0, "last_layer": last, "weights": [[[[i, "1"]] for i in range(4)]] * last})
    assert "V = alpha I" in _reason(report, "D1")

# Non-symmetric A = [[1, 1], [-1, 1]] (Asym = I): token 2 locks onto the leaders' mean (1, 0), which
# is not the projection of 0 onto their edge; a forged T4 with the exact KKT values, one negative.
def test_forged_T4_with_a_negative_kkt_value() -> None:
    data = {"tokens": [["2", "1"], ["0", "-1"], ["1/2", "0"]], "alpha": "1/2", "A": [["1", "1"], ["-1", "1"]]}
    report = _report(parse_configuration(data, outside_hypotheses=True))
    assert report["verdicts"]["T4"]["status"] == "failed"
    projection = {"tokens": [2], "limit": ["1", "0"], "fate": "locked", "layer": 0, "set": [0, 1],
                  "direction": ["1", "-1"], "face_value": "1", "face": [0, 1], "multipliers": {"0": "1/2", "1": "1/2"},
                  "kkt": {"0": "1", "1": "-1"}}
    fates = report["verdicts"]["T3"]["certificate"]["fates"]
    _forge(report, "T4", {"vacuous": False, "settled_layer": max(f["layer"] for f in fates), "fates": fates,
                          "projections": [projection]})
    assert "kkt[1] = -1 < 0" in _reason(report, "T4")


def _forge(report: dict[str, Any], claim: str, certificate: dict[str, Any]) -> None:
    """``claim`` certified with a forged ``certificate`` (its evidence the run's fields only, as a certified verdict's)."""
    evidence = {key: report["verdicts"][claim]["evidence"][key] for key in ("outside_hypotheses", "last_layer",
                                                                          "settled_layer")}
    report["verdicts"][claim].update(status="certified", certificate=certificate, evidence=evidence)


def _forged_T3(data: dict[str, Any], fates: list[dict[str, Any]]) -> dict[str, Any]:
    report = _report(parse_configuration(data))
    _forge(report, "T3", {"settled_layer": max(f["layer"] for f in fates), "fates": fates, "boundary": []})
    return report


def _leader_fates(data: dict[str, Any], tokens: list[int]) -> list[dict[str, Any]]:
    return [{"token": t, "kind": "leader", "layer": 0, "set": [t], "limit": data["tokens"][t]} for t in tokens]


def test_forged_fixed_token_away_from_the_mean_of_G() -> None:
    # C_1 = {0, 1} at layer 0 (1/2 = 1/2), but z_1 = (1/2, 1/2) is not the mean of G = {0}.
    data = {"tokens": [["1", "0"], ["1/2", "1/2"]], "alpha": "1/2"}
    fates = _leader_fates(data, [0]) + [{"token": 1, "kind": "fixed", "layer": 0, "set": [0], "limit": ["1/2", "1/2"]}]
    assert "not the mean of G" in _reason(_forged_T3(data, fates), "T3")


def test_forged_lock_with_unequal_scores_on_F() -> None:
    # C_2 = {0, 1} at layer 0, but <A m_F, v> is 2 for v = (2, 0) and 1/2 for v = (0, 1).
    data = {"tokens": [["2", "0"], ["0", "1"], ["1/4", "1/2"]], "alpha": "1/2"}
    fates = _leader_fates(data, [0, 1]) + [
        {"token": 2, "kind": "locked", "layer": 0, "set": [0, 1], "limit": ["1", "1/2"], "value": "2"}]
    assert "differs on F" in _reason(_forged_T3(data, fates), "T3")


def test_fixed_token_before_its_leaders() -> None:
    report = copy.deepcopy(reports()["three_way_tie"])
    fates = report["verdicts"]["T3"]["certificate"]["fates"]
    fates.insert(0, fates.pop(next(i for i, f in enumerate(fates) if f["kind"] == "fixed")))
    assert "not established as leader/fixed before" in _reason(report, "T3")


def test_locked_value_changed() -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    entry = next(f for f in report["verdicts"]["T2"]["certificate"]["fates"] if f["kind"] == "locked")
    entry["value"] = str(F(entry["value"]) + 1)
    assert "value is" in _reason(report, "T2")


def test_D1_negative_weight_that_still_sums_and_combines() -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    pairs = report["verdicts"]["D1"]["certificate"]["weights"][0][4]
    j, w = pairs[0]
    pairs[0:1] = [[j, str(F(w) + 1)], [j, "-1"]]
    assert not _d1_ok(report, 0, 4)
    assert "negative" in _reason(report, "D1")


def test_multipliers_negative_along_an_affine_dependence() -> None:
    # Leaders of non_leader_clusters: 0 (1,1), 1 (1,-1), 2 (-1,1), 3 (-1,-1); (0) + (3) = (1) + (2).
    report = copy.deepcopy(reports()["non_leader_clusters"])
    cert = report["verdicts"]["T3"]["certificate"]
    p = next(i for i, e in enumerate(cert["boundary"]) if e["multipliers"] == {"0": "1/2", "1": "1/2"})
    cert["boundary"][p]["multipliers"] = {"0": "3/4", "1": "1/4", "2": "-1/4", "3": "1/4"}
    assert not _t3_ok(cert, p)
    assert "negative" in _reason(report, "T3")


def test_T3_zero_direction() -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    cert = report["verdicts"]["T3"]["certificate"]
    cert["boundary"][0].update(direction=["0", "0"], value="0")
    assert not _t3_ok(cert, 0)
    assert "direction is zero" in _reason(report, "T3")


def test_T4_direction_exposing_the_opposite_side() -> None:
    # (-1/2, 0) puts leaders 0, 1 at -1/2 (the face's value) but leaders 2, 3 above it.
    report = copy.deepcopy(reports()["non_leader_clusters"])
    cert = report["verdicts"]["T4"]["certificate"]
    p = next(i for i, e in enumerate(cert["projections"]) if e["face"] == [0, 1])
    cert["projections"][p].update(direction=["-1/2", "0"], face_value="-1/2")
    A = [[F(1), F(0)], [F(0), F(1)]]
    assert not _t4_ok(cert, p, A)
    assert "> face_value" in _reason(report, "T4")


def test_T2_direction_separating_only_weakly() -> None:
    report = copy.deepcopy(reports()["square"])
    cert = report["verdicts"]["T2"]["certificate"]
    p = next(i for i, e in enumerate(cert["vertices"]) if e["limit"] == ["1", "1"])
    cert["vertices"][p]["direction"] = ["1", "0"]  # ties with the vertex (1, -1)
    assert not _t2_ok(cert, p)
    assert "is not >" in _reason(report, "T2")


def test_T2_missing_a_vertex() -> None:
    report = copy.deepcopy(reports()["square"])
    report["verdicts"]["T2"]["certificate"]["vertices"].pop()
    assert "vertices cover" in _reason(report, "T2")


def _deterministic_changes(value: Any, kind: str, n: int) -> list[Any]:
    if kind == "set":
        return [sorted(set(value) ^ {j}) for j in range(n)]
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value - 1, value + 1]
    if value in ("leader", "fixed", "locked"):
        return sorted({"leader", "fixed", "locked"} - {value})
    return [str(F(value) + F(1, 7)), str(F(value) - 1)]


@pytest.mark.slow
def test_every_rederived_number_changed_is_rejected_exhaustively() -> None:
    """All sites of all fixtures, a few fixed changes each (the Hypothesis test above draws at random)."""
    survivors = []
    for name, claim, path, kind in derived_sites():
        report = reports()[name]
        n = len(report["config"]["tokens"])
        parent, key = _locate(report, claim, path)
        original = parent[key]
        try:  # changed in place and restored: a deep copy per change would dominate the run time
            for value in _deterministic_changes(original, kind, n):
                parent[key] = value
                outcome = certcheck.check_record(report["config"], {claim: report["verdicts"][claim]},
                                                 last_layer=report["last_layer"],
                                                 settled_layer=report["settled_layer"])[claim]
                if outcome["ok"]:
                    survivors.append((name, claim, path, value))
        finally:
            parent[key] = original
    assert survivors == []


def test_multipliers_with_the_wrong_sum_but_the_right_combination() -> None:
    # (1,1) + (-1,-1) = 0, so adding t to both leaves the combination and changes the sum by 2t.
    report = copy.deepcopy(reports()["non_leader_clusters"])
    cert = report["verdicts"]["T3"]["certificate"]
    p = next(i for i, e in enumerate(cert["boundary"]) if e["multipliers"] == {"0": "1/2", "1": "1/2"})
    cert["boundary"][p]["multipliers"] = {"0": "3/4", "1": "1/2", "3": "1/4"}
    assert not _t3_ok(cert, p)
    assert "sum to" in _reason(report, "T3")


def test_D1_weights_with_the_wrong_sum_but_the_right_combination() -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    assert report["config"]["tokens"][0] == ["1", "1"] and report["config"]["tokens"][3] == ["-1", "-1"]
    report["verdicts"]["D1"]["certificate"]["weights"][0][4] += [[0, "1/4"], [3, "1/4"]]
    assert not _d1_ok(report, 0, 4)
    assert "sum to" in _reason(report, "D1")


def test_T4_multipliers_and_kkt_keys_outside_the_face() -> None:
    for key in ("multipliers", "kkt"):
        report = copy.deepcopy(reports()["non_leader_clusters"])
        cert = report["verdicts"]["T4"]["certificate"]
        p = next(i for i, e in enumerate(cert["projections"]) if e["face"] == [0, 1])
        # leader 2 = (-1, 1) is not on the face; kkt value <p, u - p> for u = (-1, 1), p = (1, 0) is -2
        cert["projections"][p][key]["2"] = "0" if key == "multipliers" else "-2"
        assert not _t4_ok(cert, p, [[F(1), F(0)], [F(0), F(1)]])
        _reason(report, "T4")


def test_settled_layer_checked_without_the_report() -> None:
    r = reports()["emerging_leader"]
    verdict = copy.deepcopy(r["verdicts"]["T2"])
    verdict["certificate"]["settled_layer"] += 1
    outcome = certcheck.check_record(r["config"], {"T2": verdict}, last_layer=r["last_layer"], settled_layer=None)["T2"]
    assert not outcome["ok"] and "the fates settle at" in outcome["reason"]


def test_value_matrix_D3_over_more_layers_sees_the_lost_leader() -> None:
    """The leader set by layer 3, from the engine: leader 1 no longer leads at layer 3 (C_1 = {0})."""
    config = parse_configuration(V_LEADER_LOST, outside_hypotheses=True)
    layers = [layer for _, layer in zip(range(4), exact_layers(config.tokens, alpha=config.alpha, V=config.V))]
    first: dict[int, int] = {}
    for layer in layers:
        for i, C in enumerate(layer.attention_sets()):
            if C == {i}:
                first.setdefault(i, layer.index)
    leaders = [{"token": i, "first_layer": f, "position": [str(x) for x in layers[f].positions()[i]]}
               for i, f in sorted(first.items())]
    verdict = {"claim": "D3", "status": "certified", "summary": "", "evidence": {},
               "certificate": {"last_layer": 3, "leaders": leaders}}
    outcome = certcheck.check_record(_report(config)["config"], {"D3": verdict}, last_layer=3, settled_layer=None)["D3"]
    assert not outcome["ok"] and "C_1 at layer 3 is {0}" in outcome["reason"]


def test_forged_leader_fate_for_a_locked_token() -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    fates = report["verdicts"]["T3"]["certificate"]["fates"]
    entry = next(f for f in fates if f["kind"] == "locked")
    entry.update(kind="leader", set=[entry["token"]], limit=report["config"]["tokens"][entry["token"]])
    entry.pop("value")
    assert f"not {{{entry['token']}}}" in _reason(report, "T3")


def test_forged_fixed_fate_at_the_mean_of_G_attending_elsewhere() -> None:
    # z_2 = (1, 1/2) is the mean of G = {(2,0), (0,1)}, but C_2 = {0}: D7 (b) does not hold.
    data = {"tokens": [["2", "0"], ["0", "1"], ["1", "1/2"]], "alpha": "1/2"}
    fates = _leader_fates(data, [0, 1]) + [{"token": 2, "kind": "fixed", "layer": 0, "set": [0, 1], "limit": ["1", "1/2"]}]
    assert "not G + {2}" in _reason(_forged_T3(data, fates), "T3")


def test_T3_fates_missing_a_token() -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    cert = report["verdicts"]["T3"]["certificate"]
    token = cert["fates"].pop()["token"]
    cert["boundary"] = [e for e in cert["boundary"] if e["token"] != token]
    assert "one entry per token" in _reason(report, "T3")


def test_T3_boundary_limit_moved_to_a_leader_with_a_consistent_witness() -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    cert = report["verdicts"]["T3"]["certificate"]
    p = next(i for i, e in enumerate(cert["boundary"]) if e["multipliers"] == {"0": "1/2", "1": "1/2"})
    cert["boundary"][p].update(limit=["1", "1"], direction=["1", "1"], value="2", multipliers={"0": "1"})
    assert "is not the fate's" in _reason(report, "T3")


def test_T3_boundary_entry_twice() -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    boundary = report["verdicts"]["T3"]["certificate"]["boundary"]
    boundary.append(copy.deepcopy(boundary[0]))
    assert "listed twice" in _reason(report, "T3")


# --------------------------------------------------------------------------- malformed certificates

JUNK = [None, "abc", "1e9999999", "1/0", [], {}, True, 1.5, 12345, [["x"]], {"0": None}]


def _containers(node: Any, path: tuple = ()) -> list[tuple]:
    """Paths to every key / index of a certificate (the optional layer_positions as a whole excepted)."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    out = []
    for key, value in items:
        if path == () and key == "layer_positions":
            continue
        out.append(path + (key,))
        out += _containers(value, path + (key,))
    return out


def _is_rational_text(value: Any) -> bool:
    """A string an exact rational is written as ("3", "-1/2")."""
    return isinstance(value, str) and re.fullmatch(r"-?\d+(/\d+)?", value) is not None


@given(st.data())
def test_junk_anywhere_in_a_certificate_is_rejected_without_a_crash(data: Any) -> None:
    name = data.draw(st.sampled_from(sorted(reports())))
    claim = data.draw(st.sampled_from(sorted(reports()[name]["verdicts"])))
    report = copy.deepcopy(reports()[name])
    cert = report["verdicts"][claim]["certificate"]
    path = data.draw(st.sampled_from(_containers(cert)))
    node = cert
    for key in path[:-1]:
        node = node[key]
    if isinstance(node, dict) and data.draw(st.booleans()):
        del node[path[-1]]
    else:
        # A number in place of a rational may be another valid value (a separating direction has
        # slack): wrong rationals are the forgery tests' business. Indices keep the integer junk.
        rational = _is_rational_text(node[path[-1]])
        candidates = [j for j in JUNK if j != node[path[-1]] and not (rational and type(j) is int)]
        junk = data.draw(st.sampled_from(candidates))
        node[path[-1]] = junk
    outcome = _outcome(certcheck.check_report(report), claim)
    assert outcome.status == "rejected", (name, claim, path)


def test_missing_key_is_a_rejection_not_a_crash() -> None:
    report = copy.deepcopy(reports()["triangle"])
    del report["verdicts"]["T3"]["certificate"]["fates"][0]["limit"]
    assert "missing 'limit'" in _reason(report, "T3")
    report = copy.deepcopy(reports()["triangle"])
    # More digits than int() converts: read in chunks (a limit of Python is not a rejection), then
    # rejected because it is not the norm.
    report["verdicts"]["D2"]["certificate"]["norms"][0][0] = "1" * 5000
    assert "norms[0][0] is 1111" in _reason(report, "D2")
    report["verdicts"]["D2"]["certificate"]["norms"][0][0] = "1" * (certcheck.MAX_DIGITS + 1)  # beyond the cap
    # Named as too long (the documented limit), not as something that is not a number.
    assert f"more than the {certcheck.MAX_DIGITS:,} the checker reads" in _reason(report, "D2")
    report["verdicts"]["D2"]["certificate"]["norms"][0][0] = "1x" * (certcheck.MAX_DIGITS // 2 + 1)
    assert "not an exact number" in _reason(report, "D2")


def test_unsettled_kind_inside_a_certificate() -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    entry = next(f for f in report["verdicts"]["T3"]["certificate"]["fates"] if f["kind"] == "locked")
    entry["kind"] = "unsettled"
    assert "is not leader, fixed, locked or path" in _reason(report, "T3")


def test_T1_leader_listed_twice() -> None:
    report = copy.deepcopy(reports()["square"])
    leaders = report["verdicts"]["T1"]["certificate"]["leaders"]
    leaders.append(copy.deepcopy(leaders[0]))
    assert "listed twice" in _reason(report, "T1")


def test_T4_missing_a_projection() -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    report["verdicts"]["T4"]["certificate"]["projections"].pop()
    assert "one entry per non-vertex limit" in _reason(report, "T4")


def test_D1_missing_a_token() -> None:
    report = copy.deepcopy(reports()["non_leader_clusters"])
    report["verdicts"]["D1"]["certificate"]["weights"][0].pop()
    assert "one entry per token" in _reason(report, "D1")


def test_T4_needs_a_positive_definite_symmetric_part(monkeypatch: Any) -> None:
    """The KKT values prove an A-projection only for (A + A^T)/2 positive definite (known answers above)."""
    monkeypatch.setattr(certcheck.Model, "Asym_positive_definite", property(lambda self: False))
    report = copy.deepcopy(reports()["non_leader_clusters"])
    assert "not positive definite" in _reason(report, "T4")
    vacuous = copy.deepcopy(reports()["square"])
    assert vacuous["verdicts"]["T4"]["certificate"]["vacuous"]
    assert _outcome(certcheck.check_report(vacuous), "T4").status == "verified"


@pytest.mark.parametrize("n,absent,unlisted", [
    (1, "its 1 saved file was not found under runs/", "it lists 1 file, the folder"),
    (2, "its 2 saved files were not found under runs/", "it lists 2 files, the folder"),
], ids=["one", "two"])
def test_a_section_s_files_are_counted_in_the_singular_for_one(tmp_path: Path, n: int, absent: str,
                                                               unlisted: str) -> None:
    from verify.certcheck.results.sections import _section_outcomes
    data = {"optional_sections": {"control": {"files": [{"path": f"runs/control/x{i}.json", "sha256": "0" * 64}
                                                        for i in range(n)], "directory": "runs/control"}}}
    [missing] = _section_outcomes(data, "r.json", str(tmp_path / "missing"))
    assert missing.status == certcheck.NOT_CHECKED and missing.reason.startswith(absent), missing
    [listed] = _section_outcomes(data, "r.json", str(tmp_path))
    assert listed.status == "rejected" and listed.reason.startswith(unlisted), listed


def test_no_reason_of_a_schema_drops_out_of_the_not_checked_table() -> None:
    # docs/certcheck.md's "not checked" table is certcheck.schema.rows of every schema. Two not-checked shapes at one
    # pattern (inputs[]: the campaign file's entry and the specification's) once kept only the first reason, so the
    # table did not say why the specification's sha256 is not checked. Every reason must be in its pattern's row.
    from verify.certcheck.kernel import schema

    def reasons(node: Any, where: str) -> Any:
        if isinstance(node, schema.Unchecked):
            yield where, node.reason
        elif isinstance(node, schema.Either):
            for option in node.options:
                yield from reasons(option, where)
        elif isinstance(node, schema.Items):
            yield from reasons(node.item, f"{where}[]")
        elif isinstance(node, schema.Obj):
            for key, child in node.fields.items():
                shown = "*" if node.wildcard else key
                yield from reasons(child, f"{where}.{shown}" if where else shown)
            if node.extra is not None:  # keys of one kind: * in a map, <what they are> beside named fields
                shown = f"<{node.extra[0]}>" if node.fields else "*"
                yield from reasons(node.extra[2], f"{where}.{shown}" if where else shown)

    for kind, node in certcheck.schemas().items():
        table = {row.pattern: row.reason for row in schema.rows(node)}
        for where, reason in reasons(node, ""):
            assert reason in table[where], (kind, where, reason)
    table = {row.pattern: row.reason for row in schema.rows(certcheck.schemas()["verification report (results.json)"])}
    assert "role campaign" in table["inputs[]"] and "role specification" in table["inputs[]"]


@pytest.mark.parametrize("field, value", [("layer_budget", [60]), ("layer_budget", True), ("layer_budget", -1),
                                          ("time_budget", [1]), ("time_budget", "1 hour"), ("time_budget", 0)])
def test_a_run_s_budget_that_is_not_a_number_is_rejected(tmp_path: Path, field: str, value: Any) -> None:
    # The budgets are inputs of the run, not re-derived, but the checks on them (last_layer within the layer budget,
    # equal to it when the run stopped by it; a time budget when it stopped by time) were skipped for a list.
    report = copy.deepcopy(reports()["triangle"])
    assert certcheck.check_report(copy.deepcopy(report)).exit_status == 0
    report[field] = value
    result = certcheck.check_report(report)
    assert result.exit_status == 1
    assert any(o.status == "rejected" and o.claim == "(run)" and o.reason.startswith(f"{field} is ")
               for o in result.outcomes), result.outcomes
    for fine in ({"time_budget": 30}, {"time_budget": 2.5}, {"time_budget": None}):
        report = dict(copy.deepcopy(reports()["triangle"]), **fine)
        assert certcheck.check_report(report).exit_status == 0, fine
        path = tmp_path / "claims.json"  # through the file reader, which keeps a decimal as its text
        path.write_text(json.dumps(report))
        assert certcheck.check_file(str(path)).exit_status == 0, fine


@pytest.mark.parametrize("field", ["status", "stopped_by", "layer_budget", "outside_hypotheses", "hypothesis_violations"])
def test_a_run_field_set_to_null_is_rejected(tmp_path: Path, field: str) -> None:
    # A null status, stopped_by, layer budget or hypotheses flag/list read as "not stated" (the report builder's hook
    # states no such field) and skipped its comparison with the replay: the file verified. A file states them.
    report = copy.deepcopy(reports()["triangle"])
    report[field] = None
    result = certcheck.check_report(report)
    assert result.exit_status == 1
    assert any(o.claim == "(run)" and o.status == "rejected" and o.reason.startswith(f"{field}: null")
               for o in result.outcomes), result.outcomes
    if field in ("status", "stopped_by"):  # a results.json record's own fields
        data = _results({"triangle": reports()["triangle"]})
        data["examples"][0][field] = None
        path = tmp_path / "results.json"
        path.write_text(json.dumps(data))
        result = certcheck.check_file(str(path))
        assert any(o.claim == "(run)" and o.status == "rejected" and o.reason.startswith(f"{field}: null")
                   for o in result.outcomes), result.outcomes


def test_a_section_certcheck_has_no_routine_for_is_not_checked_even_without_files(tmp_path: Path) -> None:
    # docs/certcheck.md: a section without a routine is reported not checked. Without files it was passed over in
    # silence, so any key (a forged section for a renderer to show, its "skipped" sentence) rode along unread.
    data = _results({"triangle": reports()["triangle"]})
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    assert certcheck.check_file(str(path)).exit_status == 0
    data["optional_sections"]["forged"] = {"directory": None, "files": [], "skipped": "every claim kernel-checked"}
    path.write_text(json.dumps(data))
    result = certcheck.check_file(str(path))
    assert result.exit_status == 3
    assert [(o.claim, o.status) for o in result.outcomes if o.status != "verified"] == [("(sections)", "not checked")]
    assert any("no routine for the section 'forged'" in o.reason for o in result.outcomes)


def test_a_boolean_is_not_a_count_nor_a_token() -> None:
    """JSON's true is not 1 (nor false 0), as Python's == would have it: a fate's token or layer, summary.errors."""
    report = copy.deepcopy(reports()["triangle"])
    entry = next(f for f in report["fates"] if f["token"] == 1)
    entry["token"] = True
    assert any("fates[1]" in o.reason for o in _rejections(certcheck.check_report(report)))
    report = copy.deepcopy(reports()["triangle"])
    t = next(t for t, f in enumerate(report["fates"]) if f["layer"] in (0, 1))
    report["fates"][t]["layer"] = bool(report["fates"][t]["layer"])
    assert any(f"fates[{t}]" in o.reason for o in _rejections(certcheck.check_report(report)))
    data = copy.deepcopy(_campaign())
    assert data["summary"]["errors"] == 0
    data["summary"]["errors"] = False
    assert any("task error" in o.reason for o in _rejections(_check_results(data)))


@pytest.mark.parametrize("alpha", ["-1", "0", "abc"])
def test_an_invalid_alpha_beside_a_value_matrix_is_bad_input(alpha: str) -> None:
    report = _report(parse_configuration(V_LEADER_LOST, outside_hypotheses=True))
    report["config"]["alpha"] = alpha
    with pytest.raises(certcheck.BadInput, match="config.alpha"):
        certcheck.check_report(report)
