"""Hostile conjecture files: code that exits, raises BaseExceptions, or picks colliding names.

A conjecture file is code (it runs with the user's rights; the docs and --help say so). What
the suite guarantees is the verdict: whatever the file's code raises or exits with is bad
input (exit 2, one line naming the file), never "held" (0) or a counterexample (1); Ctrl-C
raised from it is still a clean interruption; results of distinct names never share a file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hostile_run import assert_refused, run, slow_except
from verify.core import exitcodes

HEADER = '''
import sys
from fractions import Fraction
from hypothesis import strategies as st
from verify.core.config import Configuration
from verify.experiments.conjectures import Conjecture, Observation

TOKENS = st.integers(1, 9).map(lambda x: Configuration(tokens=((Fraction(x),),), alpha=Fraction(1)))


class Boom(BaseException):
    """Not an Exception: a predicate's try/except Exception would not stop it."""
'''


def _conjecture(predicate: str, strategy: str = "TOKENS", name: str = "mine") -> str:
    return HEADER + f"\nMINE = Conjecture({name!r}, 'a statement', {strategy}, {predicate})\n"


FILES = {
    # case: (file text, fragment of the one-line message)
    "sys.exit(0) on import": ("import sys\nsys.exit(0)\n", "called sys.exit(0) on import (line 2)"),
    "sys.exit('bye') on import": ("import sys\nsys.exit('bye')\n", "called sys.exit('bye') on import"),
    "BaseException on import": (HEADER + "raise Boom('at import')\n", "raised Boom on import"),
    "sys.exit(0) in the predicate": (_conjecture("lambda c: sys.exit(0)"), "called sys.exit(0) while running"),
    "BaseException in the predicate": (_conjecture("lambda c: (_ for _ in ()).throw(Boom('in predicate'))"),
                                       "raised Boom while running"),
    "GeneratorExit in the strategy": (_conjecture("lambda c: Observation.held()",
                                                  "TOKENS.map(lambda c: (_ for _ in ()).throw(GeneratorExit()))"),
                                      "raised GeneratorExit while running"),
    "ValueError in the strategy": (_conjecture("lambda c: Observation.held()",
                                               "TOKENS.map(lambda c: int('not a number'))"),
                                   "raised ValueError while running"),
    "a built-in's name": (_conjecture("lambda c: Observation.held()", name="every_token_settles"),
                          "name of a built-in conjecture"),
    "a NUL byte": ("x = 1\x00\n", "null bytes"),
}


@pytest.mark.parametrize("case", slow_except(sorted(FILES), "BaseException on import", "sys.exit(0) in the predicate"))
def test_whatever_a_conjecture_file_raises_or_exits_with_is_bad_input(tmp_path: Path, case: str) -> None:
    text, fragment = FILES[case]
    (tmp_path / "hostile.py").write_text(text)
    outcome = run(["conjecture", "run", "hostile.py", "--examples", "5", "--results-dir", "results"], tmp_path)
    assert_refused(outcome, exitcodes.BAD_INPUT, "hostile.py", fragment)
    assert not (tmp_path / "results").exists()


def test_an_exit_in_the_rigorous_recheck_is_bad_input(tmp_path: Path) -> None:
    text = HEADER + ("\nMINE = Conjecture('mine', 's', TOKENS, lambda c: Observation.held(),\n"
                     "                  confirm=lambda c: sys.exit(0))\n")
    (tmp_path / "hostile.py").write_text(text)
    (tmp_path / "config.json").write_text('{"tokens": [[1]], "alpha": 1}')
    outcome = run(["conjecture", "check", "hostile.py", "config.json"], tmp_path)
    assert_refused(outcome, exitcodes.BAD_INPUT, "hostile.py", "called sys.exit(0) while running")


def test_ctrl_c_raised_by_the_file_is_still_a_clean_interruption(tmp_path: Path) -> None:
    (tmp_path / "hostile.py").write_text(_conjecture("lambda c: (_ for _ in ()).throw(KeyboardInterrupt())"))
    outcome = run(["conjecture", "run", "hostile.py", "--examples", "5", "--results-dir", "results"], tmp_path)
    assert outcome.status == exitcodes.INTERRUPTED, outcome.describe()
    assert outcome.lines() == ["interrupted: nothing half-written was left behind"], outcome.describe()


def test_names_that_clean_alike_keep_separate_results_printed_as_written(tmp_path: Path) -> None:
    names = ["x/y", "x_y", "x\\y", "bad\x1b[2Jname"]
    text = HEADER + "".join(
        f"\nC{i} = Conjecture({name!r}, 'a statement', TOKENS, lambda c: Observation.held(index={i}))\n"
        for i, name in enumerate(names))
    (tmp_path / "names.py").write_text(text)
    outcome = run(["conjecture", "run", "names.py", "--examples", "3", "--results-dir", "results"], tmp_path)
    assert outcome.status == exitcodes.SUCCESS, outcome.describe()
    files = sorted((tmp_path / "results").glob("*.json"))
    assert len(files) == len(names), files
    written = {json.loads(f.read_text())["conjecture"]: f.name for f in files}
    assert sorted(written) == sorted(names)  # each result file holds its own conjecture, name as written
    assert written["x_y"] == "x_y.json"
    # One result line per conjecture (not its indented "covered:" line, not the final count).
    printed = [line.split(":")[0] for line in outcome.out.splitlines() if ": " in line and not line.startswith(" ")]
    assert printed == ["x/y", "x_y", "x\\y", "bad\\x1b[2Jname"], outcome.describe()
    assert "\x1b" not in outcome.out + outcome.err
