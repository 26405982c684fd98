"""D3 (docs/theory.md §3): "leaders are permanent and fixed. If C_i(Z^k) = {i} then z_i^{k+1} = z_i^k,
[...] hence C_i(Z^{k+1}) = {i} again. So a leader is fixed forever from the first layer it
leads, which is claim T1."

Checked by the claim check and, independently, by :func:`verify.testing.assert_leaders_stay_fixed`
on attention sets recomputed from the exact positions. The ``emerging`` property runs longer
than the claim check's settlement so that leaders emerging after layer 0 are covered.
"""

from hypothesis import given

from verify.claims import check_configuration
from verify.core.exact_dynamics import exact_layers
from verify.core.families import TIE_FAMILIES
from verify.core.oracle import attention_sets
from verify.strategies import configurations
from verify.testing import assert_claim_certified, assert_leaders_stay_fixed, record_event

LAYERS = 25


@given(configurations())
def test_leaders_stay_leaders_and_do_not_move(config):
    report = check_configuration(config, cross_check=False)
    assert_claim_certified(report, "D3", reject_inconclusive=False)


@given(configurations(family=TIE_FAMILIES + ("emerging_leader", "generic", "hull_edges"), max_n=12, max_d=3))
def test_leaders_stay_fixed_over_many_layers(config):
    positions, sets = [], []
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A):
        points = layer.positions()
        positions.append(points)
        sets.append(attention_sets(points, A=config.A_matrix))  # recomputed, not the engine's own sets
        if layer.index == LAYERS:
            break
    emerged = [i for i in range(config.n) if sets[0][i] != {i} and any(layer_sets[i] == {i} for layer_sets in sets[1:])]
    record_event("a leader emerges after layer 0" if emerged else "all leaders lead at layer 0")
    assert_leaders_stay_fixed(positions, sets, config=config)
