"""The block family's exact forward pass (docs/theory.md §7): known answers, the file, the float filter."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from verify.experiments.classify import oracle
from verify.experiments.classify.network import (Attention, Block, FeedForward, Network, Unit, apply_feedforward, exact,
                                     forward, initial_state, network_from_json, network_to_json, to_fraction)
from verify.core.numbers import InputError


def _q(*values) -> tuple:
    return tuple(exact(v) for v in values)


def _finals(network: Network, sequences: list[list[tuple]]) -> list[list[tuple]]:
    """Engine outputs expanded to one token per position, sorted (the engine keeps distinct values)."""
    tokens: dict[tuple, int] = {}
    ids = [[tokens.setdefault(tuple(F(c) for c in x), len(tokens)) for x in s] for s in sequences]
    state = forward(network, initial_state(list(tokens), ids))
    out = []
    for items in state.sequences:
        out.append(sorted(tuple(to_fraction(c) for c in state.points[p]) for p, count in items for _ in range(count)))
    return out


def _hand_network() -> Network:
    ff = FeedForward((Unit(_q(1, 1), exact(-1), _q(1, 0)), Unit(_q(1, 1), exact(-2), _q(0, -1)),
                      Unit(_q(0, 1), exact(0), _q(1, 1))))
    attention = Attention(exact("1/2"), (_q(1, 0), _q(0, 1)), key=_q(1, 0), query=_q(0, 1))
    return Network(2, (Block(ff, attention),))


def test_known_answer_computed_by_hand() -> None:
    # FF: (1,0) -> (1,0) (no unit active), (0,2) -> (3,4) (units 1 and 3). Attention scores
    # (query.x_i)(key.x_j) = y_i x_j: the copies of (1,0) have y = 0, so they attend to all three
    # positions, mean (5/3, 4/3), and become (1/2)(1,0) + (5/3,4/3) = (13/6, 4/3); (3,4) attends to
    # the largest x, itself, and becomes (9/2, 6).
    sequence = [(1, 0), (0, 2), (1, 0)]
    expected = sorted([(F(13, 6), F(4, 3)), (F(9, 2), F(6)), (F(13, 6), F(4, 3))])
    assert _finals(_hand_network(), [sequence]) == [expected]
    assert sorted(oracle.forward_sequence(network_to_json(_hand_network()), sequence)) == expected


def test_ties_are_averaged_over_positions_copies_included() -> None:
    identity = (_q(1, 0), _q(0, 1))
    network = Network(2, (Block(None, Attention(exact(0), identity, key=_q(1, 0), query=_q(1, 0))),))
    # All three positions have x = 1: every token attends to all of them, the copy counted twice.
    assert _finals(network, [[(1, 0), (1, 0), (1, 5)]]) == [[(F(1), F(5, 3))] * 3]
    # (0,0) has query 0: every score is 0, so it attends to everything.
    assert _finals(network, [[(1, 0), (1, 5), (0, 0)]]) == [sorted([(F(1), F(5, 2))] * 2 + [(F(2, 3), F(5, 3))])]


def test_uniform_attention_and_parameter_count() -> None:
    network = Network(1, (Block(FeedForward((Unit(_q(0), exact(1), _q(3)),)), Attention(exact(1), (_q(2),))),))
    # FF adds 3 (a constant: zero direction, positive bias); uniform attention adds 2 * mean.
    assert _finals(network, [[(0,), (2,)]]) == [[(F(3) + 2 * F(4),), (F(5) + 2 * F(4),)]]
    assert network.parameter_count() == 1 * (2 * 1 + 1) + 1 + 1


def test_network_file_round_trip_and_field_errors() -> None:
    network = _hand_network()
    data = network_to_json(network)
    assert network_from_json(data) == network
    assert data["blocks"][0]["attention"]["B"] == {"key": ["1", "0"], "query": ["0", "1"]}
    broken = network_to_json(network)
    broken["blocks"][0]["attention"]["V"] = [["1", "0"]]
    with pytest.raises(InputError) as caught:
        network_from_json(broken)
    assert caught.value.field == "blocks[0].attention.V"
    broken = network_to_json(network)
    broken["blocks"][0]["feedforward"]["b"] = ["1"]
    with pytest.raises(InputError, match=r"blocks\[0\].feedforward.b"):
        network_from_json(broken)
    with pytest.raises(InputError, match="format"):
        network_from_json({"format": "other"})


def _random_network_json(rng: np.random.Generator, d: int, *, scale: F = F(1)) -> dict:
    """Blocks mixing shared directions, hats, constants and rank-one or uniform attention."""
    def number(low: int = -6, high: int = 6) -> str:
        return str(F(int(rng.integers(low, high + 1)), int(rng.integers(1, 4))))

    directions = [[number() for _ in range(d)] for _ in range(2)] + [["0"] * d]
    blocks = []
    for _ in range(int(rng.integers(2, 7))):
        ff = None
        if rng.integers(0, 4):
            units = []
            for _ in range(int(rng.integers(1, 4))):
                direction = directions[int(rng.integers(0, 3))]
                if rng.integers(0, 3) == 0:   # a hat: three units whose contributions cancel far away
                    centre, half, height = F(number()) * scale, F(int(rng.integers(1, 4)), 2) * scale, F(number())
                    for bias, weight in ((-(centre - half), height), (-centre, -2 * height), (-(centre + half), height)):
                        units.append((direction, str(bias), [str(weight)] + ["0"] * (d - 1)))
                else:
                    units.append((direction, str(F(number()) * scale), [number() for _ in range(d)]))
            ff = {"U": [u for u, _, _ in units], "b": [b for _, b, _ in units],
                  "W": [[w[r] for _, _, w in units] for r in range(d)]}
        attention = None
        if rng.integers(0, 2):
            rho = ["0", "1", "1/2"][int(rng.integers(0, 3))]
            V = [[number(-2, 2) for _ in range(d)] for _ in range(d)]
            B = None if rng.integers(0, 3) == 0 else {"key": [number() for _ in range(d)],
                                                       "query": [number() for _ in range(d)]}
            attention = {"rho": rho, "V": V, "B": B}
        blocks.append({"feedforward": ff, "attention": attention})
    return {"format": "hardmax-verify/classify-network", "version": 1, "d": d, "blocks": blocks}


@pytest.mark.parametrize("scale", [F(1), F(1, 2 ** 600), F(2 ** 600), F(10 ** 400, 3)])
def test_forward_pass_agrees_with_the_oracle_on_random_networks(scale: F) -> None:
    """Sizes far outside float64 (2^-600, 10^400) exercise the filter's refusal paths too."""
    rng = np.random.default_rng(7)
    for case in range(25):
        d = int(rng.integers(1, 4))
        data = _random_network_json(rng, d, scale=scale)
        vocabulary = [tuple(F(int(rng.integers(-6, 7)), int(rng.integers(1, 4))) * scale for _ in range(d))
                      for _ in range(5)]
        sequences = [[vocabulary[int(i)] for i in rng.integers(0, 5, int(rng.integers(1, 7)))] for _ in range(4)]
        expected = [sorted(s) for s in oracle.forward(data, sequences)]
        assert _finals(network_from_json(data), sequences) == expected, (case, data)


def test_the_float_filter_never_skips_a_point_that_changes() -> None:
    """Points at, just inside and just outside a hat's kinks (relative distances down to 2^-70)."""
    v = _q(1, "1/3")
    centre, half = exact("7/5"), exact("1/8")
    height = exact(3)
    hat = FeedForward((Unit(v, -(centre - half), _q(height, 0)), Unit(v, -centre, _q(-2 * height, 0)),
                       Unit(v, -(centre + half), _q(height, 0))))
    points = []
    for edge in (centre - half, centre + half):
        for k in range(40, 72, 2):
            for sign in (-1, 0, 1):
                p = edge + sign * exact(F(1, 2 ** k))
                points.append((p, exact(0)))             # v.x = p exactly
                points.append((p - exact("1/3"), exact(1)))
    state = initial_state(points, [[i] for i in range(len(points))])
    stats: dict = {}
    after = apply_feedforward(state, hat, stats=stats)
    for x, y in zip(state.points, after.points):
        expected = oracle.forward_sequence(network_to_json(Network(2, (Block(hat),))), [[to_fraction(c) for c in x]])[0]
        assert tuple(to_fraction(c) for c in y) == expected
    assert 0 < stats["exact_point_layers"] < len(points), "the filter should skip the far points, not all"
