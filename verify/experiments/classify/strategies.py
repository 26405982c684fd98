"""Labelled sequence datasets for property tests and benchmarks: seeded families, Hypothesis strategies.

The families are what makes classification hard, mixed in one dataset:

* ``shared``: random sequences over a small common vocabulary (different labels share tokens);
* ``nested``: a prefix of an earlier sequence, or an earlier sequence with tokens appended;
* ``repeated``: an earlier sequence with every token repeated (the same distribution: it gets the
  same label, so the dataset stays separable);
* ``equal_mean``: a pair (a, b) and (a, m, m, b) with m the midpoint, equal means and shared
  tokens, which one attention layer cannot tell apart (the separation thresholds are needed).

Hypothesis draws the sizes and a seed (shrinking towards fewer, shorter sequences and seed 0);
:func:`generate_dataset` builds the dataset from them deterministically. Labels are then made
consistent on equal distributions, so every drawn dataset is separable unless asked otherwise.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import numpy as np
from hypothesis import strategies as st

from .dataset import Dataset, distribution_key

__all__ = ["FAMILIES", "generate_dataset", "make_inseparable", "datasets", "inseparable_datasets"]

FAMILIES = ("shared", "nested", "repeated", "equal_mean")


def generate_dataset(*, n: int, d: int, max_length: int, seed: int, labels: int = 2, vocabulary: int | None = None,
                     families: Sequence[str] = FAMILIES, min_length: int = 1) -> Dataset:
    """A separable dataset of ``n`` sequences in Q^d (lengths ``min_length..max_length``), seeded."""
    rng = np.random.default_rng(seed)
    size = vocabulary if vocabulary is not None else int(rng.integers(1, max(2, min(n, 12)) + 1))
    tokens: list[tuple[Fraction, ...]] = []
    index: dict[tuple[Fraction, ...], int] = {}

    def token_id(value: tuple[Fraction, ...]) -> int:
        if value not in index:
            index[value] = len(tokens)
            tokens.append(value)
        return index[value]

    while len(tokens) < size:
        token_id(tuple(Fraction(int(p), int(q)) for p, q in zip(rng.integers(-20, 21, d), rng.integers(1, 7, d))))
    vocabulary_ids = list(range(len(tokens)))

    def random_sequence(length: int) -> list[int]:
        return [vocabulary_ids[int(i)] for i in rng.integers(0, len(vocabulary_ids), length)]

    sequences: list[list[int]] = []
    while len(sequences) < n:
        family = families[int(rng.integers(0, len(families)))]
        length = int(rng.integers(min_length, max_length + 1))
        if family == "nested" and sequences:
            base = sequences[int(rng.integers(0, len(sequences)))]
            if rng.integers(0, 2) and len(base) > 1:
                sequences.append(base[:int(rng.integers(1, len(base)))])
            else:
                extra = max(1, min(length, max_length - len(base)))
                sequences.append((base + random_sequence(extra))[:max_length])
        elif family == "repeated" and sequences:
            base = sequences[int(rng.integers(0, len(sequences)))]
            times = max(1, min(int(rng.integers(2, 4)), max_length // len(base)))
            repeated = [t for t in base for _ in range(times)]
            rng.shuffle(repeated)
            sequences.append(list(repeated))
        elif family == "equal_mean" and n - len(sequences) >= 2 and max_length >= 4 and min_length <= 2:
            a, b = (tokens[int(i)] for i in rng.integers(0, len(tokens), 2))
            if a == b:
                continue
            middle = token_id(tuple((x + y) / 2 for x, y in zip(a, b)))
            sequences.append([index[a], index[b]])
            sequences.append([index[a], middle, middle, index[b]])
        else:
            sequences.append(random_sequence(length))
    values = [Fraction(int(y)) for y in rng.integers(0, labels, n)]
    # Equal distributions get the label of the first of them: the dataset is separable.
    first_label: dict[tuple, Fraction] = {}
    for k, sequence in enumerate(sequences):
        values[k] = first_label.setdefault(distribution_key(sequence), values[k])
    return Dataset(d, tuple(tokens), tuple(tuple(s) for s in sequences), tuple(values),
                   f"generated-n{n}-d{d}-seed{seed}")


def make_inseparable(dataset: Dataset, *, seed: int) -> tuple[Dataset, int]:
    """``dataset`` plus one sequence with the distribution of an existing one (its tokens repeated
    and shuffled) and a different label; returns the new dataset and the copied sequence's index."""
    rng = np.random.default_rng(seed)
    source = int(rng.integers(0, len(dataset)))
    times = int(rng.integers(1, 4))
    copy = [t for t in dataset.sequences[source] for _ in range(times)]
    rng.shuffle(copy)
    label = dataset.labels[source] + 1
    return Dataset(dataset.d, dataset.tokens, dataset.sequences + (tuple(copy),), dataset.labels + (label,),
                   dataset.name + "-inseparable"), source


@st.composite
def datasets(draw, *, max_n: int = 40, max_d: int = 4, max_length: int = 200, labels: int = 3) -> Dataset:
    """Separable datasets of the four families (docs/theory.md §7), sizes and seed drawn by Hypothesis."""
    # Small and large sizes both on purpose: Hypothesis favours small integers, and the hard cases
    # (many sequences sharing tokens, long sequences) need large ones often enough.
    n = draw(st.one_of(st.integers(1, min(max_n, 8)), st.integers(min(max_n, 20), max_n)))
    d = draw(st.integers(1, max_d))
    longest = draw(st.one_of(st.integers(1, min(max_length, 12)), st.integers(min(max_length, 100), max_length)))
    classes = draw(st.sampled_from(sorted(range(1, labels + 1), key=lambda c: (c == 1, c))))  # 2, 3, ..., then 1
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return generate_dataset(n=n, d=d, max_length=longest, seed=seed, labels=classes)


@st.composite
def inseparable_datasets(draw, *, max_n: int = 40, max_d: int = 4, max_length: int = 60) -> tuple[Dataset, int]:
    """(dataset, index of a sequence whose distribution is repeated with another label at the end)."""
    dataset = draw(datasets(max_n=max_n, max_d=max_d, max_length=max_length))
    return make_inseparable(dataset, seed=draw(st.integers(0, 2 ** 32 - 1)))
