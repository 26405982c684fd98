"""The leader-control checker (verify/_checker_control.py) is independent of the code it checks.

It may import only the standard library and nothing from the package: its AST names no other
import, and run as a lone file in a fresh interpreter where ``verify`` and every third-party
package are unimportable, it verifies a control result, rejects a tampered one, and loads no
module outside the standard library.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import verify
from verify.experiments.control.design import control
from verify.experiments.control.result import outcome_json
from verify.core.worked import WORKED_CONFIGURATIONS

CHECKER = Path(verify.__file__).parent / "_checker_control.py"
DRIVER = r"""
import runpy, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] not in sys.stdlib_module_names:
            raise ImportError(f"blocked non-stdlib import {name!r}")
        return None
sys.meta_path.insert(0, Block())
sys.modules["verify"] = None
before = set(sys.modules)
checker, result = sys.argv[1], sys.argv[2]
sys.argv = [checker, result]
try:
    runpy.run_path(checker, run_name="__main__")
except SystemExit:
    outside = sorted(m for m in set(sys.modules) - before if m.partition(".")[0] not in sys.stdlib_module_names)
    print("OUTSIDE", outside, file=sys.stderr)
    raise
"""


def _imports(source: str) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.module or "", node.level))
    return found


def test_the_checker_imports_only_the_standard_library() -> None:
    source = CHECKER.read_text(encoding="utf-8")
    imports = _imports(source)
    assert imports, "the AST walk found no import at all"
    bad = [(name, level) for name, level in imports
           if level > 0 or name.partition(".")[0] not in sys.stdlib_module_names or name.startswith("verify")]
    assert bad == []
    assert "__import__" not in source and "importlib" not in source and "exec(" not in source


def _run_alone(tmp_path: Path, result: dict) -> subprocess.CompletedProcess:
    lone = tmp_path / "lone"
    lone.mkdir(exist_ok=True)
    (lone / "checker.py").write_text(CHECKER.read_text(encoding="utf-8"), encoding="utf-8")
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result), encoding="utf-8")
    return subprocess.run([sys.executable, "-I", "-S", "-c", DRIVER, str(lone / "checker.py"), str(path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)


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
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "checker.py").write_text("import verify.core.numbers\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-I", "-S", "-c", DRIVER, str(lone / "checker.py"), "x.json"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert result.returncode != 0 and ("ModuleNotFoundError" in result.stderr or "ImportError" in result.stderr)
