"""Number parsing and exact conversion at the package boundary.

Everything that enters the exact engine is a :class:`fractions.Fraction`. The rules:

* ints and Fractions are taken as they are;
* strings may be integers (``"-3"``), fractions (``"2/7"``) or decimals (``"0.1"``, ``"1e-3"``),
  and decimals are read from their text, so ``"0.1"`` is exactly 1/10;
* a Python float is the binary number it stores, so ``0.1`` becomes 3602879701896397/36028797018963968
  (JSON numbers never reach this path as floats: :func:`parse_json` reads them from their text);
* booleans, NaN, infinities and anything else are refused with an :class:`InputError` that names
  the field.
"""

from __future__ import annotations

import json
import math
import re
import sys
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, Callable

# rational_to_str lives with the other text forms of numbers (verify.core.text) and is public here too.
from .formatting import counted
from .text import describe_value, one_line, rational_to_str, shorten

__all__ = [
    "InputError",
    "to_rational",
    "rational_to_str",
    "parse_json",
    "rational_matrix",
]

# ASCII digits only: int() and Decimal() would also read other scripts' digits ("١٢" as 12).
_FRACTION_TEXT = re.compile(r"^\s*([+-]?\d+)\s*/\s*([+-]?\d+)\s*$", re.ASCII)
_DECIMAL_TEXT = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$", re.ASCII)
# Exponents this large would build integers with millions of digits; nobody means them.
_MAX_EXPONENT = 10_000


class InputError(ValueError):
    """Bad input: ``field`` names where it was found, the message says what was expected."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        # Field names and values come from input files: a newline or a control character in them
        # must not break the CLI's one-line error (nor forge a second line).
        super().__init__(one_line(f"{field}: {message}" if field else message))


def to_rational(value: Any, *, field: str = "value") -> Fraction:
    """Convert ``value`` to an exact :class:`Fraction`, or raise :class:`InputError` naming ``field``."""
    if isinstance(value, bool):
        raise InputError(field, f"expected a number, got the boolean {str(value).lower()}")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InputError(field, f"expected a finite number, got {value}")
        _check_exponent(value, field)
        return _digits_guarded(lambda: Fraction(value), field)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(field, f"expected a finite number, got {value}")
        return Fraction(value)
    if isinstance(value, str):
        return _parse_text(value, field)
    if hasattr(value, "p") and hasattr(value, "q"):  # python-flint fmpq
        return Fraction(int(value.p), int(value.q))
    if hasattr(value, "numerator") and hasattr(value, "denominator"):  # e.g. sympy Rational, numpy ints
        try:
            return Fraction(int(value.numerator), int(value.denominator))
        except (TypeError, ValueError, ZeroDivisionError):
            pass
    if hasattr(value, "dtype") and getattr(value, "shape", None) == ():  # numpy scalar
        return to_rational(value.item(), field=field)
    raise InputError(field, f"expected a number (integer, 'p/q' or decimal), got {describe_value(value)}")


def _parse_text(text: str, field: str) -> Fraction:
    shown = shorten(text, 40)
    match = _FRACTION_TEXT.match(text)
    if match:
        numerator, denominator = _digits_guarded(lambda: (int(match.group(1)), int(match.group(2))), field)
        if denominator == 0:
            raise InputError(field, f"denominator is zero in \"{shown}\"")
        return Fraction(numerator, denominator)
    if _DECIMAL_TEXT.match(text):
        try:
            decimal = Decimal(text.strip())
        except InvalidOperation:  # pragma: no cover - the regex admits only valid decimals
            raise InputError(field, f"expected a number, got \"{shown}\"") from None
        _check_exponent(decimal, field)
        return _digits_guarded(lambda: Fraction(decimal), field)
    raise InputError(field, f"expected a number (integer, 'p/q' or decimal such as '0.1'), got \"{shown}\"")


def _digits_guarded(convert: Any, field: str) -> Any:
    """Run ``convert``; Python refuses int <-> text conversions beyond ~4300 digits with a bare ValueError."""
    try:
        return convert()
    except ValueError as error:
        if "digits" not in str(error):
            raise
        raise _too_many_digits(field) from None


def _too_many_digits(field: str) -> InputError:
    return InputError(field, f"number has too many digits (limit {sys.get_int_max_str_digits()})")


class _LongInteger:
    """A JSON integer beyond Python's int-string limit, kept unconverted until the file is parsed, so that
    the refusal can name where it is (json.loads's own hook knows no path)."""

    __slots__ = ()


_LONG_INTEGER = _LongInteger()


def _json_int_reader(seen: list[bool]) -> Callable[[str], Any]:
    """json.loads's reader of integers: one beyond the limit becomes :data:`_LONG_INTEGER` (noted in ``seen``)."""
    def parse(text: str) -> Any:
        try:
            return int(text)
        except ValueError as error:
            if "digits" not in str(error):
                raise
            seen.append(True)
            return _LONG_INTEGER
    return parse


def _long_integer_path(value: Any) -> str | None:
    """Where the first :class:`_LongInteger` of a parsed value is (``sequences[0][1][0]``), or None."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if item is _LONG_INTEGER:
            return where or "(the value itself)"
        if isinstance(item, dict):
            stack.extend((v, f"{where}.{k}" if where else str(k)) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(item))))
    return None


def _check_exponent(decimal: Decimal, field: str) -> None:
    """The limits of every decimal, however written (JSON number or string): digits and exponent.

    The digit limit is the one Python applies to integers (and so to JSON integers and
    "p/q" strings): a 100,000-digit number is refused whichever way it is written.
    """
    sign, digits, exponent = decimal.as_tuple()
    if len(digits) > sys.get_int_max_str_digits():
        raise _too_many_digits(field)
    if isinstance(exponent, int) and abs(exponent) > _MAX_EXPONENT:
        raise InputError(field, f"exponent {exponent} is out of range (|exponent| <= {_MAX_EXPONENT})")


def _refuse_constant(name: str) -> Any:
    raise InputError("", f"{name} is not a number this tool accepts (expected a finite number)")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object; a key given twice is refused (json.loads would keep the last one silently)."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise InputError("", f"the key \"{shorten(key, 40)}\" appears twice in one object")
            seen.add(key)
    return data


# The deepest nesting of arrays and objects a file may have, as the independent checker allows
# (verify/certcheck/kernel/limits.py): a file the suite reads is one the checker reads too.
MAX_JSON_DEPTH = 100


def _nesting_depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (0 for a scalar), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in children)
    return deepest


def parse_json(text: str, *, source: str = "input", parse_float: Callable[[str], Any] = Decimal) -> Any:
    """Parse JSON, reading every non-integer number from its decimal text (0.1 is 1/10).

    NaN and Infinity are refused, and so is a key repeated within one object, or nesting deeper than
    :data:`MAX_JSON_DEPTH`: a file says one thing to every reader (the independent checkers refuse the same). Malformed JSON raises
    :class:`InputError` with line and column. ``parse_float``: how a number with a fraction or an
    exponent is read, by default exactly (:class:`~decimal.Decimal`); ``float`` for saved results,
    which were written from floats (:func:`verify.core.io.read_json`).
    """
    seen: list[bool] = []
    try:
        value = json.loads(text, parse_float=parse_float, parse_int=_json_int_reader(seen),
                           parse_constant=_refuse_constant, object_pairs_hook=_unique_keys)
        if seen:  # an integer beyond the limit: refused, naming where it is
            raise InputError(source, f"{_long_integer_path(value)}: {_too_many_digits('').message}")
        if _nesting_depth(value) > MAX_JSON_DEPTH:
            raise InputError(source, f"JSON nested too deeply (more than {MAX_JSON_DEPTH} levels)")
        return value
    except json.JSONDecodeError as error:
        raise InputError(source, f"malformed JSON at line {error.lineno}, column {error.colno}: {error.msg}") from None
    except InputError as error:
        raise InputError(source, error.message) from None
    except RecursionError:
        raise InputError(source, "JSON nested too deeply") from None


def rational_matrix(value: Any, *, field: str, rows: int | None = None, cols: int | None = None,
                    allow_empty: bool = False) -> list[list[Fraction]]:
    """A rectangular matrix of rationals from nested lists, checking shape with field-level errors."""
    if not isinstance(value, (list, tuple)):
        raise InputError(field, f"expected a list of rows, got {describe_value(value)}")
    if not value and not allow_empty:
        raise InputError(field, "expected a non-empty list of rows, got an empty list")
    if rows is not None and len(value) != rows:
        raise InputError(field, f"expected {counted(rows, 'row')}, got {len(value)}")
    matrix: list[list[Fraction]] = []
    width = cols
    for i, row in enumerate(value):
        if not isinstance(row, (list, tuple)):
            raise InputError(f"{field}[{i}]", f"expected a list of numbers, got {describe_value(row)}")
        if not row:
            raise InputError(f"{field}[{i}]", "expected a non-empty list of numbers, got an empty list")
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise InputError(f"{field}[{i}]", f"expected {counted(width, 'number')} (rows must all have the same length), got {len(row)}")
        matrix.append([to_rational(x, field=f"{field}[{i}][{j}]") for j, x in enumerate(row)])
    return matrix
