"""Field flips: every leaf of a file changed in turn, and what the independent checker must answer.

A *flip* is one change at one place of a decoded file: another number (an index is a number), another
string, a string in place of an object or a list, a key removed, a key added. :func:`flips` lists them;
:func:`judge` runs the checker on the changed file and says why its answer is acceptable, or that it
is not:

- rejected (exit 1) or refused (exit 2, the message naming the field);
- or the place is a field the checker does not check, and its output says so (``not checked: ...``,
  docs/certcheck.md's generated table);
- or a key was removed that the schema marks optional (a field left out states nothing);
- or a test's own oracle shows the changed file still true (a witness that still proves its claim).

Anything else, a changed file the checker calls verified or unsupported, is a hole.
"""

from __future__ import annotations

import copy
import random
import re
import traceback
from fractions import Fraction
from typing import Any, Callable, Iterator, NamedTuple

from verify import certcheck

ADDED_KEY = "zz_added"
_NUMBER = re.compile(r"\A-?[0-9]+(?:/[0-9]+|\.[0-9]+)?\Z")

Path = tuple  # keys and indices from the top of the file


class Flip(NamedTuple):
    path: Path
    what: str            # "number", "string", "string for an object", "removed", "added"
    data: Any            # the changed file


class Answer(NamedTuple):
    status: int          # the checker's exit status (4: it raised)
    text: str            # what it printed (or the refusal, or the traceback)
    unchecked: tuple     # the patterns of the not-checked fields it named
    rejected: bool = False  # whether something was rejected (a file that states a claim false exits 1 without it)


def _nodes(data: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    stack = [(path, data)]
    while stack:
        path, value = stack.pop()
        yield path, value
        if isinstance(value, dict):
            stack.extend(((*path, key), value[key]) for key in reversed(list(value)))
        elif isinstance(value, list):
            stack.extend(((*path, index), value[index]) for index in reversed(range(len(value))))


def pattern(path: Path) -> str:
    """The path with indices as ``[]`` (as the checker's not-checked patterns write it)."""
    out = ""
    for part in path:
        out += "[]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out


def _parts(text: str) -> list[str]:
    return [p for p in re.split(r"\.|(?=\[\])", text) if p]


def covered(path: Path, patterns: tuple) -> bool:
    """Whether ``path`` lies under one of the checker's not-checked ``patterns`` (``*`` and ``<...>`` match any key)."""
    parts = _parts(pattern(path))
    for p in patterns:
        wanted = _parts(p)
        if len(wanted) <= len(parts) and all(w == g or (w in ("*",) or w.startswith("<")) and g != "[]"
                                             for w, g in zip(wanted, parts)):
            return True
    return False


def _get(data: Any, path: Path) -> Any:
    for part in path:
        data = data[part]
    return data


def _changed(data: Any, path: Path, change: Callable[[Any, Any], None]) -> Any:
    """``data`` with ``change(parent, key)`` made at ``path``: the containers on the path copied, the rest shared
    (the checker never changes what it reads; a deep copy of every flipped file would be most of the time)."""
    copied = copy.copy(data)
    holder = copied
    for part in path[:-1]:
        holder[part] = copy.copy(holder[part])
        holder = holder[part]
    if path and isinstance(holder[path[-1]], (dict, list)):
        holder[path[-1]] = copy.copy(holder[path[-1]])
    change(holder, path[-1] if path else None)
    return copied


def _other_number(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, certcheck.DecimalText):  # a JSON decimal, as the checker reads a file
        return certcheck.DecimalText(repr(float(value) * 2 + 1))
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 2 + 1
    if isinstance(value, str) and _NUMBER.match(value):
        return str(Fraction(value) + 1)
    if isinstance(value, str):
        return value + "x"
    return 0  # null


def flips(data: Any, *, paths: list[Path] | None = None) -> Iterator[Flip]:
    """Every flip of every place of ``data`` (or of the places ``paths``)."""
    for path, value in (_nodes(data) if paths is None else ((p, _get(data, p)) for p in paths)):
        if not path:
            continue
        if isinstance(value, (dict, list)):
            yield Flip(path, "string for an object", _changed(data, path, lambda parent, key: parent.__setitem__(key, "x")))
        else:
            other = _other_number(value)
            yield Flip(path, "number" if not isinstance(value, str) or _NUMBER.match(value) else "string",
                       _changed(data, path, lambda parent, key, other=other: parent.__setitem__(key, other)))
        if isinstance(_get(data, path[:-1]), dict):
            yield Flip(path, "removed", _changed(data, path, lambda parent, key: parent.__delitem__(key)))
        if isinstance(value, dict) and ADDED_KEY not in value:
            yield Flip((*path, ADDED_KEY), "added", _changed(data, path, lambda parent, key: parent[key].__setitem__(ADDED_KEY, 1)))


def sample(data: Any, count: int, seed: int) -> list[Path]:
    """``count`` places of ``data``, drawn with ``seed`` from every distinct pattern (each pattern at most once)."""
    by_pattern: dict[str, list[Path]] = {}
    for path, _ in _nodes(data):
        if path:
            by_pattern.setdefault(pattern(path), []).append(path)
    rng = random.Random(seed)
    chosen = [rng.choice(paths) for paths in by_pattern.values()]
    rng.shuffle(chosen)
    return sorted(chosen[:count], key=lambda p: pattern(p))


def one_per_pattern(data: Any, seed: int = 0) -> list[Path]:
    """One place of ``data`` for every distinct pattern (drawn with ``seed``), and every place of small lists."""
    return sample(data, 10 ** 9, seed)


def certcheck_answer(data: Any, **options: Any) -> Answer:
    """What ``python -m verify.certcheck`` answers for the decoded file ``data``."""
    try:
        result = certcheck.check_data(data, **options)
    except certcheck.BadInput as error:
        return Answer(2, str(error), ())
    except Exception:  # noqa: BLE001 - a crash is a hole too
        return Answer(4, traceback.format_exc(), ())
    return Answer(result.exit_status, "\n".join(result.lines()), tuple(row.pattern for row in result.unchecked),
                  any(o.status == "rejected" for o in result.outcomes))


def judge(flip: Flip, answer: Answer, root_schema: Any, *, oracle: Callable[[Flip], bool] | None = None,
          baseline: int = 0) -> str | None:
    """Why ``answer`` to ``flip`` is acceptable: None when it is, else the hole, described. ``baseline``: the exit
    status of the untouched file (1 for a verified certificate that a statement is false: a flip must then be
    rejected, not merely exit 1)."""
    if answer.status == 1 and (baseline != 1 or answer.rejected):
        return None
    if answer.status == 2:
        named = [str(part) for part in flip.path if isinstance(part, str)]
        if "\n" not in answer.text.strip() and (not named or any(name in answer.text for name in named)):
            return None
        return f"refused without naming the field: {answer.text[:300]!r}"
    if answer.status == 4:
        return f"could not complete: {answer.text[-800:]}"
    if covered(flip.path, answer.unchecked) and "not checked" in answer.text:
        return None
    if flip.what == "removed":
        parent = certcheck.schema.node_at(flip.data, root_schema, flip.path[:-1])
        if isinstance(parent, certcheck.schema.Obj) and (flip.path[-1] in parent.optional or parent.name == "layer_positions"):
            return None  # an optional field, or one layer of a certificate's layer_positions, left out states nothing
        if isinstance(parent, certcheck.schema.Projection):
            return None  # a saved file's copy that shows less of the file
    if flip.what == "string for an object" or flip.what == "number":
        place = certcheck.schema.node_at(flip.data, root_schema, flip.path)
        if place is None:
            return f"exit {answer.status}: the checker's schema has no place {pattern(flip.path)}"
    if oracle is not None and oracle(flip):
        return None
    return f"exit {answer.status}: {answer.text.splitlines()[-1] if answer.text else ''}"
