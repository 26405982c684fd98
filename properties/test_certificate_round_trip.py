"""Round trip: everything :func:`verify.claims.check_configuration` produces, the independent checker accepts.

Not a claim of docs/theory.md but the condition under which a certificate means anything: for every
family of :mod:`verify.core.families` (inside and outside the hypotheses) and many seeds, the claims
report of the producer, read back from JSON, must verify in full with :mod:`verify.certcheck`:
no certificate rejected, every inconclusive verdict one the checker's own replay confirms, the
report's status, fates and layers the replay's, and its replay work within the checker's
default limit. A producer/checker mismatch (a T4 projection listing its tokens as [4, 2, 3]
where the checker reads a sorted list) made ``report --seed 11`` exit 1; this property is the
test that would have caught it.
"""

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import certcheck
from verify.claims import check_configuration
from verify.core.families import FAMILIES, MATRIX_KINDS, generate
from verify.app.campaign import build_configuration, default_spec, plan_tasks
from verify.testing import fail_claim

ALPHAS = ("1/10", "1/2", "2", "10")  # the default campaign's


def _round_trip(config, *, layer_budget: int) -> certcheck.CheckResult:
    report = json.loads(json.dumps(check_configuration(config, layer_budget=layer_budget,
                                                       cross_check=False).to_json_dict()))
    n, d = len(report["config"]["tokens"]), len(report["config"]["tokens"][0])
    assert certcheck.replay_work(n, d, report["last_layer"]) <= certcheck.DEFAULT_MAX_WORK
    result = certcheck.check_report(report, source=config.name or "config")
    rejected = [o for o in result.outcomes if o.status in ("rejected", "unsupported")]
    if rejected:
        fail_claim("certcheck", config, f"the checker rejects what the producer emitted: {rejected[0].claim}: "
                   f"{rejected[0].reason}", layer=report["last_layer"], lhs=len(rejected), rhs=0,
                   compared="rejected or unsupported outcomes vs 0")
    return result


@st.composite
def family_configurations(draw, family: str):
    spec = FAMILIES[family]
    d = draw(st.integers(max(spec.min_d, 1), 3))
    n = draw(st.integers(max(spec.min_n, 1), 12))
    kind = None
    if not spec.outside:
        kind = draw(st.sampled_from(spec.matrices or MATRIX_KINDS))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return generate(family, seed, n=n, d=d, alpha=Fraction(draw(st.sampled_from(ALPHAS))), matrix=kind)


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FAMILIES))
@settings(max_examples=12)
@given(data=st.data())
def test_every_certificate_the_producer_emits_is_accepted(family, data):
    config = data.draw(family_configurations(family))
    _round_trip(config, layer_budget=60)


def test_report_seed_11_T4_projection_tokens_regression():
    # generic-110021 of the default campaign at seed 11: three tokens share a non-vertex limit;
    # the projection entry listed them as [4, 2, 3] and the checker (sorted lists) rejected T4.
    task = next(t for t in plan_tasks(default_spec(), seed=11) if t.name == "generic-110021")
    result = _round_trip(build_configuration(task), layer_budget=task.layer_budget)
    t4 = next(o for o in result.outcomes if o.claim == "T4")
    assert t4.status == "verified" and result.exit_status == 0
