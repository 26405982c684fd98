"""Certified hardmax evaluation (float engine + exact fallback) agrees with a pure exact evaluation."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from verify.experiments.sentiment.checkpoints import ModelWeights
from verify.experiments.sentiment.evaluate import certified_evaluation, exact_review


def _weights(embedding: np.ndarray, *, alpha: float, w, b: float) -> ModelWeights:
    return ModelWeights(embedding=np.asarray(embedding, dtype=np.float32), alpha_raw=np.float32(0.0).reshape(()),
                        alpha=np.float32(alpha).reshape(()), decoder_weight=np.asarray(w, dtype=np.float32),
                        decoder_bias=np.float32(b).reshape(()))


def _fixture(seed: int = 0):
    rng = np.random.default_rng(seed)
    # Rows 1-5 tie on purpose: (1/2, 1/2) scores 1/2 against itself, (1, 0) and (0, 1), so a
    # review holding all three has a float tie between distinct points (undecided -> exact path).
    tied = [[0.25, 0.125], [1, 0], [0, 1], [0.5, 0.5], [-1, 0], [0, -1]]
    embedding = np.vstack([tied, rng.normal(size=(40, 2))])
    ids = rng.integers(6, len(embedding), size=(40, 12))
    ids[:10] = rng.integers(1, 6, size=(10, 12))
    ids[:10, :3] = [1, 2, 3]          # tie reviews: only the tied rows, all of 1, 2, 3 present
    ids[10:20, -4:] = 0               # padding: duplicates, merged, not a reason for the exact path
    ids[20:25, :] = ids[20:25, :1]    # one word repeated: a single distinct point
    weights = _weights(embedding, alpha=1.5, w=[0.75, -1.25], b=0.125)
    return weights, ids


def _assert_equal_to_exact(result, weights: ModelWeights, ids: np.ndarray) -> None:
    """Each review's certified prediction, leaders and logit against a pure exact evaluation."""
    tokens = weights.embedding.astype(np.float64)[ids]
    for r in range(len(ids)):
        exact = exact_review(tokens[r], alpha=float(weights.alpha), w=weights.decoder_weight,
                             b=float(weights.decoder_bias), layers=result.layers)
        assert result.predictions[r] == (1 if exact.logit > 0 else 0), r
        assert np.array_equal(result.leader_layer[r], exact.leader_layer), r
        assert abs(result.logits[r] - float(exact.logit)) <= 1e-9 * max(1.0, abs(float(exact.logit))), r


def test_certified_predictions_and_leaders_equal_exact_arithmetic():
    weights, ids = _fixture()
    labels = (np.arange(len(ids)) % 2).astype(np.int8)
    result = certified_evaluation(weights, ids, labels, layers=8, block=16)
    _assert_equal_to_exact(result, weights, ids)
    assert result.exact_path >= 10                  # the tie reviews
    assert result.exact_path < len(ids)             # and not everything
    assert result.undecided_mask[:10].all()
    # Identical tokens are merged before the dynamics (docs/theory.md D5): padding and repeats collapse.
    assert (result.distinct_points[10:20] <= 9).all() and (result.distinct_points[20:25] == 1).all()
    assert (result.leader_layer[20:25] == -1).all()  # a duplicated token is never a leader
    assert result.accuracy == float((result.predictions == labels).mean())


def test_a_logit_of_exactly_zero_takes_the_exact_path_and_is_negative():
    # One distinct token z repeated: it never moves, the mean is z, so w.z + b = 0 exactly.
    embedding = np.array([[0.0, 0.0], [0.5, 0.25]])
    weights = _weights(embedding, alpha=1.0, w=[1.0, 2.0], b=-1.0)
    ids = np.ones((1, 5), dtype=np.int32)
    result = certified_evaluation(weights, ids, layers=8)
    assert result.exact_path == 1 and not result.undecided_mask[0]
    assert result.predictions[0] == 0 and result.logits[0] == 0.0


def test_exact_review_known_answer_two_tokens():
    # d = 1, tokens 1 and 2 (A = 1): C = {2} for both, so token 1 -> (1 + a*2)/(1 + a) per layer; with
    # alpha = 1 after one layer the tokens are 3/2 and 2, mean 7/4, logit = 7/4 * 2 - 1 = 5/2.
    result = exact_review(np.array([[1.0], [2.0]]), alpha=1.0, w=np.array([2.0]), b=-1.0, layers=1)
    assert result.logit == Fraction(5, 2)
    assert result.leader_layer.tolist() == [-1, 0]


def test_rows_shrunk_by_weight_decay_do_not_send_reviews_to_the_exact_path():
    # Adam with L2 weight decay drives the rows of words never seen in training to float32
    # subnormals (~1e-38) beside trained rows of size ~1-3. Per-point rounding bounds decide
    # those reviews in float; the result must still equal exact arithmetic.
    rng = np.random.default_rng(3)
    trained = rng.normal(size=(30, 4))
    shrunk = rng.normal(size=(30, 4)) * 1e-38
    embedding = np.vstack([trained, shrunk])
    ids = np.concatenate([rng.integers(0, 30, size=(20, 10)), rng.integers(30, 60, size=(20, 6))], axis=1)
    weights = _weights(embedding, alpha=1.8, w=[0.5, -1.0, 0.75, 0.25], b=0.0625)
    result = certified_evaluation(weights, ids, layers=8)
    assert result.exact_path == 0 and not result.undecided_mask.any()
    _assert_equal_to_exact(result, weights, ids)
