"""bench/report.py runs the default report --repeat times and judges the fastest run against its goal."""

from __future__ import annotations

import pytest

from tests.common.scripts import load_script


def _bench():
    return load_script("bench/report.py", "bench_report")


def _runs(bench, monkeypatch: pytest.MonkeyPatch, walls: list[float], status: int = 0) -> None:
    """Replace the report's runs by runs of the given wall times (stages at quarters of each)."""
    made = iter(walls)

    def fake(out, *, kernel, jobs, seed):
        wall = next(made)
        marks = {marker: wall * (i + 1) / 4 for i, (_, marker) in enumerate(bench.STAGES)}
        return dict(command=["python", "-m", "verify", "report", "--out", str(out)], status=status, wall=wall,
                    marks=marks, checks=1.0)

    monkeypatch.setattr(bench, "run_report", fake)


def test_the_fastest_run_is_judged(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench()
    _runs(bench, monkeypatch, [14.0, 8.0, 11.0])
    assert bench.main(["--repeat", "3"]) == 0
    out = capsys.readouterr().out
    assert "runs: 3, wall 14.00, 8.00, 11.00 s; the fastest, stage by stage:" in out
    assert "wall 8.00 s;" in out and "goal: wall <= 10 s on 2 cores: met" in out


def test_a_goal_missed_by_every_run_says_by_how_much(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench()
    _runs(bench, monkeypatch, [12.0, 15.0])
    bench.main(["--repeat", "2"])
    assert "NOT met, 1.20x the goal" in capsys.readouterr().out


def test_a_run_that_could_not_complete_fails_the_bench(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _bench()
    _runs(bench, monkeypatch, [5.0], status=4)
    assert bench.main(["--repeat", "1"]) == 1


def test_no_run_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as stop:
        _bench().main(["--repeat", "0"])
    assert stop.value.code == 2
