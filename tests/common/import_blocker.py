"""Run a checker alone, with the package and every third-party module unimportable.

The independent checkers (``verify/certcheck.py``, ``verify/_checker_softmax.py``,
``verify/_checker_control.py``, the classification checker and oracle) may import only the
standard library. The independence tests show it two ways, both with the helpers here:

* :func:`imports_of` and :func:`outside_standard_library` read every import statement of the
  source (at any depth of the AST: function-local imports included);
* :func:`run_alone` copies the source into a folder of its own and runs it as a script in a
  fresh interpreter (``-I -S``: no PYTHONPATH, user site, current directory or site-packages)
  under :data:`DRIVER`, which blocks every import outside the standard library and, however the
  script ends, prints ``OUTSIDE [...]`` on standard error: the modules it loaded that are not
  part of the standard library (``OUTSIDE []`` when independent).

Only a fresh interpreter can show this: the test process has the package and numpy loaded.
"""

from __future__ import annotations

import ast
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


def blocked(result: subprocess.CompletedProcess[str]) -> bool:
    """True when the script died of an import the driver blocked (the package's or a third party's)."""
    return result.returncode != 0 and ("blocked non-stdlib import" in result.stderr
                                       or "ModuleNotFoundError" in result.stderr)
