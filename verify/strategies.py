"""Hypothesis strategies for exact hardmax configurations: the public API for your own property tests.

Example::

    from hypothesis import given
    from verify.strategies import configurations

    @given(configurations(family="mirror_ties", max_n=8))
    def test_my_claim(config):
        ...  # config is a verify.core.config.Configuration, exact, inside the theorem's hypotheses

Everything drawn is exact (:class:`fractions.Fraction`). Two kinds of draws are mixed on
purpose:

* *native* draws (tokens, entries of A, alpha drawn by Hypothesis itself) for the generic
  families, so that a failing example shrinks coordinate by coordinate towards small numbers;
* *seeded* draws for the structured families of :mod:`verify.core.families` (persistent ties,
  collinear tokens, points on hull edges, ...): Hypothesis draws the family, n, d, the matrix
  kind and a seed, and shrinks those (fewer tokens, lower dimension, seed 0).

Sizes default to n <= 10 and d <= 3 so that an exact claim check of one example takes well
under a second. Strategies outside the hypotheses (zero token, duplicates, non-symmetric,
low-rank or indefinite A) are for the conjecture lab and set ``outside_hypotheses``.
"""

from __future__ import annotations

import functools
import math
import weakref
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from typing import Sequence, cast

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from verify.core.config import Configuration, parse_configuration
from verify.core.families import FAMILIES, INSIDE_FAMILIES, MATRIX_KINDS, MAX_D, MAX_N, TIE_FAMILIES, generate
from verify.core.linalg import matmul, transpose

__all__ = [
    "rationals",
    "positive_rationals",
    "vectors",
    "nonzero_vectors",
    "token_configurations",
    "spd_matrices",
    "alphas",
    "AlphaRange",
    "configurations",
    "nonsymmetric_pd_matrices",
    "psd_low_rank_matrices",
    "indefinite_matrices",
    "value_matrices",
    "outside_configurations",
    "OUTSIDE_KINDS",
    "NATIVE_FAMILIES",
    "FLOAT_STRESS_KINDS",
    "float_stress_configuration",
    "float_stress_configurations",
    "StrategySpec",
    "strategy_spec",
    "NEEDS_D2",
    "NONSYMMETRIC_SOURCES",
    "SEEDED_KINDS",
]

Vector = tuple[Fraction, ...]
Matrix = tuple[tuple[Fraction, ...], ...]

# Families whose tokens and A are drawn natively (they shrink coordinate by coordinate).
NATIVE_FAMILIES: dict[str, str] = {"generic": "identity", "diagonal": "diagonal", "dense_spd": "dense",
                                   "ill_conditioned": "ill_conditioned"}
OUTSIDE_KINDS: tuple[str, ...] = ("origin_token", "duplicates", "nonsymmetric_pd", "rotating_polygons", "cyclic_simplices",
                                   "psd_low_rank", "indefinite")
# What a draw of the kind "nonsymmetric_pd" is, in turn: A = S + K with free tokens (drawn by Hypothesis),
# or one of the seeded families of symmetric configurations under a non-symmetric A (docs/theory.md §6).
NONSYMMETRIC_SOURCES: tuple[str, ...] = ("generic", "rotating_polygons", "cyclic_simplices")


def rationals(*, min_value: Fraction | int = -1, max_value: Fraction | int = 1, max_denominator: int = 8,
              allow_zero: bool = True) -> st.SearchStrategy[Fraction]:
    """Exact rationals p/q in [min_value, max_value] with 1 <= q <= max_denominator.

    Shrinks towards small denominators and towards 0 (or the bound nearest 0).
    """
    low, high = Fraction(min_value), Fraction(max_value)
    if low > high or max_denominator < 1:
        raise InvalidArgument(f"rationals: need min_value <= max_value and max_denominator >= 1, "
                              f"got {low}, {high}, {max_denominator}")

    strategy = _draw_rational(low, high, max_denominator)
    return strategy if allow_zero else strategy.filter(_nonzero)


@st.composite
def _draw_rational(draw, low: Fraction, high: Fraction, max_denominator: int) -> Fraction:
    # Module level: a composite defined inside rationals() would be decorated (its source read
    # by Hypothesis) on every call, which cost more than the draw itself.
    q = draw(st.integers(1, max_denominator))
    p_low, p_high = math.ceil(low * q), math.floor(high * q)
    if p_low > p_high:  # no multiple of 1/q in the interval: the integer grid may still have one
        q, p_low, p_high = max_denominator, math.ceil(low * max_denominator), math.floor(high * max_denominator)
    return Fraction(draw(st.integers(p_low, p_high)), q)


def _nonzero(x: Fraction) -> bool:
    return x != 0


def positive_rationals(*, min_value: Fraction | int = Fraction(1, 8), max_value: Fraction | int = 4,
                       max_denominator: int = 8) -> st.SearchStrategy[Fraction]:
    """Rationals in [min_value, max_value] with min_value > 0."""
    if Fraction(min_value) <= 0:
        raise InvalidArgument(f"positive_rationals: min_value must be > 0, got {min_value}")
    return rationals(min_value=min_value, max_value=max_value, max_denominator=max_denominator)


def vectors(d: int, *, bound: Fraction | int = 1, max_denominator: int = 8) -> st.SearchStrategy[Vector]:
    """Rational vectors of Q^d with coordinates in [-bound, bound] (possibly zero)."""
    coordinate = rationals(min_value=-Fraction(bound), max_value=Fraction(bound), max_denominator=max_denominator)
    return st.tuples(*[coordinate] * d)


def nonzero_vectors(d: int, *, bound: Fraction | int = 1, max_denominator: int = 8) -> st.SearchStrategy[Vector]:
    """Rational vectors of Q^d \\ {0} with coordinates in [-bound, bound] (repaired, not filtered: a zero draw
    becomes (1/max_denominator, 0, ..., 0), so that shrinking ends there)."""
    return vectors(d, bound=bound, max_denominator=max_denominator).map(
        lambda v: v if any(v) else (Fraction(1, max_denominator), *v[1:]))


def token_configurations(*, min_n: int = 1, max_n: int = 10, d: int | None = None, min_d: int = 1,
                         max_d: int = 3, bound: Fraction | int = 1,
                         max_denominator: int = 8) -> st.SearchStrategy[tuple[Vector, ...]]:
    """Distinct nonzero rational tokens (the theorem's hypotheses), n in [min_n, max_n], d given or drawn.

    Coordinates are drawn in [-bound, bound]; a drawn token that is zero or repeats an earlier
    one is repaired (not filtered, so Hypothesis never gives up on a draw) by shifting its first
    coordinate by the smallest multiple of +-1/(16 max_denominator) that makes it new. A
    shrunk example therefore looks like (1/128, 0), (-1/128, 0), (1/64, 0), ...
    """
    return _token_strategy(min_n, max_n, d, min_d, max_d, Fraction(bound), max_denominator)


# Strategies are immutable: one object per set of arguments spares Hypothesis validating a new
# one inside every draw (about half the cost of drawing a configuration).
@functools.lru_cache(maxsize=1024)
def _token_strategy(min_n: int, max_n: int, d: int | None, min_d: int, max_d: int, bound: Fraction,
                    max_denominator: int) -> st.SearchStrategy[tuple[Vector, ...]]:
    return _draw_tokens(min_n=min_n, max_n=max_n, d=d, min_d=min_d, max_d=max_d, bound=bound,
                        max_denominator=max_denominator)


@st.composite
def _draw_tokens(draw, *, min_n: int, max_n: int, d: int | None, min_d: int, max_d: int, bound: Fraction,
                 max_denominator: int) -> tuple[Vector, ...]:
    if d is None:
        d = draw(st.integers(min_d, max_d))
    n = draw(st.integers(min_n, max_n))
    raw = draw(st.lists(vectors(d, bound=bound, max_denominator=max_denominator), min_size=n, max_size=n))
    step = Fraction(1, 16 * max_denominator)
    tokens: list[Vector] = []
    taken: set[Vector] = set()
    for v in raw:
        shift = 0
        candidate = v
        while all(x == 0 for x in candidate) or candidate in taken:
            shift = -shift if shift > 0 else 1 - shift  # 1, -1, 2, -2, ...
            candidate = (v[0] + shift * step, *v[1:])
        taken.add(candidate)
        tokens.append(candidate)
    return tuple(tokens)


def _identity(d: int) -> Matrix:
    return tuple(tuple(Fraction(int(r == c)) for c in range(d)) for r in range(d))


def _diagonal(values: Sequence[Fraction]) -> Matrix:
    d = len(values)
    return tuple(tuple(values[r] if r == c else Fraction(0) for c in range(d)) for r in range(d))


def spd_matrices(d: int, *, kinds: Sequence[str] = MATRIX_KINDS) -> st.SearchStrategy[Matrix]:
    """A rational symmetric positive definite d x d matrix (exactly), of a kind drawn from ``kinds``.

    ``identity``; ``scalar`` c I; ``diagonal``; ``dense`` B B^T + c I (c > 0 makes it definite
    whatever B is); ``ill_conditioned`` u u^T + eps I with eps in {1/1000, 1/250}.
    """
    return _spd_strategy(d, tuple(kinds))


@functools.lru_cache(maxsize=256)
def _spd_strategy(d: int, kinds: tuple[str, ...]) -> st.SearchStrategy[Matrix]:
    return _draw_spd(d, kinds)


@st.composite
def _draw_spd(draw, d: int, kinds: tuple[str, ...]) -> Matrix:
    kind = draw(st.sampled_from(tuple(kinds)))
    if kind == "identity":
        return _identity(d)
    if kind == "scalar":
        c = draw(positive_rationals(min_value=Fraction(1, 4), max_value=4, max_denominator=4))
        return _diagonal([c] * d)
    if kind == "diagonal":
        return _diagonal(draw(st.lists(positive_rationals(min_value=Fraction(1, 4), max_value=4, max_denominator=4),
                                       min_size=d, max_size=d)))
    if kind == "dense":
        B = draw(st.lists(st.lists(rationals(min_value=Fraction(-3, 2), max_value=Fraction(3, 2), max_denominator=2),
                                   min_size=d, max_size=d), min_size=d, max_size=d))
        c = draw(positive_rationals(min_value=Fraction(1, 4), max_value=1, max_denominator=4))
        BBt = matmul(B, transpose(B))
        return tuple(tuple(BBt[r][s] + (c if r == s else 0) for s in range(d)) for r in range(d))
    if kind == "ill_conditioned":
        u = draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d))
        if not any(u):
            u[0] = 1  # repaired rather than filtered: u = 0 would give eps I, not an ill-conditioned A
        eps = draw(st.sampled_from((Fraction(1, 1000), Fraction(1, 250))))
        return tuple(tuple(Fraction(u[r] * u[s]) + (eps if r == s else 0) for s in range(d)) for r in range(d))
    raise InvalidArgument(f"spd_matrices: unknown kind {kind!r}; expected one of {', '.join(MATRIX_KINDS)}")


AlphaRange = tuple[Fraction | int | str, Fraction | int | str]  # (low, high): alpha drawn in [low, high]
DEFAULT_ALPHA_RANGE: tuple[Fraction, Fraction] = (Fraction(1, 8), Fraction(4))
SIMPLE_ALPHAS: tuple[Fraction, ...] = (Fraction(1, 2), Fraction(1), Fraction(1, 3), Fraction(2))


def alphas(min_value: Fraction | int | str = DEFAULT_ALPHA_RANGE[0],
           max_value: Fraction | int | str = DEFAULT_ALPHA_RANGE[1]) -> st.SearchStrategy[Fraction]:
    """alpha > 0 in [min_value, max_value] (default [1/8, 4]).

    The paper's 1/2 and a few simple values first (they shrink there), then, below 1/8, the powers
    of two down to ``min_value`` (late emergence and long transients scale like 1/alpha, docs/theory.md
    §6), then rationals of the range with denominators up to max(8, 1/min_value).
    """
    low, high = Fraction(min_value), Fraction(max_value)
    if not 0 < low <= high:
        raise InvalidArgument(f"alphas: need 0 < min_value <= max_value, got {low}, {high}")
    return _alpha_strategy(low, high)


@functools.lru_cache(maxsize=64)
def _alpha_strategy(low: Fraction, high: Fraction) -> st.SearchStrategy[Fraction]:
    powers = []
    power = Fraction(1, 16)
    while power >= low:
        powers.append(power)
        power /= 2
    # The default range draws exactly as it always has: the powers of two join only below 1/8.
    extra = (Fraction(1, 8), *powers) if low < DEFAULT_ALPHA_RANGE[0] else ()
    simple = tuple(a for a in (*SIMPLE_ALPHAS, *extra) if low <= a <= high)
    denominator = max(8, math.ceil(1 / low))
    ranged = positive_rationals(min_value=low, max_value=high, max_denominator=denominator)
    return st.one_of(st.sampled_from(simple), ranged) if simple else ranged


def alpha_strategy(alpha: Fraction | AlphaRange | None) -> st.SearchStrategy[Fraction] | None:
    """The strategy of a strategy's ``alpha`` argument: None for a fixed alpha (a number), else its range's."""
    if alpha is None:
        return alphas()
    if isinstance(alpha, tuple):
        if len(alpha) != 2:
            raise InvalidArgument(f"alpha: expected a number or a (low, high) range, got {alpha!r}")
        return alphas(*alpha)
    if Fraction(alpha) <= 0:
        raise InvalidArgument(f"alpha: expected alpha > 0, got {alpha}")
    return None


def _configuration(tokens: Sequence[Sequence[Fraction]], alpha: Fraction, A: Matrix | None, *, name: str,
                   outside: bool = False) -> Configuration:
    data: dict = {"name": name, "tokens": [list(t) for t in tokens], "alpha": alpha}
    if A is not None and A != _identity(len(A)):
        data["A"] = [list(r) for r in A]
    if outside:
        data["outside_hypotheses"] = True
    return parse_configuration(data)


@dataclass(frozen=True)
class StrategySpec:
    """The arguments a strategy of this module was built from (:func:`strategy_spec` reads them back).

    The conjecture lab's search uses them to draw from each family in turn and to grow n and d
    within these bounds (verify.experiments.conjectures.search).
    """

    kind: str                    # "configurations" or "outside_configurations"
    families: tuple[str, ...]    # family names (configurations) or kinds (outside_configurations)
    min_n: int
    max_n: int
    min_d: int
    max_d: int
    matrix: str | None = None
    alpha: Fraction | tuple[Fraction, Fraction] | None = None  # fixed, a (low, high) range, or the default range

    def alpha_range(self) -> tuple[Fraction, Fraction]:
        """The alphas this strategy may draw, as a closed range (one point for a fixed alpha)."""
        if self.alpha is None:
            return DEFAULT_ALPHA_RANGE
        if isinstance(self.alpha, tuple):
            return self.alpha
        return (self.alpha, self.alpha)


def _spec_alpha(alpha: Fraction | AlphaRange | None) -> Fraction | tuple[Fraction, Fraction] | None:
    alpha_strategy(alpha)  # validates
    if alpha is None:
        return None
    if isinstance(alpha, tuple):
        return (Fraction(alpha[0]), Fraction(alpha[1]))
    return Fraction(alpha)


_SPECS: "weakref.WeakKeyDictionary[st.SearchStrategy, StrategySpec]" = weakref.WeakKeyDictionary()


def strategy_spec(strategy: object) -> StrategySpec | None:
    """How ``strategy`` was built, if it was returned by :func:`configurations` or :func:`outside_configurations`."""
    if not isinstance(strategy, st.SearchStrategy):
        return None
    return _SPECS.get(strategy)


def configurations(family: str | Sequence[str] | None = None, *, min_n: int = 1, max_n: int = 10,
                   min_d: int = 1, max_d: int = 3, matrix: str | None = None,
                   alpha: Fraction | AlphaRange | None = None) -> st.SearchStrategy[Configuration]:
    """Configurations inside the theorem's hypotheses, from one family, a list of families, or all of them.

    Parameters
    ----------
    family
        A name of :data:`verify.core.families.FAMILIES` (inside the hypotheses), a sequence of names,
        or None for every inside family. Families whose minimum n or d exceeds the requested
        range are skipped.
    min_n, max_n, min_d, max_d
        Size ranges (each family may raise the minimum: ties need d >= 2 and n >= 3).
    matrix
        Kind of A (:data:`verify.core.families.MATRIX_KINDS`); default: the generic families use their
        own kind, the structured families draw one of the kinds they accept.
    alpha
        A fixed alpha, or a range ``(low, high)`` drawn by :func:`alphas` (``(Fraction(1, 256), 4)`` reaches the
        late leaders of docs/theory.md §6); default :func:`alphas` on [1/8, 4].
    """
    names = INSIDE_FAMILIES if family is None else ((family,) if isinstance(family, str) else tuple(family))
    for name in names:
        if name not in FAMILIES or FAMILIES[name].outside:
            raise InvalidArgument(f"configurations: {name!r} is not a family inside the hypotheses; "
                                  f"expected one of {', '.join(INSIDE_FAMILIES)} (see outside_configurations)")
    max_n, max_d = min(max_n, MAX_N), min(max_d, MAX_D)
    if matrix is not None and matrix not in MATRIX_KINDS:
        raise InvalidArgument(f"configurations: unknown matrix kind {matrix!r}; "
                              f"expected one of {', '.join(MATRIX_KINDS)}")
    usable = [name for name in names if max(min_n, FAMILIES[name].min_n) <= max_n
              and max(min_d, FAMILIES[name].min_d) <= max_d
              and (matrix is None or matrix in (FAMILIES[name].matrices or MATRIX_KINDS))]
    if not usable:
        raise InvalidArgument(f"configurations: no family among {names} fits n <= {max_n}, d <= {max_d}"
                              + ("" if matrix is None else f" and matrix {matrix!r}"))
    fixed = _spec_alpha(alpha)
    strategy = _draw_configuration(tuple(usable), min_n=min_n, max_n=max_n, min_d=min_d, max_d=max_d, matrix=matrix,
                                   alpha=fixed)
    _SPECS[strategy] = StrategySpec("configurations", tuple(usable), min_n, max_n, min_d, max_d, matrix, fixed)
    return strategy


def _draw_alpha(draw, alpha: Fraction | tuple[Fraction, Fraction] | None) -> Fraction:
    ranged = alpha_strategy(alpha)
    return cast(Fraction, alpha) if ranged is None else draw(ranged)


@st.composite
def _draw_configuration(draw, usable: tuple[str, ...], *, min_n: int, max_n: int, min_d: int, max_d: int,
                        matrix: str | None, alpha: Fraction | tuple[Fraction, Fraction] | None) -> Configuration:
    name = draw(st.sampled_from(usable))
    spec = FAMILIES[name]
    n = draw(st.integers(max(min_n, spec.min_n), max_n))
    d = draw(st.integers(max(min_d, spec.min_d), max_d))
    a = _draw_alpha(draw, alpha)
    if name in NATIVE_FAMILIES:
        tokens = draw(token_configurations(min_n=n, max_n=n, d=d))
        A = draw(spd_matrices(d, kinds=(matrix or NATIVE_FAMILIES[name],)))
        return _configuration(tokens, a, A, name=f"{name} (drawn by Hypothesis)")
    kind = matrix or draw(st.sampled_from(spec.matrices or MATRIX_KINDS))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return generate(name, seed, n=n, d=d, alpha=a, matrix=kind)


# ----------------------------------------------------------------------------- outside the hypotheses

@st.composite
def nonsymmetric_pd_matrices(draw, d: int) -> Matrix:
    """A = S + K with S symmetric positive definite and K skew nonzero: x^T A x = x^T S x > 0 (docs/theory.md D8)."""
    if d < 2:
        raise InvalidArgument("nonsymmetric_pd_matrices: a 1 x 1 matrix is always symmetric; need d >= 2")
    S = draw(spd_matrices(d, kinds=("identity", "diagonal", "dense")))
    upper = draw(st.lists(rationals(min_value=-2, max_value=2, max_denominator=2), min_size=d * (d - 1) // 2,
                          max_size=d * (d - 1) // 2))
    if not any(upper):
        upper[0] = Fraction(1)  # repaired rather than filtered: K = 0 would make A symmetric
    K = [[Fraction(0)] * d for _ in range(d)]
    entries = iter(upper)
    for r in range(d):
        for c in range(r + 1, d):
            K[r][c] = next(entries)
            K[c][r] = -K[r][c]
    return tuple(tuple(S[r][c] + K[r][c] for c in range(d)) for r in range(d))


@st.composite
def _unimodular(draw, d: int) -> list[list[Fraction]]:
    """Unit lower times unit upper triangular integer matrices: determinant 1."""
    small = st.integers(-2, 2)
    lower = [[Fraction(1 if r == c else (draw(small) if r > c else 0)) for c in range(d)] for r in range(d)]
    upper = [[Fraction(1 if r == c else (draw(small) if r < c else 0)) for c in range(d)] for r in range(d)]
    return matmul(lower, upper)


@st.composite
def _with_inertia(draw, d: int, signs: Sequence[int]) -> Matrix:
    """P^T diag(signs * positive) P, P unimodular: by Sylvester's law of inertia, these signs exactly."""
    P = draw(_unimodular(d))
    values = [s * draw(st.integers(1, 4)) for s in signs]
    middle = [[Fraction(values[r]) if r == c else Fraction(0) for c in range(d)] for r in range(d)]
    return tuple(tuple(row) for row in matmul(transpose(P), matmul(middle, P)))


@st.composite
def psd_low_rank_matrices(draw, d: int) -> Matrix:
    """Symmetric positive semidefinite of rank r < d (singular: outside the hypotheses)."""
    if d < 2:
        raise InvalidArgument("psd_low_rank_matrices: need d >= 2 (rank 0 would be the zero matrix)")
    rank = draw(st.integers(1, d - 1))
    return draw(_with_inertia(d, [1] * rank + [0] * (d - rank)))


@st.composite
def indefinite_matrices(draw, d: int) -> Matrix:
    """Symmetric with at least one positive and one negative eigenvalue (d >= 2)."""
    if d < 2:
        raise InvalidArgument("indefinite_matrices: a 1 x 1 matrix cannot be indefinite; need d >= 2")
    negatives = draw(st.integers(1, d - 1))
    return draw(_with_inertia(d, [-1] * negatives + [1] * (d - negatives)))


@st.composite
def value_matrices(draw, d: int, *, bound: Fraction | int = 1, max_denominator: int = 8) -> Matrix:
    """A rank-one value matrix V = u v^T with I + V invertible (1 + v.u != 0), u and v nonzero rational vectors.

    The model variant of docs/theory.md §6: z -> (I + V)^{-1} (z + V mean_{C_i} z_j); V = alpha I is the
    plain model. Use it as ``Configuration(..., V=draw(value_matrices(d)))`` (outside the hypotheses).
    """
    u = draw(nonzero_vectors(d, bound=bound, max_denominator=max_denominator))
    v = draw(nonzero_vectors(d, bound=bound, max_denominator=max_denominator))
    if 1 + sum(a * b for a, b in zip(u, v)) == 0:
        v = tuple(2 * x for x in v)  # repaired rather than filtered: 1 + 2 v.u = -1 != 0
    return tuple(tuple(a * b for b in v) for a in u)


# Kinds whose A needs d >= 2.
NEEDS_D2 = _NEEDS_D2 = frozenset({"nonsymmetric_pd", "rotating_polygons", "cyclic_simplices", "psd_low_rank", "indefinite"})
SEEDED_KINDS = frozenset({"rotating_polygons", "cyclic_simplices"})  # drawn from verify.core.families by seed


def outside_configurations(kind: str | Sequence[str] | None = None, *, min_n: int = 1, max_n: int = 10,
                           min_d: int = 1, max_d: int = 3,
                           alpha: Fraction | AlphaRange | None = None) -> st.SearchStrategy[Configuration]:
    """Configurations that violate one hypothesis on purpose (``outside_hypotheses`` is set).

    ``kind`` is one of :data:`OUTSIDE_KINDS` (or a sequence, or None for all): a token at the
    origin (docs/theory.md D4), duplicated tokens (D5), A positive definite but not symmetric (D8),
    A positive semidefinite of low rank, A indefinite. Everything else is inside the hypotheses.
    A draw of ``nonsymmetric_pd`` is, in turn (:data:`NONSYMMETRIC_SOURCES`), A = S + K with free
    tokens, or a symmetric configuration under a non-symmetric A: ``rotating_polygons`` (orbits of a
    rational rotation of a plane, where every token may attend to the next vertex for ever and no
    token ever lead, docs/theory.md §6) or ``cyclic_simplices`` (simplices and cross-polytopes whose
    vertices a signed cyclic permutation carries to each other), also available as kinds of their own.
    ``alpha`` as for :func:`configurations`.
    """
    kinds = OUTSIDE_KINDS if kind is None else ((kind,) if isinstance(kind, str) else tuple(kind))
    for k in kinds:
        if k not in OUTSIDE_KINDS:
            raise InvalidArgument(f"outside_configurations: unknown kind {k!r}; "
                                  f"expected one of {', '.join(OUTSIDE_KINDS)}")
    needs_d2 = _NEEDS_D2
    usable = [k for k in kinds if max(min_d, 2 if k in needs_d2 else 1) <= max_d
              and max(min_n, 2 if k == "duplicates" else 1) <= max_n]
    if not usable:
        raise InvalidArgument(f"outside_configurations: no kind among {kinds} fits n <= {max_n}, d <= {max_d}")
    fixed = _spec_alpha(alpha)
    strategy = _draw_outside(tuple(usable), min_n=min_n, max_n=max_n, min_d=min_d, max_d=max_d, alpha=fixed)
    _SPECS[strategy] = StrategySpec("outside_configurations", tuple(usable), min_n, max_n, min_d, max_d, alpha=fixed)
    return strategy


@st.composite
def _draw_outside(draw, usable: tuple[str, ...], *, min_n: int, max_n: int, min_d: int, max_d: int,
                  alpha: Fraction | tuple[Fraction, Fraction] | None = None) -> Configuration:
    needs_d2 = _NEEDS_D2
    chosen = draw(st.sampled_from(usable))
    d = draw(st.integers(max(min_d, 2 if chosen in needs_d2 else 1), max_d))
    a = _draw_alpha(draw, alpha)
    source = draw(st.sampled_from(NONSYMMETRIC_SOURCES)) if chosen == "nonsymmetric_pd" else chosen
    if source in SEEDED_KINDS and max_n < FAMILIES[source].min_n:
        source = "generic"  # the structure needs more tokens than the bounds allow
    if source in SEEDED_KINDS:
        n = draw(st.integers(max(min_n, FAMILIES[source].min_n), max_n))
        seed = draw(st.integers(0, 2 ** 32 - 1))
        return generate(source, seed, n=n, d=d, alpha=a)
    if chosen == "origin_token":
        tokens = list(draw(token_configurations(min_n=max(min_n - 1, 0), max_n=max_n - 1, d=d)))
        tokens.insert(draw(st.integers(0, len(tokens))), tuple(Fraction(0) for _ in range(d)))
        A = draw(spd_matrices(d))
    elif chosen == "duplicates":
        distinct = list(draw(token_configurations(min_n=1, max_n=max(1, max_n - 1), d=d)))
        copies = draw(st.lists(st.integers(0, len(distinct) - 1), min_size=max(1, min_n - len(distinct)),
                               max_size=max(1, max_n - len(distinct))))
        tokens = distinct + [distinct[i] for i in copies]
        A = draw(spd_matrices(d))
    else:
        tokens = list(draw(token_configurations(min_n=min_n, max_n=max_n, d=d)))
        builder = {"nonsymmetric_pd": nonsymmetric_pd_matrices, "psd_low_rank": psd_low_rank_matrices,
                   "indefinite": indefinite_matrices}[chosen]
        A = draw(builder(d))
    return _configuration(tokens, a, A, name=f"{chosen} (outside the hypotheses, drawn by Hypothesis)", outside=True)


# ----------------------------------------------------------------------------- the float engine's hard cases

# Where a float engine's bound is tested for power: exact ties (float rounding breaks them by
# about 1e-16), ties perturbed by 1e-16..1e-9 relative (gaps at and above the rounding error),
# tokens near the overflow edge (scores near 2^1024), and subnormal scores from tiny tokens or
# a tiny A. A bound too small by any factor decides some of these wrongly.
FLOAT_STRESS_KINDS: tuple[str, ...] = ("tie", "perturbed_tie", "flipped_tie", "overflow", "tiny_A", "tiny_tokens")
FLIP_ATTEMPTS = 200


def float_stress_configuration(seed: int, kind: str | None = None) -> Configuration:
    """One float-stress configuration of ``kind`` (:data:`FLOAT_STRESS_KINDS`, default drawn), from ``seed``.

    A persistent-tie family (:data:`verify.core.families.TIE_FAMILIES`) rounded to float64 and
    transformed by kind; the configuration is the rationals the floats store (tokens, alpha, A),
    so exact and float runs start from the same numbers. Marked ``outside_hypotheses`` because
    rounding may merge or zero tokens and bend A (it rarely does).
    """
    rng = np.random.default_rng([seed, 17])
    kind = kind or FLOAT_STRESS_KINDS[int(rng.integers(len(FLOAT_STRESS_KINDS)))]
    if kind not in FLOAT_STRESS_KINDS:
        raise InvalidArgument(f"float_stress_configuration: unknown kind {kind!r}; expected one of "
                              f"{', '.join(FLOAT_STRESS_KINDS)}")
    family = TIE_FAMILIES[int(rng.integers(len(TIE_FAMILIES)))]
    spec = FAMILIES[family]
    matrices = spec.matrices or MATRIX_KINDS
    base = generate(family, int(rng.integers(2 ** 32)), n=max(int(rng.integers(3, 9)), spec.min_n), d=int(rng.integers(2, 4)),
                    alpha=(Fraction(1, 2), Fraction(1), Fraction(2), Fraction(1, 10))[int(rng.integers(4))],
                    matrix=matrices[int(rng.integers(len(matrices)))])
    tokens = np.array([[float(x) for x in t] for t in base.tokens])
    A = None if base.A is None else np.array([[float(x) for x in row] for row in base.A])
    if kind == "perturbed_tie":
        relative = 10.0 ** rng.uniform(-16, -9, size=tokens.shape) * rng.choice([-1.0, 1.0], size=tokens.shape)
        tokens = tokens * (1 + relative)
    elif kind == "flipped_tie":
        # Perturbations of 1e-16.5..1e-15 relative until float64 orders some row's scores differently
        # from exact arithmetic (the case a bound exists for); the last draw if none does.
        for _ in range(FLIP_ATTEMPTS):
            relative = 10.0 ** rng.uniform(-16.5, -15, size=tokens.shape) * rng.choice([-1.0, 1.0], size=tokens.shape)
            candidate = tokens * (1 + relative)
            if _float_order_flips(candidate, A):
                break
        tokens = candidate
    elif kind == "overflow":
        # Scores of about 2^(2e) d |A|: e near 511 puts them at float64's overflow edge, 2^1024.
        tokens = np.ldexp(tokens, int(rng.integers(500, 516)))
    elif kind == "tiny_A":
        A = np.ldexp(np.eye(tokens.shape[1]) if A is None else A, -200)
        tokens = np.ldexp(tokens, -int(rng.integers(425, 440)))
    elif kind == "tiny_tokens":
        tokens = np.ldexp(tokens, -int(rng.integers(515, 540)))
    data: dict = {"name": f"float stress {kind} ({base.name})", "tokens": [[Fraction(x) for x in t] for t in tokens],
                  "alpha": Fraction(float(base.alpha)), "outside_hypotheses": True}
    if A is not None:
        data["A"] = [[Fraction(x) for x in row] for row in A]
    return parse_configuration(data)


def _float_order_flips(tokens: np.ndarray, A: np.ndarray | None) -> bool:
    """True when some row's float64 argmax (scores summed in order, as the float engine does) is
    unique and not an exact maximiser of that row."""
    n, d = tokens.shape
    M = np.eye(d) if A is None else A
    exact_tokens = [[Fraction(x) for x in t] for t in tokens]
    exact_M = [[Fraction(x) for x in row] for row in M]
    for u in range(n):
        direction = [0.0] * d
        for r in range(d):
            for c in range(d):
                direction[r] += float(tokens[u][c]) * float(M[r][c])
        scores = []
        for v in range(n):
            total = 0.0
            for r in range(d):
                total += direction[r] * float(tokens[v][r])
            scores.append(total)
        best = max(scores)
        runner_up = max((x for x in scores if x != best), default=-math.inf)
        if scores.count(best) != 1 or best - runner_up > 1e-12 * abs(best):
            continue  # a tie, or a gap far above rounding: no flip to find here
        exact_direction = [sum(exact_M[r][c] * exact_tokens[u][c] for c in range(d)) for r in range(d)]
        exact = [sum(exact_direction[r] * exact_tokens[v][r] for r in range(d)) for v in range(n)]
        if exact[scores.index(best)] != max(exact):
            return True
    return False


def float_stress_configurations(kind: str | Sequence[str] | None = None) -> st.SearchStrategy[Configuration]:
    """Hypothesis strategy over :func:`float_stress_configuration` (shrinks towards seed 0)."""
    kinds = FLOAT_STRESS_KINDS if kind is None else ((kind,) if isinstance(kind, str) else tuple(kind))
    return st.builds(float_stress_configuration, st.integers(0, 2 ** 32 - 1), st.sampled_from(kinds))
