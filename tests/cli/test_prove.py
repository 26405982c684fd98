"""``hardmax-verify prove``: exit statuses 1/2/3/4, the table, --json, --write-coq checked by hand."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

from verify.app.cli import main
from verify.formal import kernel, library
from verify.core.worked import WORKED_CONFIGURATIONS


def _write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_configuration_is_checked_then_kernel_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _write(tmp_path / "c.json", WORKED_CONFIGURATIONS["emerging_leader"].to_json_dict())
    out = tmp_path / "prove.json"
    assert main(["prove", str(config), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.splitlines()[0] == "c.json: kernel-checked"
    assert library.statement_sha256() in printed and "the certificates (D7 fates, D9 paths, D11 similarities) of 1 configuration checked" in printed
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["format"] == "hardmax-verify/prove-v1" and record["statement_sha256"] == library.statement_sha256()
    claims = record["records"][0]["claims"]
    assert all(o["status"] == "kernel-checked" for o in claims.values()) and len(claims) == 9
    assert "polytope_sound" in claims["T2"]["reason"]


@pytest.mark.slow  # the kernel evaluates 47 layers of long numbers: about half a minute
def test_a_d9_path_is_kernel_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A configuration that D7 does not settle and a D9 closed-form chain does (jumping from layer 5 to 47)."""
    config = _write(tmp_path / "late.json", {  # verify.core.families.generate("close_pairs", 10000, n=6, d=2)
        "tokens": [["0", "-1/4"], ["-1/8", "1/4"], ["1/8", "1/2"], ["-1/4000000000", "-1000000003/4000000000"],
                   ["1/2000000000", "-1000000007/4000000000"], ["125000001/1000000000", "1999999999/4000000000"]],
        "alpha": "1/2"})
    assert main(["prove", str(config), "--json", str(tmp_path / "p.json")]) == 0
    claims = json.loads((tmp_path / "p.json").read_text(encoding="utf-8"))["records"][0]["claims"]
    assert all(o["status"] == "kernel-checked" for o in claims.values()) and "paths_sound" in claims["T1"]["reason"]


def test_a_wrong_claims_report_exits_1_naming_the_token(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _write(tmp_path / "c.json", WORKED_CONFIGURATIONS["emerging_leader"].to_json_dict())
    report = tmp_path / "report.json"
    assert main(["check", str(config), "--json", str(report), "--no-cross-check"]) == 0
    data = json.loads(report.read_text(encoding="utf-8"))
    wrong = copy.deepcopy(data)
    next(f for f in wrong["fates"] if f["token"] == 3)["set"] = [2]   # token 3 locks onto 0, not 2
    capsys.readouterr()
    assert main(["prove", str(_write(tmp_path / "wrong.json", wrong)), "--json", "-"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["status"] == "rejected"
    assert "T1 rejected: rejected by the kernel: token 3 at layer 0" in captured.err


def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", str(_write(tmp_path / "x.json", {"neither": 1}))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "x.json" in err[0] and "claims report" in err[0]
    assert main(["prove", str(_write(tmp_path / "t.json", {"tokens": [[0, 0]], "alpha": "1"}))]) == 2


def test_without_coqc_exit_4_naming_setup(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARDMAX_VERIFY_COQC", str(tmp_path / "no-coqc"))
    library._version_of.cache_clear()
    try:
        config = _write(tmp_path / "c.json", WORKED_CONFIGURATIONS["square"].to_json_dict())
        assert main(["prove", str(config)]) == 4
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "scripts/setup.sh" in err[0]
    finally:
        library._version_of.cache_clear()


def test_written_proofs_check_by_hand(tmp_path: Path) -> None:
    config = _write(tmp_path / "c.json", WORKED_CONFIGURATIONS["non_leader_clusters"].to_json_dict())
    assert main(["prove", str(config), "--write-coq", str(tmp_path / "proofs")]) == 0
    files = sorted((tmp_path / "proofs").glob("*.v"))
    assert len(files) == 1
    done = subprocess.run([library.coqc_path(), "-q", "-Q", str(library.built_library()), library.LIBRARY, files[0].name],
                          cwd=files[0].parent, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # Print Assumptions lists Coq's primitive integers (the fast replay) and nothing else.
    assert kernel.assumptions_accepted(done.stdout) and "(1%Z, 1%Z)" in done.stdout


def test_a_results_json(small_report: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", str(small_report / "results.json"), "--jobs", "2", "--json", "-"]) in (0, 3)
    record = json.loads(capsys.readouterr().out)
    results = json.loads((small_report / "results.json").read_text(encoding="utf-8"))
    assert len(record["records"]) == len(results["examples"])
    # The report's own kernel pass says the same.
    assert record["counts"] == results["kernel"]["claims"]
