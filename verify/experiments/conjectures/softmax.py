"""Softmax attention at inverse temperature beta, with rigorous interval arithmetic (python-flint arb).

This is a *different rule* from the hardmax model (docs/theory.md §6, last open question), used
only by the softmax-vs-hardmax conjecture: the attention weights are

    w_ij = exp(beta <A z_i, z_j>) / sum_l exp(beta <A z_i, z_l>)
    z_i^{k+1} = ( z_i^k + alpha * sum_j w_ij z_j^k ) / (1 + alpha)

Every quantity is an arb ball that provably contains the true real number, so a deviation
between the softmax and the (exact, rational) hardmax trajectory is known to lie in
``[lower, upper]``: a comparison is decided only when the balls do not overlap. The hardmax
side comes from :func:`verify.core.exact_dynamics.exact_layers` (the one exact engine).

The certified bound of docs/theory.md §6 (:func:`verify.core.softmax_bound.softmax_certificate`)
proves max_i ||y_i^k - z_i^k|| <= eps_k (Euclidean norm) for every layer k it reaches, by a
different route (margins of the exact hardmax layers, no softmax run). :func:`compare_with_certificate`
puts the two side by side: a measured deviation certainly above a certified bound means one of
the two computations is wrong, and raises :class:`~verify.experiments.conjectures.base.InternalError`.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Iterator, Sequence

from flint import arb, ctx, fmpq

from verify.core.exact_dynamics import exact_layers
from verify.core.formatting import noun_for
from verify.core.numbers import rational_to_str
from verify.core.softmax_bound import SoftmaxCertificate, decimal_text
from .base import InternalError

__all__ = ["Enclosure", "LayerDeviation", "CertifiedComparison", "softmax_layers", "layer_deviations",
           "deviation_from_hardmax", "overall_deviation", "compare_with_certificate", "compare_resolved",
           "arb_to_interval", "COMPARE_MAX_BITS"]


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


@dataclass(frozen=True)
class LayerDeviation:
    """Layer k of |softmax - hardmax|: ``coordinate`` encloses the largest deviation of one coordinate of one
    token, ``squared`` the largest squared Euclidean distance max_i ||y_i^k - z_i^k||^2 (the certified bound's norm)."""

    layer: int
    coordinate: Enclosure
    squared: Enclosure


def layer_deviations(tokens: Sequence[Sequence[Fraction]], *, alpha: Fraction, beta: Fraction,
                     A: Sequence[Sequence[Fraction]] | None = None, layers: int,
                     precision: int = 256) -> list[LayerDeviation]:
    """Enclosures of the softmax-hardmax deviation at each layer 0..layers (the hardmax side exact).

    Each coordinate's |softmax - hardmax| is enclosed by an arb ball with exact rational end
    points; a token's squared Euclidean distance is enclosed by the sums of the squared end
    points (lower ends below 0 taken as 0), and the maximum over tokens of enclosed numbers lies
    in [max of lowers, max of uppers].
    """
    soft = softmax_layers(tokens, alpha=alpha, beta=beta, A=A, layers=layers, precision=precision)
    found = []
    with _precision(precision):
        for layer in exact_layers(tokens, alpha=alpha, A=A):
            coordinate = [Fraction(0), Fraction(0)]
            squared = [Fraction(0), Fraction(0)]
            for i, point in enumerate(layer.positions()):
                token = [Fraction(0), Fraction(0)]
                for c, x in enumerate(point):
                    enclosure = arb_to_interval(abs(soft[layer.index][i][c] - _arb(x)))
                    low = max(enclosure.lower, Fraction(0))
                    coordinate = [max(coordinate[0], low), max(coordinate[1], enclosure.upper)]
                    token = [token[0] + low * low, token[1] + enclosure.upper * enclosure.upper]
                squared = [max(squared[0], token[0]), max(squared[1], token[1])]
            found.append(LayerDeviation(layer.index, Enclosure(*coordinate), Enclosure(*squared)))
            if layer.index == layers:
                break
    return found


def deviation_from_hardmax(tokens: Sequence[Sequence[Fraction]], *, alpha: Fraction, beta: Fraction,
                           A: Sequence[Sequence[Fraction]] | None = None, layers: int,
                           precision: int = 256) -> Enclosure:
    """Enclosure of max over layers 0..layers, tokens and coordinates of |softmax - hardmax|.

    The hardmax positions are exact rationals from :func:`exact_layers`.
    """
    return overall_deviation(layer_deviations(tokens, alpha=alpha, beta=beta, A=A, layers=layers, precision=precision))


def overall_deviation(deviations: Sequence[LayerDeviation]) -> Enclosure:
    """The largest coordinate deviation over the layers: max of enclosed numbers lies in [max lowers, max uppers]."""
    return Enclosure(max(d.coordinate.lower for d in deviations), max(d.coordinate.upper for d in deviations))


# --------------------------------------------------------------------------- the certified bound beside the measurement


@dataclass(frozen=True)
class CertifiedComparison:
    """The certified bound (docs/theory.md §6) of one beta beside the measured deviations.

    ``unresolved`` lists the layers 1 <= k <= ``certificate.certified_through`` where the measured
    enclosure of max_i ||y_i^k - z_i^k|| straddles eps_k (the arb precision cannot tell which side
    it is on: eps_k is below the balls' radius); at every other such layer the measured deviation
    is certainly at most eps_k. A measured deviation certainly above eps_k never gets here:
    :func:`compare_with_certificate` raises.
    """

    beta: Fraction
    certificate: SoftmaxCertificate
    unresolved: tuple[int, ...] = ()
    bits: int | None = None  # the arb precision of the measured deviations compared

    @property
    def bound(self) -> Fraction:
        """eps at the last certified layer (eps_K when the certificate holds)."""
        return self.certificate.records[-1].bound

    def sentence(self) -> str:
        """``certified: deviation <= eps_6 = 1.23e-05 through layer 6``, or where and why the certificate stops."""
        c = self.certificate
        k = c.certified_through
        if c.holds:
            return f"certified: deviation <= eps_{k} = {decimal_text(self.bound, rounding='up')} through layer {k}"
        assert c.stop is not None
        if k == 0:
            return f"not certified beyond layer 0: the bound stops at {c.stop.describe()}"
        return (f"certified: deviation <= eps_{k} = {decimal_text(self.bound, rounding='up')} through layer {k} only; "
                f"the bound stops at {c.stop.describe()}")

    def to_json_dict(self) -> dict[str, Any]:
        c = self.certificate
        return {
            "statement": self.sentence(),
            "holds": c.holds,
            "certified_through": c.certified_through,
            "bound": rational_to_str(self.bound),
            "bound_approx": decimal_text(self.bound, rounding="up"),
            "bounds_by_layer_approx": [decimal_text(r.bound, rounding="up") for r in c.records],
            "stop": None if c.stop is None else c.stop.to_json_dict(),
            "measured_within_bound": (
                "yes: at every certified layer the measured deviation is certainly at most eps_k" if not self.unresolved
                else "at no layer certainly above eps_k; not resolved at this arb precision at "
                     f"{noun_for(len(self.unresolved), 'layer')} {', '.join(map(str, self.unresolved))} "
                     "(eps_k below the width of the arb balls)"),
            "compared_at_bits": self.bits,
            "norm": "eps_k bounds max_i ||y_i^k - z_i^k|| (Euclidean), hence every coordinate's deviation",
            "source": "verify.core.softmax_bound.softmax_certificate (docs/theory.md §6)",
        }


def compare_with_certificate(deviations: Sequence[LayerDeviation], certificate: SoftmaxCertificate
                             ) -> CertifiedComparison:
    """Check the measured deviations against the certified bound at every layer it reaches.

    Raises :class:`InternalError` when a measured deviation is certainly above eps_k: both are
    proven enclosures of the same real number's bounds, so one of the two computations is wrong.
    """
    by_layer = {d.layer: d for d in deviations}
    unresolved = []
    for record in certificate.records:
        measured = by_layer.get(record.layer)
        if measured is None:
            raise ValueError(f"no measured deviation at layer {record.layer}")
        limit = record.bound * record.bound
        if measured.squared.lower > limit:
            low = measured.squared.lower
            raise InternalError(
                f"at beta = {rational_to_str(certificate.beta)}, layer {record.layer}, the measured softmax-hardmax "
                f"deviation (arb) is at least sqrt({decimal_text(low, rounding='down')}) but the certified bound of docs/theory.md §6 "
                f"(verify.core.softmax_bound) is eps_{record.layer} = {decimal_text(record.bound, rounding='up')}: "
                "verify/experiments/conjectures/softmax.py or verify/core/softmax_bound.py is wrong")
        # Layer 0 is the input itself (eps_0 = 0): an arb ball around 0 there says nothing.
        if record.layer > 0 and measured.squared.upper > limit:
            unresolved.append(record.layer)
    return CertifiedComparison(certificate.beta, certificate, tuple(unresolved))


COMPARE_MAX_BITS = 8192  # the largest arb precision spent on resolving a measured deviation against eps_k


def _log2(x: Fraction) -> int:
    """An integer within 1 of log2 x (x > 0)."""
    return x.numerator.bit_length() - x.denominator.bit_length()


def compare_resolved(tokens: Sequence[Sequence[Fraction]], *, alpha: Fraction, beta: Fraction,
                     A: Sequence[Sequence[Fraction]] | None = None, layers: int, certificate: SoftmaxCertificate,
                     deviations: Sequence[LayerDeviation], precision: int,
                     max_precision: int = COMPARE_MAX_BITS) -> CertifiedComparison:
    """:func:`compare_with_certificate` on ``deviations`` (computed at ``precision``), then again at a precision
    fine enough to resolve eps_k where the comparison straddled it (about log2(R / eps_k) + 64 bits), when that
    is at most ``max_precision``. A bound below what arb can afford stays "not resolved", never a violation."""
    comparison = replace(compare_with_certificate(deviations, certificate), bits=precision)
    if not comparison.unresolved:
        return comparison
    smallest = min(certificate.records[k].bound for k in comparison.unresolved)
    if smallest <= 0:
        return comparison
    wanted = max(0, _log2(certificate.radius)) - _log2(smallest) + 64
    if wanted <= precision or wanted > max_precision:
        return comparison
    bits = -(-wanted // 64) * 64
    finer = layer_deviations(tokens, alpha=alpha, beta=beta, A=A, layers=layers, precision=bits)
    return replace(compare_with_certificate(finer, certificate), bits=bits)
