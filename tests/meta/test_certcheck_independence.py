"""The certificate checker is independent of the suite it checks (docs/certcheck.md).

verify/certcheck.py may import only the standard library and nothing from the package. Shown
two ways: its AST names no other import, and run as a lone file in a fresh interpreter where
``verify`` (and every third-party package) is made unimportable, it still verifies a claims
report, rejects a tampered one, and loads no module outside the standard library.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import verify
from verify.claims import check_configuration
from verify.core.config import parse_configuration

CHECKER = Path(verify.__file__).parent / "certcheck.py"

# A fresh interpreter: the package and every non-stdlib module unimportable, the checker run as a
# script; afterwards every loaded module must belong to the standard library.
DRIVER = r"""
import runpy, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top not in sys.stdlib_module_names:
            raise ImportError(f"blocked non-stdlib import {name!r}")
        return None
sys.meta_path.insert(0, Block())
sys.modules["verify"] = None
before = set(sys.modules)
checker, report = sys.argv[1], sys.argv[2]
sys.argv = [checker, report]
try:
    runpy.run_path(checker, run_name="__main__")
except SystemExit as exit_:
    outside = sorted(m for m in set(sys.modules) - before if m.partition(".")[0] not in sys.stdlib_module_names)
    print("OUTSIDE", outside, file=sys.stderr)
    raise
"""


def _imports(source: str) -> list[tuple[str, int]]:
    """(module, level) of every import statement, at any depth of the AST."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.module or "", node.level))
    return found


def test_checker_imports_only_the_standard_library() -> None:
    imports = _imports(CHECKER.read_text())
    assert imports, "the AST walk found no import at all"
    bad = [(name, level) for name, level in imports
           if level > 0 or name.partition(".")[0] not in sys.stdlib_module_names or name.startswith("verify")]
    assert bad == [], f"verify/certcheck.py imports outside the standard library: {bad}"


def test_checker_has_no_dynamic_imports() -> None:
    source = CHECKER.read_text()
    assert "__import__" not in source and "importlib" not in source and "exec(" not in source


def test_the_ast_check_would_see_a_package_import() -> None:
    """The AST test above can fail: a relative or package import is detected."""
    for line in ("from . import numbers", "from verify.core.config import Configuration", "import numpy",
                 "def f():\n    from .claims import check_configuration"):
        name, level = _imports(line)[0]
        assert level > 0 or name.partition(".")[0] not in sys.stdlib_module_names or name.startswith("verify")


def _run_alone(tmp_path: Path, report: dict) -> subprocess.CompletedProcess:
    lone = tmp_path / "lone"
    lone.mkdir(exist_ok=True)
    (lone / "certcheck.py").write_text(CHECKER.read_text())
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(report))
    # -I: no PYTHONPATH, no user site, no current directory on sys.path; -S: no site-packages at all.
    return subprocess.run([sys.executable, "-I", "-S", "-c", DRIVER, str(lone / "certcheck.py"), str(path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)


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
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "certcheck.py").write_text("import verify.core.numbers\n")
    result = subprocess.run([sys.executable, "-I", "-S", "-c", DRIVER, str(lone / "certcheck.py"), "x.json"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert result.returncode != 0 and ("ModuleNotFoundError" in result.stderr or "ImportError" in result.stderr)


@pytest.mark.slow
def test_module_entry_point_in_the_package(tmp_path: Path) -> None:
    config = parse_configuration({"tokens": [["1", "1/3"], ["-1", "-1"], ["1/4", "1/8"]], "alpha": "1/2"})
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(check_configuration(config, cross_check=False).to_json_dict()))
    result = subprocess.run([sys.executable, "-m", "verify.certcheck", str(path)], capture_output=True, text=True,
                            cwd=Path(verify.__file__).parent.parent, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
