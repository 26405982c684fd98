"""The classification checker and oracle are independent of the construction they check.

verify/certcheck/classify/ may import only the standard library and the checker package it belongs
to (relative imports inside verify/certcheck/), verify/experiments/classify/oracle.py only the
standard library. Shown two ways: their ASTs name no other import, and the checker, its package
copied alone into a fresh interpreter where the project and every third-party module are
unimportable, still certifies a built network, rejects a changed one, and loads nothing outside
the standard library and its package.
"""

from __future__ import annotations

import json
from pathlib import Path


import verify.certcheck.classify as checker_module
import verify.experiments.classify.oracle as oracle_module
from verify.experiments.classify.construction import build_network
from verify.experiments.classify.dataset import dataset_to_json, make_dataset
from tests.common.import_blocker import (THIRD_PARTY_IMPORT, blocked, dynamic_import_words, imports_of,
                                         outside_standard_library, outside_the_package, run_alone, run_package_alone)

PACKAGE = Path(checker_module.__file__).parent.parent  # verify/certcheck/


def test_the_checker_imports_only_the_standard_library_and_its_package() -> None:
    source = Path(checker_module.__file__).read_text()
    imports = imports_of(source)
    assert imports, "the AST walk found no import at all"
    assert outside_the_package("certcheck.classify", True, imports) == []
    assert dynamic_import_words(source) == []


def test_the_oracle_imports_only_the_standard_library() -> None:
    source = Path(oracle_module.__file__).read_text()
    imports = imports_of(source)
    assert imports, "the AST walk found no import at all"
    assert outside_standard_library(imports) == []
    assert dynamic_import_words(source) == []


def test_the_ast_check_would_see_a_package_import() -> None:
    for line in ("from . import network", "from verify.experiments.classify.network import forward", "import numpy",
                 "def f():\n    from .construction import build_network", "import flint"):
        assert outside_standard_library(imports_of(line)) != [], line


def test_checker_runs_with_the_package_unimportable(tmp_path: Path) -> None:
    dataset = make_dataset([[0, 1], [0, "1/2", "1/2", 1], [2, 3], [2, "5/2", "5/2", 3]], [0, 1, 0, 1])
    network = build_network(dataset, width_cap=4).to_json()
    (tmp_path / "data.json").write_text(json.dumps(dataset_to_json(dataset)))
    (tmp_path / "net.json").write_text(json.dumps(network))
    def run(*args: str):
        return run_package_alone(PACKAGE, *args, cwd=tmp_path, name="certcheck", module="classify")

    good = run("net.json", "data.json")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "all 4 sequences classified exactly" in good.stdout
    assert "OUTSIDE []" in good.stderr
    network["blocks"][-1]["feedforward"]["W"][0][0] = "1000"
    (tmp_path / "net.json").write_text(json.dumps(network))
    bad = run("net.json", "data.json")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "misclassified" in bad.stdout
    # Its strict JSON reading is the checker package's: labels stated twice are refused, not read as the last.
    text = json.dumps(dataset_to_json(dataset))
    (tmp_path / "data.json").write_text(text.replace('"labels": ', '"labels": [5, 5, 5, 5], "labels": ', 1))
    twice = run("net.json", "data.json")
    assert twice.returncode == 2 and 'the key "labels" appears twice in one object' in twice.stderr, twice.stderr


def test_the_blocker_really_blocks(tmp_path: Path) -> None:
    result = run_alone("import verify.experiments.classify.network\n", "x", cwd=tmp_path)
    assert blocked(result), result.stderr
    for third_party in ("import flint\n", THIRD_PARTY_IMPORT):
        result = run_alone(third_party, "x", cwd=tmp_path)
        assert blocked(result) and "blocked non-stdlib import" in result.stderr, result.stderr
