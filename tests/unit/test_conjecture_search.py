"""The lab's search (verify.experiments.conjectures.search and the runner): budgets, rotation, growing sizes, exhaustion, shrinking."""

from fractions import Fraction

import pytest
from hypothesis import strategies as st

from verify.core.config import Configuration
from verify.experiments.conjectures import base
from verify.experiments.conjectures.base import Conjecture, Observation, run_conjecture
from verify.experiments.conjectures.search import (FOCUS_EXAMPLES, ROUND_EXAMPLES, SIZE_LEVELS, Branch, Budget, branches_of,
                                       level_sizes, round_seed, rounds)
from verify.strategies import configurations, outside_configurations


def _labelled(label: str) -> st.SearchStrategy[Configuration]:
    return st.integers(1, 10 ** 6).map(lambda x: Configuration(tokens=((Fraction(x),),), alpha=Fraction(1),
                                                                 name=f"{label}-seed{x}"))


def test_configurations_are_searched_family_by_family_within_their_bounds():
    branches = branches_of(configurations(max_n=8, max_d=2))
    labels = [b.label for b in branches]
    assert "generic" in labels and "sphere_points" in labels and "coplanar" not in labels  # coplanar needs d >= 3
    # Outside kinds too, each with its own minimum (duplicates need two tokens).
    assert [b.label for b in branches_of(outside_configurations(("duplicates", "indefinite"), max_d=1))] == ["duplicates"]
    # A plain strategy is one branch; a list is one branch per item.
    assert len(branches_of(_labelled("x"))) == 1 and len(branches_of([_labelled("x"), _labelled("y")])) == 2


def test_rounds_rotate_through_the_branches_and_grow_the_sizes():
    branches = [Branch.fixed(name, _labelled(name)) for name in ("a", "b", "c")]
    first = [r for _, r in zip(range(9), rounds(branches, seed=0))]
    assert [r.branch.label for r in first] == ["a", "b", "c"] * 3
    assert [r.level for r in first] == [0, 0, 0, 1, 1, 1, 2, 2, 2] and not any(r.focus for r in first)
    assert len({r.seed for r in first}) == 9 and first[4].seed == round_seed(0, 4) != round_seed(1, 4)
    assert level_sizes(0) == SIZE_LEVELS[0] and level_sizes(99) == SIZE_LEVELS[-1]
    # With a target, each rotation ends with longer rounds on the branch the search names.
    focused = [r for _, r in zip(range(10), rounds(branches, seed=0, focus=lambda: branches[1]))]
    assert [r.branch.label for r in focused] == ["a", "b", "c", "b", "b", "a", "b", "c", "b", "b"]
    assert [r.examples for r in focused if r.focus] == [FOCUS_EXAMPLES] * 4


def test_each_family_gets_its_share_and_sizes_grow_with_the_budget():
    conjecture = Conjecture("sizes", "s", configurations(family=("generic", "collinear"), max_n=12, max_d=3),
                            lambda c: Observation.held(n=c.n))
    result = run_conjecture(conjecture, examples=4 * ROUND_EXAMPLES, seed=0)
    assert result.by_family == {"generic": 2 * ROUND_EXAMPLES, "collinear": 2 * ROUND_EXAMPLES}
    max_n, max_d = SIZE_LEVELS[0]
    assert max(int(k.split(",")[0].split("=")[1]) for k in result.by_size) > max_n  # the second rotation grew
    small = run_conjecture(conjecture, examples=2 * ROUND_EXAMPLES, seed=0)  # the first rotation only
    assert small.coverage["n"][1] <= max_n and small.coverage["d"][1] <= max_d


def test_a_budget_in_seconds_stops_the_search_and_says_so():
    def slow(config: Configuration) -> Observation:
        import time
        time.sleep(0.02)
        return Observation.held()

    result = run_conjecture(Conjecture("slow", "s", _labelled("x"), slow), seconds=0.3, seed=0)
    assert result.outcome == "not refuted" and result.search["stopped_by"] == "time"
    assert result.budget == Budget(seconds=0.3) and result.seconds >= 0.3 and 0 < result.examples_run
    assert "budget of seconds" in result.reason
    # Both given: whichever comes first (here the examples).
    both = run_conjecture(Conjecture("slow", "s", _labelled("x"), slow), seconds=600, examples=3, seed=0)
    assert both.search["stopped_by"] == "examples" and both.examples_run == 3


def test_the_default_budget_is_in_seconds():
    assert run_conjecture.__kwdefaults__["examples"] is None and run_conjecture.__kwdefaults__["seconds"] is None
    result = run_conjecture(Conjecture("tiny", "s", st.just(Configuration(tokens=((Fraction(1),),), alpha=Fraction(1))),
                                       lambda c: Observation.held()), seed=0)
    assert result.budget.seconds == base.DEFAULT_SECONDS and result.budget.examples is None


def test_an_exhausted_strategy_ends_the_search_early():
    one = st.just(Configuration(tokens=((Fraction(1),),), alpha=Fraction(1), name="only"))
    result = run_conjecture(Conjecture("one", "s", one, lambda c: Observation.held()), seconds=600, seed=0)
    assert result.search["stopped_by"] == "exhausted" and result.distinct_examples == 1
    assert "no new example" in result.reason


def test_progress_is_reported_after_every_example():
    seen = []
    run_conjecture(Conjecture("p", "s", _labelled("x"), lambda c: Observation.held()), examples=12, seed=0,
                   progress=seen.append)
    assert [p.examples for p in seen] == list(range(1, 13)) and seen[-1].budget.examples == 12


def test_shrinking_cut_short_reports_the_simplest_failing_example(monkeypatch):
    def big(config: Configuration) -> Observation:
        return Observation.failed("large") if config.tokens[0][0] >= 1000 else Observation.held()

    complete = run_conjecture(Conjecture("big", "s", _labelled("x"), big), examples=50, seed=0)
    assert complete.counterexample["shrinking"]["complete"] and complete.counterexample["config"]["tokens"] == [["1000"]]
    monkeypatch.setattr(base, "SHRINK_CALLS", 2)
    cut = run_conjecture(Conjecture("big", "s", _labelled("x"), big), examples=50, seed=0)
    assert cut.outcome == "counterexample" and not cut.counterexample["shrinking"]["complete"]
    assert Fraction(cut.counterexample["config"]["tokens"][0][0]) >= 1000  # still a confirmed counterexample


@pytest.mark.parametrize("budget", [{"examples": 0}, {"seconds": 0}, {"seconds": float("inf")}, {}])
def test_bad_budgets_are_refused(budget):
    with pytest.raises(ValueError):
        Budget(**budget)


def test_the_focus_goes_to_the_branch_that_pushed_the_target_highest():
    # "x" gives values up to 9, "y" up to 10**6: after the first rotation the focus rounds draw from "y".
    low = st.integers(1, 9).map(lambda x: Configuration(tokens=((Fraction(x),),), alpha=Fraction(1), name="low"))
    conjecture = Conjecture("t", "s", [low, _labelled("high")], lambda c: Observation.held(value=c.tokens[0][0]),
                            target="value")
    result = run_conjecture(conjecture, examples=2 * ROUND_EXAMPLES + 2 * FOCUS_EXAMPLES, seed=0)
    low_label, high_label = result.search["branches"]  # a plain strategy's branch is named by its repr
    assert result.search["focus"] == {high_label: 1} and low_label != high_label
    assert result.by_family == {"low": ROUND_EXAMPLES, "high": ROUND_EXAMPLES + 2 * FOCUS_EXAMPLES}
