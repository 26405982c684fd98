"""Run a checker alone, with the package and every third-party module unimportable.

The independent checkers (the package ``verify/certcheck/``, the classification checker and
oracle) may import only the standard library (and, for the checker package, its own modules). The
independence tests show it two ways, both with the helpers here:

* :func:`imports_of` and :func:`outside_standard_library` read every import statement of the
  source (at any depth of the AST: function-local imports included); for a package,
  :func:`outside_the_package` lets through the relative imports that stay inside it;
* :func:`run_alone` copies the source into a folder of its own and runs it as a script in a
  fresh interpreter (``-I -S``: no PYTHONPATH, user site, current directory or site-packages)
  under :data:`DRIVER`, which blocks every import outside the standard library and, however the
  script ends, prints ``OUTSIDE [...]`` on standard error: the modules it loaded that are not
  part of the standard library (``OUTSIDE []`` when independent). :func:`run_package_alone`
  does the same for a package folder, copied under a name of its own and run as
  ``python -m NAME[.MODULE]`` under :data:`PACKAGE_DRIVER` (its own modules are then the only
  ones allowed besides the standard library, and are not listed).

Only a fresh interpreter can show this: the test process has the package and numpy loaded.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

# Run as ``python -I -S -c DRIVER SCRIPT ARGS...``: SCRIPT runs as __main__ with argv [SCRIPT, ARGS...].
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
finally:
    outside = sorted(m for m in set(sys.modules) - before if m.partition(".")[0] not in sys.stdlib_module_names)
    print("OUTSIDE", outside, file=sys.stderr)
"""

# Run as ``python -I -S -c PACKAGE_DRIVER FOLDER NAME MODULE ARGS...``: the package NAME, a folder of FOLDER,
# runs its MODULE as __main__ with argv [MODULE, ARGS...]; nothing but the standard library and NAME imports.
PACKAGE_DRIVER = r"""
import runpy, sys
folder, name, module = sys.argv[1:4]
class Block:
    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top not in sys.stdlib_module_names and top != name:
            raise ImportError(f"blocked non-stdlib import {fullname!r}")
        return None
sys.meta_path.insert(0, Block())
sys.modules["verify"] = None
sys.path.insert(0, folder)
before = set(sys.modules)
sys.argv = [module] + sys.argv[4:]
try:
    runpy.run_module(module, run_name="__main__", alter_sys=True)
finally:
    loaded = set(sys.modules) - before
    outside = sorted(m for m in loaded if m.partition(".")[0] not in sys.stdlib_module_names and m.partition(".")[0] != name)
    print("OUTSIDE", outside, file=sys.stderr)
    print("OWN", sorted(m for m in loaded if m.partition(".")[0] == name), file=sys.stderr)
"""

# A script that would break independence, for the tests that show the blocker really blocks.
PACKAGE_IMPORT = "import verify.core.numbers\n"
THIRD_PARTY_IMPORT = "import numpy\n"


def imports_of(source: str) -> list[tuple[str, int]]:
    """(module, level) of every import statement of ``source``, at any depth of the AST."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.module or "", node.level))
    return found


def outside_standard_library(imports: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The imports that are relative, from the package, or of a module outside the standard library."""
    return [(name, level) for name, level in imports
            if level > 0 or name.partition(".")[0] not in sys.stdlib_module_names or name.startswith("verify")]


def outside_the_package(module: str, is_package: bool, imports: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The imports of ``module`` (a dotted name inside a package, its first part the package) that leave the package:
    a relative import climbing above the package's folder, and any absolute import outside the standard library."""
    found = []
    for name, level in imports:
        if level == 0:
            if name.partition(".")[0] not in sys.stdlib_module_names or name.startswith("verify"):
                found.append((name, level))
            continue
        base = module.split(".") if is_package else module.split(".")[:-1]
        if level - 1 >= len(base):  # from .. of the package's own folder, or above it
            found.append((name, level))
    return found


def dynamic_import_words(source: str) -> list[str]:
    """The words in ``source`` that could import a module the AST does not show."""
    return [word for word in ("__import__", "importlib", "exec(") if word in source]


def run_alone(source: str, *args: str, cwd: Path, name: str = "checker.py",
              timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``source`` as a lone script ``cwd/lone/NAME ARGS...`` under :data:`DRIVER`; arguments are relative to ``cwd``."""
    lone = Path(cwd) / "lone"
    lone.mkdir(parents=True, exist_ok=True)
    script = lone / name
    script.write_text(source, encoding="utf-8")
    return subprocess.run([sys.executable, "-I", "-S", "-c", DRIVER, str(script), *args],
                          capture_output=True, text=True, cwd=cwd, timeout=timeout)


def run_package_alone(folder: Path, *args: str, cwd: Path, name: str, module: str | None = None,
                      timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Copy the package ``folder`` to ``cwd/lone/NAME`` and run ``python -m MODULE ARGS...`` (MODULE: NAME, or
    NAME.module) there under :data:`PACKAGE_DRIVER`; arguments are relative to ``cwd``."""
    lone = Path(cwd) / "lone"
    target = lone / name
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(folder, target, ignore=shutil.ignore_patterns("__pycache__"))
    return subprocess.run([sys.executable, "-I", "-S", "-c", PACKAGE_DRIVER, str(lone), name,
                           name if module is None else f"{name}.{module}", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=timeout)


def blocked(result: subprocess.CompletedProcess[str]) -> bool:
    """True when the script died of an import the driver blocked (the package's or a third party's)."""
    return result.returncode != 0 and ("blocked non-stdlib import" in result.stderr
                                       or "ModuleNotFoundError" in result.stderr)
