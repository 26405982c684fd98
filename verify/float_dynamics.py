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

import numba
import numpy as np

__all__ = ["BatchResult", "FloatLayer", "MergedBatch", "merge_identical_tokens", "simulate_batch", "float_layers",
           "UNIT_ROUNDOFF"]

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
    """Layer k of a float run on a merged, padded batch (see :func:`float_layers`)."""

    index: int
    positions: np.ndarray        # (b, m, d); rows past a configuration's point count are meaningless
    argmax: np.ndarray           # (b, m) first maximiser of each row
    tie_rows: np.ndarray         # (b, m) bool: float-equality tie (|C| > 1) in that row
    undecided_rows: np.ndarray   # (b, m) bool: set not decided by the proven bound
    position_error: np.ndarray   # (b,) bound e_k
    score_error: np.ndarray      # (b,) bound E_k
    attention: np.ndarray | None  # (b, m, m) bool C_u by float equality, only when recording


@dataclass
class MergedBatch:
    """Configurations with identical rows merged into distinct points with multiplicities."""

    positions: np.ndarray       # (b, m, d), zero-padded
    weights: np.ndarray         # (b, m) multiplicities, 0 on padding
    counts: np.ndarray          # (b,) number of distinct points per configuration
    inverse: np.ndarray         # (b, n) original token -> distinct point
    A_transposed: np.ndarray    # (b, d, d) A^T per configuration (identity when A is None)


def merge_identical_tokens(tokens: np.ndarray, A_transposed: np.ndarray) -> MergedBatch:
    """Merge identical rows of each configuration (THEORY.md D5), vectorised over the batch.

    One lexicographic sort of all B*n rows (keyed by configuration, then coordinates) puts
    copies next to each other; a row that differs from its predecessor starts a new point.
    """
    B, n, d = tokens.shape
    flat = tokens.reshape(B * n, d)
    config_of = np.repeat(np.arange(B), n)
    order = np.lexsort(tuple(flat[:, c] for c in reversed(range(d))) + (config_of,))
    sorted_rows = flat[order]
    sorted_config = config_of[order]
    new_point = np.ones(B * n, dtype=bool)
    new_point[1:] = (sorted_config[1:] != sorted_config[:-1]) | (sorted_rows[1:] != sorted_rows[:-1]).any(axis=1)
    point_number = np.cumsum(new_point) - 1                     # global distinct-point number
    first_point = np.zeros(B, dtype=np.int64)
    starts = np.nonzero(new_point)[0]
    first_point_of_config = np.searchsorted(sorted_config[starts], np.arange(B))
    first_point[:] = first_point_of_config
    local = point_number - first_point[sorted_config]          # point index within its configuration
    counts = np.bincount(sorted_config[starts], minlength=B)
    m = int(counts.max())
    positions = np.zeros((B, m, d))
    weights = np.zeros((B, m))
    positions[sorted_config, local] = sorted_rows
    np.add.at(weights, (sorted_config, local), 1.0)
    inverse = np.empty(B * n, dtype=np.int64)
    inverse[order] = local
    return MergedBatch(positions, weights, counts, inverse.reshape(B, n), A_transposed)


@numba.njit(parallel=True, cache=True)
def _layer_kernel(Z, W, counts, At, alpha, tolerance, record, new_Z, argmax, undecided, tie, attention):  # pragma: no cover - compiled
    """One layer for every configuration: scores, attention set, undecided flag, update.

    Row u of configuration b: s_v = <A z_u, z_v> for the b's points v; the set is decided when
    exactly one score is within ``tolerance[b]`` (= 2 E_k) of the top. The update is
    (z + alpha m) / (1 + alpha) with m the maximiser (decided rows) or, for undecided rows, the
    multiplicity-weighted mean of the float-equality maximisers.
    """
    B, m, d = Z.shape
    for b in numba.prange(B):
        count = counts[b]
        a = alpha[b]
        scores = np.empty(count)
        direction = np.empty(d)
        for u in range(count):
            for r in range(d):
                acc = 0.0
                for c in range(d):
                    acc += Z[b, u, c] * At[b, c, r]
                direction[r] = acc
            top = -np.inf
            best = 0
            for v in range(count):
                acc = 0.0
                for r in range(d):
                    acc += direction[r] * Z[b, v, r]
                scores[v] = acc
                if acc > top:
                    top = acc
                    best = v
            near = 0
            equal = 0
            threshold = top - tolerance[b]
            for v in range(count):
                if scores[v] >= threshold:
                    near += 1
                if scores[v] == top:
                    equal += 1
                    if record:
                        attention[b, u, v] = True
            argmax[b, u] = best
            undecided[b, u] = near > 1
            tie[b, u] = equal > 1
            if equal == 1:
                for r in range(d):
                    new_Z[b, u, r] = (Z[b, u, r] + a * Z[b, best, r]) / (1.0 + a)
            else:
                total = 0.0
                for v in range(count):
                    if scores[v] == top:
                        total += W[b, v]
                for r in range(d):
                    acc = 0.0
                    for v in range(count):
                        if scores[v] == top:
                            acc += W[b, v] * Z[b, v, r]
                    new_Z[b, u, r] = (Z[b, u, r] + a * (acc / total)) / (1.0 + a)


def float_layers(batch: MergedBatch, *, alpha: np.ndarray, initial_error: np.ndarray,
                 coordinate_bound: np.ndarray, matrix_bound: np.ndarray,
                 record: bool = False) -> Iterator[FloatLayer]:
    """Yield layers 0, 1, ... of the float dynamics of a merged batch (the caller stops).

    ``alpha``, ``initial_error`` (e_0), ``coordinate_bound`` (R) and ``matrix_bound`` (a) are
    (b,) arrays. With ``record`` each layer carries the full float-equality attention masks.
    """
    Z = batch.positions.copy()
    b, m, d = Z.shape
    e = initial_error.astype(float).copy()
    R = coordinate_bound
    score_rounding = 2.0 * (UNIT_ROUNDOFF + _gamma(2 * d) * (1 + UNIT_ROUNDOFF))
    step_rounding = 2.0 * (alpha * _gamma(2) + _gamma(3) * (1 + alpha * (1 + _gamma(2)))) / (1 + alpha)
    alpha = np.ascontiguousarray(alpha, dtype=np.float64)
    At = np.ascontiguousarray(batch.A_transposed)
    k = 0
    while True:
        E = d * d * matrix_bound * (2 * R * e + e * e + score_rounding * (R + e) ** 2)
        new_Z = np.zeros_like(Z)
        argmax = np.zeros((b, m), dtype=np.int64)
        undecided = np.zeros((b, m), dtype=np.bool_)
        tie = np.zeros((b, m), dtype=np.bool_)
        attention = np.zeros((b, m, m) if record else (1, 1, 1), dtype=np.bool_)
        _layer_kernel(Z, batch.weights, batch.counts, At, alpha, 2.0 * E, record, new_Z, argmax, undecided, tie, attention)
        yield FloatLayer(k, Z, argmax, tie, undecided, e.copy(), E, attention if record else None)
        Z = new_Z
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
                   layers: int, initial_error: np.ndarray | float = 0.0,
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
    initial_error
        Bound on |float token - exact token| per coordinate (0 for float inputs).
    progress
        Optional callable receiving the index of each layer as it completes.
    """
    Z0 = _as_batch(tokens)
    B, n, d = Z0.shape
    alphas = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (B,)).copy()
    if not (np.isfinite(alphas).all() and (alphas > 0).all()):
        raise ValueError("alpha: expected alpha > 0 and finite")
    if layers < 0:
        raise ValueError(f"layers: expected a non-negative integer, got {layers}")
    A_transposed: np.ndarray | None = None
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

    if A is None:
        A_transposed = np.broadcast_to(np.eye(d), (B, d, d))
    batch = merge_identical_tokens(Z0, np.broadcast_to(A_transposed, (B, d, d)))
    m = batch.positions.shape[1]
    # Exact positions stay in the initial hull (D1): R bounds every coordinate at every layer.
    R = np.abs(Z0).max(axis=(1, 2)) + errors0
    point_leader_layer = np.full((B, m), -1)
    first_undecided = np.full(B, -1)
    for layer in float_layers(batch, alpha=alphas, initial_error=errors0.copy(), coordinate_bound=R,
                              matrix_bound=matrix_bound):
        row_undecided = layer.undecided_rows.any(axis=1)
        first_undecided[row_undecided & (first_undecided < 0)] = layer.index
        leads = (layer.argmax == np.arange(m)) & ~layer.undecided_rows & (batch.weights == 1)
        point_leader_layer[leads & (point_leader_layer < 0)] = layer.index
        if progress is not None:
            progress(layer.index)
        if layer.index == layers:
            break
    final = np.take_along_axis(layer.positions, batch.inverse[:, :, None], axis=1)
    leader_layer = np.take_along_axis(point_leader_layer, batch.inverse, axis=1)
    return BatchResult(final, first_undecided >= 0, first_undecided, leader_layer >= 0, leader_layer,
                       layer.position_error, layer.score_error, batch.counts)
