"""``hardmax-verify certcheck``: exit statuses, the one-line bad-input message, --json OUT."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from verify import certcheck
from verify.claims import check_configuration
from verify.app.cli import main
from verify.core.config import parse_configuration

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


def test_json_to_standard_output_with_a_dash_or_no_value(tmp_path: Path, capsys: Any) -> None:
    path, _ = _claims(tmp_path)
    for run in (lambda argv: main(["certcheck", str(path), *argv]), lambda argv: certcheck.main([str(path), *argv])):
        for argv in (["--json", "-"], ["--json"]):
            assert run(argv) == 0
            captured = capsys.readouterr()
            assert json.loads(captured.out)["exit_status"] == 0  # only JSON on stdout; the summary went to stderr
            assert "everything verified" in captured.err


def test_disk_full_while_writing_json_exits_4_with_one_line(tmp_path: Path, capsys: Any) -> None:
    # On a full disk the JSON output used to fail as exit 1, "a certificate was rejected",
    # although every certificate verified. /dev/full fails every write with ENOSPC.
    path, _ = _claims(tmp_path)
    import verify.certcheck as checker

    for run in (lambda: main(["certcheck", str(path), "--json", "/dev/full"]),
                lambda: checker.main([str(path), "--json", "/dev/full"])):
        assert run() == 4
        err = capsys.readouterr().err
        assert "could not complete: I/O error" in err and "No space left" in err
        assert err.strip().count("\n") == 0 and "Traceback" not in err


def test_unwritable_json_destination_exits_4_and_leaves_nothing(tmp_path: Path, capsys: Any) -> None:
    path, _ = _claims(tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["certcheck", str(path), "--json", str(blocker / "out.json")]) == 4
    assert "could not complete" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "claims.json"]


def test_internal_error_exits_4_and_debug_prints_the_traceback(tmp_path: Path, capsys: Any,
                                                               monkeypatch: Any) -> None:
    from verify.certcheck.kernel import run as one_run

    path, _ = _claims(tmp_path)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ZeroDivisionError("a bug in the checker")

    monkeypatch.setattr(one_run, "check_run", broken)  # what check_report calls
    for argv in (["certcheck", str(path)], ["certcheck", str(path), "--debug"], ["--debug", "certcheck", str(path)]):
        assert main(argv) == 4
        err = capsys.readouterr().err
        assert "could not complete: internal error: ZeroDivisionError: a bug in the checker" in err
        assert ("Traceback" in err) == ("--debug" in argv)
    # The README: --debug on any command, or HARDMAX_VERIFY_DEBUG=1, adds the traceback.
    monkeypatch.setenv("HARDMAX_VERIFY_DEBUG", "1")
    assert main(["certcheck", str(path)]) == 4
    assert "Traceback" in capsys.readouterr().err
    monkeypatch.delenv("HARDMAX_VERIFY_DEBUG")
    assert certcheck.main([str(path)]) == 4
    assert certcheck.main([str(path), "--debug"]) == 4
    assert "Traceback" in capsys.readouterr().err


def test_a_directory_or_fifo_is_refused_before_reading(tmp_path: Path, capsys: Any) -> None:
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for target in (tmp_path, fifo):
        assert main(["certcheck", str(target)]) == 2
        assert "not a regular file" in capsys.readouterr().err


def test_a_file_asking_for_too_much_work_exits_2_and_the_limit_can_be_raised(tmp_path: Path, capsys: Any) -> None:
    path, report = _claims(tmp_path)
    assert main(["certcheck", str(path), "--max-work", "10"]) == 2
    assert "--max-work" in capsys.readouterr().err
    assert main(["certcheck", str(path), "--max-work", str(10 ** 9)]) == 0



def test_a_check_with_numbers_beyond_pythons_digit_limit_verifies(tmp_path: Path) -> None:
    """Within the README's number limits (4,001-digit denominators here) `check` writes norms of 8,000+
    digits; certcheck reads them (Python's int() stops at 4,300 digits), never rejecting for its own limit."""
    p, q = 10 ** 4000 + 7, 10 ** 4000 + 9
    config = tmp_path / "big.json"
    config.write_text(json.dumps({"tokens": [["1", "0"], ["0", "1"], [f"1/{p}", f"-1/{q}"], ["-1", "-1"]],
                                  "alpha": "1/2"}), encoding="utf-8")
    report = tmp_path / "claims.json"
    assert main(["check", str(config), "--json", str(report)]) == 0
    assert max(len(x) for row in json.loads(report.read_text())["verdicts"]["D2"]["certificate"]["norms"]
               for x in row) > 8000
    assert main(["certcheck", str(report)]) == 0
    assert certcheck.main([str(report)]) == 0


def test_bad_usage_of_the_standalone_checker_is_one_line(capsys: Any) -> None:
    from verify.certcheck.cli import main as standalone  # noqa: PLC0415

    assert standalone(["--max-work", "abc", "file.json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--max-work" in err and "'abc'" in err


def test_an_inconclusive_verdict_is_accepted_and_said_to_carry_no_certificate(tmp_path: Path, capsys: Any) -> None:
    # Leader control finds neither a design nor an impossibility certificate for token 2 alone.
    example = Path(__file__).resolve().parents[2] / "examples" / "control.json"
    result = tmp_path / "control.json"
    assert main(["control", str(example), "--leaders", "2", "--json", str(result)]) == 3
    capsys.readouterr()
    assert main(["certcheck", str(result)]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == ("certcheck: 0 certificates verified; nothing rejected; 1 inconclusive verdict accepted as "
                    "stated (no certificate to verify)")


def test_max_work_help_states_the_estimate_the_checker_makes() -> None:
    # --help quotes the per-layer work of verify/certcheck/kernel/estimate.py, the estimate --max-work bounds.
    import re

    from verify.app.commands.certcheck import certcheck as command
    from verify.certcheck.kernel import estimate

    formula = re.search(r"costs about (.+?) work units a layer", " ".join((estimate.__doc__ or "").split()))
    assert formula is not None
    option = next(p for p in command.params if p.name == "max_work")
    assert f"about {formula.group(1)} per layer" in (getattr(option, "help", None) or "")


def _with_stdout_closed(tmp_path: Path, *argv: str, module: str = "verify") -> int:
    """The exit status of ``python -m MODULE ARGV`` whose standard output's reader leaves before it writes
    anything (``| head`` that has read what it wanted)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    child = subprocess.Popen([sys.executable, "-m", module, *argv], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(root)})
    assert child.stdout is not None
    child.stdout.close()
    return child.wait(timeout=300)


def test_a_reader_leaving_the_pipe_changes_no_verdict(tmp_path: Path) -> None:
    """`certcheck BAD | head`: the rejection stands (exit 1), as the verification does (exit 0), and --json FILE is
    written whole; in the direct checker and through the suite's command line."""
    path, report = _claims(tmp_path)
    out = tmp_path / "check.json"
    assert _with_stdout_closed(tmp_path, "certcheck", str(path), "--json", str(out)) == 0
    assert json.loads(out.read_text())["exit_status"] == 0
    report["verdicts"]["T0"]["certificate"]["leaders"] = [0]
    path.write_text(json.dumps(report))
    out.unlink()
    assert _with_stdout_closed(tmp_path, "certcheck", str(path), "--json", str(out)) == 1
    assert json.loads(out.read_text())["exit_status"] == 1
    assert _with_stdout_closed(tmp_path, "certcheck", str(path), "--json", "-") == 1
    out.unlink()
    assert _with_stdout_closed(tmp_path, str(path), "--json", str(out), module="verify.certcheck") == 1
    assert json.loads(out.read_text())["exit_status"] == 1
    assert _with_stdout_closed(tmp_path, str(path), module="verify.certcheck") == 1
    # The suite's own commands: a false verdict of check stays false with nobody reading.
    square = Path(__file__).resolve().parents[2] / "examples" / "rotating_square.json"
    check_out = tmp_path / "square.json"
    assert _with_stdout_closed(tmp_path, "check", str(square), "--outside-hypotheses", "--json", str(check_out)) == 1
    assert json.loads(check_out.read_text())["verdicts"]["T0"]["status"] == "failed"
