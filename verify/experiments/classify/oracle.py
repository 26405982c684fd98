"""A second, minimal forward pass of the block family, written only as an oracle (and a baseline).

docs/theory.md §7, read literally: for every token, FF(x) = x + W relu(U x + b) unit by unit; for every
token i of a sequence, the scores <B x_i, x_j> = (query . x_i)(key . x_j) against every token j
(0 when B is null), C_i the positions with the largest score, x_i -> rho x_i + V mean_{C_i} x_j,
all tokens updated from the same layer. Plain :class:`fractions.Fraction`, no merging of equal
tokens, no sorting, no filter: obvious rather than fast. The network is read from the JSON
content of a network file (exact numbers as "p/q" text).

Deliberately independent: imports nothing from the package (``tests/meta`` enforces it). The
tests compare the construction's forward pass and the checker with it; ``bench/classify.py``
times it as the baseline.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

__all__ = ["forward", "forward_sequence"]

Point = tuple[Fraction, ...]


def _q(text: Any) -> Fraction:
    return Fraction(text)


def forward_sequence(network: dict, tokens: Sequence[Sequence[Any]]) -> list[Point]:
    """The final tokens of one sequence."""
    xs = [tuple(Fraction(c) for c in x) for x in tokens]
    d = len(xs[0])
    for block in network["blocks"]:
        ff = block["feedforward"]
        if ff is not None:
            U = [[_q(c) for c in row] for row in ff["U"]]
            b = [_q(c) for c in ff["b"]]
            W = [[_q(c) for c in row] for row in ff["W"]]
            new = []
            for x in xs:
                out = list(x)
                for k in range(len(U)):
                    z = sum((U[k][c] * x[c] for c in range(d)), Fraction(0)) + b[k]
                    if z > 0:
                        for r in range(d):
                            out[r] += W[r][k] * z
                new.append(tuple(out))
            xs = new
        att = block["attention"]
        if att is not None:
            rho = _q(att["rho"])
            V = [[_q(c) for c in row] for row in att["V"]]
            B = att["B"]
            form = ([_q(c) for c in B["key"]], [_q(c) for c in B["query"]]) if B is not None else None
            new = []
            for x in xs:
                if form is None:
                    scores = [Fraction(0)] * len(xs)
                else:
                    key, query = form
                    qx = sum((query[c] * x[c] for c in range(d)), Fraction(0))
                    scores = [qx * sum((key[c] * y[c] for c in range(d)), Fraction(0)) for y in xs]
                best = max(scores)
                chosen = [y for y, s in zip(xs, scores) if s == best]
                mean = [sum((y[r] for y in chosen), Fraction(0)) / len(chosen) for r in range(d)]
                new.append(tuple(rho * x[r] + sum((V[r][c] * mean[c] for c in range(d)), Fraction(0))
                                 for r in range(d)))
            xs = new
    return xs


def forward(network: dict, sequences: Sequence[Sequence[Sequence[Any]]]) -> list[list[Point]]:
    """The final tokens of every sequence."""
    return [forward_sequence(network, s) for s in sequences]
