"""Hostile inputs to the independent checker: every limit of verify/certcheck/kernel/limits.py's CHECKER_LIMITS, at and past it.

Each case runs ``hardmax-verify certcheck`` in a subprocess under the bounds of ``hostile_run``
(60 s, 2 GiB) on a file made here, and must end with its documented answer: a refusal (exit 2,
one line), a rejection (exit 1), or unsupported / not checked (exit 3): never a hang, a
traceback or an exit 4 for a file within the limits. Files at the corners of the default limits
are checked in full (exit 0).
"""

from __future__ import annotations

import functools
import json
import os
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from hostile_run import assert_refused, run, slow_except

from verify import certcheck

# --------------------------------------------------------------------------- files made here


def _claims(config: dict[str, Any], verdicts: dict[str, Any], last: int, settled: int | None = None,
            fates: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A claims report with every field of the format (docs/certificates.md); fates default to unsettled."""
    statuses = [v["status"] for v in verdicts.values()]
    return {"format": certcheck.FORMAT, "config": config, "outside_hypotheses": False, "hypothesis_violations": [],
            "layer_budget": max(last, 1), "time_budget": None,
            "stopped_by": "settled" if settled is not None else "layer budget", "last_layer": last,
            "settled_layer": settled,
            "status": "inconclusive" if "inconclusive" in statuses or len(verdicts) < 9 else "certified",
            "fates": fates if fates is not None else [
                {"token": t, "kind": "unsettled", "layer": None, "set": None, "limit": None}
                for t in range(len(config["tokens"]))],
            "verdicts": verdicts}


def _verdict(claim: str, certificate: dict[str, Any] | None) -> dict[str, Any]:
    verdict = {"claim": claim, "status": "certified" if certificate is not None else "inconclusive", "summary": "",
               "evidence": {}}
    if certificate is not None:
        verdict["certificate"] = certificate
    return verdict


def _text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _chain(paths: list[list[dict[str, Any]]], *, until: int | None = None, segments: int = 1) -> dict[str, Any]:
    """Two tokens (1, 0) and (0, 1), each its own leader, with a certified chain of the given paths."""
    segment = {"layer": 0, "status": "certified" if until is None else "jump", "sets": [[0], [1]], "until": until,
               "paths": paths}
    chain = {"format": certcheck.CLOSED_FORM_FORMAT, "status": "certified", "start_layer": 0,
             "segments": [dict(segment, layer=k * (until or 1)) for k in range(segments)]}
    if until is not None:  # the last segment of a certified chain holds for every t
        chain["segments"][-1].update(status="certified", until=None)
    fates = [{"token": t, "kind": "path", "layer": 0, "set": [t], "limit": ["1", "0"] if t == 0 else ["0", "1"]}
             for t in range(2)]
    certificate = {"last_layer": 0, "settled_layer": 0, "fates": fates, "closed_form": chain,
                   "leaders": [{"token": 0, "first_layer": 0, "position": ["1", "0"]},
                               {"token": 1, "first_layer": 0, "position": ["0", "1"]}]}
    return _claims({"tokens": [["1", "0"], ["0", "1"]], "alpha": "1/2"}, {"T1": _verdict("T1", certificate)}, 0, 0)


def _fixed(coefficient: str = "1", power: int = 0) -> list[list[dict[str, Any]]]:
    extra = [] if power == 0 else [{"base": "1/2", "power": power, "coefficient": [coefficient, "0"]}]
    return [[{"base": "1", "power": 0, "coefficient": ["1", "0"]}, *extra],
            [{"base": "1", "power": 0, "coefficient": ["0", "1"]}]]


def _leaders(d: int) -> dict[str, Any]:
    """The most tokens ``check`` accepts in dimension d, all leaders at layer 0, with every certificate."""
    n = max(k for k in range(1, 8000) if certcheck.replay_work(k, d, 0) <= certcheck.DEFAULT_MAX_WORK)
    if d == 2:  # Gaussian integers of one norm
        points = [(1, 0)]
        for a, b in ((1, 2), (2, 3), (1, 4), (2, 5), (1, 6), (4, 5), (2, 7), (5, 6), (3, 8), (5, 8), (4, 9)):
            points = [(x * c - y * e, x * e + y * c) for x, y in points for c, e in ((a, b), (a, -b))]
        rows = [list(p) for p in sorted({(sx * x, sy * y) for x, y in points for sx in (1, -1) for sy in (1, -1)})[:n]]
    else:  # (1, ..., d) with n patterns of signs
        rows = [[(c + 1) * (-1 if (i >> c) & 1 else 1) for c in range(d)] for i in range(n)]
    position = [[str(x) for x in row] for row in rows]
    fates = [{"token": i, "kind": "leader", "layer": 0, "set": [i], "limit": position[i]} for i in range(n)]
    leaders = [{"token": i, "first_layer": 0, "position": position[i]} for i in range(n)]
    verdicts = {
        "T0": _verdict("T0", {"layer": 0, "leaders": list(range(n))}),
        "T1": _verdict("T1", {"last_layer": 0, "leaders": leaders, "settled_layer": 0, "fates": fates}),
        "T2": _verdict("T2", {"settled_layer": 0, "fates": fates, "vertices": [
            {"token": i, "limit": position[i], "direction": position[i]} for i in range(n)]}),
        "T3": _verdict("T3", {"settled_layer": 0, "fates": fates, "boundary": []}),
        "T4": _verdict("T4", {"vacuous": True, "settled_layer": 0, "fates": fates, "projections": []}),
        "D1": _verdict("D1", None), "replay": _verdict("replay", None),
        "D2": _verdict("D2", {"last_layer": 0, "norms": [[str(sum(x * x for x in row)) for row in rows]]}),
        "D3": _verdict("D3", {"last_layer": 0, "leaders": leaders}),
    }
    return _claims({"tokens": position, "alpha": "1/2"}, verdicts, 0, 0, fates=fates)


def _replay(n: int, d: int, alpha: str, last: int | None = None) -> dict[str, Any]:
    """A replay to the last layer the per-configuration limit admits (or ``last``), wrong final positions."""
    tokens = [[str((i * 37 + c * 11) % 97 + 1 + i) for c in range(d)] for i in range(n)]
    model = certcheck.Model({"tokens": tokens, "alpha": alpha})
    if last is None:
        last = certcheck.max_checkable_layer(n, d, bits=model.bits, growth=model.growth)
    return _claims({"tokens": tokens, "alpha": alpha},
                   {"replay": _verdict("replay", {"last_layer": last, "final_positions": [["0"] * d] * n})}, last)


def _one_token_record(i: int, d: int, A: list[list[str]] | None = None) -> dict[str, Any]:
    """A record of one token in dimension d (a leader at layer 0), with the fields a record has."""
    config: dict[str, Any] = {"tokens": [[str(1 + i)] + ["0"] * (d - 1)], "alpha": "1/2"}
    if A is not None:
        config["A"] = A
    return {"task": {"kind": "generated", "family": "f", "seed": i, "name": f"f-{i}", "n": 1, "d": d, "alpha": "1/2",
                     "options": {}},
            "configuration": config, "status": "inconclusive", "layers_run": 1, "settled_layer": 0,
            "stopped_by": "settled", "verdicts": {"T0": _verdict("T0", {"layer": 0, "leaders": [0]})},
            "fates": [{"token": 0, "kind": "leader", "layer": 0, "set": [0], "limit": config["tokens"][0]}],
            "horizon": 30, "denominator_bits": [1] * 31,
            "convergence": {"max_A_distance": [0.0] * 31, "tokens_with_limit": 1, "tokens_without_limit": [],
                            "kind": "exact squared distance, square root in float64"},
            "certcheck": {"available": True, "verified": ["T0"], "rejected": {}, "unsupported": {}}}


def _many_records(count: int, d: int, A: list[list[str]] | None = None) -> dict[str, Any]:
    """A results.json of ``count`` one-token records (no plan: rejected, after every record is checked)."""
    records = [_one_token_record(i, d, A) for i in range(count)]
    return {"schema": "hardmax-verify/results", "schema_version": 2, "campaign": {}, "plan": None, "inputs": [],
            "summary": {"overall": "inconclusive", "exit_status": 3, "examples": count, "errors": 0, "claims": {}},
            "examples": records, "counterexamples": [], "optional_sections": {}}


def _dense(d: int, seed: int = 0) -> list[list[str]]:
    """A dense symmetric positive definite d x d integer matrix (B^T B + d I, B with entries in -3..3)."""
    import random
    rng = random.Random(seed)
    B = [[rng.randint(-3, 3) for _ in range(d)] for _ in range(d)]
    return [[str(sum(B[k][r] * B[k][c] for k in range(d)) + (d if r == c else 0)) for c in range(d)] for r in range(d)]


def _value_matrix(d: int) -> dict[str, Any]:
    """Three tokens in d = 64 with a dense value matrix V: its inverse is computed, once and paid for."""
    V = [[str((r * 7 + c * 3) % 7 - 3) for c in range(d)] for r in range(d)]
    config = {"tokens": [[str((t * 5 + c) % 11 - 5) for c in range(d)] for t in range(3)], "V": V, "alpha": "1/2",
              "outside_hypotheses": True}
    return dict(_claims(config, {}, 5), outside_hypotheses=True)


def _similarity(d: int, digits: int) -> dict[str, Any]:
    """A failed T0 whose similarity certificate (docs/theory.md D11) has a d x d matrix M of ``digits``-digit
    fractions under a dense A: M^T A M is paid for before it is multiplied out."""
    big = "7" * digits
    config = {"tokens": [[str((t * 5 + c) % 11 - 5) for c in range(d)] for t in range(3)], "A": _dense(d),
              "alpha": "1/2", "outside_hypotheses": True}
    similarity = {"format": certcheck.SIMILARITY_FORMAT, "layer": 0, "period": 1, "relabelling": [0, 1, 2],
                  "M": [[f"{big}{(r * 3 + c) % 10}/{big}1" for c in range(d)] for r in range(d)], "scale": "1",
                  "contraction_power": 16}
    T0 = {"claim": "T0", "status": "failed", "summary": "", "evidence": {"similarity": similarity}}
    return dict(_claims(config, {"T0": T0}, 1), outside_hypotheses=True, stopped_by="similarity")


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


HUGE = "7" * 999_000  # a fraction of two such numbers is just within MAX_CHAIN_DIGITS
CASES: dict[str, tuple[Any, int, str]] = {
    # name: (file content, exit status, fragment of the answer)
    "chain term with power 10^18": (lambda: _chain(_fixed(power=10 ** 18)), 1, "independent solutions"),
    "chain term with power 5000": (lambda: _chain(_fixed(power=5000)), 1, "independent solutions"),
    "chain numbers of 2,000,000 digits": (lambda: _chain([[{"base": "1", "power": 0, "coefficient": [f"{HUGE}/{HUGE}3", "0"]}
                                                            for _ in range(8)], _fixed()[1]]), 3, "work units"),
    "chain number past its digit limit": (lambda: _chain(_fixed(coefficient="1" + "0" * 2_000_000, power=1)), 1,
                                          "expected a rational"),
    "chain of 10,001 segments": (lambda: _chain(_fixed(), until=1, segments=10_001), 1, "segments"),
    # The other claims are absent from these small files (rejected): the chain's certificate is unsupported.
    "chain segment until 10^9": (lambda: _chain(_fixed(), until=10 ** 9, segments=2), 1, "T1 unsupported"),
    "number of 100,001 characters": (lambda: _claims({"tokens": [["1", "0"], ["0", "1"]], "alpha": "1/2"}, {
        "T0": _verdict("T0", {"layer": 0, "leaders": [0, 1], "layer_positions": {"0": [["1" * 100_001, "0"], ["0", "1"]]}})},
        0), 1, "more than the 100,000 the checker reads"),
    # The same number in the configuration: refused before checking (the README's table of limits).
    "configuration number of 100,001 characters": (lambda: _claims({"tokens": [["1" * 100_001, "0"], ["0", "1"]],
                                                                   "alpha": "1/2"}, {}, 0), 2,
                                                   "more than the 100,000 the checker reads"),
    # Nested past MAX_JSON_DEPTH (here in a label no check reads): refused as bad input, never a recursion crash.
    "a configuration name nested 500 levels": (lambda: _claims({"tokens": [["1", "0"], ["0", "1"]], "alpha": "1/2",
                                                                "name": _nested(500)}, {}, 0), 2,
                                               "nested more deeply than 100 levels"),
    "last layer 5001": (lambda: _replay(2, 1, "1/2", last=5001), 2, "beyond the checker's limit of 5000 layers"),
    "60 tokens at layer 5000": (lambda: _replay(60, 2, "1/2", last=5000), 2, "raise it with --max-work"),
    "corner: leaders d=64": (lambda: _leaders(64), 0, "everything verified"),
    "corner: leaders d=2": (lambda: _leaders(2), 0, "everything verified"),
    "corner: replay n=60 d=2": (lambda: _replay(60, 2, "1/2"), 1, "final_positions"),
    "corner: replay n=2 alpha=999/1000": (lambda: _replay(2, 1, "999/1000"), 1, "final_positions"),
    # Dimensions and eliminations: a configuration's d^3 work is bounded and paid for.
    "dimension 65": (lambda: _claims({"tokens": [["1"] + ["0"] * 64], "alpha": "1/2"}, {}, 1), 2,
                     "beyond the checker's limit of 64"),
    "12 KB file in d = 1500": (lambda: _claims({"tokens": [["1"] + ["0"] * 1499, ["0", "1"] + ["0"] * 1498],
                                               "alpha": "1/2"}, {}, 1), 2, "beyond the checker's limit of 64"),
    "2,000 one-token records in d = 64": (lambda: _many_records(2000, 64), 1, "2,000 certificates verified"),
    # Each run costs the meter's RUN_OVERHEAD whatever its size: 60,000 one-token records (60 MB) are refused at
    # once, where they once kept the checker busy for minutes after the meter had stopped checking them.
    "60,000 one-token records in d = 1": (lambda: _many_records(60_000, 1), 2, "at least 5,000 units each"),
    "2,000 records in d = 64 with a dense A": (lambda: _many_records(2000, 64, _dense(64)), 2,
                                               "before any layer (the eliminations of A and V"),
    "a dense value matrix in d = 64": (lambda: _value_matrix(64), 1, "claim T0 is missing"),
    "a similarity certificate of 7,000-digit entries in d = 64": (lambda: _similarity(64, 7000), 3, "work units"),
    "a similarity certificate of 300-digit entries in d = 64": (lambda: _similarity(64, 300), 1,
                                                                "T0 rejected: similarity: (M^T A M)[0][0]"),
}


@pytest.mark.parametrize("case", slow_except(sorted(CASES), "chain term with power 10^18", "last layer 5001",
                                             "chain numbers of 2,000,000 digits", "12 KB file in d = 1500"))
def test_every_limit_of_the_checker_gives_its_documented_answer_in_bounded_time(tmp_path: Path, case: str) -> None:
    build, status, fragment = CASES[case]
    (tmp_path / "hostile.json").write_text(json.dumps(build()), encoding="utf-8")
    outcome = run(["certcheck", "hostile.json"], tmp_path)
    if status == 2:
        assert_refused(outcome, 2, fragment)
        return
    assert outcome.status == status, outcome.describe()
    assert fragment in outcome.out + outcome.err, outcome.describe()


def test_a_file_past_the_byte_limit_is_refused_unread(tmp_path: Path) -> None:
    with open(tmp_path / "big.json", "wb") as handle:
        handle.truncate(certcheck.DEFAULT_MAX_BYTES + 1)  # sparse: nothing to read before the refusal
    assert_refused(run(["certcheck", "big.json"], tmp_path), 2, "raise it with --max-bytes")


def _results_with_sections(files: list[dict[str, Any]]) -> dict[str, Any]:
    """A results.json holding nothing but an optional section listing ``files`` (and no plan: rejected too)."""
    return {"schema": "hardmax-verify/results", "schema_version": 2, "campaign": {}, "plan": None, "examples": [],
            "summary": {"overall": "inconclusive", "exit_status": 3, "examples": 0, "errors": 0, "claims": {}},
            "counterexamples": [], "inputs": [],
            "optional_sections": {"conjectures": {"directory": "runs/conjectures", "files": files}}}


@pytest.mark.slow  # ten thousand files
def test_a_section_folder_with_too_many_files_is_not_checked(tmp_path: Path) -> None:
    folder = tmp_path / "runs" / "conjectures"
    folder.mkdir(parents=True)
    for k in range(certcheck.MAX_SECTION_FILES + 1):
        (folder / f"c{k}.json").write_text("{}")
    files = [{"path": "runs/conjectures/c0.json", "sha256": "0" * 64, "summary": {}}]
    (tmp_path / "results.json").write_text(json.dumps(_results_with_sections(files)))
    outcome = run(["certcheck", "results.json", "--runs", "runs"], tmp_path)
    assert outcome.status == 1, outcome.describe()  # no plan
    assert "(sections) not checked" in outcome.out and "more than" in outcome.out, outcome.describe()


def test_a_section_file_that_is_a_fifo_is_never_read(tmp_path: Path) -> None:
    folder = tmp_path / "runs" / "conjectures"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "a.json")
    files = [{"path": "runs/conjectures/a.json", "sha256": "0" * 64, "summary": {}}]
    (tmp_path / "results.json").write_text(json.dumps(_results_with_sections(files)))
    outcome = run(["certcheck", "results.json", "--runs", "runs"], tmp_path)
    assert outcome.status == 1 and "(sections) rejected" in outcome.out, outcome.describe()


# --------------------------------------------------------------------------- values of another JSON type


@functools.lru_cache(maxsize=None)
def _two_records() -> str:
    """A results.json of two real records (the report's own functions; tests/common/results_files.py), as JSON."""
    from tests.common.results_files import results_of
    from verify.claims import check_configuration
    from verify.core.worked import WORKED_CONFIGURATIONS

    reports = [json.loads(json.dumps(check_configuration(WORKED_CONFIGURATIONS[name]).to_json_dict()))
               for name in ("triangle", "square")]
    return json.dumps(results_of(reports))


def _set(*path: Any, to: Any) -> Any:
    def change(data: Any) -> None:
        for key in path[:-1]:
            data = data[key]
        data[path[-1]] = to
    return change


# A list, an object or a number where the checker compares, sorts, hashes or looks up names: each once made it
# stop with an internal error (exit 4: "could not complete") instead of rejecting the file.
WRONG_TYPES: dict[str, tuple[Any, str]] = {
    "a verdict's evidence that is a number": (_set("examples", 0, "verdicts", "T0", "evidence", to=7), "evidence"),
    "a record's certcheck.verified that is a number": (_set("examples", 0, "certcheck", "verified", to=7),
                                                       "certcheck verified"),
    "a record's certcheck.verified of a name and a number": (_set("examples", 0, "certcheck", "verified",
                                                                  to=["T0", 1]), "certcheck verified"),
    "a record's certcheck.rejected that is a number": (_set("examples", 0, "certcheck", "rejected", to=7),
                                                       "certcheck rejected"),
    "a record's stopped_by that is a list": (_set("examples", 0, "stopped_by", to=["settled"]), "stopped_by"),
    "a planned task's name that is a list": (_set("plan", "tasks", 0, "name", to=["triangle"]), "not a name"),
    "a record's task name that is an object": (_set("examples", 1, "task", "name", to={"name": "square"}),
                                               "not a name"),
    "a kernel block's status that is a list": (_set("kernel", to={"status": ["checked"]}), "kernel"),
}


@pytest.mark.parametrize("case", slow_except(sorted(WRONG_TYPES), "a record's certcheck.verified that is a number"))
def test_a_value_of_another_json_type_is_rejected_not_an_internal_error(tmp_path: Path, case: str) -> None:
    change, fragment = WRONG_TYPES[case]
    data = json.loads(_two_records())
    change(data)
    (tmp_path / "results.json").write_text(json.dumps(data), encoding="utf-8")
    outcome = run(["certcheck", "results.json"], tmp_path)
    assert outcome.status == 1, outcome.describe()
    assert fragment in outcome.out and "REJECTED" in outcome.out, outcome.describe()


@pytest.mark.parametrize("kind", [["control"], {"kind": "control"}])
def test_a_control_result_s_kind_that_is_not_a_string_is_refused(tmp_path: Path, kind: Any) -> None:
    (tmp_path / "control.json").write_text(json.dumps({"format": "hardmax-verify/control-v1", "kind": kind}))
    assert_refused(run(["certcheck", "control.json"], tmp_path), 2, "control.json.kind")


# --------------------------------------------------------------------------- names that would be markup


@pytest.mark.parametrize("name", slow_except(["[red]x[/red]", "[/]", "[link=http://x]y", "[on red]verified[/on red]",
                                              "[white on white]"], "[/]"))
def test_a_name_of_markup_in_a_key_is_printed_as_text(tmp_path: Path, name: str) -> None:
    # The command line prints with rich: a section or claim key from the file must neither crash it (exit 4: a
    # closing tag with nothing open) nor style away the word that says what happened to it.
    data = json.loads(_two_records())
    data["optional_sections"][name] = {"directory": None, "files": [], "skipped": "x"}
    (tmp_path / "sections.json").write_text(json.dumps(data), encoding="utf-8")
    outcome = run(["certcheck", "sections.json"], tmp_path)
    assert outcome.status == 3, outcome.describe()
    assert f"{name}: (sections) not checked" in outcome.out, outcome.describe()
    data = json.loads(_two_records())
    data["examples"][0]["verdicts"][name] = data["examples"][0]["verdicts"]["T0"]
    (tmp_path / "claims.json").write_text(json.dumps(data), encoding="utf-8")
    outcome = run(["certcheck", "claims.json"], tmp_path)
    assert outcome.status == 1, outcome.describe()
    assert name in outcome.out and "REJECTED" in outcome.out, outcome.describe()


@pytest.mark.slow  # a 17 MB file
def test_a_file_of_100_000_task_errors_prints_a_bounded_answer(tmp_path: Path) -> None:
    # Every task error is reported not checked; one line each would be 100,000 lines. The first few are printed
    # and the rest counted in one line (--verbose lists them).
    data = _many_records(0, 1)
    data["examples"] = [{"task": {"kind": "generated", "family": "f", "seed": i, "name": f"f-{i}", "n": 1, "d": 1,
                                  "alpha": "1/2", "options": {}}, "status": "error", "error": "x", "attempts": 1}
                        for i in range(100_000)]
    (tmp_path / "errors.json").write_text(json.dumps(data), encoding="utf-8")
    outcome = run(["certcheck", "errors.json"], tmp_path)
    assert outcome.status == 1, outcome.describe()  # no plan, no summary counts: rejected
    assert len(outcome.out.splitlines()) < 100, outcome.describe()
    assert "... and 99,990 more tasks that raised an error (--verbose lists them)" in outcome.out, outcome.describe()
    assert "(run)" in outcome.out and "100000" in outcome.out  # the table still counts every one
