"""verify/certcheck/control/: the independent checker of leader-control results verifies what is right and rejects
every tampering with A, a margin, a pivot, y, S, the target map or the stated outcome (docs/theory.md D10)."""

from __future__ import annotations

import copy
import json
from fractions import Fraction as F
from pathlib import Path
from typing import Any, Callable

import pytest

from verify.certcheck import control as checker
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
    "what it proves": lambda d: _set(("proves",), "these tokens lead under every A")(d),
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
    "what it proves": lambda d: _set(("proves",), "no A, at any layer, makes these tokens the final leader set")(d),
    "what it does not prove": lambda d: _set(("does_not_prove",), "")(d),
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
    "what it proves": lambda d: _set(("proves",), "every subset of the hull vertices is realisable")(d),
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


# --------------------------------------------------------------------------- long numbers and bounded work


def test_a_result_with_numbers_beyond_4300_digits_is_decided_and_reverifies(tmp_path: Path) -> None:
    """Tokens with 4001-digit denominators: the exact LP's weights (pycddlib) have about 8000 digits."""
    from verify.app.cli import main as cli_main
    p, q = 10 ** 4000 + 7, 10 ** 4000 + 9
    config = tmp_path / "long.json"
    config.write_text(json.dumps({"tokens": [["1", "0"], ["0", "1"], ["-1", "-1"], [f"1/{p}", f"1/{q}"]],
                                  "alpha": "1/2"}), encoding="utf-8")
    out = tmp_path / "long-out.json"
    assert cli_main(["control", str(config), "--leaders", "3", "--json", str(out)]) == 1  # impossible, decided
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["outcome"] == "impossible"
    assert max(len(w["y"]) for w in data["infeasibility"]["weights"]) > 4300
    check = checker.check_control_file(str(out))
    assert check.status == "verified" and [i.status for i in check.items] == ["failed"]
    assert cli_main(["certcheck", str(out)]) == 1  # the verified certificate says the statement is false


def test_a_number_beyond_the_digit_limit_is_refused_not_rejected(realised: dict) -> None:
    data = copy.deepcopy(realised)
    data["design"]["margins"][0]["margin"] = "1" + "0" * checker.MAX_DIGITS
    with pytest.raises(checker.BadInput, match="digits"):
        checker.check_control(data)
    data = copy.deepcopy(realised)
    data["design"]["margins"][0]["margin"] = "7/" + "3" * (checker.MAX_DIGITS - 10)  # long, within the limit: wrong
    check = checker.check_control(data)
    assert check.status == "rejected" and "margin" in check.reasons[0]


def test_the_work_is_priced_by_the_sizes_of_the_numbers(realised: dict) -> None:
    """Many distinct long denominators make one common denominator of millions of bits: refused before any score."""
    data = copy.deepcopy(realised)
    long = "1" + "0" * 9990
    data["configuration"]["tokens"] = [[f"{1 + i}/{long}{i:04d}1", f"{2 + i}/{long}{i:04d}3"] for i in range(60)]
    with pytest.raises(checker.BadInput, match="units of work"):
        checker.check_control(data)
    # Short tokens, the same count: within the limit, checked (and rejected on its merits: the design is for 8).
    data["configuration"]["tokens"] = [[str(1 + i), str(2 + i * i)] for i in range(60)]
    assert checker.check_control(data).status == "rejected"
    from verify.certcheck.kernel import meter
    assert checker.cost is meter.cost  # the claims checker's rule itself, not a copy of it


def test_the_subset_count_is_checked_before_any_design(leader_sets: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """17 hull vertices can never list their 2^17 - 1 subsets: rejected before a design is looked at."""
    data = copy.deepcopy(leader_sets)
    data["configuration"]["tokens"] += [[str(k), str(k * k)] for k in range(10, 30)]
    data["hull"]["vertices"] = [data["hull"]["vertices"][0]] * 17
    calls: list = []
    monkeypatch.setattr(checker, "_check_design", lambda *a: calls.append(a))
    check = checker.check_control(data)
    assert check.status == "rejected" and "2^17 - 1" in check.reasons[0] and calls == []
    data = copy.deepcopy(leader_sets)
    data["subsets"].pop()
    check = checker.check_control(data)
    assert check.status == "rejected" and "subsets: expected" in check.reasons[0] and calls == []


@pytest.mark.parametrize("d, entries, number, row", [
    (1, "more than 1 entry", "expected 1 number", "expected 1 row"),
    (2, "more than 2 entries", "expected 2 numbers", "expected 2 rows")])
def test_the_counts_the_checker_expects_take_their_nouns(d: int, entries: str, number: str, row: str) -> None:
    with pytest.raises(checker.Rejected, match=f"^w: {entries}$"):
        checker._vector(["1"] * 3, d, "w")
    with pytest.raises(checker.Rejected, match=f"^w: {number}$"):
        checker._vector([], d, "w")
    with pytest.raises(checker.Rejected, match=f"^w: {row}$"):
        checker._matrix([], d, "w")


@pytest.mark.parametrize("vertices, expected", [(1, "subsets: expected 1 nonempty subset of 1 vertex"),
                                                (2, "subsets: expected 3 nonempty subsets of 2 vertices")])
def test_the_subsets_expected_are_counted_with_their_vertices(leader_sets: dict, vertices: int, expected: str) -> None:
    data = copy.deepcopy(leader_sets)
    data["hull"]["vertices"] = data["hull"]["vertices"][:vertices]
    check = checker.check_control(data)
    assert check.status == "rejected" and check.reasons[0] == f"D10: {expected}"


def test_repeated_designs_and_certificates_change_nothing(leader_sets: dict) -> None:
    """Designs reduce to their leader sets and certificates to their cores: duplicates verify, and a downgraded
    subset is still caught through the closures."""
    data = copy.deepcopy(leader_sets)
    data["designs"] = data["designs"] * 50
    data["certificates"] = data["certificates"] * 50
    assert checker.check_control(data).status == "verified"
    downgraded = copy.deepcopy(data)
    entry = next(s for s in downgraded["subsets"] if s["outcome"] == "impossible")
    entry["outcome"] = "inconclusive"
    del entry["by"]
    downgraded["counts"]["impossible"] -= 1
    downgraded["counts"]["inconclusive"] += 1
    downgraded["exit_status"] = 3
    minimal = [s for s in downgraded["minimal_impossible"] if s != sorted(entry["leaders"])]
    downgraded["minimal_impossible"] = minimal
    check = checker.check_control(downgraded)
    assert check.status == "rejected" and "downgraded" in check.reasons[0]


def test_the_checkers_statements_are_the_commands_own() -> None:
    """The checker keeps its own copy of what each outcome proves (docs/theory.md D10); it must be the command's."""
    from verify.experiments.control import result

    assert checker.STATEMENTS == result.STATEMENTS
    sets = leader_sets_json(VERTEX_THAT_CANNOT_LEAD, decide_leader_sets(VERTEX_THAT_CANNOT_LEAD.tokens,
                                                                        max_subsets=2 ** 16))
    assert (sets["proves"], sets["does_not_prove"]) == checker.STATEMENTS["leader_sets"]


def test_certcheck_counts_a_verified_impossibility_certificate_as_verified(impossible: dict) -> None:
    from verify.certcheck import check_data

    result = check_data(impossible, source="impossible.json")
    assert result.exit_status == 1
    assert result.verdict_line() == ("certcheck: 1 certificate verified; nothing rejected; a verified certificate "
                                     "shows the file's statement FALSE")
