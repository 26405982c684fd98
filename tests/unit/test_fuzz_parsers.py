"""Fuzzing the parsers where input enters: any text gives a result or an InputError, never a traceback or a hang.

Parsers covered: :func:`verify.core.numbers.parse_json` + :func:`verify.core.config.parse_configuration`
(configuration files), :func:`verify.core.numbers.to_rational` (every number in every file), the
TOML campaign parser of :mod:`verify.app.campaign`, and the CLI end to end
on random files (exit status 2 with one line on standard error).

A hang cannot be asserted by timing (no timed tests, see tests/README.md); each example runs
under a watchdog alarm that turns a hang into a failure with the input that caused it.
"""

from __future__ import annotations

import json
import signal
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from verify.app.campaign import load_campaign
from verify.core.config import KNOWN_FIELDS, Configuration, parse_configuration
from verify.core.numbers import InputError, parse_json, to_rational

WATCHDOG_SECONDS = 20


@contextmanager
def watchdog(what: Any) -> Iterator[None]:
    """Fail (instead of hanging the test run) if the block takes WATCHDOG_SECONDS."""
    def fire(signum: int, frame: Any) -> None:
        raise AssertionError(f"no answer after {WATCHDOG_SECONDS} s (a hang) on input {str(what)[:200]!r}")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.alarm(WATCHDOG_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def parse_config_text(text: str, *, outside: bool = False) -> Configuration | InputError:
    """The whole configuration-file path: the only allowed outcomes are a Configuration or an InputError."""
    with watchdog(text):
        try:
            return parse_configuration(parse_json(text), outside_hypotheses=outside)
        except InputError as error:
            assert str(error).strip(), "an InputError must say something"
            assert "\n" not in str(error), f"error message is not one line: {error!r}"
            return error


# Numbers as people (and fuzzers) write them, including the nasty ones.
NUMBER_TEXT = st.one_of(
    st.integers().map(str),
    st.fractions().map(str),
    st.decimals(allow_nan=True, allow_infinity=True).map(str),
    st.from_regex(r"\A[+-]?\d{1,6}(\.\d{0,6})?([eE][+-]?\d{1,12})?\Z"),
    st.from_regex(r"\A[+-]?\d{1,5}\s*/\s*[+-]?\d{1,5}\Z"),
    st.sampled_from(["1e999999999", "-1e-999999999", "1" * 5000, "1/" + "7" * 5000, "0." + "3" * 6000,
                     "1e10000", "1e10001", "NaN", "Infinity", "-inf", "1/0", "0/0", "", " ", "1//2", "--1",
                     "0x10", "1_000", "١٢", "½", "1e", ".", "+.e1"]),
)
JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=10**30, max_value=10**60),
    st.floats(allow_nan=False, allow_infinity=False), NUMBER_TEXT, st.text(max_size=20))
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: st.one_of(st.lists(children, max_size=5),
                               st.dictionaries(st.one_of(st.sampled_from(KNOWN_FIELDS), st.text(max_size=8)),
                                               children, max_size=5)),
    max_leaves=30)


@st.composite
def configuration_like(draw: st.DrawFn) -> dict[str, Any]:
    """Mostly-valid configurations with some fields replaced by garbage: reaches deep into validation."""
    n = draw(st.integers(1, 5))
    d = draw(st.integers(1, 3))
    coordinate = st.one_of(st.fractions(max_denominator=50).map(str), NUMBER_TEXT, JSON_SCALARS)
    data: dict[str, Any] = {"tokens": draw(st.lists(st.lists(coordinate, min_size=d, max_size=d), min_size=n, max_size=n)),
                            "alpha": draw(st.one_of(st.just("1/2"), NUMBER_TEXT, JSON_SCALARS))}
    if draw(st.booleans()):
        data["A"] = draw(st.one_of(st.lists(st.lists(coordinate, min_size=d, max_size=d), min_size=d, max_size=d),
                                   JSON_VALUES))
    for key in draw(st.lists(st.sampled_from(KNOWN_FIELDS + ("bogus",)), max_size=3)):
        data[key] = draw(JSON_VALUES)
    return data


class _AsText(json.JSONEncoder):
    def default(self, o: Any) -> Any:  # Fractions from st.fractions never reach here (mapped to str)
        return str(o)


@given(text=st.text(max_size=300))
def test_arbitrary_text_is_a_configuration_or_an_input_error(text: str) -> None:
    parse_config_text(text)


@given(value=JSON_VALUES)
def test_arbitrary_json_values_are_a_configuration_or_an_input_error(value: Any) -> None:
    parse_config_text(json.dumps(value, cls=_AsText))


@given(data=configuration_like(), outside=st.booleans())
@example(data={"tokens": [["1e999999999"]], "alpha": "1/2"}, outside=False)
@example(data={"tokens": [[1]], "alpha": "1" * 5000}, outside=False)
@example(data={"tokens": [["0." + "3" * 6000]], "alpha": 1}, outside=False)
@example(data={"tokens": [[1, 2], [3]], "alpha": 1}, outside=False)
@example(data={"tokens": [], "alpha": 1}, outside=True)
@example(data={"tokens": [[0]], "alpha": 1}, outside=False)
@example(data={"\n": None, "tokens": [[1]], "alpha": 1}, outside=False)  # a newline in a field name
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
def test_configuration_like_objects_are_a_configuration_or_an_input_error(data: dict[str, Any], outside: bool) -> None:
    result = parse_config_text(json.dumps(data, cls=_AsText), outside=outside)
    if isinstance(result, Configuration):
        # What was accepted is what the theorem's model needs: exact, positive alpha, rectangular tokens.
        assert result.alpha > 0 and all(len(t) == result.d for t in result.tokens)
        assert all(isinstance(x, Fraction) for t in result.tokens for x in t)


@pytest.mark.parametrize("text", [
    "[" * 100_000 + "]" * 100_000,                       # deep nesting
    '{"tokens": ' + "[" * 50_000 + "]" * 50_000 + ', "alpha": 1}',
    "1" * 5000,                                          # an integer beyond Python's str->int limit
    '{"tokens": [[' + "9" * 4301 + ']], "alpha": 1}',
    '{"tokens": [[1e999999999]], "alpha": 1}',           # a JSON number with a huge exponent
    '{"tokens": [[1e-999999999]], "alpha": 1}',
    '{"tokens": [["1e999999999"]], "alpha": 1}',
    '{"tokens": [[NaN]], "alpha": 1}',
    '{"tokens": [[Infinity]], "alpha": 1}',
    '{"tokens": [[1]], "alpha": -Infinity}',
    '{"tokens": [[1]], "alpha": "1/0"}',
    '{"tokens": [[1]], "alpha": true}',
    '{"tokens": [[1]], "alpha": 0}',
    '{"tokens": [["\\ud800"]], "alpha": 1}',             # a lone surrogate
    '{"\\ud800": 1, "tokens": [[1]], "alpha": 1}',
    "\ufeff{}",                                          # a byte-order mark
    "",
])
def test_known_nasty_inputs_give_one_line_input_errors(text: str) -> None:
    result = parse_config_text(text)
    assert isinstance(result, InputError)


@given(text=NUMBER_TEXT)
def test_to_rational_gives_a_fraction_or_an_input_error(text: str) -> None:
    with watchdog(text):
        try:
            value = to_rational(text, field="x")
        except InputError as error:
            assert error.field == "x"
        else:
            assert isinstance(value, Fraction)


def test_huge_integer_digits_name_the_limit() -> None:
    with pytest.raises(InputError, match="too many digits"):
        parse_json("1" * 5000)
    with pytest.raises(InputError, match="too many digits"):
        to_rational("1/" + "3" * 5000, field="alpha")


def test_a_json_integer_beyond_the_digit_limit_is_refused_naming_where_it_is() -> None:
    # json.loads's integer hook knows no path: the refusal named only the file ("d.json: number has too many
    # digits"), where a number written as a string names its field. Now both name it.
    text = '{"sequences": [[["1", "0"]], [[0, 1' + "0" * 5000 + ']]], "labels": ["0", "1"]}'
    with pytest.raises(InputError, match=r"^data\.json: sequences\[1\]\[0\]\[1\]: number has too many digits"):
        parse_json(text, source="data.json")
    assert parse_json('{"a": [1, {"b": 2}]}') == {"a": [1, {"b": 2}]}


# -- The CLI end to end on random files. ------------------------------------------------------

def _run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from verify.app.cli import main

    status = main(args)
    return status, capsys.readouterr().err


@given(content=st.one_of(st.binary(max_size=200), st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
                         JSON_VALUES.map(lambda v: json.dumps(v, cls=_AsText).encode()),
                         configuration_like().map(lambda v: json.dumps(v, cls=_AsText).encode())))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_simulate_on_random_files_exits_0_or_2_with_one_line(content: bytes, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(content)
    with watchdog(content):
        status, err = _run_cli(["simulate", str(path), "--layers", "2"], capsys)
    assert status in (0, 2), (status, err)
    if status == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error:"), err


@pytest.mark.parametrize("args", [
    ["simulate", "{missing}"],
    ["simulate", "{dir}"],
    ["simulate", "{file}", "--layers", "-1"],
    ["simulate", "{file}", "--arithmetic", "quantum"],
])
def test_simulate_usage_errors_exit_2(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.json"
    good.write_text('{"tokens": [[1, 0], [0, 1]], "alpha": "1/2"}')
    filled = [a.format(missing=tmp_path / "nope.json", dir=tmp_path, file=good) for a in args]
    status, err = _run_cli(filled, capsys)
    assert status == 2
    assert "Traceback" not in err


# -- The TOML campaign parser (verify.app.campaign). ------------------


TOML_TEXT = st.one_of(
    st.text(max_size=300),
    st.lists(st.tuples(st.from_regex(r"\A[a-z_]{1,12}\Z"),
                       st.one_of(st.integers(-10**30, 10**30).map(str), st.sampled_from(
                           ["true", '"x"', "1e999", "nan", "inf", "[1, 2]", "{a = 1}", '"../../etc/x"', "-1", "0"]))),
             max_size=6).map(lambda pairs: "\n".join(f"{k} = {v}" for k, v in pairs)),
    st.sampled_from(["[[family]]\nname = 1\n", "[[family]]\nname = \"nope\"\ncount = -1\n",
                     "seed = 99999999999999999999999999\n", "[[family]]\n" * 3, "name = \"../../x\"\n",
                     "[family]\nname = \"random\"\n", "examples = 1e9\n", "\x00", "[" * 10000]),
)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if not isinstance(value, float) or value == value and abs(value) != float("inf") else (
            "nan" if value != value else ("inf" if value > 0 else "-inf"))
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is (nearly) a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_value(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


TOML_SCALARS = st.one_of(st.booleans(), st.integers(-10**20, 10**20), st.floats(), NUMBER_TEXT, st.text(max_size=10))
TOML_VALUES = st.recursive(TOML_SCALARS, lambda c: st.one_of(st.lists(c, max_size=4),
                                                             st.dictionaries(st.text(max_size=6), c, max_size=3)),
                           max_leaves=12)


@st.composite
def campaign_like(draw: st.DrawFn) -> str:
    """Mostly-valid CAMPAIGN.toml files with values replaced by garbage: reaches deep into validation."""
    campaign_keys = ("examples", "layer_budget", "worked", "float_check", "shrink", "bogus")
    lines = ["[campaign]"]
    for key in draw(st.lists(st.sampled_from(campaign_keys), unique=True, max_size=4)):
        value = draw(st.one_of(st.integers(-5, 10**9), st.booleans(), TOML_VALUES))
        lines.append(f"{key} = {_toml_value(value)}")
    for _ in range(draw(st.integers(0, 3))):
        lines.append("[[family]]")
        name = draw(st.one_of(st.sampled_from(["generic", "mirror_ties", "collinear", "nope", "../../etc/x"]),
                              st.text(max_size=8)))
        lines.append(f"name = {_toml_value(name)}")
        fields = {"share": st.integers(-2, 10**7), "n": st.lists(st.integers(-3, 10**6), max_size=3),
                  "d": st.lists(st.integers(-1, 100), max_size=3),
                  "alpha": st.lists(st.one_of(NUMBER_TEXT, st.floats(), st.integers()), max_size=3),
                  "options": st.dictionaries(st.sampled_from(["matrix", "x"]), st.text(max_size=8), max_size=2)}
        for key in draw(st.lists(st.sampled_from(sorted(fields)), unique=True, max_size=5)):
            value = draw(st.one_of(fields[key], TOML_VALUES))
            lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


@given(text=st.one_of(TOML_TEXT, campaign_like()))
def test_campaign_toml_is_a_campaign_or_an_input_error(text: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("campaign") / "campaign.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    with watchdog(text):
        try:
            load_campaign(path)
        except InputError as error:
            assert "\n" not in str(error), f"error message is not one line: {error!r}"


# -- Every command's inputs: bad files give exit status 2 and one line. ------------------------

def _write_bad_inputs(folder: Path) -> None:
    import gzip

    (folder / "alpha0.json").write_text('{"tokens": [[1, 0], [0, 1]], "alpha": 0}')
    (folder / "origin.json").write_text('{"tokens": [[0, 0], [0, 1]], "alpha": "1/2"}')
    (folder / "garbage.json").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (folder / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (folder / "huge.json").write_text('{"tokens": [[' + "9" * 5000 + ']], "alpha": 1}')
    (folder / "malformed.toml").write_text("[campaign\nexamples = 3\n")
    (folder / "unknown.toml").write_text("[campaign]\nexampels = 3\n")
    (folder / "types.toml").write_text('[campaign]\nexamples = "many"\n')
    (folder / "family.toml").write_text('[[family]]\nname = "no_such_family"\n')
    (folder / "range.toml").write_text('[[family]]\nname = "generic"\nn = [10, 2]\n')
    (folder / "alpha.toml").write_text('[[family]]\nname = "generic"\nalpha = ["1e999999999"]\n')
    (folder / "binary.toml").write_bytes(b"\xff\xfe\x00\x00")
    (folder / "syntax.py").write_text("def (:\n")
    (folder / "raises.py").write_text("raise RuntimeError('boom')\n")
    (folder / "nothing.py").write_text("x = 1\n")
    (folder / "claims.json").write_text('{"format": "something-else"}')
    (folder / "reviews.csv.gz").write_bytes(gzip.compress(b"review,sentiment,split\nA film,positive,train\n" * 50)[:60])
    checkpoint = folder / "checkpoint"
    checkpoint.mkdir()
    (checkpoint / "checkpoint.json").write_text("{not json")


BAD_COMMANDS = [
    ["check", "alpha0.json"],
    ["check", "origin.json"],
    ["check", "garbage.json"],
    ["check", "deep.json"],
    ["check", "huge.json"],
    ["check", "missing.json"],
    ["check", "."],
    ["simulate", "huge.json"],
    ["report", "--config", "malformed.toml", "--out", "out"],
    ["report", "--config", "unknown.toml", "--out", "out"],
    ["report", "--config", "types.toml", "--out", "out"],
    ["report", "--config", "family.toml", "--out", "out"],
    ["report", "--config", "range.toml", "--out", "out"],
    ["report", "--config", "alpha.toml", "--out", "out"],
    ["report", "--config", "binary.toml", "--out", "out"],
    ["report", "--config", "missing.toml", "--out", "out"],
    ["conjecture", "run", "syntax.py"],
    ["conjecture", "run", "raises.py"],
    ["conjecture", "run", "nothing.py"],
    ["conjecture", "run", "no_such_conjecture"],
    ["conjecture", "check", "no_such_conjecture", "alpha0.json"],
    ["certcheck", "claims.json"],
    ["certcheck", "garbage.json"],
    ["certcheck", "missing.json"],
    ["sentiment", "evaluate", "--checkpoint", "checkpoint"],
    ["sentiment", "evaluate", "--checkpoint", "missing-folder"],
    ["sentiment", "train", "--d", "2", "--epochs", "1", "--data", "reviews.csv.gz", "--out", "model", "--quiet"],
    ["selftest", "--profile", "thorough-ish"],
]


@pytest.mark.parametrize("args", BAD_COMMANDS, ids=lambda a: " ".join(a))
def test_every_command_refuses_bad_input_with_one_line_and_exit_2(args: list[str], tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    _write_bad_inputs(tmp_path)
    monkeypatch.chdir(tmp_path)
    with watchdog(args):
        status, err = _run_cli(args, capsys)
    assert status == 2, (status, err)
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) <= 3 and lines, err  # click usage errors print "Usage:" + "Try ..." + the error
    assert any(line.startswith("error:") or line.startswith("Error:") for line in lines), err
    # Nothing was written for a refused input.
    assert not (tmp_path / "out").exists() and not (tmp_path / "model").exists()


def test_regression_exact_output_longer_than_pythons_digit_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # alpha = 1e-5000 is valid input, but printing its 5001-digit denominator hit Python's
    # int -> str limit (found by the CLI fuzz test under the thorough profile).
    path = tmp_path / "config.json"
    path.write_text('{"tokens": [["1"], ["-1/2"]], "alpha": "1e-5000"}')
    status, err = _run_cli(["simulate", str(path), "--layers", "1", "--json", str(tmp_path / "out.json")], capsys)
    assert status == 0, err
    assert "1/1" + "0" * 5000 in (tmp_path / "out.json").read_text()


@pytest.mark.parametrize("text", ["١٢", "1E-५000", "３/４"])
def test_regression_only_ascii_digits_are_numbers(text: str) -> None:
    # int() and Decimal() read digits of any script; a configuration file should not.
    with pytest.raises(InputError):
        to_rational(text, field="x")
