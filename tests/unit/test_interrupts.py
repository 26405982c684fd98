"""Ctrl-C and SIGTERM stop a command with KeyboardInterrupt, but never inside importlib's own code."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from verify.app.interrupts import raise_interrupt

REPO = Path(__file__).resolve().parents[2]


def _run(script: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    # SIGINT restored: a shell's background job (and so this test run) may have it ignored.
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_an_interrupt_outside_the_import_machinery_is_raised_at_once() -> None:
    with pytest.raises(KeyboardInterrupt):
        raise_interrupt(signal.SIGTERM, sys._getframe())


# A signal that lands in importlib's code (here: a frame that says it is there) is not raised
# there, where Python would report it as ignored and could keep the import lock forever; it
# arrives again a moment later and stops the program then.
_LANDED_IN_AN_IMPORT = """
import signal, sys, time, types
from verify.app import interrupts
interrupts.install()
inside_importlib = types.SimpleNamespace(f_code=types.SimpleNamespace(co_filename="<frozen importlib._bootstrap>"),
                                         f_back=None)
interrupts.raise_interrupt(signal.SIG{name}, inside_importlib)
print("returned", flush=True)
try:
    time.sleep(20)
    print("the interrupt was lost")
except KeyboardInterrupt:
    print("raised again")
"""


@pytest.mark.parametrize("name", ["INT", "TERM"])
def test_an_interrupt_inside_the_import_machinery_is_delivered_again(name: str) -> None:
    done = _run(_LANDED_IN_AN_IMPORT.format(name=name))
    assert done.stdout.split() == ["returned", "raised", "again"], done.stdout + done.stderr
    assert done.returncode == 0, done.stderr


# A signal that lands while a compiled module initialises, inside code that swallows every
# exception: numpy.random's Cython modules register their memoryview type with collections.abc
# under a bare ``except: pass`` as they load. Raised there, the stop was lost and the command ran
# to its end; it is raised once the module has loaded instead.
_LANDED_IN_A_COMPILED_MODULE = """
import signal, sys, time
from verify.app import interrupts
interrupts.install()
def land(frame, event, arg):
    if (event == "call" and frame.f_code.co_name == "register"
            and getattr(frame.f_locals.get("subclass"), "__name__", "") == "_memoryviewslice"):
        sys.setprofile(None)
        print("landed", flush=True)
        signal.raise_signal(signal.SIG{name})
sys.setprofile(land)
try:
    import numpy.random
    # Short sleeps: a signal that arrives just as a blocking call starts is handled when the call
    # returns (Python's own behaviour, not what this test is about).
    for _ in range(2000):
        time.sleep(0.01)
    print("lost")
except KeyboardInterrupt:
    # An interrupt raised inside the import would have removed the half-loaded module.
    print("raised", "after" if hasattr(sys.modules.get("numpy.random"), "default_rng") else "inside", "the import")
"""


@pytest.mark.parametrize("name", ["INT", "TERM"])
def test_an_interrupt_in_a_compiled_module_that_swallows_it_is_raised_after_the_import(name: str) -> None:
    done = _run(_LANDED_IN_A_COMPILED_MODULE.format(name=name))
    assert done.stdout.split() == ["landed", "raised", "after", "the", "import"], done.stdout + done.stderr
    assert done.returncode == 0, done.stderr


# A signal that lands in a finaliser: Python cannot raise from there ("Exception ignored in").
_LANDED_IN_A_FINALISER = """
import signal, time
from verify.app import interrupts
interrupts.install()
class Finalised:
    def __del__(self):
        signal.raise_signal(signal.SIG{name})
finalised = False
try:
    Finalised()
    finalised = True
    time.sleep(20)
    print("lost")
except KeyboardInterrupt:
    print("raised", "after" if finalised else "inside", "the finaliser")
"""


@pytest.mark.parametrize("name", ["INT", "TERM"])
def test_an_interrupt_in_a_finaliser_is_raised_again_outside_it(name: str) -> None:
    done = _run(_LANDED_IN_A_FINALISER.format(name=name))
    assert done.stdout.split() == ["raised", "after", "the", "finaliser"], done.stdout + done.stderr
    assert "Exception ignored" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr


# A signal that lands in ``threading.Condition.__enter__`` just after its lock is taken: raised
# there, it left the lock held for good (a future's condition: the process pool's manager thread
# then waited for it for ever, and the interpreter's exit with it). It is raised once the frame is
# left instead, and the ``with`` block then gives the lock back.
_LANDED_IN_A_CONDITION = """
import signal, sys, threading, time
from verify.app import interrupts
interrupts.install()
class Lock:
    def __init__(self):
        self.inner = threading.Lock()
    def acquire(self, *args):
        return self.inner.acquire(*args)
    def release(self):
        self.inner.release()
    def __enter__(self):
        self.inner.acquire()
        handing_over = sys._getframe(1)
        print(handing_over.f_code.co_qualname, interrupts._would_be_lost(handing_over), flush=True)
        interrupts.raise_interrupt(signal.SIG{name}, handing_over)
        print("returned", flush=True)
        return True
    def __exit__(self, *exc):
        self.inner.release()
lock = Lock()
try:
    with threading.Condition(lock):
        for _ in range(2000):
            time.sleep(0.01)
    print("lost")
except KeyboardInterrupt:
    print("raised", "and the lock is", "held" if lock.inner.locked() else "free")
"""


@pytest.mark.parametrize("name", ["INT", "TERM"])
def test_an_interrupt_as_a_condition_takes_its_lock_is_raised_after_the_lock_is_held_safely(name: str) -> None:
    done = _run(_LANDED_IN_A_CONDITION.format(name=name))
    assert done.stdout.split() == ["Condition.__enter__", "True", "returned", "raised", "and", "the", "lock", "is",
                                   "free"], done.stdout + done.stderr
    assert done.returncode == 0, done.stderr


def test_an_import_that_never_ends_is_interrupted_after_the_patience(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    from verify.app import interrupts

    # A deadlocked import must stay stoppable: past the patience the interrupt is raised inside it.
    monkeypatch.setattr(interrupts, "_IMPORT_PATIENCE_SECONDS", 0.0)
    monkeypatch.setattr(interrupts, "_deferred_since", None)
    loader = types.SimpleNamespace(f_code=types.SimpleNamespace(co_filename="<frozen importlib._bootstrap_external>",
                                                                co_qualname="ExtensionFileLoader.exec_module"),
                                   f_back=None)
    called_by_the_module = types.SimpleNamespace(f_code=types.SimpleNamespace(co_filename="<frozen abc>",
                                                                              co_qualname="ABCMeta.register"),
                                                 f_back=loader)
    assert interrupts._would_be_lost(called_by_the_module)
    with pytest.raises(KeyboardInterrupt):
        raise_interrupt(signal.SIGTERM, called_by_the_module)  # type: ignore[arg-type]
    assert interrupts._deferred_since is None


_INSTALLED = """
import signal
from verify.app import interrupts
signal.signal(signal.SIGINT, signal.{sigint})
interrupts.install()
print(signal.getsignal(signal.SIGTERM) is interrupts.raise_interrupt,
      signal.getsignal(signal.SIGINT) is interrupts.raise_interrupt,
      signal.getsignal(signal.SIGINT) is signal.SIG_IGN)
"""


@pytest.mark.parametrize(("sigint", "expected"), [("default_int_handler", "True True False"),
                                                  ("SIG_IGN", "True False True")])
def test_install_handles_sigterm_and_keeps_an_ignored_ctrl_c_ignored(sigint: str, expected: str) -> None:
    done = _run(_INSTALLED.format(sigint=sigint))
    assert done.stdout.strip() == expected, done.stdout + done.stderr


# An interrupt that passed through ``exec`` of a string (dataclasses build their methods so while a
# module is imported) leaves CPython's "unhandled KeyboardInterrupt" flag set although the command
# caught it: under ``python -m`` the interpreter then killed itself with SIGINT after the clean stop.
_MAIN_INTERRUPTED_IN_EXEC = """
import verify.app.cli as cli

def main():
    try:
        exec("import signal; signal.raise_signal(signal.SIGINT)")
    except KeyboardInterrupt:
        return 130
    return 0

cli.main = main
cli.run()
"""


def test_an_interrupt_caught_after_passing_through_exec_exits_130_under_python_m(tmp_path: Path) -> None:
    package = tmp_path / "interrupted_in_exec"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(_MAIN_INTERRUPTED_IN_EXEC)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(tmp_path)])}
    done = subprocess.run([sys.executable, "-m", "interrupted_in_exec"], env=env, capture_output=True, text=True,
                          timeout=60, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert done.returncode == 130, (done.returncode, done.stderr)


# A stop can leave a lock in a process pool held, and the pool's manager thread (joined by the
# interpreter's exit) waiting for it for ever. Here a thread that never ends stands in for it.
_EXIT_BLOCKED_BY_A_THREAD = """
import threading, time
import verify.app.cli as cli
from verify.core import exitcodes
threading.Thread(target=threading.Event().wait).start()    # not a daemon: the exit joins it
cli.EXIT_GRACE_SECONDS = {grace}
cli._debug = {debug}
cli.main = lambda: {status}
started = time.monotonic()
try:
    cli.run()
finally:
    print(f"run returned after {{time.monotonic() - started:.1f}} s", flush=True)
"""


@pytest.mark.parametrize("status", [130, 0])
def test_an_interrupted_command_ends_even_when_its_exit_would_hang(status: int) -> None:
    if status == 0:  # the guard is for a stop only: a finished command's hang is not cut short (seen here)
        with pytest.raises(subprocess.TimeoutExpired):
            subprocess.run([sys.executable, "-c", _EXIT_BLOCKED_BY_A_THREAD.format(grace=1.0, status=status, debug=False)],
                           env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, timeout=4)
        return
    done = _run(_EXIT_BLOCKED_BY_A_THREAD.format(grace=1.0, status=status, debug=False))
    assert done.returncode == 130
    assert "run returned after" in done.stdout   # sys.exit ran: the cut comes only once the exit hangs
    assert done.stderr.strip().splitlines() == ["interrupted: the exit waited 1 s for background threads and "
                                                "ended without them"]
    debugged = _run(_EXIT_BLOCKED_BY_A_THREAD.format(grace=1.0, status=status, debug=True))
    assert debugged.returncode == 130 and "in wait" in debugged.stderr   # --debug: where each thread waits
