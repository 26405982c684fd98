"""The versions a result depends on: the installed distributions, and the package's own git commit.

The report's environment block (:mod:`verify.app.report.provenance`), the conjecture lab's saved
runs and the sentiment experiment's checkpoints record them, so that a reader can rerun exactly
what was reported.
"""

from __future__ import annotations

import platform
import subprocess
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Iterable

__all__ = ["VERSION", "MATH_DEPENDENCIES", "dependency_versions", "git_commit", "source_state", "SourceState"]

# The package's version: the one place it is written. pyproject.toml reads it (setuptools'
# ``attr:``, without importing), ``verify.__version__`` is it, and tests/meta/test_citation.py
# holds CITATION.cff and CHANGELOG.md to it.
VERSION = "0.1.0"

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
        if name == "hardmax-verify":  # the code that runs, not whatever copy pip installed last
            versions[name] = VERSION
            continue
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


@dataclass(frozen=True)
class SourceState:
    """Where the running code comes from: its git commit and whether its tracked files differ from it."""

    commit: str | None      # None: not running from a git clone of the project (an installed copy)
    clean: bool | None      # None when unknown (no clone)

    def describe(self) -> str:
        """``commit 215a8cd71..., clean working tree`` (or ``... with uncommitted changes``, or why unknown)."""
        if self.commit is None:
            return "commit unknown (not running from a git clone of the project)"
        return f"commit {self.commit}, " + ("clean working tree" if self.clean else "working tree with uncommitted changes")


def _git(where: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=where, capture_output=True, text=True, timeout=10,
                          check=True).stdout.strip()


def source_state(directory: str | Path | None = None) -> SourceState:
    """The commit of the clone this package runs from, and whether its tracked files are unchanged.

    Only the project's own clone counts: an installed copy that happens to lie inside some other
    git repository (a virtual environment in a user's project) has no commit of its own, so the
    clone's top folder must hold this very module.
    """
    where = Path(directory) if directory is not None else Path(__file__).resolve().parent
    try:
        top = Path(_git(where, "rev-parse", "--show-toplevel"))
        if directory is None and not (top / "verify" / "core" / "versions.py").resolve().samefile(__file__):
            return SourceState(None, None)
        head = _git(where, "rev-parse", "HEAD")
        dirty = _git(where, "status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return SourceState(None, None)
    return SourceState(head, not dirty) if head else SourceState(None, None)


def git_commit(directory: str | Path | None = None) -> str | None:
    """The commit of the working tree holding ``directory`` (None outside git), "+dirty" if modified."""
    state = source_state(directory)
    if state.commit is None:
        return None
    return state.commit + ("" if state.clean else "+dirty")
