"""``hardmax-verify check``: table, exit statuses 0/1/2/3, the JSON report with certificates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verify.app.cli import main
from verify.core.worked import WORKED_CONFIGURATIONS


def _write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(WORKED_CONFIGURATIONS))
def test_worked_configurations_exit_0_with_json(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _write(tmp_path / "c.json", WORKED_CONFIGURATIONS[name].to_json_dict())
    out = tmp_path / "report.json"
    assert main(["check", str(config), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    for cid in ("T0", "T1", "T2", "T3", "T4", "D1", "D2", "D3", "replay"):
        assert cid in printed
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["status"] == "certified" and report["format"] == "hardmax-verify/claims-v1"
    assert all("certificate" in v for v in report["verdicts"].values())


def test_json_is_deterministic(tmp_path: Path) -> None:
    config = _write(tmp_path / "c.json", WORKED_CONFIGURATIONS["non_leader_clusters"].to_json_dict())
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["check", str(config), "--json", str(a), "--no-cross-check"]) == 0
    assert main(["check", str(config), "--json", str(b), "--no-cross-check"]) == 0
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.slow
def test_failed_claim_exits_1_outside_hypotheses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _write(tmp_path / "c.json", {"tokens": [[1, 1], [1, -1], [-1, 1], [-1, -1], [0, 0]], "alpha": "1/2"})
    assert main(["check", str(config)]) == 2  # the origin is outside the hypotheses: refused
    assert "outside" in capsys.readouterr().err
    out = tmp_path / "r.json"
    assert main(["check", str(config), "--outside-hypotheses", "--json", str(out)]) == 1
    report = json.loads(out.read_text(encoding="utf-8"))
    failed = [c for c, v in report["verdicts"].items() if v["status"] == "failed"]
    # The overall verdict comes first, in one line, naming what failed.
    assert capsys.readouterr().out.splitlines()[0].startswith(f"c.json: failed; failed: {', '.join(failed)}")
    assert report["outside_hypotheses"] is True and report["verdicts"]["T3"]["status"] == "failed"
    assert report["verdicts"]["T3"]["evidence"]["outside_hypotheses"] is True


def test_file_flag_for_outside_hypotheses_suffices(tmp_path: Path) -> None:
    config = _write(tmp_path / "c.json", {"tokens": [[1, 1], [1, -1], [-1, 1], [-1, -1], [0, 0]], "alpha": "1/2",
                                          "outside_hypotheses": True})
    assert main(["check", str(config)]) == 1


def test_inconclusive_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A non-symmetric A (outside the theorem): the regular tetrahedron, each vertex in the next one's attention set,
    # so neither D7 nor the closed form (D9, "mutual membership") settles it within the budget; the plane of the
    # rotation and its axis shrink at different rates, so no layer is a similar copy of an earlier one (D11) and T0
    # stays open. x^T A x = -y^2 / 2 only grows as y shrinks, so D2 holds: nothing fails.
    config = _write(tmp_path / "c.json", {"tokens": [[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], "alpha": "1/2",
                                          "A": [[0, 0, 4], [0, "-1/2", 0], [-4, 0, 0]], "outside_hypotheses": True})
    assert main(["check", str(config), "--layer-budget", "6"]) == 3
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("c.json: inconclusive; inconclusive or unchecked: ") and "failed" not in first


def test_a_short_budget_is_no_obstacle_once_the_closed_form_settles(tmp_path: Path) -> None:
    # With 2 layers D7 has not settled every token; at the last layer allowed the closed form (D9) does.
    config = _write(tmp_path / "c.json", {"tokens": [["0", "1/2"], ["9/10", "-1"], ["-7/10", "7/10"], ["9/10", "-1/2"],
                                                     ["-2/5", "4/5"]], "alpha": "1/5"})
    assert main(["check", str(config), "--layer-budget", "2"]) == 0
    assert main(["check", str(config)]) == 0


@pytest.mark.parametrize("content", ["{", '{"tokens": [], "alpha": 1}', '{"tokens": [[1]], "alpha": -1}'])
def test_bad_input_exits_2(tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    assert main(["check", str(path)]) == 2
    assert capsys.readouterr().err.startswith("error:")


def test_missing_file_and_bad_budget_exit_2(tmp_path: Path) -> None:
    assert main(["check", str(tmp_path / "nope.json")]) == 2
    config = _write(tmp_path / "c.json", WORKED_CONFIGURATIONS["triangle"].to_json_dict())
    assert main(["check", str(config), "--layer-budget", "0"]) == 2


def test_softmax_variant_is_refused(tmp_path: Path) -> None:
    config = _write(tmp_path / "c.json", {"tokens": [[1, 0], [0, 1]], "alpha": "1/2", "beta": 10,
                                          "outside_hypotheses": True})
    assert main(["check", str(config)]) == 2


def test_time_budget_stops_the_run_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 7: a run that exceeds its time budget says so; its unsettled claims are inconclusive (exit 3).
    emerging_leader settles only at layer 1, so a budget spent after layer 0 leaves a token unsettled."""
    config = _write(tmp_path / "c.json", WORKED_CONFIGURATIONS["emerging_leader"].to_json_dict())
    out = tmp_path / "report.json"
    assert main(["check", str(config), "--no-cross-check", "--json", str(out)]) == 0  # certified without a budget
    assert json.loads(out.read_text(encoding="utf-8"))["stopped_by"] == "settled"
    capsys.readouterr()
    assert main(["check", str(config), "--no-cross-check", "--time-budget", "1e-9", "--json", str(out)]) == 3
    printed = capsys.readouterr().out
    assert "stopped by the time budget" in " ".join(printed.split())
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["stopped_by"] == "time budget" and report["time_budget"] == 1e-9 and report["last_layer"] == 0
    assert report["verdicts"]["T3"]["status"] == "inconclusive"
    assert "time budget of 1e-09 s spent" in report["verdicts"]["T3"]["summary"]
    assert report["verdicts"]["T3"]["evidence"]["stopped_by"] == "time budget"


@pytest.mark.parametrize("value", ["0", "-1", "nan", "ten"])
def test_bad_time_budget_exits_2(tmp_path: Path, value: str) -> None:
    config = _write(tmp_path / "c.json", WORKED_CONFIGURATIONS["triangle"].to_json_dict())
    assert main(["check", str(config), "--time-budget", value]) == 2


def test_the_table_shows_every_token_fate_and_exact_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Tokens 0 and 2 lead from layer 0, token 1 from layer 1; token 3 is locked on {0}: its limit is z_0.
    config = _write(tmp_path / "c.json", {"tokens": [["1", "1/3"], ["-1/12", "1/12"], [-1, -1], [0, "1/4"]],
                                          "alpha": "1/2"})
    assert main(["check", str(config), "--no-cross-check"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "c.json: certified"
    rows = {cells[0]: cells[1:] for line in out.splitlines()
            if (cells := [c.strip() for c in line.strip("│ ").split("│")]) and cells[0] in ("0", "1", "2", "3")}
    assert rows["0"] == ["leader", "0", "{0}", "(1, 1/3)"]
    assert rows["1"] == ["leader", "1", "{1}", "(-1/18, 5/36)"]
    assert rows["3"] == ["locked", "0", "{0}", "(1, 1/3)"]
    assert "locked: attention set F fixed forever" in out


def test_json_dash_puts_the_report_alone_on_standard_output(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    config = _write(tmp_path / "c.json", WORKED_CONFIGURATIONS["triangle"].to_json_dict())
    assert main(["check", str(config), "--no-cross-check", "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("{") and json.loads(captured.out)["status"] == "certified"
    assert "fates and limits" in captured.err and "T0" in captured.err


def test_json_before_the_configuration_says_that_it_took_the_path(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """`--json CONFIG.json` takes the configuration as the file to write: the message says so, not just "missing"."""
    config = _write(tmp_path / "c.json", WORKED_CONFIGURATIONS["triangle"].to_json_dict())
    assert main(["check", "--json", str(config)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith(f"error: Missing argument 'CONFIG.json': --json took '{config}' as the file to write")
    assert "'--json -'" in err
    assert json.loads(config.read_text(encoding="utf-8"))["tokens"]  # nothing was written over it
    # Without --json, a missing argument is click's plain message.
    assert main(["check"]) == 2
    assert "--json took" not in capsys.readouterr().err


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`check CONFIG | head -1`: the reader goes away (rich reports it by SystemExit(1)): no error, exit 0, as Unix
    tools end when the reader has read what it wanted."""
    import os
    import subprocess
    import sys

    config = _write(tmp_path / "c.json", WORKED_CONFIGURATIONS["triangle"].to_json_dict())
    root = Path(__file__).resolve().parents[2]
    child = subprocess.Popen([sys.executable, "-m", "verify", "check", str(config), "--no-cross-check"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
                             env={**os.environ, "PYTHONPATH": str(root)})
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # before the child writes anything
    with child.stderr:
        err = child.stderr.read().decode()
    assert child.wait(timeout=120) == 0
    # Standard error is a pipe: its progress line, and nothing about the closed output.
    assert err.strip().splitlines() == ["hardmax-verify check: checking triangle: layer 0 of at most 200"]


def test_piped_standard_error_says_that_the_check_has_started(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """No terminal, no bar: a progress line once layer 0 is done, before the summary (the summary is on standard output)."""
    config = _write(tmp_path / "c.json", WORKED_CONFIGURATIONS["triangle"].to_json_dict())
    assert main(["check", str(config), "--no-cross-check"]) == 0
    assert capsys.readouterr().err.splitlines() == ["hardmax-verify check: checking triangle: layer 0 of at most 200"]
