"""T2 (docs/theory.md §2): "the leaders' limits are pairwise distinct and are exactly the vertices
of K = conv(leader limits)".

The final set of leaders is known once every token is a leader, fixed or locked (docs/theory.md
D7); :func:`verify.claims.T2.check_T2` then certifies each leader limit as a vertex of K with an
exact separating direction. Before that T2 is inconclusive (recorded, not a failure).
"""

from hypothesis import given

from verify.claims import check_configuration
from verify.core.families import TIE_FAMILIES
from verify.strategies import configurations
from verify.testing import assert_claim_certified


@given(configurations())
def test_leader_limits_are_the_vertices_of_K(config):
    report = check_configuration(config, cross_check=False)
    assert_claim_certified(report, "T2")


@given(configurations(family=TIE_FAMILIES, max_n=12, max_d=4))
def test_leader_limits_are_the_vertices_of_K_with_persistent_ties(config):
    report = check_configuration(config, cross_check=False)
    assert_claim_certified(report, "T2")


@given(configurations(family=("collinear", "coplanar", "hull_edges"), max_n=12, max_d=4))
def test_leader_limits_are_the_vertices_of_flat_K(config):
    # Collinear and coplanar tokens give a K of lower dimension than d; points on hull edges are not vertices.
    report = check_configuration(config, cross_check=False)
    assert_claim_certified(report, "T2")
