"""Rounding rates of leader control (docs/theory.md D10, docs/control.md): how often solver answers become exact.

    python bench/control_rates.py                 # 1,000 cases, seed 0 (a few minutes)
    python bench/control_rates.py --cases 200 --seed 3

Cases: a configuration from each family inside the hypotheses in turn (n 4-9, d 2-3) and a
leader set drawn among its hull vertices, all from ``numpy.random.default_rng(seed)``
(:func:`verify.experiments.control.study.sample_cases`). Each case is decided by
:func:`verify.experiments.control.design.decide_system`. Printed: of the cases the solver found
feasible, how many got an exact A (target: at least 99%); of all cases, how many were decided
exactly either way (target: at least 99%); the impossibility certificates by the step that found
them; per family; and every inconclusive case. The study (scripts/control_study.py) reports the
same measurement in the verification report.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from verify.experiments.control.study import rounding_rates, sample_cases  # noqa: E402

TARGET = 0.99


def _rate(part: int, whole: int) -> str:
    return f"{part:,} of {whole:,} ({100 * part / whole:.2f}%)" if whole else "none"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"cores: {os.cpu_count()}, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} before the run")
    start = time.process_time()
    rates = rounding_rates(sample_cases(args.seed, args.cases))
    seconds = time.process_time() - start
    decided = rates["exact_designs"] + rates["impossible"]
    feasible_rate = rates["exact_designs_of_solver_feasible"] / max(rates["solver_feasible"], 1)
    decided_rate = decided / max(rates["cases"], 1)
    print(f"\n{rates['cases']:,} cases, seed {args.seed} ({seconds:.0f} CPU seconds)")
    print(f"  solver found a design: {rates['solver_feasible']:,}; exact A: "
          f"{_rate(rates['exact_designs_of_solver_feasible'], rates['solver_feasible'])} "
          f"({'meets' if feasible_rate >= TARGET else 'BELOW'} the target of {TARGET:.0%})")
    print(f"  decided exactly either way: {_rate(decided, rates['cases'])} "
          f"({'meets' if decided_rate >= TARGET else 'BELOW'} the target of {TARGET:.0%})")
    print(f"  exact A: {rates['exact_designs']:,}; impossible: {rates['impossible']:,} "
          f"(by step: {', '.join(f'{k} {v}' for k, v in rates['impossible_by_step'].items())}); "
          f"inconclusive: {rates['inconclusive']:,}")
    print("  decided per family: " + "; ".join(f"{name} {v['decided']}/{v['cases']}"
                                               for name, v in rates["by_family"].items()))
    for case in rates["inconclusive_cases"]:
        print(f"  inconclusive: {case['configuration']} L = {case['leaders']}"
              f"{' (the solver found a design)' if case['solver_feasible'] else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
