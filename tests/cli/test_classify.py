"""``hardmax-verify classify build | check``: exit statuses 0/1/2/4, messages, files, --json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verify.app.cli import main

FOUR = {"sequences": [[0, 1], [0, "1/2", "1/2", 1], [2, 3], [2, "5/2", "5/2", 3]], "labels": [0, 1, 0, 1]}


def _write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("cap", [[], ["--width-cap", "4"]])
def test_build_then_check_exit_0(cap: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _write(tmp_path / "data.json", FOUR)
    net = tmp_path / "net.json"
    assert main(["classify", "build", str(data), "--out", str(net), "--quiet", *cap]) == 0
    assert "every sequence classified exactly" in capsys.readouterr().out
    assert main(["classify", "check", str(net), str(data), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("all 4 sequences classified exactly as their labels")


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    data = _write(tmp_path / "data.json", FOUR)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["classify", "build", str(data), "--out", str(a), "--seed", "3", "--quiet"]) == 0
    assert main(["classify", "build", str(data), "--out", str(b), "--seed", "3", "--quiet"]) == 0
    assert a.read_bytes() == b.read_bytes()


def test_misclassified_sequence_exits_1_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _write(tmp_path / "data.json", FOUR)
    net = tmp_path / "net.json"
    assert main(["classify", "build", str(data), "--out", str(net), "--quiet"]) == 0
    network = json.loads(net.read_text())
    network["blocks"][-1]["feedforward"]["b"][-1] = "-1/7"   # one parameter changed
    _write(net, network)
    capsys.readouterr()
    assert main(["classify", "check", str(net), str(data), "--quiet"]) == 1
    assert "misclassified" in capsys.readouterr().out


def test_inseparable_dataset_exits_2_naming_the_pair(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _write(tmp_path / "data.json", {"sequences": [[["1", "0"]], [["1", "0"], ["0", "1"]],
                                                         [["1", "0"], ["1", "0"], ["0", "1"], ["0", "1"]]],
                                           "labels": [0, 0, 1]})
    net = tmp_path / "net.json"
    assert main(["classify", "build", str(data), "--out", str(net), "--quiet"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("error: sequences[1], sequences[2]: equal empirical distributions")
    assert "\n" not in error and not net.exists()


@pytest.mark.parametrize("data, field", [
    ({"sequences": [[0, 1]], "labels": [0, 1]}, "labels"),
    ({"sequences": [[[0, 1], [2]]], "labels": [0]}, "sequences[0][1]"),
])
def test_bad_data_exits_2_naming_the_field(data: dict, field: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path / "data.json", data)
    assert main(["classify", "build", str(path), "--out", str(tmp_path / "n.json"), "--quiet"]) == 2
    assert capsys.readouterr().err.startswith(f"error: {field}:")


def test_bad_network_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _write(tmp_path / "data.json", FOUR)
    net = _write(tmp_path / "net.json", {"format": "hardmax-verify/classify-network", "version": 1, "d": 1,
                                         "blocks": [{"feedforward": {"U": [["1"]], "b": ["x"], "W": [["1"]]},
                                                     "attention": None}]})
    assert main(["classify", "check", str(net), str(data), "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("error: blocks[0].feedforward.b[0]:")
    (tmp_path / "broken.json").write_text("{")
    assert main(["classify", "check", str(tmp_path / "broken.json"), str(data), "--quiet"]) == 2


def test_unwritable_output_exits_4_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _write(tmp_path / "data.json", FOUR)
    (tmp_path / "file").write_text("")
    assert main(["classify", "build", str(data), "--out", str(tmp_path / "file" / "net.json"), "--quiet"]) == 4
    error = capsys.readouterr().err.strip()
    assert error.startswith("error: could not complete:") and "\n" not in error


def test_json_to_standard_output_and_to_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _write(tmp_path / "data.json", FOUR)
    net = tmp_path / "net.json"
    assert main(["classify", "build", str(data), "--out", str(net), "--quiet", "--json"]) == 0
    captured = capsys.readouterr()
    record = json.loads(captured.out)
    assert record["status"] == "certified" and record["thresholds"] >= 2 and record["blocks"]["total"] == 3
    assert "every sequence classified exactly" in captured.err
    report = tmp_path / "check.json"
    assert main(["classify", "check", str(net), str(data), "--quiet", f"--json={report}"]) == 0
    checked = json.loads(report.read_text())
    assert checked["status"] == "certified" and checked["correct"] == 4 and checked["recorded_outputs_compared"]


def test_piped_progress_is_one_line_per_phase_on_standard_error(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Standard error is not a terminal here: no bar can be drawn, so each phase says it started, once."""
    data = _write(tmp_path / "d.json", FOUR)
    assert main(["classify", "build", str(data), "--out", str(tmp_path / "n.json")]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(line.startswith("hardmax-verify classify build: ") for line in lines)
    assert len(lines) == len(set(lines))
    assert main(["classify", "build", str(data), "--out", str(tmp_path / "n.json"), "--quiet"]) == 0
    assert capsys.readouterr().err == ""
