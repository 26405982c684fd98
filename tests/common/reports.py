"""One small report, built once per test run and shared by every test that only reads a report.

A report is the suite's most expensive fixture (a campaign, five figures, the HTML page: about
ten seconds of CPU), and most tests that need one only read it or need *an earlier report* to
protect. They take :func:`small_report` (the folder, not to be written) or
:func:`small_report_copy` (a writable copy of it in the test's own folder) instead of building
their own.

Under pytest-xdist the first worker that asks builds it into the run's shared temporary folder,
under a file lock; the others wait and reuse it. The folder is new for every run, so a report
is never reused across code versions. Its files are made read-only (a test that writes into the
shared report fails at once, unless it runs as root), and at the end of the session the folder
must still hold the same bytes: a change fails the run instead of passing silently.

Registered as a plugin by the root ``conftest.py``.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from verify.app.campaign import CampaignSpec, FamilySpec

# The worked configurations and three generated ones (generic, and mirror ties: symmetric
# leaders), each claim checked, floats cross-checked and failures shrunk: every part of a report.
SMALL_SPEC = CampaignSpec(examples=3, layer_budget=50, worked=True, float_check=True, shrink=True,
                          families=(FamilySpec("generic", n=(3, 6), d=(2, 3)),
                                    FamilySpec("mirror_ties", n=(4, 6), d=(2,))))
SMALL_SEED = 3
COMMAND_LINE = "test"


def build_small_report(out: Path) -> None:
    """Build the small report into ``out`` (exit status 0, or an AssertionError saying why not)."""
    from verify.app.report.build import build_report

    outcome = build_report(out=out, seed=SMALL_SEED, spec=SMALL_SPEC, runs_dir=None, command_line=COMMAND_LINE,
                           kernel=True)  # as the command does when coqc is installed
    assert outcome.exit_status == 0, outcome.results["summary"]


def _make_read_only(folder: Path) -> None:
    for path in folder.rglob("*"):
        if path.is_file():
            path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if missing) for the block: one xdist worker at a time."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def shared_report_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's small report: built here, or by another xdist worker of the same run."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = tmp_path_factory.getbasetemp().parent   # shared by the workers of this run, new for each run
    else:
        root = tmp_path_factory.getbasetemp()
    out = root / "shared-small-report" / "latest"
    with _locked(root / "shared-small-report.lock"):
        if not (out / "results.json").is_file():
            build_small_report(out)
            _make_read_only(out)
    return out


def folder_digest(folder: Path) -> dict[str, str]:
    """SHA-256 of every file under ``folder``, by relative path."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="session")
def small_report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The shared small report's folder (not to be written): report.md, report.html, results.json, figures/."""
    folder = shared_report_folder(tmp_path_factory)
    before = folder_digest(folder)
    yield folder
    assert folder_digest(folder) == before, "a test changed the shared small report (use small_report_copy)"


@pytest.fixture()
def small_report_copy(small_report: Path, tmp_path: Path) -> Path:
    """A writable copy of the small report at ``tmp_path/reports/latest``, for a test that replaces or damages it."""
    out = tmp_path / "reports" / "latest"
    shutil.copytree(small_report, out, copy_function=shutil.copyfile)
    return out
