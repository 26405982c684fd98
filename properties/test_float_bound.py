"""The float engine's proven rounding bound (``verify/float_dynamics.py``): where
:func:`~verify.float_dynamics.simulate_batch` says every attention set was decided, its
positions are within ``position_error_bound`` of the exact trajectory and its leaders are the
exact leaders.

Not a claim of THEORY.md but the condition under which a float run may be reported as
evidence at all. The configuration is first replaced by the rationals its float64 rounding
stores (tokens and A), so the exact and float runs start from the same numbers.
"""

from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from verify.config import parse_configuration
from verify.exact_dynamics import exact_layers
from verify.float_dynamics import simulate_batch
from verify.strategies import configurations
from verify.testing import assert_float_within_bound, fail_claim, record_event

LAYERS = 20


def _as_stored_floats(config):
    def stored(x):
        return Fraction(float(x))

    data = {"tokens": [[stored(x) for x in t] for t in config.tokens], "alpha": stored(config.alpha),
            "name": config.name, "outside_hypotheses": True}  # rounding may merge close tokens
    if config.A is not None:
        data["A"] = [[stored(x) for x in row] for row in config.A]
    return parse_configuration(data)


@given(configurations(family=("generic", "diagonal", "dense_spd", "ill_conditioned", "near_origin",
                              "close_pairs", "collinear", "hull_edges"), max_n=12, max_d=4))
def test_decided_float_runs_are_within_their_bound(config):
    stored = _as_stored_floats(config)
    tokens = np.array([[[float(x) for x in t] for t in stored.tokens]])
    A = None if stored.A is None else np.array([[float(x) for x in row] for row in stored.A])
    result = simulate_batch(tokens, alpha=float(stored.alpha), A=A, layers=LAYERS)
    if result.undecided[0]:
        record_event("float run undecided (not certified, nothing to compare)")
        return
    record_event("float run decided")
    exact = _assert_decided_run_matches_exact(stored, result, LAYERS)
    assert_float_within_bound(exact, result.final[0], float(result.position_error_bound[0]), config=stored, layer=LAYERS)


def _assert_decided_run_matches_exact(config, result, layers: int):
    """Every token of a decided float run within its own bound of the exact one, and the same
    leaders at the same first layers; returns the exact positions at ``layers``."""
    exact = None
    exact_leaders = {}
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A):
        for i in layer.leaders():
            exact_leaders.setdefault(i, layer.index)
        if layer.index == layers:
            exact = layer.positions()
            break
    for i in range(config.n):
        assert_float_within_bound([exact[i]], result.final[0][i:i + 1], float(result.token_error_bound[0][i]),
                                  config=config, layer=layers)
    float_leaders = {i: int(result.leader_layer[0][i]) for i in range(config.n) if result.leaders[0][i]}
    if float_leaders != exact_leaders:
        fail_claim("float", config, "decided float run and exact run disagree on the leaders", layer=layers,
                   lhs=float_leaders, rhs=exact_leaders, compared="float leaders {token: first layer} vs exact")
    return exact


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
    """The per-point bound (module docstring of verify/float_dynamics.py) on tokens of very
    different sizes: every decided run matches exact attention sets and each token is within its
    own bound, however small, including where products underflow."""
    tokens, alpha = case
    config = parse_configuration({"tokens": tokens, "alpha": alpha, "name": "mixed scales",
                                  "outside_hypotheses": True})  # the origin and collinear tokens may occur
    layers = 6
    result = simulate_batch(np.array([[[float(x) for x in t] for t in tokens]]), alpha=float(alpha), layers=layers)
    if result.undecided[0]:
        record_event("mixed scales: undecided")
        return
    record_event("mixed scales: decided")
    _assert_decided_run_matches_exact(config, result, layers)
