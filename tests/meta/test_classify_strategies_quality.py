"""The classification strategies reach the hard cases they are built for (docs/theory.md §7).

A derandomised sample of :func:`verify.experiments.classify.strategies.datasets` is measured: datasets whose
different labels share tokens (the separation step is needed), that need separation thresholds
(equal means), that hold nested sequences and repeated tokens, long sequences, d = 1 and d = 4,
and many sequences. Thresholds sit well below the measured shares (recorded next to each) so that they
catch a generator that stopped working, not noise.
"""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings

from verify.experiments.classify.construction import build_network
from verify.experiments.classify.strategies import datasets

SAMPLE = 80


def _sample(strategy, count: int = SAMPLE) -> list:
    found: list = []

    @settings(max_examples=count, derandomize=True, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(example):
        found.append(example)

    collect()
    return found


def _shares_across_labels(dataset) -> bool:
    owner: dict[int, object] = {}
    for sequence, label in zip(dataset.sequences, dataset.labels):
        for t in sequence:
            if owner.setdefault(t, label) != label:
                return True
    return False


def _nested(dataset) -> bool:
    seqs = dataset.sequences
    return any(a != b and len(a) < len(b) and b[:len(a)] == a for a in seqs for b in seqs)


def _share(examples: list, predicate) -> float:
    return sum(1 for e in examples if predicate(e)) / len(examples)


def test_datasets_reach_the_hard_cases() -> None:
    examples = _sample(datasets())
    assert _share(examples, _shares_across_labels) > 0.25                        # measured 0.41
    assert _share(examples, _nested) > 0.4                                        # measured 0.72
    assert _share(examples, lambda e: any(len(set(s)) < len(s) for s in e.sequences)) > 0.5   # measured 0.85
    assert _share(examples, lambda e: max(map(len, e.sequences)) >= 150) > 0.08  # measured 0.17
    assert _share(examples, lambda e: e.d == 1) > 0.15                           # measured 0.37
    assert _share(examples, lambda e: e.d == 4) > 0.1                            # measured 0.24
    assert _share(examples, lambda e: len(e) >= 20) > 0.3                        # measured 0.61


def test_datasets_need_separation_thresholds() -> None:
    examples = _sample(datasets(max_n=40, max_length=30), count=40)
    needing = [build_network(e).record["thresholds"] for e in examples]
    assert sum(1 for t in needing if t >= 1) / len(needing) > 0.08                # measured 0.17
    assert max(needing) >= 2
