"""`hardmax-verify softmax`: exit 0 when the bound holds through K, 3 when it stops earlier (and why), 2 for
bad input in one line; the --json record re-verifies with `certcheck` and a tampered one is rejected."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from verify.app.cli import main

HOLDS = {"tokens": [[1, 0], [0, 1], ["1/2", "1/3"]], "alpha": "1/2"}
TIE = {"tokens": [[1, 0], [0, 1], ["1/2", "1/2"]], "alpha": "1/2"}
DUPLICATES = {"tokens": [[1, 0], [0, 1], ["1/2", "1/3"], ["1/2", "1/3"]], "alpha": "1/2"}


def write(tmp_path, data, name="config.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_bound_holds_exit_0_and_json_reverifies(tmp_path, capsys):
    out = tmp_path / "softmax.json"
    assert main(["softmax", str(write(tmp_path, HOLDS)), "--beta", "200", "--layers", "5", "--json", str(out)]) == 0
    summary = capsys.readouterr().out
    assert "certified" in summary and "eps_k" in summary
    data = json.loads(out.read_text())
    certificate = data["softmax_certificate"]
    assert data["status"] == "certified" and certificate["holds"] is True and len(certificate["records"]) == 6
    assert "outside_hypotheses" not in data
    assert main(["certcheck", str(out)]) == 0
    assert "verified" in capsys.readouterr().out


def test_tampered_bound_is_rejected_by_certcheck(tmp_path, capsys):
    out = tmp_path / "softmax.json"
    assert main(["softmax", str(write(tmp_path, HOLDS)), "--beta", "200", "--layers", "5", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    record = data["softmax_certificate"]["records"][3]
    record["bound"] = str(Fraction(record["bound"]) / 2)
    out.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["certcheck", str(out)]) == 1
    assert "rejected" in capsys.readouterr().out


def test_a_tie_stops_with_exit_3_naming_the_layer(tmp_path, capsys):
    assert main(["softmax", str(write(tmp_path, TIE)), "--beta", "200", "--layers", "4", "--json", "-"]) == 3
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["status"] == "inconclusive"
    assert data["softmax_certificate"]["stop"]["layer"] == 0 and data["softmax_certificate"]["stop"]["reason"] == "tie"
    assert "stops at layer 0" in captured.err


def test_duplicates_need_outside_hypotheses_and_are_recorded(tmp_path, capsys):
    path = write(tmp_path, DUPLICATES)
    assert main(["softmax", str(path), "--beta", "200", "--layers", "3"]) == 2
    assert "outside the theorem's hypotheses" in capsys.readouterr().err
    assert main(["softmax", str(path), "--beta", "200", "--layers", "3", "--outside-hypotheses", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["outside_hypotheses"] is True and data["config"]["outside_hypotheses"] is True


def test_beta_from_the_file(tmp_path, capsys):
    assert main(["softmax", str(write(tmp_path, {**HOLDS, "beta": "200"})), "--layers", "2", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["softmax_certificate"]["beta"] == "200"


@pytest.mark.parametrize("arguments, field", [
    (["--beta", "0", "--layers", "3"], "--beta"),
    (["--beta", "-2", "--layers", "3"], "--beta"),
    (["--beta", "abc", "--layers", "3"], "--beta"),
    (["--layers", "3"], "--beta"),
    (["--beta", "10", "--layers", "100000"], "--layers"),
    (["--beta", "10", "--layers", "-1"], "--layers"),
])
def test_bad_input_is_one_line_naming_the_field(tmp_path, capsys, arguments, field):
    assert main(["softmax", str(write(tmp_path, HOLDS)), *arguments]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and field in err


def test_value_matrix_is_refused(tmp_path, capsys):
    data = {**HOLDS, "V": [["1", "0"], ["0", "1"]], "outside_hypotheses": True}
    assert main(["softmax", str(write(tmp_path, data)), "--beta", "10", "--layers", "2"]) == 2
    assert "V" in capsys.readouterr().err
