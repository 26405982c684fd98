"""How long ``hardmax-verify check`` takes, and how much memory, on 1,800 tokens in d = 2, with the D9 jump search's
strict conditions decided in bulk against the same command deciding each one on its own, measured in the same run.

    python bench/check_large.py [--n 1800] [--baseline-n 600] [--seed 0]

Workload: n distinct nonzero tokens in d = 2 with entries p/q (p in -50..50, q in 1..9, drawn by
``numpy.random.default_rng(seed)``), alpha = 1/2, A = I: a few leaders at layer 0, most tokens locked
by D7, the rest settled by the closed form of docs/theory.md D9, whose final segment has n^2 strict
conditions. At n = 1,800 only layers 0 and 1 are within the independent checker's default work limit
(the README's table of limits), so the run stops at layer 1 at the latest.
Each run is ``python -m verify check FILE --json OUT`` in a child process of its own; timed: its wall
time and its peak resident memory (the child's own ``VmHWM`` from ``/proc/self/status``, written as it exits: the
``ru_maxrss`` of ``wait4`` also counts the parent's pages at the fork, so it reads a big parent's size, for
instance a test process's).

* baseline, at ``--baseline-n`` tokens with ``--layer-budget 1`` (so that the jump search runs from layer 1
  on every token, as it runs from layer 0 at n = 1,800): every strict condition decided on its own, on
  Python integers (the bulk decision switched off in the child), as the conditions were decided before;
* ``check`` on the same, as shipped. Both reports must be byte for byte equal;
* ``check`` at ``--n`` tokens, as shipped. Targets: under 30 s of wall time and under 1 GiB of peak memory;
* the independent checker (``python -m verify.certcheck``, default limits) on that report: its wall time and
  exit status. Target: the run decides (``check`` exit 0, or exit 1 with a certificate of the falsity) and the
  checker verifies every certificate of it.

Exit 1 when a target is not met or the reports differ.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]

TARGET_SECONDS = 30.0
TARGET_BYTES = 1 << 30
CERTCHECK_TIMEOUT = 600.0  # seconds: the checker's limits keep a default check within a minute or so
SMALL_OPTIONS = ("--layer-budget", "1")
# The child: optionally switch the bulk decision off (every condition decided one by one, Python integers), then the CLI.
# The child writes its peak resident memory (VmHWM, KiB) to argv[4] as it exits, whatever the exit.
CHILD = ("import sys\n"
         "from verify.core import closed_form\n"
         "if sys.argv[1] == 'one-by-one':\n"
         "    closed_form._FLOAT_TERMS, closed_form._INT64_SAFE = 0, -1\n"
         "from verify.app.cli import run\n"
         "peak_file = sys.argv[4]\n"
         "sys.argv = ['hardmax-verify', 'check', *sys.argv[5:], sys.argv[2], '--json', sys.argv[3]]\n"
         "try:\n"
         "    run()\n"
         "finally:\n"
         "    status = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
         "    open(peak_file, 'w').write(status)\n")


def workload(n: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    tokens: list[tuple[Fraction, ...]] = []
    seen: set[tuple[Fraction, ...]] = set()
    while len(tokens) < n:
        token = tuple(Fraction(int(p), int(q)) for p, q in zip(rng.integers(-50, 51, 2), rng.integers(1, 10, 2)))
        if any(token) and token not in seen:  # distinct and nonzero: inside the theorem's hypotheses
            seen.add(token)
            tokens.append(token)
    return {"tokens": [[str(x) for x in t] for t in tokens], "alpha": "1/2"}


def _child_environment() -> dict[str, str]:
    """This process's environment with the repository first on PYTHONPATH: the children run this checkout."""
    return {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def run_check(config_file: Path, out: Path, *, mode: str, options: tuple[str, ...] = ()) -> tuple[float, int, int]:
    """(wall seconds, peak resident bytes, exit status) of one child running check (its last error line printed
    when it could not check: exit 2 or 4)."""
    env = _child_environment()
    errors, peak = out.with_suffix(".stderr"), out.with_suffix(".peak")
    started = time.monotonic()
    with errors.open("wb") as stderr:
        child = subprocess.Popen([sys.executable, "-c", CHILD, mode, str(config_file), str(out), str(peak), *options], env=env,
                                 stdout=subprocess.DEVNULL, stderr=stderr)
        child.wait()
    seconds = time.monotonic() - started
    if child.returncode not in (0, 1, 3):
        print(f"  {mode} run: exit {child.returncode}: {(errors.read_text().strip().splitlines() or [''])[-1]}")
    peak_bytes = int(peak.read_text()) * 1024 if peak.exists() else 0  # absent only if the child was killed: 0, never met
    return seconds, peak_bytes, child.returncode


def run_certcheck(report: Path) -> tuple[float, int, str]:
    """(wall seconds, exit status, the checker's summary line) of ``python -m verify.certcheck REPORT``, default limits."""
    env = _child_environment()
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-m", "verify.certcheck", str(report)], env=env, capture_output=True,
                              text=True, timeout=CERTCHECK_TIMEOUT)
    except subprocess.TimeoutExpired:
        return time.monotonic() - started, -1, f"no verdict within {CERTCHECK_TIMEOUT:g} s"
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return time.monotonic() - started, done.returncode, (lines[-1] if lines else done.stderr.strip()[-200:])


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _mib(n: int) -> str:
    return f"{n / 2 ** 20:,.0f} MiB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1800, help="tokens of the timed run")
    parser.add_argument("--baseline-n", type=int, default=600, help="tokens of the run compared with the baseline")
    parser.add_argument("--seed", type=int, default=0, help="seed of the tokens")
    args = parser.parse_args(argv)
    print(f"cores: {os.cpu_count()}; load average before: {_load()}; workload: d=2, seed {args.seed}, alpha=1/2, A = I")
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        small, large = where / "small.json", where / "large.json"
        small.write_text(json.dumps(workload(args.baseline_n, args.seed)))
        large.write_text(json.dumps(workload(args.n, args.seed)))
        # Layer budget 1: D7 stops there and the jump search runs from layer 1 on every token, as at n = 1,800 from 0.
        old_s, old_rss, old_status = run_check(small, where / "old.json", mode="one-by-one", options=SMALL_OPTIONS)
        new_s, new_rss, new_status = run_check(small, where / "new.json", mode="bulk", options=SMALL_OPTIONS)
        same = (where / "old.json").exists() and (where / "old.json").read_bytes() == (where / "new.json").read_bytes()
        big_s, big_rss, big_status = run_check(large, where / "large_out.json", mode="bulk")
        report = json.loads((where / "large_out.json").read_text()) if big_status in (0, 1, 3) else {}
        checker = run_certcheck(where / "large_out.json") if report else None
    kinds = [f["kind"] for f in report.get("fates", [])]
    labels = {"leader": "leaders", "fixed": "fixed", "locked": "locked", "path": "on closed-form paths (D9)",
              "unsettled": "unsettled"}
    fates = ", ".join(f"{kinds.count(k):,} {label}" for k, label in labels.items() if k in kinds)
    print(f"n={args.baseline_n}, --layer-budget 1:")
    print(f"  baseline: D9 conditions one by one  {old_s:7.2f} s wall  {_mib(old_rss):>9} peak  "
          f"exit {old_status}")
    print(f"  check: D9 conditions in bulk       {new_s:7.2f} s wall  {_mib(new_rss):>9} peak  "
          f"exit {new_status}   {new_s / old_s:5.3f}x the baseline's time, {new_rss / max(old_rss, 1):5.3f}x its memory")
    print(f"  reports byte for byte equal: {'yes' if same else 'NO'}")
    print(f"n={args.n}: {fates or 'no report'}")
    print(f"  check                              {big_s:7.2f} s wall  {_mib(big_rss):>9} peak  "
          f"exit {big_status} ({report.get('status', 'no report')})")
    if checker is not None:
        print(f"  certcheck (default limits)         {checker[0]:7.2f} s wall            exit {checker[1]}: {checker[2]}")
    # Decided: check certified everything (exit 0) and the checker verified every certificate (0), or check
    # found something false (1) and the checker verified a certificate of that falsity, rejecting nothing.
    decided = checker is not None and ((big_status, checker[1]) == (0, 0) or (
        (big_status, checker[1]) == (1, 1) and "a verified certificate shows the file's statement FALSE" in checker[2]))
    print("goal: decided, every certificate verified: " + ("met" if decided else "NOT met"))
    time_met, memory_met = big_s < TARGET_SECONDS, 0 < big_rss < TARGET_BYTES
    print(f"goal: under {TARGET_SECONDS:g} s wall: " + ("met" if time_met else
                                                        f"NOT met, by {big_s - TARGET_SECONDS:.2f} s"))
    print(f"goal: under {_mib(TARGET_BYTES)} peak memory: " + ("met" if memory_met else
                                                             f"NOT met, by {_mib(big_rss - TARGET_BYTES)}"))
    print(f"load average after: {_load()}")
    if not same:
        print("FAILED: the bulk decision's report differs from the one-by-one baseline's", file=sys.stderr)
    return 0 if same and time_met and memory_met and decided else 1


if __name__ == "__main__":
    sys.exit(main())
