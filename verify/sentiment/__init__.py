"""The sentiment experiment of THEORY.md §5: IMDb, the pure-attention hardmax classifier, certified.

Modules
-------
data         loaders for the three IMDb formats (project CSV, Kaggle CSV, ``aclImdb/`` tree) and the splits
preprocess   the paper's cleaning, stopwords and lemmas (offline), vocabulary and encoding (n = 128)
corpus       preprocessing + vocabulary + split, cached on disk
model        the torch model (softmax attention at temperature 1/beta) and its training loop
checkpoints  resumable checkpoints: safetensors + JSON, never pickle
evaluate     certified hardmax evaluation (float batch dynamics + exact fallback)
analyze      leader statistics, leader words, K = 8 vs converged, lexicon polarity, hypotheses

Only :mod:`model` and :mod:`checkpoints` import torch/safetensors, and lazily, so loading,
preprocessing and certified evaluation of a saved model work without torch.
"""

DEFAULT_DATA_PATH = "../shared/data/imdb/imdb_reviews.csv.gz"
DEFAULT_RUNS_DIR = "runs/sentiment"
