"""The conjecture runner (verify.experiments.conjectures.base): outcomes, budgets, shrinking, exact re-check, files, determinism."""

import json
from fractions import Fraction

import pytest
from hypothesis import strategies as st

from verify.core.config import Configuration, load_configuration
from verify.experiments.conjectures.base import (Conjecture, InternalError, Observation, coverage_sentence, family_of,
                                                 result_stem, run_conjecture)


def _line(x: int) -> Configuration:
    return Configuration(tokens=((Fraction(x),), (Fraction(x + 1),)), alpha=Fraction(1, 2),
                         outside_hypotheses=True, name="line-seed7-n2-d1")


LINE = st.integers(-100, 100).map(_line)


def below_five(config: Configuration) -> Observation:
    x = config.tokens[0][0]
    if x >= 5:
        return Observation.failed(f"first token {x} >= 5", evidence={"x": str(x)})
    return Observation.held(value=x)


def test_known_false_is_refuted_with_the_minimal_example_saved_and_rechecked(tmp_path):
    conjecture = Conjecture("below five", "The first token is below 5.", LINE, below_five)
    result = run_conjecture(conjecture, examples=50, seed=3, results_dir=tmp_path)
    # No expectation stated: a counterexample is neither "as expected" nor a surprise, and it exits 1.
    assert result.outcome == "counterexample" and result.verdict == "counterexample" and not result.surprise
    assert result.exit_status == 1
    # Hypothesis shrinks integers towards 0, so the minimal failing first token is exactly 5.
    assert result.counterexample["config"]["tokens"] == [["5"], ["6"]]
    assert result.counterexample["confirmation"]["status"] == "failed"
    saved = load_configuration(result.counterexample_path)  # refused if it were outside without the flag
    assert saved.tokens[0] == (Fraction(5),)
    # 5 and 6 are nonzero and distinct, A = I: inside the hypotheses, so the flag is not written.
    assert not saved.outside_hypotheses and "outside_hypotheses" not in json.loads(result.counterexample_path.read_text())
    # The name has a space: the file name is the cleaned name and a hash of the exact one (result_stem).
    stem = result_stem("below five")
    assert stem.startswith("below_five~")
    assert result.counterexample_path.relative_to(tmp_path).as_posix() == f"counterexamples/{stem}.json"
    assert result.result_path == tmp_path / f"{stem}.json"
    written = json.loads((tmp_path / f"{stem}.json").read_text())
    assert written["outcome"] == "counterexample"
    assert written["expected"] is None and written["surprise"] is False and written["exit_status"] == 1
    shrink = result.counterexample["shrinking"]
    assert shrink["reported"]["n"] <= shrink["first_found"]["n"]


@pytest.mark.parametrize("examples, expected", [(1, "not refuted by 1 example (1 distinct) from 1 family ("),
                                                (2, "not refuted by 2 examples (2 distinct) from 1 family (")])
def test_the_reason_counts_the_examples_and_families_searched(examples, expected):
    conjecture = Conjecture("small", "The first token is at most 100.", LINE,
                            lambda c: Observation.held(value=c.tokens[0][0]))
    assert run_conjecture(conjecture, examples=examples, seed=0).reason.startswith(expected)


def test_known_true_is_not_refuted_with_counts_families_measurements_and_coverage(tmp_path):
    conjecture = Conjecture("small", "The first token is at most 100.", LINE,
                            lambda c: Observation.held(value=c.tokens[0][0]))
    result = run_conjecture(conjecture, examples=30, seed=0, results_dir=tmp_path)
    # Never "held": a search can only fail to refute. Without an expectation the outcome is the verdict.
    assert result.outcome == "not refuted" and result.verdict == "not refuted" and result.exit_status == 0
    assert result.examples_run == 30 and result.status_counts["held"] == result.examples_run
    assert result.search["stopped_by"] == "examples" and result.budget.examples == 30 and result.budget.seconds is None
    # Coverage: the ranges of n, d and of the quantity the predicate measured.
    seen = [int(v) for v in result.measurements["value"]["distribution"]]
    assert result.coverage["n"] == [2, 2] and result.coverage["measurements"]["value"] == [min(seen), max(seen)]
    assert "n 2, d 1" in coverage_sentence(result.coverage) and "value " in coverage_sentence(result.coverage)
    assert result.by_family == {"line": result.examples_run}
    value = result.measurements["value"]
    assert value["count"] == result.examples_run
    assert Fraction(value["worst"]) == max(Fraction(k) for k in value["distribution"])
    assert result.counterexample is None


def test_a_search_failure_the_rigorous_check_rejects_is_not_reported(tmp_path):
    # The search predicate says false, the rigorous re-check says true: a "float artefact".
    conjecture = Conjecture("artefact", "Always true, but the search check is wrong.", LINE, below_five,
                            confirm=lambda c: Observation.held("exact re-check holds"))
    result = run_conjecture(conjecture, examples=50, seed=3, results_dir=tmp_path)
    assert result.outcome == "inconclusive" and result.exit_status == 3
    assert "did not confirm" in result.reason
    assert not list(tmp_path.rglob("counterexamples/*.json"))
    assert "unconfirmed_candidate" in result.counterexample


def test_undecided_examples_make_the_outcome_inconclusive_with_the_reason(tmp_path):
    conjecture = Conjecture("budget", "Something needing more layers.", LINE,
                            lambda c: Observation.undecided("layer budget spent"))
    result = run_conjecture(conjecture, examples=10, seed=0, results_dir=None)
    assert result.outcome == "inconclusive" and "layer budget spent" in result.reason


def test_a_raising_predicate_is_inconclusive_never_a_counterexample():
    def broken(config):
        raise ZeroDivisionError("oops")

    result = run_conjecture(Conjecture("broken", "s", LINE, broken), examples=5, seed=0, results_dir=None)
    assert result.outcome == "inconclusive"
    assert "ZeroDivisionError" in result.reason and result.counterexample is None


@pytest.mark.parametrize("where", ["predicate", "confirm"])
def test_an_internal_error_stops_the_run_at_once_and_is_raised_never_an_outcome(where, tmp_path):
    # Two of the suite's computations disagreeing (a measured deviation above a certified bound) is a bug:
    # the run ends at the first such example, nothing is shrunk, nothing is written, and the error propagates.
    calls = []

    def disagreeing(config):
        calls.append(config)
        if len(calls) == 3:
            raise InternalError("bound below the measurement")
        return Observation.held(value=config.tokens[0][0])

    def refuting(config):
        calls.append(config)
        return Observation.failed("always false")

    def internal(config):
        raise InternalError("the checker rejects the exact certificate")

    conjecture = (Conjecture("bug", "s", LINE, disagreeing) if where == "predicate"
                  else Conjecture("bug", "s", LINE, refuting, confirm=internal))
    with pytest.raises(InternalError, match="INTERNAL ERROR .*not a counterexample"):
        run_conjecture(conjecture, examples=50, seed=0, results_dir=tmp_path)
    if where == "predicate":
        assert len(calls) == 3  # no further example, no shrinking
    assert not list(tmp_path.rglob("*.json"))


def test_a_strategy_that_cannot_generate_is_inconclusive():
    never = LINE.filter(lambda c: False)
    result = run_conjecture(Conjecture("empty", "s", never, below_five), examples=5, seed=0, results_dir=None)
    assert result.outcome == "inconclusive"


def _without_timing(path):
    data = json.loads(path.read_text())
    data.pop("timing")
    return data


def test_same_seed_and_budget_in_examples_same_result(tmp_path):
    # Everything but the wall and CPU times ("timing") is the same, byte for byte once they are left out.
    conjecture = Conjecture("below five", "The first token is below 5.", LINE, below_five)
    run_conjecture(conjecture, examples=40, seed=11, results_dir=tmp_path / "a")
    run_conjecture(conjecture, examples=40, seed=11, results_dir=tmp_path / "b")
    stem = result_stem("below five")
    assert _without_timing(tmp_path / "a" / f"{stem}.json") == _without_timing(tmp_path / "b" / f"{stem}.json")
    name = f"counterexamples/{stem}.json"
    assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    held = Conjecture("small", "The first token is at most 100.", LINE, lambda c: Observation.held(value=c.tokens[0][0]))
    first, second = (run_conjecture(held, examples=35, seed=5).to_json_dict() for _ in range(2))
    first.pop("timing"), second.pop("timing")
    assert json.dumps(first) == json.dumps(second)


def test_result_files_cannot_escape_the_results_folder(tmp_path):
    conjecture = Conjecture("../../escape/me", "s", LINE, lambda c: Observation.held())
    run_conjecture(conjecture, examples=3, seed=0, results_dir=tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == [f"{result_stem('../../escape/me')}.json"]
    assert result_stem("../../escape/me").startswith("escape_me~")


def test_regression_names_that_clean_alike_get_separate_files(tmp_path):
    # "x/y" and "x_y" both cleaned to x_y.json: the second run overwrote the first one's results.
    for name in ("x/y", "x_y", "x y"):
        run_conjecture(Conjecture(name, "s", LINE, lambda c: Observation.held()), examples=3, seed=0,
                       results_dir=tmp_path)
    written = {json.loads(p.read_text())["conjecture"]: p.name for p in tmp_path.glob("*.json")}
    assert sorted(written) == ["x y", "x/y", "x_y"]
    assert written["x_y"] == "x_y.json" and len(set(written.values())) == 3


@pytest.mark.parametrize("name, family", [
    ("coplanar-seed0-n3-d3", "coplanar"), ("generic (drawn by Hypothesis)", "generic"),
    ("psd_rank1_d3", "psd_rank1_d3"), (None, "unnamed"),
])
def test_family_labels(name, family):
    config = Configuration(tokens=((Fraction(1),),), alpha=Fraction(1), name=name)
    assert family_of(config) == family


def test_ctrl_c_leaves_no_file(tmp_path):
    calls = []

    def interrupted(config):
        calls.append(config)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return Observation.held()

    with pytest.raises(KeyboardInterrupt):
        run_conjecture(Conjecture("stopped", "s", LINE, interrupted), examples=20, seed=0, results_dir=tmp_path / "out")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*"))


def test_an_expected_refutation_is_as_expected_and_an_unexpected_hold_a_surprise(tmp_path):
    refuted = Conjecture("below five, known false", "The first token is below 5.", LINE, below_five,
                         expected="refuted")
    result = run_conjecture(refuted, examples=50, seed=3, results_dir=tmp_path)
    assert result.outcome == "counterexample" and result.verdict == "as expected" and result.exit_status == 0
    written = json.loads(result.result_path.read_text())
    assert written["expected"] == "refuted" and written["surprise"] is False and written["exit_status"] == 0

    never_refuted = Conjecture("at most 100, thought false", "The first token is above 100.", LINE,
                               lambda c: Observation.held(), expected="refuted")
    result = run_conjecture(never_refuted, examples=10, seed=0)
    assert result.outcome == "not refuted" and result.verdict == "surprise" and result.exit_status == 1
    believed = Conjecture("believed", "The first token is at most 100.", LINE, lambda c: Observation.held(),
                          expected="held")
    result = run_conjecture(believed, examples=10, seed=0)
    assert result.outcome == "not refuted" and result.verdict == "consistent with the expectation"
    assert result.exit_status == 0


def test_inconclusive_is_neither_expected_nor_a_surprise():
    conjecture = Conjecture("undecided", "Nothing is decided.", LINE, lambda c: Observation.undecided("budget"),
                            expected="refuted")
    result = run_conjecture(conjecture, examples=5, seed=0)
    assert result.verdict == "inconclusive" and not result.surprise and result.exit_status == 3


@pytest.mark.parametrize("expected", ["true", "open", "maybe", "not refuted"])
def test_an_expectation_other_than_held_refuted_or_none_is_refused(expected):
    with pytest.raises(ValueError, match="held.*refuted"):
        Conjecture("x", "x", LINE, below_five, expected=expected)


def test_no_expectation_is_the_default():
    assert Conjecture("x", "x", LINE, below_five).expected is None


def test_a_counterexample_outside_the_hypotheses_records_it(tmp_path):
    # The origin is outside the hypotheses (docs/theory.md D4): the saved file must say so, or it would be refused.
    with_origin = st.integers(1, 9).map(lambda x: Configuration(tokens=((Fraction(0),), (Fraction(x),)),
                                                                 alpha=Fraction(1), outside_hypotheses=True))
    conjecture = Conjecture("no origin", "No token is the origin.", with_origin,
                            lambda c: Observation.failed("the origin") if not any(c.tokens[0]) else Observation.held())
    result = run_conjecture(conjecture, examples=5, seed=0, results_dir=tmp_path)
    assert json.loads(result.counterexample_path.read_text())["outside_hypotheses"] is True
    assert load_configuration(result.counterexample_path).outside_hypotheses
