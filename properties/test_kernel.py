"""Coq's kernel agrees with ``check`` (docs/formal.md): on every configuration, each claim the
kernel covers (T0, T1, D1, D3, replay) is kernel-checked exactly when ``check`` certified it
from D7 fates, the kernel never rejects what ``check`` certified, and nothing is kernel-checked
where ``check`` is inconclusive or failed.

Each example is one coqc run (a fraction of a second), so the examples are fewer than the
profile's.
"""

from hypothesis import given, settings

from verify.claims import check_configuration
from verify.core.families import TIE_FAMILIES
from verify.formal.prove import prove_records
from verify.formal.tasks import COVERED_CLAIMS, KERNEL_CHECKED, REJECTED
from verify.strategies import configurations, outside_configurations


def _agree(config) -> None:
    report = check_configuration(config, cross_check=False).to_json_dict()
    result = prove_records([("example", report)])
    claims = result.records[0][1]
    d7_only = all(f["kind"] in ("leader", "fixed", "locked") for f in report["fates"])
    for claim, outcome in claims.items():
        certified = report["verdicts"][claim]["status"] == "certified"
        assert outcome.status != REJECTED, (claim, outcome.reason)
        if outcome.status == KERNEL_CHECKED:
            assert certified and claim in COVERED_CLAIMS, claim
        elif certified and claim in COVERED_CLAIMS and (d7_only or claim in ("D1", "D3")):
            raise AssertionError(f"{claim}: certified from D7 fates, but {outcome.status}: {outcome.reason}")


@settings(max_examples=8)
@given(configurations(max_n=12))
def test_kernel_agrees_with_check(config):
    _agree(config)


@settings(max_examples=5)
@given(configurations(family=TIE_FAMILIES, max_n=10, max_d=3))
def test_kernel_agrees_with_check_on_persistent_ties(config):
    _agree(config)


@settings(max_examples=5)
@given(outside_configurations(max_n=8))
def test_kernel_agrees_with_check_outside_the_hypotheses(config):
    _agree(config)
