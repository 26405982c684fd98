"""verify/core/softmax_bound.py: the proven upper bounds (exp, sqrt, ||A||) against mpmath, the
margins of exact layers by hand, and where the certificate of docs/theory.md §6 stops."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from verify.core.softmax_bound import (EXP_ARGUMENT_CAP, exp_neg_upper, exp_neg_upper_float, float_bounds,
                                       layer_margin, operator_norm_upper, round_down, round_up, softmax_certificate,
                                       sqrt_upper, sqrt_upper_float)
from verify.core.exact_dynamics import exact_layers

mpmath.mp.dps = 80


def mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


# Arguments from 0 to far beyond the cap: tiny, around 1 (no halving / one halving), float64's
# underflow edge (745), the cap, and 10^12 (the cap's bound is used there).
EXP_ARGUMENTS = [Fraction(0), Fraction(1, 10 ** 300), Fraction(1, 3), Fraction(1), Fraction(3, 2), Fraction(7, 2),
                 Fraction(100), Fraction(745), Fraction(123456789, 1000), Fraction(EXP_ARGUMENT_CAP),
                 Fraction(EXP_ARGUMENT_CAP + 1), Fraction(10 ** 12)]


@pytest.mark.parametrize("x", EXP_ARGUMENTS, ids=str)
def test_exp_neg_upper_is_an_upper_bound_and_tight_below_the_cap(x):
    bound = exp_neg_upper(x)
    true = mpmath.exp(-mp(x))
    assert bound > 0
    assert mp(bound) >= true
    if x <= EXP_ARGUMENT_CAP:
        assert mp(bound) <= true * (1 + mpmath.mpf(2) ** -40)


def test_exp_neg_upper_refuses_negative_arguments():
    with pytest.raises(ValueError):
        exp_neg_upper(Fraction(-1))


@pytest.mark.parametrize("x", [0.0, 1e-300, 5e-324, 0.3, 1.0, 2.5, 100.0, 700.0, 745.0, 746.0, 1e5, 1e300,
                               float("inf")])
def test_exp_neg_upper_float_is_an_upper_bound_and_never_underflows_to_zero(x):
    bound = float(exp_neg_upper_float(np.array([x]))[0])
    if x == float("inf"):
        assert bound == 0.0  # exp(-inf) is exactly 0: no weight at all
        return
    true = mpmath.exp(-mpmath.mpf(x))
    assert bound > 0 and mpmath.mpf(bound) >= true
    if true > 1e-290:  # normal range: within a few hundred ulps
        assert mpmath.mpf(bound) <= true * (1 + mpmath.mpf(2) ** -40)


SQRT_ARGUMENTS = [Fraction(0), Fraction(1), Fraction(2), Fraction(4), Fraction(1, 3), Fraction(9, 16),
                  Fraction(1, 10 ** 80), Fraction(10 ** 90 + 1), Fraction(2 ** 200 + 1, 3 ** 50)]


@pytest.mark.parametrize("x", SQRT_ARGUMENTS, ids=str)
def test_sqrt_upper_is_an_upper_bound_within_2_to_the_minus_60(x):
    bound = sqrt_upper(x)
    true = mpmath.sqrt(mp(x))
    assert bound * bound >= x  # exact: no trust in mpmath needed for the direction
    assert mp(bound) <= true * (1 + mpmath.mpf(2) ** -60)


def test_sqrt_upper_is_exact_on_dyadic_squares():
    assert sqrt_upper(Fraction(4)) == 2 and sqrt_upper(Fraction(9, 16)) == Fraction(3, 4) and sqrt_upper(Fraction(1)) == 1


@pytest.mark.parametrize("x", [0.0, 5e-324, 1e-300, 2.0, 1e300, 1.7e308])
def test_sqrt_upper_float(x):
    bound = float(sqrt_upper_float(np.array([x]))[0])
    assert Fraction(bound) ** 2 >= Fraction(x)


@pytest.mark.parametrize("x", [Fraction(1, 3), Fraction(-7, 3), Fraction(10 ** 40 + 7, 3), Fraction(1, 10 ** 50 + 3)])
def test_outward_rounding_brackets_and_bounds_sizes(x):
    up, down = round_up(x), round_down(x)
    assert down <= x <= up
    assert up.denominator.bit_length() < 300 and abs(up.numerator).bit_length() < 300
    assert (up - down) <= abs(x) * Fraction(1, 2 ** 60)


def test_operator_norm_upper_is_exact_for_the_identity_and_bounds_a_dense_matrix():
    assert operator_norm_upper(None) == (1, "identity")
    identity = [[Fraction(int(r == c)) for c in range(3)] for r in range(3)]
    assert operator_norm_upper(identity)[0] == 1
    dense = [[Fraction(2), Fraction(1, 3)], [Fraction(1, 3), Fraction(5, 4)]]
    bound, _ = operator_norm_upper(dense)
    spectral = max(abs(v) for v in mpmath.eig(mpmath.matrix([[mp(x) for x in row] for row in dense]))[0])
    assert mp(bound) >= spectral
    assert mp(bound) <= mpmath.sqrt(sum(mp(x) ** 2 for row in dense for x in row)) * (1 + mpmath.mpf(2) ** -60)


def test_layer_margin_known_answer():
    # d = 1, tokens 2, 1, -1 (A = I): scores of token 2: 4, 2, -2 -> margin 2; token 1: 2, 1, -1 -> 1;
    # token -1: -2, -1, 1 -> 2 (its own position leads). delta_0 = 1.
    layer = next(exact_layers([[2], [1], [-1]], alpha=1))
    assert layer_margin(layer).margin == 1


def test_layer_margin_with_a_score_scale():
    # A = 3 I / 2: every score scales by 3/2, so does the margin.
    layer = next(exact_layers([[2], [1], [-1]], alpha=1, A=[[Fraction(3, 2)]]))
    assert layer_margin(layer).margin == Fraction(3, 2)


def test_duplicates_share_a_group_and_are_no_tie():
    # Two copies of (1, 0) are one position: their attention set is that group, not a tie.
    certificate = softmax_certificate([[1, 0], [1, 0], [0, 1]], alpha=Fraction(1, 2), beta=100, layers=3)
    assert certificate.holds and certificate.stop is None
    assert certificate.records[0].margin == 1  # token (1,0): 1 vs 0; token (0,1): 1 vs 0


def test_a_tie_between_distinct_positions_stops_at_its_layer():
    certificate = softmax_certificate([[1, 0], [0, 1], [Fraction(1, 2), Fraction(1, 2)]], alpha=1, beta=100,
                                      layers=4)
    assert not certificate.holds
    assert certificate.stop is not None and certificate.stop.layer == 0 and certificate.stop.reason == "tie"
    assert certificate.stop.token == 2 and set(certificate.stop.tokens or ()) == {0, 1}
    assert certificate.certified_through == 0 and certificate.records[0].bound == 0


def test_a_small_margin_stops_the_certificate_when_two_eta_reaches_it():
    # beta small: eps_1 is large, so eta_1 soon exceeds half the margin.
    certificate = softmax_certificate([[1, 0], [0, 1], [Fraction(1, 2), Fraction(1, 3)]], alpha=1, beta=1, layers=6)
    assert certificate.stop is not None and certificate.stop.reason == "margin"
    last = certificate.records[-1]
    assert last.margin is not None and last.eta is not None and last.margin <= 2 * last.eta


def test_huge_beta_gives_a_tiny_positive_bound():
    certificate = softmax_certificate([[1, 0], [0, 1], [Fraction(1, 2), Fraction(1, 3)]], alpha=1,
                                      beta=10 ** 100, layers=4)
    assert certificate.holds
    assert 0 < certificate.records[-1].bound < Fraction(1, 10 ** 20000)


def test_tiny_beta_is_accepted_and_its_bound_is_honest():
    certificate = softmax_certificate([[1, 0], [0, 1]], alpha=1, beta=Fraction(1, 10 ** 30), layers=2)
    assert certificate.records[1].bound > Fraction(1, 2)  # nearly uniform softmax: a large bound, or a stop


def test_float_bounds_are_at_least_the_recursion_in_high_precision():
    # The float path (the sentiment evaluation) against the recursion evaluated in 80 digits.
    rng = np.random.default_rng(3)
    margins = rng.uniform(0.01, 0.5, size=(200, 8))
    margins[:5, 3] = np.inf  # layers with one position only
    radius = rng.uniform(0.5, 3.0, size=200)
    alpha, beta, n = 1.0682129859924316, 1000.0, 128
    result = float_bounds(margins, radius=radius, alpha=alpha, n=n, beta=beta)
    gamma = mpmath.mpf(alpha) / (1 + mpmath.mpf(alpha))
    for b in range(200):
        eps = mpmath.mpf(0)
        stopped = False
        for k in range(8):
            R = mpmath.mpf(radius[b])
            eta = eps * (2 * R + eps)
            if margins[b, k] == np.inf:
                continue
            if margins[b, k] <= 2 * eta:
                stopped = True
                break
            eps += 2 * gamma * (R + eps) * (n - 1) * mpmath.exp(-beta * (mpmath.mpf(margins[b, k]) - 2 * eta))
        if stopped:
            assert result.stop_layer[b] >= 0
        elif result.stop_layer[b] < 0:
            assert mpmath.mpf(result.bound[b]) >= eps
            assert mpmath.mpf(result.bound[b]) <= eps * (1 + mpmath.mpf(2) ** -20) + mpmath.mpf(1e-300)


def test_float_bounds_stop_where_no_margin_is_proven():
    result = float_bounds(np.array([[0.5, 0.0, 0.5], [0.5, np.nan, 0.5]]), radius=np.array([1.0, 1.0]), alpha=1.0,
                          n=4, beta=100.0)
    assert list(result.stop_layer) == [1, 1] and list(result.stop_reason) == ["undecided", "undecided"]
    assert np.isinf(result.bound).all()


def test_float_engine_margins_are_lower_bounds_of_the_exact_margins():
    """simulate_batch's score_margin (the float kernel's proven lower bound) against the exact margins."""
    from verify.core.float_dynamics import simulate_batch

    rng = np.random.default_rng(11)
    for _ in range(30):
        n, d = int(rng.integers(2, 7)), int(rng.integers(1, 4))
        tokens = rng.normal(0, 1, size=(n, d)) * float(rng.choice([1e-3, 1.0, 1e3]))
        tokens[-1] = tokens[0]  # a duplicated token
        batch = simulate_batch(tokens[None], alpha=0.75, layers=3)
        if batch.undecided[0]:
            continue
        exact = exact_layers([[float(x) for x in row] for row in tokens], alpha=Fraction(3, 4))
        for k, layer in zip(range(3), exact):
            margin = layer_margin(layer).margin
            lower = batch.score_margin[0, k]
            if margin is None:
                assert lower == np.inf
            else:
                assert Fraction(float(lower)) <= margin
                assert Fraction(float(lower)) >= margin * (1 - Fraction(1, 10 ** 9)) - Fraction(1, 10 ** 200)
