"""Files forged to make the independent checker say "everything verified" about something false.

Each test takes a real output of the suite (a claims report of ``check``, the shared small report's
results.json, a softmax record, a control result, a classification network), changes it the way
a forger who has read verify/certcheck/ would, with everything else made consistent, and requires
certcheck to exit 1 (or 2, refused with one line naming the field), never 0 or 3. Each class of
hole has its tests here: a certificate that covers less than its verdict claims, keys the checker
does not know, records marked "error" that keep their verdicts, exact fields that were never
re-derived, a file that chooses the folder it is checked against, and output a file can garble.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from verify import certcheck
from verify.app.campaign import claim_counts, closed_form_summary, overall_statuses
from verify.app.cli import main as cli_main
from verify.claims import check_configuration
from verify.core import exitcodes
from verify.core.config import parse_configuration
from verify.core.families import generate

REPO = Path(__file__).resolve().parents[2]

# A value matrix V that is not a multiple of I: D1 is false at layer 1 (token 0 leaves the hull).
V_CONFIG = {"tokens": [["-1", "1/2"], ["-7/4", "5/4"], ["1", "1/4"], ["3/4", "-7/4"], ["1/2", "-1/4"]],
            "V": [["-3/2", "-3/2"], ["-1/4", "3/4"]], "alpha": "1/2", "outside_hypotheses": True}
TIE = {"tokens": [["1", "0"], ["0", "1"], ["1/2", "1/2"], ["-1/4", "1/8"]], "alpha": "1/2"}


def claims(config: dict[str, Any], **options: Any) -> dict[str, Any]:
    """The producer's claims report of ``config``, through JSON."""
    parsed = parse_configuration(config, outside_hypotheses=bool(config.get("outside_hypotheses")))
    report = check_configuration(parsed, cross_check=False, **options).to_json_dict()
    return json.loads(json.dumps(report))


def combine(report: dict[str, Any]) -> dict[str, Any]:
    statuses = [v["status"] for v in report["verdicts"].values()]
    report["status"] = "failed" if "failed" in statuses else "inconclusive" if "inconclusive" in statuses else "certified"
    return report


def run_checker(data: dict[str, Any], tmp_path: Path, *args: str, capsys: Any = None) -> tuple[int, str]:
    """(exit status, output) of ``python -m verify.certcheck`` on ``data`` written to a file."""
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    status = certcheck.main([str(path), *args])
    out = ""
    if capsys is not None:
        captured = capsys.readouterr()
        out = captured.out + captured.err
    return status, out


def refused_or_rejected(data: dict[str, Any], tmp_path: Path, capsys: Any, *fragments: str, **options: Any) -> str:
    status, out = run_checker(data, tmp_path, *(f"--{k.replace('_', '-')}={v}" for k, v in options.items()),
                              capsys=capsys)
    assert status in (1, 2), out
    for fragment in fragments:
        assert fragment in out, out
    return out


@pytest.fixture()
def results(small_report: Path) -> dict[str, Any]:
    return json.loads((small_report / "results.json").read_text(encoding="utf-8"))


def refresh(data: dict[str, Any]) -> dict[str, Any]:
    """The summary recomputed from the records with the suite's own merge functions (a careful forger)."""
    records = data["examples"]
    exit_status = exitcodes.combine(overall_statuses(records)) if records else exitcodes.INCONCLUSIVE
    data["summary"].update(
        overall={exitcodes.SUCCESS: "certified", exitcodes.FALSE: "failed"}.get(exit_status, "inconclusive"),
        exit_status=exit_status, examples=len(records), errors=sum(r.get("status") == "error" for r in records),
        claims=claim_counts(records), closed_form=closed_form_summary(records, data["campaign"]["layer_budget"]))
    return data


# --------------------------------------------------------------------------- coverage


def test_a_D1_certificate_with_no_weights_does_not_certify_D1_where_it_is_false(tmp_path: Path, capsys: Any) -> None:
    report = claims(V_CONFIG, layer_budget=10)
    assert report["verdicts"]["D1"]["status"] == "failed" and report["last_layer"] >= 1
    last = report["last_layer"]
    evidence = {key: report["verdicts"]["D1"]["evidence"][key] for key in ("outside_hypotheses", "last_layer",
                                                                           "settled_layer")}
    report["verdicts"]["D1"].update(status="certified", summary="forged", evidence=evidence,
                                    certificate={"first_layer": last, "last_layer": last, "weights": []})
    refused_or_rejected(combine(report), tmp_path, capsys, "D1 rejected", "first_layer")


def test_a_D1_certificate_that_skips_layer_0_is_rejected(tmp_path: Path, capsys: Any) -> None:
    report = json.loads(json.dumps(check_configuration(generate("generic", 1, n=5, d=2), cross_check=False).to_json_dict()))
    certificate = report["verdicts"]["D1"]["certificate"]
    assert report["last_layer"] >= 2 and certificate["first_layer"] == 0
    certificate.update(first_layer=1, weights=certificate["weights"][1:])
    refused_or_rejected(report, tmp_path, capsys, "D1 rejected", "first_layer")


def test_a_T4_certificate_states_the_layer_its_fates_settle_at(tmp_path: Path, capsys: Any) -> None:
    report = claims(TIE, layer_budget=10)
    certificate = report["verdicts"]["T4"]["certificate"]
    assert certificate["settled_layer"] == report["settled_layer"]
    certificate["settled_layer"] += 1
    refused_or_rejected(report, tmp_path, capsys, "T4 rejected", "settled_layer")
    del certificate["settled_layer"]
    refused_or_rejected(report, tmp_path, capsys, "T4 rejected", "settled_layer")


ROTATING_SQUARE = json.loads((REPO / "examples" / "rotating_square.json").read_text(encoding="utf-8"))


def test_a_failed_T0_s_similarity_certificate_covers_what_its_evidence_says(tmp_path: Path, capsys: Any) -> None:
    # docs/theory.md D11: the certificate shows no token ever leads; its contraction power (if any) that every token
    # converges to 0. The evidence's sentence about the limits may say no more than the certificate shows.
    report = claims(ROTATING_SQUARE)
    evidence = report["verdicts"]["T0"]["evidence"]
    assert report["stopped_by"] == "similarity" and evidence["similarity"]["contraction_power"] is not None
    # Two certificates of falsity: the similarity (T0) and the decreasing norms (D2, the tokens shrink to 0).
    assert run_checker(report, tmp_path)[0] == 1 and certcheck.check_report(copy.deepcopy(report)).certificates_of_falsity == 2
    evidence["similarity"]["contraction_power"] = None
    refused_or_rejected(report, tmp_path, capsys, "T0 rejected", "evidence.limits")
    evidence["limits"] = "the limits are not certified (no power of M found to contract)"
    assert certcheck.check_report(copy.deepcopy(report)).certificates_of_falsity == 2
    evidence["similarity"]["period"] = 2
    refused_or_rejected(report, tmp_path, capsys, "T0 rejected", "similarity")
    evidence["similarity"]["period"] = 1
    evidence["similarity"]["note"] = "forged"
    refused_or_rejected(report, tmp_path, capsys, "T0 rejected", "similarity.note")


@pytest.mark.parametrize("claim", ["T1", "T2", "T3", "T4"])
def test_an_inconclusive_verdict_s_similarity_and_limits_are_checked_too(tmp_path: Path, capsys: Any,
                                                                          claim: str) -> None:
    # docs/theory.md D11: T1..T4 have no leader to refer to; their evidence repeats the certificate and what it says
    # of the limits, a statement the checker holds to the certificate like T0's.
    report = claims(ROTATING_SQUARE)
    evidence = report["verdicts"][claim]["evidence"]
    assert report["verdicts"][claim]["status"] == "inconclusive" and evidence["limits"].startswith("every token")
    assert run_checker(report, tmp_path)[0] == 1
    evidence["limits"] = "the limits are not certified (no power of M found to contract)"
    refused_or_rejected(report, tmp_path, capsys, f"{claim} rejected", "evidence.limits")
    evidence["similarity"]["contraction_power"] = None
    outcome = {o.claim: o.status for o in certcheck.check_report(copy.deepcopy(report)).outcomes}
    assert outcome[claim] == "inconclusive"  # the weaker sentence, with the certificate that shows it
    evidence["similarity"]["scale"] = "7"
    refused_or_rejected(report, tmp_path, capsys, f"{claim} rejected", "similarity")
    del evidence["similarity"]
    refused_or_rejected(report, tmp_path, capsys, f"{claim} rejected", "evidence.limits")
    del evidence["limits"]
    outcome = {o.claim: o.status for o in certcheck.check_report(copy.deepcopy(report)).outcomes}
    assert outcome[claim] == "inconclusive"  # nothing said of the limits, nothing to check


# --------------------------------------------------------------------------- keys the checker does not know


def test_a_summary_row_that_is_not_an_object_is_rejected(results: dict[str, Any], tmp_path: Path, capsys: Any) -> None:
    results["summary"]["claims"]["T1"] = "all certified"
    refused_or_rejected(results, tmp_path, capsys, "summary.claims.T1")


@pytest.mark.parametrize("where", ["record", "summary", "summary row", "verdict", "certificate", "fate", "campaign",
                                   "certcheck block", "convergence", "configuration"])
def test_a_key_the_checker_does_not_know_is_refused_at_every_level(results: dict[str, Any], tmp_path: Path,
                                                                   capsys: Any, where: str) -> None:
    record = results["examples"][0]
    holder = {"record": record, "summary": results["summary"], "summary row": results["summary"]["claims"]["T0"],
              "verdict": record["verdicts"]["T1"], "certificate": record["verdicts"]["T1"]["certificate"],
              "fate": record["fates"][0], "campaign": results["campaign"], "certcheck block": record["certcheck"],
              "convergence": record["convergence"], "configuration": record["configuration"]}[where]
    holder["leaders"] = [5]  # a false list, for a renderer that reads more than the checker does
    refused_or_rejected(results, tmp_path, capsys, "leaders")


def test_a_claims_report_with_an_unknown_key_in_a_verdict_is_rejected(tmp_path: Path, capsys: Any) -> None:
    report = claims(TIE, layer_budget=10)
    report["verdicts"]["T2"]["certificate"]["note"] = "every leader limit is a vertex"
    refused_or_rejected(report, tmp_path, capsys, "T2 rejected", "note")
    del report["verdicts"]["T2"]["certificate"]["note"]
    report["fates"][0]["leaders"] = [3]
    refused_or_rejected(report, tmp_path, capsys, "leaders")


# --------------------------------------------------------------------------- error records


def test_a_record_marked_error_that_keeps_its_verdicts_is_rejected(results: dict[str, Any], tmp_path: Path,
                                                                   capsys: Any) -> None:
    results["examples"][0].update(status="error", error="forged")
    refresh(results)
    assert results["summary"]["claims"]["T0"]["certified"] >= 1
    refused_or_rejected(results, tmp_path, capsys, "error")


# --------------------------------------------------------------------------- exact fields


def test_convergence_counts_are_re_derived(results: dict[str, Any], tmp_path: Path, capsys: Any) -> None:
    convergence = results["examples"][0]["convergence"]
    convergence["tokens_with_limit"] -= 1
    convergence["tokens_without_limit"] = [0]
    refused_or_rejected(results, tmp_path, capsys, "convergence")


def test_hypothesis_violations_text_is_re_derived(tmp_path: Path, capsys: Any) -> None:
    report = claims(V_CONFIG, layer_budget=10)
    assert report["hypothesis_violations"] == ["V: a value matrix V is a variant of the theorem's model"]
    report["hypothesis_violations"] = ["A: A is not symmetric (the theorem needs A symmetric positive definite)"]
    refused_or_rejected(report, tmp_path, capsys, "hypothesis_violations")


@pytest.mark.parametrize("forged", [{}, "none", [{"example": "square", "claim": "T0"}]],
                         ids=["an object", "a string", "a counterexample no record has"])
def test_counterexamples_are_re_derived_from_the_records(results: dict[str, Any], tmp_path: Path, capsys: Any,
                                                        forged: Any) -> None:
    results["counterexamples"] = forged
    refused_or_rejected(results, tmp_path, capsys, "counterexamples")


def test_inputs_are_re_derived_with_their_roles(results: dict[str, Any], tmp_path: Path, capsys: Any) -> None:
    results["inputs"].append({"role": "sentiment results", "path": "runs/sentiment/forged.json", "sha256": "0" * 64})
    refused_or_rejected(results, tmp_path, capsys, "inputs")
    results["inputs"][-1]["role"] = "reviewed by hand"
    refused_or_rejected(results, tmp_path, capsys, "inputs")


def softmax_record(tmp_path: Path, config: dict[str, Any], *args: str) -> dict[str, Any]:
    source = tmp_path / "config.json"
    source.write_text(json.dumps(config), encoding="utf-8")
    out = tmp_path / "softmax.json"
    assert cli_main(["softmax", str(source), "--json", str(out), *args]) in (0, 3)
    return json.loads(out.read_text(encoding="utf-8"))


def test_a_softmax_record_s_configuration_agrees_with_its_certificate(tmp_path: Path, capsys: Any) -> None:
    record = softmax_record(tmp_path, json.loads((REPO / "examples" / "softmax.json").read_text()))
    capsys.readouterr()
    forged = copy.deepcopy(record)
    forged["config"]["beta"] = "10"  # the configuration says beta = 10, the certificate 1000
    refused_or_rejected(forged, tmp_path, capsys, "beta")
    forged = copy.deepcopy(record)
    forged["config"]["layers"] = 50
    refused_or_rejected(forged, tmp_path, capsys, "layers")


def test_the_softmax_command_s_own_record_outside_the_hypotheses_verifies(tmp_path: Path, capsys: Any) -> None:
    record = softmax_record(tmp_path, {"tokens": [["1", "1"], ["1", "1"], ["-1", "0"]], "alpha": "1/2", "beta": "100",
                                       "layers": 3}, "--outside-hypotheses")
    assert record["outside_hypotheses"] is True
    capsys.readouterr()
    status, out = run_checker(record, tmp_path, capsys=capsys)
    assert status == 0, out
    record["outside_hypotheses"] = False  # not what the configuration is
    refused_or_rejected(record, tmp_path, capsys, "outside_hypotheses")


def control_result(tmp_path: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "control.json"
    assert cli_main(["control", str(REPO / "examples" / "control.json"), *args, "--json", str(out)]) in (0, 1, 3)
    return json.loads(out.read_text(encoding="utf-8"))


def test_a_control_result_s_reason_is_re_derived(tmp_path: Path, capsys: Any) -> None:
    result = control_result(tmp_path, "--leaders", "0,2")
    assert result["outcome"] == "realised" and result["reason"] == ""
    capsys.readouterr()
    result["reason"] = "token 1 can never lead"
    refused_or_rejected(result, tmp_path, capsys, "reason")


def test_a_control_result_s_design_denominator_is_a_count(tmp_path: Path, capsys: Any) -> None:
    result = control_result(tmp_path, "--leaders", "0,2")
    capsys.readouterr()
    result["design"]["A"][0][1] = result["design"]["A"][1][0] = "1/7"  # no longer the design: rejected anyway
    result["design"]["denominator"] = -1
    refused_or_rejected(result, tmp_path, capsys, "design")


# --------------------------------------------------------------------------- what a file may steer


def _with_sections(results: dict[str, Any], runs: Path) -> dict[str, Any]:
    """``results`` with a control section built from ``runs`` (the study file there), as the report builds it."""
    from verify.app.report.build import collect_optional_sections

    optional, inputs = collect_optional_sections(runs, "runs")
    results["optional_sections"], results["inputs"] = optional, inputs
    return results


def test_a_section_folder_named_by_an_absolute_path_is_not_followed(results: dict[str, Any], tmp_path: Path,
                                                                    capsys: Any) -> None:
    elsewhere = tmp_path / "elsewhere" / "runs"
    (elsewhere / "control").mkdir(parents=True)
    (elsewhere / "control" / "study.json").write_bytes((REPO / "runs" / "control" / "study.json").read_bytes())
    from verify.app.report.build import collect_optional_sections

    optional, inputs = collect_optional_sections(elsewhere, str(elsewhere))
    results["optional_sections"], results["inputs"] = optional, inputs
    status, out = run_checker(results, tmp_path, capsys=capsys)
    assert status == 3, out  # not checked: the file does not choose the folder it is checked against
    assert "--runs" in out and "(sections) verified" not in out
    status, out = run_checker(results, tmp_path, "--runs", str(elsewhere), "--verbose", capsys=capsys)
    assert status == 0, out
    assert f"saved results: {elsewhere}" in out  # the output names the folder it read


def test_the_output_names_the_file_and_every_folder_it_read(results: dict[str, Any], tmp_path: Path,
                                                            capsys: Any) -> None:
    status, out = run_checker(results, tmp_path, capsys=capsys)
    assert status == 0, out
    assert f"checked: {tmp_path / 'forged.json'} (verification report)" in out
    runs = tmp_path / "runs"
    (runs / "control").mkdir(parents=True)
    (runs / "control" / "study.json").write_bytes((REPO / "runs" / "control" / "study.json").read_bytes())
    status, out = run_checker(_with_sections(results, runs), tmp_path, "--runs", str(runs), capsys=capsys)
    assert status == 0, out
    assert f"saved results: {runs}" in out


def test_the_control_study_s_exact_designs_are_re_verified(results: dict[str, Any], tmp_path: Path,
                                                          capsys: Any) -> None:
    runs = tmp_path / "runs"
    (runs / "control").mkdir(parents=True)
    study = json.loads((REPO / "runs" / "control" / "study.json").read_text(encoding="utf-8"))
    design = study["two_clusterings"]["designs"][0]
    design["A"] = [["1", "0"], ["0", "1"]]  # under I, the listed leaders and targets are not what happens
    (runs / "control" / "study.json").write_text(json.dumps(study, indent=1), encoding="utf-8")
    refused_or_rejected(_with_sections(results, runs), tmp_path, capsys, "two_clusterings", runs=runs)


# --------------------------------------------------------------------------- output


@pytest.mark.parametrize("name", ["[/]", "[bold red]x[/bold red]", "[link=http://x]y", "x\x1b[2Jy", "[hidden]"])
def test_names_from_the_file_are_printed_as_text(results: dict[str, Any], tmp_path: Path, capsys: Any,
                                                 name: str) -> None:
    record = results["examples"][0]
    record["task"]["name"] = name  # no longer the planned name: rejected, and the name is printed
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    status = cli_main(["certcheck", str(path)])
    out = capsys.readouterr().out
    assert status == 1, out
    assert "rejected" in out and "REJECTED" in out
    if "\x1b" not in name:
        assert name in out
    assert "\x1b" not in out


# --------------------------------------------------------------------------- the product's own output


def test_classify_check_reads_a_number_longer_than_the_integer_limit(tmp_path: Path, capsys: Any) -> None:
    network = tmp_path / "net.json"
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"sequences": [[["1", "0"]], [["0", "1"]]], "labels": ["0", "1"]}))
    assert cli_main(["classify", "build", str(data), "--out", str(network)]) == 0
    long = "1" + "0" * 5000
    data.write_text(json.dumps({"sequences": [[[f"{long}/{long}", "0"]], [["0", "1"]]], "labels": ["0", "1"]}))
    capsys.readouterr()
    assert cli_main(["classify", "check", str(network), str(data)]) in (0, 1)
