"""Benchmark of the float engine's layer kernel at researchers' sizes, as ratios against baselines timed in the same run.

    python bench/float_kernel.py [--n 512 1024 2048] [--d 16 64] [--repeat 3] [--threads 1]

One layer of one configuration of n tokens drawn from N(0, 1)^d, A a dense normal matrix (the
engine's work for every A; the identity costs the same), timed four ways, best of ``--repeat``
rounds, the four interleaved in each round:

(old)   the row-layout kernel of tests/common/float_kernel_oracle.py, the test oracle: each
        score's reduction over d innermost, which the compiler leaves scalar;
(new)   verify.core.float_kernel.layer_kernel, the engine's kernel;
(numpy) the same layer in plain numpy: the score matrix by two matrix products, then the bound
        E_uv of every pair, the decision, the margin and the update as whole-array operations;
(floor) the two matrix products alone (DGEMM, (n x d)(d x d) then (n x d)(d x n)): no kernel that
        forms every score can beat it.

Rates count 2 n d^2 + 2 n^2 d flops (the direction and score products). Goals, printed as met or
by how much not: at every d >= 16 the new kernel is at least 2x the old and faster than numpy; at
d = 64 it is within 4x of the floor. The new and old kernels' outputs must be bit for bit equal on
every workload (the benchmark exits 1 otherwise); numpy's argmax must agree on the rows they decide.

Everything runs on ``--threads`` threads (numba's and BLAS's, set before numpy loads), one by
default: the machine is shared, and ratios on one core compare the code, not the scheduler.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def _threads(argv: list[str]) -> str:
    for i, arg in enumerate(argv):
        if arg == "--threads" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--threads="):
            return arg.split("=", 1)[1]
    return "1"


# Thread counts are read when numpy's BLAS and numba load, so they are set before the imports (only when
# run as a script: numba refuses a changed count in a process that has started its threads).
if __name__ == "__main__":
    for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[_name] = _threads(sys.argv[1:])

import numba  # noqa: E402
import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.common.float_kernel_oracle import OUTPUTS, layer_inputs, row_layout_layer_kernel, run_layer  # noqa: E402
from verify.core.float_kernel import layer_kernel  # noqa: E402
from verify.core.float_rounding import BOUND_SAFETY, UNDERFLOW_SLACK  # noqa: E402

SPEED_UP_GOAL = 2.0     # new kernel vs old, at d >= 16
FLOOR_GOAL = 4.0        # new kernel vs the DGEMM floor, at d = 64


def numpy_layer(Z, W, counts, At, alpha, error, matrix_bound, score_rounding, step_rounding):
    """The layer in whole-array numpy (every configuration full: counts unused): argmax, undecided, margin, new positions and bounds."""
    B, n, d = Z.shape
    scores = np.matmul(np.matmul(Z, At), np.swapaxes(Z, 1, 2))
    rho = np.abs(Z).max(axis=2)
    eu, ru = error[:, :, None], rho[:, :, None]
    ev, rv = error[:, None, :], rho[:, None, :]
    pair = (d * d * matrix_bound[:, None, None] * (eu * rv + ru * ev + eu * ev + score_rounding * (ru + eu) * (rv + ev))
            + UNDERFLOW_SLACK * d * (1.0 + d * (ru + rv)))
    best = scores.argmax(axis=2)
    top = np.take_along_axis(scores, best[:, :, None], axis=2)
    bound_top = np.take_along_axis(pair, best[:, :, None], axis=2)
    others = np.arange(n)[None, None, :] != best[:, :, None]
    gap = top - scores
    undecided = ~(np.where(others, gap > (bound_top + pair) * BOUND_SAFETY, True).all(axis=2)
                  & np.isfinite(scores).all(axis=2))
    equal = scores == top
    tie = equal.sum(axis=2) > 1
    second = np.where(others, scores, -np.inf).max(axis=2)
    margin = (top[:, :, 0] - second) - (bound_top[:, :, 0] + pair.max(axis=2)) * BOUND_SAFETY
    leader = np.take_along_axis(Z, best[:, :, None], axis=1)
    a = alpha[:, None, None]
    new_Z = (Z + a * leader) / (1.0 + a)
    for b, u in zip(*np.nonzero(tie)):  # float ties: the multiplicity-weighted mean of the maximisers
        w = W[b] * equal[b, u]
        new_Z[b, u] = (Z[b, u] + alpha[b] * (w @ Z[b]) / w.sum()) / (1.0 + alpha[b])
    e_top = np.take_along_axis(error, best, axis=1)
    new_error = ((error + alpha[:, None] * e_top) / (1.0 + alpha[:, None])
                 + (np.maximum(rho, np.take_along_axis(rho, best, axis=1)) + np.maximum(error, e_top)) * step_rounding[:, None]
                 + UNDERFLOW_SLACK) * BOUND_SAFETY
    undecided |= ~np.isfinite(new_Z).all(axis=2) | ~np.isfinite(new_error)
    return best, undecided, margin, new_Z, new_error


def floor_product(Z, At):
    return np.matmul(np.matmul(Z, At), np.swapaxes(Z, 1, 2))


def workload(n: int, d: int, seed: int) -> tuple:
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(1, d, d))
    return layer_inputs(rng.normal(size=(1, n, d)), A_transposed=np.swapaxes(A, 1, 2), alpha=0.5,
                        error=1e-12, matrix_bound=np.abs(A).max())


def measure(n: int, d: int, repeat: int, seed: int) -> dict:
    inputs = workload(n, d, seed)
    runs = {
        "old": lambda: run_layer(row_layout_layer_kernel, inputs, record=False),
        "new": lambda: run_layer(layer_kernel, inputs, record=False),
        "numpy": lambda: numpy_layer(*inputs),
        "floor": lambda: floor_product(inputs[0], inputs[3]),
    }
    best = {name: float("inf") for name in runs}
    results = {}
    for _ in range(repeat):
        for name, fn in runs.items():
            start = time.perf_counter()
            results[name] = fn()
            best[name] = min(best[name], time.perf_counter() - start)
    new, old = results["new"], results["old"]
    same = all(new[k].tobytes() == old[k].tobytes() for k in OUTPUTS)
    numpy_best, numpy_undecided = results["numpy"][:2]
    decided = ~new["undecided"] & ~numpy_undecided
    agree = bool((numpy_best[decided] == new["argmax"][decided]).all())
    return dict(seconds=best, same=same, agree=agree, decided=int(decided.sum()), rows=n,
                flops=2.0 * n * d * d + 2.0 * n * n * d)


def _goal(label: str, value: float, goal: float) -> str:
    if value >= goal:
        return f"{label}: met ({value:.2f}x, goal >= {goal:g}x)"
    return f"{label}: NOT met ({value:.2f}x, goal >= {goal:g}x; short by a factor {goal / value:.2f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[512, 1024, 2048])
    parser.add_argument("--d", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="numba and BLAS threads (set before numpy loads)")
    args = parser.parse_args(argv)
    # Compile both kernels before any timing (numba caches them on disk after the first run).
    for kernel in (layer_kernel, row_layout_layer_kernel):
        run_layer(kernel, workload(8, 2, 0), record=False)
    one, five, _ = os.getloadavg()
    print(f"one layer, one configuration, N(0,1) tokens, dense A; threads: {numba.get_num_threads()}; "
          f"best of {args.repeat}; load average {one:.2f} {five:.2f}")
    print(f"{'n':>5} {'d':>3} | {'old ms':>8} {'new ms':>8} {'numpy ms':>9} {'floor ms':>9} | "
          f"{'new GF/s':>8} {'floor GF/s':>10} | {'new/old':>7} {'new/numpy':>9} {'floor/new':>9} | bits  argmax")
    failures = 0
    lines = []
    for d in args.d:
        for n in args.n:
            r = measure(n, d, args.repeat, args.seed)
            s = r["seconds"]
            vs_old, vs_numpy, floor_ratio = s["old"] / s["new"], s["numpy"] / s["new"], s["new"] / s["floor"]
            print(f"{n:>5} {d:>3} | {s['old'] * 1e3:8.1f} {s['new'] * 1e3:8.1f} {s['numpy'] * 1e3:9.1f} {s['floor'] * 1e3:9.1f} | "
                  f"{r['flops'] / s['new'] / 1e9:8.2f} {r['flops'] / s['floor'] / 1e9:10.2f} | "
                  f"{vs_old:6.2f}x {vs_numpy:8.2f}x {floor_ratio:8.2f}x | {'same' if r['same'] else 'DIFF'}  "
                  f"{'agrees' if r['agree'] else 'DIFFERS'} ({r['decided']} of {r['rows']} rows decided by both)")
            failures += (not r["same"]) + (not r["agree"])
            if d >= 16:
                lines.append(_goal(f"n={n} d={d} new vs old", vs_old, SPEED_UP_GOAL))
                lines.append(_goal(f"n={n} d={d} new vs numpy", vs_numpy, 1.0))
            if d == 64:
                lines.append(f"n={n} d={d} new within {FLOOR_GOAL:g}x of the DGEMM floor: "
                             + (f"met ({floor_ratio:.2f}x the floor's time)" if floor_ratio <= FLOOR_GOAL
                                else f"NOT met ({floor_ratio:.2f}x the floor's time; {floor_ratio / FLOOR_GOAL:.2f}x over)"))
    one, five, _ = os.getloadavg()
    print(f"load average after: {one:.2f} {five:.2f}")
    print("goals:")
    for line in lines:
        print("  " + line)
    if failures:
        print(f"{failures} workload(s) where the kernels' bits or the argmax differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
