"""A tiny sentiment protocol for tests: three runs of d = 2 (two studies of phase 1, one alpha study)."""

from __future__ import annotations

from pathlib import Path

TINY_PROTOCOL = """
name = "tiny"
title = "A tiny protocol"

[common]
protocol = "paper"
split_seed = 0
validation_fraction = 0.1
cleaning = "authors"
lemmas = "plural"
stopwords = "nltk"
lowercase = false
epochs = {epochs}
patience = 20
learning_rate = 0.05
batch_size = 16
beta = 1000.0
alpha_init = 1.0
attention_over = "distinct"
bucket_batches = 2
threads = 1

[selection]
epoch = "best validation accuracy"

[[study]]
name = "main"
phase = 1
d = [2]
layers = [1]
seeds = [0]

[[study]]
name = "baseline"
phase = 1
d = [2]
layers = [0, 1]
seeds = [0]

[[study]]
name = "alpha"
phase = 2
d = [2]
layers = [1]
fixed_alpha = [0.5]
seeds = [0]
"""


def write_tiny_protocol(folder: Path, epochs: int = 2) -> Path:
    """The tiny protocol with ``epochs`` epochs per run, written into ``folder``."""
    path = Path(folder) / ("tiny.toml" if epochs == 2 else f"tiny-{epochs}.toml")
    path.write_text(TINY_PROTOCOL.format(epochs=epochs), encoding="utf-8")
    return path
