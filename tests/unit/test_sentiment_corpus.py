"""verify.experiments.imdb.corpus: encoding, the on-disk cache, review limits and the split protocols."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from verify.core.numbers import InputError
from verify.experiments.imdb.corpus import UNK, load_corpus, make_split, restrict_vocabulary
from verify.experiments.imdb.preprocess import PreprocessOptions


def _write_csv(path, rows, header=("review", "sentiment", "split")) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8")


def _ordered_csv(path, count: int = 200, header=("review", "sentiment", "split")) -> None:
    """Ordered like the project file: all positives first, then negatives; train then test."""
    rows = []
    for r in range(count):
        label = "positive" if r < count // 2 else "negative"
        row = [f"review {r} great movie" if label == "positive" else f"review {r} awful movie", label]
        rows.append(row + (["train" if r % 2 == 0 else "test"] if len(header) == 3 else []))
    _write_csv(path, rows, header)


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


def _letters(k: int) -> str:
    return chr(97 + k % 26) + chr(97 + k // 26)


def test_restrict_vocabulary_counts_training_rows_only(tmp_path):
    # Review r: a frequent word, a word of its own (once in the corpus) and a word it shares
    # with review r + 1 (pairs 0-1, 2-3, ...: twice in the corpus, in training or not).
    path = tmp_path / "reviews.csv"
    _write_csv(path, [[f"movie own{_letters(r)} pair{_letters(r // 2)}", "positive" if r % 2 else "negative", "train"]
                      for r in range(200)])
    corpus = load_corpus(path, options=PreprocessOptions(), cache_dir=None)
    split = make_split(corpus, protocol="paper", seed=0, validation_fraction=0.1)
    restricted = restrict_vocabulary(corpus, split, min_count=2)
    words = corpus.vocabulary.words
    assert restricted.vocabulary.words[:2] == ("<PAD>", UNK)
    in_train = set(split.train.tolist())
    kept_pairs = {f"pair{_letters(k)}" for k in range(100) if {2 * k, 2 * k + 1} <= in_train}
    assert 0 < len(kept_pairs) < 100
    # Exactly the words seen at least twice in training rows: the frequent word and the pairs
    # both of whose reviews are in training; every "own" word and the other pairs become <UNK>.
    assert set(restricted.vocabulary.words[2:]) == {"movie"} | kept_pairs
    # Kept words keep their previous (frequency) order.
    assert list(restricted.vocabulary.words[2:]) == [w for w in words[1:] if w in restricted.vocabulary.words]
    for r in range(len(corpus.labels)):
        for old, new in zip(corpus.ids[r], restricted.ids[r]):
            if old == 0:
                assert new == 0
            elif words[old] == "movie" or words[old] in kept_pairs:
                assert restricted.vocabulary.words[new] == words[old]
            else:
                assert new == 1
    with pytest.raises(InputError, match="min_count"):
        restrict_vocabulary(corpus, split, min_count=0)


def test_restrict_vocabulary_maps_words_absent_from_training_to_unk(tmp_path):
    path = tmp_path / "reviews.csv"
    _write_csv(path, [[f"common word{'x' * (r % 3)}", "positive" if r % 2 else "negative", "train"] for r in range(100)]
               + [["common onlyintest", "positive", "test"]])
    corpus = load_corpus(path, options=PreprocessOptions(), cache_dir=None)
    split = make_split(corpus, protocol="official", seed=0, validation_fraction=0.0)
    restricted = restrict_vocabulary(corpus, split, min_count=1)
    assert "onlyintest" in corpus.vocabulary.words and "onlyintest" not in restricted.vocabulary.words
    test_row = restricted.ids[split.test[0]]
    assert [restricted.vocabulary.words[i] for i in test_row[:2]] == ["common", UNK]
