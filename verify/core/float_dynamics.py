"""The hardmax dynamics of docs/theory.md §1 in float64, vectorised over batches, with a proven error bound.

This is the one float implementation of the update rule. It works on a batch of B
configurations of n tokens in R^d at once (no Python loop over tokens) and never pretends
to have decided what rounding could have changed.

Rounding-error bound (why a float attention set can be trusted)
---------------------------------------------------------------
Write u = 2^-53, eta = 2^-1075 (half the smallest subnormal) and gamma_k = k u / (1 - k u)
(Higham, *Accuracy and Stability of Numerical Algorithms*, Lemma 3.1). The model of float64
arithmetic used throughout: for floats x, y and an operation op in {+, -, *, /} whose exact
result r is at most the largest float in magnitude (no overflow), the computed result is
fl(r) = r (1 + delta) + tau with |delta| <= u, |tau| <= eta and delta tau = 0; tau = 0 for + and -
(a sum that lands in the subnormal range is exact). Nothing is claimed about a computation in
which any value overflowed: the kernel treats every non-finite score, bound, difference or
position as **undecided** (every test is written "decided only if gap > bound", which is False
for NaN), so overflow can only make rows undecided, never decided.

Every point carries its own bound: at layer k, e_u bounds the absolute error of every
coordinate of the float point z_u, *provided every attention set of the layers before k was
decided*, and rho_u = max_r |z_u,r| is the float point's own size. Per point, not one bound per
configuration, because real configurations mix scales: a trained embedding with weight decay
has rows of size 1e-38 beside rows of size 3, and a bound scaled by the largest coordinate
would leave every small token's row undecided. With a = max |A_rs| (an upper bound on it; 1
for A = I) and A_hat the float matrix used (A_hat = A for float input; for a rational A,
|A_hat_rs - A_rs| <= 2 u a, since a >= 2^-1022 is required there and then eta <= u a):

* **score.** The kernel computes s_uv = sum_r (sum_c A_hat_rc z_u,c) z_v,r, two loops of d
  products and additions starting from 0 (each sum taken in the order of its index, whatever
  order the kernel visits the pairs (u, v) in), so each of the d^2 terms A_hat_rc z_u,c z_v,r carries
  at most 2d roundings (relative error gamma_2d), and each product may add tau: at most d^2
  of them, carried by a factor |z_v,r| <= rho_v, and d more, in all at most
  2 eta d (d rho_v + 1). With x the exact points (|x_u,c - z_u,c| <= e_u), the exact score
  S_uv = <A x_u, x_v> differs from <A z_u, z_v> by at most d^2 a (e_u rho_v + rho_u e_v + e_u e_v),
  from <A_hat z_u, z_v> by 2 u d^2 a rho_u rho_v more, and the computed score from the latter by
  gamma_2d d^2 a (1 + 2u) rho_u rho_v plus the underflow part. Hence |s_uv - S_uv| <= E_uv with

      E_uv = d^2 a [e_u rho_v + rho_u e_v + e_u e_v + c_s (rho_u + e_u)(rho_v + e_v)]
             + c_eta d (1 + d (rho_u + rho_v)),
      c_s = 2 (u + gamma_2d (1 + u)) >= 2u + gamma_2d (1 + 2u),     c_eta = 2^-1000.

  The underflow term is absolute: it does not shrink with a, rho or d^2 a (a tiny A makes
  subnormal scores as surely as tiny tokens do), and c_eta = 2^-1000 exceeds 2^74 eta.
* **decision.** With t the float argmax of row u, the row is decided when every score and
  the top score are finite and every other v has fl(s_ut - s_uv) > (E_ut + E_uv) S, S = 1 + 2^-40,
  all evaluated in float64. Then s_ut - s_uv >= fl(s_ut - s_uv) / (1 + u) exceeds E_ut + E_uv
  (next point), so S_ut - S_uv > 0 and the exact attention set is the singleton {t}, the same
  as the float one. Otherwise the row is **undecided**; this includes every float tie between
  distinct points (a float tie can never be certified) and every row touched by overflow.
* **the bound's own evaluation.** Every bound above and below is a sum of products of
  non-negative floats and constants evaluated with at most 20 roundings, so its computed value
  is at least (1 - u)^20 times the exact value, less at most 20 eta lost to underflow. Each bound
  contains an absolute term of at least 2^-1000 (c_eta above, 2^-1000 in e_u' below), so
  those losses are below 2^-1050 of it, and S = 1 + 2^-40 > (1 + u)^22 + 2^-60 covers the rest:
  a computed bound times S is at least the exact one, even after the (1 + u) of the final
  subtraction. Rounding is monotone, so the bound computed with the configuration's largest
  e_v and rho_v is at least every E_uv of the row: most v are settled by that one comparison.
* **update.** With decided singleton sets the update z_u' = fl(fl(z_u + fl(alpha_hat z_t)) /
  fl(1 + alpha_hat)) (alpha_hat = fl(alpha), relative error u when alpha is rational and
  alpha_hat >= 2^-1022; alpha_hat = alpha for float input) is within
      e_u' = [ (e_u + alpha e_t) / (1 + alpha)
               + (max(rho_u, rho_t) + max(e_u, e_t)) c_a + 2^-1000 ] S,
      c_a = 2 (alpha gamma_2 + gamma_3 (1 + alpha (1 + gamma_2))) / (1 + alpha),
  of the exact x_u' = (x_u + alpha x_t) / (1 + alpha): the first term is the convex combination of
  the errors; fl(z_u + alpha_hat z_t) / fl(1 + alpha_hat) differs from (z_u + alpha_hat z_t) /
  (1 + alpha_hat), which has size at most max(rho_u, rho_t), by a relative gamma_3 plus
  u alpha_hat rho_t (1 + gamma_3) / (1 + alpha_hat) from rounding alpha_hat z_t; replacing alpha_hat
  by alpha moves the convex weight alpha / (1 + alpha) by at most u alpha (1 + 2u) / (1 + alpha)^2
  times |z_t - z_u| <= 2 max(rho_u, rho_t). Together at most (3u + 6.1 u alpha) / (1 + alpha) times
  max(rho_u, rho_t), below c_a max(rho_u, rho_t); the two underflow losses tau are below 2^-1000.
  The kernel evaluates the first term with alpha_hat, which moves it by at most
  u max(e_u, e_t), well inside c_a max(e_u, e_t). If a new position or its bound is not
  finite, the row is marked undecided.

The configuration's position bound reported at layer k is max_u e_u.

* **margin.** For a decided row u with float argmax t and second largest float score s_2, every
  other point v has exact gap S_ut - S_uv >= fl(s_ut - s_2) / (1 + u) - (E_ut + E_uv), and the
  bound evaluated with the configuration's largest e_v and rho_v is at least every E_uv. The kernel
  evaluates fl(s_ut - s_2) (1 - 2^-50) - (E_ut + E_max) S (1 + 2^-50) and multiplies the
  difference by 1 - 2^-50: each factor 1 -+ 2^-50 outweighs the 2^-53 of the rounding it follows,
  so the result is a lower bound of the exact margin of the row (values below 2^-900 are
  reported as 0). :func:`simulate_batch` returns its minimum over the points of each layer
  (``score_margin``): the margins delta_k of the softmax certificate (docs/theory.md §6).

Where decisions are possible: every score, difference and bound must be finite, so
|coordinates| up to about sqrt(1.8e308 / (d^2 a)) (1e154 for d = 1, A = I); tokens of 1e200
make their rows undecided from layer 0. A score gap must exceed E_ut + E_uv, at least about
2^-1000 d (1 + d (rho_u + rho_v)) absolutely (about 1e-301) and about 4 d^3 u a rho_u rho_v
relatively; configurations whose scores all lie below that (tokens of 2^-500 with A = I, or
A = 2^-200 I with tokens of 2^-430) run, but every near row is undecided. Outside this range
nothing is decided wrongly: it is undecided, and :class:`BatchResult` and the trajectories
present nothing after the first undecided layer as decided.

Identical tokens tie exactly and stay identical (docs/theory.md D5); each configuration's
identical rows are merged into one point with a multiplicity before the dynamics, which is
both faster and the only way a float tie between copies can be called decided.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from .float_rounding import BOUND_SAFETY, SMALLEST_NORMAL, UNDERFLOW_SLACK, UNIT_ROUNDOFF, rounding_gamma

__all__ = ["BatchResult", "FloatLayer", "MergedBatch", "merge_identical_tokens", "simulate_batch", "float_layers",
           "compile_ahead", "UNDERFLOW_SLACK", "UNIT_ROUNDOFF", "BOUND_SAFETY", "SMALLEST_NORMAL", "rounding_gamma"]



@dataclass
class BatchResult:
    """Outcome of :func:`simulate_batch` for B configurations of n tokens.

    Attributes
    ----------
    final : (B, n, d) float64 positions after ``layers`` layers.
    undecided : (B,) bool, True when some attention set could not be decided by the proven bound
        (the float result may then differ from exact arithmetic).
    first_undecided_layer : (B,) int, the first such layer, -1 when all were decided. Nothing
        after it is claimed: the rows decided at that layer are exact, later layers are not.
    leaders : (B, n) bool, tokens with C_i = {i} (decided) at some layer <= ``layers``, counted
        only up to the first undecided layer (a later "leader" is not trusted, so not listed).
    leader_layer : (B, n) int, the first layer at which each leader led, -1 otherwise.
    position_error_bound : (B,) float, proven bound on |float - exact| per coordinate of ``final``;
        infinity where ``undecided`` is True (no bound is proven there).
    token_error_bound : (B, n) float, the same bound for each token separately (a small token's
        is small); infinity where ``undecided`` is True.
    score_margin : (B, layers) float, a proven lower bound of each layer's smallest gap between a
        point's top score and another point's (docs/theory.md §6), +inf when a configuration has
        one point; meaningless where ``undecided`` is True.
    score_error_bound : (B,) float, a bound on every pair's score bound E_uv at the last layer
        (infinity where ``undecided`` is True).
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
    score_margin: np.ndarray | None = None


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
    margin: np.ndarray | None = None  # (b, m) lower bound of each decided row's score margin


@dataclass
class MergedBatch:
    """Configurations with identical rows merged into distinct points with multiplicities."""

    positions: np.ndarray       # (b, m, d), zero-padded
    weights: np.ndarray         # (b, m) multiplicities, 0 on padding
    counts: np.ndarray          # (b,) number of distinct points per configuration
    inverse: np.ndarray         # (b, n) original token -> distinct point
    A_transposed: np.ndarray    # (b, d, d) A^T per configuration (identity when A is None)


def merge_identical_tokens(tokens: np.ndarray, A_transposed: np.ndarray) -> MergedBatch:
    """Merge identical rows of each configuration (docs/theory.md D5), vectorised over the batch.

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


def float_layers(batch: MergedBatch, *, alpha: np.ndarray, initial_error: np.ndarray,
                 matrix_bound: np.ndarray, record: bool = False) -> Iterator[FloatLayer]:
    """Yield layers 0, 1, ... of the float dynamics of a merged batch (the caller stops).

    ``alpha`` and ``matrix_bound`` (a) are (b,) arrays; ``initial_error`` (e_0) is (b,), the same
    for every point, or (b, m), one per point. With ``record`` each layer carries the full
    float-equality attention masks.
    """
    # numba (about a second to import) only once a float layer runs: `simulate` in exact
    # arithmetic, `check` and the tests that never run a float layer start without it.
    from .float_kernel import layer_kernel, threads_for

    Z = batch.positions.copy()
    b, m, d = Z.shape
    error = np.asarray(initial_error, dtype=np.float64)
    # Fresh writable C arrays on every call: numba compiles (and caches) one kernel per argument
    # layout and read-only flag, so one layout means one compilation, done ahead by set-up.
    error = np.array(np.broadcast_to(error[:, None] if error.ndim == 1 else error, (b, m)), order="C")
    score_rounding = 2.0 * (UNIT_ROUNDOFF + rounding_gamma(2 * d) * (1 + UNIT_ROUNDOFF))
    step_rounding = 2.0 * (alpha * rounding_gamma(2) + rounding_gamma(3) * (1 + alpha * (1 + rounding_gamma(2)))) / (1 + alpha)
    alpha = np.array(alpha, dtype=np.float64, order="C")
    step_rounding = np.array(step_rounding, dtype=np.float64, order="C")
    matrix_bound = np.array(matrix_bound, dtype=np.float64, order="C")
    At = np.array(batch.A_transposed, dtype=np.float64, order="C")
    weights = np.array(batch.weights, dtype=np.float64, order="C")
    counts = np.array(batch.counts, dtype=np.int64, order="C")
    threads = threads_for(counts, d)
    k = 0
    while True:
        new_Z = np.zeros_like(Z)
        new_error = np.zeros_like(error)
        argmax = np.zeros((b, m), dtype=np.int64)
        undecided = np.zeros((b, m), dtype=np.bool_)
        tie = np.zeros((b, m), dtype=np.bool_)
        score_error = np.zeros(b)
        attention = np.zeros((b, m, m) if record else (1, 1, 1), dtype=np.bool_)
        margin = np.empty((b, m))
        with threads:
            layer_kernel(Z, weights, counts, At, alpha, error, matrix_bound, score_rounding, step_rounding,
                         record, new_Z, new_error, argmax, undecided, tie, attention, score_error, margin)
        live = np.arange(m)[None, :] < batch.counts[:, None]
        position_error = np.where(live, error, 0.0).max(axis=1)
        yield FloatLayer(k, Z, argmax, tie, undecided, position_error, error, score_error,
                         attention if record else None, np.where(live, margin, np.inf))
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
    if not (errors0 >= 0).all():  # also refuses NaN
        raise ValueError("initial_error: expected a non-negative bound")

    if A_transposed is None:  # A is None
        A_transposed = np.broadcast_to(np.eye(d), (B, d, d))
    batch = merge_identical_tokens(Z0, np.broadcast_to(A_transposed, (B, d, d)))
    m = batch.positions.shape[1]
    point_leader_layer = np.full((B, m), -1)
    first_undecided = np.full(B, -1)
    score_margin = np.full((B, layers), np.inf)
    for layer in float_layers(batch, alpha=alphas, initial_error=errors0.copy(),
                              matrix_bound=matrix_bound):
        if layer.index < layers and layer.margin is not None:
            score_margin[:, layer.index] = layer.margin.min(axis=1)
        # Rows decided at the first undecided layer are still covered by the bound (every layer
        # before it was decided); nothing after that layer is.
        trusted = (first_undecided < 0)[:, None]
        leads = (layer.argmax == np.arange(m)) & ~layer.undecided_rows & (batch.weights == 1) & trusted
        point_leader_layer[leads & (point_leader_layer < 0)] = layer.index
        row_undecided = layer.undecided_rows.any(axis=1)
        first_undecided[row_undecided & (first_undecided < 0)] = layer.index
        if progress is not None:
            progress(layer.index)
        if layer.index == layers:
            break
    final = np.take_along_axis(layer.positions, batch.inverse[:, :, None], axis=1)
    leader_layer = np.take_along_axis(point_leader_layer, batch.inverse, axis=1)
    token_error = np.take_along_axis(layer.point_error, batch.inverse, axis=1)
    undecided = first_undecided >= 0
    # An undecided configuration has no proven bound: say so with infinity rather than a number.
    position_error = np.where(undecided, np.inf, layer.position_error)
    token_error = np.where(undecided[:, None], np.inf, token_error)
    score_error = np.where(undecided, np.inf, layer.score_error)
    return BatchResult(final, undecided, first_undecided, leader_layer >= 0, leader_layer,
                       position_error, score_error, batch.counts, token_error, score_margin)


def compile_ahead() -> None:
    """Compile the float kernel into numba's on-disk cache now (set-up calls this), so that the first
    float layer of a report or a test does not pay the compilation (about 20 CPU-s).

    Runs the float engine itself on a tiny batch, so the cached signature is the one it uses."""
    simulate_batch(np.array([[[1.0, 0.0], [0.0, 1.0]]]), alpha=1.0, layers=1)
