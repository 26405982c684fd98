"""Tampering with a whole results.json, the careful way: the independent checker rejects each kind.

One small report (the four worked configurations and a few generated ones, with the project's saved
results as its optional sections) is built once. Each test changes it as a forger would who knows the
suite: records are rebuilt with the suite's own claim checks and certificate re-check, and the counts,
statuses and closed-form summary are recomputed with the suite's own merge functions
(verify/app/campaign/merge.py), so that nothing but the tampering itself is inconsistent. ``certcheck``
must exit 1 for each, naming what is wrong; where the evidence is absent (no saved results given) it
says "not checked", never "verified". What only the generators can tell (a configuration the seed did
not generate, with its planned sha256 rewritten too) is caught by ``report --recheck``.
"""

from __future__ import annotations

import copy
import json
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.common.saved_results import copy_saved_results
from verify import certcheck
from verify.core import exitcodes
from verify.app.campaign import CampaignSpec, FamilySpec, claim_counts, closed_form_summary, overall_statuses
from verify.app.campaign.plan import canonical_sha256, recheck_plan
from verify.app.campaign.recheck import recheck_certificates
from verify.app.campaign.records import claim_record
from verify.claims import check_configuration
from verify.app.cli import main as cli_main
from verify.core.config import parse_configuration
from verify.app.report.build import build_report

REPO = Path(__file__).resolve().parents[2]
SPEC = CampaignSpec(examples=3, layer_budget=50, worked=True, float_check=True, shrink=True,
                    families=(FamilySpec("generic", n=(3, 6), d=(2, 3)), FamilySpec("mirror_ties", n=(4, 6), d=(2,))))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """(the results, the runs folder they were built from: a copy of the project's saved results)."""
    root = tmp_path_factory.mktemp("tamper")
    runs = copy_saved_results(root)  # with the reproduction's protocol and checkpoint histories beside
    outcome = build_report(out=root / "report", seed=5, spec=SPEC, runs_dir=runs, runs_label="runs", command_line="test")
    assert outcome.exit_status == 0, outcome.results["summary"]
    return json.loads((root / "report" / "results.json").read_text(encoding="utf-8")), runs


@pytest.fixture()
def results(built: tuple[dict[str, Any], Path]) -> dict[str, Any]:
    return copy.deepcopy(built[0])


@pytest.fixture()
def runs(built: tuple[dict[str, Any], Path]) -> Path:
    return built[1]


def check(data: dict[str, Any], runs: Path | str, tmp_path: Path) -> certcheck.CheckResult:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return certcheck.check_file(str(path), runs=str(runs))


def rejections(result: certcheck.CheckResult, claim: str | None = None) -> list[str]:
    return [o.reason for o in result.outcomes if o.status == "rejected" and (claim is None or o.claim == claim)]


def refresh(data: dict[str, Any]) -> dict[str, Any]:
    """The summary recomputed from the records with the suite's own merge functions."""
    records = data["examples"]
    exit_status = exitcodes.combine(overall_statuses(records)) if records else exitcodes.INCONCLUSIVE
    data["summary"].update(
        overall={exitcodes.SUCCESS: "certified", exitcodes.FALSE: "failed"}.get(exit_status, "inconclusive"),
        exit_status=exit_status, examples=len(records), errors=sum(r.get("status") == "error" for r in records),
        claims=claim_counts(records), closed_form=closed_form_summary(records, data["campaign"]["layer_budget"]))
    data["counterexamples"] = [c for c in data["counterexamples"] if c["example"] in {r["task"]["name"] for r in records}]
    return data


def rebuilt(data: dict[str, Any], index: int, configuration: dict[str, Any], *, plan_too: bool) -> dict[str, Any]:
    """Record ``index`` rebuilt for ``configuration`` with the suite's claim checks and re-check (its measured
    fields copied); with ``plan_too`` the plan's sha256 for it is rewritten as well."""
    old = data["examples"][index]
    config = parse_configuration(configuration, outside_hypotheses=bool(configuration.get("outside_hypotheses")))
    record = {"task": old["task"], "configuration": config.to_json_dict()}
    record.update(claim_record(check_configuration(config, layer_budget=data["campaign"]["layer_budget"])))
    for key in ("horizon", "denominator_bits", "convergence", "float_comparison"):
        if key in old:
            record[key] = old[key]
    record["certcheck"] = recheck_certificates(record, layer_budget=data["campaign"]["layer_budget"])
    data["examples"][index] = record
    if plan_too:
        data["plan"]["tasks"][index]["configuration_sha256"] = canonical_sha256(record["configuration"])
    return refresh(data)


def generated(data: dict[str, Any]) -> int:
    """The index of the first generated record in d = 2."""
    return next(i for i, r in enumerate(data["examples"]) if r["task"]["kind"] == "generated" and r["task"]["d"] == 2)


def test_the_untampered_report_verifies_in_full(results: dict[str, Any], runs: Path, tmp_path: Path) -> None:
    result = check(results, runs, tmp_path)
    assert result.exit_status == 0, [o for o in result.outcomes if o.status != "verified"]
    sections = [o for o in result.outcomes if o.claim == "(sections)"]
    from verify.experiments.registry import SECTION_PROVIDERS
    assert {o.status for o in sections} == {"verified"} and len(sections) == len(SECTION_PROVIDERS)  # every one
    assert recheck_plan(results) is None


# --------------------------------------------------------------------------- completeness


def test_a_record_removed_and_the_counts_fixed(results: dict[str, Any], runs: Path, tmp_path: Path) -> None:
    name = results["examples"][-1]["task"]["name"]
    results["examples"].pop()
    result = check(refresh(results), runs, tmp_path)
    assert result.exit_status == 1
    assert any(f"no record: {name}" in r for r in rejections(result, "(campaign)"))


def test_a_failed_record_removed_and_the_counts_fixed(results: dict[str, Any], runs: Path, tmp_path: Path) -> None:
    index = generated(results)
    record = results["examples"][index]
    record["verdicts"]["T2"].update(status="failed", summary="forged counterexample")
    del record["verdicts"]["T2"]["certificate"]
    record["status"] = "failed"
    record["certcheck"] = recheck_certificates(record, layer_budget=results["campaign"]["layer_budget"])
    refresh(results)
    assert results["summary"]["overall"] == "failed"
    assert check(results, runs, tmp_path).exit_status == 1  # the file says a claim is false
    results["examples"].pop(index)
    refresh(results)
    assert results["summary"]["overall"] == "certified"  # what a reader would see
    result = check(results, runs, tmp_path)
    assert result.exit_status == 1 and any("has no record" in r for r in rejections(result, "(campaign)"))


def test_a_record_duplicated_under_another_name(results: dict[str, Any], runs: Path, tmp_path: Path) -> None:
    index = generated(results)
    results["examples"][index + 1]["task"] = copy.deepcopy(results["examples"][index]["task"])
    result = check(refresh(results), runs, tmp_path)
    assert result.exit_status == 1 and any("used twice" in r for r in rejections(result, "(campaign)"))


# --------------------------------------------------------------------------- identity


@pytest.mark.parametrize("change, fragment", [
    (lambda d: d["campaign"].update(seed=d["campaign"]["seed"] + 1), "not made from this campaign"),
    (lambda d: d["campaign"].update(examples=d["campaign"]["examples"] + 1), "not made from this campaign"),
    (lambda d: d["campaign"]["families"][0].update(name="generic_renamed"), "not made from this campaign"),
    (lambda d: d["campaign"].update(layer_budget=d["campaign"]["layer_budget"] + 100), "not made from this campaign"),
    (lambda d: d["campaign"].update(float_check=False), "not made from this campaign"),
], ids=["seed", "examples", "family name", "layer budget", "float check"])
def test_the_campaign_block_changed_and_the_counts_fixed(results: dict[str, Any], runs: Path, tmp_path: Path,
                                                       change: Callable[[dict[str, Any]], None], fragment: str) -> None:
    change(results)
    result = check(refresh(results), runs, tmp_path)
    assert result.exit_status == 1 and any(fragment in r for r in rejections(result, "(campaign)"))


def test_a_campaign_and_plan_rewritten_together_still_disagree_with_the_records(
        results: dict[str, Any], runs: Path, tmp_path: Path) -> None:
    # The forger also rewrites the plan's hash of the campaign: the names and seeds the seed implies differ.
    results["campaign"]["seed"] += 1
    results["plan"]["campaign_sha256"] = canonical_sha256(results["campaign"])
    result = check(refresh(results), runs, tmp_path)
    assert result.exit_status == 1 and any("the campaign implies" in r for r in rejections(result, "(campaign)"))


def test_a_worked_configuration_replaced_under_its_name(results: dict[str, Any], runs: Path, tmp_path: Path) -> None:
    index = next(i for i, r in enumerate(results["examples"]) if r["task"]["name"] == "square")
    other = copy.deepcopy(results["examples"][index]["configuration"])
    other["tokens"][4] = ["1/3", "-1/4"]  # another interior point: a valid, certified configuration
    rebuilt(results, index, other, plan_too=True)  # the plan's hash rewritten: only §4 can tell
    result = check(results, runs, tmp_path)
    assert result.exit_status == 1
    assert any("is not the one of docs/theory.md §4" in r for r in rejections(result, "(campaign)"))


def test_a_token_moved_and_its_record_rebuilt(results: dict[str, Any], runs: Path, tmp_path: Path) -> None:
    index = generated(results)
    moved = copy.deepcopy(results["examples"][index]["configuration"])
    moved["tokens"][0][0] = str(Fraction(moved["tokens"][0][0]) + Fraction(1, 1000))
    result = check(rebuilt(copy.deepcopy(results), index, moved, plan_too=False), runs, tmp_path)
    assert result.exit_status == 1 and any("not the planned configuration" in r for r in rejections(result, "(campaign)"))
    # With the planned sha256 rewritten as well, only the generators can tell: report --recheck.
    careful = rebuilt(copy.deepcopy(results), index, moved, plan_too=True)
    assert check(careful, runs, tmp_path).exit_status == 0
    difference = recheck_plan(careful)
    assert difference is not None and difference.field == f"plan.tasks[{index}].configuration_sha256"
    path = tmp_path / "careful.json"
    path.write_text(json.dumps(careful), encoding="utf-8")
    assert cli_main(["report", "--recheck", str(path)]) == 1


def test_a_record_outside_the_hypotheses_in_a_campaign_inside_them(results: dict[str, Any], runs: Path,
                                                                  tmp_path: Path) -> None:
    index = generated(results)
    outside = copy.deepcopy(results["examples"][index]["configuration"])
    outside.update(A=[["1", "0"], ["0", "-1/100"]], outside_hypotheses=True)
    rebuilt(results, index, outside, plan_too=True)
    assert results["examples"][index]["configuration"]["outside_hypotheses"] is True
    result = check(results, runs, tmp_path)
    assert result.exit_status == 1
    assert any("inside the theorem's hypotheses" in r and "not positive definite" in r
               for r in rejections(result, "(campaign)"))


# --------------------------------------------------------------------------- the first screen: optional sections


def _sentiment_item(data: dict[str, Any], checkpoint: str) -> dict[str, Any]:
    return next(item for item in data["optional_sections"]["sentiment"]["files"]
                if (item.get("evaluation") or {}).get("checkpoint") == checkpoint)


def test_the_sentiment_number_changed(results: dict[str, Any], runs: Path, tmp_path: Path) -> None:
    block = results["optional_sections"]["sentiment"]
    chosen = block["glance"]["chosen"][0]
    item = _sentiment_item(results, chosen["checkpoint"])
    raised = chosen["hardmax_accuracy"] + 0.1  # e.g. 0.8164 -> 0.9164, everywhere the report shows it
    item["evaluation"]["hardmax_accuracy"] = item["summary"]["hardmax_accuracy"] = chosen["hardmax_accuracy"] = raised
    result = check(results, runs, tmp_path)
    assert result.exit_status == 1 and rejections(result, "(sections)")
    # Without the saved results the section is not checked: never verified.
    elsewhere = check(results, tmp_path / "no-runs-here", tmp_path)
    sections = [o for o in elsewhere.outcomes if o.claim == "(sections)"]
    assert elsewhere.exit_status == 3 and {o.status for o in sections} == {"not checked"}


@pytest.mark.parametrize("change", [
    lambda d: d["optional_sections"]["conjectures"]["files"][0].update(sha256="0" * 64),
    lambda d: [e.update(sha256="0" * 64) for e in d["inputs"] if e["role"] == "conjectures results"][:1],
    lambda d: d["optional_sections"]["classify"]["figures"][0].update(sha256="f" * 64),
    lambda d: d["optional_sections"]["conjectures"]["files"].pop(),
    lambda d: d["optional_sections"]["conjectures"]["glance"]["outcomes"].update(held=99),
    lambda d: d["optional_sections"]["reproduction"]["glance"].update(
        finished=d["optional_sections"]["reproduction"]["glance"]["finished"] - 1),
    lambda d: d["optional_sections"]["classify"]["glance"]["imdb"].update(test_accuracy_max=0.9),
    lambda d: d["optional_sections"]["classify"]["files"][0]["imdb"]["runs"][0].update(test_accuracy=0.9),
    lambda d: d["optional_sections"]["control"]["glance"].update(realisable=d["optional_sections"]["control"]
                                                                 ["glance"]["subsets"]),
    lambda d: d["optional_sections"]["control"]["files"][0]["study"]["against_n_and_d"][0].update(realisable=0),
], ids=["file sha256", "inputs sha256", "figure sha256", "a file left out", "conjecture counts", "reproduction runs",
        "classification glance", "classification field", "control glance", "control study field"])
def test_a_section_changed(results: dict[str, Any], runs: Path, tmp_path: Path,
                           change: Callable[[dict[str, Any]], Any]) -> None:
    change(results)
    result = check(results, runs, tmp_path)
    assert result.exit_status == 1 and rejections(result, "(sections)")


def test_a_saved_file_changed_after_the_report(results: dict[str, Any], runs: Path, tmp_path: Path) -> None:
    copied = tmp_path / "runs"
    shutil.copytree(runs, copied)
    summary = copied / "sentiment" / "summary" / "summary.json"
    data = json.loads(summary.read_text(encoding="utf-8"))
    data["runs"]["finished"] = 46
    summary.write_text(json.dumps(data), encoding="utf-8")
    result = check(results, copied, tmp_path)
    assert result.exit_status == 1 and any("sha256" in r for r in rejections(result, "(sections)"))


# --------------------------------------------------------------------------- softmax records and control results
#
# `hardmax-verify certcheck` hands these to their own standard-library checkers: a softmax record read two ways
# (a repeated key) is refused, a valid one with numbers beyond Python's 4300-digit int limit verifies, and a number
# beyond a checker's own limit is refused (exit 2), never rejected.


def _softmax_record(tmp_path: Path, beta: str) -> Path:
    config = tmp_path / "softmax.json"
    config.write_text(json.dumps({"tokens": [["1", "0"], ["0", "1"], ["-1", "-1"]], "alpha": "1", "layers": 3}),
                      encoding="utf-8")
    out = tmp_path / "softmax-out.json"
    assert cli_main(["softmax", str(config), "--beta", beta, "--json", str(out)]) == 0
    return out


def test_a_softmax_bound_stated_twice(tmp_path: Path) -> None:
    out = _softmax_record(tmp_path, "1000")
    text = out.read_text(encoding="utf-8")
    data = json.loads(text)
    last = data["softmax_certificate"]["records"][-1]["bound"]
    out.write_text(text.replace(f'"bound": "{last}"', f'"bound": "0", "bound": "{last}"', 1), encoding="utf-8")
    assert cli_main(["certcheck", str(out)]) == exitcodes.BAD_INPUT


def test_a_softmax_record_with_long_numbers_and_one_beyond_the_limit(tmp_path: Path) -> None:
    out = _softmax_record(tmp_path, "1000000")
    assert cli_main(["certcheck", str(out)]) == exitcodes.SUCCESS
    data = json.loads(out.read_text(encoding="utf-8"))
    data["softmax_certificate"]["records"][1]["bound"] = "9" * 200_001
    out.write_text(json.dumps(data), encoding="utf-8")
    assert cli_main(["certcheck", str(out)]) == exitcodes.BAD_INPUT


def test_a_control_margin_beyond_the_checkers_digit_limit(tmp_path: Path) -> None:
    out = tmp_path / "control.json"
    assert cli_main(["control", str(REPO / "examples" / "control.json"), "--leaders", "0,2,5", "--json", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    data["design"]["margins"][0]["margin"] = "1" + "0" * 10_001
    out.write_text(json.dumps(data), encoding="utf-8")
    assert cli_main(["certcheck", str(out)]) == exitcodes.BAD_INPUT
