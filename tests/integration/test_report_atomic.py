"""The report folder is replaced whole or not at all (issue 4, behaviour): a crash or Ctrl-C
mid-run leaves the previous report byte for byte and no partial folder beside it."""

from __future__ import annotations

import functools
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verify.claims import check_configuration
from verify.app.report import build as build_module
from verify.app.report.build import build_report
from verify.app.campaign import CampaignSpec, FamilySpec

SPEC = CampaignSpec(examples=3, layer_budget=20, worked=False, float_check=True, shrink=False,
                    families=(FamilySpec("generic", n=(3, 5), d=(2,)),))


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture()
def previous(small_report_copy: Path) -> tuple[Path, dict[str, bytes]]:
    """An earlier report (a copy of the shared small one) in reports/latest, and its bytes."""
    return small_report_copy, _snapshot(small_report_copy)


def _assert_untouched(out: Path, before: dict[str, bytes]) -> None:
    assert _snapshot(out) == before
    # Only the report folder itself: no ".latest.*.partial" staging folder, no ".old" backup.
    assert [p.name for p in out.parent.iterdir()] == ["latest"]


@pytest.mark.slow
def test_ctrl_c_during_the_campaign(previous) -> None:
    out, before = previous
    seen = []

    def interrupted(config, layer_budget):
        seen.append(config.name)
        if len(seen) == 2:
            raise KeyboardInterrupt
        return check_configuration(config, layer_budget=layer_budget)

    with pytest.raises(KeyboardInterrupt):
        build_report(out=out, seed=2, spec=SPEC, runs_dir=None, checker=interrupted)
    _assert_untouched(out, before)


@pytest.mark.slow
def test_crash_while_writing(previous, monkeypatch: pytest.MonkeyPatch) -> None:
    """The campaign finished and figures are half written when the process fails."""
    out, before = previous
    real = build_module.write_figures

    def write_then_crash(records, staging, **options):
        real(records, staging, **options)
        assert any(staging.rglob("*.png"))  # something really was half-written
        raise OSError("disk full (injected)")

    monkeypatch.setattr(build_module, "write_figures", write_then_crash)
    with pytest.raises(OSError, match="injected"):
        build_report(out=out, seed=2, spec=SPEC, runs_dir=None)
    _assert_untouched(out, before)


@pytest.mark.slow
def test_success_replaces_the_report_whole(previous) -> None:
    out, before = previous
    (out / "stale.txt").write_text("from an older report", encoding="utf-8")
    build_report(out=out, seed=2, spec=SPEC, runs_dir=None,
                 checker=functools.partial(check_configuration))
    after = _snapshot(out)
    assert "stale.txt" not in after
    assert after["results.json"] != before["results.json"]
    assert [p.name for p in out.parent.iterdir()] == ["latest"]


def _processes_mentioning(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to look for surviving workers")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_stopping_a_pool_run_leaves_nothing(previous: tuple[Path, dict[str, bytes]], tmp_path: Path,
                                            signum: int) -> None:
    """A signal mid-campaign on the process pool: exit 130, previous report intact, no worker survives."""
    out, before = previous
    command = [sys.executable, "-m", "verify", "report", "--out", str(out), "--jobs", "2", "--examples", "5000",
               "--runs", str(tmp_path / "none")]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert process.stderr is not None
    # Ready marker: with standard error piped, report prints a stage line once the campaign is
    # planned and its tasks go to the pool (5000 examples: far longer than the test waits).
    seen = []
    while not (line := process.stderr.readline()).startswith("report: checking "):
        assert line, f"the report ended before its campaign started: {''.join(seen)}"
        seen.append(line)
    assert process.poll() is None, "the campaign finished before it could be interrupted"
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "nothing half-written" in err
    _assert_untouched(out, before)
    deadline = time.monotonic() + 30  # workers exit on their own once the pool is shut down
    while (survivors := _processes_mentioning(str(out))) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert survivors == []
