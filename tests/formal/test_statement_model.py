"""The trusted statement computes the dynamics of docs/theory.md §1: Coq's evaluation of
Statement.v's ``layers`` equals the exact engine on configurations of every family, ties,
duplicates, zero tokens and matrices outside the hypotheses included."""

from __future__ import annotations

from fractions import Fraction

import pytest

from verify.core.exact_dynamics import exact_layers
from verify.core.families import FAMILIES, generate
from verify.formal.evaluate import parse_coq_vectors, statement_layers_of_many

LAYERS = 3


def _configs(families: list[str], seeds: range) -> list:
    out = []
    for name in families:
        family = FAMILIES[name]
        for seed in seeds:
            n, d = max(family.min_n, 5 + seed % 4), max(family.min_d, 2 + seed % 2)
            out.append(generate(name, seed, n=n, d=d))
    return out


def _compare(configs: list) -> None:
    coq = statement_layers_of_many([(c.tokens, c.alpha, c.A_matrix) for c in configs], LAYERS)
    for config, layers in zip(configs, coq):
        engine = exact_layers(config.tokens, alpha=config.alpha, A=config.A_matrix)
        expected = [[list(p) for p in next(engine).positions()] for _ in range(LAYERS + 1)]
        assert layers == expected, config.name


def test_statement_model_equals_the_engine_on_a_sample() -> None:
    _compare(_configs(["generic", "mirror_ties", "duplicates", "origin_token", "nonsymmetric_pd", "indefinite"],
                      range(1)))


@pytest.mark.slow
def test_statement_model_equals_the_engine_on_every_family() -> None:
    _compare(_configs(sorted(FAMILIES), range(3)))


def test_printed_vectors_are_read_exactly() -> None:
    text = ("= [[(1%Z, 3%Z); ((-1)%Z, 18%Z)]; [(\n         0%Z, 1%Z); ((-999999999)%Z, 1000000000%Z)]]\n"
            "     : list (list (Z * Z))")
    assert parse_coq_vectors(text) == [[Fraction(1, 3), Fraction(-1, 18)], [0, Fraction(-999999999, 10**9)]]
