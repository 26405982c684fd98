"""T0 (docs/theory.md §2): "the set of leaders is nonempty".

Token i is a leader if there is a layer k with C_i(Z^k) = {i}. Under the hypotheses the
claim holds already at layer 0 (D0: a token of largest A-norm leads), and the claim check
(:func:`verify.claims.T0.check_T0`) fails T0 when that does not happen.
"""

from hypothesis import given

from verify.claims import check_configuration
from verify.core.families import TIE_FAMILIES
from verify.strategies import configurations
from verify.testing import assert_claim_certified


@given(configurations())
def test_leaders_exist(config):
    report = check_configuration(config, cross_check=False)
    verdict = assert_claim_certified(report, "T0")
    assert verdict.certificate["layer"] == 0  # D0: under the hypotheses the first leaders appear at layer 0


@given(configurations(family=TIE_FAMILIES, max_n=12, max_d=4))
def test_leaders_exist_with_persistent_ties(config):
    report = check_configuration(config, cross_check=False)
    assert_claim_certified(report, "T0")
