"""docs/api.md, the reference of the public module ``verify``, written from the names' own docstrings.

    python scripts/api_reference.py            # rewrite docs/api.md's generated block
    python scripts/api_reference.py --check    # change nothing; exit 1 if docs/api.md is stale

The names are ``verify.__all__``, grouped as ``verify/__init__.py`` groups them (the comment lines
of its table of public names); each gets its signature, where it is defined and its docstring,
and a class its public methods and properties with their first docstring line. The block is
also one of scripts/readme_numbers.py's generated blocks (``api_reference``), so
``readme_numbers.py --check`` (and tests/docs/test_generated_numbers.py) holds it to the code too.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import verify  # noqa: E402

PAGE = REPO / "docs" / "api.md"
OPEN, END = "<!-- generated: api_reference -->", "<!-- end -->"
_GROUP = re.compile(r"^\s*# (.+)$")
_ENTRY = re.compile(r'^\s*"(\w+)": "[\w.]+",')


def groups() -> list[tuple[str, list[str]]]:
    """(heading, names) in the order of verify/__init__.py's table, each group under its comment line."""
    source = (REPO / "verify" / "__init__.py").read_text(encoding="utf-8")
    table = source[source.index("_PUBLIC: dict"):]
    table = table[:table.index("\n}\n")]
    found: list[tuple[str, list[str]]] = []
    for line in table.splitlines():
        group, entry = _GROUP.match(line), _ENTRY.match(line)
        if group:
            found.append((group.group(1), []))
        elif entry:
            found[-1][1].append(entry.group(1))
    return found


class _Shown:
    """A default value shown by name, never by a repr that holds a memory address."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _default(value: Any) -> Any:
    if inspect.isfunction(value) or inspect.isclass(value) or inspect.isbuiltin(value):
        return _Shown(f"{value.__module__}.{value.__qualname__}")
    if " at 0x" in repr(value):
        return _Shown(f"<{type(value).__name__}>")
    return value


def signature(value: Any) -> str:
    """``(a, *, b=1) -> T`` with stable defaults; empty when there is none to show."""
    try:
        sig = inspect.signature(value)
    except (TypeError, ValueError):
        return ""
    params = [p.replace(default=_default(p.default)) if p.default is not inspect.Parameter.empty else p
              for p in sig.parameters.values()]
    return str(sig.replace(parameters=params))


_SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}$", re.M)


def _section(body: str) -> str:
    """A numpy-style section (``name`` lines, each with an indented description) as a markdown list."""
    items: list[list[str]] = []
    rest: list[str] = []
    for line in body.splitlines():
        if line and not line.startswith(" ") and not rest:
            items.append([line.strip(), ""])
        elif line.startswith(" ") and items and not rest:
            items[-1][1] = f"{items[-1][1]} {line.strip()}".strip()
        elif line.strip() or rest:
            rest.append(line)
    listed = "\n".join(f"- `{name}`: {text}" if text else f"- `{name}`" for name, text in items)
    return listed + ("\n" + "\n".join(rest) if rest else "")


def _text(doc: str) -> str:
    """A docstring as markdown: ``code`` to `code`, :func:`x` to `x`, numpy sections to bold headings and lists."""
    doc = re.sub(r":(?:func|class|meth|mod|data|attr|exc):`~?([^`]+)`", r"`\1`", doc)
    doc = doc.replace("``", "`")
    pieces = _SECTION.split(doc)
    out = [pieces[0].rstrip()]
    for heading, body in zip(pieces[1::2], pieces[2::2]):
        out.append(f"**{heading}**\n\n{_section(body.strip(chr(10)))}")
    return "\n\n".join(part for part in out if part).rstrip()


def _first_line(doc: str | None) -> str:
    return _text((doc or "").strip().split("\n\n")[0].replace("\n", " "))


def _members(cls: type) -> list[str]:
    """The public methods and properties a class defines itself (not inherited), with their first docstring line."""
    lines = []
    fields = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
    for name, member in vars(cls).items():
        if name.startswith("_") or name in fields:
            continue
        if isinstance(member, property):
            lines.append(f"- `{name}` (property)" + (f": {_first_line(member.__doc__)}" if member.__doc__ else ""))
        elif isinstance(member, (classmethod, staticmethod)):
            function = member.__func__
            lines.append(f"- `{cls.__name__}.{name}{signature(function).replace('(cls, ', '(').replace('(cls)', '()')}`"
                         + (f": {_first_line(function.__doc__)}" if function.__doc__ else ""))
        elif inspect.isfunction(member):
            lines.append(f"- `{name}{signature(member).replace('(self, ', '(').replace('(self)', '()')}`"
                         + (f": {_first_line(member.__doc__)}" if member.__doc__ else ""))
    return lines


def _constant(name: str, value: Any) -> str:
    if isinstance(value, dict):
        keys = ", ".join(f"`{key}`" for key in value)
        return f"A dict of {len(value)} entries, by name: {keys}."
    if isinstance(value, (tuple, list, frozenset)):
        return f"A {type(value).__name__}: " + ", ".join(f"`{item}`" for item in value) + "."
    return f"`{value!r}`"


def entry(name: str) -> str:
    value = getattr(verify, name)
    where = getattr(value, "__module__", None) if (inspect.isfunction(value) or inspect.isclass(value)) else None
    if where is None:
        where = f"verify.{verify._PUBLIC[name]}"  # type: ignore[attr-defined]
    out = [f"### `{name}`", ""]
    if inspect.isclass(value) or callable(value):
        kind = "class" if inspect.isclass(value) else "function"
        out += ["```python", f"{name}{signature(value)}", "```", "",
                f"*{kind}, defined in `{where}`*", "", _text(inspect.getdoc(value) or "(no docstring)")]
        if inspect.isclass(value):
            members = _members(value)
            if members:
                out += ["", *members]
    else:
        out += [f"*constant, defined in `{where}`*", "", _constant(name, value)]
    return "\n".join(out)


def reference() -> str:
    """The generated block's body."""
    listed = [name for _, names in groups() for name in names]
    missing = sorted(set(verify.__all__) - set(listed) - {"__version__"})
    if missing:
        raise RuntimeError(f"public names outside the groups of verify/__init__.py: {missing}")
    parts = ["", "| group | names |", "|---|---|"]
    parts += [f"| {heading} | {', '.join(f'`{n}`' for n in names)} |" for heading, names in groups()]
    for heading, names in groups():
        parts += ["", f"## {heading[0].upper()}{heading[1:]}", ""]
        parts += ["\n\n".join(entry(name) for name in names)]
    return "\n".join(parts) + "\n"


def render(page: str) -> str:
    """``page`` with its generated block replaced by :func:`reference`."""
    start, end = page.index(OPEN) + len(OPEN), page.index(END)
    return page[:start] + reference() + page[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if docs/api.md is stale")
    args = parser.parse_args(argv)
    page = PAGE.read_text(encoding="utf-8")
    new = render(page)
    if args.check:
        if new != page:
            print("docs/api.md is stale: python scripts/api_reference.py rewrites it")
            return 1
        return 0
    if new != page:
        PAGE.write_text(new, encoding="utf-8")
        print("rewrote docs/api.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
