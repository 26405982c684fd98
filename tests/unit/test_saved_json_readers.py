"""The product reads the JSON files it saved as the independent checker reads them: strictly.

A file must say one thing to every reader. ``json.loads`` keeps the last of two equal keys in one
object and reads ``NaN``; certcheck (verify/certcheck/jsontext.py) refuses both. The product's
readers of its saved results (evaluation records, checkpoint.json, results files, the saved files
a report quotes) go through its one reader of input files, :func:`verify.core.io.read_json`, and
refuse them too, with an InputError naming the file (exit status 2), or, in a report, list the
file as unreadable, as certcheck then expects.
"""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import pytest

import verify
from tests.common.source_scan import json_calls
from verify.app.campaign.plan import parse_results_file
from verify.app.cli import main
from verify.app.commands.sentiment import _alpha_fixed, _earlier_softmax_rows
from verify.app.report.build import collect_optional_sections
from verify.certcheck.results import sections as checker_sections
from verify.certcheck.kernel.jsonvalues import UNREADABLE
from verify.core.io import json_from_bytes, read_json
from verify.core.numbers import InputError
from verify.experiments.classify.experiment import previous_results
from verify.experiments.sentiment import protocol as sentiment_protocol
from verify.experiments.sentiment.checkpoints import read_checkpoint
from verify.experiments.sentiment.protocol import load_protocol
from verify.experiments.sentiment.summary import load_results, summarize

REPOSITORY = Path(__file__).resolve().parents[2]
PROTOCOL = REPOSITORY / "protocols" / "reproduction.toml"

# Texts json.loads reads without a word, and what the refusal says.
AMBIGUOUS = {
    "repeated key": ('{"hardmax_accuracy": 0.99, "epoch": 4, "hardmax_accuracy": 0.75}',
                     'the key "hardmax_accuracy" appears twice in one object'),
    "repeated key at depth": ('{"history": [{"epoch": 1, "val_loss": 0.5, "val_loss": 0.1}]}',
                              'the key "val_loss" appears twice in one object'),
    "NaN": ('{"hardmax_accuracy": NaN, "epoch": 4}', "NaN is not a number"),
    "Infinity": ('{"history": [{"epoch": 1, "val_loss": -Infinity}]}', "-Infinity is not a number"),
}


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _refused(call: Callable[[], Any], path: Path, fragment: str) -> InputError:
    with pytest.raises(InputError) as caught:
        call()
    assert str(path) in str(caught.value) and fragment in str(caught.value), caught.value
    return caught.value


# --------------------------------------------------------------------------- the reader


@pytest.mark.parametrize("case", sorted(AMBIGUOUS))
def test_the_reader_refuses_what_json_loads_reads_naming_the_file(tmp_path: Path, case: str) -> None:
    text, fragment = AMBIGUOUS[case]
    assert isinstance(json.loads(text), dict)
    path = _write(tmp_path / "record.json", text)
    error = _refused(lambda: read_json(path, expected="a record"), path, fragment)
    assert error.field == str(path)
    _refused(lambda: json_from_bytes(text.encode(), source=str(path), expected="a record"), path, fragment)


def test_the_reader_reads_numbers_as_they_were_written(tmp_path: Path) -> None:
    path = _write(tmp_path / "record.json", '{"accuracy": 0.1, "epoch": 4, "nested": [{"a": 1e-3}]}')
    data = read_json(path, expected="a record")
    assert data == {"accuracy": 0.1, "epoch": 4, "nested": [{"a": 0.001}]}
    assert type(data["accuracy"]) is float and type(data["epoch"]) is int
    assert str(read_json(path, expected="a record", parse_float=str)["accuracy"]) == "0.1"
    _refused(lambda: read_json(path, expected="a record", limit=10), path, "more than the 10 bytes")
    bad = tmp_path / "latin.json"
    bad.write_bytes(b'{"a": "\xff"}')
    _refused(lambda: read_json(bad, expected="a record"), bad, "is not UTF-8 text, expected a record")


# --------------------------------------------------------------------------- its callers


def _models(tmp_path: Path, text: str) -> Path:
    _write(tmp_path / "models" / "d2-K8-s0" / "checkpoint.json", text)
    return tmp_path / "models"


@pytest.mark.parametrize("case", sorted(AMBIGUOUS))
def test_the_sentiment_summary_refuses_an_ambiguous_record_or_checkpoint(tmp_path: Path, case: str) -> None:
    text, fragment = AMBIGUOUS[case]
    record = _write(tmp_path / "results" / "d2-K8-s0.json", text)
    _refused(lambda: load_results(tmp_path / "results"), record, fragment)
    protocol = load_protocol(PROTOCOL)
    evaluations = {"d2-K8-s0": {"hardmax_accuracy": 0.8, "epoch": 1, "epochs_completed": 2}}
    models = _models(tmp_path, text)
    _refused(lambda: summarize(protocol, evaluations, models_dir=models), models / "d2-K8-s0" / "checkpoint.json",
             fragment)


def test_the_sentiment_summary_reads_a_clean_record_and_a_checkpoint_history(tmp_path: Path) -> None:
    _write(tmp_path / "results" / "d2-K8-s0.json", '{"hardmax_accuracy": 0.75, "epoch": 1}')
    evaluations, _ = load_results(tmp_path / "results")
    assert evaluations == {"d2-K8-s0": {"hardmax_accuracy": 0.75, "epoch": 1}}
    models = _models(tmp_path, '{"history": [{"epoch": 1, "val_loss": 0.5}, {"epoch": 2, "val_loss": 0.25}]}')
    summary = summarize(load_protocol(PROTOCOL), {"d2-K8-s0": {"hardmax_accuracy": 0.75, "epoch": 1, "epochs_completed": 2}},
                        models_dir=models)
    [row] = [e for e in next(t for t in summary["tables"] if t["name"] == "training-length")["data"]
             if e["run"] == "d2-K8-s0"]
    assert row["lowest_val_loss_epoch"] == 2


def test_sentiment_summarize_exits_2_naming_an_ambiguous_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = _write(tmp_path / "results" / "d2-K8-s0.json", AMBIGUOUS["repeated key"][0])
    status = main(["sentiment", "summarize", "--protocol", str(PROTOCOL), "--results", str(tmp_path / "results"),
                   "--out", str(tmp_path / "summary"), "--models", str(tmp_path / "models")])
    err = capsys.readouterr().err
    assert status == 2 and str(record) in err and "appears twice" in err, err
    assert len([line for line in err.splitlines() if line.strip()]) == 1
    assert not (tmp_path / "summary").exists()


@pytest.mark.parametrize("case", sorted(AMBIGUOUS))
def test_the_protocols_readers_refuse_an_ambiguous_record_or_checkpoint(tmp_path: Path, case: str) -> None:
    text, fragment = AMBIGUOUS[case]
    collected = _write(tmp_path / "results" / "d2-K8-s0.json", text)
    _refused(lambda: sentiment_protocol.collected_record(SimpleNamespace(sha256="x"), tmp_path / "results", "d2-K8-s0"),
             collected, fragment)
    evaluation = _write(tmp_path / "run" / "evaluation.json", text)
    _refused(lambda: sentiment_protocol._evaluation_record(evaluation), evaluation, fragment)
    checkpoint = _write(tmp_path / "checkpoint" / "checkpoint.json", text)
    _refused(lambda: read_checkpoint(tmp_path / "checkpoint"), checkpoint, fragment)
    _refused(lambda: _alpha_fixed(tmp_path / "checkpoint", tmp_path / "update.json"), tmp_path / "update.json",
             "cannot tell")


@pytest.mark.parametrize("case", sorted(AMBIGUOUS))
def test_publishing_refuses_an_ambiguous_checkpoint(tmp_path: Path, case: str) -> None:
    text, fragment = AMBIGUOUS[case]
    source = tmp_path / "run" / "checkpoint"
    files = {"checkpoint.json": text.encode(), "vocab.txt.gz": b"vocabulary", "best.safetensors": b"weights"}
    for name, content in files.items():
        source.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes(content)
    record = {"checkpoint_sha256": {name: hashlib.sha256(content).hexdigest() for name, content in files.items()}}
    _refused(lambda: sentiment_protocol._published_files("d2-K8-s0", source, tmp_path / "models" / "d2-K8-s0", record),
             source / "checkpoint.json", fragment)


def test_the_queue_status_notes_an_ambiguous_checkpoint(tmp_path: Path) -> None:
    protocol = load_protocol(PROTOCOL)
    name = protocol.runs[0].name
    clean = '{"epochs_completed": 3, "best": {"epoch": 2, "val_acc": 0.7}, "history": []}'
    _write(tmp_path / name / "checkpoint" / "checkpoint.json", clean)
    [first, *_] = sentiment_protocol.queue_status(protocol, tmp_path)
    assert first["state"] == "in progress" and first["epochs"] == 3 and "note" not in first
    _write(tmp_path / name / "checkpoint" / "checkpoint.json", clean[:-1] + ', "epochs_completed": 9}')
    [first, *_] = sentiment_protocol.queue_status(protocol, tmp_path)
    assert first["note"] == "checkpoint.json unreadable" and first.get("epochs") is None


@pytest.mark.parametrize("case", sorted(AMBIGUOUS))
def test_results_files_read_back_refuse_an_ambiguous_file(tmp_path: Path, case: str) -> None:
    text, fragment = AMBIGUOUS[case]
    path = _write(tmp_path / "results.json", text)
    _refused(lambda: parse_results_file(path), path, fragment)
    _refused(lambda: previous_results(path, test_size=None), path, fragment)
    _refused(lambda: _earlier_softmax_rows(path), path, fragment)


# --------------------------------------------------------------------------- a report agrees with certcheck


@pytest.mark.parametrize("case", sorted(AMBIGUOUS))
def test_a_report_lists_an_ambiguous_saved_file_as_unreadable_as_certcheck_expects(tmp_path: Path, case: str) -> None:
    text, fragment = AMBIGUOUS[case]
    runs = tmp_path / "runs"
    path = _write(runs / "sentiment" / "d2.json", text)
    sections, _ = collect_optional_sections(runs, label="runs")
    [item] = sections["sentiment"]["files"]
    assert item == {"path": "runs/sentiment/d2.json", "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                    "summary": {"unreadable": item["summary"]["unreadable"]}}
    assert fragment in item["summary"]["unreadable"]
    # certcheck reads the same bytes, refuses them too, and so accepts the item as the report wrote it.
    assert checker_sections._section_file_problem("sentiment", item, path.read_bytes(), str(runs)) == (None, UNREADABLE)


def test_a_report_reads_a_clean_saved_file(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    _write(runs / "sentiment" / "d2.json", '{"d": 2, "test_accuracy": 0.79, "curve": [1, 2]}')
    sections, _ = collect_optional_sections(runs, label="runs")
    assert sections["sentiment"]["files"][0]["summary"] == {"d": 2, "test_accuracy": 0.79}


# --------------------------------------------------------------------------- no other reader


# Where the package may still call json.load / json.loads: the strict readers themselves, the binary
# formats' embedded headers (checked field by field), and commands echoing a file they just wrote.
ALLOWED_DECODERS = {
    ("core/numbers.py", "parse_json"),
    ("certcheck/jsontext.py", "decode_json"),
    ("experiments/sentiment/checkpoints.py", "_embedding_layout"),
    ("experiments/sentiment/checkpoints.py", "_compact_header"),
    ("app/commands/report.py", "_run"),
    ("app/commands/sentiment.py", "train"),
    ("app/commands/sentiment.py", "analyze"),
}


def _decoders(source: str) -> list[str]:
    """The functions of ``source`` that call json.load or json.loads on anything but json.dumps(...)."""
    def round_trip(call: ast.Call) -> bool:
        argument = call.args[0] if call.args else None
        return isinstance(argument, ast.Call) and isinstance(argument.func, ast.Attribute) and argument.func.attr == "dumps"
    return [function for function, call in json_calls(source, ("load", "loads")) if not round_trip(call)]


def test_the_scan_sees_a_json_reader() -> None:
    assert _decoders("import json\ndef f(p):\n    return json.loads(p.read_text())\n") == ["f"]
    assert _decoders("import json\ndef f(x):\n    return json.loads(json.dumps(x))\n") == []


def test_no_other_module_decodes_json_on_its_own() -> None:
    package = Path(verify.__file__).parent
    found = {(path.relative_to(package).as_posix(), function)
             for path in sorted(package.rglob("*.py")) for function in _decoders(path.read_text(encoding="utf-8"))}
    assert found - ALLOWED_DECODERS == set(), "read JSON files with verify.core.io.read_json"
    assert ALLOWED_DECODERS - found == set(), "an allowed decoder is gone: take it off the list"
