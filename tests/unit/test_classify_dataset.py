"""DATA.json reading, the fingerprint and separability (docs/theory.md §7)."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from verify.experiments.classify.dataset import (InseparableDataset, distribution_key, first_inseparable_pair,
                                     inseparable_groups, load_dataset, make_dataset, parse_dataset,
                                     require_separable)
from verify.core.numbers import InputError, parse_json


def test_tokens_are_exact_and_stored_once() -> None:
    data = parse_json('{"sequences": [[["0.1", "1/2"], ["1/10", 0.5]], [[1, 2]]], "labels": [0, "1/3"]}')
    dataset = parse_dataset(data)
    assert dataset.d == 2
    assert dataset.tokens == ((F(1, 10), F(1, 2)), (F(1), F(2)))
    assert dataset.sequences == ((0, 0), (1,))
    assert dataset.labels == (F(0), F(1, 3))
    assert dataset.total_tokens == 3


def test_bare_numbers_are_one_dimensional_tokens() -> None:
    dataset = make_dataset([[0, 1], [0, "1/2", "1/2", 1]], [0, 1])
    assert dataset.d == 1
    assert dataset.sequence(1) == [(F(0),), (F(1, 2),), (F(1, 2),), (F(1),)]


@pytest.mark.parametrize("data, field", [
    ('{"labels": [0]}', "sequences"),
    ('{"sequences": [[[1]]]}', "labels"),
    ('{"sequences": [[[1]]], "labels": [0, 1]}', "labels"),
    ('{"sequences": [], "labels": []}', "sequences"),
    ('{"sequences": [[]], "labels": [0]}', "sequences[0]"),
    ('{"sequences": [[[1, 2]], [[1]]], "labels": [0, 1]}', "sequences[1][0]"),
    ('{"sequences": [[[1, "x"]]], "labels": [0]}', "sequences[0][0][1]"),
    ('{"sequences": [[[1, true]]], "labels": [0]}', "sequences[0][0][1]"),
    ('{"sequences": [[1, [2]]], "labels": [0]}', "sequences[0][1]"),
    ('{"sequences": [[[1]]], "labels": ["1/0"]}', "labels[0]"),
    ('{"sequences": [[[1]]], "labels": [0], "extra": 1}', "extra"),
    ('{"sequences": [[[]]], "labels": [0]}', "sequences[0][0]"),
    ('[1, 2]', "data"),
])
def test_bad_input_names_the_field(data: str, field: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_dataset(parse_json(data))
    assert caught.value.field == field
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("data, expected", [
    ('{"sequences": [[[1], [1, 2]]], "labels": [0]}', "expected 1 number (every token has the same dimension), got 2"),
    ('{"sequences": [[[1, 2], [1]]], "labels": [0]}', "expected 2 numbers (every token has the same dimension), got 1"),
])
def test_a_token_of_another_dimension_counts_the_numbers_expected(data: str, expected: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_dataset(parse_json(data))
    assert caught.value.field == "sequences[0][1]" and expected in str(caught.value)


def test_missing_file_is_bad_input(tmp_path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_dataset(tmp_path / "absent.json")


def test_fingerprint_depends_on_values_not_spelling() -> None:
    one = make_dataset([[["0.5", 1]], [[2, 3]]], [0, 1])
    two = make_dataset([[["1/2", "1"]], [["4/2", 3]]], ["0", "1.0"])
    assert one.fingerprint() == two.fingerprint()
    assert make_dataset([[["0.5", 1]], [[2, 3]]], [0, 2]).fingerprint() != one.fingerprint()
    assert make_dataset([[["0.5", 1]], [[3, 2]]], [0, 1]).fingerprint() != one.fingerprint()


def test_equal_distributions_are_detected_up_to_order_and_repetition() -> None:
    assert distribution_key([0, 1]) == distribution_key([1, 1, 0, 0]) == distribution_key([1, 0])
    assert distribution_key([0, 1]) != distribution_key([0, 0, 1])


def test_the_inseparable_pair_is_named() -> None:
    a, b = ["1", "0"], ["0", "1"]
    dataset = make_dataset([[a, b], [b, a, b], [a, a, b, b]], [0, 1, 1])
    assert inseparable_groups(dataset) == [[0, 2]]
    assert first_inseparable_pair(dataset) == (0, 2)
    with pytest.raises(InseparableDataset) as caught:
        require_separable(dataset)
    assert caught.value.pair == (0, 2)
    assert str(caught.value).startswith("sequences[0], sequences[2]: equal empirical distributions")


def test_equal_distributions_with_equal_labels_are_separable() -> None:
    a, b = ["1", "0"], ["0", "1"]
    dataset = make_dataset([[a, b], [a, a, b, b], [a]], [0, 0, 1])
    assert inseparable_groups(dataset) == []
    require_separable(dataset)
