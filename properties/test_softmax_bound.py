"""docs/theory.md §6, the per-input softmax certificate (verify/core/softmax_bound.py): at every layer
where the certificate holds, a softmax trajectory computed independently in 60-digit arithmetic
(mpmath, test-only code) is within the certified eps_k of the exact hardmax trajectory.

Configurations: inside the hypotheses and with duplicated tokens (docs/theory.md D5), A the
identity and dense symmetric positive definite, beta from 10 to 10,000, alpha as drawn by
:func:`verify.strategies.alphas`. The 60-digit run itself errs by about 10^-55 on positions of size
at most 1, so deviations are compared with eps_k + 10^-50: bounds far below that are checked
only to that precision (they are checked exactly, layer by layer, by the independent checker).

The property has teeth: the same comparison with every bound halved fails on configurations
where the bound is nearly attained (two opposite tokens u and -u, with A = I and a dense A).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.core.config import Configuration, parse_configuration
from verify.core.softmax_bound import SoftmaxCertificate, softmax_certificate
from verify.strategies import configurations, outside_configurations
from verify.testing import fail_claim, record_event
from verify.core.trajectory import simulate

DIGITS = 60
TOLERANCE = mpmath.mpf(10) ** -50
LAYERS = 6
BETAS = st.one_of(st.sampled_from((10, 50, 100, 1000, 10_000)), st.integers(10, 10_000))


def softmax_trajectory(tokens: Sequence[Sequence[Fraction]], *, alpha: Fraction, A: Sequence[Sequence[Fraction]] | None,
                       beta: int | Fraction, layers: int) -> list[list[list[mpmath.mpf]]]:
    """Softmax attention at inverse temperature beta in 60-digit arithmetic: positions at layers 0..layers.

    y_i' = (y_i + alpha sum_j p_ij y_j) / (1 + alpha), p_ij proportional to exp(beta <A y_i, y_j>).
    """
    with mpmath.workdps(DIGITS):
        def number(x: Fraction) -> mpmath.mpf:
            return mpmath.mpf(x.numerator) / x.denominator

        d = len(tokens[0])
        matrix = [[number(Fraction(int(r == c))) for c in range(d)] for r in range(d)] if A is None else \
            [[number(x) for x in row] for row in A]
        a, b = number(Fraction(alpha)), number(Fraction(beta))
        Y = [[number(x) for x in t] for t in tokens]
        out = [Y]
        for _ in range(layers):
            new = []
            for y in Y:
                direction = [sum(matrix[r][c] * y[c] for c in range(d)) for r in range(d)]
                scores = [sum(direction[r] * v[r] for r in range(d)) for v in Y]
                top = max(scores)
                weights = [mpmath.exp(b * (s - top)) for s in scores]
                total = sum(weights)
                mean = [sum(w * v[r] for w, v in zip(weights, Y)) / total for r in range(d)]
                new.append([(y[r] + a * mean[r]) / (1 + a) for r in range(d)])
            Y = new
            out.append(Y)
        return out


def deviation_violations(config: Configuration, certificate: SoftmaxCertificate, *, scale: Fraction = Fraction(1)
                         ) -> list[tuple[int, mpmath.mpf, mpmath.mpf]]:
    """(layer, measured deviation, scale * eps_k) wherever the deviation exceeds scale * eps_k + 10^-50."""
    hardmax = simulate(config.tokens, alpha=config.alpha, A=config.A_matrix if config.A else None,
                       layers=certificate.certified_through)
    soft = softmax_trajectory(config.tokens, alpha=config.alpha, A=config.A_matrix if config.A else None,
                              beta=certificate.beta, layers=certificate.certified_through)
    found = []
    with mpmath.workdps(DIGITS):
        for record in certificate.records:
            k = record.layer
            deviation = max(mpmath.sqrt(sum((y - mpmath.mpf(z.numerator) / z.denominator) ** 2
                                            for y, z in zip(soft[k][i], hardmax.positions[k][i])))
                            for i in range(config.n))
            bound = scale * record.bound
            allowed = mpmath.mpf(bound.numerator) / bound.denominator
            if deviation > allowed + TOLERANCE:
                found.append((k, deviation, allowed))
    return found


def _check(config: Configuration, beta: int) -> None:
    certificate = softmax_certificate(config.tokens, alpha=config.alpha, beta=beta, layers=LAYERS,
                                      A=config.A_matrix if config.A else None)
    record_event("holds through K" if certificate.holds else f"stops: {certificate.stop.reason}"
                 if certificate.stop else "stops")
    violations = deviation_violations(config, certificate)
    if violations:
        k, deviation, allowed = violations[0]
        fail_claim("§6", config, f"softmax deviates by {mpmath.nstr(deviation, 8)} > certified eps_{k} = "
                   f"{mpmath.nstr(allowed, 8)} at beta = {beta}", layer=k)


@given(configurations(family=("generic", "dense_spd", "close_pairs", "collinear"), max_n=6, max_d=3), BETAS)
@settings(deadline=None)
def test_softmax_stays_within_the_certified_bound(config, beta):
    _check(config, beta)


@given(outside_configurations("duplicates", max_n=6, max_d=3), BETAS)
@settings(deadline=None)
def test_softmax_stays_within_the_bound_with_duplicated_tokens(config, beta):
    _check(config, beta)


@pytest.mark.parametrize("tokens, A", [
    ([[1], [-1]], None),
    ([["1/2", "1/3"], ["-1/2", "-1/3"]], [["2", "1/3"], ["1/3", "5/4"]]),
], ids=["line", "dense-A"])
def test_a_halved_bound_is_caught_where_the_bound_is_nearly_attained(tokens, A):
    # Tokens u and -u: token u's softmax weight on -u is e^{-beta delta} / (1 + e^{-beta delta}) and moves it by
    # gamma * 2 ||u|| * that weight; the certified step 2 gamma R (n - 1) e^{-beta delta} (R = ||u||) is attained
    # up to the factor 1 + e^{-beta delta}, so half of it is exceeded.
    data = {"tokens": tokens, "alpha": "1/2", **({"A": A} if A else {})}
    config = parse_configuration(data)
    certificate = softmax_certificate(config.tokens, alpha=config.alpha, beta=10, layers=3,
                                      A=config.A_matrix if config.A else None)
    assert certificate.holds
    assert deviation_violations(config, certificate) == []
    assert deviation_violations(config, certificate, scale=Fraction(1, 2)) != []


def _printed(text: str) -> Fraction:
    """The number a decimal_text string states, exactly."""
    mantissa, _, exponent = text.partition("e")
    return Fraction(mantissa) * Fraction(10) ** int(exponent or 0)


@given(configurations(family=("generic", "dense_spd", "close_pairs"), max_n=6, max_d=3),
       st.integers(10, 2000))
@settings(deadline=None, max_examples=60)
def test_printed_bounds_are_on_the_safe_side(config, beta):
    """The softmax command's numbers (table, verdict line, JSON *_approx): eps and 2 eta never below the proven
    value, delta never above it (rounded from the exact fraction, docs/theory.md §6)."""
    from verify.core.softmax_bound import decimal_text

    certificate = softmax_certificate(config.tokens, alpha=config.alpha, beta=beta, layers=LAYERS,
                                      A=config.A_matrix if config.A is not None else None)
    for record in certificate.records:
        entry = record.to_json_dict()
        assert _printed(entry["bound_approx"]) >= record.bound
        assert _printed(decimal_text(record.bound, rounding="up")) >= record.bound
        if record.margin is not None:
            assert _printed(entry["margin_approx"]) <= record.margin
        if record.eta is not None:
            assert _printed(decimal_text(2 * record.eta, rounding="up")) >= 2 * record.eta
    assert _printed(decimal_text(certificate.radius, rounding="up")) >= certificate.radius
    assert certificate.to_json_dict()["approx_rounding"] == {"bound_approx": "up", "margin_approx": "down"}
