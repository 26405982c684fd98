"""The paper's worked configurations (docs/theory.md §4, [P1] Figure 2), with fixed seeds and rational coordinates.

d = 2, A = I, alpha = 1/2. The authors set no seed, so the random points of three rows are
drawn here from ``numpy.random.default_rng(seed)`` on the grid of multiples of 1/20 and
kept distinct, nonzero and off the fixed points so that the configurations satisfy the
theorem's hypotheses.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np

from .config import Configuration, parse_configuration

__all__ = ["WORKED_CONFIGURATIONS", "worked_configuration", "WORKED_NAMES"]

GRID = 20  # random coordinates are multiples of 1/GRID


def _uniform_points(rng: np.random.Generator, count: int, low: F, high: F, taken: set) -> list[tuple[F, F]]:
    points: list[tuple[F, F]] = []
    lo, hi = int(low * GRID), int(high * GRID)
    while len(points) < count:
        x, y = (F(int(v), GRID) for v in rng.integers(lo, hi + 1, size=2))
        point = (x, y)
        if point != (0, 0) and point not in taken:
            taken.add(point)
            points.append(point)
    return points


def _emerging_leader() -> list[tuple[F, F]]:
    return [(F(1), F(1, 3)), (F(-1, 12), F(1, 12)), (F(-1), F(-1)), (F(0), F(1, 4)),
            (F(-3, 10), F(-7, 10)), (F(-3, 5), F(-9, 10)), (F(4, 5), F(1, 10)), (F(3, 5), F(3, 20))]


def _triangle(seed: int = 1) -> list[tuple[F, F]]:
    rng = np.random.default_rng(seed)
    fixed = [(F(1), F(1)), (F(1, 2), F(-1, 2)), (F(-1), F(-1))]
    tail = [(F(3, 10), F(-1, 5)), (F(1, 10), F(-1, 5))]
    taken = set(fixed + tail)
    return fixed + _uniform_points(rng, 2, F(0), F(1), taken) + _uniform_points(rng, 2, F(-1), F(0), taken) + tail


def _square(seed: int = 2) -> list[tuple[F, F]]:
    rng = np.random.default_rng(seed)
    corners = [(F(sx), F(sy)) for sx in (1, -1) for sy in (1, -1)]
    return corners + _uniform_points(rng, 6, F(-1, 2), F(1, 2), set(corners))


def _non_leader_clusters(seed: int = 3) -> list[tuple[F, F]]:
    rng = np.random.default_rng(seed)
    corners = [(F(sx), F(sy)) for sx in (1, -1) for sy in (1, -1)]
    ties = [(F(-1, 2), F(0)), (F(1, 2), F(0))]
    # Random points with x in (-1/2, 1/2) keep the ties of (+-1/2, 0) intact forever.
    return corners + ties + _uniform_points(rng, 4, F(-9, 20), F(9, 20), set(corners + ties))


_BUILDERS = {
    "emerging_leader": (_emerging_leader, "Row 1 of [P1] Fig. 2: token 1 is not a leader at layer 0 but becomes one at layer 1."),
    "triangle": (_triangle, "Row 2: three extreme tokens (1,1), (1/2,-1/2), (-1,-1); random interior points (seed 1)."),
    "square": (_square, "Row 3: the square (+-1,+-1) and six interior points (seed 2)."),
    "non_leader_clusters": (_non_leader_clusters, "Row 4: (+-1/2, 0) tie between two corners forever and converge to (+-1, 0), "
                                                 "the A-projections of the origin onto the edges x = +-1 (the T4 case)."),
}
WORKED_NAMES: tuple[str, ...] = tuple(_BUILDERS)


def worked_configuration(name: str) -> Configuration:
    """One worked configuration by name (see :data:`WORKED_NAMES`)."""
    builder, description = _BUILDERS[name]
    tokens = builder()
    return parse_configuration({"name": name, "description": description,
                                "tokens": [[str(x) for x in t] for t in tokens], "alpha": "1/2"})


WORKED_CONFIGURATIONS: dict[str, Configuration] = {name: worked_configuration(name) for name in WORKED_NAMES}
