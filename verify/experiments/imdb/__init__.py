"""The IMDb reviews as sequences of word ids: reading, the paper's preprocessing, the cached corpus and its splits.

Shared by the sentiment experiment (:mod:`verify.experiments.sentiment`) and exact sequence
classification (:mod:`verify.experiments.classify`): the same files, read and cleaned the same
way, so that both study the same data. It imports the core layer only.

Modules
-------
data         loaders for the IMDb formats (official archive, ``aclImdb/`` tree, project or Kaggle CSV), the splits
preprocess   the paper's cleaning, stopwords and lemmas (offline), vocabulary and encoding (n = 128)
corpus       preprocessing + vocabulary + split, cached on disk; the vocabulary files
"""
