"""Benchmark: certified hardmax evaluation of a sentiment checkpoint on its test split (target: 15,000 reviews in under a minute).

    python bench/sentiment_eval.py --checkpoint models/sentiment-d2-paper [--repeat 3]

Prints the wall time of :func:`verify.experiments.sentiment.evaluate.certified_evaluation` alone (the
corpus comes from the cache, built once beforehand), the number of reviews, how many took the
exact path, and the machine's CPU count. The first run includes numba's compilation of the
float kernel; the minimum over ``--repeat`` runs is reported separately.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from verify.experiments.sentiment.checkpoints import read_checkpoint  # noqa: E402
from verify.experiments.sentiment.checkpoints import checkpoint_corpus  # noqa: E402
from verify.experiments.sentiment.evaluate import certified_evaluation  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=os.environ.get("HARDMAX_VERIFY_IMDB"),
                        help="IMDb data [default: $HARDMAX_VERIFY_IMDB]")
    parser.add_argument("--cache-dir", type=Path, default=REPO / "runs" / "sentiment" / "cache")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    checkpoint = read_checkpoint(args.checkpoint)
    weights = checkpoint.best or checkpoint.weights
    corpus, split = checkpoint_corpus(checkpoint, args.data, cache_dir=args.cache_dir)
    ids, labels = corpus.ids[split.test], corpus.labels[split.test]
    times = []
    for run in range(args.repeat):
        started = time.perf_counter()
        result = certified_evaluation(weights, ids, labels, layers=checkpoint.meta["settings"]["layers"])
        times.append(time.perf_counter() - started)
        print(f"run {run + 1}: {len(ids)} reviews in {times[-1]:.2f} s, accuracy {result.accuracy:.4f}, "
              f"exact path {result.exact_path}, undecided by the float bound {int(result.undecided_mask.sum())}")
    print(f"min {min(times):.2f} s over {len(times)} runs; cpus {os.cpu_count()}; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
