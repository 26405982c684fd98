"""The softmax checker (verify/_checker_softmax.py) is independent of the engine it checks: its AST
imports only the standard library and the other standard-library checkers (verify/certcheck.py,
for its work units and meter), and run in a fresh interpreter where the package holds nothing but
those checkers and every third-party module is unimportable, it verifies a certificate and
rejects a tampered one."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import verify
from verify.app.commands.softmax import certificate_record
from verify.core.config import parse_configuration
from verify.core.softmax_bound import softmax_certificate

PACKAGE = Path(verify.__file__).parent
CHECKER = PACKAGE / "_checker_softmax.py"
# The standard-library checkers: the only modules of the package the softmax checker may load.
CHECKERS = ("certcheck.py", "_checker_softmax.py", "_checker_control.py")

DRIVER = r"""
import runpy, sys
lone = sys.argv[1]
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] not in sys.stdlib_module_names and name.partition(".")[0] != "verify":
            raise ImportError(f"blocked non-stdlib import {name!r}")
        return None
sys.meta_path.insert(0, Block())
sys.path.insert(0, lone)
before = set(sys.modules)
sys.argv = [sys.argv[0]] + sys.argv[2:]
try:
    runpy.run_module("verify._checker_softmax", run_name="__main__", alter_sys=True)
except SystemExit:
    loaded = sorted(m for m in set(sys.modules) - before if m.partition(".")[0] not in sys.stdlib_module_names)
    print("LOADED", loaded, [getattr(sys.modules[m], "__file__", "") for m in loaded], file=sys.stderr)
    raise
"""


def _imports(source: str) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "a relative import"
            names.append(node.module or "")
            if node.module == "verify":
                names += [f"verify.{alias.name}" for alias in node.names]
    return names


def test_checker_imports_only_the_standard_library():
    names = _imports(CHECKER.read_text())
    assert "json" in names
    allowed = {"verify", "verify.certcheck"}
    for name in names:
        assert name.partition(".")[0] in sys.stdlib_module_names or name in allowed, name
    # The claims checker it borrows its meter from is itself standard library only.
    for name in _imports((PACKAGE / "certcheck.py").read_text()):
        assert name.partition(".")[0] in sys.stdlib_module_names or name.startswith("verify._checker_"), name


def test_the_import_check_would_see_an_engine_import():
    names = _imports("from verify.core import softmax_bound\nimport numpy\nfrom verify import numbers")
    assert [n for n in names if n.partition(".")[0] not in sys.stdlib_module_names
            and n not in {"verify", "verify.certcheck"}] == ["verify.core", "numpy", "verify.numbers"]


def test_checker_runs_alone(tmp_path):
    config = parse_configuration({"tokens": [[1, 0], [0, 1], ["1/2", "1/3"]], "alpha": "1/2"})
    certificate = softmax_certificate(config.tokens, alpha=config.alpha, beta=100, layers=4)
    data = certificate_record(config, certificate)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(data))
    record = data["softmax_certificate"]["records"][2]
    record["bound"] = str(Fraction(record["bound"]) / 2)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    lone = tmp_path / "lone"
    (lone / "verify").mkdir(parents=True)
    (lone / "verify" / "__init__.py").write_text("")
    for name in CHECKERS:
        (lone / "verify" / name).write_text((PACKAGE / name).read_text())
    # -I: no PYTHONPATH, user site or current folder; -S: no site-packages (the installed package).
    run = [sys.executable, "-I", "-S", "-c", DRIVER, str(lone)]
    verified = subprocess.run(run + [str(good)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert verified.returncode == 0, verified.stderr
    loaded = verified.stderr.partition("LOADED ")[2]
    assert loaded.startswith("['verify', 'verify.certcheck'] "), loaded  # the checker itself runs as __main__
    assert str(lone) in loaded and str(PACKAGE) not in loaded
    rejected = subprocess.run(run + [str(bad)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert rejected.returncode == 1 and "rejected" in rejected.stdout


def test_a_lone_certcheck_runs_the_softmax_checker_beside_it(tmp_path):
    """certcheck.py and _checker_softmax.py as two lone files (no package at all): the dispatcher runs the softmax
    checker by path, and that one takes the work units from the certcheck.py beside it."""
    config = parse_configuration({"tokens": [[1, 0], [0, 1], ["1/2", "1/3"]], "alpha": "1/2"})
    data = certificate_record(config, softmax_certificate(config.tokens, alpha=config.alpha, beta=100, layers=4))
    record = tmp_path / "record.json"
    record.write_text(json.dumps(data))
    lone = tmp_path / "lone"
    lone.mkdir()
    for name in CHECKERS:
        (lone / name).write_text((PACKAGE / name).read_text())
    driver = r"""
import runpy, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] not in sys.stdlib_module_names:
            raise ImportError(f"blocked non-stdlib import {name!r}")
        return None
sys.meta_path.insert(0, Block())
sys.modules["verify"] = None
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
    run = [sys.executable, "-I", "-S", "-c", driver, str(lone / "certcheck.py"), str(record)]
    completed = subprocess.run(run, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    data["softmax_certificate"]["records"][2]["bound"] = "0"
    record.write_text(json.dumps(data))
    completed = subprocess.run(run, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert completed.returncode == 1, completed.stdout + completed.stderr
