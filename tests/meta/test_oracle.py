"""The replay oracle (verify/core/oracle.py) is deliberately independent and really checks something."""

from __future__ import annotations

import ast
from fractions import Fraction as F
from pathlib import Path

import verify.core.oracle as oracle

FORBIDDEN = ("exact_dynamics", "float_dynamics", "trajectory", "claims")


def test_oracle_imports_nothing_from_the_engine() -> None:
    tree = ast.parse(Path(oracle.__file__).read_text(encoding="utf-8"))
    imported = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            imported.append(("." * node.level) + (node.module or ""))
    assert imported, "the parse found no imports at all: the test itself is broken"
    for name in imported:
        assert not any(f in name for f in FORBIDDEN), name
        assert not name.startswith("."), f"relative import {name}: the oracle must stand alone"


def test_oracle_updates_all_tokens_from_the_same_layer() -> None:
    # 0 attends to 1, 1 attends to 0: a sequential in-place update would give different answers.
    tokens = [(F(1), F(0)), (F(2), F(0))]
    assert oracle.attention_sets(tokens) == [frozenset({1}), frozenset({1})]
    assert oracle.one_layer(tokens, alpha=F(1)) == [(F(3, 2), F(0)), (F(2), F(0))]


def test_oracle_keeps_ties() -> None:
    tokens = [(F(1), F(1)), (F(1), F(-1)), (F(1, 2), F(0))]
    assert oracle.attention_sets(tokens)[2] == {0, 1}
    assert oracle.one_layer(tokens, alpha=F(1, 2))[2] == (F(2, 3), F(0))


def test_oracle_with_a_nonsymmetric_A_uses_A_z_i() -> None:
    # <A z_i, z_j> with A = [[0, 1], [0, 0]]: A z = (z_y, 0), so token (0, 1) scores z_j[0].
    tokens = [(F(0), F(1)), (F(2), F(0)), (F(1), F(0))]
    s = oracle.scores(tokens, A=[[F(0), F(1)], [F(0), F(0)]])
    assert s[0] == [0, 2, 1]


def test_oracle_value_matrix_variant_reduces_to_alpha() -> None:
    tokens = [(F(1), F(1, 3)), (F(-1), F(-1)), (F(0), F(1, 4))]
    alpha = F(1, 2)
    V = [[alpha, F(0)], [F(0), alpha]]
    assert oracle.one_layer(tokens, alpha=F(7), V=V) == oracle.one_layer(tokens, alpha=alpha)
