"""How long the test suite takes: the fast lane and the full suite, as tests/README.md runs them.

    python bench/test_suite.py [--workers 2] [--lane fast|full|both] [--log FOLDER]

Each lane runs once in a fresh pytest (``python -m pytest -n WORKERS -p no:cacheprovider``, the
fast lane with ``-m "not slow"``) from the repository's root. Printed for each: the wall
seconds, the CPU seconds of pytest and everything it started (its workers and their
commands, read from ``getrusage(RUSAGE_CHILDREN)`` once the run is over; this process adopts
the descendants whose parent ends first, such as a forkserver's pool workers, and waits for
them, so that their time is counted too), the outcome line
pytest ends with (a failing test is shown there, the timings stand), and the load average
before and after.

On a shared machine the wall time says more about the other processes than about the suite,
so each lane also prints the CPU seconds that other processes used while it ran (the machine's
busy time from ``/proc/stat`` less the suite's own; the load average cannot tell them apart,
since the suite's own workers raise it). CPU seconds do not depend on the load (much), so
``CPU / WORKERS`` is printed as the estimate of the wall time on an idle machine with that many
cores (a lower bound: the suite's serial parts - start-up, collection, the last long test - come
on top). When other processes used more than a tenth of the cores during a lane (or that cannot
be read), a last line says that the wall times were measured on a loaded machine.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUTCOME = re.compile(r"^=* ?(?P<line>\d+ (passed|failed).*?) in [\d.]+s")
LANES = {"fast": ["-m", "not slow"], "full": []}
PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def _load() -> tuple[float, float, float]:
    return os.getloadavg()


def _machine_busy() -> float | None:
    """CPU seconds all processes have used since boot (Linux ``/proc/stat``); None where it cannot be read."""
    try:
        fields = Path("/proc/stat").read_text(encoding="ascii").splitlines()[0].split()
    except (OSError, IndexError):
        return None
    # user nice system idle iowait irq softirq steal: everything but idle and iowait is busy
    ticks = [int(x) for x in fields[1:9]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def _adopt_orphans() -> bool:
    """Make this process the reaper of its descendants whose parent ends first (Linux prctl).

    A multiprocessing forkserver, for one, outlives the test that started it and its pool workers
    are its children: without this their CPU time would go to init, not to the suite. True if set.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _reap_adopted(grace: float = 30.0) -> int:
    """Wait for every descendant left over (adopted by :func:`_adopt_orphans`); the number still running after ``grace`` s."""
    deadline = time.monotonic() + grace
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return 0
        if pid == 0:
            if time.monotonic() > deadline:
                return len([p for p in Path("/proc").iterdir() if p.name.isdigit() and _parent(p) == os.getpid()])
            time.sleep(0.05)


def _parent(proc: Path) -> int | None:
    try:
        stat = (proc / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2:].split()[1])


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_lane(lane: str, workers: int, log: Path | None = None) -> dict[str, object]:
    """Run one lane; return its wall and CPU seconds, pytest's outcome line and exit status, the loads.

    ``log``: a folder where pytest's output (with every test's durations) is written as ``LANE.txt``.
    """
    command = [sys.executable, "-m", "pytest", "-n", str(workers), "-p", "no:cacheprovider", "-q", "--durations=0",
               *LANES[lane]]
    load_before = _load()
    cpu_before = _children_cpu()
    busy_before = _machine_busy()
    start = time.monotonic()
    completed = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    wall = time.monotonic() - start
    lingering = _reap_adopted()
    cpu = _children_cpu() - cpu_before
    busy_after = _machine_busy()
    window = time.monotonic() - start  # the run and the wait for what it left behind: what busy time spans
    others = None if busy_before is None or busy_after is None else max(0.0, busy_after - busy_before - cpu)
    outcome = next((m.group("line") for line in reversed(completed.stdout.splitlines())
                    if (m := OUTCOME.match(line.strip("= ")))), "no outcome line (see pytest's output)")
    if log is not None:
        log.mkdir(parents=True, exist_ok=True)
        (log / f"{lane}.txt").write_text(completed.stdout + completed.stderr, encoding="utf-8")
    return {"lane": lane, "wall": wall, "cpu": cpu, "outcome": outcome, "status": completed.returncode,
            "load_before": load_before, "load_after": _load(), "others": others,
            "lingering": lingering, "window": window}


def _loads(values: tuple[float, float, float]) -> str:
    return " ".join(f"{x:.2f}" for x in values)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (-n), default 2")
    parser.add_argument("--lane", choices=("fast", "full", "both"), default="both")
    parser.add_argument("--log", type=Path, default=Path(tempfile.gettempdir()) / "hardmax-verify-test-suite",
                        help="where pytest's output of each lane is written, as LANE.txt (default: a folder in the "
                             "system's temporary folder)")
    args = parser.parse_args(argv)
    lanes = ["fast", "full"] if args.lane == "both" else [args.lane]
    cores = os.cpu_count() or 1
    adopting = _adopt_orphans()
    print(f"test suite: pytest -n {args.workers}; cores: {cores}")
    print(f"pytest's output of each lane goes to {args.log}", file=sys.stderr)
    loaded = False
    for lane in lanes:
        result = run_lane(lane, args.workers, args.log)
        wall, cpu = float(result["wall"]), float(result["cpu"])  # type: ignore[arg-type]
        name = "fast lane (-m \"not slow\")" if lane == "fast" else "full suite"
        print(f"{name:28s} wall {wall:7.1f} s   CPU {cpu:7.1f} s   idle {args.workers}-core estimate "
              f"(CPU / {args.workers}) {cpu / args.workers:6.1f} s   {result['outcome']}")
        print(f"  load average before: {_loads(result['load_before'])}; after: "  # type: ignore[arg-type]
              f"{_loads(result['load_after'])}")  # type: ignore[arg-type]
        if result.get("lingering"):  # their CPU time is not the suite's here: the split is not reliable
            print(f"  {result['lingering']} process(es) the suite started were still running 30 s after it ended")
            loaded = True
        others = result["others"] if adopting else None
        if others is None:
            print("  other processes' CPU time: not measured (needs Linux: /proc/stat and prctl)")
            loaded = True
        else:
            share = float(others) / (float(result.get("window", wall)) * cores)  # type: ignore[arg-type]
            print(f"  other processes used {others:.1f} CPU s during the run ({share:.0%} of {cores} cores)")
            loaded = loaded or share > 0.1
    if loaded:
        print(f"measured on a loaded machine (other processes used more than a tenth of the {cores} cores, or "
              "their use was not measured): the wall times are upper bounds; the CPU-based estimates are the "
              "better guide")
    else:
        print(f"measured on a quiet machine (other processes used less than a tenth of the {cores} cores)")
    return 0  # the outcome lines say whether the suite passed; the timings stand either way


if __name__ == "__main__":
    sys.exit(main())
