"""The hardmax dynamics of THEORY.md §1 in float64, vectorised over batches, with a proven error bound.

This is the one float implementation of the update rule. It works on a batch of B
configurations of n tokens in R^d at once (no Python loop over tokens) and never pretends
to have decided what rounding could have changed.

Rounding-error bound (why a float attention set can be trusted)
---------------------------------------------------------------
Write u = 2^-53 and gamma_k = k u / (1 - k u) (Higham, *Accuracy and Stability of Numerical
Algorithms*, Lemma 3.1). Every point carries its own bound: at layer k, e_u bounds the
absolute error of every coordinate of the float point z_u, *provided every attention set of
the layers before k was decided*, and rho_u = max_r |z_u,r| is the float point's own size.
Per point, not one bound per configuration, because real configurations mix scales: a
trained embedding with weight decay has rows of size 1e-38 beside rows of size 3, and a
bound scaled by the largest coordinate would leave every small token's row undecided.

* the float score s_uv = <A z_u, z_v> is within
  E_uv = d^2 a [e_u rho_v + rho_u e_v + e_u e_v + (u + gamma_{2d} (1+u)) (rho_u + e_u)(rho_v + e_v)]
  of the exact score, where a = max |A_rs| (1 for A = I): the first three terms are the
  propagated position errors, the last the rounding of A and of the two dot products of length d;
* if t is the float argmax of row u and every other v has s_ut - s_uv > E_ut + E_uv, the
  exact attention set is the singleton {t}, the same as the float one. Otherwise the row is
  **undecided** (this includes every float tie between distinct points: a float tie can never
  be certified);
* with decided singleton sets the update (z_u + fl(alpha) z_t) / fl(1 + fl(alpha)) gives
  e_u' = (e_u + alpha e_t) / (1 + alpha)
         + (max(rho_u, rho_t) + max(e_u, e_t)) (alpha gamma_2 + gamma_3 (1 + alpha (1 + gamma_2))) / (1 + alpha)
  (the convex combination does not amplify the errors).
The bound's own evaluation in float is made safe by doubling the rounding terms, by a factor
(1 + 16u) on each comparison's tolerance (the bound is a sum of non-negative terms, each off
by at most ~10 roundings), and by an absolute 2^-1000 per term for underflow, which a
relative bound does not cover. The configuration's position bound reported at layer k is
max_u e_u.

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
           "UNDERFLOW_SLACK", "UNIT_ROUNDOFF"]

UNIT_ROUNDOFF = 2.0 ** -53
# Absolute slack for underflow: a float64 product or quotient may lose up to 2^-1075 absolutely
# when its result is subnormal, which no relative bound covers. 2^-1000 per term (normal, so
# computing with it is itself exact) covers the few such roundings of one score or update.
UNDERFLOW_SLACK = 2.0 ** -1000


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
    token_error_bound : (B, n) float, the same bound for each token separately (a small token's
        is small).
    score_error_bound : (B,) float, a bound on every pair's score bound E_uv at the last layer.
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
    token_error_bound: np.ndarray


@dataclass
class FloatLayer:
    """Layer k of a float run on a merged, padded batch (see :func:`float_layers`)."""

    index: int
    positions: np.ndarray        # (b, m, d); rows past a configuration's point count are meaningless
    argmax: np.ndarray           # (b, m) first maximiser of each row
    tie_rows: np.ndarray         # (b, m) bool: float-equality tie (|C| > 1) in that row
    undecided_rows: np.ndarray   # (b, m) bool: set not decided by the proven bound
    position_error: np.ndarray   # (b,) max over the configuration's points of their bound e_u
    point_error: np.ndarray      # (b, m) each point's own bound e_u
    score_error: np.ndarray      # (b,) a bound on every pair's E_uv at this layer
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


@numba.njit(inline="always", cache=True)
def _pair_score_bound(eu, ru, ev, rv, pair_scale, score_rounding):  # pragma: no cover - compiled
    """E_uv of the module docstring, from both points' errors e and sizes rho, plus underflow slack."""
    return pair_scale * (eu * rv + ru * ev + eu * ev + score_rounding * (ru + eu) * (rv + ev)
                         + UNDERFLOW_SLACK * (1.0 + ru + rv))


@numba.njit(parallel=True, cache=True)
def _layer_kernel(Z, W, counts, At, alpha, error, matrix_bound, score_rounding, step_rounding, record,
                  new_Z, new_error, argmax, undecided, tie, attention, score_error):  # pragma: no cover - compiled
    """One layer for every configuration: scores, attention set, undecided flag, update, error bounds.

    Row u of configuration b: s_v = <A z_u, z_v> for the b's points v. With t the float argmax,
    the set is decided when every other v has fl(s_t - s_v) > E_ut + E_uv, E_uv being the
    per-pair score bound of the module docstring (from the points' own magnitudes and errors).
    The update is (z + alpha m) / (1 + alpha) with m the maximiser (decided rows) or, for
    undecided rows, the multiplicity-weighted mean of the float-equality maximisers.
    ``new_error`` receives each point's position bound for the next layer and ``score_error``
    a bound on every pair's E_uv in the configuration.
    """
    B, m, d = Z.shape
    for b in numba.prange(B):
        count = counts[b]
        a = alpha[b]
        pair_scale = d * d * matrix_bound[b]
        scores = np.empty(count)
        magnitude = np.empty(count)
        direction = np.empty(d)
        largest_error = 0.0
        largest_magnitude = 0.0
        for v in range(count):
            top_coordinate = 0.0
            for r in range(d):
                top_coordinate = max(top_coordinate, abs(Z[b, v, r]))
            magnitude[v] = top_coordinate
            largest_error = max(largest_error, error[b, v])
            largest_magnitude = max(largest_magnitude, top_coordinate)
        worst_pair = 0.0
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
            eu = error[b, u]
            ru = magnitude[u]
            et = error[b, best]
            rt = magnitude[best]
            bound_top = _pair_score_bound(eu, ru, et, rt, pair_scale, score_rounding)
            # E_uv is increasing in rho_v and e_v: with the configuration's largest ones it bounds
            # every pair of the row, so most v are settled by one comparison, as fast as a single
            # tolerance per configuration; only the v within it get their own E_uv.
            bound_any = _pair_score_bound(eu, ru, largest_error, largest_magnitude, pair_scale, score_rounding)
            worst_pair = max(worst_pair, bound_any)
            # (1 + 16u): the ~10 roundings of the bound's own evaluation (all terms >= 0).
            quick = (bound_top + bound_any) * (1.0 + 16.0 * UNIT_ROUNDOFF)
            near = False
            equal = 0
            for v in range(count):
                if v != best and top - scores[v] <= quick:
                    bound_v = _pair_score_bound(eu, ru, error[b, v], magnitude[v], pair_scale, score_rounding)
                    if top - scores[v] <= (bound_top + bound_v) * (1.0 + 16.0 * UNIT_ROUNDOFF):
                        near = True
                if scores[v] == top:
                    equal += 1
                    if record:
                        attention[b, u, v] = True
            argmax[b, u] = best
            undecided[b, u] = near
            tie[b, u] = equal > 1
            if equal == 1:
                for r in range(d):
                    new_Z[b, u, r] = (Z[b, u, r] + a * Z[b, best, r]) / (1.0 + a)
                new_error[b, u] = ((eu + a * et) / (1.0 + a) + (max(ru, rt) + max(eu, et)) * step_rounding[b]
                                   + UNDERFLOW_SLACK) * (1.0 + 4.0 * UNIT_ROUNDOFF)
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
                # Only reached on an undecided row, after which no bound of this configuration is
                # claimed; keep a finite, configuration-wide value.
                new_error[b, u] = largest_error + (largest_magnitude + largest_error) * step_rounding[b]
        score_error[b] = worst_pair


def float_layers(batch: MergedBatch, *, alpha: np.ndarray, initial_error: np.ndarray,
                 matrix_bound: np.ndarray, record: bool = False) -> Iterator[FloatLayer]:
    """Yield layers 0, 1, ... of the float dynamics of a merged batch (the caller stops).

    ``alpha`` and ``matrix_bound`` (a) are (b,) arrays; ``initial_error`` (e_0) is (b,), the same
    for every point, or (b, m), one per point. With ``record`` each layer carries the full
    float-equality attention masks.
    """
    Z = batch.positions.copy()
    b, m, d = Z.shape
    error = np.asarray(initial_error, dtype=np.float64)
    error = np.ascontiguousarray(np.broadcast_to(error[:, None] if error.ndim == 1 else error, (b, m)))
    score_rounding = 2.0 * (UNIT_ROUNDOFF + _gamma(2 * d) * (1 + UNIT_ROUNDOFF))
    step_rounding = 2.0 * (alpha * _gamma(2) + _gamma(3) * (1 + alpha * (1 + _gamma(2)))) / (1 + alpha)
    alpha = np.ascontiguousarray(alpha, dtype=np.float64)
    step_rounding = np.ascontiguousarray(step_rounding, dtype=np.float64)
    matrix_bound = np.ascontiguousarray(matrix_bound, dtype=np.float64)
    At = np.ascontiguousarray(batch.A_transposed)
    k = 0
    while True:
        new_Z = np.zeros_like(Z)
        new_error = np.zeros_like(error)
        argmax = np.zeros((b, m), dtype=np.int64)
        undecided = np.zeros((b, m), dtype=np.bool_)
        tie = np.zeros((b, m), dtype=np.bool_)
        score_error = np.zeros(b)
        attention = np.zeros((b, m, m) if record else (1, 1, 1), dtype=np.bool_)
        _layer_kernel(Z, batch.weights, batch.counts, At, alpha, error, matrix_bound, score_rounding, step_rounding,
                      record, new_Z, new_error, argmax, undecided, tie, attention, score_error)
        live = np.arange(m)[None, :] < batch.counts[:, None]
        position_error = np.where(live, error, 0.0).max(axis=1)
        yield FloatLayer(k, Z, argmax, tie, undecided, position_error, error, score_error,
                         attention if record else None)
        Z, error = new_Z, new_error
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

    if A_transposed is None:  # A is None
        A_transposed = np.broadcast_to(np.eye(d), (B, d, d))
    batch = merge_identical_tokens(Z0, np.broadcast_to(A_transposed, (B, d, d)))
    m = batch.positions.shape[1]
    point_leader_layer = np.full((B, m), -1)
    first_undecided = np.full(B, -1)
    for layer in float_layers(batch, alpha=alphas, initial_error=errors0.copy(),
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
    token_error = np.take_along_axis(layer.point_error, batch.inverse, axis=1)
    return BatchResult(final, first_undecided >= 0, first_undecided, leader_layer >= 0, leader_layer,
                       layer.position_error, layer.score_error, batch.counts, token_error)
