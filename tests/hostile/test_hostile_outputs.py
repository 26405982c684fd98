"""Faults on output: every writer ends with exit status 4 in one line, never a traceback or a false verdict.

Exit status 1 means "something checked is false"; a full disk, an unwritable output or a
parent that is a file is none of that (exit 4, "could not complete"). The faults are real
where the operating system can make them without privileges: a path whose parent is a regular
file, and a file-size limit (RLIMIT_FSIZE, whose writes fail with EFBIG as a full disk fails
with ENOSPC). ENOSPC itself, internal errors and MemoryError are injected in-process.
"""

from __future__ import annotations

import errno
import json
import os
import random
import resource
import signal
import stat
from pathlib import Path
from typing import Any

import click
import pytest

from hostile_run import (PROGRESS_LINE, assert_bounded, assert_refused, campaign, finish, kill_session, launch, run, slow_except,
                         wait_for_line)
from verify.core import exitcodes
from verify.app.cli import _register_commands, cli, main
from verify.app.commands import simulate as simulate_command
from verify.core.io import atomic_directory, atomic_write_text
from verify.app.report import build

CONFIG = {"tokens": [["1", "0"], ["0", "1"], ["-1/2", "1/3"], ["3/4", "-1/5"], ["-1", "-1"], ["1/7", "2/3"],
                     ["-2/3", "1/9"], ["5/6", "5/7"]], "alpha": "1/2"}
CONJECTURE_FILE = '''
from fractions import Fraction
from hypothesis import strategies as st
from verify.core.config import Configuration
from verify.experiments.conjectures import Conjecture, Observation

TOKENS = st.integers(1, 9).map(lambda x: Configuration(tokens=((Fraction(x),),), alpha=Fraction(1)))
ALWAYS = Conjecture("always_held", "a statement that always holds (test double)", TOKENS,
                    lambda c: Observation.held(value=int(c.tokens[0][0])))
'''
CAMPAIGN = campaign(examples=1, n=(3, 3))
FILE_SIZE_LIMIT = 512  # bytes: larger than the one-line message, smaller than every output below


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("writers")
    (folder / "config.json").write_text(json.dumps(CONFIG))
    (folder / "mine.py").write_text(CONJECTURE_FILE)
    (folder / "campaign.toml").write_text(CAMPAIGN)
    assert main(["check", str(folder / "config.json"), "--no-cross-check", "--json", str(folder / "claims.json")]) == 0
    return folder


def _writers(inputs: Path, target: str) -> dict[str, list[str]]:
    """Every writing command, writing to ``target`` (a file or a folder, as the command expects)."""
    return {
        "simulate --json": ["simulate", str(inputs / "config.json"), "--layers", "30", "--json", target],
        "check --json": ["check", str(inputs / "config.json"), "--no-cross-check", "--json", target],
        "certcheck --json": ["certcheck", str(inputs / "claims.json"), "--json", target],
        "conjecture run --results-dir": ["conjecture", "run", str(inputs / "mine.py"), "--examples", "20",
                                         "--results-dir", target],
        "report --out": ["report", "--config", str(inputs / "campaign.toml"), "--jobs", "1", "--runs", "none",
                         "--out", target],
        "control --json": ["control", str(inputs / "config.json"), "--leaders", "0,4", "--json", target],
        "control --out": ["control", str(inputs / "config.json"), "--leaders", "0,4", "--out", target],
    }


WRITERS = ["simulate --json", "check --json", "certcheck --json", "conjecture run --results-dir", "report --out",
           "control --json", "control --out"]


@pytest.mark.parametrize("writer", slow_except(WRITERS, "check --json", "certcheck --json", "conjecture run --results-dir"))
def test_a_parent_that_is_a_file_is_exit_4_in_one_line(inputs: Path, tmp_path: Path, writer: str) -> None:
    (tmp_path / "blocker").write_text("a file where a folder should be\n")
    outcome = run(_writers(inputs, "blocker/output")[writer], tmp_path)
    assert_refused(outcome, exitcodes.COULD_NOT_COMPLETE, "could not complete", "blocker", "not a folder")
    assert (tmp_path / "blocker").read_text() == "a file where a folder should be\n"


UNWRITABLE = "/sys/hardmax-verify-output"  # no file can be created in /sys, not even by root


@pytest.mark.parametrize("writer", slow_except(WRITERS, "check --json", "report --out", "conjecture run --results-dir"))
def test_an_unwritable_output_is_refused_before_any_work(inputs: Path, tmp_path: Path, writer: str) -> None:
    outcome = run(_writers(inputs, UNWRITABLE)[writer], tmp_path)
    # One line, no progress line before it (nothing ran), naming the user's path.
    assert_refused(outcome, exitcodes.COULD_NOT_COMPLETE, "could not complete", UNWRITABLE, "nothing was run")
    assert not Path(UNWRITABLE).exists()


@pytest.mark.parametrize("writer", slow_except(["simulate --json", "check --json", "certcheck --json", "conjecture run --results-dir",
                                                "control --json", "control --out"],
                                               "certcheck --json", "conjecture run --results-dir"))
def test_a_write_that_fails_midway_is_exit_4_and_leaves_nothing(inputs: Path, tmp_path: Path, writer: str) -> None:
    # certcheck --json on a full disk used to exit 1, "a certificate was rejected", although every
    # certificate verified.
    outcome = run(_writers(inputs, "output")[writer], tmp_path, limits={resource.RLIMIT_FSIZE: FILE_SIZE_LIMIT})
    assert_refused(outcome, exitcodes.COULD_NOT_COMPLETE, "could not complete", "File too large")
    # No half-written output, no temporary (.hypothesis is Hypothesis's own cache, not an output).
    leftovers = sorted(p.name for p in tmp_path.rglob("*")
                       if p.is_file() and not {".logs", ".hypothesis"} & set(p.relative_to(tmp_path).parts))
    assert leftovers == [], leftovers


# -- Injected in-process: ENOSPC, internal errors, memory. -------------------------------------------

def _disk_full(*args: Any, **kwargs: Any) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_keeps_the_previous_output(inputs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "trajectory.json"
    target.write_text("previous\n")
    monkeypatch.setattr(os, "fsync", _disk_full)
    status = main(["simulate", str(inputs / "config.json"), "--layers", "3", "--json", str(target)])
    err = capsys.readouterr().err
    assert status == exitcodes.COULD_NOT_COMPLETE, err
    # The user's path, never the temporary file beside it.
    assert [line for line in err.splitlines() if not PROGRESS_LINE.match(line)] == [
        f"error: could not complete: {target}: No space left on device (rerun with --debug for the traceback)"]
    assert target.read_text() == "previous\n" and sorted(p.name for p in tmp_path.iterdir()) == ["trajectory.json"]


def test_a_full_disk_while_writing_the_report_keeps_the_previous_report(inputs: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    args = ["report", "--config", str(inputs / "campaign.toml"), "--jobs", "1", "--runs", "none",
            "--out", str(tmp_path / "latest")]
    assert main(args) == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "latest").iterdir() if p.is_file()}
    monkeypatch.setattr(build, "write_figures", _disk_full)
    status = main(args)
    err = capsys.readouterr().err
    assert status == exitcodes.COULD_NOT_COMPLETE, err
    # Named by the report folder the user asked for, not the staging folder beside it.
    assert err.strip().splitlines()[-1].startswith(f"error: could not complete: {tmp_path / 'latest'}: No space left "
                                                   "on device")
    assert {p.name: p.read_bytes() for p in (tmp_path / "latest").iterdir() if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest"]


@pytest.mark.parametrize("raised, message", [
    (RuntimeError("boom"), "error: could not complete: internal error: RuntimeError: boom "
                           "(rerun with --debug for the traceback)"),
    (MemoryError(), "error: could not complete: out of memory (rerun with --debug for the traceback)"),
    (exitcodes.LimitReached("the engine's denominators passed 10^6 digits"),
     "error: could not complete: the engine's denominators passed 10^6 digits"),
    (SystemExit(0), "error: could not complete: internal error: sys.exit(0) was called inside the command "
                    "(rerun with --debug for the traceback)"),
])
def test_a_crash_is_exit_4_never_a_verdict(inputs: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str], raised: BaseException,
                                           message: str) -> None:
    def crash(*args: Any, **kwargs: Any) -> None:
        raise raised

    monkeypatch.setattr(simulate_command, "run_simulation", crash)
    status = main(["simulate", str(inputs / "config.json"), "--layers", "2"])
    assert status == exitcodes.COULD_NOT_COMPLETE
    assert capsys.readouterr().err.splitlines() == [message]


@pytest.mark.parametrize("where", [["--debug", "simulate"], ["simulate", "--debug"], ["simulate"]])
def test_debug_adds_the_traceback(inputs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                  where: list[str]) -> None:
    def crash(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(simulate_command, "run_simulation", crash)
    if where == ["simulate"]:
        monkeypatch.setenv("HARDMAX_VERIFY_DEBUG", "1")
    status = main([*where, str(inputs / "config.json"), "--layers", "2"])
    err = capsys.readouterr().err
    assert status == exitcodes.COULD_NOT_COMPLETE
    assert err.startswith("Traceback (most recent call last):") and "in crash" in err, err
    assert err.splitlines()[-1] == "error: could not complete: internal error: RuntimeError: boom"


def test_every_command_and_subcommand_takes_debug() -> None:
    _register_commands()
    missing = []

    def visit(command: click.Command, path: str) -> None:
        if not any(param.name == "debug" for param in command.params):
            missing.append(path)
        for name, sub in getattr(command, "commands", {}).items():
            visit(sub, f"{path} {name}")

    visit(cli, "hardmax-verify")
    assert missing == []


# -- Permissions of what is written: those of any new file (the umask decides). ---------------------

@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_outputs_respect_the_umask(tmp_path: Path, umask: int) -> None:
    previous = os.umask(umask)
    try:
        written = atomic_write_text(tmp_path / "out.json", "{}\n")
        with atomic_directory(tmp_path / "folder") as staging:
            (staging / "inside.txt").write_text("x")
    finally:
        os.umask(previous)
    assert stat.S_IMODE(written.stat().st_mode) == 0o666 & ~umask
    assert stat.S_IMODE((tmp_path / "folder").stat().st_mode) == 0o777 & ~umask


# -- Ctrl-C in the middle of a writer. ------------------------------------------------------------------

def _busy_configuration(tokens: int = 200) -> dict[str, Any]:
    """Seconds of exact work for ``check`` (200 tokens in d = 3), so that the signal lands while it runs."""
    rng = random.Random(0)
    return {"tokens": [[f"{rng.randint(-99, 99)}/{rng.randint(1, 97)}" for _ in range(3)] for _ in range(tokens)],
            "alpha": "1/2"}


@pytest.mark.parametrize("args, working", [
    (["simulate", "config.json", "--layers", "2400", "--max-work", "100000", "--json", "output.json"],
     "hardmax-verify simulate: simulating config.json: layer "),
    (["check", "busy.json", "--json", "output.json"], "hardmax-verify check: checking busy.json: layer "),
], ids=["simulate", "check"])
def test_ctrl_c_in_the_middle_leaves_nothing(inputs: Path, tmp_path: Path, args: list[str], working: str) -> None:
    (tmp_path / "config.json").write_text((inputs / "config.json").read_text())
    (tmp_path / "busy.json").write_text(json.dumps(_busy_configuration()))
    proc = launch(args, tmp_path)
    try:
        wait_for_line(proc, working)  # its first progress line: the input was read, layers are being computed
        os.kill(proc.pid, signal.SIGINT)
        outcome = finish(proc)
    finally:
        kill_session(proc)
    assert_bounded(outcome)
    assert outcome.status == exitcodes.INTERRUPTED, outcome.describe()
    assert outcome.lines() == ["interrupted: nothing half-written was left behind"], outcome.describe()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".logs") == ["busy.json", "config.json"]
