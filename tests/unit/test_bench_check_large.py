"""bench/check_large.py times check in a child process against its targets and compares the D9 jump search's bulk
decision with its one-by-one baseline: the two reports must be byte for byte equal, and a target not met fails it."""

from __future__ import annotations

import pytest

from tests.common.scripts import load_script


def _bench():
    return load_script("bench/check_large.py", "bench_check_large")


def test_the_workload_is_inside_the_hypotheses() -> None:
    data = _bench().workload(300, 0)
    tokens = [tuple(t) for t in data["tokens"]]
    assert len(tokens) == 300 and len(set(tokens)) == 300
    assert all(any(x != "0" for x in t) for t in tokens)


def test_a_target_not_met_fails_the_bench_and_says_by_how_much(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench()
    monkeypatch.setattr(bench, "TARGET_SECONDS", 0.001)
    assert bench.main(["--n", "40", "--baseline-n", "30"]) == 1
    out = capsys.readouterr().out
    assert "reports byte for byte equal: yes" in out
    assert "goal: under 0.001 s wall: NOT met, by " in out
    assert "peak memory: met" in out and "x the baseline's time" in out
    # The independent checker re-verified the timed run's report, and the bench says so.
    assert "certcheck (default limits)" in out and "exit 0: " in out
    assert "goal: decided, every certificate verified: met" in out


def test_the_peak_is_the_child_s_own_not_its_big_parent_s(tmp_path) -> None:
    # wait4's ru_maxrss of a child counts the parent's pages at the fork: a test process holding
    # 600 MiB would make a small check look like a 600 MiB one.
    bench = _bench()
    ballast = bytearray(600 << 20)
    ballast[::4096] = b"x" * len(ballast[::4096])  # touched: resident
    config = tmp_path / "small.json"
    config.write_text(__import__("json").dumps(bench.workload(20, 0)))
    seconds, peak, status = bench.run_check(config, tmp_path / "out.json", mode="bulk")
    del ballast
    assert status == 0 and (tmp_path / "out.json").exists()
    assert 10 << 20 < peak < 500 << 20, peak
