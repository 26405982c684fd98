"""Crafted inputs cannot make `prove` say kernel-checked for what the kernel did not prove.

Each test is an attack found by reviewing the bridge (verify/formal/) as an adversary would: a
normal that is nonzero only past the dimension, Coq text in a name, a softmax configuration, a
record with two configurations, two tasks of one name, a fate listed twice, a replay of layer 0,
running out of memory.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from typing import Any

import pytest

from verify.core.numbers import InputError
from verify.formal.kernel import GENERIC, batch_text, check_tasks
from verify.formal.prove import prove_records
from verify.formal.tasks import KERNEL_CHECKED, NOT_KERNEL_CHECKED, REJECTED, plan_record

from .conftest import claims_report

SQUARE_AND_ORIGIN = {"tokens": [["1", "1"], ["1", "-1"], ["-1", "1"], ["-1", "-1"], ["0", "0"]], "alpha": "1/2",
                     "outside_hypotheses": True}


def test_a_normal_nonzero_only_past_the_dimension_does_not_make_t3(every_fate_report: dict[str, Any]) -> None:
    """docs/theory.md D4: the origin's limit lies inside K, T3 fails. A forged certificate with the
    normal (0, 0, 1) in d = 2 would support K at every point: the kernel must refuse it."""
    report = claims_report(SQUARE_AND_ORIGIN)
    assert report["verdicts"]["T3"]["status"] == "failed"
    forged = copy.deepcopy(report)
    forged["verdicts"]["T3"] = {"status": "certified", "certificate": {"boundary": [
        {"token": 4, "direction": ["0", "0", "1"], "multipliers": {"0": "1/4", "1": "1/4", "2": "1/4", "3": "1/4"}}]}}
    forged["verdicts"]["T2"] = copy.deepcopy(every_fate_report["verdicts"]["T2"])
    forged["verdicts"]["T2"]["certificate"]["vertices"] = [
        {"token": t, "direction": d} for t, d in ((0, ["1", "1"]), (1, ["1", "-1"]), (2, ["-1", "1"]), (3, ["-1", "-1"]))]
    claims = prove_records([("forged", forged)]).records[0][1]
    assert claims["T3"].status == REJECTED and "token 4" in claims["T3"].reason


@pytest.mark.parametrize("name", [
    'x *) Notation Outcome := (fun (_ : HardmaxVerify.Statement.config) _ _ _ _ => True). (* y',
    '24" monitor (* review', "line\nbreak *)"])
def test_no_text_of_the_input_reaches_the_coq_file(name: str, every_fate_report: dict[str, Any]) -> None:
    wrong = copy.deepcopy(every_fate_report)
    next(f for f in wrong["fates"] if f["token"] == 4)["set"] = [1]
    for record in (every_fate_report, wrong):
        record["config"]["name"] = name
    result = prove_records([(name, wrong), (name + "!", every_fate_report)])
    assert result.records[0][1]["T1"].status == REJECTED
    assert all(o.status == KERNEL_CHECKED for o in result.records[1][1].values())
    assert name not in batch_text([plan_record(every_fate_report, name).task])


def test_softmax_and_value_matrix_configurations_are_not_kernel_checked(every_fate_report: dict[str, Any]) -> None:
    softmax = copy.deepcopy(every_fate_report)
    softmax["config"]["beta"] = "10"
    claims = prove_records([("softmax", softmax)]).records[0][1]
    assert all(o.status == NOT_KERNEL_CHECKED and "softmax" in o.reason for o in claims.values())


def test_a_record_with_two_configurations_is_refused(every_fate_report: dict[str, Any]) -> None:
    two = dict(every_fate_report, configuration=claims_report(SQUARE_AND_ORIGIN)["config"])
    with pytest.raises(InputError, match="one configuration"):
        plan_record(two, "two")


def test_a_fate_listed_twice_is_refused(every_fate_report: dict[str, Any]) -> None:
    twice = copy.deepcopy(every_fate_report)
    twice["fates"].append(dict(twice["fates"][0]))
    with pytest.raises(InputError, match="one fate object per token"):
        plan_record(twice, "twice")


def test_tasks_of_one_name_are_refused_and_labels_made_distinct(every_fate_report: dict[str, Any]) -> None:
    wrong = copy.deepcopy(every_fate_report)
    next(f for f in wrong["fates"] if f["token"] == 4)["set"] = [1]
    task = plan_record(every_fate_report, "X").task
    with pytest.raises(ValueError, match="name of its own"):
        check_tasks([task, plan_record(wrong, "X").task])
    result = prove_records([("X", every_fate_report), ("X", wrong)])
    assert [label for label, _, _ in result.records] == ["X", "X #2"]
    assert result.records[0][1]["T1"].status == KERNEL_CHECKED and result.records[1][1]["T1"].status == REJECTED


def test_a_replay_of_layer_0_is_not_a_replay(every_fate_report: dict[str, Any]) -> None:
    zero = copy.deepcopy(every_fate_report)
    zero["verdicts"]["replay"]["certificate"].update(last_layer=0, final_positions=zero["config"]["tokens"])
    plan = plan_record(zero, "zero")
    assert plan.decided["replay"].status == NOT_KERNEL_CHECKED and "no layer" in plan.decided["replay"].reason


def test_running_out_of_memory_is_not_a_rejection(every_fate_report: dict[str, Any]) -> None:
    run = check_tasks([plan_record(every_fate_report, "small").task], memory_limit=100 << 20)
    verdict = run.verdicts["small"]
    assert verdict.status == NOT_KERNEL_CHECKED and not verdict.rejected and "out of memory" in verdict.reason


def test_every_batch_prints_the_assumptions_of_the_generic_theorems(every_fate_report: dict[str, Any]) -> None:
    text = batch_text([plan_record(every_fate_report, "a").task])
    printed = text.split("Definition all_outcomes := ")[1]
    assert all(name in printed for name in GENERIC) and "Print Assumptions all_outcomes." in printed
    # Only Statement.v is imported: the proof files cannot change what a statement means.
    assert "Require Import Statement." in text and "Require Checker Similarity Paths Fast Polytope Norms." in text



def test_a_lower_inherited_memory_limit_is_kept_not_raised() -> None:
    """A process under a lower address-space limit (a batch system, the hostile runs) cannot raise
    it: coqc must start under that limit rather than fail in its preexec function."""
    code = ("import resource; from verify.formal.kernel import _limits\n"
            "resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))\n"
            "_limits(64 << 30)()\n"
            "print(resource.getrlimit(resource.RLIMIT_AS))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"({6 << 30}, {6 << 30})"
