"""The block family of docs/theory.md §7 in exact rational arithmetic, its file format, and its forward pass.

The family
----------
A *feed-forward* layer acts on every token alone: FF(x) = x + W relu(U x + b), with U in Q^{h x d},
b in Q^h, W in Q^{d x h}. Row k of U, entry k of b and column k of W form *unit* k; the unit is
active on x when U_k . x + b_k > 0. A *hardmax attention* layer maps
x_i -> rho x_i + V mean_{j in C_i} x_j with C_i = argmax_j <B x_i, x_j> (ties averaged, over
positions, so copies of a token count as often as they occur), where the key-query matrix has
rank <= 1: B = key query^T, so that <B x_i, x_j> = (query . x_i)(key . x_j); B = 0 (no key and
query) makes every token attend to the whole sequence. A *block* is a feed-forward layer
followed by an attention layer; either may be absent (identity). The output of a sequence is
the list of its final tokens.

The network file
----------------
JSON, every number exact (``"p/q"`` or an integer string)::

    {"format": "hardmax-verify/classify-network", "version": 1, "d": 2,
     "blocks": [{"feedforward": {"U": [[...]], "b": [...], "W": [[...]]} | null,
                 "attention": {"rho": "1", "V": [[...]], "B": {"key": [...], "query": [...]} | null} | null},
                ...],
     ...}

Other top-level fields (what the construction did, the per-sequence outputs) are kept as they are.

The forward pass
----------------
Every sequence is held as its distinct token values with multiplicities, and token values are
stored once in a shared table until an attention layer makes them sequence-specific. A
feed-forward layer groups its units by direction (equal rows of U); within a group the units
are sorted by their kink -b_k, so the sum over the active units is read from prefix sums after
one binary search. All of it is exact (python-flint ``fmpq``).

A float filter skips exact work where it provably changes nothing. For a group with direction v,
the term sum_k W_k relu(v.x + b_k) vanishes when v.x is at or below the smallest kink, and also at
or above the largest when the sums of W_k and of W_k b_k over all units are zero (a "hat"); the
layer is then the identity on x. In float64, with u = 2^-53, x and v rounded to nearest and every
nonzero coordinate of size in [2^-400, 2^400] (so no product underflows or overflows), the computed
p = fl(v.x) satisfies |p - v.x| <= (gamma_d + 2u/(1-u)^2) sum_i |v_i x_i| (Higham, Lemma 3.4; BLAS
summation order and fused multiply-adds only make it smaller), which is below
E = 2 (d + 3) u fl(sum_i |v_i||x_i|). A point is left alone only when its p clears the kink by more
than E plus the kink's own rounding, doubled and padded by (1 + 16u) for the bound's evaluation in
float; otherwise, and for any point or layer outside the size range, the layer is applied exactly.
No float value ever enters a result: the filter only decides where exact arithmetic must run.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterable, Sequence

import numpy as np
from flint import fmpq

from verify.core.float_dynamics import UNIT_ROUNDOFF
from verify.core.numbers import InputError, rational_matrix, rational_to_str, to_rational

__all__ = ["FORMAT", "Unit", "FeedForward", "Attention", "Block", "Network", "State", "Progress",
           "exact", "to_fraction", "point_key", "network_to_json", "network_from_json", "initial_state",
           "apply_feedforward", "apply_attention", "apply_block", "forward"]

FORMAT = "hardmax-verify/classify-network"
VERSION = 1

Vector = tuple  # tuple of fmpq
Progress = Callable[[str, int, int], None]

ZERO = fmpq(0)
ONE = fmpq(1)


def exact(value: Any) -> fmpq:
    """An exact number (anything :func:`verify.core.numbers.to_rational` reads, or an fmpq) as an fmpq."""
    if isinstance(value, fmpq):
        return value
    q = to_rational(value)
    return fmpq(q.numerator, q.denominator)


def to_fraction(value: fmpq) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def _text(value: fmpq) -> str:
    return rational_to_str(to_fraction(value))


def _vector(values: Iterable[Any]) -> Vector:
    return tuple(exact(v) for v in values)


def point_key(x: Vector) -> tuple:
    """A hashable key equal for equal points (python-flint's own fmpq hash goes through Fraction and is slow)."""
    return tuple((int(c.p), int(c.q)) for c in x)


def _dot(u: Vector, x: Vector) -> fmpq:
    total = ZERO
    for a, b in zip(u, x):
        if a:
            total += a * b
    return total


# ----------------------------------------------------------------------------- the family

@dataclass(frozen=True)
class Unit:
    """One ReLU unit: adds ``output * relu(direction . x + bias)`` to x."""

    direction: Vector
    bias: fmpq
    output: Vector


@dataclass(frozen=True)
class FeedForward:
    units: tuple[Unit, ...]

    @property
    def width(self) -> int:
        return len(self.units)


@dataclass(frozen=True)
class Attention:
    """x_i -> rho x_i + V mean_{C_i} x_j; B = key query^T (both None: B = 0, uniform attention)."""

    rho: fmpq
    V: tuple[Vector, ...]
    key: Vector | None = None
    query: Vector | None = None

    def __post_init__(self) -> None:
        if (self.key is None) != (self.query is None):
            raise ValueError("an attention layer has both key and query, or neither (B = 0)")

    @property
    def form(self) -> tuple[Vector, Vector] | None:
        """(key, query) of B = key query^T; None when B = 0."""
        return None if self.key is None or self.query is None else (self.key, self.query)


@dataclass(frozen=True)
class Block:
    feedforward: FeedForward | None = None
    attention: Attention | None = None


@dataclass(frozen=True)
class Network:
    d: int
    blocks: tuple[Block, ...]
    extra: dict = field(default_factory=dict, compare=False)  # other top-level fields of the file

    def parameter_count(self) -> int:
        """Every stored number: U, b, W of each feed-forward layer; rho, V, key and query of each attention."""
        total = 0
        for block in self.blocks:
            if block.feedforward is not None:
                total += block.feedforward.width * (2 * self.d + 1)
            if block.attention is not None:
                total += 1 + self.d * self.d + (2 * self.d if block.attention.key is not None else 0)
        return total

    def widths(self) -> list[int]:
        return [b.feedforward.width if b.feedforward is not None else 0 for b in self.blocks]


# ----------------------------------------------------------------------------- the file

def network_to_json(network: Network) -> dict:
    d = network.d
    blocks = []
    for block in network.blocks:
        entry: dict[str, Any] = {"feedforward": None, "attention": None}
        if block.feedforward is not None:
            units = block.feedforward.units
            entry["feedforward"] = {
                "U": [[_text(c) for c in unit.direction] for unit in units],
                "b": [_text(unit.bias) for unit in units],
                "W": [[_text(unit.output[r]) for unit in units] for r in range(d)],
            }
        if block.attention is not None:
            att = block.attention
            form = att.form
            entry["attention"] = {
                "rho": _text(att.rho),
                "V": [[_text(c) for c in row] for row in att.V],
                "B": None if form is None else {"key": [_text(c) for c in form[0]],
                                                "query": [_text(c) for c in form[1]]},
            }
        blocks.append(entry)
    out = {"format": FORMAT, "version": VERSION, "d": d, "blocks": blocks}
    out.update({k: v for k, v in network.extra.items() if k not in out})
    return out


def network_from_json(obj: Any, *, source: str = "network") -> Network:
    """Parse a network file's content; every problem is an :class:`InputError` naming the field."""
    if not isinstance(obj, dict):
        raise InputError(source, f"expected a JSON object, got {type(obj).__name__}")
    if obj.get("format") != FORMAT:
        raise InputError("format", f"expected {FORMAT!r}, got {obj.get('format')!r}")
    if obj.get("version") != VERSION:
        raise InputError("version", f"expected {VERSION}, got {obj.get('version')!r}")
    d = obj.get("d")
    if not isinstance(d, int) or isinstance(d, bool) or d < 1:
        raise InputError("d", f"expected a positive integer, got {d!r}")
    raw_blocks = obj.get("blocks")
    if not isinstance(raw_blocks, list):
        raise InputError("blocks", "expected a list of blocks")
    blocks = []
    for i, raw in enumerate(raw_blocks):
        where = f"blocks[{i}]"
        if not isinstance(raw, dict) or set(raw) - {"feedforward", "attention"}:
            raise InputError(where, "expected an object with 'feedforward' and 'attention' (each may be null)")
        ff = raw.get("feedforward")
        att = raw.get("attention")
        blocks.append(Block(None if ff is None else _feedforward_from_json(ff, d, f"{where}.feedforward"),
                            None if att is None else _attention_from_json(att, d, f"{where}.attention")))
    extra = {k: v for k, v in obj.items() if k not in ("format", "version", "d", "blocks")}
    return Network(d, tuple(blocks), extra)


def _feedforward_from_json(raw: Any, d: int, where: str) -> FeedForward:
    if not isinstance(raw, dict) or set(raw) != {"U", "b", "W"}:
        raise InputError(where, "expected an object with exactly 'U', 'b' and 'W'")
    U = rational_matrix(raw["U"], field=f"{where}.U", cols=d)
    h = len(U)
    if not isinstance(raw["b"], list) or len(raw["b"]) != h:
        raise InputError(f"{where}.b", f"expected a list of {h} numbers (one per row of U)")
    b = [to_rational(x, field=f"{where}.b[{k}]") for k, x in enumerate(raw["b"])]
    W = rational_matrix(raw["W"], field=f"{where}.W", rows=d, cols=h)
    units = tuple(Unit(_vector(U[k]), exact(b[k]), _vector(W[r][k] for r in range(d))) for k in range(h))
    return FeedForward(units)


def _attention_from_json(raw: Any, d: int, where: str) -> Attention:
    if not isinstance(raw, dict) or set(raw) != {"rho", "V", "B"}:
        raise InputError(where, "expected an object with exactly 'rho', 'V' and 'B'")
    rho = exact(to_rational(raw["rho"], field=f"{where}.rho"))
    V = tuple(_vector(row) for row in rational_matrix(raw["V"], field=f"{where}.V", rows=d, cols=d))
    B = raw["B"]
    if B is None:
        return Attention(rho, V)
    if not isinstance(B, dict) or set(B) != {"key", "query"}:
        raise InputError(f"{where}.B", "expected null (B = 0) or an object with 'key' and 'query' (B = key query^T)")
    key, query = (_vector(rational_matrix([B[name]], field=f"{where}.B.{name}", cols=d)[0]) for name in ("key", "query"))
    return Attention(rho, V, key, query)


# ----------------------------------------------------------------------------- the state

class State:
    """Sequences as (point id, multiplicity) lists over a table of distinct exact points.

    A point may belong to several sequences (before the first attention layer the table is the
    dataset's distinct tokens), which is correct for feed-forward layers: they act on values.
    """

    def __init__(self, points: list[Vector], sequences: list[list[tuple[int, int]]]) -> None:
        self.points = points
        self.sequences = sequences
        self._mirror: tuple[np.ndarray, np.ndarray] | None = None  # (floats, safe), built on first use

    def copy(self) -> "State":
        twin = State(list(self.points), self.sequences)
        if self._mirror is not None:
            floats, safe = self._mirror
            twin._mirror = floats.copy(), safe.copy()
        return twin

    def sequence_points(self, n: int) -> list[tuple[Vector, int]]:
        return [(self.points[p], c) for p, c in self.sequences[n]]

    def mean(self, n: int) -> Vector:
        """The mean of sequence n's tokens (copies counted)."""
        items = self.sequences[n]
        d = len(self.points[items[0][0]])
        total = [ZERO] * d
        count = 0
        for p, c in items:
            x = self.points[p]
            for r in range(d):
                total[r] += c * x[r]
            count += c
        return tuple(t / count for t in total)

    # float mirror for the filter ---------------------------------------------------------
    def float_mirror(self) -> tuple[np.ndarray, np.ndarray]:
        if self._mirror is None:
            d = len(self.points[0]) if self.points else 1
            self._mirror = np.zeros((len(self.points), d)), np.ones(len(self.points), dtype=bool)
            for p, x in enumerate(self.points):
                _set_float(self._mirror, p, x)
        return self._mirror

    def set_point(self, p: int, x: Vector) -> None:
        self.points[p] = x
        if self._mirror is not None:
            _set_float(self._mirror, p, x)


def _set_float(mirror: tuple[np.ndarray, np.ndarray], p: int, x: Vector) -> None:
    """Row p of the float mirror: x rounded, and whether the filter's bound covers it."""
    floats, safe = mirror
    floats[p], safe[p] = _rounded(x)


_SMALLEST = 2.0 ** -400
_LARGEST = 2.0 ** 400


def _rounded(x: Sequence[fmpq]) -> tuple[list[float], bool]:
    """Coordinates rounded to nearest (int / int true division is correctly rounded), and whether
    every nonzero one lies in [2^-400, 2^400], the range the filter's bound assumes."""
    out = []
    safe = True
    for c in x:
        if not c:
            out.append(0.0)
            continue
        try:
            f = int(c.p) / int(c.q)
        except OverflowError:
            out.append(0.0)
            safe = False
            continue
        if not _SMALLEST <= abs(f) <= _LARGEST:
            safe = False
        out.append(f)
    return out, safe


def initial_state(tokens: Sequence[Sequence[Any]], sequences: Sequence[Sequence[int]]) -> State:
    """The state of a dataset: ``tokens`` are its distinct tokens, ``sequences`` index into them."""
    points = [_vector(t) for t in tokens]
    rows = []
    for sequence in sequences:
        counts: dict[int, int] = {}
        for t in sequence:
            counts[t] = counts.get(t, 0) + 1
        rows.append(list(counts.items()))
    return State(points, rows)


# ----------------------------------------------------------------------------- feed-forward

class _Group:
    """Units sharing one direction, sorted by kink, with prefix sums of W_k and W_k b_k."""

    def __init__(self, direction: Vector, units: list[Unit], d: int) -> None:
        units = sorted(units, key=lambda u: -u.bias)
        self.direction = direction
        self.kinks = [-u.bias for u in units]
        self.cum_w = [tuple([ZERO] * d)]
        self.cum_wb = [tuple([ZERO] * d)]
        for u in units:
            self.cum_w.append(tuple(a + w for a, w in zip(self.cum_w[-1], u.output)))
            self.cum_wb.append(tuple(a + w * u.bias for a, w in zip(self.cum_wb[-1], u.output)))
        self.rows = [r for r in range(d) if any(u.output[r] for u in units)]
        self.constant = not any(direction)
        # p = 0 for a zero direction: the units with a negative kink (b > 0) are active, always.
        active = bisect_left(self.kinks, ZERO)
        self.shift = self.cum_wb[active]
        # Where the group's term vanishes: at or below the first kink always; at or above the last
        # when the full sums are zero.
        self.lower = self.kinks[0]
        self.upper = self.kinks[-1] if not any(self.cum_w[-1]) and not any(self.cum_wb[-1]) else None

    def add_to(self, x: Vector, out: list[fmpq]) -> None:
        if self.constant:
            for r in self.rows:
                out[r] += self.shift[r]
            return
        p = _dot(self.direction, x)
        active = bisect_left(self.kinks, p)
        if active:
            cw, cwb = self.cum_w[active], self.cum_wb[active]
            for r in self.rows:
                out[r] += p * cw[r] + cwb[r]


class _CompiledFeedForward:
    def __init__(self, ff: FeedForward, d: int) -> None:
        by_direction: dict[tuple, tuple[Vector, list[Unit]]] = {}
        for unit in ff.units:
            by_direction.setdefault(point_key(unit.direction), (unit.direction, []))[1].append(unit)
        groups = [_Group(direction, units, d) for direction, units in by_direction.values()]
        self.groups = [g for g in groups if g.rows]  # a group with W = 0 does nothing
        self.d = d
        self.filter = _Filter.of(self.groups, d)

    def apply(self, x: Vector) -> Vector:
        out = list(x)
        for g in self.groups:
            g.add_to(x, out)
        return tuple(out)


class _Filter:
    """The float filter of the module docstring for one feed-forward layer (None when it cannot help)."""

    def __init__(self, directions: np.ndarray, lower: np.ndarray, upper: np.ndarray, d: int) -> None:
        self.directions = directions          # (g, d)
        self.lower = lower                    # (g,) rounded smallest kinks
        self.upper = upper                    # (g,) rounded largest kinks, nan when unbounded
        self.relative = 2.0 * (d + 3) * UNIT_ROUNDOFF

    @staticmethod
    def of(groups: list[_Group], d: int) -> "_Filter | None":
        if not groups or any(g.constant for g in groups):
            return None  # a nonzero constant shift changes every point
        rows, lower, upper = [], [], []
        for g in groups:
            direction, safe = _rounded(g.direction)
            low, low_safe = _rounded([g.lower])
            high, high_safe = _rounded([g.upper]) if g.upper is not None else ([np.nan], True)
            if not (safe and low_safe and high_safe):
                return None
            rows.append(direction)
            lower.append(low[0])
            upper.append(high[0])
        return _Filter(np.array(rows, dtype=float), np.array(lower), np.array(upper), d)

    def needs_exact(self, floats: np.ndarray, safe: np.ndarray) -> np.ndarray:
        """True where the layer may change the point (or the bound cannot tell)."""
        u = UNIT_ROUNDOFF
        # Rows outside the safe size range may overflow here; they are never skipped (``& safe``).
        with np.errstate(all="ignore"):
            p = floats @ self.directions.T                       # (P, g)
            size = np.abs(floats) @ np.abs(self.directions).T    # (P, g)
            error = self.relative * size
            below_margin = (self.lower - p) * (1 - 4 * u)
            below = below_margin > (error + 4 * u * np.abs(self.lower)) * (1 + 16 * u)
            above_margin = (p - self.upper) * (1 - 4 * u)
            above = above_margin > (error + 4 * u * np.abs(self.upper)) * (1 + 16 * u)  # nan upper: False
        unchanged = (below | above).all(axis=1) & safe
        return ~unchanged


def apply_feedforward(state: State, ff: FeedForward, *, in_place: bool = False,
                      stats: dict | None = None) -> State:
    """The state after FF(x) = x + W relu(U x + b) on every token (exact; see the float filter above)."""
    target = state if in_place else state.copy()
    if not ff.units:
        return target
    compiled = _CompiledFeedForward(ff, len(target.points[0]) if target.points else 1)
    _feedforward_in_place(target, compiled, stats)
    return target


def _feedforward_in_place(state: State, compiled: _CompiledFeedForward, stats: dict | None) -> None:
    if compiled.filter is not None:
        floats, safe = state.float_mirror()
        candidates: Iterable[int] = np.flatnonzero(compiled.filter.needs_exact(floats, safe)).tolist()
    else:
        candidates = range(len(state.points))
    exact_work = 0
    for p in candidates:
        x = state.points[p]
        y = compiled.apply(x)
        exact_work += 1
        if y != x:
            state.set_point(p, y)
    if stats is not None:
        stats["exact_point_layers"] = stats.get("exact_point_layers", 0) + exact_work
        stats["point_layers"] = stats.get("point_layers", 0) + len(state.points)


# ----------------------------------------------------------------------------- attention

def apply_attention(state: State, attention: Attention) -> State:
    """The state after one hardmax attention layer (a new table: points become sequence-specific)."""
    d = len(attention.V)
    rho = attention.rho
    V = attention.V
    identity_V = all(V[r][c] == (ONE if r == c else ZERO) for r in range(d) for c in range(d))
    scalar_V = V[0][0] if all(V[r][c] == (V[0][0] if r == c else ZERO) for r in range(d) for c in range(d)) else None
    form = attention.form
    uniform = form is None or not any(form[0]) or not any(form[1])
    same = form is not None and form[0] == form[1]

    def value_of(m: Vector) -> Vector:
        if identity_V:
            return m
        if scalar_V is not None:
            return tuple(scalar_V * c for c in m)
        return tuple(_dot(row, m) for row in V)

    points = state.points
    new_points: list[Vector] = []
    new_sequences: list[list[tuple[int, int]]] = []
    for items in state.sequences:
        xs = [points[p] for p, _ in items]
        counts = [c for _, c in items]
        if uniform:
            choices = None
            means = {0: _weighted_mean(xs, counts, None)}
        else:
            assert form is not None  # not uniform
            key, query = form
            keys = [_dot(key, x) for x in xs]
            queries = keys if same else [_dot(query, x) for x in xs]
            top, bottom = max(keys), min(keys)
            choices = [1 if q > 0 else (-1 if q < 0 else 0) for q in queries]
            means = {}
            for choice in set(choices):
                wanted = top if choice == 1 else bottom
                means[choice] = _weighted_mean(xs, counts, None if choice == 0 else
                                               [k == wanted for k in keys])
        values = {choice: value_of(m) for choice, m in means.items()}
        row = []
        if not rho:
            # Every token with the same attention set gets the same value: one point per set.
            merged: dict[int, int] = {}
            for i in range(len(xs)):
                choice = 0 if choices is None else choices[i]
                merged[choice] = merged.get(choice, 0) + counts[i]
            for choice, c in merged.items():
                row.append((len(new_points), c))
                new_points.append(values[choice])
        else:
            for i, x in enumerate(xs):
                vm = values[0 if choices is None else choices[i]]
                if rho == ONE:
                    y = tuple(a + b for a, b in zip(x, vm))
                else:
                    y = tuple(rho * a + b for a, b in zip(x, vm))
                row.append((len(new_points), counts[i]))
                new_points.append(y)
        new_sequences.append(row)
    return State(new_points, new_sequences)


def _weighted_mean(xs: list[Vector], counts: list[int], mask: list[bool] | None) -> Vector:
    d = len(xs[0])
    total = [ZERO] * d
    n = 0
    for i, x in enumerate(xs):
        if mask is None or mask[i]:
            c = counts[i]
            for r in range(d):
                total[r] += c * x[r]
            n += c
    return tuple(t / n for t in total)


# ----------------------------------------------------------------------------- whole network

def apply_block(state: State, block: Block, *, stats: dict | None = None) -> State:
    if block.feedforward is not None:
        state = apply_feedforward(state, block.feedforward, stats=stats)
    if block.attention is not None:
        state = apply_attention(state, block.attention)
    return state


def forward(network: Network, state: State, *, progress: Progress | None = None,
            stats: dict | None = None) -> State:
    """Every block in order. Runs of feed-forward layers work on one copy of the table."""
    blocks = network.blocks
    current = state.copy()
    for i, block in enumerate(blocks):
        if block.feedforward is not None and block.feedforward.units:
            _feedforward_in_place(current, _CompiledFeedForward(block.feedforward, network.d), stats)
        if block.attention is not None:
            current = apply_attention(current, block.attention)
        if progress is not None and (i % 64 == 0 or i == len(blocks) - 1):
            progress("forward pass", i + 1, len(blocks))
    return current
