"""Benchmark of the campaign executors: the default campaign in-process against the process pool.

    python bench/campaign.py [--examples N] [--jobs 2] [--seed 0] [--dask-local N]

Workload: the embedded default campaign (its worked and generated configurations,
every claim checked exactly, float comparison and certificate re-check included), planned
with the given seed. Measured, in this order, in one process:

1. in-process: :class:`verify.app.campaign.executors.InProcessExecutor` (modules already imported);
2. process pool, cold: from creating the pool of ``--jobs`` workers to the last record, so
   worker start-up (forkserver, imports, numba cache load) is included;
3. process pool, warm: the same pool again, workers already up (what a long campaign sees);
4. optionally a Dask LocalCluster of ``--dask-local`` workers (cold, cluster start included).

Printed: wall seconds, tasks per second, speed-up against in-process (target >= 1.7x on 2
cores), the load average before and after (the machine may be shared: a load above the core
count means other processes took CPU time, and the numbers are then upper bounds on cost),
the CPU seconds used (this process and its workers) and the cores that amounts to (CPU /
wall: on an idle 2-core machine a pool of 2 gets ~2, on a shared one less, which caps the
speed-up whatever the executor does), and whether every executor returned the same records
(they must: merge_records sorts them).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from verify.app.campaign import default_spec, plan_tasks, run_tasks  # noqa: E402
from verify.app.campaign.executors import (DaskExecutor, InProcessExecutor, ProcessPoolExecutorBackend,  # noqa: E402
                                       WARM_MODULES)


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.2f} (1 min), {five:.2f} (5 min)"


def _cpu_seconds() -> float:
    """CPU time used so far by this process and all its descendants (live ones via /proc, reaped ones via rusage).

    On a shared machine the wall-clock speed-up is capped by the CPU the benchmark is given;
    printing CPU seconds / wall seconds (the cores actually obtained) shows that cap.
    """
    total = time.process_time()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    total += usage.ru_utime + usage.ru_stime
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    mine = {os.getpid()}
    changed = True
    while changed:  # descendants: children of mine, transitively
        changed = False
        for pid, parent in parents.items():
            if parent in mine and pid not in mine:
                mine.add(pid)
                changed = True
    return total + sum(times[pid] for pid in mine if pid != os.getpid())


def _timed(executor, tasks) -> tuple[float, float, str]:
    clock, cpu = time.perf_counter(), _cpu_seconds()
    records = run_tasks(tasks, executor=executor)
    return time.perf_counter() - clock, _cpu_seconds() - cpu, json.dumps(records)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=None, help="generated configurations (default: the campaign's)")
    parser.add_argument("--jobs", type=int, default=2, help="pool workers (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dask-local", type=int, default=None, help="also time a Dask LocalCluster of N workers")
    args = parser.parse_args(argv)

    import importlib
    for name in WARM_MODULES:  # the in-process run must not be charged for imports the workers pay at start-up
        importlib.import_module(name)
    tasks = plan_tasks(default_spec(examples=args.examples), seed=args.seed)
    print(f"campaign: {len(tasks)} tasks (seed {args.seed}); cores: {os.cpu_count()}; load average before: {_load()}")

    rows = []
    seconds, cpu, reference = _timed(InProcessExecutor(), tasks)
    rows.append(("in-process", seconds, cpu, True))

    clock, cpu = time.perf_counter(), _cpu_seconds()
    pool = ProcessPoolExecutorBackend(args.jobs).start()
    try:
        records = json.dumps(run_tasks(tasks, executor=pool))
        rows.append((f"process pool x{args.jobs}, cold (start-up included)", time.perf_counter() - clock,
                     _cpu_seconds() - cpu, records == reference))
        seconds, cpu, records = _timed(pool, tasks)
        rows.append((f"process pool x{args.jobs}, warm workers", seconds, cpu, records == reference))
    finally:
        pool.close()

    if args.dask_local:
        clock, cpu = time.perf_counter(), _cpu_seconds()
        with DaskExecutor(local_workers=args.dask_local) as dask:
            records = json.dumps(run_tasks(tasks, executor=dask))
            # measured before the cluster closes, while its worker processes are still alive
            rows.append((f"dask LocalCluster x{args.dask_local}, cold (cluster start included)",
                         time.perf_counter() - clock, _cpu_seconds() - cpu, records == reference))

    base = rows[0][1]
    print(f"{'executor':<50} {'wall s':>7} {'tasks/s':>8} {'speed-up':>9} {'CPU s':>7} {'cores got':>9}  same records")
    for name, seconds, cpu, same in rows:
        print(f"{name:<50} {seconds:7.2f} {len(tasks) / seconds:8.2f} {base / seconds:8.2f}x {cpu:7.2f} "
              f"{cpu / seconds:9.2f}  {'yes' if same else 'NO'}")
    print(f"load average after: {_load()}")
    if not all(same for *_, same in rows):
        print("error: executors returned different records", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
