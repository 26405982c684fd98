"""verify.experiments.sentiment.attention_kernel and the compiled step's optimiser: known answers, and fused Adam against Adam.

The compiled step's gradients against the reference step (the float32 yardstick, at initial and
at trained weights) are checked in tests/integration/test_sentiment_compiled_step.py.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from verify.experiments.sentiment import attention_kernel  # noqa: E402
from verify.experiments.sentiment.model import TrainingSettings, build_model, build_optimizer  # noqa: E402

EPS32 = float(np.finfo(np.float32).eps)


def test_far_apart_tokens_attend_to_themselves_and_equal_counts_split_the_weight():
    """Known answers: with beta = 1000 and tokens far apart, P = I and every layer keeps Z; two equal
    tokens with multiplicities 1 and 3 (as two slots) share a row's attention 1 : 3, and a slot of count 0 gets none."""
    z0 = np.array([[[3.0, 0.0], [0.0, 3.0], [-3.0, 0.0]]], dtype=np.float32)
    states, row_start, columns, weights = attention_kernel.attention_forward(
        z0, np.zeros((1, 3), dtype=np.float32), alpha=1.0, beta=1000.0, layers=4)
    assert np.array_equal(states[-1], z0)
    assert [columns[row_start[0, k, u]:row_start[0, k, u + 1]].tolist() for k in range(4) for u in range(3)] == \
        [[0], [1], [2]] * 4
    assert weights.tolist() == [1.0] * 12
    z0 = np.array([[[1.0, 0.0], [1.0, 0.0], [0.0, -1.0]]], dtype=np.float32)
    log_counts = np.log(np.array([[1.0, 3.0, 1.0]], dtype=np.float32))
    log_counts[0, 2] = -np.inf
    states, row_start, columns, weights = attention_kernel.attention_forward(
        z0, log_counts, alpha=1.0, beta=1000.0, layers=1)
    for u in range(3):
        entries = dict(zip(columns[row_start[0, 0, u]:row_start[0, 0, u + 1]].tolist(),
                           weights[row_start[0, 0, u]:row_start[0, 0, u + 1]].tolist()))
        if u < 2:
            assert entries == pytest.approx({0: 0.25, 1: 0.75}, rel=1e-6)  # log 3 rounded to float32
    assert 2 not in columns.tolist() and row_start[0, 0, 3] == len(columns) == 6


def test_a_row_of_non_finite_scores_gives_nan_as_torch_does():
    z0 = np.array([[[np.inf, 0.0], [1.0, 0.0]]], dtype=np.float32)
    states = attention_kernel.attention_forward(z0, np.zeros((1, 2), dtype=np.float32), alpha=1.0, beta=1.0, layers=1)[0]
    assert np.isnan(states[-1]).all()


@pytest.mark.parametrize("scale", [1e17, 1e18, 1e19, 1e30])
def test_scores_beyond_float32_give_nan_exactly_where_the_reference_step_does(scale):
    """The reference step computes beta z.z in float32: at beta = 1000 a token of norm about 6e17 or
    more overflows to inf and its row to NaN. The compiled step, in float64 inside, must do the same."""
    z0 = np.array([[[scale, 0.0], [0.0, 1.0]]], dtype=np.float32)
    log_counts = np.zeros((1, 2), dtype=np.float32)
    states = attention_kernel.attention_forward(z0, log_counts, alpha=1.0, beta=1000.0, layers=1)[0]
    with torch.no_grad():
        z = torch.from_numpy(z0)
        attention = torch.softmax(1000.0 * (z @ z.transpose(1, 2)) + torch.from_numpy(log_counts)[:, None, :], dim=-1)
        reference = ((z + attention @ z) / 2).numpy()
    assert np.array_equal(np.isnan(states[-1]), np.isnan(reference))
    assert np.isnan(reference).any() == (scale >= 1e18)


@pytest.mark.parametrize("weight_decay", [0.0, 0.01])
def test_fused_adam_takes_the_reference_adam_step_within_float32_rounding(weight_decay):
    """Five steps from the same weights and gradients: the same moments, parameters within rounding of the update."""
    settings = TrainingSettings(d=4, layers=1, weight_decay=weight_decay)
    results = {}
    for step in ("reference", "compiled"):
        model = build_model(200, settings)
        optimizer = build_optimizer(model, settings, step=step)
        assert bool(optimizer.defaults["fused"]) == (step == "compiled")
        rng = np.random.default_rng(7)
        before = {name: p.detach().clone() for name, p in model.named_parameters()}
        for _ in range(5):
            for p in model.parameters():
                p.grad = torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32))
            optimizer.step()
        state = {f"{name}.{key}": value.clone() for name, p in model.named_parameters()
                 for key, value in optimizer.state[p].items()}
        results[step] = ({name: p.detach().clone() for name, p in model.named_parameters()}, state)
    (reference, reference_state), (fused, fused_state) = results["reference"], results["compiled"]
    # The state the checkpoint saves has the same arrays, shapes and types either way.
    assert {k: (v.dtype, tuple(v.shape)) for k, v in reference_state.items()} == \
        {k: (v.dtype, tuple(v.shape)) for k, v in fused_state.items()}
    for key, value in reference_state.items():
        assert torch.allclose(value, fused_state[key], rtol=4 * EPS32, atol=0), key
    for name, value in reference.items():
        update = (before[name] - value).abs()
        assert ((fused[name] - value).abs() <= EPS32 * (8 * update + 2 * value.abs())).all(), name
        assert (update > 0).all()  # the comparison is not of two unchanged tensors


def test_equal_tokens_attend_uniformly_and_every_entry_is_kept():
    """40 equal tokens: every row's softmax is uniform (all 40 x 40 entries kept, more than the first
    buffer holds per row) and the states do not move."""
    z0 = np.tile(np.array([0.6, -0.8], dtype=np.float32), (2, 40, 1))
    states, row_start, columns, weights = attention_kernel.attention_forward(
        z0, np.zeros((2, 40), dtype=np.float32), alpha=2.0, beta=1000.0, layers=3)
    assert len(columns) == len(weights) == 2 * 3 * 40 * 40 and row_start[1, 2, 40] == len(columns)
    assert np.allclose(weights, 1 / 40, rtol=1e-12, atol=0)
    assert np.allclose(states, z0[None], rtol=1e-7, atol=0)


def _screening_inputs():
    """States at several scales (d = 2, 16), near-ties (copies moved by about one float32 unit), unused slots,
    states too large to screen in float32, and non-finite ones."""
    rng = np.random.default_rng(11)
    for d in (2, 16):
        for size in (0.01, 1.0, 5.0, 30.0, 1e12):
            z0 = (size * rng.standard_normal((4, 50, d))).astype(np.float32)
            z0[:, 25:40] = z0[:, 10:25] * (1 + 1e-7 * rng.standard_normal((4, 15, d))).astype(np.float32)
            counts = rng.integers(0, 4, size=(4, 50)).astype(np.float32)
            counts[:, 0] = 1
            with np.errstate(divide="ignore"):
                yield z0, np.log(counts)
    z0 = rng.standard_normal((2, 10, 3)).astype(np.float32)
    z0[0, 3, 1], z0[1, 4, 0] = np.inf, np.nan
    yield z0, np.zeros((2, 10), dtype=np.float32)


def test_the_float32_screening_selects_exactly_the_entries_of_the_float64_scores():
    for z0, log_counts in _screening_inputs():
        screened = attention_kernel.attention_forward(z0, log_counts, alpha=1.5, beta=1000.0, layers=4)
        direct = attention_kernel.attention_forward(z0, log_counts, alpha=1.5, beta=1000.0, layers=4, screen=False)
        for a, b in zip(screened, direct):
            assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
        assert len(direct[2]) > 0


@pytest.mark.parametrize("screen", [True, False])
def test_entries_down_to_the_float32_floor_are_kept_and_none_below(screen):
    """A row's entries with s_v - max s = -100 (weight e^-100, about 4e-44: a float32 subnormal) are kept, -110 not."""
    z0 = np.array([[[10.0, 0.0], [0.0, 0.0], [-1.0, 0.0]]], dtype=np.float32)
    states, row_start, columns, weights = attention_kernel.attention_forward(
        z0, np.zeros((1, 3), dtype=np.float32), alpha=1.0, beta=1.0, layers=1, screen=screen)
    # Row 0: scores 100, 0, -10.
    assert columns[:row_start[0, 0, 1]].tolist() == [0, 1]
    assert weights[1] == pytest.approx(np.exp(-100.0), rel=1e-12) and np.float32(weights[1]) > 0
    # Huge states: differences of scores of 1e27 are exact multiples of their spacing, the top one kept.
    far = np.array([[[1e12, 0.0], [0.0, 1e12]]], dtype=np.float32)
    states = attention_kernel.attention_forward(far, np.zeros((1, 2), dtype=np.float32), alpha=1.0, beta=1000.0,
                                                layers=2, screen=screen)[0]
    assert np.array_equal(states[-1], far)
