"""Lint and types, configured in pyproject.toml: ruff on the whole repository, mypy on the package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=REPO, capture_output=True, text=True, timeout=900)


def test_ruff():
    completed = _run("ruff", "check", "--no-cache", ".")
    assert completed.returncode == 0, completed.stdout + completed.stderr


@pytest.mark.slow  # about a minute with a cold cache (a fresh clone), seconds after
def test_mypy():
    completed = _run("mypy")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "Success: no issues found" in completed.stdout
