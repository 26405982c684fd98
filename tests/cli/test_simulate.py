"""`hardmax-verify simulate`: the example configuration, and every bad input named in one line with exit 2."""

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from verify.app.cli import main
from verify.app.commands import output

EXAMPLE = {"tokens": [["1", "1/3"], ["-1/12", "1/12"], [-1, -1], [0, 0.25]], "alpha": "1/2",
           "A": [["1", "0"], ["0", "1"]]}


def write(tmp_path, data, name="config.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_simulate_writes_exact_trajectory(tmp_path, capsys):
    out = tmp_path / "traj.json"
    assert main(["simulate", str(write(tmp_path, EXAMPLE)), "--layers", "3", "--json", str(out)]) == 0
    captured = capsys.readouterr()
    assert "leaders" in captured.out and f"wrote {out}" in captured.err  # the summary, and where the JSON went
    data = json.loads(out.read_text())
    assert len(data["positions"]) == 4
    assert data["positions"][1][1] == ["-1/18", "5/36"]  # (z + 1/2 * z_3) / (3/2) with C_1 = {3}
    assert data["attention"][0][1] == [3]
    assert {"token": 1, "first_layer": 1} in data["leaders"]
    assert data["config"]["alpha"] == "1/2"


def test_simulate_float_reports_certification(tmp_path, capsys):
    assert main(["simulate", str(write(tmp_path, EXAMPLE)), "--layers", "2", "--arithmetic", "float", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["arithmetic"] == "float" and data["certified"] is True


BAD_INPUTS = [
    ('{"tokens": [[1, 2]', "malformed JSON"),
    ({"tokens": [[1, 2], [3]], "alpha": 1}, "tokens[1]"),
    ({"tokens": [], "alpha": 1}, "tokens"),
    ({"tokens": [[]], "alpha": 1}, "tokens[0]"),
    ('{"tokens": [[1, NaN]], "alpha": 1}', "NaN"),
    ('{"tokens": [[1, Infinity]], "alpha": 1}', "Infinity"),
    ({"tokens": [[1, "one"]], "alpha": 1}, "tokens[0][1]"),
    ({"tokens": [[1, 2]], "alpha": 0}, "alpha"),
    ({"tokens": [[1, 2]], "alpha": "-1/2"}, "alpha"),
    ({"tokens": [[1, 2]]}, "alpha"),
    ({"alpha": 1}, "tokens"),
    ({"tokens": [[1, 2]], "alpha": 1, "A": [[1, 0]]}, "A"),
    ({"tokens": [[1, 2]], "alpha": 1, "A": [[1, 0, 0], [0, 1, 0]]}, "A"),
    ({"tokens": [[1, 2]], "alpha": 1, "A": [[1, 1], [0, 1]]}, "not symmetric"),
    ({"tokens": [[1, 2]], "alpha": 1, "A": [[1, 2], [2, 1]]}, "not positive definite"),
    ({"tokens": [[0, 0], [1, 2]], "alpha": 1}, "origin"),
    ({"tokens": [[1, 2], [1, 2]], "alpha": 1}, "equals tokens[0]"),
    ({"tokens": [[1, 2]], "alpha": 1, "alpah": 2}, "unknown field"),
    ([1, 2], "JSON object"),
]


@pytest.mark.parametrize("data, fragment", BAD_INPUTS)
def test_bad_input_is_one_line_naming_the_field(tmp_path, capsys, data, fragment):
    status = main(["simulate", str(write(tmp_path, data)), "--layers", "1"])
    err = capsys.readouterr().err
    assert status == 2
    assert fragment in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_missing_file_and_bad_options(tmp_path, capsys):
    assert main(["simulate", str(tmp_path / "absent.json")]) == 2
    assert "file not found" in capsys.readouterr().err
    assert main(["simulate", str(write(tmp_path, EXAMPLE)), "--layers", "-1"]) == 2
    assert main(["simulate", str(write(tmp_path, EXAMPLE)), "--arithmetic", "decimal"]) == 2


@pytest.mark.parametrize("data", [
    {"tokens": [[0, 0], [1, 2]], "alpha": 1},
    {"tokens": [[1, 2], [1, 2], [0, 1]], "alpha": 1},
    {"tokens": [[1, 2], [0, 1]], "alpha": 1, "A": [[1, 2], [0, 1]]},
])
def test_outside_hypotheses_by_flag_or_field(tmp_path, capsys, data):
    path = write(tmp_path, data)
    assert main(["simulate", str(path), "--layers", "2"]) == 2
    assert main(["simulate", str(path), "--layers", "2", "--outside-hypotheses"]) == 0
    capsys.readouterr()
    assert main(["simulate", str(write(tmp_path, {**data, "outside_hypotheses": True}, "o.json")), "--layers", "2",
                 "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["config"]["outside_hypotheses"] is True


def test_help_works_for_the_group_and_simulate(capsys):
    assert main(["--help"]) == 0
    assert main(["simulate", "--help"]) == 0
    assert "CONFIG.json" in capsys.readouterr().out


def test_simulate_float_on_a_coordinate_of_1e400_is_refused_naming_it(tmp_path, capsys):
    # float(10**400) raised OverflowError with a traceback; the coordinate is refused, not run.
    path = write(tmp_path, '{"tokens": [[1, 2], [1e400, 1]], "alpha": "1/2"}')
    status = main(["simulate", str(path), "--layers", "1", "--arithmetic", "float"])
    err = capsys.readouterr().err
    assert status == 2
    assert "tokens[1][0]" in err and "float64" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert main(["simulate", str(path), "--layers", "1"]) == 0  # exact arithmetic takes it


def test_simulate_float_overflowing_scores_print_undecided_not_certified(tmp_path, capsys):
    path = write(tmp_path, {"tokens": [[1e200], [2e200]], "alpha": "1/2"})
    out = tmp_path / "traj.json"
    # Nothing false, but not certified: exit status 3, as for every command (the trajectory is written).
    assert main(["simulate", str(path), "--layers", "2", "--arithmetic", "float", "--json", str(out)]) == 3
    printed = capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["certified"] is False and data["first_undecided_layer"] == 0
    assert data["undecided"] == [[0, 1], [0, 1], [0, 1]] and data["leaders"] == []
    assert "NOT certified" in printed and "?" in printed
    decided = write(tmp_path, {"tokens": [[1], [2]], "alpha": "1/2"}, name="decided.json")
    assert main(["simulate", str(decided), "--layers", "2", "--arithmetic", "float"]) == 0


def test_the_default_output_is_a_readable_summary(tmp_path, capsys):
    # Layer 0: C = {0} {3} {2} {0}; from layer 1 on token 1 leads too, and nothing changes again.
    assert main(["simulate", str(write(tmp_path, EXAMPLE)), "--layers", "6"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert len(lines) < 20 and not out.lstrip().startswith("{")
    assert "  layer 0        {0} {3} {2} {0}" in lines
    assert "  layers 1..6    {0} {1} {2} {0}" in lines  # six equal layers folded into one line
    assert "leaders (C_i = {i}): 0 (from layer 0), 1 (from layer 1), 2 (from layer 0)" in lines
    assert any(line.startswith("  token 1") and "(-1/18, 5/36)" in line for line in lines)
    assert lines[-1].startswith("certified: every attention set was decided in exact rational arithmetic")


def test_a_long_exact_coordinate_is_shown_as_a_decimal(tmp_path, capsys):
    assert main(["simulate", str(write(tmp_path, EXAMPLE)), "--layers", "20"]) == 0
    token_3 = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("  token 3"))
    assert "≈" in token_3 and "/" not in token_3  # 3^20 in the denominator: a decimal, exact in --json


def test_json_to_standard_output_is_the_json_alone(tmp_path, capsys):
    assert main(["simulate", str(write(tmp_path, EXAMPLE)), "--layers", "2", "--json", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("{") and json.loads(captured.out)["layers"] == 2
    assert "leaders" in captured.err  # the summary moved to standard error


def test_a_number_beyond_pythons_digit_limit_is_summarised(tmp_path, capsys):
    # alpha = 1e-5000: str() of its denominator is refused by Python; the summary shows it as a decimal.
    path = write(tmp_path, '{"tokens": [["1"], ["-1/2"]], "alpha": "1e-5000"}')
    assert main(["simulate", str(path), "--layers", "1"]) == 0
    assert "alpha = ≈1.00000e-5000" in capsys.readouterr().out


def test_the_readme_float_sentence_a_decided_float_run_is_certified_and_exits_0(capsys):
    """README: a float run is certified (exit 0) when the bound decided every set, as for examples/example.json."""
    example = Path(__file__).resolve().parents[2] / "examples" / "example.json"
    assert main(["simulate", str(example), "--layers", "3", "--arithmetic", "float"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "certified: every float attention set was decided by the proven rounding bound")


def test_piped_progress_is_a_line_once_layer_0_is_done_then_one_every_ten_seconds(tmp_path, capsys, monkeypatch):
    """No terminal, no bar: lines say that the run is working and how far it is, not one line per layer."""
    ticks = iter(range(0, 1000, 4))  # each layer takes 4 s: a line at 0 s, 12 s, 24 s, ... (layers 0, 3, 6, ...)
    monkeypatch.setattr(output, "time", SimpleNamespace(monotonic=lambda: next(ticks)))
    assert main(["simulate", str(write(tmp_path, EXAMPLE)), "--layers", "30"]) == 0
    assert capsys.readouterr().err.splitlines() == [f"hardmax-verify simulate: simulating config.json: layer {k} of 30"
                                                    for k in range(0, 31, 3)]
