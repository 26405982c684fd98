"""D0 (docs/theory.md §3): "a leader exists at layer 0. A token of largest A-norm is a leader: by
Cauchy–Schwarz in the A-inner product, <A z_i, z_j> <= ||z_i||_A ||z_j||_A <= ||z_i||_A^2 with
equality only if z_j = z_i, so C_i = {i} when the tokens are distinct."

Checked on the engine's layer 0 and on exact scores recomputed by the assertion helper.
"""

from hypothesis import given

from verify.core.exact_dynamics import exact_layers
from verify.core.families import TIE_FAMILIES
from verify.strategies import configurations
from verify.testing import assert_largest_norm_token_leads


def _layer_zero(config):
    return next(exact_layers(config.tokens, alpha=config.alpha, A=config.A)).attention_sets()


@given(configurations(max_n=16, max_d=4))
def test_largest_norm_token_leads_at_layer_zero(config):
    assert_largest_norm_token_leads(config, _layer_zero(config))


@given(configurations(family=TIE_FAMILIES + ("ill_conditioned", "close_pairs"), max_n=16, max_d=4))
def test_largest_norm_token_leads_with_ties_and_near_ties(config):
    # Several tokens may share the largest A-norm (the vertices of the tie families): all of them lead.
    assert_largest_norm_token_leads(config, _layer_zero(config))
