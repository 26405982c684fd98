"""Every option of every command has help text, and every command has the one shared ``--json``."""

from __future__ import annotations

from typing import Iterator

import click
import pytest

from verify.app import cli
from verify.app.commands.output import JSON_TO_STDOUT, JsonOption


def _commands() -> Iterator[tuple[str, click.Command]]:
    cli._register_commands()
    stack: list[tuple[str, click.Command]] = [("hardmax-verify", cli.cli)]
    while stack:
        path, command = stack.pop()
        yield path, command
        if isinstance(command, click.Group):
            stack.extend((f"{path} {name}", sub) for name, sub in command.commands.items())


COMMANDS = sorted(_commands(), key=lambda item: item[0])


def test_the_walk_reaches_every_command():
    paths = {path for path, _ in COMMANDS}
    assert {"hardmax-verify simulate", "hardmax-verify conjecture run", "hardmax-verify sentiment train",
            "hardmax-verify sentiment protocol status", "hardmax-verify classify imdb"} <= paths


@pytest.mark.parametrize("path, command", COMMANDS, ids=[path for path, _ in COMMANDS])
def test_every_option_has_help(path: str, command: click.Command):
    missing = [param.opts[0] for param in command.params
               if isinstance(param, click.Option) and not (param.help or "").strip()]
    assert not missing, f"{path}: options without help: {missing}"
    assert (command.help or "").strip(), f"{path} has no help text"


@pytest.mark.parametrize("path, command", COMMANDS, ids=[path for path, _ in COMMANDS])
def test_json_takes_an_optional_file_everywhere(path: str, command: click.Command):
    for param in command.params:
        if isinstance(param, click.Option) and "--json" in param.opts:
            assert not param.is_flag and param.flag_value == JSON_TO_STDOUT and param.metavar == "[FILE|-]", path
            assert param.name == "json_to", path


@pytest.mark.parametrize("path, command", [(p, c) for p, c in COMMANDS if not isinstance(c, click.Group)],
                         ids=[p for p, c in COMMANDS if not isinstance(c, click.Group)])
def test_every_command_has_the_shared_json_option(path: str, command: click.Command):
    """README: `--json [FILE|-]` means the same on every command (verify.app.commands.output.json_option)."""
    options = [param for param in command.params if isinstance(param, click.Option) and "--json" in param.opts]
    assert len(options) == 1 and isinstance(options[0], JsonOption), f"{path} has no shared --json option"
