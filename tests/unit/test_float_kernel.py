"""The float engine's compiled kernel (verify/core/float_kernel.py) gives, bit for bit, what the row-layout
kernel of tests/common/float_kernel_oracle.py gives: new positions, error bounds, margins,
argmax, undecided and tie flags, attention masks and score bounds, layer after layer.

Bit identity is the point: the rounding bound of verify/core/float_dynamics.py counts the roundings of
one summation order (each score summed over r = 0, 1, ... from 0, each direction over c), so a kernel
that sums in another order would need its own proof. Inputs: seeded random batches of every shape class
(d below, at and above the kernel's four-term step, padded configurations, multiplicities, per-point
errors, a given A), the families' exact configurations (ties, collinear and symmetric tokens, merged
copies), and values at the ends of float64: NaN, infinities, 1e200, subnormals, signed zeros.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from tests.common.float_kernel_oracle import OUTPUTS, layer_inputs, row_layout_layer_kernel, run_layer
from verify.core.families import FAMILIES, MAX_D, MAX_N, generate
from verify.core.float_dynamics import merge_identical_tokens
from verify.core.float_kernel import layer_kernel

LAYERS = 4


def assert_same_layers(inputs: tuple, *, layers: int = LAYERS, label: str = "") -> int:
    """Run both kernels ``layers`` layers, each on its own outputs, and require equal bytes everywhere.
    Returns how many rows were decided (so a caller can see the inputs reached decisions)."""
    ours, theirs = inputs, inputs
    decided = 0
    for k in range(layers):
        new = run_layer(layer_kernel, ours)
        old = run_layer(row_layout_layer_kernel, theirs)
        for name in OUTPUTS:
            assert new[name].dtype == old[name].dtype and new[name].tobytes() == old[name].tobytes(), (
                f"{label} layer {k}: {name} differs\nnew {new[name]!r}\nold {old[name]!r}")
        live = np.arange(inputs[0].shape[1])[None, :] < inputs[2][:, None]
        decided += int((~new["undecided"] & live).sum())
        ours = (new["new_Z"], *ours[1:5], new["new_error"], *ours[6:])
        theirs = (old["new_Z"], *theirs[1:5], old["new_error"], *theirs[6:])
    return decided


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5, 7, 8, 9, 16, 19])
def test_random_batches_match_bit_for_bit(d: int) -> None:
    rng = np.random.default_rng(100 + d)
    b, m = 5, 23
    Z = rng.normal(size=(b, m, d)) * rng.choice([1e-3, 1.0, 1e3], size=(b, m, 1))
    counts = np.array([m, 1, 2, 17, m - 3])
    weights = np.where(np.arange(m)[None, :] < counts[:, None], rng.integers(1, 4, size=(b, m)), 0).astype(float)
    A = rng.normal(size=(b, d, d))
    inputs = layer_inputs(Z, weights=weights, counts=counts, A_transposed=np.swapaxes(A, 1, 2),
                          alpha=rng.uniform(0.1, 3.0, size=b), error=rng.uniform(0, 1e-9, size=(b, m)),
                          matrix_bound=np.abs(A).max(axis=(1, 2)))
    assert assert_same_layers(inputs, label=f"d={d}") > 0
    # The identity, equal errors: the engine's default call.
    assert assert_same_layers(layer_inputs(Z, alpha=0.5), label=f"d={d}, A=I") > 0


def test_float_ties_take_the_tie_path_identically() -> None:
    """Small integer tokens tie by float equality: the undecided rows' multiplicity-weighted means."""
    rng = np.random.default_rng(7)
    Z = rng.integers(-2, 3, size=(6, 30, 5)).astype(float)
    weights = rng.integers(1, 5, size=(6, 30)).astype(float)
    inputs = layer_inputs(Z, weights=weights, alpha=np.array([0.5, 1.0, 2.0, 0.25, 3.0, 1.5]))
    reference = run_layer(row_layout_layer_kernel, inputs)
    assert reference["tie"].sum() > 10  # the inputs reach float ties
    assert_same_layers(inputs, label="integer ties")


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_family_configurations_match_bit_for_bit(name: str) -> None:
    family = FAMILIES[name]
    batch_tokens, matrices, alphas = [], [], []
    d = max(family.min_d, min(3, MAX_D))
    n = max(family.min_n, min(12, MAX_N))
    for seed in range(4):
        config = generate(name, seed, n=n, d=d)
        batch_tokens.append([[float(x) for x in t] for t in config.tokens])
        A = np.eye(d) if config.A is None else np.array([[float(x) for x in row] for row in config.A])
        matrices.append(A.T)
        alphas.append(float(Fraction(config.alpha)))
    tokens = np.array(batch_tokens)
    merged = merge_identical_tokens(tokens, np.array(matrices))
    bound = np.maximum(np.abs(np.array(matrices)).max(axis=(1, 2)), np.finfo(float).tiny)
    inputs = layer_inputs(merged.positions, weights=merged.weights, counts=merged.counts,
                          A_transposed=merged.A_transposed, alpha=np.array(alphas), matrix_bound=bound)
    assert_same_layers(inputs, layers=6, label=name)


def _extreme_tokens(rng: np.random.Generator, b: int, m: int, d: int) -> np.ndarray:
    values = np.array([np.nan, np.inf, -np.inf, 1e200, -1e200, 1e154, 1e-300, -1e-300, 5e-324, -5e-324,
                       0.0, -0.0, 2.0 ** -1022, 1.7976931348623157e308, 3.0, -1.0])
    Z = rng.normal(size=(b, m, d))
    mask = rng.random(size=Z.shape) < 0.3
    Z[mask] = rng.choice(values, size=int(mask.sum()))
    return Z


@pytest.mark.parametrize("d", [1, 3, 4, 6, 16])
def test_non_finite_huge_and_tiny_values_match_bit_for_bit(d: int) -> None:
    rng = np.random.default_rng(900 + d)
    b, m = 8, 15
    Z = _extreme_tokens(rng, b, m, d)
    Z[0] = rng.normal(size=(m, d)) * 1e-160        # every score subnormal or zero
    Z[1] = -0.0                                     # every product a signed zero
    Z[2] = rng.normal(size=(m, d)) * 1e150          # scores overflow
    Z[3] = rng.normal(size=(m, d))                  # ordinary, beside the others
    A = rng.normal(size=(b, d, d))
    A[4] *= 1e300
    A[5] *= 1e-300
    A[6, 0, 0] = np.nan if d > 1 else A[6, 0, 0]
    inputs = layer_inputs(Z, A_transposed=np.swapaxes(A, 1, 2),
                          alpha=np.array([1e-300, 1e300, 0.5, 1.0, 2.0, 1e308, 0.5, 5e-324]),
                          error=np.where(rng.random((b, m)) < 0.2, np.inf, rng.choice([0.0, 1e-300, 1e300], size=(b, m))),
                          matrix_bound=np.maximum(np.abs(np.nan_to_num(A)).max(axis=(1, 2)), np.finfo(float).tiny))
    reference = run_layer(row_layout_layer_kernel, inputs)
    assert reference["undecided"].any() and np.isnan(reference["new_Z"]).any()
    assert_same_layers(inputs, label=f"extreme d={d}")


def test_small_batches_run_on_one_thread_and_large_ones_on_the_team() -> None:
    from verify.core.float_kernel import PARALLEL_MIN_WORK, threads_for

    assert threads_for(np.array([3]), 2).single  # one configuration: nothing to share
    assert threads_for(np.full(40, 6), 2).single  # 40 tiny configurations: waking threads costs more
    assert not threads_for(np.full(8, 128), 16).single
    assert not threads_for(np.array([1, 1]), PARALLEL_MIN_WORK).single


def test_the_thread_count_changes_no_bit(monkeypatch) -> None:
    """The kernel shares configurations among threads, each computed the same way: one thread or the
    team give the same bytes (and the caller's thread count is restored)."""
    import numba

    from verify.core import float_kernel
    from verify.core.float_dynamics import simulate_batch

    tokens = np.random.default_rng(7).normal(size=(6, 96, 8))
    assert not float_kernel.threads_for(np.full(6, 96), 8).single
    before = numba.get_num_threads()
    team = simulate_batch(tokens, alpha=0.5, layers=5)
    monkeypatch.setattr(float_kernel, "PARALLEL_MIN_WORK", 1 << 62)
    single = simulate_batch(tokens, alpha=0.5, layers=5)
    assert numba.get_num_threads() == before
    for name in ("final", "undecided", "first_undecided_layer", "leaders", "leader_layer", "position_error_bound"):
        assert getattr(team, name).tobytes() == getattr(single, name).tobytes(), name
