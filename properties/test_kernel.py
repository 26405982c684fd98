"""Coq's kernel agrees with ``check`` (docs/formal.md): on every configuration, a claim is
kernel-checked only where ``check`` certified it, everything ``check`` certified from D7 fates is
kernel-checked (D2 and T4 when A has an exact LDL^T with positive pivots; D1 and D3 always), and
the kernel never rejects what ``check`` certified.

Each example is one coqc run (a fraction of a second), so the examples are fewer than the
profile's.
"""

from hypothesis import given, settings

from verify.claims import check_configuration
from verify.core.linalg import is_symmetric_positive_definite, ldl_decomposition
from verify.core.families import TIE_FAMILIES
from verify.formal.prove import prove_records
from verify.formal.tasks import COVERED_CLAIMS, KERNEL_CHECKED, REJECTED
from verify.strategies import configurations, outside_configurations


def _agree(config) -> None:
    report = check_configuration(config, cross_check=False).to_json_dict()
    result = prove_records([("example", report)])
    claims = result.records[0][1]
    d7_only = all(f["kind"] in ("leader", "fixed", "locked") for f in report["fates"])
    spd = ldl_decomposition(config.A_matrix) is not None and is_symmetric_positive_definite(config.A_matrix)
    expected = {"D1", "D3"} | ({"D2"} if spd else set())
    if d7_only:
        expected |= {"T0", "T1", "T2", "T3", "replay"} | ({"T4"} if spd else set())
    for claim, outcome in claims.items():
        certified = report["verdicts"][claim]["status"] == "certified"
        assert outcome.status != REJECTED, (claim, outcome.reason)
        if outcome.status == KERNEL_CHECKED:
            assert certified and claim in COVERED_CLAIMS, claim
        elif certified and claim in expected:
            raise AssertionError(f"{claim}: certified, but {outcome.status}: {outcome.reason}")


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
