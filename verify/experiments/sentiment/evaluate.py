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

Softmax certified to agree (optional, ``softmax_beta``)
-------------------------------------------------------
The softmax model on the same rationals (beta the training temperature, A = I) stays within
eps_K of the exact hardmax trajectory (docs/theory.md §6, :mod:`verify.core.softmax_bound`), so
its pooled mean is within eps_K of the hardmax one and its logit within ||w|| eps_K: when
|hardmax logit| > ||w|| eps_K both models predict the same class. The margins delta_k come from
the scores the hardmax run computes anyway: on the float path as the kernel's proven lower
bounds (:func:`verify.core.float_dynamics.simulate_batch`, ``score_margin``), the |logit| lowered by
the proven bound of step 2, the recursion in float64 rounded outward; on the exact path from
the exact integer scores, in rational arithmetic. A review is counted only when this is proven.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np

from verify.core.exact_dynamics import exact_layers
from verify.core.float_dynamics import rounding_gamma, simulate_batch
from verify.core.softmax_bound import (SoftmaxBoundBuilder, SoftmaxCertificate, float_bounds, sqrt_upper,
                                       sqrt_upper_float)
from .checkpoints import ModelWeights

__all__ = ["Evaluation", "certified_evaluation", "exact_review", "ExactReview", "SoftmaxAgreement"]


@dataclass
class ExactReview:
    """One review through the exact engine: the exact logit and leaders (C_i = {i} at some layer <= K)."""

    logit: Fraction
    leader_layer: np.ndarray   # (n,) first layer each token led, -1 if never within K layers
    final: np.ndarray          # (n, d) float64 rounding of the exact final positions
    softmax: SoftmaxCertificate | None = None  # docs/theory.md §6, when asked for


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
    softmax: "SoftmaxAgreement | None" = None

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


@dataclass
class SoftmaxAgreement:
    """Per review: is the softmax model (exact real arithmetic) certified to predict the hardmax prediction?

    ``certified`` (N,) bool; ``bound`` (N,) an upper bound of eps_K (+inf where the certificate
    stopped); ``stop_layer`` (N,) the layer where it stopped (-1: it reached K); ``reason`` (N,)
    "" (certified), "margin" (delta_k <= 2 eta_k), "tie" / "undecided" (no proven margin at some
    layer), or "decoder" (the bound holds but |logit| <= ||w|| eps_K).
    """

    beta: float
    certified: np.ndarray
    bound: np.ndarray
    stop_layer: np.ndarray
    reason: np.ndarray

    @property
    def count(self) -> int:
        return int(self.certified.sum())

    def stop_layers(self) -> dict[str, int]:
        """How many reviews' certificates stopped at each layer (a key per layer, as text for JSON)."""
        values, counts = np.unique(self.stop_layer[self.stop_layer >= 0], return_counts=True)
        return {str(int(v)): int(c) for v, c in zip(values, counts)}

    def reasons(self) -> dict[str, int]:
        """How many reviews are not certified, by reason."""
        values, counts = np.unique(self.reason[~self.certified], return_counts=True)
        return {str(v): int(c) for v, c in zip(values, counts)}


def _float_norm_upper(rows: np.ndarray) -> np.ndarray:
    """Upper bounds of the Euclidean norms of the last axis (IEEE sums and products stepped up one ulp)."""
    total = np.zeros(rows.shape[:-1])
    for c in range(rows.shape[-1]):
        total = np.nextafter(total + np.nextafter(rows[..., c] * rows[..., c], np.inf), np.inf)
    return sqrt_upper_float(total)


def _radius_upper(tokens: np.ndarray) -> np.ndarray:
    """(B,) upper bounds of R = max_i ||z_i|| for (B, n, d) float tokens (d <= 64).

    A float sum of d rounded squares, in any order (BLAS, FMA), is within a relative gamma_{d+1}
    < 2^-45 of the exact sum, plus at most d 2^-1075 lost to underflow: (1 + 2^-40) and 2^-1000
    cover both and the rounding of that correction itself.
    """
    squares = np.einsum("bnd,bnd->bn", tokens, tokens).max(axis=1)
    return sqrt_upper_float(np.nextafter(squares * (1.0 + 2.0 ** -40) + 2.0 ** -1000, np.inf))


def exact_review(tokens: np.ndarray, *, alpha: float, w: np.ndarray, b: float, layers: int,
                 softmax_beta: float | None = None) -> ExactReview:
    """Run one review (n, d float64 tokens, read as exact rationals) through the exact engine.

    With ``softmax_beta`` the same exact layers also build the softmax certificate (docs/theory.md §6).
    """
    n, d = tokens.shape
    leader_layer = np.full(n, -1)
    w_exact = [Fraction(float(x)) for x in w]
    exact_tokens = [tuple(Fraction(float(x)) for x in row) for row in tokens]
    builder = None if softmax_beta is None else SoftmaxBoundBuilder(exact_tokens, Fraction(float(alpha)),
                                                                    Fraction(softmax_beta), layers)
    for layer in exact_layers(exact_tokens, alpha=Fraction(float(alpha))):
        if builder is not None:
            builder.feed(layer)
        for i in layer.leaders():
            if leader_layer[i] < 0:
                leader_layer[i] = layer.index
        if layer.index == layers:
            weights = layer.groups.weights
            sums = [sum(weights[u] * layer.numerators[u][c] for u in range(len(weights))) for c in range(d)]
            mean = [Fraction(s, n * layer.denominator) for s in sums]
            logit = sum((wc * mc for wc, mc in zip(w_exact, mean)), Fraction(0)) + Fraction(float(b))
            final = np.array([[float(x) for x in p] for p in layer.positions()], dtype=np.float64)
            return ExactReview(logit, leader_layer, final, None if builder is None else builder.certificate())
    raise AssertionError("unreachable: exact_layers never ends")


def certified_evaluation(weights: ModelWeights, ids: np.ndarray, labels: np.ndarray | None = None, *,
                         layers: int = 8, block: int = 2048, keep_final: bool = False,
                         softmax_beta: float | None = None,
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
    softmax_beta
        When given (the model's training temperature), also decide per review whether the softmax
        model is certified to predict the hardmax prediction (:class:`SoftmaxAgreement`).
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
    if softmax_beta is not None:
        if d > 64:
            raise ValueError(f"softmax_beta: the certificate's float bounds assume d <= 64, got d = {d}")
        if not (softmax_beta > 0 and np.isfinite(softmax_beta)):
            raise ValueError(f"softmax_beta: expected a positive finite inverse temperature, got {softmax_beta}")
        soft = SoftmaxAgreement(float(softmax_beta), np.zeros(N, dtype=bool), np.full(N, np.inf),
                                np.full(N, -1), np.full(N, "", dtype=object))
        w_norm = float(_float_norm_upper(w[None, :])[0])
        w_norm_exact = sqrt_upper(sum((Fraction(float(x)) ** 2 for x in w), Fraction(0)))
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
        if softmax_beta is not None and result.score_margin is not None:
            radius = _radius_upper(tokens)
            bounds = float_bounds(result.score_margin, radius=radius, alpha=alpha, n=n, beta=float(softmax_beta))
            with np.errstate(all="ignore"):
                logit_lower = np.nextafter(np.abs(block_logits) - bound, -np.inf)
                decoder_ok = logit_lower > np.nextafter(w_norm * bounds.bound, np.inf)
            soft.bound[rows] = bounds.bound
            soft.stop_layer[rows] = bounds.stop_layer
            soft.reason[rows] = np.where(bounds.stop_layer >= 0, bounds.stop_reason, np.where(decoder_ok, "", "decoder"))
            soft.certified[rows] = ~needs_exact & (bounds.stop_layer < 0) & decoder_ok
        for local in np.flatnonzero(needs_exact):
            exact = exact_review(tokens[local], alpha=alpha, w=w, b=b, layers=layers, softmax_beta=softmax_beta)
            r = int(start + local)
            if softmax_beta is not None and exact.softmax is not None:
                _record_exact_certificate(soft, r, exact, w_norm_exact)
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
                      time.perf_counter() - started, layers, soft if softmax_beta is not None else None)


def _record_exact_certificate(soft: SoftmaxAgreement, r: int, exact: ExactReview, w_norm: Fraction) -> None:
    """An exact-path review: the rational certificate and the exact logit decide."""
    certificate = exact.softmax
    assert certificate is not None
    final = certificate.final_bound
    if final is None:
        stop = certificate.stop
        soft.stop_layer[r] = stop.layer if stop is not None else certificate.certified_through
        soft.reason[r] = stop.reason if stop is not None else "margin"
        soft.bound[r] = np.inf
        soft.certified[r] = False
        return
    soft.stop_layer[r] = -1
    soft.bound[r] = float(np.nextafter(float(final), np.inf)) if final < 1e300 else np.inf
    soft.certified[r] = abs(exact.logit) > w_norm * final
    soft.reason[r] = "" if soft.certified[r] else "decoder"
