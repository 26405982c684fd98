"""The ``hardmax-verify`` command line: a thin layer over the package.

Every subcommand lives in :mod:`verify.commands`; this module only wires them together and
turns the package's :class:`~verify.numbers.InputError` into a one-line message and exit status 2.
"""

from __future__ import annotations

import importlib
import signal
import sys

import click

from . import __version__, exitcodes
from .commands import COMMANDS
from .numbers import InputError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hardmax-verify")
def cli() -> None:
    """Exact verification of the clustering theorem for hardmax-attention transformers.

    Exit status: 0 success, 1 something checked came out false, 2 bad input or usage,
    3 nothing false but something inconclusive.
    """


for module_name, attribute in COMMANDS:
    module = importlib.import_module(f"verify.commands.{module_name}")
    cli.add_command(getattr(module, attribute))


def main(argv: list[str] | None = None) -> int:
    """Entry point: returns the exit status instead of raising for known errors."""
    try:
        status = cli.main(args=argv, prog_name="hardmax-verify", standalone_mode=False)
    except InputError as error:
        click.echo(f"error: {error}", err=True)
        return exitcodes.BAD_INPUT
    except click.exceptions.Exit as exit_:
        return exit_.exit_code
    except click.ClickException as error:
        error.show()
        return exitcodes.BAD_INPUT
    except click.exceptions.Abort:
        click.echo("interrupted: nothing half-written was left behind", err=True)
        return exitcodes.INTERRUPTED
    except KeyboardInterrupt:
        click.echo("interrupted: nothing half-written was left behind", err=True)
        return exitcodes.INTERRUPTED
    except SystemExit as exit_:
        return int(exit_.code or 0) if not isinstance(exit_.code, str) else exitcodes.BAD_INPUT
    # Commands return their exit status (an int) or None for plain success.
    return status if isinstance(status, int) else exitcodes.SUCCESS


def _terminate(signum: int, frame: object) -> None:
    # SIGTERM (kill, a CI timeout, a scheduler) gets the same clean stop as Ctrl-C: atomic writes
    # remove their temporaries, process pools are shut down, the earlier output stays intact.
    raise KeyboardInterrupt


def run() -> None:
    signal.signal(signal.SIGTERM, _terminate)
    sys.exit(main())


if __name__ == "__main__":
    run()
