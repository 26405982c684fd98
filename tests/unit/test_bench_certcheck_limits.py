"""bench/certcheck_limits.py times files the checkers accept (or reject on purpose): its corners, built at a size a
test can check, must get the status the bench expects of them (docs/certcheck.md, Limits; docs/theory.md D10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.common.scripts import load_script
from verify import certcheck
from verify.certcheck import control as control_checker


def _bench():
    return load_script("bench/certcheck_limits.py", "bench_certcheck_limits")


def _check_control(data: dict, tmp_path: Path) -> control_checker.ControlCheck:
    path = tmp_path / "control.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return control_checker.check_control_file(str(path))


@pytest.mark.parametrize("build", [
    lambda bench: bench.control_dense(d=5, h=5, inside_triples=4, designs=3),
    lambda bench: bench.control_repeated_designs(half=3, designs=5),
], ids=["dense", "repeated designs"])
def test_control_corner_verifies(build, tmp_path: Path) -> None:
    """The leader-sets corners are results the control checker verifies (D10): every field the command writes."""
    _name, data = build(_bench())
    check = _check_control(data, tmp_path)
    assert check.status == "verified", check.reasons
    assert check.exit_status == _bench().VERIFIED


def test_control_corner_missing_a_statement_is_rejected(tmp_path: Path) -> None:
    """The test above could fail: without the statement of what it proves, the same corner is rejected."""
    _name, data = _bench().control_dense(d=5, h=5, inside_triples=4, designs=3)
    del data["proves"]
    assert _check_control(data, tmp_path).status == "rejected"


def test_leaders_corner_verifies(tmp_path: Path) -> None:
    """The quadratic T2 corner (every token a leader at layer 0), small: the claims checker verifies it."""
    bench = _bench()
    path = tmp_path / "leaders.json"
    path.write_text(json.dumps(bench.leaders_report(bench._sphere(24, 16))), encoding="utf-8")
    assert certcheck.check_file(str(path)).exit_status == bench.VERIFIED


def test_bench_fails_when_a_corner_gets_another_status(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A corner that does not verify makes the bench exit 1, naming it."""
    bench = _bench()
    monkeypatch.setattr(bench, "measure", lambda name, data, folder: 1)
    monkeypatch.setattr(bench.sys, "argv", ["certcheck_limits.py", "--only", "chain power"])
    assert bench.main() == 0  # the chain corner is rejected on purpose
    monkeypatch.setattr(bench.sys, "argv", ["certcheck_limits.py", "--only", "leaders d=2 "])
    monkeypatch.setattr(bench, "leaders_report", lambda points: {})
    monkeypatch.setattr(bench, "_sphere", lambda n, d: [])
    assert bench.main() == 1
    assert "leaders d=2" in capsys.readouterr().err


def test_the_chain_run_corner_is_settled_by_a_chain_the_checker_verifies() -> None:
    """At 150 tokens with one layer (the corner's run at its size stops at layer 0) the report carries a D9 chain of
    a jump and a final segment, which the checker verifies; with one coefficient of it changed, rejects."""
    report = _bench().chain_run(150, layer_budget=1)
    chains = [v["certificate"]["closed_form"] for v in report["verdicts"].values()
              if isinstance(v.get("certificate"), dict) and "closed_form" in v["certificate"]]
    assert chains and [s["status"] for s in chains[0]["segments"]][-1] == "certified"
    assert any(s["status"] == "jump" for s in chains[0]["segments"])
    assert certcheck.check_report(json.loads(json.dumps(report))).exit_status == _bench().VERIFIED
    for chain in chains:
        term = chain["segments"][-1]["paths"][-1][0]
        term["coefficient"][0] = term["coefficient"][0] + "1" if "/" not in term["coefficient"][0] else "7/3"
    assert certcheck.check_report(report).exit_status == _bench().REJECTED
