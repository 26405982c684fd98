"""Exact sequence classification (docs/theory.md §7): build a hardmax transformer for a dataset, certify it.

Its independent replay, the checker, is verify/certcheck/classify/ (standard library only, no code shared
with the rest).

Modules
-------
dataset       DATA.json (sequences of tokens in Q^d, one label each), its fingerprint, separability
network       the block family in exact arithmetic (feed-forward ReLU layers, hardmax attention with
              rank <= 1 key-query matrix), the network file, and the exact forward pass with a float
              filter whose proven error bound decides where exact work can be skipped
construction  separate, collapse, read out: the wide (3 blocks) and narrow (width <= 4) networks
oracle        a literal per-token forward pass: the tests' oracle and the benchmark's baseline
strategies    seeded dataset families (shared, nested, repeated, equal-mean) and Hypothesis strategies
imdb          IMDb reviews embedded with a d = 2 embedding, through the sentiment package's loaders
experiment    the IMDb demonstration (``classify imdb``)
report_section  the verification report's section: the IMDb results and bench/classify.py's scaling
"""

__all__ = ["IMDB_RESULTS_FORMAT", "SCALING_RESULTS_FORMAT"]

# The saved results the report's section reads: ``classify imdb``'s file and bench/classify.py --json.
IMDB_RESULTS_FORMAT = "hardmax-verify/classify-imdb-v1"
SCALING_RESULTS_FORMAT = "hardmax-verify/classify-scaling-v1"
