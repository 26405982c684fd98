"""Text from input files, made safe to show: one line, no control codes, short, no Python internals.

Names, keys and values come from files a user may not have written. Shown raw, a newline
forges a second line of output and an escape code (``\\x1b[2J``, a bidirectional override)
rewrites the terminal; shown with ``repr`` a value reads ``Decimal('2.5')``. Every message
and every terminal line that carries such text goes through :func:`one_line` (and
:func:`describe_value` for values); rich output takes it as a ``rich.text.Text``, never as
markup (a name like ``[/]`` is text). Files written for machines (JSON) keep the text as written.
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

__all__ = ["one_line", "shorten", "describe_value", "rational_to_str", "exact_number", "short_number"]


def one_line(text: str) -> str:
    """``text`` with every non-printable character escaped (newlines, ESC, C1 controls, bidi marks, lone surrogates)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def shorten(text: str, limit: int = 60) -> str:
    """:func:`one_line`, cut to about ``limit`` characters with an ellipsis (a value can be megabytes long)."""
    if len(text) > limit:
        text = text[:limit - 3] + "..."
    return one_line(text)


def describe_value(value: Any, limit: int = 60) -> str:
    """A value as a reader of the input file would write it: ``2.5``, ``"abc"``, ``true``, ``a list``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, Fraction)):
        try:
            text = str(value)
        except ValueError:  # beyond Python's int -> str digit limit
            return "a number of more digits than Python prints"
        return text if len(text) <= limit else f"a number of {len(text)} characters"
    if isinstance(value, (float, Decimal)):
        return shorten(str(value), limit)
    if isinstance(value, str):
        return '"' + shorten(value, limit) + '"'
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, dict):
        return f"an object with {len(value)} key{'s' if len(value) != 1 else ''}"
    return f"a value of type {type(value).__name__}"



# Significant digits of a rational shown as a decimal in a readable summary.
SHORT_DIGITS = 6
# A number whose exact text has at most this many characters is shown exactly.
SHORT_EXACT_LENGTH = 20
# Numbers of more than 2^64 (20 digits) never have a short exact text: not even tried (a
# numerator beyond Python's digit limit cannot be written out).
_SHORT_BITS = 64


def rational_to_str(value: Fraction | int) -> str:
    """Render a rational as ``"p/q"`` (or ``"p"`` when integral): the project's exact text form."""
    value = Fraction(value)
    if value.denominator == 1:
        return _int_text(value.numerator)
    return f"{_int_text(value.numerator)}/{_int_text(value.denominator)}"


def _int_text(n: int) -> str:
    try:
        return str(n)
    except ValueError:
        # Beyond Python's int -> str digit limit (a DoS guard for *parsing*): exact results can
        # legitimately be that long (1e-5000 is valid input; denominators grow with the layers).
        # Split at a power of ten into halves that convert, recursively.
        if n < 0:
            return "-" + _int_text(-n)
        half = max(1, int(n.bit_length() * 0.30103) // 2)
        high, low = divmod(n, 10 ** half)
        return _int_text(high) + _int_text(low).zfill(half)


def _terminating_decimal(x: Fraction) -> str | None:
    """The exact decimal text of ``x`` when its expansion ends (denominator 2^a 5^b), else None."""
    twos = fives = 0
    rest = x.denominator
    while rest % 2 == 0:
        rest //= 2
        twos += 1
    while rest % 5 == 0:
        rest //= 5
        fives += 1
    if rest != 1:
        return None
    places = max(twos, fives)
    scaled = abs(x.numerator) * 10 ** places // x.denominator
    digits = str(scaled).rjust(places + 1, "0")
    return ("-" if x < 0 else "") + digits[:len(digits) - places] + "." + digits[len(digits) - places:]


def exact_number(x: Fraction | int) -> str:
    """A rational written exactly, as the shorter of its fraction and its finite decimal expansion.

    The fraction wins a tie (``1/2``, ``-1/5``); ``309017/1000000`` is written ``0.309017``. For
    messages that must show exact numbers whatever their length (a failed claim's evidence).
    """
    x = Fraction(x)
    if x.denominator == 1:
        return rational_to_str(x)
    decimal = _terminating_decimal(x) if x.denominator.bit_length() <= _SHORT_BITS else None
    fraction = rational_to_str(x)
    return decimal if decimal is not None and len(decimal) < len(fraction) else fraction


def short_number(x: Any) -> str:
    """A number in human output: exact when it can be written exactly in a few characters, else ``≈``.

    The one rule for every readable summary: an integer as itself; another rational as the
    shorter of its fraction ``p/q`` and, when it has one, its finite decimal expansion (the
    fraction on a tie), when that text has at most :data:`SHORT_EXACT_LENGTH` characters, so a
    decimal read from the input (``0.309017``, ``-0.809017``) is shown as it was written; otherwise
    ``≈`` its value to :data:`SHORT_DIGITS` significant digits. A float (a measurement) is
    shown to 6 significant digits, never as exact. Works for any rational, also beyond float64's
    range (decimal arithmetic, never ``float()``).
    """
    if isinstance(x, int) and not isinstance(x, bool):
        x = Fraction(x)
    if isinstance(x, Fraction):
        if abs(x.numerator).bit_length() <= _SHORT_BITS and x.denominator.bit_length() <= _SHORT_BITS:
            text = exact_number(x)
            if len(text) <= SHORT_EXACT_LENGTH:
                return text
        with localcontext() as context:
            context.prec = SHORT_DIGITS
            value = Decimal(x.numerator) / Decimal(x.denominator)
            # always SHORT_DIGITS digits: an exact quotient (1 / 10^400) would keep only its own one
            value = value.quantize(Decimal(1).scaleb(value.adjusted() - SHORT_DIGITS + 1))
        return f"≈{value:.{SHORT_DIGITS}g}"
    return f"{float(x):.{SHORT_DIGITS}g}"
