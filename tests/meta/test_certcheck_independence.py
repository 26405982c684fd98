"""The certificate checker is independent of the suite it checks (docs/certcheck.md).

verify/certcheck.py may import only the standard library and nothing from the package. Shown
two ways: its AST names no other import, and run as a lone file in a fresh interpreter where
``verify`` (and every third-party package) is made unimportable, it still verifies a claims
report, rejects a tampered one, and loads no module outside the standard library.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import verify
from verify.claims import check_configuration
from verify.core.config import parse_configuration
from tests.common.import_blocker import (PACKAGE_IMPORT, blocked, dynamic_import_words, imports_of,
                                         outside_standard_library, run_alone)

CHECKER = Path(verify.__file__).parent / "certcheck.py"


def test_checker_imports_only_the_standard_library() -> None:
    imports = imports_of(CHECKER.read_text())
    assert imports, "the AST walk found no import at all"
    bad = outside_standard_library(imports)
    assert bad == [], f"verify/certcheck.py imports outside the standard library: {bad}"


def test_checker_has_no_dynamic_imports() -> None:
    assert dynamic_import_words(CHECKER.read_text()) == []


def test_the_ast_check_would_see_a_package_import() -> None:
    """The AST test above can fail: a relative or package import is detected."""
    for line in ("from . import numbers", "from verify.core.config import Configuration", "import numpy",
                 "def f():\n    from .claims import check_configuration"):
        assert outside_standard_library(imports_of(line)) != [], line


def _run_alone(tmp_path: Path, report: dict) -> subprocess.CompletedProcess:
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(report))
    return run_alone(CHECKER.read_text(), str(path), cwd=tmp_path, name="certcheck.py")


def test_checker_runs_with_the_package_unimportable(tmp_path: Path) -> None:
    config = parse_configuration({"tokens": [["1", "0"], ["0", "1"], ["1/2", "1/2"], ["1/4", "-1/2"]], "alpha": "1/2"})
    report = json.loads(json.dumps(check_configuration(config, cross_check=False).to_json_dict()))
    good = _run_alone(tmp_path, report)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "everything verified" in good.stdout
    assert "OUTSIDE []" in good.stderr
    report["verdicts"]["replay"]["certificate"]["final_positions"][3][0] = "7"
    bad = _run_alone(tmp_path, report)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "replay rejected" in bad.stdout


def test_the_blocker_really_blocks(tmp_path: Path) -> None:
    """The subprocess test can fail: a checker that imports the package dies under the same driver."""
    result = run_alone(PACKAGE_IMPORT, "x.json", cwd=tmp_path, name="certcheck.py")
    assert blocked(result), result.stderr


@pytest.mark.slow
def test_module_entry_point_in_the_package(tmp_path: Path) -> None:
    config = parse_configuration({"tokens": [["1", "1/3"], ["-1", "-1"], ["1/4", "1/8"]], "alpha": "1/2"})
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(check_configuration(config, cross_check=False).to_json_dict()))
    result = subprocess.run([sys.executable, "-m", "verify.certcheck", str(path)], capture_output=True, text=True,
                            cwd=Path(verify.__file__).parent.parent, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
