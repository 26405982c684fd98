"""Run one ``hardmax-verify`` command as a hostile-input case: in a subprocess, bounded, observed.

Every case of tests/hostile runs the real command line (``python -m verify``) in its own
process session under a memory limit (RLIMIT_AS = :data:`MEMORY_LIMIT`, inherited by worker
processes) and a wall-clock limit (:data:`TIME_LIMIT`; past it the whole session is killed and
the case fails as a hang). The peak resident memory of the command's process is read from
``wait4`` and checked against the same limit. Output goes to files, not pipes: an orphaned
worker holding a pipe open must not turn a fault into a hung test run.

Limits are asserted as *bounds a fault must stay within* (a refusal must not hang, a parser
must not eat memory), not as speed targets.

:func:`run` forks each case from a launcher: an interpreter started once per test process (under
the same limits) that has imported the command line and the module of every command (a fresh
interpreter imports the one it runs). The case is still a process of its own (its own session,
limits, files, exit status, peak memory and interpreter exit), at about a tenth of a second
instead of one to three seconds of start-up and imports. :func:`start` starts a fresh
interpreter: a test of what happens while the command starts (a signal during its imports)
needs one.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

import pytest

from tests.common.ready_marker import announcing

REPO = Path(__file__).resolve().parents[2]
TIME_LIMIT = 60.0                # seconds per case
MEMORY_LIMIT = 2 * 2**30         # bytes: address space of every process, and peak resident memory
# Printed by the command once its stop handlers are in (the first thing verify.app.cli.run does), so
# that a signal test can wait for it: a signal before then meets Python's default action, whose
# outcome is Python's business, not the suite's.
READY = "hostile-ready"
# The stage lines of a long command whose standard error is not a terminal: "COMMAND: stage".
PROGRESS_LINE = re.compile(r"^(report|selftest|hardmax-verify [a-z][a-z -]*): ")
ANNOUNCE_READY = announcing(READY)
CHILD = ANNOUNCE_READY + "verify.app.cli.run()\n"
# The launcher (see the module docstring). Each line it reads is a case (JSON): it forks it and says
# "started PID"; when a case ends it says "ended PID WAIT-STATUS PEAK-KIB" (cases may overlap, as
# a second run beside a first one). The forked process leaves the loop and runs the command as
# CHILD does, at the top level of the program, so that its exit is an interpreter's exit (atexit
# handlers, flushes).
LAUNCHER = ANNOUNCE_READY + """
import gc, importlib, json, os, resource, select, sys
import verify.app.cli
from verify.app.commands import COMMANDS
for module_name, *_ in COMMANDS:
    importlib.import_module("verify.app.commands." + module_name)
# Out of the collector's reach: a forked case that collected them would copy every page they sit
# on (most of the interpreter), and its exit would take ten times as long.
gc.freeze()


def say(line):
    os.write(1, (line + "\\n").encode())


def serve():
    running, buffer = set(), b""
    while True:
        while running:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
            if not pid:
                break
            running.discard(pid)
            say(f"ended {pid} {status} {usage.ru_maxrss}")
        if b"\\n" not in buffer:
            if select.select([0], [], [], 0.01 if running else None)[0]:
                chunk = os.read(0, 65536)
                if not chunk:
                    sys.exit(0)
                buffer += chunk
            continue
        line, buffer = buffer.split(b"\\n", 1)
        case = json.loads(line)
        pid = os.fork()
        if pid == 0:
            return case
        running.add(pid)
        say(f"started {pid}")


case = serve()
os.setsid()
os.chdir(case["cwd"])
for limit, value in case["limits"]:
    resource.setrlimit(limit, (value, value))
null = os.open(os.devnull, os.O_RDONLY)
os.dup2(null, 0)
os.close(null)
for fd, path in ((1, case["out"]), (2, case["err"])):
    handle = os.open(path, os.O_WRONLY)
    os.dup2(handle, fd)
    os.close(handle)
sys.argv = ["-c", *case["args"]]
verify.app.cli.run()
"""


def campaign(*, examples: int, n: tuple[int, int] = (3, 4), layer_budget: int = 20) -> str:
    """A small CAMPAIGN.toml of generic configurations in d = 2 (no worked ones, no float check, no shrinking)."""
    return (f"[campaign]\nexamples = {examples}\nworked = false\nfloat_check = false\nshrink = false\n"
            f"layer_budget = {layer_budget}\n\n[[family]]\nname = \"generic\"\nn = [{n[0]}, {n[1]}]\nd = [2]\n")


def slow_except(cases: Sequence[Any], *fast: Any) -> list[Any]:
    """Parameter values for ``parametrize``: the ``fast`` cases run in the fast lane, every other is marked slow.

    Each case is a process of its own (forked by the launcher: a tenth of a second of CPU or so,
    times the hundreds of cases). The fast lane keeps a few cases of each test, one per reading or
    writing path, so that it still catches a refusal that broke; the full suite runs them all. A
    tuple case is several arguments, as ``parametrize`` takes it.
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


def _limits(limits: Mapping[int, int]) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a test runner may start us with SIGINT ignored
        for limit, value in limits.items():
            resource.setrlimit(limit, (value, value))
    return apply


def _environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    environment = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    environment.pop("HARDMAX_VERIFY_DEBUG", None)
    return environment


def _log_paths(cwd: Path) -> tuple[Path, Path]:
    """Files for the command's standard output and error, under ``cwd``/.logs."""
    logs = Path(cwd) / ".logs"
    logs.mkdir(parents=True, exist_ok=True)
    stamp = time.monotonic_ns()
    return logs / f"out-{stamp}.txt", logs / f"err-{stamp}.txt"


def start(args: Sequence[str], cwd: Path, *, env: Mapping[str, str] | None = None,
          limits: Mapping[int, int] = MappingProxyType({})) -> subprocess.Popen:
    """Start ``hardmax-verify ARGS`` in a fresh interpreter in ``cwd`` (its own session), output in files under ``cwd``/.logs.

    ``limits``: resource limits (``resource.RLIMIT_*``: value) on top of the address space.
    """
    out_path, err_path = _log_paths(cwd)
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-c", CHILD, *args], cwd=cwd, env=_environment(env), stdout=out,
                                stderr=err, stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=_limits(limits))
    proc.out_path, proc.err_path = out_path, err_path  # type: ignore[attr-defined]
    proc.started = time.monotonic()  # type: ignore[attr-defined]
    proc.args_list = list(args)  # type: ignore[attr-defined]
    return proc


class Forked:
    """A case forked by the launcher: what :func:`finish`, :func:`wait_ready` and :func:`kill_session` use of a Popen."""

    def __init__(self, launcher: _Launcher, pid: int, args: Sequence[str], out_path: Path, err_path: Path,
                 started: float) -> None:
        self.launcher, self.pid, self.args_list = launcher, pid, list(args)
        self.out_path, self.err_path, self.started = out_path, err_path, started
        self.returncode: int | None = None
        self.peak_bytes = 0

    def collect(self, timeout: float | None) -> bool:
        """Wait up to ``timeout`` seconds (None: for ever) for the launcher to report the exit; True once it has."""
        if self.returncode is None:
            ended = self.launcher.wait_for(self.pid, timeout)
            if ended is None:
                return False
            status, peak_kib = ended
            self.returncode, self.peak_bytes = os.waitstatus_to_exitcode(status), peak_kib * 1024
        return True

    def poll(self) -> int | None:
        self.collect(0)
        return self.returncode


class _Launcher:
    """The running LAUNCHER of this test process: started at first use, stopped at exit."""

    def __init__(self) -> None:
        self.environment = _environment()
        self.log = tempfile.TemporaryFile()  # its own standard error, quoted if it fails
        self.proc = subprocess.Popen([sys.executable, "-c", LAUNCHER], cwd=REPO, env=self.environment,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     start_new_session=True, preexec_fn=_limits({}))
        self.buffer = b""
        self.running: set[int] = set()
        self.ended: dict[int, tuple[int, int]] = {}  # pid: (wait status, peak resident KiB)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def _line(self, deadline: float | None) -> str | None:
        """The launcher's next line; None if none came before ``deadline`` (monotonic; None: no deadline)."""
        assert self.proc.stdout is not None
        while b"\n" not in self.buffer:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self.proc.stdout], [], [], remaining)[0]:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            if not chunk:
                self.log.seek(0)
                raise AssertionError(f"the launcher ended: {self.log.read().decode(errors='replace')[-3000:]}")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()

    def _next_event(self, deadline: float | None) -> tuple[str, int] | None:
        """The launcher's next line as ("started" or "ended", pid), an end recorded; None if none came before ``deadline``."""
        line = self._line(deadline)
        if line is None:
            return None
        word, pid, *rest = line.split()
        if word == "started":
            self.running.add(int(pid))
        else:
            self.running.discard(int(pid))
            self.ended[int(pid)] = (int(rest[0]), int(rest[1]))
        return word, int(pid)

    def wait_for(self, pid: int, timeout: float | None) -> tuple[int, int] | None:
        """(wait status, peak resident KiB) of case ``pid`` once it has ended; None if not within ``timeout`` s."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while pid not in self.ended:
            if self._next_event(deadline) is None:
                return None
        return self.ended.pop(pid)

    def launch(self, args: Sequence[str], cwd: Path, limits: Mapping[int, int]) -> Forked:
        out_path, err_path = _log_paths(cwd)
        for path in (out_path, err_path):  # there before the case starts, as wait_ready expects
            path.touch()
        case = {"args": list(args), "cwd": os.fspath(cwd), "out": os.fspath(out_path), "err": os.fspath(err_path),
                "limits": sorted(limits.items())}
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(case) + "\n").encode())
        self.proc.stdin.flush()
        started = time.monotonic()
        while (event := self._next_event(started + TIME_LIMIT)) is not None and event[0] != "started":
            pass  # another case's end, recorded
        assert event is not None, "the launcher did not fork the case"
        return Forked(self, event[1], args, out_path, err_path, started)

    def stop(self) -> None:
        for pid in self.running:  # left running by a test that failed before finishing it
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        assert self.proc.stdin is not None
        self.proc.stdin.close()  # the launcher ends at the end of its input
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


_launcher: _Launcher | None = None


def launch(args: Sequence[str], cwd: Path, *, limits: Mapping[int, int] = MappingProxyType({})) -> Forked:
    """Fork ``hardmax-verify ARGS`` in ``cwd`` from the launcher (see the module docstring)."""
    global _launcher
    if _launcher is None or not _launcher.alive():
        _launcher = _Launcher()
        atexit.register(_launcher.stop)
    return _launcher.launch(args, cwd, limits)


def wait_ready(proc: subprocess.Popen | Forked, timeout: float = TIME_LIMIT) -> float:
    """Block until the child's stop handlers are in (its READY line); returns that moment (monotonic)."""
    deadline = time.monotonic() + timeout
    while not proc.err_path.read_text(errors="replace").startswith(READY):  # type: ignore[union-attr]
        if proc.poll() is not None:
            raise AssertionError(f"the command ended before it was ready: {proc.err_path.read_text()}")  # type: ignore[union-attr]
        if time.monotonic() > deadline:
            kill_session(proc)
            raise AssertionError("the command never became ready")
        time.sleep(0.01)
    return time.monotonic()


def wait_for_line(proc: subprocess.Popen | Forked, start: str, timeout: float = TIME_LIMIT) -> None:
    """Block until a line of the command's standard error starts with ``start`` (a stage or progress line)."""
    deadline = time.monotonic() + timeout
    while not any(line.startswith(start) for line in proc.err_path.read_text(errors="replace").splitlines()):  # type: ignore[union-attr]
        if proc.poll() is not None:
            raise AssertionError(f"the command ended before it printed {start!r}: {proc.err_path.read_text()}")  # type: ignore[union-attr]
        if time.monotonic() > deadline:
            kill_session(proc)
            raise AssertionError(f"the command never printed {start!r}")
        time.sleep(0.01)


def kill_session(proc: subprocess.Popen | Forked) -> None:
    """SIGKILL everything in the command's session (the command, its pool, its forkserver)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _hang(proc: subprocess.Popen | Forked, timeout: float) -> AssertionError:
    err = proc.err_path.read_text(errors="replace")  # type: ignore[union-attr]
    return AssertionError(f"{proc.args_list!r}: no exit within {timeout:.0f} s (a hang); stderr: {err[-2000:]}")  # type: ignore[union-attr]


def finish(proc: subprocess.Popen | Forked, timeout: float = TIME_LIMIT) -> Outcome:
    """Wait for the command (at most ``timeout`` s from its start) and collect what it did."""
    deadline = proc.started + timeout  # type: ignore[union-attr]
    if isinstance(proc, Forked):
        if not proc.collect(max(0.0, deadline - time.monotonic())):
            kill_session(proc)
            proc.collect(None)
            raise _hang(proc, timeout)
        status, peak_bytes = proc.returncode, proc.peak_bytes
    else:
        # Signal the command with os.kill, not Popen.send_signal: the latter polls first, and a poll
        # that reaps the command loses its resource usage.
        assert proc.returncode is None, "the command was reaped elsewhere (Popen.poll or send_signal)"
        while True:
            pid, wait_status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                kill_session(proc)
                _, wait_status, _ = os.wait4(proc.pid, 0)
                # Reaped here: recorded, so that Popen does not warn of a running child in a later test.
                proc.returncode = os.waitstatus_to_exitcode(wait_status)
                raise _hang(proc, timeout)
            time.sleep(0.02)
        proc.returncode = status = os.waitstatus_to_exitcode(wait_status)
        peak_bytes = usage.ru_maxrss * 1024
    assert status is not None
    seconds = time.monotonic() - proc.started  # type: ignore[union-attr]
    return Outcome(args=proc.args_list, status=status, seconds=seconds,  # type: ignore[union-attr]
                   out=proc.out_path.read_text(errors="replace"),  # type: ignore[union-attr]
                   err=proc.err_path.read_text(errors="replace"),  # type: ignore[union-attr]
                   peak_bytes=peak_bytes)


def _same_environment(first: Mapping[str, str], second: Mapping[str, str]) -> bool:
    """Equal but for the variable pytest sets to the test that is running."""
    return ({k: v for k, v in first.items() if k != "PYTEST_CURRENT_TEST"}
            == {k: v for k, v in second.items() if k != "PYTEST_CURRENT_TEST"})


def run(args: Sequence[str], cwd: Path, *, env: Mapping[str, str] | None = None,
        limits: Mapping[int, int] = MappingProxyType({})) -> Outcome:
    """Run one command to its end, bounded (see the module docstring), and check the bounds.

    Forked from the launcher, unless the environment differs from the one the launcher started
    with (``env``, or a variable a test changed): then in a fresh interpreter.
    """
    if env is None and (_launcher is None or _same_environment(_launcher.environment, _environment())):
        outcome = finish(launch(args, cwd, limits=limits))
    else:
        outcome = finish(start(args, cwd, env=env, limits=limits))
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
