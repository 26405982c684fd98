"""Where the suite finds the project's saved results and where it keeps a user's own.

* The **project folder** is the clone the package runs from (``pip install -e .`` or
  ``PYTHONPATH``): the folder above ``verify/`` whose ``pyproject.toml`` names this project.
  Its ``runs/`` holds the saved results that the default report includes. An installed copy
  (``pip install .``) has no project folder.
* The **user folder** holds what a user's own runs write by default (conjecture results), so
  that they never mix with the project's committed results: ``$HARDMAX_VERIFY_HOME`` if set,
  else ``$XDG_DATA_HOME/hardmax-verify``, else ``~/.local/share/hardmax-verify``.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

__all__ = ["HOME_VARIABLE", "PROJECT_NAME", "project_folder", "project_runs", "user_folder"]

HOME_VARIABLE = "HARDMAX_VERIFY_HOME"
PROJECT_NAME = "hardmax-verify"


def project_folder(package: Path | None = None) -> Path | None:
    """The clone holding the package ``package`` (default: this one), or None for an installed copy."""
    # This module lives in verify/app/: the package is the folder above.
    package = Path(package) if package is not None else Path(__file__).resolve().parents[1]
    candidate = package.parent
    try:
        data = tomllib.loads((candidate / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return candidate if data.get("project", {}).get("name") == PROJECT_NAME else None


def project_runs(package: Path | None = None) -> Path | None:
    """The project's saved results (``runs/`` of the clone), or None when there is none."""
    folder = project_folder(package)
    return folder / "runs" if folder is not None and (folder / "runs").is_dir() else None


def user_folder(*parts: str) -> Path:
    """The user folder (not created here), or a path inside it."""
    home = os.environ.get(HOME_VARIABLE)
    if home:
        base = Path(home).expanduser()
    else:
        data_home = os.environ.get("XDG_DATA_HOME")
        base = (Path(data_home).expanduser() if data_home else Path.home() / ".local" / "share") / PROJECT_NAME
    return base.joinpath(*parts)
