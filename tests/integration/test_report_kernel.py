"""The report's kernel pass: its block in results.json, the glance row and claims column, certcheck's
check of the block, and what happens without coqc or when the kernel rejects."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from verify import certcheck
from verify.app.report import build as build_module
from verify.app.report.build import build_report
from verify.app.report.kernel import kernel_block
from verify.formal import library
from tests.common.reports import SMALL_SEED, SMALL_SPEC


def _results(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


def test_the_report_says_what_the_kernel_checked(small_report: Path) -> None:
    results = _results(small_report)
    block = results["kernel"]
    assert block["status"] == "checked" and block["statement_sha256"] == library.statement_sha256()
    assert block["configurations"] == len(results["examples"])
    assert block["certificates_kernel_checked"] == block["claims"]["T1"]["kernel-checked"] > 0
    assert block["claims"]["T2"]["kernel-checked"] == block["certificates_kernel_checked"]
    assert block["claims"]["D1"]["kernel-checked"] == block["configurations"]
    markdown = (small_report / "report.md").read_text(encoding="utf-8")
    glance = markdown.split("## Contents")[0]
    assert "| kernel-checked |" in glance and "checked by Coq's kernel" in glance
    assert "kernel-checked" in markdown.split("## Claims")[1].split("\n\n")[1]  # the claims table's column
    assert "checked by Coq's kernel" in (small_report / "report.html").read_text(encoding="utf-8")
    # The block is deterministic: its time is in the environment block.
    assert "seconds" not in json.dumps(block) and "kernel" in results["environment"]["timings_seconds"]


def test_certcheck_holds_the_block_to_the_records(small_report: Path, tmp_path: Path) -> None:
    results = _results(small_report)
    verified = certcheck.check_file(str(small_report / "results.json"))
    assert [o.status for o in verified.outcomes if o.claim == "(kernel)"] == ["verified"]

    def tampered(change: Any) -> int:
        data = copy.deepcopy(results)
        change(data["kernel"])
        path = tmp_path / "r.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        outcome = certcheck.check_file(str(path))
        return [o.status for o in outcome.outcomes if o.claim == "(kernel)"] == ["rejected"] and outcome.exit_status == 1

    assert tampered(lambda b: b["claims"].update(T5={"kernel-checked": 1, "rejected": 0,
                                                     "not kernel-checked": b["configurations"] - 1}))
    assert tampered(lambda b: b["claims"]["T0"].update({"kernel-checked": b["claims"]["T0"]["kernel-checked"] + 1}))
    assert tampered(lambda b: b.update(configurations=b["configurations"] + 1))
    assert tampered(lambda b: b.update(rejected=[{"task": "nothing-of-this-file", "reason": "x"}]))
    assert tampered(lambda b: b.update(statement_sha256="0" * 63))
    assert tampered(lambda b: b.update(extra=1))
    assert tampered(lambda b: b.update(rejected=5))   # not a list: refused, not a crash


@pytest.mark.slow
def test_without_coqc_the_report_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARDMAX_VERIFY_COQC", str(tmp_path / "no-coqc"))
    library._version_of.cache_clear()
    try:
        outcome = build_report(out=tmp_path / "r", seed=SMALL_SEED, spec=SMALL_SPEC, runs_dir=None, kernel=True)
    finally:
        library._version_of.cache_clear()
    block = outcome.results["kernel"]
    assert outcome.exit_status == 0 and block["status"] == "skipped" and "scripts/setup.sh" in block["reason"]
    assert "Coq's kernel did not check this report (skipped" in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    checked = certcheck.check_file(str(tmp_path / "r" / "results.json"))
    # A pass that did not run verifies nothing: no kernel outcome, nothing counted as a verified certificate.
    assert checked.exit_status == 0 and not [o for o in checked.outcomes if o.claim == "(kernel)"]


def test_a_rejection_fails_the_report(small_report: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = _results(small_report)["examples"]
    wrong = copy.deepcopy(records[0])
    leader = next(f for f in wrong["fates"] if f["kind"] == "leader")
    leader["limit"] = [str(int(x.split("/")[0]) + 1) for x in leader["limit"]]
    block, _ = kernel_block([wrong, *records[1:]])
    assert block["status"] == "rejected" and block["rejected"][0]["task"] == wrong["task"]["name"]
    # The report exits 1 whatever the campaign said.
    monkeypatch.setattr(build_module, "kernel_block", lambda records, jobs: (block, 0.0))
    outcome = build_report(out=tmp_path / "r", seed=SMALL_SEED, spec=SMALL_SPEC, runs_dir=None, kernel=True)
    assert outcome.exit_status == 1
    glance = (tmp_path / "r" / "report.md").read_text(encoding="utf-8").split("## Contents")[0]
    assert "Overall: **FAILED** (exit status 1)" in glance and "the kernel REJECTED 1 certificate" in glance
    # results.json says so too, and the independent checker passes the falsity on: exit 1, nothing rejected.
    results = json.loads((tmp_path / "r" / "results.json").read_text(encoding="utf-8"))
    assert (results["summary"]["overall"], results["summary"]["exit_status"]) == ("failed", 1)
    checked = certcheck.check_file(str(tmp_path / "r" / "results.json"))
    assert [o.status for o in checked.outcomes if o.claim == "(kernel)"] == ["failed"]
    assert checked.exit_status == 1 and not [o for o in checked.outcomes if o.status == "rejected"]
    # A summary that hides the kernel's rejection is refused.
    results["summary"].update(overall="certified", exit_status=0)
    path = tmp_path / "hidden.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    hidden = certcheck.check_file(str(path))
    assert any(o.claim == "(summary)" and o.status == "rejected" for o in hidden.outcomes)


def test_configurations_left_unchecked_are_named(small_report: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A certificate the kernel did not finish is named with its reason, in the block, the summary and
    the report; certcheck holds the list to the counts."""
    import functools

    from verify.app.report import kernel as kernel_module
    from verify.formal.prove import prove_records

    results = _results(small_report)
    assert results["kernel"]["unchecked_configurations"] == []
    records = results["examples"]
    monkeypatch.setattr(kernel_module, "prove_records", functools.partial(prove_records, time_limit=1e-3))
    block, _ = kernel_block(records[:2])
    names = [r["task"]["name"] for r in records[:2]]
    assert block["certificates_kernel_checked"] == 0 and block["status"] == "checked"
    assert [u["task"] for u in block["unchecked_configurations"]] == names
    assert all("did not finish" in u["reason"] for u in block["unchecked_configurations"])
    proved = prove_records([(names[0], records[0])], time_limit=1e-3).to_json_dict()   # prove --json says the same
    assert [u["label"] for u in proved["unchecked_configurations"]] == [names[0]]
    lines = kernel_module.kernel_lines(block)
    assert any(line.startswith(f"kernel: not kernel-checked {names[0]}: ") for line in lines)

    monkeypatch.setattr(build_module, "kernel_block", lambda records, jobs: ({**block, "configurations": len(records),
                                                                              "certificates_kernel_checked": len(records) - 2},
                                                                             0.0))
    build_report(out=tmp_path / "r", seed=SMALL_SEED, spec=SMALL_SPEC, runs_dir=None, kernel=True)
    markdown = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert f"Configurations whose certificate the kernel did not check: {names[0]} (" in markdown

    def verdict(unchecked: list[dict[str, str]]) -> str:
        data = copy.deepcopy(results)
        data["kernel"]["unchecked_configurations"] = unchecked
        path = tmp_path / "u.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        return [o.status for o in certcheck.check_file(str(path)).outcomes if o.claim == "(kernel)"][0]

    # Every configuration is already kernel-checked: naming one as unchecked, or a task not in the file, is refused.
    assert verdict([]) == "verified"
    assert verdict([{"task": names[0], "reason": "x"}]) == "rejected"
    assert verdict([{"task": "nothing-of-this-file", "reason": "x"}]) == "rejected"
    data = copy.deepcopy(results)
    data["kernel"]["certificates_kernel_checked"] -= 1   # one configuration unaccounted for
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert certcheck.check_file(str(path)).exit_status == 1
