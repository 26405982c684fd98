"""A pool worker told to stop finishes the finalizer it is in: no semaphore is left registered.

The process pool stops its workers with SIGTERM. When one worker exits, the pool sees it gone,
calls itself broken and sends every remaining worker a second SIGTERM, which can land while
that worker already runs its exit finalizers (releasing numba's and the queues' semaphores).
Acted on there, the worker ended with one release half-done, and the resource tracker warned of
a "leaked semaphore" as the command exited.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# A finalizer that receives a SIGTERM of its own partway through, then records that it finished.
_WORKER = """
import multiprocessing.util, os, signal, sys, time
from verify.app.campaign import executors
signal.signal(signal.SIGTERM, executors._on_sigterm)
done = sys.argv[1]

def release():
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(10_000):  # bytecode: the handler runs here, inside the finalizer
        pass
    with open(done, "w") as f:
        f.write("finished")

class Held:
    pass

held = Held()
multiprocessing.util.Finalize(held, release, exitpriority=0)
{trigger}
time.sleep(20)
print("still running", flush=True)
"""


def _run(trigger: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    done = tmp_path / "done"
    script = _WORKER.format(trigger=trigger)
    proc = subprocess.run([sys.executable, "-c", script, str(done)], env={**os.environ, "PYTHONPATH": str(REPO)},
                          capture_output=True, text=True, timeout=60)
    return proc, done


def test_a_second_sigterm_while_the_worker_exits_lets_its_finalizers_finish(tmp_path: Path) -> None:
    # The first SIGTERM makes the worker exit, running its finalizers; the second lands in one.
    proc, done = _run("os.kill(os.getpid(), signal.SIGTERM)", tmp_path)
    assert proc.returncode == 128 + signal.SIGTERM, proc.stderr
    assert done.read_text() == "finished"
    assert "still running" not in proc.stdout


def test_a_sigterm_inside_a_finalizer_is_acted_on_once_the_finalizer_is_done(tmp_path: Path) -> None:
    # No exit under way: the finalizer runs because its object is collected, and the SIGTERM
    # lands in it. The worker still exits, a moment later, with the finalizer complete.
    proc, done = _run("del held", tmp_path)
    assert proc.returncode == 128 + signal.SIGTERM, proc.stderr
    assert done.read_text() == "finished"
    assert "still running" not in proc.stdout
