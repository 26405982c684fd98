"""IMDb reviews as classification data: the reading and cleaning the sentiment experiment uses, a d = 2 embedding.

Everything this experiment takes from :mod:`verify.experiments.imdb` goes through this module: the
reviews are read, cleaned, tokenised and encoded to n = 128 word ids (cut, or padded with id 0)
by :func:`verify.experiments.imdb.corpus.load_corpus` with the paper's preprocessing, and split by the
paper's protocol (:func:`verify.experiments.imdb.corpus.make_split`, seeded shuffle, 70% train).

Word ids to embedding rows. The authors' d = 2 file holds the embedding matrix without its word
list; its rows are in the order of the authors' vocabulary, sorted by word frequency over their
own preprocessing of the 50,000 reviews. This project's vocabulary is sorted the same way over
this project's preprocessing, so word id r (frequency rank r; 0 is the padding) is given row r.
That is a stand-in for the authors' embedding of each word, not the same thing (the two
preprocessings differ); words ranked beyond the table (the rarest) all share its last row. For
exact classification only the points matter; the mapping is recorded so that the run can be
repeated.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Callable

import numpy as np

from verify.core.io import open_input
from verify.core.numbers import InputError
from verify.experiments.imdb.corpus import load_corpus, make_split
from verify.experiments.imdb.data import file_sha256
from verify.experiments.imdb.preprocess import SEQUENCE_LENGTH, PreprocessOptions
from .dataset import Dataset

__all__ = ["EmbeddedReviews", "load_embedding", "embedded_reviews", "SEQUENCE_LENGTH", "DEFAULT_CACHE_DIR"]

# The cache of preprocessed corpora in the sentiment experiment's runs folder (runs/sentiment), shared:
# the same data, the same cleaning.
DEFAULT_CACHE_DIR = Path("runs") / "sentiment" / "cache"


@dataclass
class EmbeddedReviews:
    train: Dataset                 # the sampled training reviews, in sample order
    test: Dataset                  # the sampled test reviews
    train_rows: np.ndarray         # their rows in the data file
    test_rows: np.ndarray
    info: dict                     # sources, hashes, mapping counts (for the results file)


def load_embedding(path: Path) -> np.ndarray:
    """The matrix ``E`` (rows = word ids, 2 columns) of an ``.npz`` file."""
    path = Path(path)
    if not path.is_file():
        what = "not a regular file" if path.exists() else "no such file"
        raise InputError(str(path), f"{what} (give the embedding with --reference)")
    try:
        # Opened as every input is: a FIFO put in its place is refused, never waited on.
        with open_input(path, expected="an .npz file with an array E") as handle, \
                np.load(handle, allow_pickle=False) as data:
            E = np.asarray(data["E"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise InputError(str(path), f"not an .npz file with an array 'E' ({error})") from None
    if E.ndim != 2 or E.shape[0] < 2 or not np.isfinite(E).all():
        raise InputError(f"{path}:E", f"expected a finite matrix with one row per word, got shape {E.shape}")
    return E


def embedded_reviews(data: Path, reference: Path, *, train_size: int, test_size: int | None = None,
                     split_seed: int = 0, sample_seed: int = 0, cache_dir: Path | None = None,
                     progress: Callable[[int, int], None] | None = None) -> EmbeddedReviews:
    """Training and test reviews as :class:`Dataset` s of exact d = 2 tokens (see the module docstring).

    ``train_size`` reviews are a seeded sample (``sample_seed``) of the paper split's training part;
    ``test_size`` (default: all) of its test part.
    """
    E = load_embedding(reference)
    corpus = load_corpus(data, options=PreprocessOptions(), cache_dir=cache_dir, progress=progress)
    split = make_split(corpus, protocol="paper", seed=split_seed, validation_fraction=0.0)
    rng = np.random.default_rng(sample_seed)
    if train_size > len(split.train):
        raise InputError("--sizes", f"at most {len(split.train)} training reviews, asked for {train_size}")
    train_rows = np.sort(rng.choice(split.train, size=train_size, replace=False))
    test_rows = split.test if test_size is None or test_size >= len(split.test) else \
        np.sort(rng.choice(split.test, size=test_size, replace=False))
    table = np.minimum(corpus.ids, len(E) - 1)   # ranks beyond the table share its last row
    rows_used = np.unique(table[np.concatenate([train_rows, test_rows])])
    # One exact token per distinct value (float32 values are dyadic rationals, read exactly).
    token_of_row: dict[int, int] = {}
    tokens: list[tuple[Fraction, ...]] = []
    by_value: dict[tuple[Fraction, ...], int] = {}
    for row in rows_used.tolist():
        value = tuple(Fraction(float(x)) for x in E[row])
        token_of_row[row] = by_value.setdefault(value, len(tokens))
        if token_of_row[row] == len(tokens):
            tokens.append(value)
    lookup = np.zeros(int(rows_used.max()) + 1, dtype=np.int64)
    for row, token in token_of_row.items():
        lookup[row] = token

    def dataset(rows: np.ndarray, name: str) -> Dataset:
        sequences = tuple(tuple(lookup[table[r]].tolist()) for r in rows)
        labels = tuple(Fraction(int(corpus.labels[r])) for r in rows)
        return Dataset(E.shape[1], tuple(tokens), sequences, labels, name)

    selected = corpus.ids[np.concatenate([train_rows, test_rows])]
    info = {
        "data": {"file": Path(data).name, "sha256": corpus.source_sha256},
        "reference": {"file": Path(reference).name, "sha256": file_sha256(reference), "rows": int(len(E))},
        "preprocess": PreprocessOptions().to_json_dict(),
        "sequence_length": SEQUENCE_LENGTH,
        "split": {"protocol": "paper", "seed": split_seed, "train": int(len(split.train)),
                  "test": int(len(split.test))},
        "sample_seed": sample_seed,
        "vocabulary": len(corpus.vocabulary),
        "word_to_row": "frequency rank r -> row r of E; ranks beyond the table -> its last row",
        "tokens_beyond_table": int((selected >= len(E)).sum()),
        "tokens": int(selected.size),
        "distinct_rows": int(len(rows_used)),
        "distinct_token_values": len(tokens),
    }
    return EmbeddedReviews(dataset(train_rows, f"imdb-train-{train_size}"), dataset(test_rows, "imdb-test"),
                           train_rows, test_rows, info)
