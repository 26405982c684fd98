"""Hostile inputs: special files, huge, deep and malformed files, values beyond the limits.

Each case runs the real command in a subprocess under the bounds of ``hostile_run`` (60 s, 2 GiB
of address space and of resident memory) and must end with a one-line refusal, exit status 2,
before any work: never a hang, a traceback or an exit status 1.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hostile_run import assert_refused, campaign, run, slow_except

GOOD_CONFIG = {"tokens": [["1", "0"], ["0", "1"], ["-1/2", "1/3"]], "alpha": "1/2"}
GOOD_CAMPAIGN = campaign(examples=2)
HUGE_DIGITS = "7" * 100_000


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    (tmp_path / "good.json").write_text(json.dumps(GOOD_CONFIG))
    return tmp_path


# -- Inputs that are not regular files. -------------------------------------------------------------

def _special(work: Path, kind: str, suffix: str) -> str:
    """A path of the given kind: a FIFO (no writer: reading blocks forever), /dev/zero (endless), a folder, a big file."""
    path = work / f"input-{kind}{suffix}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    elif kind == "oversized":
        with open(path, "wb") as handle:
            handle.truncate(17 * 2**20)  # sparse: 17 MiB of zeros, more than the 16 MiB input limit
    return path.name


KINDS = {"fifo": "FIFO", "dev-zero": "character device", "folder": "directory", "oversized": "bytes"}
READERS = {
    "simulate": lambda name: ["simulate", name, "--layers", "2"],
    "check": lambda name: ["check", name, "--no-cross-check"],
    "report --config": lambda name: ["report", "--config", name, "--out", "out", "--jobs", "1", "--runs", "none"],
    "conjecture run": lambda name: ["conjecture", "run", name, "--results-dir", "out"],
    "conjecture check": lambda name: ["conjecture", "check", "every_token_settles", name],
    "softmax": lambda name: ["softmax", name, "--beta", "10", "--layers", "2"],
}
SUFFIX = {"simulate": ".json", "check": ".json", "report --config": ".toml", "conjecture run": ".py",
          "conjecture check": ".json", "softmax": ".json"}


# The fast lane: each kind of special file once, through the commands that start quickest.
@pytest.mark.parametrize("reader, kind", slow_except([(reader, kind) for reader in sorted(READERS) for kind in sorted(KINDS)],
                                                     ("check", "fifo"), ("simulate", "dev-zero"), ("conjecture run", "folder"),
                                                     ("conjecture check", "oversized")))
def test_only_regular_files_of_bounded_size_are_read(work: Path, reader: str, kind: str) -> None:
    name = _special(work, kind, SUFFIX[reader])
    outcome = run(READERS[reader](name), work)
    assert_refused(outcome, 2, name, KINDS[kind])
    assert not (work / "out").exists()


def test_dev_zero_given_directly_is_refused(work: Path) -> None:
    assert_refused(run(["simulate", "/dev/zero"], work), 2, "/dev/zero", "character device")


# -- Malformed, huge and deep configurations. --------------------------------------------------------

CONFIGS = {
    # name: (file text, fragment the one-line message must contain)
    "lone surrogate in the name": ('{"name": "x\\ud800y", "tokens": [[1, 0], [0, 1]], "alpha": 1}', "surrogate"),
    "lone surrogate in the description": ('{"description": "\\udfff", "tokens": [[1]], "alpha": 1}', "surrogate"),
    "lone surrogate in a key": ('{"\\ud800": 1, "tokens": [[1]], "alpha": 1}', "unknown field"),
    "JSON nested 100,000 deep": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    # Decodable, but past the depth every reader of the suite and the checker allows (MAX_JSON_DEPTH).
    "a name nested 500 deep": ('{"name": ' + "[" * 500 + "]" * 500 + ', "tokens": [["1", "0"]], "alpha": 1}',
                               "nested too deeply (more than 100 levels)"),
    "tokens nested 50,000 deep": ('{"tokens": ' + "[" * 50_000 + "]" * 50_000 + ', "alpha": 1}', "nested too deeply"),
    "100,000-digit JSON integer": ('{"tokens": [[' + HUGE_DIGITS + ']], "alpha": 1}',
                                   "tokens[0][0]: number has too many digits"),
    "100,000-digit string": ('{"tokens": [["' + HUGE_DIGITS + '"]], "alpha": 1}', "too many digits"),
    "100,000-digit JSON decimal": ('{"tokens": [[1.' + HUGE_DIGITS + ']], "alpha": 1}', "too many digits"),
    "100,000-digit decimal string": ('{"tokens": [["0.' + HUGE_DIGITS + '"]], "alpha": 1}', "too many digits"),
    "100,000-digit fraction": ('{"tokens": [["1/' + HUGE_DIGITS + '"]], "alpha": 1}', "too many digits"),
    "exponent 10^9": ('{"tokens": [[1e999999999]], "alpha": 1}', "exponent"),
    "duplicate key": ('{"tokens": [[1]], "alpha": 1, "alpha": 2}', '"alpha" appears twice'),
    "duplicate nested key": ('{"tokens": [[1]], "alpha": 1, "name": "a", "name": "b"}', '"name" appears twice'),
    "NaN": ('{"tokens": [[NaN]], "alpha": 1}', "NaN"),
    "a million coordinates": ('{"tokens": [[' + ",".join(["1"] * 1_000_000) + ']], "alpha": 1}', "dimension"),
    "5,000 tokens": ('{"tokens": [' + ",".join(["[1]"] * 5000) + '], "alpha": 1}', "at most 4096 tokens"),
    "not UTF-8": (b'{"tokens": [[1]], "alpha": 1, "name": "\xff"}', "UTF-8"),
    "empty file": ("", "malformed JSON"),
}


# Every case through simulate; check reads configurations with the same function, so a few suffice.
CONFIG_CASES = [("simulate", case) for case in sorted(CONFIGS)] + [
    ("check", case) for case in ("lone surrogate in the name", "duplicate key", "100,000-digit string",
                                 "JSON nested 100,000 deep")]


@pytest.mark.parametrize("command, case", slow_except(CONFIG_CASES, *[case for case in CONFIG_CASES if case[0] == "check"],
                                                     ("simulate", "not UTF-8"), ("simulate", "5,000 tokens")))
def test_malformed_configurations_are_refused_in_one_line(work: Path, command: str, case: str) -> None:
    text, fragment = CONFIGS[case]
    path = work / "hostile.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    args = [command, "hostile.json"] + (["--no-cross-check"] if command == "check" else [])
    assert_refused(run(args, work), 2, "hostile.json", fragment)


VALUES_AS_WRITTEN = [
    ("layers", "2.5", "2.5"),
    ("layers", '"30"', '"30"'),
    ("outside_hypotheses", "1.5", "1.5"),
    ("outside_hypotheses", "[1, 2]", "a list of 2 items"),
    ("name", "1e3", "1E+3"),
]


@pytest.mark.parametrize("field, value, shown", slow_except(VALUES_AS_WRITTEN, ("outside_hypotheses", "[1, 2]", "a list of 2 items")))
def test_messages_show_values_as_written_not_python_internals(work: Path, field: str, value: str, shown: str) -> None:
    (work / "typed.json").write_text(f'{{"tokens": [[1], [2]], "alpha": 1, "{field}": {value}}}')
    line = assert_refused(run(["simulate", "typed.json"], work), 2, field, shown)
    assert "Decimal(" not in line and "'" not in line.split(field, 1)[1], line


def test_escape_codes_in_a_name_never_reach_the_terminal(work: Path) -> None:
    name = "\x1b]0;pwned\x07\x1b[2J\x1b[31m[/]red\u202e"
    (work / "escape.json").write_text(json.dumps({**GOOD_CONFIG, "name": name}))
    outcome = run(["check", "escape.json", "--no-cross-check"], work)
    assert outcome.status == 0, outcome.describe()
    for raw in ("\x1b]", "\x1b[2J", "\x1b[31m", "\x07", "\u202e"):
        assert raw not in outcome.out + outcome.err, outcome.describe()
    assert "\\x1b[2J" in outcome.out and "[/]red" in outcome.out  # shown escaped, as text


# -- Campaign files. ---------------------------------------------------------------------------------

CAMPAIGNS = {
    "TOML nested 1,000 deep": ("x = " + "[" * 1000 + "]" * 1000 + "\n", "nested too deeply"),
    "100,000-digit TOML integer": ("[campaign]\nexamples = " + HUGE_DIGITS + "\n", "too many digits"),
    "alpha 1e5000": (GOOD_CAMPAIGN + 'alpha = ["1e5000"]\n', "alpha"),
    "alpha of 100,000 digits": (GOOD_CAMPAIGN + f'alpha = ["{HUGE_DIGITS}"]\n', "too many digits"),
    "alpha 1/10^5000": (GOOD_CAMPAIGN + 'alpha = ["1e-5000"]\n', "alpha"),
    "alpha zero": (GOOD_CAMPAIGN + 'alpha = ["0"]\n', "alpha > 0"),
    "alpha a date": (GOOD_CAMPAIGN + "alpha = [1979-05-27]\n", "alpha"),
    "layer budget 10^9": (GOOD_CAMPAIGN.replace("layer_budget = 20", "layer_budget = 1000000000"), "layer_budget"),
    "examples 10^9": (GOOD_CAMPAIGN.replace("examples = 2", "examples = 1000000000"), "examples"),
    "n of 10^6": (GOOD_CAMPAIGN.replace("n = [3, 4]", "n = [3, 1000000]"), ".n"),
    "duplicate key": (GOOD_CAMPAIGN.replace("examples = 2", "examples = 2\nexamples = 3"), "malformed TOML"),
    "not UTF-8": (b"[campaign]\nexamples = \xff\n", "UTF-8"),
}


# report starts slowest (matplotlib, numba, Hypothesis): one campaign in the fast lane.
@pytest.mark.parametrize("case", slow_except(sorted(CAMPAIGNS), "alpha of 100,000 digits"))
def test_malformed_campaigns_are_refused_before_any_task(work: Path, case: str) -> None:
    text, fragment = CAMPAIGNS[case]
    (work / "campaign.toml").write_bytes(text if isinstance(text, bytes) else text.encode())
    outcome = run(["report", "--config", "campaign.toml", "--out", "out", "--jobs", "1", "--runs", "none"], work)
    assert_refused(outcome, 2, "campaign.toml", fragment)
    assert not (work / "out").exists()


# -- Values beyond the documented limits: refused up front. -----------------------------------------

LIMITS = [
    (["simulate", "good.json", "--layers", "1000000000"], ["--layers", "--max-work"]),
    (["simulate", "good.json", "--layers", "1000000000", "--arithmetic", "float"], ["--layers", "--max-work"]),
    (["simulate", "good.json", "--layers", "7000"], ["21,000 token-layers", "20,000"]),
    (["simulate", "layers.json"], ["layers.json: layers", "--max-work"]),
    (["simulate", "good.json", "--layers", "10", "--max-work", "29"], ["30 token-layers"]),
    (["check", "good.json", "--layer-budget", "1000000000"], ["--layer-budget"]),
    (["report", "--jobs", "100000", "--out", "out"], ["--jobs"]),
    (["report", "--dask-local", "100000", "--out", "out"], ["--dask-local"]),
    (["softmax", "good.json", "--beta", "10", "--layers", "1000000000"], ["--layers", "--max-work"]),
    (["softmax", "layers.json", "--beta", "10"], ["layers.json: layers", "--max-work"]),
    (["softmax", "good.json", "--beta", "0", "--layers", "2"], ["--beta", "positive"]),
]


@pytest.mark.parametrize("args, fragments", slow_except(LIMITS, LIMITS[3], LIMITS[5]))
def test_values_beyond_a_limit_are_refused_before_any_work(work: Path, args: list[str], fragments: list[str]) -> None:
    (work / "layers.json").write_text(json.dumps({**GOOD_CONFIG, "layers": 10**9}))
    assert_refused(run(args, work), 2, *fragments)
    assert not (work / "out").exists()


def test_raising_the_work_limit_lets_the_same_run_through(work: Path) -> None:
    outcome = run(["simulate", "good.json", "--layers", "10", "--max-work", "30", "--json", "trajectory.json"], work)
    assert outcome.status == 0, outcome.describe()
    assert len(json.loads((work / "trajectory.json").read_text())["positions"]) == 11
