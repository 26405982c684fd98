"""The leader-control checker (verify/certcheck/control/) is independent of the code it checks.

It may import only the standard library and the checker package's shared JSON reader, number
reader, work units and count with its noun (common.counted, whose module the number reader loads
anyway): its AST names no other import, and run from the checker's folder copied on
its own, in a fresh interpreter where ``verify`` and every third-party package are unimportable,
it verifies a control result, rejects a tampered one, and loads no module outside the standard
library and the checker's own.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import verify
from verify.experiments.control.design import control
from verify.experiments.control.result import outcome_json
from verify.core.worked import WORKED_CONFIGURATIONS
from tests.common.import_blocker import dynamic_import_words, imports_of, outside_the_package, run_package_alone

PACKAGE = Path(verify.__file__).parent / "certcheck"
CHECKER = PACKAGE / "control" / "__init__.py"


def test_the_checker_imports_only_the_standard_library() -> None:
    source = CHECKER.read_text(encoding="utf-8")
    imports = imports_of(source)
    assert imports, "the AST walk found no import at all"
    assert outside_the_package("certcheck.control", True, imports) == []
    assert {name for name, level in imports if level} == {"jsontext", "kernel"}
    assert dynamic_import_words(source) == []


def _run_alone(tmp_path: Path, result: dict) -> subprocess.CompletedProcess:
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result), encoding="utf-8")
    return run_package_alone(PACKAGE, str(path), cwd=tmp_path, name="certcheck", module="control")


def test_the_checker_runs_with_the_package_unimportable(tmp_path: Path) -> None:
    config = WORKED_CONFIGURATIONS["emerging_leader"]
    result = json.loads(json.dumps(outcome_json(config, control(config.tokens, [0, 2]), seed=0, max_tries=4,
                                                max_programs=64)))
    assert result["outcome"] == "realised"
    good = _run_alone(tmp_path, result)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "verified (realised)" in good.stdout and "OUTSIDE []" in good.stderr
    assert "'certcheck.jsontext'" in good.stderr.partition("OWN")[2]  # the shared reader, from the copy
    assert "RuntimeWarning" not in good.stderr  # run as its package's __main__, never imported twice
    result["design"]["margins"][0]["margin"] = "7"
    bad = _run_alone(tmp_path, result)
    assert bad.returncode == 1 and "rejected" in bad.stdout, bad.stdout + bad.stderr
