"""The exact engine against answers computed by hand and by a tiny independent oracle."""

from fractions import Fraction as F

import numpy as np
import pytest

from verify.core.exact_dynamics import ExactLayer, exact_layers, float_candidates, prefilter_candidates, proven_below_top
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


# ---------------------------------------------------------------------------------------------
# The float prefilter (module docstring, "The prefilter's bound"): same layers, ties exact


def _same_layers(tokens, *, alpha, A=None, layers=6):
    fast = exact_layers(tokens, alpha=alpha, A=A)
    slow = exact_layers(tokens, alpha=alpha, A=A, prefilter=False)
    for a, b in zip(fast, slow):
        assert (a.numerators, a.denominator, a.attention, a.groups, a.score_scale) == \
               (b.numerators, b.denominator, b.attention, b.groups, b.score_scale), f"layer {a.index}"
        assert a.scores == b.scores, f"layer {a.index}"
        if a.index == layers:
            return a


def test_an_exact_three_way_tie_is_left_to_the_integers():
    # Token 2 = (1/2, 1/2) scores 1/2 against all three tokens: the float step must keep all three.
    layer = next(exact_layers([[1, 0], [0, 1], ["1/2", "1/2"]], alpha="1/2"))
    assert sorted(prefilter_candidates(layer.numerators, layer.numerators)[2]) == [0, 1, 2]
    assert layer.attention[2] == (0, 1, 2)
    _same_layers([[1, 0], [0, 1], ["1/2", "1/2"]], alpha="1/2")


def test_every_row_tied_falls_back_to_the_full_integer_product():
    # A = 0: every score is 0, so every row ties with every point and nothing is decided in float.
    tokens = [[1, 2], [3, -1], [-2, 5], [F(1, 3), F(1, 7)]]
    A = [[0, 0], [0, 0]]
    layer = next(exact_layers(tokens, alpha=1, A=A))
    form = [[int(x) for x in layer.score_form.entries()[2 * u:2 * u + 2]] for u in range(4)]
    assert all(sorted(c) == [0, 1, 2, 3] for c in prefilter_candidates(form, layer.numerators))
    assert layer.attention == ((0, 1, 2, 3),) * 4
    _same_layers(tokens, alpha=1, A=A)


def test_a_gap_below_float_resolution_is_decided_by_the_difference_step():
    # Row of (1, 0): scores 1 and 1 - 2^-70 agree in float64; their exact difference -2^-70 does not.
    tokens = [(F(1), F(0)), (F(1) - F(1, 2 ** 70), F(1, 2 ** 35)), (F(-1), F(1, 3))]
    layer = next(exact_layers(tokens, alpha=1))
    assert len(float_candidates(layer.numerators, layer.numerators)[0]) == 2
    assert prefilter_candidates(layer.numerators, layer.numerators)[0] == (0,)
    assert layer.attention[0] == (0,)
    _same_layers(tokens, alpha=1)


@pytest.mark.parametrize("exponent", [5000, -5000])
def test_numerators_of_thousands_of_bits_are_scaled_not_overflowed(exponent):
    # float(2^5000) raises OverflowError; the prefilter scales by powers of two and still decides.
    tokens = [(F(2) ** exponent * x, F(2) ** exponent * y) for x, y in [(1, 0), (0, 1), (-1, F(1, 2)), (F(1, 3), -2)]]
    layer = next(exact_layers(tokens, alpha=1))
    assert all(len(c) == 1 for c in prefilter_candidates(layer.numerators, layer.numerators))
    _same_layers(tokens, alpha=1)


def test_tiny_tokens_beside_large_ones():
    tokens = [(F(3), F(1)), (F(-1), F(2)), (F(1, 2 ** 3000), F(-1, 2 ** 3001)), (F(-1, 2 ** 2000), F(0))]
    _same_layers(tokens, alpha=F(1, 2), A=[[2, 1], [1, 3]], layers=8)


def test_late_layers_of_collapsing_clusters_stay_identical():
    # By layer 40 the clusters have shrunk by (1 + alpha)^-40 = 2^-63.4: far below float64 resolution.
    import random
    rng = random.Random(3)
    tokens = [(F(rng.randint(-99, 99), 37), F(rng.randint(-99, 99), 41)) for _ in range(16)]
    _same_layers(tokens, alpha=F(3, 10), layers=40)


def test_non_finite_values_never_prove_anything():
    nan, inf = float("nan"), float("inf")
    top = np.array([1.0, nan, inf, 1.0, 1.0])
    scores = np.array([[-1e300, 0.0], [-1e300, 0.0], [0.0, 0.0], [-inf, nan], [0.0, -1e300]])
    bound = np.array([1.0, 1.0, 1.0, 1.0, inf])
    assert proven_below_top(top, scores, bound).tolist() == [[True, False], [False, False], [False, False],
                                                             [False, False], [False, False]]


def test_scores_are_computed_when_first_read():
    tokens = [(F(1), F(2)), (F(-3), F(1, 2)), (F(2), F(-1))]
    A = [[2, 1], [0, 1]]
    fast = next(exact_layers(tokens, alpha=1, A=A))
    slow = next(exact_layers(tokens, alpha=1, A=A, prefilter=False))
    assert "scores" not in fast.__dict__ and fast.scores == slow.scores
    # <A z_0, z_1> = (2*1 + 1*2, 0*1 + 1*2) . (-3, 1/2) = -12 + 1 = -11
    assert F(int(fast.scores[0, 1]), fast.denominator ** 2 * fast.score_scale) == -11
    bare = ExactLayer(0, fast.numerators, fast.denominator, fast.attention, fast.groups)
    assert bare.scores is None
