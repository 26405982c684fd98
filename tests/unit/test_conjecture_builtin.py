"""Built-in conjectures: each predicate on hand-computed configurations, and the strategies' reach."""

import json
from fractions import Fraction as F

import pytest
from hypothesis import Phase, find, settings
from hypothesis import strategies as st

from verify.claims import leader_layers
from verify.core.config import Configuration
from verify.experiments.conjectures import builtin
from verify.experiments.conjectures.base import family_of
from verify.experiments.conjectures.search import branches_of
from verify.experiments.conjectures.builtin import BUILTIN_CONJECTURES, get_conjecture
from verify.core.geometry import convex_hull_vertices as hull_vertices
from verify.core.io import safe_name
from verify.core.linalg import is_symmetric
from verify.core.linalg import rank as matrix_rank
from verify.core.numbers import InputError


def config(tokens, *, alpha=F(1, 2), A=None, V=None) -> Configuration:
    def matrix(M):
        return None if M is None else tuple(tuple(F(x) for x in row) for row in M)

    return Configuration(tokens=tuple(tuple(F(x) for x in t) for t in tokens), alpha=F(alpha), A=matrix(A),
                         V=matrix(V), outside_hypotheses=True, name="hand")


def test_every_builtin_is_documented_and_has_a_safe_unique_name():
    assert len(BUILTIN_CONJECTURES) >= 13
    for name, c in BUILTIN_CONJECTURES.items():
        assert c.name == name == safe_name(name)
        assert c.statement and c.scope and c.families
    with pytest.raises(InputError, match="unknown conjecture"):
        get_conjecture("no_such_thing")


# D8 beyond PD: with A = -1 (d = 1), tokens 1 and -1 attend to each other; with alpha = 1 the
# update (z + m)/2 sends both to 0 at layer 1. With alpha = 1/2 they stay apart.
def test_d8_merge_found_exactly_for_negative_A_and_alpha_one():
    merged = builtin._no_merge(config([[1], [-1]], alpha=1, A=[[-1]]))
    assert merged.status == "failed" and merged.evidence["layer"] == 1 and merged.evidence["position"] == ["0"]
    assert builtin._no_merge(config([[1], [-1]], alpha=F(1, 2), A=[[-1]])).status == "held"
    # A = I (positive definite): D8 is a theorem, no merge.
    assert builtin._no_merge(config([[1], [-1]], alpha=1)).status == "held"


# Value matrix V = -2 (d = 1): (I + V)^{-1} = -1, z' = -z + 2 m. Layer 0: token 1 leads (1 > 1/2)
# and stays at 1; token 1/2 attends to 1 and goes to -1/2 + 2 = 3/2. Layer 1: token 0 now
# attends to 3/2, so D3 (a leader stays a leader) fails at layer 1.
def test_value_matrix_breaks_D3_by_hand():
    observation = builtin._value_matrix_facts(config([[1], [F(1, 2)]], alpha=1, V=[[-2]]))
    assert observation.status == "failed"
    assert observation.evidence == {"claim": "D3", "token": 0, "layer": 1, "attention": [1]}


def test_value_matrix_alpha_identity_reduces_to_the_model_and_holds():
    # V = alpha I with alpha = 1 is the theorem's model: D2 and D3 hold.
    assert builtin._value_matrix_facts(config([[1, 0], [0, 2], [F(1, 2), F(1, 2)]], alpha=1,
                                              V=[[1, 0], [0, 1]])).status == "held"


def test_hull_vertices_exact():
    square = [[1, 1], [1, -1], [-1, 1], [-1, -1], [0, 0], [F(1, 2), 0]]
    assert hull_vertices([[F(x) for x in p] for p in square]) == [0, 1, 2, 3]
    # Points on an edge are not vertices; duplicates count once (first index).
    assert hull_vertices([[F(0), F(0)], [F(1), F(0)], [F(2), F(0)], [F(2), F(0)]]) == [0, 2]
    assert hull_vertices([[F(3)]]) == [0]


def test_leaders_vs_hull_refuted_on_the_smallest_case():
    # d = 1, A = 1: tokens 1 and 1/2 are both hull vertices, but 1/2 attends to 1 (1/2 > 1/4).
    observation = builtin._leaders_vs_hull(config([[1], [F(1, 2)]]))
    assert observation.status == "failed"
    assert observation.evidence["leaders"] == [0] and observation.evidence["initial_hull_vertices"] == [0, 1]
    assert builtin._leaders_vs_hull(config([[1], [-1]])).status == "held"


def test_all_duplicated_tokens_refute_T0_by_D5():
    predicate = builtin._theorem_claims()
    observation = predicate(config([[1, 0], [1, 0], [0, 1], [0, 1]]))
    assert observation.status == "failed" and observation.evidence["claim"] == "T0"
    # With one token not duplicated, D5 alone does not decide T0: the claim checks run.
    assert "duplicated" not in predicate(config([[1, 0], [F(1, 2), 0], [F(1, 2), 0]])).detail


def test_theorem_claims_hold_on_a_plain_configuration():
    observation = builtin._theorem_claims()(config([[1, 0], [0, 1], [F(1, 2), F(1, 4)]]))
    assert observation.status == "held"


def test_settling_and_emergence_measure_the_worked_emerging_leader():
    from verify.core.worked import WORKED_CONFIGURATIONS

    emerging = WORKED_CONFIGURATIONS["emerging_leader"]
    observation = builtin._leader_emergence(emerging)
    # docs/theory.md §4: token 1 is not a leader at layer 0 but becomes one at layer 1.
    assert observation.status == "held" and observation.measurements["last_leader_layer"] == 1
    assert builtin._settling(emerging).measurements["settled_layer"] >= 1


def test_ends_at_leader_or_tie_counts_the_persistent_ties_of_non_leader_clusters():
    from verify.core.worked import WORKED_CONFIGURATIONS

    observation = builtin._leader_or_tie(WORKED_CONFIGURATIONS["non_leader_clusters"])
    # (+-1/2, 0) tie between two corners forever (docs/theory.md §4).
    assert observation.status == "held" and observation.measurements["persistent_ties"] >= 2


def test_softmax_predicate_refutes_monotonicity_rigorously():
    # A small token's score gaps are tiny, so larger beta can drift further from hardmax.
    observation = builtin._softmax_check(128)(config([[0, F(1, 3)], [1, 0]]))
    assert observation.status == "failed"
    assert observation.evidence["beta=10"]["lower"] > observation.evidence["beta=1"]["upper"]


def _image(config, z):
    return tuple(sum(a * x for a, x in zip(row, z)) for row in config.A)


def _one_strategy(branches):
    """The strategy of a builtin's family list at the largest sizes (the search rotates through them one by one)."""
    if not isinstance(branches, list):
        return branches
    return st.one_of(*[b.build(32, 4) for item in branches for b in branches_of(item)])


@pytest.mark.parametrize("strategy, family, check", [
    (builtin._psd_family(), "psd_rank1_d4", lambda c: matrix_rank(c.A) == 1 and is_symmetric(c.A)),
    (builtin._psd_family(), "psd_rank2_d3", lambda c: matrix_rank(c.A) == 2),
    (builtin._nsd_family(), "nsd_rank1_d3", lambda c: matrix_rank(c.A) == 1 and all(c.A[i][i] <= 0 for i in range(3))),
    (builtin._nonsym_family(), "nonsymmetric_pd_d3", lambda c: not is_symmetric(c.A)),
    (builtin._nonsym_family(), "rotating_polygons", lambda c: not is_symmetric(c.A)),
    (builtin._nonsym_family(), "cyclic_simplices", lambda c: not is_symmetric(c.A)),
    (builtin._rank_one_value(), "rank_one_value_d2", lambda c: matrix_rank(c.V) == 1),
    (builtin._outside("duplicates"), "duplicates", lambda c: len(set(c.tokens)) < c.n),
    (builtin._outside("origin_token"), "origin_token", lambda c: any(not any(t) for t in c.tokens)),
    (builtin._symmetric_with_origin(), "origin_symmetric_d2",
     lambda c: all(tuple(-x for x in t) in c.tokens for t in c.tokens) and any(not any(t) for t in c.tokens)),
    (builtin._indefinite_family(), "indefinite_d3", lambda c: matrix_rank(c.A) == 3),
    (builtin._psd_kernel_twins(3, 2), "psd_kernel_twins_rank2_d3", lambda c: matrix_rank(c.A) == 2 and all(
        any(j != i and _image(c, c.tokens[i]) == _image(c, c.tokens[j]) for j in range(c.n)) for i in range(c.n))),
])
def test_strategies_reach_their_families(strategy, family, check):
    # Generation only: find() would otherwise spend its time shrinking the example it found.
    found = find(_one_strategy(strategy), lambda c: family_of(c) == family,
                 settings=settings(phases=[Phase.generate], max_examples=300, database=None))
    assert check(found) and found.outside_hypotheses


def test_ends_at_leader_or_tie_can_fail_on_a_lock_onto_a_non_leader():
    # Fabricated fates: token 2 locked onto the fixed (non-leader) token 1 alone.
    fates = [{"token": 0, "kind": "leader", "layer": 0, "set": [0]},
             {"token": 1, "kind": "fixed", "layer": 0, "set": [0]},
             {"token": 2, "kind": "locked", "layer": 1, "set": [1]}]
    observation = builtin.ends_at_leader_or_tie(fates)
    assert observation.status == "failed" and observation.evidence["fate"]["token"] == 2
    fates[2]["set"] = [0]
    assert builtin.ends_at_leader_or_tie(fates).status == "held"
    fates[2]["kind"] = "unsettled"
    assert builtin.ends_at_leader_or_tie(fates).status == "undecided"


# A = -1 (d = 1): tokens 1 and -1 attend to each other. With alpha = 1 both land on 0 at layer 1:
# every position is shared, so no leader ever (D5). With alpha = 1/2 each moves to
# (z + (-z)/2) / (3/2) = z/3: the claim checks' own similarity certificate (D11) decides that.
def test_no_leader_certificates_by_hand():
    certificate = builtin.no_leader_certificate(config([[1], [-1]], alpha=F(1), A=[[-1]]), 10)
    assert certificate["kind"] == "all merged" and certificate["layer"] == 1
    assert builtin.no_leader_certificate(config([[1], [-1]], alpha=F(1, 2), A=[[-1]]), 10) is None


def test_a_self_similar_pair_is_refuted_by_the_claim_checks_with_a_rechecked_certificate():
    # Independent look: 12 exact layers of simulate show no leader, and each layer is 1/3 of the previous.
    from verify.core.trajectory import simulate

    trajectory = simulate([[1, 0], [-1, 0]], alpha=F(1, 2), A=[[-1, 0], [0, 1]], layers=12)
    assert trajectory.leaders == {}
    for k in range(12):
        assert trajectory.positions[k + 1] == [tuple(x / 3 for x in p) for p in trajectory.positions[k]]
    observation = builtin._theorem_claims()(config([[1, 0], [-1, 0]], A=[[-1, 0], [0, 1]]))
    assert observation.status == "failed"
    assert observation.evidence["T0"]["similarity"]["M"] == [["1/3", "0"], ["0", "1/3"]]


def test_a_similarity_certificate_the_checker_rejects_is_an_internal_error(monkeypatch):
    from verify.experiments.conjectures.base import InternalError

    def forged(report):
        report = json.loads(json.dumps(dict(report)))
        report["verdicts"]["T0"]["evidence"]["similarity"]["scale"] = "1/5"
        return original(report)

    original = builtin._similarity_rechecked
    monkeypatch.setattr(builtin, "_similarity_rechecked", forged)
    with pytest.raises(InternalError, match="does not re-verify"):
        builtin._theorem_claims()(config([[1, 0], [-1, 0]], A=[[-1, 0], [0, 1]]))


def test_no_leader_certificate_is_none_when_a_leader_exists():
    assert builtin.no_leader_certificate(config([[1], [2]]), 10) is None
    assert builtin.no_leader_certificate(config([[1], [-1]], A=[[1]]), 10) is None


def test_A_twins_certificate_for_a_singular_A_by_hand():
    # A = e1 e1^T (PSD, rank 1, d = 2): (1, 0) and (1, 1) have the same image (1, 0), score rows
    # (1, 1) and (1, 1): each ties with the other forever, so neither is ever a leader.
    twins = config([[1, 0], [1, 1]], A=[[1, 0], [0, 0]])
    certificate = builtin.no_leader_certificate(twins, 10)
    assert certificate["kind"] == "A-twins" and certificate["layer"] == 0
    from verify.core.trajectory import simulate

    assert simulate(twins.tokens, alpha=twins.alpha, A=twins.A, layers=15).leaders == {}
    # Not for a value matrix, and not when one token has no twin.
    assert builtin.no_leader_certificate(config([[1, 0], [1, 1], [2, 0]], A=[[1, 0], [0, 0]]), 10) is None


def test_every_builtin_declares_held_or_refuted():
    assert {c.expected for c in builtin.BUILTIN_CONJECTURES.values()} == {"held", "refuted"}
    # The statements known false (docs/theory.md D4, D5, §4) are declared refuted.
    for name in ("theorem_duplicate_tokens", "theorem_origin_token", "leaders_equal_hull_vertices"):
        assert builtin.BUILTIN_CONJECTURES[name].expected == "refuted"


def test_regression_leaders_of_layer_0_are_not_dated_by_a_later_closed_form_chain():
    # docs/theory.md D9 example: the two outer tokens lead at layer 0; D7 stops progressing and the
    # closed-form chain starts at layer 4. The chain's own leaders() says "4" for them (it cannot see
    # earlier layers); the emergence measurement reported 4 instead of 0.
    from verify.claims import run_configuration

    run = run_configuration(builtin.D9_EXAMPLE, layer_budget=60)
    assert run.chain is not None and run.chain.leaders() == {0: 4, 1: 4}
    assert leader_layers(run) == {0: 0, 1: 0}
    assert builtin._leader_emergence(builtin.D9_EXAMPLE).measurements["last_leader_layer"] == 0


def test_the_softmax_conjectures_rotate_through_the_families_near_the_origin_included():
    labels = [b.label for b in BUILTIN_CONJECTURES["softmax_tracks_hardmax"].branches()]
    assert "near_origin" in labels and "sphere_points" in labels and "coplanar" not in labels  # d <= 2
    found = find(st.one_of(*[b.build(4, 2) for b in BUILTIN_CONJECTURES["softmax_tracks_hardmax"].branches()]),
                 lambda c: True, settings=settings(phases=[Phase.generate], max_examples=5, database=None))
    assert found.beta == builtin.SOFTMAX_BETAS[-1] and found.extra["layers"] == builtin.SOFTMAX_LAYERS


# docs/theory.md D9: the chain of locks (tests/unit/test_closed_form.py) jumps once; a triangle is constant
# from layer 0 without a jump.
@pytest.mark.parametrize("tokens,alpha,words", [
    ([[1, 0], [F(3, 5), F(2, 5)], [0, F(1, 4)]], F(1, 10), "(1 jump)"),
    ([[1, 0], [0, 1], [-1, -1]], F(1, 2), "(0 jumps)"),
])
def test_the_settling_pattern_counts_its_jumps(tokens, alpha, words):
    observation = builtin._pattern_settles(config(tokens, alpha=alpha))
    assert observation.status == "held" and observation.detail.endswith(words), observation.detail
