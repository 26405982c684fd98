"""Similarity certificates (docs/theory.md D11), re-verified on the checker's own replay.

A certificate (format ``hardmax-verify/similarity-v1``) states a layer k, a period p >= 1, a d x d
matrix M, a relabelling P (a permutation of the tokens) and a scale s > 0. It holds when
M^T A M = s A exactly and z_i^{k+p} = M z_{P(i)}^k for every token i, on the replayed layers;
then the attention pattern repeats for ever (Z^{k+p+t} = M P Z^{k+t}) and a token leads at a layer
after k + p only if some token leads at one of the layers k..k+p-1. ``contraction_power`` q (or
null, which claims nothing) states that M^q has every row sum of absolute values below 1: then
M^j -> 0 and every token converges to 0; it is checked too.

What the claims report uses it for: a failed T0 verdict whose evidence carries ``similarity``
says that no token is ever a leader; :func:`no_leader_ever` checks that no token leads at layers
0..k+p-1 besides the certificate itself. A report whose run stopped because of it states
``stopped_by: "similarity"`` and ``last_layer`` k + p. Standard library only, like the rest of
the checker; nothing here is taken from the suite.
"""

# ruff: noqa: B023 - a message passed to require as a lambda is formatted inside require, before the
# loop it is written in moves on: the loop variables it reads are the current ones.

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any, NamedTuple

from .common import Rejected, require
from .meter import charge, cost, gcd_cost
from .model import Model
from .numbers import _get, _int, _show, bits_of, integer_rows, read_number

FORMAT = "hardmax-verify/similarity-v1"
STOPPED_BY = "similarity"
MAX_CONTRACTION_POWER = 16
VERIFIED = "re-verified: no token is ever a leader"  # the reason of a failed T0 outcome whose certificate holds
FIELDS = ("format", "layer", "period", "M", "relabelling", "scale", "contraction_power")
# What a verdict's evidence says of the limits beside the certificate, re-derived from contraction_power.
CONVERGES = "every token converges to 0 (the rows of |M^{q}| sum to less than 1)"
NOT_CERTIFIED = "the limits are not certified (no power of M found to contract)"


class Similarity(NamedTuple):
    layer: int
    period: int
    converges_to_zero: bool
    power: int | None = None

    @property
    def end(self) -> int:
        return self.layer + self.period

    @property
    def limits(self) -> str:
        return NOT_CERTIFIED if self.power is None else CONVERGES.format(q=self.power)


def _matrix(raw: Any, d: int, where: str) -> list[list[Fraction]]:
    require(isinstance(raw, list) and len(raw) == d and all(isinstance(r, list) and len(r) == d for r in raw),
            lambda: f"{where}: expected a {d} x {d} matrix")
    return [[read_number(x, f"{where}[{r}][{c}]") for c, x in enumerate(row)] for r, row in enumerate(raw)]


def _product(X: list[list[int]], Y: list[list[int]]) -> list[list[int]]:
    """X Y of integer matrices, paid for before it runs."""
    rows, inner, columns = len(X), len(Y), len(Y[0]) if Y else 0
    charge(cost(rows * inner * columns, bits_of(X), bits_of(Y) + inner.bit_length()))
    YT = list(zip(*Y))
    return [[sum(x * y for x, y in zip(row, column)) for column in YT] for row in X]


def check_similarity(cert: Any, m: Model) -> Similarity:
    """Every condition of a similarity certificate on the replay of ``m`` (layers up to ``m.last``), or Rejected.

    In integers: with M = N / D, A = A' / a and s = u / v, M^T A M = s A is v N^T A' N = u D^2 A', and
    M z_j^k = z_i^{k+p} compares N Z'_j times the denominator of layer k + p with Z''_i times D and the
    denominator of layer k. Every product is paid for before it runs."""
    where = "similarity"
    require(isinstance(cert, dict), f"{where}: expected an object")
    require(cert.get("format") == FORMAT, lambda: f"{where}.format: expected {FORMAT!r}")
    unknown = sorted(str(key)[:40] for key in cert if key not in FIELDS)
    require(not unknown, lambda: f"{where}.{unknown[0]}: not a field of a similarity certificate")
    k = _int(_get(cert, "layer", where), f"{where}.layer")
    p = _int(_get(cert, "period", where), f"{where}.period", low=1)
    require(k + p <= m.last, lambda: f"{where}: layer {k} + period {p} is beyond the run's last layer {m.last}")
    M = _matrix(_get(cert, "M", where), m.d, f"{where}.M")
    s = read_number(_get(cert, "scale", where), f"{where}.scale")
    require(s > 0, lambda: f"{where}.scale: expected s > 0, got {_show(s)}")
    P = _get(cert, "relabelling", where)
    require(isinstance(P, list) and len(P) == m.n and sorted(_int(j, f"{where}.relabelling", high=m.n - 1)
                                                             for j in P) == list(range(m.n)),
            lambda: f"{where}.relabelling: expected a permutation of the {m.n} tokens")
    power = _get(cert, "contraction_power", where)
    q = None if power is None else _int(power, f"{where}.contraction_power", low=1, high=MAX_CONTRACTION_POWER)
    d = m.d
    N, D = integer_rows(M)
    Ai, a_den = integer_rows(m.A)
    # M^T A M = s A, entry by entry.
    left = _product(_product([list(row) for row in zip(*N)], Ai), N)
    charge(cost(2 * d * d, bits_of(left) + bits_of(Ai), s.numerator.bit_length() + 2 * D.bit_length()))
    for r in range(d):
        for c in range(d):
            require(s.denominator * left[r][c] == s.numerator * D * D * Ai[r][c],
                    lambda: f"{where}: (M^T A M)[{r}][{c}] is {_show(Fraction(left[r][c], D * D * a_den))}, "
                            f"s A[{r}][{c}] is {_show(s * m.A[r][c])}")
    (before, b), (after, a) = m.integer_layer(k), m.integer_layer(k + p)
    images = _product(before, [list(row) for row in zip(*N)])  # row j: N z'_j
    charge(cost(2 * m.n * d, bits_of(images) + bits_of(after), a.bit_length() + D.bit_length() + b.bit_length()))
    for i, j in enumerate(P):
        require(all(x * a == y * D * b for x, y in zip(images[j], after[i])),
                lambda: f"{where}: M z_{j}^{k} is {_show(tuple(Fraction(x, D * b) for x in images[j]))}, "
                        f"z_{i}^{k + p} is {_show(m.layer(k + p)[i])}")
    if q is not None:
        # Row sums of |M^q| below 1: of |N^q| below D^q.
        power_of_N = N
        for _ in range(q - 1):
            power_of_N = _product(power_of_N, N)
        charge(cost(d * d, bits_of(power_of_N)) + gcd_cost(1, q * D.bit_length()))
        norm = max(sum(abs(x) for x in row) for row in power_of_N)
        require(norm < D ** q, lambda: f"{where}.contraction_power: the row sums of |M^{q}| reach "
                                       f"{_show(Fraction(norm, D ** q))}, not below 1")
    return Similarity(k, p, q is not None, q)


def no_leader_ever(cert: Any, m: Model) -> Similarity:
    """The certificate holds and no token leads at layers 0..k+p-1: by D11 no token leads at any layer.

    Checked once per model and certificate (the verdict and the run's ``stopped_by`` both rest on it)."""
    key = ("similarity", json.dumps(cert, sort_keys=True, default=str))
    if key not in m._facts:
        try:
            sim = check_similarity(cert, m)
            for layer in range(sim.end):
                leading = [i for i in range(m.n) if m.attention(layer)[i] == {i}]
                require(not leading, lambda: f"similarity: token {leading[0]} leads at layer {layer}, so the "
                                             "certificate does not show that no token is ever a leader")
            m._facts[key] = sim
        except Rejected as error:
            m._facts[key] = error
    found = m._facts[key]
    if isinstance(found, Rejected):
        raise found
    return found


def judge_similarity_evidence(evidence: dict, m: Model) -> Similarity:
    """The certificate in a verdict's evidence, verified, with the evidence's ``limits`` sentence (if any) saying
    what its contraction_power shows; Rejected otherwise. A ``limits`` sentence without a certificate is rejected."""
    require("similarity" in evidence, "evidence.limits speaks of a similarity certificate (D11), but there is none")
    sim = no_leader_ever(evidence["similarity"], m)
    require("limits" not in evidence or evidence["limits"] == sim.limits,
            lambda: f"evidence.limits says {str(evidence['limits'])[:80]!r}, the certificate shows {sim.limits!r}")
    return sim


def judge_failed_T0(verdict: dict, m: Model) -> tuple[str, str] | None:
    """(outcome, reason) for a failed T0 verdict that carries a similarity certificate in its evidence, else None."""
    evidence = verdict.get("evidence")
    if not isinstance(evidence, dict) or not {"similarity", "limits"} & set(evidence):
        return None
    try:
        sim = judge_similarity_evidence(evidence, m)
    except Rejected as error:
        return "rejected", str(error)
    return "failed", f"{VERIFIED} (docs/theory.md D11: Z^{sim.end} = M P Z^{sim.layer}, M^T A M = s A)"


def stated_similarity(verdicts: Any, m: Model) -> Similarity | None:
    """The verified certificate of the run's failed T0 verdict, if it carries one that holds (else None)."""
    T0 = verdicts.get("T0") if isinstance(verdicts, dict) else None
    if not (isinstance(T0, dict) and T0.get("status") == "failed" and isinstance(T0.get("evidence"), dict)
            and "similarity" in T0["evidence"]):
        return None
    try:
        return no_leader_ever(T0["evidence"]["similarity"], m)
    except Rejected:
        return None
