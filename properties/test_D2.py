"""D2 (docs/theory.md §3): "A-norm never decreases (A symmetric PD). Since i competes in its own max,
<A z_i, z_j> >= <A z_i, z_i> for j in C_i, so <A z_i, m_i - z_i> >= 0 and
||z_i^{k+1}||_A^2 = ||z_i||_A^2 + 2 gamma <A z_i, m_i - z_i> + gamma^2 ||m_i - z_i||_A^2 >= ||z_i||_A^2."

Checked by the claim check over every layer it runs and, independently, by
:func:`verify.testing.assert_norms_nondecreasing` on the same exact positions.
"""

from hypothesis import given

from verify.claims import check_configuration
from verify.core.families import TIE_FAMILIES
from verify.strategies import configurations
from verify.testing import assert_claim_certified, assert_norms_nondecreasing


def _check(config):
    report = check_configuration(config, cross_check=False)
    assert_claim_certified(report, "D2", reject_inconclusive=False)
    for before, after in zip(report.layers, report.layers[1:]):
        assert_norms_nondecreasing(before.positions(), after.positions(), config=config, layer=after.index)


@given(configurations())
def test_A_norm_never_decreases(config):
    _check(config)


@given(configurations(family=TIE_FAMILIES + ("ill_conditioned", "near_origin"), max_n=12, max_d=4))
def test_A_norm_never_decreases_with_ties_and_ill_conditioned_A(config):
    _check(config)
