"""Benchmark of the default report: its wall time, stage by stage, against the goal of 10 s on 2 cores.

    python bench/report.py [--kernel] [--jobs N] [--seed 0]

Runs `hardmax-verify report` as a user does, in a fresh interpreter (`python -m verify report`, the
default campaign, seed 0, into a temporary folder), by default with `--no-kernel`: Coq's kernel pass is
timed by bench/kernel.py. The stages are read from the progress lines the report writes to standard
error as they arrive: start-up (interpreter, imports, planning: until "checking"), the campaign (the
claim checks of every configuration, on the process pool), the figures, and writing the report. Also
printed: the sum of the report's own claim_check_seconds (the checking proper, without imports), and
the load average before and after. The report runs ``--repeat`` times (default 3) and the fastest run
is the one judged and shown stage by stage: on a shared machine every run's wall time also holds other
programs' time, so the fastest is the nearest to the report's own (each run's wall time is printed too).
The later runs find warm caches (the page cache; numba's compiled kernel, which set-up writes ahead; with
``--kernel``, Coq's compiled library): the first run's time shows what a first report costs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOAL_SECONDS = 10.0
STAGES = (("start-up", "report: checking"), ("campaign", "report: figures"), ("figures", "report: writing"))


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.2f} {five:.2f}"


def run_report(out: Path, *, kernel: bool, jobs: int | None, seed: int) -> dict:
    command = [sys.executable, "-m", "verify", "report", "--out", str(out), "--seed", str(seed)]
    command += [] if kernel else ["--no-kernel"]
    command += [] if jobs is None else ["--jobs", str(jobs)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    marks: dict[str, float] = {}
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
    assert process.stderr is not None
    for line in process.stderr:
        for _, marker in STAGES:
            if line.startswith(marker) and marker not in marks:
                marks[marker] = time.perf_counter() - start
    status = process.wait()
    wall = time.perf_counter() - start
    results = json.loads((out / "results.json").read_text(encoding="utf-8")) if (out / "results.json").exists() else {}
    checks = sum((results.get("environment", {}).get("claim_check_seconds") or {}).values())
    return dict(command=command, status=status, wall=wall, marks=marks, checks=checks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernel", action="store_true", help="include Coq's kernel pass (default: --no-kernel)")
    parser.add_argument("--jobs", type=int, default=None, help="the report's --jobs (default: its own)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="runs of the report; the fastest is judged (default 3)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat: expected at least 1 run")
    print(f"cores: {os.cpu_count()}; load average before: {_load()}")
    runs = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as folder:
            runs.append(run_report(Path(folder) / "report", kernel=args.kernel, jobs=args.jobs, seed=args.seed))
    r = min(runs, key=lambda run: run["wall"])
    shown = " ".join(["hardmax-verify"] + ["OUT" if arg.endswith("/report") else arg for arg in r["command"][3:]])
    print(f"command: {shown} (exit status {r['status']})")
    print(f"runs: {len(runs)}, wall " + ", ".join(f"{run['wall']:.2f}" for run in runs) + " s; the fastest, stage by stage:")
    previous = 0.0
    for name, marker in STAGES:
        if marker in r["marks"]:
            print(f"  {name:<10} {r['marks'][marker] - previous:6.2f} s")
            previous = r["marks"][marker]
    print(f"  {'writing':<10} {r['wall'] - previous:6.2f} s")
    print(f"wall {r['wall']:.2f} s; claim checks {r['checks']:.2f} s (the sum of the report's claim_check_seconds)")
    verdict = "met" if r["wall"] <= GOAL_SECONDS else f"NOT met, {r['wall'] / GOAL_SECONDS:.2f}x the goal"
    print(f"goal: wall <= {GOAL_SECONDS:g} s on 2 cores: {verdict}")
    print(f"load average after: {_load()}")
    return 0 if all(run["status"] in (0, 1, 3) for run in runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
