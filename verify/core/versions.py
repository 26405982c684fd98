"""The versions a result depends on: the installed distributions, and the package's own git commit.

The report's environment block (:mod:`verify.app.report.provenance`), the conjecture lab's saved
runs and the sentiment experiment's checkpoints record them, so that a reader can rerun exactly
what was reported.
"""

from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Iterable

__all__ = ["MATH_DEPENDENCIES", "dependency_versions", "git_commit"]

# Every distribution whose code can change a number, a figure or a saved result (and the
# report's own tools), the optional extras' included: "not installed" is recorded too.
MATH_DEPENDENCIES: tuple[str, ...] = (
    "hardmax-verify", "numpy", "scipy", "python-flint", "pycddlib", "cvxpy", "clarabel", "numba",
    "llvmlite", "matplotlib", "pillow", "hypothesis", "click", "rich",
    "torch", "safetensors", "simplemma", "stop-words", "vaderSentiment", "dask", "distributed",
)


def dependency_versions(names: Iterable[str] = MATH_DEPENDENCIES) -> dict[str, str]:
    """Installed version of each distribution ("not installed" when absent), plus Python itself."""
    versions = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def git_commit(directory: str | Path | None = None) -> str | None:
    """The commit of the working tree holding ``directory`` (None outside git), "+dirty" if modified."""
    where = Path(directory) if directory is not None else Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=where,
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+dirty" if dirty else "") if head else None
