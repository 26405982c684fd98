"""One rule for numbers in human output (verify.core.text): exact when short, in the shorter exact form, else ``≈``."""

from __future__ import annotations

from fractions import Fraction

import pytest

from verify.core import formatting as fmt
from verify.core.text import SHORT_EXACT_LENGTH, exact_number, short_number


@pytest.mark.parametrize("value, shown", [
    (Fraction(309017, 10**6), "0.309017"),     # decimals read from a file are shown as written ...
    (Fraction(-809017, 10**6), "-0.809017"),   # ... whatever their sign (the two were shown differently)
    (Fraction(3, 10), "0.3"),
    (Fraction(1, 2), "1/2"),                   # a tie keeps the fraction
    (Fraction(-1, 5), "-1/5"),
    (Fraction(1, 4), "1/4"),
    (Fraction(-1, 18), "-1/18"),
    (Fraction(1, 1024), "1/1024"),
    (Fraction(7), "7"),
    (Fraction(-3), "-3"),
    (Fraction(123456789, 10**12), "0.000123456789"),
])
def test_short_exact_numbers_are_shown_exactly(value: Fraction, shown: str) -> None:
    assert short_number(value) == shown == exact_number(value)
    assert Fraction(shown) == value  # the text is the number, not an approximation


@pytest.mark.parametrize("value, shown", [
    (Fraction(10**30, 3), "≈3.33333e+29"),
    (Fraction(1, 7**30), "≈4.43669e-26"),
    (Fraction(10**400, 3), "≈3.33333e+399"),    # beyond float64: decimal arithmetic, never float()
    (Fraction(2**70 + 1, 2**70), "≈1.00000"),   # a finite decimal too long to show
    (Fraction(1, 10**400), "≈1.00000e-400"),     # an exact quotient still shows six digits
    (Fraction(10**400), "≈1.00000e+400"),
])
def test_long_numbers_are_marked_approximate(value: Fraction, shown: str) -> None:
    assert short_number(value) == shown
    assert len(exact_number(value)) > SHORT_EXACT_LENGTH and Fraction(exact_number(value)) == value


def test_a_measured_float_is_never_shown_as_exact() -> None:
    assert short_number(0.1) == "0.1" and short_number(2 / 3) == "0.666667"


def test_the_report_writes_exact_numbers_by_the_same_rule() -> None:
    for text in ("309017/1000000", "-809017/1000000", "1/3", "7", str(Fraction(10**30, 3))):
        assert fmt.exact(text) == short_number(Fraction(text))
    assert fmt.exact(None) == fmt.MISSING
