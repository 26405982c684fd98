"""The compiled training step's attention: the K shared softmax layers of :mod:`verify.experiments.sentiment.model` in numba.

The function is the model's, unchanged (docs/theory.md §5): for each review b, K times,

    S = beta Z Z^T + log c (c_v the multiplicity of token v, 1 over all positions), P = softmax_rows(S),
    Y = P Z,   Z <- (Z + alpha Y) / (1 + alpha),

and its gradient, by the chain rule, for a layer with upstream gradient G = dL/dZ':

    dY = alpha G / (1 + alpha),   dZ = G / (1 + alpha) + P^T dY + beta (dS + dS^T) Z,
    dS = P o (dP - rowsum(P o dP)),  dP = dY Z^T,   dL/dalpha = sum G . (Y - Z) / (1 + alpha)^2.

Three things make it fast without changing what is computed:

* with beta = 1000 a row of P has a handful of entries that are not 0 in float32 (about 5 at
  d = 2, 1 at d = 16): the forward pass evaluates exp only where s_v - max_v s > ``EXP_FLOOR``
  (below it, P_uv < e^-104 < 2^-150 is 0 in float32), keeps those entries per row, and the
  backward pass visits only them. Every skipped term of dS, dP and P^T dY is a product with
  P_uv = 0, so skipping changes nothing but the order of rounding;
* each review is independent (attention never mixes reviews), so a review's K layers run in one
  compiled loop, without the (B, m, m) intermediates of the torch graph;
* a float32 pass over each row's scores finds the few candidates for those entries, with a
  proven bound on its error, before their float64 scores decide (:func:`_forward_kernel`).

One thread: the protocol trains on one, and a parallel numba region would share OpenMP with
torch (see :func:`verify.experiments.sentiment.model.train`).

Precision: the states Z between layers, the gradients handed back and forth with torch and
every stored input are float32, as in the reference step; inside a layer, scores, softmax,
Y, the update and the whole backward pass accumulate in float64 (products of float32 values
are exact in float64), so a layer rounds once where the reference rounds at every operation.
Its gradients are typically much closer to a float64 step's than the reference's are; with
beta = 1000, one unit of rounding in a state can still move a nearly tied row either way. The
tests check the loss and gradients against the reference step within a multiple of the
reference's own distance from a float64 step, at initial and at trained weights.

Rows of padding slots (count 0, log c = -inf) are computed like the others and receive no
weight from any row. A row whose largest score is not finite (overflow, or no used slot) gives
NaN, as torch's softmax does; a NaN score is skipped where torch's row would be NaN, but NaN
states make the loss NaN either way (their own row is NaN, and the mean over the slots takes it).

In a module of its own so that numba is imported only when the compiled step runs; torch is
imported inside the functions that need it. :func:`compile_ahead` fills numba's on-disk cache
(``scripts/setup.sh`` calls it).
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["EXP_FLOOR", "attention_forward", "attention_backward", "attention_stack", "compile_ahead"]

# exp(x) < 2^-150 (0 in float32, below half the smallest subnormal) for x < -103.98; a softmax
# entry is at most exp(s_v - max s), so entries below this floor are exactly 0 in float32.
EXP_FLOOR = -104.0


# float32's unit roundoff, its smallest subnormal, and a bound below which a layer's float32
# screening pass cannot overflow (see _forward_kernel).
_U32 = 2.0 ** -24
_TINY32 = 2.0 ** -149
_SCREEN_LIMIT = 2.0 ** 100
# The smallest float64 that float32 rounds to +inf (FLT_MAX plus half its last unit): the reference
# step computes z.z and beta z.z in float32, where a score this large becomes inf and its row NaN.
_OVERFLOW32 = float(np.finfo(np.float32).max) + 2.0 ** 103


@numba.njit(cache=True)
def _forward_kernel(z0, log_counts, alpha, beta, layers, screen):  # pragma: no cover - compiled
    """All K layers for every review: the states Z^0..Z^K and each layer's nonzero softmax entries.

    Returns ``states`` (K + 1, B, m, d) float32, ``row_start`` (B, K, m + 1) int64, ``columns``
    int32 and ``weights`` float64: the nonzero entries of row u of layer k of review b are
    ``columns[row_start[b, k, u]:row_start[b, k, u + 1]]`` with their softmax weights.

    A row's scores s_v = beta z_u.z_v + log c_v are computed in float64 for the entries kept,
    and its softmax over those with s_v - max s > EXP_FLOOR. ``screen`` finds them faster
    without changing the result: it first computes every score in float32 (twice as many per
    vector instruction), whose error is at most delta = (gamma_d + 4u)(beta |z_u| max_v |z_v| +
    max |log c|) (gamma_d = d u / (1 - d u), u = 2^-24: recursive summation of d products,
    then beta's rounding, the product and the sum; 1% added for the float64 scores' own
    rounding) plus (d + 2)(beta + 1) 2^-149 for subnormals, and keeps as candidates the v with
    float32 score above its maximum - 104 - 2 delta - 1e-9. The float64 maximum is a candidate, and so
    is every entry within 104 of it, so the float64 scores of the candidates select exactly the
    entries the float64 scores of all v would: the states, entries and weights are identical
    bit for bit (tested). A layer with a non-finite state, or scores that could overflow
    float32 (beta max|z|^2 + max|log c| >= 2^100), is computed without screening.
    """
    B, m, d = z0.shape
    states = np.empty((layers + 1, B, m, d), dtype=np.float32)
    row_start = np.zeros((B, layers, m + 1), dtype=np.int64)
    # Grown when full: a row adds at most m entries, and rarely more than about 15.
    capacity = max(B * layers * m * 16, 2 * m)
    columns = np.empty(capacity, dtype=np.int32)
    weights = np.empty(capacity, dtype=np.float64)
    scale = 1.0 / (1.0 + alpha)
    beta32 = np.float32(beta)
    gamma = d * _U32 / (1.0 - d * _U32)
    z = np.empty((d, m), dtype=np.float64)  # the current layer's states, transposed: scores vectorise over v
    z32 = np.empty((d, m), dtype=np.float32)
    norms = np.empty(m, dtype=np.float64)
    scores = np.empty(m, dtype=np.float64)
    scores32 = np.empty(m, dtype=np.float32)
    log_c = np.empty(m, dtype=np.float64)
    log_c32 = np.empty(m, dtype=np.float32)
    mean = np.empty(d, dtype=np.float64)
    filled = 0
    for b in range(B):
        largest_log_c = 0.0
        for v in range(m):
            log_c32[v] = log_counts[b, v]
            log_c[v] = log_c32[v]
            if abs(log_c[v]) > largest_log_c and math.isfinite(log_c[v]):
                largest_log_c = abs(log_c[v])
        states[0, b] = z0[b]
        for k in range(layers):
            largest_norm = 0.0
            finite = True
            for v in range(m):
                square = 0.0
                for r in range(d):
                    value = states[k, b, v, r]
                    z32[r, v] = value
                    z[r, v] = value
                    square += z[r, v] * z[r, v]
                norms[v] = math.sqrt(square)
                finite = finite and math.isfinite(norms[v])
                largest_norm = max(largest_norm, norms[v])
            screened = screen and finite and beta * largest_norm * largest_norm + largest_log_c < _SCREEN_LIMIT
            for u in range(m):
                row_start[b, k, u] = filled
                if filled + m > capacity:
                    capacity *= 2
                    more_columns = np.empty(capacity, dtype=np.int32)
                    more_columns[:filled] = columns[:filled]
                    columns = more_columns
                    more_weights = np.empty(capacity, dtype=np.float64)
                    more_weights[:filled] = weights[:filled]
                    weights = more_weights
                start = filled
                if screened:
                    for v in range(m):
                        scores32[v] = 0.0
                    for r in range(d):
                        zu32 = z32[r, u]
                        for v in range(m):
                            scores32[v] += zu32 * z32[r, v]
                    top32 = np.float32(-np.inf)
                    for v in range(m):
                        score32 = beta32 * scores32[v] + log_c32[v]
                        scores32[v] = score32
                        if score32 > top32:
                            top32 = score32
                    delta = (1.01 * (gamma + 4 * _U32) * (beta * norms[u] * largest_norm + largest_log_c)
                             + (d + 2) * (beta + 1.0) * _TINY32)
                    # 1e-9: room for the rounding of the differences near the floor, here and below.
                    candidate_floor = EXP_FLOOR - 2.0 * delta - 1e-9
                    top32_wide = float(top32)
                    for v in range(m):
                        columns[filled] = v
                        filled += float(scores32[v]) - top32_wide > candidate_floor
                    # The candidates' float64 scores, exactly as the unscreened loop computes them.
                    top = -np.inf
                    for j in range(start, filled):
                        v = columns[j]
                        acc = 0.0
                        for r in range(d):
                            acc += z[r, u] * z[r, v]
                        score = beta * acc + log_c[v]
                        weights[j] = score
                        if score > top:
                            top = score
                    kept = start
                    for j in range(start, filled):
                        columns[kept] = columns[j]
                        weights[kept] = weights[j]
                        kept += weights[j] - top > EXP_FLOOR
                    filled = kept
                else:
                    for v in range(m):
                        scores[v] = 0.0
                    for r in range(d):
                        zu = z[r, u]
                        for v in range(m):
                            scores[v] += zu * z[r, v]
                    top = -np.inf
                    overflow = False
                    for v in range(m):
                        raw = beta * scores[v]
                        # Where float32 would overflow to +inf, the reference row is NaN: so is this one.
                        overflow = overflow or scores[v] >= _OVERFLOW32 or raw >= _OVERFLOW32
                        score = raw + log_c[v]
                        scores[v] = score
                        if score > top:
                            top = score
                    if overflow:
                        top = np.inf
                    # The entries above the floor, gathered without a branch (each v written, kept if
                    # above). The difference, not top + EXP_FLOOR: that rounds to top for scores of 1e17.
                    for v in range(m):
                        columns[filled] = v
                        weights[filled] = scores[v]
                        filled += scores[v] - top > EXP_FLOOR
                if not math.isfinite(top):
                    # Overflowed scores (beyond float32's range as in the reference step, or in float64),
                    # or every slot unused: torch's softmax gives NaN, so does the layer.
                    filled = start
                    for r in range(d):
                        states[k + 1, b, u, r] = np.nan
                    continue
                total = 0.0
                for j in range(start, filled):
                    e = math.exp(weights[j] - top)
                    weights[j] = e
                    total += e
                for r in range(d):
                    mean[r] = 0.0
                for j in range(start, filled):
                    w = weights[j] / total
                    weights[j] = w
                    v = columns[j]
                    for r in range(d):
                        mean[r] += w * z[r, v]
                for r in range(d):
                    states[k + 1, b, u, r] = (z[r, u] + alpha * mean[r]) * scale
            row_start[b, k, m] = filled
    return states, row_start, columns[:filled], weights[:filled]


@numba.njit(cache=True)
def _backward_kernel(grad_out, states, row_start, columns, weights, alpha, beta):  # pragma: no cover - compiled
    """dL/dZ^0 (B, m, d) float32 and each review's dL/dalpha (B,) from dL/dZ^K, visiting the nonzero entries only."""
    layers = states.shape[0] - 1
    B, m, d = grad_out.shape
    grad_in = np.empty((B, m, d), dtype=np.float32)
    grad_alpha = np.zeros(B, dtype=np.float64)
    scale = 1.0 / (1.0 + alpha)
    g = np.empty((m, d), dtype=np.float64)
    dz = np.empty((m, d), dtype=np.float64)
    z = np.empty((m, d), dtype=np.float64)
    dy = np.empty(d, dtype=np.float64)
    mean = np.empty(d, dtype=np.float64)
    dp = np.empty(m, dtype=np.float64)
    for b in range(B):
        for u in range(m):
            for r in range(d):
                g[u, r] = grad_out[b, u, r]
        da = 0.0
        for k in range(layers - 1, -1, -1):
            for u in range(m):
                for r in range(d):
                    z[u, r] = states[k, b, u, r]
                    dz[u, r] = g[u, r] * scale
            for u in range(m):
                start, stop = row_start[b, k, u], row_start[b, k, u + 1]
                for r in range(d):
                    dy[r] = alpha * scale * g[u, r]
                    mean[r] = 0.0
                # Y_u = sum_v P_uv z_v, dP_uv = dY_u . z_v and its P-weighted row sum, on the nonzero entries.
                row_sum = 0.0
                for j in range(start, stop):
                    v = columns[j]
                    p = weights[j]
                    acc = 0.0
                    for r in range(d):
                        acc += dy[r] * z[v, r]
                        mean[r] += p * z[v, r]
                    dp[j - start] = acc
                    row_sum += p * acc
                # dL/dalpha through this row: G_u . (Y_u - z_u) / (1 + alpha)^2.
                for r in range(d):
                    da += g[u, r] * (mean[r] - z[u, r]) * scale * scale
                for j in range(start, stop):
                    v = columns[j]
                    p = weights[j]
                    ds = beta * p * (dp[j - start] - row_sum)
                    for r in range(d):
                        dz[u, r] += ds * z[v, r]
                        dz[v, r] += ds * z[u, r] + p * dy[r]
            for u in range(m):
                for r in range(d):
                    g[u, r] = dz[u, r]
        for u in range(m):
            for r in range(d):
                grad_in[b, u, r] = g[u, r]
        grad_alpha[b] = da
    return grad_in, grad_alpha


def attention_forward(z0: np.ndarray, log_counts: np.ndarray, *, alpha: float, beta: float, layers: int,
                      screen: bool = True):
    """The K layers on numpy arrays: ``z0`` (B, m, d) and ``log_counts`` (B, m), both made float32.

    ``screen``: find each row's entries with a float32 pass first (the same result, faster; see
    :func:`_forward_kernel`); False computes every score in float64 (the tests compare the two).

    Returns ``(states, row_start, columns, weights)`` (see :func:`_forward_kernel`); ``states[-1]``
    is the output Z^K.
    """
    return _forward_kernel(np.ascontiguousarray(z0, dtype=np.float32), np.ascontiguousarray(log_counts, dtype=np.float32),
                           float(alpha), float(beta), int(layers), bool(screen))


def attention_backward(grad_out: np.ndarray, saved: tuple, *, alpha: float, beta: float) -> tuple[np.ndarray, float]:
    """dL/dZ^0 (float32) and dL/dalpha from dL/dZ^K and what :func:`attention_forward` returned."""
    states, row_start, columns, weights = saved
    grad_in, grad_alpha = _backward_kernel(np.ascontiguousarray(grad_out, dtype=np.float32), states, row_start,
                                           columns, weights, float(alpha), float(beta))
    return grad_in, float(grad_alpha.sum())


_FUNCTION = None


def _function():
    """The torch.autograd.Function around the two kernels (built on first use: torch is optional)."""
    global _FUNCTION
    if _FUNCTION is None:
        import torch

        class CompiledAttention(torch.autograd.Function):
            @staticmethod
            def forward(ctx, z0, log_counts, alpha, beta: float, layers: int):
                saved = attention_forward(z0.detach().numpy(), log_counts.detach().numpy(),
                                          alpha=float(alpha), beta=beta, layers=layers)
                ctx.saved = saved
                ctx.alpha, ctx.beta = float(alpha), beta
                return torch.from_numpy(saved[0][-1])

            @staticmethod
            def backward(ctx, grad_output):
                grad_in, grad_alpha = attention_backward(grad_output.detach().numpy(), ctx.saved,
                                                         alpha=ctx.alpha, beta=ctx.beta)
                ctx.saved = None  # the stored entries are not needed again
                alpha_gradient = torch.tensor(grad_alpha, dtype=torch.float32) if ctx.needs_input_grad[2] else None
                return torch.from_numpy(grad_in), None, alpha_gradient, None, None

        _FUNCTION = CompiledAttention
    return _FUNCTION


def attention_stack(z0, log_counts, alpha, *, beta: float, layers: int):
    """Z^K from Z^0 (B, m, d) through K shared layers, with the compiled forward and backward (torch tensors).

    ``log_counts`` (B, m): the log multiplicity of each slot (-inf for unused slots, 0 for
    attention over all positions); ``alpha`` the 0-d tensor softplus(alpha_raw).
    """
    return _function().apply(z0, log_counts, alpha, float(beta), int(layers))


def compile_ahead() -> None:
    """Compile both kernels into numba's on-disk cache now (set-up calls this), through the same
    wrappers and argument types as training, so the first training step does not pay for it."""
    rng = np.random.default_rng(0)
    z0 = rng.standard_normal((2, 3, 2)).astype(np.float32)
    log_counts = np.array([[0.0, math.log(2.0), -np.inf], [0.0, 0.0, 0.0]], dtype=np.float32)
    saved = attention_forward(z0, log_counts, alpha=1.0, beta=1.0, layers=2)
    attention_backward(np.ones_like(z0), saved, alpha=1.0, beta=1.0)
