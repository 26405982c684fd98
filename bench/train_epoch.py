"""Benchmark: the sentiment model's training step, compiled against reference, interleaved in one process.

    python bench/train_epoch.py --data IMDB [--d 2 16] [--steps 150] [--threads 1] [--epochs]

For each d (default 2 and 16), the protocol's K = 8 run (``protocols/reproduction.toml``: its
cleaning, split, settings) starts twice from the same seeded weights, once per training step
implementation (``verify.experiments.sentiment.model.STEPS``):

* ``reference``: torch autograd through the attention layers, Adam one tensor at a time;
* ``compiled``: the layers by ``verify.experiments.sentiment.attention_kernel``, fused Adam.

Both take the same first ``--steps`` batches of epoch 1, one batch each in turn (the order
alternating), so the machine's load falls on both alike. Printed per d: the mean time of a
step of each, the ratio (reference / compiled) of their totals in CPU time of this process and
in wall time, the median of the per-step ratios (target >= 2), and the loss both computed on
the first batch from the same weights (the same function: they differ by rounding only).

``--epochs`` also runs the earlier comparison: one whole epoch at the first d with attention
over all positions against attention over distinct tokens with length bucketing (each with
the reference step), their times and ratio, and the loss of the initial weights over every
training review computed both ways (target <= 1e-5 relative).

``--data`` defaults to the environment variable HARDMAX_VERIFY_IMDB.
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
from verify.experiments.sentiment.model import (build_model, build_optimizer, epoch_batches, merge_tokens,  # noqa: E402
                                    softmax_scores, step_inputs, train, training_step)
from verify.experiments.sentiment.protocol import load_protocol, preprocess_options, training_settings  # noqa: E402


def _mean_loss(scores: np.ndarray, labels: np.ndarray) -> float:
    y = labels.astype(np.float64)
    return float((np.maximum(scores, 0) - scores * y + np.log1p(np.exp(-np.abs(scores)))).mean())


def compare_steps(corpus, split, settings, *, steps: int) -> dict:
    """Interleaved timing of the two step implementations on the same batches (see the module docstring)."""
    import torch
    from torch import nn
    train_ids = corpus.ids[split.train]
    labels = corpus.labels[split.train].astype(np.float32)
    merged = merge_tokens(train_ids)
    batches = epoch_batches(len(train_ids), seed=settings.seed, epoch=0, batch_size=settings.batch_size,
                            bucket_batches=settings.bucket_batches, distinct=merged[2])[:steps + 2]
    criterion = nn.BCEWithLogitsLoss()
    runs = {}
    for step in ("reference", "compiled"):
        model = build_model(len(corpus.vocabulary), settings)
        runs[step] = (model, build_optimizer(model, settings, step=step))
    cpu = {step: [] for step in runs}
    wall = {step: [] for step in runs}
    first_loss = {}
    for index, rows in enumerate(batches):
        inputs = step_inputs(settings, rows, train_ids, merged)
        target = torch.from_numpy(labels[rows])
        for step in (("reference", "compiled") if index % 2 == 0 else ("compiled", "reference")):
            model, optimizer = runs[step]
            started_cpu, started = time.process_time(), time.perf_counter()
            loss, _ = training_step(model, optimizer, criterion, inputs, target, settings=settings, step=step)
            if index >= 2:  # the first two steps load the compiled kernel and warm the caches
                cpu[step].append(time.process_time() - started_cpu)
                wall[step].append(time.perf_counter() - started)
            if index == 0:
                first_loss[step] = float(loss)
    per_step = np.array(cpu["reference"]) / np.array(cpu["compiled"])
    return {"steps": len(cpu["reference"]),
            "reference_ms": 1000 * float(np.mean(cpu["reference"])), "compiled_ms": 1000 * float(np.mean(cpu["compiled"])),
            "cpu_ratio": float(np.sum(cpu["reference"]) / np.sum(cpu["compiled"])),
            "wall_ratio": float(np.sum(wall["reference"]) / np.sum(wall["compiled"])),
            "median_step_ratio": float(np.median(per_step)),
            "first_loss": first_loss,
            "mean_width": float(np.mean([merged[2][rows].max() for rows in batches]))}


def compare_epochs(corpus, split, settings, *, threads: int) -> None:
    """One epoch over all positions against one over distinct tokens with bucketing (the reference step)."""
    base = replace(settings, merged_tokens=False, bucket_batches=0)
    model = build_model(len(corpus.vocabulary), base)
    ids, labels = corpus.ids[split.train], corpus.labels[split.train]
    plain = _mean_loss(softmax_scores(model, ids), labels)
    merged = _mean_loss(softmax_scores(model, ids, merged=True), labels)
    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, chosen in (("all positions", base), ("merged + bucketed", settings)):
            started = time.perf_counter()
            meta = train(corpus, split, settings=chosen, out_dir=Path(tmp) / name.replace(" ", "_"), epochs=1,
                         patience=None, threads=threads, step="reference")
            times[name] = time.perf_counter() - started
            print(f"{name:>18}: epoch {times[name]:7.2f} s (running train loss "
                  f"{meta['history'][0]['train_running_loss']:.6f}, validation accuracy {meta['history'][0]['val_acc']:.4f})")
    print(f"epoch-time ratio (all positions / merged + bucketed) at d = {settings.d}: "
          f"{times['all positions'] / times['merged + bucketed']:.2f}x (target >= 2)")
    print(f"loss of the initial weights over the training reviews: {plain:.9f} vs {merged:.9f}, "
          f"relative difference {abs(merged - plain) / abs(plain):.2e} (target <= 1e-5)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=os.environ.get("HARDMAX_VERIFY_IMDB") or None)
    parser.add_argument("--protocol", type=Path, default=REPO / "protocols" / "reproduction.toml")
    parser.add_argument("--d", type=int, nargs="+", default=[2, 16])
    parser.add_argument("--steps", type=int, default=150, help="timed steps per implementation and d")
    parser.add_argument("--limit-reviews", type=int, default=None)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--epochs", action="store_true", help="also the one-epoch positions/distinct comparison")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "hardmax-verify-bench-cache")
    args = parser.parse_args()
    if args.data is None:
        parser.error("give --data or set HARDMAX_VERIFY_IMDB")
    import numba
    import torch
    # As training does (verify.experiments.sentiment.model.train): both libraries on the same thread count.
    torch.set_num_threads(args.threads)
    numba.set_num_threads(max(1, min(args.threads, numba.config.NUMBA_NUM_THREADS)))
    protocol = load_protocol(args.protocol)
    common = protocol.common
    corpus = load_corpus(args.data, options=preprocess_options(protocol), cache_dir=args.cache_dir,
                         limit=args.limit_reviews)
    split = make_split(corpus, protocol=common["protocol"], seed=common["split_seed"],
                       validation_fraction=float(common["validation_fraction"]))
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; cpus: {os.cpu_count()}; "
          f"threads: {args.threads}")
    for d in args.d:
        run = next((r for r in protocol.runs if r.d == d and r.layers == 8 and r.fixed_alpha is None and r.seed == 0),
                   None)
        if run is None:
            parser.error(f"--d {d}: the protocol has no K = 8 run at this d")
        settings = training_settings(protocol, run)
        found = compare_steps(corpus, split, settings, steps=args.steps)
        losses = found["first_loss"]
        print(f"d = {d} ({run.name} settings, {found['steps']} steps each, mean batch width {found['mean_width']:.1f}): "
              f"reference {found['reference_ms']:.1f} ms, compiled {found['compiled_ms']:.1f} ms of CPU per step")
        print(f"  step-time ratio reference / compiled: {found['cpu_ratio']:.2f}x CPU, {found['wall_ratio']:.2f}x wall, "
              f"median per step {found['median_step_ratio']:.2f}x (target >= 2)")
        print(f"  first batch's loss from the same weights: reference {losses['reference']:.9f}, compiled "
              f"{losses['compiled']:.9f} (relative difference "
              f"{abs(losses['compiled'] - losses['reference']) / abs(losses['reference']):.1e})")
    if args.epochs:
        compare_epochs(corpus, split, training_settings(protocol, next(r for r in protocol.runs if r.d == args.d[0])),
                       threads=args.threads)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
