"""Benchmark of the dynamics engines, printed as ratios against baselines measured in the same run.

    python bench/dynamics.py [--configs 2000] [--exact-sample 20] [--fraction-sample 3]

Workload: B configurations of n = 128 tokens in d = 2, 8 layers, tokens drawn from
the rows of the authors' trained embedding (with its alpha: `--model FILE.npz`, else
$HARDMAX_VERIFY_REFERENCE or the copy `hardmax-verify sentiment fetch-reference` made). The
rows are sorted by word frequency, so a review is simulated by drawing word ranks from a
Zipf law (p(rank) ~ 1/rank, as word frequencies are) for a length uniform in [32, 128], then
padding to 128 with row 0, the padding token, as the paper's model does. Real reviews thus
contain repeated words and padding: identical tokens, which the engines merge (docs/theory.md D5).
A second line reports the same measurement with uniformly drawn rows (almost no repeats).
Without the file a synthetic embedding of the same shape is used, and the output says so.

Baselines are deliberately independent of the package (they must not share its code):
(a) the per-token loop the paper's authors wrote (for each token: dot products with all
tokens, the argmax set by float equality, the average) and (d) the exact rule in plain
`fractions.Fraction`, token by token.
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from verify import simulate_batch  # noqa: E402
from verify.core.exact_dynamics import exact_layers  # noqa: E402
from verify.experiments.sentiment.sources import resolve_reference  # noqa: E402

N_TOKENS, LAYERS = 128, 8


def load_embedding(path: Path | None) -> tuple[np.ndarray, float, str]:
    if path is not None and path.exists():
        with np.load(path, allow_pickle=False) as data:
            return data["E"].astype(np.float64), float(data["alpha"][0]), f"{path.name}"
    rng = np.random.default_rng(0)
    return rng.normal(size=(121296, 2)), 2.352787, "synthetic embedding (reference file not found)"


def draw_reviews(E: np.ndarray, count: int, *, seed: int, zipf: bool) -> np.ndarray:
    rng = np.random.default_rng(seed)
    vocab = len(E) - 1
    ranks = np.arange(1, vocab + 1)
    p = 1.0 / ranks if zipf else np.ones(vocab)
    p /= p.sum()
    ids = np.zeros((count, N_TOKENS), dtype=np.int64)
    lengths = rng.integers(32, N_TOKENS + 1, size=count)
    for b in range(count):
        ids[b, :lengths[b]] = rng.choice(ranks, size=lengths[b], p=p)
    return E[ids]


def baseline_per_token_loop(Z: np.ndarray, alpha: float, layers: int) -> np.ndarray:
    """(a) The authors' way: a Python loop over tokens, argmax set by float equality."""
    Z = Z.copy()
    for _ in range(layers):
        new = np.empty_like(Z)
        for i in range(len(Z)):
            ip = Z @ Z[i]
            chosen = ip == ip.max()
            new[i] = (Z[i] + alpha * Z[chosen].mean(axis=0)) / (1 + alpha)
        Z = new
    return Z


def baseline_fraction(tokens: list[tuple[Fraction, ...]], alpha: Fraction, layers: int) -> list[tuple[Fraction, ...]]:
    """(d) The exact rule in plain Fractions, token by token, A = I."""
    Z = tokens
    for _ in range(layers):
        new = []
        for z in Z:
            scores = [sum(a * b for a, b in zip(z, w)) for w in Z]
            top = max(scores)
            C = [w for w, s in zip(Z, scores) if s == top]
            mean = [sum(c) / len(C) for c in zip(*C)]
            new.append(tuple((x + alpha * m) / (1 + alpha) for x, m in zip(z, mean)))
        Z = new
    return Z


def timed(fn, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def run(configs: int, exact_sample: int, fraction_sample: int, loop_sample: int, zipf: bool, E, alpha) -> dict:
    tokens = draw_reviews(E, configs, seed=1, zipf=zipf)
    alpha_exact = Fraction(alpha)

    loop_s = timed(lambda: [baseline_per_token_loop(t, alpha, LAYERS) for t in tokens[:loop_sample]]) / loop_sample
    batch_s = timed(lambda: simulate_batch(tokens, alpha=alpha, layers=LAYERS), repeat=2) / configs
    result = simulate_batch(tokens, alpha=alpha, layers=LAYERS)

    # Same answers: the batch engine against the authors' loop where the batch engine decided everything.
    decided = np.nonzero(~result.undecided[:loop_sample])[0]
    worst = max((np.abs(result.final[b] - baseline_per_token_loop(tokens[b], alpha, LAYERS)).max() for b in decided), default=0.0)

    exact_inputs = [[tuple(Fraction(float(x)) for x in t) for t in cfg] for cfg in tokens[:exact_sample]]

    def run_flint():
        for cfg in exact_inputs:
            for layer in exact_layers(cfg, alpha=alpha_exact):
                if layer.index == LAYERS:
                    break
    flint_s = timed(run_flint) / exact_sample
    fraction_s = timed(lambda: [baseline_fraction(cfg, alpha_exact, LAYERS) for cfg in exact_inputs[:fraction_sample]]) / fraction_sample
    return dict(loop=loop_s, batch=batch_s, flint=flint_s, fraction=fraction_s, worst=worst,
                undecided=int(result.undecided.sum()), distinct=float(result.distinct_points.mean()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", type=int, default=2000)
    parser.add_argument("--loop-sample", type=int, default=100, help="configurations timed with the per-token loop")
    parser.add_argument("--exact-sample", type=int, default=20, help="configurations timed with python-flint")
    parser.add_argument("--fraction-sample", type=int, default=3, help="configurations timed with plain Fraction")
    parser.add_argument("--model", type=Path, default=None,
                        help="the authors' arrays (.npz) [default: $HARDMAX_VERIFY_REFERENCE, else the fetched copy]")
    args = parser.parse_args()
    E, alpha, source = load_embedding(resolve_reference(args.model, required=False))
    print(f"workload: B={args.configs}, n={N_TOKENS}, d={E.shape[1]}, {LAYERS} layers, alpha={alpha:.6g}, tokens from {source}")
    for label, zipf in (("zipf-drawn reviews (repeats + padding)", True), ("uniformly drawn rows", False)):
        r = run(args.configs, args.exact_sample, args.fraction_sample, args.loop_sample, zipf, E, alpha)
        print(f"\n[{label}] mean distinct tokens per configuration: {r['distinct']:.1f} of {N_TOKENS}; "
              f"configurations with an undecided set: {r['undecided']} of {args.configs}")
        print(f"  (a) per-token loop (baseline)  {r['loop'] * 1e3:9.3f} ms/config")
        print(f"  (b) simulate_batch             {r['batch'] * 1e3:9.3f} ms/config   "
              f"speed-up vs (a): {r['loop'] / r['batch']:7.1f}x  (target >= 30x)")
        print(f"  (c) exact, python-flint        {r['flint'] * 1e3:9.3f} ms/config")
        print(f"  (d) exact, plain Fraction      {r['fraction'] * 1e3:9.3f} ms/config   "
              f"(c) vs (d): {r['fraction'] / r['flint']:7.1f}x  (target >= 10x)")
        print(f"  largest |(b) - (a)| on decided configurations: {r['worst']:.3g}")


if __name__ == "__main__":
    main()
