"""A command starts with what it needs: the command line imports only the module of the command that runs.

matplotlib, numba and Hypothesis take seconds of CPU to import; ``check`` and ``simulate``
need none of them to start (numba comes with the first float layer), and the optional extras
(torch, Dask) are imported only by the commands that use them, never by ``--help``. Each case
runs in a fresh interpreter, where nothing was imported before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verify.core import exitcodes
from verify.app.cli import main

REPO = Path(__file__).resolve().parents[2]
PROBE = ("import json, sys\nfrom verify.app.cli import main\nstatus = main(sys.argv[2:])\n"
         "print(json.dumps([status, sorted(name for name in json.loads(sys.argv[1]) if name in sys.modules)]))\n")
HEAVY = ["matplotlib", "numba", "hypothesis", "torch", "cvxpy", "distributed", "dask", "sympy"]


def _imported(args: list[str], cwd: Path) -> tuple[int, list[str]]:
    """The exit status of ``hardmax-verify ARGS`` and which of HEAVY it imported, in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    completed = subprocess.run([sys.executable, "-c", PROBE, json.dumps(HEAVY), *args], cwd=cwd, env=env,
                               capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    status, imported = json.loads(completed.stdout.splitlines()[-1])
    return status, imported


@pytest.mark.parametrize("args, allowed", [
    (["check", "config.json", "--no-cross-check"], []),
    (["simulate", "config.json", "--layers", "3"], []),          # exact arithmetic: no float layer, no numba
    (["certcheck", "--help"], []),
    (["control", "config.json", "--leaders", "0,1"], ["cvxpy"]),       # the solver only for the command that needs it
    (["--help"], []),                 # the static table of commands: no command module is imported
    (["--version"], []),
])
def test_a_command_imports_only_what_it_needs(tmp_path: Path, args: list[str], allowed: list[str]) -> None:
    (tmp_path / "config.json").write_text('{"tokens": [["1", "0"], ["0", "1"], ["-1/2", "1/3"]], "alpha": "1/2"}')
    status, imported = _imported(args, tmp_path)
    assert status == exitcodes.SUCCESS
    assert sorted(set(imported) - set(allowed)) == [], f"hardmax-verify {' '.join(args)} imported {imported}"


def test_help_imports_no_command_module(tmp_path: Path) -> None:
    """`hardmax-verify --help` lists the commands from verify.app.commands.COMMANDS (bench/cli_startup.py times it)."""
    from verify.app.commands import COMMANDS

    modules = [f"verify.app.commands.{entry.module}" for entry in COMMANDS]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    completed = subprocess.run([sys.executable, "-c", PROBE, json.dumps(modules), "--help"], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=300)
    status, imported = json.loads(completed.stdout.splitlines()[-1])
    assert status == exitcodes.SUCCESS and imported == []
    assert all(f"  {entry.module} " in completed.stdout for entry in COMMANDS)


def test_the_probe_sees_an_import(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"tokens": [["1", "0"], ["0", "1"]], "alpha": "1"}')
    status, imported = _imported(["simulate", "config.json", "--layers", "2", "--arithmetic", "float"], tmp_path)
    assert status == exitcodes.SUCCESS and "numba" in imported


def test_a_misspelt_command_is_usage_with_the_near_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chek"]) == exitcodes.BAD_INPUT
    err = capsys.readouterr().err
    assert "No such command 'chek'" in err and "'check'" in err and len(err.strip().splitlines()) == 1, err
