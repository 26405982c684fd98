"""What every command shares about its output: ``--json [FILE|-]`` and progress on standard error.

One meaning of ``--json`` on every command:

* absent: a readable summary on standard output, nothing else;
* ``--json`` or ``--json -``: the JSON record on standard output (and nothing else there: the
  summary goes to standard error, so ``cmd --json | jq`` works);
* ``--json FILE``: the summary on standard output and the record written to FILE atomically
  (``wrote FILE`` on standard error). FILE is checked before any work: a path that cannot be
  written (a missing permission, a file where a folder should be) is refused at once, exit 4.

Progress bars and log lines always go to standard error: standard output carries results only
(and never starts with a blank line left by a finished progress bar).
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import click
from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn, \
    TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from verify.core.io import atomic_write_text, check_writable
from verify.core.io import json_text as strict_json_text

__all__ = ["JSON_TO_STDOUT", "JsonOption", "json_option", "json_took_argument", "verdict_line", "StageLines", "LayerLines",
           "summary_console", "echo_summary", "emit_json", "ProgressReporter", "progress_reporter", "summary_table",
           "identifier_column", "writable_file", "writable_folder"]

JSON_TO_STDOUT = "-"


# Where the shared option leaves the file name it took, for the message of a missing argument.
_JSON_TOOK = "hardmax_verify_json_took"


class JsonOption(click.Option):
    """The one ``--json [FILE|-]`` option every command uses (see the module docstring).

    Its value is optional, so in ``--json CONFIG.json`` it takes the configuration as the file
    to write; the argument is then missing, and :func:`json_took_argument` says why.
    """

    def handle_parse_result(self, ctx: click.Context, opts: Any, args: list[str]) -> Any:
        value, args = super().handle_parse_result(ctx, opts, args)
        if isinstance(value, str) and value != JSON_TO_STDOUT:
            ctx.meta[_JSON_TOOK] = value
            if not ctx.resilient_parsing:
                check_writable(value)  # before any work: a typo must not cost the run
        return value, args


def json_option(what: str = "the full result") -> Callable[[Any], Any]:
    """The ``--json [FILE|-]`` option (parameter ``json_to``: None, ``"-"`` or a file name)."""
    return click.option(
        "--json", "json_to", cls=JsonOption, is_flag=False, flag_value=JSON_TO_STDOUT, default=None,
        metavar="[FILE|-]",
        help=f"Write {what} as JSON: to standard output with '-' or no value (the readable summary then goes "
             "to standard error), or atomically to FILE. Put it last, or give '-', when an argument follows.")


def writable_file(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Click callback of an output file option: refused before any work when it cannot be written (exit status 4)."""
    if value is not None and not ctx.resilient_parsing:
        check_writable(value)
    return value


def writable_folder(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Click callback of an output folder option: refused before any work when it cannot be written (exit status 4)."""
    if value is not None and not ctx.resilient_parsing:
        check_writable(value, folder=True)
    return value


def json_took_argument(ctx: click.Context | None) -> str | None:
    """When an argument is missing after ``--json FILE``: the sentence saying that --json took FILE."""
    took = ctx.meta.get(_JSON_TOOK) if ctx is not None else None
    if took is None:
        return None
    return (f"--json took {took!r} as the file to write the JSON to; put --json last, or write '--json -' "
            "when an argument follows it")


def summary_console(json_to: str | None) -> Console:
    """Where the readable summary goes: standard error when the JSON takes standard output."""
    return Console(stderr=json_to == JSON_TO_STDOUT)


def summary_table(title: str | Text | None = None) -> Table:
    """A table of a command's summary, narrow enough that 80 columns keep identifiers whole.

    No vertical rules and one space between columns (rich's boxed tables spend three columns a
    rule and pad both edges: at 80 columns a seven-column table then cut "inconclusive" and
    "(sections)" to "inconclu…"). Columns of identifiers are added with :func:`identifier_column`.
    """
    return Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)


def identifier_column(table: Table, header: str, **options: Any) -> None:
    """A column of names (claims, variants, configurations) that is never wrapped or cut: the other columns give way."""
    table.add_column(header, no_wrap=True, **options)


def echo_summary(text: str, json_to: str | None) -> None:
    click.echo(text, err=json_to == JSON_TO_STDOUT)


def json_text(record: Any, *, where: str = "the JSON output") -> str:
    """The JSON text of a record: indented, one trailing newline, no leading blank line; NaN and
    Infinity refused, naming the field (:func:`verify.core.io.json_text`)."""
    return strict_json_text(record, where=where)


def emit_json(record: Any, json_to: str | None) -> None:
    """Write ``record`` where ``--json`` says (nothing when it was not given)."""
    if json_to is None:
        return
    text = json_text(record, where="the JSON output" if json_to == JSON_TO_STDOUT else json_to)
    if json_to == JSON_TO_STDOUT:
        click.echo(text, nl=False)
        return
    path = Path(json_to)
    if path.exists() and not path.is_file() and not path.is_dir():
        # A device or a pipe (/dev/stdout, a FIFO): written in place, never replaced by a rename.
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        return
    atomic_write_text(path, text)
    click.echo(f"wrote {json_to}", err=True)


def verdict_line(subject: str, overall: str, *, failed: Sequence[str] = (), inconclusive: Sequence[str] = ()) -> str:
    """The one-line overall verdict a command opens its summary with: ``SUBJECT: certified``, or what failed."""
    return (f"{subject}: {overall}" + (f"; failed: {', '.join(failed)}" if failed else "")
            + (f"; inconclusive or unchecked: {', '.join(inconclusive)}" if inconclusive else ""))


class StageLines:
    """One line per stage of a long command on standard error, when standard error is not a terminal.

    A terminal shows a live bar instead; piped or redirected, the bar draws nothing, and these
    lines say that the command is working and where it is. A repeated stage prints nothing.
    """

    def __init__(self, command: str, console: Console | None = None) -> None:
        self.command = command
        self.console = console if console is not None else Console(stderr=True)
        self._last: str | None = None

    def __call__(self, stage: str) -> None:
        if self.console.is_terminal or stage == self._last:
            return
        self._last = stage
        self.console.print(Text(f"{self.command}: {stage}"), soft_wrap=True, highlight=False)


class LayerLines:
    """Progress of a layer-by-layer computation on standard error, when standard error is not a terminal.

    ``COMMAND: WHAT: layer K of TOTAL``, first once layer 0 is done (the input was read and
    the work has started), then at most one line every ``interval`` seconds: a piped or
    redirected run says that it is working and how far it is, without a line per layer. A
    terminal shows a live bar instead.
    """

    def __init__(self, what: str, total: str, *, interval: float = 10.0, console: Console | None = None) -> None:
        context = click.get_current_context(silent=True)
        self.command = context.command_path if context is not None else "progress"
        self.what, self.total, self.interval = what, total, interval
        self.console = console if console is not None else Console(stderr=True)
        self._printed_at: float | None = None

    def __call__(self, layer: int) -> None:
        now = time.monotonic()
        if self.console.is_terminal or (self._printed_at is not None and now - self._printed_at < self.interval):
            return
        self._printed_at = now
        self.console.print(Text(f"{self.command}: {self.what}: layer {layer} of {self.total}"), soft_wrap=True,
                           highlight=False)


class ProgressReporter:
    """Progress of a long command, drawn on standard error.

    ``update(phase, done, total)`` draws one bar per phase (a phase's bar disappears once it is
    complete, so a loop of phases - epochs - shows one bar at a time); ``log(text)`` prints a
    line above the bars, never glued to them. Disabled, both only print log lines.
    """

    def __init__(self, progress: Progress | None, console: Console, stages: StageLines | None = None) -> None:
        self._progress = progress
        self.console = console
        self._tasks: dict[str, TaskID] = {}
        self._stages = stages

    def update(self, phase: str, done: int, total: int) -> None:
        if self._stages is not None:  # standard error is not a terminal: a line when a phase starts
            self._stages(phase)
        if self._progress is None:
            return
        if phase not in self._tasks:
            self._tasks[phase] = self._progress.add_task(phase, total=total)
        task = self._tasks[phase]
        self._progress.update(task, completed=done, total=total)
        if total and done >= total:
            self._progress.remove_task(task)
            del self._tasks[phase]

    def __call__(self, phase: str, done: int, total: int) -> None:
        self.update(phase, done, total)

    def log(self, text: str) -> None:
        # Text(): a line from a file (a review, a path) is printed as it is, never as markup.
        self.console.print(Text(text), soft_wrap=True, highlight=False)


@contextmanager
def progress_reporter(enabled: bool = True, *, remaining: bool = False) -> Iterator[ProgressReporter]:
    """A :class:`ProgressReporter` on standard error for the duration of the block.

    Bars on a terminal; elsewhere (piped, redirected) one line per phase as it starts.
    """
    console = Console(stderr=True)
    if not enabled:
        yield ProgressReporter(None, console)
        return
    if not console.is_terminal:  # no bar can be drawn: one line per phase instead
        context = click.get_current_context(silent=True)
        yield ProgressReporter(None, console, StageLines(context.command_path if context else "progress", console))
        return
    columns: list[Any] = [TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                          TimeElapsedColumn()]
    if remaining:
        columns.append(TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        yield ProgressReporter(bar, console)
