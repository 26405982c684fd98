"""The independent classification checker: reading, the replay against the oracle, verdicts."""

from __future__ import annotations

import json
from fractions import Fraction as F

import numpy as np
import pytest

from verify.certcheck import classify as checker
from verify.experiments.classify import oracle
from verify.experiments.classify.construction import build_network
from verify.experiments.classify.dataset import dataset_to_json, make_dataset, parse_dataset
from verify.experiments.classify.strategies import generate_dataset
from verify.core.numbers import InputError, parse_json, to_rational


@pytest.mark.parametrize("text", ["0", "-3", "2/7", "2 / -7", " 5 ", "0.1", "-.5", "1e-3", "2.5E+2", "1.", "007"])
def test_numbers_are_read_as_the_package_reads_them(text: str) -> None:
    assert checker._number(text, "x") == to_rational(text)


@pytest.mark.parametrize("text", ["1/0", "abc", "1e99999", "inf", "nan", "", "1/2/3", "١٢", "0x10"])
def test_numbers_the_package_refuses_are_refused(text: str) -> None:
    with pytest.raises(InputError):
        to_rational(text)
    with pytest.raises(checker.BadInput):
        checker._number(text, "x")


def test_booleans_are_not_numbers() -> None:
    with pytest.raises(checker.BadInput, match="boolean"):
        checker._number(True, "labels[0]")


def test_fingerprint_equals_the_packages_on_every_spelling() -> None:
    text = ('{"sequences": [[["0.5", 1], ["1/2", "1e0"]], [[-2.25, "3/9"]], [[1, 2], ["4/8", 1.0]]], '
            '"labels": ["0", 1.5, "-2/4"]}')
    assert checker.Data(json.loads(text, parse_float=str)).fingerprint() == parse_dataset(parse_json(text)).fingerprint()
    bare = '{"sequences": [[0, "1/2", 0.5], [3]], "labels": [0, 1]}'
    assert checker.Data(json.loads(bare, parse_float=str)).fingerprint() == parse_dataset(parse_json(bare)).fingerprint()


def _files(dataset, **build):
    result = build_network(dataset, **build)
    return json.loads(json.dumps(result.to_json())), json.loads(json.dumps(dataset_to_json(dataset)))


def test_a_misclassified_sequence_is_named() -> None:
    dataset = make_dataset([[0, 1], [1, 2], [3]], [0, 1, 0])
    network, data = _files(dataset)
    data["labels"][1] = "5"
    outcome = checker.check_objects(network, data)
    assert outcome.exit_status == 1
    assert [n for n, _, _ in outcome.misclassified] == [1]
    assert outcome.summary().startswith("sequences[1] misclassified: label 5")
    assert not outcome.compared_outputs   # another dataset: recorded outputs not compared


def test_a_recorded_output_that_disagrees_with_the_replay_is_rejected() -> None:
    network, data = _files(make_dataset([[0, 1], [1, 2], [3]], [0, 1, 0]))
    network["classification"]["outputs"][2][0] = "12345"
    outcome = checker.check_objects(network, data)
    assert outcome.misclassified == [] and outcome.mismatches == [2]
    assert outcome.exit_status == 1


@pytest.mark.parametrize("edit, field", [
    (lambda n, d: n.update(format="x"), "format"),
    (lambda n, d: d.update(sequences=[[["1", "2"]]] * 3), "d"),
    (lambda n, d: n.update(d=3), "blocks[0].attention.V"),
    (lambda n, d: n["blocks"][0].update(extra=1), "blocks[0].extra"),
    (lambda n, d: n.update(leaders=[1]), "leaders"),
    (lambda n, d: n["blocks"][-1]["feedforward"]["b"].append("1"), "blocks[2].feedforward.b"),
    (lambda n, d: n["blocks"][1]["attention"].update(rho="one"), "blocks[1].attention.rho"),
    (lambda n, d: n["blocks"][1]["attention"].update(B={"key": ["1"]}), "blocks[1].attention.B"),
    (lambda n, d: d.update(labels=[0]), "labels"),
    (lambda n, d: d["sequences"][0].append(["1", "2"]), "sequences[0][2]"),
])
def test_bad_input_names_the_field(edit, field: str) -> None:
    network, data = _files(make_dataset([[0, 1], [1, 2], [3]], [0, 1, 0]))
    edit(network, data)
    with pytest.raises(checker.BadInput) as caught:
        checker.check_objects(network, data)
    assert caught.value.field == field


def _finals(network: dict, data: dict) -> list[list[tuple]]:
    finals = checker.replay(checker.Network(network), checker.Data(data))
    return [sorted(x for x, c in tokens for _ in range(c)) for tokens in finals]


def test_replay_agrees_with_the_oracle_on_mutated_networks() -> None:
    """Random one-parameter changes of built networks (sweeps, hats, attention) against the oracle."""
    rng = np.random.default_rng(3)
    for case in range(12):
        dataset = generate_dataset(n=int(rng.integers(2, 9)), d=int(rng.integers(1, 4)), max_length=6,
                                   seed=int(rng.integers(0, 10 ** 6)))
        network, data = _files(dataset, width_cap=[None, 4, 6][case % 3])
        entries = [(i, part, name) for i, block in enumerate(network["blocks"])
                   for part, value in block.items() if value is not None for name in value]
        i, part, name = entries[int(rng.integers(0, len(entries)))]
        value = network["blocks"][i][part][name]
        if value is None:
            continue
        flat = value if isinstance(value, str) else None
        if flat is not None:
            network["blocks"][i][part][name] = str(F(flat) + F(1, 3))
        else:
            target = value[int(rng.integers(0, len(value)))] if isinstance(value, list) and isinstance(value[0], list) else value
            if isinstance(target, dict):
                target = target["key"]
            k = int(rng.integers(0, len(target)))
            target[k] = str(F(target[k]) + F(int(rng.integers(-3, 4)) or 1, 2))
        sequences = [dataset.sequence(n) for n in range(len(dataset))]
        expected = [sorted(s) for s in oracle.forward(network, sequences)]
        assert _finals(network, data) == expected, case


def test_a_run_of_hats_is_swept_and_agrees_with_direct_application() -> None:
    dataset = generate_dataset(n=25, d=2, max_length=8, seed=9)
    network, data = _files(dataset, width_cap=4)
    run = [b for b in network["blocks"] if b["attention"] is None]
    assert len(run) > 5, "the narrow read-out should give a run of single-direction layers"
    swept = _finals(network, data)
    # An attention layer with rho = 1 and V = 0 is the identity and ends a run, so with one after
    # every layer each is applied to every point directly: the sweep must give the same answer.
    identity = {"rho": "1", "V": [["0", "0"], ["0", "0"]], "B": None}
    cut = dict(network, blocks=[dict(b, attention=b["attention"] or identity) for b in network["blocks"]])
    assert swept == _finals(cut, data)
    assert [{x[0] for x in tokens} for tokens in swept] == [{y} for y in dataset.labels]


def test_a_fifo_is_refused_by_build_and_check_without_blocking(tmp_path) -> None:
    # Reading a named pipe blocks until a writer comes; both readers refuse it at once (exit 2).
    import os
    import subprocess
    import sys

    from verify.experiments.classify.dataset import load_dataset

    fifo = tmp_path / "data.json"
    os.mkfifo(fifo)
    network, _ = _files(make_dataset([[0, 1], [1, 2], [3]], [0, 1, 0]))
    (tmp_path / "net.json").write_text(json.dumps(network))
    # The commands first, each in a child process, so that a reader that blocks fails by the timeout.
    for argv in (["-m", "verify", "classify", "build", str(fifo), "--out", str(tmp_path / "out.json")],
                 ["-m", "verify", "classify", "check", str(tmp_path / "net.json"), str(fifo)],
                 ["-m", "verify.certcheck.classify", str(tmp_path / "net.json"), str(fifo)]):
        done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=30)
        assert done.returncode == 2 and "not a regular file" in done.stderr, (argv, done.stderr)
        assert done.stderr.count("\n") == 1
    assert not (tmp_path / "out.json").exists()
    with pytest.raises(InputError, match=r"data.json: is a FIFO \(named pipe\), not a regular file"):
        load_dataset(fifo)
    with pytest.raises(checker.BadInput, match="data.json: not a regular file"):
        checker.check_files(str(tmp_path / "net.json"), str(fifo))


def test_the_checkers_usage_error_is_one_line(capsys) -> None:
    assert checker.main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "required: network, data" in err
    assert checker.main(["--help"]) == 0


def test_the_checker_on_its_own_writes_json_as_every_command_does(tmp_path, capsys) -> None:
    # The README's --json [FILE|-]: to standard output with - or no value (the summary to standard
    # error), to FILE whole (the summary stays on standard output); a write that fails is exit 4.
    network, data = _files(make_dataset([[0, 1], [1, 2], [3]], [0, 1, 0]))
    (tmp_path / "net.json").write_text(json.dumps(network))
    (tmp_path / "data.json").write_text(json.dumps(data))
    files = [str(tmp_path / "net.json"), str(tmp_path / "data.json")]
    for argv in (["--json"], ["--json", "-"]):
        assert checker.main([*files, *argv]) == 0
        captured = capsys.readouterr()
        assert json.loads(captured.out)["status"] == "certified" and "classified exactly" in captured.err
    assert checker.main([*files, "--json", str(tmp_path / "out.json")]) == 0
    captured = capsys.readouterr()
    assert "classified exactly" in captured.out and captured.err == ""
    assert json.loads((tmp_path / "out.json").read_text())["status"] == "certified"
    assert checker.main([*files, "--json", "/dev/full"]) == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "could not complete" in err and "No space left" in err


# The texts a file must not say in two ways (tests/unit/test_certcheck_jsontext.py refuses the same in
# certcheck's reader): the checker imports nothing from the package, so it carries the rule itself.
AMBIGUOUS = {
    "repeated key": '{"sequences": [[0]], "labels": [0], "labels": [1]}',
    "repeated key at depth": '{"sequences": [[0]], "labels": [0], "name": [{"a": 1, "b": 2, "a": 1}]}',
    "the same key written two ways": '{"sequences": [[0]], "labels": [0], "name": {"\\u00e9": 1, "é": 2}}',
    "NaN": '{"sequences": [[NaN]], "labels": [0]}',
    "Infinity": '{"sequences": [[0]], "labels": [-Infinity]}',
}


@pytest.mark.parametrize("case", sorted(AMBIGUOUS))
def test_json_that_says_two_things_is_refused_as_certchecks_reader_refuses_it(tmp_path, case: str) -> None:
    from verify.certcheck import jsontext

    path = tmp_path / "data.json"
    path.write_text(AMBIGUOUS[case], encoding="utf-8")
    with pytest.raises(jsontext.UnreadableJSON) as shared:
        jsontext.read_json_file(str(path), max_bytes=1 << 20)
    assert shared.value.kind in jsontext.AMBIGUOUS
    with pytest.raises(checker.BadInput) as caught:
        checker._read_json(str(path))
    assert caught.value.field == str(path) and shared.value.reason in caught.value.message


def test_a_repeated_key_in_either_file_is_bad_input_naming_the_file(tmp_path, capsys) -> None:
    network, data = _files(make_dataset([[0, 1], [1, 2], [3]], [0, 1, 0]))
    (tmp_path / "net.json").write_text(json.dumps(network))
    (tmp_path / "data.json").write_text(json.dumps(data))
    files = [str(tmp_path / "net.json"), str(tmp_path / "data.json")]
    assert checker.main(files) == 0
    capsys.readouterr()
    # Labels stated twice: json.loads keeps the second list, which the network classifies; another
    # reader keeps the first. The file is refused, never certified for one of its readings.
    (tmp_path / "data.json").write_text(json.dumps(data).replace('"labels": ', '"labels": [5, 5, 5], "labels": ', 1))
    assert json.loads((tmp_path / "data.json").read_text())["labels"] == data["labels"]
    assert checker.main(files) == 2
    assert f"{tmp_path / 'data.json'}: the key \"labels\" appears twice in one object" in capsys.readouterr().err
    (tmp_path / "data.json").write_text(json.dumps(data))
    block = json.dumps(network["blocks"][0])
    (tmp_path / "net.json").write_text(json.dumps(network).replace(block, block[:-1] + ', "attention": null}', 1))
    assert checker.main(files) == 2
    assert f"{tmp_path / 'net.json'}: the key \"attention\" appears twice in one object" in capsys.readouterr().err


def test_a_file_larger_than_the_limit_is_refused_before_it_is_read(tmp_path) -> None:
    path = tmp_path / "data.json"
    path.write_text('{"sequences": [[0]], "labels": [0]}')
    assert checker._read_json(str(path), max_bytes=path.stat().st_size) == {"sequences": [[0]], "labels": [0]}
    with pytest.raises(checker.BadInput, match=r"data.json: 35 bytes, more than the limit of 34$"):
        checker._read_json(str(path), max_bytes=34)
    with open(path, "wb") as handle:
        handle.truncate(checker.MAX_BYTES + 1)  # sparse: nothing is written, and nothing may be read
    with pytest.raises(checker.BadInput, match=f"more than the limit of {checker.MAX_BYTES}"):
        checker.check_files(str(path), str(path))
