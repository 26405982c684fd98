"""Benchmark of Coq's kernel pass (docs/formal.md): its cost per configuration against `check`'s, and the campaign's.

    python bench/kernel.py [--jobs 2] [--seed 0] [--quick]

Measured in one run, on this machine (the load average is printed before and after: on a
shared machine the times are upper bounds):

1. coqc's start-up: an empty file that loads the library (the floor of every coqc run);
2. per configuration (the generic family up to n = 32, then grid points up to n = 128), d in 2, 3:
   the wall time of the exact check in this process (`check_configuration`, no cross-checks)
   and the kernel's time for the same configuration's certificate (coqc -time at its Qed: the
   evaluation of the checker, without coqc's start-up), and their ratio;
3. against the certificate's layer: one configuration (n = 32, d = 3) whose certificate is
   asked to replay up to layer K = 2, 4, 8, 12, 16 (the numbers grow with the layer);
4. the kernel pass of the default campaign (seed 0, every D7 certificate, --jobs coqc runs at
   once): wall and CPU seconds, against the goal of 2 minutes on 2 cores.

Every certificate must be kernel-checked; the benchmark exits 1 if one is not (a time is only
worth printing for a certificate that verified).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from verify.app.campaign import default_spec, plan_tasks, run_tasks  # noqa: E402
from verify.claims import check_configuration  # noqa: E402
from verify.core.config import parse_configuration  # noqa: E402
from verify.core.exact_dynamics import exact_layers  # noqa: E402
from verify.core.families import generate  # noqa: E402
from verify.core.text import rational_to_str  # noqa: E402
from verify.formal.kernel import _HEADER, _run_coqc, check_tasks  # noqa: E402
from verify.formal.library import built_library, coq_version  # noqa: E402
from verify.formal.tasks import KERNEL_CHECKED, plan_record  # noqa: E402

CAMPAIGN_GOAL_SECONDS = 120.0


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.2f} {five:.2f}"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _one_kernel_time(task) -> tuple[float, bool]:
    """The kernel's seconds at this certificate's Qed (coqc -time: the evaluation of the checker, no start-up)."""
    run = check_tasks([task])
    verdict = run.verdicts[task.name]
    return verdict.seconds, verdict.summary == KERNEL_CHECKED


def _random_configuration(seed: int, n: int, d: int):
    """n distinct tokens on a grid of step 1/64 in [-1, 1]^d, A = I, alpha = 1/2 (the families stop at n = 32)."""
    rng = np.random.default_rng(seed)
    points: set[tuple[int, ...]] = set()
    while len(points) < n:
        p = tuple(int(x) for x in rng.integers(-64, 65, size=d))
        if any(p):
            points.add(p)
    return parse_configuration({"tokens": [[f"{x}/64" for x in p] for p in sorted(points)], "alpha": "1/2",
                                "name": f"grid-{seed}-n{n}-d{d}"})


def _kernel_cpu(tasks: list, jobs: int = 1) -> tuple[float, float, bool]:
    """(wall, CPU of the coqc runs, every certificate kernel-checked) for these tasks."""
    cpu, start = _children_cpu(), time.perf_counter()
    run = check_tasks(tasks, jobs=jobs)
    ok = all(v.summary == KERNEL_CHECKED for v in run.verdicts.values())
    return time.perf_counter() - start, _children_cpu() - cpu, ok


def _startup() -> float:
    with tempfile.TemporaryDirectory() as tmp:
        best = float("inf")
        for _ in range(3):
            cpu = _children_cpu()
            _run_coqc(_HEADER, Path(tmp), "empty", time_limit=120, memory_limit=8 << 30)
            best = min(best, _children_cpu() - cpu)
    return best


def _record(config, layer: int | None = None) -> dict:
    """The claims report of ``config``; with ``layer``, its replay asked for that layer."""
    record = check_configuration(config, cross_check=False).to_json_dict()
    if layer is not None:
        engine = exact_layers(config.tokens, alpha=config.alpha, A=config.A_matrix)
        positions = [next(engine) for _ in range(layer + 1)][-1].positions()
        record["verdicts"]["replay"]["certificate"] = {
            "last_layer": layer, "final_positions": [[rational_to_str(x) for x in p] for p in positions]}
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, no campaign pass")
    args = parser.parse_args(argv)
    built_library()
    failures = 0
    print(f"Coq {coq_version()}, vm_compute; cores {os.cpu_count()}; load average before: {_load()}")
    startup = _startup()
    print(f"coqc start-up (loading the library): {startup:.2f} CPU s")

    print("\nper configuration (generic family): exact check against the kernel")
    print(f"{'n':>4} {'d':>2} {'layer':>5} {'check s':>8} {'kernel s':>9} {'kernel/check':>12}")
    for n in (8, 16, 32) if args.quick else (8, 16, 32, 64, 128):
        for d in (2, 3):
            config = (generate("generic", args.seed + n + d, n=n, d=d) if n <= 32
                      else _random_configuration(args.seed + n + d, n, d))
            start = time.perf_counter()
            record = _record(config)
            check_seconds = time.perf_counter() - start
            plan = plan_record(record, config.name or "c")
            if plan.task is None:
                print(f"{n:>4} {d:>2}   (no D7 certificate: {next(iter(plan.decided.values())).reason})")
                continue
            kernel, ok = _one_kernel_time(plan.task)
            failures += not ok
            print(f"{n:>4} {d:>2} {plan.task.last_layer:>5} {check_seconds:>8.3f} {kernel:>9.3f} "
                  f"{kernel / check_seconds:>11.2f}x" + ("" if ok else "  NOT KERNEL-CHECKED"))

    print("\nagainst the certificate's layer (n = 32, d = 3, the replay asked for layer K)")
    config = generate("generic", args.seed, n=32, d=3)
    print(f"{'K':>4} {'kernel s':>9}")
    for layer in (2, 4, 8) if args.quick else (2, 4, 8, 12, 16):
        plan = plan_record(_record(config, layer), f"K{layer}")
        kernel, ok = _one_kernel_time(plan.task)
        failures += not ok
        print(f"{layer:>4} {kernel:>9.3f}" + ("" if ok else "  NOT KERNEL-CHECKED"))

    if not args.quick:
        spec = default_spec()
        records = run_tasks(plan_tasks(spec, seed=args.seed), jobs=args.jobs)
        tasks = [p.task for p in (plan_record(r, r["task"]["name"]) for r in records if r.get("status") != "error")
                 if p.task is not None]
        wall, cpu, ok = _kernel_cpu(tasks, jobs=args.jobs)
        failures += not ok
        verdict = "goal met" if wall <= CAMPAIGN_GOAL_SECONDS else f"goal missed by {wall - CAMPAIGN_GOAL_SECONDS:.1f} s"
        print(f"\ndefault campaign (seed {args.seed}): {len(tasks)} configurations of {len(records)} with certificates (D7 fates, D9 paths), "
              f"kernel pass {wall:.1f} s wall, {cpu:.1f} CPU s, --jobs {args.jobs} "
              f"(goal {CAMPAIGN_GOAL_SECONDS:.0f} s: {verdict})" + ("" if ok else "; NOT ALL KERNEL-CHECKED"))
    print(f"load average after: {_load()}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
