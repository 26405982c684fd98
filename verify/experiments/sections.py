"""Report sections: what an experiment or the lab hands the report to render (a small protocol).

A :class:`SectionProvider` reads its own saved results (the report never learns their format)
and returns a :class:`Section`: a title, a summary sentence, tables and figures, and the
sentence the report opens with. The report renders sections generically; it knows each
provider only through :mod:`verify.experiments.registry`, the one list of providers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Protocol, Sequence

from verify.core.numbers import InputError

__all__ = ["Table", "Figure", "Section", "SectionProvider", "need_field"]


@dataclass(frozen=True)
class Table:
    """A table of display strings; ``heading`` (a sub-heading above it), ``intro`` (a paragraph between the two)
    and ``note`` (a paragraph after it) optional."""

    headers: Sequence[str]
    rows: Sequence[Sequence[str]]
    heading: str = ""
    note: str = ""
    intro: str = ""


@dataclass(frozen=True)
class Figure:
    """A figure file of the report folder (``file``, relative), with its title and caption."""

    name: str
    file: str
    title: str
    caption: str


@dataclass(frozen=True)
class Section:
    """What the report shows of one provider's saved results.

    ``list_files``: also list every file read with its scalar fields (the report's generic view).
    """

    title: str
    summary: str = ""
    tables: Sequence[Table] = ()
    figures: Sequence[Figure] = ()
    figures_heading: str = ""
    list_files: bool = True


class SectionProvider(Protocol):
    """An experiment's or the lab's side of the protocol.

    ``key`` names the section in results.json's ``optional_sections``; ``folder`` and
    ``patterns`` say which saved results under the runs folder it reads; ``figures_folder``,
    where in the report folder its figures are copied (None: it has none); ``produced_by``,
    the commands that write those results (the report names them when the section is skipped);
    ``glance_title``, what the report's results at a glance call the section.
    ``item_fields`` may raise :class:`verify.core.numbers.InputError` naming the offending field: the
    file is then listed as unreadable with that message, and the report still writes.
    """

    key: str
    folder: str
    patterns: tuple[str, ...]
    figures_folder: str | None
    produced_by: str
    glance_title: str

    def item_fields(self, path: Path, data: Any) -> dict[str, Any]:
        """Fields of one saved file kept in results.json beside its scalar summary (the provider's own)."""
        ...

    def figure_files(self, paths: Sequence[Path]) -> list[Path]:
        """Image files beside the results read, copied into the report."""
        ...

    def section(self, block: Mapping[str, Any]) -> Section:
        """The section, from results.json's block for this provider (files, figures)."""
        ...

    def glance_numbers(self, block: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The numbers the results at a glance print for a block with files: the report stores them in
        results.json beside the block (``glance``) and the independent checker recomputes them."""
        ...

    def glance_sentence(self, numbers: Mapping[str, Any]) -> str:
        """The conclusion the results at a glance state from :meth:`glance_numbers`, when the section's
        own summary is empty ("": the report counts the files)."""
        ...


def need_field(data: Any, field: str, kinds: type | tuple[type, ...], where: str) -> Any:
    """``data[field]`` of one of ``kinds`` (a bool is no int unless bool is named), or an InputError naming
    ``where.field``: how a section provider reads its saved files."""
    if not isinstance(data, Mapping) or field not in data:
        raise InputError(f"{where}.{field}", "missing")
    value = data[field]
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        raise InputError(f"{where}.{field}", f"expected {' or '.join(k.__name__ for k in kinds)}, "
                                             f"got {type(value).__name__}")
    return value
