"""docs/theory.md §7's construction: known answers, both variants, genericity redraws, refusals."""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest
from flint import fmpq

from verify.certcheck import classify as checker
from verify.experiments.classify import oracle
from verify.experiments.classify.construction import ConstructionError, _Builder, build_network
from verify.experiments.classify.dataset import InseparableDataset, dataset_to_json, make_dataset
from verify.experiments.classify.strategies import generate_dataset
from verify.core.numbers import InputError

# docs/theory.md §7: in d = 1, (0, 1) and (0, 1/2, 1/2, 1) need a kink inside (0, 1), while
# (2, 3) and (2, 5/2, 5/2, 3) need one inside (2, 3); the pairs have equal means and share tokens.
FOUR_SEQUENCES = make_dataset([[0, 1], [0, "1/2", "1/2", 1], [2, 3], [2, "5/2", "5/2", 3]], [0, 1, 0, 1])


def _certified(result, dataset) -> checker.CheckResult:
    """The independent checker's verdict on a build, through the files' JSON text."""
    outcome = checker.check_objects(json.loads(json.dumps(result.to_json())),
                                    json.loads(json.dumps(dataset_to_json(dataset))))
    assert outcome.exit_status == 0, outcome.summary()
    assert outcome.compared_outputs and not outcome.mismatches
    return outcome


def _feature_gap(first: list, second: list, t: F) -> F:
    def feature(sequence: list) -> F:
        return sum((max(F(x) - t, F(0)) for x in sequence), F(0)) / len(sequence)
    return feature(first) - feature(second)


def test_one_threshold_cannot_separate_the_four_sequences() -> None:
    """The reason for refinement, checked on a grid: each pair's features differ only inside its own interval."""
    a, b, c, e = ([0, 1], [0, F(1, 2), F(1, 2), 1], [2, 3], [2, F(5, 2), F(5, 2), 3])
    for t in (F(k, 8) for k in range(-8, 33)):
        first, second = _feature_gap(a, b, t), _feature_gap(c, e, t)
        assert (first != 0) == (0 < t < 1)
        assert (second != 0) == (2 < t < 3)
        assert first == 0 or second == 0


@pytest.mark.parametrize("width_cap", [None, 4, 3])
def test_four_sequences_need_two_thresholds_and_are_certified(width_cap: int | None) -> None:
    result = build_network(FOUR_SEQUENCES, width_cap=width_cap)
    assert result.record["thresholds"] >= 2
    assert [x[0] for x in result.outputs] == [0, 1, 0, 1]
    _certified(result, FOUR_SEQUENCES)
    finals = oracle.forward(result.to_json(), [FOUR_SEQUENCES.sequence(n) for n in range(4)])
    assert [{x[0] for x in tokens} for tokens in finals] == [{0}, {1}, {0}, {1}]


def test_wide_variant_has_three_blocks_of_the_stated_widths() -> None:
    dataset = generate_dataset(n=30, d=3, max_length=40, seed=3)
    result = build_network(dataset)
    widths = result.network.widths()
    assert len(widths) == 3
    assert widths[0] <= len(dataset) - 1 and widths[1] == 1 and widths[2] <= len(dataset)
    _certified(result, dataset)


def test_narrow_variant_has_width_at_most_four_and_at_most_2n_plus_1_blocks() -> None:
    dataset = generate_dataset(n=30, d=2, max_length=40, seed=5)
    result = build_network(dataset, width_cap=4)
    assert max(result.network.widths()) <= 4
    assert len(result.network.blocks) <= 2 * len(dataset) + 1
    # Width 4 leaves room for one hat of three units per block; width 6 for two.
    assert result.record["read_out"]["layout"].endswith(" of at most 1 hat of three units")
    assert build_network(dataset, width_cap=6).record["read_out"]["layout"].endswith(" of at most 2 hats of three units")
    _certified(result, dataset)


def test_pairs_with_equal_distributions_are_refused_with_their_names() -> None:
    a, b = ["1", "0"], ["0", "1"]
    with pytest.raises(InseparableDataset) as caught:
        build_network(make_dataset([[a, b], [a, a, b, b]], [0, 1]))
    assert caught.value.pair == (0, 1)
    assert "sequences[0], sequences[1]" in str(caught.value)


def test_one_dimensional_data_with_shared_tokens() -> None:
    dataset = make_dataset([[1, 2, 3], [3, 2], [2, 2, 1], [5], [1, 5, 5], [3, 1]], [0, 1, 1, 0, 1, "7/2"])
    for width_cap in (None, 4):
        _certified(build_network(dataset, width_cap=width_cap), dataset)


def test_any_rational_labels_and_a_single_sequence() -> None:
    dataset = make_dataset([[["1", "2"], ["1/3", "-1"]], [["1", "2"]], [["-5", "0"]]], ["-7/3", 10 ** 20, "1/2"])
    _certified(build_network(dataset, width_cap=4), dataset)
    single = make_dataset([[["1", "2"], ["1", "2"]]], ["3"])
    result = build_network(single)
    assert result.record["separation"] == {"needed": False}
    _certified(result, single)


def test_same_seed_same_file_other_seed_also_certified() -> None:
    dataset = generate_dataset(n=20, d=2, max_length=30, seed=11)
    first = json.dumps(build_network(dataset, seed=4).to_json())
    assert json.dumps(build_network(dataset, seed=4).to_json()) == first
    _certified(build_network(dataset, seed=5), dataset)


def test_a_tied_collapse_direction_is_redrawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """With u = (1, 1) the tokens (1, 0) and (0, 1) tie for the top: the construction must redraw."""
    dataset = make_dataset([[["1", "0"], ["0", "1"]], [["2", "2"]]], [0, 1])
    draws = iter([(fmpq(1), fmpq(1)), (fmpq(2), fmpq(1))])
    monkeypatch.setattr(_Builder, "_positive_direction", lambda self, attempt: next(draws))
    result = build_network(dataset)
    assert result.record["redraws"] == {"collapse direction u": 1}
    assert result.record["collapse"]["direction"] == ["2", "1"]
    _certified(result, dataset)


def test_no_generic_draw_is_an_error_not_a_network(monkeypatch: pytest.MonkeyPatch) -> None:
    dataset = make_dataset([[["1", "0"], ["0", "1"]], [["2", "2"]]], [0, 1])
    monkeypatch.setattr(_Builder, "_positive_direction", lambda self, attempt: (fmpq(1), fmpq(1)))
    with pytest.raises(ConstructionError, match="collapse direction"):
        build_network(dataset)


def test_width_cap_below_three_is_refused() -> None:
    with pytest.raises(InputError, match="width_cap"):
        build_network(FOUR_SEQUENCES, width_cap=2)
