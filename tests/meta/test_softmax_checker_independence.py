"""The softmax checker (verify/certcheck/softmax/) is independent of the engine it checks: its AST
imports only the standard library and the checker package's own modules (the JSON reader, the
number readers, the work units and the meter), and run from the checker's folder copied on its
own, in a fresh interpreter where ``verify`` and every third-party module are unimportable, it
verifies a certificate and rejects a tampered one, alone (``python -m certcheck.softmax``) and
through the checker's dispatcher (``python -m certcheck``)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import verify
from verify.app.commands.softmax import certificate_record
from verify.core.config import parse_configuration
from verify.core.softmax_bound import softmax_certificate
from tests.common.import_blocker import imports_of, outside_the_package, run_package_alone

PACKAGE = Path(verify.__file__).parent / "certcheck"
CHECKER = PACKAGE / "softmax" / "__init__.py"


def test_checker_imports_only_the_standard_library_and_the_checker_package():
    imports = imports_of(CHECKER.read_text())
    assert ("json", 0) in imports
    assert outside_the_package("certcheck.softmax", True, imports) == []
    # From the package: the JSON reader and the kernel's interface (numbers, work units, the schema language).
    assert {name for name, level in imports if level} == {"jsontext", "kernel"}


def test_the_import_check_would_see_an_engine_import():
    found = outside_the_package("certcheck.softmax", True, imports_of(
        "from verify.core import softmax_bound\nimport numpy\nfrom ... import numbers\nfrom ..numbers import _bits"))
    assert found == [("verify.core", 0), ("numpy", 0), ("", 3)]


def _record(tmp_path: Path) -> tuple[Path, Path]:
    config = parse_configuration({"tokens": [[1, 0], [0, 1], ["1/2", "1/3"]], "alpha": "1/2"})
    data = certificate_record(config, softmax_certificate(config.tokens, alpha=config.alpha, beta=100, layers=4))
    good = tmp_path / "good.json"
    good.write_text(json.dumps(data))
    record = data["softmax_certificate"]["records"][2]
    record["bound"] = str(Fraction(record["bound"]) / 2)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    return good, bad


def test_checker_runs_alone(tmp_path):
    good, bad = _record(tmp_path)
    verified = run_package_alone(PACKAGE, str(good), cwd=tmp_path, name="certcheck", module="softmax")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "softmax certificate verified" in verified.stdout and "OUTSIDE []" in verified.stderr
    assert "RuntimeWarning" not in verified.stderr  # run as its package's __main__, never imported twice
    own = verified.stderr.partition("OWN ")[2]
    assert "'certcheck.softmax'" in own and "'certcheck.jsontext'" in own  # loaded from the copy
    rejected = run_package_alone(PACKAGE, str(bad), cwd=tmp_path, name="certcheck", module="softmax")
    assert rejected.returncode == 1 and "rejected" in rejected.stdout, rejected.stdout + rejected.stderr


def test_a_lone_certcheck_dispatches_a_softmax_record(tmp_path):
    """The checker's folder on its own: its dispatcher hands a softmax record to the softmax checker."""
    good, bad = _record(tmp_path)
    completed = run_package_alone(PACKAGE, str(good), cwd=tmp_path, name="certcheck")
    assert completed.returncode == 0 and "OUTSIDE []" in completed.stderr, completed.stdout + completed.stderr
    assert "softmax certificate verified" in completed.stdout
    completed = run_package_alone(PACKAGE, str(bad), cwd=tmp_path, name="certcheck")
    assert completed.returncode == 1, completed.stdout + completed.stderr
