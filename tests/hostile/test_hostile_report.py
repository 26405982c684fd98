"""Faults around ``report``: concurrent runs, SIGKILL, Ctrl-C at start-up, leftovers, the folder swap.

What must hold: a second run into the same folder refuses at once (exit 4) instead of racing;
after a SIGKILL of the command no process of the run survives (pool workers and forkserver
included) and the next run cleans up; Ctrl-C or SIGTERM at any moment, start-up included,
ends with exit 130, no traceback from any process and no leaked semaphore; readers of the
report folder never find it missing while it is replaced.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from hostile_run import (TIME_LIMIT, assert_bounded, assert_refused, campaign, finish, kill_session, launch,
                         processes_in, run, start, wait_ready)
from verify.core import exitcodes, io

pytestmark = pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="needs /proc to find the run's processes")


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory, small_report: Path) -> Path:
    """A folder with a finished small report in reports/latest; big.toml runs longer than any test waits.

    The report is a copy of the run's shared small report (tests/common/reports.py): what these
    tests need is an earlier report to protect, whatever command wrote it.
    """
    work = tmp_path_factory.mktemp("report-faults")
    (work / "small.toml").write_text(campaign(examples=2, n=(4, 10), layer_budget=40))
    (work / "big.toml").write_text(campaign(examples=5000, n=(4, 10), layer_budget=40))
    shutil.copytree(small_report, work / "reports" / "latest", copy_function=shutil.copyfile)
    return work


@pytest.fixture()
def earlier(finished: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of ``finished`` for one test (a test may replace the report) and the report's digest."""
    for name in ("small.toml", "big.toml", "reports"):
        source = finished / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, symlinks=True)
        else:
            shutil.copy2(source, tmp_path / name)
    return tmp_path, _digest(tmp_path / "reports" / "latest")


def _big(jobs: int) -> list[str]:
    return ["report", "--config", "big.toml", "--out", "reports/latest", "--jobs", str(jobs), "--runs", "none"]


def _wait_for(condition, what: str, timeout: float = TIME_LIMIT) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _assert_untouched(work: Path, digest: dict[str, str]) -> None:
    assert _digest(work / "reports" / "latest") == digest
    assert sorted(p.name for p in (work / "reports").iterdir()) == ["latest"]  # no lock, partial or backup


@pytest.mark.slow
def test_a_second_run_into_the_same_folder_is_refused_at_once(earlier: tuple[Path, dict[str, str]]) -> None:
    work, digest = earlier
    first = launch(_big(1), work)
    try:
        _wait_for(lambda: (work / "reports" / ".latest.lock").exists(), "the first run's lock")
        second = run(_big(1), work)
        line = assert_refused(second, exitcodes.COULD_NOT_COMPLETE, "reports/latest", "another run",
                              f"pid {first.pid}")
        assert "wait for it" in line
        assert first.poll() is None  # the first run goes on
    finally:
        os.kill(first.pid, signal.SIGTERM)
        stopped = finish(first)
    assert_bounded(stopped)
    assert stopped.status == exitcodes.INTERRUPTED, stopped.describe()
    _assert_untouched(work, digest)


@pytest.mark.slow
def test_after_a_sigkill_no_process_survives_and_the_next_run_cleans_up(earlier: tuple[Path, dict[str, str]]) -> None:
    work, digest = earlier
    killed = launch(_big(2), work)
    try:
        wait_ready(killed)
        # Workers up and checking: the pool's processes share the run's working directory.
        _wait_for(lambda: len(processes_in(work)) >= 4, "the pool's workers")  # command, tracker, forkserver, workers
        os.kill(killed.pid, signal.SIGKILL)
        outcome = finish(killed)
        assert outcome.status == -signal.SIGKILL
        _wait_for(lambda: processes_in(work) == [], "the workers to exit", timeout=15)
    finally:
        kill_session(killed)  # the test's own processes: never leave them behind, even on failure
    assert _digest(work / "reports" / "latest") == digest  # the SIGKILL changed nothing visible
    # Leftovers of killed runs (a staging folder, the two-rename fallback's backup) go at the next run.
    (work / "reports" / ".latest.abcd1234.partial").mkdir()
    (work / "reports" / ".latest.old-999999").mkdir()
    outcome = run(["report", "--config", "small.toml", "--out", "reports/latest", "--jobs", "1", "--runs", "none"],
                  work)
    assert outcome.status == 0, outcome.describe()
    assert sorted(p.name for p in (work / "reports").iterdir()) == ["latest"]


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("delay", [0.0, 0.5, 2.0, 8.0])
def test_stopping_at_any_moment_is_clean(earlier: tuple[Path, dict[str, str]], signum: int, delay: float) -> None:
    """From just after the interpreter is up (imports, pool start-up) to the middle of the campaign."""
    work, digest = earlier
    # --debug changes nothing of a clean stop; should the exit ever hang and be cut short, the failure then
    # shows where each thread waited.
    proc = start(["--debug", *_big(2)], work)
    try:
        ready = wait_ready(proc)
        time.sleep(max(0.0, ready + delay - time.monotonic()))
        os.kill(proc.pid, signum)
        outcome = finish(proc)
        _wait_for(lambda: processes_in(work) == [], "every process of the run to exit", timeout=15)
    finally:
        kill_session(proc)
    assert_bounded(outcome)  # no traceback from any process, the half-started workers' included
    assert outcome.status == exitcodes.INTERRUPTED, outcome.describe()
    assert outcome.lines() == ["interrupted: nothing half-written was left behind"], outcome.describe()
    assert "leaked semaphore" not in outcome.err
    _assert_untouched(work, digest)


# -- The swap and the lock, in-process. --------------------------------------------------------------

def _fill(folder: Path, generation: int) -> None:
    (folder / "marker").write_text(str(generation))
    (folder / "bulk.bin").write_bytes(os.urandom(4096))


@pytest.mark.parametrize("exchange", [True, False], ids=["rename-exchange", "two-renames"])
def test_readers_see_the_old_folder_or_the_new_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   exchange: bool) -> None:
    target = tmp_path / "latest"
    with io.atomic_directory(target) as staging:
        _fill(staging, 0)
    if not exchange:
        monkeypatch.setattr(io, "_exchange", lambda a, b: False)
    missing, seen, stop = [], set(), threading.Event()

    def reader() -> None:
        while not stop.is_set():
            try:
                seen.add((target / "marker").read_text())
            except FileNotFoundError:
                missing.append(time.monotonic())

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for generation in range(1, 150):
            with io.atomic_directory(target) as staging:
                _fill(staging, generation)
    finally:
        stop.set()
        thread.join()
    assert (target / "marker").read_text() == "149"
    assert len(seen) > 1  # the reader really read during the swaps
    if exchange:
        assert missing == []  # one atomic exchange: never a moment without the folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest"]


def test_a_crash_between_the_fallbacks_two_renames_is_repaired_by_the_next_run(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "latest"
    with io.atomic_directory(target) as staging:
        _fill(staging, 1)
    monkeypatch.setattr(io, "_exchange", lambda a, b: False)
    real_replace, calls = os.replace, []

    def dies_after_moving_the_old_folder_aside(src, dst):  # type: ignore[no-untyped-def]
        calls.append((src, dst))
        real_replace(src, dst)
        if len(calls) == 1:
            raise SystemExit("killed between the renames (simulated)")

    monkeypatch.setattr(io.os, "replace", dies_after_moving_the_old_folder_aside)
    with pytest.raises(SystemExit):
        with io.atomic_directory(target) as staging:
            _fill(staging, 2)
    monkeypatch.setattr(io.os, "replace", real_replace)
    assert not target.exists() and [p.name for p in tmp_path.iterdir()] == [f".latest.old-{os.getpid()}"]
    with io.directory_lock(target):  # what the next run does first
        pass
    assert (target / "marker").read_text() == "1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest"]


def test_the_lock_is_reentrant_and_refuses_another_process(tmp_path: Path) -> None:
    target = tmp_path / "latest"
    probe = ("import sys; from verify.core import io\n"
             "try:\n    with io.directory_lock(sys.argv[1]): pass\n"
             "except io.OutputBusy as e:\n    print(e); sys.exit(7)\n")
    with io.directory_lock(target):
        with io.atomic_directory(target) as staging:  # the same process again: allowed
            _fill(staging, 1)
        other = subprocess.run([sys.executable, "-c", probe, str(target)], capture_output=True, text=True,
                               timeout=TIME_LIMIT, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        assert other.returncode == 7, other.stderr
        assert f"another run (pid {os.getpid()})" in other.stdout
    other = subprocess.run([sys.executable, "-c", probe, str(target)], capture_output=True, text=True,
                           timeout=TIME_LIMIT, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert other.returncode == 0, other.stdout + other.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest"]


@pytest.mark.slow
def test_special_files_among_the_saved_results_are_skipped_or_listed(tmp_path: Path) -> None:
    (tmp_path / "small.toml").write_text(campaign(examples=1, n=(4, 10), layer_budget=40))
    conjectures, analysis = tmp_path / "runs" / "conjectures", tmp_path / "runs" / "sentiment" / "analysis"
    conjectures.mkdir(parents=True)
    analysis.mkdir(parents=True)
    os.mkfifo(conjectures / "fifo.json")        # reading it would block forever
    os.mkfifo(analysis / "figure.png")
    (conjectures / "zero.json").symlink_to("/dev/zero")  # endless
    with open(conjectures / "huge.json", "wb") as handle:
        handle.truncate(17 * 2**20)             # beyond the input limit
    (analysis / "analysis.json").write_text("{}")
    outcome = run(["report", "--config", "small.toml", "--out", "out", "--jobs", "1", "--runs", "runs"], tmp_path)
    assert outcome.status == 0, outcome.describe()
    results = (tmp_path / "out" / "results.json").read_text()
    assert "huge.json" in results and "more than the 16,777,216 bytes" in results
    assert "fifo.json" not in results and "zero.json" not in results and "figure.png" not in results
