"""JSON values as the checker reads, hashes and compares them, with its own code.

A decimal is kept as its text (:class:`DecimalText`: exact, and written back verbatim);
:func:`canonical_json` is the canonical text behind a plan's sha256 (keys sorted, no whitespace,
UTF-8), implemented here separately from the suite's; :func:`same_json` compares two values with
numbers by value, as a report's copies of saved files are compared with the files.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any


class DecimalText(str):
    """A JSON decimal as its text (how :func:`check_file` reads non-integers): exact, and written back
    verbatim by :func:`canonical_json`."""


def canonical_json(value: Any) -> str:
    """The canonical text of a JSON value: keys sorted, no whitespace, non-ASCII kept as it is,
    numbers as Python's ``json`` writes them (a decimal read by :func:`check_file` as its text).

    The definition the suite uses for the plan's hashes (verify.app.campaign.plan), implemented here
    separately. Raises ValueError for what is not JSON (NaN, a non-string key, another type).
    """
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:  # iterative: a deep value cannot exhaust the recursion limit
        item = stack.pop()
        if isinstance(item, _Raw):
            out.append(item)
        elif item is None:
            out.append("null")
        elif item is True or item is False:
            out.append("true" if item else "false")
        elif isinstance(item, DecimalText):
            out.append(str.__str__(item))
        elif isinstance(item, str):
            out.append(json.dumps(item, ensure_ascii=False))
        elif isinstance(item, int):
            out.append(int.__repr__(item))
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise ValueError(f"{item!r} is not a JSON number")
            out.append(float.__repr__(item))
        elif isinstance(item, (list, tuple)):
            parts: list[Any] = [_Raw("[")]
            for index, element in enumerate(item):
                parts += [_Raw(",")] * (index > 0) + [element]
            stack.extend(reversed(parts + [_Raw("]")]))
        elif isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                raise ValueError("an object key is not a string")
            parts = [_Raw("{")]
            for index, key in enumerate(sorted(item)):
                parts += [_Raw(",")] * (index > 0) + [_Raw(json.dumps(key, ensure_ascii=False) + ":"), item[key]]
            stack.extend(reversed(parts + [_Raw("}")]))
        else:
            raise ValueError(f"a {type(item).__name__} is not JSON")
    return "".join(out)


class _Raw(str):
    """Text :func:`canonical_json` emits as it is (brackets, separators, a key)."""


def canonical_sha256(value: Any) -> str:
    """The sha256 (hex) of :func:`canonical_json` encoded as UTF-8."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def json_digest(value: Any) -> str | None:
    try:
        return canonical_sha256(value)
    except (ValueError, UnicodeEncodeError):  # NaN, a lone surrogate: not one canonical text
        return None


def json_count(value: Any, low: int = 0) -> int | None:
    """A JSON integer >= ``low`` (never a boolean), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= low else None


def json_number(value: Any) -> float | int | None:
    """A JSON number as a Python number (a decimal read as its text becomes a float), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, (DecimalText, float)):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def number_of(value: Any) -> float | int:
    """A JSON number (TypeError when it is not one: the glance numbers cannot then be computed)."""
    number = json_number(value)
    if number is None:
        raise TypeError(f"{str(value)[:40]!r} is not a number")
    return number


def same_json(a: Any, b: Any) -> bool:
    """Equal JSON values, numbers compared by value (1 and 1.0, a decimal's text and its float). Two decimals are
    compared as the floats they are: the report reads saved files as floats and copies each float's shortest text."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    x, y = json_number(a), json_number(b)
    if x is not None or y is not None:
        return x is not None and y is not None and x == y
    if isinstance(a, str) and isinstance(b, str):
        return str.__str__(a) == str.__str__(b)
    return type(a) is type(b) and a == b  # null, true, false


def is_projection(part: Any, whole: Any) -> bool:
    """Every value of ``part`` is ``whole``'s at the same place (objects: ``part``'s keys only)."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(k in whole and is_projection(v, whole[k]) for k, v in part.items())
    if isinstance(part, list):
        return isinstance(whole, list) and len(part) == len(whole) and all(is_projection(x, y) for x, y in zip(part, whole))
    return same_json(part, whole)


def get_in(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


class Unreadable(str):
    """A saved file the report could not read (its item then carries only path, sha256 and the reason)."""


UNREADABLE = Unreadable()


def brief_json(value: Any) -> str:
    text = canonical_json(value) if not isinstance(value, Unreadable) else "?"
    return text if len(text) <= 200 else text[:197] + "..."
