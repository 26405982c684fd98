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

# ruff: noqa: B023 - a message passed to _require as a lambda is formatted inside _require, before the
# loop it is written in moves on: the loop variables it reads are the current ones.

from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple

from .common import Rejected, _require
from .meter import _charge, _cost
from .model import Model
from .numbers import _bits, _get, _int, _integer_rows, _number, _show

FORMAT = "hardmax-verify/similarity-v1"
STOPPED_BY = "similarity"
MAX_CONTRACTION_POWER = 16
VERIFIED = "re-verified: no token is ever a leader"  # the reason of a failed T0 outcome whose certificate holds


class Similarity(NamedTuple):
    layer: int
    period: int
    converges_to_zero: bool

    @property
    def end(self) -> int:
        return self.layer + self.period


def _matrix(raw: Any, d: int, where: str) -> list[list[Fraction]]:
    _require(isinstance(raw, list) and len(raw) == d and all(isinstance(r, list) and len(r) == d for r in raw),
             lambda: f"{where}: expected a {d} x {d} matrix")
    return [[_number(x, f"{where}[{r}][{c}]") for c, x in enumerate(row)] for r, row in enumerate(raw)]


def check_similarity(cert: Any, m: Model) -> Similarity:
    """Every condition of a similarity certificate on the replay of ``m`` (layers up to ``m.last``), or Rejected."""
    where = "similarity"
    _require(isinstance(cert, dict), f"{where}: expected an object")
    _require(cert.get("format") == FORMAT, lambda: f"{where}.format: expected {FORMAT!r}")
    known = {"format", "layer", "period", "M", "relabelling", "scale", "contraction_power"}
    unknown = sorted(str(key)[:40] for key in cert if key not in known)
    _require(not unknown, lambda: f"{where}.{unknown[0]}: not a field of a similarity certificate")
    k = _int(_get(cert, "layer", where), f"{where}.layer")
    p = _int(_get(cert, "period", where), f"{where}.period", low=1)
    _require(k + p <= m.last, lambda: f"{where}: layer {k} + period {p} is beyond the run's last layer {m.last}")
    M = _matrix(_get(cert, "M", where), m.d, f"{where}.M")
    s = _number(_get(cert, "scale", where), f"{where}.scale")
    _require(s > 0, lambda: f"{where}.scale: expected s > 0, got {_show(s)}")
    P = _get(cert, "relabelling", where)
    _require(isinstance(P, list) and len(P) == m.n and sorted(_int(j, f"{where}.relabelling", high=m.n - 1)
                                                              for j in P) == list(range(m.n)),
             lambda: f"{where}.relabelling: expected a permutation of the {m.n} tokens")
    power = _get(cert, "contraction_power", where)
    q = None if power is None else _int(power, f"{where}.contraction_power", low=1, high=MAX_CONTRACTION_POWER)
    d, A = m.d, m.A
    # Priced on the entries' integer sizes over one denominator each (exact rational products cost about that).
    _charge(_cost(2 * d ** 3 + m.n * d * d, _bits(_integer_rows(M)[0]) + 1, _bits(_integer_rows(A)[0]) + 1))
    # M^T A M = s A, entry by entry.
    AM = [[sum((A[r][q] * M[q][c] for q in range(d)), Fraction(0)) for c in range(d)] for r in range(d)]
    for r in range(d):
        for c in range(d):
            left = sum((M[q][r] * AM[q][c] for q in range(d)), Fraction(0))
            _require(left == s * A[r][c], lambda: f"{where}: (M^T A M)[{r}][{c}] is {_show(left)}, s A[{r}][{c}] is "
                                                  f"{_show(s * A[r][c])}")
    before, after = m.layer(k), m.layer(k + p)
    for i, j in enumerate(P):
        image = tuple(sum((M[r][c] * before[j][c] for c in range(d)), Fraction(0)) for r in range(d))
        _require(image == after[i], lambda: f"{where}: M z_{j}^{k} is {_show(image)}, z_{i}^{k + p} is {_show(after[i])}")
    if q is not None:
        _charge(_cost(q * d ** 3, _bits(_integer_rows(M)[0]) * q + 1))
        power_of_M = M
        for _ in range(q - 1):
            power_of_M = [[sum((power_of_M[r][t] * M[t][c] for t in range(d)), Fraction(0)) for c in range(d)]
                          for r in range(d)]
        norm = max(sum((abs(x) for x in row), Fraction(0)) for row in power_of_M)
        _require(norm < 1, lambda: f"{where}.contraction_power: the row sums of |M^{q}| reach {_show(norm)}, not below 1")
    return Similarity(k, p, q is not None)


def no_leader_ever(cert: Any, m: Model) -> Similarity:
    """The certificate holds and no token leads at layers 0..k+p-1: by D11 no token leads at any layer."""
    sim = check_similarity(cert, m)
    for layer in range(sim.end):
        leading = [i for i in range(m.n) if m.attention(layer)[i] == {i}]
        _require(not leading, lambda: f"similarity: token {leading[0]} leads at layer {layer}, so the certificate does "
                                      "not show that no token is ever a leader")
    return sim


def judge_failed_T0(verdict: dict, m: Model) -> tuple[str, str] | None:
    """(outcome, reason) for a failed T0 verdict that carries a similarity certificate in its evidence, else None."""
    evidence = verdict.get("evidence")
    if not isinstance(evidence, dict) or "similarity" not in evidence:
        return None
    try:
        sim = no_leader_ever(evidence["similarity"], m)
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
