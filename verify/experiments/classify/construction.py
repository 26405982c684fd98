"""docs/theory.md §7's construction: separate, collapse, read out, every parameter rational.

For a separable dataset of N labelled sequences in Q^d (see :mod:`.dataset`):

1. *Separate.* Needed only when two sequences with different labels share a token. Classes of
   sequences with equal mean that hold such a pair are refined by thresholds t on a projection
   w.x (w injective on the current tokens): the feature mean_n relu(w.x - t), at a midpoint between
   consecutive projected tokens of the pair where the pair's features differ (one always exists,
   docs/theory.md §7). The feed-forward layer x -> x + e_1 sum_k a_k relu(w.x - t_k) with
   |w_1| sum |a_k| < 1 is injective; the a_k are redrawn until sequences in different refined
   classes get different means. Then uniform attention x_i -> x_i + eps mean_n x, with eps
   redrawn until no two sequences with different labels share a token. Under a width cap H the
   thresholds come at most H per block, each block's recomputed on the current tokens.
2. *Collapse.* A constant shift c (1, ..., 1) makes u.x > 0 for every token (u > 0 chosen so that
   each sequence's largest u.x is attained by a single token value) and puts every collapsed
   point's first coordinate above every label; attention with B = u u^T, rho = 0, V = I sends each
   token to its sequence's top token.
3. *Read out.* v (v_1 > 0) injective on the collapsed points. Wide: one layer
   x -> x + e_1 g(v.x), g piecewise linear through (s_k, y_k - (L^k)_1), one ReLU per breakpoint and
   a constant. Under a width cap: one "hat" of three units per collapsed point in increasing v.x,
   half-width half the distance to the nearest other current value, so each point is moved once,
   downwards, below every point still to be processed.

Every genericity condition is decided exactly and redrawn from ``numpy.random.default_rng(seed)``
when it fails; the redraws are recorded. The network is run through the exact forward pass at
the end and never returned unless every sequence comes out with its label.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from typing import Callable

import numpy as np
from flint import fmpq

from verify.core.exitcodes import CouldNotComplete
from verify.core.formatting import counted
from verify.core.numbers import InputError, rational_to_str
from .dataset import Dataset, require_separable
from .network import (ONE, ZERO, Attention, Block, FeedForward, Network, Progress, State, Unit, Vector, _dot,
                      apply_attention, apply_feedforward, exact, forward, initial_state, network_to_json, point_key,
                      to_fraction)

__all__ = ["ConstructionError", "BuildResult", "build_network", "MAX_DRAWS", "NARROW_WIDTH"]

MAX_DRAWS = 200        # per genericity condition; a generic draw fails with probability ~0
NARROW_WIDTH = 4       # docs/theory.md §7's narrow variant
MINIMUM_WIDTH = 3      # a read-out hat has three units


class ConstructionError(CouldNotComplete):
    """The construction could not finish (no generic draw found, or an internal check failed)."""


@dataclass
class BuildResult:
    network: Network
    outputs: list[Vector]      # per sequence: its one final token (first coordinate = label)
    record: dict               # what the construction did (file field "construction"; no timings)
    seconds: dict              # wall-clock time per phase and in total (not in the file: it must be
                               # the same bytes for the same data and seed)

    def to_json(self) -> dict:
        """The network file: the blocks, what the construction did, and per sequence its output token
        (what the independent checker compares with its own replay)."""
        data = network_to_json(self.network)
        data["construction"] = self.record
        data["classification"] = {"dataset_fingerprint": self.record["dataset_fingerprint"],
                                  "outputs": [[_show(c) for c in x] for x in self.outputs]}
        return data


def build_network(dataset: Dataset, *, width_cap: int | None = None, seed: int = 0,
                  progress: Progress | None = None) -> BuildResult:
    """Build and certify (by the exact forward pass) a network classifying ``dataset``.

    Raises :class:`~verify.experiments.classify.dataset.InseparableDataset` when no network can, InputError for a
    width cap below 3, :class:`ConstructionError` when it cannot complete.
    """
    if width_cap is not None and width_cap < MINIMUM_WIDTH:
        raise InputError("width_cap", f"expected at least {MINIMUM_WIDTH} (a read-out hat has three units), "
                                      f"got {width_cap}")
    started = time.perf_counter()
    report = progress or (lambda *args: None)
    report("separability", 0, 1)
    require_separable(dataset)
    report("separability", 1, 1)
    builder = _Builder(dataset, width_cap=width_cap, seed=seed, progress=report)
    result = builder.run()
    result.seconds["total"] = round(time.perf_counter() - started, 3)
    return result


class _Builder:
    def __init__(self, dataset: Dataset, *, width_cap: int | None, seed: int, progress: Progress) -> None:
        self.dataset = dataset
        self.d = dataset.d
        self.N = len(dataset)
        self.width_cap = width_cap
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.labels = [exact(y) for y in dataset.labels]
        self.progress = progress
        self.redraws: Counter[str] = Counter()
        self.stats: dict = {}
        self.timings: dict[str, float] = {}

    # ------------------------------------------------------------------ driver
    def run(self) -> BuildResult:
        state = initial_state(self.dataset.tokens, self.dataset.sequences)
        clock = time.perf_counter()
        separate_blocks, state, thresholds, separation = self.separate(state)
        self.timings["separate"] = time.perf_counter() - clock
        clock = time.perf_counter()
        collapse_block, state, collapse = self.collapse(state)
        self.timings["collapse"] = time.perf_counter() - clock
        clock = time.perf_counter()
        read_blocks, state, read_out = self.read_out(state)
        self.timings["read out"] = time.perf_counter() - clock
        blocks = tuple(separate_blocks + [collapse_block] + read_blocks)
        network = Network(self.d, blocks)
        outputs = self.verify(state)
        record = {
            "variant": "wide" if self.width_cap is None else "narrow",
            "width_cap": self.width_cap,
            "seed": self.seed,
            "sequences": self.N,
            "tokens": self.dataset.total_tokens,
            "dataset_fingerprint": self.dataset.fingerprint(),
            "blocks": {"separate": len(separate_blocks), "collapse": 1, "read_out": len(read_blocks),
                       "total": len(blocks)},
            "parameters": network.parameter_count(),
            "max_width": max(network.widths(), default=0),
            "thresholds": thresholds,
            "separation": separation,
            "collapse": collapse,
            "read_out": read_out,
            "redraws": dict(sorted(self.redraws.items())),
            "exact_point_layers": self.stats.get("exact_point_layers", 0),
            "point_layers": self.stats.get("point_layers", 0),
            "certified_by": "exact forward pass of this construction; replay independently with "
                            "'hardmax-verify classify check'",
        }
        return BuildResult(network, outputs, record, {k: round(v, 3) for k, v in self.timings.items()})

    # ------------------------------------------------------------------ step 1
    def separate(self, state: State) -> tuple[list[Block], State, int, dict]:
        self.progress("separate", 0, 1)
        if self._label_conflict(state) is None:
            self.progress("separate", 1, 1)
            return [], state, 0, {"needed": False}
        feedforwards: list[FeedForward] = []
        directions = []
        total = 0
        means = [state.mean(n) for n in range(self.N)]
        groups = self._bad_groups(state, range(self.N), key=lambda n: point_key(means[n]))
        while groups:
            w = self._injective_direction(state.points, "separation direction w")
            profiles = _Profiles(state, w)
            thresholds: list[fmpq] = []
            pending = list(groups)
            # Each threshold splits the class of one bad pair, and every other class it happens to
            # split (so at most N - 1 in all, usually far fewer).
            while pending and (self.width_cap is None or len(thresholds) < self.width_cap):
                first, second = self._first_bad_pair(state, pending[0])
                t = profiles.separating_threshold(first, second)
                if t is None:
                    raise ConstructionError(f"no separating threshold for sequences {first} and {second}, which have "
                                            f"different distributions (an internal error)")
                thresholds.append(t)
                pending = [part for members in pending
                           for part in self._bad_groups(state, members,
                                                        key=lambda n: _number_key(profiles.feature(n, t)))]
                self.progress("separate", total + len(thresholds), total + len(thresholds) + len(pending))
            ff, state, means, groups = self._separation_layer(state, means, w, thresholds, profiles)
            feedforwards.append(ff)
            directions.append([_show(c) for c in w])
            total += len(thresholds)
        attention, state, eps = self._separation_attention(state)
        blocks = [Block(ff) for ff in feedforwards]
        if blocks:
            blocks[-1] = Block(blocks[-1].feedforward, attention)
        else:
            blocks = [Block(None, attention)]
        self.progress("separate", 1, 1)
        return blocks, state, total, {"needed": True, "directions": directions, "epsilon": _show(eps),
                                      "threshold_blocks": len(feedforwards)}

    def _separation_layer(self, state: State, means: list[Vector], w: Vector, thresholds: list[fmpq],
                          profiles: "_Profiles") -> tuple[FeedForward, State, list[Vector], list[list[int]]]:
        """x -> x + e_1 sum_k a_k relu(w.x - t_k), with the a_k redrawn until every pair that is still
        bad after the layer (equal new means, different labels, a shared token) was already inseparable
        by the layer's features: a pair the thresholds split stays split (docs/theory.md §7, generic a_k)."""
        weight = abs(w[0])
        for _attempt in range(MAX_DRAWS):
            signs = self.rng.integers(0, 2, size=len(thresholds))
            numerators = [int(x) * (1 if s else -1) for x, s in zip(self.rng.integers(1, 1000, size=len(thresholds)), signs)]
            # |w_1| sum |a_k| < 1/2: the layer is injective, so tokens shared before are shared after and
            # no others (docs/theory.md §7).
            scale = (2 * int(weight.p) * sum(abs(r) for r in numerators)) // int(weight.q) + 1 if weight else 1
            a = [fmpq(r, scale) for r in numerators]
            assert weight * sum(abs(x) for x in a) < 1
            ff = FeedForward(tuple(Unit(w, -t, tuple(ak if r == 0 else ZERO for r in range(self.d)))
                                   for ak, t in zip(a, thresholds)))
            after = apply_feedforward(state, ff, stats=self.stats)
            new_means = [after.mean(n) for n in range(self.N)]
            groups = self._bad_groups(after, range(self.N), key=lambda n: point_key(new_means[n]))
            if all(self._features_agree(after, members, means, profiles, thresholds) for members in groups):
                return ff, after, new_means, groups
            self.redraws["separation coefficients a"] += 1
        raise ConstructionError(f"no generic separation coefficients in {MAX_DRAWS} draws")

    def _features_agree(self, state: State, members: list[int], means: list[Vector], profiles: "_Profiles",
                        thresholds: list[fmpq]) -> bool:
        """No two members with different labels share a token while their refined keys (old mean,
        features) differ."""
        keys = {n: (point_key(means[n]), tuple(_number_key(profiles.feature(n, t)) for t in thresholds))
                for n in members}
        seen: dict[tuple, list[tuple]] = {}
        for n in members:
            for p, _ in state.sequences[n]:
                entries = seen.setdefault(point_key(state.points[p]), [])
                mine = (self.labels[n], keys[n])
                if any(label != mine[0] and key != mine[1] for label, key in entries):
                    return False
                if mine not in entries:
                    entries.append(mine)
        return True

    def _separation_attention(self, state: State) -> tuple[Attention, State, fmpq]:
        identity = [[ONE if r == c else ZERO for c in range(self.d)] for r in range(self.d)]
        for _attempt in range(MAX_DRAWS):
            eps = fmpq(1, int(self.rng.integers(2, 1000)))
            attention = Attention(ONE, tuple(tuple(eps * x for x in row) for row in identity))
            after = apply_attention(state, attention)
            if self._label_conflict(after) is None:
                return attention, after, eps
            self.redraws["separation step eps"] += 1
        raise ConstructionError(f"no eps separating the labels' tokens in {MAX_DRAWS} draws")

    # ------------------------------------------------------------------ step 2
    def collapse(self, state: State) -> tuple[Block, State, dict]:
        self.progress("collapse", 0, 1)
        for attempt in range(MAX_DRAWS):
            u = self._positive_direction(attempt)
            tops = self._unique_tops(state, u)
            if tops is not None:
                break
            self.redraws["collapse direction u"] += 1
        else:
            raise ConstructionError(f"no collapse direction with a single top token per sequence in {MAX_DRAWS} draws")
        lowest = min(_dot(u, x) for x in state.points)
        needed = max(-lowest / sum(u), max(self.labels) - min(state.points[p][0] for p in tops))
        shift = fmpq(int(needed.floor()) + 1)
        ff = FeedForward((Unit(tuple([ZERO] * self.d), ONE, tuple([shift] * self.d)),))
        identity = tuple(tuple(ONE if r == c else ZERO for c in range(self.d)) for r in range(self.d))
        attention = Attention(ZERO, identity, u, u)
        state = apply_attention(apply_feedforward(state, ff, stats=self.stats), attention)
        if any(len(items) != 1 for items in state.sequences):
            raise ConstructionError("a sequence did not collapse to one point (an internal error)")
        self.progress("collapse", 1, 1)
        return Block(ff, attention), state, {"direction": [_show(c) for c in u], "shift": _show(shift)}

    def _unique_tops(self, state: State, u: Vector) -> list[int] | None:
        tops = []
        for items in state.sequences:
            best = None
            best_point = -1
            ties = False
            for p, _ in items:
                score = _dot(u, state.points[p])
                if best is None or score > best:
                    best, best_point, ties = score, p, False
                elif score == best and state.points[p] != state.points[best_point]:
                    ties = True
            if ties:
                return None
            tops.append(best_point)
        return tops

    # ------------------------------------------------------------------ step 3
    def read_out(self, state: State) -> tuple[list[Block], State, dict]:
        self.progress("read out", 0, 1)
        label_of: dict[tuple, fmpq] = {}
        point_of: dict[tuple, Vector] = {}
        for n, items in enumerate(state.sequences):
            point = state.points[items[0][0]]
            key = point_key(point)
            point_of.setdefault(key, point)
            if label_of.setdefault(key, self.labels[n]) != self.labels[n]:
                raise ConstructionError(f"sequence {n} collapsed onto a point of another label (an internal error)")
        points = list(point_of.values())
        point_labels = list(label_of.values())
        for attempt in range(MAX_DRAWS):
            v = self._readout_direction(attempt)
            values = [_dot(v, x) for x in points]
            if _all_distinct(values):
                break
            self.redraws["read-out direction v"] += 1
        else:
            raise ConstructionError(f"no read-out direction injective on the collapsed points in {MAX_DRAWS} draws")
        order = sorted(range(len(points)), key=values.__getitem__)
        s = [values[k] for k in order]
        deltas = [point_labels[k] - points[k][0] for k in order]
        e1 = lambda c: tuple(c if r == 0 else ZERO for r in range(self.d))  # noqa: E731
        K = len(points)
        if self.width_cap is None or K <= self.width_cap:
            units = []
            if deltas[0]:
                units.append(Unit(tuple([ZERO] * self.d), ONE, e1(deltas[0])))
            previous_slope = ZERO
            for k in range(K - 1):
                slope = (deltas[k + 1] - deltas[k]) / (s[k + 1] - s[k])
                if slope != previous_slope:
                    units.append(Unit(v, -s[k], e1(slope - previous_slope)))
                previous_slope = slope
            blocks = [Block(FeedForward(tuple(units)))] if units else []
            layout = "one piecewise-linear layer"
        else:
            hats_per_block = self.width_cap // 3
            blocks = []
            moved_top: fmpq | None = None   # largest v.x among points moved by earlier blocks
            for start in range(0, K, hats_per_block):
                chunk = range(start, min(start + hats_per_block, K))
                units = []
                landed_top = moved_top
                for k in chunk:
                    # The nearest other current values: the next point up, and below either the
                    # previous hat of this block (not moved yet) or the highest moved point.
                    gaps = []
                    if k + 1 < K:
                        gaps.append(s[k + 1] - s[k])
                    if k > start:
                        gaps.append(s[k] - s[k - 1])
                    elif moved_top is not None:
                        gaps.append(s[k] - moved_top)
                    half = min(gaps) / 2 if gaps else ONE
                    height = deltas[k] / half
                    units += [Unit(v, -(s[k] - half), e1(height)), Unit(v, -s[k], e1(-2 * height)),
                              Unit(v, -(s[k] + half), e1(height))]
                    landed = s[k] + v[0] * deltas[k]
                    landed_top = landed if landed_top is None or landed > landed_top else landed_top
                blocks.append(Block(FeedForward(tuple(units))))
                moved_top = landed_top
            layout = f"{counted(len(blocks), 'block')} of at most {counted(hats_per_block, 'hat')} of three units"
        network = Network(self.d, tuple(blocks))
        state = forward(network, state, stats=self.stats,
                        progress=lambda _, done, total: self.progress("read out", done, total))
        self.progress("read out", 1, 1)
        return blocks, state, {"direction": [_show(c) for c in v], "collapsed_points": K, "layout": layout}

    # ------------------------------------------------------------------ checks
    def verify(self, state: State) -> list[Vector]:
        outputs = []
        for n, items in enumerate(state.sequences):
            points = [state.points[p] for p, _ in items]
            if any(x != points[0] for x in points) or points[0][0] != self.labels[n]:
                raise ConstructionError(f"sequence {n} is not classified as its label by the built network "
                                        f"(an internal error; nothing was written)")
            outputs.append(points[0])
        self.progress("verify", 1, 1)
        return outputs

    def _label_conflict(self, state: State) -> tuple[int, int] | None:
        """Two sequences with different labels that share a token value, or None."""
        owner: dict[tuple, int] = {}
        for n, items in enumerate(state.sequences):
            for p, _ in items:
                first = owner.setdefault(point_key(state.points[p]), n)
                if self.labels[first] != self.labels[n]:
                    return first, n
        return None

    def _bad_groups(self, state: State, members, *, key: Callable) -> list[list[int]]:
        """``members`` grouped by ``key``; the groups holding two labels that share a token value."""
        groups: dict = {}
        for n in members:
            groups.setdefault(key(n), []).append(n)
        return [g for g in groups.values()
                if len({self.labels[n] for n in g}) > 1 and self._bad_pair(state, g) is not None]

    def _first_bad_pair(self, state: State, members: list[int]) -> tuple[int, int]:
        pair = self._bad_pair(state, members)
        if pair is None:
            raise ConstructionError("a bad class lost its bad pair (an internal error)")
        return pair

    def _bad_pair(self, state: State, members: list[int]) -> tuple[int, int] | None:
        """Two members with different labels sharing a token value (None: there is none)."""
        owner: dict[tuple, int] = {}
        for n in members:
            for p, _ in state.sequences[n]:
                first = owner.setdefault(point_key(state.points[p]), n)
                if self.labels[first] != self.labels[n]:
                    return first, n
        return None

    # ------------------------------------------------------------------ draws
    def _injective_direction(self, points: list[Vector], name: str) -> Vector:
        distinct = list({point_key(x): x for x in points}.values())
        w: Vector
        for attempt in range(MAX_DRAWS):
            if self.d == 1:
                w = (ONE,)
            else:
                bound = _bound(attempt)
                w = tuple(fmpq(int(x)) for x in self.rng.integers(-bound, bound + 1, size=self.d))
                if not any(w):
                    self.redraws[name] += 1
                    continue
            if _all_distinct([_dot(w, x) for x in distinct]):
                return w
            self.redraws[name] += 1
        raise ConstructionError(f"no {name} injective on the tokens in {MAX_DRAWS} draws")

    def _positive_direction(self, attempt: int) -> Vector:
        if self.d == 1:
            return (ONE,)
        return tuple(fmpq(int(x)) for x in self.rng.integers(1, _bound(attempt) + 1, size=self.d))

    def _readout_direction(self, attempt: int) -> Vector:
        if self.d == 1:
            return (ONE,)
        bound = _bound(attempt)
        first = int(self.rng.integers(1, bound + 1))     # v_1 > 0: a processed point moves down
        rest = self.rng.integers(-bound, bound + 1, size=self.d - 1)
        return (fmpq(first),) + tuple(fmpq(int(x)) for x in rest)


class _Profiles:
    """Per sequence: its tokens' projections w.x sorted, with suffix sums, for the features
    mean relu(w.x - t) = (sum_{p > t} c p - t sum_{p > t} c) / length, computed exactly."""

    def __init__(self, state: State, w: Vector) -> None:
        self.state = state
        self.w = w
        self._cache: dict[int, tuple[list[fmpq], list[fmpq], list[int], int]] = {}
        self._projection: dict[int, fmpq] = {}

    def _profile(self, n: int):
        cached = self._cache.get(n)
        if cached is None:
            pairs = []
            for p, c in self.state.sequences[n]:
                value = self._projection.get(p)
                if value is None:
                    value = self._projection[p] = _dot(self.w, self.state.points[p])
                pairs.append((value, c))
            pairs.sort()
            values = [x for x, _ in pairs]
            weighted = [ZERO] * (len(pairs) + 1)
            counts = [0] * (len(pairs) + 1)
            for i in range(len(pairs) - 1, -1, -1):
                weighted[i] = weighted[i + 1] + pairs[i][1] * pairs[i][0]
                counts[i] = counts[i + 1] + pairs[i][1]
            cached = self._cache[n] = (values, weighted, counts, counts[0])
        return cached

    def feature(self, n: int, t: fmpq) -> fmpq:
        values, weighted, counts, length = self._profile(n)
        i = bisect_right(values, t)
        return (weighted[i] - t * counts[i]) / length

    def separating_threshold(self, first: int, second: int) -> fmpq | None:
        merged = sorted(self._profile(first)[0] + self._profile(second)[0])
        kinks = [x for i, x in enumerate(merged) if i == 0 or x != merged[i - 1]]
        for left, right in zip(kinks, kinks[1:]):
            t = (left + right) / 2
            if self.feature(first, t) != self.feature(second, t):
                return t
        return None


def _bound(attempt: int) -> int:
    """Entries of a drawn direction lie in [-bound, bound]: small first (readable networks), then
    growing fourfold per failed draw, since a random integer direction is orthogonal to a given
    difference of two points with probability about 1/bound and there may be millions of pairs."""
    return 3 * 4 ** min(attempt, 25)


def _number_key(value: fmpq) -> tuple[int, int]:
    return int(value.p), int(value.q)


def _all_distinct(values: list[fmpq]) -> bool:
    ordered = sorted(values)
    return all(a != b for a, b in zip(ordered, ordered[1:]))


def _show(value: fmpq) -> str:
    return rational_to_str(to_fraction(value))
