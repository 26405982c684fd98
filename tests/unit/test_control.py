"""verify.experiments.control (docs/theory.md D10): the exact pieces on answers worked out by hand, and the decision
on small configurations whose answer is known."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from verify.core import linalg
from verify.experiments.control.constraints import (Constraint, certificate_matrix, check_certificate, check_design,
                                                    constraint_matrix, leaders_under, system)
from verify.experiments.control.design import (control, decide_system, round_matrix, round_weights,
                                               simplest_fraction)
from verify.experiments.control.leader_sets import decide_leader_sets, subset_count_refusal
from verify.core.numbers import InputError
from verify.core.worked import WORKED_CONFIGURATIONS


def P(*coords: object) -> tuple[F, ...]:
    return tuple(F(c) for c in coords)  # type: ignore[arg-type]


EMERGING = WORKED_CONFIGURATIONS["emerging_leader"].tokens


# --------------------------------------------------------------------------- the matrices and the exact checks


def test_constraint_matrix_and_its_margin_by_hand() -> None:
    # z_m = (1, 2), z_t - z_k = (3, 0) - (1, 1) = (2, -1): M = sym(z_m (z_t - z_k)^T).
    tokens = [P(1, 2), P(3, 0), P(1, 1)]
    M = constraint_matrix(tokens, Constraint(0, 1, 2))
    assert M == [[F(2), F(3, 2)], [F(3, 2), F(-2)]]
    A = [[F(2), F(1)], [F(1), F(3)]]
    # <M, A> = trace(M A) = z_m^T A (z_t - z_k) = (1, 2) . (3, -1) = 1
    assert sum(M[r][s] * A[s][r] for r in range(2) for s in range(2)) == 1
    check = check_design(tokens, A, [Constraint(0, 1, 2)])
    assert check.closest == {0: (2, F(1))} and check.holds


def test_system_lists_leaders_then_targets_with_every_rival() -> None:
    found = system(4, [2, 0], {3: 0})
    assert found[:3] == [Constraint(0, 0, 1), Constraint(0, 0, 2), Constraint(0, 0, 3)]
    assert found[3:6] == [Constraint(2, 2, 0), Constraint(2, 2, 1), Constraint(2, 2, 3)]
    # a locked token must also score its target above itself
    assert found[6:] == [Constraint(3, 0, 1), Constraint(3, 0, 2), Constraint(3, 0, 3)]


def test_design_check_needs_every_pivot_and_margin_positive() -> None:
    tokens = [P(1, 0), P(0, 1), P(-1, -1)]
    constraints = system(3, [0, 1, 2], {})
    identity = linalg.identity(2)
    check = check_design(tokens, identity, constraints)
    assert check.holds and check.closest[0] == (1, F(1)) and check.closest[2] == (0, F(3))
    assert leaders_under(tokens, identity) == {0, 1, 2}
    indefinite = [[F(1), F(2)], [F(2), F(1)]]
    assert not check_design(tokens, indefinite, constraints).positive_definite
    # A = [[1, 1], [1, 2]] (pivots 1, 1): token 0 = (1, 0) scores (0, 1) at A_12 = 1 = its own score A_11
    tied = [[F(1), F(1)], [F(1), F(2)]]
    check = check_design(tokens, tied, constraints)
    assert check.positive_definite and check.pivots == (F(1), F(1))
    assert check.closest[0] == (1, F(0)) and not check.holds


@pytest.mark.parametrize("matrix, psd", [
    ([[1, 1], [1, 1]], True), ([[1, 0], [0, 0]], True), ([[0, 0], [0, 0]], True),
    ([[2, -1, 0], [-1, 2, -1], [0, -1, 2]], True),
    ([[1, 2], [2, 1]], False), ([[0, 1], [1, 0]], False), ([[1, 0], [0, -1]], False),
    ([[1, 1, 1], [1, 1, 1], [1, 1, F(99, 100)]], False), ([[1, 0], [1, 1]], False),
])
def test_positive_semidefinite_by_symmetric_elimination(matrix: list, psd: bool) -> None:
    assert linalg.is_positive_semidefinite([[F(x) for x in row] for row in matrix]) is psd


def test_row_basis_and_nullspace_by_hand() -> None:
    M = [[F(1), F(2), F(3)], [F(2), F(4), F(6)], [F(0), F(1), F(1)]]
    assert linalg.row_basis(M) == [[F(1), F(0), F(1)], [F(0), F(1), F(1)]]
    assert linalg.nullspace(M, 3) == [[F(-1), F(-1), F(1)]]
    assert linalg.nullspace([], 2) == [[F(1), F(0)], [F(0), F(1)]]


def test_certificate_check_refuses_what_is_not_one() -> None:
    tokens = [P(1, 0), P(2, 0), P(2, 1), P(2, -1)]  # token 0 scores (2, 0) higher for every SPD A
    allowed = system(4, [0], {})
    good = {Constraint(0, 0, 1): F(1)}
    assert certificate_matrix(tokens, good) == [[F(1), F(0)], [F(0), F(0)]]
    assert check_certificate(tokens, good, allowed) is None
    assert "negative" in check_certificate(tokens, {Constraint(0, 0, 1): F(-1)}, allowed)
    assert "zero" in check_certificate(tokens, {Constraint(0, 0, 1): F(0)}, allowed)
    assert "outside" in check_certificate(tokens, {Constraint(1, 1, 0): F(1)}, allowed)
    assert "semidefinite" in check_certificate(tokens, {Constraint(0, 0, 2): F(1)}, allowed)


# --------------------------------------------------------------------------- rounding


def test_rounding_is_a_fixed_symmetric_function_of_the_float_answer() -> None:
    A = np.array([[2.123456, 0.5000004], [0.4999996, 1.0]])
    assert round_matrix(A, 1000) == [[F(2123, 1000), F(1, 2)], [F(1, 2), F(1)]]
    assert round_matrix(A, 1000) == round_matrix(A.copy(), 1000)
    three = [Constraint(0, 0, 1), Constraint(0, 0, 2), Constraint(1, 1, 0)]
    # y_c = round(yhat_c D) / D * 2^(-e_c); a tiny negative solver value is dropped
    weights = round_weights(np.array([0.25, -1e-12, 0.75]), [1, 0, -2], three, 100)
    assert weights == {three[0]: F(1, 8), three[2]: F(3)}


@pytest.mark.parametrize("x, tolerance, expected", [
    (226 / 1709 + 3e-8, 1e-7, F(226, 1709)), (0.3333333, 1e-6, F(1, 3)), (-0.5, 1e-12, F(-1, 2)), (0.0, 1e-9, F(0)),
    (2.0000001, 1e-5, F(2)), (-1.75, 1e-12, F(-7, 4)), (3.14159265, 2e-3, F(22, 7)), (3.14159265, 1e-3, F(333, 106)),
])
def test_simplest_fraction_within_a_tolerance(x: float, tolerance: float, expected: F) -> None:
    assert simplest_fraction(x, tolerance) == expected


# --------------------------------------------------------------------------- decisions with known answers


def test_a_token_inside_the_hull_gets_the_zero_certificate_without_a_solver() -> None:
    # docs/theory.md D10: z_i = sum_j w_j z_j gives sum_j w_j M(i; i, j) = 0.
    tokens = [P(1, 0), P(-1, 1), P(-1, -1), P("-1/2", 0)]
    decision = decide_system(tokens, [3], {})
    assert decision.kind == "impossible" and decision.runs == ()
    certificate = decision.infeasibility
    assert certificate is not None and certificate.step == "hull" and certificate.zero
    assert all(c.token == 3 and c.attends_to == 3 for c in certificate.weights)
    assert sum(certificate.weights.values()) == 1
    combination = [sum(w * tokens[c.rival][i] for c, w in certificate.weights.items()) for i in range(2)]
    assert tuple(combination) == tokens[3]


def test_a_vertex_that_cannot_lead_gets_a_singular_certificate() -> None:
    # (1, 0) is a vertex, but z_0^T A (z_0 - z_1) = -A_11 < 0 for (2, 0): every certificate S is singular.
    tokens = [P(1, 0), P(2, 0), P(2, 1), P(2, -1)]
    decision = decide_system(tokens, [0], {})
    assert decision.kind == "impossible" and decision.infeasibility is not None
    assert decision.infeasibility.step == "facial"
    assert check_certificate(tokens, decision.infeasibility.weights, system(4, [0], {})) is None
    assert not linalg.is_symmetric_positive_definite(decision.infeasibility.S)


def test_a_feasible_leader_set_gets_an_exact_design() -> None:
    decision = decide_system(EMERGING, [0, 2, 5], {})
    assert decision.kind == "feasible" and decision.design is not None
    assert decision.design.check.holds
    assert {0, 2, 5} <= leaders_under(EMERGING, decision.design.A)
    assert linalg.is_symmetric_positive_definite(decision.design.A)


def test_control_realises_the_one_target_map_that_exists() -> None:
    # Found by trying all 3^5 maps: only 1:2, 3:2, 4:0, 6:0, 7:0 has a design (token 4 must lock onto token 0).
    outcome = control(EMERGING, [0, 2, 5])
    assert outcome.kind == "realised" and outcome.targets == {1: 2, 3: 2, 4: 0, 6: 0, 7: 0}
    assert outcome.design is not None and outcome.design.check.holds
    assert check_design(EMERGING, outcome.design.A, system(8, [0, 2, 5], outcome.targets)).holds
    assert outcome.limits(EMERGING) == [EMERGING[t] for t in (0, 2, 2, 2, 0, 5, 0, 0)]


def test_requested_targets_that_no_A_allows_are_certified_impossible() -> None:
    outcome = control(EMERGING, [0, 2, 5], {7: 5})
    assert outcome.kind == "impossible" and outcome.infeasibility is not None
    assert check_certificate(EMERGING, outcome.infeasibility.weights, system(8, [0, 2, 5], {7: 5})) is None
    assert any(c.token == 7 for c in outcome.infeasibility.weights), "the lock of token 7 is part of the conflict"


def test_a_search_without_budget_is_inconclusive_and_says_so() -> None:
    outcome = control(EMERGING, [0, 2, 5], max_programs=1)
    assert outcome.kind == "inconclusive" and outcome.leading is not None
    assert check_design(EMERGING, outcome.leading.A, system(8, [0, 2, 5], {})).holds
    assert any("budget" in line for line in outcome.tried)


def test_leader_sets_follow_their_certificates() -> None:
    tokens = [P(1, 0), P(2, 0), P(2, 1), P(2, -1), P(3, 0)]
    result = decide_leader_sets(tokens, max_subsets=2 ** 16)
    assert result.hull.vertices == (0, 2, 3, 4)
    assert len(result.subsets) == 15 and not result.of_kind("inconclusive")
    for subset in result.subsets:
        if subset.kind == "feasible":
            assert set(subset.leaders) <= result.design_leaders[subset.by]
            assert check_design(tokens, result.designs[subset.by].A, system(5, subset.leaders, {})).holds
        else:
            certificate = result.certificates[subset.by]
            assert check_certificate(tokens, certificate.weights, system(5, subset.leaders, {})) is None
    # token 0 = (1, 0) never leads: (2, 0) beats it against every SPD A
    assert all(0 not in s for s in result.of_kind("feasible")) and [0] in map(list, result.minimal_impossible())


def test_too_many_subsets_are_refused_before_any_program() -> None:
    assert subset_count_refusal(16, 2 ** 16) is None
    assert "131,071" in subset_count_refusal(17, 2 ** 16)
    circle = [P(F(1 - t * t, 1 + t * t), F(2 * t, 1 + t * t)) for t in (F(k, 3) for k in range(-8, 9))]
    with pytest.raises(InputError, match="all-leader-sets"):
        decide_leader_sets(circle, max_subsets=2 ** 16)


def test_integer_scores_agree_with_the_independent_oracle() -> None:
    from verify.experiments.control.constraints import integer_scores
    from verify.core.oracle import scores

    A = [[F(3), F(-1, 2)], [F(-1, 2), F(7, 5)]]
    rows, scale = integer_scores(EMERGING, A)
    assert [[F(x, scale) for x in row] for row in rows] == scores(EMERGING, A=A)
