"""The catalogue of known-false statements (verify.experiments.conjectures.catalogue): each is false on its known counterexample.

Each known counterexample is checked twice: by the statement's own predicate (exact fates, D7/D9)
and independently, on the exact trajectory of verify.core.trajectory.simulate (leaders, attention sets
layer by layer), which the predicates do not use.
"""

from fractions import Fraction

import pytest

from verify.core.config import hypothesis_violations
from verify.experiments.conjectures.builtin import BUILTIN_CONJECTURES
from verify.experiments.conjectures.catalogue import CATALOGUE, EASY, KNOWN
from verify.core.trajectory import simulate


def _trajectory(name: str, layers: int = 40):
    config = KNOWN[name]
    return simulate(config.tokens, alpha=config.alpha, A=config.A, layers=layers)


def test_every_statement_is_known_false_and_searchable():
    assert set(CATALOGUE) == set(KNOWN) and set(EASY) <= set(CATALOGUE)
    assert not set(CATALOGUE) & set(BUILTIN_CONJECTURES)  # a result file could not be read as a built-in's
    for name, conjecture in CATALOGUE.items():
        assert conjecture.expected == "refuted" and conjecture.target and conjecture.statement
        assert len(conjecture.branches()) >= 10, name  # every family of verify.core.families, in rotation
        assert not hypothesis_violations(KNOWN[name]), name  # the theorem's own setting


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_each_known_counterexample_refutes_its_statement(name):
    conjecture = CATALOGUE[name]
    observation = conjecture.check(KNOWN[name])
    assert observation.status == "failed", observation
    # The measurement Hypothesis targets is the one the predicate reports.
    assert conjecture.target in observation.measurements


def _last_change(trajectory) -> int:
    sets = trajectory.attention
    return max((k for k in range(1, len(sets)) if sets[k] != sets[k - 1]), default=0)


def test_known_counterexamples_on_the_exact_trajectory():
    # Leaders: C_i = {i} at some layer, first layer recorded by simulate.
    assert len(_trajectory("at_most_d_plus_one_leaders").leaders) == 4 > 2 + 1
    assert len(_trajectory("at_most_2d_leaders").leaders) == 5 > 2 * 2
    assert len(_trajectory("at_most_8_leaders").leaders) == 9
    assert max(_trajectory("leaders_lead_from_layer_0").leaders.values()) == 1
    assert max(_trajectory("leaders_lead_from_layer_1").leaders.values()) == 2
    # The attention pattern's last change in the first 40 layers (the D9 search proves it is the last for ever).
    assert _last_change(_trajectory("pattern_constant_from_layer_2")) == 5
    assert _last_change(_trajectory("pattern_constant_from_layer_5")) == 6
    # (1/2, 0) ties between (1, 1) and (1, -1) at every layer and approaches (1, 0), no leader's position.
    ties = _trajectory("every_token_ends_at_a_leader")
    assert all(layer[2] == frozenset({0, 1}) for layer in ties.attention) and 2 not in ties.leaders
    assert abs(ties.positions[40][2][0] - 1) < Fraction(1, 10 ** 6) and ties.positions[40][2][1] == 0
    # The three-way tie: (1/2, 1/2) never moves and never leads.
    fixed = _trajectory("fixed_tokens_lead", layers=10)
    assert all(p[2] == (Fraction(1, 2), Fraction(1, 2)) for p in fixed.positions) and 2 not in fixed.leaders
    # (1/2, 0, 0) attends to the four vertices of the face x = 1 of the cube at every layer.
    face = _trajectory("ties_are_pairs", layers=10)
    assert all(layer[4] == frozenset({0, 1, 2, 3}) for layer in face.attention)
