"""verify.claims: the claim checks certify the theorem on known cases and catch wrong update rules.

The wrong rules are the self-test's exact mutants (verify/app/selftest/mutants.py, written
independently of the engine), passed as the ``dynamics`` callable: a check that still
certifies them is a check that cannot fail.
"""

from __future__ import annotations

import json
from fractions import Fraction as F
from typing import Any, Callable, Iterator, Sequence

import pytest

from verify.claims import registry
from verify.claims import check_configuration, run_configuration
from verify.claims.T4 import check_T4
from verify.core.config import make_configuration
from verify.core.exact_dynamics import ExactLayer, exact_layers
from verify.app.selftest import mutants
from verify.core.worked import WORKED_CONFIGURATIONS


# ---------------------------------------------------------------------------------------------
# A deliberately wrong engine report (right positions, lying attention sets) and a helper


def _mean(pos: Sequence[tuple[F, ...]], members: Sequence[int]) -> tuple[F, ...]:
    return tuple(sum(pos[j][c] for j in members) / len(members) for c in range(len(pos[0])))


def _lying_attention(tokens: Sequence[Sequence[Any]], *, alpha: Any, A: Any = None, V: Any = None) -> Iterator[ExactLayer]:
    # Right positions, but the engine reports every token attending to itself only.
    for layer in exact_layers(tokens, alpha=alpha, A=A, V=V):
        yield ExactLayer(layer.index, layer.numerators, layer.denominator,
                         tuple((u,) for u in range(len(layer.numerators))), layer.groups)


THREE_WAY_TIE = make_configuration([[1, 0], [0, 1], ["1/2", "1/2"]], alpha="1/2", name="three_way_tie")
# Settles (every token leader/fixed/locked) only at layer 4: used for budget tests.
SLOW = make_configuration([["0", "1/2"], ["9/10", "-1"], ["-7/10", "7/10"], ["9/10", "-1/2"], ["-2/5", "4/5"]],
                          alpha="1/5", name="slow")


# ---------------------------------------------------------------------------------------------
# The right dynamics certifies


@pytest.mark.parametrize("name", sorted(WORKED_CONFIGURATIONS))
def test_worked_configurations_are_certified(name: str) -> None:
    report = check_configuration(WORKED_CONFIGURATIONS[name])
    assert set(report.verdicts) == set(registry.verdict_ids())
    assert {cid: v.status for cid, v in report.verdicts.items()} == {cid: "certified" for cid in registry.verdict_ids()}
    for v in report.verdicts.values():
        assert v.certificate is not None
    assert report.status == "certified"
    json.dumps(report.to_json_dict())


def test_non_leader_clusters_T4_certifies_real_non_vertex_limits() -> None:
    report = check_configuration(WORKED_CONFIGURATIONS["non_leader_clusters"])
    t4 = report.verdicts["T4"]
    assert t4.status == "certified" and t4.certificate is not None and not t4.certificate["vacuous"]
    limits = {tuple(p["limit"]) for p in t4.certificate["projections"]}
    assert limits == {("1", "0"), ("-1", "0")}
    for p in t4.certificate["projections"]:
        assert set(p["kkt"].values()) == {"0"} and len(p["face"]) == 2
    assert all(c["agree"] and c["status"] == "optimal" for c in t4.cross_checks)


def test_T4_is_not_failed_on_a_larger_face_than_the_smallest_one_containing_the_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """T4 asks for a projection onto *some* face. On the whole square the limit (1, 0) fails the
    projection test (<p, v - p> = -2 for v = (-1, 1)) though it is the projection onto the edge
    x = 1: a fate direction exposing too large a face (possible for path fates) must not decide."""
    import verify.claims.T4

    monkeypatch.setattr(verify.claims.T4, "fate_direction", lambda run, fate: [F(0), F(0)])  # exposes K itself
    t4 = check_configuration(WORKED_CONFIGURATIONS["non_leader_clusters"]).verdicts["T4"]
    assert t4.status == "certified", t4.summary
    assert sorted(p["face"] for p in t4.certificate["projections"]) == [[0, 1], [2, 3]]  # type: ignore[index]


def test_three_way_tie_is_fixed_by_D7b_and_projects_onto_the_edge() -> None:
    report = check_configuration(THREE_WAY_TIE)
    fate = report.fates[2]
    assert (fate.kind, fate.layer, fate.limit, fate.attention) == ("fixed", 0, (F(1, 2), F(1, 2)), frozenset({0, 1}))
    t4 = report.verdicts["T4"]
    assert t4.status == "certified"
    [projection] = t4.certificate["projections"]  # type: ignore[index]
    assert projection["limit"] == ["1/2", "1/2"] and projection["face"] == [0, 1]
    assert projection["multipliers"] == {"0": "1/2", "1": "1/2"}


def test_T4_vacuous_is_said_so() -> None:
    verdict = check_configuration(WORKED_CONFIGURATIONS["triangle"]).verdicts["T4"]
    assert verdict.status == "certified" and "no non-vertex limits" in verdict.summary
    report = check_configuration(WORKED_CONFIGURATIONS["triangle"])
    assert verdict.certificate == {"vacuous": True, "settled_layer": report.settled_layer,  # type: ignore[index]
                                   "fates": verdict.certificate["fates"], "projections": []}  # type: ignore[index]


def test_lower_dimensional_K_is_its_own_boundary() -> None:
    # docs/theory.md §2: K = segment x = 1, the third token converges into its relative interior.
    report = check_configuration(make_configuration([[1, 1], [1, -1], ["1/2", 0]], alpha="1/2"))
    assert report.verdicts["T3"].status == "certified"
    assert report.limits[2] == (F(1), F(0))


def test_general_spd_A_keeps_the_tie() -> None:
    config = make_configuration([[1, 1], [1, -1], [-1, 1], [-1, -1], ["1/2", 0], ["-1/2", 0]], alpha="1/3",
                                A=[[2, 0], [0, 5]])
    report = check_configuration(config)
    assert report.status == "certified"
    assert report.verdicts["T4"].certificate["projections"]  # type: ignore[index]


def test_unsettled_within_budget_is_inconclusive_never_certified() -> None:
    report = check_configuration(SLOW, layer_budget=2, closed_form_search=False)
    assert report.settled_layer is None
    for cid in ("T1", "T2", "T3", "T4"):
        verdict = report.verdicts[cid]
        assert verdict.status == "inconclusive" and verdict.certificate is None
        assert "measured" in json.dumps(verdict.evidence)
    assert report.status == "inconclusive"
    assert check_configuration(SLOW).status == "certified"
    assert check_configuration(SLOW).settled_layer == 4


# Exact numbers far beyond float64's range (about 1.8e308) are valid input: the exact decisions do
# not need floats, and a float cross-check or measurement that cannot represent them must say so
# instead of crashing the check (which would exit 4 on a configuration it can decide).
BEYOND_FLOAT = F(10) ** 400


def test_claims_on_numbers_beyond_float_range_are_decided_with_the_cross_checks_on() -> None:
    worked = WORKED_CONFIGURATIONS["non_leader_clusters"]
    config = make_configuration([[x * BEYOND_FLOAT for x in t] for t in worked.tokens], alpha=worked.alpha)
    report = check_configuration(config)
    assert report.status == "certified"
    cross = report.verdicts["T4"].cross_checks
    assert cross and all(c["status"] == "error" and not c["agree"] for c in cross)
    assert "float64" in cross[0]["error"]
    json.loads(json.dumps(report.to_json_dict(), allow_nan=False))  # nothing non-finite is written


def test_measured_distances_beyond_float_range_do_not_crash_an_inconclusive_run() -> None:
    # docs/theory.md D9's chain of locks: token 2 attends to a moving token, unsettled by D7 at layer 2.
    chain_of_locks = [(F(1), F(0)), (F(3, 5), F(2, 5)), (F(0), F(1, 4))]
    config = make_configuration([[x * BEYOND_FLOAT for x in t] for t in chain_of_locks], alpha=F(1, 10))
    report = check_configuration(config, layer_budget=2, closed_form_search=False)
    assert report.status == "inconclusive"
    measured = report.verdicts["T2"].evidence["measured_distance_to_attention_mean"]["values"]
    assert measured == {"2": None}
    json.loads(json.dumps(report.to_json_dict(), allow_nan=False))


def test_origin_token_fails_T3_outside_hypotheses() -> None:
    # docs/theory.md D4: the square plus the origin keeps the origin token at 0, inside K.
    config = make_configuration([[1, 1], [1, -1], [-1, 1], [-1, -1], [0, 0]], alpha="1/2", outside_hypotheses=True)
    report = check_configuration(config)
    t3 = report.verdicts["T3"]
    assert t3.status == "failed" and t3.evidence["token"] == 4 and t3.evidence["outside_hypotheses"] is True
    assert t3.evidence["limit"] == ["0", "0"] and t3.evidence["smallest_facet_slack"]["lhs"] == "1"
    assert report.status == "failed"


def test_duplicates_stay_unsettled_by_D7() -> None:
    config = make_configuration([[1, 0], [1, 0], [0, 1]], alpha="1/2", outside_hypotheses=True)
    report = check_configuration(config, layer_budget=5, closed_form_search=False)
    assert [f.kind for f in report.fates[:2]] == ["unsettled", "unsettled"]
    assert report.verdicts["T2"].status == "inconclusive"


def test_duplicates_are_settled_by_the_closed_form_and_refute_T3() -> None:
    # docs/theory.md D9, outside the theorem: a group of equal tokens is solved as one token. The pair at
    # (1, 0) ties with itself for ever and stays there, outside K = {(0, 1)}: T3 is false, exactly.
    config = make_configuration([[1, 0], [1, 0], [0, 1]], alpha="1/2", outside_hypotheses=True)
    report = check_configuration(config, layer_budget=5, cross_check=False)
    assert [(f.kind, sorted(f.attention or ())) for f in report.fates] == [("path", [0, 1]), ("path", [0, 1]), ("leader", [2])]
    assert report.limits[0] == (F(1), F(0))
    t3 = report.verdicts["T3"]
    assert t3.status == "failed" and t3.evidence["token"] == 0
    assert t3.evidence["closed_form"]["status"] == "certified"  # the limit it compares comes from the chain
    assert report.verdicts["T2"].status == "certified"


# ---------------------------------------------------------------------------------------------
# Wrong dynamics fail


def _statuses(config: Any, dynamics: Callable[..., Iterator[ExactLayer]], **kw: Any) -> dict[str, str]:
    report = check_configuration(config, dynamics=dynamics, **kw)
    return {cid: v.status for cid, v in report.verdicts.items()}


def test_sanity_the_wrong_rule_harness_reproduces_the_engine_when_right() -> None:
    for config in WORKED_CONFIGURATIONS.values():
        assert set(_statuses(config, mutants.correct_rule).values()) == {"certified"}


@pytest.mark.parametrize("name", sorted(WORKED_CONFIGURATIONS))
def test_dividing_by_alpha_fails(name: str) -> None:
    statuses = _statuses(WORKED_CONFIGURATIONS[name], mutants.wrong_normalisation, layer_budget=10)
    assert statuses["replay"] == "failed"
    assert statuses["D1"] == "failed"  # 2z + m leaves the hull


def test_dividing_by_alpha_failure_evidence_has_exact_numbers() -> None:
    report = check_configuration(WORKED_CONFIGURATIONS["triangle"], dynamics=mutants.wrong_normalisation, layer_budget=10)
    ev = report.verdicts["replay"].evidence
    assert ev["layer"] == 1 and isinstance(ev["token"], int)
    assert F(ev["lhs"]) != F(ev["rhs"])  # "p/q" strings
    d1 = report.verdicts["D1"].evidence
    assert F(d1["lhs"]) > F(d1["rhs"]) and d1["layer"] == 1  # c.z^1 beats every token of layer 0


@pytest.mark.parametrize("config", [WORKED_CONFIGURATIONS["non_leader_clusters"], THREE_WAY_TIE])
def test_first_index_ties_fail(config: Any) -> None:
    statuses = _statuses(config, mutants.ties_first_index)
    assert statuses["replay"] == "failed"
    assert "failed" in {statuses["T3"], statuses["T4"]}  # the D7 fate the tie certified is contradicted


def test_in_place_update_is_caught_by_the_replay_only() -> None:
    # emerging_leader with tokens 1 and 3 swapped: the emerging token now attends to an EARLIER
    # index that moves, so the in-place order matters; every claim still holds for that rule.
    tokens = list(WORKED_CONFIGURATIONS["emerging_leader"].tokens)
    tokens[1], tokens[3] = tokens[3], tokens[1]
    config = make_configuration(tokens, alpha="1/2")
    report = check_configuration(config, dynamics=mutants.in_place_update)
    assert report.verdicts["replay"].status == "failed"
    # Every claim holds for that rule, but on layers that are not this configuration's dynamics:
    # nothing is certified, and each verdict says what it would have been.
    others = {cid: v for cid, v in report.verdicts.items() if cid != "replay"}
    assert {v.status for v in others.values()} == {"inconclusive"}
    assert all(v.evidence["verdict_if_the_engine_were_right"] == "certified" and v.certificate is None
               for v in others.values())


def test_engine_rounding_its_input_to_quarters_fails_and_certifies_nothing() -> None:
    # The claim checks used to take layer 0 from the engine: an engine that rounds its input
    # to multiples of 1/4 got all nine verdicts certified, with a limit (1, 0) where the
    # configuration's is (1, -1). Layer 0 is now the configuration, compared exactly.
    def rounding(tokens: Any, **kw: Any) -> Iterator[ExactLayer]:
        return exact_layers([[F(round(F(x) * 4), 4) for x in t] for t in tokens], **kw)

    config = make_configuration([["1", "-9/10"], ["1", "1"], ["-1", "0"], ["1", "-1/3"]], alpha="1/2")
    truth = check_configuration(config)
    assert truth.status == "certified"
    report = check_configuration(config, dynamics=rounding)
    replay = report.verdicts["replay"]
    assert replay.status == "failed" and replay.evidence["layer"] == 0
    assert F(replay.evidence["lhs"]) != F(replay.evidence["rhs"])
    assert report.status == "failed"
    assert not [cid for cid, v in report.verdicts.items() if v.status == "certified"]
    # D1 starts from the configuration too: layer 1 of the rounded run leaves conv(layer 0).
    assert report.verdicts["D1"].status == "failed"


def test_lying_attention_sets_are_caught() -> None:
    report = check_configuration(WORKED_CONFIGURATIONS["square"], dynamics=_lying_attention)
    replay = report.verdicts["replay"]
    assert replay.status == "failed" and "C_" in replay.summary
    assert replay.evidence["engine"] != replay.evidence["oracle"]


def test_every_check_uses_the_given_dynamics() -> None:
    calls = []

    def spy(tokens: Any, **kw: Any) -> Iterator[ExactLayer]:
        calls.append(kw)
        return exact_layers(tokens, **kw)

    check_configuration(WORKED_CONFIGURATIONS["square"], dynamics=spy)
    assert len(calls) == 1


def test_T4_fails_when_a_limit_is_not_the_projection() -> None:
    # Tamper with the run: move a locked token's limit along the edge, off the projection (1, 0).
    run = run_configuration(WORKED_CONFIGURATIONS["non_leader_clusters"])
    fate = next(f for f in run.fates if f.limit == (F(1), F(0)))
    fate.limit = (F(1), F(1, 2))
    verdict = check_T4(run)
    assert verdict.status == "failed"
    assert F(verdict.evidence["lhs"]) < 0 and verdict.evidence["rhs"] == "0"
    [token] = verdict.evidence["tokens"]
    assert verdict.summary.startswith(f"limit (1, 1/2) of token {token} is not the A-projection"), verdict.summary


# ---------------------------------------------------------------------------------------------
# The certificates satisfy docs/certificates.md, re-derived from the oracle's replay (not the engine)


def _pt(v: Sequence[str]) -> tuple[F, ...]:
    return tuple(F(x) for x in v)


def _d(c: Sequence[F], x: Sequence[F]) -> F:
    return sum((a * b for a, b in zip(c, x)), F(0))


def _fate_holds(fate: dict, k: int, pos: list, C: list, established: dict, A: list) -> bool:
    """docs/certificates.md "fates": the condition of ``fate`` at layer k, given established fates."""
    i, S = fate["token"], set(fate["set"])
    fixed = {t for t, f in established.items() if f["kind"] in ("leader", "fixed") and f["layer"] <= k}
    if fate["kind"] == "leader":
        return C[k][i] == {i}
    if fate["kind"] == "fixed":
        return bool(S) and S <= fixed and i not in S and C[k][i] == S | {i} and \
            pos[k][i] == _mean(pos[k], sorted(S))
    m = _mean(pos[k], sorted(S))
    w = [_d(row, m) for row in A]
    values = {_d(w, pos[k][v]) for v in S}
    return (C[k][i] == S and i not in S and S <= fixed and len(values) == 1
            and all(_d(w, p) <= min(values) for p in pos[k]))


def _check_certificates(report_json: dict) -> None:
    from verify.core import oracle

    cfg = report_json["config"]
    tokens = [_pt(t) for t in cfg["tokens"]]
    d = len(tokens[0])
    A = [[F(x) for x in row] for row in cfg["A"]] if "A" in cfg else [[F(int(r == c)) for c in range(d)] for r in range(d)]
    last = report_json["last_layer"]
    pos = oracle.replay(tokens, alpha=F(cfg["alpha"]), layers=last, A=A)
    C = [oracle.attention_sets(p, A=A) for p in pos]
    v = report_json["verdicts"]

    # fates: in establishment order, each condition true at its layer and false one layer before.
    fates = v["T2"]["certificate"]["fates"]
    assert sorted(f["token"] for f in fates) == list(range(len(tokens)))
    established: dict[int, dict] = {}
    for f in fates:
        k = f["layer"]
        assert _fate_holds(f, k, pos, C, established, A), f
        earlier = {t: e for t, e in established.items() if e["layer"] <= k - 1}
        assert k == 0 or not _fate_holds(f, k - 1, pos, C, earlier, A), f
        limit = pos[k][f["token"]] if f["kind"] != "locked" else _mean(pos[k], f["set"])
        assert _pt(f["limit"]) == limit
        established[f["token"]] = f
    leaders = {f["token"]: _pt(f["limit"]) for f in fates if f["kind"] == "leader"}

    for vert in v["T2"]["certificate"]["vertices"]:
        c = _pt(vert["direction"])
        assert all(_d(c, leaders[vert["token"]]) > _d(c, u) for t, u in leaders.items() if t != vert["token"])
    for b in v["T3"]["certificate"]["boundary"]:
        c, x = _pt(b["direction"]), _pt(b["limit"])
        assert any(c) and F(b["value"]) == _d(c, x) and all(_d(c, u) <= _d(c, x) for u in leaders.values())
        lam = {int(t): F(w) for t, w in b["multipliers"].items()}
        assert min(lam.values()) >= 0 and sum(lam.values()) == 1
        assert tuple(sum(w * leaders[t][r] for t, w in lam.items()) for r in range(d)) == x
    for p in v["T4"]["certificate"]["projections"]:
        c, x, M = _pt(p["direction"]), _pt(p["limit"]), F(p["face_value"])
        assert sorted(t for t, u in leaders.items() if _d(c, u) == M) == p["face"]
        assert all(_d(c, u) < M for t, u in leaders.items() if t not in p["face"])
        lam = {int(t): F(w) for t, w in p["multipliers"].items()}
        assert set(lam) <= set(p["face"]) and min(lam.values()) >= 0 and sum(lam.values()) == 1
        assert tuple(sum(w * leaders[t][r] for t, w in lam.items()) for r in range(d)) == x
        Ax = [_d(row, x) for row in A]  # A symmetric here
        for t in p["face"]:
            assert F(p["kkt"][str(t)]) == _d(Ax, tuple(a - b for a, b in zip(leaders[t], x))) >= 0
    for k, layer in enumerate(v["D1"]["certificate"]["weights"]):
        for i, pairs in enumerate(layer):
            w = {j: F(x) for j, x in pairs}
            assert min(w.values()) >= 0 and sum(w.values()) == 1
            assert tuple(sum(x * pos[k][j][r] for j, x in w.items()) for r in range(d)) == pos[k + 1][i]
    norms = v["D2"]["certificate"]["norms"]
    for k in range(last + 1):
        assert [F(x) for x in norms[k]] == [_d([_d(row, z) for row in A], z) for z in pos[k]]
    for leader in v["T1"]["certificate"]["leaders"]:
        i, k0 = leader["token"], leader["first_layer"]
        assert k0 == 0 or C[k0 - 1][i] != {i}
        assert all(pos[k][i] == _pt(leader["position"]) and C[k][i] == {i} for k in range(k0, last + 1))
    for key in ("T0", "T1"):
        for k, layer in v[key]["certificate"].get("layer_positions", {}).items():
            assert [_pt(p) for p in layer] == pos[int(k)]


@pytest.mark.parametrize("config", [*WORKED_CONFIGURATIONS.values(), THREE_WAY_TIE, SLOW],
                         ids=[*WORKED_CONFIGURATIONS, "three_way_tie", "slow"])
def test_certificates_satisfy_the_documented_schema(config: Any) -> None:
    report = check_configuration(config)
    assert report.status == "certified"
    _check_certificates(json.loads(json.dumps(report.to_json_dict())))


def test_certificates_of_generated_tie_families() -> None:
    from verify.core.families import generate

    for family in ("mirror_ties", "sphere_ties", "hull_edges", "emerging_leader"):
        for seed in range(3):
            report = check_configuration(generate(family, seed, n=7, d=2 + seed % 2))
            assert report.status == "certified", (family, seed)
            _check_certificates(json.loads(json.dumps(report.to_json_dict())))


def test_cvxpy_failure_is_shown_but_the_exact_certificate_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    from verify.core import geometry

    monkeypatch.setattr(geometry, "project_origin_cvxpy",
                        lambda V, A=None: {"solver": "clarabel", "status": "infeasible", "point": None, "error": None})
    t4 = check_configuration(WORKED_CONFIGURATIONS["non_leader_clusters"]).verdicts["T4"]
    assert t4.status == "certified" and "cross-check" in t4.summary
    assert [c["status"] for c in t4.cross_checks] == ["infeasible", "infeasible"]
    assert not any(c["agree"] for c in t4.cross_checks)


def test_cvxpy_disagreement_reports_the_residual(monkeypatch: pytest.MonkeyPatch) -> None:
    from verify.core import geometry

    monkeypatch.setattr(geometry, "project_origin_cvxpy",
                        lambda V, A=None: {"solver": "clarabel", "status": "optimal", "point": [0.5, 0.25], "error": None})
    t4 = check_configuration(THREE_WAY_TIE).verdicts["T4"]
    assert t4.status == "certified"
    [cross] = t4.cross_checks
    assert cross["agree"] is False and cross["residual_max_abs"] == pytest.approx(0.25)


def test_T4_is_inconclusive_when_the_A_norm_is_undefined() -> None:
    # The branch itself: the same settled run, judged with an indefinite A (no A-norm, no projection).
    run = run_configuration(WORKED_CONFIGURATIONS["non_leader_clusters"])
    run.A = [[F(1), F(0)], [F(0), F(-1)]]
    t4 = check_T4(run)
    assert t4.status == "inconclusive" and t4.certificate is None
    assert t4.evidence["A_symmetric_positive_definite"] is False and t4.evidence["non_vertex_limits"] == 2


def test_outside_hypotheses_is_recorded_in_every_verdict() -> None:
    config = make_configuration([[1, 1], [1, -1], [-1, 1], [-1, -1], ["1/2", 0], ["-1/2", 0]], alpha="1/2",
                                A=[[1, 0], [0, -1]], outside_hypotheses=True)
    report = check_configuration(config, layer_budget=20)
    assert all(v.evidence["outside_hypotheses"] is True for v in report.verdicts.values())
    assert report.to_json_dict()["hypothesis_violations"]


def test_value_matrix_variant_runs_and_replays() -> None:
    from verify.core.config import parse_configuration

    config = parse_configuration({"tokens": [[1, 0], [0, 1], ["1/2", "1/3"]], "alpha": "1/2",
                                  "V": [[1, "1/2"], [0, "1/2"]]}, outside_hypotheses=True)
    report = check_configuration(config, layer_budget=10)
    assert report.verdicts["replay"].status == "certified"


def test_value_matrix_names_the_unproved_facts_its_verdicts_would_rest_on() -> None:
    # With V not a multiple of I, D3 and D7 are not proved (docs/theory.md §6): the would-be certified
    # verdicts name exactly the facts their run used (no D9: the closed form is not searched with V).
    from verify.core.config import parse_configuration

    config = parse_configuration({"tokens": [[1, 0], [0, 1], ["1/2", "1/3"]], "alpha": "1/2",
                                  "V": [[1, "1/2"], [0, "1/2"]]}, outside_hypotheses=True)
    report = check_configuration(config, layer_budget=10, cross_check=False)
    for claim in ("T1", "T2", "T3", "T4"):
        verdict = report.verdicts[claim]
        assert verdict.status == "inconclusive" and verdict.evidence["verdict_if_it_held"] == "certified"
        assert verdict.evidence["unproved_facts"] == ["D3", "D7"] and "rests_on" not in verdict.evidence
        assert "D3 and D7 are proved for V = alpha I only" in verdict.summary
    assert report.verdicts["D3"].evidence["unproved_facts"] == ["D3"]
    assert "D3 is proved" in report.verdicts["D3"].summary


# ---------------------------------------------------------------------------------------------
# docs/theory.md D9: closed-form certificates settle what D7 leaves

D9_C = F(-7, 8)
D9_EXAMPLE = make_configuration([[D9_C, F(-1, 2)], [D9_C, F(1, 2)], [D9_C, 0], [D9_C, F(1, 4)], [D9_C, F(-1, 4)]],
                                alpha="1/2")


def test_theory_D9_example_is_inconclusive_by_D7_alone() -> None:
    # The token (c, 0) ties with all five for ever and never moves, yet is neither fixed (D7 b) nor locked.
    report = check_configuration(D9_EXAMPLE, layer_budget=40, cross_check=False, closed_form_search=False)
    assert report.fates[2].kind == "unsettled"
    assert {report.verdicts[c].status for c in ("T1", "T2", "T3", "T4")} == {"inconclusive"}


def test_theory_D9_example_is_certified_by_its_closed_form() -> None:
    run = run_configuration(D9_EXAMPLE)
    assert [f.kind for f in run.fates] == ["leader", "leader", "path", "locked", "locked"]
    centre = run.fates[2]
    # D7 stops progressing after layer 0; the closed form from layer CLOSED_FORM_AFTER settles the centre.
    assert centre.layer == run.settled_layer == 4 and run.last_layer == 5 and run.stopped_by == "settled"
    assert centre.attention == frozenset(range(5)) and centre.limit == (D9_C, F(0))
    assert run.chain is not None and run.chain.certified and run.chain.start_layer == 4
    assert run.closed_form_attempts[-1]["status"] == "certified"
    report = check_configuration(D9_EXAMPLE, cross_check=False)
    assert report.status == "certified"
    t4 = report.verdicts["T4"]
    # The centre's limit (c, 0) is the projection of 0 onto the edge between the leaders (docs/theory.md D9).
    assert [p["limit"] for p in t4.certificate["projections"]] == [["-7/8", "0"]]  # type: ignore[index]
    for claim in ("T1", "T2", "T3", "T4"):
        assert report.verdicts[claim].certificate["closed_form"]["status"] == "certified"  # type: ignore[index]


def test_certified_verdicts_name_the_facts_their_run_used() -> None:
    # The registry says what T1..T4 may rest on (D3, D7, D9); each certified verdict says what it did.
    d9 = check_configuration(D9_EXAMPLE, cross_check=False)
    d7 = check_configuration(WORKED_CONFIGURATIONS["non_leader_clusters"], cross_check=False)
    assert d9.status == d7.status == "certified"
    for claim in ("T1", "T2", "T3", "T4"):
        assert registry.get(claim).rests_on == ("D3", "D7", "D9")
        assert d9.verdicts[claim].evidence["rests_on"] == ["D3", "D7", "D9"], claim
        assert d7.verdicts[claim].evidence["rests_on"] == ["D3", "D7"], claim
    assert d9.verdicts["D3"].evidence["rests_on"] == d7.verdicts["D3"].evidence["rests_on"] == ["D3"]
    assert all("rests_on" not in d9.verdicts[c].evidence for c in ("T0", "D1", "D2", "replay"))
    assert "settled at layer 4 by D7 and D9 (closed form from layer 4)" in d9.verdicts["T3"].summary
    assert "final by D7 and D9 (closed form from layer 4) at layer 4" in d9.verdicts["T1"].summary
    assert "settled at layer 0 by D7;" in d7.verdicts["T3"].summary and "D9" not in d7.verdicts["T1"].summary


def test_a_run_settled_by_the_closed_form_alone_rests_on_D9_only() -> None:
    # Outside the theorem: two equal tokens (D5) never lead and never settle by D7; the closed form
    # settles both at once, so no D7 fate and no leader: D9 is the only fact used.
    config = make_configuration([[1, 0], [1, 0]], alpha="1/2", outside_hypotheses=True)
    run = run_configuration(config, layer_budget=10)
    assert {f.kind for f in run.fates} == {"path"}
    assert run.settling_facts() == ("D9",) and run.facts_used("T3") == ["D9"]
    assert run.settled_by() == f"D9 (closed form from layer {run.settled_layer})"


def test_a_late_pattern_change_is_reached_by_the_jump_not_by_layers() -> None:
    # docs/theory.md D9, "patterns that change late": at alpha = 1/100 the token (2/5, 0) ties with itself
    # only at layer 200 and leads from layer 201; the run stops a few layers in, the chain says the rest.
    config = make_configuration([["1/2", 1], ["1/2", -1], ["3/5", "3/4"], ["3/5", "-3/4"], ["2/5", 0]], alpha="1/100")
    run = run_configuration(config)
    assert run.last_layer <= 2 * 4 + 1 and run.fates[4].kind == "path" and run.fates[4].attention == frozenset({4})
    assert run.chain is not None and run.chain.leaders()[4] == 201
    report = check_configuration(config, cross_check=False)
    assert report.status == "certified" and report.verdicts["T2"].evidence["vertices"] == 3


def test_closed_form_left_unsettled_keeps_the_verdicts_inconclusive_with_its_reason() -> None:
    # Outside the theorem (A positive definite, not symmetric): the regular tetrahedron, each vertex
    # attending to the next under A = I + 2 (R - R^T) with R the rotoreflection v_i -> v_(i+1), so no
    # solving order exists ("mutual membership", docs/theory.md D9); the axis of R and its plane shrink
    # at different rates, so no layer is a similar copy of an earlier one either (D11).
    config = make_configuration([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], alpha="1/2",
                                A=[[1, 0, 4], [0, 1, 0], [-4, 0, 1]], outside_hypotheses=True)
    report = check_configuration(config, layer_budget=12, cross_check=False)
    assert report.settled_layer is None and report.stopped_by == "layer budget"
    t2 = report.verdicts["T2"]
    assert t2.status == "inconclusive" and "closed form (D9) from layer 12 unsettled: mutual membership" in t2.summary
    # Searched after 4 layers without a new fate, again after 8, and at the budget.
    assert [(s["layer"], s["status"]) for s in t2.evidence["closed_form_searches"]] == [
        (4, "unsettled"), (8, "unsettled"), (12, "unsettled")]


def test_settled_without_a_leader_leaves_K_empty_and_the_checker_agrees() -> None:
    # Outside the theorem: two equal tokens tie with each other for ever (D5): Z^1 = Z^0, so T0 fails with
    # a similarity certificate (D11, M = I); the closed form settles them, so T2..T4 have no K to refer to
    # and stay inconclusive, with the reason.
    from verify import certcheck

    config = make_configuration([["1/4"], ["1/4"]], alpha="1/10", outside_hypotheses=True)
    report = check_configuration(config, cross_check=False)
    assert [f.kind for f in report.fates] == ["path", "path"] and report.stopped_by == "settled"
    assert report.verdicts["T0"].status == "failed" and report.verdicts["T0"].evidence["similarity"]["M"] == [["1"]]
    for claim in ("T2", "T3", "T4"):
        assert report.verdicts[claim].status == "inconclusive" and "no token ever leads" in report.verdicts[claim].summary
    checked = certcheck.check_report(json.loads(json.dumps(report.to_json_dict())))
    assert checked.exit_status == 1 and checked.certificates_of_falsity == 1
    assert not [o for o in checked.outcomes if o.status == "rejected"]


# ---------------------------------------------------------------------------------------------
# Verdict summaries: a count takes its noun singular for one, and the verb agrees


ONE_LEADER = make_configuration([[2, 0], [1, 0], [1, "1/2"]], alpha="1/2", name="one_leader")
# docs/theory.md D9: on the line x = -7/8 the middle token ties with its whole column; two such columns tie
# two tokens (2 and 7) that D7 alone never settles.
COLUMN = [[F(-7, 8), F(y)] for y in ("-1/2", "1/2", "0", "1/4", "-1/4")]
TWO_COLUMNS = make_configuration(COLUMN + [[-x, y] for x, y in COLUMN], alpha="1/2", name="two_columns")


@pytest.mark.parametrize("config,kwargs,expected", [
    (ONE_LEADER, {}, {"T0": "1 leader at layer 0: token 0",
                      "T1": "1 leader, fixed from its first leading layer",
                      "T2": "1 distinct leader limit, a vertex of K",
                      "T3": "; 1 limit point, on the boundary of K",
                      "D3": "1 leader stays a leader and does not move",
                      "replay": "1 layer transition equals the independent oracle's"}),
    (WORKED_CONFIGURATIONS["emerging_leader"], {}, {"T0": "2 leaders at layer 0: tokens [0, 2]",
                                                    "T1": "3 leaders, each fixed from its first leading layer",
                                                    "T2": "3 distinct leader limits, each a vertex of K",
                                                    "T3": "; 3 limit points, all on the boundary of K",
                                                    "D3": "3 leaders stay leaders and do not move",
                                                    "replay": "2 layer transitions equal the independent oracle's"}),
    (THREE_WAY_TIE, {}, {"T4": "1 non-vertex limit, the exact A-projection of 0 onto a face of K"}),
    (WORKED_CONFIGURATIONS["non_leader_clusters"], {}, {"T4": "2 non-vertex limits, each the exact A-projection"}),
    (make_configuration(COLUMN, alpha="1/2"), {"layer_budget": 5, "closed_form_search": False},
     {"T3": ": 1 token neither leader, fixed nor locked within 5 layers"}),
    (TWO_COLUMNS, {"layer_budget": 1, "closed_form_search": False},
     {"T3": ": 2 tokens neither leader, fixed nor locked within 1 layer ("}),
], ids=["one leader", "several leaders", "one non-vertex limit", "two non-vertex limits", "one token unsettled",
        "two tokens unsettled"])
def test_verdict_summaries_count_in_the_singular_for_one(config: Any, kwargs: dict, expected: dict[str, str]) -> None:
    verdicts = check_configuration(config, cross_check=False, **kwargs).verdicts
    assert not [v.summary for v in verdicts.values() if "(s)" in v.summary]
    for claim, words in expected.items():
        assert words in verdicts[claim].summary, (claim, verdicts[claim].summary)


def test_the_T4_report_note_counts_in_the_singular_for_one() -> None:
    note = registry.get("T4").report_note
    one = {"certificate": {"projections": [{}]}}
    assert note is not None
    assert note({"certified": 1, "vacuous": 0}, [one]) == (
        "T4 is vacuous (no limit outside the vertices of K) in 0 of its 1 certified verdict; the other 1 certifies "
        "1 non-vertex limit as an A-projection of the origin onto a face of K (the persistent-tie families are built "
        "to reach this case).")
    assert "in 1 of its 3 certified verdicts; the other 2 certify 3 non-vertex limits as" in note(
        {"certified": 3, "vacuous": 1}, [one, {"certificate": {"projections": [{}, {}]}}, {"certificate": {"vacuous": True}}])
