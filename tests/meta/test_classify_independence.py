"""The classification checker and oracle are independent of the construction they check.

verify/experiments/classify/checker.py and verify/experiments/classify/oracle.py may import only the standard library
and nothing from the package. Shown two ways: their ASTs name no other import, and the checker,
copied alone into a fresh interpreter where the package and every third-party module are
unimportable, still certifies a built network, rejects a changed one, and loads nothing outside
the standard library.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import verify.experiments.classify.checker as checker_module
import verify.experiments.classify.oracle as oracle_module
from verify.experiments.classify.construction import build_network
from verify.experiments.classify.dataset import dataset_to_json, make_dataset

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
sys.argv = sys.argv[1:]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
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


def _outside(imports: list[tuple[str, int]]) -> list[tuple[str, int]]:
    return [(name, level) for name, level in imports
            if level > 0 or name.partition(".")[0] not in sys.stdlib_module_names or name.startswith("verify")]


@pytest.mark.parametrize("module", [checker_module, oracle_module], ids=["checker", "oracle"])
def test_imports_only_the_standard_library(module) -> None:
    source = Path(module.__file__).read_text()
    imports = _imports(source)
    assert imports, "the AST walk found no import at all"
    assert _outside(imports) == []
    assert "__import__" not in source and "importlib" not in source and "exec(" not in source


def test_the_ast_check_would_see_a_package_import() -> None:
    for line in ("from . import network", "from verify.experiments.classify.network import forward", "import numpy",
                 "def f():\n    from .construction import build_network", "import flint"):
        assert _outside(_imports(line)) != [], line


def _run_alone(tmp_path: Path, script: str, *args: str) -> subprocess.CompletedProcess:
    lone = tmp_path / "lone"
    lone.mkdir(exist_ok=True)
    (lone / "checker.py").write_text(script)
    # -I: no PYTHONPATH, user site or current directory on sys.path; -S: no site-packages at all.
    return subprocess.run([sys.executable, "-I", "-S", "-c", DRIVER, str(lone / "checker.py"), *args],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)


def test_checker_runs_with_the_package_unimportable(tmp_path: Path) -> None:
    dataset = make_dataset([[0, 1], [0, "1/2", "1/2", 1], [2, 3], [2, "5/2", "5/2", 3]], [0, 1, 0, 1])
    network = build_network(dataset, width_cap=4).to_json()
    (tmp_path / "data.json").write_text(json.dumps(dataset_to_json(dataset)))
    (tmp_path / "net.json").write_text(json.dumps(network))
    source = Path(checker_module.__file__).read_text()
    good = _run_alone(tmp_path, source, "net.json", "data.json")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "all 4 sequences classified exactly" in good.stdout
    assert "OUTSIDE []" in good.stderr
    network["blocks"][-1]["feedforward"]["W"][0][0] = "1000"
    (tmp_path / "net.json").write_text(json.dumps(network))
    bad = _run_alone(tmp_path, source, "net.json", "data.json")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "misclassified" in bad.stdout


def test_the_blocker_really_blocks(tmp_path: Path) -> None:
    result = _run_alone(tmp_path, "import verify.experiments.classify.network\n", "x")
    assert result.returncode != 0 and ("ModuleNotFoundError" in result.stderr or "ImportError" in result.stderr)
    result = _run_alone(tmp_path, "import flint\n", "x")
    assert result.returncode != 0 and "blocked non-stdlib import" in result.stderr
