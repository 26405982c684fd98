"""Known answers: the first layers of the worked configurations (docs/theory.md §4), by hand and by the oracle.

The numbers written out here were computed by hand from the update rule of docs/theory.md §1
(A = I, alpha = 1/2, so z' = (2 z + m) / 3); the oracle :mod:`verify.core.oracle` and the engine
must both reproduce them.
"""

from __future__ import annotations

from fractions import Fraction as F
from itertools import islice

import pytest

from verify.core import oracle
from verify.claims import check_configuration
from verify.core.exact_dynamics import exact_layers
from verify.core.worked import WORKED_CONFIGURATIONS

EMERGING = WORKED_CONFIGURATIONS["emerging_leader"]


def test_emerging_leader_layer_0_attention_by_hand() -> None:
    # Token 1 = (-1/12, 1/12) scores 1/72 against itself but 1/48 against token 3 = (0, 1/4).
    C = oracle.attention_sets(EMERGING.tokens)
    assert C[1] == {3}
    assert C[3] == {0}  # <z_3, z_0> = 1/12 > <z_3, z_3> = 1/16
    assert C[0] == {0} and C[2] == {2}  # the two largest norms lead (D0)


def test_emerging_leader_layer_1_positions_by_hand() -> None:
    layer1 = oracle.one_layer(EMERGING.tokens, alpha=F(1, 2))
    assert layer1[1] == (F(-1, 18), F(5, 36))   # (2 (-1/12, 1/12) + (0, 1/4)) / 3
    assert layer1[3] == (F(1, 3), F(5, 18))     # (2 (0, 1/4) + (1, 1/3)) / 3
    assert layer1[0] == (F(1), F(1, 3))         # a leader does not move (D3)


def test_emerging_leader_token_1_leads_from_layer_1() -> None:
    layer1 = oracle.one_layer(EMERGING.tokens, alpha=F(1, 2))
    # <z_1, z_1> = 29/1296 > <z_1, z_3> = 26/1296 at layer 1, and it is the maximum.
    s = oracle.scores(layer1)
    assert s[1][1] == F(29, 1296) and s[1][3] == F(26, 1296)
    assert oracle.attention_sets(layer1)[1] == {1}
    report = check_configuration(EMERGING)
    assert (report.fates[1].kind, report.fates[1].layer) == ("leader", 1)
    assert report.verdicts["T1"].evidence["leaders"] == {"0": 0, "1": 1, "2": 0}


@pytest.mark.parametrize("name", sorted(WORKED_CONFIGURATIONS))
def test_engine_equals_oracle_on_the_first_five_layers(name: str) -> None:
    config = WORKED_CONFIGURATIONS[name]
    engine = [layer.positions() for layer in islice(exact_layers(config.tokens, alpha=config.alpha), 6)]
    assert engine == oracle.replay(config.tokens, alpha=config.alpha, layers=5)


def test_three_way_tie_token_3_attends_to_all_and_stays() -> None:
    tokens = [(F(1), F(0)), (F(0), F(1)), (F(1, 2), F(1, 2))]
    assert oracle.attention_sets(tokens)[2] == {0, 1, 2}  # scores 1/2, 1/2, 1/2
    assert oracle.replay(tokens, alpha=F(1, 2), layers=3)[3][2] == (F(1, 2), F(1, 2))


def test_non_leader_clusters_lock_onto_the_edge_midpoints() -> None:
    config = WORKED_CONFIGURATIONS["non_leader_clusters"]
    # Tokens 4 = (-1/2, 0) and 5 = (1/2, 0) tie between two corners: limits (-1, 0), (1, 0).
    C = oracle.attention_sets(config.tokens)
    assert C[4] == {2, 3} and C[5] == {0, 1}
    layers = oracle.replay(config.tokens, alpha=config.alpha, layers=4)
    for k, layer in enumerate(layers):
        # D7: z^k = m_F + (2/3)^k (z^0 - m_F), exactly.
        assert layer[5] == (1 + F(2, 3) ** k * (F(1, 2) - 1), F(0))
        assert layer[4] == (-1 + F(2, 3) ** k * (F(-1, 2) + 1), F(0))
    report = check_configuration(config)
    assert report.limits[4] == (F(-1), F(0)) and report.limits[5] == (F(1), F(0))
    assert report.fates[5].kind == "locked" and report.fates[5].attention == {0, 1}


def test_square_interior_tokens_lock_onto_corners() -> None:
    report = check_configuration(WORKED_CONFIGURATIONS["square"])
    corners = {(F(sx), F(sy)) for sx in (1, -1) for sy in (1, -1)}
    assert {report.limits[i] for i in range(4, 10)} <= corners
