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


# --------------------------------------------------------------------------- beside the certified bound (docs/theory.md §6)

from dataclasses import replace  # noqa: E402

from verify.core.config import Configuration  # noqa: E402
from verify.core.softmax_bound import LayerBound, softmax_certificate  # noqa: E402
from verify.experiments.conjectures import builtin  # noqa: E402
from verify.experiments.conjectures.base import InternalError  # noqa: E402
from verify.experiments.conjectures.softmax import LayerDeviation, compare_with_certificate, layer_deviations  # noqa: E402


def _softmax_config(tokens, alpha=F(1, 2)):
    return Configuration(tokens=tuple(tuple(F(x) for x in t) for t in tokens), alpha=F(alpha), outside_hypotheses=True,
                         name="hand")


# d = 1, tokens 1 and 2, A = 1: at layer 0 both attend to 2 with margins 1 and 2, and the tokens stay
# well apart, so for beta >= 100 the bound reaches layer 6; at beta = 1 exp(-beta delta) is not small.
TWO = [[1], [2]]


def test_the_evidence_quotes_a_certified_bound_at_least_the_measured_deviation():
    observation = builtin._softmax_check(128)(_softmax_config(TWO))
    assert observation.status == "held"
    quoted = observation.evidence[f"beta={builtin.SOFTMAX_BETAS[2]}"]["certified_bound"]
    assert quoted["holds"] and quoted["certified_through"] == builtin.SOFTMAX_LAYERS
    assert quoted["statement"].startswith(f"certified: deviation <= eps_{builtin.SOFTMAX_LAYERS} = ")
    assert quoted["statement"].endswith(f"through layer {builtin.SOFTMAX_LAYERS}")
    bound = F(quoted["bound"])
    # The bound is the certificate's own eps_K, exactly ...
    certificate = softmax_certificate(TWO, alpha=F(1, 2), beta=builtin.SOFTMAX_BETAS[2], layers=builtin.SOFTMAX_LAYERS)
    assert bound == certificate.final_bound
    # ... and it is above the measured deviation at every layer, in both norms (arb upper ends, exact).
    for layer in layer_deviations(TWO, alpha=F(1, 2), beta=builtin.SOFTMAX_BETAS[2], layers=builtin.SOFTMAX_LAYERS,
                                  precision=512):
        assert layer.coordinate.upper <= bound and layer.squared.upper <= bound * bound
    assert quoted["measured_within_bound"].startswith("yes")
    # The measurement conjecture lists eps_K(beta) beside the measured curve, and it is above it.
    measured = builtin._softmax_measure(_softmax_config(TWO)).measurements
    beta = builtin.SOFTMAX_BETAS[2]
    assert measured[f"deviation_upper_beta_{beta}"] <= measured[f"certified_bound_beta_{beta}"]
    assert measured[f"certified_through_beta_{beta}"] == builtin.SOFTMAX_LAYERS


def test_where_the_bound_stops_the_evidence_says_so():
    # beta = 1: the margin 1 is too small against the score error after one layer.
    observation = builtin._softmax_check(128)(_softmax_config(TWO))
    quoted = observation.evidence["beta=1"]["certified_bound"]
    assert not quoted["holds"] and quoted["certified_through"] == 1 and quoted["stop"]["reason"] == "margin"
    assert quoted["statement"].startswith("certified: deviation <= eps_1 = ")
    assert "through layer 1 only; the bound stops at layer 1: the margin delta is at most 2 eta" in quoted["statement"]
    measured = builtin._softmax_measure(_softmax_config(TWO)).measurements
    assert measured["certified_bound_beta_1"] is None and measured["certified_through_beta_1"] == 1
    # docs/theory.md D7's three-way tie: (1/2, 1/2) ties between (1, 0) and (0, 1) at layer 0.
    tie = builtin._softmax_check(128)(_softmax_config([[1, 0], [0, 1], [F(1, 2), F(1, 2)]]))
    for beta in builtin.SOFTMAX_BETAS:
        quoted = tie.evidence[f"beta={beta}"]["certified_bound"]
        assert quoted["certified_through"] == 0 and quoted["stop"]["reason"] == "tie"
        assert quoted["statement"].startswith("not certified beyond layer 0: the bound stops at layer 0: token 2's "
                                              "attention set holds two distinct positions")


def _shrunk(factor):
    """softmax_certificate with every eps_k divided by ``factor`` (a wrong bound, to see the lab catch it)."""
    def certificate(*args, **kwargs):
        real = softmax_certificate(*args, **kwargs)
        return replace(real, records=tuple(LayerBound(r.layer, r.bound / factor, r.margin, r.eta) for r in real.records))
    return certificate


def test_a_measured_deviation_above_a_certified_bound_is_an_internal_error_not_a_counterexample(monkeypatch):
    monkeypatch.setattr(builtin, "softmax_certificate", _shrunk(10 ** 6))
    for predicate in (builtin._softmax_check(128), builtin._softmax_measure):
        with pytest.raises(InternalError, match="at beta = 1, layer 1, the measured softmax-hardmax deviation"):
            predicate(_softmax_config(TWO))


def test_compare_with_certificate_consistent_unresolved_and_violated():
    certificate = softmax_certificate(TWO, alpha=F(1, 2), beta=100, layers=2)
    eps = [r.bound for r in certificate.records]

    def at(k, low, high):
        return LayerDeviation(k, Enclosure(low, high), Enclosure(low * low, high * high))

    zero = at(0, F(0), F(1, 10 ** 40))  # layer 0: the input itself, an arb ball around 0 says nothing
    fine = compare_with_certificate([zero, at(1, eps[1] / 4, eps[1] / 2), at(2, F(0), eps[2])], certificate)
    assert fine.unresolved == () and fine.to_json_dict()["measured_within_bound"].startswith("yes")
    straddling = compare_with_certificate([zero, at(1, eps[1] / 2, 2 * eps[1]), at(2, F(0), eps[2])], certificate)
    assert straddling.unresolved == (1,) and "not resolved at this arb precision at layer 1 (" in \
        straddling.to_json_dict()["measured_within_bound"]
    both = compare_with_certificate([zero, at(1, eps[1] / 2, 2 * eps[1]), at(2, eps[2] / 2, 2 * eps[2])], certificate)
    assert both.unresolved == (1, 2) and "not resolved at this arb precision at layers 1, 2 (" in \
        both.to_json_dict()["measured_within_bound"]
    with pytest.raises(InternalError, match="layer 2"):
        compare_with_certificate([zero, at(1, F(0), eps[1]), at(2, 2 * eps[2], 3 * eps[2])], certificate)
