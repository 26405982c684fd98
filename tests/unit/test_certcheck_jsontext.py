"""The checker's one JSON reader (verify/certcheck/jsontext.py) and every reader built on it.

A file must say one thing to every reader: a key repeated within one object, NaN or Infinity is
refused wherever it sits, as is what is not a regular file, larger than the limit, not UTF-8,
not JSON, or nested too deeply to decode (never a RecursionError traceback). Each caller turns
the refusal into its own error with its own wording: the dispatcher (files.read_json), the control
checker, the softmax checker; the reproduction's per-run records and checkpoint histories and a
section's saved files, which used to read such a file with the last of its values, now treat it as
not readable. Files read for their bytes rather than as JSON (a saved file hashed, the protocol
file) are opened the same way, so that a FIFO put in their place is never waited on.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.common.blocking import within_seconds

from verify import certcheck
from verify.certcheck import control as control_checker
from verify.certcheck import jsontext
from verify.certcheck.results import reproduction
from verify.certcheck.results import sections as checker_sections
from verify.certcheck import softmax as softmax_checker
from verify.certcheck.results.glance import scalar_summary as _scalar_summary
from verify.certcheck.kernel.jsonvalues import DecimalText

DEEP = 100_000  # far beyond the interpreter's recursion limit


def _write(tmp_path: Path, content: str | bytes, name: str = "file.json") -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def _refusal(path: Path, max_bytes: int = 1 << 20, **parsers: Any) -> jsontext.UnreadableJSON:
    with pytest.raises(jsontext.UnreadableJSON) as caught:
        jsontext.read_json_file(str(path), max_bytes=max_bytes, **parsers)
    assert caught.value.path == str(path) and caught.value.kind in jsontext.KINDS
    return caught.value


# --------------------------------------------------------------------------- the shared reader


def test_strict_json_is_read_with_the_callers_number_readers(tmp_path: Path) -> None:
    path = _write(tmp_path, '{"a": [1, 0.10, {"b": -2.5e0}], "c": "x"}')
    data = jsontext.read_json_file(str(path), max_bytes=100, parse_float=DecimalText)
    assert data == {"a": [1, "0.10", {"b": "-2.5e0"}], "c": "x"}
    assert isinstance(data["a"][1], DecimalText) and str.__str__(data["a"][1]) == "0.10"  # the text, not 0.1
    assert jsontext.read_json_file(str(path), max_bytes=100, parse_int=lambda t: ("int", t))["a"][0] == ("int", "1")


@pytest.mark.parametrize("text, key", [
    ('{"a": 1, "a": 2}', "a"),
    ('{"a": [0, {"b": {"c": 1, "d": 0, "c": 1}}]}', "c"),  # at depth, even with equal values
    ('[[[{"x": null, "y": 1, "x": null}]]]', "x"),
    ('{"\\u00e9": 1, "é": 2}', "é"),  # the same key written two ways
])
def test_a_repeated_key_at_any_depth_is_refused(tmp_path: Path, text: str, key: str) -> None:
    assert isinstance(json.loads(text), (dict, list))  # what json.loads reads without a word
    error = _refusal(_write(tmp_path, text))
    assert error.kind == jsontext.REPEATED_KEY and error.kind in jsontext.AMBIGUOUS
    assert f"the key {json.dumps(key)} appears twice in one object" == error.reason


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused_wherever_they_sit(tmp_path: Path, constant: str) -> None:
    for text in (constant, f'{{"a": [1, {{"b": {constant}}}]}}'):
        error = _refusal(_write(tmp_path, text))
        assert error.kind == jsontext.NOT_A_NUMBER and error.reason == f"{constant} is not a JSON number"


def test_text_that_is_not_utf8_or_not_json_is_refused(tmp_path: Path) -> None:
    error = _refusal(_write(tmp_path, b'{"name": "\xff"}'))
    assert (error.kind, error.reason) == (jsontext.NOT_UTF8, "not UTF-8 text")
    for text in ("{not json", "", '{"a": 1} {"b": 2}', "[1,]"):
        error = _refusal(_write(tmp_path, text))
        assert error.kind == jsontext.NOT_JSON and error.reason.startswith("not valid JSON ("), text


@pytest.mark.parametrize("text", ["[" * DEEP + "]" * DEEP, '{"a":' * DEEP + "1" + "}" * DEEP, "[" * DEEP])
def test_deep_nesting_is_refused_without_a_recursion_error(tmp_path: Path, text: str) -> None:
    error = _refusal(_write(tmp_path, text), max_bytes=len(text))
    assert error.kind == jsontext.NOT_JSON and "not valid JSON" in error.reason


def test_a_file_larger_than_the_limit_is_refused_and_one_at_the_limit_is_read(tmp_path: Path) -> None:
    path = _write(tmp_path, '"' + "x" * 98 + '"')  # 100 bytes
    assert jsontext.read_json_file(str(path), max_bytes=100) == "x" * 98
    error = _refusal(path, max_bytes=99)
    assert (error.kind, error.reason) == (jsontext.TOO_LARGE, "100 bytes, more than the limit of 99")


def _pretend_stat(monkeypatch: pytest.MonkeyPatch, path: Path, info: os.stat_result) -> None:
    """os.stat answers ``info`` for ``path`` (what it was when first looked at), the truth for any other path."""
    real = os.stat

    def pretend(target: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        return info if os.fspath(target) == str(path) else real(target, *args, **kwargs)

    monkeypatch.setattr(os, "stat", pretend)


def test_a_file_that_grows_after_it_was_looked_at_is_read_no_further_than_the_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, "[" + "1," * 500 + "1]")
    real = os.stat(path)
    small = os.stat_result((real.st_mode, *real[1:6], 10, *real[7:]))  # st_size 10, as when first looked at
    _pretend_stat(monkeypatch, path, small)
    error = _refusal(path, max_bytes=100)
    assert (error.kind, error.reason) == (jsontext.TOO_LARGE, "more than the limit of 100 bytes")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_or_a_directory_is_never_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    for target in (fifo, tmp_path):
        error = within_seconds(jsontext.read_bounded, str(target), 100)
        assert isinstance(error, jsontext.UnreadableJSON) and error.kind == jsontext.NOT_REGULAR, error
        assert error.reason.startswith("not a regular file")
    # Put in place after it was looked at (stat says a regular file): opened without waiting for a
    # writer, and refused once open.
    _pretend_stat(monkeypatch, fifo, os.stat(_write(tmp_path, "{}")))
    error = within_seconds(jsontext.read_bounded, str(fifo), 100)
    assert isinstance(error, jsontext.UnreadableJSON) and error.kind == jsontext.NOT_REGULAR, error


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    error = _refusal(tmp_path / "absent.json")
    assert (error.kind, error.reason) == (jsontext.NOT_FOUND, "file not found")


def test_a_number_the_callers_parser_refuses_is_refused_with_its_reason(tmp_path: Path) -> None:
    def at_most_three_digits(text: str) -> int:
        if len(text) > 3:
            raise jsontext.Refused(f"an integer of {len(text)} digits")
        return int(text)

    path = _write(tmp_path, '{"a": [1, 22, 4444]}')
    error = _refusal(path, parse_int=at_most_three_digits)
    assert (error.kind, error.reason) == (jsontext.REFUSED, "an integer of 4 digits")
    assert jsontext.read_json_file(str(path), max_bytes=100) == {"a": [1, 22, 4444]}


def test_bytes_already_read_are_decoded_by_the_same_rules() -> None:
    assert jsontext.decode_json(b'{"a": 0.5}', "saved.json", parse_float=DecimalText) == {"a": "0.5"}
    for raw, kind in ((b'{"a": 1, "a": 1}', jsontext.REPEATED_KEY), (b"[NaN]", jsontext.NOT_A_NUMBER),
                      (b"\xfe", jsontext.NOT_UTF8), (b"[" * DEEP, jsontext.NOT_JSON)):
        with pytest.raises(jsontext.UnreadableJSON) as caught:
            jsontext.decode_json(raw, "saved.json")
        assert caught.value.kind == kind and caught.value.path == "saved.json"
        assert str(caught.value).startswith("saved.json: ")


# --------------------------------------------------------------------------- the callers, each in its own words


HOSTILE = {
    "repeated key at depth": ('{"a": {"b": [{"c": 1, "c": 2}]}}', '"c" appears twice'),
    "NaN": ('{"a": [NaN]}', "NaN is not a JSON number"),
    "Infinity": ('{"a": -Infinity}', "-Infinity is not a JSON number"),
    "not UTF-8": (b'{"a": "\xff"}', "not UTF-8"),
    "not JSON": ('{"a": ', "not valid JSON"),
    "deep nesting": ("[" * DEEP + "]" * DEEP, "not valid JSON"),
}
READERS: dict[str, tuple[Callable[[str], Any], type[Exception]]] = {
    "dispatcher": (lambda path: certcheck.read_json(path), certcheck.BadInput),
    "control": (lambda path: control_checker.read_control_file(path), control_checker.BadInput),
    "softmax": (lambda path: softmax_checker._read(path, softmax_checker.DEFAULT_MAX_BYTES), softmax_checker.BadInput),
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_every_file_reader_refuses_what_the_shared_reader_refuses(tmp_path: Path, reader: str, case: str) -> None:
    read, bad_input = READERS[reader]
    content, fragment = HOSTILE[case]
    path = _write(tmp_path, content)
    with pytest.raises(bad_input) as caught:
        read(str(path))
    assert fragment in str(caught.value) and str(path) in str(caught.value)


@pytest.mark.parametrize("reader", sorted(READERS))
def test_every_file_reader_refuses_a_directory_a_fifo_and_a_file_too_large(tmp_path: Path, reader: str) -> None:
    read, bad_input = READERS[reader]
    targets = [tmp_path]
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.json")
        targets.append(tmp_path / "pipe.json")
    for target in targets:
        error = within_seconds(read, str(target))
        assert isinstance(error, bad_input) and "not a regular file" in str(error), error
    with open(tmp_path / "big.json", "wb") as handle:
        handle.truncate(control_checker.MAX_BYTES + softmax_checker.DEFAULT_MAX_BYTES)  # sparse
    with pytest.raises(bad_input, match="more than the limit of"):
        read(str(tmp_path / "big.json"))


def test_the_callers_keep_their_wording(tmp_path: Path) -> None:
    repeated = _write(tmp_path, '{"softmax_certificate": {}, "status": 1, "status": 2}')
    with pytest.raises(certcheck.BadInput, match='not read: the key "status" appears twice in one object'):
        certcheck.read_json(str(repeated))
    with pytest.raises(softmax_checker.BadInput, match="a file must say one thing to every reader"):
        softmax_checker.check_path(str(repeated))  # a repeated key is refused whatever the file's kind
    assert softmax_checker.check_path(str(_write(tmp_path, '{"a": NaN}', "nan.json"))) is None  # not a record
    big = _write(tmp_path, "[" + "0," * 50 + "0]", "big.json")
    with pytest.raises(certcheck.BadInput, match="more than the limit of 10 .*raise it with --max-bytes"):
        certcheck.read_json(str(big), max_bytes=10)
    long_integer = _write(tmp_path, "[" + "7" * (softmax_checker.MAX_DIGITS + 1) + "]", "long.json")
    with pytest.raises(softmax_checker.BadInput, match="beyond the checker's limit"):
        softmax_checker._read(str(long_integer), softmax_checker.DEFAULT_MAX_BYTES)


def test_load_if_control_decodes_only_a_control_result(tmp_path: Path) -> None:
    other = _write(tmp_path, '{"a": 1, "a": 2}', "other.json")
    assert control_checker.load_if_control(str(other)) is None  # not a control result: not even decoded
    assert control_checker.load_if_control(str(tmp_path)) is None
    marked = _write(tmp_path, '{"format": "%s", "format": "%s"}' % (control_checker.FORMAT, control_checker.FORMAT),
                    "control.json")
    with pytest.raises(control_checker.BadInput, match="appears twice"):
        control_checker.load_if_control(str(marked))


# --------------------------------------------------------------------------- the reproduction and the saved files


def _records(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "protocol"
    folder.mkdir()
    (folder / "d2-K0-s0.json").write_text('{"hardmax_accuracy": 0.5, "epoch": 3}', encoding="utf-8")
    (folder / "d2-K8-s0.json").write_text(text, encoding="utf-8")
    return folder


def test_a_per_run_record_that_reads_as_json_is_kept(tmp_path: Path) -> None:
    found = reproduction._run_records(str(_records(tmp_path, '{"hardmax_accuracy": 0.75, "epoch": 4}')))
    assert isinstance(found, tuple)
    assert str.__str__(found[0]["d2-K8-s0"]["hardmax_accuracy"]) == "0.75" and found[0]["d2-K0-s0"]["epoch"] == 3


@pytest.mark.parametrize("text, fragment", [
    # A first-wins reader sees 0.99 where json.loads (last wins) sees 0.75: the record is not read at all.
    ('{"hardmax_accuracy": 0.99, "epoch": 4, "hardmax_accuracy": 0.75}', '"hardmax_accuracy" appears twice'),
    ('{"hardmax_accuracy": 0.75, "epoch": 4, "softmax_best_test_epoch": {"test_acc": NaN}}', "NaN is not a JSON number"),
])
def test_a_per_run_record_with_a_repeated_key_or_nan_is_not_readable(tmp_path: Path, text: str, fragment: str) -> None:
    found = reproduction._run_records(str(_records(tmp_path, text)))
    assert isinstance(found, str), found
    assert found.startswith("the per-run record d2-K8-s0.json is not readable JSON") and fragment in found


def _history(tmp_path: Path, text: str) -> Any:
    path = _write(tmp_path, text, "checkpoint.json")
    return reproduction._checkpoint_history(str(path), 2, [reproduction.CHECKPOINT_HISTORY_BYTES])


def test_a_checkpoint_history_is_read_and_one_that_is_not_json_has_none(tmp_path: Path) -> None:
    history = _history(tmp_path, '{"history": [{"epoch": 1, "val_loss": 0.5}, {"epoch": 2, "val_loss": 0.25}]}')
    assert (history.lowest, history.lowest_epoch, history.unchecked, history.problem) == (0.25, 2, None, None)
    assert _history(tmp_path, '{"history": [') == reproduction._History(None, None, None)  # as the summary reads it


@pytest.mark.parametrize("text, fragment", [
    ('{"history": [{"epoch": 1, "val_loss": 0.5, "val_loss": 0.1}, {"epoch": 2, "val_loss": 0.25}]}',
     '"val_loss" appears twice'),
    ('{"history": [{"epoch": 1, "val_loss": 0.5}, {"epoch": 2, "val_loss": 0.25}], "lr": Infinity}',
     "Infinity is not a JSON number"),
])
def test_a_checkpoint_history_with_a_repeated_key_or_nan_is_not_checked(tmp_path: Path, text: str,
                                                                        fragment: str) -> None:
    history = _history(tmp_path, text)
    assert history.lowest is None and history.problem is None
    assert history.unchecked is not None and "not readable as strict JSON" in history.unchecked
    assert fragment in history.unchecked


def _section_item(data: Any) -> dict:
    """A saved file's entry as the report writes it for a sentiment file that is no evaluation, analysis or certificate."""
    return {"path": "runs/sentiment/notes.json", "sha256": "0" * 64, "summary": _scalar_summary(data)}


def test_a_saved_file_with_a_repeated_key_is_not_readable(tmp_path: Path) -> None:
    clean = b'{"seed": 1, "note": "kept"}'
    problem, data = checker_sections._section_file_problem("sentiment", _section_item(json.loads(clean)), clean,
                                                           str(tmp_path))
    assert problem is None and data == {"seed": 1, "note": "kept"}
    repeated = b'{"seed": 7, "note": "kept", "seed": 1}'  # json.loads, and the report, read seed 1
    problem, _ = checker_sections._section_file_problem("sentiment", _section_item(json.loads(repeated)), repeated,
                                                        str(tmp_path))
    assert problem is not None and problem.startswith("the file is not readable JSON (")
    assert '"seed" appears twice' in problem and "the item holds fields read from it" in problem
    nan = b'{"seed": NaN}'
    problem, _ = checker_sections._section_file_problem("sentiment", _section_item({"seed": None}), nan, str(tmp_path))
    assert problem is not None and "NaN is not a JSON number" in problem


# --------------------------------------------------------------------------- files read for their bytes


def _fifo_looking_regular(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fifo: Path) -> None:
    """A FIFO at ``fifo`` that os.stat (and so os.path.isfile) sees as the regular file it replaced."""
    os.mkfifo(fifo)
    _pretend_stat(monkeypatch, fifo, os.stat(_write(tmp_path, "{}", "was-regular.json")))


def test_a_saved_file_is_hashed_with_its_bytes_kept_within_the_budget(tmp_path: Path) -> None:
    content = b'{"seed": 1}'
    budget = [1000]
    digest, raw = checker_sections._hash_file(str(_write(tmp_path, content)), budget)
    assert (digest, raw, budget) == (hashlib.sha256(content).hexdigest(), content, [1000 - len(content)])
    with pytest.raises(checker_sections.SectionLimit, match="more than .* bytes in all"):
        checker_sections._hash_file(str(_write(tmp_path, content)), [len(content) - 1])
    for target, reason in ((tmp_path, "not a regular file"), (tmp_path / "absent.json", "absent.json: ")):
        with pytest.raises(checker_sections.Rejected, match=reason):
            checker_sections._hash_file(str(target), [1000])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_saved_file_replaced_by_a_fifo_after_it_was_looked_at_is_not_waited_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fifo = tmp_path / "pipe.json"
    _fifo_looking_regular(tmp_path, monkeypatch, fifo)
    error = within_seconds(checker_sections._hash_file, str(fifo), [1000])
    assert isinstance(error, checker_sections.Rejected) and "not a regular file" in str(error), error


def _protocol_summary(tmp_path: Path) -> tuple[dict, str, Path]:
    """summary.json's content naming protocols/reproduction.toml, the runs folder, and where that file belongs."""
    (tmp_path / "runs").mkdir()
    (tmp_path / "protocols").mkdir()
    return {"protocol": {"file": "protocols/reproduction.toml", "sha256": "0" * 64}}, str(tmp_path / "runs"), \
        tmp_path / "protocols" / "reproduction.toml"


def test_the_protocol_file_is_read_within_its_limit(tmp_path: Path) -> None:
    data, base, path = _protocol_summary(tmp_path)
    with pytest.raises(checker_sections.SectionLimit, match="was not found beside the runs folder"):
        reproduction.reproduction_problem(data, base)
    path.write_bytes(b"# " + b"x" * reproduction.PROTOCOL_FILE_BYTES)
    assert reproduction.reproduction_problem(data, base) == \
        f"the protocol file {path} is more than {reproduction.PROTOCOL_FILE_BYTES} bytes"
    path.write_bytes(b"[common]\n")
    digest = hashlib.sha256(b"[common]\n").hexdigest()
    assert reproduction.reproduction_problem(data, base) == \
        f"summary.json gives the protocol sha256 {'0' * 64}, the file {path} has {digest}"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_protocol_file_replaced_by_a_fifo_after_it_was_looked_at_is_not_waited_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data, base, path = _protocol_summary(tmp_path)
    _fifo_looking_regular(tmp_path, monkeypatch, path)
    error = within_seconds(reproduction.reproduction_problem, data, base)
    assert isinstance(error, checker_sections.SectionLimit) and "not a regular file" in str(error), error
