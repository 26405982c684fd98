"""The float engine: agrees with exact where it says it decided, and flags what rounding could change."""

import re
from fractions import Fraction as F

import numpy as np
import pytest

from verify import simulate, simulate_batch
from verify.core.exact_dynamics import exact_layers


def _exact_final(tokens, alpha, layers, A=None):
    for layer in exact_layers(tokens, alpha=alpha, A=A):
        if layer.index == layers:
            return np.array([[float(x) for x in p] for p in layer.positions()])


@pytest.mark.parametrize("seed", range(4))
def test_generic_batches_agree_with_exact_within_the_proven_bound(seed):
    rng = np.random.default_rng(seed)
    tokens = rng.uniform(-1, 1, size=(6, 9, 3))
    A = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.25], [0.0, 0.25, 1.5]])
    result = simulate_batch(tokens, alpha=0.75, A=A, layers=12)
    assert not result.undecided.any()
    for b in range(len(tokens)):
        exact = _exact_final([[F(x) for x in t] for t in tokens[b]], F(0.75), 12,
                             A=[[F(x) for x in row] for row in A])
        gap = np.abs(result.final[b] - exact).max()
        assert gap <= 1e-12
        assert gap <= result.position_error_bound[b] + 2.0 ** -52  # + rounding of the float(exact) comparison


def test_float_simulate_agrees_with_exact_on_a_generic_configuration():
    tokens = [[1, "1/3"], ["-1/12", "1/12"], [-1, -1], [0, "1/4"], ["-3/10", "-7/10"], ["4/5", "1/10"]]
    exact = simulate(tokens, alpha="1/2", layers=10)
    approx = simulate(tokens, alpha="1/2", layers=10, arithmetic="float")
    assert approx.certified
    assert approx.attention == exact.attention
    assert approx.leaders == exact.leaders
    for k in range(11):
        assert np.abs(approx.positions[k] - np.array(exact.positions[k], dtype=float)).max() <= 1e-12


def test_near_tie_where_float_and_exact_differ_is_flagged():
    # Token 0 scores the first coordinate; token 1 wins by 2^-60 exactly, which float64 rounds away.
    tokens = [[1, 0], [F(1) + F(1, 2 ** 60), 1], [1, -1]]
    exact = simulate(tokens, alpha="1/2", layers=1)
    approx = simulate(tokens, alpha="1/2", layers=1, arithmetic="float")
    assert exact.attention[0][0] == frozenset({1})
    assert approx.attention[0][0] != exact.attention[0][0]
    assert 0 in approx.undecided[0]
    assert not approx.certified


def test_persistent_exact_tie_lost_by_float_equality_is_flagged_from_the_start():
    # docs/theory.md §3: the tie of (5/32, 15/32) between the two others persists exactly forever;
    # float64 equality loses it at layer 3. The float engine must never call it decided.
    tokens = [["1/8", 1], ["1/2", "7/8"], ["5/32", "15/32"]]
    exact = simulate(tokens, alpha="1/2", layers=6)
    approx = simulate(tokens, alpha="1/2", layers=6, arithmetic="float")
    assert all(exact.attention[k][2] == frozenset({0, 1}) for k in range(7))
    assert any(approx.attention[k][2] != exact.attention[k][2] for k in range(7))
    assert 2 in approx.undecided[0]


def test_batch_flags_ties_and_keeps_duplicates_tied():
    # Config 0 has an exact three-way tie (flagged); config 1 has a duplicated token (a decided tie of copies).
    tokens = np.array([
        [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [-1.0, -1.0]],
        [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-0.25, 0.5]],
    ])
    result = simulate_batch(tokens, alpha=0.5, layers=5)
    assert result.undecided.tolist() == [True, False]
    assert result.first_undecided_layer.tolist() == [0, -1]
    assert np.array_equal(result.final[1, 0], result.final[1, 1])
    assert result.distinct_points.tolist() == [4, 3]
    # copies never lead (C_i contains the other copy); the single (0, 1) leads from layer 0
    assert result.leaders[1].tolist() == [False, False, True, False]


@pytest.mark.parametrize("bad, message", [
    (dict(tokens=np.zeros((2, 3))), "shape"),
    (dict(tokens=np.full((1, 2, 2), np.nan)), "finite"),
    (dict(alpha=0.0), "alpha"),
    (dict(A=np.eye(3)), "A: expected shape"),
])
def test_batch_input_errors_name_the_argument(bad, message):
    kwargs = dict(tokens=np.ones((1, 2, 2)) * np.array([[1.0, 2.0], [3.0, 1.0]]), alpha=0.5, layers=1)
    kwargs.update(bad)
    with pytest.raises(ValueError, match=message):
        simulate_batch(**kwargs)


def test_merging_matches_numpy_unique_per_configuration():
    from verify.core.float_dynamics import merge_identical_tokens

    rng = np.random.default_rng(7)
    tokens = rng.integers(-2, 3, size=(20, 15, 2)).astype(float)  # many copies on a small grid
    merged = merge_identical_tokens(tokens, np.broadcast_to(np.eye(2), (20, 2, 2)))
    for b in range(20):
        unique = np.unique(tokens[b], axis=0)
        count = merged.counts[b]
        assert count == len(unique)
        assert np.array_equal(np.unique(merged.positions[b, :count], axis=0), unique)
        assert np.array_equal(merged.positions[b][merged.inverse[b]], tokens[b])
        assert merged.weights[b, :count].sum() == 15 and (merged.weights[b, count:] == 0).all()


def test_float_equality_ties_average_like_the_authors_loop():
    # With ties (undecided, so flagged) the float engine still follows the float-equality rule.
    Z = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [1.0, 0.0], [-1.0, -1.0]])
    result = simulate_batch(Z[None], alpha=0.5, layers=1)
    expected = np.empty_like(Z)
    for i in range(len(Z)):
        ip = Z @ Z[i]
        expected[i] = (Z[i] + 0.5 * Z[ip == ip.max()].mean(axis=0)) / 1.5
    assert np.array_equal(result.final[0], expected)
    assert result.undecided[0]


def test_a_rounding_reversed_order_of_scores_is_flagged():
    # Exact arithmetic: token 0 scores token 1 higher than token 2 by ~1.6e-16; the float dot
    # product (two rounded products and a rounded sum) orders them the other way. Position
    # errors are 0 at layer 0, so only the score-rounding term of the bound can flag the row.
    u = [0.8407192263263364, 0.719968239718003]
    a = [16 * x for x in (-0.16716010288930128, 0.41650958849594333)]
    b = [16 * x for x in (-0.1671601028893012, 0.4165095884959432)]
    scores = [u[0] * v[0] + u[1] * v[1] for v in (a, b)]
    assert scores[1] > scores[0]  # float order
    exact_sets = next(iter(exact_layers([[F(x) for x in t] for t in (u, a, b)], alpha=F(1)))).attention_sets()
    assert exact_sets[0] == frozenset({1})
    result = simulate_batch(np.array([[u, a, b]]), alpha=1.0, layers=1)
    assert result.undecided[0] and result.first_undecided_layer[0] == 0


def test_tokens_of_very_different_sizes_are_decided_with_per_point_bounds():
    # A trained embedding with weight decay mixes rows of size ~1 with rows of size ~1e-38
    # (float32 subnormals). A bound scaled by the largest coordinate (~1e-16) cannot separate
    # the small rows' scores (~1e-76); each point's own bound can, and stays exact.
    rng = np.random.default_rng(5)
    big = rng.uniform(-2, 2, size=(6, 2))
    small = rng.uniform(-1, 1, size=(6, 2)) * 2.0 ** -126
    tokens = np.concatenate([big, small])
    result = simulate_batch(tokens[None], alpha=0.75, layers=8)
    assert not result.undecided[0]
    exact = _exact_final([[F(x) for x in t] for t in tokens], F(0.75), 8)
    for i in range(len(tokens)):
        assert abs(result.final[0][i] - exact[i]).max() <= result.token_error_bound[0][i]


# ---------------------------------------------------------------------------------------------
# Regressions: float results that were presented as decided although they were not.


def test_float_overflow_1e200_tokens_are_undecided_not_certified():
    # d = 1, A = I, alpha 1/2: scores 1e400 overflow to inf and inf - inf = NaN; a NaN
    # comparison used to count as "decided" (attention [[0, 1], [0, 1]], certified, a wrong
    # leader and a bound of 3e185 against a real error of 3e199). Exact: both attend to token 1.
    exact = simulate([[1e200], [2e200]], alpha="1/2", layers=1)
    assert exact.attention[0] == [frozenset({1}), frozenset({1})] and exact.leaders == {1: 0}
    approx = simulate([[1e200], [2e200]], alpha="1/2", layers=1, arithmetic="float")
    assert not approx.certified
    assert approx.undecided == [frozenset({0, 1}), frozenset({0, 1})]
    assert approx.first_undecided_layer == 0 and approx.leaders == {}
    result = simulate_batch(np.array([[[1e200], [2e200]]]), alpha=0.5, layers=1)
    assert result.undecided.tolist() == [True] and result.first_undecided_layer.tolist() == [0]
    assert not result.leaders.any()
    assert np.isinf(result.position_error_bound[0]) and np.isinf(result.token_error_bound[0]).all()


def test_float_overflow_during_the_update_makes_the_row_undecided():
    # Scores of 1e150-sized tokens are finite, but z + alpha z_t overflows when alpha is huge.
    result = simulate_batch(np.array([[[1e150, 0.0], [0.0, 1e-3]]]), alpha=1e300, layers=1)
    assert result.undecided[0] and not np.isfinite(result.final[0]).all()


def test_float_underflow_slack_is_absolute_for_tiny_A():
    # A = 2^-200 I (symmetric positive definite) and tokens of size 2^-436: the scores are
    # subnormal. The 2^-1000 underflow slack used to be multiplied by d^2 max|A| = 2^-198, far
    # below the 2^-1075 lost per subnormal product, and float decided C_0 = {1} where exact
    # arithmetic has the tie {0, 1} (<z_0, z_0> = <z_0, z_1> = 10 * 2^-876).
    unit = F(2) ** -438
    tokens = [[3 * unit, unit], [2 * unit, 4 * unit], [unit, 4 * unit]]
    A = np.eye(2) * 2.0 ** -200
    exact = next(iter(exact_layers(tokens, alpha=F(1, 2), A=[[F(2) ** -200, 0], [0, F(2) ** -200]])))
    assert exact.attention_sets()[0] == frozenset({0, 1})
    floats = np.array([[[float(x) for x in t] for t in tokens]])
    assert [[F(x) for x in t] for t in floats[0]] == tokens  # the floats store these rationals exactly
    result = simulate_batch(floats, alpha=0.5, A=A, layers=2)
    assert result.undecided[0] and result.first_undecided_layer[0] == 0
    approx = simulate(tokens, alpha="1/2", A=[[F(2) ** -200, 0], [0, F(2) ** -200]], layers=2, arithmetic="float")
    for k in range(3):
        exact_k = simulate(tokens, alpha="1/2", A=[[F(2) ** -200, 0], [0, F(2) ** -200]], layers=k).attention[k]
        for i in range(3):
            assert i in approx.undecided[k] or approx.attention[k][i] == exact_k[i]


def test_float_run_refuses_a_coordinate_beyond_float64_naming_it():
    from verify.core.numbers import InputError

    with pytest.raises(InputError, match=r"tokens\[1\]\[0\]: .*does not fit in float64") as refused:
        simulate([[1], [10 ** 400]], alpha="1/2", layers=1, arithmetic="float")
    # The value is written by the rule of every output (about 10^400), not cut to a smaller number.
    assert re.search(r"≈1(\.0+)?e\+400 does not fit", str(refused.value))
    with pytest.raises(InputError, match=r"A\[0\]\[0\]"):
        simulate([[1], [2]], alpha="1/2", A=[[10 ** 400]], layers=1, arithmetic="float")
    with pytest.raises(InputError, match="alpha") as refused:
        simulate([[1], [2]], alpha=F(1, 10 ** 400), layers=1, arithmetic="float")
    assert re.search(r"≈1(\.0+)?e-400 is below", str(refused.value))
    with pytest.raises(InputError, match="A: every entry is below"):
        simulate([[1], [2]], alpha="1/2", A=[[F(1, 10 ** 400)]], layers=1, arithmetic="float")


def test_nothing_after_the_first_undecided_layer_is_presented_as_decided():
    # The emerging-leader row of docs/theory.md §4 plus (0, -1), which ties exactly with (-1, -1):
    # float flags that row at layer 0. Exact: token 1 leads from layer 1 on. The float run can no
    # longer vouch for layer 1 (its bound covers only decided layers), so it must not list token
    # 1 as a leader, and every token of layers 1.. is undecided.
    tokens = [[1, "1/3"], ["-1/12", "1/12"], [-1, -1], [0, "1/4"], ["-3/10", "-7/10"], ["-3/5", "-9/10"],
              ["4/5", "1/10"], ["3/5", "3/20"], [0, -1]]
    exact = simulate(tokens, alpha="1/2", layers=3)
    assert exact.leaders == {0: 0, 2: 0, 1: 1} and exact.attention[0][8] == frozenset({2, 8})
    approx = simulate(tokens, alpha="1/2", layers=3, arithmetic="float")
    assert approx.first_undecided_layer == 0 and approx.undecided[0] == frozenset({8})
    assert all(approx.undecided[k] == frozenset(range(9)) for k in (1, 2, 3))
    assert approx.leaders == {0: 0, 2: 0}
    data = approx.to_json_dict()
    assert data["first_undecided_layer"] == 0 and data["certified"] is False
    assert data["undecided"][1] == list(range(9))
    batch = simulate_batch(np.array([[[float(F(x)) for x in t] for t in tokens]]), alpha=0.5, layers=3)
    assert batch.first_undecided_layer[0] == 0
    assert {i for i in range(9) if batch.leaders[0][i]} == {0, 2}


def test_every_float_entry_point_reuses_the_kernel_compiled_ahead():
    """Set-up compiles the kernel once (compile_ahead); numba compiles again for any other argument
    layout or read-only flag, which would cost every first run about 20 CPU-s. The entry points
    here pass per-point and per-configuration errors, a given A, a broadcast (read-only) A and a
    recorded attention mask: all must reuse the one signature."""
    from verify.core.float_dynamics import float_layers, merge_identical_tokens
    from verify.core.float_dynamics import compile_ahead
    from verify.core.float_kernel import layer_kernel

    compile_ahead()
    tokens = np.array([[[1.0, 0.5], [0.0, 2.0], [1.0, 0.5]], [[3.0, 1.0], [-1.0, 0.25], [0.5, 0.5]]])
    simulate_batch(tokens, alpha=0.5, layers=3)
    simulate_batch(tokens, alpha=np.array([0.5, 2.0]), A=np.array([[2.0, 0.0], [1.0, 1.0]]), layers=3)
    simulate([[F(1), F(1, 3)], [F(0), F(2)]], alpha=F(1, 2), layers=3, arithmetic="float")
    read_only_A = np.broadcast_to(np.eye(2), (2, 2, 2))
    batch = merge_identical_tokens(tokens, read_only_A)
    for errors in (np.zeros(2), np.zeros((2, batch.positions.shape[1]))):
        layers = float_layers(batch, alpha=np.full(2, 1.0), initial_error=errors, matrix_bound=np.ones(2),
                              record=True)
        for _ in range(3):
            next(layers)
    assert len(layer_kernel.signatures) == 1, layer_kernel.signatures
