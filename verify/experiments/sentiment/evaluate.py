"""Certified hardmax evaluation of a trained sentiment model.

The hardmax model is the trained float32 weights read as the exact rationals they store
(``Fraction(float(x))`` is exact): tokens E[ids], alpha, w, b. Its prediction for a review is
the sign of w . mean_i z_i^K + b after K hardmax layers (docs/theory.md §1 with A = I).

How a prediction is certified
-----------------------------
1. :func:`verify.core.float_dynamics.simulate_batch` (the one float implementation of the rule)
   runs all reviews; it merges identical tokens (repeated words, padding: docs/theory.md D5) and
   flags a review ``undecided`` when some attention set is not decided by its proven
   rounding bound. For decided reviews it also returns a proven bound e on
   |float - exact| per coordinate of the final positions.
2. For a decided review the float logit is within
   ``|w|_1 (e + g_{n+1} (R + e)) + g_{d+1} (|w|_1 (R + e') + |b|)`` of the exact one
   (g_k = k u / (1 - k u), u = 2^-53, R = largest initial |coordinate|, e' the mean's bound;
   the mean of n floats and the dot product of length d are the two rounded steps), doubled
   for safety. If |logit| exceeds it, the sign is certified.
3. Every other review (undecided, or logit too close to 0) takes the **exact path**:
   :func:`verify.core.exact_dynamics.exact_layers` on the same rationals, exact mean, exact logit.

So every reported hardmax prediction is the prediction of exact arithmetic; the count of
exact-path reviews is reported. The logits themselves (for the loss) are floats (evidence).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np

from verify.core.exact_dynamics import exact_layers
from verify.core.float_dynamics import rounding_gamma, simulate_batch
from .checkpoints import ModelWeights

__all__ = ["Evaluation", "certified_evaluation", "exact_review", "ExactReview"]


@dataclass
class ExactReview:
    """One review through the exact engine: the exact logit and leaders (C_i = {i} at some layer <= K)."""

    logit: Fraction
    leader_layer: np.ndarray   # (n,) first layer each token led, -1 if never within K layers
    final: np.ndarray          # (n, d) float64 rounding of the exact final positions


@dataclass
class Evaluation:
    """Certified hardmax evaluation of N reviews."""

    predictions: np.ndarray     # (N,) int8, exact-arithmetic hardmax prediction (1 = positive)
    logits: np.ndarray          # (N,) float64 logits (float; exact-path ones rounded from exact)
    exact_path_mask: np.ndarray  # (N,) bool
    undecided_mask: np.ndarray   # (N,) bool: some attention set not decided by the float bound
    leader_layer: np.ndarray     # (N, n) int, first layer a token led (C_i = {i}), -1 never
    distinct_points: np.ndarray  # (N,) distinct tokens per review
    final: np.ndarray | None     # (N, n, d) float64 final positions when kept
    labels: np.ndarray | None
    seconds: float
    layers: int

    @property
    def exact_path(self) -> int:
        return int(self.exact_path_mask.sum())

    @property
    def accuracy(self) -> float:
        if self.labels is None:
            raise ValueError("no labels given")
        return float((self.predictions == self.labels).mean())

    @property
    def loss(self) -> float:
        """Binary cross-entropy of the hardmax logits (float evidence)."""
        if self.labels is None:
            raise ValueError("no labels given")
        x = self.logits
        y = self.labels.astype(np.float64)
        return float((np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))).mean())


def exact_review(tokens: np.ndarray, *, alpha: float, w: np.ndarray, b: float, layers: int) -> ExactReview:
    """Run one review (n, d float64 tokens, read as exact rationals) through the exact engine."""
    n, d = tokens.shape
    leader_layer = np.full(n, -1)
    w_exact = [Fraction(float(x)) for x in w]
    for layer in exact_layers([tuple(float(x) for x in row) for row in tokens], alpha=Fraction(float(alpha))):
        for i in layer.leaders():
            if leader_layer[i] < 0:
                leader_layer[i] = layer.index
        if layer.index == layers:
            weights = layer.groups.weights
            sums = [sum(weights[u] * layer.numerators[u][c] for u in range(len(weights))) for c in range(d)]
            mean = [Fraction(s, n * layer.denominator) for s in sums]
            logit = sum((wc * mc for wc, mc in zip(w_exact, mean)), Fraction(0)) + Fraction(float(b))
            final = np.array([[float(x) for x in p] for p in layer.positions()], dtype=np.float64)
            return ExactReview(logit, leader_layer, final)
    raise AssertionError("unreachable: exact_layers never ends")


def certified_evaluation(weights: ModelWeights, ids: np.ndarray, labels: np.ndarray | None = None, *,
                         layers: int = 8, block: int = 2048, keep_final: bool = False,
                         progress: Callable[[int, int], None] | None = None) -> Evaluation:
    """Hardmax predictions of the model on reviews ``ids`` (N, n), certified equal to exact arithmetic.

    Parameters
    ----------
    weights
        The trained float32 weights (read exactly).
    ids
        (N, n) word ids.
    labels
        Optional (N,) labels for accuracy and loss.
    layers
        K, the number of hardmax layers (8 in the paper).
    block
        Reviews per call of the float engine (bounds the memory of the (block, n, d) token array).
    keep_final
        Keep the (N, n, d) final positions (for the analyses).
    progress
        ``progress(done, total)`` after each block.
    """
    started = time.perf_counter()
    ids = np.asarray(ids)
    N, n = ids.shape
    E = weights.embedding.astype(np.float64)  # float32 -> float64 is exact
    d = E.shape[1]
    alpha = float(weights.alpha)
    w = weights.decoder_weight.astype(np.float64)
    b = float(weights.decoder_bias)
    w1 = float(np.abs(w).sum())

    predictions = np.zeros(N, dtype=np.int8)
    logits = np.zeros(N)
    exact_mask = np.zeros(N, dtype=bool)
    undecided = np.zeros(N, dtype=bool)
    leader_layer = np.full((N, n), -1)
    distinct = np.zeros(N, dtype=np.int64)
    final_all = np.zeros((N, n, d)) if keep_final else None
    for start in range(0, N, block):
        stop = min(N, start + block)
        tokens = E[ids[start:stop]]
        result = simulate_batch(tokens, alpha=alpha, layers=layers)
        mean = result.final.mean(axis=1)
        block_logits = mean @ w + b
        R = np.abs(tokens).max(axis=(1, 2))
        e = result.position_error_bound
        mean_error = e + rounding_gamma(n + 1) * (R + e)
        bound = 2.0 * (w1 * mean_error + rounding_gamma(d + 1) * (w1 * (R + mean_error) + abs(b)))
        needs_exact = result.undecided | ~(np.abs(block_logits) > bound)
        rows = slice(start, stop)
        logits[rows] = block_logits
        predictions[rows] = (block_logits > 0).astype(np.int8)
        exact_mask[rows] = needs_exact
        undecided[rows] = result.undecided
        leader_layer[rows] = result.leader_layer
        distinct[rows] = result.distinct_points
        if final_all is not None:
            final_all[rows] = result.final
        for local in np.flatnonzero(needs_exact):
            exact = exact_review(tokens[local], alpha=alpha, w=w, b=b, layers=layers)
            r = start + local
            logits[r] = float(exact.logit)
            # logit exactly 0 gives sigmoid 1/2, which the paper's rule (out > 0.5) calls negative.
            predictions[r] = 1 if exact.logit > 0 else 0
            leader_layer[r] = exact.leader_layer
            if final_all is not None:
                final_all[r] = exact.final
        if progress is not None:
            progress(stop, N)
    return Evaluation(predictions, logits, exact_mask, undecided, leader_layer, distinct, final_all,
                      None if labels is None else np.asarray(labels).astype(np.int8),
                      time.perf_counter() - started, layers)
