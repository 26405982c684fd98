"""Adding a claim: a toy claim reaches the campaign, the report and the checker, and touches its own files only.

The toy claim "X1" says every configuration has at least one token; its certificate names the
token count, which a routine can recount from the configuration.

* Registered at run time (no file at all), it is decided by the campaign and tabulated by the
  report, and the independent checker reports it unsupported (never verified) until it has a
  routine; with one, it is re-verified.
* Added as a project would add it, in a copy of the package: its module ``verify/claims/X1.py``
  (record and check), its checker module ``verify/certcheck/kernel/claims/X1.py`` (the routine) with its
  line in the checker's table (``verify/certcheck/kernel/claims/__init__.py``), its property module
  ``properties/test_X1.py`` and its row in ``docs/claims.md``, and nothing else. In a fresh
  interpreter it is then registered, decided, re-verified, passes the claim conformance kit, and
  its property passes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.common import claim_conformance as kit
from verify import certcheck
from verify.claims import registry
from verify.app.campaign import CampaignSpec, FamilySpec, claim_counts, plan_tasks, run_tasks
from verify.app.report.build import build_report
from verify.claims.verdicts import Verdict
from verify.core.formatting import counted

REPO = Path(__file__).resolve().parents[2]
SPEC = CampaignSpec(examples=2, layer_budget=40, worked=False, float_check=False, shrink=False,
                    families=(FamilySpec("generic", n=(4, 5), d=(2,), alpha=("1/2",)),))
STATEMENT = "toy: a configuration has at least one token"


def check_X1(run: Any) -> Verdict:
    return Verdict("X1", "certified", counted(run.n, "token"), certificate={"tokens": run.n})


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


def test_the_toy_claim_without_its_files_fails_the_conformance_kit(toy_claim: registry.Claim) -> None:
    """Registered at run time, the record and the check conform; the files a claim needs are missing."""
    assert kit.record_problems(toy_claim) == [] and kit.verdict_problems(toy_claim) == []
    missing = kit.module_problems(toy_claim) + kit.property_problems(toy_claim) + kit.docs_problems(toy_claim)
    assert len(missing) == 3 and kit.checker_problems(toy_claim)


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


# --------------------------------------------------------------------------- a claim added as files

CLAIM_MODULE = f'''"""X1 (toy): {STATEMENT}.

Certified with the token count, which the independent checker recounts from the configuration.
"""

from __future__ import annotations

from verify.claims import registry
from verify.claims.run import ClaimRun, make_verdict
from verify.claims.verdicts import Verdict
from verify.core.formatting import counted


def check_X1(run: ClaimRun) -> Verdict:
    """X1: the run has a token; the certificate names how many."""
    if run.n < 1:
        return make_verdict("X1", "failed", "no token", run)
    return make_verdict("X1", "certified", counted(run.n, "token"), run, certificate={{"tokens": run.n}})


CLAIM = registry.register(registry.Claim("X1", "{STATEMENT}", "check", assumption="none (toy)", certificate="X1",
                                         check=check_X1))
'''
CHECKER_MODULE = '''"""X1 (toy): a configuration has at least one token; the certificate's token count is the configuration's."""

from __future__ import annotations

from ..common import Rejected
from ..model import Context


def check_X1(cert: dict, ctx: Context) -> None:
    """X1 (toy): the certificate's token count is the configuration's."""
    if cert.get("tokens") != ctx.model.n or ctx.model.n < 1:
        raise Rejected(f"tokens is {cert.get('tokens')!r}, the configuration has {ctx.model.n}")
'''
# Its line in the checker's table (verify/certcheck/kernel/claims/__init__.py): the import and the entry.
TABLE_EDITS = (("from .T4 import check_T4\n", "from .T4 import check_T4\nfrom .X1 import check_X1\n"),
               ('"replay": check_replay}', '"replay": check_replay, "X1": check_X1}'))
PROPERTY_MODULE = f'''"""X1 (toy): "{STATEMENT}"."""

from hypothesis import given

from verify.claims import check_configuration
from verify.strategies import configurations
from verify.testing import assert_claim_certified


@given(configurations(max_n=4))
def test_every_configuration_has_a_token(config):
    assert_claim_certified(check_configuration(config, cross_check=False), "X1")
'''
DOCS_ROW = "| X1 | a configuration has at least one token (toy) | the token count, recounted | — |\n"
PROBE = r"""
import json
from verify import certcheck
from verify.claims import registry
from verify.app.campaign import CampaignSpec, FamilySpec, claim_counts, plan_tasks, run_tasks
from tests.common import claim_conformance as kit

spec = CampaignSpec(examples=2, layer_budget=40, worked=False, float_check=False, shrink=False,
                    families=(FamilySpec("generic", n=(4, 5), d=(2,), alpha=("1/2",)),))
counts = claim_counts(run_tasks(plan_tasks(spec, seed=0), jobs=1))
print(json.dumps({"ids": list(registry.verdict_ids()), "routines": list(certcheck.CHECKS),
                  "problems": kit.problems(registry.get("X1")), "counts": counts["X1"]}))
"""


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


@pytest.mark.slow
def test_adding_a_claim_touches_its_module_checker_routine_property_and_docs(tmp_path: Path) -> None:
    copy = tmp_path / "project"
    ignore = shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc")
    for folder in ("verify", "properties", "docs", "tests/common"):
        shutil.copytree(REPO / folder, copy / folder, ignore=ignore)
    for name in ("conftest.py", "pyproject.toml"):
        shutil.copy2(REPO / name, copy / name)
    before = _snapshot(copy)

    (copy / "verify" / "claims" / "X1.py").write_text(CLAIM_MODULE, encoding="utf-8")
    (copy / "verify" / "certcheck" / "kernel" / "claims" / "X1.py").write_text(CHECKER_MODULE, encoding="utf-8")
    table_path = copy / "verify" / "certcheck" / "kernel" / "claims" / "__init__.py"
    table = table_path.read_text(encoding="utf-8")
    for old, new in TABLE_EDITS:
        assert table.count(old) == 1, old
        table = table.replace(old, new)
    table_path.write_text(table, encoding="utf-8")
    (copy / "properties" / "test_X1.py").write_text(PROPERTY_MODULE, encoding="utf-8")
    docs = (copy / "docs" / "claims.md").read_text(encoding="utf-8")
    replay_row = next(line for line in docs.splitlines(keepends=True) if line.startswith("| replay |"))
    (copy / "docs" / "claims.md").write_text(docs.replace(replay_row, replay_row + DOCS_ROW), encoding="utf-8")

    after = _snapshot(copy)
    touched = sorted(path for path in set(before) | set(after) if before.get(path) != after.get(path))
    assert touched == ["docs/claims.md", "properties/test_X1.py", "verify/certcheck/kernel/claims/X1.py",
                       "verify/certcheck/kernel/claims/__init__.py", "verify/claims/X1.py"]

    env = {**os.environ, "PYTHONPATH": str(copy), "HYPOTHESIS_PROFILE": "ci"}
    probe = subprocess.run([sys.executable, "-c", PROBE], cwd=copy, env=env, capture_output=True, text=True,
                           timeout=600)
    assert probe.returncode == 0, probe.stderr
    found = json.loads(probe.stdout.splitlines()[-1])
    assert found["ids"][-1] == "X1" and found["routines"][-1] == "X1"  # registered and re-checked after the others
    assert found["problems"] == []  # the conformance kit, on the claim as added
    assert found["counts"]["certified"] == 2 and found["counts"]["recertified"] == 2
    prop = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "properties/test_X1.py"],
                          cwd=copy, env=env, capture_output=True, text=True, timeout=600)
    assert prop.returncode == 0 and " passed" in prop.stdout, prop.stdout + prop.stderr
