"""``hardmax-verify control``: exit statuses 0 / 1 / 3 / 2, the design that ``check`` certifies, the result that
``certcheck`` re-verifies, and bad input refused in one line with nothing written (docs/control.md)."""

from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path

import pytest

from verify.core import exitcodes
from verify.app.cli import main
from verify.core.limits import CONTROL_MAX_TOKENS
from verify.core.worked import WORKED_CONFIGURATIONS


@pytest.fixture
def emerging(tmp_path: Path) -> Path:
    path = tmp_path / "emerging.json"
    data = WORKED_CONFIGURATIONS["emerging_leader"].to_json_dict()
    data["A"] = [["2", "0"], ["0", "1"]]  # replaced by control
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_realised_design_is_certified_by_check_and_by_certcheck(emerging: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    designed, result = tmp_path / "designed.json", tmp_path / "result.json"
    status = main(["control", str(emerging), "--leaders", "0,2,5", "--out", str(designed), "--json", str(result)])
    printed = capsys.readouterr().out
    assert status == exitcodes.SUCCESS
    assert "REALISED" in printed and "replaced" in printed and "locks onto 0" in printed
    data = json.loads(result.read_text(encoding="utf-8"))
    assert data["outcome"] == "realised" and data["replaced_A"] == [["2", "0"], ["0", "1"]]
    written = json.loads(designed.read_text(encoding="utf-8"))
    assert written["A"] == data["design"]["A"] and written["tokens"] == data["configuration"]["tokens"]
    report = tmp_path / "claims.json"
    assert main(["check", str(designed), "--no-cross-check", "--json", str(report)]) == exitcodes.SUCCESS
    claims = json.loads(report.read_text(encoding="utf-8"))
    leaders = sorted(f["token"] for f in claims["fates"] if f["kind"] == "leader")
    assert leaders == [0, 2, 5]
    assert all(f["limit"] == data["limits"][f["token"]] for f in claims["fates"])
    assert main(["certcheck", str(result)]) == exitcodes.SUCCESS
    data["design"]["A"][1][1] = str(F(data["design"]["A"][1][1]) / 100)
    result.write_text(json.dumps(data), encoding="utf-8")
    assert main(["certcheck", str(result), "--json", str(tmp_path / "out.json")]) == exitcodes.FALSE
    outcomes = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["outcomes"]
    assert [o["status"] for o in outcomes] == ["rejected"]


def test_impossible_at_layer_0_exits_1_and_says_what_it_does_not_prove(emerging: Path, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    designed, result = tmp_path / "designed.json", tmp_path / "result.json"
    status = main(["control", str(emerging), "--leaders", "0,1,2", "--out", str(designed), "--json", str(result)])
    captured = capsys.readouterr()
    assert status == exitcodes.FALSE
    assert "IMPOSSIBLE at layer 0" in captured.out and "S = 0" in captured.out
    assert "may still emerge as a leader" in captured.out
    assert not designed.exists() and "nothing written" in captured.err
    data = json.loads(result.read_text(encoding="utf-8"))
    assert data["infeasibility"]["step"] == "hull"
    assert main(["certcheck", str(result), "--json", str(tmp_path / "out.json")]) == exitcodes.FALSE
    assert [o["status"] for o in json.loads((tmp_path / "out.json").read_text())["outcomes"]] == ["failed"]
    data["infeasibility"]["weights"][0]["y"] = "1"
    result.write_text(json.dumps(data), encoding="utf-8")
    assert main(["certcheck", str(result), "--json", str(tmp_path / "out.json")]) == exitcodes.FALSE
    assert [o["status"] for o in json.loads((tmp_path / "out.json").read_text())["outcomes"]] == ["rejected"]


def test_requested_targets_are_kept_or_refuted(emerging: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["control", str(emerging), "--leaders", "0,2,5", "--targets", "4:0", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"token": 4, "target": 0} in data["targets"]
    assert main(["control", str(emerging), "--leaders", "0,2,5", "--targets", "7:5"]) == exitcodes.FALSE
    assert "7:5" in capsys.readouterr().out


def test_no_budget_for_the_search_is_inconclusive(emerging: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["control", str(emerging), "--leaders", "0,2,5", "--max-programs", "1"]) == exitcodes.INCONCLUSIVE
    printed = capsys.readouterr().out
    assert "INCONCLUSIVE" in printed and "tried:" in printed and "budget" in printed


def test_every_leader_set_and_its_independent_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"tokens": [[1, 0], [2, 0], [2, 1], [2, -1], [3, 0]], "alpha": 1}))
    result = tmp_path / "sets.json"
    assert main(["control", str(config), "--all-leader-sets", "--json", str(result)]) == exitcodes.SUCCESS
    printed = capsys.readouterr().out
    assert "minimal impossible sets" in printed and "{0}" in printed
    assert main(["certcheck", str(result)]) == exitcodes.SUCCESS


def test_the_json_is_the_same_for_the_same_input(emerging: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path in (a, b):
        assert main(["control", str(emerging), "--leaders", "0,2,4", "--seed", "3", "--json", str(path)]) == 0
    assert a.read_bytes() == b.read_bytes()


def _circle(count: int) -> list[list[str]]:
    ts = [F(k, 3) for k in range(-(count // 2), count - count // 2)]
    return [[str((1 - t * t) / (1 + t * t)), str(2 * t / (1 + t * t))] for t in ts]


@pytest.mark.parametrize("arguments, field", [
    (["--leaders", "0,99"], "--leaders"),
    (["--leaders", "0,2,0"], "--leaders"),
    (["--leaders", ""], "--leaders"),
    (["--leaders", "0,,2"], "--leaders"),
    (["--leaders", "0,x"], "--leaders"),
    (["--leaders", "0,2", "--targets", "0:2"], "--targets"),
    (["--leaders", "0,2", "--targets", "1:3"], "--targets"),
    (["--leaders", "0,2", "--targets", "1:0,1:2"], "--targets"),
    (["--leaders", "0,2", "--targets", "1-0"], "--targets"),
    (["--leaders", "0,2", "--targets", "1:9"], "--targets"),
    ([], "--leaders"),
    (["--leaders", "0", "--all-leader-sets"], "--leaders"),
    (["--all-leader-sets", "--targets", "1:0"], "--targets"),
    (["--leaders", "0", "--max-tries", "100000"], "--max-tries"),
])
def test_bad_requests_are_refused_in_one_line_and_nothing_is_written(
        emerging: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], field: str) -> None:
    out, result = tmp_path / "out.json", tmp_path / "result.json"
    status = main(["control", str(emerging), *arguments, "--out", str(out), "--json", str(result)])
    err = capsys.readouterr().err.strip()
    assert status == exitcodes.BAD_INPUT
    assert len(err.splitlines()) == 1 and field in err, err
    assert not out.exists() and not result.exists()


@pytest.mark.parametrize("data, arguments, field", [
    ({"tokens": [[k, k * k + 1] for k in range(CONTROL_MAX_TOKENS + 1)], "alpha": 1}, ["--leaders", "0"], "tokens"),
    ({"tokens": [[1, 0], [1, 0], [0, 1]], "alpha": 1, "outside_hypotheses": True}, ["--leaders", "0"], "tokens[1]"),
    ({"tokens": [[0, 0], [1, 0], [0, 1]], "alpha": 1, "outside_hypotheses": True}, ["--leaders", "1"], "tokens[0]"),
    ({"tokens": _circle(17), "alpha": 1}, ["--all-leader-sets"], "--all-leader-sets"),
])
def test_inputs_beyond_the_limits_or_the_hypotheses_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 data: dict, arguments: list[str], field: str) -> None:
    config, result = tmp_path / "c.json", tmp_path / "result.json"
    config.write_text(json.dumps(data), encoding="utf-8")
    assert main(["control", str(config), *arguments, "--json", str(result)]) == exitcodes.BAD_INPUT
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and field in err, err
    assert not result.exists()


def test_an_A_that_is_not_positive_definite_is_replaced_not_refused(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"tokens": [[1, 0], [0, 1], [-1, -1]], "alpha": 1, "A": [[1, 2], [2, 1]]}))
    assert main(["control", str(config), "--leaders", "0,1,2"]) == exitcodes.SUCCESS
    assert "replaced" in capsys.readouterr().out
