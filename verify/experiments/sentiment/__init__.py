"""The sentiment experiment of docs/theory.md §5: IMDb, the pure-attention hardmax classifier, certified.

The reviews themselves (reading, the paper's preprocessing, the cached corpus and its splits)
are :mod:`verify.experiments.imdb`, which exact classification shares.

Modules
-------
sources      where the data and the authors' model come from (--data, environment, ``sentiment fetch``)
model        the torch model (softmax attention at temperature 1/beta) and its training loop
checkpoints  resumable checkpoints: safetensors + JSON, never pickle; the corpus a checkpoint was trained on
steps        one run as the commands and the protocol runner do it: train, evaluate the test reviews once
evaluate     certified hardmax evaluation (float batch dynamics + exact fallback)
analyze      leader statistics, leader words, K = 8 vs converged, lexicon polarity, hypotheses
interpret    group leaders (certified), deletion test, matched polarity, leader vote, clustering measures
protocol     preregistered run protocols (protocols/*.toml): the queue, resumable, one run at a time
summary      the protocol's results as data: mean ± sd tables, the conclusion sentence, figures

Only :mod:`model` and :mod:`checkpoints` import torch/safetensors, and lazily, so loading,
preprocessing and certified evaluation of a saved model work without torch.
"""

# docs/theory.md §5: the authors' reported best test accuracies (softmax model, epoch chosen on the
# test set), the like-for-like target of the reproduction.
AUTHORS_SOFTMAX_TEST_ACCURACY = {2: 0.7914, 4: 0.8228, 8: 0.8505, 16: 0.8821}

DEFAULT_RUNS_DIR = "runs/sentiment"
