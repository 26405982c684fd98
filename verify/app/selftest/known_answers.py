"""Configurations with exact answers known without the engine: the suite's known-answer checks.

Every answer here comes from docs/theory.md (§3 facts and examples, §4 worked configurations) or
from the update rule by hand (the arithmetic is in the comments), never from running
:mod:`verify.core.exact_dynamics`; the pinned positions of the emerging-leader row were computed
from the formula and agree with the independent oracle of ``tests/unit/test_exact_dynamics.py``.

Each :class:`KnownAnswer` takes any ``dynamics`` with the signature of
:func:`verify.core.exact_dynamics.exact_layers` and returns the list of disagreements (empty when
the dynamics give the known answer), each naming the layer, the token and both values.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F
from itertools import islice
from typing import Callable, Iterator

from verify.core.config import Configuration, parse_configuration
from verify.core.exact_dynamics import ExactLayer
from verify.core.numbers import rational_to_str
from verify.core.worked import WORKED_CONFIGURATIONS

__all__ = ["KnownAnswer", "KNOWN_ANSWERS", "run_layers"]

Dynamics = Callable[..., Iterator[ExactLayer]]


def run_layers(dynamics: Dynamics, config: Configuration, count: int) -> list[ExactLayer]:
    """Layers 0..count-1 of ``dynamics`` on ``config`` (A passed as None when it is the identity)."""
    A = [list(row) for row in config.A] if config.A is not None else None
    V = [list(row) for row in config.V] if config.V is not None else None
    return list(islice(dynamics(config.tokens, alpha=config.alpha, A=A, V=V), count))


def _point(p: tuple[F, ...]) -> str:
    return "(" + ", ".join(rational_to_str(x) for x in p) + ")"


def _expect_position(layer: ExactLayer, token: int, expected: tuple[F, ...]) -> list[str]:
    got = layer.positions()[token]
    if tuple(got) != tuple(expected):
        return [f"layer {layer.index}, token {token}: position {_point(got)}, expected {_point(expected)}"]
    return []


def _expect_attention(layer: ExactLayer, token: int, expected: set[int]) -> list[str]:
    got = layer.attention_sets()[token]
    if got != frozenset(expected):
        return [f"layer {layer.index}, token {token}: C = {sorted(got)}, expected {sorted(expected)}"]
    return []


def _expect_leaders(layer: ExactLayer, expected: set[int]) -> list[str]:
    got = set(layer.leaders())
    if got != expected:
        return [f"layer {layer.index}: leaders {sorted(got)}, expected {sorted(expected)}"]
    return []


@dataclass(frozen=True)
class KnownAnswer:
    """A configuration, where its answer comes from, and the comparison against any dynamics."""

    name: str
    source: str
    config: Configuration
    compare: Callable[[Dynamics], list[str]]

    def disagreements(self, dynamics: Dynamics) -> list[str]:
        return self.compare(dynamics)


def _config(name: str, tokens: list[list[str]], *, alpha: str = "1/2", A: list[list[str]] | None = None,
            outside: bool = False) -> Configuration:
    data: dict = {"name": name, "tokens": tokens, "alpha": alpha}
    if A is not None:
        data["A"] = A
    return parse_configuration(data, outside_hypotheses=outside)


# -- docs/theory.md §4 row 1: token 1 does not lead at layer 0 and leads from layer 1. -------------
_EMERGING = WORKED_CONFIGURATIONS["emerging_leader"]
# Layer 1 by hand, e.g. token 1 = (-1/12, 1/12): its scores are 1/72 (itself), 1/48 (token 3 =
# (0, 1/4)) and negative for the rest, so C = {3} and z' = (z + m/2) / (3/2) = (-1/18, 5/36).
_EMERGING_LAYER_1 = [(F(1), F(1, 3)), (F(-1, 18), F(5, 36)), (F(-1), F(-1)), (F(1, 3), F(5, 18)),
                     (F(-8, 15), F(-4, 5)), (F(-11, 15), F(-14, 15)), (F(13, 15), F(8, 45)), (F(11, 15), F(19, 90))]


def _emerging(dynamics: Dynamics) -> list[str]:
    layers = run_layers(dynamics, _EMERGING, 2)
    out = _expect_attention(layers[0], 1, {3}) + _expect_leaders(layers[0], {0, 2}) + _expect_leaders(layers[1], {0, 1, 2})
    for i, p in enumerate(_EMERGING_LAYER_1):
        out += _expect_position(layers[1], i, p)
    return out


# -- docs/theory.md §4 row 4: (+-1/2, 0) tie between two corners forever (the T4 case). -------------
_CLUSTERS = WORKED_CONFIGURATIONS["non_leader_clusters"]
_CLUSTER_LAYERS = 12


def _clusters(dynamics: Dynamics) -> list[str]:
    # Token 4 = (-1/2, 0) has C = {2, 3} = {(-1, 1), (-1, -1)}, mean (-1, 0), at every layer, so by
    # the update rule x_k = -1 + (2/3)^k (x_0 + 1) = -(1 - (1/2)(2/3)^k), y_k = 0; token 5 mirrors it.
    out: list[str] = []
    for layer in run_layers(dynamics, _CLUSTERS, _CLUSTER_LAYERS):
        x = 1 - F(1, 2) * F(2, 3) ** layer.index
        out += _expect_attention(layer, 4, {2, 3}) + _expect_attention(layer, 5, {0, 1})
        out += _expect_position(layer, 4, (-x, F(0))) + _expect_position(layer, 5, (x, F(0)))
    return out


# -- docs/theory.md D7: the three-way tie; token 2 is fixed from layer 0 at the mean of all three. ---
_THREE_WAY = _config("three_way_tie", [["1", "0"], ["0", "1"], ["1/2", "1/2"]])


def _three_way(dynamics: Dynamics) -> list[str]:
    out: list[str] = []
    for layer in run_layers(dynamics, _THREE_WAY, 6):
        out += _expect_attention(layer, 2, {0, 1, 2}) + _expect_position(layer, 2, (F(1, 2), F(1, 2)))
        out += _expect_leaders(layer, {0, 1})
    return out


# -- docs/theory.md §3 (end): an exact tie float64 loses at layer 3; exactly it persists. -----------
_FLOAT_TIE = _config("persistent_tie", [["1/8", "1"], ["1/2", "7/8"], ["5/32", "15/32"]])


def _float_tie(dynamics: Dynamics) -> list[str]:
    # Token 2 scores 125/256 against both token 0 and token 1 and 125/512 against itself.
    out: list[str] = []
    for layer in run_layers(dynamics, _FLOAT_TIE, 10):
        out += _expect_attention(layer, 2, {0, 1}) + _expect_leaders(layer, {0, 1})
    return out


# -- docs/theory.md D4 (outside the hypotheses): the origin token is at -1/36 at layer 2. ------------
_ORIGIN = _config("origin_token", [["0"], ["3"], ["-1"], ["-2"]], outside=True)


def _origin(dynamics: Dynamics) -> list[str]:
    # Layer 0: every token ties for token 0 (mean 0), so it stays at 0; token 2 = -1 attends to -2 and
    # moves to (-1 - 1)/(3/2) = -4/3. Layer 1: mean (0 + 3 - 4/3 - 2)/4 = -1/12, so token 0 goes to
    # (0 + (1/2)(-1/12)) / (3/2) = -1/36.
    layers = run_layers(dynamics, _ORIGIN, 3)
    return (_expect_attention(layers[0], 0, {0, 1, 2, 3}) + _expect_position(layers[1], 0, (F(0),))
            + _expect_position(layers[1], 2, (F(-4, 3),)) + _expect_position(layers[2], 0, (F(-1, 36),)))


# -- By hand, A != I: A = diag(1, 4) separates what A = I would tie. ---------------------------
_DIAGONAL_A = _config("diagonal_A", [["1", "0"], ["0", "1"], ["1/2", "1/2"]], A=[["1", "0"], ["0", "4"]])


def _diagonal_A(dynamics: Dynamics) -> list[str]:
    # Token 2 = (1/2, 1/2): <A z_2, z_0> = 1/2, <A z_2, z_1> = 2, <A z_2, z_2> = 5/4, so C = {1}
    # (with A = I all three would tie at 1/2) and z_2' = ((1/2, 1/2) + (0, 1/2)) / (3/2) = (1/3, 2/3).
    layers = run_layers(dynamics, _DIAGONAL_A, 2)
    return (_expect_attention(layers[0], 2, {1}) + _expect_leaders(layers[0], {0, 1})
            + _expect_position(layers[1], 2, (F(1, 3), F(2, 3))))


# -- By hand: a token attending to a non-leader that comes *earlier* in index order. ------------
_CHAIN = _config("chain", [["0", "1/4"], ["1", "1/3"], ["-1/12", "1/12"]])


def _chain(dynamics: Dynamics) -> list[str]:
    # Token 0 = (0, 1/4) scores 1/16 (itself), 1/12 (token 1), 1/48 (token 2): C = {1}, so
    # z_0' = ((0, 1/4) + (1/2, 1/6)) / (3/2) = (1/3, 5/18). Token 2 = (-1/12, 1/12) scores 1/72
    # (itself), 1/48 (token 0), -1/18 (token 1): C = {0}, z_2' = ((-1/12, 1/12) + (0, 1/8)) / (3/2)
    # = (-1/18, 5/36). All tokens move at once (docs/theory.md §1): token 2 must see the *old* token 0.
    layers = run_layers(dynamics, _CHAIN, 2)
    return (_expect_attention(layers[0], 2, {0}) + _expect_leaders(layers[0], {1})
            + _expect_position(layers[1], 0, (F(1, 3), F(5, 18))) + _expect_position(layers[1], 2, (F(-1, 18), F(5, 36)))
            + _expect_leaders(layers[1], {1, 2}))


# -- d = 1 by hand (also pinned in tests/unit/test_exact_dynamics.py). -------------------------
_ONE_D = _config("one_dimensional", [["1"], ["-2"], ["1/2"]])


def _one_d(dynamics: Dynamics) -> list[str]:
    # Token 2 = 1/2 scores 1/2 (token 0), -1 (token 1), 1/4 (itself): C = {0}, z' = (1/2 + 1/2)/(3/2) = 2/3.
    layers = run_layers(dynamics, _ONE_D, 2)
    return (_expect_attention(layers[0], 2, {0}) + _expect_leaders(layers[0], {0, 1})
            + _expect_position(layers[1], 0, (F(1),)) + _expect_position(layers[1], 1, (F(-2),))
            + _expect_position(layers[1], 2, (F(2, 3),)))


KNOWN_ANSWERS: tuple[KnownAnswer, ...] = (
    KnownAnswer("emerging_leader", "docs/theory.md §4 row 1; layer 1 by hand", _EMERGING, _emerging),
    KnownAnswer("non_leader_clusters", "docs/theory.md §4 row 4; closed form by hand", _CLUSTERS, _clusters),
    KnownAnswer("three_way_tie", "docs/theory.md D7 example", _THREE_WAY, _three_way),
    KnownAnswer("persistent_tie", "docs/theory.md §3, the tie float64 loses", _FLOAT_TIE, _float_tie),
    KnownAnswer("origin_token", "docs/theory.md D4 example (outside the hypotheses)", _ORIGIN, _origin),
    KnownAnswer("diagonal_A", "by hand, A = diag(1, 4)", _DIAGONAL_A, _diagonal_A),
    KnownAnswer("chain", "by hand, simultaneous update", _CHAIN, _chain),
    KnownAnswer("one_dimensional", "by hand, d = 1", _ONE_D, _one_d),
)
