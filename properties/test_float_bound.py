"""The float engine's proven rounding bound (``verify/core/float_dynamics.py``): where
:func:`~verify.core.float_dynamics.simulate_batch` says every attention set was decided, its
positions are within ``position_error_bound`` of the exact trajectory and its leaders are the
exact leaders; nothing after the first undecided layer is presented as decided.

Not a claim of docs/theory.md but the condition under which a float run may be reported as
evidence at all. The configuration is first replaced by the rationals its float64 rounding
stores (tokens and A), so the exact and float runs start from the same numbers.

The float-stress draws (:func:`verify.strategies.float_stress_configurations`: exact ties,
ties perturbed by 1e-16..1e-9 relative, ties whose float order rounding flips, scores at the
overflow edge, subnormal scores from tiny tokens or a tiny A) are where a bound is tested for
power: an engine with no bound, or the bound shrunk 2^20-fold, fails them
(``tests/meta/test_float_power.py`` runs these properties against both).
"""

from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from verify.core.config import parse_configuration
from verify.core.float_dynamics import simulate_batch
from verify.app.selftest.runner import STRESS_LAYERS, float_run_disagreements, stored_float_configuration
from verify.strategies import FLOAT_STRESS_KINDS, configurations, float_stress_configurations
from verify.testing import fail_claim, record_event
from verify.core.trajectory import simulate

LAYERS = 20


def _fail_on_disagreement(config, layers: int, engine=simulate_batch) -> None:
    """The one check of what a float engine presents as decided (verify.app.selftest.runner.float_run_disagreements)."""
    problems = float_run_disagreements(engine, config, layers=layers)
    if problems:
        check, detail = problems[0]
        fail_claim("float", config, f"{check}: {detail}", layer=layers)


@given(configurations(family=("generic", "diagonal", "dense_spd", "ill_conditioned", "near_origin",
                              "close_pairs", "collinear", "hull_edges"), max_n=12, max_d=4))
def test_decided_float_runs_are_within_their_bound(config):
    stored = stored_float_configuration(config)
    tokens = np.array([[[float(x) for x in t] for t in stored.tokens]])
    A = None if stored.A is None else np.array([[float(x) for x in row] for row in stored.A])
    record_event("float run " + ("undecided" if simulate_batch(tokens, alpha=float(stored.alpha), A=A,
                                                             layers=LAYERS).undecided[0] else "decided"))
    _fail_on_disagreement(stored, LAYERS)


@st.composite
def mixed_scale_tokens(draw):
    """Distinct tokens whose sizes span 2^-1040..2^4: trained embeddings mix rows of size ~3 with
    rows shrunk to 1e-38 by weight decay, and products of the smallest ones underflow float64."""
    n = draw(st.integers(2, 8))
    d = draw(st.integers(1, 3))
    tokens = []
    for _ in range(n):
        exponent = draw(st.sampled_from([4, 0, -3, -30, -126, -149, -300, -540, -1040]))
        mantissas = draw(st.lists(st.integers(-16, 16), min_size=d, max_size=d))
        tokens.append(tuple(Fraction(m) * Fraction(2) ** exponent for m in mantissas))
    tokens = list(dict.fromkeys(tokens))
    alpha = draw(st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(5, 4)]))
    return tokens, alpha


@given(mixed_scale_tokens())
def test_per_point_bounds_hold_across_scales(case):
    """The per-point bound (module docstring of verify/core/float_dynamics.py) on tokens of very
    different sizes: every decided run matches exact attention sets and each token is within its
    own bound, however small, including where products underflow."""
    tokens, alpha = case
    config = parse_configuration({"tokens": tokens, "alpha": alpha, "name": "mixed scales",
                                  "outside_hypotheses": True})  # the origin and collinear tokens may occur
    layers = 6
    result = simulate_batch(np.array([[[float(x) for x in t] for t in tokens]]), alpha=float(alpha), layers=layers)
    record_event("mixed scales: " + ("undecided" if result.undecided[0] else "decided"))
    _fail_on_disagreement(config, layers)


# Flipped ties are the draws that tell a proven bound from a too small one: drawn 3 times as often.
STRESS = float_stress_configurations(("flipped_tie",) * 2 + FLOAT_STRESS_KINDS)


def float_engine_presents_nothing_wrong(engine):
    """The stress property for ``engine`` (a function with simulate_batch's signature)."""

    @given(STRESS)
    def test(config):
        record_event(f"stress kind: {config.name.split(' (')[0]}")
        _fail_on_disagreement(config, STRESS_LAYERS, engine)

    return test


test_float_stress_configurations_are_decided_only_where_exact = float_engine_presents_nothing_wrong(simulate_batch)


@given(st.one_of(STRESS, configurations(family=("generic", "mirror_ties", "sphere_ties", "hull_edges"), max_n=8,
                                        max_d=3)))
def test_no_set_the_float_trajectory_presents_as_decided_is_wrong(config):
    """Every attention set of ``simulate(arithmetic="float")`` outside its ``undecided`` lists is the
    exact set (after the first undecided layer every token is listed), and its leaders are exact."""
    stored = stored_float_configuration(config)
    layers = 6
    approx = simulate(stored.tokens, alpha=stored.alpha, A=stored.A, layers=layers, arithmetic="float")
    exact = simulate(stored.tokens, alpha=stored.alpha, A=stored.A, layers=layers)
    record_event("float trajectory " + ("undecided" if approx.first_undecided_layer is not None else "decided"))
    for k in range(layers + 1):
        for i in range(stored.n):
            if i not in approx.undecided[k] and approx.attention[k][i] != exact.attention[k][i]:
                fail_claim("float", stored, "a set presented as decided differs from the exact one", layer=k, token=i,
                           lhs=sorted(approx.attention[k][i]), rhs=sorted(exact.attention[k][i]),
                           compared="float C_i vs exact C_i")
    if any(exact.leaders.get(i) != k for i, k in approx.leaders.items()):
        fail_claim("float", stored, "float leaders differ from the exact ones", lhs=approx.leaders, rhs=exact.leaders,
                   compared="float leaders {token: first layer} vs exact")
