"""The ``hardmax-verify`` command line: a thin layer over the package.

Every subcommand lives in :mod:`verify.app.commands`; this module wires them together and applies
the exit-status table of :mod:`verify.core.exitcodes` once, for every command: a command returns its
verdict status (0, 1, 3) or raises, and :func:`main` turns what it raised into one line on
standard error and a status:

* :class:`~verify.core.numbers.InputError` and usage errors (click's, printed in one line too) -> 2;
* :class:`~verify.core.exitcodes.CouldNotComplete`, any ``OSError`` (disk full, an unwritable
  output, a parent that is a file), ``MemoryError`` and any other exception -> 4;
* Ctrl-C, SIGTERM -> 130.

``--debug`` (on the group or on any command, or ``HARDMAX_VERIFY_DEBUG=1``) adds the traceback.
A command's module is imported inside :func:`main` when click looks the command up (only the
command that runs, see :class:`_LazyGroup`), so that Ctrl-C during start-up is as clean as
Ctrl-C later; this module and ``verify/__init__`` import nothing heavy.
"""

from __future__ import annotations

import difflib
import faulthandler
import importlib
import os
import select
import sys
import threading
import traceback

import click

from verify import __version__
from verify.app import interrupts
from verify.core import exitcodes
from .commands import COMMANDS
from .commands.output import json_took_argument
from verify.core.numbers import InputError
from verify.core.text import one_line
from verify.core.versions import source_state

DEBUG_ENVIRONMENT = "HARDMAX_VERIFY_DEBUG"
_DEBUG_HELP = "On an error, also print the Python traceback (for bug reports)."
_INTERRUPTED = "interrupted: nothing half-written was left behind"

_debug = False
_said_interrupted = False  # the interrupted line was printed (see run)
# click >= 8.2 raises this for a group called without a subcommand; older versions print the help themselves.
_NO_ARGUMENTS: type[click.ClickException] = getattr(click.exceptions, "NoArgsIsHelpError",
                                                     type("_Never", (click.ClickException,), {}))


def debugging() -> bool:
    """Whether this run prints tracebacks: the group's or a command's ``--debug``, or ``HARDMAX_VERIFY_DEBUG=1``."""
    return _debug


def _set_debug(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    global _debug
    if value:
        _debug = True


def _debug_option() -> click.Option:
    return click.Option(["--debug"], is_flag=True, expose_value=False, is_eager=True, callback=_set_debug,
                        help=_DEBUG_HELP)


class _LazyGroup(click.Group):
    """The top-level group: a subcommand's module is imported when that subcommand is looked up.

    ``hardmax-verify check`` then pays for what ``check`` imports, not for matplotlib, numba and
    Hypothesis that other commands need (seconds of start-up, in every subprocess the tests run).
    ``--help`` lists the commands from the static table :data:`verify.app.commands.COMMANDS`
    (names and one-line summaries) and a misspelt name is answered from it too, so neither
    imports any command.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_BY_NAME)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in _BY_NAME:
            _register_command(cmd_name)
        return self.commands.get(cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        name = click.utils.make_str(args[0])
        if name not in _BY_NAME and not name.startswith("-") and not ctx.resilient_parsing:
            near = sorted(difflib.get_close_matches(name, list(_BY_NAME)))
            hint = "" if not near else (f" (Did you mean {near[0]!r}?)" if len(near) == 1 else
                                         f" (Did you mean one of: {', '.join(repr(n) for n in near)}?)")
            raise click.UsageError(f"No such command {name!r}.{hint}", ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands and their summaries, as click lists them, from the table (no command is imported)."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, click.utils.make_default_short_help(_BY_NAME[name].summary, limit)) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


_BY_NAME = {entry.module: entry for entry in COMMANDS}


def version_text() -> str:
    """What ``--version`` prints: the version, the commit of the clone it runs from and whether its tree was clean."""
    return f"hardmax-verify {__version__} ({source_state().describe()})"


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(version_text())
        ctx.exit(exitcodes.SUCCESS)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Print the version, the git commit it runs from and whether its working tree was clean, and exit.")
@click.option("--debug", is_flag=True, expose_value=False, is_eager=True, callback=_set_debug, help=_DEBUG_HELP)
def cli() -> None:
    """Exact verification of the clustering theorem for hardmax-attention transformers.

    Exit status: 0 success, 1 something checked came out false, 2 bad input or usage,
    3 nothing false but something inconclusive, 4 could not complete (I/O error, resource
    limit, another run holding the output, internal error), 130 interrupted.
    """


def _with_debug_option(command: click.Command) -> click.Command:
    """Give ``command`` (and every subcommand of a group) a ``--debug`` flag, unless it has one."""
    if not any(param.name == "debug" for param in command.params):
        command.params.append(_debug_option())
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _with_debug_option(sub)
    return command


def _register_command(module_name: str) -> None:
    """Import the module ``verify.app.commands.MODULE_NAME`` of :data:`verify.app.commands.COMMANDS` and add its command (once)."""
    if module_name not in cli.commands:
        command = getattr(importlib.import_module(f"verify.app.commands.{module_name}"), _BY_NAME[module_name].attribute)
        cli.add_command(_with_debug_option(command))


def _register_commands() -> None:
    """Import every module of :data:`verify.app.commands.COMMANDS` and add its command (once)."""
    for entry in COMMANDS:
        _register_command(entry.module)


def describe_os_error(error: OSError) -> str:
    """``path: reason`` for an OSError, without Python's ``[Errno 28]`` form."""
    reason = error.strerror or str(error) or type(error).__name__
    names = [os.fsdecode(name) for name in (error.filename, error.filename2)
             if isinstance(name, (str, bytes, os.PathLike))]
    return f"{' -> '.join(names)}: {reason}" if names else reason


def _could_not_complete(error: BaseException) -> str:
    """The one-line reason of an exit status 4."""
    if isinstance(error, exitcodes.CouldNotComplete):
        return str(error)
    if _broken_pipe(error):
        return "the output was closed before everything was written (broken pipe)"
    if isinstance(error, OSError):
        return describe_os_error(error)
    if isinstance(error, MemoryError):
        return "out of memory"
    if isinstance(error, RecursionError):
        return "Python's recursion limit was reached"
    if isinstance(error, SystemExit):
        return f"internal error: sys.exit({error.code!r}) was called inside the command"
    return f"internal error: {type(error).__name__}: {error}"


def _usage_message(error: click.ClickException) -> str:
    """Click's message in one line (click prints usage, a hint and the message on three), with where to look."""
    context = getattr(error, "ctx", None)
    where = f" (see '{context.command_path} --help')" if context is not None else ""
    if isinstance(error, click.MissingParameter) and isinstance(error.param, click.Argument):
        took = json_took_argument(context)  # `--json CONFIG.json`: the option took the argument
        if took is not None:
            return f"{error.format_message().rstrip('.')}: {took}{where}"
    return f"{error.format_message()}{where}"


def _report(error: BaseException, line: str) -> None:
    if _debug:
        traceback.print_exception(error)
    elif not isinstance(error, (InputError, exitcodes.CouldNotComplete, click.ClickException)):
        line += " (rerun with --debug for the traceback)"
    try:
        click.echo(one_line(line), err=True)
    except OSError:  # standard error itself is gone: the status still says it
        pass


class _ReaderMayLeave:
    """Standard output (or error) that outlives its reader: once the reader of the pipe has gone (``| head``
    has read what it wanted), what is left to print goes to /dev/null and the command runs on, so that its
    exit status is its verdict and its ``--json FILE`` is written. Any other failure to write is raised."""

    def __init__(self, stream: object, fd: int) -> None:
        self._stream, self._fd = stream, fd

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)  # type: ignore[attr-defined]
        except BrokenPipeError:
            if not reader_went_away():
                raise
            _silence_output(self._fd)
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()  # type: ignore[attr-defined]
        except BrokenPipeError:
            if not reader_went_away():
                raise
            _silence_output(self._fd)
            try:  # what the buffer held now goes to /dev/null
                self._stream.flush()  # type: ignore[attr-defined]
            except BrokenPipeError:
                pass

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def main(argv: list[str] | None = None) -> int:
    """Entry point: runs one command and returns its exit status; never raises (Ctrl-C included)."""
    global _debug
    _debug = os.environ.get(DEBUG_ENVIRONMENT, "") not in ("", "0")
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _ReaderMayLeave(stdout, 1), _ReaderMayLeave(stderr, 2)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def _main(argv: list[str] | None) -> int:
    try:
        status = cli.main(args=argv, prog_name="hardmax-verify", standalone_mode=False)
    except InputError as error:
        _report(error, f"error: {error}")
        return exitcodes.BAD_INPUT
    except click.exceptions.Exit as exit_:
        return exit_.exit_code
    except _NO_ARGUMENTS as error:  # a group called alone: its help, as click shows it
        error.show()
        return exitcodes.BAD_INPUT
    except click.ClickException as error:
        _report(error, f"error: {_usage_message(error)}")
        return exitcodes.BAD_INPUT
    except (click.exceptions.Abort, KeyboardInterrupt):
        _say_interrupted()
        return exitcodes.INTERRUPTED
    except BaseException as error:  # noqa: BLE001 - every other failure is "could not complete", said in one line
        if _caused_by_interrupt(error):  # e.g. Ctrl-C during a lazy import, re-raised as ImportError by numba
            _say_interrupted()
            return exitcodes.INTERRUPTED
        if _broken_pipe(error):
            # rich writes only to standard output or error, and has already pointed standard output at
            # /dev/null when it reports a broken pipe; any other broken pipe is asked of the two now.
            # Standard output itself outlives its reader (_ReaderMayLeave): a broken pipe that reaches here
            # stopped the command before its verdict, so no status may look like one.
            _silence_output()
        _report(error, f"error: could not complete: {_could_not_complete(error)}")
        return exitcodes.COULD_NOT_COMPLETE
    # Commands return their exit status (an int) or None for plain success.
    return status if isinstance(status, int) else exitcodes.SUCCESS


def _broken_pipe(error: BaseException) -> bool:
    """A broken pipe, or rich's way of reporting one (it raises SystemExit(1) while handling it)."""
    return isinstance(error, BrokenPipeError) or (isinstance(error, SystemExit)
                                                  and isinstance(error.__context__, BrokenPipeError))


def reader_went_away() -> bool:
    """Whether standard output (or standard error) is a pipe whose reader has closed it.

    A broken pipe there is the reader choosing not to read the rest (``| head``, quitting
    ``less``): the command ends quietly, as Unix tools do. A broken pipe anywhere else (a FIFO
    given as ``--json`` whose reader vanished, a worker's pipe) is an output that was not
    written, exit status 4.
    """
    for fd in (1, 2):
        try:
            poller = select.poll()
            poller.register(fd, select.POLLOUT)
            events = poller.poll(0)
        except (OSError, ValueError, AttributeError):  # AttributeError: a platform without poll
            continue
        if any(revents & select.POLLERR for _, revents in events):
            return True
    return False


def _caused_by_interrupt(error: BaseException) -> bool:
    """True when a KeyboardInterrupt (Ctrl-C, or SIGTERM as raised by :func:`verify.app.interrupts.raise_interrupt`) lies in the error's chain."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _say_interrupted() -> None:
    """Say that the command was stopped cleanly (once: run() says it too when main() could not)."""
    global _said_interrupted
    _said_interrupted = True
    _safe_echo(_INTERRUPTED)


def _safe_echo(line: str) -> None:
    try:
        click.echo(line, err=True)
    except OSError:
        pass


def _silence_output(fd: int = 1) -> None:
    """After a broken pipe, point standard output (or the output ``fd``) at /dev/null so that later writes and
    the interpreter's final flush are quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def run() -> None:
    try:
        interrupts.install()
        status = main()
    except KeyboardInterrupt:  # a stop as the handlers go in, or a second Ctrl-C while the first was handled
        status = exitcodes.INTERRUPTED
        if not _said_interrupted:  # stopped before main() could say so
            try:
                _say_interrupted()
            except KeyboardInterrupt:
                pass
    try:  # the last of the output, now rather than in the interpreter's exit, where a closed pipe is a traceback
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        _silence_output()  # the command finished: its status stands
    if status == exitcodes.INTERRUPTED:
        interrupts.forget_unhandled()
        _bound_the_exit(status)
    sys.exit(status)


# How long the interpreter's exit may take after a stop before it is cut short (it takes well under a second).
EXIT_GRACE_SECONDS = 15.0


def _bound_the_exit(status: int) -> None:
    """End the process within :data:`EXIT_GRACE_SECONDS` with ``status`` even if the interpreter's exit hangs.

    A stop lands at an arbitrary instruction: a lock inside a process pool (a future's condition,
    the pool's shutdown lock) can be left held, and the pool's manager thread, which the exit
    joins, then waits for it for ever. Everything the command writes is already complete or
    removed by now, and its printed output is flushed first, so cutting the exit short loses
    nothing; it says so on standard error. (The timer is a Python thread: a hang in C code that
    holds the GIL is beyond it.)
    """
    def end() -> None:
        try:  # never blocking: a full pipe on standard error must not hold the cut itself
            os.set_blocking(2, False)
            os.write(2, f"interrupted: the exit waited {EXIT_GRACE_SECONDS:g} s for background threads and ended "
                        "without them\n".encode())
            if _debug:  # where each thread waits: the report a bug needs
                faulthandler.dump_traceback(2, all_threads=True)
        except OSError:
            pass
        finally:
            os._exit(status)

    for stream in (sys.stdout, sys.stderr):  # os._exit does not flush: what the command printed goes out now
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    timer = threading.Timer(EXIT_GRACE_SECONDS, end)
    timer.daemon = True  # never itself a thread the exit waits for
    timer.start()


if __name__ == "__main__":
    run()
