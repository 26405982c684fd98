"""Benchmark of leader control (docs/theory.md D10, docs/control.md): one ``control`` call and ``--all-leader-sets``.

    python bench/control.py            # n in {10, 20, 50}, d in {2, 4, 8}, 3 seeds each; all leader sets at n = 12, d = 3

Targets: one call (design program, exact rounding and checks, target search) under 1 s of CPU
for n <= 50, d <= 8; every leader set of a configuration with n = 12, d = 3 under 60 s.

Workload: tokens with coordinates p/64 drawn uniformly in [-1, 1]^d (``numpy.random.default_rng``,
distinct and nonzero), L three hull vertices drawn with the same generator (all of them when
there are fewer). Times are CPU seconds of this process (on a shared machine wall-clock time
would also measure the other jobs); the solver's share is the CPU time spent building and solving
the programs (Clarabel called directly, cvxpy for the rest), the rest is the exact work (rounding, LDL^T pivots, margins, certificates,
hulls) and Python around it. The solvers' import and first solve are done before timing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from verify.experiments.control import design  # noqa: E402
from verify.experiments.control.design import control, decide_system  # noqa: E402
from verify.experiments.control.leader_sets import decide_leader_sets  # noqa: E402
from verify.core.geometry import convex_hull_vertices  # noqa: E402

SIZES = [(10, 2), (10, 4), (20, 2), (20, 4), (20, 8), (50, 2), (50, 4), (50, 8)]
SEEDS = (0, 1, 2)
ONE_CALL_TARGET = 1.0
ALL_SETS = (12, 3)
ALL_SETS_TARGET = 60.0


def tokens_for(rng: np.random.Generator, n: int, d: int) -> list[tuple[Fraction, ...]]:
    found: list[tuple[Fraction, ...]] = []
    while len(found) < n:
        z = tuple(Fraction(int(x), 64) for x in rng.integers(-64, 65, size=d))
        if any(z) and z not in found:
            found.append(z)
    return found


def _solver_seconds(runs: Any) -> float:
    return sum(r.seconds for r in runs)


def one_call(n: int, d: int, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    tokens = tokens_for(rng, n, d)
    vertices = convex_hull_vertices(tokens)
    leaders = sorted(int(v) for v in rng.choice(vertices, size=min(3, len(vertices)), replace=False))
    start = time.process_time()
    decision = decide_system(tokens, leaders, {})
    alone = time.process_time() - start
    start = time.process_time()
    outcome = control(tokens, leaders, seed=seed)
    total = time.process_time() - start
    solver = _solver_seconds(outcome.runs)
    return {"outcome": outcome.kind, "total": total, "solver": solver, "exact": total - solver,
            "programs": len(outcome.runs), "leaders_alone": alone, "leaders_kind": decision.kind}


def all_sets(n: int, d: int, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    tokens = tokens_for(rng, n, d)
    runs: list[Any] = []
    original = design.decide_system

    def counting(*args: Any, **kwargs: Any) -> Any:  # collects the solver runs of every subset decided
        decision = original(*args, **kwargs)
        runs.extend(decision.runs)
        return decision

    start = time.process_time()
    design.decide_system = counting
    try:
        import verify.experiments.control.leader_sets as leader_sets
        leader_sets.decide_system = counting
        result = decide_leader_sets(tokens, max_subsets=2 ** 16)
    finally:
        design.decide_system = original
        leader_sets.decide_system = original
    total = time.process_time() - start
    solver = _solver_seconds(runs)
    return {"vertices": len(result.hull.vertices), "subsets": len(result.subsets), "programs": result.programs,
            "realisable": len(result.of_kind("feasible")), "inconclusive": len(result.of_kind("inconclusive")),
            "total": total, "solver": solver, "exact": total - solver}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=len(SEEDS), help="seeds per size")
    args = parser.parse_args(argv)
    seeds = range(args.seeds)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"cores: {os.cpu_count()}, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} before the run")
    decide_system(tokens_for(np.random.default_rng(99), 5, 2), [0], {})  # cvxpy's import and first solve, untimed
    print(f"\none control call (CPU seconds; median over {len(seeds)} seeds, the largest in brackets; target < "
          f"{ONE_CALL_TARGET:g} s); 'programs': solver runs; 'L alone': deciding the leader set without the "
          "target search:")
    print(f"  {'n':>3} {'d':>2}  {'total':>14}  {'solver':>7}  {'exact':>7}  {'exact/solver':>12}  {'programs':>8}  "
          f"{'L alone':>7}  outcomes")
    worst = 0.0
    for n, d in SIZES:
        rows = [one_call(n, d, seed) for seed in seeds]
        totals = [r["total"] for r in rows]
        worst = max(worst, max(totals))
        solver = statistics.median(r["solver"] for r in rows)
        exact = statistics.median(r["exact"] for r in rows)
        outcomes = ", ".join(f"{sum(r['outcome'] == kind for r in rows)} {kind}"
                             for kind in ("realised", "impossible", "inconclusive") if any(r["outcome"] == kind for r in rows))
        print(f"  {n:>3} {d:>2}  {statistics.median(totals):>6.3f} [{max(totals):>5.3f}]  {solver:>7.3f}  "
              f"{exact:>7.3f}  {exact / solver if solver else float('nan'):>12.2f}  "
              f"{statistics.median(r['programs'] for r in rows):>8g}  "
              f"{statistics.median(r['leaders_alone'] for r in rows):>7.3f}  {outcomes}")
    print(f"  largest: {worst:.3f} s ({'within' if worst < ONE_CALL_TARGET else 'ABOVE'} the target)")
    n, d = ALL_SETS
    print(f"\n--all-leader-sets, n = {n}, d = {d} (CPU seconds; target < {ALL_SETS_TARGET:g} s):")
    worst = 0.0
    for seed in seeds:
        r = all_sets(n, d, seed)
        worst = max(worst, r["total"])
        print(f"  seed {seed}: {r['vertices']} hull vertices, {r['subsets']:,} subsets, {r['programs']} systems "
              f"solved, {r['realisable']:,} realisable, {r['inconclusive']} inconclusive: {r['total']:.2f} s "
              f"(solver {r['solver']:.2f} s, exact {r['exact']:.2f} s)")
    print(f"  largest: {worst:.2f} s ({'within' if worst < ALL_SETS_TARGET else 'ABOVE'} the target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
