"""Every option of every command has help text, and every command has the one shared ``--json``."""

from __future__ import annotations

from typing import Iterator

from pathlib import Path

import click
import pytest

from verify.app import cli
from verify.app.commands import COMMANDS as TABLE
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


def test_the_static_table_names_every_command_module_and_its_command() -> None:
    """`--help` lists the commands from verify.app.commands.COMMANDS without importing them: the table is the modules."""
    folder = Path(cli.__file__).parent / "commands"
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__", "output"}
    assert {entry.module for entry in TABLE} == modules
    for entry in TABLE:
        assert cli.cli.commands[entry.module].name == entry.module


@pytest.mark.parametrize("entry", TABLE, ids=[entry.module for entry in TABLE])
def test_the_tables_summary_is_the_first_sentence_of_the_commands_help(entry) -> None:
    """`--help` shows what click would show from the command's own help, at any width."""
    command = cli.cli.commands[entry.module]
    for limit in (30, 45, 74, 10_000):
        assert click.utils.make_default_short_help(entry.summary, limit) == command.get_short_help_str(limit)


def test_help_lists_every_command_with_its_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    commands = out.split("Commands:\n", 1)[1].splitlines()
    assert [line.split()[0] for line in commands if line.strip()] == sorted(entry.module for entry in TABLE)


def test_version_names_the_version_the_commit_and_the_tree(capsys: pytest.CaptureFixture[str]) -> None:
    from verify import __version__
    from verify.core.versions import source_state

    assert cli.main(["--version"]) == 0
    line = capsys.readouterr().out.strip()
    state = source_state()
    assert line.startswith(f"hardmax-verify {__version__} (")
    if state.commit is None:
        assert "commit unknown" in line
    else:
        assert state.commit in line
        assert ("clean working tree" if state.clean else "uncommitted changes") in line


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
