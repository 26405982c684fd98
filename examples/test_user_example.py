"""A user's own property test built on the public API (run: ``pytest examples/test_user_example.py``).

It uses the project's strategies and claim checks, and the project's Hypothesis profiles
(``HYPOTHESIS_PROFILE=ci|dev|thorough``), which the installed package's pytest plugin loads in
any folder.
"""

from hypothesis import given

from verify import check_configuration, configurations


@given(configurations(family=("mirror_ties", "hull_edges", "generic"), max_n=6, max_d=2))
def test_no_claim_is_false_on_ties_and_edges(config):
    report = check_configuration(config, layer_budget=60, cross_check=False)
    failed = {cid: v.summary for cid, v in report.verdicts.items() if v.status == "failed"}
    assert not failed, (config.to_json_dict(), failed)
