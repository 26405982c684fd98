"""D10 (docs/theory.md §3): "leader control: choosing A, with exact certificates both ways. [...] If A > 0 satisfies
all of them, then for every layer k: C_i^k = {i} for i in L and C_m^k = {t(m)} with
z_m^k = z_t + (1+alpha)^{-k} (z_m - z_t) for m not in L. [...] (P_L) has no solution iff there are
y_c >= 0, not all zero, with S = - sum_c y_c M_c positive semidefinite."

Checked three ways, each result also re-verified by the independent checker
(verify/certcheck/control/):

* a realised design, simulated exactly (:func:`verify.simulate`), has at every layer checked
  exactly the requested leaders, every other token attending only to its target, on the
  closed-form path towards it, and no other leader;
* an impossibility certificate is never produced for a leader set that an SPD matrix drawn with
  the configuration (its own A) makes lead at layer 0;
* a leader set containing a token inside the convex hull of the other tokens gets the zero-S
  certificate (sum_j w_j M(i; i, j) = 0 with z_i = sum_j w_j z_j), the example of D10.

D10 has no record in the claim registry: it is not decided on a configuration's own dynamics but
designs an A, and its certificates are re-verified by their own checker.
"""

from __future__ import annotations

import json
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from verify.certcheck import control as checker
from verify import simulate
from verify.core.config import Configuration
from verify.experiments.control.constraints import leaders_under
from verify.experiments.control.design import control, decide_system
from verify.experiments.control.result import outcome_json
from verify.core.geometry import convex_hull_vertices
from verify.strategies import configurations
from verify.testing import record_event

LAYERS = 6  # layers simulated past layer 0


def _independently_verified(config: Configuration, outcome) -> None:
    data = json.loads(json.dumps(outcome_json(config, outcome, seed=0, max_tries=4, max_programs=64)))
    check = checker.check_control(data)
    assert check.status == "verified", f"{config.name}: the independent checker rejects the result: {check.reasons}"


def _subset(draw, pool: list[int]) -> list[int]:
    return sorted(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True)))


@st.composite
def hull_leader_sets(draw):
    config = draw(configurations(min_n=3, max_n=8, max_d=3))
    return config, _subset(draw, convex_hull_vertices(config.tokens))


@given(hull_leader_sets())
def test_a_realised_design_is_the_dynamics(drawn) -> None:
    config, leaders = drawn
    outcome = control(config.tokens, leaders)
    record_event(outcome.kind)
    _independently_verified(config, outcome)
    if outcome.kind != "realised":
        return
    assert outcome.design is not None and outcome.targets is not None
    roles = {**{i: i for i in leaders}, **outcome.targets}
    trajectory = simulate(config.tokens, alpha=config.alpha, A=outcome.design.A, layers=LAYERS)
    shrink = 1 / (1 + config.alpha)
    for k in range(LAYERS + 1):
        for m, target in roles.items():
            assert trajectory.attention[k][m] == {target}, \
                f"{config.name}: layer {k}, token {m} attends to {sorted(trajectory.attention[k][m])}, not {{{target}}}"
            expected = tuple(z_t + shrink ** k * (z_m - z_t) for z_m, z_t in zip(config.tokens[m], config.tokens[target]))
            assert tuple(trajectory.positions[k][m]) == expected, f"{config.name}: layer {k}, token {m} off its path"
    assert set(trajectory.leaders) == set(leaders), f"{config.name}: leaders {sorted(trajectory.leaders)}"


@st.composite
def sets_some_drawn_A_realises(draw):
    config = draw(configurations(min_n=2, max_n=8, max_d=3))
    leading = sorted(leaders_under(config.tokens, config.A_matrix))
    return config, _subset(draw, leading)


@given(sets_some_drawn_A_realises())
def test_no_impossibility_for_a_set_an_spd_matrix_realises(drawn) -> None:
    config, leaders = drawn
    decision = decide_system(config.tokens, leaders, {})
    record_event(decision.kind)
    assert decision.kind != "impossible", \
        f"{config.name}: a certificate says {leaders} cannot lead, but they lead under the configuration's own A"


@st.composite
def sets_with_a_token_inside(draw):
    config = draw(configurations(min_n=3, max_n=8, max_d=3))
    tokens = list(config.tokens)
    weights = draw(st.lists(st.integers(1, 5), min_size=len(tokens), max_size=len(tokens)))
    inside = tuple(sum(Fraction(w, sum(weights)) * z[c] for w, z in zip(weights, tokens)) for c in range(config.d))
    if inside in tokens or not any(inside):  # repaired, not filtered: move it towards the first token
        inside = tuple((a + b) / 2 for a, b in zip(inside, tokens[0]))
    if inside in tokens or not any(inside):
        inside = tuple((3 * a + b) / 4 for a, b in zip(tokens[0], tokens[-1]))
    tokens.append(inside)
    extended = Configuration(tokens=tuple(tokens), alpha=config.alpha, name=f"{config.name} + a token inside")
    others = _subset(draw, list(range(len(tokens) - 1))) if draw(st.booleans()) else []
    return extended, sorted(others + [len(tokens) - 1])


@given(sets_with_a_token_inside())
def test_a_token_inside_the_hull_gets_the_zero_certificate(drawn) -> None:
    config, leaders = drawn
    if len(set(config.tokens)) < len(config.tokens) or not all(any(z) for z in config.tokens):
        return  # the repair could not keep the tokens distinct and nonzero (D10 needs both)
    outcome = control(config.tokens, leaders)
    assert outcome.kind == "impossible" and outcome.infeasibility is not None, f"{config.name}: {outcome.kind}"
    certificate = outcome.infeasibility
    assert certificate.zero and certificate.step in ("hull", "lp"), f"{config.name}: S is not zero"
    (token,) = certificate.tokens
    combination = tuple(sum(w * config.tokens[c.rival][i] for c, w in certificate.weights.items())
                        for i in range(config.d))
    assert sum(certificate.weights.values()) == 1 and combination == config.tokens[token]
    _independently_verified(config, outcome)
