"""Reviews -> preprocessed, encoded corpus and split, cached on disk (preprocessing 50k reviews takes a while).

The cache key is the sha256 of the source file (or of the folder's file list and contents
for ``aclImdb``) plus the preprocessing options and the review limit, so a changed input is
never served stale. Cache files are written atomically; deleting them is always safe.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from verify.core.io import atomic_write_bytes, json_text, open_input
from verify.core.numbers import InputError
from .data import Reviews, carve_validation, content_sha256, file_sha256, load_reviews, open_bounded, paper_split
from .preprocess import SEQUENCE_LENGTH, PreprocessOptions, Vocabulary, build_vocabulary, encode, tokenize

__all__ = ["Corpus", "Split", "build_corpus", "load_corpus", "make_split", "restrict_vocabulary", "training_word_counts", "PROTOCOLS", "UNK",
           "write_vocabulary", "read_vocabulary", "MAX_VOCABULARY_BYTES", "data_identity_matches"]

PROTOCOLS = ("paper", "official")

# The rare-word token of a restricted vocabulary (restrict_vocabulary). Preprocessing removes
# punctuation, so no review word can be spelled like it (nor like <PAD>).
UNK = "<UNK>"


@dataclass(frozen=True)
class Corpus:
    """All reviews encoded: ``ids[r]`` are review r's n word ids (0 = padding)."""

    ids: np.ndarray          # (N, n) int32
    labels: np.ndarray       # (N,) int8
    lengths: np.ndarray      # (N,) int32 number of words before truncation
    splits: tuple[str, ...] | None
    vocabulary: Vocabulary
    source: str
    source_sha256: str
    options: PreprocessOptions


@dataclass(frozen=True)
class Split:
    """Row indices into a :class:`Corpus` for one protocol."""

    protocol: str
    seed: int
    train: np.ndarray
    validation: np.ndarray
    test: np.ndarray

    def describe(self) -> dict:
        return {"protocol": self.protocol, "seed": self.seed, "train": int(len(self.train)),
                "validation": int(len(self.validation)), "test": int(len(self.test))}


def _source_digest(path: Path) -> str:
    if path.is_file():
        return file_sha256(path)
    digest = hashlib.sha256()
    for entry in sorted(p for p in path.rglob("*.txt") if p.is_file()):
        digest.update(str(entry.relative_to(path)).encode() + b"\0")
        digest.update(bytes.fromhex(file_sha256(entry)))
    return digest.hexdigest()


def write_vocabulary(path: Path, vocabulary: Vocabulary) -> None:
    """One word per line, gzip with mtime 0 so the bytes depend only on the words."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="") as handle:
        handle.write("\n".join(vocabulary.words).encode("utf-8") + b"\n")
    atomic_write_bytes(path, buffer.getvalue())


# A vocabulary of the whole IMDb corpus is about 1 MB uncompressed; this bound refuses a
# decompression bomb before it fills the memory.
MAX_VOCABULARY_BYTES = 64 << 20


def read_vocabulary(path: Path) -> Vocabulary:
    """Read ``vocab.txt.gz``; refused past :data:`MAX_VOCABULARY_BYTES` of decompressed text.

    Opened as every input is (:func:`verify.experiments.imdb.data.open_bounded`): a FIFO or a
    device in its place is an InputError naming it, never waited on.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(str(path), "missing from the checkpoint folder")
    try:
        with open_bounded(path, limit=MAX_VOCABULARY_BYTES, what="the decompressed vocabulary",
                          expected="a vocab.txt.gz (the words, gzip-compressed)") as stream:
            words = stream.read().decode("utf-8").split("\n")
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as error:
        raise InputError(str(path), f"cannot read the vocabulary ({error})") from None
    if words and words[-1] == "":
        words.pop()
    return Vocabulary(tuple(words))


def build_corpus(reviews: Reviews, *, options: PreprocessOptions, length: int = SEQUENCE_LENGTH,
                 source_sha256: str = "", progress: Callable[[int], None] | None = None) -> Corpus:
    documents = []
    for r, text in enumerate(reviews.texts, start=1):
        documents.append(tokenize(text, options))
        if progress is not None and (r % 500 == 0 or r == len(reviews.texts)):
            progress(r)  # reviews done so far: the last call is the total
    vocabulary = build_vocabulary(documents)
    ids = encode(documents, vocabulary, length=length)
    lengths = np.array([len(d) for d in documents], dtype=np.int32)
    return Corpus(ids, reviews.labels, lengths, reviews.splits, vocabulary, reviews.source, source_sha256, options)


def load_corpus(path: Path | str, *, options: PreprocessOptions, cache_dir: Path | None,
                limit: int | None = None, format: str = "auto",
                progress: Callable[[int, int], None] | None = None) -> Corpus:
    """Load and preprocess ``path``, reusing a cache in ``cache_dir`` when the input is unchanged.

    ``limit`` keeps a seeded random sample of that many reviews, in file order.

    ``progress(done, total)`` is called during preprocessing.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(str(path), "no such file or folder (give the IMDb data with --data)")
    digest = _source_digest(path)
    key_fields = {"sha256": digest, "options": options.to_json_dict(), "limit": limit, "format": format,
                  "length": SEQUENCE_LENGTH}
    if limit is not None:
        key_fields["sample"] = "seeded-random-v1"
    key_text = json_text(key_fields, where="the corpus cache key", indent=None, sort_keys=True, newline=False)
    key = hashlib.sha256(key_text.encode()).hexdigest()[:20]
    if cache_dir is not None:
        arrays_path = Path(cache_dir) / f"corpus-{key}.npz"
        vocab_path = Path(cache_dir) / f"corpus-{key}.vocab.gz"
        if arrays_path.exists() and vocab_path.exists():
            try:
                # Our own handle (np.load leaks its file when the zip is unreadable), opened as
                # every input is: a FIFO in the cache is refused, not waited on.
                with open_input(arrays_path, expected="a corpus cache (.npz)") as handle, \
                        np.load(handle, allow_pickle=False) as data:
                    splits = tuple(str(s) for s in data["splits"]) if data["splits"].size else None
                    return Corpus(data["ids"], data["labels"], data["lengths"], splits, read_vocabulary(vocab_path),
                                  str(path), digest, options)
            except (InputError, OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile):
                # A truncated, tampered or replaced cache (object arrays are refused, never
                # unpickled) is derived data: rebuild it from the source below instead of failing.
                pass
    reviews = load_reviews(path, format=format)
    if limit is not None and limit < len(reviews):
        # The project CSV is ordered by split and label: its first rows are all positive, so a
        # limit takes a seeded random sample (in file order) instead of the head of the file.
        rows = np.sort(np.random.default_rng(0).choice(len(reviews), size=limit, replace=False))
        reviews = Reviews(tuple(reviews.texts[r] for r in rows), reviews.labels[rows],
                          None if reviews.splits is None else tuple(reviews.splits[r] for r in rows),
                          reviews.source, reviews.format)
    total = len(reviews)
    corpus = build_corpus(reviews, options=options, source_sha256=digest,
                          progress=None if progress is None else (lambda r: progress(r, total)))
    if cache_dir is not None:
        buffer = io.BytesIO()
        np.savez(buffer, ids=corpus.ids, labels=corpus.labels, lengths=corpus.lengths,
                 splits=np.array(corpus.splits if corpus.splits is not None else [], dtype="U5"))
        write_vocabulary(vocab_path, corpus.vocabulary)
        atomic_write_bytes(arrays_path, buffer.getvalue())
    return corpus


def make_split(corpus: Corpus, *, protocol: str, seed: int = 0, validation_fraction: float = 0.1) -> Split:
    """Train/validation/test rows: ``paper`` (seeded shuffle of all, 70/30) or ``official`` (25k/25k)."""
    if protocol == "paper":
        train, test = paper_split(len(corpus.labels), seed=seed)
    elif protocol == "official":
        if corpus.splits is None:
            raise InputError(corpus.source, "this data has no official split; use --protocol paper")
        splits = np.array(corpus.splits)
        train, test = np.flatnonzero(splits == "train"), np.flatnonzero(splits == "test")
    else:
        raise InputError("protocol", f"expected one of {', '.join(PROTOCOLS)}, got {protocol!r}")
    train, validation = carve_validation(train, fraction=validation_fraction, seed=seed)
    return Split(protocol, seed, train, validation, test)


def training_word_counts(corpus: Corpus, split: Split) -> np.ndarray:
    """Occurrences of each vocabulary id in the training rows' n = 128 encoded tokens.

    What the model trains on: validation and test rows never count. ``restrict_vocabulary``
    keeps words by it, and the analyses call a word with count 0 unseen in training.
    """
    return np.bincount(corpus.ids[split.train].ravel(), minlength=len(corpus.vocabulary.words))


def restrict_vocabulary(corpus: Corpus, split: Split, *, min_count: int) -> Corpus:
    """The corpus re-encoded so that words seen fewer than ``min_count`` times in training are ``<UNK>``.

    Counts are over the training rows' n = 128 encoded tokens (what the model trains on), never
    over validation or test, so a word that occurs only in test reviews, whose embedding would
    keep its random initial value, is read as the trained ``<UNK>`` row instead. New ids:
    ``<PAD>`` = 0, ``<UNK>`` = 1, then the kept words in their previous (frequency) order.
    """
    if min_count < 1:
        raise InputError("min_count", f"expected a positive integer, got {min_count}")
    words = corpus.vocabulary.words
    keep = training_word_counts(corpus, split) >= min_count
    keep[0] = False  # padding keeps id 0 below
    kept = np.flatnonzero(keep)
    new_ids = np.ones(len(words), dtype=np.int32)       # everything else -> <UNK> (1)
    new_ids[0] = 0
    new_ids[kept] = np.arange(2, 2 + len(kept), dtype=np.int32)
    vocabulary = Vocabulary((words[0], UNK, *(words[i] for i in kept)))
    return Corpus(new_ids[corpus.ids], corpus.labels, corpus.lengths, corpus.splits, vocabulary, corpus.source,
                  corpus.source_sha256, corpus.options)


# The project's IMDb file, by the sha256 of its gzip (what the earlier checkpoints record), and
# the sha256 of its uncompressed content (what content_sha256 gives for the same reviews read
# from the official archive, its folder or a re-compressed copy).
KNOWN_CONTENT = {"d0218a133e92ec4a8ff12911b4a7e65fc1b686a3a8091b7a7dbb44727d4e1bdb":
                 "742f4f85c170ca154717ea531c2e938ff16f364da9733f1bd7435498d738a50c"}


def data_identity_matches(recorded: dict, data: Path | str, corpus: Corpus) -> bool:
    """Whether ``data`` holds the reviews a checkpoint recorded (by file sha256 or by content)."""
    wanted = {recorded.get("sha256"), recorded.get("content_sha256")} - {None, ""}
    if not wanted or corpus.source_sha256 in wanted:
        return True
    wanted |= {KNOWN_CONTENT[w] for w in list(wanted) if w in KNOWN_CONTENT}
    return content_sha256(load_reviews(data)) in wanted

