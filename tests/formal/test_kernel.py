"""Coq's kernel on D7 certificates: real ones are kernel-checked, every kind of wrong one is rejected."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any, Callable

from verify.claims import check_configuration
from verify.core.worked import WORKED_CONFIGURATIONS
from verify.formal.kernel import check_tasks
from verify.formal.prove import prove_records
from verify.formal.tasks import KERNEL_CHECKED, NOT_KERNEL_CHECKED, REJECTED, plan_record

from .conftest import claims_report

COVERED = ("T0", "T1", "T2", "T3", "T4", "D1", "D2", "D3", "replay")


def _fate(report: dict[str, Any], token: int) -> dict[str, Any]:
    return next(f for f in report["fates"] if f["token"] == token)


def test_real_certificates_are_kernel_checked(every_fate_report: dict[str, Any]) -> None:
    emerging = check_configuration(WORKED_CONFIGURATIONS["emerging_leader"], cross_check=False).to_json_dict()
    result = prove_records([("every fate", every_fate_report), ("emerging", emerging)])
    for _, claims, _ in result.records:
        assert {c for c, o in claims.items() if o.status == KERNEL_CHECKED} == set(COVERED)
    assert result.configurations_checked == 2 and result.exit_status == 0
    assert len(result.kernel.statement_sha256) == 64 and result.kernel.coq_version[0].isdigit()


def _set(token: int, **changes: Any) -> Callable[[dict[str, Any]], None]:
    return lambda report: _fate(report, token).update(changes)


# Each a wrong certificate of the every-fate configuration (tests/formal/conftest.py).
TAMPERS: dict[str, Callable[[dict[str, Any]], None]] = {
    "a locked token called a leader": _set(4, kind="leader", set=[4]),
    "a leader called locked": _set(3, kind="locked", set=[0]),
    "a fixed token called a leader": _set(2, kind="leader", set=[2]),
    "another lock target": _set(4, set=[1]),
    "a lock target missing a member": _set(5, set=[0, 1]),
    "a fixed token's G missing a member": _set(2, set=[0]),
    "a fixed token's G with its own index": _set(2, set=[0, 1, 2]),
    "a lock one layer late (not the first)": _set(4, layer=1),
    "a leader one layer late (not its first)": _set(0, layer=1),
    "a fixed token one layer late": _set(2, layer=1),
    "a leader's limit": _set(0, limit=["1", "2"]),
    "a locked token's limit": _set(5, limit=["1", "1/2"]),
    "a fixed token's limit": _set(2, limit=["1", "1/1000"]),
    "a replayed position": lambda r: r["verdicts"]["replay"]["certificate"]["final_positions"][4].__setitem__(0, "7/9"),
    "the replayed layer": lambda r: r["verdicts"]["replay"]["certificate"].update(
        last_layer=r["verdicts"]["replay"]["certificate"]["last_layer"] + 1),
}
# Wrong T2/T3 certificates: the D7 certificate stands, the polytope theorem is rejected.
POLYTOPE_TAMPERS: dict[str, Callable[[dict[str, Any]], None]] = {
    "a vertex direction that does not separate": lambda r: _entry(r, "T2", "vertices", 0).update(direction=["1", "0"]),
    "a boundary direction that does not support": lambda r: _entry(r, "T3", "boundary", 4).update(direction=["-1", "0"]),
    "multipliers that do not give the limit": lambda r: _entry(r, "T3", "boundary", 5).update(
        multipliers={"0": "1"}),
    "multipliers naming a token that is not a leader": lambda r: _entry(r, "T3", "boundary", 5).update(
        multipliers={"0": "1/2", "2": "1/2"}),
    "a zero boundary direction": lambda r: _entry(r, "T3", "boundary", 2).update(direction=["0", "0"]),
}


def _entry(report: dict[str, Any], claim: str, key: str, token: int) -> dict[str, Any]:
    return next(e for e in report["verdicts"][claim]["certificate"][key] if e["token"] == token)


def test_every_wrong_certificate_is_rejected(every_fate_report: dict[str, Any]) -> None:
    records = []
    for name, tamper in TAMPERS.items():
        record = copy.deepcopy(every_fate_report)
        tamper(record)
        records.append((name, record))
    result = prove_records(records, jobs=2)
    for name, claims, _ in result.records:
        statuses = {c: o.status for c, o in claims.items()}
        assert {c for c, s in statuses.items() if s == REJECTED} == set(COVERED) - {"D1", "D2", "D3"}, name
        assert {c for c, s in statuses.items() if s == KERNEL_CHECKED} == {"D1", "D2", "D3"}, name
        assert all(claims[c].reason.startswith("rejected by the kernel: ") for c in ("T0", "T1", "replay")), name
    assert result.exit_status == 1


def test_every_wrong_polytope_certificate_is_rejected(every_fate_report: dict[str, Any]) -> None:
    records = []
    for name, tamper in POLYTOPE_TAMPERS.items():
        record = copy.deepcopy(every_fate_report)
        tamper(record)
        records.append((name, record))
    result = prove_records(records, jobs=2)
    for name, claims, _ in result.records:
        assert claims["T2"].status == REJECTED and claims["T3"].status == REJECTED, name
        assert "where T2 and T3 say" in claims["T2"].reason, (name, claims["T2"].reason)


def test_a_leaders_first_layer_too_early_is_rejected() -> None:
    """emerging_leader: token 1 first leads at layer 1; layer 0, or 2, is wrong."""
    report = check_configuration(WORKED_CONFIGURATIONS["emerging_leader"], cross_check=False).to_json_dict()
    assert _fate(report, 1) == {**_fate(report, 1), "kind": "leader", "layer": 1}
    early, late = copy.deepcopy(report), copy.deepcopy(report)
    _fate(early, 1)["layer"] = 0
    _fate(late, 1)["layer"] = 2
    run = check_tasks([plan_record(early, "early").task, plan_record(late, "late").task])
    assert run.verdicts["early"].summary == REJECTED and "token 1 at layer 0" in run.verdicts["early"].rejected["outcome"]
    assert run.verdicts["late"].summary == REJECTED and "holds already at layer 1" in run.verdicts["late"].rejected["outcome"]


def test_a_rejected_certificate_in_a_batch_leaves_the_others_checked(every_fate_report: dict[str, Any]) -> None:
    wrong = copy.deepcopy(every_fate_report)
    _fate(wrong, 4)["set"] = [1]
    tasks = [plan_record(every_fate_report, "first").task, plan_record(wrong, "wrong").task,
             plan_record(every_fate_report, "third").task]
    run = check_tasks(tasks)
    assert [run.verdicts[t].summary for t in ("first", "wrong", "third")] == [KERNEL_CHECKED, REJECTED, KERNEL_CHECKED]
    assert set(run.verdicts["wrong"].rejected) == {"outcome"} and "token 4 at layer 0" in run.verdicts["wrong"].rejected["outcome"]
    # The rest of the wrong task was checked without the refused theorem.
    assert run.verdicts["wrong"].status == KERNEL_CHECKED


def test_out_of_time_is_not_kernel_checked(every_fate_report: dict[str, Any]) -> None:
    run = check_tasks([plan_record(every_fate_report, "slow").task], time_limit=1e-3)
    assert run.verdicts["slow"].status == NOT_KERNEL_CHECKED and "did not finish" in run.verdicts["slow"].reason


def test_what_is_not_formalised_is_said() -> None:
    value_matrix = claims_report({"tokens": [["1", "0"], ["0", "1"]], "alpha": "1", "V": [["1", "0"], ["0", "1"]]})
    plan = plan_record(value_matrix, "V")
    assert plan.task is None
    assert all(o.status == NOT_KERNEL_CHECKED for o in plan.resolve(NOT_KERNEL_CHECKED, "").values())
    assert any("value matrix" in o.reason for o in plan.decided.values())


def test_an_uncertified_claim_is_never_kernel_checked(every_fate_report: dict[str, Any]) -> None:
    record = copy.deepcopy(every_fate_report)
    record["verdicts"]["T1"]["status"] = "inconclusive"
    record["verdicts"]["D1"]["status"] = "failed"
    result = prove_records([("r", record)])
    claims = result.records[0][1]
    assert claims["T1"].status == NOT_KERNEL_CHECKED and "did not certify" in claims["T1"].reason
    assert claims["D1"].status == NOT_KERNEL_CHECKED
    assert claims["T0"].status == KERNEL_CHECKED


def test_a_wrong_face_or_matrix_certificate_is_rejected() -> None:
    """non_leader_clusters: the tokens at (+-1/2, 0) converge to (+-1, 0), the A-norm projections of
    the origin onto the edges x = +-1 of the square (T4). A direction exposing the wrong face, and a
    wrong sum d_i v_i v_i^T for A, are rejected."""
    report = check_configuration(WORKED_CONFIGURATIONS["non_leader_clusters"], cross_check=False).to_json_dict()
    projections = report["verdicts"]["T4"]["certificate"]["projections"]
    assert projections and not report["verdicts"]["T4"]["certificate"]["vacuous"]
    wrong_face = copy.deepcopy(report)
    wrong_face["verdicts"]["T4"]["certificate"]["projections"][0]["direction"] = ["0", "1"]
    good, face = plan_record(report, "good").task, plan_record(wrong_face, "face").task
    assert good is not None and good.gram is not None and good.faces is not None
    matrix = replace(good, name="matrix", gram=("[(1 # 1); (2 # 1)]", good.gram[1]))
    run = check_tasks([good, face, matrix])
    assert run.verdicts["good"].summary == KERNEL_CHECKED
    assert set(run.verdicts["face"].rejected) == {"projections"}
    assert "minimise the A-norm" in run.verdicts["face"].rejected["projections"]
    assert set(run.verdicts["matrix"].rejected) == {"spsd"}
    assert "sum of d_i v_i v_i^T" in run.verdicts["matrix"].rejected["spsd"]


def test_path_fates_are_not_formalised() -> None:
    record = {"config": {"tokens": [["1", "0"], ["0", "1"]], "alpha": "1"},
              "verdicts": {"T0": {"status": "certified"}, "T1": {"status": "certified"}},
              "fates": [{"token": 0, "kind": "leader", "layer": 0, "set": [0], "limit": ["1", "0"]},
                        {"token": 1, "kind": "path", "layer": 0, "set": [1], "limit": ["0", "1"]}]}
    plan = plan_record(record, "p")
    assert plan.task is None and "D9 closed-form path" in plan.decided["T1"].reason
