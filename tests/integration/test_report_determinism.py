"""Same seed, same versions: the same results.json byte for byte, apart from the environment block (issue 4).

The first run is the test run's shared small report (tests/common/reports.py); the second builds
the same campaign on the same seed again into another folder, with another command line (it
belongs to the environment block); merging does not depend on completion order.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.common.reports import SMALL_SEED, SMALL_SPEC
from verify.app.campaign import CampaignSpec, default_spec, merge_records, plan_tasks, run_tasks
from verify.app.report.build import build_report
from verify.app.report.schema import ENVIRONMENT_KEY, deterministic_part


def _run(out: Path, seed: int, spec: CampaignSpec, command_line: str) -> str:
    # As the shared small report is built (tests/common/reports.py): with the kernel pass.
    outcome = build_report(out=out, seed=seed, spec=spec, runs_dir=None, command_line=command_line, kernel=True)
    assert outcome.exit_status == 0, outcome.results["summary"]
    return (out / "results.json").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def runs(small_report: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """a and b: one campaign on one seed, built twice; c: its generated configurations on another seed."""
    tmp = tmp_path_factory.mktemp("determinism")
    return {"a": (small_report / "results.json").read_text(encoding="utf-8"),
            "b": _run(tmp / "b", SMALL_SEED, SMALL_SPEC, "test, again"),
            "c": _run(tmp / "c", SMALL_SEED + 1, replace(SMALL_SPEC, worked=False), "test, another seed")}


@pytest.mark.slow
def test_same_seed_same_bytes_apart_from_environment(runs: dict[str, str]) -> None:
    a, b = runs["a"], runs["b"]
    assert a != b  # the environment blocks differ (command line, timestamps) ...
    assert deterministic_part(a) == deterministic_part(b)  # ... and nothing else does
    assert len(deterministic_part(a)) > 0.9 * len(a)
    env_a, env_b = json.loads(a)[ENVIRONMENT_KEY], json.loads(b)[ENVIRONMENT_KEY]
    assert env_a["command_line"] != env_b["command_line"]


@pytest.mark.slow  # two whole reports (the fixture)
def test_other_seed_other_examples(runs: dict[str, str]) -> None:
    a, c = json.loads(runs["a"]), json.loads(runs["c"])
    generated_a = [r["configuration"] for r in a["examples"] if r["task"]["kind"] == "generated"]
    generated_c = [r["configuration"] for r in c["examples"] if r["task"]["kind"] == "generated"]
    assert generated_a != generated_c
    assert a["campaign"]["seed"] == SMALL_SEED and c["campaign"]["seed"] == SMALL_SEED + 1


@pytest.mark.slow
def test_merge_does_not_depend_on_completion_order() -> None:
    tasks = plan_tasks(default_spec(examples=4), seed=9)[4:]  # generated ones only: quick
    forward = run_tasks(tasks, jobs=1)
    backward = run_tasks(list(reversed(tasks)), jobs=1)
    assert json.dumps(forward) == json.dumps(backward)
    assert json.dumps(merge_records(list(reversed(forward)))) == json.dumps(forward)


def test_planned_tasks_repeat() -> None:
    assert plan_tasks(default_spec(examples=12), seed=4) == plan_tasks(default_spec(examples=12), seed=4)
    assert plan_tasks(default_spec(examples=12), seed=4) != plan_tasks(default_spec(examples=12), seed=5)


@pytest.mark.slow
def test_process_pool_gives_the_same_records() -> None:
    tasks = plan_tasks(default_spec(examples=4), seed=11)[4:]
    assert json.dumps(run_tasks(tasks, jobs=2)) == json.dumps(run_tasks(tasks, jobs=1))
