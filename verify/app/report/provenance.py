"""Provenance of a report: what a reader needs to rerun exactly what was reported.

Two kinds of facts are kept apart on purpose:

* facts that decide the results (the seed, the campaign, the sha256 of every input file) go
  into the deterministic part of ``results.json``;
* facts about the run (timestamps, timings, versions, the command line as typed, the host)
  go into the one separated ``environment`` block, the only part allowed to differ between
  two runs with the same seed and the same dependency versions.
"""

from __future__ import annotations

import hashlib
import platform
import sys
from datetime import datetime, timezone
from typing import Any

from verify.core.io import sha256_file
from verify.core.versions import dependency_versions, git_commit

__all__ = ["sha256_file", "sha256_text", "environment_block", "utc_now"]

def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def environment_block(*, started: str, finished: str, timings: dict[str, float], argv: list[str],
                      equivalent_command: str, claim_check_seconds: dict[str, float] | None = None) -> dict[str, Any]:
    """The separated, non-deterministic block of ``results.json`` (timestamps, timings, versions).

    ``claim_check_seconds``: the wall time of each configuration's claim checks, by task name.
    """
    return {
        "note": "The only block allowed to differ between two runs with the same seed and dependency versions.",
        "started": started,
        "finished": finished,
        "timings_seconds": {key: round(value, 3) for key, value in timings.items()},
        "claim_check_seconds": {name: round(value, 3) for name, value in sorted((claim_check_seconds or {}).items())},
        "command_line": equivalent_command,
        "argv": list(argv),
        "versions": dependency_versions(),
        "git_commit": git_commit(),
        "platform": platform.platform(),
        "executable": sys.executable,
    }
