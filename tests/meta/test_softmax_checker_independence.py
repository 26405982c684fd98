"""The softmax checker (verify/_checker_softmax.py) is independent of the engine it checks: its AST
imports only the standard library, and run alone in a fresh interpreter where the package and every
third-party module are unimportable it verifies a certificate and rejects a tampered one."""

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

CHECKER = Path(verify.__file__).parent / "_checker_softmax.py"

DRIVER = r"""
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


def test_checker_imports_only_the_standard_library():
    for node in ast.walk(ast.parse(CHECKER.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "a relative import"
            names = [node.module or ""]
        else:
            continue
        for name in names:
            assert name.partition(".")[0] in sys.stdlib_module_names, name


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
    alone = tmp_path / "checker.py"
    alone.write_text(CHECKER.read_text())
    run = [sys.executable, "-I", "-c", DRIVER, str(alone)]
    verified = subprocess.run(run + [str(good)], capture_output=True, text=True, timeout=120)
    assert verified.returncode == 0, verified.stderr
    rejected = subprocess.run(run + [str(bad)], capture_output=True, text=True, timeout=120)
    assert rejected.returncode == 1 and "rejected" in rejected.stdout
