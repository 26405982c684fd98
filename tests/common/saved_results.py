"""A copy of the project's saved results, laid out as the repository holds them, for checker tests.

``runs/`` (the saved results a report quotes), ``protocols/`` beside it (the reproduction's
protocol file) and ``models/reproduction/<run>/checkpoint.json`` (the published checkpoints'
training histories, which give the training-length table's validation losses; the weights are
not copied: nothing here reads them).
"""

from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def copy_saved_results(root: Path) -> Path:
    """Copy the saved results under ``root`` and return the runs folder (``root/runs``)."""
    shutil.copytree(REPO / "runs", root / "runs")
    shutil.copytree(REPO / "protocols", root / "protocols")
    for checkpoint in sorted((REPO / "models" / "reproduction").glob("*/checkpoint.json")):
        target = root / "models" / "reproduction" / checkpoint.parent.name
        target.mkdir(parents=True)
        shutil.copy2(checkpoint, target / "checkpoint.json")
    return root / "runs"
