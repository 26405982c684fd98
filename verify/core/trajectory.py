"""``simulate``: one entry point for both arithmetics, returning a :class:`Trajectory`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Literal, Sequence, cast

import numpy as np

from .exact_dynamics import ExactLayer, exact_layers, group_tokens
from .float_dynamics import SMALLEST_NORMAL, UNDERFLOW_SLACK, UNIT_ROUNDOFF, MergedBatch, float_layers
from .numbers import InputError, rational_to_str, to_rational
from .text import short_number

__all__ = ["Trajectory", "simulate"]

Arithmetic = Literal["exact", "float"]


@dataclass
class Trajectory:
    """Positions and attention sets at layers 0..layers.

    ``positions[k][i]`` is token i at layer k: a tuple of Fractions (exact) or a row of a
    (n, d) float64 array (float). ``attention[k][i]`` is C_i(Z^k) as a frozenset of token
    indices. ``leaders`` maps each leader (C_i = {i} at some layer <= layers) to the first
    such layer. For float runs, ``undecided[k]`` is the set of tokens whose attention set at
    layer k is not decided by the proven rounding bound (see :mod:`verify.core.float_dynamics`).
    The bound covers a layer only while every earlier layer was decided, so from the layer
    after :attr:`first_undecided_layer` on every token is listed as undecided, and float
    ``leaders`` are only those found up to that layer.
    """

    arithmetic: Arithmetic
    alpha: Fraction
    A: list[list[Fraction]] | None
    layers: int
    positions: list[Any]
    attention: list[list[frozenset[int]]]
    leaders: dict[int, int]
    undecided: list[frozenset[int]] = field(default_factory=list)
    exact_layers: list[ExactLayer] = field(default_factory=list, repr=False)

    @property
    def n(self) -> int:
        return len(self.attention[0])

    @property
    def certified(self) -> bool:
        """Exact runs always; float runs when no attention set was undecided."""
        return self.arithmetic == "exact" or not any(self.undecided)

    @property
    def first_undecided_layer(self) -> int | None:
        """The first layer with an undecided attention set (float runs), None when there is none."""
        return next((k for k, s in enumerate(self.undecided) if s), None)

    def to_json_dict(self) -> dict[str, Any]:
        def position_text(p: Any) -> list[Any]:
            return [rational_to_str(x) for x in p] if self.arithmetic == "exact" else [float(x) for x in p]

        data: dict[str, Any] = {
            "arithmetic": self.arithmetic,
            "alpha": rational_to_str(self.alpha),
            "layers": self.layers,
            "positions": [[position_text(p) for p in layer] for layer in self.positions],
            "attention": [[sorted(c) for c in layer] for layer in self.attention],
            "leaders": [{"token": i, "first_layer": k} for i, k in sorted(self.leaders.items())],
        }
        if self.A is not None:
            data["A"] = [[rational_to_str(x) for x in row] for row in self.A]
        if self.arithmetic == "float":
            data["undecided"] = [sorted(s) for s in self.undecided]
            data["first_undecided_layer"] = self.first_undecided_layer
            data["certified"] = self.certified
        return data


def simulate(tokens: Sequence[Sequence[Any]], *, alpha: Any, A: Sequence[Sequence[Any]] | None = None,
             layers: int, arithmetic: Arithmetic = "exact", V: Sequence[Sequence[Any]] | None = None,
             progress: Callable[[int], None] | None = None) -> Trajectory:
    """Run the hardmax dynamics (docs/theory.md §1) for ``layers`` layers.

    Parameters
    ----------
    tokens
        n tokens in d dimensions: ints, Fractions, "p/q" or decimal strings, floats (exact value).
    alpha
        Step parameter alpha > 0.
    A
        d x d matrix; None means the identity. No hypothesis is checked here (see :mod:`verify.core.config`).
    layers
        Number of layers; positions are returned for layers 0..layers.
    arithmetic
        ``"exact"`` (rational, the reference) or ``"float"`` (float64 with a proven error bound).
    V
        Optional value matrix (model variant of docs/theory.md §6), exact arithmetic only.
    progress
        Called with each layer's index once that layer is computed.
    """
    if isinstance(layers, bool) or not isinstance(layers, (int, np.integer)) or layers < 0:
        raise InputError("layers", f"expected a non-negative integer, got {layers!r}")
    exact_tokens = [[to_rational(x, field=f"tokens[{i}][{c}]") for c, x in enumerate(t)] for i, t in enumerate(tokens)]
    if not exact_tokens or not exact_tokens[0]:
        raise InputError("tokens", "expected at least one token with at least one coordinate")
    a = to_rational(alpha, field="alpha")
    A_exact = None if A is None else [[to_rational(x, field=f"A[{r}][{c}]") for c, x in enumerate(row)]
                                      for r, row in enumerate(A)]
    if arithmetic == "exact":
        return _simulate_exact(exact_tokens, a, A_exact, layers, V, progress)
    if arithmetic == "float":
        if V is not None:
            raise InputError("V", "the value-matrix variant is available in exact arithmetic only")
        return _simulate_float(exact_tokens, a, A_exact, layers, progress)
    raise InputError("arithmetic", f"expected 'exact' or 'float', got {arithmetic!r}")


def _simulate_exact(tokens, alpha, A, layers, V, progress) -> Trajectory:
    recorded: list[ExactLayer] = []
    for layer in exact_layers(tokens, alpha=alpha, A=A, V=V):
        recorded.append(layer)
        if progress is not None:
            progress(layer.index)
        if layer.index == layers:
            break
    leaders: dict[int, int] = {}
    for layer in recorded:
        for i in layer.leaders():
            leaders.setdefault(i, layer.index)
    return Trajectory("exact", alpha, A, layers, [layer.positions() for layer in recorded],
                      [layer.attention_sets() for layer in recorded], leaders, exact_layers=recorded)


def _to_float(x: Fraction, field: str) -> float:
    """The nearest float64 of an exact number, refusing one beyond float64's range."""
    try:
        value = float(x)
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise InputError(field, f"{short_number(x)} does not fit in float64 (largest about 1.8e308); "
                         "use --arithmetic exact")
    return value


def _simulate_float(tokens, alpha, A, layers, progress) -> Trajectory:
    Z0 = np.array([[_to_float(x, f"tokens[{i}][{c}]") for c, x in enumerate(t)] for i, t in enumerate(tokens)],
                  dtype=np.float64)
    n, d = Z0.shape
    alpha_float = _to_float(alpha, "alpha")
    if not alpha_float >= SMALLEST_NORMAL:
        # The update's bound takes fl(alpha) within a relative u of alpha, which needs a normal float.
        raise InputError("alpha", f"{short_number(alpha)} is below float64's normal range (2^-1022); "
                         "use --arithmetic exact")
    groups = group_tokens([tuple(t) for t in tokens])
    representatives = [g[0] for g in groups.members]
    points = Z0[representatives]
    float_collisions = len(np.unique(points, axis=0)) < len(points)
    weights = np.array(groups.weights, dtype=float)
    if A is None:
        A_transposed, matrix_bound = np.eye(d), 1.0
    else:
        A_float = np.array([[_to_float(x, f"A[{r}][{c}]") for c, x in enumerate(row)] for r, row in enumerate(A)])
        largest = max(abs(x) for row in A for x in row)
        # The score bound takes |fl(A) - A| <= 2 u a entrywise, true when a is a normal float.
        if largest and _to_float(largest, "A") < SMALLEST_NORMAL:
            raise InputError("A", "every entry is below float64's normal range (2^-1022); use --arithmetic exact")
        A_transposed = A_float.T.copy()
        # a must bound max |A| from above: one step up from the nearest float does.
        matrix_bound = float(np.nextafter(_to_float(largest, "A"), np.inf)) if largest else SMALLEST_NORMAL
    m = len(points)
    batch = MergedBatch(points[None].copy(), weights[None], np.array([m]), np.array(groups.point_of)[None],
                        A_transposed[None])
    # Rounding each rational to the nearest float64 errs by at most u |x| <= u (1 + 2u) |fl(x)|,
    # plus 2^-1075 where the result is subnormal: a bound per point, from its own size.
    e0 = np.abs(points).max(axis=1) * UNIT_ROUNDOFF * (1 + 2 * UNIT_ROUNDOFF) * (1 + 2 * UNIT_ROUNDOFF) + UNDERFLOW_SLACK
    positions, attention, undecided = [], [], []
    leaders: dict[int, int] = {}
    every_token = frozenset(range(n))
    first_undecided: int | None = None
    for layer in float_layers(batch, alpha=np.array([alpha_float]), initial_error=e0[None, :],
                              matrix_bound=np.array([matrix_bound]), record=True):
        points_now = layer.positions[0]
        positions.append(points_now[list(groups.point_of)].copy())
        masks = cast(np.ndarray, layer.attention)[0]  # recorded: record=True
        point_sets = [np.nonzero(masks[u])[0].tolist() for u in range(m)]
        expanded = [groups.expand(s) for s in point_sets]
        attention.append([expanded[u] for u in groups.point_of])
        if first_undecided is not None:
            # The bound covered the layers before the first undecided one and its decided rows only.
            undecided.append(every_token)
        else:
            flagged = set(np.nonzero(layer.undecided_rows[0])[0].tolist())
            if float_collisions:
                # Distinct rationals that round to one float cannot be told apart at all in float64.
                flagged = set(range(m))
            undecided.append(groups.expand(sorted(flagged)))
            for u, s in enumerate(point_sets):
                if s == [u] and groups.weights[u] == 1 and u not in flagged:
                    leaders.setdefault(groups.members[u][0], layer.index)
            if flagged:
                first_undecided = layer.index
        if progress is not None:
            progress(layer.index)
        if layer.index == layers:
            break
    return Trajectory("float", alpha, A, layers, positions, attention, leaders, undecided)
