"""The exact engine against answers computed by hand and by a tiny independent oracle."""

from fractions import Fraction as F

import pytest

from verify.core.exact_dynamics import exact_layers
from verify.core.trajectory import simulate


def oracle_layer(tokens, alpha, A=None):
    """One layer of docs/theory.md §1 written directly from the formula (independent of the engine)."""
    d = len(tokens[0])
    A = A or [[F(int(r == c)) for c in range(d)] for r in range(d)]
    def score(x, y):  # <A x, y>
        Ax = [sum(A[r][c] * x[c] for c in range(d)) for r in range(d)]
        return sum(a * b for a, b in zip(Ax, y))
    new, sets = [], []
    for z in tokens:
        s = [score(z, w) for w in tokens]
        top = max(s)
        C = [j for j, v in enumerate(s) if v == top]
        mean = [sum(tokens[j][c] for j in C) / len(C) for c in range(d)]
        new.append(tuple((z[c] + alpha * mean[c]) / (1 + alpha) for c in range(d)))
        sets.append(frozenset(C))
    return new, sets


def test_one_layer_by_hand():
    # d = 1, alpha = 1/2: tokens 1, -2, 1/2. Scores z_i z_j: token 0 -> argmax 1 (1*1 > 1*1/2 > -2),
    # token 1 -> argmax 1 ((-2)(-2) = 4), token 2 -> argmax token 0 (1/2 > -1, 1/4).
    traj = simulate([[1], [-2], ["1/2"]], alpha="1/2", layers=1)
    assert traj.attention[0] == [frozenset({0}), frozenset({1}), frozenset({0})]
    # z_2' = (1/2 + 1/2 * 1) / (3/2) = 2/3
    assert traj.positions[1] == [(F(1),), (F(-2),), (F(2, 3),)]
    assert traj.leaders == {0: 0, 1: 0}


def test_three_way_tie_attends_to_all_three():
    traj = simulate([[1, 0], [0, 1], ["1/2", "1/2"]], alpha="1/2", layers=2)
    assert traj.attention[0][2] == frozenset({0, 1, 2})
    # mean of the three is (1/2, 1/2): token 3 does not move (D7(b): fixed from layer 0).
    assert traj.positions[2][2] == (F(1, 2), F(1, 2))


def test_general_A_uses_the_A_inner_product_A_z_i_dot_z_j():
    # Non-symmetric A: <A z_i, z_j> differs from <z_i, A z_j>; compare with the oracle.
    tokens = [(F(1), F(0)), (F(0), F(1)), (F(-1), F(2, 3))]
    A = [[F(2), F(1)], [F(-1), F(1)]]
    layer1 = next(layer for layer in exact_layers(tokens, alpha=F(1, 3), A=A) if layer.index == 1)
    expected, sets = oracle_layer(tokens, F(1, 3), A)
    assert layer1.positions() == expected


@pytest.mark.parametrize("seed", range(5))
def test_matches_oracle_for_several_layers(seed):
    import random
    rng = random.Random(seed)
    tokens = [(F(rng.randint(-9, 9), rng.randint(1, 5)), F(rng.randint(-9, 9), rng.randint(1, 5))) for _ in range(7)]
    alpha = F(rng.randint(1, 5), rng.randint(1, 5))
    A = [[F(2), F(1, 2)], [F(1, 2), F(1)]]
    current = tokens
    for layer in exact_layers(tokens, alpha=alpha, A=A):
        assert layer.positions() == list(current)
        current, sets = oracle_layer(current, alpha, A)
        assert layer.attention_sets() == sets
        if layer.index == 4:
            break


def test_duplicates_are_merged_but_behave_as_the_model_says():
    # D5: duplicates stay equal and tie with each other; the mean counts each copy.
    tokens = [(F(1), F(0)), (F(1), F(0)), (F(0), F(1)), (F(1, 4), F(1, 4))]
    layers = simulate(tokens, alpha=1, layers=3)
    current = tokens
    for k in range(3):
        assert layers.positions[k] == list(current)
        current, sets = oracle_layer(current, F(1))
        assert layers.attention[k] == sets
    assert 0 not in layers.leaders and 1 not in layers.leaders


def test_value_matrix_alpha_identity_is_the_plain_model():
    tokens = [(F(1), F(1, 3)), (F(-1, 12), F(1, 12)), (F(-1), F(-1)), (F(3, 5), F(3, 20))]
    plain = simulate(tokens, alpha="1/2", layers=4)
    with_v = simulate(tokens, alpha="1/2", V=[["1/2", 0], [0, "1/2"]], layers=4)
    assert plain.positions == with_v.positions


def test_denominator_is_common_and_reduced():
    layer = next(iter(exact_layers([[F(1, 2), F(1, 3)], [F(2, 3), F(5)]], alpha=1)))
    assert layer.denominator == 6
    assert layer.point(0) == (F(1, 2), F(1, 3))
