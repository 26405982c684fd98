"""Every registered claim passes the claim conformance kit (tests/common/claim_conformance.py), and the kit can fail.

The kit is what adding a claim must satisfy (docs/claims.md): a complete record in its own module
``verify/claims/<id>.py``, a property module, a checker routine in its own module
``verify/certcheck/kernel/claims/<key>.py``, a row in docs/claims.md, and a check that keeps the verdict
contract and issues certificates the independent checker re-verifies. The second half shows each
rule catching a toy claim that breaks it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterator

import pytest

from tests.common import claim_conformance as kit
from verify.claims import registry
from verify.claims.verdicts import Verdict
from verify.core.formatting import counted


@pytest.mark.parametrize("claim", registry.claims(), ids=lambda c: c.id)
def test_every_registered_claim_conforms(claim: registry.Claim) -> None:
    assert kit.problems(claim) == []


def test_the_kit_runs_every_claim_check_on_each_kind_of_run() -> None:
    """The conformance runs reach certified, failed and inconclusive verdicts: the contract is tried on all three."""
    statuses = {verdict["status"] for _, report, _ in kit._checked_reports(registry.verdict_ids())
                for verdict in report["verdicts"].values()}
    assert statuses == {"certified", "failed", "inconclusive"}
    assert {run.stopped_by for _, run in kit.conformance_runs()} == {"settled", "layer budget"}


# --------------------------------------------------------------------------- the kit catches what breaks a rule


def _toy(check: Any = None, **fields: Any) -> registry.Claim:
    defaults: dict[str, Any] = {"statement": "toy: a configuration has a token", "kind": "check",
                                "assumption": "none (toy)", "certificate": "X9", "check": check}
    return registry.Claim("X9", **{**defaults, **fields})


def _certified(run: Any) -> Verdict:
    return Verdict("X9", "certified", counted(run.n, "token"), certificate={"tokens": run.n})


def test_an_incomplete_record_is_found() -> None:
    assert kit.record_problems(_toy(_certified)) == []
    assert any("check function" in p for p in kit.record_problems(_toy(None)))
    assert any("checker routine" in p for p in kit.record_problems(_toy(_certified, certificate=None)))
    assert any("one non-empty line" in p for p in kit.record_problems(_toy(_certified, statement="two\nlines")))
    assert any("assumes" in p for p in kit.record_problems(_toy(_certified, assumption=" ")))
    assert any("`check`" in p for p in kit.record_problems(_toy(_certified, reproduce="simulate")))


def test_a_claim_without_its_module_property_routine_or_docs_is_found() -> None:
    toy = _toy(_certified)
    assert any("no module verify/claims/X9.py" in p for p in kit.module_problems(toy))
    assert any("no property module" in p for p in kit.property_problems(toy))
    assert any("no routine 'X9'" in p for p in kit.checker_problems(toy))
    assert any("no row `| X9 |`" in p for p in kit.docs_problems(toy))
    # A record that is not the one its module registers is found too.
    t0 = registry.get("T0")
    assert any("CLAIM" in p for p in kit.module_problems(replace(t0, statement="another")))
    assert any("never names claim T0" in p for p in kit.property_problems(replace(t0, property_module="test_T1")))


def test_a_checker_routine_outside_its_own_module_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """The routine must be check_<key> of verify/certcheck/kernel/claims/<key>.py, the module the checker's table imports."""
    from verify import certcheck

    t0 = registry.get("T0")
    assert kit.checker_problems(t0) == []
    monkeypatch.setitem(certcheck.CHECKS, "T0", lambda cert, ctx: None)
    assert any("is not check_T0 of verify/certcheck/kernel/claims/T0.py" in p for p in kit.checker_problems(t0))
    monkeypatch.setitem(certcheck.CHECKS, "X9", lambda cert, ctx: None)
    assert any("no checker module verify/certcheck/kernel/claims/X9.py" in p for p in kit.checker_problems(_toy(_certified)))


@pytest.mark.parametrize("check, expected", [
    (lambda run: Verdict("T0", "certified", "x", certificate={}), "for claim 'T0'"),
    (lambda run: Verdict("X9", "certified", "no proof"), "exactly when certified"),
    (lambda run: Verdict("X9", "failed", "with a proof", certificate={"tokens": 1}), "exactly when certified"),
    (lambda run: Verdict("X9", "maybe", "x"), "status 'maybe'"),  # type: ignore[arg-type]
    (lambda run: Verdict("X9", "certified", "x", certificate={"distance": 0.5}), "floats"),
    (lambda run: Verdict("X9", "inconclusive", "x", evidence={"distance": float("nan")}), "not plain JSON"),
    (lambda run: Verdict("X9", "inconclusive", "two\nlines"), "one non-empty line"),
    (lambda run: 1 / 0, "raised ZeroDivisionError"),
    (lambda run: {"claim": "X9"}, "not a Verdict"),
], ids=["other id", "certified without certificate", "failed with certificate", "unknown status", "float",
        "NaN", "summary lines", "raises", "not a verdict"])
def test_a_check_that_breaks_the_verdict_contract_is_found(check: Any, expected: str) -> None:
    found = kit.verdict_problems(_toy(check), runs=kit.conformance_runs()[:1])
    assert any(expected in p for p in found), found


def test_a_check_that_is_not_deterministic_is_found() -> None:
    calls = iter(range(100))
    toy = _toy(lambda run: Verdict("X9", "inconclusive", f"call {next(calls)}"))
    assert any("second run" in p for p in kit.verdict_problems(toy, runs=kit.conformance_runs()[:1]))


@pytest.fixture
def registered_toy() -> Iterator[registry.Claim]:
    claim = registry.register(_toy(_certified))
    try:
        yield claim
    finally:
        registry.unregister("X9")


def test_a_certificate_the_checker_cannot_verify_is_found(registered_toy: registry.Claim,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # No routine: every certified verdict is unsupported, never verified.
    found = kit.recheck_problems(registered_toy)
    assert found and all("the checker says unsupported" in p for p in found), found
    # A routine that rejects: every certified verdict is rejected.
    from verify import certcheck

    def reject(cert: dict, ctx: Any) -> None:
        raise certcheck.Rejected("toy routine rejects everything")

    monkeypatch.setitem(certcheck.CHECKS, "X9", reject)
    kit._checked_reports.cache_clear()
    found = kit.recheck_problems(registered_toy)
    assert found and all("the checker says rejected" in p for p in found), found
    kit._checked_reports.cache_clear()
