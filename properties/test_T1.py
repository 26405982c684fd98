"""T1 (docs/theory.md §2): "each leader is fixed from the first layer at which it is a leader
(finite-layer convergence)".

Checked exactly by :func:`verify.claims.T1.check_T1` up to one layer past the layer at which
every token is a leader, fixed or locked (docs/theory.md D7), when the final set of leaders is
known; before that T1 is inconclusive (recorded with ``hypothesis.event``).
"""

from hypothesis import given

from verify.claims import check_configuration
from verify.core.families import TIE_FAMILIES
from verify.strategies import configurations
from verify.testing import assert_claim_certified


@given(configurations())
def test_leaders_are_fixed_from_their_first_layer(config):
    report = check_configuration(config, cross_check=False)
    assert_claim_certified(report, "T1")


@given(configurations(family=TIE_FAMILIES, max_n=12, max_d=4))
def test_leaders_are_fixed_with_persistent_ties(config):
    report = check_configuration(config, cross_check=False)
    assert_claim_certified(report, "T1")


@given(configurations(family=("collinear", "hull_edges", "near_origin", "close_pairs"), max_n=12, max_d=4))
def test_leaders_are_fixed_in_degenerate_configurations(config):
    report = check_configuration(config, cross_check=False)
    assert_claim_certified(report, "T1")
