"""Adding a claim: a toy claim registered in verify.claims.registry reaches the campaign and the report,
and the independent checker reports it unsupported (never verified) until it has a routine.

The toy claim "X1" says every configuration has at least one token; its certificate names the
token count, which a routine can recount from the configuration.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from verify import certcheck
from verify.claims import registry
from verify.app.campaign import CampaignSpec, FamilySpec, claim_counts, plan_tasks, run_tasks
from verify.app.report.build import build_report
from verify.claims.verdicts import Verdict

SPEC = CampaignSpec(examples=2, layer_budget=40, worked=False, float_check=False, shrink=False,
                    families=(FamilySpec("generic", n=(4, 5), d=(2,), alpha=("1/2",)),))
STATEMENT = "toy: a configuration has at least one token"


def check_X1(run: Any) -> Verdict:
    return Verdict("X1", "certified", f"{run.n} token(s)", certificate={"tokens": run.n})


def routine_X1(cert: dict, ctx: Any) -> None:
    """The toy claim's own certcheck routine: the count must be the configuration's."""
    if cert.get("tokens") != ctx.model.n or ctx.model.n < 1:
        raise certcheck.Rejected(f"tokens is {cert.get('tokens')!r}, the configuration has {ctx.model.n}")


@pytest.fixture
def toy_claim() -> Iterator[registry.Claim]:
    claim = registry.register(registry.Claim("X1", STATEMENT, "check", assumption="none (toy)", certificate="X1",
                                             check=check_X1))
    try:
        yield claim
    finally:
        registry.unregister("X1")


def test_the_toy_claim_reaches_the_campaign(toy_claim: registry.Claim) -> None:
    records = run_tasks(plan_tasks(SPEC, seed=0), jobs=1)
    assert "X1" in registry.verdict_ids() and len(records) == 2
    for record in records:
        assert record["verdicts"]["X1"]["status"] == "certified"
        assert record["verdicts"]["X1"]["certificate"] == {"tokens": record["task"]["n"]}
        # Its certificate was not re-verified: certcheck has no routine for X1.
        assert "X1" not in record["certcheck"]["verified"] and "X1" in record["certcheck"]["unsupported"]
        assert "T0" in record["certcheck"]["verified"]
    counts = claim_counts(records)
    assert counts["X1"]["certified"] == 2 and counts["X1"]["recertified"] == 0
    assert counts["T0"]["recertified"] == 2


@pytest.mark.slow
def test_the_toy_claim_in_the_report_and_certcheck(toy_claim: registry.Claim, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    outcome = build_report(out=tmp_path / "before", seed=0, spec=SPEC, runs_dir=tmp_path / "no-runs")
    results = json.loads((tmp_path / "before" / "results.json").read_text())
    assert results["summary"]["claims"]["X1"]["certified"] == 2
    assert results["summary"]["claims"]["X1"]["recertified"] == 0
    report = (tmp_path / "before" / "report.md").read_text()
    assert f"| X1 | {STATEMENT} |" in report and "none (toy)" in report
    checked = certcheck.check_file(str(tmp_path / "before" / "results.json"))
    x1 = [o for o in checked.outcomes if o.claim == "X1"]
    assert [o.status for o in x1] == ["unsupported", "unsupported"] and "no routine" in x1[0].reason
    assert not [o for o in checked.outcomes if o.status == "rejected"]
    assert checked.exit_status == 3  # nothing false, but not everything verified
    assert outcome.exit_status == 0  # the producer's own verdicts are certified

    # With a routine of its own, the same claim is re-verified, in the report and by certcheck.
    monkeypatch.setitem(certcheck.CHECKS, "X1", routine_X1)
    build_report(out=tmp_path / "after", seed=0, spec=SPEC, runs_dir=tmp_path / "no-runs")
    results = json.loads((tmp_path / "after" / "results.json").read_text())
    assert results["summary"]["claims"]["X1"]["recertified"] == 2
    checked = certcheck.check_file(str(tmp_path / "after" / "results.json"))
    assert {o.status for o in checked.outcomes if o.claim == "X1"} == {"verified"}
    assert checked.exit_status == 0
    # ... and a wrong certificate is now rejected by that routine.
    results["examples"][0]["verdicts"]["X1"]["certificate"]["tokens"] += 1
    (tmp_path / "after" / "results.json").write_text(json.dumps(results))
    rejected = [o for o in certcheck.check_file(str(tmp_path / "after" / "results.json")).outcomes
                if o.claim == "X1" and o.status == "rejected"]
    assert rejected and "the configuration has" in rejected[0].reason


def test_a_toy_assertion_cannot_carry_a_certificate() -> None:
    with pytest.raises(ValueError, match="no verdict and no certificate"):
        registry.Claim("X2", "toy", "assertion", certificate="X2")
    with pytest.raises(ValueError, match="registered already"):
        registry.register(registry.Claim("T0", "again", "check"))
