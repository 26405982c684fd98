"""Benchmark of one sweep cell (docs/sweep.md): 3,000 samples against the float batch alone, in the same run.

    python bench/sweep_cell.py [--samples 3000] [--measurement last_leader_layer] [--n 6] [--d 2] [--alpha 1/4]

Measured in this process, after a warm-up cell that compiles (or loads) the float kernel:

1. baseline: drawing the cell's configurations (verify.core.families.generate) and one float
   batch of them over the layer budget (verify.core.float_dynamics.simulate_batch), the work no
   sweep can avoid;
2. the cell as `hardmax-verify sweep` measures it (:func:`measure_cell`: draw, screen, exact runs
   for what the screen leaves, the extreme's exact check).

Printed: the wall and CPU seconds of each, their ratio, the share of the cell's wall time in
each of its stages (drawing, the float screen, the exact runs of what the screen leaves, the
extreme's exact check), and the target (a 3,000-sample cell in under 10 s of wall time on an idle
core); the exit status is 1 when the target is not met. The load average before and after is printed: on a
shared machine the times are upper bounds.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from verify.core.families import generate  # noqa: E402
from verify.core.float_dynamics import simulate_batch  # noqa: E402
from verify.experiments.conjectures.sweep import MEASUREMENTS, STAGES, Cell, measure_cell, sample_seed  # noqa: E402

TARGET_SECONDS = 10.0


def _timed(work) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=3000)
    parser.add_argument("--measurement", default="last_leader_layer", choices=sorted(MEASUREMENTS))
    parser.add_argument("--n", type=int, default=6)
    parser.add_argument("--d", type=int, default=2)
    parser.add_argument("--alpha", default="1/4")
    parser.add_argument("--layers", type=int, default=200)
    args = parser.parse_args()
    cell = Cell("generic", args.n, args.d, Fraction(args.alpha))
    measurement = MEASUREMENTS[args.measurement]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    measure_cell(measurement, cell, samples=20, seed=1, layers=args.layers)  # warm-up: the kernel compiled or loaded

    def baseline() -> None:
        configs = [generate("generic", sample_seed(0, j), n=cell.n, d=cell.d, alpha=cell.alpha)
                   for j in range(args.samples)]
        tokens = np.array([[[float(x) for x in t] for t in c.tokens] for c in configs])
        simulate_batch(tokens, alpha=float(cell.alpha), layers=args.layers)

    base_wall, base_cpu = _timed(baseline)
    result: dict = {}
    stages: dict[str, float] = {}
    cell_wall, cell_cpu = _timed(lambda: result.update(measure_cell(measurement, cell, samples=args.samples, seed=0,
                                                                    layers=args.layers, stages=stages)))
    print(f"cell: {measurement.name}, generic n={cell.n} d={cell.d} alpha={args.alpha}, {args.samples} samples, "
          f"{args.layers} layers; {result['measured_exactly']} measured exactly, extreme {result['status']}")
    print(f"baseline (draw + one float batch)  wall {base_wall:6.2f} s   CPU {base_cpu:6.2f} s")
    print(f"sweep cell                         wall {cell_wall:6.2f} s   CPU {cell_cpu:6.2f} s   "
          f"ratio to baseline {cell_wall / base_wall:.2f}")
    print("  " + "; ".join(f"{name} {100 * stages[name] / cell_wall:.0f}%" for name in STAGES if name in stages)
          + " of the cell's wall time")
    print(f"target: under {TARGET_SECONDS:g} s of wall time: {'met' if cell_wall < TARGET_SECONDS else 'NOT met'} "
          f"(CPU {cell_cpu:.2f} s)")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if cell_wall < TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
