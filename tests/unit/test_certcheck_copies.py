"""The sentences and rules the checker re-derives, typed into it a second time, are the suite's own.

The checker compares with the file what it derives itself, and a few of those are the producer's
words or naming rules (verify/certcheck/ imports nothing of the package): the hypothesis
violations a claims report lists, the reasons of a control result, a softmax stop's explanation,
a record's convergence label, the file names of the report's counterexamples, what a similarity
certificate says of the limits. Each copy is compared with the producer's here, on inputs that make
the producer write each of them.
"""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import pytest

from verify import certcheck
from verify.certcheck import control as checker_control
from verify.certcheck import results as checker_results
from verify.certcheck.kernel import run as checker_run
from verify.certcheck.kernel.model import Model
from verify.core.config import hypothesis_violations, parse_configuration
from verify.core.io import safe_name
from verify.core.softmax_bound import Stop

REPO = Path(__file__).resolve().parents[2]

CONFIGURATIONS = {
    "inside": {"tokens": [["1", "0"], ["0", "1"]], "alpha": "1/2"},
    "origin and a repeat": {"tokens": [["0", "0"], ["1", "2"], ["1", "2"], ["0", "0"]], "alpha": "1/2"},
    "A not symmetric": {"tokens": [["1", "0"], ["0", "1"]], "alpha": "1/2", "A": [["1", "1"], ["0", "1"]]},
    "A not positive definite": {"tokens": [["1", "0"], ["0", "1"]], "alpha": "1/2", "A": [["1", "2"], ["2", "1"]]},
    "a value matrix": {"tokens": [["1", "0"], ["0", "1"]], "alpha": "1/2", "V": [["1", "0"], ["0", "2"]]},
    "softmax": {"tokens": [["1", "0"], ["0", "1"]], "alpha": "1/2", "beta": "10"},
}


@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_the_hypothesis_violations_are_the_producer_s_words(name: str) -> None:
    data = dict(CONFIGURATIONS[name], outside_hypotheses=True)
    produced = [f"{field}: {message}" for field, message in hypothesis_violations(parse_configuration(data))]
    assert checker_run.hypothesis_violations(data, Model(data)) == produced
    assert bool(produced) == (name != "inside")


def _string_constants(path: Path) -> set[str]:
    """Every string literal of a module (implicit concatenations joined, as Python reads them)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def test_a_control_result_s_reasons_are_the_producer_s() -> None:
    produced = _string_constants(REPO / "verify" / "experiments" / "control" / "design.py")
    for key, reason in checker_control.REASONS.items():
        assert reason == "" or reason in produced, key
    assert " with the requested targets" in produced  # the impossible reason's suffix with requested targets


@pytest.mark.parametrize("stop", [Stop(3, "tie", token=2, tokens=(0, 1)), Stop(5, "margin")])
def test_a_softmax_stop_s_explanation_is_the_producer_s(stop: Stop) -> None:
    from verify.certcheck.softmax import _stop_explanation

    assert _stop_explanation(stop.to_json_dict()) == stop.describe()


def test_the_convergence_label_is_the_producer_s() -> None:
    from verify.app.campaign.measure import convergence_series, exact_run

    config = parse_configuration(CONFIGURATIONS["inside"])
    assert convergence_series(config, exact_run(config, 2), [])["kind"] == checker_results.CONVERGENCE_KIND


@pytest.mark.parametrize("name", ["generic-30000", "a b/c", "../x", "...", "émerging", "T1", "", "-x-"])
def test_a_counterexample_file_is_named_as_the_report_names_it(name: str) -> None:
    assert checker_results._safe_name(name) == safe_name(name)


def test_the_campaign_embedded_source_is_the_producer_s() -> None:
    from verify.app.campaign import default_spec

    assert default_spec().source == checker_results.EMBEDDED_CAMPAIGN


def test_a_realised_design_is_re_verified_and_a_wrong_one_named() -> None:
    tokens = [["1", "1/3"], ["-1", "-1"], ["3/5", "3/20"]]
    targets = [{"token": 2, "target": 0}]
    assert checker_control.realised_problem(tokens, [["3", "1"], ["1", "1"]], [0, 1], targets, "d") is None
    assert "not positive definite" in checker_control.realised_problem(tokens, [["1", "2"], ["2", "1"]], [0, 1],
                                                                        targets, "d")
    assert "does not attend only to token 1" in checker_control.realised_problem(
        tokens, [["3", "1"], ["1", "1"]], [0, 1], [{"token": 2, "target": 1}], "d")


def test_positive_definiteness_and_the_inverse_are_exact_on_known_answers() -> None:
    from verify.certcheck.kernel.numbers import inverse as _inverse, positive_definite as _positive_definite

    F = Fraction
    assert _positive_definite([[F(2), F(1)], [F(1), F(2)]]) and not _positive_definite([[F(1), F(2)], [F(2), F(1)]])
    assert not _positive_definite([[F(0), F(0)], [F(0), F(1)]])
    assert _inverse([[F(2), F(1)], [F(1), F(1)]]) == [[F(1), F(-1)], [F(-1), F(2)]]
    assert _inverse([[F(0), F(1)], [F(1), F(0)]]) == [[F(0), F(1)], [F(1), F(0)]]  # a row swap
    assert _inverse([[F(1), F(2)], [F(2), F(4)]]) is None
    assert _inverse([[F(1, 2), F(1, 3)], [F(0), F(3, 7)]]) == [[F(2), F(-14, 9)], [F(0), F(7, 3)]]


def test_an_elimination_is_paid_for_before_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A meter with no units left stops the elimination of a 64 x 64 matrix before its first step."""
    from verify.certcheck.kernel import meter
    from verify.certcheck.kernel.numbers import positive_definite as _positive_definite

    d = 64
    S = [[Fraction(d if r == c else 1) for c in range(d)] for r in range(d)]
    with meter.metered(1.0):
        with pytest.raises(meter.WorkLimit):
            _positive_definite(S)
    assert certcheck.setup_work(d, 8, A=True) > certcheck.setup_work(d, 8)


def test_the_specification_input_is_the_producer_s() -> None:
    from verify.app.report.citation import SPECIFICATION_ROLE

    assert (checker_results.SPECIFICATION_ROLE, checker_results.SPECIFICATION_PATH) == (SPECIFICATION_ROLE,
                                                                                        "docs/theory.md")


@pytest.mark.parametrize("power", [None, 1, 2, 16])
def test_a_similarity_certificate_s_limits_sentence_is_the_producer_s(power: int | None) -> None:
    from types import SimpleNamespace

    from verify.certcheck.kernel.similarity import Similarity as CheckedSimilarity
    from verify.claims.run import similarity_evidence
    from verify.core.similarity import Similarity

    found = Similarity(0, 1, ((Fraction(1, 2),),), (0,), Fraction(1, 4), power)
    producer = similarity_evidence(SimpleNamespace(similarity=found))["limits"]  # type: ignore[arg-type]
    assert CheckedSimilarity(0, 1, power is not None, power).limits == producer
