"""verify/_checker_control.py: the independent checker of leader-control results verifies what is right and rejects
every tampering with A, a margin, a pivot, y, S, the target map or the stated outcome (docs/theory.md D10)."""

from __future__ import annotations

import copy
import json
from fractions import Fraction as F
from pathlib import Path
from typing import Any, Callable

import pytest

from verify import _checker_control as checker
from verify.core.config import make_configuration
from verify.experiments.control.design import DEFAULT_PROGRAMS, DEFAULT_TRIES, control
from verify.experiments.control.leader_sets import decide_leader_sets
from verify.experiments.control.result import leader_sets_json, outcome_json
from verify.core.worked import WORKED_CONFIGURATIONS

EMERGING = WORKED_CONFIGURATIONS["emerging_leader"]
VERTEX_THAT_CANNOT_LEAD = make_configuration([[1, 0], [2, 0], [2, 1], [2, -1], [3, 0]], alpha="1/2")


def _result(config: Any, leaders: list[int], targets: dict[int, int] | None = None, **options: Any) -> dict:
    outcome = control(config.tokens, leaders, targets, **options)
    data = outcome_json(config, outcome, seed=0, max_tries=DEFAULT_TRIES,
                        max_programs=options.get("max_programs", DEFAULT_PROGRAMS))
    return json.loads(json.dumps(data))  # what a file holds


@pytest.fixture(scope="module")
def realised() -> dict:
    data = _result(EMERGING, [0, 2, 5])
    assert data["outcome"] == "realised"
    return data


@pytest.fixture(scope="module")
def impossible() -> dict:
    data = _result(EMERGING, [0, 2, 5], {7: 5})
    assert data["outcome"] == "impossible" and data["infeasibility"]["step"] == "lambda_min"
    return data


@pytest.fixture(scope="module")
def leader_sets() -> dict:
    result = decide_leader_sets(VERTEX_THAT_CANNOT_LEAD.tokens, max_subsets=2 ** 16)
    data = json.loads(json.dumps(leader_sets_json(VERTEX_THAT_CANNOT_LEAD, result)))
    assert data["counts"]["impossible"] and data["counts"]["realisable"]
    return data


def test_a_realised_design_verifies(realised: dict) -> None:
    check = checker.check_control(realised)
    assert check.status == "verified" and check.exit_status == 0, check.reasons
    assert [i.status for i in check.items] == ["verified"]


def test_an_impossibility_certificate_verifies_and_says_the_statement_is_false(impossible: dict) -> None:
    check = checker.check_control(impossible)
    assert check.status == "verified" and [i.status for i in check.items] == ["failed"]
    assert check.exit_status == 1  # as certcheck says of a claim the file reports false


def test_the_zero_and_the_singular_certificates_verify() -> None:
    inside = _result(EMERGING, [0, 1, 2])  # token 1 is inside the hull of the others
    assert inside["infeasibility"]["step"] == "hull" and checker.check_control(inside).status == "verified"
    singular = _result(VERTEX_THAT_CANNOT_LEAD, [0])
    assert singular["infeasibility"]["step"] == "facial" and checker.check_control(singular).status == "verified"


def test_an_inconclusive_result_verifies_the_design_it_gives() -> None:
    data = _result(EMERGING, [0, 2, 5], max_programs=1)
    assert data["outcome"] == "inconclusive" and "leading" in data
    check = checker.check_control(data)
    assert check.status == "verified" and check.exit_status == 0 and check.items[0].status == "inconclusive"
    data["leading"]["A"][0][0] = "-1"
    assert checker.check_control(data).status == "rejected"


def test_every_subset_verifies(leader_sets: dict) -> None:
    check = checker.check_control(leader_sets)
    assert check.status == "verified", check.reasons
    assert sum(i.status == "verified" for i in check.items) == leader_sets["counts"]["subsets"] + 1  # + the hull


def _set(path: tuple, value: Any) -> Callable[[dict], None]:
    def apply(data: dict) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return apply


def _swap_first_target(data: dict) -> None:
    entry = data["targets"][0]
    entry["target"] = next(leader for leader in data["leaders"] if leader != entry["target"])


def _swap_first_target_everywhere(data: dict) -> None:
    _swap_first_target(data)
    token, target = data["targets"][0]["token"], data["targets"][0]["target"]
    for row in data["design"]["margins"]:
        if row["token"] == token:
            row["attends_to"] = target


REALISED_TAMPERING: dict[str, Callable[[dict], None]] = {
    "an entry of A": lambda d: _set(("design", "A", 0, 0), str(F(d["design"]["A"][0][0]) + 1))(d),
    "A made non-symmetric": lambda d: _set(("design", "A", 0, 1), str(F(d["design"]["A"][0][1]) + 1))(d),
    "a pivot": lambda d: _set(("design", "pivots", 0), "1/3")(d),
    "a margin": lambda d: _set(("design", "margins", 0, "margin"), "1000")(d),
    "a closest rival": lambda d: _set(("design", "margins", 0, "closest_rival"), 7)(d),
    "a target only": _swap_first_target,
    "a target and its margin row": _swap_first_target_everywhere,
    "a limit": lambda d: _set(("limits", 1), ["0", "0"])(d),
    "a leader added": lambda d: _set(("leaders",), d["leaders"] + [1])(d),
    "the outcome": lambda d: _set(("outcome",), "impossible")(d),
    "the exit status": lambda d: _set(("exit_status",), 3)(d),
    "a token": lambda d: _set(("configuration", "tokens", 4, 0), "-1/3")(d),
    "a margin row dropped": lambda d: d["design"]["margins"].pop(),
}


@pytest.mark.parametrize("name", sorted(REALISED_TAMPERING))
def test_tampering_with_a_design_is_rejected(realised: dict, name: str) -> None:
    data = copy.deepcopy(realised)
    REALISED_TAMPERING[name](data)
    check = checker.check_control(data)
    assert check.status == "rejected" and check.exit_status == 1, name
    assert check.reasons


IMPOSSIBLE_TAMPERING: dict[str, Callable[[dict], None]] = {
    "a weight": lambda d: _set(("infeasibility", "weights", 0, "y"), "1000")(d),
    "a negative weight": lambda d: _set(("infeasibility", "weights", 0, "y"), "-1")(d),
    "every weight zero": lambda d: [w.update(y="0") for w in d["infeasibility"]["weights"]],
    "an entry of S": lambda d: _set(("infeasibility", "S", 0, 0), "1")(d),
    "a rival": lambda d: _set(("infeasibility", "weights", 0, "rival"),
                               (d["infeasibility"]["weights"][0]["rival"] + 1) % 8)(d),
    "a constraint outside the system": lambda d: _set(("infeasibility", "weights", 0, "attends_to"), 1)(d),
    "the requested target": lambda d: _set(("requested_targets", 0, "target"), 0)(d),
    "the outcome": lambda d: _set(("outcome",), "realised")(d),
}


@pytest.mark.parametrize("name", sorted(IMPOSSIBLE_TAMPERING))
def test_tampering_with_an_infeasibility_certificate_is_rejected(impossible: dict, name: str) -> None:
    data = copy.deepcopy(impossible)
    IMPOSSIBLE_TAMPERING[name](data)
    check = checker.check_control(data)
    assert check.status == "rejected" and check.exit_status == 1, name


def _first_subset(data: dict, outcome: str) -> dict:
    return next(s for s in data["subsets"] if s["outcome"] == outcome)


SETS_TAMPERING: dict[str, Callable[[dict], None]] = {
    "an impossible subset called realisable": lambda d: _first_subset(d, "impossible").update(outcome="realisable",
                                                                                             by=0),
    "a realisable subset called inconclusive": lambda d: _first_subset(d, "realisable").update(outcome="inconclusive"),
    "a design's leader set": lambda d: d["designs"][0]["leaders"].append(0),
    "a hull direction": lambda d: _set(("hull", "vertices", 0, "direction"), ["0", "0"])(d),
    "a subset dropped": lambda d: d["subsets"].pop(),
    "the counts": lambda d: _set(("counts", "impossible"), 0)(d),
    "a certificate weight": lambda d: _set(("certificates", 0, "weights", 0, "y"), "-1")(d),
}


@pytest.mark.parametrize("name", sorted(SETS_TAMPERING))
def test_tampering_with_leader_sets_is_rejected(leader_sets: dict, name: str) -> None:
    data = copy.deepcopy(leader_sets)
    SETS_TAMPERING[name](data)
    assert checker.check_control(data).status == "rejected", name


def test_what_is_not_a_control_result_or_beyond_a_limit_is_bad_input(realised: dict, tmp_path: Path) -> None:
    with pytest.raises(checker.BadInput, match="format"):
        checker.check_control({"format": "hardmax-verify/claims-v1"})
    big = copy.deepcopy(realised)
    big["configuration"]["tokens"] = [["1", "0"]] * (checker.MAX_TOKENS + 1)
    with pytest.raises(checker.BadInput, match="limits"):
        checker.check_control(big)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(realised).replace('"format"', '"format": 1, "format"', 1))
    with pytest.raises(checker.BadInput, match="twice"):
        checker.check_control_file(str(path))
    path.write_text(json.dumps(realised))
    assert checker.check_control_file(str(path)).status == "verified"
    loaded = checker.load_if_control(str(path))
    assert loaded is not None and loaded["design"] == realised["design"]  # decimals (solver evidence) kept as text
    other = tmp_path / "claims.json"
    other.write_text('{"format": "hardmax-verify/claims-v1"}')
    assert checker.load_if_control(str(other)) is None


@pytest.mark.parametrize("matrix, psd", [([[1, 1], [1, 1]], True), ([[0, 1], [1, 0]], False), ([[0, 0], [0, 0]], True),
                                         ([[1, 0], [0, -1]], False), ([[2, -1], [-1, 2]], True)])
def test_the_checkers_own_psd_test(matrix: list, psd: bool) -> None:
    assert checker.is_positive_semidefinite([[F(x) for x in row] for row in matrix]) is psd
