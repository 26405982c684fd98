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

__all__ = ["one_line", "shorten", "describe_value", "short_number"]


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
# An exact "p/q" up to this many characters is shown as it is; a longer one as a decimal.
SHORT_EXACT_LENGTH = 14


def short_number(x: Any) -> str:
    """A coordinate for a readable summary: exact when short, else ``≈`` its decimal value (6 digits).

    Works for any rational, also beyond float64's range (decimal arithmetic, never ``float()``).
    """
    if isinstance(x, Fraction):
        # Numbers of more than 2^48 (15 digits) are never short: skip str(), which refuses
        # integers beyond Python's digit limit.
        if abs(x.numerator).bit_length() <= 48 and x.denominator.bit_length() <= 48:
            text = str(x)
            if len(text) <= SHORT_EXACT_LENGTH:
                return text
        with localcontext() as context:
            context.prec = SHORT_DIGITS
            value = Decimal(x.numerator) / Decimal(x.denominator)
        return f"≈{value:.{SHORT_DIGITS}g}"
    return f"{float(x):.{SHORT_DIGITS}g}"
