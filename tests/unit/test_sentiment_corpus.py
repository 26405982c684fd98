"""verify.sentiment.corpus: encoding, the on-disk cache, review limits and the split protocols."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from verify.numbers import InputError
from verify.sentiment.corpus import load_corpus, make_split
from verify.sentiment.preprocess import PreprocessOptions


def _ordered_csv(path, count: int = 200, header=("review", "sentiment", "split")) -> None:
    """Ordered like the project file: all positives first, then negatives; train then test."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for r in range(count):
        label = "positive" if r < count // 2 else "negative"
        row = [f"review {r} great movie" if label == "positive" else f"review {r} awful movie", label]
        writer.writerow(row + (["train" if r % 2 == 0 else "test"] if len(header) == 3 else []))
    path.write_text(buffer.getvalue(), encoding="utf-8")


def test_corpus_cache_returns_the_same_encoding(tmp_path):
    path = tmp_path / "reviews.csv"
    _ordered_csv(path)
    first = load_corpus(path, options=PreprocessOptions(), cache_dir=tmp_path / "cache")
    assert len(list((tmp_path / "cache").iterdir())) == 2
    second = load_corpus(path, options=PreprocessOptions(), cache_dir=tmp_path / "cache")
    assert np.array_equal(first.ids, second.ids) and first.vocabulary.words == second.vocabulary.words
    assert first.ids.shape == (200, 128) and (first.ids[:, 3:] == 0).all()  # 3 words, then padding
    # A changed file is not served from the cache.
    _ordered_csv(path, count=100)
    assert load_corpus(path, options=PreprocessOptions(), cache_dir=tmp_path / "cache").ids.shape == (100, 128)


def test_limit_samples_both_labels_of_an_ordered_file(tmp_path):
    path = tmp_path / "reviews.csv"
    _ordered_csv(path)
    corpus = load_corpus(path, options=PreprocessOptions(), cache_dir=None, limit=40)
    assert len(corpus.labels) == 40 and 0 < corpus.labels.sum() < 40


def test_split_protocols(tmp_path):
    path = tmp_path / "reviews.csv"
    _ordered_csv(path)
    corpus = load_corpus(path, options=PreprocessOptions(), cache_dir=None)
    paper = make_split(corpus, protocol="paper", seed=0, validation_fraction=0.1)
    assert (len(paper.train), len(paper.validation), len(paper.test)) == (126, 14, 60)
    official = make_split(corpus, protocol="official", seed=0, validation_fraction=0.0)
    assert (len(official.train), len(official.test)) == (100, 100) and (official.test % 2 == 1).all()
    kaggle = tmp_path / "kaggle.csv"
    _ordered_csv(kaggle, header=("review", "sentiment"))
    with pytest.raises(InputError, match="no official split"):
        make_split(load_corpus(kaggle, options=PreprocessOptions(), cache_dir=None), protocol="official")
    with pytest.raises(InputError, match="protocol"):
        make_split(corpus, protocol="random")
