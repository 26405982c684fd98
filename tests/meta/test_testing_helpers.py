"""The assertion helpers of verify.testing fail when they should, with the context a mathematician needs.

Each helper is given a correct case (it must pass) and a wrong one built by hand (it must
raise :class:`verify.testing.ClaimFailure` naming the claim, the layer, the token and the two
exact numbers), and a failing property must leave exactly one reproducible CONFIG.json.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from verify.claims import check_configuration
from verify.app.cli import main
from verify.core.config import load_configuration, make_configuration
from verify.core.exact_dynamics import exact_layers
from verify.testing import (ClaimFailure, assert_claim_certified, assert_duplicates_stay_equal,
                            assert_float_within_bound, assert_hull_shrinks, assert_largest_norm_token_leads,
                            assert_leaders_stay_fixed, assert_norms_nondecreasing, assert_tokens_never_merge,
                            counterexample_dir, fail_claim, save_counterexample)
from verify.claims.verdicts import Verdict


@pytest.fixture(autouse=True)
def counterexamples(tmp_path, monkeypatch):
    """Every counterexample of these tests goes to a fresh folder."""
    folder = tmp_path / "counterexamples"
    monkeypatch.setenv("HARDMAX_COUNTEREXAMPLE_DIR", str(folder))
    return folder


def square_with_ties():
    # The "non-leader clusters" pattern: (+-1/2, 0) tie between two corners forever (docs/theory.md §4).
    return make_configuration([[1, 1], [1, -1], [-1, 1], [-1, -1], ["1/2", 0], ["-1/2", 0], ["1/5", "1/10"]],
                              alpha="1/2", name="square with ties")


def positions(config, layers):
    out = []
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A):
        out.append(layer.positions())
        if layer.index == layers:
            return out
    raise AssertionError("unreachable")  # pragma: no cover


# ----------------------------------------------------------------------------- counterexample files

def test_fail_claim_message_has_the_exact_numbers_and_a_reproducible_file(counterexamples):
    config = square_with_ties()
    with pytest.raises(ClaimFailure) as caught:
        fail_claim("D2", config, "made-up failure", layer=3, token=2, compared="||z||^2 vs ||z'||^2",
                   lhs=F(1, 3), rhs=F(1, 2))
    message = str(caught.value)
    assert message.startswith("D2 (the A-norm of a token never decreases) failed: made-up failure")
    for expected in ("layer: 3", "token: 2", "lhs: 1/3", "rhs: 1/2", '"alpha": "1/2"', '"tokens": [["1", "1"]'):
        assert expected in message
    path = caught.value.path
    assert path is not None and path.parent == counterexamples and path.name.startswith("D2-")
    assert f"counterexample written to {path}" in message
    assert f"reproduce with: hardmax-verify check {path}" in message
    assert load_configuration(path) == config
    assert main(["check", str(path), "--no-cross-check"]) == 0  # the file is a CONFIG.json that check runs


def test_counterexample_default_folder_is_under_dot_hypothesis(tmp_path, monkeypatch):
    monkeypatch.delenv("HARDMAX_COUNTEREXAMPLE_DIR")
    monkeypatch.chdir(tmp_path)
    assert counterexample_dir().as_posix() == ".hypothesis/counterexamples"
    path = save_counterexample(square_with_ties(), claim="T4")
    assert (tmp_path / path).is_file() and path.parts[:2] == (".hypothesis", "counterexamples")
    assert save_counterexample(square_with_ties(), claim="T4") == path  # same configuration, same file


def test_outside_configuration_reproduction_mentions_the_flag():
    config = make_configuration([[1, 0], [1, 0], [0, 1]], alpha=1, outside_hypotheses=True)
    with pytest.raises(ClaimFailure) as caught:
        fail_claim("D5", config, "made up")
    assert "(outside the theorem's hypotheses)" in str(caught.value)
    assert str(caught.value).rstrip().endswith("--outside-hypotheses")
    assert load_configuration(caught.value.path).outside_hypotheses


def test_a_failing_property_writes_only_its_shrunk_example(counterexamples):
    @settings(max_examples=100, derandomize=True, database=None)
    @given(st.integers(0, 1000))
    def prop(x):
        config = make_configuration([[x + 1], [-1]], alpha=1)
        if x >= 10:
            fail_claim("T0", config, "fails from x = 10 on", token=0)

    with pytest.raises(ClaimFailure) as caught:
        prop()
    files = list(counterexamples.iterdir())
    assert files == [caught.value.path]  # written on the final replay only, not for every shrinking step
    assert load_configuration(files[0]).tokens == ((F(11),), (F(-1),))  # the shrunk example, x = 10


# ----------------------------------------------------------------------------- claim reports

def _with_verdict(report, verdict):
    return dataclasses.replace(report, verdicts={**report.verdicts, verdict.claim: verdict})


def test_certified_verdicts_pass_and_are_returned():
    report = check_configuration(square_with_ties(), cross_check=False)
    for claim in ("T0", "T1", "T2", "T3", "T4", "D1", "D2", "D3", "replay"):
        assert assert_claim_certified(report, claim).status == "certified"
    assert report.verdicts["T4"].evidence["non_vertex_limits"] == 2  # (+-1/2, 0) -> (+-1, 0)


def test_failed_verdict_raises_with_its_evidence():
    report = check_configuration(square_with_ties(), cross_check=False)
    failed = Verdict("D2", "failed", "token 4's squared A-norm decreases from layer 1 to 2",
                     {"layer": 2, "token": 4, "lhs": "1/4", "rhs": "1/2", "compared": "||z_4^2||_A^2 vs ||z_4^1||_A^2"})
    with pytest.raises(ClaimFailure) as caught:
        assert_claim_certified(_with_verdict(report, failed), "D2")
    message = str(caught.value)
    assert "D2 (the A-norm of a token never decreases) failed: token 4's squared A-norm decreases" in message
    assert "layer: 2" in message and "token: 4" in message and "lhs: 1/4" in message and "rhs: 1/2" in message


def test_inconclusive_is_recorded_not_failed_outside_hypothesis():
    report = check_configuration(square_with_ties(), cross_check=False)
    unsure = Verdict("T3", "inconclusive", "1 token neither leader, fixed nor locked within 5 layers")
    assert assert_claim_certified(_with_verdict(report, unsure), "T3").status == "inconclusive"
    with pytest.raises(ClaimFailure, match="inconclusive, expected certified"):
        assert_claim_certified(_with_verdict(report, unsure), "T3", allow_inconclusive=False)


def test_inconclusive_is_rejected_inside_hypothesis():
    report = check_configuration(square_with_ties(), cross_check=False)
    unsure = _with_verdict(report, Verdict("T2", "inconclusive", "the final set of leaders is not known"))

    @settings(max_examples=5, database=None)
    @given(st.just(0))
    def prop(_):
        assert_claim_certified(unsure, "T2")

    with pytest.raises(Unsatisfiable):  # every example was rejected by assume: never a silent pass
        prop()


def test_a_wrong_update_rule_is_caught_by_the_replay_helper():
    # Normalising with 1/alpha instead of alpha is still a valid-looking dynamics; the one-step
    # replay against the independent oracle catches it.
    def wrong(tokens, *, alpha, A=None, V=None):
        return exact_layers(tokens, alpha=1 / F(alpha), A=A, V=V)

    report = check_configuration(square_with_ties(), dynamics=wrong, cross_check=False)
    with pytest.raises(ClaimFailure) as caught:
        assert_claim_certified(report, "replay")
    message = str(caught.value)
    assert "replay" in message and "layer: 1" in message and "lhs: " in message and "rhs: " in message


# ----------------------------------------------------------------------------- facts checked directly

def test_largest_norm_token_leads():
    config = square_with_ties()
    attention = next(exact_layers(config.tokens, alpha=config.alpha)).attention_sets()
    assert_largest_norm_token_leads(config, attention)
    wrong = list(attention)
    wrong[0] = frozenset({0, 1})
    with pytest.raises(ClaimFailure, match="the engine's C_0 at layer 0 is"):
        assert_largest_norm_token_leads(config, wrong)


def test_largest_norm_token_does_not_lead_when_duplicated():
    # Outside the hypotheses: a duplicated top token ties with its copy (docs/theory.md D5).
    config = make_configuration([[1, 0], [1, 0], [0, "1/2"]], alpha=1, outside_hypotheses=True)
    attention = next(exact_layers(config.tokens, alpha=config.alpha)).attention_sets()
    with pytest.raises(ClaimFailure) as caught:
        assert_largest_norm_token_leads(config, attention)
    assert "C_0 = [0, 1] at layer 0" in str(caught.value)
    assert "lhs: 1" in str(caught.value) and "rhs: 1" in str(caught.value)


SQUARE = [(F(1), F(1)), (F(1), F(-1)), (F(-1), F(1)), (F(-1), F(-1))]


def test_hull_shrinks_passes_inside_on_edges_and_at_vertices():
    config = square_with_ties()
    assert_hull_shrinks(SQUARE, [(F(0), F(0)), (F(1), F(1, 3)), (F(-1), F(-1))], config=config, layer=1)
    segment = [(F(0), F(1)), (F(2), F(1))]  # a lower-dimensional hull
    assert_hull_shrinks(segment, [(F(1), F(1)), (F(2), F(1))], config=config, layer=1)


def test_hull_shrinks_fails_outside_with_a_separating_halfspace():
    config = square_with_ties()
    with pytest.raises(ClaimFailure) as caught:
        assert_hull_shrinks(SQUARE, [(F(0), F(0)), (F(3, 2), F(0))], config=config, layer=4)
    message = str(caught.value)
    assert "token 1 of layer 4 lies outside conv(layer 3)" in message and "separating_halfspace" in message
    lhs = F(message.split("lhs: ")[1].split()[0])
    rhs = F(message.split("rhs: ")[1].split()[0])
    assert lhs < 0 <= rhs
    with pytest.raises(ClaimFailure, match="outside conv"):
        assert_hull_shrinks([(F(0), F(1)), (F(2), F(1))], [(F(1), F(1, 2))], config=config, layer=1)


def test_norms_nondecreasing():
    config = make_configuration([[1, 0], [0, 1]], alpha=1, A=[[2, 0], [0, 1]])
    assert_norms_nondecreasing([(F(1), F(0))], [(F(1), F(1, 10))], config=config, layer=1)
    with pytest.raises(ClaimFailure) as caught:
        assert_norms_nondecreasing([(F(1), F(0))], [(F(1, 2), F(0))], config=config, layer=1)
    assert "lhs: 1/2" in str(caught.value) and "rhs: 2" in str(caught.value)  # ||.||_A^2 with A = diag(2, 1)


def test_leaders_stay_fixed():
    config = square_with_ties()
    trajectory = positions(config, 5)
    from verify.core.oracle import attention_sets

    sets = [attention_sets(p) for p in trajectory]
    assert_leaders_stay_fixed(trajectory, sets, config=config)
    moved = [list(p) for p in trajectory]
    moved[3][0] = (F(99, 100), F(1))
    with pytest.raises(ClaimFailure) as caught:
        assert_leaders_stay_fixed(moved, sets, config=config)
    assert "leader 0 (from layer 0) moved at layer 3" in str(caught.value)
    assert "lhs: 99/100" in str(caught.value) and "rhs: 1" in str(caught.value)
    lost = [list(s) for s in sets]
    lost[2][0] = frozenset({0, 1})
    with pytest.raises(ClaimFailure, match="leader 0 \\(from layer 0\\) has C_0 = \\[0, 1\\] at layer 2"):
        assert_leaders_stay_fixed(trajectory, lost, config=config)


def test_duplicates_stay_equal():
    config = make_configuration([[1, 0], [1, 0], [0, 1]], alpha=1, outside_hypotheses=True)
    assert_duplicates_stay_equal(positions(config, 4), config=config)
    split = [[(F(1), F(0)), (F(1), F(0)), (F(0), F(1))], [(F(1), F(0)), (F(1), F(1, 7)), (F(0), F(1))]]
    with pytest.raises(ClaimFailure) as caught:
        assert_duplicates_stay_equal(split, config=config)
    assert "tokens 0 and 1 start equal but differ at layer 1" in str(caught.value)
    assert "lhs: 0" in str(caught.value) and "rhs: 1/7" in str(caught.value)


def test_tokens_never_merge():
    config = square_with_ties()
    assert_tokens_never_merge(positions(config, 6), config=config)
    merged = [[(F(1), F(0)), (F(0), F(1))], [(F(1, 2), F(1, 2)), (F(1, 2), F(1, 2))]]
    with pytest.raises(ClaimFailure, match="distinct tokens 0 and 1 merge at layer 1"):
        assert_tokens_never_merge(merged, config=config)


def test_float_within_bound():
    config = square_with_ties()
    exact = [(F(1, 3), F(0))]
    assert_float_within_bound(exact, [[1 / 3, 0.0]], 1e-15, config=config, layer=2)
    with pytest.raises(ClaimFailure) as caught:
        assert_float_within_bound(exact, [[0.3334, 0.0]], 1e-6, config=config, layer=2)
    assert "token 0, coordinate 0 at layer 2 is outside the proven bound" in str(caught.value)
    assert "exact: 1/3" in str(caught.value)


def test_facts_that_check_does_not_cover_are_reproduced_with_simulate():
    config = make_configuration([[1, 0], [1, 0], [0, 1]], alpha=1, outside_hypotheses=True)
    with pytest.raises(ClaimFailure) as caught:
        fail_claim("D5", config, "made up", layer=4)
    path = caught.value.path
    assert str(caught.value).rstrip().endswith(f"hardmax-verify simulate {path} --layers 4 --outside-hypotheses")
    out = str(path.with_suffix(".out"))
    assert main(["simulate", str(path), "--layers", "4", "--outside-hypotheses", "--json", out]) == 0
