"""docs/theory.md §7: "for a separable dataset" the construction (separate, collapse, read out) gives a
hardmax transformer that classifies every sequence exactly, and "sequences whose empirical
distributions coincide get the same output from every transformer of this family, so they cannot
be separated".

Checked on seeded datasets mixing shared tokens, nested sequences, repeated tokens and equal-mean
pairs (lengths 1..200, d 1..4, N up to 40): every build is certified by the independent checker,
in both variants; inseparable datasets are refused with a pair that really is inseparable; a
network with one parameter changed is judged by the checker as the construction's own forward
pass judges it, and a changed read-out weight is always caught. The forward pass's float filter
never skips a point that a layer changes.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify.certcheck import classify as checker
from verify.experiments.classify import oracle
from verify.experiments.classify.construction import build_network
from verify.experiments.classify.dataset import InseparableDataset, dataset_to_json, distribution_key
from verify.experiments.classify.network import (FeedForward, Network, Unit, _CompiledFeedForward, apply_feedforward, exact,
                                     forward, initial_state, network_from_json, to_fraction)
from verify.experiments.classify.strategies import datasets, inseparable_datasets

caps = st.sampled_from([None, 4])


def exact_vector(values) -> tuple:
    return tuple(exact(v) for v in values)


def _check(network: dict, dataset) -> checker.CheckResult:
    return checker.check_objects(json.loads(json.dumps(network)), json.loads(json.dumps(dataset_to_json(dataset))))


@given(datasets(max_n=40, max_d=4, max_length=200), caps, st.integers(0, 2 ** 16))
def test_separable_datasets_are_built_and_certified(dataset, width_cap, seed) -> None:
    result = build_network(dataset, width_cap=width_cap, seed=seed)
    widths = result.network.widths()
    if width_cap is None:
        assert len(widths) <= 3
    else:
        assert max(widths) <= width_cap and len(widths) <= 2 * len(dataset) + 1
    assert [to_fraction(x[0]) for x in result.outputs] == list(dataset.labels)
    outcome = _check(result.to_json(), dataset)
    assert outcome.exit_status == 0, outcome.summary()
    assert outcome.compared_outputs and outcome.mismatches == []


@given(datasets(max_n=10, max_d=3, max_length=10), caps)
def test_outputs_agree_with_the_oracle(dataset, width_cap) -> None:
    network = build_network(dataset, width_cap=width_cap).to_json()
    for n, tokens in enumerate(oracle.forward(network, [dataset.sequence(k) for k in range(len(dataset))])):
        assert {x[0] for x in tokens} == {dataset.labels[n]}


@given(inseparable_datasets())
def test_inseparable_datasets_are_refused(drawn) -> None:
    dataset, source = drawn
    with pytest.raises(InseparableDataset) as caught:
        build_network(dataset)
    first, second = caught.value.pair
    assert distribution_key(dataset.sequences[first]) == distribution_key(dataset.sequences[second])
    assert dataset.labels[first] != dataset.labels[second]
    assert second <= len(dataset) - 1


def _final_inputs(network: Network, dataset) -> list[tuple]:
    """Each sequence's one token before the last block (the read-out's input)."""
    head = Network(network.d, network.blocks[:-1])
    state = forward(head, initial_state(dataset.tokens, dataset.sequences))
    return [state.points[items[0][0]] for items in state.sequences]


@given(datasets(max_n=20, max_d=3, max_length=40), caps, st.data())
def test_a_changed_read_out_weight_is_caught(dataset, width_cap, data) -> None:
    """Changing W[0][k] of a unit active on sequence n's read-out input moves n's output by a nonzero amount."""
    result = build_network(dataset, width_cap=width_cap)
    last = result.network.blocks[-1]
    assert last.attention is None and last.feedforward is not None
    active = []
    for n, x in enumerate(_final_inputs(result.network, dataset)):
        for k, unit in enumerate(last.feedforward.units):
            if sum((a * b for a, b in zip(unit.direction, x)), unit.bias) > 0:
                active.append((n, k))
    assert active, "some read-out unit is active on some sequence"
    n, k = data.draw(st.sampled_from(active))
    change = data.draw(st.sampled_from([Fraction(1), Fraction(-1, 3), Fraction(1, 10 ** 9)]))
    network = result.to_json()
    row = network["blocks"][-1]["feedforward"]["W"][0]
    row[k] = str(Fraction(row[k]) + change)
    outcome = _check(network, dataset)
    assert outcome.exit_status == 1
    assert n in [m for m, _, _ in outcome.misclassified]


def _parameters(network: dict) -> list[tuple[list, int]]:
    """(container, index) of every number in the blocks."""
    found = []
    for block in network["blocks"]:
        for part in block.values():
            if part is None:
                continue
            for value in part.values():
                if value is None:
                    continue
                if isinstance(value, str):
                    found.append((part, "rho"))
                elif isinstance(value, dict):
                    found += [(value[name], i) for name in ("key", "query") for i in range(len(value[name]))]
                elif value and isinstance(value[0], list):
                    found += [(row, i) for row in value for i in range(len(row))]
                else:
                    found += [(value, i) for i in range(len(value))]
    return found


@given(datasets(max_n=15, max_d=3, max_length=30), caps, st.data())
def test_any_changed_parameter_is_judged_as_the_forward_pass_judges_it(dataset, width_cap, data) -> None:
    """The checker and the construction's forward pass are independent exact implementations: on a
    network with any one parameter changed they must give the same final tokens."""
    network = build_network(dataset, width_cap=width_cap).to_json()
    container, index = data.draw(st.sampled_from(_parameters(network)))
    change = data.draw(st.sampled_from([Fraction(1), Fraction(-1, 2), Fraction(1, 10 ** 6)]))
    container[index] = str(Fraction(container[index]) + change)
    outcome = _check(network, dataset)
    state = forward(network_from_json(network), initial_state(dataset.tokens, dataset.sequences))
    engine = [sorted(tuple(to_fraction(c) for c in state.points[p]) for p, count in items for _ in range(count))
              for items in state.sequences]
    replayed = checker.replay(checker.Network(json.loads(json.dumps(network))),
                              checker.Data(json.loads(json.dumps(dataset_to_json(dataset)))))
    assert engine == [sorted(x for x, c in tokens for _ in range(c)) for tokens in replayed]
    wrong = {n for n, tokens in enumerate(engine) if any(x[0] != dataset.labels[n] for x in tokens)}
    assert {n for n, _, _ in outcome.misclassified} == wrong


@given(st.integers(1, 4), st.integers(-450, 450), st.integers(20, 80), st.data())
def test_the_float_filter_never_skips_a_point_the_layer_changes(d, exponent, closeness, data) -> None:
    """The forward pass's float filter (verify/experiments/classify/network.py) may skip a point only where the
    layer provably leaves it unchanged: points of size 2^exponent placed within a relative 2^-closeness
    of a hat's kinks, on both sides, against the layer applied with no filter at all."""
    scale = Fraction(2) ** exponent
    direction = tuple(Fraction(data.draw(st.integers(-5, 5)) or 1, data.draw(st.integers(1, 7))) for _ in range(d))
    centre = Fraction(data.draw(st.integers(-9, 9)), data.draw(st.integers(1, 9))) * scale
    half = Fraction(data.draw(st.integers(1, 9)), 4) * scale
    height = Fraction(data.draw(st.integers(-9, 9)) or 1, 3)
    units = [Unit(exact_vector(direction), exact(-(centre - half)), exact_vector((height,) + (0,) * (d - 1))),
             Unit(exact_vector(direction), exact(-centre), exact_vector((-2 * height,) + (0,) * (d - 1))),
             Unit(exact_vector(direction), exact(-(centre + half)), exact_vector((height,) + (0,) * (d - 1)))]
    layer = FeedForward(tuple(units))
    # A point x with direction . x = target: put the whole target on the first nonzero direction entry.
    axis = next(i for i, c in enumerate(direction) if c)
    points = []
    for kink in (centre - half, centre, centre + half):
        for offset in (-1, 0, 1):
            target = kink + offset * abs(kink or scale) / Fraction(2) ** closeness
            x = [Fraction(0)] * d
            x[axis] = target / direction[axis]
            points.append(tuple(x))
    state = initial_state(points, [[i] for i in range(len(points))])
    filtered = apply_feedforward(state, layer)
    for x, y in zip(state.points, filtered.points):
        assert y == _CompiledFeedForward(layer, d).apply(x), (x, y)
