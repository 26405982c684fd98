"""Number parsing at the boundary: decimals are read from their text, floats are exact, junk is refused."""

import re
from decimal import Decimal
from fractions import Fraction

import pytest

from verify.core.numbers import InputError, parse_json, rational_matrix, rational_to_str, to_rational


@pytest.mark.parametrize("text, expected", [
    ("0.1", Fraction(1, 10)), ("-3", Fraction(-3)), ("2/6", Fraction(1, 3)), (" 1e-3 ", Fraction(1, 1000)),
    ("-.5", Fraction(-1, 2)), ("3/-4", Fraction(-3, 4)),
])
def test_strings_are_read_exactly(text, expected):
    assert to_rational(text, field="x") == expected


def test_json_numbers_are_read_from_their_decimal_text():
    data = parse_json('{"a": 0.1, "b": [1, 2.5e-1]}')
    assert to_rational(data["a"]) == Fraction(1, 10)
    assert to_rational(data["b"][1]) == Fraction(1, 4)
    assert isinstance(data["b"][0], int)


def test_python_float_is_the_binary_value_it_stores():
    assert to_rational(0.1) == Fraction(3602879701896397, 36028797018963968)


@pytest.mark.parametrize("value, fragment", [
    ("abc", "expected a number"), ("1/0", "denominator is zero"), (True, "boolean"),
    (float("nan"), "finite"), (float("inf"), "finite"), ([1], "expected a number"), ("1e99999", "exponent"),
    (Decimal("Infinity"), "finite"),
])
def test_bad_numbers_name_the_field(value, fragment):
    with pytest.raises(InputError) as info:
        to_rational(value, field="tokens[3][1]")
    assert info.value.field == "tokens[3][1]"
    assert fragment in info.value.message


@pytest.mark.parametrize("text", ['{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}', '{"a": ', "[" * 100000])
def test_bad_json_is_an_input_error(text):
    with pytest.raises(InputError):
        parse_json(text)


def test_rational_text_form_round_trips():
    for value in [Fraction(0), Fraction(-7, 3), Fraction(5)]:
        assert to_rational(rational_to_str(value)) == value


@pytest.mark.parametrize("n", [10 ** 5000, 10 ** 5000 - 1, -(10 ** 4300), 10 ** 4301 + 7, 3 ** 40000 // 7],
                         ids=["10^5000", "10^5000-1", "-10^4300", "10^4301+7", "3^40000/7"])
def test_integers_beyond_the_digit_limit_are_written_exactly(n: int) -> None:
    """Python refuses str() beyond 4300 digits; exact results can be longer (python-flint is the oracle here)."""
    from flint import fmpz

    assert rational_to_str(Fraction(n)) == str(fmpz(n))
    assert rational_to_str(Fraction(1, abs(n))) == "1/" + str(fmpz(abs(n)))


@pytest.mark.parametrize("count, rows, numbers", [(1, "expected 1 row, got 2", "expected 1 number (rows must"),
                                                  (2, "expected 2 rows, got 1", "expected 2 numbers (rows must")])
def test_a_matrix_of_the_wrong_shape_counts_what_it_expected(count, rows, numbers):
    with pytest.raises(InputError, match=rf"^A: {re.escape(rows)}$"):
        rational_matrix([[1]] * (3 - count), field="A", rows=count)
    with pytest.raises(InputError, match=rf"^A\[1\]: {re.escape(numbers)}"):
        rational_matrix([[1] * count, [1] * (3 - count)], field="A")
