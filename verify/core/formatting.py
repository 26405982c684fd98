"""How a number is written for a reader: one formatter per kind, used by every report table, sentence and list.

The report and the experiments' analyses and report sections use the same formatters, so a
number reads the same wherever it appears.

Kinds: counts (integers, thousands separated), layers (and their medians, exact), exact
rationals (the rule of :func:`verify.core.text.short_number`),
probabilities and accuracies (4 decimals),
shares (percent, 1 decimal), seconds (1 or 2 decimals), "k of n" fractions, and measured
floats (3 significant digits). :func:`by_key` picks the kind from a field's name for the saved
results whose fields the report does not know in advance. Missing values are an em dash.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

from verify.core.text import short_number

__all__ = ["MISSING", "count", "counted", "noun_for", "layer", "probability", "share", "seconds", "fraction", "measured", "exact", "number",
           "by_key"]

MISSING = "—"


def _real(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def count(value: Any) -> str:
    """An integer count: ``1,502``; a non-integer is shown as a measured value, never cut to an integer."""
    if isinstance(value, bool) or value is None:
        return MISSING if value is None else str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float) and value.is_integer():
        return f"{int(value):,}"
    return measured(value)


def counted(value: int, noun: str, plural: str | None = None) -> str:
    """A count with its noun, singular for one: ``1 run``, ``1,502 runs`` (``plural``: when not noun + s)."""
    return f"{count(value)} {noun_for(value, noun, plural)}"


def noun_for(value: int, noun: str, plural: str | None = None) -> str:
    """The noun :func:`counted` writes after ``value``, without the count: for a noun before the
    items it names (``seed 0``, ``seeds 0, 1``) or after a fraction (``1 of 1 example``)."""
    return noun if value == 1 else plural or noun + "s"


def layer(value: Any) -> str:
    """A layer index, or a median of layer indices (a whole number or a half), exactly: ``4``, ``102.5``."""
    x = _real(value)
    if x is not None and math.isfinite(x) and not float(x).is_integer() and (2 * x).is_integer():
        return f"{x:,.1f}"
    return count(value)


def probability(value: Any, digits: int = 4) -> str:
    """A probability or an accuracy in [0, 1]: ``0.8989`` (4 decimals unless told)."""
    x = _real(value)
    if x is None or not math.isfinite(x):
        return MISSING if x is None else str(x)
    return f"{x:.{digits}f}"


def share(value: Any) -> str:
    """A share in [0, 1] as a percentage with one decimal: ``12.5%``."""
    x = _real(value)
    if x is None or not math.isfinite(x):
        return MISSING if x is None else str(x)
    return f"{100 * x:.1f}%"


def seconds(value: Any) -> str:
    """A duration: 2 decimals under 10 s, 1 decimal above: ``0.42 s``, ``15.7 s``."""
    x = _real(value)
    if x is None or not math.isfinite(x):
        return MISSING if x is None else str(x)
    return f"{x:.2f} s" if abs(x) < 10 else f"{x:,.1f} s"


def fraction(part: Any, total: Any, noun: str | None = None, plural: str | None = None) -> str:
    """``3 of 3,000 (0.1%)``; without a usable total, just the part. With a ``noun``, it follows,
    agreeing with the total as :func:`counted` writes it: ``3 of 3,000 (0.1%) examples``,
    ``1 of 1 (100.0%) example``."""
    if _real(part) is None:
        return MISSING
    text = f"{count(part)} of {count(total)}" if _real(total) is not None else count(part)
    if _real(total):
        text += f" ({share(float(part) / float(total))})"
    if noun is not None:
        text += f" {noun_for(total if _real(total) is not None else part, noun, plural)}"
    return text


def measured(value: Any, digits: int = 3) -> str:
    """A measured float: 3 significant digits (``1.57e-8``, ``0.999``, ``42.4``); an exponent without padding."""
    x = _real(value)
    if x is None or not math.isfinite(x):
        return MISSING if x is None else str(x)
    if isinstance(value, int):
        return count(value)
    return _EXPONENT_PADDING.sub(r"e\1", f"{x:.{digits}g}")


_EXPONENT_PADDING = re.compile(r"e([-+])0+(?=\d)")


def exact(value: Any) -> str:
    """An exact rational (``"p/q"`` text, a Fraction or an int) by the rule of every readable output
    (:func:`verify.core.text.short_number`): exact when short (``1/3``, ``0.309017``), else ``≈`` 6 digits."""
    if value is None:
        return MISSING
    try:
        return short_number(Fraction(value))
    except (ValueError, TypeError, ZeroDivisionError):
        return str(value)


def number(value: Any) -> str:
    """Any value of unknown kind: integers as counts, floats as measured values, the rest as text."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return count(value)
    if isinstance(value, float):
        return measured(value)
    return MISSING if value is None else str(value)


def by_key(key: str, value: Any) -> str:
    """Format a saved result's field by its name: ``*seconds`` as seconds, ``*acc*`` as an accuracy, ..."""
    name = key.lower().rsplit(".", 1)[-1]
    if isinstance(value, float):
        if "second" in name or name.endswith("_s") or name in ("elapsed", "time"):
            return seconds(value)
        if "acc" in name or "prob" in name or "confidence" in name:
            return probability(value)
        if "share" in name or "rate" in name or "fraction" in name:
            return share(value) if 0 <= value <= 1 else measured(value)
        if "loss" in name:
            return probability(value)
    return number(value)
