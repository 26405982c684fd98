"""Hostile sweeps: grids out of range or of the wrong type, measurement files that misbehave, damaged resume files.

A bad grid value, in an option or a TOML key, is refused before any work in one line naming the
field (exit 2). A measurement file is code (docs/sweep.md): whatever it raises, exits with or
returns other than an int or None is bad input naming the file, never a measured value. A
saved cell (the resume state, DIR/cells/) that was cut short, edited or damaged is never merged
into the tables: the cell is recomputed and the files end as a fresh sweep's.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hostile_run import assert_refused, run, slow_except
from verify.core import exitcodes

TINY = ["--n", "3", "--samples", "2"]

OPTIONS = {
    # case: (options, the field named)
    "alpha 0": (["--alpha", "0"], "--alpha"),
    "alpha negative": (["--alpha", "1/4,-1/2"], "--alpha"),
    "alpha nan": (["--alpha", "nan"], "--alpha"),
    "alpha inf": (["--alpha", "inf"], "--alpha"),
    "alpha 1/0": (["--alpha", "1/0"], "--alpha"),
    "alpha empty item": (["--alpha", "1,"], "--alpha"),
    "alpha of a hundred thousand digits": (["--alpha", "1" * 100_000], "--alpha"),   # one argv item holds 128 KiB
    "n 0": (["--n", "0"], "--n"),
    "n huge": (["--n", "100000"], "--n"),
    "d 0": (["--d", "0"], "--d"),
    "samples huge": (["--samples", "1000000000000"], "--samples"),
    "samples negative": (["--samples", "-1"], "--samples"),
    "samples fractional": (["--samples", "1.5"], "--samples"),
    "seed negative": (["--seed", "-1"], "--seed"),
    "layers 0": (["--layers", "0"], "--layers"),
    "layers huge": (["--layers", "99999999999"], "--layers"),
    "families empty": (["--families", ","], "--families"),
    "optimise huge": (["--optimise", "1" * 40], "--optimise"),
    "optimise negative": (["--optimise", "-3"], "--optimise"),
}


@pytest.mark.parametrize("case", slow_except(sorted(OPTIONS), "alpha 0", "alpha nan", "samples huge"))
def test_a_bad_grid_option_is_refused_naming_it(tmp_path: Path, case: str) -> None:
    options, field = OPTIONS[case]
    outcome = run(["sweep", "last_leader_layer", "--out", "out", *options], tmp_path)
    assert_refused(outcome, exitcodes.BAD_INPUT, f"error: {field}: ")
    assert not (tmp_path / "out").exists()


GRIDS = {
    # case: (TOML text, the key named; "" for the file itself)
    "malformed": ("n = [3\n", ""),
    "not UTF-8": ("\udcff\udcfe", ""),
    "unknown key": ("seeds = 3\n", "seeds"),
    "n a string": ('n = "x"\n', "n"),
    "n a boolean": ("n = [true]\n", "n"),
    "n a float": ("n = [3.5]\n", "n"),
    "n empty": ("n = []\n", "n"),
    "n a table": ("n = {a = 1}\n", "n"),
    "alpha nan": ("alpha = [nan]\n", "alpha"),
    "alpha inf": ("alpha = [inf]\n", "alpha"),
    "alpha minus zero": ("alpha = [-0.0]\n", "alpha"),
    "alpha a boolean": ("alpha = [true]\n", "alpha"),
    "alpha nested": ("alpha = [[1]]\n", "alpha"),
    "samples a float": ("samples = 1e12\n", "samples"),
    "samples a boolean": ("samples = true\n", "samples"),
    "samples huge": ("samples = 1000000000000\n", "samples"),
    "seed negative": ("seed = -5\n", "seed"),
    "layers a list": ("layers = [1]\n", "layers"),
    "optimise a float": ("optimise = 2.5\n", "optimise"),
    "optimise a boolean": ("optimise = true\n", "optimise"),
}


@pytest.mark.parametrize("case", slow_except(sorted(GRIDS), "malformed", "alpha nan", "samples huge"))
def test_a_bad_grid_file_is_refused_naming_the_key(tmp_path: Path, case: str) -> None:
    text, key = GRIDS[case]
    (tmp_path / "grid.toml").write_bytes(text.encode("utf-8", "surrogateescape"))
    outcome = run(["sweep", "last_leader_layer", "--out", "out", "--grid", "grid.toml"], tmp_path)
    assert_refused(outcome, exitcodes.BAD_INPUT, f"error: grid.toml: {key}" if key else "error: grid.toml: ")
    assert not (tmp_path / "out").exists()


def test_optimise_beside_a_grid_file_that_also_gives_it_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / "grid.toml").write_text("n = [3]\nsamples = 2\noptimise = 4\n")
    outcome = run(["sweep", "last_leader_layer", "--out", "out", "--grid", "grid.toml", "--optimise", "4"], tmp_path)
    assert_refused(outcome, exitcodes.BAD_INPUT, "error: --optimise: give optimise in grid.toml or as the option")
    assert not (tmp_path / "out").exists()


def test_a_missing_grid_file_and_an_unknown_measurement_are_bad_input(tmp_path: Path) -> None:
    outcome = run(["sweep", "last_leader_layer", "--out", "out", "--grid", "nonesuch.toml"], tmp_path)
    assert_refused(outcome, exitcodes.BAD_INPUT, "nonesuch.toml", "not found")
    outcome = run(["sweep", "nonesuch", "--out", "out"], tmp_path)
    assert_refused(outcome, exitcodes.BAD_INPUT, "error: MEASUREMENT: unknown measurement 'nonesuch'")
    outcome = run(["sweep", "nonesuch.py", "--out", "out"], tmp_path)
    assert_refused(outcome, exitcodes.BAD_INPUT, "nonesuch.py", "not found")
    assert not (tmp_path / "out").exists()


def test_a_tiny_and_a_huge_alpha_are_measured_exactly_not_crashed_on(tmp_path: Path) -> None:
    # 1e400 is beyond float64 and 1e-400 below it: the float screen cannot run, the exact engine measures.
    outcome = run(["sweep", "last_leader_layer", "--out", "out", *TINY, "--alpha", "1e-400,1e400"], tmp_path)
    assert outcome.status == exitcodes.SUCCESS, outcome.describe()
    assert sorted(os.listdir(tmp_path / "out" / "figures")) == ["curves-generic.png", "heatmap-generic.png"]


HEADER = "from verify import Measurement\n"
MEASUREMENT_FILES = {
    # case: (the file's body, fragment of the one-line message)
    "raises in exact": ('M = Measurement("m", "d", lambda run: 1 / 0)', "raised ZeroDivisionError while running"),
    "returns a string": ('M = Measurement("m", "d", lambda run: "3")', "must return an int or None, got str"),
    "returns a float": ('M = Measurement("m", "d", lambda run: 1.5)', "must return an int or None, got float"),
    "returns a huge int": ('M = Measurement("m", "d", lambda run: 10 ** 400)', "at most 2**53 in absolute value"),
    "exits": ('M = Measurement("m", "d", lambda run: __import__("sys").exit(0))', "called sys.exit(0) while running"),
    "screen returns a string": ('M = Measurement("m", "d", lambda run: 1, lambda f: "x")', "got str"),
    "screen raises": ('M = Measurement("m", "d", lambda run: 1, lambda f: 1 / 0)', "raised ZeroDivisionError"),
    "exact not a function": ('M = Measurement("m", "d", None)', "exact reading must be a function"),
    "screen not a function": ('M = Measurement("m", "d", lambda run: 1, 7)', "screen must be a function"),
    "description not text": ('M = Measurement("m", 5, lambda run: 1)', "description must be a string"),
    "empty name": ('M = Measurement("", "d", lambda run: 1)', "name must be a non-empty string"),
    "a registered name": ('M = Measurement("leader_count", "d", lambda run: 1)', "name of a registered one"),
    "no measurement": ("x = 1", "found 0"),
    "two measurements": ('A = Measurement("a", "d", lambda r: 1)\nB = Measurement("b", "d", lambda r: 1)', "found 2"),
    "raises on import": ('raise KeyError("at import")', "raised KeyError on import"),
    "exits on import": ("import sys\nsys.exit(3)", "called sys.exit(3) on import"),
}


@pytest.mark.parametrize("case", slow_except(sorted(MEASUREMENT_FILES), "raises in exact", "returns a string",
                                             "exact not a function"))
def test_whatever_a_measurement_file_does_wrong_is_bad_input_naming_it(tmp_path: Path, case: str) -> None:
    body, fragment = MEASUREMENT_FILES[case]
    (tmp_path / "mine.py").write_text(HEADER + body + "\n")
    outcome = run(["sweep", "mine.py", "--out", "out", *TINY], tmp_path)
    assert_refused(outcome, exitcodes.BAD_INPUT, "error: mine.py: ", fragment)
    assert not (tmp_path / "out" / "sweep.json").exists()  # no table of a measurement that misbehaved


def test_a_negative_value_is_measured_and_drawn(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(HEADER + 'M = Measurement("minus", "d", lambda run: -2)\n')
    outcome = run(["sweep", "mine.py", "--out", "out", *TINY], tmp_path)
    assert outcome.status == exitcodes.SUCCESS, outcome.describe()
    assert "| generic | 3 | 2 | 1/4 | 2 | 2 | -2 |" in (tmp_path / "out" / "sweep.md").read_text()


CELL = "cells/last_leader_layer-generic-n3-d2-alpha1_4.json"
GRID = ["--n", "3,4", "--samples", "3", "--seed", "1"]


def _damage(cell: Path, how: str) -> None:
    text = cell.read_text()
    if how == "cut short":
        cell.write_text(text[: len(text) // 2])
    elif how == "not JSON":
        cell.write_bytes(b"\x00\xff garbage")
    elif how == "empty":
        cell.write_text("")
    elif how == "a value edited":
        assert '"max": 0' in text
        cell.write_text(text.replace('"max": 0', '"max": 7', 1))
    elif how == "the result replaced":
        start = text.index('"result"')
        cell.write_text(text[:start] + '"result": "forged", "sha256": "0"}\n')
    elif how == "the digest removed":
        cell.write_text(text.replace('"sha256"', '"sha"', 1))
    elif how == "a link to /dev/zero":
        cell.unlink()
        cell.symlink_to("/dev/zero")
    else:
        raise AssertionError(how)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("how", slow_except(["cut short", "not JSON", "empty", "a value edited", "the result replaced",
                                             "the digest removed", "a link to /dev/zero"],
                                            "cut short", "a value edited"))
def test_a_damaged_saved_cell_is_recomputed_never_merged(tmp_path: Path, how: str) -> None:
    fresh = run(["sweep", "last_leader_layer", "--out", "fresh", *GRID], tmp_path)
    assert fresh.status == exitcodes.SUCCESS, fresh.describe()
    first = run(["sweep", "last_leader_layer", "--out", "out", *GRID], tmp_path)
    assert first.status == exitcodes.SUCCESS, first.describe()
    _damage(tmp_path / "out" / CELL, how)
    again = run(["sweep", "last_leader_layer", "--out", "out", *GRID], tmp_path)
    assert again.status == exitcodes.SUCCESS, again.describe()
    assert "last_leader_layer-generic-n3-d2-alpha1_4: the saved file is " in again.err, again.describe()
    assert "recomputed" in again.err and "n4-d2-alpha1_4: done in an earlier run, skipped" in again.err
    assert not (tmp_path / "out" / CELL).is_symlink()
    assert _files(tmp_path / "out") == _files(tmp_path / "fresh")  # the tables hold no damaged value


def test_a_folder_in_place_of_a_saved_cell_cannot_complete(tmp_path: Path) -> None:
    (tmp_path / "out" / CELL).mkdir(parents=True)
    outcome = run(["sweep", "last_leader_layer", "--out", "out", *GRID], tmp_path)
    assert outcome.status == exitcodes.COULD_NOT_COMPLETE, outcome.describe()
    assert outcome.lines()[-1].startswith("error: could not complete"), outcome.describe()
    assert not (tmp_path / "out" / "sweep.json").exists()


@pytest.mark.parametrize("address", ["not an address", "tcp://127.0.0.1:1"])
def test_an_unusable_scheduler_is_refused_before_the_output_folder_is_made(tmp_path: Path, address: str) -> None:
    pytest.importorskip("distributed")
    outcome = run(["sweep", "leader_count", "--out", "out", *TINY, "--scheduler", address, "--connect-timeout", "1"],
                  tmp_path)
    assert_refused(outcome, exitcodes.BAD_INPUT, "error: --scheduler: ")
    assert not (tmp_path / "out").exists()
