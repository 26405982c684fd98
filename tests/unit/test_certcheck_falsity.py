"""Counterexamples the independent checker re-verifies on its own replay (verify/certcheck/kernel/falsity.py): a
failed D2 (docs/theory.md §3: the squared A-norm decreases) and a failed T3 (§2: a limit outside K), each
re-verified as it stands and rejected once any number it rests on is edited; a failure without the evidence is
passed on, never re-verified."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest

from verify import certcheck
from verify.claims import check_configuration
from verify.core.exact_dynamics import exact_layers
from verify.core.families import generate

# Seeded draws of the lab's indefinite family (docs/theory.md §6) whose exact check fails D2, and T3 as well.
D2_FAILS = generate("indefinite", 3, n=4, d=2)
T3_FAILS = generate("indefinite", 10, n=4, d=2)


def _report(config: Any) -> dict[str, Any]:
    return check_configuration(config, layer_budget=60, cross_check=False).to_json_dict()


def _outcome(report: dict[str, Any], claim: str) -> certcheck.Outcome:
    result = certcheck.check_report(copy.deepcopy(report))
    return next(o for o in result.outcomes if o.claim == claim)


@pytest.fixture(scope="module")
def d2_report() -> dict[str, Any]:
    return _report(D2_FAILS)


@pytest.fixture(scope="module")
def t3_report() -> dict[str, Any]:
    return _report(T3_FAILS)


def test_a_norm_that_decreases_is_re_verified_from_the_replay(d2_report: dict[str, Any]) -> None:
    evidence = d2_report["verdicts"]["D2"]["evidence"]
    assert (evidence["token"], evidence["layer"], evidence["lhs"], evidence["rhs"]) == (2, 1, "171/3136", "15/64")
    outcome = _outcome(d2_report, "D2")
    assert outcome.status == "failed"
    assert outcome.reason == ("re-verified: token 2's squared A-norm decreases from 15/64 at layer 0 to 171/3136 at "
                              "layer 1")
    assert certcheck.check_report(copy.deepcopy(d2_report)).certificates_of_falsity == 1


@pytest.mark.parametrize(("field", "value", "says"), [
    ("lhs", "171/3137", "evidence.lhs is not the replay's <A z_2^1, z_2^1> = 171/3136"),
    ("rhs", "1", "evidence.rhs is not the replay's <A z_2^0, z_2^0> = 15/64"),
    ("layer", 0, "evidence.layer: expected an integer in 1.."),
    ("token", 9, "evidence.token: expected an integer in 0..3"),
])
def test_an_edited_number_of_the_d2_counterexample_is_rejected(d2_report: dict[str, Any], field: str, value: Any,
                                                               says: str) -> None:
    tampered = copy.deepcopy(d2_report)
    tampered["verdicts"]["D2"]["evidence"][field] = value
    outcome = _outcome(tampered, "D2")
    assert outcome.status == "rejected" and outcome.reason.startswith(says), outcome.reason


def _norm(config: Any, layer: int, token: int) -> Fraction:
    """<A z, z> of ``token`` at ``layer``, from the suite's exact engine (an oracle beside the checker's replay)."""
    for exact in exact_layers(config.tokens, alpha=config.alpha, A=config.A):
        if exact.index == layer:
            z = exact.positions()[token]
            A = config.A_matrix
            return sum((z[r] * A[r][c] * z[c] for r in range(config.d) for c in range(config.d)), Fraction(0))
    raise AssertionError("unreachable")


def test_a_norm_that_does_not_decrease_is_no_counterexample(d2_report: dict[str, Any]) -> None:
    # A token whose replayed norms, stated exactly, do not decrease from layer 0 to 1: nothing is shown false.
    token = next(i for i in range(D2_FAILS.n) if _norm(D2_FAILS, 1, i) >= _norm(D2_FAILS, 0, i))
    tampered = copy.deepcopy(d2_report)
    tampered["verdicts"]["D2"]["evidence"].update(token=token, layer=1, lhs=str(_norm(D2_FAILS, 1, token)),
                                                  rhs=str(_norm(D2_FAILS, 0, token)))
    outcome = _outcome(tampered, "D2")
    assert outcome.status == "rejected"
    assert outcome.reason == f"token {token}'s squared A-norm does not decrease from layer 0 to 1"


def test_a_limit_outside_K_is_re_verified_and_every_edit_rejected(t3_report: dict[str, Any]) -> None:
    verdict = t3_report["verdicts"]["T3"]
    assert verdict["status"] == "failed" and verdict["summary"] == "token 1's limit is not in K = conv(leader limits)"
    outcome = _outcome(t3_report, "T3")
    assert outcome.status == "failed" and outcome.reason.startswith("re-verified: token 1's verified limit lies "
                                                                    "outside K"), outcome.reason
    for field, value, says in (("direction", ["0", "1"], "evidence.lhs, rhs are not"),
                               ("limit", ["1/2", "0"], "evidence.limit is not token 1's verified limit"),
                               ("rhs", "100", "evidence.lhs, rhs are not")):
        tampered = copy.deepcopy(t3_report)
        tampered["verdicts"]["T3"]["evidence"][field] = value
        outcome = _outcome(tampered, "T3")
        assert outcome.status == "rejected" and outcome.reason.startswith(says), (field, outcome.reason)


def test_a_failure_without_its_evidence_is_passed_on_not_re_verified(d2_report: dict[str, Any]) -> None:
    stripped = copy.deepcopy(d2_report)
    stripped["verdicts"]["D2"]["evidence"] = {"outside_hypotheses": True}
    outcome = _outcome(stripped, "D2")
    assert outcome.status == "failed" and not outcome.reason.startswith("re-verified")
    assert certcheck.check_report(copy.deepcopy(stripped)).certificates_of_falsity == 0
