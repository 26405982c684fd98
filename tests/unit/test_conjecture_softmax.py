"""Softmax in arb balls (verify.experiments.conjectures.softmax) against a closed form and an independent float oracle."""

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from flint import ctx

from verify.experiments.conjectures.softmax import Enclosure, deviation_from_hardmax, softmax_layers


def float_softmax_oracle(tokens, *, alpha, beta, A, layers):
    """Independent float64 softmax rule (scores <A z_i, z_j>, weights exp(beta s) / sum), for comparison only."""
    Z = np.array(tokens, dtype=float)
    A = np.eye(Z.shape[1]) if A is None else np.array(A, dtype=float)
    history = [Z.copy()]
    for _ in range(layers):
        S = beta * (Z @ A.T @ Z.T)
        W = np.exp(S - S.max(axis=1, keepdims=True))
        W /= W.sum(axis=1, keepdims=True)
        Z = (Z + alpha * (W @ Z)) / (1 + alpha)
        history.append(Z.copy())
    return history


# d = 1, A = 1, alpha = 1, tokens 1 and 2. Hardmax: both attend to 2, so layer 1 is (3/2, 2).
# Softmax, token 1: weights e^b, e^{2b}, mean (1 + 2 e^b)/(1 + e^b), so its layer-1 deviation is
# 1 / (2 (1 + e^b)); token 2's is 1 / (2 (1 + e^{2b})), smaller. Layer 0 deviates by 0.
@pytest.mark.parametrize("beta", [1, 10, 1000])
def test_one_layer_closed_form_is_enclosed(beta):
    enclosure = deviation_from_hardmax([[F(1)], [F(2)]], alpha=F(1), beta=F(beta), layers=1, precision=128)
    mpmath.mp.prec = 200
    exact = 1 / (2 * (1 + mpmath.e ** beta))
    assert mpmath.mpf(enclosure.lower.numerator) / enclosure.lower.denominator <= exact
    assert exact <= mpmath.mpf(enclosure.upper.numerator) / enclosure.upper.denominator
    assert enclosure.width < F(1, 10 ** 30)


def test_positions_agree_with_an_independent_float_oracle():
    tokens = [[F(1), F(1, 3)], [F(-1), F(0)], [F(0), F(1, 2)], [F(1, 2), F(-1)]]
    A = [[F(2), F(1)], [F(1), F(1)]]
    arb_history = softmax_layers(tokens, alpha=F(1, 2), beta=F(3), A=A, layers=5)
    float_history = float_softmax_oracle([[float(x) for x in t] for t in tokens], alpha=0.5, beta=3.0,
                                         A=[[2.0, 1.0], [1.0, 1.0]], layers=5)
    for arb_layer, float_layer in zip(arb_history, float_history):
        for arb_point, float_point in zip(arb_layer, float_layer):
            for ball, value in zip(arb_point, float_point):
                # The oracle is float: agreement to 1e-12 is a cross-check, the ball is the rigorous value.
                assert abs(float(ball.mid()) - value) < 1e-12
                assert float(ball.rad()) < 1e-60


def test_global_precision_is_restored():
    before = ctx.prec
    softmax_layers([[F(1)], [F(2)]], alpha=F(1), beta=F(5), layers=2, precision=999)
    assert ctx.prec == before


def test_enclosure_comparisons():
    low, high = Enclosure(F(0), F(1)), Enclosure(F(2), F(3))
    assert high.certainly_greater(low) and not low.certainly_greater(high)
    assert not Enclosure(F(1), F(2)).certainly_greater(Enclosure(F(3, 2), F(5, 2)))
    with pytest.raises(ValueError):
        Enclosure(F(1), F(0))
