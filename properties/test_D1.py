"""D1 (docs/theory.md §3): "hull shrinks. z_i^{k+1} = (1-gamma) z_i^k + gamma m_i is a convex
combination of tokens of layer k, so conv(Z^{k+1}) is contained in conv(Z^k)."

Two exact checks: the claim check's convex-weight certificate (:func:`verify.claims.D1.check_D1`)
over every layer it runs, and an independent hull-membership test (pycddlib, GMP) of the
first layers by :func:`verify.testing.assert_hull_shrinks`.
"""

from hypothesis import given

from verify.claims import check_configuration
from verify.core.families import TIE_FAMILIES
from verify.strategies import configurations
from verify.testing import assert_claim_certified, assert_hull_shrinks

INDEPENDENT_LAYERS = 6  # the cdd membership test is an LP per token: a few layers suffice to catch a wrong rule


def _check(config):
    report = check_configuration(config, cross_check=False)
    assert_claim_certified(report, "D1", reject_inconclusive=False)
    layers = report.layers[:INDEPENDENT_LAYERS + 1]
    for before, after in zip(layers, layers[1:]):
        assert_hull_shrinks(before.positions(), after.positions(), config=config, layer=after.index)


@given(configurations())
def test_hull_shrinks(config):
    _check(config)


@given(configurations(family=TIE_FAMILIES + ("collinear", "coplanar", "hull_edges"), max_n=12, max_d=4))
def test_hull_shrinks_for_ties_and_flat_hulls(config):
    _check(config)
