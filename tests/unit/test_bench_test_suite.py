"""bench/test_suite.py calls a machine quiet or loaded by the CPU time other processes took
during a lane, not by the load average (which the suite's own workers raise)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_test_suite", ROOT / "bench" / "test_suite.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _lane(others: float | None):
    def run_lane(lane: str, workers: int, log: Path | None = None) -> dict[str, object]:
        # the suite's own two workers leave a load average above the 2 cores: not a loaded machine
        return {"lane": lane, "wall": 100.0, "cpu": 190.0, "outcome": "5 passed", "status": 0,
                "load_before": (2.5, 1.0, 0.5), "load_after": (2.4, 1.9, 1.0), "others": others}
    return run_lane


@pytest.mark.parametrize(("others", "verdict"), [(5.0, "quiet"), (40.0, "loaded"), (None, "loaded")])
def test_quiet_or_loaded_by_other_processes_cpu(others: float | None, verdict: str,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench()
    monkeypatch.setattr(bench, "run_lane", _lane(others))
    monkeypatch.setattr(bench.os, "cpu_count", lambda: 2)
    assert bench.main(["--lane", "fast"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith(f"measured on a {verdict} machine")
    if others is not None:
        share = others / (100.0 * 2)
        assert f"other processes used {others:.1f} CPU s during the run ({share:.0%} of 2 cores)" in lines[-2]


def test_machine_busy_time_grows_with_work() -> None:
    bench = _bench()
    before = bench._machine_busy()
    if before is None:
        pytest.skip("no /proc/stat on this system")
    total = 0
    for i in range(3_000_000):
        total += i * i
    after = bench._machine_busy()
    assert after is not None and after > before
