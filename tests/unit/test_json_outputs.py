"""Every JSON file the suite writes is one its readers can read: no NaN, no Infinity.

JSON has no such numbers; ``json.dumps`` writes them anyway (``NaN``, ``Infinity``), and the
readers of saved files (:func:`verify.core.io.read_json`, the independent checkers) refuse them.
So every JSON output is made by :func:`verify.core.io.json_text`, which refuses a non-finite
number when the text is made, naming the field (exit status 4, nothing written), and a writer
whose numbers may legitimately be non-finite records them readably first: a training epoch's
NaN loss is null, named under ``not_finite``.
"""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import numpy as np
import pytest

import verify
from tests.common.protocols import write_tiny_protocol
from tests.common.source_scan import json_calls
from verify.core.exitcodes import CouldNotComplete
from verify.core.io import NonFiniteJSON, json_text, read_json
from verify.experiments.imdb.preprocess import PAD, Vocabulary
from verify.experiments.sentiment.checkpoints import ModelWeights, read_checkpoint, write_checkpoint
from verify.experiments.sentiment.model import recorded_entry
from verify.experiments.sentiment.protocol import load_protocol, run_queue

# --------------------------------------------------------------------------- the writer


@pytest.mark.parametrize("value, field, number", [
    ({"history": [{"epoch": 1, "val_loss": math.nan}]}, "history[0].val_loss", "nan"),
    ({"a": {"b": [1.0, 2.0, -math.inf]}}, "a.b[2]", "-inf"),
    ([math.inf], "[0]", "inf"),
])
def test_a_non_finite_number_is_refused_naming_the_field(value, field: str, number: str) -> None:
    assert "NaN" in json.dumps(value) or "Infinity" in json.dumps(value)  # what json.dumps would write
    with pytest.raises(NonFiniteJSON) as caught:
        json_text(value, where="out.json")
    error = caught.value
    assert (error.where, error.field, repr(error.value)) == ("out.json", field, number)
    assert str(error).startswith(f"out.json: {field} is {number}, which JSON cannot hold")
    assert isinstance(error, CouldNotComplete)  # exit status 4: the output could not be made


def test_a_non_finite_number_given_by_default_is_named_too() -> None:
    def default(value):
        if isinstance(value, np.floating):
            return float(value)
        raise TypeError(type(value).__name__)

    assert json_text({"x": np.float32(0.5)}, where="a.json", default=default) == '{\n "x": 0.5\n}\n'
    with pytest.raises(NonFiniteJSON, match=r"a.json: summary.mean is nan"):
        json_text({"summary": {"mean": np.float32("nan")}}, where="a.json", default=default)
    with pytest.raises(TypeError):  # what default refuses stays json.dumps's error
        json_text({"x": object()}, where="a.json", default=default)


def test_the_text_is_json_dumps_text_with_its_options() -> None:
    value = {"b": [1, 0.1, "é"], "a": None}
    for options in ({}, {"indent": 2, "sort_keys": True}, {"indent": None, "separators": (",", ":")},
                    {"ensure_ascii": False}):
        expected = json.dumps(value, **{"indent": 1, **options})
        assert json_text(value, where="x", **options) == expected + "\n"
        assert json_text(value, where="x", newline=False, **options) == expected


# --------------------------------------------------------------------------- checkpoint.json


def _weights() -> ModelWeights:
    return ModelWeights(embedding=np.arange(8, dtype=np.float32).reshape(4, 2) / 10,
                        alpha_raw=np.float32(0.5).reshape(()), alpha=np.float32(0.974).reshape(()),
                        decoder_weight=np.array([1.0, -1.0], dtype=np.float32), decoder_bias=np.float32(0.0).reshape(()))


def _write(folder: Path, history: list[dict]) -> None:
    write_checkpoint(folder, meta={"epochs_completed": len(history), "history": history}, weights=_weights(),
                     best=None, optimizer=None, vocabulary=Vocabulary((PAD, "a", "b", "c")))


def test_a_checkpoint_with_a_nan_loss_is_never_written_unreadable(tmp_path: Path) -> None:
    folder = tmp_path / "ck"
    _write(folder, [{"epoch": 1, "val_loss": 0.5}])
    with pytest.raises(NonFiniteJSON) as caught:
        _write(folder, [{"epoch": 1, "val_loss": 0.5}, {"epoch": 2, "val_loss": math.nan}])
    assert caught.value.where == str(folder / "checkpoint.json") and caught.value.field == "history[1].val_loss"
    # Nothing half-written: the folder still holds the previous, readable checkpoint.
    assert read_checkpoint(folder).meta["history"] == [{"epoch": 1, "val_loss": 0.5}]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck"]


def test_a_diverged_epochs_entry_is_recorded_readably(tmp_path: Path) -> None:
    entry = {"epoch": 2, "train_running_loss": math.nan, "val_loss": math.inf, "val_acc": 0.5, "step": "compiled"}
    recorded = recorded_entry(entry)
    assert recorded == {"epoch": 2, "train_running_loss": None, "val_loss": None, "val_acc": 0.5, "step": "compiled",
                        "not_finite": {"train_running_loss": "nan", "val_loss": "inf"}}
    assert recorded_entry({"epoch": 1, "val_loss": 0.25}) == {"epoch": 1, "val_loss": 0.25}
    _write(tmp_path / "ck", [recorded])
    assert read_checkpoint(tmp_path / "ck").meta["history"] == [recorded]


# --------------------------------------------------------------------------- protocol records





@pytest.mark.parametrize("bad", ["evaluation", "interpretation"])
def test_a_protocol_record_with_a_nan_is_refused_naming_the_field_and_not_written(tmp_path: Path, bad: str) -> None:
    path = write_tiny_protocol(tmp_path, epochs=1)
    runs = tmp_path / "runs"
    finite = {"hardmax_accuracy": 0.5}
    with pytest.raises(NonFiniteJSON) as caught:
        run_queue(load_protocol(path), runs, data=None, cache_dir=None,
                  train_run=lambda **_: {"best": {"val_acc": 0.5, "epoch": 1}, "epochs_completed": 1},
                  evaluate_run=lambda checkpoint, **_: {**finite, "hardmax_loss": math.nan} if bad == "evaluation" else finite,
                  interpret_run=lambda checkpoint, **_: {"deletion": {"flip_rate": math.nan}})
    name = f"{bad}.json"
    assert caught.value.where == str(runs / "d2-K1-s0" / name)
    assert caught.value.field == ("hardmax_loss" if bad == "evaluation" else "deletion.flip_rate")
    assert not (runs / "d2-K1-s0" / name).exists()
    if bad == "interpretation":  # the evaluation before it was written, and reads back
        assert read_json(runs / "d2-K1-s0" / "evaluation.json", expected="a record")["hardmax_accuracy"] == 0.5


# --------------------------------------------------------------------------- no other writer


# Where the package may call json.dumps / json.dump other than through verify.core.io.json_text.
# The independent checkers import nothing of the package: their outputs pass allow_nan=False.
INDEPENDENT_WRITERS = {
    ("certcheck/cli.py", "main"),
    ("certcheck/softmax/__init__.py", "main"),
    ("certcheck/classify/__init__.py", "main"),
}
# Texts that are no file's content: keys, hashes' input, messages, in-memory round trips.
NOT_WRITTEN = {
    ("core/io.py", "canonical_json"),                # the text a plan's or a sweep cell's sha256 is taken of (allow_nan=False)
    ("app/campaign/plan.py", "_shown"),              # a value quoted in a message
    ("certcheck/kernel/closed_form.py", "_run_chain"),      # a key telling distinct values apart
    ("certcheck/kernel/fates.py", "_fates_of"),             # a key
    ("certcheck/jsontext.py", "_unique_keys"),       # a key quoted in a message
    ("certcheck/kernel/jsonvalues.py", "canonical_json"),   # the checker's own canonical text, for sha256
    ("certcheck/kernel/model.py", "model_of"),             # a cache key
    ("certcheck/kernel/similarity.py", "no_leader_ever"),   # a cache key
    ("certcheck/kernel/statuses.py", "facts_of"),           # a key
    ("certcheck/classify/__init__.py", "_construction_problems"),  # a block quoted in a message
    ("experiments/classify/experiment.py", "run_imdb"),   # json.loads(json.dumps(...)): plain JSON values in memory
    ("experiments/conjectures/base.py", "_config_key"),   # a key
    ("experiments/conjectures/base.py", "_confirm"),      # json.loads(json.dumps(...)), in memory
    ("testing.py", "_configuration_text"),           # a configuration quoted in a failure message
    ("testing.py", "assert_claim_certified"),        # evidence quoted in a failure message
}


def _encoders(source: str) -> list[tuple[str, bool]]:
    """The functions of ``source`` that call json.dumps or json.dump, each with whether it passes allow_nan=False."""
    return [(function, any(k.arg == "allow_nan" and isinstance(k.value, ast.Constant) and k.value.value is False
                           for k in call.keywords))
            for function, call in json_calls(source, ("dump", "dumps"))]


def test_the_scan_sees_a_json_writer() -> None:
    assert _encoders("import json\ndef f(p, x):\n    p.write_text(json.dumps(x))\n") == [("f", False)]
    assert _encoders("import json\ndef g(x):\n    return json.dumps(x, allow_nan=False)\n") == [("g", True)]


def test_every_json_output_is_made_by_the_one_writer() -> None:
    package = Path(verify.__file__).parent
    calls = {(path.relative_to(package).as_posix(), function, strict)
             for path in sorted(package.rglob("*.py")) for function, strict in _encoders(path.read_text(encoding="utf-8"))}
    found = {(module, function) for module, function, _ in calls}
    assert ("core/io.py", "json_text", True) in calls
    others = found - {("core/io.py", "json_text")} - NOT_WRITTEN - INDEPENDENT_WRITERS
    assert others == set(), "make JSON outputs with verify.core.io.json_text"
    assert {(m, f) for m, f, strict in calls if (m, f) in INDEPENDENT_WRITERS and not strict} == set()
    assert (NOT_WRITTEN | INDEPENDENT_WRITERS) - found == set(), "a listed call is gone: take it off the list"
