"""Closed-form certificates (docs/theory.md D9): the whole future of a configuration in finitely many exact checks.

An *exponential polynomial* is a finite sum of terms ``c t^a beta^t`` with ``c`` rational (a
scalar) or in Q^d (a vector), ``a >= 0`` an integer and ``beta`` rational with
``0 < beta <= 1``. When every token j has such a path ``zhat_j(t)`` and a set ``F_j`` with

(i)   ``zhat_j(0) = z_j^k``;
(ii)  ``zhat_j(t+1) = r zhat_j(t) + gamma mean_{v in F_j} zhat_v(t)`` identically in t
      (``r = 1/(1+alpha)``, ``gamma = 1 - r``);
(iii) the scores ``s_jv(t) = <A zhat_j(t), zhat_v(t)>`` identically equal for v in F_j and
      ``s_jv(t) - s_jw(t) > 0`` for w not in F_j and every integer t >= 0,

then ``z_j^{k+t} = zhat_j(t)`` and ``C_j(Z^{k+t}) = F_j`` for every t >= 0: the layers from k
on are known for ever. When (iii) first fails at t*, ``zhat(t*)`` are the exact positions of
layer k + t* and the search *jumps* there instead of simulating the layers between; a chain of
such segments ends with one valid for all t.

What is exact here, and how:

* identities (ii) and the ties of (iii) are decided by coefficients: the functions
  ``t^a beta^t`` with distinct (a, beta) are linearly independent on the integers t >= 0;
* a strict inequality for *every* t >= 0 is decided by an explicit threshold T beyond which
  the leading term dominates (docs/theory.md D9, "Deciding a sign"), and exactly below T;
* evaluation at consecutive t is integer arithmetic: with ``beta = P / L`` over a common
  denominator L, ``f(t) D L^t`` is an integer whose sign is the sign of ``f(t)``;
* the first t at which a sign fails, over a long range, is found by bisection: on an interval
  each term's ratio to the leading term is unimodal in t, so a few exact values bound the sum
  on all of it; intervals the bounds cannot settle are scanned once short;
* a segment first takes a few layers from the exact engine (most patterns that change, change
  early), and decides the rest by the closed form.
* a segment's n^2 strict conditions are never all kept: their integer coefficients are taken a
  block of rows at a time (numpy int64 under a bound that rules out overflow, Python integers
  beyond it); one whose leading coefficient is positive and whose sign threshold is within the
  probed layers is decided there (the threshold by a float domination test with a proven margin,
  exactly where the floats cannot tell), the others one by one, in the same order as ever.

One refinement of docs/theory.md's threshold: only terms whose coefficient has the sign opposite
to the leading coefficient can pull ``f`` across zero (the others have the leading sign for
every t >= 1), so only they enter the sum of the ``R_i``. With all of them it is docs/theory.md's
threshold; with fewer terms the same argument gives a threshold at most as large.

The independent checker of these certificates is a separate program with its own code
(standard library only); this module builds them.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from fractions import Fraction
from math import comb, lcm
from typing import Any, Iterable, Iterator, Literal, Mapping, NamedTuple, Sequence, overload

import numpy as np
from flint import fmpz

from .exact_dynamics import exact_layers
from .formatting import counted
from .numbers import InputError, rational_to_str, to_rational

__all__ = [
    "FORMAT",
    "Term",
    "ExpPoly",
    "ThresholdTooLarge",
    "SignDecision",
    "sign_threshold",
    "decide_positive",
    "first_nonzero",
    "solve_recurrence",
    "Condition",
    "Segment",
    "Chain",
    "build_segment",
    "certify",
    "exppoly_to_json",
    "exppoly_from_json",
    "chain_to_json",
    "chain_from_json",
    "DEFAULT_MAX_THRESHOLD",
    "DEFAULT_MAX_SEGMENTS",
    "DEFAULT_MAX_LAYER",
    "DEFAULT_PROBE_LAYERS",
]

FORMAT = "hardmax-verify/closed-form-v1"
# Largest t scanned exactly when deciding one sign (evaluations up to it grow with t * log of the bases).
DEFAULT_MAX_THRESHOLD = 20_000
DEFAULT_MAX_SEGMENTS = 64
DEFAULT_MAX_LAYER = 1_000_000
# Layers taken from the exact engine before the closed form decides the rest (most changes come early).
DEFAULT_PROBE_LAYERS = 4
# Longest number read back from a certificate (positions after a jump of t layers have about
# t log10(1 + 1/alpha) digits).
MAX_CERTIFICATE_DIGITS = 2_000_000

Point = tuple[Fraction, ...]
Coefficient = Any  # Fraction (scalar exp-poly) or tuple[Fraction, ...] (vector exp-poly)


class Term(NamedTuple):
    """One term ``coefficient * t^power * base^t``."""

    coefficient: Coefficient
    power: int
    base: Fraction


def _is_zero_coefficient(c: Coefficient) -> bool:
    return not any(c) if isinstance(c, tuple) else c == 0


def _add_coefficients(x: Coefficient, y: Coefficient) -> Coefficient:
    return tuple(a + b for a, b in zip(x, y)) if isinstance(x, tuple) else x + y


def _scale_coefficient(c: Coefficient, s: Fraction) -> Coefficient:
    return tuple(s * a for a in c) if isinstance(c, tuple) else s * c


class ExpPoly:
    """An exponential polynomial ``sum c t^a beta^t`` in canonical form.

    Terms with equal (power, base) are merged, zero coefficients dropped, and the terms kept
    sorted by (base, power): the last term is the leading one (it dominates as t grows).
    ``dim`` is None for a scalar exp-poly, d for one with coefficients in Q^d.
    """

    __slots__ = ("terms", "dim", "_hash")

    def __init__(self, terms: Iterable[Term | tuple[Any, int, Any]] = (), *, dim: int | None = None) -> None:
        merged: dict[tuple[Fraction, int], Coefficient] = {}
        for index, term in enumerate(terms):
            coefficient, power, base = term
            if isinstance(power, bool) or not isinstance(power, int) or power < 0:
                raise InputError(f"terms[{index}].power", f"expected an integer >= 0, got {power!r}")
            base = to_rational(base, field=f"terms[{index}].base")
            if not 0 < base <= 1:
                raise InputError(f"terms[{index}].base", f"expected 0 < base <= 1, got {rational_to_str(base)}")
            if dim is None:
                if isinstance(coefficient, (tuple, list)):
                    raise InputError(f"terms[{index}].coefficient", "expected a number for a scalar exp-poly")
                coefficient = to_rational(coefficient, field=f"terms[{index}].coefficient")
            else:
                if not isinstance(coefficient, (tuple, list)) or len(coefficient) != dim:
                    raise InputError(f"terms[{index}].coefficient", f"expected a vector of {dim} numbers")
                coefficient = tuple(to_rational(x, field=f"terms[{index}].coefficient[{c}]")
                                    for c, x in enumerate(coefficient))
            key = (base, power)
            merged[key] = _add_coefficients(merged[key], coefficient) if key in merged else coefficient
        self._set(merged, dim)

    @classmethod
    def _from_dict(cls, merged: Mapping[tuple[Fraction, int], Coefficient], dim: int | None) -> "ExpPoly":
        """Internal constructor: keys (base, power) already valid, coefficients already exact."""
        f = cls.__new__(cls)
        f._set(merged, dim)
        return f

    @classmethod
    def _from_sorted(cls, terms: tuple[Term, ...], dim: int | None) -> "ExpPoly":
        """Internal constructor: terms already canonical (merged, nonzero, sorted by (base, power))."""
        f = cls.__new__(cls)
        f.terms, f.dim, f._hash = terms, dim, None
        return f

    def _set(self, merged: Mapping[tuple[Fraction, int], Coefficient], dim: int | None) -> None:
        self.terms: tuple[Term, ...] = tuple(Term(c, power, base) for (base, power), c in sorted(merged.items())
                                             if not _is_zero_coefficient(c))
        self.dim = dim
        self._hash: int | None = None

    # ------------------------------------------------------------------ construction helpers

    @classmethod
    def constant(cls, value: Coefficient) -> "ExpPoly":
        """The constant ``value`` (a number, or a vector for a vector exp-poly)."""
        if isinstance(value, (tuple, list)):
            return cls([(tuple(value), 0, 1)], dim=len(value))
        return cls([(value, 0, 1)])

    @classmethod
    def zero(cls, dim: int | None = None) -> "ExpPoly":
        return cls._from_dict({}, dim)

    # ------------------------------------------------------------------ algebra

    def _dict(self) -> dict[tuple[Fraction, int], Coefficient]:
        return {(t.base, t.power): t.coefficient for t in self.terms}

    def _check_same_kind(self, other: "ExpPoly") -> None:
        if not isinstance(other, ExpPoly) or other.dim != self.dim:
            raise ValueError(f"cannot combine exp-polys of dimensions {self.dim} and "
                             f"{getattr(other, 'dim', type(other).__name__)}")

    def __add__(self, other: "ExpPoly") -> "ExpPoly":
        self._check_same_kind(other)
        merged = self._dict()
        for t in other.terms:
            key = (t.base, t.power)
            merged[key] = _add_coefficients(merged[key], t.coefficient) if key in merged else t.coefficient
        return ExpPoly._from_dict(merged, self.dim)

    def __neg__(self) -> "ExpPoly":
        return self.scaled(Fraction(-1))

    def __sub__(self, other: "ExpPoly") -> "ExpPoly":
        return self + (-other)

    def scaled(self, s: Fraction | int) -> "ExpPoly":
        """``s * f`` for a rational s."""
        s = Fraction(s)
        return ExpPoly._from_dict({(t.base, t.power): _scale_coefficient(t.coefficient, s) for t in self.terms},
                                  self.dim)

    def times(self, other: "ExpPoly") -> "ExpPoly":
        """The product with a *scalar* exp-poly (bases multiply, powers add)."""
        if not isinstance(other, ExpPoly) or other.dim is not None:
            raise ValueError("times: the other factor must be a scalar exp-poly")
        merged: dict[tuple[Fraction, int], Coefficient] = {}
        for x in self.terms:
            for y in other.terms:
                key = (x.base * y.base, x.power + y.power)
                c = _scale_coefficient(x.coefficient, y.coefficient)
                merged[key] = _add_coefficients(merged[key], c) if key in merged else c
        return ExpPoly._from_dict(merged, self.dim)

    def apply(self, M: Sequence[Sequence[Fraction]]) -> "ExpPoly":
        """The vector exp-poly ``M f(t)`` (M applied to every coefficient)."""
        if self.dim is None:
            raise ValueError("apply: needs a vector exp-poly")
        rows = [[Fraction(x) for x in row] for row in M]
        if any(len(row) != self.dim for row in rows):
            raise ValueError(f"apply: matrix columns must equal the dimension {self.dim}")
        merged = {(t.base, t.power): tuple(sum((a * c for a, c in zip(row, t.coefficient)), Fraction(0))
                                           for row in rows) for t in self.terms}
        return ExpPoly._from_dict(merged, len(rows))

    def dot(self, other: "ExpPoly") -> "ExpPoly":
        """The scalar exp-poly ``<f(t), g(t)>`` of two vector exp-polys (bases multiply, powers add)."""
        if self.dim is None:
            raise ValueError("dot: needs vector exp-polys")
        self._check_same_kind(other)
        merged: dict[tuple[Fraction, int], Fraction] = {}
        for x in self.terms:
            for y in other.terms:
                value = sum((a * b for a, b in zip(x.coefficient, y.coefficient)), Fraction(0))
                if value:
                    key = (x.base * y.base, x.power + y.power)
                    merged[key] = merged.get(key, Fraction(0)) + value
        return ExpPoly._from_dict(merged, None)

    def inner(self, other: "ExpPoly", A: Sequence[Sequence[Fraction]] | None = None) -> "ExpPoly":
        """The score ``<A f(t), g(t)>`` (plain dot product when A is None)."""
        return (self if A is None else self.apply(A)).dot(other)

    def component(self, index: int) -> "ExpPoly":
        """Coordinate ``index`` of a vector exp-poly, as a scalar exp-poly."""
        if self.dim is None:
            raise ValueError("component: needs a vector exp-poly")
        return ExpPoly._from_dict({(t.base, t.power): t.coefficient[index] for t in self.terms}, None)

    def shift(self) -> "ExpPoly":
        """``f(t + 1)``: each ``c (t+1)^a beta^(t+1)`` expands into ``c beta binom(a, i) t^i beta^t``."""
        merged: dict[tuple[Fraction, int], Coefficient] = {}
        for t in self.terms:
            for i in range(t.power + 1):
                c = _scale_coefficient(t.coefficient, t.base * comb(t.power, i))
                key = (t.base, i)
                merged[key] = _add_coefficients(merged[key], c) if key in merged else c
        return ExpPoly._from_dict(merged, self.dim)

    # ------------------------------------------------------------------ inspection

    def is_zero(self) -> bool:
        """Identically zero on the integers t >= 0: every coefficient is zero (linear independence)."""
        return not self.terms

    def leading_term(self) -> Term:
        """The term of largest base, and of largest power among those: it dominates as t grows."""
        if not self.terms:
            raise ValueError("the zero exp-poly has no leading term")
        return self.terms[-1]

    def constant_term(self) -> Coefficient:
        """The coefficient of ``t^0 1^t`` (zero if absent): the limit when every other term decays."""
        for t in self.terms:
            if t.base == 1 and t.power == 0:
                return t.coefficient
        return tuple(Fraction(0) for _ in range(self.dim)) if self.dim is not None else Fraction(0)

    def bases(self) -> tuple[Fraction, ...]:
        return tuple(sorted({t.base for t in self.terms}))

    def highest_power(self) -> int:
        return max((t.power for t in self.terms), default=0)

    def zero_bound(self) -> int:
        """M = sum over distinct bases of (1 + highest power): a nonzero scalar exp-poly has at
        most M - 1 real zeros, so among any M consecutive integers one is not a zero."""
        highest: dict[Fraction, int] = {}
        for t in self.terms:
            highest[t.base] = max(highest.get(t.base, 0), t.power)
        return sum(1 + a for a in highest.values())

    # ------------------------------------------------------------------ evaluation

    def at(self, t: int) -> Coefficient:
        """The exact value ``f(t)`` at an integer t >= 0."""
        if isinstance(t, bool) or not isinstance(t, int) or t < 0:
            raise ValueError(f"exp-polys are evaluated at integers t >= 0, got {t!r}")
        powers: dict[Fraction, Fraction] = {}
        if self.dim is None:
            total = Fraction(0)
            for term in self.terms:
                b = powers.setdefault(term.base, term.base ** t)
                total += term.coefficient * (t ** term.power) * b
            return total
        totals = [Fraction(0)] * self.dim
        for term in self.terms:
            b = powers.setdefault(term.base, term.base ** t)
            factor = (t ** term.power) * b
            if factor:
                totals = [x + factor * c for x, c in zip(totals, term.coefficient)]
        return tuple(totals)

    def values(self, start: int, stop: int) -> Iterator[Fraction]:
        """Exact values of a scalar exp-poly at t = start, ..., stop - 1 (integer arithmetic)."""
        form = _IntegerForm(self)
        for t, numerator in zip(range(start, stop), form.numerators(start, stop)):
            yield Fraction(numerator, form.coefficient_denominator * form.base_denominator ** t)

    # ------------------------------------------------------------------ comparison and display

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpPoly) and other.dim == self.dim and other.terms == self.terms

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self.dim, self.terms))
        return self._hash

    def __repr__(self) -> str:
        return f"ExpPoly({self})"

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for t in self.terms:
            c = (("(" + ", ".join(rational_to_str(x) for x in t.coefficient) + ")") if self.dim is not None
                 else rational_to_str(t.coefficient))
            factors = [c]
            if t.power:
                factors.append("t" if t.power == 1 else f"t^{t.power}")
            if t.base != 1:
                factors.append(f"({rational_to_str(t.base)})^t")
            parts.append(" ".join(factors))
        return " + ".join(parts)


class _IntegerForm:
    """A scalar exp-poly over common denominators: ``f(t) = N(t) / (D L^t)`` with the integer
    ``N(t) = sum_b p_b(t) P_b^t``, ``b = P_b / L`` and ``p_b`` an integer polynomial. ``N(t)``
    has the sign of ``f(t)``."""

    def __init__(self, f: ExpPoly) -> None:
        if f.dim is not None:
            raise ValueError("sign and value computations need a scalar exp-poly")
        self.base_denominator = lcm(*(t.base.denominator for t in f.terms)) if f.terms else 1
        self.coefficient_denominator = lcm(*(t.coefficient.denominator for t in f.terms)) if f.terms else 1
        polys: dict[int, list[int]] = {}
        for t in f.terms:
            P = t.base.numerator * (self.base_denominator // t.base.denominator)
            poly = polys.setdefault(P, [])
            poly.extend([0] * (t.power + 1 - len(poly)))
            poly[t.power] = int(t.coefficient * self.coefficient_denominator)
        self.polys = sorted(polys.items())

    def numerators(self, start: int, stop: int) -> Iterator[int]:
        powers = [pow(P, start) for P, _ in self.polys]
        for t in range(start, stop):
            total = 0
            for (_, poly), Pt in zip(self.polys, powers):
                value = 0
                for c in reversed(poly):  # Horner in t
                    value = value * t + c
                if value:
                    total += value * Pt
            yield total
            powers = [Pt * P for (P, _), Pt in zip(self.polys, powers)]


# ----------------------------------------------------------------------------- signs for every t


class ThresholdTooLarge(Exception):
    """Deciding the sign needs an exact scan beyond the allowed threshold."""

    def __init__(self, needed_at_least: int, limit: int) -> None:
        super().__init__(f"the sign threshold exceeds {limit} (at least {needed_at_least})")
        self.needed_at_least, self.limit = needed_at_least, limit


@dataclass(frozen=True)
class SignDecision:
    """Whether ``f(t) > 0`` for every integer ``t >= start``.

    ``threshold``: for every t >= threshold, f(t) has the sign of its leading coefficient (the
    scan covered start <= t < threshold); ``first_failure``: the least t >= start with
    f(t) <= 0, None when f is positive for every such t.
    """

    positive: bool
    threshold: int
    first_failure: int | None


def _opposite_terms(f: ExpPoly) -> tuple[Term, list[Term]]:
    lead = f.leading_term()
    sign = lead.coefficient > 0
    return lead, [t for t in f.terms[:-1] if (t.coefficient > 0) != sign]


def _domination_start(lead: Term, others: Sequence[Term]) -> int:
    """t_0 = max(1, t_i): every R_i(t) = |c_i/c| t^(a_i - a) q_i^t is nonincreasing for t >= t_0.

    With q = b_i / b < 1 and e = a_i - a > 0, t_i = ceil(e / (1 - q)) = ceil(e b / (b - b_i)),
    computed on numerators and denominators.
    """
    t0 = 1
    p, q = lead.base.numerator, lead.base.denominator
    for t in others:
        excess = t.power - lead.power
        if excess > 0 and t.base < lead.base:
            pi, qi = t.base.numerator, t.base.denominator
            t0 = max(t0, -((-excess * p * qi) // (p * qi - pi * q)))
    return t0


def _dominates(lead: Term, others: Sequence[Term], T: int) -> bool:
    """sum_i R_i(T) < 1, decided in integers: sum |c_i| T^a_i P_i^T < |c| T^a P^T."""
    L = lcm(lead.base.denominator, *(t.base.denominator for t in others))
    D = lcm(lead.coefficient.denominator, *(t.coefficient.denominator for t in others))

    def size(t: Term) -> int:
        P = t.base.numerator * (L // t.base.denominator)
        return abs(int(t.coefficient * D)) * T ** t.power * pow(P, T)

    return sum(size(t) for t in others) < size(lead)


def _threshold_or_none(f: ExpPoly, cap: int) -> int | None:
    """The threshold of :func:`sign_threshold`, or None when it is >= cap."""
    lead, others = _opposite_terms(f)
    if not others:
        return 1  # every term has the leading sign for t >= 1
    t0 = _domination_start(lead, others)
    if t0 >= cap:
        return None
    low, T = t0 - 1, t0  # the sum of the R_i is nonincreasing from t_0 on: double, then bisect
    while not _dominates(lead, others, T):
        low = T
        T *= 2
        if T >= cap:
            if low + 1 >= cap or not _dominates(lead, others, cap - 1):
                return None
            T = cap - 1
            break
    while T - low > 1:
        middle = (low + T) // 2
        if _dominates(lead, others, middle):
            T = middle
        else:
            low = middle
    return T


def sign_threshold(f: ExpPoly, *, max_threshold: int = DEFAULT_MAX_THRESHOLD) -> int:
    """An integer T >= 1 such that ``f(t)`` has the sign of the leading coefficient for all t >= T.

    docs/theory.md D9: dividing by the leading term ``c t^a beta^t``, each term of opposite sign
    gives ``R_i(t) = |c_i / c| t^(a_i - a) q_i^t`` (q_i = beta_i / beta), nonincreasing for
    t >= t_i; T is the least t >= t_0 = max t_i with ``sum R_i(T) < 1`` (found by doubling
    from t_0 and bisecting). Raises :class:`ThresholdTooLarge` beyond ``max_threshold``.
    """
    if f.dim is not None or f.is_zero():
        raise ValueError("sign_threshold needs a nonzero scalar exp-poly")
    T = _threshold_or_none(f, max_threshold + 1)
    if T is None:
        raise ThresholdTooLarge(max_threshold + 1, max_threshold)
    return T


def _scan(f: ExpPoly, start: int, stop: int) -> int | None:
    """The least t in [start, stop) with f(t) <= 0, by exact evaluation of every t."""
    if stop <= start:
        return None
    for t, numerator in zip(range(start, stop), _IntegerForm(f).numerators(start, stop)):
        if numerator <= 0:
            return t
    return None


class _Ratios:
    """The terms of f divided by its leading term: ``f(t) = c t^a b^t X(t)`` with
    ``X(t) = 1 + sum_i s_i R_i(t)``, ``R_i(t) = |c_i / c| t^(a_i - a) (b_i / b)^t`` and s_i = +1
    for a term of the leading sign, -1 otherwise. For t >= 1 the sign of f(t) is sign(c) times
    the sign of X(t).

    Each R_i is unimodal on the integers t >= 1 (``R_i(t+1) / R_i(t) = (1 + 1/t)^e q_i``
    decreases in t), so on an interval its minimum is at an end and its maximum at an end or at
    its integer peak: bounds of X on a whole interval from a few exact values. Values are kept
    as integers over the interval's common scale ``|C| t^a P^t`` (bases times L, coefficients
    times D), and compared by cross-multiplication.
    """

    def __init__(self, f: ExpPoly) -> None:
        lead = f.leading_term()
        self.sign = 1 if lead.coefficient > 0 else -1
        L = lcm(*(t.base.denominator for t in f.terms))
        D = lcm(*(t.coefficient.denominator for t in f.terms))

        def scaled(t: Term) -> tuple[int, int, int]:
            return abs(int(t.coefficient * D)), t.power, t.base.numerator * (L // t.base.denominator)

        self.lead = scaled(lead)
        self.others = [(scaled(t), 1 if (t.coefficient > 0) == (self.sign > 0) else -1, _peak(t, lead))
                       for t in f.terms[:-1]]
        self._powers: dict[tuple[int, int], int] = {}

    def _value(self, term: tuple[int, int, int], t: int) -> int:
        C, a, P = term
        key = (P, t)
        power = self._powers.get(key)
        if power is None:
            if len(self._powers) > 256:
                self._powers.clear()
            power = self._powers[key] = pow(P, t)
        return C * t ** a * power

    def _sign_of(self, parts: dict[int, int]) -> int:
        """Sign of 1 + sum_t parts[t] / scale(t), scale(t) = |C| t^a P^t > 0.

        First from enclosures of each quotient on its leading bits (cheap; rigorous: the
        truncations are rounded outwards), exactly by cross-multiplication only when the
        enclosure of the sum contains 0.
        """
        scales = {t: self._value(self.lead, t) for t in parts}
        low = high = Fraction(1)
        for t, x in parts.items():
            below, above = _enclose(abs(x), scales[t])
            if x < 0:
                below, above = -above, -below
            low += below
            high += above
        if low > 0:
            return 1
        if high < 0:
            return -1
        points = sorted(parts)
        product = 1
        for t in points:
            product *= scales[t]
        total = product
        for t in points:
            others = 1
            for u in points:
                if u != t:
                    others *= scales[u]
            total += parts[t] * others
        return (total > 0) - (total < 0)

    def bounds(self, lo: int, hi: int) -> tuple[int, int]:
        """Signs of a lower and an upper bound of X on the integers of [lo, hi] (1 <= lo <= hi)."""
        low: dict[int, int] = {}
        high: dict[int, int] = {}
        for term, s, peak in self.others:
            if hi <= peak:  # nondecreasing on [lo, hi]
                smallest, largest = lo, hi
            elif lo >= peak:  # nonincreasing
                smallest, largest = hi, lo
            else:  # the peak inside: its value is the maximum, 0 bounds the minimum
                smallest, largest = None, peak
            if s > 0:
                if smallest is not None:
                    low[smallest] = low.get(smallest, 0) + self._value(term, smallest)
                high[largest] = high.get(largest, 0) + self._value(term, largest)
            else:
                low[largest] = low.get(largest, 0) - self._value(term, largest)
                if smallest is not None:
                    high[smallest] = high.get(smallest, 0) - self._value(term, smallest)
        return self._sign_of(low), self._sign_of(high)


_ENCLOSURE_BITS = 96
_NEGLIGIBLE = Fraction(1, 2 ** 256)


def _enclose(x: int, y: int) -> tuple[Fraction, Fraction]:
    """Rational bounds below <= x / y <= above (x >= 0, y > 0) with numbers of about 96 bits.

    x and y are cut to their leading bits, x in [xt, xt + 1) 2^sx and y in [yt, yt + 1) 2^sy,
    so x / y lies in [xt / (yt + 1), (xt + 1) / yt] 2^(sx - sy). A quotient below 2^-256 is
    enclosed in [0, 2^-256] (such terms cannot decide a sign the others leave open).
    """
    if x == 0:
        return Fraction(0), Fraction(0)
    if x.bit_length() - y.bit_length() + 1 <= -256:  # x < 2^bits(x), y >= 2^(bits(y) - 1)
        return Fraction(0), _NEGLIGIBLE
    sx = max(0, x.bit_length() - _ENCLOSURE_BITS)
    sy = max(0, y.bit_length() - _ENCLOSURE_BITS)
    xt, yt = x >> sx, y >> sy
    shift = sx - sy
    scale = Fraction(2) ** shift
    exact_x, exact_y = sx == 0, sy == 0
    below = Fraction(xt, yt if exact_y else yt + 1) * scale
    above = Fraction(xt if exact_x else xt + 1, yt) * scale
    return below, above


def _peak(term: Term, lead: Term) -> int:
    """The least integer t >= 1 from which R(t) = |c_i/c| t^e q^t (e = a_i - a, q = b_i / b) is
    nonincreasing: R(t+1) <= R(t) iff (t+1)^e p <= t^e r for q = p / r."""
    e = term.power - lead.power
    if e <= 0:
        return 1
    p = term.base.numerator * lead.base.denominator
    r = term.base.denominator * lead.base.numerator  # p < r: a larger power needs a smaller base
    low, high = 1, _domination_start(lead, [term])  # (1 + 1/t)^e q <= 1 holds at t_i (docs/theory.md D9)
    while low < high:
        middle = (low + high) // 2
        if (middle + 1) ** e * p <= middle ** e * r:
            high = middle
        else:
            low = middle + 1
    return low


# Intervals shorter than this are scanned exactly; longer ones are bounded first.
_SCAN_LENGTH = 64


def _first_at_most_zero(f: ExpPoly, start: int, stop: int) -> int | None:
    """The least t in [start, stop) with f(t) <= 0, None if there is none.

    Short ranges are scanned. A long range is cut in halves, leftmost first, and an interval is
    skipped when the bounds of :class:`_Ratios` show f > 0 on all of it (or answered by its
    first point when they show f <= 0 on all of it); what the bounds leave open is scanned once
    it is short. Exact throughout; far fewer evaluations than a scan when f keeps away from 0.
    """
    if stop - start <= _SCAN_LENGTH:
        return _scan(f, start, stop)
    if start == 0:
        if _scan(f, 0, 1) is not None:
            return 0
        start = 1
    ratios = _Ratios(f)
    pending = [(start, stop - 1)]
    while pending:
        lo, hi = pending.pop()
        if hi - lo < _SCAN_LENGTH:
            found = _scan(f, lo, hi + 1)
            if found is not None:
                return found
            continue
        low, high = ratios.bounds(lo, hi)
        if (ratios.sign > 0 and low > 0) or (ratios.sign < 0 and high < 0):
            continue  # f > 0 on the whole interval
        if (ratios.sign > 0 and high <= 0) or (ratios.sign < 0 and low >= 0):
            return lo  # f <= 0 on the whole interval, and nothing before it failed
        middle = (lo + hi) // 2
        pending.append((middle + 1, hi))
        pending.append((lo, middle))
    return None


def decide_positive(f: ExpPoly, *, start: int = 0, max_threshold: int = DEFAULT_MAX_THRESHOLD) -> SignDecision:
    """Decide exactly whether ``f(t) > 0`` for every integer ``t >= start``.

    Below the threshold of :func:`sign_threshold` the sign is decided exactly at every t
    (evaluated, or bounded on whole intervals); from it on it is the sign of the leading
    coefficient. With a negative leading coefficient the first failure is at most
    ``max(threshold, start)``.
    """
    if f.dim is not None:
        raise ValueError("decide_positive needs a scalar exp-poly")
    if f.is_zero():
        return SignDecision(False, start, start)
    T = sign_threshold(f, max_threshold=max_threshold)
    if f.leading_term().coefficient < 0:
        failure = _first_at_most_zero(f, start, max(T, start) + 1)
        assert failure is not None, "beyond the threshold the sign is the leading coefficient's"
        return SignDecision(False, T, failure)
    failure = _first_at_most_zero(f, start, T)
    return SignDecision(failure is None, T, failure)


def first_nonzero(f: ExpPoly, *, start: int = 0) -> int | None:
    """The least integer t >= start with ``f(t) != 0``, None when f is identically zero.

    Found by t = start + M - 1 (M of :meth:`ExpPoly.zero_bound`): a count of nonzero terms is
    not enough, ``t (1 - t) 2^-t`` vanishes at t = 0 and t = 1.
    """
    if f.dim is not None:
        raise ValueError("first_nonzero needs a scalar exp-poly")
    if f.is_zero():
        return None
    stop = start + f.zero_bound()
    for t, numerator in zip(range(start, stop), _IntegerForm(f).numerators(start, stop)):
        if numerator != 0:
            return t
    raise AssertionError("a nonzero exp-poly has at most M - 1 real zeros")  # pragma: no cover


# ----------------------------------------------------------------------------- the recurrence


def solve_recurrence(lam: Fraction | int, g: ExpPoly, z0: Coefficient) -> ExpPoly:
    """The exact solution of ``z(t+1) = lam z(t) + g(t)``, ``z(0) = z0`` (docs/theory.md D9).

    For each base beta of g, a particular solution ``p_beta(t) beta^t`` with p_beta a
    polynomial solves ``beta p(t+1) - lam p(t) = g_beta(t)``: of the degree of g_beta when
    beta != lam, of one degree more and without constant term when beta == lam; its
    coefficients come from the top degree down. Then ``(z0 - sum p_beta(0)) lam^t`` is added.
    """
    lam = Fraction(lam)
    if not 0 < lam <= 1:
        raise ValueError(f"solve_recurrence: need 0 < lam <= 1, got {lam}")
    dim = g.dim
    zero: Coefficient = tuple(Fraction(0) for _ in range(dim)) if dim is not None else Fraction(0)
    by_base: dict[Fraction, dict[int, Coefficient]] = {}
    for term in g.terms:
        by_base.setdefault(term.base, {})[term.power] = term.coefficient
    merged: dict[tuple[Fraction, int], Coefficient] = {}
    at_zero = zero
    for beta, poly in by_base.items():
        degree = max(poly)
        x: dict[int, Coefficient] = {}
        if beta != lam:
            # (beta - lam) x_m + beta sum_{i > m} binom(i, m) x_i = g_m
            for m in range(degree, -1, -1):
                rest = poly.get(m, zero)
                for i in range(m + 1, degree + 1):
                    rest = _add_coefficients(rest, _scale_coefficient(x[i], -beta * comb(i, m)))
                x[m] = _scale_coefficient(rest, 1 / (beta - lam))
        else:
            # beta (p(t+1) - p(t)) = g: beta sum_{i > m} binom(i, m) x_i = g_m, x_0 = 0
            for m in range(degree, -1, -1):
                rest = _scale_coefficient(poly.get(m, zero), 1 / beta)
                for i in range(m + 2, degree + 2):
                    rest = _add_coefficients(rest, _scale_coefficient(x[i], Fraction(-comb(i, m))))
                x[m + 1] = _scale_coefficient(rest, Fraction(1, m + 1))
        for power, c in x.items():
            merged[(beta, power)] = c
        if 0 in x:
            at_zero = _add_coefficients(at_zero, x[0])
    z0 = tuple(Fraction(v) for v in z0) if dim is not None else Fraction(z0)
    free = _add_coefficients(z0, _scale_coefficient(at_zero, Fraction(-1)))
    key = (lam, 0)
    merged[key] = _add_coefficients(merged[key], free) if key in merged else free
    return ExpPoly._from_dict(merged, dim)


# ----------------------------------------------------------------------------- certificates


@dataclass(frozen=True)
class Condition:
    """One condition of (iii) for token ``token``: a tie ``s_jv == s_jw`` between members v, w
    of F_j (kind "tie"), or ``s_jv - s_jw > 0`` for a member v and a non-member w ("strict")."""

    kind: str
    token: int
    v: int
    w: int

    def describe(self) -> str:
        if self.kind == "tie":
            return f"token {self.token}'s tie between {self.v} and {self.w} breaks"
        return f"token {self.token}: {self.w} reaches the score of its set (member {self.v})"


@dataclass(frozen=True)
class Segment:
    """A closed-form certificate at layer ``layer`` (docs/theory.md D9), or why none was built.

    ``status``:

    * ``certified``: (i)-(iii) hold for every t >= 0, so ``z^(layer+t) = paths(t)`` and the
      attention sets are ``sets`` for ever; ``threshold`` is a t from which every strict
      condition has the sign of its leading term (a hint: checkers recompute their own);
    * ``jump``: (i), (ii) hold and (iii) holds for 0 <= t < ``until`` and fails at
      ``until`` (``failing`` is one failing condition), so ``paths(until)`` are the exact
      positions of layer ``layer + until``, whose attention sets differ from ``sets``;
    * ``unsettled``: no certificate was built (``reason``): no solving order ("mutual
      membership") or a sign that needs a scan beyond the allowed threshold.

    ``sets[j]`` and ``paths[j]`` are per original token (duplicated tokens share a path).
    """

    layer: int
    positions: tuple[Point, ...]
    sets: tuple[frozenset[int], ...]
    paths: tuple[ExpPoly, ...] | None
    status: str
    until: int | None = None
    threshold: int | None = None
    failing: Condition | None = None
    reason: str = ""
    end: tuple[Point, ...] | None = dataclass_field(default=None, compare=False, repr=False)  # zhat(until), kept once computed

    def position(self, t: int) -> tuple[Point, ...]:
        """Exact positions ``zhat(t)`` of every token: the layer ``layer + t`` while the segment holds."""
        if self.paths is None:
            raise ValueError("an unsettled segment has no paths")
        if self.status == "jump" and self.until is not None and t > self.until:
            raise ValueError(f"the segment holds only up to t = {self.until}, not {t}")
        if t == self.until and self.end is not None:
            return self.end
        values: dict[int, Point] = {}
        return tuple(values.setdefault(id(p), p.at(t)) for p in self.paths)

    def power_terms(self) -> bool:
        """Some path carries a power of t (a base repeated along the solving order, e.g. t r^t)."""
        return self.paths is not None and any(term.power > 0 for p in self.paths for term in p.terms)


def _as_matrix(A: Sequence[Sequence[object]] | None, d: int) -> list[list[Fraction]]:
    if A is None:
        return [[Fraction(int(r == c)) for c in range(d)] for r in range(d)]
    return [[to_rational(x, field=f"A[{r}][{c}]") for c, x in enumerate(row)] for r, row in enumerate(A)]


def _solving_order(numerators: Sequence[Sequence[int]], sets: Sequence[tuple[int, ...]],
                   A: list[list[Fraction]]) -> tuple[list[int], list[int]]:
    """Points in an order where every member of a point's set other than itself comes first.

    Among the points ready to solve, the largest A-norm goes first: for distinct tokens and A
    symmetric positive definite that is docs/theory.md D9's order (a member w != j of C_j has a
    strictly larger A-norm). ``numerators``: the points times one positive denominator (the
    norms are compared as integers). Returns (order, the points left without one).
    """
    m = len(numerators)
    a_scale = lcm(*(x.denominator for row in A for x in row))
    A_int = [[int(x * a_scale) for x in row] for row in A]
    norms = [sum(A_int[r][c] * p[c] * p[r] for r in range(len(p)) for c in range(len(p))) for p in numerators]
    waiting = [len(set(sets[u]) - {u}) for u in range(m)]
    dependents: list[list[int]] = [[] for _ in range(m)]
    for u in range(m):
        for v in sets[u]:
            if v != u:
                dependents[v].append(u)
    ready = [(-norms[u], u) for u in range(m) if waiting[u] == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        _, u = heapq.heappop(ready)
        order.append(u)
        for x in dependents[u]:
            waiting[x] -= 1
            if waiting[x] == 0:
                heapq.heappush(ready, (-norms[x], x))
    solved = set(order)
    return order, [u for u in range(m) if u not in solved]


def _cycle(blocked: Sequence[int], sets: Sequence[tuple[int, ...]]) -> list[int]:
    """A cycle of set memberships among the blocked points (each waits for the next)."""
    blocked_set = set(blocked)
    u = blocked[0]
    seen: dict[int, int] = {}
    path: list[int] = []
    while u not in seen:
        seen[u] = len(path)
        path.append(u)
        u = next(v for v in sets[u] if v != u and v in blocked_set)
    return path[seen[u]:]



class _Scores:
    """All scores ``<A zhat_u(t), zhat_v(t)>`` of the solved paths, as integer exp-polys.

    Every path is multiplied by one common denominator and A by its own (a positive factor
    changes neither signs nor identities): each term of each path is an integer coefficient
    vector ``c`` (a row of C) and ``A c`` (a row of C A^T), and a term-by-term score is their
    integer dot product. Bases are replaced by their rank in the sorted table of products of two
    path bases, so that keys and sorting are on small integers. Nothing quadratic in the number
    of paths is kept: a score is computed when asked for (a few recent ones are remembered), and
    :func:`_strict_conditions` takes the scores of all pairs a block of rows at a time.
    """

    _CACHE = 4096  # scores remembered (a token's score of its first member is asked for once per condition)

    def __init__(self, paths: Sequence[ExpPoly], A: list[list[Fraction]] | None) -> None:
        bases = sorted({t.base for p in paths for t in p.terms})
        self.products = sorted({b * c for b in bases for c in bases})
        rank = {b: i for i, b in enumerate(self.products)}
        self.product_id = [[rank[b * c] for c in bases] for b in bases]
        base_id = {b: i for i, b in enumerate(bases)}
        D = lcm(*(x.denominator for p in paths for t in p.terms for x in t.coefficient))
        self.rows: list[list[tuple[int, int, int]]] = []  # per path: (row, base id, power)
        coefficients: list[list[int]] = []
        for p in paths:
            self.rows.append([(len(coefficients) + i, base_id[t.base], t.power) for i, t in enumerate(p.terms)])
            coefficients += [[int(x * D) for x in t.coefficient] for t in p.terms]
        self.coefficients = coefficients
        if A is not None and coefficients:
            a_scale = lcm(*(x.denominator for row in A for x in row))
            A_int = [[int(x * a_scale) for x in row] for row in A]
            self.applied = [[sum(a * x for a, x in zip(row, c)) for row in A_int] for c in coefficients]
        else:
            self.applied = coefficients
        self._cache: dict[tuple[int, int], dict[tuple[int, int], int]] = {}

    def score(self, u: int, v: int) -> dict[tuple[int, int], int]:
        """{(product base id, power): coefficient} of <A zhat_u, zhat_v>, up to the common factor."""
        key = (u, v)
        found = self._cache.get(key)
        if found is not None:
            return found
        out: dict[tuple[int, int], int] = {}
        applied, coefficients = self.applied, self.coefficients
        for row_u, base_u, power_u in self.rows[u]:
            products = self.product_id[base_u]
            left = applied[row_u]
            for row_v, base_v, power_v in self.rows[v]:
                value = sum(a * b for a, b in zip(left, coefficients[row_v]))
                if value:
                    k = (products[base_v], power_u + power_v)
                    out[k] = out.get(k, 0) + value
        if len(self._cache) >= self._CACHE:
            self._cache.clear()
        self._cache[key] = out
        return out

    def difference(self, u: int, v: int, w: int) -> dict[tuple[int, int], int]:
        """``s_uv - s_uw`` (a positive multiple of it) as {(product base id, power): coefficient}."""
        merged = dict(self.score(u, v))
        for k, value in self.score(u, w).items():
            merged[k] = merged.get(k, 0) - value
        return merged

    def exp_poly(self, merged: dict[tuple[int, int], int]) -> ExpPoly:
        # Integer coefficients (ints are rationals): the canonical order is the order of the keys.
        return ExpPoly._from_sorted(tuple(Term(value, power, self.products[base])
                                          for (base, power), value in sorted(merged.items()) if value), None)


# Entries of one block of the all-pairs scores (rows x points x keys, in 64-bit words), a bound on its memory.
_BLOCK_ENTRIES = 1 << 19
# A sum of floats from this many terms or fewer is within 2^-42 of its exact value (relative), far
# inside the 2^-40 margin of :func:`_strict_conditions`' domination test.
_FLOAT_TERMS = 1 << 10
_INT64_SAFE = (1 << 62) - 1
_FLOAT_EXPONENT = 900  # coefficients below 2^900 and base powers above 2^-900: no overflow, no subnormals


class _StrictPairs(NamedTuple):
    """The strict conditions (u, v0 = first member of u's set, w) that need a per-condition
    decision, in the order of :func:`build_segment`'s enumeration (u, then w ascending), split by
    the sign of their leading coefficient; and the largest sign threshold of those decided in
    bulk (None if none was)."""

    negative: tuple[Any, Any]  # (u's, w's): arrays of point indices
    positive: tuple[Any, Any]
    bulk_threshold: int | None


def _strict_conditions(scores: _Scores, point_sets: Sequence[tuple[int, ...]], representative: Sequence[int], *,
                       first: int, bulk: bool) -> _StrictPairs:
    """Classify every strict condition of (iii), ``s_u,v0 - s_u,w`` for w outside u's set, a block of rows at a time.

    Exactly as :func:`build_segment` treats each one: a condition with no negative coefficient
    holds for t >= 1 and is dropped; one with every coefficient zero is impossible (an assertion,
    it holds at t = 0); the others are kept by index, by the sign of the leading coefficient. With
    ``bulk``, a kept condition with a positive leading coefficient and no power of t is decided
    here when its sign threshold T (:func:`_threshold_or_none`) is at most ``first``: then the scan
    of [first, T) is empty, the condition holds for every t >= first and only T matters (the
    certified segment's threshold is the largest). T is the least t >= 1 with
    ``c_lead b_lead^t > sum |c_i| b_i^t`` over the negative terms (t_0 = 1 without powers of t, and
    every ratio b_i / b_lead < 1 makes the sum of ratios decrease), tested for t = 1, ..., first.

    Coefficients are exact integers throughout: numpy int64 when a bound on every entry shows
    no overflow, Python integers (numpy object arrays) otherwise. The domination test alone is
    in floats, with a proven margin: every coefficient below 2^900 and every power of a base
    above 2^-900 (no overflow, no subnormal), each side of the inequality a sum of at most
    2^10 products of two rounded numbers, so within a relative 2^-42 of its exact value; a
    difference of the sides beyond 2^-40 of their sum decides, anything closer is left to the
    exact per-condition decision.
    """
    m = len(point_sets)
    types = sorted({(base, power) for rows in scores.rows for _, base, power in rows})
    keys = sorted({(scores.product_id[b1][b2], p1 + p2) for b1, p1 in types for b2, p2 in types})
    key_index = {k: i for i, k in enumerate(keys)}
    dim = len(scores.coefficients[0]) if scores.coefficients else 0
    largest_left = max((abs(x) for row in scores.applied for x in row), default=0)
    largest_right = max((abs(x) for row in scores.coefficients for x in row), default=0)
    pairs_per_key = max((sum(1 for b1, p1 in types for b2, p2 in types if (scores.product_id[b1][b2], p1 + p2) == k)
                         for k in keys), default=0)
    bound = 2 * pairs_per_key * dim * largest_left * largest_right  # |s_u,v0 - s_u,w| per key
    dtype: Any = np.int64 if bound <= _INT64_SAFE else object
    bulk = bulk and len(keys) <= _FLOAT_TERMS and bound.bit_length() <= _FLOAT_EXPONENT
    powers_of_bases: list[Any] = []  # [t - 1][key]: the key's product base to the power t, rounded once
    if bulk:
        for t in range(1, first + 1):
            powers = np.array([float(scores.products[b] ** t) for b, _ in keys])
            if powers.min() < 2.0 ** -_FLOAT_EXPONENT:
                break
            powers_of_bases.append(powers)
    # Per (base id, power) of a term: every point's A c (left) and c (right), zero rows where a path has no such term.
    by_type = {kind: (np.zeros((m, dim), dtype=dtype), np.zeros((m, dim), dtype=dtype)) for kind in types}
    for u, rows in enumerate(scores.rows):
        for row, b, p in rows:
            by_type[(b, p)][0][u] = scores.applied[row]
            by_type[(b, p)][1][u] = scores.coefficients[row]
    contributions = [(key_index[(scores.product_id[b1][b2], p1 + p2)], by_type[(b1, p1)][0], by_type[(b2, p2)][1].T)
                     for b1, p1 in types for b2, p2 in types]
    powered = np.array([p > 0 for _, p in keys], dtype=bool)
    first_member = np.array([members[0] for members in point_sets], dtype=np.intp)
    negative: tuple[list[Any], list[Any]] = ([], [])
    positive: tuple[list[Any], list[Any]] = ([], [])
    threshold: int | None = None
    words = max(1, bound.bit_length() // 64)  # a block of long integers is a block of fewer of them
    step = max(1, _BLOCK_ENTRIES // max(1, m * len(keys) * words))
    for start in range(0, m, step):
        stop = min(m, start + step)
        rows_here = np.arange(start, stop)
        coefficient = np.zeros((len(keys), stop - start, m), dtype=dtype)
        for k, left, right in contributions:
            coefficient[k] += left[start:stop] @ right
        # s_u,v0 - s_u,w for every w, key by key (exact)
        coefficient = coefficient[:, np.arange(stop - start), first_member[start:stop]][:, :, None] - coefficient
        outside = np.ones((stop - start, m), dtype=bool)
        for i, u in enumerate(range(start, stop)):
            outside[i, list(point_sets[u])] = False
        nonzero = coefficient != 0
        vanishing = outside & ~nonzero.any(axis=0)
        if vanishing.any():
            row_at, w_at = (int(x) for x in np.argwhere(vanishing)[0])
            raise AssertionError(f"token {representative[start + row_at]}: the strict condition over "
                                 f"{representative[w_at]} vanishes identically although it holds at t = 0")
        kept = outside & (coefficient < 0).any(axis=0)
        if not kept.any():
            continue
        lead = len(keys) - 1 - np.argmax(nonzero[::-1], axis=0)  # the largest key with a nonzero coefficient
        lead_value = np.take_along_axis(coefficient, lead[None], axis=0)[0]
        lead_positive = lead_value > 0
        exact_needed = kept.copy()
        if powers_of_bases:
            candidate = kept & lead_positive & ~(nonzero & powered[:, None, None]).any(axis=0)
            if candidate.any():
                ci, cw = np.nonzero(candidate)
                values = coefficient[:, ci, cw].astype(np.float64)
                lead_here = lead[ci, cw]
                lead_float = values[lead_here, np.arange(len(ci))]
                negative_part = np.where(values < 0, -values, 0.0)
                open_ = np.ones(len(ci), dtype=bool)
                for t, powers in enumerate(powers_of_bases, start=1):
                    lhs = lead_float * powers[lead_here]
                    rhs = (negative_part * powers[:, None]).sum(axis=0)
                    margin = 2.0 ** -40 * (lhs + rhs)
                    dominated = open_ & (lhs - rhs > margin)
                    unclear = open_ & ~dominated & ~(rhs - lhs > margin)
                    if dominated.any():
                        threshold = t if threshold is None else max(threshold, t)
                        exact_needed[ci[dominated], cw[dominated]] = False
                    open_ &= ~dominated & ~unclear  # an unclear one is left to the exact decision
                    if not open_.any():
                        break
        for target, sign in ((negative, ~lead_positive), (positive, lead_positive)):
            at_row, at_w = np.nonzero(exact_needed & sign)
            target[0].append(rows_here[at_row])
            target[1].append(at_w)
    def joined(lists: tuple[list[Any], list[Any]]) -> tuple[Any, Any]:
        return tuple(np.concatenate(x) if x else np.zeros(0, dtype=np.intp) for x in lists)  # type: ignore[return-value]
    return _StrictPairs(joined(negative), joined(positive), threshold)


def _changed_condition(F: Sequence[tuple[int, ...]], C: Sequence[tuple[int, ...]],
                       representative: Sequence[int]) -> Condition:
    """A condition of (iii) that fails where the sets C differ from F (point indices)."""
    for u, (members, now) in enumerate(zip(F, C)):
        if members == now:
            continue
        joined = sorted(set(now) - set(members))
        kept = [v for v in members if v in now]
        if joined:  # a non-member reached the top score: strict condition against it
            return Condition("strict", representative[u], representative[members[0]], representative[joined[0]])
        if kept:  # some members dropped below the others: their tie broke
            lost = next(v for v in members if v not in now)
            return Condition("tie", representative[u], representative[kept[0]], representative[lost])
    raise AssertionError("the sets differ")  # pragma: no cover


def build_segment(tokens: Sequence[Sequence[object]], *, alpha: object, A: Sequence[Sequence[object]] | None = None,
                  layer: int = 0, max_threshold: int = DEFAULT_MAX_THRESHOLD,
                  probe_layers: int = DEFAULT_PROBE_LAYERS) -> Segment:
    """Build the closed-form certificate at layer ``layer`` from the exact positions ``tokens``.

    The sets are ``F_j = C_j(Z^k)``, computed exactly from the positions; the paths are solved
    in an order where every other member of a token's set is solved first (see
    :func:`solve_recurrence`): ``lambda = r + gamma w_j / W`` when token j (a group of w_j equal
    tokens) is in its set of total weight W, else r, and ``g = (gamma / W) sum w_v zhat_v`` over
    the other members. Then every condition of (iii) is decided exactly: ties by coefficients
    (a broken tie by its first nonzero t), strict inequalities by threshold and exact scan. The
    least failing t >= 1 over all conditions is the segment's ``until``.

    Most patterns that change at all change within a few layers, where the exact engine finds
    the change faster than the threshold analysis: the first ``probe_layers`` layers are taken
    from :func:`verify.core.exact_dynamics.exact_layers` (the segment's paths are still solved, and
    its positions at the change are checked against the engine's). Only a pattern that survives
    the probe is decided for every t, from t = probe_layers + 1 on. ``probe_layers = 0`` decides
    everything by the closed form.
    """
    if isinstance(probe_layers, bool) or not isinstance(probe_layers, int) or probe_layers < 0:
        raise InputError("probe_layers", f"expected an integer >= 0, got {probe_layers!r}")
    engine = exact_layers(tokens, alpha=alpha, A=A)
    start = next(engine)
    groups = start.groups
    points = [start.point(u) for u in range(len(groups.members))]
    weights = groups.weights
    point_sets = start.attention
    d = len(points[0])
    M = _as_matrix(A, d)
    a = to_rational(alpha, field="alpha")
    r = 1 / (1 + a)
    gamma = 1 - r
    positions = tuple(start.positions())
    sets = tuple(frozenset(s) for s in start.attention_sets())
    representative = [members[0] for members in groups.members]

    order, blocked = _solving_order(start.numerators, point_sets, M)
    if blocked:
        cycle = [representative[u] for u in _cycle(blocked, point_sets)]
        reason = ("mutual membership: tokens " + ", ".join(map(str, cycle))
                  + " each have the next (cyclically) in their attention set, so no solving order exists")
        return Segment(layer, positions, sets, None, "unsettled", reason=reason)

    paths: list[ExpPoly | None] = [None] * len(points)
    for u in order:
        members = point_sets[u]
        total = sum(weights[v] for v in members)
        lam = r + gamma * Fraction(weights[u], total) if u in members else r
        g = ExpPoly.zero(d)
        for v in members:
            if v != u:
                g = g + paths[v].scaled(gamma * Fraction(weights[v], total))  # type: ignore[union-attr]
        paths[u] = solve_recurrence(lam, g, points[u])
    solved: list[ExpPoly] = paths  # type: ignore[assignment]
    paths_by_token = tuple(solved[u] for u in groups.point_of)

    for t in range(1, probe_layers + 1):
        later = next(engine)
        if later.attention != point_sets:
            # The engine's positions at the change are zhat(t) (D9's induction; the tests compare them).
            return Segment(layer, positions, sets, paths_by_token, "jump", until=t,
                           failing=_changed_condition(point_sets, later.attention, representative),
                           end=tuple(later.positions()))
    first = probe_layers + 1  # (iii) holds for t <= probe_layers: the engine's sets are the F_j

    # The conditions of (iii), per distinct point; duplicates share them. Most are settled on
    # sight: a tie with every coefficient zero holds identically, a strict condition with every
    # coefficient positive holds for t >= 1 (and at t = 0 by construction). Only the others
    # become exp-polys to decide: ties first, then strict conditions with a negative leading
    # coefficient (they fail for sure), so that the least failing t is found early and bounds
    # the scans of the rest.
    scores = _Scores(solved, None if A is None or M == _as_matrix(None, d) else M)
    ties: list[tuple[Condition, ExpPoly]] = []
    for u in range(len(points)):
        members = point_sets[u]
        v0 = members[0]
        for v in members[1:]:
            merged = scores.difference(u, v, v0)
            if any(merged.values()):
                ties.append((Condition("tie", representative[u], representative[v0], representative[v]),
                             scores.exp_poly(merged)))
    # The strict conditions are O(n^2): classified in blocks, never all kept; those that need a
    # decision of their own are kept by index only, and come back in their enumeration order.
    pairs = _strict_conditions(scores, point_sets, representative, first=first, bulk=first < max_threshold + 1)

    best: int | None = None
    failing: Condition | None = None
    for condition, f in ties:
        # A broken tie shows within any M consecutive integers (M - 1 zeros at most).
        broken = first_nonzero(f, start=first)
        if broken is not None and (best is None or broken < best):
            best, failing = broken, condition
    thresholds: list[int] = [] if pairs.bulk_threshold is None else [pairs.bulk_threshold]
    undecided: list[Condition] = []
    for u_index, w_index in ((int(u), int(w)) for side in (pairs.negative, pairs.positive) for u, w in zip(*side)):
        cap = best if best is not None else max_threshold + 1
        if cap <= first:
            break  # nothing below the least failing t is left to scan
        v0 = point_sets[u_index][0]
        condition = Condition("strict", representative[u_index], representative[v0], representative[w_index])
        f = scores.exp_poly(scores.difference(u_index, v0, w_index))
        T = _threshold_or_none(f, cap)
        negative = f.leading_term().coefficient < 0
        stop = cap if T is None else (T + 1 if negative else T)
        fails = _first_at_most_zero(f, first, min(stop, cap))
        if fails is not None:
            best, failing = fails, condition
        elif T is not None and not negative:
            thresholds.append(T)
        elif best is None:
            undecided.append(condition)  # no failure below the cap, and the sign beyond it is unknown
    if best is not None:
        end = tuple(p.at(best) for p in solved)
        return Segment(layer, positions, sets, paths_by_token, "jump", until=best, failing=failing,
                       end=tuple(end[u] for u in groups.point_of))
    if undecided:
        return Segment(layer, positions, sets, paths_by_token, "unsettled",
                       reason=f"threshold too large: deciding {undecided[0].describe()} for every t needs a scan "
                              f"beyond t = {max_threshold}")
    return Segment(layer, positions, sets, paths_by_token, "certified", threshold=max(thresholds, default=1))


@dataclass(frozen=True)
class Chain:
    """The jump search from layer ``start_layer``: segments ``(k_s, F^(s), paths, t*_s)``.

    Each segment but the last is a ``jump`` whose ``until`` leads to the next one's layer
    (``k_(s+1) = k_s + t*_s``, positions ``zhat^(s)(t*_s)``). ``status`` is ``certified`` when
    the last segment holds for every t, else ``unsettled`` with ``reason`` (the last segment's
    own reason, or the budget that ran out).
    """

    start_layer: int
    segments: tuple[Segment, ...]
    status: str
    reason: str = ""

    @property
    def certified(self) -> bool:
        return self.status == "certified"

    @property
    def final(self) -> Segment:
        return self.segments[-1]

    @property
    def layer(self) -> int:
        """The layer of the last segment: from it on the certificate holds (when certified)."""
        return self.final.layer

    @property
    def jumps(self) -> int:
        return sum(1 for s in self.segments if s.status == "jump")

    def known_until(self) -> int | None:
        """The last layer whose exact positions the chain gives (None: every layer)."""
        if self.certified:
            return None
        last = self.final
        return last.layer + last.until if last.status == "jump" and last.until is not None else last.layer

    def _locate(self, layer: int) -> tuple[Segment, int]:
        known = self.known_until()
        if layer < self.start_layer or (known is not None and layer > known):
            raise ValueError(f"layer {layer} is outside the layers this chain gives "
                             f"({self.start_layer}..{'' if known is None else known})")
        for segment in self.segments:
            end = segment.layer + segment.until if segment.status == "jump" and segment.until is not None else None
            if end is None or layer < end or (segment is self.final and layer == end):
                return segment, layer - segment.layer
        raise AssertionError("unreachable")  # pragma: no cover

    def positions_at(self, layer: int) -> tuple[Point, ...]:
        """Exact positions of every token at ``layer`` (any layer from ``start_layer`` on when certified)."""
        segment, t = self._locate(layer)
        return segment.positions if segment.paths is None else segment.position(t)

    def sets_at(self, layer: int) -> tuple[frozenset[int], ...]:
        """The attention sets ``C_j(Z^layer)`` (not at the end layer of an unsettled chain's last jump)."""
        segment, t = self._locate(layer)
        if segment.status == "jump" and t == segment.until:
            raise ValueError(f"the sets at layer {layer} are the next segment's, which was not built")
        return segment.sets

    def limits(self) -> tuple[Point, ...]:
        """The limit of every token: the constant term of its final path (certified chains only)."""
        if not self.certified:
            raise ValueError("only a certified chain determines the limits")
        for j, path in enumerate(self.final.paths or ()):
            if any(t.base == 1 and t.power > 0 for t in path.terms):  # pragma: no cover - excluded by D1
                raise AssertionError(f"token {j}'s path grows without bound, impossible inside the hull (D1)")
        return tuple(path.constant_term() for path in self.final.paths or ())

    def leaders(self) -> dict[int, int]:
        """Token -> the first layer of the chain at which it leads (C_j = {j}).

        A set is constant within a segment, so leadership can begin only at a segment's first
        layer; by docs/theory.md D3 it then lasts. A chain started at a layer k > 0 cannot say
        whether a token leading at k led before.
        """
        first: dict[int, int] = {}
        for segment in self.segments:
            for j, s in enumerate(segment.sets):
                if s == frozenset({j}) and j not in first:
                    first[j] = segment.layer
        return first

    def power_terms(self) -> bool:
        """Some segment's path carries a power of t (the t r^t term of docs/theory.md D9)."""
        return any(s.power_terms() for s in self.segments)


def certify(tokens: Sequence[Sequence[object]], *, alpha: object, A: Sequence[Sequence[object]] | None = None,
            start_layer: int = 0, max_segments: int = DEFAULT_MAX_SEGMENTS, max_layer: int = DEFAULT_MAX_LAYER,
            max_threshold: int = DEFAULT_MAX_THRESHOLD, probe_layers: int = DEFAULT_PROBE_LAYERS) -> Chain:
    """The jump search of docs/theory.md D9 from the exact positions ``tokens`` of layer ``start_layer``.

    Build the certificate at the current layer; when (iii) first fails at t*, move to the exact
    positions ``zhat(t*)`` of layer k + t* and build again, without simulating the layers
    between. Stops when a segment holds for every t (certified), when a segment cannot be
    built (unsettled, its reason), after ``max_segments`` segments, or when the next segment
    would start beyond layer ``max_layer``. ``probe_layers``: see :func:`build_segment`.
    """
    for name, value in (("start_layer", start_layer), ("max_segments", max_segments), ("max_layer", max_layer),
                        ("max_threshold", max_threshold)):
        if isinstance(value, bool) or not isinstance(value, int) or value < (0 if name == "start_layer" else 1):
            raise InputError(name, f"expected an integer >= {0 if name == 'start_layer' else 1}, got {value!r}")
    segments: list[Segment] = []
    positions: Sequence[Sequence[object]] = tokens
    layer = start_layer
    while True:
        segment = build_segment(positions, alpha=alpha, A=A, layer=layer, max_threshold=max_threshold,
                                probe_layers=probe_layers)
        segments.append(segment)
        if segment.status == "certified":
            return Chain(start_layer, tuple(segments), "certified")
        if segment.status == "unsettled":
            return Chain(start_layer, tuple(segments), "unsettled", segment.reason)
        assert segment.until is not None
        next_layer = layer + segment.until
        if len(segments) >= max_segments:
            return Chain(start_layer, tuple(segments), "unsettled",
                         f"segment budget: {max_segments} segments built, the last ends at layer {next_layer}")
        if next_layer > max_layer:
            return Chain(start_layer, tuple(segments), "unsettled",
                         f"layer budget: the next segment would start at layer {next_layer} > {max_layer}")
        positions = segment.position(segment.until)
        layer = next_layer


# ----------------------------------------------------------------------------- JSON


def _coefficient_to_json(c: Coefficient) -> Any:
    return [rational_to_str(x) for x in c] if isinstance(c, tuple) else rational_to_str(c)


def exppoly_to_json(f: ExpPoly) -> list[dict[str, Any]]:
    """``[{"coefficient": "p/q" or ["p/q", ...], "power": a, "base": "p/q"}, ...]`` in canonical order."""
    return [{"coefficient": _coefficient_to_json(t.coefficient), "power": t.power, "base": rational_to_str(t.base)}
            for t in f.terms]


def exppoly_from_json(data: Any, *, dim: int | None = None, field: str = "exppoly") -> ExpPoly:
    if not isinstance(data, list):
        raise InputError(field, f"expected a list of terms, got {type(data).__name__}")
    terms = []
    for i, term in enumerate(data):
        where = f"{field}[{i}]"
        if not isinstance(term, dict) or set(term) != {"coefficient", "power", "base"}:
            raise InputError(where, "expected an object with exactly the keys coefficient, power, base")
        power = term["power"]
        if isinstance(power, bool) or not isinstance(power, int) or power < 0:
            raise InputError(f"{where}.power", f"expected an integer >= 0, got {power!r}")
        c = term["coefficient"]
        if dim is None:
            coefficient: Coefficient = _exact(c, f"{where}.coefficient")
        else:
            if not isinstance(c, list) or len(c) != dim:
                raise InputError(f"{where}.coefficient", f"expected a list of {dim} numbers")
            coefficient = tuple(_exact(x, f"{where}.coefficient[{k}]") for k, x in enumerate(c))
        base = _exact(term["base"], f"{where}.base")
        if not 0 < base <= 1:
            raise InputError(f"{where}.base", f"expected 0 < base <= 1, got {rational_to_str(base)}")
        terms.append((coefficient, power, base))
    return ExpPoly(terms, dim=dim)


def _segment_to_json(segment: Segment) -> dict[str, Any]:
    # An unsettled segment certifies nothing beyond its start: it is written with its positions only.
    paths = None if segment.paths is None or segment.status == "unsettled" else segment.paths
    data: dict[str, Any] = {"layer": segment.layer, "status": segment.status, "until": segment.until,
                            "sets": [sorted(s) for s in segment.sets],
                            "paths": None if paths is None else [exppoly_to_json(p) for p in paths]}
    if segment.status == "certified":
        data["threshold"] = segment.threshold
    if segment.failing is not None:
        f = segment.failing
        data["failing"] = {"kind": f.kind, "token": f.token, "v": f.v, "w": f.w}
    if paths is None:
        data["positions"] = [[rational_to_str(x) for x in p] for p in segment.positions]
    if segment.reason:
        data["reason"] = segment.reason
    return data


def chain_to_json(chain: Chain) -> dict[str, Any]:
    """The chain as JSON (exact numbers as "p/q" strings): what the independent checker reads.

    Format ``hardmax-verify/closed-form-v1``::

        {"format": "hardmax-verify/closed-form-v1", "start_layer": k, "status": "certified" | "unsettled",
         "reason": "...",                                   # unsettled only
         "segments": [
           {"layer": k_s, "status": "jump" | "certified" | "unsettled",
            "until": t*_s | null,                           # null: holds for every t (the last, certified)
            "sets": [[v, ...], ...],                        # F_j per token (original indices, sorted)
            "paths": [[{"coefficient": ["p/q", ...], "power": a, "base": "p/q"}, ...], ...] | null,
            "threshold": T,                                 # certified segment: a hint, never trusted
            "failing": {"kind": "tie" | "strict", "token": j, "v": v, "w": w},   # jump: one failing condition
            "positions": [["p/q", ...], ...],               # only when "paths" is null (unsettled)
            "reason": "..."}],                              # unsettled segment only
         "leaders": [{"token": j, "first_layer": k}, ...],  # certified only: F_j = {j}, first segment
         "limits": [["p/q", ...], ...]}                     # certified only: constant terms of the final paths

    Terms are in canonical order (by base, then power; equal (power, base) merged, zero
    coefficients dropped). Nothing in it is trusted by a checker: the first segment's start is
    the caller's layer, every later start is the previous segment's ``zhat(until)`` and layer
    ``k_s + until``, identities are re-decided by coefficients, signs by the checker's own
    thresholds. An unsettled segment is written with its positions only.
    """
    data: dict[str, Any] = {"format": FORMAT, "start_layer": chain.start_layer, "status": chain.status,
                            "segments": [_segment_to_json(s) for s in chain.segments]}
    if chain.reason:
        data["reason"] = chain.reason
    if chain.certified:
        data["leaders"] = [{"token": j, "first_layer": k} for j, k in sorted(chain.leaders().items())]
        data["limits"] = [[rational_to_str(x) for x in p] for p in chain.limits()]
    return data


_LONG_RATIONAL = re.compile(r"^(-?[0-9]+)(?:/([0-9]+))?$", re.ASCII)


def _exact(value: Any, field: str) -> Fraction:
    """A number of a certificate. Positions after long jumps have more digits than Python's int()
    reads from text (its guard against slow parsing), so "p/q" texts are read with python-flint."""
    if isinstance(value, str) and len(value) > 4000:
        match = _LONG_RATIONAL.match(value)
        if match and len(value) <= MAX_CERTIFICATE_DIGITS:
            denominator = int(fmpz(match.group(2))) if match.group(2) else 1
            if denominator == 0:
                raise InputError(field, "denominator is zero")
            return Fraction(int(fmpz(match.group(1))), denominator)
    return to_rational(value, field=field)


@overload
def _int_field(value: Any, field: str, *, allow_none: Literal[False] = False, minimum: int = 0) -> int: ...
@overload
def _int_field(value: Any, field: str, *, allow_none: bool, minimum: int = 0) -> int | None: ...
def _int_field(value: Any, field: str, *, allow_none: bool = False, minimum: int = 0) -> int | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InputError(field, f"expected an integer >= {minimum}{' or null' if allow_none else ''}, got {value!r}")
    return value


def chain_from_json(data: Any) -> Chain:
    """Read a chain written by :func:`chain_to_json` (shape checked, every number exact)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError("format", f"expected a closed-form certificate with format {FORMAT!r}")
    segments_data = data.get("segments")
    if not isinstance(segments_data, list) or not segments_data:
        raise InputError("segments", "expected a non-empty list of segments")
    segments = []
    for s, item in enumerate(segments_data):
        where = f"segments[{s}]"
        if not isinstance(item, dict):
            raise InputError(where, "expected an object")
        status = item.get("status")
        if status not in ("certified", "jump", "unsettled"):
            raise InputError(f"{where}.status", f"expected certified, jump or unsettled, got {status!r}")
        sets_data = item.get("sets")
        if not isinstance(sets_data, list) or not sets_data:
            raise InputError(f"{where}.sets", "expected a list of sets, one per token")
        n = len(sets_data)
        sets = []
        for j, members in enumerate(sets_data):
            if not isinstance(members, list) or not members:
                raise InputError(f"{where}.sets[{j}]", "expected a non-empty list of token indices")
            sets.append(frozenset(_int_field(v, f"{where}.sets[{j}]") for v in members))
            if max(sets[-1]) >= n:
                raise InputError(f"{where}.sets[{j}]", f"token index out of range 0..{n - 1}")
        paths_data = item.get("paths")
        if paths_data is None:
            positions_data = item.get("positions")
            if not isinstance(positions_data, list) or len(positions_data) != n:
                raise InputError(f"{where}.positions", f"expected {counted(n, 'position')} for a segment without paths")
            positions = tuple(tuple(_exact(x, f"{where}.positions[{j}]") for x in p)
                              for j, p in enumerate(positions_data))
            paths = None
        else:
            if not isinstance(paths_data, list) or len(paths_data) != n:
                raise InputError(f"{where}.paths", f"expected {counted(n, 'path')}, one per token")
            first = paths_data[0][0]["coefficient"] if paths_data[0] else None
            if not isinstance(first, list):
                raise InputError(f"{where}.paths[0]", "expected vector coefficients")
            paths = tuple(exppoly_from_json(p, dim=len(first), field=f"{where}.paths[{j}]")
                          for j, p in enumerate(paths_data))
            positions = tuple(p.at(0) for p in paths)
        failing = None
        if isinstance(item.get("failing"), dict):
            f = item["failing"]
            failing = Condition(str(f.get("kind")), _int_field(f.get("token"), f"{where}.failing.token"),
                                _int_field(f.get("v"), f"{where}.failing.v"),
                                _int_field(f.get("w"), f"{where}.failing.w"))
        segments.append(Segment(_int_field(item.get("layer"), f"{where}.layer"), positions,
                                tuple(sets), paths, status,
                                until=_int_field(item.get("until"), f"{where}.until", allow_none=True, minimum=1),
                                threshold=_int_field(item.get("threshold"), f"{where}.threshold", allow_none=True,
                                                     minimum=1),
                                failing=failing, reason=str(item.get("reason", ""))))
    status = data.get("status")
    if status not in ("certified", "unsettled"):
        raise InputError("status", f"expected certified or unsettled, got {status!r}")
    return Chain(_int_field(data.get("start_layer"), "start_layer"), tuple(segments), status,
                 str(data.get("reason", "")))
