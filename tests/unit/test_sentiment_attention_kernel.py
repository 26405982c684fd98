"""verify.sentiment.attention_kernel and the compiled step's optimiser: known answers, and fused Adam against Adam.

The compiled step's gradients against the reference step (the float32 yardstick, at initial and
at trained weights) are checked in tests/integration/test_sentiment_compiled_step.py.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from verify.sentiment import attention_kernel  # noqa: E402
from verify.sentiment.model import TrainingSettings, build_model, build_optimizer  # noqa: E402

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
