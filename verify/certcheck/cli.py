"""The command line, ``python -m verify.certcheck FILE``: the lines, the JSON and the exit status.

Exit status: 0 everything verified; 1 something does not verify, or the file reports a claim
false; 2 refused before checking (not a readable file of a known kind, or beyond a limit); 3
nothing rejected but something not checked; 4 could not complete (one line, ``--debug`` for the
traceback). ``hardmax-verify certcheck`` runs the same dispatcher with its own table.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import sys
import traceback
from typing import Any, NoReturn

from .files import check_file
from .jsontext import write_text
from .kernel import BAD_INPUT, COULD_NOT_COMPLETE, DEFAULT_MAX_BYTES, DEFAULT_MAX_TOTAL_WORK, DEFAULT_MAX_WORK, BadInput

# The first line of the package's docstring, which --help shows.
DESCRIPTION = "The independent certificate checker: re-verifies claim reports with the standard library only."


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text[:40]!r}")
    return value


def write_json(text: str, destination: str) -> None:
    """Write ``text`` to ``destination`` ("-": standard output) whole or not at all (:func:`.jsontext.write_text`,
    the writer every checker shares)."""
    write_text(text, destination)


class _OneLineParser(argparse.ArgumentParser):
    """Bad usage is one line naming the option (exit status 2), not argparse's usage block."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {one_line(message)}", file=sys.stderr)
        raise SystemExit(BAD_INPUT)


def main(argv: list[str] | None = None) -> int:
    # The package runs as verify.certcheck, or copied on its own as certcheck: usage names the one in use.
    parser = _OneLineParser(prog=f"python -m {__package__ or 'verify.certcheck'}", description=DESCRIPTION)
    parser.add_argument("file", help="a claims report (hardmax-verify check --json), a results.json, a softmax record "
                                        "(hardmax-verify softmax --json) or a control result (hardmax-verify control --json)")
    parser.add_argument("--json", nargs="?", const="-", default=None, metavar="FILE|-",
                        help="write the outcomes as JSON to FILE (or standard output with - or no value)")
    parser.add_argument("--verbose", action="store_true", help="print every outcome, not only rejections")
    parser.add_argument("--max-work", type=_positive_int, default=DEFAULT_MAX_WORK, metavar="N",
                        help=f"replay work allowed per configuration (default {DEFAULT_MAX_WORK:g}; see docs/certcheck.md)")
    parser.add_argument("--max-total-work", type=_positive_int, default=DEFAULT_MAX_TOTAL_WORK, metavar="N",
                        help=f"replay work allowed for all the configurations of the file (default "
                             f"{DEFAULT_MAX_TOTAL_WORK:g})")
    parser.add_argument("--max-bytes", type=_positive_int, default=DEFAULT_MAX_BYTES, metavar="N",
                        help=f"largest file read (default {DEFAULT_MAX_BYTES})")
    parser.add_argument("--runs", default=None, metavar="DIR",
                        help="the saved results a results.json's optional sections were built from (default: the "
                             "folder their paths name, from the current folder; see docs/certcheck.md)")
    parser.add_argument("--models", default=None, metavar="DIR",
                        help="the reproduction's published checkpoints, whose training histories give the "
                             "training-length table's validation losses (default: models/reproduction beside the "
                             "runs folder)")
    parser.add_argument("--debug", action="store_true", help="print the traceback when the check cannot complete")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse: 0 for --help, 2 for bad usage
        return int(exit_.code or 0)
    try:
        result = check_file(args.file, max_work=args.max_work, max_bytes=args.max_bytes,
                            max_total_work=args.max_total_work, runs=args.runs, models=args.models)
        text = json.dumps(result.to_json_dict(), indent=1, allow_nan=False) + "\n"
        # The summary goes to standard output, or to standard error when the JSON takes standard output. The
        # verdict is known: a reader that stops reading (`| head`) changes neither the exit status nor --json FILE.
        _print_for_a_reader("\n".join(result.lines(verbose=args.verbose)) + "\n",
                            sys.stderr if args.json == "-" else sys.stdout)
        if args.json == "-":
            _print_for_a_reader(text, sys.stdout)
        elif args.json is not None:
            write_json(text, args.json)
    except BadInput as error:
        print(f"certcheck: error: {one_line(str(error))}", file=sys.stderr)
        return BAD_INPUT
    except KeyboardInterrupt:
        print("certcheck: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError as error:  # a FIFO given as --json lost its reader: that file was not written
        return could_not_complete(error, debug=args.debug)
    except Exception as error:  # noqa: BLE001 - a crash must never look like a verdict
        return could_not_complete(error, debug=args.debug)
    return result.exit_status


def _print_for_a_reader(text: str, stream: Any) -> None:
    """Write ``text``; if the reader of the pipe has gone, the rest goes to /dev/null (any other error is raised)."""
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        if not _reader_went_away(stream.fileno()):
            raise
        _quiet_stdout(stream.fileno())


def _reader_went_away(fd: int = 1) -> bool:
    """Standard output (or ``fd``) is a pipe whose reader has closed it."""
    try:
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        return any(revents & select.POLLERR for _, revents in poller.poll(0))
    except (OSError, ValueError, AttributeError):
        return False


def _quiet_stdout(fd: int = 1) -> None:
    """Point standard output (or ``fd``) at /dev/null, so that the interpreter's last flush does not print a
    traceback."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)


def could_not_complete(error: BaseException, *, debug: bool, prefix: str = "certcheck: ") -> int:
    """Exit status 4 with one line (the traceback with ``debug``): I/O error, resource limit, internal error."""
    if debug:
        traceback.print_exception(error, file=sys.stderr)
    if isinstance(error, OSError):
        what = f"I/O error: {error.strerror or error}" + (f": {error.filename}" if error.filename else "")
    elif isinstance(error, (MemoryError, RecursionError)):
        what = f"resource limit reached ({type(error).__name__})"
    else:
        what = f"internal error: {type(error).__name__}: {error}"
    message = f"{prefix}could not complete: {one_line(what)[:500]}" + ("" if debug else " (--debug for the traceback)")
    with contextlib.suppress(OSError):  # even stderr may be gone
        print(message, file=sys.stderr)
    return COULD_NOT_COMPLETE


def one_line(text: str) -> str:
    """``text`` with control characters escaped, so that a message stays on one line."""
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
