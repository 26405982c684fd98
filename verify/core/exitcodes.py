"""Exit statuses shared by every command, and the errors that map onto them.

    0  success: everything certified, conjecture as expected, certificates verified, variants caught
    1  something checked came out false (only ever a verdict, never a crash)
    2  bad input or usage, or a value beyond a documented limit, refused before any work
       (:class:`verify.core.numbers.InputError`)
    3  nothing false, but something inconclusive
    4  could not complete: an I/O error (disk full, unwritable output, a parent that is a file),
       a resource limit reached while running, another run holding the output folder, or an
       internal error (:class:`CouldNotComplete`, and any other exception reaching the CLI)
  130  stopped by Ctrl-C or SIGTERM; nothing half-written is left behind

The command line (:func:`verify.app.cli.main`) applies this table once for every command: a
command returns its verdict status or raises, and the exception decides 2, 4 or 130.
"""

SUCCESS = 0          # everything certified / conjecture held / certificates verified / variants caught
FALSE = 1            # something checked came out false
BAD_INPUT = 2        # bad input or usage, or a value beyond a documented limit
INCONCLUSIVE = 3     # nothing false, but something inconclusive
COULD_NOT_COMPLETE = 4  # I/O error, resource limit reached while running, busy output, internal error
INTERRUPTED = 130    # stopped by Ctrl-C; nothing half-written is left behind


class CouldNotComplete(Exception):
    """The command could not finish (exit status 4); the message is one line saying why.

    Raise it (or a subclass) for faults that are neither bad input nor a verdict: a limit
    reached while running, an output folder another run holds, a lost worker pool.
    """


class LimitReached(CouldNotComplete):
    """A documented resource limit was reached while running (values beyond a limit are refused up front)."""


class OutputBusy(CouldNotComplete):
    """Another run is writing the same output folder."""


def combine(statuses: "list[str]") -> int:
    """Exit status for a list of verdict statuses ('certified' / 'failed' / 'inconclusive')."""
    if any(s == "failed" for s in statuses):
        return FALSE
    if any(s == "inconclusive" for s in statuses):
        return INCONCLUSIVE
    return SUCCESS
