"""bench/test_suite.py calls a machine quiet or loaded by the CPU time other processes took
during a lane, not by the load average (which the suite's own workers raise)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.common.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    return load_script("bench/test_suite.py", "bench_test_suite")


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
    monkeypatch.setattr(bench, "_adopt_orphans", lambda: True)  # not this test process: it would adopt for good
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


# A child that forks a grandchild and ends at once; the grandchild spends about half a second of CPU.
ORPHAN_MAKER = """
import os, time
if os.fork() == 0:
    end = time.process_time() + 0.5
    while time.process_time() < end:
        pass
    os._exit(0)
"""

ADOPTER = """
import importlib.util, subprocess, sys
spec = importlib.util.spec_from_file_location("bench_test_suite", sys.argv[1])
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
adopt = sys.argv[2] == "adopt"
assert not adopt or bench._adopt_orphans()
subprocess.run([sys.executable, "-c", sys.argv[3]], check=True)
print(bench._reap_adopted(grace=10.0), bench._children_cpu())
"""


@pytest.mark.parametrize("adopt", [True, False])
def test_a_grandchild_outliving_its_parent_is_counted_once_adopted(adopt: bool) -> None:
    if not Path("/proc/stat").exists() or (adopt and not _prctl_allowed()):
        pytest.skip("adoption is Linux's prctl, refused here")
    printed = subprocess.run([sys.executable, "-c", ADOPTER, str(ROOT / "bench" / "test_suite.py"),
                              "adopt" if adopt else "leave", ORPHAN_MAKER],
                             capture_output=True, text=True, check=True, timeout=60).stdout.split()
    lingering, cpu = int(printed[0]), float(printed[1])
    assert lingering == 0
    # the child alone takes well under 0.4 s (an interpreter's start); with the grandchild, more than 0.45 s
    assert (cpu > 0.45) if adopt else (cpu < 0.4)


def _prctl_allowed() -> bool:
    probe = "import ctypes, sys; sys.exit(0 if ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) == 0 else 1)"
    return subprocess.run([sys.executable, "-c", probe], timeout=30).returncode == 0


def test_busy_time_counts_every_field_but_idle_and_iowait(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _bench()
    # user nice system idle iowait irq softirq steal guest guest_nice, in clock ticks
    stat = tmp_path / "stat"
    stat.write_text("cpu  100 20 30 5000 700 4 6 8 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n", encoding="ascii")
    real_path = bench.Path
    monkeypatch.setattr(bench, "Path", lambda p: stat if p == "/proc/stat" else real_path(p))
    assert bench._machine_busy() == pytest.approx((100 + 20 + 30 + 4 + 6 + 8) / bench.os.sysconf("SC_CLK_TCK"))
