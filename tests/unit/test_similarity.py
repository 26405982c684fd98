"""D11 similarity certificates (docs/theory.md D11): found by verify.core.similarity, used by the claim checks,
re-verified by the independent checker (verify/certcheck/kernel/similarity.py), and every tampered field rejected."""

import copy
import json
from fractions import Fraction

import pytest

from verify import certcheck
from verify.claims import check_configuration
from verify.core.config import make_configuration
from verify.core.exact_dynamics import exact_layers
from verify.core.linalg import matmul, transpose
from verify.core.similarity import Similarity, check_similarity, contraction_power, find_similarity

F = Fraction
ROTATING_SQUARE = make_configuration([[1, 0], [0, 1], [-1, 0], [0, -1]], alpha=1, A=[[1, -2], [2, 1]],
                                     outside_hypotheses=True, name="rotating square")
# The same square in the plane x3 = 0 of R^3: the layers span only that plane, so M is extended on x3.
SQUARE_IN_3D = make_configuration([[1, 0, 0], [0, 1, 0], [-1, 0, 0], [0, -1, 0]], alpha="1/3",
                                  A=[[1, -2, 0], [2, 1, 0], [0, 0, 1]], outside_hypotheses=True)
# The regular tetrahedron whose vertices attend to the next one under A = I + 2 (R - R^T): the axis of the
# rotoreflection R and its plane shrink at different rates, so no layer is a similar copy of an earlier one.
CYCLIC_TETRAHEDRON = make_configuration([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], alpha="1/2",
                                        A=[[1, 0, 4], [0, 1, 0], [-4, 0, 1]], outside_hypotheses=True)


def _layers(config, count):
    layers = []
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A):
        layers.append([tuple(p) for p in layer.positions()])
        if layer.index == count:
            return layers
    raise AssertionError("unreachable")


def _first_similarity(config, count=12):
    layers = _layers(config, count)
    for end in range(1, count + 1):
        found = find_similarity(layers[:end + 1], config.A_matrix)
        if found is not None:
            return found, layers
    return None, layers


def test_rotating_square_repeats_after_one_layer():
    found, layers = _first_similarity(ROTATING_SQUARE)
    assert found is not None and (found.layer, found.period) == (0, 1)
    assert found.M == ((F(1, 2), F(-1, 2)), (F(1, 2), F(1, 2))) and found.scale == F(1, 2)
    assert found.contraction_power == 2  # M^2 = J / 2: row sums 1/2
    M, A = found.M, ROTATING_SQUARE.A_matrix
    assert matmul(transpose(M), matmul(A, M)) == [[found.scale * x for x in row] for row in A]
    assert check_similarity(layers, A, found)


def test_a_plane_configuration_in_three_dimensions_gets_M_on_the_complement():
    found, layers = _first_similarity(SQUARE_IN_3D)
    assert found is not None and found.period == 2  # s = (1 + 1/9) / (16/9) = 5/8 is no square; s^2 is
    assert found.M[2] == (0, 0, F(5, 8)) and check_similarity(layers, SQUARE_IN_3D.A_matrix, found)


def test_no_similarity_where_the_rates_differ():
    found, _ = _first_similarity(CYCLIC_TETRAHEDRON, count=16)
    assert found is None


@pytest.mark.parametrize("change", [
    lambda c: Similarity(c.layer, c.period, ((F(1), F(0)), (F(0), F(1))), c.relabelling, c.scale, None),
    lambda c: Similarity(c.layer, c.period, c.M, (1, 2, 3, 0), c.scale, None),
    lambda c: Similarity(c.layer, c.period, c.M, c.relabelling, F(1, 4), None),
    lambda c: Similarity(c.layer, c.period, c.M, c.relabelling, c.scale, 1),  # ||M||_inf = 1, not below
])
def test_the_suite_check_refuses_a_wrong_certificate(change):
    found, layers = _first_similarity(ROTATING_SQUARE)
    assert found is not None and not check_similarity(layers, ROTATING_SQUARE.A_matrix, change(found))


def test_contraction_power():
    assert contraction_power([[F(1, 2), F(-1, 2)], [F(1, 2), F(1, 2)]]) == 2
    assert contraction_power([[F(1), F(0)], [F(0), F(1, 2)]]) is None


# ---------------------------------------------------------------------------------------------
# check: T0 fails, certified, and the other claims say why they do not apply


def test_check_fails_T0_with_the_certificate_and_stops():
    report = check_configuration(ROTATING_SQUARE, cross_check=False)
    assert report.stopped_by == "similarity" and report.layers_run == 1 and report.settled_layer is None
    T0 = report.verdicts["T0"]
    assert T0.status == "failed" and T0.certificate is None and T0.evidence["similarity"]["period"] == 1
    assert "no token is ever a leader" in T0.summary
    for claim in ("T1", "T2", "T3", "T4"):
        verdict = report.verdicts[claim]
        assert verdict.status == "inconclusive" and verdict.summary.startswith("not applicable: no token is ever a leader")
        assert "every token converges to 0" in verdict.summary
    assert report.verdicts["D2"].status == "failed"  # the Euclidean norm halves: D2 needs symmetric A


def test_inside_the_hypotheses_no_run_looks_for_a_similarity():
    config = make_configuration([[1, 0], [0, 1], [-1, 0], [0, -1]], alpha=1)  # a leader at layer 0 (D0)
    report = check_configuration(config, cross_check=False)
    assert report.run.similarity is None and report.status == "certified"


def _report_json(config):
    return json.loads(json.dumps(check_configuration(config, cross_check=False).to_json_dict()))


def test_certcheck_re_verifies_the_certificate():
    result = certcheck.check_report(_report_json(ROTATING_SQUARE))
    statuses = {o.claim: o.status for o in result.outcomes}
    # Two certificates of falsity: T0's similarity, and D2's norms (the tokens shrink to 0, so |x|^2 = x^T A x falls).
    reasons = {o.claim: o.reason for o in result.outcomes if o.status == "failed"}
    assert set(reasons) == {"T0", "D2"} and all(r.startswith("re-verified") for r in reasons.values())
    assert result.certificates_of_falsity == 2 and "rejected" not in statuses.values()
    assert result.exit_status == 1 and "a verified certificate shows the file's statement FALSE" in result.verdict_line()
    result = certcheck.check_report(_report_json(SQUARE_IN_3D))
    assert result.certificates_of_falsity == 2 and all(o.status != "rejected" for o in result.outcomes)


@pytest.mark.parametrize("field,value", [
    ("M", [["1/2", "1/2"], ["1/2", "1/2"]]), ("relabelling", [1, 2, 3, 0]), ("relabelling", [0, 0, 1, 2]),
    ("scale", "1/4"), ("scale", "-1/2"), ("period", 2), ("layer", 1), ("contraction_power", 1),
    ("format", "hardmax-verify/similarity-v0"), ("extra", 1)])
def test_certcheck_rejects_a_tampered_certificate(field, value):
    data = _report_json(ROTATING_SQUARE)
    data["verdicts"]["T0"]["evidence"]["similarity"][field] = value
    result = certcheck.check_report(data)
    rejected = [o for o in result.outcomes if o.status == "rejected"]
    assert result.exit_status == 1 and result.certificates_of_falsity == 1  # D2's decreasing norms, untouched
    assert [o.claim for o in rejected][:1] == ["T0"] and "D2" not in [o.claim for o in rejected], rejected


def test_certcheck_rejects_a_leader_before_the_certificate_and_a_stop_without_one():
    # With A = I the square's vertices lead and stay: Z^1 = I Z^0 holds, but a leader at layer 0 means the
    # certificate does not show that no token is ever a leader.
    data = _report_json(make_configuration([[1, 0], [0, 1], [-1, 0], [0, -1]], alpha=1))
    data["verdicts"]["T0"] = {"claim": "T0", "status": "failed", "summary": "forged", "evidence": {"similarity": {
        "format": "hardmax-verify/similarity-v1", "layer": 0, "period": 1, "M": [["1", "0"], ["0", "1"]],
        "relabelling": [0, 1, 2, 3], "scale": "1", "contraction_power": None}}}
    result = certcheck.check_report(data)
    assert any(o.claim == "T0" and o.status == "rejected" and "leads at layer 0" in o.reason for o in result.outcomes)
    data = _report_json(ROTATING_SQUARE)
    del data["verdicts"]["T0"]["evidence"]["similarity"]
    result = certcheck.check_report(data)
    assert any(o.claim == "(run)" and "stopped_by is 'similarity'" in o.reason for o in result.outcomes)


def test_certcheck_accepts_a_relabelled_certificate_it_was_never_shown():
    # d = 1, A = -1, alpha = 2: tokens 1 and -1 attend to each other and land on -1/3 and 1/3, so
    # Z^1 = (1/3) P Z^0 with P the swap (M = 1/3, s = 1/9), written by hand.
    config = make_configuration([[1], [-1]], alpha=2, A=[[-1]], outside_hypotheses=True)
    data = _report_json(config)
    evidence = data["verdicts"]["T0"]["evidence"]
    evidence["similarity"] = {"format": "hardmax-verify/similarity-v1", "layer": 0, "period": 1, "M": [["1/3"]],
                              "relabelling": [1, 0], "scale": "1/9", "contraction_power": 1}
    assert certcheck.check_report(copy.deepcopy(data)).certificates_of_falsity == 1
    evidence["similarity"]["relabelling"] = [0, 1]
    assert certcheck.check_report(data).certificates_of_falsity == 0
