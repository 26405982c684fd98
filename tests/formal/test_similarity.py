"""Coq's kernel on D11 similarity certificates (docs/theory.md D11): the rotating square's T0 failure is
kernel-checked, with or without a relabelling, and every wrong certificate (M, s, P, p) is rejected,
naming the part that fails."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import pytest

from verify.formal.kernel import batch_text
from verify.formal.prove import prove_records
from verify.formal.tasks import FAILURES, KERNEL_CHECKED, NOT_KERNEL_CHECKED, REJECTED, plan_record

from .conftest import claims_report

ROTATING_SQUARE = json.loads((Path(__file__).resolve().parents[2] / "examples" / "rotating_square.json").read_text())


@pytest.fixture(scope="module")
def square_report() -> dict[str, Any]:
    report = claims_report(ROTATING_SQUARE)
    assert report["verdicts"]["T0"]["status"] == "failed"
    similarity = report["verdicts"]["T0"]["evidence"]["similarity"]
    assert (similarity["layer"], similarity["period"], similarity["scale"]) == (0, 1, "1/2")
    assert similarity["relabelling"] == [0, 1, 2, 3]
    return report


def _similarity(report: dict[str, Any]) -> dict[str, Any]:
    return report["verdicts"]["T0"]["evidence"]["similarity"]


def test_the_rotating_squares_t0_failure_is_kernel_checked(square_report: dict[str, Any]) -> None:
    plan = plan_record(square_report, "square")
    assert plan.task is not None and plan.failing == ["T0"]
    text = batch_text([plan.task])
    assert "Theorem no_leader : HardmaxVerify.Statement.NoLeaderEver cfg." in text
    assert "M0.no_leader" in text.split("Definition all_outcomes := ")[1]
    result = prove_records([("square", square_report)])
    (_, claims, _), = result.records
    assert claims["T0"].status == KERNEL_CHECKED and claims["T0"].reason == FAILURES["T0"]
    assert claims["T0"].reason.startswith("T0 fails")
    # The claims check did not certify stay not kernel-checked; the certificate counts as checked.
    assert claims["T1"].status == NOT_KERNEL_CHECKED and claims["D1"].status == KERNEL_CHECKED
    assert result.configurations_checked == 1 and result.exit_status == 3


def _set(**changes: Any) -> Callable[[dict[str, Any]], None]:
    return lambda report: _similarity(report).update(changes)


# Each a wrong D11 certificate of the rotating square, and the part of the check that fails.
TAMPERS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "another M": (_set(M=[["1/2", "-1/2"], ["1/2", "1/3"]]), "M^T A M = s A"),
    "M = I (the layers are not M times the last)": (_set(M=[["1", "0"], ["0", "1"]], scale="1"), "layer k + p"),
    "the identity M with the rotation's relabelling": (_set(relabelling=[1, 2, 3, 0]), "layer k + p"),
    "a wrong scale": (_set(scale="1/3"), "M^T A M = s A"),
    "scale zero": (_set(scale="0"), "not positive"),
    "a negative scale": (_set(scale="-1/2"), "not positive"),
    "period zero (says nothing)": (_set(period=0), "period p is not positive"),
    "period two (Z^2 = M^2 Z^0, not M Z^0)": (_set(period=2), "layer k + p"),
    "period two and layer one": (_set(period=2, layer=1), "layer k + p"),
    "M with rows past the dimension": (_set(M=[["1/2", "-1/2", "0"], ["1/2", "1/2", "0"], ["0", "0", "1"]]),
                                       "past the dimension"),
}


def test_every_wrong_similarity_certificate_is_rejected(square_report: dict[str, Any]) -> None:
    records = []
    for name, (tamper, _) in TAMPERS.items():
        record = copy.deepcopy(square_report)
        tamper(record)
        records.append((name, record))
    result = prove_records(records, jobs=2)
    for name, claims, _ in result.records:
        assert claims["T0"].status == REJECTED, name
        assert TAMPERS[name][1] in claims["T0"].reason, (name, claims["T0"].reason)
        # Only the claim resting on the refused theorem is rejected.
        assert claims["D1"].status == KERNEL_CHECKED, name
    assert result.exit_status == 1 and result.configurations_checked == 0


def test_a_later_layer_is_a_true_certificate_too(square_report: dict[str, Any]) -> None:
    """k is not free to be wrong here: Z^(k+1) = M Z^k at every layer of the rotating square, so k = 3 proves
    the same failure (the check of the layers before k + p is what a wrong k would break)."""
    record = copy.deepcopy(square_report)
    _similarity(record)["layer"] = 3
    (_, claims, _), = prove_records([("square k=3", record)]).records
    assert claims["T0"].status == KERNEL_CHECKED


def test_a_configuration_with_a_leader_cannot_be_said_to_fail(every_fate_report: dict[str, Any],
                                                              square_report: dict[str, Any]) -> None:
    """A forged failure: T0 holds (a leader at layer 0), the record claims a D11 certificate; the kernel refuses."""
    record = copy.deepcopy(every_fate_report)
    record["verdicts"]["T0"] = copy.deepcopy(square_report["verdicts"]["T0"])
    _similarity(record)["relabelling"] = list(range(len(record["fates"])))
    _similarity(record).update(M=[["1", "0"], ["0", "1"]], scale="1", layer=0, period=1)
    (_, claims, _), = prove_records([("forged", record)]).records
    assert claims["T0"].status == REJECTED
    assert "leads" in claims["T0"].reason or "layer k + p" in claims["T0"].reason


# z_i^1 = M z_i^0 = M J^-1 z_(i+1)^0 (J the quarter turn that maps each vertex to the next): the same failure
# with the relabelling P(i) = i + 1 mod 4 and M' = M J^-1 = (I + J^-1)/2, M'^T A M' = A/2 since J^T A J = A.
RELABELLED = {"M": [["1/2", "1/2"], ["-1/2", "1/2"]], "relabelling": [1, 2, 3, 0]}


def test_a_relabelled_certificate_is_kernel_checked_and_a_wrong_relabelling_rejected(square_report: dict[str, Any]) -> None:
    records = []
    for name, relabelling in (("P(i) = i + 1", [1, 2, 3, 0]), ("another permutation", [1, 0, 3, 2]),
                              ("not a permutation", [1, 1, 3, 0]), ("too short", [1, 2, 3]),
                              ("an index past the tokens", [1, 2, 3, 4])):
        record = copy.deepcopy(square_report)
        _similarity(record).update(RELABELLED, relabelling=relabelling)
        records.append((name, record))
    result = prove_records(records)
    outcomes = {name: claims["T0"] for name, claims, _ in result.records}
    assert outcomes.pop("P(i) = i + 1").status == KERNEL_CHECKED
    assert all(o.status == REJECTED for o in outcomes.values()), outcomes
    assert "(relabelled by P)" in outcomes["another permutation"].reason
    for name in ("not a permutation", "too short", "an index past the tokens"):
        assert "not a permutation" in outcomes[name].reason, (name, outcomes[name].reason)


def test_a_failed_t0_without_a_certificate_is_not_kernel_checked(square_report: dict[str, Any]) -> None:
    record = copy.deepcopy(square_report)
    del record["verdicts"]["T0"]["evidence"]["similarity"]
    plan = plan_record(record, "no certificate")
    assert plan.decided["T0"].status == NOT_KERNEL_CHECKED and "no similarity certificate" in plan.decided["T0"].reason


def _results_with(verdict: dict[str, Any]) -> dict[str, Any]:
    block = {"status": "checked", "coq_version": "8.16.1", "statement": "formal/Statement.v", "statement_sha256": "ab" * 32,
             "configurations": 1, "certificates_kernel_checked": 1, "rejected": [], "not_kernel_checked": {},
             "unchecked_configurations": [],
             "claims": {"T0": {"kernel-checked": 1, "rejected": 0, "not kernel-checked": 0}}}
    return {"examples": [{"task": {"name": "square"}, "status": "failed", "verdicts": {"T0": verdict}}], "kernel": block}


def test_certcheck_counts_a_kernel_checked_failure_only_with_its_certificate(square_report: dict[str, Any]) -> None:
    """certcheck holds the kernel block to the records: a T0 kernel-checked on a record where it failed needs
    the record's D11 certificate."""
    from verify.certcheck.results.kernel_pass import kernel_outcomes

    verdict = copy.deepcopy(square_report["verdicts"]["T0"])
    assert [o.status for o in kernel_outcomes(_results_with(verdict), "r")] == ["verified"]
    del verdict["evidence"]["similarity"]
    (outcome,) = kernel_outcomes(_results_with(verdict), "r")
    assert outcome.status == "rejected" and "decides it on 0" in outcome.reason
