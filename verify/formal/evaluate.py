"""The statement's own model, evaluated inside Coq: what formal/Statement.v says the layers are.

A referee who trusts formal/Statement.v can confirm that it computes the dynamics of
docs/theory.md §1 by evaluating it on configurations of their own (docs/formal.md shows the
same by hand); the tests compare it with the exact engine on random configurations.
"""

from __future__ import annotations

import re
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Sequence

from verify.core.exitcodes import CouldNotComplete

from . import terms
from .kernel import DEFAULT_MEMORY_LIMIT, DEFAULT_TIME_LIMIT, _HEADER, _run_coqc

__all__ = ["statement_layers", "evaluation_text", "parse_coq_vectors"]


def evaluation_text(tokens: Sequence[Sequence[Fraction]], alpha: Fraction, A: Sequence[Sequence[Fraction]],
                    layers: int) -> str:
    """A Coq file printing Z^0 .. Z^layers of the statement's model (``layers cfg k``)."""
    return (_HEADER + f"Definition cfg : config := {terms.config(tokens, alpha, A)}.\n"
            + "".join(f"Eval vm_compute in layers cfg {k}.\n" for k in range(layers + 1)))


_ITEM = re.compile(r"\[|\]|;|-?\d+\s*#\s*\d+|-?\d+")


def parse_coq_vectors(text: str) -> list[list[Fraction]]:
    """One printed ``list vec`` (``[[1; 1 # 3]; [-1 # 18; 5 # 36]]``) as exact numbers."""
    out: list[list[Fraction]] = []
    depth, current = 0, None
    for token in _ITEM.findall(text):
        if token == "[":
            depth += 1
            if depth == 2:
                current = []
        elif token == "]":
            if depth == 2 and current is not None:
                out.append(current)
            depth -= 1
        elif token != ";" and current is not None:
            p, _, q = token.partition("#")
            current.append(Fraction(int(p), int(q) if q else 1))
    return out


def statement_layers(tokens: Sequence[Sequence[Fraction]], alpha: Fraction, A: Sequence[Sequence[Fraction]],
                     layers: int, *, time_limit: float = DEFAULT_TIME_LIMIT) -> list[list[list[Fraction]]]:
    """The positions of layers 0 .. ``layers`` as Coq evaluates Statement.v's ``layers``."""
    with tempfile.TemporaryDirectory(prefix="hardmax-evaluate-") as tmp:
        status, output, _ = _run_coqc(evaluation_text(tokens, alpha, A, layers), Path(tmp), "evaluate",
                                      time_limit=time_limit, memory_limit=DEFAULT_MEMORY_LIMIT)
    if status != 0:
        raise CouldNotComplete(f"coqc could not evaluate the model ({' '.join(output.split()[:20])})")
    printed = [chunk for chunk in output.split(": list vec") if "=" in chunk]
    result = [parse_coq_vectors(chunk.split("=", 1)[1]) for chunk in printed]
    if len(result) != layers + 1:
        raise CouldNotComplete(f"coqc printed {len(result)} layers, expected {layers + 1}")
    return result
