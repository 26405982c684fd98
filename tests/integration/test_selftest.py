"""The mutation self-test end to end: every wrong variant is caught, the real engines are not, and the runner is honest.

Issue 7 part 1: the suite (claim checks, one-step replay, known answers, properties) must
catch each deliberately wrong dynamics of :mod:`verify.app.selftest.mutants`; the in-place update
keeps every claim true and must still be caught by the replay and the known answers.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import islice

import numpy as np
import pytest

from verify.app.cli import main
from verify.core.exact_dynamics import exact_layers
from verify.core.float_dynamics import simulate_batch
from verify.app.selftest.known_answers import KNOWN_ANSWERS
from verify.app.selftest.mutants import EXACT_MUTANTS, MUTANTS, Mutant, loose_tolerance_simulate_batch
from verify.app.selftest.runner import check_float_against_exact, check_known_answers, near_tie_configurations

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def selftest_json(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One full run through the CLI, shared by the assertions below."""
    out = tmp_path_factory.mktemp("selftest") / "selftest.json"
    status = main(["selftest", "--profile", "ci", "--json", str(out)])
    data = json.loads(out.read_text())
    data["exit_status"] = status
    return data


def test_selftest_exits_0_with_every_variant_caught(selftest_json: dict) -> None:
    assert selftest_json["exit_status"] == 0, [v["name"] for v in selftest_json["variants"] if not v["caught"]]
    assert selftest_json["ok"] and selftest_json["all_caught"] and selftest_json["baseline_clean"]
    assert {v["name"] for v in selftest_json["variants"]} == {m.name for m in MUTANTS}


def test_the_real_engines_pass_every_check(selftest_json: dict) -> None:
    for baseline in selftest_json["baseline"]:
        assert not baseline["caught"], baseline["detections"][:3]
    exact = selftest_json["baseline"][0]
    assert set(exact["checks_run"]) == {"known", "claims", "properties"}


def _caught_by(data: dict, name: str) -> list[str]:
    return next(v for v in data["variants"] if v["name"] == name)["caught_by"]


def test_in_place_update_is_caught_by_replay_and_known_answers(selftest_json: dict) -> None:
    # The in-place update keeps T0..T4 true on most inputs: only exact answers can tell.
    caught_by = _caught_by(selftest_json, "in_place_update")
    assert "claim:replay" in caught_by and "known:chain" in caught_by


def test_ignoring_A_is_caught_where_A_changes_an_attention_set(selftest_json: dict) -> None:
    caught_by = _caught_by(selftest_json, "without_A")
    assert "known:diagonal_A" in caught_by and "claim:replay" in caught_by


def test_tie_breaking_by_index_is_caught_on_the_tie_configurations(selftest_json: dict) -> None:
    for name in ("ties_first_index", "ties_last_index"):
        assert {"known:three_way_tie", "known:non_leader_clusters"} <= set(_caught_by(selftest_json, name))


def test_loose_float_tolerance_is_caught_by_comparison_with_exact(selftest_json: dict) -> None:
    assert _caught_by(selftest_json, "loose_tolerance_float")


def test_no_variant_is_caught_only_by_crashing(selftest_json: dict) -> None:
    for variant in selftest_json["variants"]:
        reasons = [d for d in variant["detections"] if not d["detail"].startswith("crashed:")]
        assert reasons, f"{variant['name']} was flagged only because a check crashed"


# -- The mutants themselves (meta): each really is wrong, and only in the intended way. ----------

@pytest.mark.parametrize("mutant", EXACT_MUTANTS, ids=lambda m: m.name)
def test_each_exact_mutant_differs_from_the_engine_on_a_known_answer(mutant: Mutant) -> None:
    assert any(known.disagreements(mutant.engine) for known in KNOWN_ANSWERS)


def test_the_known_answers_hold_for_the_engine() -> None:
    assert check_known_answers(exact_layers) == []


@pytest.mark.parametrize("mutant", EXACT_MUTANTS, ids=lambda m: m.name)
def test_exact_mutants_agree_with_the_engine_where_their_mistake_does_not_matter(mutant: Mutant) -> None:
    # Two far-apart leaders in d = 1 with A = I: no ties, no chains, nothing in between. Only the
    # mutants whose mistake changes every step (normalisation, own term) may differ here.
    tokens = [[Fraction(1)], [Fraction(-2)]]
    expected = [layer.positions() for layer in islice(exact_layers(tokens, alpha=Fraction(1, 2)), 3)]
    got = [layer.positions() for layer in islice(mutant.engine(tokens, alpha=Fraction(1, 2)), 3)]
    if mutant.name in ("wrong_normalisation", "without_own_term"):
        assert got != expected
    else:
        assert got == expected


def test_the_loose_tolerance_mutant_claims_decided_runs() -> None:
    config = near_tie_configurations(count=0)[0]
    tokens = np.array([[float(x) for x in t] for t in config.tokens])[None]
    result = loose_tolerance_simulate_batch(tokens, alpha=0.5, layers=5)
    assert not result.undecided.any()
    assert check_float_against_exact(loose_tolerance_simulate_batch, [config])
    assert check_float_against_exact(simulate_batch, [config]) == []


def test_near_tie_configurations_are_decided_by_the_real_float_engine() -> None:
    # Otherwise the float check would compare nothing (undecided runs are skipped).
    configs = near_tie_configurations(count=10)
    decided = 0
    for config in configs:
        tokens = np.array([[float(x) for x in t] for t in config.tokens])[None]
        decided += not simulate_batch(tokens, alpha=float(config.alpha), layers=30).undecided[0]
    assert decided >= len(configs) // 2


def test_the_real_engines_in_disguise_are_missed_and_the_command_exits_1(monkeypatch: pytest.MonkeyPatch, capsys,
                                                                         tmp_path) -> None:
    """The runner must not call everything caught: the engines under other names pass every check, and then the
    command says MISSED and exits 1."""
    from verify.app.commands import selftest as command
    from verify.app.selftest import runner

    real = runner.run_selftest
    disguised = Mutant("disguised_engine", "the real engine under another name", "exact", exact_layers)
    disguised_float = Mutant("disguised_float", "the real float engine", "float", simulate_batch)
    monkeypatch.setattr(command, "run_selftest", lambda **kwargs: real(mutants=[disguised, disguised_float], **kwargs))
    assert main(["selftest", "--json", str(tmp_path / "selftest.json")]) == 1
    captured = capsys.readouterr()
    assert "MISSED" in captured.out
    # Standard error is not a terminal here: one progress line per variant, then where the JSON went.
    assert captured.err.splitlines() == [f"selftest: {name}" for name in [
        "exact_layers (reference)", "simulate_batch (reference)", "disguised_engine", "disguised_float"]] + [
        f"wrote {tmp_path / 'selftest.json'}"]
    result = json.loads((tmp_path / "selftest.json").read_text())
    assert result["baseline_clean"] and not result["ok"]
    assert [v["name"] for v in result["variants"]] == ["disguised_engine", "disguised_float"]
    assert not any(v["caught"] for v in result["variants"])


def test_a_check_crashing_on_the_real_engine_is_no_verdict_and_exits_4(monkeypatch: pytest.MonkeyPatch, capsys,
                                                                        tmp_path) -> None:
    """A crash is not a finding about the engine: the self-test could not complete (exit 4, one line naming the
    check), and the JSON, written all the same, marks the detection as a crash."""
    from verify.app.commands import selftest as command
    from verify.app.selftest import runner

    def crashing_engine(*args, **kwargs):
        raise RuntimeError("engine fault")

    real = runner.run_selftest
    monkeypatch.setattr(runner, "exact_layers", crashing_engine)
    monkeypatch.setattr(command, "run_selftest", lambda **kwargs: real(mutants=[], **kwargs))
    out = tmp_path / "selftest.json"
    assert main(["selftest", "--json", str(out)]) == 4
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "could not complete" in last and "crashed on the real engine" in last and "engine fault" in last
    result = json.loads(out.read_text())
    assert result["baseline_crashed"] and not result["ok"]
    crashes = [d for v in result["baseline"] for d in v["detections"] if d.get("crashed")]
    assert crashes and all(d["detail"].startswith("crashed: RuntimeError: engine fault") for d in crashes)
