"""The lab's D10 conjectures (verify.experiments.conjectures.leader_control): refuted only by exact certificates that
the independent checker (verify/certcheck/control/) accepts; inconclusive is undecided; minimal subsets."""

import json
from fractions import Fraction as F

import pytest

from verify.certcheck.control import check_control, is_positive_semidefinite
from verify.certcheck.control import main as checker_main
from verify.core.config import make_configuration
from verify.core.geometry import convex_hull_vertices
from verify.core.worked import WORKED_CONFIGURATIONS
from verify.experiments.conjectures import leader_control
from verify.experiments.conjectures.base import InternalError
from verify.experiments.conjectures.builtin import BUILTIN_CONJECTURES
from verify.experiments.control import realisable
from verify.experiments.control.constraints import Constraint
from verify.experiments.control.design import Infeasibility, SystemDecision

# d = 1, tokens 1/128 and 1 (both hull vertices): token 0 leads only if a (1/128) (1/128 - 1) > 0, impossible for
# a > 0, so neither "every subset is realisable" nor "all hull vertices lead together" holds.
D1 = make_configuration([["1/128"], [1]], alpha="1/2")
# Found by a random search: tokens 0 and 2 can each lead, but not together (the certificate needs both).
PAIR = make_configuration([["-3/4", "-1/4"], ["1/2", "3/4"], ["1/4", "1/4"], ["-1/2", "3/4"]], alpha="1/2")
# The system of all hull vertices has a certificate on [0, 1, 2, 4] (this solver); {1, 4} alone is impossible.
SHRINKS = make_configuration([["-1/2", "1/2"], [0, "-1/4"], ["-1/2", -1], ["1/4", "1/4"], [0, 1]], alpha="1/2")

PREDICATES = [leader_control.hull_vertex_subsets_realisable, leader_control.hull_vertex_subsets_confirm,
              leader_control.all_hull_vertices_lead_together]


@pytest.mark.parametrize("predicate", PREDICATES)
def test_a_known_impossible_configuration_refutes_with_a_certificate_the_independent_checker_accepts(predicate, tmp_path,
                                                                                                   capsys):
    observation = predicate(D1)
    assert observation.status == "failed" and observation.evidence["impossible_subset"] == [0]
    result = observation.evidence["control_result"]
    assert result["format"] == "hardmax-verify/control-v1" and result["outcome"] == "impossible"
    # The checker, run here on its own, recomputes S from the tokens and the weights.
    check = check_control(result)
    assert check.status == "verified" and [i.status for i in check.items] == ["failed"]
    weights = result["infeasibility"]["weights"]
    assert {(w["token"], w["attends_to"], w["rival"]) for w in weights} == {(0, 0, 1)}
    y = F(weights[0]["y"])
    # By hand: S = -y sym(z_0 (z_0 - z_1)^T) = -y (1/128) (1/128 - 1) > 0.
    assert [[F(x) for x in row] for row in result["infeasibility"]["S"]] == [[-y * F(1, 128) * (F(1, 128) - 1)]]
    # ... and from a file, as `hardmax-verify certcheck` reads it: exit 1 = a verified certificate that it is false.
    path = tmp_path / "impossible.json"
    path.write_text(json.dumps(result))
    capsys.readouterr()
    assert checker_main([str(path)]) == 1  # the checker's command line, in this process
    assert "verified (impossible)" in capsys.readouterr().out


def test_a_tampered_certificate_is_rejected_by_the_checker_and_reported_as_an_internal_error():
    # Token 1 = (1) leads under a = 1, so no certificate exists: the weight below gives S < 0.
    wrong = {Constraint(1, 1, 0): F(1)}
    with pytest.raises(InternalError, match="independent checker says rejected"):
        leader_control.independently_checked(D1, [1], Infeasibility(wrong, [[F(-127, 128)]], "lambda_min"))
    # A stated S that is not -sum y M is rejected too, whatever the exact code believed.
    right = realisable(D1, [0]).infeasibility
    assert right is not None
    with pytest.raises(InternalError):
        leader_control.independently_checked(D1, [0], Infeasibility(right.weights, [[F(1)]], right.step))


@pytest.mark.parametrize("name", ["emerging_leader", "square", "triangle"])
def test_worked_configurations_whose_hull_vertices_all_lead_hold(name):
    config = WORKED_CONFIGURATIONS[name]
    for predicate in PREDICATES:
        observation = predicate(config)
        assert observation.status == "held", observation.detail
    # The design behind it makes every vertex lead, hence every subset (realisable sets are closed under subsets).
    assert realisable(config, convex_hull_vertices(config.tokens)).kind == "feasible"


def test_a_pair_that_cannot_lead_together_though_each_can_alone():
    observation = leader_control.hull_vertex_subsets_confirm(PAIR)
    assert observation.status == "failed" and observation.evidence["impossible_subset"] == [0, 2]
    assert observation.evidence["minimal"] is True and "a minimal one" in observation.detail
    assert realisable(PAIR, [0]).kind == realisable(PAIR, [2]).kind == "feasible"


def test_the_recheck_shrinks_the_impossible_subset_to_a_minimal_one():
    searched = leader_control.hull_vertex_subsets_realisable(SHRINKS)
    confirmed = leader_control.hull_vertex_subsets_confirm(SHRINKS)
    assert searched.status == confirmed.status == "failed"
    subset = confirmed.evidence["impossible_subset"]
    assert len(subset) <= len(searched.evidence["impossible_subset"]) and confirmed.evidence["minimal"]
    assert confirmed.evidence["search_subset"] == searched.evidence["impossible_subset"]
    # Minimal, checked from scratch: every one-smaller subset has an exact design, and the subset's certificate
    # verifies with the independent checker (its S positive semidefinite by the checker's own elimination).
    for v in subset:
        smaller = [t for t in subset if t != v]
        if smaller:
            assert realisable(SHRINKS, smaller).kind == "feasible"
    result = confirmed.evidence["control_result"]
    assert result["leaders"] == subset and check_control(result).status == "verified"
    assert is_positive_semidefinite([[F(x) for x in row] for row in result["infeasibility"]["S"]])


def test_inconclusive_is_undecided_never_a_refutation(monkeypatch):
    monkeypatch.setattr(leader_control, "realisable", lambda config, leaders: SystemDecision("inconclusive"))
    for predicate in PREDICATES:
        observation = predicate(D1)
        assert observation.status == "undecided" and "D10 inconclusive" in observation.detail


def test_the_conjectures_are_registered_expected_refuted_with_the_checked_recheck():
    subsets = BUILTIN_CONJECTURES["hull_vertex_subsets_realisable"]
    together = BUILTIN_CONJECTURES["all_hull_vertices_lead_together"]
    assert subsets.expected == together.expected == "refuted"
    assert subsets.predicate is leader_control.hull_vertex_subsets_realisable
    assert subsets.confirm is leader_control.hull_vertex_subsets_confirm
    assert together.check(D1).status == subsets.check(D1).status == "failed"


@pytest.mark.parametrize("config, expected", [
    (D1, "no symmetric positive definite A makes token 0 lead at layer 0 (exact certificate: weights y >= 0 on "
         "1 constraint with"),
    (PAIR, "no symmetric positive definite A makes tokens [0, 2] lead together at layer 0 (exact certificate: "
           "weights y >= 0 on 2 constraints with")])
def test_a_refutation_counts_the_constraints_its_certificate_weighs(config, expected):
    observation = leader_control.hull_vertex_subsets_realisable(config)
    assert observation.status == "failed" and expected in observation.detail
