"""Softmax attention within a certified distance of hardmax, per input and per layer (docs/theory.md §6).

The softmax model replaces the hardmax mean over C_i (docs/theory.md §1) by the mean weighted by
p_ij proportional to exp(beta <A y_i, y_j>), beta > 0 the inverse temperature; same tokens, alpha
and A. From the exact hardmax trajectory Z^k this module bounds the softmax trajectory Y^k (exact
real arithmetic) layer by layer:

    max_i ||y_i^k - z_i^k|| <= eps_k,        eps_0 = 0,
    eps_{k+1} = eps_k + 2 gamma (R + eps_k) (n - 1) exp(-beta (delta_k - 2 eta_k)),
    eta_k = ||A|| (2 R eps_k + eps_k^2),

with R >= max_i ||z_i^0||, gamma = 1 - 1/(1 + alpha), ||A|| an upper bound of the operator norm
and delta_k the smallest margin at layer k between a token's top score and the scores of the
tokens at other positions. It holds while every attention set at layers 0..k is one group of
equal positions (docs/theory.md D5) and delta_k > 2 eta_k; the certificate stops (inconclusive)
at the first layer where either fails, and says which.

Why it holds (Euclidean norms; A any real square matrix)
--------------------------------------------------------
* Both dynamics move every token to a convex combination of the previous layer's tokens, so all
  positions stay in the hull of the initial tokens: ||z_j^k||, ||y_j^k|| <= R.
* Scores: |<A y_i, y_j> - <A z_i, z_j>| <= |<A (y_i - z_i), y_j>| + |<A z_i, y_j - z_j>|
  <= ||A|| (eps (R + eps) + R eps) = eta.
* Let T be the tokens at token i's top position g (the hardmax mean is g). For j outside T and
  t in T, p_ij / p_it = exp(beta (s_ij - s_it)) <= exp(-beta (delta - 2 eta)), so the softmax
  weight W off T is at most (n - 1) exp(-beta (delta - 2 eta)).
* y_i' - z_i' = (1 - gamma)(y_i - z_i) + gamma sum_j p_ij (y_j - g), with ||y_j - g|| <= eps on T
  and <= 2 R + eps off T: ||y_i' - z_i'|| <= eps + 2 gamma R W <= eps + 2 gamma (R + eps) W.
Nothing needs A symmetric or positive definite (only ||A x|| <= ||A|| ||x||), nor distinct tokens.

Arithmetic (why every number is rigorous)
-----------------------------------------
Rational arithmetic: exact :class:`~fractions.Fraction` operations, each result rounded outward
to a dyadic number of :data:`MANTISSA_BITS` significant bits (an integer floor or ceiling, so
the rounding direction is certain and the sizes stay bounded). The margins delta_k are exact
(from the integer scores the exact engine decided the attention sets with). The three
non-rational quantities are bounded by proven inequalities:

* exp(-x) <= 1 / sum_{j<=N} x^j / j! for x >= 0 (the partial sum is at most e^x), applied to
  x / 2^m <= 1 and squared m times, rounding up each time (:func:`exp_neg_upper`). Arguments above
  :data:`EXP_ARGUMENT_CAP` use exp(-cap) >= exp(-x): a bound is tiny, never zero;
* sqrt by an integer square root of the upward-rounded scaled number, plus one when inexact;
* ||A||_2 <= min(||A||_F, sqrt(||A||_1 ||A||_inf)) (both classical), so the identity gets 1.

For many inputs at once (the sentiment evaluation) the same recursion (:func:`bound_step`) runs
on float64 arrays with every operation stepped one unit in the last place outward
(``numpy.nextafter``): IEEE 754 rounds +, -, *, / and sqrt to nearest, so the stepped result is
on the safe side; the exponential uses the same series and squarings, and never underflows to 0.
Every term carries a relative slack :data:`CHECK_SLACK` so that the independent checker
(:mod:`verify.certcheck.softmax`), with its own rounding, confirms each step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from math import isqrt
from typing import Any, Protocol, Sequence

import numpy as np

from .exact_dynamics import ExactLayer, exact_layers
from .numbers import InputError, rational_to_str, to_rational

__all__ = [
    "MANTISSA_BITS", "EXP_SERIES_TERMS", "EXP_ARGUMENT_CAP", "CHECK_SLACK",
    "round_up", "round_down", "exp_neg_upper", "sqrt_upper", "operator_norm_upper",
    "exp_neg_upper_float", "sqrt_upper_float",
    "BoundConstants", "bound_step", "RATIONAL", "FLOAT",
    "LayerMargin", "layer_margin", "LayerBound", "Stop", "SoftmaxCertificate", "SoftmaxBoundBuilder",
    "softmax_certificate", "float_bounds", "FloatBounds", "decimal_text", "readable_decimal",
]

# Significant bits kept by every outward rounding of the rational arithmetic.
MANTISSA_BITS = 64
# N of the series bound exp(-x) <= 1 / sum_{j<=N} x^j / j!, used on [0, 1]: relative slack 1/25!.
EXP_SERIES_TERMS = 24
# exp(-x) for x above the cap is bounded by exp(-cap) (about 10^-28462): valid, as exp decreases.
EXP_ARGUMENT_CAP = 1 << 16
# Float64 arguments above this bound exp(-x) by the smallest subnormal after the squarings anyway.
_FLOAT_EXP_CAP = 2048.0
# Each step's increment is inflated by this relative amount before rounding, so that an
# independent re-check with different rounding confirms it (verify/certcheck/softmax/).
CHECK_SLACK = Fraction(1, 1 << 32)


# --------------------------------------------------------------------------------------------
# Rational outward rounding and the two transcendental bounds


def _log2_estimate(x: Fraction) -> int:
    """An integer within 1 of log2 |x| (x != 0), from bit lengths."""
    return abs(x.numerator).bit_length() - x.denominator.bit_length()


def round_up(x: Fraction, bits: int = MANTISSA_BITS) -> Fraction:
    """The least dyadic number >= x with about ``bits`` significant bits (x itself when 0)."""
    if x == 0:
        return x
    shift = bits - _log2_estimate(x)
    if shift >= 0:
        return Fraction(-((-x.numerator << shift) // x.denominator), 1 << shift)
    return Fraction((-((-x.numerator) // (x.denominator << -shift))) << -shift)


def round_down(x: Fraction, bits: int = MANTISSA_BITS) -> Fraction:
    """The greatest dyadic number <= x with about ``bits`` significant bits (x itself when 0)."""
    return -round_up(-x, bits)


def exp_neg_upper(x: Fraction) -> Fraction:
    """A rational upper bound of exp(-x) for rational x >= 0, positive, within a relative 2^-40.

    exp(-y) <= 1 / sum_{j<=N} y^j / j! for y = x / 2^m in [0, 1] (the partial sum is at most e^y),
    then m squarings, each rounded up. x above :data:`EXP_ARGUMENT_CAP` is replaced by the cap.
    """
    if x < 0:
        raise ValueError("exp_neg_upper needs x >= 0")
    if x == 0:
        return Fraction(1)
    y = min(round_down(x), Fraction(EXP_ARGUMENT_CAP))  # a smaller argument gives a larger exp(-y)
    halvings = max(0, abs(y.numerator).bit_length() - y.denominator.bit_length() + 1)  # y / 2^m < 1
    z = y / (1 << halvings)
    term, total = Fraction(1), Fraction(1)
    for j in range(1, EXP_SERIES_TERMS + 1):
        term = term * z / j
        total += term
    bound = round_up(1 / total)
    for _ in range(halvings):
        bound = round_up(bound * bound)
    return bound


def sqrt_upper(x: Fraction, bits: int = MANTISSA_BITS) -> Fraction:
    """A dyadic upper bound of sqrt(x) for rational x >= 0, within a relative 2^-(bits - 2); exact on squares of dyadics."""
    if x < 0:
        raise ValueError("sqrt_upper needs x >= 0")
    if x == 0:
        return x
    scale = max(0, bits - _log2_estimate(x) // 2 + 1)
    scaled = x * (1 << (2 * scale))
    ceiling = -((-scaled.numerator) // scaled.denominator)
    root = isqrt(ceiling)
    if root * root < ceiling:
        root += 1
    return Fraction(root, 1 << scale)


def operator_norm_upper(A: Sequence[Sequence[Fraction]] | None) -> tuple[Fraction, str]:
    """An upper bound of the spectral norm ||A||_2 and how it was obtained.

    min(||A||_F, sqrt(||A||_1 ||A||_inf)), each rounded up: both bound ||A||_2 for every real
    matrix; the second is exact for the identity and for diagonal matrices with equal |entries|.
    """
    if A is None:
        return Fraction(1), "identity"
    d = len(A)
    frobenius_squared = sum((x * x for row in A for x in row), Fraction(0))
    column_sum = max(sum((abs(A[r][c]) for r in range(d)), Fraction(0)) for c in range(d))
    row_sum = max(sum((abs(x) for x in row), Fraction(0)) for row in A)
    if column_sum * row_sum <= frobenius_squared:
        return sqrt_upper(column_sum * row_sum), "sqrt(||A||_1 ||A||_inf)"
    return sqrt_upper(frobenius_squared), "Frobenius norm"


# --------------------------------------------------------------------------------------------
# Float64 versions: arrays, one ulp outward after every rounded operation


def _up(x: Any) -> Any:
    return np.nextafter(x, np.inf)


def _down(x: Any) -> Any:
    return np.nextafter(x, -np.inf)


def _check_gradual_underflow() -> None:
    """The float bounds assume IEEE 754 with subnormals (no flush-to-zero): refuse to run without."""
    tiny = np.array([2.0 ** -1060])
    if not (tiny * 2.0 ** -10 > 0).all() or not np.nextafter(0.0, 1.0) > 0:
        raise ArithmeticError("float64 flushes subnormals to zero here: the float bounds would not be proven")


def exp_neg_upper_float(x: np.ndarray) -> np.ndarray:
    """Elementwise float64 upper bounds of exp(-x) for x >= 0 (0 where x = +inf); never 0 otherwise."""
    _check_gradual_underflow()
    x = np.asarray(x, dtype=np.float64)
    capped = np.minimum(x, _FLOAT_EXP_CAP)
    _, exponent = np.frexp(capped)          # capped <= 2^exponent
    halvings = np.maximum(exponent, 0)
    z = np.ldexp(capped, -halvings)         # in [0, 1], exact (no underflow: z >= 1/2 when halved)
    term = np.ones_like(z)
    total = np.ones_like(z)
    for j in range(1, EXP_SERIES_TERMS + 1):
        term = _down(_down(term * z) / j)
        total = _down(total + term)
    bound = _up(1.0 / total)
    for step in range(int(halvings.max(initial=0))):
        bound = np.where(step < halvings, _up(bound * bound), bound)
    return np.where(np.isposinf(x), 0.0, bound)


def sqrt_upper_float(x: np.ndarray) -> np.ndarray:
    """Elementwise float64 upper bounds of sqrt(x), x >= 0 (IEEE sqrt is correctly rounded)."""
    return np.where(x == 0, 0.0, _up(np.sqrt(x)))


# --------------------------------------------------------------------------------------------
# The recursion, written once for both arithmetics


class _Arithmetic(Protocol):
    def add_up(self, a: Any, b: Any) -> Any: ...
    def mul_up(self, a: Any, b: Any) -> Any: ...
    def sub_down(self, a: Any, b: Any) -> Any: ...
    def mul_down(self, a: Any, b: Any) -> Any: ...
    def exp_neg_up(self, x: Any) -> Any: ...


class _RationalOutward:
    """Exact rationals, every result rounded outward to :data:`MANTISSA_BITS` bits."""

    def add_up(self, a: Fraction, b: Fraction) -> Fraction:
        return round_up(a + b)

    def mul_up(self, a: Fraction, b: Fraction) -> Fraction:
        return round_up(a * b)

    def sub_down(self, a: Fraction, b: Fraction) -> Fraction:
        return round_down(a - b)

    def mul_down(self, a: Fraction, b: Fraction) -> Fraction:
        return round_down(a * b)

    def exp_neg_up(self, x: Fraction) -> Fraction:
        return exp_neg_upper(max(x, Fraction(0)))  # x < 0 only where the caller stops anyway


class _FloatOutward:
    """float64 arrays, every result stepped one ulp outward (IEEE round-to-nearest is within half an ulp)."""

    def add_up(self, a: Any, b: Any) -> Any:
        return _up(np.add(a, b))

    def mul_up(self, a: Any, b: Any) -> Any:
        return _up(np.multiply(a, b))

    def sub_down(self, a: Any, b: Any) -> Any:
        return _down(np.subtract(a, b))

    def mul_down(self, a: Any, b: Any) -> Any:
        return _down(np.multiply(a, b))

    def exp_neg_up(self, x: Any) -> Any:
        return exp_neg_upper_float(np.maximum(x, 0.0))


RATIONAL: _Arithmetic = _RationalOutward()
FLOAT: _Arithmetic = _FloatOutward()


@dataclass(frozen=True)
class BoundConstants:
    """The per-input constants of the recursion, each on its safe side.

    ``radius`` >= R, ``norm`` >= ||A||_2, ``weight`` >= 2 gamma (n - 1), ``beta`` <= beta (it
    multiplies a lower bound of the exponent), ``slack`` >= 1 (:data:`CHECK_SLACK`).
    """

    radius: Any
    norm: Any
    weight: Any
    beta: Any
    slack: Any


def bound_step(arithmetic: _Arithmetic, eps: Any, margin: Any, c: BoundConstants) -> tuple[Any, Any, Any]:
    """One layer of docs/theory.md §6: (eta_k, a lower bound of delta_k - 2 eta_k, eps_{k+1}).

    ``eps_{k+1}`` is meaningful only where the returned slack is positive (the caller stops
    elsewhere); every returned bound errs on the safe side in ``arithmetic``.
    """
    eta = arithmetic.mul_up(c.norm, arithmetic.mul_up(eps, arithmetic.add_up(arithmetic.add_up(c.radius, c.radius),
                                                                              eps)))
    slack = arithmetic.sub_down(margin, arithmetic.add_up(eta, eta))
    exponent = arithmetic.mul_down(c.beta, slack)
    off_top_weight = arithmetic.mul_up(c.weight, arithmetic.exp_neg_up(exponent))
    term = arithmetic.mul_up(arithmetic.mul_up(arithmetic.add_up(c.radius, eps), off_top_weight), c.slack)
    return eta, slack, arithmetic.add_up(eps, term)


# --------------------------------------------------------------------------------------------
# Margins of an exact layer


@dataclass(frozen=True)
class LayerMargin:
    """delta_k of one exact layer, or the tie that stops the certificate there.

    ``margin`` is None when no token has a token at another position to compare with (every
    token at one position). ``tie`` is a pair of original token indices at distinct positions
    that share the top score of ``token``'s row.
    """

    margin: Fraction | None
    tie: tuple[int, int] | None = None
    token: int | None = None


def layer_margin(layer: ExactLayer) -> LayerMargin:
    """The smallest margin between a token's single top position and the other positions, exactly.

    Uses the integer scores the exact engine decided the attention sets with (no recomputation).
    """
    if layer.scores is None:
        raise ValueError("layer_margin needs the scores of an ExactLayer from verify.core.exact_dynamics.exact_layers")
    m = len(layer.numerators)
    entries = layer.scores.entries()
    smallest: Any = None
    for u in range(m):
        top_set = layer.attention[u]
        first_position = layer.numerators[top_set[0]]
        other = next((v for v in top_set[1:] if layer.numerators[v] != first_position), None)
        if other is not None:
            members = layer.groups.members
            return LayerMargin(None, (members[top_set[0]][0], members[other][0]), members[u][0])
        row = entries[u * m:(u + 1) * m]
        in_top = set(top_set)
        rest = [row[v] for v in range(m) if v not in in_top]
        if rest:
            gap = row[top_set[0]] - max(rest)
            if smallest is None or gap < smallest:
                smallest = gap
    if smallest is None:
        return LayerMargin(None)
    return LayerMargin(Fraction(int(smallest), layer.denominator * layer.denominator * layer.score_scale))


# --------------------------------------------------------------------------------------------
# The certificate of one input


@dataclass(frozen=True)
class LayerBound:
    """Layer k: eps_k, and the margin delta_k and eta_k used from layer k to k + 1 (None at the last layer)."""

    layer: int
    bound: Fraction
    margin: Fraction | None = None
    eta: Fraction | None = None

    def to_json_dict(self) -> dict[str, Any]:
        return {"layer": self.layer, "bound": rational_to_str(self.bound),
                "bound_approx": decimal_text(self.bound, rounding="up"),
                "margin": None if self.margin is None else rational_to_str(self.margin),
                "margin_approx": None if self.margin is None else decimal_text(self.margin, rounding="down"),
                "eta": None if self.eta is None else rational_to_str(self.eta)}


@dataclass(frozen=True)
class Stop:
    """Why the certificate stops at ``layer`` (the bound eps_layer still holds there).

    ``reason`` is ``"tie"`` (token's attention set holds ``tokens``, two distinct positions) or
    ``"margin"`` (delta_layer <= 2 eta_layer with eta rounded up).
    """

    layer: int
    reason: str
    token: int | None = None
    tokens: tuple[int, int] | None = None

    def describe(self) -> str:
        if self.reason == "tie":
            a, b = self.tokens or (None, None)
            return (f"layer {self.layer}: token {self.token}'s attention set holds two distinct positions "
                    f"(tokens {a} and {b} tie for its top score)")
        return f"layer {self.layer}: the margin delta is at most 2 eta (the score error the bound allows)"

    def to_json_dict(self) -> dict[str, Any]:
        return {"layer": self.layer, "reason": self.reason, "token": self.token,
                "tokens": None if self.tokens is None else list(self.tokens), "explanation": self.describe()}


@dataclass(frozen=True)
class SoftmaxCertificate:
    """The certified distance between the softmax and the hardmax trajectory of one input.

    ``records[k]`` holds eps_k for k = 0..``certified_through``; ``stop`` says why it ends before
    ``layers`` (None when it reaches it).
    """

    n: int
    alpha: Fraction
    beta: Fraction
    layers: int
    gamma: Fraction
    radius: Fraction
    norm: Fraction
    norm_method: str
    records: tuple[LayerBound, ...]
    stop: Stop | None = None

    @property
    def certified_through(self) -> int:
        return self.records[-1].layer

    @property
    def holds(self) -> bool:
        """True when the bound reaches layer ``layers``."""
        return self.stop is None and self.certified_through == self.layers

    @property
    def final_bound(self) -> Fraction | None:
        """eps_K when the bound reaches layer K, else None."""
        return self.records[-1].bound if self.holds else None

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "kind": "softmax-certificate",
            "n": self.n, "alpha": rational_to_str(self.alpha), "beta": rational_to_str(self.beta),
            "layers": self.layers, "gamma": rational_to_str(self.gamma), "radius": rational_to_str(self.radius),
            "norm_bound": rational_to_str(self.norm), "norm_method": self.norm_method,
            "check_slack": rational_to_str(CHECK_SLACK),
            # The records' decimal texts are on the safe side of the exact numbers beside them.
            "approx_rounding": {"bound_approx": "up", "margin_approx": "down"},
            "holds": self.holds, "certified_through": self.certified_through,
            "stop": None if self.stop is None else self.stop.to_json_dict(),
            "records": [r.to_json_dict() for r in self.records],
        }


@dataclass
class SoftmaxBoundBuilder:
    """Builds a :class:`SoftmaxCertificate` from exact layers fed in order (0, 1, ...).

    :meth:`feed` returns True while it needs the next layer; callers that already iterate
    :func:`verify.core.exact_dynamics.exact_layers` (the sentiment evaluation) feed it theirs.
    """

    tokens: Sequence[Sequence[Fraction]]
    alpha: Fraction
    beta: Fraction
    layers: int
    A: Sequence[Sequence[Fraction]] | None = None
    records: list[LayerBound] = field(default_factory=list)
    stop: Stop | None = None
    done: bool = False

    def __post_init__(self) -> None:
        if self.beta <= 0:
            raise InputError("beta", f"expected a positive inverse temperature, got {rational_to_str(self.beta)}")
        if self.alpha <= 0:
            raise InputError("alpha", f"expected alpha > 0, got {rational_to_str(self.alpha)}")
        self.n = len(self.tokens)
        self.gamma = self.alpha / (1 + self.alpha)
        largest = max((sum((x * x for x in t), Fraction(0)) for t in self.tokens), default=Fraction(0))
        self.radius = sqrt_upper(largest)
        self.norm, self.norm_method = operator_norm_upper(self.A)
        self.constants = BoundConstants(radius=self.radius, norm=self.norm,
                                        weight=round_up(2 * self.gamma * (self.n - 1)), beta=self.beta,
                                        slack=1 + CHECK_SLACK)
        self._eps = Fraction(0)

    def feed(self, layer: ExactLayer) -> bool:
        """Take exact layer ``len(records)``; False once the certificate is complete or has stopped."""
        if self.done:
            return False
        k = layer.index
        if k != len(self.records):
            raise ValueError(f"expected exact layer {len(self.records)}, got layer {k}")
        if k == self.layers:
            self.records.append(LayerBound(k, self._eps))
            self.done = True
            return False
        found = layer_margin(layer)
        if found.tie is not None:
            self.records.append(LayerBound(k, self._eps))
            self.stop = Stop(k, "tie", found.token, found.tie)
            self.done = True
            return False
        if found.margin is None:  # one position only: no softmax weight leaves it
            eta = RATIONAL.mul_up(self.norm, RATIONAL.mul_up(self._eps, round_up(2 * self.radius + self._eps)))
            self.records.append(LayerBound(k, self._eps, None, eta))
            return True
        eta, slack, following = bound_step(RATIONAL, self._eps, found.margin, self.constants)
        self.records.append(LayerBound(k, self._eps, found.margin, eta))
        if slack <= 0:
            self.stop = Stop(k, "margin")
            self.done = True
            return False
        self._eps = following
        return True

    def certificate(self) -> SoftmaxCertificate:
        if not self.done:
            raise ValueError("the certificate is not complete: feed more layers")
        return SoftmaxCertificate(self.n, self.alpha, self.beta, self.layers, self.gamma, self.radius, self.norm,
                                  self.norm_method, tuple(self.records), self.stop)


def softmax_certificate(tokens: Sequence[Sequence[Any]], *, alpha: Any, beta: Any, layers: int,
                        A: Sequence[Sequence[Any]] | None = None) -> SoftmaxCertificate:
    """The softmax-versus-hardmax certificate of one configuration through layer ``layers`` (docs/theory.md §6).

    Parameters
    ----------
    tokens
        n tokens in Q^d (anything :func:`verify.core.numbers.to_rational` accepts); duplicates allowed.
    alpha
        alpha > 0 of the update.
    beta
        The softmax inverse temperature beta > 0.
    layers
        K: the bound is sought for layers 0..K.
    A
        The d x d score matrix (identity when None); any real matrix.

    Returns
    -------
    SoftmaxCertificate
        eps_k for k up to K, or up to the layer where it stops, with the reason.

    The lab's conjectures can call this directly: ``certificate.holds``, ``certificate.final_bound``,
    ``certificate.records[k].bound`` and ``certificate.stop.describe()`` say what is proven.
    """
    if isinstance(layers, bool) or not isinstance(layers, int) or layers < 0:
        raise InputError("layers", f"expected a non-negative integer, got {layers!r}")
    exact_tokens = [tuple(to_rational(x, field=f"tokens[{i}][{c}]") for c, x in enumerate(t))
                    for i, t in enumerate(tokens)]
    A_exact = None if A is None else [[to_rational(x, field=f"A[{r}][{c}]") for c, x in enumerate(row)]
                                      for r, row in enumerate(A)]
    builder = SoftmaxBoundBuilder(exact_tokens, to_rational(alpha, field="alpha"), to_rational(beta, field="beta"),
                                  layers, A_exact)
    for layer in exact_layers(exact_tokens, alpha=builder.alpha, A=A_exact):
        if not builder.feed(layer):
            break
    return builder.certificate()


# --------------------------------------------------------------------------------------------
# Many inputs at once, in float64 (the sentiment evaluation)


@dataclass(frozen=True)
class FloatBounds:
    """eps_K for a batch, from float lower bounds of the margins.

    ``bound`` (B,) upper bound of eps_K, +inf where the certificate stopped; ``stop_layer`` (B,)
    the layer where it stopped (-1: it reached K); ``stop_reason`` (B,) "margin", "undecided"
    (no proven margin: a tie or a row the float bound could not decide) or "".
    """

    bound: np.ndarray
    stop_layer: np.ndarray
    stop_reason: np.ndarray


def float_bounds(margins: np.ndarray, *, radius: np.ndarray, alpha: float, n: int, beta: float,
                 norm: float = 1.0) -> FloatBounds:
    """The recursion of :func:`bound_step` on float64 arrays, for B inputs with K layers each.

    Parameters
    ----------
    margins
        (B, K) proven lower bounds of delta_0..delta_{K-1} (+inf: one position only; NaN or a
        value <= 0: no proven margin, the certificate stops there).
    radius
        (B,) upper bounds of R.
    alpha, beta, norm
        Floats equal to (alpha, beta) or above (norm) the exact values: alpha and beta must be
        the exact numbers of the model, since gamma is bounded from alpha and beta multiplies a
        lower bound.
    n
        Tokens per input.
    """
    margins = np.asarray(margins, dtype=np.float64)
    B, K = margins.shape
    radius = np.asarray(radius, dtype=np.float64)
    gamma_up = _up(alpha / _down(1.0 + alpha))  # >= alpha / (1 + alpha)
    constants = BoundConstants(radius=radius, norm=np.float64(norm), weight=_up(2.0 * gamma_up * (n - 1)),
                               beta=np.float64(beta), slack=_up(1.0 + float(CHECK_SLACK)))
    eps = np.zeros(B)
    stop_layer = np.full(B, -1)
    stop_reason = np.full(B, "", dtype=object)
    with np.errstate(all="ignore"):
        for k in range(K):
            live = stop_layer < 0
            margin = margins[:, k]
            no_margin = live & ~(margin > 0)
            stop_layer[no_margin] = k
            stop_reason[no_margin] = "undecided"
            _, slack, following = bound_step(FLOAT, eps, np.where(margin > 0, margin, 0.0), constants)
            too_small = live & ~no_margin & ~(slack > 0)
            stop_layer[too_small] = k
            stop_reason[too_small] = "margin"
            eps = np.where(stop_layer < 0, following, np.inf)
    return FloatBounds(eps, stop_layer, stop_reason)


def readable_decimal(x: Fraction, digits: int = 3, *, rounding: str) -> str:
    """:func:`decimal_text` as every readable output writes a measured number (verify.core.formatting.measured):
    plainly between 1e-4 and 1000 (``1.42``, ``0.0911``, ``1``), else ``2.74e-11``; trailing zeros dropped.

    The same digits, rounded the same way: only the notation differs (the JSON records keep
    :func:`decimal_text`, which the independent checker recomputes).
    """
    text = decimal_text(x, digits, rounding=rounding)
    if text == "0":
        return text
    mantissa, _, exponent_text = text.partition("e")
    exponent = int(exponent_text)
    sign = "-" if mantissa.startswith("-") else ""
    digits_text = mantissa.lstrip("-").replace(".", "")
    if -4 <= exponent < 3:
        if exponent >= 0:
            whole, fraction = digits_text[:exponent + 1].ljust(exponent + 1, "0"), digits_text[exponent + 1:]
        else:
            whole, fraction = "0", "0" * (-exponent - 1) + digits_text
        fraction = fraction.rstrip("0")
        return f"{sign}{whole}" + (f".{fraction}" if fraction else "")
    head, tail = digits_text[0], digits_text[1:].rstrip("0")
    return f"{sign}{head}" + (f".{tail}" if tail else "") + f"e{exponent:+d}".replace("e+", "e+")


def decimal_text(x: Fraction, digits: int = 3, *, rounding: str) -> str:
    """``x`` in scientific notation with ``digits`` significant digits, rounded ``"up"`` (towards +inf: for
    upper bounds) or ``"down"`` (towards -inf: for lower bounds such as margins), also far outside
    float64's range.

    Computed from the exact rational (no float is involved), so the printed number is on the
    stated side of ``x``: a printed upper bound is never below the proven one.
    """
    if rounding not in ("up", "down"):
        raise ValueError(f"rounding: expected 'up' or 'down', got {rounding!r}")
    if digits < 1:
        raise ValueError("digits: expected at least 1")
    x = Fraction(x)
    if x == 0:
        return "0"
    magnitude = abs(x)
    # floor(log10 |x|), estimated in floats and then corrected exactly.
    exponent = math.floor(math.log10(magnitude.numerator) - math.log10(magnitude.denominator))
    while magnitude >= Fraction(10) ** (exponent + 1):
        exponent += 1
    while magnitude < Fraction(10) ** exponent:
        exponent -= 1
    scaled = x / Fraction(10) ** (exponent - digits + 1)  # |scaled| in [10^(digits-1), 10^digits)
    mantissa = math.ceil(scaled) if rounding == "up" else math.floor(scaled)
    if abs(mantissa) == 10 ** digits:  # rounded across a power of ten: 9.995 -> 10.0 -> 1.00e+1
        mantissa //= 10
        exponent += 1
    sign = "-" if mantissa < 0 else ""
    text = str(abs(mantissa))
    body = text[0] + ("." + text[1:] if digits > 1 else "")
    return f"{sign}{body}e{exponent:+d}"
