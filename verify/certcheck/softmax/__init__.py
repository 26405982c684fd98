"""Independent re-check of a softmax-versus-hardmax certificate (docs/theory.md §6), standard library only.

``hardmax-verify softmax CONFIG.json --beta B --layers K --json FILE`` writes the configuration
and a certificate: per layer k the bound eps_k, the margin delta_k and eta_k, and where and why
it stops. This module trusts none of it. Like the rest of the checker package it imports nothing
outside the standard library and nothing from the code it checks (from the package it shares
only the JSON reader, the number readers, the work units and the meter: :mod:`.jsontext`,
:mod:`.numbers`, :mod:`.meter`, :mod:`.estimate`), replays the hardmax dynamics of
docs/theory.md §1 itself in exact integers over each layer's common denominator (its own
update, on groups of equal positions), and verifies:

* the constants: gamma = alpha / (1 + alpha), R^2 >= max ||z_i^0||^2, ||A||^2 >= min(||A||_F^2,
  ||A||_1 ||A||_inf) (both bound the squared spectral norm), exactly, without square roots;
* at every layer k before the stop: no attention set holds two distinct positions, the stated
  margin is the replay's delta_k exactly, eta_k >= ||A|| (2 R eps_k + eps_k^2), delta_k > 2 eta_k,
  and eps_{k+1} - eps_k >= 2 gamma (R + eps_k) (n - 1) exp(-beta (delta_k - 2 eta_k)), proved by
  a lower bound of exp (partial sums of its series and squarings, each rounded down);
* the stop: a tie between distinct positions, or delta <= 2 eta, really happens at the stated
  layer, and the certificate's summary (holds, certified_through, status) is what it shows.

Usage::

    python -m verify.certcheck.softmax softmax-result.json

Exit status: 0 the certificate verifies (also one that honestly stops early); 1 it does not (a
tampered margin or bound, a wrong stop); 2 not a readable softmax record (a key repeated within
an object included), or beyond a limit (refused before any replay); 3 not checked: the work the
file needs ran past its allowance while checking (its numbers grew faster than estimated); 4
could not complete.

Work is estimated before the replay and metered while it runs in the claims checker's units and
with its rules (:mod:`.meter`, :mod:`.estimate`: one work unit is a multiply-add
of integers of up to 512 bits, larger integers cost more, the replay's integers grow each layer
by the bits of alpha's update): a layer costs n d^2 + n^2 (d + 2) products (A z once per
position, then one dot product per pair), plus the recursion's own arithmetic.
"""

from __future__ import annotations

import argparse
import json
import math
import operator
import os
import stat
import sys
import traceback
from fractions import Fraction
from typing import Any

from ..jsontext import REPEATED_KEY, Refused, UnreadableJSON, read_json_file
from ..kernel import (CHECKED, DEFAULT_MAX_WORK, SCORE_OVERHEAD, Either, Items, Obj, Unchecked, WorkLimit, bits_of, charge,
                      cost, gcd_cost, input_bits, integer_rows, metered, positive_definite, power_of_ten, read_digits,
                      replay_growth, setup_work)
from ..kernel import problem as _schema_problem

__all__ = ["KIND", "DEFAULT_MAX_WORK", "DEFAULT_MAX_BYTES", "MAX_DIGITS", "BadInput", "SoftmaxCheck",
           "is_softmax_record", "check_record", "check_path", "estimated_work", "record_work", "exp_lower", "main"]

KIND = "softmax-certificate"
COMMAND = "softmax"  # a record's "command"

_LABEL = "a name or description for a reader: it states nothing the checks use"
CONFIGURATION = Obj({
    "name": Unchecked(_LABEL), "description": Unchecked(_LABEL), "tokens": CHECKED, "alpha": CHECKED, "A": CHECKED,
    "outside_hypotheses": Unchecked("the option the run was given: it must be true when the configuration is outside "
                                    "the theorem's hypotheses (decided exactly), and may be true when it is not"),
    "beta": CHECKED, "layers": CHECKED,
}, optional=("name", "description", "A", "outside_hypotheses", "beta", "layers"), name="a softmax record's configuration")
CERTIFICATE = Obj({
    "kind": CHECKED, "n": CHECKED, "alpha": CHECKED, "beta": CHECKED, "layers": CHECKED, "gamma": CHECKED,
    "radius": CHECKED, "norm_bound": CHECKED, "norm_method": CHECKED,
    "check_slack": Unchecked("the relative slack the producer rounded with: the checker proves every inequality "
                             "itself, whatever slack made it hold"),
    "approx_rounding": Obj({"bound_approx": CHECKED, "margin_approx": CHECKED}), "holds": CHECKED,
    "certified_through": CHECKED,
    "stop": Either(Obj({"layer": CHECKED, "reason": CHECKED, "token": CHECKED, "tokens": CHECKED,
                        "explanation": CHECKED}, name="a stop"), none=True),
    "records": Items(Obj({"layer": CHECKED, "bound": CHECKED, "bound_approx": CHECKED, "margin": CHECKED,
                          "margin_approx": CHECKED, "eta": CHECKED}, name="a layer record")),
}, name="a softmax certificate")
RECORD = Obj({"command": CHECKED, "config": CONFIGURATION, "softmax_certificate": CERTIFICATE, "status": CHECKED,
              "outside_hypotheses": CHECKED}, optional=("outside_hypotheses",), name="a softmax record")
MAX_TOKENS = 4096
MAX_DIMENSION = 64
MAX_LAYERS = 100_000
MAX_DIGITS = 200_000          # longest number string read (longer: refused, exit 2)
DEFAULT_MAX_BYTES = 1 << 28
BITS = 160                    # the checker's own rounding precision (the certificate's slack is 2^-32)
SERIES_TERMS = 30
# Work units of one layer's recursion check (a few dozen fraction operations, exp_lower's squarings
# at BITS bits), charged at the size of its largest number.
STEP_OPERATIONS = 64
VERIFIED, REJECTED, BAD_INPUT, NOT_CHECKED, COULD_NOT_COMPLETE = 0, 1, 2, 3, 4
# Python refuses int <-> decimal text conversions of more than about 4300 digits (a guard against
# quadratic conversions); numbers are read in chunks below it, up to MAX_DIGITS, by the claims
# checker's reader (.numbers.read_digits).


class BadInput(Exception):
    """Nothing can be checked: not a softmax record, malformed, or beyond a limit (exit status 2)."""


class _RepeatedKey(BadInput):
    """A key given twice in one JSON object: the file says different things to different readers."""


class _Rejected(Exception):
    pass


class SoftmaxCheck:
    """Outcome of one check: ``status`` "verified", "rejected" or "unsupported" (the work allowance ran out while
    checking: nothing verified, nothing rejected), with the reason and what was verified."""

    def __init__(self, status: str, reason: str, *, layers: int, certified_through: int | None,
                 stop: str | None, work: float = 0.0) -> None:
        self.status, self.reason = status, reason
        self.layers, self.certified_through, self.stop = layers, certified_through, stop
        self.work = work  # work units charged to the meter

    @property
    def exit_status(self) -> int:
        return {"verified": VERIFIED, "unsupported": NOT_CHECKED}.get(self.status, REJECTED)

    def lines(self) -> list[str]:
        if self.status == "unsupported":
            return [f"softmax certificate not checked (unsupported): {self.reason}"]
        if self.status != "verified":
            return [f"softmax certificate rejected: {self.reason}"]
        if self.stop is None:
            return [f"softmax certificate verified: the bound holds through layer {self.layers}"]
        return [f"softmax certificate verified: the bound holds through layer {self.certified_through} of "
                f"{self.layers}; it stops at layer {self.certified_through} ({self.stop}), as stated"]

    def to_json_dict(self) -> dict[str, Any]:
        return {"checker": "softmax", "status": self.status, "reason": self.reason, "layers": self.layers,
                "certified_through": self.certified_through, "stop": self.stop, "exit_status": self.exit_status}


# ---------------------------------------------------------------------------------------------
# Reading


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise _Rejected(message)


def _parse_exact(text: str) -> Fraction | None:
    """``p``, ``p/q`` or a plain decimal ``a.b`` (optional sign) exactly; None for anything else."""
    body = text[1:] if text[:1] in "+-" else text
    if not body.isascii():
        return None
    head, slash, tail = body.partition("/")
    if slash:
        if not (head.isdigit() and tail.isdigit()):
            return None
        denominator = read_digits(tail)
        if denominator == 0:
            return None
        value = Fraction(read_digits(head), denominator)
    else:
        whole, _, fraction = head.partition(".")
        if not (whole + fraction).isdigit():
            return None
        value = Fraction(read_digits(whole + fraction), power_of_ten(len(fraction)))
    return -value if text[:1] == "-" else value


def _exact(x: Any, where: str) -> Fraction:
    if isinstance(x, int) and not isinstance(x, bool):
        return Fraction(x)
    if isinstance(x, str) and len(x) > MAX_DIGITS:
        # Beyond the checker's limit, not wrong: refused (exit 2), never rejected.
        raise BadInput(f"{where}: a number of {len(x)} characters, beyond the checker's limit of {MAX_DIGITS}")
    if isinstance(x, str) and x:
        bits = int(len(x) * 3.33) + 1
        charge(cost(1, bits, bits) + gcd_cost(1, bits))  # conversion, reduction
        value = _parse_exact(x)
        if value is not None:
            return value
    raise _Rejected(f"{where}: not an exact number: {str(x)[:60]!r}")


def _config_number(x: Any, where: str) -> Fraction:
    if isinstance(x, float):  # a JSON decimal read by the parser below as its text
        x = repr(x)
    try:
        return _exact(x, where)
    except _Rejected as error:
        raise BadInput(str(error)) from None


def is_softmax_record(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("softmax_certificate"), dict)


def _json_int(text: str) -> int:
    if len(text) > MAX_DIGITS:
        raise Refused(f"an integer of {len(text)} digits, beyond the checker's limit of {MAX_DIGITS}")
    return -read_digits(text[1:]) if text[:1] == "-" else read_digits(text)


def _read(path: str, max_bytes: int) -> Any:
    """The record's strict JSON by the checker's one reader (:mod:`.jsontext`): decimals kept as their
    text, integers of up to MAX_DIGITS digits read exactly."""
    try:
        return read_json_file(path, max_bytes=max_bytes, parse_float=str, parse_int=_json_int)
    except UnreadableJSON as error:
        if error.kind == REPEATED_KEY:
            raise _RepeatedKey(f"{error.path}: {error.reason} (not JSON: a file must say one thing to every "
                               "reader)") from None
        raise BadInput(f"{error.path}: {error.reason}") from None


# ---------------------------------------------------------------------------------------------
# Rounding and the exponential, the checker's own


def _round_down(x: Fraction, bits: int = BITS) -> Fraction:
    if x == 0:
        return x
    shift = bits - (abs(x.numerator).bit_length() - x.denominator.bit_length())
    if shift >= 0:
        return Fraction((x.numerator << shift) // x.denominator, 1 << shift)
    return Fraction((x.numerator // (x.denominator << -shift)) << -shift)


def _series(y: Fraction) -> Fraction:
    """sum_{j <= SERIES_TERMS} y^j / j!, at most exp(y) for y >= 0."""
    term, total = Fraction(1), Fraction(1)
    for j in range(1, SERIES_TERMS + 1):
        term = term * y / j
        total += term
    return total


def exp_lower(y: Fraction) -> Fraction:
    """A rational lower bound of exp(y) for rational y >= 0: e^floor(y) by squarings of a lower bound of e, times a partial sum."""
    whole = y.numerator // y.denominator
    base = _round_down(_series(Fraction(1)))
    power = Fraction(1)
    k = whole
    while k:
        if k & 1:
            power = _round_down(power * base)
        base = _round_down(base * base)
        k >>= 1
    return _round_down(power * _series(_round_down(y - whole)))


def _exp_neg_at_most(x: Fraction, q: Fraction) -> bool:
    """Proves exp(-x) <= q for x >= 0, or returns False (never True wrongly)."""
    if q >= 1:
        return True
    if q <= 0:
        return False
    # exp(-x) <= exp(-y) for y <= x: y a little above log(1/q) suffices and keeps exp_lower cheap.
    needed = math.log(q.denominator) - math.log(q.numerator)
    y = min(x, Fraction(math.floor(needed) + 3))
    return exp_lower(y) * q >= 1


# ---------------------------------------------------------------------------------------------
# The hardmax replay


class _Layer:
    """One replayed layer: positions, and per distinct position its top positions and the layer's margin.

    Scores <A p, q> in integers over one scale: A z once per distinct position (d^2 products), then
    one dot product per pair (d products), charged to the claims checker's meter by their sizes.
    Positions are referred to by their index in ``points`` (hashing a tuple of fractions is slow).
    """

    def __init__(self, positions: list, A_integer: list, A_scale: int) -> None:
        self.positions = positions
        index: dict[tuple, int] = {}
        self.token_point = [index.setdefault(p, len(index)) for p in positions]
        self.points = list(index)
        m, d = len(self.points), len(A_integer)
        self.counts = [0] * m
        for u in self.token_point:
            self.counts[u] += 1
        self.top: list[list[int]] = []
        self.margin: Fraction | None = None
        self.tie: tuple[int, list[int]] | None = None
        N, D = integer_rows(self.points)
        self.integers, self.denominator = N, D
        size, a_bits = bits_of(N), bits_of(A_integer)
        charge(cost(m * d * d, size, a_bits) + cost(m * m * (d + SCORE_OVERHEAD), size + a_bits, size))
        smallest: int | None = None
        for u in range(m):
            Az = [sum(map(operator.mul, row, N[u])) for row in A_integer]
            scores = [sum(map(operator.mul, Az, other)) for other in N]
            best = max(scores)
            top = [v for v in range(m) if scores[v] == best]
            self.top.append(top)
            if len(top) > 1 and self.tie is None:
                self.tie = (u, top)
            rest = [x for x in scores if x != best]
            if rest:
                gap = best - max(rest)
                smallest = gap if smallest is None or gap < smallest else smallest
        if smallest is not None:
            self.margin = Fraction(smallest, D * D * A_scale)

    def following(self, alpha: Fraction) -> list:
        """The next layer: z' = (z + alpha mean(top)) / (1 + alpha), from the integer numerators."""
        N, D, d = self.integers, self.denominator, len(self.integers[0])
        a, b = alpha.numerator, alpha.denominator
        size = bits_of(N)
        charge(cost(sum(map(len, self.top)) * d, size) + cost(len(self.points) * d, size, size))
        new = []
        for u, top in enumerate(self.top):
            count = sum(self.counts[v] for v in top)
            total = [sum(self.counts[v] * N[v][r] for v in top) for r in range(d)]
            # (z + alpha m)/(1 + alpha) = (b count N_u + a total) / (count D (a + b)) for alpha = a/b.
            scale = count * D * (a + b)
            new.append(tuple(Fraction(b * count * N[u][r] + a * total[r], scale) for r in range(d)))
        return [new[u] for u in self.token_point]


def estimated_work(n: int, d: int, last: int, *, bits: int, growth: int, record_bits: list[int] | None = None) -> int:
    """Work units of replaying n tokens in d dimensions through layer ``last`` and checking each step.

    Per layer: n d^2 products for A z, n^2 (d + 2) for the scores, n d for the update, and the
    recursion's STEP_OPERATIONS; integers of ``bits`` bits growing by ``growth`` a layer (the claims
    checker's :func:`verify.certcheck.input_bits` and :func:`verify.certcheck.replay_growth`), a
    product of b-bit integers costing (b/512)^1.6 units beyond 512 bits. ``record_bits[k]``: the
    size of layer k's stated numbers (from their text), when larger than the replay's.
    """
    total = 0.0
    for k in range(last + 1):
        size = bits + k * growth
        stated = record_bits[k] if record_bits is not None and k < len(record_bits) else 0
        step = max(2 * size, stated)
        total += (cost(n * d * d + n * n * (d + SCORE_OVERHEAD) + n * d, size, size)
                  + cost(STEP_OPERATIONS, step, step)
                  + (3 * (cost(1, stated, stated) + gcd_cost(1, stated)) if stated else 0))  # reading
        if total > 1 << 62:
            break
    return int(total)


def _text_bits(record: Any) -> int:
    """Bits of the longest number stated in a layer record, from its text (before any is read)."""
    if not isinstance(record, dict):
        return 0
    return max((int(len(x) * 3.33) + 1 for key in ("bound", "margin", "eta") if isinstance(x := record.get(key), str)),
               default=0)


def record_work(data: Any) -> int:
    """The estimated work of checking a softmax record (what :func:`check_record` compares with ``max_work``)."""
    if not is_softmax_record(data) or not isinstance(data.get("config"), dict):
        raise BadInput("not a softmax certificate record")
    config, records = data["config"], data["softmax_certificate"].get("records")
    tokens = config.get("tokens")
    if not (isinstance(tokens, list) and tokens and isinstance(tokens[0], list) and isinstance(records, list)):
        raise BadInput("not a softmax certificate record")
    alpha = _config_number(config.get("alpha"), "config.alpha")
    numbers = [_config_number(x, "config.tokens") for t in tokens for x in t] + [alpha]
    if config.get("A") is not None:
        numbers += [_config_number(x, "config.A") for row in config["A"] for x in row]
    bits = input_bits(numbers)
    return estimated_work(len(tokens), len(tokens[0]), len(records) - 1, bits=bits, growth=replay_growth(alpha),
                          record_bits=[_text_bits(r) for r in records]) + int(setup_work(len(tokens[0]), bits,
                                                                                         A=config.get("A") is not None))


# ---------------------------------------------------------------------------------------------
# The check


def check_record(data: Any, *, max_work: int = DEFAULT_MAX_WORK) -> SoftmaxCheck:
    """Verify the softmax certificate of a record written by ``hardmax-verify softmax --json``.

    Raises :class:`BadInput` when the record is not one or is beyond a limit (before any replay).
    """
    if not is_softmax_record(data):
        raise BadInput("not a softmax certificate record (expected a 'softmax_certificate' object)")
    config, cert = data.get("config"), data["softmax_certificate"]
    if not isinstance(config, dict):
        raise BadInput("config: expected the configuration object")
    shape = _schema_problem({**data, "softmax_certificate": {}}, Obj({**RECORD.fields, "softmax_certificate": CHECKED},
                                                                    optional=RECORD.optional))
    if shape is not None:  # the record's own keys and its configuration's: refused, as a malformed input
        raise BadInput(shape)
    tokens = config.get("tokens")
    if not (isinstance(tokens, list) and 0 < len(tokens) <= MAX_TOKENS and all(isinstance(t, list) for t in tokens)
            and len({len(t) for t in tokens}) == 1 and 0 < len(tokens[0]) <= MAX_DIMENSION):
        raise BadInput(f"config.tokens: expected 1..{MAX_TOKENS} points of one dimension 1..{MAX_DIMENSION}")
    n, d = len(tokens), len(tokens[0])
    layers = cert.get("layers")
    if isinstance(layers, bool) or not isinstance(layers, int) or not 0 <= layers <= MAX_LAYERS:
        raise BadInput(f"softmax_certificate.layers: expected an integer 0..{MAX_LAYERS}")
    records = cert.get("records")
    if not isinstance(records, list) or not 0 < len(records) <= layers + 1:
        raise BadInput("softmax_certificate.records: expected 1..layers+1 layer records")
    # Refused from the shape alone (the smallest numbers, no growth) before a number is read.
    _refuse_beyond(estimated_work(n, d, len(records) - 1, bits=1, growth=0), n, d, len(records) - 1, max_work)
    meter: list = [0.0, 0.0]
    try:
        with metered(max_work) as meter:
            Z0 = [tuple(_config_number(x, f"config.tokens[{i}][{c}]") for c, x in enumerate(t))
                  for i, t in enumerate(tokens)]
            alpha = _config_number(config.get("alpha"), "config.alpha")
            if alpha <= 0:
                raise BadInput("config.alpha: expected alpha > 0")
            if config.get("V") is not None:
                raise BadInput("config.V: the softmax bound is for the alpha update only")
            raw_A = config.get("A")
            if raw_A is None:
                A = [[Fraction(int(r == c)) for c in range(d)] for r in range(d)]
            else:
                if not (isinstance(raw_A, list) and len(raw_A) == d
                        and all(isinstance(r, list) and len(r) == d for r in raw_A)):
                    raise BadInput(f"config.A: expected a {d} x {d} matrix")
                A = [[_config_number(x, f"config.A[{r}][{c}]") for c, x in enumerate(row)]
                     for r, row in enumerate(raw_A)]
            # The claims checker's estimate (.estimate): integers as large as the inputs,
            # growing by alpha's update each layer; refused before the replay when beyond the limit.
            bits = input_bits([x for z in Z0 for x in z] + [x for row in A for x in row] + [alpha])
            _refuse_beyond(estimated_work(n, d, len(records) - 1, bits=bits, growth=replay_growth(alpha),
                                          record_bits=[_text_bits(r) for r in records])
                           + int(setup_work(d, bits, A=raw_A is not None)), n, d, len(records) - 1, max_work)
            shape = _schema_problem(cert, CERTIFICATE, "softmax_certificate")
            if shape is not None:
                raise _Rejected(shape)
            if "status" in data and data["status"] is None:  # null would skip the comparison below
                raise _Rejected("status: null, expected certified or inconclusive")
            result = _check(cert, Z0, alpha, A, n, layers, records, status=data.get("status"),
                            identity=raw_A is None)
            _check_configuration_fields(data, cert, Z0, A, raw_A is None)
    except _Rejected as error:
        result = SoftmaxCheck("rejected", str(error), layers=layers, certified_through=None, stop=None)
    except WorkLimit as error:
        result = SoftmaxCheck("unsupported", str(error), layers=layers, certified_through=None, stop=None)
    result.work = meter[1] - meter[0]
    return result


def _check_configuration_fields(data: dict, cert: dict, Z0: list, A: list, identity: bool) -> None:
    """What the record states besides the certificate: its command, and a configuration that agrees with it
    (beta and layers, when the configuration states them, are the certificate's) and is marked outside the
    theorem's hypotheses (docs/theory.md §2: a zero or repeated token, A not symmetric positive definite)
    exactly when it is, both in the configuration and on the record (recorded only when true)."""
    config = data["config"]
    _require(data.get("command") == COMMAND, f"command: expected {COMMAND!r}")
    if "beta" in config:
        _require(_exact(config["beta"], "config.beta") == _exact(cert.get("beta"), "beta"),
                 "config.beta: not the certificate's beta")
    if "layers" in config:
        _require(config["layers"] == cert.get("layers") and not isinstance(config["layers"], bool),
                 "config.layers: not the certificate's layers")
    # Recorded only when true, and then in both places (the command's convention); true it must be when the
    # configuration is outside the hypotheses, and it may be on one inside them (the option the run was given).
    for where, holder in (("config.outside_hypotheses", config), ("outside_hypotheses", data)):
        _require(holder.get("outside_hypotheses", True) is True, f"{where}: recorded only when true")
    _require(("outside_hypotheses" in config) == ("outside_hypotheses" in data),
             "outside_hypotheses: the record and its configuration disagree")
    reason = outside_reason(Z0, A, identity)
    _require(not reason or data.get("outside_hypotheses") is True,
             f"outside_hypotheses: the configuration is outside the theorem's hypotheses ({reason}), but the record "
             "does not say so")


def outside_reason(Z0: list, A: list, identity: bool) -> str:
    """How the configuration is outside the theorem's hypotheses ("" when it is not)."""
    reasons = []
    if any(not any(z) for z in Z0):
        reasons.append("a token is the origin")
    if len(set(Z0)) < len(Z0):
        reasons.append("two tokens are equal")
    if not identity:
        d = len(A)
        if any(A[r][c] != A[c][r] for r in range(d) for c in range(r)):
            reasons.append("A is not symmetric")
        elif not positive_definite(A):
            reasons.append("A is not positive definite")
    return "; ".join(reasons)


def _refuse_beyond(work: int, n: int, d: int, last: int, max_work: int) -> None:
    if work > max_work:
        raise BadInput(f"replaying {n} tokens in d = {d} through layer {last} and checking each step is {work:.3g} "
                       f"units of work, more than the limit of {max_work:.3g} (raise it with --max-work)")


def _check(cert: dict, Z0: list, alpha: Fraction, A: list, n: int, layers: int, records: list, *,
           status: Any, identity: bool) -> SoftmaxCheck:
    _require(cert.get("kind") == KIND, f"kind: expected {KIND!r}")
    _require(cert.get("n") == n, "n: not the configuration's number of tokens")
    _require(_exact(cert.get("alpha"), "alpha") == alpha, "alpha: not the configuration's")
    beta = _exact(cert.get("beta"), "beta")
    _require(beta > 0, "beta: expected beta > 0")
    gamma = _exact(cert.get("gamma"), "gamma")
    _require(gamma == alpha / (1 + alpha), "gamma: not alpha / (1 + alpha)")
    R = _exact(cert.get("radius"), "radius")
    _require(R >= 0 and R * R >= max(sum((x * x for x in z), Fraction(0)) for z in Z0),
             "radius: R^2 is below the largest squared norm of an initial token")
    norm = _exact(cert.get("norm_bound"), "norm_bound")
    d = len(A)
    frobenius = sum((x * x for row in A for x in row), Fraction(0))
    holder = (max(sum((abs(A[r][c]) for r in range(d)), Fraction(0)) for c in range(d))
              * max(sum((abs(x) for x in row), Fraction(0)) for row in A))
    _require(norm >= 0 and norm * norm >= min(frobenius, holder),
             "norm_bound: its square is below both ||A||_F^2 and ||A||_1 ||A||_inf")
    # The label says which bound the record used; the checker knows which one it is from the numbers.
    expected_method = ("identity" if identity else "sqrt(||A||_1 ||A||_inf)"
                       if holder <= frobenius else "Frobenius norm")
    _require(cert.get("norm_method") == expected_method, f"norm_method: expected {expected_method!r}")
    _require(cert.get("approx_rounding") == {"bound_approx": "up", "margin_approx": "down"},
             "approx_rounding: expected bound_approx rounded up and margin_approx rounded down")

    last = len(records) - 1
    stop = cert.get("stop")
    _require(cert.get("certified_through") == last, "certified_through: not the last layer record")
    holds = stop is None and last == layers
    _require(cert.get("holds") is holds, f"holds: should be {str(holds).lower()}")
    if status is not None:
        _require(status == ("certified" if holds else "inconclusive"), "status: disagrees with the certificate")
    _require(stop is not None or last == layers, "records end before the last layer without a stated stop")
    if stop is not None:
        _require(isinstance(stop, dict) and stop.get("layer") == last and stop.get("reason") in ("tie", "margin"),
                 "stop: expected the last record's layer and a reason 'tie' or 'margin'")
        if stop["reason"] == "margin":
            _require(stop.get("token") is None and stop.get("tokens") is None,
                     "stop: a margin stop names no token and no tied pair")
        _require(stop.get("explanation") == _stop_explanation(stop), "stop.explanation: not what the stop is")

    bounds, margins, etas = [], [], []
    for k, record in enumerate(records):
        _require(isinstance(record, dict) and record.get("layer") == k, f"records[{k}]: expected layer {k}")
        bounds.append(_exact(record.get("bound"), f"records[{k}].bound"))
        margins.append(None if record.get("margin") is None else _exact(record["margin"], f"records[{k}].margin"))
        etas.append(None if record.get("eta") is None else _exact(record["eta"], f"records[{k}].eta"))
        # What a reader reads: the approximations must be on the safe side of the exact numbers.
        _require(record.get("bound_approx") == _decimal(bounds[k], upward=True),
                 f"records[{k}].bound_approx: not eps_{k} rounded up to 3 digits")
        margin_k = margins[k]
        _require(record.get("margin_approx") == (None if margin_k is None else _decimal(margin_k, upward=False)),
                 f"records[{k}].margin_approx: not delta_{k} rounded down to 3 digits")
    _require(bounds[0] == 0, "records[0].bound: eps_0 must be 0")

    A_scale = math.lcm(*(x.denominator for row in A for x in row))
    A_integer = [[x.numerator * (A_scale // x.denominator) for x in row] for row in A]
    positions = Z0
    for k in range(last + 1):
        if k == last and stop is None:
            break  # the bound at layer K needs no analysis of layer K
        layer = _Layer(positions, A_integer, A_scale)
        eps = bounds[k]
        size = max(_size(x) for x in (eps, margins[k], etas[k], beta, R, norm, gamma))
        charge(cost(STEP_OPERATIONS, size, size))
        _require(eps >= 0, f"layer {k}: negative bound")
        if k == last and stop is not None:  # the stated stop
            if stop["reason"] == "tie":
                _require(layer.tie is not None, f"layer {k}: the certificate stops for a tie, but no attention set "
                                                 "holds two distinct positions")
                _check_tie_tokens(stop, layer, n)
                break
            _require(layer.tie is None, f"layer {k}: a tie between distinct positions, not a margin stop")
        else:
            _require(layer.tie is None, f"layer {k}: an attention set holds two distinct positions, so the bound "
                                        "cannot continue past this layer")
        margin, eta = layer.margin, etas[k]
        _require(margins[k] == margin,
                 f"layer {k}: stated margin {_short(margins[k])} is not the replay's delta_k = {_short(margin)}")
        if margin is not None or eta is not None:
            _require(eta is not None and eta >= norm * eps * (2 * R + eps),
                     f"layer {k}: eta_k is below ||A|| (2 R eps_k + eps_k^2)")
        if k == last:  # stop for the margin
            _require(margin is not None and eta is not None and margin <= 2 * eta,
                     f"layer {k}: the certificate stops for the margin, but delta_k > 2 eta_k")
            break
        following = bounds[k + 1]
        if margin is None or eta is None:
            _require(following >= eps, f"layer {k + 1}: the bound decreased")
        else:
            _require(margin > 2 * eta, f"layer {k}: delta_k <= 2 eta_k, the certificate must stop here")
            exponent = beta * (margin - 2 * eta)
            weight = 2 * gamma * (R + eps) * (n - 1)
            increase = following - eps
            if weight == 0:
                _require(increase >= 0, f"layer {k + 1}: the bound decreased")
            else:
                _require(increase > 0 and _exp_neg_at_most(exponent, increase / weight),
                         f"layer {k + 1}: eps_{k + 1} is below eps_k + 2 gamma (R + eps_k)(n - 1) "
                         "exp(-beta (delta_k - 2 eta_k))")
        positions = layer.following(alpha)
    stop_text = None if stop is None else ("a tie between distinct positions" if stop["reason"] == "tie"
                                           else "delta <= 2 eta")
    return SoftmaxCheck("verified", "", layers=layers, certified_through=last, stop=stop_text)


def _decimal(x: Fraction, *, upward: bool, digits: int = 3) -> str:
    """``x`` in scientific notation with ``digits`` significant digits, rounded up or down exactly (the
    checker's own rule for the records' ``*_approx`` texts)."""
    if x == 0:
        return "0"
    magnitude = abs(x)
    # floor(log10 |x|) from the bit lengths (no decimal text of a long number), then corrected exactly.
    exponent = math.floor((magnitude.numerator.bit_length() - magnitude.denominator.bit_length()) * math.log10(2))
    while magnitude >= Fraction(10) ** (exponent + 1):
        exponent += 1
    while magnitude < Fraction(10) ** exponent:
        exponent -= 1
    scaled = x / Fraction(10) ** (exponent - digits + 1)
    mantissa = math.ceil(scaled) if upward else math.floor(scaled)
    if abs(mantissa) == 10 ** digits:
        mantissa //= 10
        exponent += 1
    text = str(abs(mantissa))
    return ("-" if mantissa < 0 else "") + text[0] + ("." + text[1:] if digits > 1 else "") + f"e{exponent:+d}"


def _stop_explanation(stop: dict) -> str:
    """The sentence a stop carries (verify/core/softmax_bound.py's Stop.describe, typed here a second time)."""
    if stop.get("reason") == "tie":
        a, b = stop["tokens"] if isinstance(stop.get("tokens"), list) and len(stop["tokens"]) == 2 else (None, None)
        return (f"layer {stop.get('layer')}: token {stop.get('token')}'s attention set holds two distinct positions "
                f"(tokens {a} and {b} tie for its top score)")
    return f"layer {stop.get('layer')}: the margin delta is at most 2 eta (the score error the bound allows)"


def _check_tie_tokens(stop: dict, layer: _Layer, n: int) -> None:
    token, pair = stop.get("token"), stop.get("tokens")
    if not (isinstance(token, int) and 0 <= token < n and isinstance(pair, list) and len(pair) == 2
            and all(isinstance(j, int) and 0 <= j < n for j in pair)):
        raise _Rejected("stop: expected the token and the tied pair")
    top = layer.top[layer.token_point[token]]
    a, b = (layer.token_point[j] for j in pair)
    _require(a != b and a in top and b in top, "stop: the stated tokens do not tie at distinct positions for the token")


def _size(x: Fraction | None) -> int:
    return 0 if x is None else max(abs(x.numerator).bit_length(), x.denominator.bit_length())


def _short(x: Fraction | None) -> str:
    if x is None:
        return "none"
    if _size(x) <= 128:
        return str(x)
    exponent = math.log10(abs(x.numerator)) - math.log10(x.denominator)
    return f"≈{'-' if x < 0 else ''}10^{exponent:.4f}"


def check_path(path: str, *, max_bytes: int = DEFAULT_MAX_BYTES, max_work: int = DEFAULT_MAX_WORK) -> SoftmaxCheck | None:
    """Check the file when it is a softmax record; None when it is a regular file of another kind."""
    try:
        info = os.stat(path)
    except OSError:
        return None  # the caller's own reader names the problem
    if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
        return None
    try:
        data = _read(path, max_bytes)
    except _RepeatedKey:
        raise  # not JSON whatever its kind: refused (exit 2), as every checker refuses it
    except BadInput:
        return None
    if not is_softmax_record(data):
        return None
    return check_record(data, max_work=max_work)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verify.certcheck.softmax", description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="a record of hardmax-verify softmax --json")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON instead of a line")
    parser.add_argument("--max-work", type=int, default=DEFAULT_MAX_WORK)
    parser.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES)
    parser.add_argument("--debug", action="store_true")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        result = check_record(_read(args.file, args.max_bytes), max_work=args.max_work)
    except BadInput as error:
        print(f"error: {str(error)[:500]}", file=sys.stderr)
        return BAD_INPUT
    except OSError as error:
        print(f"error: {args.file}: {error.strerror or error}", file=sys.stderr)
        return BAD_INPUT
    except Exception as error:  # noqa: BLE001 - a crash must never look like a verdict
        if args.debug:
            traceback.print_exception(error)
        print(f"error: could not complete: {type(error).__name__}: {str(error)[:300]}", file=sys.stderr)
        return COULD_NOT_COMPLETE
    if args.json:
        sys.stdout.write(json.dumps(result.to_json_dict(), indent=1, allow_nan=False) + "\n")
    else:
        print("\n".join(result.lines()))
    return result.exit_status

