"""The leader-control checker (verify/_checker_control.py) is independent of the code it checks.

It may import only the standard library and nothing from the package: its AST names no other
import, and run as a lone file in a fresh interpreter where ``verify`` and every third-party
package are unimportable, it verifies a control result, rejects a tampered one, and loads no
module outside the standard library.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import verify
from verify.experiments.control.design import control
from verify.experiments.control.result import outcome_json
from verify.core.worked import WORKED_CONFIGURATIONS
from tests.common.import_blocker import (PACKAGE_IMPORT, blocked, dynamic_import_words, imports_of,
                                         outside_standard_library, run_alone)

CHECKER = Path(verify.__file__).parent / "_checker_control.py"


def test_the_checker_imports_only_the_standard_library() -> None:
    source = CHECKER.read_text(encoding="utf-8")
    imports = imports_of(source)
    assert imports, "the AST walk found no import at all"
    assert outside_standard_library(imports) == []
    assert dynamic_import_words(source) == []


def _run_alone(tmp_path: Path, result: dict) -> subprocess.CompletedProcess:
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result), encoding="utf-8")
    return run_alone(CHECKER.read_text(encoding="utf-8"), str(path), cwd=tmp_path)


def test_the_checker_runs_with_the_package_unimportable(tmp_path: Path) -> None:
    config = WORKED_CONFIGURATIONS["emerging_leader"]
    result = json.loads(json.dumps(outcome_json(config, control(config.tokens, [0, 2]), seed=0, max_tries=4,
                                                max_programs=64)))
    assert result["outcome"] == "realised"
    good = _run_alone(tmp_path, result)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "verified (realised)" in good.stdout and "OUTSIDE []" in good.stderr
    result["design"]["margins"][0]["margin"] = "7"
    bad = _run_alone(tmp_path, result)
    assert bad.returncode == 1 and "rejected" in bad.stdout, bad.stdout + bad.stderr


def test_the_blocker_really_blocks(tmp_path: Path) -> None:
    result = run_alone(PACKAGE_IMPORT, "x.json", cwd=tmp_path)
    assert blocked(result), result.stderr
