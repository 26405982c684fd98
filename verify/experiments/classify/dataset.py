"""Labelled sequence datasets (docs/theory.md §7): DATA.json, the fingerprint, and separability.

DATA.json is ``{"sequences": [[token, ...], ...], "labels": [label, ...]}`` (optionally
``"name"``). A token is a list of d exact numbers (d >= 1, the same d everywhere); when d = 1
a token may also be written as a bare number. Numbers follow :mod:`verify.core.numbers`: integers,
``"p/q"`` strings, decimals read from their text (``"0.1"`` is 1/10). Labels are exact numbers
too; a sequence is classified as its label when every final token has that first coordinate.

Tokens are stored once: ``tokens`` holds the distinct token values and each sequence is a
tuple of indices into it, so a vocabulary shared by many sequences is converted and kept once.

Separability: sequences whose empirical distributions (token multiset divided by length)
coincide, e.g. (a, b) and (a, a, b, b), get the same output from every transformer of the
family, so two of them with different labels make the dataset impossible to classify.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterable, Sequence

from verify.core.formatting import counted
from verify.core.io import read_json
from verify.core.numbers import InputError, rational_to_str, to_rational
from verify.certcheck.classify import MAX_BYTES

__all__ = ["MAX_DATA_BYTES", "Dataset", "InseparableDataset", "load_dataset", "parse_dataset", "dataset_to_json",
           "make_dataset", "subset", "distribution_key", "inseparable_groups", "first_inseparable_pair",
           "require_separable"]

Token = tuple[Fraction, ...]

# The largest DATA.json read: the independent checker's limit (verify.certcheck.classify),
# so that a file one of them reads the other reads too.
MAX_DATA_BYTES = MAX_BYTES


class InseparableDataset(InputError):
    """Two sequences with different labels have equal empirical distributions (exit status 2)."""

    def __init__(self, first: int, second: int, first_label: Fraction, second_label: Fraction) -> None:
        self.pair = (first, second)
        super().__init__(
            f"sequences[{first}], sequences[{second}]",
            f"equal empirical distributions (the same tokens in the same proportions) but labels "
            f"{rational_to_str(first_label)} and {rational_to_str(second_label)}: no transformer of this family "
            f"can tell them apart, so the dataset cannot be classified exactly")


@dataclass(frozen=True)
class Dataset:
    """N labelled sequences over a table of distinct tokens in Q^d."""

    d: int
    tokens: tuple[Token, ...]                 # distinct token values
    sequences: tuple[tuple[int, ...], ...]    # token indices, in order
    labels: tuple[Fraction, ...]
    name: str = ""

    def __len__(self) -> int:
        return len(self.sequences)

    @property
    def total_tokens(self) -> int:
        return sum(len(s) for s in self.sequences)

    def sequence(self, n: int) -> list[Token]:
        return [self.tokens[t] for t in self.sequences[n]]

    def fingerprint(self) -> str:
        """sha256 of the canonical text (see :func:`canonical_lines`): equal datasets, equal fingerprints."""
        digest = hashlib.sha256()
        for line in canonical_lines(self):
            digest.update(line.encode("ascii"))
        return digest.hexdigest()


def canonical_lines(dataset: Dataset) -> Iterable[str]:
    """``"d=<d>\\n"``, then per sequence ``label:x1,x2;y1,y2;...\\n`` with numbers as ``p/q`` or ``p``.

    Written down precisely because the independent checker computes the same text with its own code.
    """
    yield f"d={dataset.d}\n"
    texts = [",".join(rational_to_str(c) for c in token) for token in dataset.tokens]
    for sequence, label in zip(dataset.sequences, dataset.labels):
        yield rational_to_str(label) + ":" + ";".join(texts[t] for t in sequence) + "\n"


def subset(dataset: Dataset, indices: Sequence[int], *, name: str | None = None) -> Dataset:
    """The sequences ``indices`` (in that order) over the same token table."""
    return Dataset(dataset.d, dataset.tokens, tuple(dataset.sequences[n] for n in indices),
                   tuple(dataset.labels[n] for n in indices), dataset.name if name is None else name)


def make_dataset(sequences: Sequence[Sequence[Sequence[Any]]], labels: Sequence[Any], *, name: str = "") -> Dataset:
    """A dataset from Python values (anything :func:`verify.core.numbers.to_rational` reads)."""
    return parse_dataset({"sequences": [list(s) for s in sequences], "labels": list(labels), "name": name})


def load_dataset(path: Path | str) -> Dataset:
    """Read DATA.json; every problem is an :class:`InputError` naming the file or the field.

    Read by :func:`verify.core.io.read_json`: a regular file of at most :data:`MAX_DATA_BYTES`
    (a FIFO or a device is refused without waiting on it), strict JSON, numbers read exactly.
    """
    path = Path(path)
    if not os.path.lexists(path):
        raise InputError(str(path), "no such file")
    data = read_json(path, expected="a DATA.json file", limit=MAX_DATA_BYTES, parse_float=Decimal)
    return parse_dataset(data, name=path.stem)


_KEYS = ("sequences", "labels", "name")


def parse_dataset(obj: Any, *, name: str = "") -> Dataset:
    if not isinstance(obj, dict):
        raise InputError("data", f"expected an object with 'sequences' and 'labels', got {type(obj).__name__}")
    unknown = sorted(set(obj) - set(_KEYS))
    if unknown:
        raise InputError(unknown[0], f"unknown field (expected {', '.join(_KEYS)})")
    for key in ("sequences", "labels"):
        if key not in obj:
            raise InputError(key, "missing")
    raw_sequences, raw_labels = obj["sequences"], obj["labels"]
    if not isinstance(raw_sequences, list) or not raw_sequences:
        raise InputError("sequences", "expected a non-empty list of sequences")
    if not isinstance(raw_labels, list):
        raise InputError("labels", f"expected a list of numbers, got {type(raw_labels).__name__}")
    if len(raw_labels) != len(raw_sequences):
        raise InputError("labels", f"expected one label per sequence ({len(raw_sequences)}), got {len(raw_labels)}")
    title = obj.get("name", name)
    if not isinstance(title, str):
        raise InputError("name", f"expected a string, got {type(title).__name__}")
    labels = tuple(to_rational(x, field=f"labels[{n}]") for n, x in enumerate(raw_labels))

    d: int | None = None
    scalar: bool | None = None
    by_text: dict[Any, int] = {}      # raw JSON token -> index (each distinct text converted once)
    by_value: dict[Token, int] = {}   # exact value -> index ("1/2" and "0.5" are one token)
    tokens: list[Token] = []
    sequences: list[tuple[int, ...]] = []
    for n, raw in enumerate(raw_sequences):
        if not isinstance(raw, list) or not raw:
            raise InputError(f"sequences[{n}]", "expected a non-empty list of tokens")
        indices = []
        for i, token in enumerate(raw):
            field = f"sequences[{n}][{i}]"
            is_scalar = not isinstance(token, list)
            if scalar is None:
                scalar = is_scalar
            elif is_scalar != scalar:
                raise InputError(field, "mixes bare numbers and lists: write every token as a list of numbers")
            key = _text_key(token)
            index = by_text.get(key) if key is not None else None
            if index is None:
                value = _token(token, field)
                if d is None:
                    d = len(value)
                elif len(value) != d:
                    raise InputError(field, f"expected {counted(d, 'number')} (every token has the same dimension), got {len(value)}")
                index = by_value.setdefault(value, len(tokens))
                if index == len(tokens):
                    tokens.append(value)
                if key is not None:
                    by_text[key] = index
            indices.append(index)
        sequences.append(tuple(indices))
    assert d is not None
    return Dataset(d, tuple(tokens), tuple(sequences), labels, title)


def _text_key(token: Any) -> Any:
    # A hashable stand-in for the raw JSON token; None when it cannot be hashed (then it is converted).
    try:
        key = tuple(token) if isinstance(token, list) else (token,)
        hash(key)
        return tuple((type(x), x) for x in key)
    except TypeError:
        return None


def _token(token: Any, field: str) -> Token:
    if isinstance(token, list):
        if not token:
            raise InputError(field, "expected a list of numbers, got an empty list")
        return tuple(to_rational(x, field=f"{field}[{j}]") for j, x in enumerate(token))
    return (to_rational(token, field=field),)


def dataset_to_json(dataset: Dataset) -> dict:
    """DATA.json content with exact numbers as ``"p/q"`` strings (tokens always as lists)."""
    texts = [[rational_to_str(c) for c in token] for token in dataset.tokens]
    out: dict = {"sequences": [[texts[t] for t in s] for s in dataset.sequences],
                 "labels": [rational_to_str(y) for y in dataset.labels]}
    if dataset.name:
        out["name"] = dataset.name
    return out


def distribution_key(sequence: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """The empirical distribution of a sequence of token indices, as a hashable key.

    Two sequences have equal distributions exactly when their count vectors are proportional,
    i.e. equal after dividing each by the gcd of its counts.
    """
    counts = Counter(sequence)
    g = math.gcd(*counts.values())
    return tuple(sorted((t, c // g) for t, c in counts.items()))


def inseparable_groups(dataset: Dataset) -> list[list[int]]:
    """Groups of sequences with one empirical distribution and at least two labels (indices ascending)."""
    groups: dict[tuple, list[int]] = {}
    for n, sequence in enumerate(dataset.sequences):
        groups.setdefault(distribution_key(sequence), []).append(n)
    return [members for members in groups.values()
            if len({dataset.labels[n] for n in members}) > 1]


def first_inseparable_pair(dataset: Dataset) -> tuple[int, int] | None:
    """The inseparable pair with the smallest second index (then first), or None when separable."""
    best = None
    for members in inseparable_groups(dataset):
        first_label = dataset.labels[members[0]]
        second = next(n for n in members if dataset.labels[n] != first_label)
        candidate = (members[0], second)
        if best is None or (candidate[1], candidate[0]) < (best[1], best[0]):
            best = candidate
    return best


def require_separable(dataset: Dataset) -> None:
    """Raise :class:`InseparableDataset` naming a pair when the dataset is not separable."""
    pair = first_inseparable_pair(dataset)
    if pair is not None:
        raise InseparableDataset(pair[0], pair[1], dataset.labels[pair[0]], dataset.labels[pair[1]])
