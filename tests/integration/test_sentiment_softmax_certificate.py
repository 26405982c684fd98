"""The sentiment evaluation's softmax certificate (verify/sentiment/evaluate.py, docs/theory.md §6) on a
small model made here: a review counted as certified is one where the rational certificate
(verify/core/softmax_bound.py, exact scores) also certifies it, and where an independent 60-digit
softmax run predicts what the exact hardmax model predicts; the exact path agrees with the float path."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from verify.core.softmax_bound import softmax_certificate, sqrt_upper
from verify.experiments.sentiment import evaluate as evaluation_module
from verify.experiments.sentiment.checkpoints import ModelWeights
from verify.experiments.sentiment.evaluate import certified_evaluation, exact_review

LAYERS = 3
BETA = 1000.0


def _model(seed: int, d: int = 2, vocab: int = 30) -> ModelWeights:
    rng = np.random.default_rng(seed)
    embedding = rng.normal(0, 0.3, size=(vocab, d)).astype(np.float32)
    alpha = np.float32(rng.uniform(0.5, 2.0))
    return ModelWeights(embedding=embedding, alpha_raw=np.float32(0.0), alpha=alpha,
                        decoder_weight=rng.normal(0, 2, size=d).astype(np.float32),
                        decoder_bias=np.float32(rng.normal(0, 0.3)))


def _reviews(seed: int, N: int = 30, n: int = 10, vocab: int = 30) -> np.ndarray:
    rng = np.random.default_rng(seed)
    ids = rng.integers(1, vocab, size=(N, n))
    ids[:, -3:] = 0  # padding: repeated tokens, as in real reviews (docs/theory.md D5)
    return ids


def _rational_certified(weights: ModelWeights, row: np.ndarray) -> tuple[bool, Fraction]:
    tokens = [[Fraction(float(x)) for x in weights.embedding[i]] for i in row]
    certificate = softmax_certificate(tokens, alpha=Fraction(float(weights.alpha)), beta=Fraction(BETA), layers=LAYERS)
    exact = exact_review(weights.embedding[row].astype(np.float64), alpha=float(weights.alpha),
                         w=weights.decoder_weight.astype(np.float64), b=float(weights.decoder_bias), layers=LAYERS)
    w_norm = sqrt_upper(sum((Fraction(float(x)) ** 2 for x in weights.decoder_weight), Fraction(0)))
    final = certificate.final_bound
    return final is not None and abs(exact.logit) > w_norm * final, exact.logit


def _softmax_logit(weights: ModelWeights, row: np.ndarray) -> mpmath.mpf:
    """The softmax model in 60 digits: Z <- (Z + alpha softmax(beta Z Z^T) Z) / (1 + alpha), mean, decoder."""
    with mpmath.workdps(60):
        Z = [[mpmath.mpf(float(x)) for x in weights.embedding[i]] for i in row]
        a = mpmath.mpf(float(weights.alpha))
        for _ in range(LAYERS):
            new = []
            for y in Z:
                scores = [sum(p * q for p, q in zip(y, v)) for v in Z]
                top = max(scores)
                e = [mpmath.exp(BETA * (s - top)) for s in scores]
                total = sum(e)
                mean = [sum(w * v[r] for w, v in zip(e, Z)) / total for r in range(len(y))]
                new.append([(y[r] + a * mean[r]) / (1 + a) for r in range(len(y))])
            Z = new
        pool = [sum(z[r] for z in Z) / len(Z) for r in range(len(Z[0]))]
        return sum(mpmath.mpf(float(w)) * p for w, p in zip(weights.decoder_weight, pool)) \
            + mpmath.mpf(float(weights.decoder_bias))


@pytest.mark.parametrize("seed", [0, 1])
def test_certified_reviews_are_certified_exactly_and_softmax_agrees(seed):
    weights, ids = _model(seed), _reviews(seed)
    result = certified_evaluation(weights, ids, layers=LAYERS, softmax_beta=BETA)
    soft = result.softmax
    assert soft is not None and soft.count > 0  # the test has something to check
    for r, row in enumerate(ids):
        rational, logit = _rational_certified(weights, row)
        if soft.certified[r]:
            assert rational, f"review {r}: float path certified what the rational certificate does not"
            softmax = _softmax_logit(weights, row)
            assert (softmax > 0) == (logit > 0), f"review {r}: softmax {softmax} vs hardmax {logit}"
    assert sum(_rational_certified(weights, row)[0] for row in ids) - soft.count <= 2  # float loses little
    assert soft.count + sum(soft.reasons().values()) == len(ids)


def test_the_exact_path_decides_alike(monkeypatch):
    """Every review forced onto the exact path: same certified set as the float path (up to rounding)."""
    weights, ids = _model(2), _reviews(2)
    float_result = certified_evaluation(weights, ids, layers=LAYERS, softmax_beta=BETA)
    real = evaluation_module.simulate_batch

    def undecided_everywhere(*args, **kwargs):
        batch = real(*args, **kwargs)
        batch.undecided[:] = True
        return batch

    monkeypatch.setattr(evaluation_module, "simulate_batch", undecided_everywhere)
    exact_result = certified_evaluation(weights, ids, layers=LAYERS, softmax_beta=BETA)
    assert exact_result.exact_path == len(ids)
    assert exact_result.softmax is not None and float_result.softmax is not None
    assert (float_result.softmax.certified <= exact_result.softmax.certified).all()
    assert exact_result.softmax.count - float_result.softmax.count <= 2


def test_without_softmax_beta_nothing_changes():
    weights, ids = _model(3), _reviews(3)
    plain = certified_evaluation(weights, ids, layers=LAYERS)
    with_soft = certified_evaluation(weights, ids, layers=LAYERS, softmax_beta=BETA)
    assert plain.softmax is None
    assert (plain.predictions == with_soft.predictions).all() and (plain.logits == with_soft.logits).all()


@pytest.mark.parametrize("scale", [1.0, 1e-160, 1e-310, 1e100])
def test_radius_upper_bounds_the_exact_largest_norm(scale):
    rng = np.random.default_rng(5)
    tokens = rng.normal(0, 1, size=(20, 12, 16)) * scale
    radius = evaluation_module._radius_upper(tokens)
    for b in range(20):
        largest = max(sum((Fraction(float(x)) ** 2 for x in row), Fraction(0)) for row in tokens[b])
        assert Fraction(float(radius[b])) ** 2 >= largest
