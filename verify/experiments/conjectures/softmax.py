"""Softmax attention at inverse temperature beta, with rigorous interval arithmetic (python-flint arb).

This is a *different rule* from the hardmax model (docs/theory.md §6, last open question), used
only by the softmax-vs-hardmax conjecture: the attention weights are

    w_ij = exp(beta <A z_i, z_j>) / sum_l exp(beta <A z_i, z_l>)
    z_i^{k+1} = ( z_i^k + alpha * sum_j w_ij z_j^k ) / (1 + alpha)

Every quantity is an arb ball that provably contains the true real number, so a deviation
between the softmax and the (exact, rational) hardmax trajectory is known to lie in
``[lower, upper]``: a comparison is decided only when the balls do not overlap. The hardmax
side comes from :func:`verify.core.exact_dynamics.exact_layers` (the one exact engine).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterator, Sequence

from flint import arb, ctx, fmpq

from verify.core.exact_dynamics import exact_layers

__all__ = ["Enclosure", "softmax_layers", "deviation_from_hardmax", "arb_to_interval"]


@dataclass(frozen=True)
class Enclosure:
    """A rigorous enclosure [lower, upper] of a real number, with exact rational end points."""

    lower: Fraction
    upper: Fraction

    def __post_init__(self) -> None:
        if self.lower > self.upper:
            raise ValueError("empty enclosure")

    @property
    def width(self) -> Fraction:
        return self.upper - self.lower

    def certainly_greater(self, other: "Enclosure") -> bool:
        return self.lower > other.upper

    def to_json_dict(self) -> dict[str, str | float]:
        return {"lower": float(self.lower), "upper": float(self.upper),
                "note": "rigorous arb enclosure; the floats shown are the end points rounded for display"}


def _arf_to_fraction(value: arb) -> Fraction:
    mantissa, exponent = value.man_exp()
    return Fraction(int(mantissa)) * (Fraction(2) ** int(exponent))


def arb_to_interval(value: arb) -> Enclosure:
    """Exact rational end points of an arb ball (``lower()``/``upper()`` are exact arbs)."""
    if not value.is_finite():
        raise ArithmeticError("arb enclosure is not finite; raise the precision")
    return Enclosure(_arf_to_fraction(value.lower()), _arf_to_fraction(value.upper()))


@contextmanager
def _precision(bits: int) -> Iterator[None]:
    # ctx.prec is global to python-flint; restore it so other users of arb are unaffected.
    saved = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        ctx.prec = saved


def _arb(x: Fraction) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


def softmax_layers(tokens: Sequence[Sequence[Fraction]], *, alpha: Fraction, beta: Fraction,
                   A: Sequence[Sequence[Fraction]] | None = None, layers: int,
                   precision: int = 256) -> list[list[list[arb]]]:
    """Positions at layers 0..layers of the softmax rule, as arb balls.

    The arb balls must be used while the same precision is in effect only for further
    arithmetic; their enclosures stay valid afterwards.
    """
    d = len(tokens[0])
    with _precision(precision):
        a = _arb(Fraction(alpha))
        b = _arb(Fraction(beta))
        Amat = None if A is None else [[_arb(Fraction(x)) for x in row] for row in A]
        Z = [[_arb(Fraction(x)) for x in t] for t in tokens]
        history = [Z]
        for _ in range(layers):
            # A z_i once per token; scores s_ij = <A z_i, z_j>.
            if Amat is None:
                AZ = Z
            else:
                AZ = [[sum((Amat[r][c] * z[c] for c in range(d)), arb(0)) for r in range(d)] for z in Z]
            new = []
            for i, az in enumerate(AZ):
                scores = [sum((az[c] * z[c] for c in range(d)), arb(0)) for z in Z]
                # Shifting all scores of a row by one exact number changes no weight; the
                # midpoint of the largest score keeps exp() in range.
                shift = arb(max(s.mid() for s in scores))
                weights = [(b * (s - shift)).exp() for s in scores]
                total = sum(weights, arb(0))
                mean = [sum((w * z[c] for w, z in zip(weights, Z)), arb(0)) / total for c in range(d)]
                new.append([(Z[i][c] + a * mean[c]) / (1 + a) for c in range(d)])
            Z = new
            history.append(Z)
        return history


def deviation_from_hardmax(tokens: Sequence[Sequence[Fraction]], *, alpha: Fraction, beta: Fraction,
                           A: Sequence[Sequence[Fraction]] | None = None, layers: int,
                           precision: int = 256) -> Enclosure:
    """Enclosure of max over layers 0..layers, tokens and coordinates of |softmax - hardmax|.

    The hardmax positions are exact rationals from :func:`exact_layers`.
    """
    soft = softmax_layers(tokens, alpha=alpha, beta=beta, A=A, layers=layers, precision=precision)
    lower = Fraction(0)
    upper = Fraction(0)
    with _precision(precision):
        for layer in exact_layers(tokens, alpha=alpha, A=A):
            positions = layer.positions()
            for i, point in enumerate(positions):
                for c, x in enumerate(point):
                    enclosure = arb_to_interval(abs(soft[layer.index][i][c] - _arb(x)))
                    lower = max(lower, enclosure.lower)
                    upper = max(upper, enclosure.upper)
            if layer.index == layers:
                break
    # max of enclosed numbers lies in [max of lowers, max of uppers].
    return Enclosure(lower, upper)
