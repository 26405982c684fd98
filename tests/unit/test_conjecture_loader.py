"""User conjecture files (verify.experiments.conjectures.loader): loaded by path; every broken file is one InputError, exit 2."""

import pytest

from verify.app.cli import main
from verify.experiments.conjectures.loader import load_conjectures, looks_like_file
from verify.core.numbers import InputError

GOOD = '''
from hypothesis import strategies as st
from fractions import Fraction
from verify.core.config import Configuration
from verify.experiments.conjectures import Conjecture, Observation

TOKENS = st.integers(1, 9).map(lambda x: Configuration(tokens=((Fraction(x),),), alpha=Fraction(1)))
FIRST = Conjecture("first", "statement one", TOKENS, lambda c: Observation.held())
SECOND = Conjecture("second", "statement two", TOKENS, lambda c: Observation.held())
'''


def test_a_good_file_gives_its_conjectures_in_order(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(GOOD)
    assert [c.name for c in load_conjectures(path)] == ["first", "second"]
    path.write_text(GOOD + "\nCONJECTURES = [SECOND]\n")
    assert [c.name for c in load_conjectures(path)] == ["second"]


@pytest.mark.parametrize("name, text, fragment", [
    ("syntax.py", "def broken(:\n", "syntax error at line 1"),
    ("raises.py", "x = 1\nraise RuntimeError('boom')\n", "raised RuntimeError on import (line 2): boom"),
    ("empty.py", "x = 1\n", "defines no Conjecture"),
    ("wrongtype.py", "CONJECTURES = [1, 2]\n", "CONJECTURES must be a list"),
    ("twice.py", GOOD.replace('"second", "statement two"', '"first", "statement two"'), 'share the name "first"'),
    ("notpython.txt", GOOD, "ending in .py"),
])
def test_broken_files_are_one_input_error(tmp_path, name, text, fragment):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        load_conjectures(path)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        load_conjectures(tmp_path / "nope.py")
    folder = tmp_path / "dir.py"
    folder.mkdir()
    with pytest.raises(InputError, match="is a directory"):
        load_conjectures(folder)


def test_cli_prints_one_line_and_exits_2(tmp_path, capsys):
    path = tmp_path / "raises.py"
    path.write_text("raise ValueError('bad user code')\n")
    assert main(["conjecture", "run", str(path), "--results-dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad user code" in err[0]
    assert not (tmp_path / "out").exists()


def test_unknown_builtin_name_exits_2(capsys):
    assert main(["conjecture", "run", "not_a_conjecture"]) == 2
    assert "unknown conjecture" in capsys.readouterr().err


@pytest.mark.parametrize("target, expected", [("my.py", True), ("dir/name", True), ("d8_beyond_pd", False)])
def test_file_or_name(target, expected):
    assert looks_like_file(target) is expected


def test_a_catalogued_statement_name_is_refused(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(GOOD.replace('"first", "statement one"', '"at_most_d_plus_one_leaders", "statement one"'))
    with pytest.raises(InputError, match="name of a catalogued statement"):
        load_conjectures(path)
