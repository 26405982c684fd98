"""Benchmark of exact sequence classification (docs/theory.md §7): time, blocks and parameters as the data grow.

    python bench/classify.py             # quick (the default): N up to 1,000, lengths up to 1,000
    python bench/classify.py --full      # N up to 10,000, lengths up to 10,000 (tens of minutes)
    python bench/classify.py --full --baseline-max 100 --json runs/classify/scaling.json \
        --figure runs/classify/scaling.png   # what the verification report shows (about 15 CPU minutes)

``--json FILE`` writes every measurement, the plan and the stated orders (format
hardmax-verify/classify-scaling-v1; the report's exact-classification section reads
runs/classify/scaling.json); ``--figure FILE`` draws build and check time against N.

Workload: seeded datasets of :func:`verify.experiments.classify.strategies.generate_dataset` in d = 3 with
labels 0/1, random sequences over a shared vocabulary and, one draw in eight, an equal-mean pair
(a, b), (a, m, m, b), so that the separation thresholds are exercised. Against N: lengths uniform in
1..43 (22 tokens on average, the size of the prototype's workload) over max(50, N) tokens.
Against the sequence length L: N = 20 sequences of exactly L tokens over 4 L tokens, so that the
number of distinct tokens grows with L.

Measured for each dataset and variant (wide: no width cap; narrow: width cap 4):
  build   build_network, including its exact forward pass that certifies the result;
  engine  the construction's forward pass alone (verify.experiments.classify.network.forward);
  check   the independent checker on the network and data files (standard library, Fractions).
The baseline is a straightforward plain-Fraction forward pass of the same network
(verify.experiments.classify.oracle: every token through every unit, every attention score), timed on the
smaller datasets in the same run; the ratios baseline / engine and baseline / check are printed.
The baseline's work is quadratic: the wide read-out has N units applied to every one of ~22 N
tokens, the narrow network 2N blocks, and every attention layer scores every pair of a
sequence's tokens. At N = 300 it takes minutes per variant (the narrow one longest), which is
where a --full run spends most of its time; --baseline-max caps the sizes and lengths it is
timed at (the cap is printed and written to the JSON).
Times are CPU seconds of this one process (on a shared machine wall-clock time would also measure
the other jobs).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from verify.certcheck import classify as checker  # noqa: E402
from verify.experiments.classify import SCALING_RESULTS_FORMAT, oracle  # noqa: E402
from verify.experiments.classify.construction import build_network  # noqa: E402
from verify.experiments.classify.dataset import dataset_to_json  # noqa: E402
from verify.experiments.classify.network import forward, initial_state  # noqa: E402
from verify.experiments.classify.report_section import exponent  # noqa: E402
from verify.experiments.classify.strategies import generate_dataset  # noqa: E402
from verify.core.figure_text import png_metadata  # noqa: E402
from verify.core.io import atomic_write_bytes, atomic_write_text  # noqa: E402

D = 3
FAMILIES = ("shared",) * 7 + ("equal_mean",)   # mostly random sequences, some equal-mean pairs
VARIANTS = {"wide": None, "narrow": 4}
QUICK = {"sizes": [10, 100, 1000], "lengths": [1, 10, 100, 1000], "baseline_sizes": [10, 100],
         "baseline_lengths": [1, 10, 100]}
# The baseline is quadratic (every read-out unit on every token, every attention score), so it is
# timed only up to a few hundred sequences or tokens, where it already takes minutes.
FULL = {"sizes": [10, 100, 300, 1000, 3000, 10000], "lengths": [1, 10, 100, 300, 1000, 10000],
        "baseline_sizes": [10, 100, 300], "baseline_lengths": [1, 10, 100, 300]}
LENGTH_SWEEP_N = 20
STATED_ORDERS = {
    "paper": "[P2, abstract]: O(N) blocks and O(N d) parameters, independent of the sequence length",
    "wide": "3 blocks of widths at most N - 1, 1 and N (docs/theory.md §7)",
    "narrow": "feed-forward width at most 4, at most 2N + 1 blocks (docs/theory.md §7)",
    "later_version": "sequence-to-sequence interpolation with output lengths m_j: 2 sum_j m_j + 2N + 1 blocks, "
                     "4N + 1 when every m_j = 1 (a machine-written summary's number, not checked against the paper)",
}
PROTOTYPE = "plain-Fraction prototype, N = 1,000, d = 3, 22k tokens: wide built in 4 s, checked in 8 s; narrow checked in 161 s"


def dataset_for_size(n: int):
    return generate_dataset(n=n, d=D, max_length=43, seed=n, vocabulary=max(50, n), families=FAMILIES)


def dataset_for_length(length: int):
    return generate_dataset(n=LENGTH_SWEEP_N, d=D, max_length=length, min_length=length, seed=length,
                            vocabulary=4 * length, families=("shared",))


def _timed(function, *args, **kwargs):
    """The value and the CPU seconds of this process (wall-clock time on a shared machine measures the
    other jobs too; everything timed here runs in this one process)."""
    started = time.process_time()
    value = function(*args, **kwargs)
    return value, time.process_time() - started


def _say(text: str) -> None:
    """Progress on standard error, with the wall-clock time (a slow phase shows which it is)."""
    print(f"  [{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def measure(dataset, variant: str, *, baseline: bool, folder: Path, label: str = "") -> dict:
    _say(f"{label} {variant}: build")
    result, build_seconds = _timed(build_network, dataset, width_cap=VARIANTS[variant], seed=0)
    state = initial_state(dataset.tokens, dataset.sequences)
    _, engine_seconds = _timed(forward, result.network, state)
    network_path, data_path = folder / "net.json", folder / "data.json"
    network_json = result.to_json()
    network_path.write_text(json.dumps(network_json))
    data_path.write_text(json.dumps(dataset_to_json(dataset)))
    _say(f"{label} {variant}: independent check")
    outcome, check_seconds = _timed(checker.check_files, str(network_path), str(data_path))
    if outcome.exit_status != 0:
        raise SystemExit(f"the checker did not certify a built network: {outcome.summary()}")
    row = {"variant": variant, "N": len(dataset), "tokens": dataset.total_tokens,
           "distinct_tokens": len(dataset.tokens), "longest": max(map(len, dataset.sequences)),
           "blocks": len(result.network.blocks), "parameters": result.network.parameter_count(),
           "max_width": max(result.network.widths()), "thresholds": result.record["thresholds"],
           "build_s": build_seconds, "engine_s": engine_seconds, "check_s": check_seconds}
    if baseline:
        _say(f"{label} {variant}: baseline (plain Fractions, quadratic: minutes from a few hundred on)")
        sequences = [dataset.sequence(n) for n in range(len(dataset))]
        finals, baseline_seconds = _timed(oracle.forward, network_json, sequences)
        assert all({x[0] for x in tokens} == {y} for tokens, y in zip(finals, dataset.labels))
        row.update(baseline_s=baseline_seconds, engine_speedup=baseline_seconds / engine_seconds,
                   check_speedup=baseline_seconds / check_seconds)
    return row


def _slope(rows: list[dict], x: str, y: str) -> str:
    """Least-squares exponent a of y ~ x^a over the rows (log-log), as the report computes it."""
    a = exponent(rows, x, y)
    return "-" if a is None else f"{a:.2f}"


def _print_table(title: str, rows: list[dict], key: str) -> None:
    print(f"\n{title}")
    header = f"{'variant':7} {key:>6} {'tokens':>8} {'blocks':>6} {'params':>8} {'thr':>4} {'build s':>8} " \
             f"{'engine s':>9} {'check s':>8} {'baseline s':>10} {'base/engine':>11} {'base/check':>10}"
    print(header)
    print("-" * len(header))
    for r in rows:
        extra = (f"{r['baseline_s']:10.2f} {r['engine_speedup']:10.1f}x {r['check_speedup']:9.1f}x"
                 if "baseline_s" in r else f"{'':10} {'':11} {'':10}")
        print(f"{r['variant']:7} {r[key]:6d} {r['tokens']:8d} {r['blocks']:6d} {r['parameters']:8d} "
              f"{r['thresholds']:4d} {r['build_s']:8.2f} {r['engine_s']:9.2f} {r['check_s']:8.2f} {extra}")
    for variant in VARIANTS:
        mine = [r for r in rows if r["variant"] == variant]
        print(f"  {variant}: time grows as {key}^a with a = {_slope(mine, key, 'build_s')} (build), "
              f"{_slope(mine, key, 'engine_s')} (engine), {_slope(mine, key, 'check_s')} (check)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="the default: N up to 1,000, lengths up to 1,000")
    mode.add_argument("--full", action="store_true", help="N up to 10,000, lengths up to 10,000")
    parser.add_argument("--baseline-max", type=int, default=None, metavar="M",
                        help="time the baseline only at sizes and lengths up to M [default: 100 quick, 300 full]")
    parser.add_argument("--json", type=Path, default=None, help="write every measurement to this file")
    parser.add_argument("--figure", type=Path, default=None, help="draw build and check time against N (PNG)")
    args = parser.parse_args(argv)
    plan = dict(FULL if args.full else QUICK)
    if args.baseline_max is not None:
        plan["baseline_sizes"] = [n for n in plan["sizes"] if n <= args.baseline_max]
        plan["baseline_lengths"] = [n for n in plan["lengths"] if n <= args.baseline_max]
    results: dict = {"format": SCALING_RESULTS_FORMAT, "mode": "full" if args.full else "quick", "d": D,
                     "workload": {"by_size": "generate_dataset(n=N, d=3, max_length=43, seed=N, vocabulary=max(50, N)), "
                                             "one family in eight equal-mean pairs",
                                  "by_length": f"generate_dataset(n={LENGTH_SWEEP_N}, d=3, every length L, seed=L, "
                                               "vocabulary=4 L)"},
                     "plan": plan, "times": "CPU seconds of one process", "cpus": os.cpu_count(),
                     "stated_orders": STATED_ORDERS, "prototype": PROTOTYPE, "by_size": [], "by_length": []}
    print(f"plan ({results['mode']}): N in {plan['sizes']}, L in {plan['lengths']}; baseline timed at N in "
          f"{plan['baseline_sizes']} and L in {plan['baseline_lengths']}", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory() as folder:
        for n in plan["sizes"]:
            dataset = dataset_for_size(n)
            for variant in VARIANTS:
                row = measure(dataset, variant, baseline=n in plan["baseline_sizes"], folder=Path(folder),
                              label=f"N = {n}")
                results["by_size"].append(row)
        for length in plan["lengths"]:
            dataset = dataset_for_length(length)
            for variant in VARIANTS:
                row = measure(dataset, variant, baseline=length in plan["baseline_lengths"], folder=Path(folder),
                              label=f"L = {length}")
                row["L"] = length
                results["by_length"].append(row)
    print(f"Baseline timed at N in {plan['baseline_sizes']} and L in {plan['baseline_lengths']} "
          f"({'--baseline-max ' + str(args.baseline_max) if args.baseline_max is not None else 'the default'}).")
    _print_table(f"Against the number of sequences N (d = {D}, lengths 1..43, vocabulary max(50, N); seconds)",
                 results["by_size"], "N")
    _print_table(f"Against the sequence length L (N = {LENGTH_SWEEP_N}, d = {D}, every sequence of length L, "
                 f"vocabulary 4 L; seconds)", results["by_length"], "L")
    print("\nBlocks and parameters against N, next to the stated orders")
    print(f"{'N':>6} {'wide blocks':>11} {'wide params':>11} {'narrow blocks':>13} {'narrow params':>13} "
          f"{'2N+1':>6} {'4N+1':>6} {'N*d':>6}")
    by_n: dict[int, dict[str, dict]] = {}
    for r in results["by_size"]:
        by_n.setdefault(r["N"], {})[r["variant"]] = r
    for n, pair in sorted(by_n.items()):
        print(f"{n:6d} {pair['wide']['blocks']:11d} {pair['wide']['parameters']:11d} {pair['narrow']['blocks']:13d} "
              f"{pair['narrow']['parameters']:13d} {2 * n + 1:6d} {4 * n + 1:6d} {n * D:6d}")
    print("  [P2, abstract]: O(N) blocks and O(Nd) parameters. Wide: 3 blocks, parameters linear in N d. "
          "Narrow (width <= 4): at most 2N + 1 blocks.")
    print("  The later version (sequence-to-sequence interpolation with output lengths m_j) is reported to use "
          "2 sum_j m_j + 2N + 1 blocks, 4N + 1 when every m_j = 1; that count comes from a machine-written "
          "summary of the later version, not checked against the paper.")
    print(f"  For comparison, the {PROTOTYPE}.")
    timed = [r for r in results["by_size"] + results["by_length"] if "engine_speedup" in r]
    if timed:
        print("\nForward pass against the plain-Fraction baseline (aim >= 10x):")
        top = max(r["N"] for r in results["by_size"] if "engine_speedup" in r)
        for r in results["by_size"]:
            if r["N"] == top and "engine_speedup" in r:
                print(f"  N = {top}, {r['variant']}: engine {r['engine_speedup']:.0f}x, independent check "
                      f"{r['check_speedup']:.0f}x faster")
        slowest = min(timed, key=lambda r: r["engine_speedup"])
        print(f"  smallest ratio over every row timed: engine {slowest['engine_speedup']:.1f}x "
              f"({slowest['variant']}, {slowest['tokens']} tokens); check "
              f"{min(r['check_speedup'] for r in timed):.1f}x")
    if args.json is not None:
        atomic_write_text(args.json, json.dumps(results, indent=1) + "\n")
        print(f"wrote {args.json}", file=sys.stderr)
    if args.figure is not None:
        scaling_figure(results, args.figure)
        print(f"wrote {args.figure}", file=sys.stderr)
    return 0


def scaling_figure(results: dict, path: Path) -> None:
    """Build and independent-check CPU seconds against N, both variants, log-log."""
    figure = Figure(figsize=(7, 3))
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, 2)
    for variant, style in (("wide", "o-"), ("narrow", "s--")):
        rows = [r for r in results["by_size"] if r["variant"] == variant]
        for ax, key, title in ((axes[0], "build_s", "build (exact, certified)"), (axes[1], "check_s", "independent check")):
            ax.loglog([r["N"] for r in rows], [r[key] for r in rows], style, label=variant)
            ax.set_title(title)
            ax.set_xlabel("sequences N")
    axes[0].set_ylabel("CPU seconds")
    axes[0].legend()
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, metadata=png_metadata(figure, 100))
    atomic_write_bytes(path, buffer.getvalue())


if __name__ == "__main__":
    sys.exit(main())
