"""At 80 columns (a pipe, a log, a narrow terminal) the summary tables keep every identifier whole.

Rich wraps a cell that does not fit and cuts a name it cannot wrap ("inconclu…", "(section…",
"wrong_normalisati" / "on"). The tables of ``selftest`` and ``certcheck`` name variants, claims,
statuses and configurations that a reader greps for and pastes: each must appear whole on one
line, and no line may be wider than the terminal.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from verify import certcheck as checker
from verify.app.cli import main
from verify.app.commands.selftest import render
from verify.app.selftest.mutants import EXACT_MUTANTS, FLOAT_MUTANTS
from verify.app.selftest.runner import Detection, SelfTestResult, VariantResult
from verify.core.worked import WORKED_CONFIGURATIONS

WIDTH = 80


def _whole_on_a_line(text: str, names: list[str]) -> list[str]:
    lines = text.splitlines()
    return [name for name in names if not any(name in line for line in lines)]


def _selftest_result() -> SelfTestResult:
    """Every real variant name, with a detection as long as the real ones (a configuration named by its seed)."""
    detail = "decided run: token 3 is 2.12e-161 from exact at layer 5, stated bound 2.41e-175"
    variants = [VariantResult(m.name, m.description, arithmetic,
                              [Detection("claim:T2", "float stress tiny_tokens (sphere_ties-seed2852725662-n4-d2)", detail),
                               Detection("property:T3", "non_leader_clusters", "layer 0, token 4: C = [2], expected [2, 3]")])
                for arithmetic, mutants in (("exact", EXACT_MUTANTS), ("float", FLOAT_MUTANTS)) for m in mutants]
    baseline = [VariantResult("exact_layers (reference)", "the real exact engine", "exact"),
                VariantResult("simulate_batch (reference)", "the real float engine", "float")]
    return SelfTestResult("ci", baseline, variants)


def test_the_selftest_table_keeps_names_whole_at_80_columns() -> None:
    out = io.StringIO()
    result = _selftest_result()
    render(result, Console(file=out, width=WIDTH))
    text = out.getvalue()
    names = [v.name for v in result.variants + result.baseline] + ["sphere_ties-seed2852725662-n4-d2"]
    assert _whole_on_a_line(text, names) == [], text
    table = text.split("first detection")[0]
    assert max(len(line) for line in table.splitlines()) <= WIDTH


def _claims_file(tmp_path: Path) -> Path:
    config = tmp_path / "config.json"
    config.write_text(json.dumps(WORKED_CONFIGURATIONS["triangle"].to_json_dict()))
    claims = tmp_path / "claims.json"
    assert main(["check", str(config), "--no-cross-check", "--json", str(claims)]) == 0
    return claims


def test_the_certcheck_table_keeps_claims_and_statuses_whole_at_80_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    claims = _claims_file(tmp_path)
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    assert main(["certcheck", str(claims)]) == 0
    text = capsys.readouterr().out
    headers = list(checker.OUTCOME_STATUSES)
    assert _whole_on_a_line(text, headers + ["replay", "T0", "T4"]) == [], text
    assert max(len(line) for line in text.splitlines()) <= WIDTH
    assert "…" not in text


def test_the_check_catches_a_cut_name() -> None:
    """The helper is not vacuous: a name broken over two lines is found missing."""
    assert _whole_on_a_line("wrong_normalisati\non", ["wrong_normalisation"]) == ["wrong_normalisation"]
