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
    exact = None
    exact_leaders = {}
    for layer in exact_layers(stored.tokens, alpha=stored.alpha, A=stored.A):
        for i in layer.leaders():
            exact_leaders.setdefault(i, layer.index)
        if layer.index == LAYERS:
            exact = layer.positions()
            break
    assert_float_within_bound(exact, result.final[0], float(result.position_error_bound[0]), config=stored, layer=LAYERS)
    float_leaders = {i: int(result.leader_layer[0][i]) for i in range(stored.n) if result.leaders[0][i]}
    if float_leaders != exact_leaders:
        fail_claim("float", stored, "decided float run and exact run disagree on the leaders", layer=LAYERS,
                   lhs=float_leaders, rhs=exact_leaders, compared="float leaders {token: first layer} vs exact")
