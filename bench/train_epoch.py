"""Benchmark: one training epoch of the sentiment model, merged tokens + length bucketing against all positions.

    python bench/train_epoch.py --data IMDB [--d 2] [--limit-reviews N] [--threads 1]

Both implementations start from the same seeded weights on the same training reviews (the
paper protocol's split) and run one epoch each, in this process, one after the other:

* ``all positions``: attention over the n = 128 positions, batches in shuffled order (the
  implementation of the earlier runs);
* ``merged + bucketed``: attention over each review's distinct tokens with log-multiplicity
  weights, batches cut from pools sorted by distinct-token count.

Printed: the two epoch times and their ratio (target >= 2 at d = 2), and the loss difference:
the mean training loss of the initial weights over every training review computed both ways
(the same function, so only rounding differs; target <= 1e-5 relative). ``--data`` defaults
to the environment variable HARDMAX_VERIFY_IMDB.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from verify.experiments.imdb.corpus import load_corpus, make_split  # noqa: E402
from verify.experiments.sentiment.model import (TrainingSettings, build_model, merge_tokens, softmax_scores,  # noqa: E402
                                    train)
from verify.experiments.imdb.preprocess import PreprocessOptions  # noqa: E402


def _mean_loss(scores: np.ndarray, labels: np.ndarray) -> float:
    y = labels.astype(np.float64)
    return float((np.maximum(scores, 0) - scores * y + np.log1p(np.exp(-np.abs(scores)))).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=os.environ.get("HARDMAX_VERIFY_IMDB"))
    parser.add_argument("--d", type=int, default=2)
    parser.add_argument("--limit-reviews", type=int, default=None)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--bucket-batches", type=int, default=50)
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "hardmax-verify-bench-cache")
    args = parser.parse_args()
    if args.data is None:
        parser.error("give --data or set HARDMAX_VERIFY_IMDB")
    import torch
    torch.set_num_threads(args.threads)
    corpus = load_corpus(args.data, options=PreprocessOptions(), cache_dir=args.cache_dir, limit=args.limit_reviews)
    split = make_split(corpus, protocol="paper", seed=0)
    base = TrainingSettings(d=args.d)
    fast = replace(base, merged_tokens=True, bucket_batches=args.bucket_batches)

    model = build_model(len(corpus.vocabulary), base)
    ids, labels = corpus.ids[split.train], corpus.labels[split.train]
    plain = _mean_loss(softmax_scores(model, ids), labels)
    merged = _mean_loss(softmax_scores(model, ids, merged=True), labels)
    tokens, counts, distinct = merge_tokens(ids)

    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, settings in (("all positions", base), ("merged + bucketed", fast)):
            started = time.perf_counter()
            meta = train(corpus, split, settings=settings, out_dir=Path(tmp) / name.replace(" ", "_"), epochs=1,
                         patience=None, threads=args.threads)
            times[name] = time.perf_counter() - started
            print(f"{name:>18}: epoch {times[name]:7.2f} s (running train loss {meta['history'][0]['train_running_loss']:.6f}, "
                  f"validation accuracy {meta['history'][0]['val_acc']:.4f})")
    ratio = times["all positions"] / times["merged + bucketed"]
    relative = abs(merged - plain) / abs(plain)
    print(f"reviews: {len(ids)} training; distinct tokens per review: mean {distinct.mean():.1f}, max {distinct.max()}")
    print(f"epoch-time ratio (all positions / merged + bucketed) at d = {args.d}: {ratio:.2f}x (target >= 2)")
    print(f"loss of the initial weights over the training reviews: {plain:.9f} vs {merged:.9f}, "
          f"relative difference {relative:.2e} (target <= 1e-5)")
    print(f"threads: {args.threads}; cpus: {os.cpu_count()}")


if __name__ == "__main__":
    main()
