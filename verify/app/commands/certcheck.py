"""``hardmax-verify certcheck FILE``: re-verify a claims report or results.json with the independent checker.

A thin wrapper around :mod:`verify.certcheck` (standard library only, imports nothing from the
package): this module adds the rich table and maps the checker's outcomes to the shared exit
statuses. Reading, deciding the file's kind and checking go through the checker's one dispatcher
(:func:`verify.certcheck.check_file`), so both entry points (``hardmax-verify certcheck`` and
``python -m verify.certcheck``) give the same verdict and fail the same way: exit 2 for a file
refused before checking, 4 when the check could not complete (``--debug`` for the traceback).
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.text import Text

from verify import certcheck as checker
from verify.app.cli import debugging
from .output import emit_json, identifier_column, json_option, summary_console, summary_table

_STYLE = {"verified": "green", "inconclusive": "yellow", "failed": "bold red", "rejected": "bold red",
          "unsupported": "yellow", checker.NOT_CHECKED: "yellow"}


@click.command("certcheck")
@click.argument("path", metavar="results.json|claims.json", type=click.Path(path_type=Path))
@json_option("every outcome (claim, status, reason) and the counts per claim")
@click.option("--verbose", is_flag=True, help="List every outcome, not only the rejected ones.")
@click.option("--max-work", type=click.IntRange(min=1), default=checker.DEFAULT_MAX_WORK, show_default=True,
              help="Estimated replay work allowed per configuration (about n^2 (d + 2) per layer and n^2 d once for n "
                   "tokens in d dimensions, more as the numbers grow; docs/certcheck.md); a file asking for more is refused "
                   "before checking (exit 2).")
@click.option("--max-total-work", type=click.IntRange(min=1), default=checker.DEFAULT_MAX_TOTAL_WORK,
              show_default=True, help="Replay work allowed for all the configurations of the file together; a file "
                                      "asking for more is refused before checking (exit 2).")
@click.option("--max-bytes", type=click.IntRange(min=1), default=checker.DEFAULT_MAX_BYTES, show_default=True,
              help="Largest file read.")
@click.option("--runs", "runs", type=click.Path(path_type=Path), default=None, metavar="DIR",
              help="The saved results a results.json's optional sections were built from (their sha256 and the "
                   "numbers of the first screen are recomputed from them). Default: the folder the sections' paths "
                   "name (runs/ for the project's), from the current folder, then the repository the checker runs "
                   "from; without it the sections are reported not checked.")
@click.option("--models", "models", type=click.Path(path_type=Path), default=None, metavar="DIR",
              help="The reproduction's published checkpoints, whose training histories give the training-length "
                   "table's validation losses and the notes' epochs. Default: models/reproduction beside the runs "
                   "folder; without them those numbers, when shown, are reported not checked.")
@click.option("--debug", is_flag=True, help="Print the traceback when the check cannot complete (exit 4).")
def certcheck(path: Path, json_to: str | None, verbose: bool, max_work: int, max_total_work: int, max_bytes: int,
              runs: Path | None, models: Path | None, debug: bool) -> int:
    """Re-verify the certificates of a claims report, a verification report's results.json, a softmax record or a
    control result.

    The checker replays the dynamics itself with exact fractions and trusts no position,
    attention set, score or layer index written in the file (docs/certificates.md). It also
    reconciles every status, fate and count the file states with its own replay. Exit status
    0 everything verified; 1 something does not verify, or the file reports a claim false;
    2 bad input or a value beyond a limit (refused before checking); 3 nothing rejected but
    something not checked (a model variant the checker does not implement, a closed-form chain
    beyond its limits, saved results of a section that were not found); 4 could not complete.
    A record of 'hardmax-verify softmax --json' is re-derived by its own standard-library checker
    (verify/certcheck/softmax/): 0 verified, 1 rejected. A result of 'hardmax-verify control
    --json' likewise (verify/certcheck/control/). The kind is decided by the file's marker; a
    file with the markers of two kinds, or a key its kind does not have, is refused (exit 2).
    """
    debug = debug or debugging()  # the group's --debug or HARDMAX_VERIFY_DEBUG=1, as for every command
    try:
        result = checker.check_file(str(path), max_work=max_work, max_bytes=max_bytes, max_total_work=max_total_work,
                                    runs=None if runs is None else str(runs),
                                    models=None if models is None else str(models))
    except checker.BadInput as error:
        click.echo(f"error: {checker.one_line(str(error))}", err=True)  # the command line's one-line form
        return checker.BAD_INPUT
    except Exception as error:  # noqa: BLE001 - a crash must never look like a verdict
        return checker.could_not_complete(error, debug=debug, prefix="error: ")
    console = summary_console(json_to)
    # Everything below that comes from the file (sources, claim names, reasons) is printed as plain text:
    # Text objects are never parsed for markup, and safe_text escapes control characters.
    for text in result.read_lines() + result.unchecked_lines(verbose=verbose):
        console.print(Text(text), highlight=False)  # wrapped to the terminal, unlike the outcome lines below
    shown, more = result.shown_outcomes(verbose=verbose)
    for o in shown:
        line = Text(checker.safe_text(f"{o.source}: {o.claim} ", 1000))
        line.append(o.status, style=_STYLE[o.status])
        if o.reason:
            line.append(checker.safe_text(f": {o.reason}", 2000))
        console.print(line, highlight=False, soft_wrap=True)  # one line per outcome, for grep
    if more:
        console.print(Text(more), highlight=False, soft_wrap=True)
    for note in result.notes:
        console.print(Text(checker.safe_text(note, 2000)), highlight=False, soft_wrap=True)
    table = summary_table(Text(f"independent check of {checker.safe_text(path.name, 200)}"))
    identifier_column(table, "claim")
    for status in checker.OUTCOME_STATUSES:
        identifier_column(table, status, justify="right")
    for claim, row in sorted(result.counts().items()):
        table.add_row(Text(checker.safe_text(claim, 60)), *(str(row[s]) for s in checker.OUTCOME_STATUSES))
    console.print(table)
    console.print(Text(result.verdict_line()), highlight=False, soft_wrap=True)
    try:
        emit_json(result.to_json_dict(), json_to)
    except Exception as error:  # noqa: BLE001 - disk full, unwritable folder: not a verdict
        return checker.could_not_complete(error, debug=debug, prefix="error: ")
    return result.exit_status
