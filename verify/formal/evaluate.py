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

__all__ = ["statement_layers", "statement_layers_of_many", "evaluation_text", "parse_coq_vectors"]

Matrix = Sequence[Sequence[Fraction]]


def evaluation_text(configs: Sequence[tuple[Matrix, Fraction, Matrix]], layers: int) -> str:
    """A Coq file printing Z^0 .. Z^layers of the statement's model (``layers cfg k``) for each
    (tokens, alpha, A), one module each."""
    return _HEADER + _EXACT_FORM + "".join(
        f"Module E{i}.\nDefinition cfg : config := {terms.config(tokens, alpha, A)}.\n"
        + "".join(f"Eval vm_compute in exact_form (layers cfg {k}).\n" for k in range(layers + 1)) + f"End E{i}.\n"
        for i, (tokens, alpha, A) in enumerate(configs))


# Coq prints a rational in one of several notations (p # q, 0.5, 0x0.b%xQ); Diagnose.v's
# exact_form prints its numerator and denominator, as integers, one way only.
_EXACT_FORM = "Require Import HardmaxVerify.Diagnose.\n"
_ITEM = re.compile(r"\[|\]|\(\s*\(?(-?\d+)\)?%Z\s*,\s*(\d+)%Z\s*\)")


def parse_coq_vectors(text: str) -> list[list[Fraction]]:
    """One printed ``exact_form`` of a ``list vec`` (``[[(1%Z, 3%Z); ((-1)%Z, 18%Z)]]``) as exact numbers."""
    out: list[list[Fraction]] = []
    depth = 0
    current: list[Fraction] | None = None
    for match in _ITEM.finditer(text):
        token = match.group(0)
        if token == "[":
            depth += 1
            if depth == 2:
                current = []
        elif token == "]":
            if depth == 2 and current is not None:
                out.append(current)
            depth -= 1
        elif current is not None:
            current.append(Fraction(int(match.group(1)), int(match.group(2))))
    return out


def statement_layers_of_many(configs: Sequence[tuple[Matrix, Fraction, Matrix]], layers: int, *,
                             time_limit: float = DEFAULT_TIME_LIMIT) -> list[list[list[list[Fraction]]]]:
    """For each (tokens, alpha, A): the positions of layers 0 .. ``layers`` as Coq evaluates
    Statement.v's ``layers`` (one coqc run for all)."""
    with tempfile.TemporaryDirectory(prefix="hardmax-evaluate-") as tmp:
        status, output, _ = _run_coqc(evaluation_text(configs, layers), Path(tmp), "evaluate",
                                      time_limit=time_limit, memory_limit=DEFAULT_MEMORY_LIMIT)
    if status != 0:
        raise CouldNotComplete(f"coqc could not evaluate the model ({' '.join(output.split()[:20])})")
    printed = [chunk for chunk in output.split(": list (list (Z * Z))") if "=" in chunk]
    flat = [parse_coq_vectors(chunk.split("=", 1)[1]) for chunk in printed]
    if len(flat) != len(configs) * (layers + 1):
        raise CouldNotComplete(f"coqc printed {len(flat)} layers, expected {len(configs) * (layers + 1)}")
    return [flat[i * (layers + 1):(i + 1) * (layers + 1)] for i in range(len(configs))]


def statement_layers(tokens: Matrix, alpha: Fraction, A: Matrix, layers: int, *,
                     time_limit: float = DEFAULT_TIME_LIMIT) -> list[list[list[Fraction]]]:
    """The positions of layers 0 .. ``layers`` of one configuration, as Coq evaluates them."""
    return statement_layers_of_many([(tokens, alpha, A)], layers, time_limit=time_limit)[0]
