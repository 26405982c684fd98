"""How long ``hardmax-verify --help`` and ``--version`` take to start, against a bare interpreter.

    python bench/cli_startup.py [--runs N]

Each command runs N times (default 7) in a fresh interpreter, as a user's shell starts it
(``python -m verify ...``, this clone first on the path); printed per command: the median wall
time, and the same for the baseline measured in the same run, ``python -c pass`` (the
interpreter alone), with the ratio. Target: ``--help`` and ``--version`` under 0.3 s of wall
time on an idle machine (exit 1 above it; ``check --help`` is shown for comparison: it imports
its command's module). The command line imports no command to list them
(verify.app.commands.COMMANDS is a static table; tests/meta/test_cli_startup.py checks that no
command module is imported). The load average before and after is printed: on a loaded machine
the wall times are upper bounds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 0.3
TARGETED = ("hardmax-verify --help", "hardmax-verify --version")
COMMANDS = {
    "baseline: python -c pass": [sys.executable, "-c", "pass"],
    "hardmax-verify --help": [sys.executable, "-m", "verify", "--help"],
    "hardmax-verify --version": [sys.executable, "-m", "verify", "--version"],
    "hardmax-verify check --help": [sys.executable, "-m", "verify", "check", "--help"],
}


def _median_seconds(command: list[str], runs: int) -> float:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each command (the median is printed)")
    args = parser.parse_args(argv)
    print(f"cores: {os.cpu_count()}; load average before: {_load()}; median of {args.runs} runs each")
    baseline = None
    slow = []
    for name, command in COMMANDS.items():
        seconds = _median_seconds(command, args.runs)
        if baseline is None:
            baseline = seconds
            print(f"  {name:<30} {seconds:6.3f} s")
            continue
        line = f"  {name:<30} {seconds:6.3f} s   {seconds / baseline:5.1f}x the baseline"
        if name in TARGETED:
            line += f"   ({'within' if seconds < TARGET_SECONDS else 'ABOVE'} the target of {TARGET_SECONDS:g} s)"
            if seconds >= TARGET_SECONDS:
                slow.append(name)
        print(line)
    print(f"load average after: {_load()}")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
