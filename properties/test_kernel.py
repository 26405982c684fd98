"""Coq's kernel agrees with ``check`` (docs/formal.md): on every configuration, a claim is
kernel-checked only where ``check`` certified it, everything ``check`` certified from D7 fates and
D9 paths is kernel-checked (D2 and T4 when A has an exact LDL^T with positive pivots; D1 and D3
always; within the documented limits), a T0 that ``check`` finds failed with a D11 similarity
certificate is kernel-checked as failed, and the kernel never rejects what ``check`` certified.

Each example is one coqc run (a fraction of a second), so the examples are fewer than the
profile's.
"""

from hypothesis import example, given, settings

from verify.claims import check_configuration
from verify.core.linalg import is_symmetric_positive_definite, ldl_decomposition
from verify.core.families import TIE_FAMILIES, generate
from verify.formal.prove import prove_records
from verify.formal.tasks import COVERED_CLAIMS, KERNEL_CHECKED, REJECTED
from verify.strategies import configurations, outside_configurations


def _agree(config) -> None:
    report = check_configuration(config, cross_check=False).to_json_dict()
    result = prove_records([("example", report)])
    claims = result.records[0][1]
    d7_only = all(f["kind"] in ("leader", "fixed", "locked", "path") for f in report["fates"])
    spd = ldl_decomposition(config.A_matrix) is not None and is_symmetric_positive_definite(config.A_matrix)
    expected = {"D1", "D3"} | ({"D2"} if spd else set())
    leaders = any(f["kind"] == "leader" or (f["kind"] == "path" and f["set"] == [f["token"]]) for f in report["fates"])
    polytope = all(report["verdicts"][c]["status"] == "certified" for c in ("T2", "T3"))
    if d7_only and leaders:
        expected |= {"T0", "T1", "replay"} | ({"T2", "T3"} if polytope else set()) | ({"T4"} if spd and polytope else set())
    for claim, outcome in claims.items():
        certified = report["verdicts"][claim]["status"] == "certified"
        assert outcome.status != REJECTED, (claim, outcome.reason)
        # D11: the kernel proves a failed T0 (no token ever leads) from its similarity certificate.
        proved_failure = (claim == "T0" and report["verdicts"]["T0"]["status"] == "failed"
                          and isinstance(report["verdicts"]["T0"].get("evidence"), dict)
                          and "similarity" in report["verdicts"]["T0"]["evidence"])
        if outcome.status == KERNEL_CHECKED:
            assert (certified and claim in COVERED_CLAIMS) or proved_failure, claim
        elif proved_failure and not _documented_limit(outcome.reason):
            raise AssertionError(f"T0 fails with a D11 certificate, but {outcome.status}: {outcome.reason}")
        elif certified and claim in expected and not _documented_limit(outcome.reason):
            raise AssertionError(f"{claim}: certified, but {outcome.status}: {outcome.reason}")


def _documented_limit(reason: str) -> bool:
    """What may stop the kernel on a certified claim: docs/formal.md's limits (time, memory, sign thresholds)."""
    return any(words in reason for words in ("no sign threshold below", "did not finish", "ran out of memory"))


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
@example(generate("rotating_polygons", 1, n=3, d=2))  # no leader ever: T0 fails with a D11 certificate
def test_kernel_agrees_with_check_outside_the_hypotheses(config):
    _agree(config)
