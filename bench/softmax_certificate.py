"""Benchmark: the cost of the softmax certificate in the certified sentiment evaluation (target: at most +10%).

    python bench/softmax_certificate.py --checkpoint models/reproduction/d2-K8-s0 [--repeat 3] [--reviews N]

Runs :func:`verify.experiments.sentiment.evaluate.certified_evaluation` on the checkpoint's test reviews
without and with ``softmax_beta`` (the training temperature), alternately, in the same process
(the corpus from the cache, numba compiled by a first warm-up run), and prints the minimum time
of each and their ratio. The ratio is the number to read; the times depend on the machine's load.
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
from verify.experiments.sentiment.model import TrainingSettings  # noqa: E402
from verify.experiments.sentiment.sources import cache_root, resolve_data  # noqa: E402

TARGET_RATIO = 1.10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=None, help="IMDb data [default: $HARDMAX_VERIFY_IMDB]")
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reviews", type=int, default=None, help="Only the first N test reviews.")
    args = parser.parse_args()
    checkpoint = read_checkpoint(args.checkpoint)
    settings = TrainingSettings.from_record(checkpoint.meta["settings"], where="settings")
    weights = checkpoint.best or checkpoint.weights
    cache = args.cache_dir if args.cache_dir is not None else cache_root() / "corpora"
    corpus, split = checkpoint_corpus(checkpoint, resolve_data(args.data), cache_dir=cache)
    ids, labels = corpus.ids[split.test][:args.reviews], corpus.labels[split.test][:args.reviews]
    certified_evaluation(weights, ids[:256], labels[:256], layers=settings.layers, softmax_beta=settings.beta)
    plain, with_certificate = [], []
    for run in range(args.repeat):
        for times, beta in ((plain, None), (with_certificate, settings.beta)):
            started = time.perf_counter()
            result = certified_evaluation(weights, ids, labels, layers=settings.layers, softmax_beta=beta)
            times.append(time.perf_counter() - started)
        soft = result.softmax
        print(f"run {run + 1}: without {plain[-1]:.2f} s, with certificate {with_certificate[-1]:.2f} s "
              f"({soft.count if soft else '-'} of {len(ids)} reviews certified)")
    ratio = min(with_certificate) / min(plain)
    print(f"min without {min(plain):.2f} s, min with {min(with_certificate):.2f} s: ratio {ratio:.3f} "
          f"(target <= {TARGET_RATIO}); {len(ids)} reviews, cpus {os.cpu_count()}, load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
