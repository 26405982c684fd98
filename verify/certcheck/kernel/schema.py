"""The schema of every file the checker reads: the keys of each object, and which of them are not checked.

Every key of every kind of file is described here by a :class:`Node`: an object with exactly its
fields (:class:`Obj`, some of them optional, maybe keys of one kind such as claim ids or token
indices), a list (:class:`Items`), a value a routine re-derives and compares (:class:`Checked`), or
a value that is **not checked** (:class:`Unchecked`, with the reason: a measurement, a label, the
producer's log). :func:`problem` finds the first key a file has that its schema does not (or a
required key it lacks, or an object or list where the schema has the other), so that no key can
ride along unread; :func:`unchecked` lists the not-checked fields a file holds, which the output
names; :func:`rows` gives docs/certcheck.md's table of every not-checked field, generated from
these nodes, so that the table cannot drift from the code.

Scalars are typed by the routines that read them (a malformed certificate is rejected by its
claim's routine); this module types only objects and lists.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator, NamedTuple

__all__ = ["Node", "Checked", "Projection", "Unchecked", "Obj", "Items", "Either", "problem", "unchecked", "rows", "Row", "node_at",
           "ANY_KEY", "INDEX_KEY", "LAYER_KEY", "CLAIM_KEY", "pattern"]


class Node:
    """One place of a file's schema."""


class Checked(Node):
    """A value a routine of the checker re-derives and compares (or types, for a value that only
    steers what is checked: a format marker, an index)."""


class Projection(Checked):
    """A copy of part of a saved file, compared key by key with the file: it may leave keys out (it then shows less,
    never something else), and every value it keeps must be the file's."""


class Unchecked(Node):
    """A value the checker does not re-derive, with ``reason``; ``shape`` (optional) still holds its keys."""

    def __init__(self, reason: str, shape: Node | None = None) -> None:
        self.reason, self.shape = reason, shape


class Items(Node):
    """A list, every element an ``item``."""

    def __init__(self, item: Node) -> None:
        self.item = item


class Either(Node):
    """``null`` or ``node`` (``none=True``), or one of several object shapes told apart by ``choose``."""

    def __init__(self, *options: Node, none: bool = False, choose: Callable[[Any], int] | None = None) -> None:
        self.options, self.none, self.choose = options, none, choose


class Obj(Node):
    """An object with exactly ``fields`` (those in ``optional`` may be absent), plus keys of one kind:
    ``extra`` = (what the keys are, a test of a key, the node of their values)."""

    def __init__(self, fields: dict[str, Node] | None = None, *, optional: tuple[str, ...] | frozenset = (),
                 extra: tuple[str, Callable[[str], bool], Node] | None = None, name: str = "",
                 wildcard: bool = False) -> None:
        self.fields = dict(fields or {})
        self.optional = frozenset(optional)
        self.extra = extra
        self.name = name
        self.wildcard = wildcard  # its keys are shown as * in the patterns of not-checked fields (claim ids)
        unknown = self.optional - set(self.fields)
        assert not unknown, unknown


CHECKED = Checked()


def _claim_id(key: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,39}", key))


def _index(key: str) -> bool:
    return 0 < len(key) <= 9 and key.isascii() and key.isdigit() and key == str(int(key))


ANY_KEY = ("any key", lambda key: True)
INDEX_KEY = ("keyed by token indices", _index)
LAYER_KEY = ("keyed by layer indices", _index)
CLAIM_KEY = ("keyed by claim ids", _claim_id)


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _short_key(key: Any) -> str:
    text = str(key)
    text = text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text[:40] + ("..." if len(text) > 40 else "")


def _where(path: Any) -> str:
    """The dotted text of a path kept as nested pairs (prefix, key): formatted only for a problem."""
    parts = []
    while isinstance(path, tuple):
        path, key = path
        parts.append(f"[{key}]" if isinstance(key, int) else "." + _short_key(key))
    text = str(path) + "".join(reversed(parts))
    return text.lstrip(".") or "(top level)"


def problem(value: Any, node: Node, where: str = "") -> str | None:
    """The first place where ``value`` departs from ``node``'s keys (None: it does not), as
    ``"where.key: why"``: a key the schema does not have, a required key missing, an object or a
    list where the schema has something else. Iterative: a deep value cannot exhaust the stack."""
    stack: list[tuple[Any, Node, Any]] = [(value, node, where)]
    pop, push = stack.pop, stack.append
    while stack:
        value, node, path = pop()
        kind = type(node)
        if kind is Checked or kind is Projection:
            continue
        if kind is Obj:
            if type(value) is not dict:
                return f"{_where(path)}: expected an object, got {_describe(value)}"
            fields, extra = node.fields, node.extra  # type: ignore[attr-defined]
            for key, child in value.items():
                if key in fields:
                    child_node = fields[key]
                elif extra is not None and isinstance(key, str) and extra[1](key):
                    child_node = extra[2]
                else:
                    if not fields and extra is not None:
                        return f"{_where((path, key))}: not a key of {node.name or 'an object'} {extra[0]}"  # type: ignore[attr-defined]
                    known = ", ".join(sorted(fields)) + (f", {extra[0]}" if extra else "")
                    return f"{_where((path, key))}: not a field of {node.name or 'this object'} ({known[:300]})"  # type: ignore[attr-defined]
                if not isinstance(child_node, Checked):
                    push((child, child_node, (path, key)))
            for key in fields:
                if key not in value and key not in node.optional:  # type: ignore[attr-defined]
                    return f"{_where(path)}: missing {key!r}"
        elif kind is Items:
            if type(value) is not list:
                return f"{_where(path)}: expected a list, got {_describe(value)}"
            item = node.item  # type: ignore[attr-defined]
            if not isinstance(item, Checked):
                for index in range(len(value) - 1, -1, -1):
                    push((value[index], item, (path, index)))
        elif kind is Unchecked:
            if node.shape is not None:  # type: ignore[attr-defined]
                push((value, node.shape, path))  # type: ignore[attr-defined]
        elif kind is Either:
            if value is None and node.none:  # type: ignore[attr-defined]
                continue
            if node.choose is not None:  # type: ignore[attr-defined]
                index = node.choose(value)  # type: ignore[attr-defined]
                if index < 0:
                    return f"{_where(path)}: not one of the forms this field takes"
                push((value, node.options[index], path))  # type: ignore[attr-defined]
            elif len(node.options) == 1:  # type: ignore[attr-defined]
                push((value, node.options[0], path))  # type: ignore[attr-defined]
            elif value is not None:
                return f"{_where(path)}: expected null"
    return None


def _extra(node: Obj) -> str:
    """How the keys of one kind of an object show in a pattern: ``*`` for a map, ``<what they are>`` beside fields."""
    assert node.extra is not None
    return f"<{node.extra[0]}>" if node.fields else "*"


def _resolved(value: Any, node: Node) -> Node:
    """``node`` with its choice made for ``value`` (an Either's option)."""
    while isinstance(node, Either):
        if node.choose is not None:
            index = node.choose(value)
            if index < 0:
                return CHECKED
            node = node.options[index]
        elif value is None or not node.options:
            return CHECKED
        else:
            node = node.options[0]
    return node


def node_at(value: Any, node: Node, path: tuple) -> Node | None:
    """The schema node of the place ``path`` (keys and indices) of ``value``, choices made by the values found
    on the way; an Unchecked node on the way is returned (everything under it is not checked), a Checked one
    too (its routine reads what is inside), None for a place the schema does not have."""
    for part in path:
        node = _resolved(value, node)
        if isinstance(node, (Unchecked, Checked)):
            return node
        if isinstance(node, Obj) and isinstance(value, dict):
            if part in node.fields:
                node = node.fields[part]
            elif node.extra is not None and isinstance(part, str) and node.extra[1](part):
                node = node.extra[2]
            else:
                return None
        elif isinstance(node, Items) and isinstance(value, list):
            node = node.item
        else:
            return None
        value = value[part]
    return _resolved(value, node)


class Row(NamedTuple):
    """One not-checked field: where (a pattern: ``[]`` any index, ``*`` any key) and why."""

    pattern: str
    reason: str


def pattern(parts: tuple) -> str:
    """A path's pattern: indices as ``[]``."""
    out = ""
    for part in parts:
        out += "[]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out


def unchecked(value: Any, node: Node, prefix: str = "") -> list[Row]:
    """The not-checked fields ``value`` holds (each pattern once, in the schema's order)."""
    found: dict[str, str] = {}
    stack: list[tuple[Any, Node, str]] = [(value, node, prefix)]
    while stack:
        value, node, where = stack.pop()
        if isinstance(node, Unchecked):
            _note(found, Row(where, node.reason))
            continue
        if isinstance(node, Either):
            if value is None:
                continue
            if node.choose is not None:
                index = node.choose(value)
                if index >= 0:
                    stack.append((value, node.options[index], where))
            elif node.options:
                stack.append((value, node.options[0], where))
        elif isinstance(node, Items) and isinstance(value, list):
            for item in reversed(value):
                stack.append((item, node.item, f"{where}[]"))
        elif isinstance(node, Obj) and isinstance(value, dict):
            children = []
            for key in value:
                shown = "*" if node.wildcard else str(key)
                if key in node.fields:
                    children.append((value[key], node.fields[key], f"{where}.{shown}" if where else shown))
                elif node.extra is not None and isinstance(key, str) and node.extra[1](key):
                    children.append((value[key], node.extra[2], f"{where}.{_extra(node)}" if where else _extra(node)))
            stack.extend(reversed(children))
    return [Row(p, r) for p, r in found.items()]


def rows(node: Node, prefix: str = "") -> Iterator[Row]:
    """Every not-checked field of the schema ``node`` (docs/certcheck.md's table)."""
    def walk(node: Node, where: str) -> Iterator[Row]:
        if isinstance(node, Unchecked):
            yield Row(where, node.reason)
            return
        if isinstance(node, Either):
            for option in node.options:
                yield from walk(option, where)
        elif isinstance(node, Items):
            yield from walk(node.item, f"{where}[]")
        elif isinstance(node, Obj):
            for key, child in node.fields.items():
                shown = "*" if node.wildcard else key
                yield from walk(child, f"{where}.{shown}" if where else shown)
            if node.extra is not None:
                yield from walk(node.extra[2], f"{where}.{_extra(node)}" if where else _extra(node))

    done: dict[str, str] = {}
    for row in walk(node, prefix):
        _note(done, row)
    yield from (Row(p, r) for p, r in done.items())


def _note(found: dict[str, str], row: Row) -> None:
    """Record ``row``; a pattern with two reasons (the options of an Either: inputs[]'s campaign and specification
    entries) keeps both, so that neither drops out of the table or the output."""
    reasons = found.get(row.pattern)
    if reasons is None:
        found[row.pattern] = row.reason
    elif row.reason != reasons and not reasons.startswith(row.reason + "; ") and not reasons.endswith("; " + row.reason):
        found[row.pattern] = f"{reasons}; {row.reason}"
