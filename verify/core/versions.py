"""The installed versions of the distributions that can change a result (recorded with every saved result).

The report's environment block (:mod:`verify.app.report.provenance`) and the conjecture lab's
saved runs record them, so that a reader can rerun exactly what was reported.
"""

from __future__ import annotations

import platform
from importlib import metadata
from typing import Iterable

__all__ = ["MATH_DEPENDENCIES", "dependency_versions"]

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
