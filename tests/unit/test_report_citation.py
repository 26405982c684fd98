"""The citable paragraph (verify.app.report.citation): what a referee pastes, computed from results.json alone.

It must name what was certified (every claim, with its statement), on which configurations
(their number, how they were made, the sha256 of their list), by which commit and checker, the
kernel-checked statement once results.json carries one, and the facts of docs/theory.md the
verdicts rest on; and say so when something failed or was not certified everywhere.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import pytest

from verify.app.cli import main
from verify.app.report import citation
from verify.claims import registry


@pytest.fixture()
def results(small_report: Path) -> dict:
    return json.loads((small_report / "results.json").read_text(encoding="utf-8"))


def test_the_configurations_hash_is_the_hash_of_their_listed_hashes(results: dict) -> None:
    listed = "".join(task["configuration_sha256"] + "\n" for task in results["plan"]["tasks"])  # as jq -r prints them
    assert citation.configurations_sha256(results) == hashlib.sha256(listed.encode()).hexdigest()


def test_a_certified_campaign_names_every_claim_the_configurations_the_checker_and_the_facts(results: dict) -> None:
    cited = citation.citation(results, results_sha256="ab" * 32)
    text = cited.paragraph
    for claim in results["summary"]["claims"]:
        assert f"{claim} ({registry.get(claim).statement})" in text
    assert "Overall: certified (exit status 0)" in text and "certified on every configuration" in text
    assert f"on {len(results['examples'])} configurations (the 4 worked configurations of docs/theory.md §4" in text
    assert citation.configurations_sha256(results) in text and ("ab" * 32) in text
    commit = results["environment"]["git_commit"]
    assert (commit or "commit unknown").removesuffix("+dirty") in text
    assert "verify.certcheck" in text and "re-verified" in text
    assert citation._kernel_sentence(results) in text
    used = {f for r in results["examples"] for v in r["verdicts"].values() if v["status"] == "certified"
            for f in v.get("evidence", {}).get("rests_on", [])}
    for fact in used:
        assert f"{fact} ({registry.PROVED_FACTS[fact]})" in text
    assert "\n" not in text  # one paragraph
    version = results["environment"]["versions"]["hardmax-verify"]
    assert cited.bibtex.startswith("@software{hardmax_verify_") and f"version = {{{version}}}" in " ".join(cited.bibtex.split())


def test_a_failure_and_an_inconclusive_claim_are_said_plainly(results: dict) -> None:
    changed = copy.deepcopy(results)
    total = changed["summary"]["examples"]
    changed["summary"]["overall"], changed["summary"]["exit_status"] = "failed", 1
    changed["summary"]["claims"]["T3"].update(certified=total - 2, failed=1, inconclusive=1)
    text = citation.citation(changed).paragraph
    assert "Overall: FAILED (exit status 1)" in text
    assert f"not on every configuration: T3 ({registry.get('T3').statement}): certified on {total - 2} of {total}, " \
           "1 FAILED, 1 inconclusive" in text


def test_the_kernel_checked_statement_is_named_with_its_sha256(results: dict) -> None:
    block = {"status": "checked", "coq_version": "8.19.0", "statement": "formal/Statement.v", "statement_sha256": "cd" * 32,
             "configurations": 7, "certificates_kernel_checked": 6, "claims": {}, "rejected": [], "not_kernel_checked": {}}
    text = citation.citation({**results, citation.KERNEL_CHECKED_KEY: block}).paragraph
    assert ("Coq's kernel (Coq 8.19.0) checked the certificates (D7 fates, D9 paths, D11 similarities) "
            "for 6 of the 7 configurations against the statement "
            f"formal/Statement.v (sha256 {'cd' * 32}).") in text
    assert "No statement" not in text
    rejected = {**block, "status": "rejected", "rejected": [{"task": "x", "reason": "y"}]}
    assert "it REJECTED 1 certificate." in citation.citation({**results, citation.KERNEL_CHECKED_KEY: rejected}).paragraph
    skipped = {"status": "skipped", "reason": "coqc is not installed"}
    text = citation.citation({**results, citation.KERNEL_CHECKED_KEY: skipped}).paragraph
    assert "No statement of this campaign is kernel-checked (the kernel pass was skipped: coqc is not installed)." in text
    without = {k: v for k, v in results.items() if k != citation.KERNEL_CHECKED_KEY}
    assert "No statement of this campaign is kernel-checked." in citation.citation(without).paragraph
    assert citation.kernel_checked({**results, citation.KERNEL_CHECKED_KEY: {"status": "checked"}}) is None  # incomplete


def test_uncommitted_changes_are_said(results: dict) -> None:
    dirty = copy.deepcopy(results)
    dirty["environment"]["git_commit"] = "0123456789abcdef0123456789abcdef01234567+dirty"
    text = citation.citation(dirty).paragraph
    assert "commit 0123456789abcdef0123456789abcdef01234567, with uncommitted changes" in text


def test_report_cite_prints_the_paragraph_at_the_top_of_report_md(small_report: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--cite", "--out", str(small_report)]) == 0
    paragraph, _, bibtex = capsys.readouterr().out.partition("\n\n")
    shown = next(line for line in (small_report / "report.md").read_text(encoding="utf-8").splitlines()
                 if line.startswith("> "))
    assert shown == f"> {paragraph}"
    digest = hashlib.sha256((small_report / "results.json").read_bytes()).hexdigest()
    assert f"The results file has sha256 {digest};" in paragraph
    assert bibtex.startswith("@software{")


def test_report_cite_runs_no_campaign(small_report: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--cite", "--out", str(small_report), "--seed", "3"]) == 2
    assert "--cite runs no campaign: --seed" in capsys.readouterr().err
