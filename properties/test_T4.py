"""T4 (docs/theory.md §2): "every non-vertex point of S is the A-norm projection of the origin onto
a face of K".

Non-vertex limits only arise from persistent ties, so the tie families of
:mod:`verify.core.families` (mirror_ties: any SPD A through the exact LDL^T change of variables;
sphere_ties: A = c I with rational rotations and scalings) are built to produce at least one
in every example; the property checks that the claim check finds them and certifies each
exactly (KKT conditions in rationals, docs/theory.md D7). The cvxpy projection onto the same face
is a cross-check whose agreement is counted with ``hypothesis.event``, never a proof.
"""

from hypothesis import given

from verify.claims import check_configuration
from verify.core.families import TIE_FAMILIES
from verify.strategies import configurations
from verify.testing import assert_claim_certified, fail_claim, record_event


@given(configurations(family=TIE_FAMILIES, max_n=10, max_d=3))
def test_non_vertex_limits_are_projections_of_the_origin(config):
    report = check_configuration(config, cross_check=True)
    verdict = assert_claim_certified(report, "T4")
    if verdict.status != "certified":
        return
    found = verdict.evidence.get("non_vertex_limits", 0)
    if found == 0:
        fail_claim("T4", config, "a tie family produced no non-vertex limit: the T4 check was vacuous",
                   fates=[f.to_json_dict() for f in report.fates])
    record_event(f"T4: {min(found, 3)}{'+' if found >= 3 else ''} non-vertex limit{'' if found == 1 else 's'}")
    kinds = {f.kind for f in report.fates}
    record_event("T4 via a fixed non-leader (D7 b)" if "fixed" in kinds else "T4 via locked tokens only")
    for cross in verdict.cross_checks:
        record_event(f"T4 cvxpy cross-check {'agrees' if cross.get('agree') else 'disagrees or failed'}")


@given(configurations())
def test_non_vertex_limits_are_projections_in_any_configuration(config):
    report = check_configuration(config, cross_check=False)
    verdict = assert_claim_certified(report, "T4")
    record_event("T4 vacuous" if verdict.evidence.get("non_vertex_limits", 0) == 0 else "T4 non-vacuous")
