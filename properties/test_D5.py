"""D5 (docs/theory.md §3): "duplicates. Equal tokens stay equal forever and always tie with each
other, so a duplicated token can never satisfy C_i = {i}."

Outside the theorem's hypotheses (distinct tokens): the configurations come from
:func:`verify.strategies.outside_configurations` with duplicated tokens, for any matrix A
(the fact needs nothing of A).
"""

from hypothesis import given

from verify.core.exact_dynamics import exact_layers
from verify.core.oracle import attention_sets
from verify.strategies import outside_configurations
from verify.testing import assert_duplicates_stay_equal, fail_claim

LAYERS = 20


def _run(config):
    positions, sets = [], []
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A):
        positions.append(layer.positions())
        sets.append(attention_sets(positions[-1], A=config.A_matrix))
        if layer.index == LAYERS:
            break
    return positions, sets


def _check(config):
    positions, sets = _run(config)
    assert_duplicates_stay_equal(positions, config=config)
    for k, layer_sets in enumerate(sets):
        for i, C in enumerate(layer_sets):
            copies = {j for j in range(config.n) if config.tokens[j] == config.tokens[i]}
            if len(copies) > 1 and i in C and not copies <= C:
                fail_claim("D5", config, f"duplicated token {i} attends to itself but not to all its copies at layer {k}",
                           layer=k, token=i, attention=sorted(C), copies=sorted(copies))
            if len(copies) > 1 and C == {i}:
                fail_claim("D5", config, f"duplicated token {i} is a leader at layer {k}", layer=k, token=i)


@given(outside_configurations(kind="duplicates"))
def test_duplicates_stay_equal_and_never_lead(config):
    _check(config)


@given(outside_configurations(kind=("duplicates", "indefinite", "psd_low_rank", "nonsymmetric_pd", "origin_token")))
def test_duplicates_stay_equal_for_any_matrix(config):
    # Duplicate the first token of any outside configuration: D5 needs no hypothesis on A.
    from dataclasses import replace

    doubled = replace(config, tokens=config.tokens + (config.tokens[0],))
    _check(doubled)
