"""The checker's own replay of the hardmax dynamics (docs/theory.md §1), and what the claim routines share.

:class:`Model` reads a configuration (tokens, ``alpha``, ``A`` and a value matrix ``V``) exactly
and replays it layer by layer on demand in integer arithmetic over each layer's common
denominator: positions, attention sets C_i (the maximisers of <A z_i, z_j>), norms and scores.
Nothing a file states about the dynamics is believed; it is compared with this replay.
:class:`Fate` and :class:`Chain` are the D7 fates and the verified D9 chain a run's certificates
are checked against, and :class:`Context` is the replay with what the enclosing report says.
"""

from __future__ import annotations

import contextlib
import json
import threading
from fractions import Fraction
from typing import Any, Iterator, NamedTuple, cast

from .common import BadInput, Point, Rejected, require
from .estimate import input_bits, replay_growth, setup_work, value_growth
from .limits import MAX_DIMENSION, SCORE_OVERHEAD
from .meter import charge, cost, gcd_cost
from .numbers import bits_of, _get, _int, integer_rows, inverse, read_number, positive_definite, positive_semidefinite


class Model:
    """The configuration and its exact replay (docs/theory.md §1), layer by layer on demand."""

    def __init__(self, config: Any) -> None:
        def number(x: Any, where: str) -> Fraction:
            if isinstance(x, float):  # a JSON decimal in a hand-written file: its decimal text, as the suite reads it
                x = repr(x)
            try:
                return read_number(x, where)
            except Rejected as error:
                raise BadInput(where, str(error).partition(": ")[2]) from None

        def matrix(x: Any, where: str) -> list:
            if not (isinstance(x, list) and len(x) == self.d and all(isinstance(r, list) and len(r) == self.d for r in x)):
                raise BadInput(where, f"expected a {self.d} x {self.d} matrix")
            return [[number(v, f"{where}[{r}][{c}]") for c, v in enumerate(row)] for r, row in enumerate(x)]

        if not isinstance(config, dict):
            raise BadInput("config", "expected a JSON object")
        tokens = config.get("tokens")
        if not (isinstance(tokens, list) and tokens and all(isinstance(t, list) and t for t in tokens)
                and len({len(t) for t in tokens}) == 1):
            raise BadInput("config.tokens", "expected a nonempty list of points of one dimension")
        self.n, self.d = len(tokens), len(tokens[0])
        if self.d > MAX_DIMENSION:
            raise BadInput("config.tokens", f"points of dimension {self.d}, beyond the checker's limit of {MAX_DIMENSION}")
        self.unsupported = None if config.get("beta") is None else (
            "softmax attention (beta) is not implemented by the checker; no certificate can be re-derived")
        layer0 = [tuple(number(c, f"config.tokens[{i}][{r}]") for r, c in enumerate(t)) for i, t in enumerate(tokens)]
        self.given_A = config.get("A") is not None  # absent: the identity, for which nothing is eliminated
        self.A = _identity(self.d) if not self.given_A else matrix(config["A"], "config.A")
        self.V = None if config.get("V") is None else matrix(config["V"], "config.V")
        self.alpha = None
        if self.V is None or config.get("alpha") is not None:
            # With V, alpha is not used, but a configuration that states one states a positive number.
            alpha = number(config.get("alpha"), "config.alpha")
            if alpha <= 0:
                raise BadInput("config.alpha", f"expected alpha > 0, got {alpha}")
            self.alpha = alpha if self.V is None else None
        # D3 and D7 are proved for z' = (z + alpha m)/(1 + alpha), which V = c I (c > 0) is, with alpha = c.
        self.proved_model = self.V is None or (self.V[0][0] > 0 and all(
            self.V[r][c] == (self.V[0][0] if r == c else 0) for r in range(self.d) for c in range(self.d)))
        self._layers = [layer0]
        self._attention: list = []
        self.bits = input_bits([x for z in layer0 for x in z] + ([x for row in self.A for x in row] if self.given_A else [Fraction(1)])
                               + ([self.alpha] if self.alpha is not None else [])
                               + ([x for row in self.V for x in row] if self.V is not None else []))
        # What the checks of the configuration itself cost before any layer (the eliminations below, each done
        # once per model and charged as it runs): estimated before anything is checked (.estimate).
        self.setup = setup_work(self.d, self.bits, A=self.given_A, V=self.V is not None)
        self._update: tuple | None = None  # the value matrix's update, (keep, move) as integer rows (see _value_update)
        self._growth: int | None = None
        # A over one common denominator (None for the identity, which is never multiplied out).
        self._A_integer: list[list[int]] | None = None
        self._A_scale = 1
        if self.given_A:
            self._A_integer, self._A_scale = integer_rows(self.A)
        self._A_bits = 1 if self._A_integer is None else bits_of(self._A_integer)
        self._Asym: list | None = None
        self._Asym_positive_definite: bool | None = None
        self._A_positive_semidefinite: bool | None = None
        self._diagonals: dict[int, tuple[list, int]] = {}
        self._integers: dict[int, tuple[list, int]] = {}
        self._locks: dict[tuple, list] = {}
        self._Asym_integer: tuple[list, int] | None = None
        self._rows: tuple[int, Rows] | None = None
        self._facts: dict[tuple, Any] = {}  # the run's Facts by last layer and chain (statuses.facts_of)
        self._fate_searches: dict[int, Any] = {}  # D7 fates found by layer (fates._search_fates)
        # The replay never goes past the run's last layer (set by the caller, checked against the work limit
        # before any checking): a certificate naming a later layer is rejected.
        self.last = 0

    @property
    def growth(self) -> int:
        """Bits the replay's integers grow by per layer (.estimate), from the update computed once per model."""
        if self._growth is None:
            if self.V is None:
                self._growth = replay_growth(self.alpha)
            else:
                keep, move = self._value_update()
                self._growth = value_growth(keep, move)
        return self._growth

    def _value_update(self) -> tuple:
        """z' = (I + V)^{-1} (z + V m) (docs/theory.md §6): (keep, move) = ((I + V)^{-1}, (I + V)^{-1} V), computed once
        (the inverse charged as it runs). BadInput when I + V is singular."""
        if self._update is None:
            V = cast(list, self.V)
            keep = inverse([[int(r == c) + V[r][c] for c in range(self.d)] for r in range(self.d)])
            if keep is None:
                raise BadInput("config.V", "I + V is singular, so the update is undefined")
            K, k_scale = integer_rows(keep)
            W, w_scale = integer_rows(V)
            charge(cost(self.d ** 3, bits_of(K), bits_of(W)) + gcd_cost(self.d * self.d, bits_of(K) + bits_of(W)))
            move = [[Fraction(sum(a * b for a, b in zip(row, col)), k_scale * w_scale) for col in zip(*W)] for row in K]
            self._update = (keep, move, (K, k_scale), integer_rows(move))
        return self._update[:2]

    @property
    def Asym(self) -> list:
        """(A + A^T)/2."""
        if self._Asym is None:
            self._Asym = self.A if self.A_symmetric else [[(self.A[r][c] + self.A[c][r]) / 2 for c in range(self.d)]
                                                          for r in range(self.d)]
        return self._Asym

    @property
    def A_symmetric(self) -> bool:
        """A = A^T (A absent: the identity)."""
        return not self.given_A or all(self.A[r][c] == self.A[c][r] for r in range(self.d) for c in range(r))

    @property
    def Asym_positive_definite(self) -> bool:
        """(A + A^T)/2 positive definite, decided exactly once per model (A absent: the identity, which is), the
        elimination charged as it runs."""
        if self._Asym_positive_definite is None:
            self._Asym_positive_definite = not self.given_A or positive_definite(self.Asym)
        return self._Asym_positive_definite

    @property
    def A_symmetric_positive_semidefinite(self) -> bool:
        """A symmetric positive semidefinite (D2's hypothesis, formal/Statement.v), decided exactly once per model."""
        if self._A_positive_semidefinite is None:
            # A symmetric positive definite A (inside the hypotheses) is PSD: no second elimination.
            self._A_positive_semidefinite = not self.given_A or (self.A_symmetric and self.Asym_positive_definite) or \
                positive_semidefinite(self.A)
        return self._A_positive_semidefinite

    def layer(self, k: int) -> list:
        require(0 <= k <= self.last, lambda: f"layer {k} is outside the run's layers 0..{self.last}")
        while len(self._layers) <= k:
            previous = len(self._layers) - 1
            C = self.attention(previous)
            N, D = self.integer_layer(previous)
            size = bits_of(N)
            # The sums over every C_i, then one reduced fraction (a gcd) per coordinate; with a value matrix
            # also its two products per token (d^2 each).
            charge(cost(sum(map(len, C)) * self.d, size) + cost(self.n * self.d, size, size))
            if self.V is not None:
                self._value_update()
                charge(cost(2 * self.n * self.d * self.d, size, bits_of(self._update[2][0]) + bits_of(self._update[3][0])))  # type: ignore[index]
            new = []
            for i, Ci in enumerate(C):
                # The mean over C_i from the layer's integer numerators: sum / (|C_i| D).
                total = [sum(col) for col in zip(*(N[j] for j in Ci))]
                members = len(Ci)
                if self.V is None:  # then alpha = p/q is set (checked > 0 on input)
                    alpha = cast(Fraction, self.alpha)
                    p, q = alpha.numerator, alpha.denominator
                    # z' = (z + alpha m)/(1 + alpha) = (q |C_i| N_i + p sum) / (|C_i| D (p + q))
                    scale = members * D * (p + q)
                    new.append(tuple(Fraction(q * members * x + p * t, scale) for x, t in zip(N[i], total)))
                else:  # z' = keep z + move m, in integers over the scales of keep, move and the layer
                    (K, k_scale), (M, m_scale) = self._update[2:]  # type: ignore[index]
                    kz = [sum(a * x for a, x in zip(row, N[i])) for row in K]
                    mm = [sum(a * t for a, t in zip(row, total)) for row in M]
                    scale = k_scale * m_scale * members * D
                    new.append(tuple(Fraction(a * m_scale * members + b * k_scale, scale) for a, b in zip(kz, mm)))
            self._layers.append(new)
        return self._layers[k]

    def rows(self, k: int) -> "Rows":
        """Layer k's positions as :class:`Rows` (keyed by token), for exact combinations of them."""
        if self._rows is None or self._rows[0] != k:
            self._rows = (k, Rows(dict(enumerate(self.layer(k)))))
        return self._rows[1]

    def integer_layer(self, k: int) -> tuple[list[list[int]], int]:
        """(N, D): the positions of layer k as integer numerators over their common denominator D > 0."""
        if k not in self._integers:
            if len(self._integers) >= 8:
                self._integers.pop(next(iter(self._integers)))
            self._integers[k] = integer_rows(self.layer(k))
        return self._integers[k]

    def norm(self, k: int, i: int) -> Fraction:
        """<A z_i^k, z_i^k>, the squared A-norm (D2)."""
        diagonal, scale = self._scored(k)
        return Fraction(diagonal[i], scale)

    def scale(self, k: int) -> int:
        """The positive scale of layer k's integer scores: scale <A z_i, z_j> = <A_int N_i, N_j>."""
        return self._scored(k)[1]

    def _scored(self, k: int) -> tuple[list, int]:
        """(the diagonal <A_int N_i, N_i>, scale) of layer k; scoring a layer also records its attention sets.

        Over one common denominator D of layer k, scale = D^2 a (a the denominator of A): a
        positive scale changes no comparison, and integers make this the fast part of the
        replay. Each row of scores is reduced to its attention set and its diagonal entry as it is
        computed (memory n per layer, not n^2); identical sets are kept once.
        """
        if k not in self._diagonals:
            N, D = self.integer_layer(k)
            size = bits_of(N)
            a_bits = self._A_bits
            charge((cost(self.n * self.d * self.d, size, a_bits) if self.given_A else 0)
                    + cost(self.n * self.n * (self.d + SCORE_OVERHEAD), size + a_bits, size))
            sets: list[frozenset] = []
            diagonal: list[int] = []
            interned: dict[frozenset, frozenset] = {}
            A_integer = self._A_integer
            for i, row in enumerate(N):
                Az = row if A_integer is None else [sum(a * x for a, x in zip(A_row, row)) for A_row in A_integer]
                values = [sum(a * y for a, y in zip(Az, other)) for other in N]
                top = max(values)
                members = frozenset(j for j, v in enumerate(values) if v == top)
                sets.append(interned.setdefault(members, members))
                diagonal.append(values[i])
            if len(self._attention) == k:
                self._attention.append(sets)
            if len(self._diagonals) >= 8:
                self._diagonals.pop(next(iter(self._diagonals)))
            self._diagonals[k] = (diagonal, D * D * self._A_scale)
        return self._diagonals[k]

    def attention(self, k: int) -> list:
        while len(self._attention) <= k:
            self._scored(len(self._attention))
        return self._attention[k]


class Rows:
    """Points keyed by token as integer rows over one common denominator: inner products with a
    direction and convex combinations in integer arithmetic (paid for with charge)."""

    def __init__(self, points: dict) -> None:
        self.keys = list(points)
        rows, self.denominator = integer_rows([points[u] for u in self.keys])
        self.rows = dict(zip(self.keys, rows))
        self.d = len(rows[0]) if rows else 0
        self.size = bits_of(rows)

    def products(self, direction: Point) -> tuple[dict, int]:
        """({u: <c, u> * scale}, scale) for every point, with scale > 0 (c scaled to integers)."""
        c, c_scale = integer_rows([direction])
        charge(cost(len(self.keys) * self.d, self.size, bits_of(c)))
        return ({u: sum(a * b for a, b in zip(c[0], row)) for u, row in self.rows.items()},
                c_scale * self.denominator)

    def combination(self, weights: dict) -> Point:
        """sum_u weights[u] * point_u, exactly."""
        if not weights:
            return tuple(Fraction(0) for _ in range(self.d))
        w, w_scale = integer_rows([[weights[u] for u in weights]])
        charge(cost(len(weights) * self.d, self.size, bits_of(w)) + cost(self.d, self.size, self.size))
        return tuple(Fraction(sum(x * self.rows[u][r] for x, u in zip(w[0], weights)), w_scale * self.denominator)
                     for r in range(self.d))


class Fate(NamedTuple):
    kind: str  # leader | fixed | locked (D7), or path (a verified closed-form chain, D9)
    layer: int
    set: frozenset
    limit: Point


class Chain(NamedTuple):
    """A verified, certified closed-form chain (docs/theory.md D9) of a run: what it proves about every token."""

    start: int                # the layer its first segment starts from (a replayed layer)
    sets: list                # the final segment's sets: C_j for every layer from the final segment on
    limits: list              # the constant terms of the final paths: every token's limit
    leaders: dict             # token -> first layer with C_j = {j}, from the chain's start on


class Context:
    """The replay plus what the enclosing report says (last_layer, settled_layer), to compare with."""

    def __init__(self, model: Model, *, last_layer: Any = None, settled_layer: Any = None,
                 chain: Chain | None = None, unverified_chain: str | None = None) -> None:
        self.model, self.report = model, {"last_layer": last_layer, "settled_layer": settled_layer}
        self.verified_fates: dict[str, dict[int, Fate]] = {}
        # The run's certified closed-form chain (docs/theory.md D9), if any: verified, or, with
        # ``unverified_chain`` (why it is beyond the checker's limits), only what it states.
        self.chain = chain
        self.unverified_chain = unverified_chain

    def same(self, key: str, value: Any) -> None:
        expected = self.report[key]
        require(expected is None or value == expected, lambda: f"{key} is {value!r}, the report says {expected!r}")


def _last_layer(cert: dict, ctx: Context) -> int:
    last = _int(_get(cert, "last_layer", "certificate"), "last_layer")
    ctx.same("last_layer", last)
    return last


_MODELS: dict[str, Model] = {}
_CHECK = threading.local()
_IDENTITIES: dict[int, list] = {}


def _identity(d: int) -> list:
    """The d x d identity as Fractions, one shared copy per d (never changed)."""
    if d not in _IDENTITIES:
        _IDENTITIES[d] = [[Fraction(int(r == c)) for c in range(d)] for r in range(d)]
    return _IDENTITIES[d]


@contextlib.contextmanager
def models_cached() -> Iterator[None]:
    """Within the block, each configuration's model is built once (its numbers read once, its eliminations
    done once), whatever part of the check asks for it; the models are dropped at the end."""
    previous = getattr(_CHECK, "models", None)
    _CHECK.models = {}
    try:
        yield
    finally:
        _CHECK.models = previous


def model_of(config: Any) -> Model:
    """The replay of ``config``: one per configuration during a check (:func:`models_cached`), else kept for a
    few configurations (it depends on the configuration only)."""
    key = json.dumps(config, sort_keys=True, default=str)
    models = getattr(_CHECK, "models", None)
    if models is not None:
        if key not in models:
            models[key] = _MODELS.get(key) or Model(config)
            if key not in _MODELS and len(_MODELS) < 16:  # kept for a later check of the same configuration
                _MODELS[key] = models[key]
        return models[key]
    if key not in _MODELS:
        model = Model(config)
        if len(_MODELS) >= 16:
            _MODELS.pop(next(iter(_MODELS)))
        _MODELS[key] = model
    return _MODELS[key]
