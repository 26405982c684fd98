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
inside_importlib = types.SimpleNamespace(f_code=types.SimpleNamespace(co_filename="<frozen importlib._bootstrap>"))
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
