"""Run one ``hardmax-verify`` command as a hostile-input case: in a subprocess, bounded, observed.

Every case of tests/hostile runs the real command line (``python -m verify``) in its own
process session under a memory limit (RLIMIT_AS = :data:`MEMORY_LIMIT`, inherited by worker
processes) and a wall-clock limit (:data:`TIME_LIMIT`; past it the whole session is killed and
the case fails as a hang). The peak resident memory of the command's process is read from
``wait4`` and checked against the same limit. Output goes to files, not pipes: an orphaned
worker holding a pipe open must not turn a fault into a hung test run.

Limits are asserted as *bounds a fault must stay within* (a refusal must not hang, a parser
must not eat memory), not as speed targets.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import pytest

REPO = Path(__file__).resolve().parents[2]
TIME_LIMIT = 60.0                # seconds per case
MEMORY_LIMIT = 2 * 2**30         # bytes: address space of every process, and peak resident memory
# Printed by the command line's child wrapper once verify.app.cli is imported, so that a signal test
# can wait for it (a signal during interpreter start-up is Python's business, not the suite's).
READY = "hostile-ready"
# The stage lines of a long command whose standard error is not a terminal: "COMMAND: stage".
PROGRESS_LINE = re.compile(r"^(report|selftest|hardmax-verify [a-z][a-z -]*): ")
CHILD = f"import sys, verify.app.cli; sys.stderr.write('{READY}\\n'); sys.stderr.flush(); verify.app.cli.run()"


def campaign(*, examples: int, n: tuple[int, int] = (3, 4), layer_budget: int = 20) -> str:
    """A small CAMPAIGN.toml of generic configurations in d = 2 (no worked ones, no float check, no shrinking)."""
    return (f"[campaign]\nexamples = {examples}\nworked = false\nfloat_check = false\nshrink = false\n"
            f"layer_budget = {layer_budget}\n\n[[family]]\nname = \"generic\"\nn = [{n[0]}, {n[1]}]\nd = [2]\n")


def slow_except(cases: Sequence[Any], *fast: Any) -> list[Any]:
    """Parameter values for ``parametrize``: the ``fast`` cases run in the fast lane, every other is marked slow.

    Each case starts the command line in a fresh interpreter (about a second of CPU; ``report``,
    which imports matplotlib, numba and Hypothesis, several). The fast lane keeps a few cases of
    each test, one per reading or writing path, so that it still catches a refusal that broke;
    the full suite runs them all. A tuple case is several arguments, as ``parametrize`` takes it.
    """
    unknown = [case for case in fast if case not in cases]
    if unknown:
        raise ValueError(f"fast cases not among the cases: {unknown!r}")
    return [case if case in fast else pytest.param(*(case if isinstance(case, tuple) else (case,)), marks=pytest.mark.slow)
            for case in cases]


@dataclass
class Outcome:
    args: list[str]
    status: int
    out: str
    err: str
    seconds: float
    peak_bytes: int

    def lines(self) -> list[str]:
        """Non-empty lines of standard error, the READY marker and progress lines left out.

        Standard error is not a terminal here, so a long command says each stage it starts in a
        line of its own (``report: checking 148 configurations``, verify.app.commands.output.StageLines).
        """
        return [line for line in self.err.splitlines()
                if line.strip() and line != READY and not PROGRESS_LINE.match(line)]

    def describe(self) -> str:
        return (f"{' '.join(self.args)!r}: status {self.status} after {self.seconds:.1f} s, "
                f"{self.peak_bytes / 2**20:.0f} MiB\nstderr: {self.err[-3000:]}\nstdout: {self.out[-1000:]}")


def _limits(extra: Callable[[], None] | None) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a test runner may start us with SIGINT ignored
        if extra is not None:
            extra()
    return apply


def start(args: Sequence[str], cwd: Path, *, env: dict[str, str] | None = None,
          preexec: Callable[[], None] | None = None) -> subprocess.Popen:
    """Start ``hardmax-verify ARGS`` in ``cwd`` (its own session), output in files under ``cwd``/.logs."""
    logs = Path(cwd) / ".logs"
    logs.mkdir(parents=True, exist_ok=True)
    stamp = time.monotonic_ns()
    environment = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    environment.pop("HARDMAX_VERIFY_DEBUG", None)
    out_path, err_path = logs / f"out-{stamp}.txt", logs / f"err-{stamp}.txt"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-c", CHILD, *args], cwd=cwd, env=environment, stdout=out,
                                stderr=err, stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=_limits(preexec))
    proc.out_path, proc.err_path = out_path, err_path  # type: ignore[attr-defined]
    proc.started = time.monotonic()  # type: ignore[attr-defined]
    proc.args_list = list(args)  # type: ignore[attr-defined]
    return proc


def wait_ready(proc: subprocess.Popen, timeout: float = TIME_LIMIT) -> float:
    """Block until the child has imported verify.app.cli; returns that moment (monotonic)."""
    deadline = time.monotonic() + timeout
    while not proc.err_path.read_text(errors="replace").startswith(READY):  # type: ignore[attr-defined]
        if proc.poll() is not None:
            raise AssertionError(f"the command ended before it was ready: {proc.err_path.read_text()}")
        if time.monotonic() > deadline:
            kill_session(proc)
            raise AssertionError("the command never became ready")
        time.sleep(0.01)
    return time.monotonic()


def kill_session(proc: subprocess.Popen) -> None:
    """SIGKILL everything in the command's session (the command, its pool, its forkserver)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def finish(proc: subprocess.Popen, timeout: float = TIME_LIMIT) -> Outcome:
    """Wait for the command (at most ``timeout`` s from its start) and collect what it did."""
    deadline = proc.started + timeout  # type: ignore[attr-defined]
    # Signal the command with os.kill, not Popen.send_signal: the latter polls first, and a poll
    # that reaps the command loses its resource usage.
    assert proc.returncode is None, "the command was reaped elsewhere (Popen.poll or send_signal)"
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            kill_session(proc)
            _, status, _ = os.wait4(proc.pid, 0)
            # Reaped here: recorded, so that Popen does not warn of a running child in a later test.
            proc.returncode = os.waitstatus_to_exitcode(status)
            err = proc.err_path.read_text(errors="replace")  # type: ignore[attr-defined]
            args = proc.args_list  # type: ignore[attr-defined]
            raise AssertionError(f"{args!r}: no exit within {timeout:.0f} s (a hang); stderr: {err[-2000:]}")
        time.sleep(0.02)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - proc.started  # type: ignore[attr-defined]
    return Outcome(args=proc.args_list, status=proc.returncode, seconds=seconds,  # type: ignore[attr-defined]
                   out=proc.out_path.read_text(errors="replace"),  # type: ignore[attr-defined]
                   err=proc.err_path.read_text(errors="replace"),  # type: ignore[attr-defined]
                   peak_bytes=usage.ru_maxrss * 1024)


def run(args: Sequence[str], cwd: Path, **kwargs) -> Outcome:  # type: ignore[no-untyped-def]
    """Run one command to its end, bounded (see the module docstring), and check the bounds."""
    outcome = finish(start(args, cwd, **kwargs))
    assert_bounded(outcome)
    return outcome


def assert_bounded(outcome: Outcome) -> None:
    assert outcome.seconds <= TIME_LIMIT, outcome.describe()
    assert outcome.peak_bytes <= MEMORY_LIMIT, outcome.describe()
    # Never a crash: no traceback, and never exit 1 without a verdict (1 means "something is false").
    assert "Traceback" not in outcome.err, outcome.describe()
    assert outcome.status >= 0, f"killed by signal {-outcome.status}: " + outcome.describe()


def assert_refused(outcome: Outcome, status: int, *fragments: str) -> str:
    """The command refused in one line ``error: ...`` with ``status``, naming every fragment; returns the line."""
    assert outcome.status == status, outcome.describe()
    lines = outcome.lines()
    assert len(lines) == 1 and lines[0].startswith("error:"), outcome.describe()
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in the message: " + outcome.describe()
    return lines[0]


def processes_in(folder: Path) -> list[int]:
    """Live (non-zombie) processes whose working directory is ``folder``: the command and everything it started."""
    found = []
    target = os.path.realpath(folder)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.readlink(entry / "cwd") != target:
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.append(int(entry.name))
    return found
