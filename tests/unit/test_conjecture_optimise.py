"""The lab's worst-case optimiser (optimise.py) and structural shrinker (shrink.py), on known answers."""

import random
from fractions import Fraction as F

from verify.claims import run_configuration
from verify.core.config import make_configuration
from verify.core.families import generate
from verify.experiments.conjectures.base import Observation
from verify.experiments.conjectures.optimise import Scope, in_scope, numeric_target, optimise
from verify.experiments.conjectures.shrink import reduce_counterexample, simpler_rationals

SCOPE = Scope((F(1, 8), F(4)), min_n=2, min_d=1, label="x")


def test_in_scope_keeps_the_hypotheses_alpha_and_small_numbers():
    seed = make_configuration([[1, 0], [0, 1]], alpha="1/2")
    assert in_scope(make_configuration([["1/3", 0], [0, 1]], alpha="1/2"), seed, SCOPE)
    assert not in_scope(make_configuration([[0, 0], [0, 1]], alpha="1/2", outside_hypotheses=True), seed, SCOPE)
    assert not in_scope(make_configuration([[0, 1], [0, 1]], alpha="1/2", outside_hypotheses=True), seed, SCOPE)
    assert not in_scope(make_configuration([[1, 0], [0, 1]], alpha="1/16"), seed, SCOPE)
    assert not in_scope(make_configuration([[F(1, 2 ** 70), 1], [0, 1]], alpha="1/2"), seed, SCOPE)
    # Outside the hypotheses the same hypothesis must stay broken: an origin token stays an origin token.
    outside = make_configuration([[0, 0], [1, 0]], alpha="1/2", outside_hypotheses=True)
    assert in_scope(make_configuration([[0, 0], [2, 0]], alpha="1/2", outside_hypotheses=True), outside, SCOPE)
    assert not in_scope(make_configuration([["1/4", 0], [2, 0]], alpha="1/2"), outside, SCOPE)


def test_bisection_walks_up_to_a_boundary():
    # A target that grows like log2(1/distance) as the first coordinate approaches 1 from below and is 0 beyond:
    # from a seed at 0 the boundary is at 1; the optimiser's bisections should get within 2^-10 of it.
    def predicate(config):
        x = config.tokens[0][0]
        value = 0 if x >= 1 else min(40, (1 / (1 - x)).numerator.bit_length())
        return Observation.held(value=value)

    seed = make_configuration([[0, 1], [1, 1]], alpha="1/2")
    probed = []

    def evaluate(config, scope):
        probed.append(config)
        return predicate(config)

    optimise([(seed, predicate(seed), SCOPE)], target="value", evaluate=evaluate, rng=random.Random(3), probes=300)
    best = max(numeric_target(predicate(c), "value") for c in probed)
    assert best >= 10 and len(probed) <= 300
    # The same seed, the same probes: the optimiser is deterministic.
    again = []
    optimise([(seed, predicate(seed), SCOPE)], target="value", evaluate=lambda c, s: again.append(c) or predicate(c),
             rng=random.Random(3), probes=300)
    assert again == probed


def test_simpler_rationals_are_convergents():
    assert list(simpler_rationals(F(355, 113))) == [0, 3, F(22, 7)]  # 355/113 = [3; 7, 16]
    assert list(simpler_rationals(F(0))) == []


def _more_than_three_leaders(config):
    leaders = run_configuration(config, layer_budget=60).leader_layers()
    if leaders is None:
        return Observation.undecided("unsettled")
    if len(leaders) > 3:
        return Observation.failed(f"{len(leaders)} leaders", leaders=len(leaders))
    return Observation.held(leaders=len(leaders))


def test_deletions_take_a_ten_token_sphere_down_to_four():
    # sphere_points seed 2, n = 10, d = 2: every token leads (10 > 3); removing tokens keeps them all leaders,
    # so the shrinker reaches the smallest refuting size, 4.
    config = generate("sphere_points", 2, n=10, d=2)
    observation = _more_than_three_leaders(config)
    assert observation.status == "failed"
    reduced, reduced_observation, reduction = reduce_counterexample(
        config, observation, scope=Scope((config.alpha, config.alpha), min_n=2, min_d=2), check=_more_than_three_leaders,
        research=None)
    assert reduced.n == 4 and reduced_observation.status == "failed" and reduction.calls <= 250
    assert any("removed" in step for step in reduction.steps)


def test_a_shell_of_equal_norm_goes_at_once():
    # Two concentric squares: a whole shell (equal A-norm) is removed in one step, one square stays.
    outer = [[1, 1], [1, -1], [-1, 1], [-1, -1]]
    inner = [["1/4", "1/4"], ["1/4", "-1/4"], ["-1/4", "1/4"], ["-1/4", "-1/4"]]
    config = make_configuration(outer + inner, alpha="1/2")
    reduced, _, reduction = reduce_counterexample(config, _more_than_three_leaders(config),
                                                  scope=Scope((config.alpha, config.alpha), min_n=2),
                                                  check=_more_than_three_leaders, research=None)
    assert reduced.tokens in (config.tokens[:4], config.tokens[4:])
    assert reduction.steps[0] in ("removed tokens [0, 1, 2, 3]: n = 4", "removed tokens [4, 5, 6, 7]: n = 4")


def test_a_smaller_size_of_the_branch_is_tried_first():
    config = generate("sphere_points", 2, n=10, d=2)
    small = generate("sphere_points", 2, n=4, d=2)
    sizes = []

    def research(n, d):
        sizes.append((n, d))
        return (small, _more_than_three_leaders(small)) if (n, d) == (4, 2) else None

    reduced, _, reduction = reduce_counterexample(config, _more_than_three_leaders(config),
                                                  scope=Scope((config.alpha, config.alpha), min_n=2, min_d=2),
                                                  check=_more_than_three_leaders, research=research)
    assert sizes == [(2, 2), (3, 2), (4, 2)] and reduced.n == 4
    assert reduction.steps[0] == "a smaller example of the branch: n = 4, d = 2"
