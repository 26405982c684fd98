"""The held-out statements (verify.experiments.conjectures.heldout): each known counterexample, checked exactly.

Each hand-found counterexample is checked on the exact trajectory (verify.core.trajectory.simulate:
positions, attention sets and first leading layers layer by layer), apart from the statements'
own predicates; then each statement's own predicate refutes it.
"""

from fractions import Fraction

import pytest

from verify.core.geometry import convex_hull_vertices
from verify.core.trajectory import simulate
from verify.experiments.conjectures.builtin import BUILTIN_CONJECTURES
from verify.experiments.conjectures.catalogue import CATALOGUE
from verify.experiments.conjectures.heldout import HELD_OUT, KNOWN

F = Fraction


def _trajectory(name: str, layers: int):
    config = KNOWN[name]
    return simulate(config.tokens, alpha=config.alpha, A=config.A, layers=layers)


def _matmul(X, Y):
    return [[sum(F(X[r][k]) * F(Y[k][c]) for k in range(len(Y))) for c in range(len(Y[0]))] for r in range(len(X))]


def _transpose(X):
    return [list(row) for row in zip(*X)]


def test_every_statement_is_expected_refuted_with_a_known_counterexample():
    assert set(HELD_OUT) == set(KNOWN) and len(HELD_OUT) >= 8
    assert not set(HELD_OUT) & (set(BUILTIN_CONJECTURES) | set(CATALOGUE))
    for conjecture in HELD_OUT.values():
        assert conjecture.expected == "refuted" and conjecture.statement and conjecture.scope


def test_rotating_square_norms_drop():
    # A = I + 2J, alpha = 1: every token moves to the midpoint with the next vertex, so |z|^2 halves.
    trajectory = _trajectory("heldout_norm_never_decreases_nonsymmetric", 1)
    assert trajectory.positions[1][0] == (F(1, 2), F(1, 2))
    A = KNOWN["heldout_norm_never_decreases_nonsymmetric"].A_matrix
    z = trajectory.positions[1][0]
    assert sum(z[r] * A[r][c] * z[c] for r in range(2) for c in range(2)) == F(1, 2) < 1


def test_rotating_square_in_three_dimensions_never_leads():
    # docs/theory.md D11: no leader at layers 0, 1 and Z^2 = M Z^0 with M^T A M = s A, s = 1/4 > 0.
    config = KNOWN["heldout_some_token_leads_nonsymmetric_d3"]
    trajectory = _trajectory("heldout_some_token_leads_nonsymmetric_d3", 2)
    assert all(trajectory.attention[k][i] != frozenset({i}) for k in (0, 1) for i in range(4))
    M = [[0, F(-1, 2), 0], [F(1, 2), 0, 0], [0, 0, F(1, 2)]]
    assert [tuple(row) for row in _transpose(_matmul(M, _transpose(config.tokens)))] == list(trajectory.positions[2])
    A = config.A_matrix
    assert _matmul(_transpose(M), _matmul(A, M)) == [[F(1, 4) * x for x in row] for row in A]


def test_theory_late_leader_first_leads_at_layer_13():
    trajectory = _trajectory("heldout_leaders_by_layer_n", 14)
    assert trajectory.leaders[0] == 13 > 3
    assert trajectory.attention[12][0] != frozenset({0}) and trajectory.attention[13][0] == frozenset({0})


def test_triangle_face_centroid_is_fixed():
    trajectory = _trajectory("heldout_limits_on_leader_segments", 5)
    centroid = (F(1, 3), F(1, 3), F(1, 3))
    assert all(p[3] == centroid for p in trajectory.positions)
    assert all(layer[3] == frozenset({0, 1, 2, 3}) for layer in trajectory.attention)
    assert {0, 1, 2} <= set(trajectory.leaders) and 3 not in trajectory.leaders
    # The centroid is on no segment between two of e_1, e_2, e_3: such a point has a zero coordinate.


def test_negative_value_matrix_leaves_the_hull():
    # z' = (I + V)^{-1} (z + V m) with V = -1/2: z' = 2 z - m; token 0 attends to token 1 (score 2 > 1).
    config = KNOWN["heldout_value_matrix_hull_never_grows"]
    z, m = F(1), F(2)
    assert (z + config.V[0][0] * m) / (1 + config.V[0][0]) == 0 < 1


def test_pattern_changes_at_layer_9():
    trajectory = _trajectory("heldout_pattern_constant_from_2n", 40)
    sets = trajectory.attention
    assert max(k for k in range(1, len(sets)) if sets[k] != sets[k - 1]) == 9 > 6


def test_halving_alpha_removes_a_leader():
    config = KNOWN["heldout_halving_alpha_keeps_leaders"]
    full = simulate(config.tokens, alpha=config.alpha, A=config.A, layers=60)
    half = simulate(config.tokens, alpha=config.alpha / 2, A=config.A, layers=60)
    assert full.leaders.get(0) == 1 and 0 not in half.leaders


def test_thin_triangle_vertex_never_leads():
    config = KNOWN["heldout_convex_position_all_lead"]
    assert convex_hull_vertices(config.tokens) == [0, 1, 2]
    trajectory = _trajectory("heldout_convex_position_all_lead", 30)
    assert all(layer[0] == frozenset({1, 2}) for layer in trajectory.attention) and 0 not in trajectory.leaders


@pytest.mark.parametrize("name", sorted(HELD_OUT))
def test_each_statement_refutes_itself_on_its_counterexample(name):
    observation = HELD_OUT[name].check(KNOWN[name])
    assert observation.status == "failed", observation
