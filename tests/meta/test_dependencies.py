"""The declared dependencies are what the package imports, pinned, and recorded in every report."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from verify.core.versions import MATH_DEPENDENCIES, dependency_versions

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
# Used by name rather than imported: cvxpy's solver is chosen with solver=cp.CLARABEL.
USED_WITHOUT_IMPORT = {"clarabel"}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared(*groups: str) -> set[str]:
    requirements = list(PYPROJECT["project"]["dependencies"]) if "runtime" in groups else []
    for group in groups:
        requirements += PYPROJECT["project"]["optional-dependencies"].get(group, [])
    return {_normal(Requirement(r).name) for r in requirements}


def _imported_distributions() -> set[str]:
    """Third-party distributions whose modules verify/ imports (module top or inside functions)."""
    modules: set[str] = set()
    for path in (REPO / "verify").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules.add(node.module.split(".")[0])
    owners = metadata.packages_distributions()
    found = set()
    for module in modules - set(sys.stdlib_module_names) - {"verify", "__future__"}:
        assert module in owners, f"verify/ imports {module}, which no installed distribution provides"
        found.update(_normal(name) for name in owners[module])
    return found


@pytest.mark.slow
def test_runtime_dependencies_are_exactly_what_the_package_imports():
    imported = _imported_distributions()
    runtime = _declared("runtime")
    extras = _declared("sentiment", "distributed")
    assert imported <= runtime | extras, f"imported but not declared: {sorted(imported - runtime - extras)}"
    assert runtime - USED_WITHOUT_IMPORT <= imported, f"declared but never imported: {sorted(runtime - imported)}"
    assert extras <= imported, f"extras never imported: {sorted(extras - imported)}"


def test_constraints_pin_every_declared_dependency():
    pins = {}
    for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not an exact pin"
            pins[_normal(name)] = version
    declared = _declared("runtime", "sentiment", "distributed", "dev")
    assert declared <= pins.keys(), f"not pinned: {sorted(declared - pins.keys())}"
    for requirement in PYPROJECT["project"]["dependencies"]:
        parsed = Requirement(requirement)
        assert parsed.specifier.contains(pins[_normal(parsed.name)]), f"{requirement} excludes its pin"


def test_every_report_records_the_versions_of_every_declared_dependency():
    declared = _declared("runtime", "sentiment", "distributed")
    assert declared <= {_normal(name) for name in MATH_DEPENDENCIES}
    versions = dependency_versions()
    assert versions["python"] == ".".join(map(str, sys.version_info[:3]))
    for name in MATH_DEPENDENCIES:
        try:
            expected = metadata.version(name)
        except metadata.PackageNotFoundError:
            expected = "not installed"
        assert versions[name] == expected
    assert "torch" in versions
