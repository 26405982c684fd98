"""The hardmax dynamics of THEORY.md §1 in float64, vectorised over batches, with a proven error bound.

This is the one float implementation of the update rule. It works on a batch of B
configurations of n tokens in R^d at once (no Python loop over tokens) and never pretends
to have decided what rounding could have changed.

Rounding-error bound (why a float attention set can be trusted)
---------------------------------------------------------------
Write u = 2^-53 and gamma_k = k u / (1 - k u) (Higham, *Accuracy and Stability of Numerical
Algorithms*, Lemma 3.1). Let R bound every coordinate of the exact trajectory (the exact
positions stay in the initial hull, THEORY.md D1, so R = the largest initial |coordinate|)
and let e_k bound the absolute error of every float coordinate at layer k, *provided every
attention set of the layers before k was decided*. Then:

* every float score is within E_k = d^2 a [2 R e_k + e_k^2 + (u + gamma_{2d} (1+u)) (R + e_k)^2]
  of the exact score, where a = max |A_rs| (1 for A = I): the first two terms are the
  propagated position error, the last the rounding of A and of the two dot products of length d;
* if the top float score of row i beats every other score of the row by more than 2 E_k,
  the exact attention set is the singleton {argmax}, the same as the float one. Otherwise the
  row is **undecided** (this includes every float tie between distinct points: a float tie
  can never be certified);
* with decided singleton sets the mean is an exact copy of a float position, and the update
  (z + fl(alpha) m) / fl(1 + fl(alpha)) adds at most
  (R + e_k) (alpha gamma_2 + gamma_3 (1 + alpha (1 + gamma_2))) / (1 + alpha) per coordinate,
  so e_{k+1} = e_k + that (the convex combination does not amplify e_k).
The bound's own evaluation in float is made safe by doubling the rounding terms.

Identical tokens tie exactly and stay identical (THEORY.md D5); each configuration's
identical rows are merged into one point with a multiplicity before the dynamics, which is
both faster and the only way a float tie between copies can be called decided.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

__all__ = ["BatchResult", "FloatLayer", "simulate_batch", "float_layers", "UNIT_ROUNDOFF"]

UNIT_ROUNDOFF = 2.0 ** -53


def _gamma(k: int) -> float:
    return k * UNIT_ROUNDOFF / (1.0 - k * UNIT_ROUNDOFF)


@dataclass
class BatchResult:
    """Outcome of :func:`simulate_batch` for B configurations of n tokens.

    Attributes
    ----------
    final : (B, n, d) float64 positions after ``layers`` layers.
    undecided : (B,) bool, True when some attention set could not be decided by the proven bound
        (the float result may then differ from exact arithmetic).
    first_undecided_layer : (B,) int, the first such layer, -1 when all were decided.
    leaders : (B, n) bool, tokens with C_i = {i} (decided) at some layer <= ``layers``.
    leader_layer : (B, n) int, the first layer at which each leader led, -1 otherwise.
    position_error_bound : (B,) float, proven bound on |float - exact| per coordinate of ``final``
        (meaningful where ``undecided`` is False).
    score_error_bound : (B,) float, the score bound E used at the last layer.
    distinct_points : (B,) int, number of distinct tokens per configuration after merging copies.
    """

    final: np.ndarray
    undecided: np.ndarray
    first_undecided_layer: np.ndarray
    leaders: np.ndarray
    leader_layer: np.ndarray
    position_error_bound: np.ndarray
    score_error_bound: np.ndarray
    distinct_points: np.ndarray


@dataclass
class FloatLayer:
    """Layer k of a float run on a chunk of merged, padded configurations (see :func:`float_layers`)."""

    index: int
    positions: np.ndarray        # (b, m, d), padded rows are meaningless
    argmax: np.ndarray           # (b, m) first maximiser of each row
    tie_rows: np.ndarray         # (b, m) bool: float equality tie (|C| > 1) in that row
    undecided_rows: np.ndarray   # (b, m) bool: set not decided by the proven bound
    position_error: np.ndarray   # (b,) bound e_k
    score_error: np.ndarray      # (b,) bound E_k

    def attention_masks(self, chunk: "MergedChunk") -> np.ndarray:
        """(b, m, m) bool, C_u as float equality of scores (recomputed; only for recording)."""
        scores = _scores(self.positions, chunk.A_transposed, chunk.column_penalty)
        return (scores == scores.max(axis=2, keepdims=True)) & chunk.valid[:, :, None]


@dataclass
class MergedChunk:
    """Configurations with identical rows merged, padded to a common number m of distinct points."""

    positions: np.ndarray       # (b, m, d)
    weights: np.ndarray         # (b, m) multiplicities, 0 on padding
    valid: np.ndarray           # (b, m) bool
    inverse: np.ndarray         # (b, n) original token -> distinct point
    A_transposed: np.ndarray | None  # (d, d) or (b, d, d); None = identity
    column_penalty: np.ndarray  # (b, 1, m): 0 on real points, -inf on padding


def _scores(Z: np.ndarray, A_transposed: np.ndarray | None, column_penalty: np.ndarray) -> np.ndarray:
    """S[b, u, v] = <A z_u, z_v> = (z_u^T A^T) . z_v, padding columns at -inf."""
    left = Z if A_transposed is None else Z @ A_transposed
    return np.matmul(left, Z.transpose(0, 2, 1)) + column_penalty


def _merge(tokens: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    points, counts, inverses = [], [], []
    for config in tokens:
        unique, inverse, count = np.unique(config, axis=0, return_inverse=True, return_counts=True)
        points.append(unique)
        counts.append(count)
        inverses.append(inverse.reshape(-1))
    return points, counts, inverses


def _pad_chunk(indices: np.ndarray, points, counts, inverses, A_transposed, d: int) -> MergedChunk:
    m = max(len(points[i]) for i in indices)
    b = len(indices)
    Z = np.zeros((b, m, d))
    W = np.zeros((b, m))
    for row, i in enumerate(indices):
        k = len(points[i])
        Z[row, :k] = points[i]
        W[row, :k] = counts[i]
    valid = W > 0
    penalty = np.where(valid, 0.0, -np.inf)[:, None, :]
    A_chunk = None if A_transposed is None else (A_transposed if A_transposed.ndim == 2 else A_transposed[indices])
    return MergedChunk(Z, W, valid, np.stack([inverses[i] for i in indices]), A_chunk, penalty)


def float_layers(chunk: MergedChunk, *, alpha: np.ndarray, initial_error: np.ndarray,
                 coordinate_bound: np.ndarray, matrix_bound: np.ndarray) -> Iterator[FloatLayer]:
    """Yield layers 0, 1, ... of the float dynamics of a merged chunk (the caller stops).

    ``alpha``, ``initial_error`` (e_0), ``coordinate_bound`` (R) and ``matrix_bound`` (a) are (b,) arrays.
    """
    Z = chunk.positions.copy()
    b, m, d = Z.shape
    rows = np.arange(b)[:, None]
    e = initial_error.astype(float).copy()
    R = coordinate_bound
    score_rounding = 2.0 * (UNIT_ROUNDOFF + _gamma(2 * d) * (1 + UNIT_ROUNDOFF))
    step_rounding = 2.0 * (alpha * _gamma(2) + _gamma(3) * (1 + alpha * (1 + _gamma(2)))) / (1 + alpha)
    a3 = alpha[:, None, None]
    k = 0
    while True:
        scores = _scores(Z, chunk.A_transposed, chunk.column_penalty)
        top = scores.max(axis=2, keepdims=True)
        E = d * d * matrix_bound * (2 * R * e + e * e + score_rounding * (R + e) ** 2)
        near_count = np.count_nonzero(scores >= top - 2.0 * E[:, None, None], axis=2)
        undecided = (near_count > 1) & chunk.valid
        argmax = scores.argmax(axis=2)
        means = Z[rows, argmax]
        tie_rows = np.zeros_like(undecided)
        if undecided.any():
            # Only rows already flagged can hold a float-equality tie (a tie is within any tolerance).
            cb, cu = np.nonzero(undecided)
            equal = scores[cb, cu] == top[cb, cu]
            tie_rows[cb, cu] = equal.sum(axis=1) > 1
            weights = equal * chunk.weights[cb]
            means[cb, cu] = np.einsum("rv,rvc->rc", weights, Z[cb]) / weights.sum(axis=1, keepdims=True)
        yield FloatLayer(k, Z, argmax, tie_rows, undecided, e.copy(), E)
        Z = (Z + a3 * means) / (1 + a3)
        e = e + (R + e) * step_rounding
        k += 1


def _as_batch(tokens: np.ndarray) -> np.ndarray:
    array = np.asarray(tokens, dtype=np.float64)
    if array.ndim != 3:
        raise ValueError(f"tokens: expected an array of shape (B, n, d), got shape {array.shape}")
    if array.shape[1] == 0 or array.shape[2] == 0:
        raise ValueError(f"tokens: expected n >= 1 tokens of dimension d >= 1, got shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError("tokens: expected finite numbers, found NaN or infinity")
    return array


def simulate_batch(tokens: np.ndarray, *, alpha: float | np.ndarray, A: np.ndarray | None = None,
                   layers: int, chunk_size: int = 256, initial_error: np.ndarray | float = 0.0,
                   progress=None) -> BatchResult:
    """Run the float dynamics on a batch of configurations.

    Parameters
    ----------
    tokens
        (B, n, d) array. The exact configuration is taken to be the rationals these floats
        store, unless ``initial_error`` says how far they may be from the intended one.
    alpha
        Scalar or (B,) array, alpha > 0.
    A
        None (identity), (d, d) or (B, d, d).
    layers
        Number of layers to run.
    chunk_size
        Configurations processed together (memory is about chunk_size * n^2 * 24 bytes).
    initial_error
        Bound on |float token - exact token| per coordinate (0 for float inputs).
    progress
        Optional callable receiving the number of configurations finished so far.
    """
    Z0 = _as_batch(tokens)
    B, n, d = Z0.shape
    alphas = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (B,)).copy()
    if not (np.isfinite(alphas).all() and (alphas > 0).all()):
        raise ValueError("alpha: expected alpha > 0 and finite")
    if layers < 0:
        raise ValueError(f"layers: expected a non-negative integer, got {layers}")
    A_transposed = None
    matrix_bound = np.ones(B)
    if A is not None:
        A_array = np.asarray(A, dtype=np.float64)
        if A_array.shape not in ((d, d), (B, d, d)):
            raise ValueError(f"A: expected shape ({d}, {d}) or ({B}, {d}, {d}), got {A_array.shape}")
        if not np.isfinite(A_array).all():
            raise ValueError("A: expected finite numbers")
        A_transposed = np.swapaxes(A_array, -1, -2).copy()
        matrix_bound = np.broadcast_to(np.abs(A_array).max(axis=(-1, -2)), (B,)).astype(float)
        matrix_bound = np.maximum(matrix_bound, np.finfo(float).tiny)
    errors0 = np.broadcast_to(np.asarray(initial_error, dtype=np.float64), (B,))

    points, counts, inverses = _merge(Z0)
    sizes = np.array([len(p) for p in points])
    # Chunks of similar distinct-point counts waste little on padding.
    order = np.argsort(sizes, kind="stable")

    final = np.empty_like(Z0)
    undecided = np.zeros(B, dtype=bool)
    first_undecided = np.full(B, -1)
    leaders = np.zeros((B, n), dtype=bool)
    leader_layer = np.full((B, n), -1)
    position_error = np.zeros(B)
    score_error = np.zeros(B)
    done = 0
    for start in range(0, B, chunk_size):
        indices = order[start:start + chunk_size]
        chunk = _pad_chunk(indices, points, counts, inverses, A_transposed, d)
        # Exact positions stay in the initial hull (D1): R bounds every coordinate at every layer.
        R = np.abs(Z0[indices]).max(axis=(1, 2)) + errors0[indices]
        b, m = chunk.weights.shape
        point_leader_layer = np.full((b, m), -1)
        chunk_first_undecided = np.full(b, -1)
        for layer in float_layers(chunk, alpha=alphas[indices], initial_error=errors0[indices],
                                  coordinate_bound=R, matrix_bound=matrix_bound[indices]):
            row_undecided = layer.undecided_rows.any(axis=1)
            newly = row_undecided & (chunk_first_undecided < 0)
            chunk_first_undecided[newly] = layer.index
            leads = (layer.argmax == np.arange(m)) & ~layer.undecided_rows & (chunk.weights == 1)
            point_leader_layer[leads & (point_leader_layer < 0)] = layer.index
            if layer.index == layers:
                final_points = layer.positions
                position_error[indices] = layer.position_error
                score_error[indices] = layer.score_error
                break
        gather = np.take_along_axis(final_points, chunk.inverse[:, :, None], axis=1)
        final[indices] = gather
        token_leader_layer = np.take_along_axis(point_leader_layer, chunk.inverse, axis=1)
        leader_layer[indices] = token_leader_layer
        leaders[indices] = token_leader_layer >= 0
        first_undecided[indices] = chunk_first_undecided
        undecided[indices] = chunk_first_undecided >= 0
        done += len(indices)
        if progress is not None:
            progress(done)
    return BatchResult(final, undecided, first_undecided, leaders, leader_layer,
                       position_error, score_error, sizes)
