"""The softmax checker (verify/_checker_softmax.py) is independent of the engine it checks: its AST
imports only the standard library, and run alone in a fresh interpreter where the package and every
third-party module are unimportable it verifies a certificate and rejects a tampered one."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import verify
from verify.app.commands.softmax import certificate_record
from verify.core.config import parse_configuration
from verify.core.softmax_bound import softmax_certificate
from tests.common.import_blocker import PACKAGE_IMPORT, blocked, imports_of, outside_standard_library, run_alone

CHECKER = Path(verify.__file__).parent / "_checker_softmax.py"


def test_checker_imports_only_the_standard_library():
    imports = imports_of(CHECKER.read_text())
    assert imports, "the AST walk found no import at all"
    assert outside_standard_library(imports) == []


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
    verified = run_alone(CHECKER.read_text(), str(good), cwd=tmp_path)
    assert verified.returncode == 0, verified.stderr
    assert "OUTSIDE []" in verified.stderr
    rejected = run_alone(CHECKER.read_text(), str(bad), cwd=tmp_path)
    assert rejected.returncode == 1 and "rejected" in rejected.stdout


def test_the_blocker_really_blocks(tmp_path):
    assert blocked(run_alone(PACKAGE_IMPORT, "x.json", cwd=tmp_path))
