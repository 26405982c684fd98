"""D8 (docs/theory.md §3): "distinct tokens never merge (A positive definite, not necessarily
symmetric). With m_z the attention mean of z: <A z, m_z> >= <A z, m_w> and <A w, m_w> >= <A w, m_z>,
so <A(z - w), m_z - m_w> >= 0, while z^{k+1} = w^{k+1} would need m_z - m_w = -(z - w)/alpha and
hence that inner product = -||z - w||_A^2 / alpha < 0."

Checked exactly over many layers for SPD A (inside the hypotheses) and for A = S + K with K
skew (positive definite, not symmetric: outside the hypotheses, but inside D8's).
"""

from hypothesis import given

from verify.core.exact_dynamics import exact_layers
from verify.core.families import TIE_FAMILIES
from verify.strategies import configurations, outside_configurations
from verify.testing import assert_tokens_never_merge

LAYERS = 25


def _check(config):
    positions = []
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A):
        positions.append(layer.positions())
        if layer.index == LAYERS:
            break
    assert_tokens_never_merge(positions, config=config)


@given(configurations(max_n=12, max_d=4))
def test_distinct_tokens_never_merge(config):
    _check(config)


@given(configurations(family=TIE_FAMILIES + ("close_pairs",), max_n=12, max_d=4))
def test_distinct_tokens_never_merge_with_ties_and_close_pairs(config):
    _check(config)


@given(outside_configurations(kind="nonsymmetric_pd", max_n=12))
def test_distinct_tokens_never_merge_for_nonsymmetric_positive_definite_A(config):
    _check(config)
