"""D1 (docs/theory.md §3): the convex hull shrinks; each new position is a convex combination of the old ones.

For every layer k from ``first_layer`` to ``last_layer`` - 1 and every token i, the stated
weights are nonnegative, sum to 1, and combine the replay's positions of layer k into its
position of layer k + 1, exactly. The certificate covers what its verdict claims, every
transition of the run: ``first_layer`` is 0, ``last_layer`` the run's, and there is at least one.
"""

# ruff: noqa: B023 - a message passed to require as a lambda is formatted inside require, before the
# loop it is written in moves on: the loop variables it reads are the current ones.

from __future__ import annotations

from fractions import Fraction

from ..common import require
from ..meter import charge, cost
from ..model import Context, _last_layer
from ..numbers import _get, _int, read_number, _q, _show


def check_D1(cert: dict, ctx: Context) -> None:
    m = ctx.model
    first = _int(_get(cert, "first_layer", "certificate"), "first_layer")
    last = _last_layer(cert, ctx)
    require(first == 0, f"first_layer is {first}: the certificate must cover every transition from layer 0 on")
    require(last >= 1, "last_layer is 0: a run of one layer has no transition to certify")
    weights = _get(cert, "weights", "certificate")
    require(isinstance(weights, list) and len(weights) == last - first,
             f"weights: expected {max(last - first, 0)} layers ({first}..{last - 1})")
    for offset, rows in enumerate(weights):
        k = first + offset
        require(isinstance(rows, list) and len(rows) == m.n, lambda: f"weights[{offset}]: expected one entry per token")
        after = m.layer(k + 1)
        layer_rows = m.rows(k)
        for i, pairs in enumerate(rows):
            w = f"weights[{offset}][{i}] (layer {k} -> {k + 1})"
            require(isinstance(pairs, list) and all(isinstance(q, list) and len(q) == 2 for q in pairs),
                     f"{w}: expected [token, weight] pairs")
            charge(cost(2 * len(pairs)))
            lam: dict[int, Fraction] = {}
            for j, v in pairs:
                j = _int(j, w, high=m.n - 1)
                weight = read_number(v, w)
                lam[j] = lam.get(j, Fraction(0)) + weight
                require(weight >= 0, lambda: f"{w}: weight of token {j} is negative")
            require(sum(lam.values()) == 1, lambda: f"{w}: weights sum to {_q(sum(lam.values()))}, not 1")
            combo = layer_rows.combination(lam)
            require(combo == after[i], lambda: f"{w}: sum w z_j = {_show(combo)}, z_{i} at layer {k + 1} is {_show(after[i])}")
