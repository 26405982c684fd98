"""Benchmark of the exact engine's float prefilter, printed as ratios against baselines measured in the same run.

    python bench/exact_prefilter.py [--sizes 64,128,256] [--samples 3]

Workload: n distinct rows of the authors' trained d = 2 embedding with its alpha (the file
`hardmax-verify sentiment fetch-reference` fetches, or $HARDMAX_VERIFY_REFERENCE; without it a
synthetic embedding of the same shape, and the output says so), drawn without replacement, for
n = 64, 128, 256; 8 layers and 60 layers. Timed, in CPU seconds per configuration:

(a) the exact rule in plain ``fractions.Fraction``, token by token (bench/dynamics.py's
    independent baseline), 8 layers only (at 60 layers its numbers of thousands of bits take
    minutes), on one configuration;
(b) ``exact_layers(..., prefilter=False)``: every attention set from the integer scores;
(c) ``exact_layers(...)``: the proven float prefilter, integers only where it cannot decide.

At 8 layers each engine's time is the best of 3 runs of each configuration (they take
milliseconds), at 60 layers one run. (b) and (c) must yield the same layers (checked on every
configuration timed), and (a) the same final positions. The target: (c) at least 100x faster than (a) at n = 128 and 8 layers.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from dynamics import baseline_fraction, load_embedding  # noqa: E402
from verify.core.exact_dynamics import ExactLayer, exact_layers  # noqa: E402
from verify.experiments.sentiment.sources import resolve_reference  # noqa: E402

SHORT, LONG = 8, 60
TARGET_N, TARGET_RATIO = 128, 100.0


def draw_configurations(E: np.ndarray, n: int, count: int, *, seed: int) -> list[list[tuple[Fraction, ...]]]:
    rng = np.random.default_rng(seed)
    return [[tuple(Fraction(float(x)) for x in E[i]) for i in rng.choice(len(E), size=n, replace=False)]
            for _ in range(count)]


def run_engine(config: list[tuple[Fraction, ...]], alpha: Fraction, layers: int, *, prefilter: bool) -> list[ExactLayer]:
    kept = []
    for layer in exact_layers(config, alpha=alpha, prefilter=prefilter):
        kept.append(layer)
        if layer.index == layers:
            return kept
    raise AssertionError("exact_layers stopped")  # it never does


def cpu_seconds(fn) -> tuple[float, object]:
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def same_layers(a: list[ExactLayer], b: list[ExactLayer]) -> bool:
    return all((x.numerators, x.denominator, x.attention, x.groups) == (y.numerators, y.denominator, y.attention, y.groups)
               for x, y in zip(a, b)) and len(a) == len(b)


def engine_times(configs, alpha: Fraction, layers: int, repeat: int) -> tuple[float, float, bool]:
    """Mean over configurations of the best of ``repeat`` CPU times of (b) and (c), and whether their layers agree."""
    exact_total = prefilter_total = 0.0
    agree = True
    for config in configs:
        t_exact, t_prefilter = float("inf"), float("inf")
        for _ in range(repeat):
            t, exact = cpu_seconds(lambda c=config: run_engine(c, alpha, layers, prefilter=False))
            t_exact = min(t_exact, t)
            t, fast = cpu_seconds(lambda c=config: run_engine(c, alpha, layers, prefilter=True))
            t_prefilter = min(t_prefilter, t)
        exact_total += t_exact
        prefilter_total += t_prefilter
        agree = agree and same_layers(exact, fast)  # type: ignore[arg-type]
    return exact_total / len(configs), prefilter_total / len(configs), agree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="64,128,256", help="numbers of tokens n")
    parser.add_argument("--samples", type=int, default=3, help="configurations timed with (b) and (c) at 8 layers")
    parser.add_argument("--long-samples", type=int, default=1, help="configurations timed with (b) and (c) at 60 layers")
    parser.add_argument("--model", type=Path, default=None,
                        help="the authors' arrays (.npz) [default: $HARDMAX_VERIFY_REFERENCE, else the fetched copy]")
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    E, alpha_float, source = load_embedding(resolve_reference(args.model, required=False))
    alpha = Fraction(alpha_float)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"cores: {os.cpu_count()}; load average before: {load}; d={E.shape[1]}, alpha={alpha_float:.6g}, "
          f"distinct rows from {source}; CPU seconds per configuration")
    print(f"{'n':>4} {'layers':>6} {'(a) Fraction':>13} {'(b) exact-only':>15} {'(c) prefilter':>14} "
          f"{'(a)/(c)':>9} {'(a)/(b)':>9} {'(b)/(c)':>9}  same layers")
    target_ratio = None
    for n in sizes:
        configs = draw_configurations(E, n, max(args.samples, args.long_samples), seed=n)
        fraction_s, final = cpu_seconds(lambda c=configs[0]: baseline_fraction(c, alpha, SHORT))
        exact_s, prefilter_s, agree = engine_times(configs[:args.samples], alpha, SHORT, repeat=3)
        agree = agree and run_engine(configs[0], alpha, SHORT, prefilter=True)[-1].positions() == final
        ratio = fraction_s / prefilter_s
        if n == TARGET_N:
            target_ratio = ratio
        print(f"{n:>4} {SHORT:>6} {fraction_s:>12.3f}s {exact_s:>14.4f}s {prefilter_s:>13.4f}s "
              f"{ratio:>8.1f}x {fraction_s / exact_s:>8.1f}x {exact_s / prefilter_s:>8.1f}x  {'yes' if agree else 'NO'}")
        exact_s, prefilter_s, agree = engine_times(configs[:args.long_samples], alpha, LONG, repeat=1)
        print(f"{n:>4} {LONG:>6} {'(not run)':>13} {exact_s:>14.4f}s {prefilter_s:>13.4f}s "
              f"{'':>9} {'':>9} {exact_s / prefilter_s:>8.1f}x  {'yes' if agree else 'NO'}")
    if target_ratio is None:
        print(f"target: (c) >= {TARGET_RATIO:g}x (a) at n = {TARGET_N}, {SHORT} layers: not measured (n = {TARGET_N} not in --sizes)")
    elif target_ratio >= TARGET_RATIO:
        print(f"target: (c) >= {TARGET_RATIO:g}x (a) at n = {TARGET_N}, {SHORT} layers: met ({target_ratio:.1f}x)")
    else:
        print(f"target: (c) >= {TARGET_RATIO:g}x (a) at n = {TARGET_N}, {SHORT} layers: NOT met ({target_ratio:.1f}x, "
              f"{TARGET_RATIO / target_ratio:.2f}x short)")
    print("load average after: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
