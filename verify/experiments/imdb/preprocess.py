"""The paper's text preprocessing (docs/theory.md §5), offline, plus the vocabulary and the encoding.

Two cleanings, chosen by ``PreprocessOptions.cleaning``:

``authors`` (the default: what the authors' preprocessing script does)
    1. delete links (``http://...``, ``https://...``, ``www....``) and HTML tags (``<br />``);
    2. replace every ASCII punctuation character by a space (``don't`` -> ``don t``);
    3. delete digits, then non-ASCII characters;
    4. squash runs of a repeated character to two (``sooooo`` -> ``soo``);
    5. split on whitespace, and split the six words NLTK's word tokenizer splits even without
       punctuation (``cannot`` -> ``can not``, ``gonna`` -> ``gon na``, ``gotta``, ``gimme``,
       ``lemme``, ``wanna``);
    6. drop English stopwords; lemmatise the words written in lowercase (WordNet, which the
       authors used, looks words up as written and lists lowercase lemmas only); drop
       stopwords again (a lemma can be a stopword: ``hes`` -> ``he`` under the other cleaning).

``delete-punctuation`` (the cleaning of the earlier, tuned runs; checkpoints that record no
``cleaning`` were made with it)
    1. remove links; 2. replace HTML tags by a space; 3. remove non-ASCII characters, then
    punctuation (``don't`` -> ``dont``), then digits; 4. squash runs of three or more equal
    characters to two; 5. split on whitespace; drop stopwords once; lemmatise.

What remains different from the authors' preprocessing is the lemmatiser (simplemma, offline,
restricted as below, instead of NLTK's WordNet noun lemmatiser, whose data this package does
not ship); ``hardmax-verify sentiment vocabulary`` measures its effect on the vocabulary.

No lowercasing by default (as in the paper); ``lowercase=True`` lowercases before step 5.
Stopwords are compared case-sensitively unless lowercasing, as the paper's lists were.

Stopword lists. ``nltk`` (the default) is NLTK's 179-word English list, the list the authors
used, shipped here as data (``stopwords_nltk_english.txt``) so nothing is downloaded.
``stop-words`` is the stop-words package's 1,333-word English list; it contains "great",
"good", "best" and "better", the top sentiment words of the paper's leader analysis, so it
is offered as an option, not used by default.

Lemmas. The authors used NLTK's WordNet lemmatizer with its default part of speech (noun),
which in effect only turns plurals into singulars: their top leader words include "worst",
"enjoyed", "found" and "left", unlemmatised. simplemma (offline) lemmatises every part of
speech ("worst" -> "bad", "worse" -> "wrong", "enjoyed" -> "enjoy"), which would erase exactly
the words the paper's analysis is about. So the default ``lemmas="plural"`` applies simplemma's
lemma only to plural-looking words: the word ends in "s" and differs from the lemma only in
its ending ("movies" -> "movie", "stories" -> "story", but "was" stays). ``lemmas="all"``
applies simplemma everywhere, ``"none"`` not at all. simplemma lowercases what it looks up;
when the lemma equals the word up to case the word is kept as written (no lowercasing sneaks
in), and a capitalised word keeps its capital ("Movies" -> "Movie").
"""

from __future__ import annotations

import re
import string
from collections import Counter
from dataclasses import dataclass, fields
from functools import lru_cache
from importlib import resources
from typing import Callable, Iterable, Sequence

import numpy as np

from verify.core.formatting import noun_for
from verify.core.numbers import InputError

__all__ = ["PreprocessOptions", "clean_text", "tokenize", "stopword_list", "Vocabulary",
           "build_vocabulary", "encode", "PAD", "SEQUENCE_LENGTH", "STOPWORD_LISTS", "LEMMA_MODES", "CLEANINGS",
           "LEGACY_PREPROCESS"]

PAD = "<PAD>"
SEQUENCE_LENGTH = 128
STOPWORD_LISTS = ("nltk", "stop-words", "none")
LEMMA_MODES = ("plural", "all", "none")
CLEANINGS = ("authors", "delete-punctuation")
# What a checkpoint recorded before the cleaning was a setting: its absence means the earlier cleaning.
LEGACY_PREPROCESS = {"cleaning": "delete-punctuation"}

_LINK = re.compile(r"https?://\S+|www\.\S+")
_TAG = re.compile(r"<[^>]*>")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_PUNCTUATION = re.compile(r"[^\w\s]|_")
_DIGITS = re.compile(r"\d+")
_REPEATS = re.compile(r"(.)\1{2,}")
# The authors' cleaning: tags deleted (not replaced by a space), ASCII punctuation (Python's
# string.punctuation) replaced by a space, runs of two or more squashed to two (the same result).
_AUTHORS_TAG = re.compile(r"<[^>]+>")
_ASCII_PUNCTUATION = re.compile("[" + re.escape(string.punctuation) + "]")
# Words NLTK's Treebank tokenizer splits although they hold no punctuation (its contraction rules).
_TOKENIZER_SPLITS = {"cannot": (3,), "gimme": (3,), "gonna": (3,), "gotta": (3,), "lemme": (3,), "wanna": (3,)}


@dataclass(frozen=True)
class PreprocessOptions:
    """What :func:`tokenize` does; recorded in every checkpoint so evaluation re-encodes identically."""

    lowercase: bool = False
    stopwords: str = "nltk"
    lemmas: str = "plural"
    cleaning: str = "authors"

    def __post_init__(self) -> None:
        for name in ("stopwords", "lemmas", "cleaning"):
            if not isinstance(getattr(self, name), str):
                raise InputError(name, f"expected a string, got {getattr(self, name)!r}")
        if not isinstance(self.lowercase, bool):
            raise InputError("lowercase", f"expected true or false, got {self.lowercase!r}")
        if self.cleaning not in CLEANINGS:
            raise InputError("cleaning", f"expected one of {', '.join(CLEANINGS)}, got {self.cleaning!r}")
        if self.stopwords not in STOPWORD_LISTS:
            raise InputError("stopwords", f"expected one of {', '.join(STOPWORD_LISTS)}, got {self.stopwords!r}")
        if self.lemmas not in LEMMA_MODES:
            raise InputError("lemmas", f"expected one of {', '.join(LEMMA_MODES)}, got {self.lemmas!r}")

    @classmethod
    def from_record(cls, record: object, *, where: str = "preprocess") -> "PreprocessOptions":
        """The options a checkpoint recorded; missing keys take the values of the runs made before them."""
        if not isinstance(record, dict):
            raise InputError(where, f"expected an object of preprocessing settings, got {type(record).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in record if k not in known)
        if unknown:
            raise InputError(where, f"unknown preprocessing {noun_for(len(unknown), 'setting')} {', '.join(unknown)} "
                                    f"(known: {', '.join(sorted(known))})")
        return cls(**{**LEGACY_PREPROCESS, **record})

    def to_json_dict(self) -> dict:
        return {"lowercase": self.lowercase, "stopwords": self.stopwords, "lemmas": self.lemmas,
                "cleaning": self.cleaning}


@lru_cache(maxsize=None)
def stopword_list(name: str) -> frozenset[str]:
    """The named stopword list (see the module docstring)."""
    if name == "nltk":
        text = resources.files(__package__).joinpath("stopwords_nltk_english.txt").read_text(encoding="utf-8")
        return frozenset(text.split())
    if name == "stop-words":
        from stop_words import get_stop_words
        return frozenset(get_stop_words("en"))
    if name == "none":
        return frozenset()
    raise InputError("stopwords", f"expected one of {', '.join(STOPWORD_LISTS)}, got {name!r}")


def clean_text(text: str, cleaning: str = "authors") -> str:
    """Steps 1-4 of the module docstring for the named cleaning."""
    if cleaning == "authors":
        text = _AUTHORS_TAG.sub("", _LINK.sub("", text))
        text = _ASCII_PUNCTUATION.sub(" ", text)
        text = _NON_ASCII.sub("", _DIGITS.sub("", text))
        return _REPEATS.sub(r"\1\1", text)
    text = _LINK.sub(" ", text)
    text = _TAG.sub(" ", text)
    text = _NON_ASCII.sub("", text)
    text = _PUNCTUATION.sub("", text)
    text = _DIGITS.sub("", text)
    return _REPEATS.sub(r"\1\1", text)


@lru_cache(maxsize=1 << 20)
def _lemma(word: str, mode: str) -> str:
    import simplemma
    lemma = simplemma.lemmatize(word, lang="en")
    if lemma.lower() == word.lower():
        return word
    if mode == "plural" and not (word[-1:] in "sS" and len(lemma) < len(word)
                                 and word[:len(lemma) - 1].lower() == lemma[:-1].lower()):
        return word
    if word[:1].isupper() and lemma[:1].islower():
        return lemma[:1].upper() + lemma[1:]
    return lemma


def tokenize(text: str, options: PreprocessOptions = PreprocessOptions()) -> list[str]:
    """The preprocessed words of one review."""
    text = clean_text(text, options.cleaning)
    if options.lowercase:
        text = text.lower()
    stop = stopword_list(options.stopwords)
    words = text.split()
    if options.cleaning == "authors":
        words = [part for word in words for part in _tokenizer_split(word)]
    words = [w for w in words if w not in stop]
    if options.lemmas != "none" and options.cleaning == "authors":
        # WordNet looks words up as written and lists lowercase lemmas only: a word with a
        # capital letter is never lemmatised by the authors' lemmatiser.
        words = [_lemma(w, options.lemmas) if w.islower() else w for w in words]
        words = [w for w in words if w not in stop]
    elif options.lemmas != "none":
        words = [_lemma(w, options.lemmas) for w in words]
    return words


def _tokenizer_split(word: str) -> tuple[str, ...]:
    cut = _TOKENIZER_SPLITS.get(word.lower())
    if cut is None:
        return (word,)
    return (word[:cut[0]], word[cut[0]:])


@dataclass(frozen=True)
class Vocabulary:
    """Words by id; id 0 is the padding token, then words by decreasing frequency (ties: first seen)."""

    words: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {w: i for i, w in enumerate(self.words)})

    def __len__(self) -> int:
        return len(self.words)

    def id(self, word: str) -> int | None:
        return self._index.get(word)  # type: ignore[attr-defined]


def build_vocabulary(documents: Iterable[Sequence[str]]) -> Vocabulary:
    """Vocabulary of all words of ``documents`` sorted by frequency, padding first (the paper's rule)."""
    counts: Counter[str] = Counter()
    for words in documents:
        counts.update(words)
    # Counter keeps first-seen order and sorted() is stable, so ties go by first occurrence.
    ordered = sorted(counts, key=counts.__getitem__, reverse=True)
    if PAD in counts:
        raise InputError("vocabulary", f"the padding symbol {PAD} occurs as a word")
    return Vocabulary((PAD, *ordered))


def encode(documents: Sequence[Sequence[str]], vocabulary: Vocabulary, *, length: int = SEQUENCE_LENGTH,
           progress: Callable[[int], None] | None = None) -> np.ndarray:
    """(N, length) int32 word ids: truncate to the first ``length`` words, pad with id 0 at the end.

    A word missing from ``vocabulary`` raises InputError: the encoding must be the one the model was trained on.
    """
    ids = np.zeros((len(documents), length), dtype=np.int32)
    for row, words in enumerate(documents):
        kept = words[:length]
        for col, word in enumerate(kept):
            index = vocabulary.id(word)
            if index is None:
                raise InputError("vocabulary", f"review {row}: the word {word!r} is not in the vocabulary")
            ids[row, col] = index
        if progress is not None and row % 1000 == 0:
            progress(row)
    return ids
