"""The work a run is estimated to need, before anything is checked (docs/certcheck.md, Limits).

A run of n tokens in d dimensions through layer L costs about n^2 (d + 2) work units a layer (the
replay's scores, docs/theory.md §1) and n^2 d once (T2..T4 comparing every leader with every
entry), with integers that start as large as the inputs (:func:`input_bits`) and grow each layer
by the bits of the update (:func:`replay_growth`); the rest (the updates and D1's combinations,
sum |C_i| d a layer) is charged by the meter as it runs.
A run above the limit is refused before checking (exit 2); the producer asks
:func:`max_checkable_layer` where to stop, so that the suite never emits a run the checker refuses.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from .limits import DEFAULT_MAX_WORK, MAX_LAYER, SCORE_OVERHEAD, SET_GROWTH_BITS, WORK_BITS
from .meter import gcd_cost
from .numbers import _dot, elimination_work, inverse


def setup_work(d: int, bits: int, *, A: bool = False, V: bool = False) -> float:
    """The work of checking a configuration itself, before any layer, in work units: with a matrix A, one
    elimination of (A + A^T)/2 (positive definite?); with a value matrix V, the inverse of I + V and the
    product (I + V)^{-1} V. Each is done once per configuration, fraction-free in integers of at most d (bits +
    log2 d) bits (Hadamard's bound), and charged to the meter as it runs (:mod:`.numbers`)."""
    work = float(d * d)  # the matrices read and scaled to integers
    if A:
        work += elimination_work(d, bits)
    if V:
        work += elimination_work(d, bits, 2 * d) + elimination_work(d, bits) + gcd_cost(2 * d * d, d * (bits + d.bit_length()))
    return work


def replay_work(n: int, d: int, last_layer: int, bits: int = 0, growth: int = None,  # type: ignore[assignment]
                *, A: bool = False, V: bool = False) -> int:
    """The estimated work of checking a run of n tokens in d dimensions through layers 0..last_layer, in work units.

    Each layer takes n^2 scores of d products (plus a fixed cost per score); the certificates of
    T2..T4 compare every leader with every entry once, at most n^2 products of d at the last layer's
    sizes. The updates and D1's combinations (sum |C_i| d products a layer, n d when the attention
    sets are small) are not estimated: the meter charges them as they run. The integers start at
    ``bits`` (:func:`input_bits`) and grow by about ``growth`` bits a layer (:func:`replay_growth`;
    default: the growth of alpha = 1/2), and a product of two b-bit integers costs (b/WORK_BITS)^1.6
    units once b passes WORK_BITS (Karatsuba). Measured: a few tenths of a microsecond per unit on one
    core (docs/certcheck.md, Limits).
    """
    prefix = _layer_costs(max(bits, 1), replay_growth(Fraction(1, 2)) if growth is None else growth)
    # A matrix A (not the identity) adds A z per token, d^2 products; a value matrix its two products per token.
    per_layer = n * n * (d + SCORE_OVERHEAD) + (n * d * d if A else 0) + (2 * n * d * d if V else 0)
    last = min(last_layer, MAX_LAYER)
    last_sizes = prefix[last] - (prefix[last - 1] if last > 0 else 0)  # the cost factor of layer L's products
    return int(per_layer * prefix[last] + n * n * d * last_sizes + setup_work(d, bits, A=A, V=V))


def replay_growth(alpha: Fraction | None = None, V: Any = None) -> int:
    """Bits the replay's integers grow by per layer: the update's own (z' = (q z + p m)/(p + q) for
    alpha = p/q; the entries of (I + V)^-1 and (I + V)^-1 V for a value matrix) plus
    SET_GROWTH_BITS for the attention sets' sizes (the work meter charges more if they grow faster)."""
    if V is None:
        alpha = Fraction(alpha if alpha is not None else Fraction(1, 2))
        return SET_GROWTH_BITS + (alpha.numerator + alpha.denominator).bit_length()
    d = len(V)
    keep = inverse([[int(r == c) + Fraction(V[r][c]) for c in range(d)] for r in range(d)])
    if keep is None:
        return SET_GROWTH_BITS
    move = [[_dot(row, col) for col in zip(*V)] for row in keep]
    return value_growth(keep, move)


def value_growth(keep: list, move: list) -> int:
    """:func:`replay_growth` of the update z' = keep z + move m of a value matrix, given keep and move."""
    return SET_GROWTH_BITS + input_bits([x for row in keep + move for x in row])


_LAYER_COSTS: dict[tuple[int, int], list[float]] = {}


def _layer_costs(bits: int, growth: int) -> list[float]:
    """prefix[L] = sum over layers k <= L of the cost factor of a product of (bits + k growth)-bit integers."""
    key = (bits, growth)
    if key not in _LAYER_COSTS:
        total, prefix = 0.0, []
        for k in range(MAX_LAYER + 1):
            size = (bits + k * growth) / WORK_BITS
            total += size ** 1.6 if size > 1 else 1.0
            prefix.append(total)
        if len(_LAYER_COSTS) >= 64:
            _LAYER_COSTS.pop(next(iter(_LAYER_COSTS)))
        _LAYER_COSTS[key] = prefix
    return _LAYER_COSTS[key]


def input_bits(numbers: Any) -> int:
    """Bits of the common denominator of exact ``numbers`` plus their largest numerator: the size
    of the integers the replay starts from (stops counting once past 2^20 bits: beyond any limit)."""
    denominator, numerator = 1, 0
    for x in numbers:
        denominator = math.lcm(denominator, x.denominator)
        numerator = max(numerator, abs(x.numerator).bit_length())
        if denominator.bit_length() + numerator > 1 << 20:
            break
    return denominator.bit_length() + numerator


def max_checkable_layer(n: int, d: int, max_work: int = None, bits: int = 0,  # type: ignore[assignment]
                        growth: int = None, *, A: bool = False, V: bool = False) -> int:  # type: ignore[assignment]
    """The largest last layer whose estimated replay stays within ``max_work`` (-1: not even layer 0); ``A``
    and ``V`` (whether the configuration has them) as for :func:`replay_work`."""
    limit = DEFAULT_MAX_WORK if max_work is None else max_work
    options = {"A": A, "V": V}
    if replay_work(n, d, 0, bits, growth, **options) > limit:
        return -1
    low, high = 0, MAX_LAYER
    while low < high:
        mid = (low + high + 1) // 2
        if replay_work(n, d, mid, bits, growth, **options) <= limit:
            low = mid
        else:
            high = mid - 1
    return low
