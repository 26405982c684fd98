"""``hardmax-verify certcheck FILE``: re-verify every certificate with the independent checker.

A thin wrapper around :mod:`verify.certcheck` (standard library only, imports nothing from the
package): this module adds the rich table, ``--json OUT`` written atomically, and turns the
checker's :class:`~verify.certcheck.BadInput` into the package's one-line bad-input error.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from .. import certcheck as checker
from ..io import atomic_write_text
from ..numbers import InputError

_STYLE = {"verified": "green", "rejected": "bold red", "unsupported": "yellow", "not certified": "dim"}


@click.command("certcheck")
@click.argument("path", metavar="results.json|claims.json", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write every outcome (claim, status, reason) and the counts per claim to this file.")
@click.option("--verbose", is_flag=True, help="List every certificate, not only the rejected ones.")
def certcheck(path: Path, json_path: Path | None, verbose: bool) -> int:
    """Re-verify the certificates of a claims report or of a verification report's results.json.

    The checker replays the dynamics itself with exact fractions and trusts no position,
    attention set, score or layer index written in the file (docs/certificates.md). Exit
    status 0 every certificate verified, 1 a certificate rejected, 2 bad input, 3 nothing
    rejected but a model variant the checker does not implement (softmax).
    """
    try:
        result = checker.check_file(str(path))
    except checker.BadInput as error:
        raise InputError(error.field, error.message) from None
    console = Console()
    for o in result.outcomes:
        if verbose or o.status in ("rejected", "unsupported"):
            console.print(f"{o.source}: {o.claim} [{_STYLE[o.status]}]{o.status}[/]" + (f": {o.reason}" if o.reason else ""),
                          markup=True, highlight=False, soft_wrap=True)  # one line per certificate, for grep
    table = Table(title=f"independent certificate check of {path.name}")
    table.add_column("claim")
    for status in ("verified", "rejected", "unsupported", "not certified"):
        table.add_column(status, justify="right")
    for claim, row in sorted(result.counts().items()):
        table.add_row(claim, *(str(row[s]) for s in ("verified", "rejected", "unsupported", "not certified")))
    console.print(table)
    console.print(result.lines()[-1], highlight=False, soft_wrap=True)
    if json_path is not None:
        atomic_write_text(json_path, json.dumps(result.to_json_dict(), indent=1) + "\n")
        click.echo(f"wrote {json_path}", err=True)
    return result.exit_status
