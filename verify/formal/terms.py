"""Exact numbers, vectors, configurations and fates written as Coq terms of formal/Statement.v.

A rational p/q is ``(p # q)`` (Coq's ``Qmake``, q > 0); every term is printed in full, with no
rounding and no abbreviation, so the kernel evaluates exactly the numbers of the file.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Sequence

__all__ = ["q", "vec", "matrix", "nat_list", "fate", "config"]

S = "HardmaxVerify.Statement."  # names in full: nothing imported can stand in for Statement.v's


def q(x: Fraction | int) -> str:
    x = Fraction(x)
    return f"({x.numerator} # {x.denominator})"


def vec(xs: Iterable[Fraction]) -> str:
    return "[" + "; ".join(q(x) for x in xs) + "]"


def matrix(rows: Iterable[Iterable[Fraction]]) -> str:
    return "[" + "; ".join(vec(r) for r in rows) + "]"


def nat_list(xs: Iterable[int]) -> str:
    return "[" + "; ".join(str(int(x)) for x in xs) + "]%nat"


def fate(kind: str, layer: int, members: Sequence[int]) -> str:
    """``Leader k``, ``Fixed k G`` or ``Locked k F`` (Statement.v's fates)."""
    if kind == "leader":
        return f"({S}Leader {int(layer)})"
    if kind == "fixed":
        return f"({S}Fixed {int(layer)} {nat_list(members)})"
    if kind == "locked":
        return f"({S}Locked {int(layer)} {nat_list(members)})"
    raise ValueError(f"no Coq fate for kind {kind!r}")


def config(tokens: Sequence[Sequence[Fraction]], alpha: Fraction, A: Sequence[Sequence[Fraction]]) -> str:
    return f"{{| {S}A := {matrix(A)}; {S}alpha := {q(alpha)}; {S}tokens := {matrix(tokens)} |}}"
