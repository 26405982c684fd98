"""``hardmax-verify certcheck``: exit statuses, the one-line bad-input message, --json OUT."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from verify.claims import check_configuration
from verify.cli import main
from verify.config import parse_configuration

TIE = {"tokens": [["1", "0"], ["0", "1"], ["1/2", "1/2"], ["-1/4", "1/8"]], "alpha": "1/2"}


def _claims(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    report = json.loads(json.dumps(check_configuration(parse_configuration(TIE), cross_check=False).to_json_dict()))
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(report))
    return path, report


def test_verified_report_exits_0_and_writes_json(tmp_path: Path) -> None:
    path, _ = _claims(tmp_path)
    out = tmp_path / "check.json"
    assert main(["certcheck", str(path), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["exit_status"] == 0 and data["counts"]["T4"]["verified"] == 1


def test_tampered_report_exits_1(tmp_path: Path, capsys: Any) -> None:
    path, report = _claims(tmp_path)
    report["verdicts"]["T0"]["certificate"]["leaders"] = [0]
    path.write_text(json.dumps(report))
    assert main(["certcheck", str(path)]) == 1
    assert "T0 rejected" in capsys.readouterr().out


def test_bad_input_exits_2_with_one_line(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"format": "hardmax-verify/claims-v0"}')
    assert main(["certcheck", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "neither a claims report" in err
    assert main(["certcheck", str(tmp_path / "missing.json")]) == 2
