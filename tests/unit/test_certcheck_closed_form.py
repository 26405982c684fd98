"""The independent checker's verification of closed-form certificates (docs/theory.md D9, verify/certcheck/kernel/closed_form.py).

It must accept every certificate the builder makes, reject every tampered one (a coefficient, a
base, a power, a segment boundary, a set, a claimed limit or leader, a final segment that fails
beyond its threshold hint), and stay independent: standard library only and the checker's own
modules, nothing else of the package.
"""

from __future__ import annotations

import ast
import copy
import json
import random
import re
import shutil
import signal
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import pytest

import verify
from verify import certcheck as checker
from verify.certcheck.kernel import closed_form
from verify.core.closed_form import ExpPoly, certify, chain_to_json, exppoly_to_json, solve_recurrence
from verify.core.families import generate
from verify.core.families import generate_face_mean_ties

PACKAGE = Path(verify.__file__).parent / "certcheck"
CHECKER = PACKAGE / "kernel" / "closed_form.py"
C = F(-7, 8)
D9_EXAMPLE = [(C, F(-1, 2)), (C, F(1, 2)), (C, F(0)), (C, F(1, 4)), (C, F(-1, 4))]
OVERSHOOT = [(F(1, 2), F(1)), (F(1, 2), F(-1)), (F(3, 5), F(3, 4)), (F(3, 5), F(-3, 4)), (F(2, 5), F(0))]


def certificate(tokens, alpha, A=None, **options):
    return json.loads(json.dumps(chain_to_json(certify(tokens, alpha=alpha, A=A, **options))))


def check(data, tokens, alpha, A=None):
    return checker.verify_closed_form(data, positions=tokens, alpha=alpha, A=A)


def rejected(data, tokens, alpha, A=None, match=None):
    with pytest.raises(checker.Rejected, match=match):
        check(data, tokens, alpha, A)


# ----------------------------------------------------------------------------- independence


def test_imports_only_the_standard_library():
    imports = []
    for node in ast.walk(ast.parse(CHECKER.read_text())):
        if isinstance(node, ast.Import):
            imports += [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            imports.append((node.module or "", node.level))
    assert imports
    for module, level in imports:
        if level:  # the kernel's own modules, beside it in verify/certcheck/kernel/
            assert level == 1 and (PACKAGE / "kernel" / f"{module}.py").is_file(), f"relative import of {module!r}"
        else:
            assert module.partition(".")[0] in sys.stdlib_module_names or module == "__future__", module


def test_runs_with_the_package_and_every_other_library_blocked(tmp_path):
    path = tmp_path / "certificate.json"
    path.write_text(json.dumps(certificate(D9_EXAMPLE, F(1, 2))))
    lone = tmp_path / "lone"
    shutil.copytree(PACKAGE, lone / "certcheck", ignore=shutil.ignore_patterns("__pycache__"))
    driver = r"""
import sys
from fractions import Fraction
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] not in sys.stdlib_module_names and name.partition(".")[0] != "certcheck":
            raise ImportError(f"blocked non-stdlib import {name!r}")
        return None
sys.meta_path.insert(0, Block())
sys.modules["verify"] = None
sys.path.insert(0, sys.argv[1])
from certcheck.kernel.closed_form import verify_closed_form
c = Fraction(-7, 8)
tokens = [(c, Fraction(-1, 2)), (c, Fraction(1, 2)), (c, Fraction(0)), (c, Fraction(1, 4)), (c, Fraction(-1, 4))]
import json
import random
with open(sys.argv[2], encoding="utf-8") as handle:
    summary = verify_closed_form(json.load(handle), positions=tokens, alpha=Fraction(1, 2))
print(sorted(summary["leaders"].items()))
"""
    result = subprocess.run([sys.executable, "-I", "-S", "-c", driver, str(lone), str(path)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[(0, 0), (1, 0)]"


# ----------------------------------------------------------------------------- accepts what the builder makes


def test_hand_written_certificate():
    # d = 1, alpha = 1/2 (r = 2/3): token 0 = 1 leads, token 1 = 1/2 locks onto it: 1 - (1/2)(2/3)^t.
    data = {"format": checker.CLOSED_FORM_FORMAT, "start_layer": 0, "status": "certified", "segments": [
        {"layer": 0, "status": "certified", "until": None, "sets": [[0], [0]],
         "paths": [[{"coefficient": ["1"], "power": 0, "base": "1"}],
                   [{"coefficient": ["-1/2"], "power": 0, "base": "2/3"},
                    {"coefficient": ["1"], "power": 0, "base": "1"}]]}],
        "limits": [["1"], ["1"]], "leaders": [{"token": 0, "first_layer": 0}]}
    summary = check(data, [(F(1),), (F(1, 2),)], F(1, 2))
    assert summary["leaders"] == {0: 0} and summary["limits"] == [[1], [1]]
    wrong = copy.deepcopy(data)
    wrong["segments"][0]["paths"][1][0]["base"] = "1/2"  # the rate 1/(1 + alpha) is 2/3, not 1/2
    rejected(wrong, [(F(1),), (F(1, 2),)], F(1, 2), match=r"\(ii\)")


@pytest.mark.parametrize("name, tokens, alpha, A", [
    ("D9 example", D9_EXAMPLE, F(1, 2), None),
    ("overshoot", OVERSHOOT, F(1, 100), None),
    ("chain of locks", [(F(1), F(0)), (F(3, 5), F(2, 5)), (F(0), F(1, 4))], F(1, 10), None),
    ("duplicates", [(F(1), F(0)), (F(1, 2), F(1, 4)), (F(1, 2), F(1, 4)), (F(0), F(1)), (F(0), F(1))], F(1, 2), None),
    ("dense A", [(F(1), F(0), F(1, 2)), (F(-1, 2), F(1), F(0)), (F(1, 4), F(1, 4), F(1, 4)), (F(0), F(-1), F(1))],
     F(1, 3), [[F(2), F(1), F(0)], [F(1), F(2), F(1, 2)], [F(0), F(1, 2), F(1)]]),
])
def test_accepts_the_builders_certificates(name, tokens, alpha, A):
    data = certificate(tokens, alpha, A)
    summary = check(data, tokens, alpha, A)
    assert summary["final_layer"] == data["segments"][-1]["layer"]
    assert [[str(x) for x in p] for p in summary["limits"]] == data["limits"]


@pytest.mark.parametrize("family, seed, n, d", [("mirror_ties", 1, 8, 3), ("hull_edges", 4, 15, 2),
                                                ("diagonal", 3, 12, 2), ("generic", 9, 10, 2),
                                                ("sphere_ties", 2, 7, 3)])
def test_accepts_family_certificates(family, seed, n, d):
    config = generate(family, seed, n=n, d=d)
    check(certificate(config.tokens, config.alpha, config.A), config.tokens, config.alpha, config.A)


@pytest.mark.parametrize("seed, matrix", [(0, "identity"), (1, "dense"), (5, "diagonal")])
def test_accepts_face_mean_tie_certificates(seed, matrix):
    config = generate_face_mean_ties(seed, n=9, d=3, matrix=matrix)
    check(certificate(config.tokens, config.alpha, config.A), config.tokens, config.alpha, config.A)


def test_unsettled_chains_are_checked_as_far_as_they_go():
    data = certificate(OVERSHOOT, F(1, 100), max_segments=1)
    summary = check(data, OVERSHOOT, F(1, 100))
    assert summary["reached_layer"] == 200 and "limits" not in summary
    # A sign beyond the builder's scan limit: the last segment is written with its positions only.
    data = certificate(OVERSHOOT, F(1, 100), max_threshold=100)
    assert data["reason"].startswith("threshold too large") and data["segments"][-1]["paths"] is None
    assert check(data, OVERSHOOT, F(1, 100))["reached_layer"] == 0
    # Mutual membership (A not symmetric): the segment has no paths and states its positions.
    A = [[F(0), F(-1)], [F(1), F(0)]]
    tokens = [(F(1), F(0)), (F(0), F(1)), (F(-1), F(-1))]
    data = certificate(tokens, F(1, 2), A)
    assert data["segments"][0]["paths"] is None
    check(data, tokens, F(1, 2), A)
    data["segments"][0]["positions"][0] = ["1", "1"]
    rejected(data, tokens, F(1, 2), A, match="positions")


# ----------------------------------------------------------------------------- tampering


@pytest.fixture
def example():
    return certificate(D9_EXAMPLE, F(1, 2))


@pytest.fixture
def overshoot():
    return certificate(OVERSHOOT, F(1, 100))


def test_tampered_coefficient(example):
    example["segments"][0]["paths"][3][0]["coefficient"][1] = "-1/5"  # the r^t term of a locker
    rejected(example, D9_EXAMPLE, F(1, 2))


def test_tampered_base(example):
    assert example["segments"][0]["paths"][3][0]["base"] == "2/3"
    example["segments"][0]["paths"][3][0]["base"] = "3/4"
    rejected(example, D9_EXAMPLE, F(1, 2), match=r"\(ii\)")


def test_tampered_power(overshoot):
    path = overshoot["segments"][0]["paths"][4]
    term = next(t for t in path if t["power"] == 1)
    term["power"] = 2
    rejected(overshoot, OVERSHOOT, F(1, 100))


def test_tampered_start_positions(example):
    tokens = list(D9_EXAMPLE)
    tokens[2] = (C, F(1, 8))
    rejected(example, tokens, F(1, 2), match=r"\(i\)")


@pytest.mark.parametrize("shift", [-1, 1])
def test_tampered_segment_boundary(overshoot, shift):
    overshoot["segments"][0]["until"] += shift
    rejected(overshoot, OVERSHOOT, F(1, 100))
    overshoot["segments"][1]["layer"] += shift  # a consistent layer index does not help: the start differs
    rejected(overshoot, OVERSHOOT, F(1, 100))


def test_tampered_set(example):
    tampered = copy.deepcopy(example)
    tampered["segments"][0]["sets"][2] = [0, 1, 2, 3]
    rejected(tampered, D9_EXAMPLE, F(1, 2), match=r"\(ii\)")
    # Without both lockers the mean is the same (their displacements cancel), so (ii) still holds:
    # (iii) catches it, the dropped tokens tie with the set.
    example["segments"][0]["sets"][2] = [0, 1, 2]
    rejected(example, D9_EXAMPLE, F(1, 2), match=r"\(iii\) token 2, member 0 over 3")


def test_tampered_set_with_a_path_that_follows_it():
    # (i) and (ii) hold for the wrong set {0, 2} (the path solved for it: token 2 heads for token 0),
    # so only (iii) can catch it.
    data = certificate(D9_EXAMPLE, F(1, 2))
    r, gamma = F(2, 3), F(1, 3)
    path = solve_recurrence(r + gamma / 2, ExpPoly.constant(D9_EXAMPLE[0]).scaled(gamma / 2), D9_EXAMPLE[2])
    assert path != ExpPoly.constant(D9_EXAMPLE[2])
    data["segments"][0]["sets"][2] = [0, 2]
    data["segments"][0]["paths"][2] = exppoly_to_json(path)
    with pytest.raises(checker.Rejected) as caught:
        check(data, D9_EXAMPLE, F(1, 2))
    assert "(iii)" in str(caught.value) and "(ii)" not in str(caught.value).replace("(iii)", "")


def test_a_final_segment_failing_beyond_its_threshold_hint_is_rejected(overshoot):
    # The first segment holds for t < 200 only; declared final with a small hint, it must still fail.
    first = overshoot["segments"][0]
    first.update(until=None, status="certified", threshold=1)
    forged = {**overshoot, "segments": [first]}
    rejected(forged, OVERSHOOT, F(1, 100), match="negative")


def test_tampered_claims(overshoot):
    stated = copy.deepcopy(overshoot)
    stated["leaders"][2]["first_layer"] = 200
    rejected(stated, OVERSHOOT, F(1, 100), match="leaders")
    stated = copy.deepcopy(overshoot)
    stated["limits"][4] = ["1/2", "0"]
    rejected(stated, OVERSHOOT, F(1, 100), match="limits")


def test_a_certified_chain_must_end_with_a_segment_for_every_t(overshoot):
    overshoot["segments"] = overshoot["segments"][:2]
    rejected(overshoot, OVERSHOOT, F(1, 100), match="until")


@pytest.mark.parametrize("field, value", [("base", "3/2"), ("base", "0"), ("base", "0.5"), ("power", -1),
                                          ("power", True), ("coefficient", ["1"])])
def test_malformed_terms_are_rejected(example, field, value):
    example["segments"][0]["paths"][0][0][field] = value
    rejected(example, D9_EXAMPLE, F(1, 2))


@pytest.mark.parametrize("n, expected", [(1, r"segments\[0\]\.sets: expected 1 set$"),
                                         (2, r"segments\[0\]\.sets: expected 2 sets$")])
def test_a_count_of_sets_it_expects_is_singular_for_one(example, n, expected):
    rejected(example, D9_EXAMPLE[:n], F(1, 2), match=expected)


def test_the_counts_of_paths_and_numbers_it_expects_take_their_nouns(example):
    tampered = copy.deepcopy(example)
    tampered["segments"][0]["paths"].pop()
    rejected(tampered, D9_EXAMPLE, F(1, 2), match=r"paths: expected 5 paths$")
    term = [{"base": "1", "power": 0, "coefficient": ["1", "1", "1"]}]
    for d, expected in ((1, r"p\[0\]\.coefficient: expected 1 number$"), (2, r"p\[0\]\.coefficient: expected 2 numbers$")):
        with pytest.raises(checker.Rejected, match=expected):
            closed_form._cf_read_path(term, d, "p")


def test_a_sign_beyond_the_scan_limit_is_neither_verified_nor_rejected(monkeypatch):
    # With bases close to 1 the final segment's thresholds grow; below them the checker will not go.
    tokens = [(F(1), F(0)), (F(3, 5), F(2, 5)), (F(0), F(1, 4))]
    data = certificate(tokens, F(1, 1000))
    monkeypatch.setattr(closed_form, "MAX_CHAIN_THRESHOLD", 10)
    with pytest.raises(checker.TooExpensive):
        check(data, tokens, F(1, 1000))


def test_numbers_longer_than_pythons_text_limit_are_read():
    # After the 2000-layer jump of the overshoot at alpha = 1/1000 the positions have about 12,000
    # digits, beyond the 4300 digits int() reads from text by default.
    data = certificate(OVERSHOOT, F(1, 1000))
    longest = max(len(x) for s in data["segments"] for p in s["paths"] for term in p for x in term["coefficient"])
    assert longest > 4300
    summary = check(data, OVERSHOOT, F(1, 1000))
    assert summary["leaders"] == {0: 0, 1: 0, 4: 2001}
    data["segments"][1]["paths"][4][-1]["coefficient"][0] += "1"  # a digit more: another number
    rejected(data, OVERSHOOT, F(1, 1000))


# ----------------------------------------------------------------------------- runs settled by a chain (claims reports)


def _claims_report(tokens, alpha, **options):
    from verify.claims import check_configuration
    from verify.core.config import parse_configuration

    config = parse_configuration({"tokens": [[str(x) for x in t] for t in tokens], "alpha": str(alpha)})
    return json.loads(json.dumps(check_configuration(config, cross_check=False, **options).to_json_dict()))


@pytest.fixture(scope="module")
def d9_report():
    return _claims_report(D9_EXAMPLE, F(1, 2))


def test_a_run_settled_by_a_chain_verifies(d9_report):
    assert [f["kind"] for f in d9_report["fates"]] == ["leader", "leader", "path", "locked", "locked"]
    result = checker.check_report(copy.deepcopy(d9_report))
    assert result.exit_status == 0, result.lines()
    assert {o.claim for o in result.outcomes if o.status == "verified"} >= {"T1", "T2", "T3", "T4"}


def test_a_late_leader_beyond_the_replayed_layers_verifies():
    # The overshoot at alpha = 1/100: token 4 ties with itself and leads from layer 201, long after
    # the run stops; only the chain says so, and the checker verifies it without replaying.
    report = _claims_report(OVERSHOOT, F(1, 100))
    assert report["last_layer"] < 50 and report["fates"][4]["kind"] == "path" and report["fates"][4]["set"] == [4]
    assert checker.check_report(report).exit_status == 0


def _run_file_exit(tmp_path, report):
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(report))
    return checker.main([str(path)])


def _tamper_every_chain(report, change):
    for claim in ("T1", "T2", "T3", "T4"):
        change(report["verdicts"][claim]["certificate"]["closed_form"])
    return report


@pytest.mark.parametrize("what", ["coefficient", "base", "boundary", "set", "one verdict only"])
def test_a_tampered_chain_in_a_run_exits_1(tmp_path, d9_report, what):
    assert _run_file_exit(tmp_path, copy.deepcopy(d9_report)) == 0

    def coefficient(chain):
        chain["segments"][0]["paths"][3][0]["coefficient"][1] = "-1/5"

    def base(chain):
        chain["segments"][0]["paths"][3][0]["base"] = "3/4"

    def boundary(chain):
        chain["start_layer"] += 1
        chain["segments"][0]["layer"] += 1

    def tampered_set(chain):
        chain["segments"][-1]["sets"][2] = [0, 1, 2]

    changes = {"coefficient": coefficient, "base": base, "boundary": boundary, "set": tampered_set}
    report = copy.deepcopy(d9_report)
    if what == "one verdict only":
        tampered_set(report["verdicts"]["T3"]["certificate"]["closed_form"])
    else:
        _tamper_every_chain(report, changes[what])
    assert _run_file_exit(tmp_path, report) == 1
    assert checker.check_report(report).exit_status == 1


def test_a_path_fate_without_a_chain_is_rejected(tmp_path, d9_report):
    # docs/theory.md D9: a certified T1..T4 whose path fates lose their chain has nothing left to rest on.
    report = copy.deepcopy(d9_report)
    for claim in ("T1", "T2", "T3", "T4"):
        del report["verdicts"][claim]["certificate"]["closed_form"]
    outcomes = checker.check_report(report).outcomes
    assert {o.claim for o in outcomes if o.status == "rejected"} >= {"T1", "T2", "T3", "T4", "(run)"}
    assert not any(o.status == "verified" and o.claim in ("T1", "T2", "T3", "T4") for o in outcomes)
    assert _run_file_exit(tmp_path, report) == 1


@pytest.mark.parametrize("claim", ["T1", "T2", "T3", "T4"])
def test_removing_the_chain_from_one_certified_certificate_is_rejected(tmp_path, d9_report, claim):
    # The other verdicts still carry the (verified) chain; the certificate without it is rejected all the same.
    report = copy.deepcopy(d9_report)
    assert any(f["kind"] == "path" for f in report["verdicts"][claim]["certificate"]["fates"])
    del report["verdicts"][claim]["certificate"]["closed_form"]
    result = checker.check_report(report)
    rejected = {o.claim: o.reason for o in result.outcomes if o.status == "rejected"}
    assert set(rejected) == {claim}, rejected
    assert "does not carry the certified closed-form chain" in rejected[claim]
    assert _run_file_exit(tmp_path, report) == 1


# ----------------------------------------------------------------------------- beyond the checker's limits


OVERSHOOT_LIMIT = 50  # below the first segment's boundary (t = 196) and its sign thresholds (about 100)


@pytest.fixture(scope="module")
def overshoot_report():
    report = _claims_report(OVERSHOOT, F(1, 100))
    assert report["fates"][4]["kind"] == "path" and report["status"] == "certified"
    return report


def _outcomes(report):
    result = checker.check_report(copy.deepcopy(report))
    return result, {o.claim: (o.status, o.reason) for o in result.outcomes}


def test_a_chain_beyond_the_limits_is_unsupported_not_rejected(tmp_path, monkeypatch, capsys, overshoot_report):
    assert _run_file_exit(tmp_path, overshoot_report) == 0
    monkeypatch.setattr(closed_form, "MAX_CHAIN_THRESHOLD", OVERSHOOT_LIMIT)
    result, by_claim = _outcomes(overshoot_report)
    assert result.exit_status == 3, result.lines()
    for claim in ("T1", "T2", "T3", "T4"):
        status, reason = by_claim[claim]
        assert status == "unsupported" and "beyond the checker's limits" in reason, (claim, reason)
    assert by_claim["(run)"][0] == "unsupported"
    # What does not rest on the chain is still verified.
    assert all(by_claim[c][0] == "verified" for c in ("T0", "D1", "D2", "D3", "replay"))
    capsys.readouterr()
    assert _run_file_exit(tmp_path, overshoot_report) == 3
    out = capsys.readouterr().out
    assert "T2 unsupported" in out and f"t = {OVERSHOOT_LIMIT}" in out and "REJECTED" not in out


@pytest.mark.parametrize("where", ["chain coefficient", "chain set", "vertex direction", "settled layer"])
def test_tampering_beyond_the_limits_is_still_rejected(tmp_path, monkeypatch, overshoot_report, where):
    monkeypatch.setattr(closed_form, "MAX_CHAIN_THRESHOLD", OVERSHOOT_LIMIT)
    report = copy.deepcopy(overshoot_report)
    if where == "chain coefficient":  # (ii) fails in the first segment, before any limit is reached
        _tamper_every_chain(report, lambda chain: chain["segments"][0]["paths"][4][0]["coefficient"].__setitem__(
            0, "7/3"))
    elif where == "chain set":  # the final segment, never verified here, disagrees with the path fate's set
        _tamper_every_chain(report, lambda chain: chain["segments"][-1]["sets"].__setitem__(4, [2, 4]))
    elif where == "vertex direction":  # a condition outside the chain
        direction = report["verdicts"]["T2"]["certificate"]["vertices"][0]["direction"]
        direction[:] = ["-" + x if not x.startswith("-") else x[1:] for x in direction]
    else:
        report["settled_layer"] += 1
    result = checker.check_report(report)
    assert result.exit_status == 1, result.lines()
    assert _run_file_exit(tmp_path, report) == 1


def test_a_downgrade_that_only_an_unchecked_chain_would_show_is_inconclusive(monkeypatch, overshoot_report):
    # With the chain verified, an inconclusive T2 next to it is a downgrade; beyond the limits it may stand.
    report = copy.deepcopy(overshoot_report)
    verdict = report["verdicts"]["T2"]
    verdict["evidence"]["closed_form"] = verdict["certificate"]["closed_form"]
    verdict["status"] = "inconclusive"
    del verdict["certificate"]
    report["status"] = "inconclusive"
    assert _outcomes(report)[1]["T2"][0] == "rejected"
    monkeypatch.setattr(closed_form, "MAX_CHAIN_THRESHOLD", OVERSHOOT_LIMIT)
    result, by_claim = _outcomes(report)
    assert by_claim["T2"][0] == "inconclusive" and result.exit_status == 3


def test_a_final_segment_beyond_the_limits_is_checked_everywhere_else(monkeypatch):
    # One segment, final; one of its signs needs a threshold of 2. With a limit of 1 that sign is not
    # scanned, but what is checked after it still is: a wrong stated limit is rejected, not "too expensive".
    config = generate_face_mean_ties(0, n=9, d=3, matrix="diagonal")
    tokens, alpha, A = config.tokens, config.alpha, config.A
    data = certificate(tokens, alpha, A)
    assert len(data["segments"]) == 1 and check(data, tokens, alpha, A)["largest_threshold"] == 2
    monkeypatch.setattr(closed_form, "MAX_CHAIN_THRESHOLD", 1)
    with pytest.raises(checker.TooExpensive, match=r"segments\[0\]: \(iii\).*beyond t = 1"):
        check(data, tokens, alpha, A)
    data["limits"][-1][0] += "1"
    rejected(data, tokens, alpha, A, match="limits")


def test_a_huge_segment_boundary_is_beyond_the_limits_at_once():
    # A segment "until" of 10^9 would make the checker evaluate (2/3)^(10^9): refused as too expensive.
    data = certificate(D9_EXAMPLE, F(1, 2))
    final = data["segments"][0]
    data["segments"] = [{**final, "status": "jump", "until": 10 ** 9}, {**copy.deepcopy(final), "layer": 10 ** 9}]
    del data["limits"], data["leaders"]
    previous = signal.signal(signal.SIGALRM, lambda *_: pytest.fail("the checker evaluated the huge boundary"))
    signal.alarm(30)
    try:
        with pytest.raises(checker.TooExpensive, match="until"):
            check(data, D9_EXAMPLE, F(1, 2))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)



def test_the_segments_after_a_huge_boundary_are_checked_but_for_their_start():
    # Beyond the boundary only (i) (where each path starts) needs the huge evaluation: (ii) and (iii) of the later
    # segments are still checked, so a later segment edited anywhere else is rejected, and the reason for "too
    # expensive" says what was not checked.
    data = certificate(D9_EXAMPLE, F(1, 2))
    final = data["segments"][0]
    data["segments"] = [{**final, "status": "jump", "until": 10 ** 9}, {**copy.deepcopy(final), "layer": 10 ** 9}]
    del data["limits"], data["leaders"]
    with pytest.raises(checker.TooExpensive, match=r"condition \(i\) of the later segments .* is not checked"):
        check(data, D9_EXAMPLE, F(1, 2))
    edited = copy.deepcopy(data)
    edited["segments"][1]["paths"][3][0]["coefficient"] = ["0", "-1/3"]  # breaks the update rule (ii)
    rejected(edited, D9_EXAMPLE, F(1, 2), match=r"segments\[1\]: \(ii\)")
    edited = copy.deepcopy(data)
    edited["segments"][1]["sets"][2] = [2]  # token 2 alone: the rule (ii) or the strict scores (iii) fail
    rejected(edited, D9_EXAMPLE, F(1, 2), match=r"segments\[1\]: \((ii|iii)\)")

def test_a_path_fate_with_another_limit_is_rejected(d9_report):
    report = copy.deepcopy(d9_report)
    for claim in ("T1", "T2", "T3", "T4"):
        report["verdicts"][claim]["certificate"]["fates"][2]["limit"] = ["-7/8", "1/8"]
    report["fates"][2]["limit"] = ["-7/8", "1/8"]
    assert checker.check_report(report).exit_status == 1


def test_a_run_downgraded_although_its_chain_settles_it_is_rejected(d9_report):
    report = copy.deepcopy(d9_report)
    verdict = report["verdicts"]["T2"]
    verdict["evidence"]["closed_form"] = verdict["certificate"]["closed_form"]
    verdict["status"] = "inconclusive"
    del verdict["certificate"]
    report["status"] = "inconclusive"
    rejected_claims = {o.claim for o in checker.check_report(report).outcomes if o.status == "rejected"}
    assert "T2" in rejected_claims


def test_a_sign_that_turns_negative_is_rejected_by_its_threshold_not_its_until():
    # f(t) = 5 - t fails at t = 5. Over a jump of 10^9 layers the scan (and its charge) stops just past the
    # threshold from which the negative leading term decides, so a tight allowance still rejects instead of stopping.
    from verify.certcheck.kernel.meter import metered

    f = {(0, 1): -1, (0, 0): 5}  # base number 0 stands for 1 / 1
    with metered(10_000):
        with pytest.raises(checker.Rejected, match="fails at t = 5"):
            closed_form._cf_check_positive(f, [1], 10 ** 9, "test")


# ----------------------------------------------------------------------------- (iii) over a short jump

# Over a jump of a few layers (iii) is checked from the positions at each t, elsewhere from the exp-polys of the
# score differences: on the same segment both must find the same first failure, or none.
HALF, ONE = F(1, 2), F(1)
SHORT_JUMP_CASES = {
    # token 1 starts on token 0, then moves off along t (1/2)^t: their tie breaks at t = 1
    "tie breaks at t = 1": ([{(ONE, 0): [ONE, F(0)]}, {(ONE, 0): [ONE, F(0)], (HALF, 1): [ONE, F(0)]}],
                            [{0, 1}, {0, 1}], 3),
    # tokens 0 and 2 score highest in row 0, which claims 0 and 1: as many tokens as its set, but not its set
    "members 0 and 1: the tie breaks at t = 0": (
        [{(ONE, 0): [ONE, F(0)]}, {(ONE, 0): [F(0), ONE]}, {(ONE, 0): [ONE, F(0)]}], [{0, 1}, {1}, {0, 2}], 2),
    # rows 0 and 1 both fail; row 0 is reported, by its first failure in token order, not in t
    "member 0 over 2: fails at t = 1 (negative)": (
        [{(ONE, 0): [ONE, F(0)]}, {(ONE, 0): [F(0), ONE]}, {(ONE, 0): [F(3), F(0)], (HALF, 0): [F(-3), F(0)]},
         {(ONE, 0): [F(1, 2), F(0)], (HALF, 0): [F(1, 2), ONE]}], [{0}, {0}, {2}, {3}], 3),
    # token 1 heads for (3, 0) from (0, -1): at t = 1 it outscores token 0 in row 0
    "member 0 over 1: fails at t = 1 (negative)": (
        [{(ONE, 0): [ONE, F(0)]}, {(ONE, 0): [F(3), F(0)], (HALF, 0): [F(-3), F(-1)]}], [{0}, {1}], 3),
    # the same, but the jump ends before token 1 overtakes: nothing fails
    "": ([{(ONE, 0): [ONE, F(0)]}, {(ONE, 0): [F(3), F(0)], (HALF, 0): [F(-3), F(-1)]}], [{0}, {1}], 1),
}


def test_signs_for_every_t_agree_with_evaluating_them():
    # f = sum c t^a b^t with bases 1/3, 1/2, 2/3, 1: accepted only if positive at every t (checked up to 400, past
    # any threshold these coefficients need), rejected at the first t where it is not.
    rng = random.Random(7)
    P = [2, 3, 4, 6]  # the bases times 6: f(t) 6^t has the sign of f(t)
    for _ in range(2000):
        f = {(rng.randrange(4), rng.randrange(3)): rng.randint(-6, 6) for _ in range(rng.randint(1, 4))}
        f = {key: c for key, c in f.items() if c}
        values = [sum(c * t ** a * P[i] ** t for (i, a), c in f.items()) for t in range(400)]
        first_failure = next((t for t, x in enumerate(values) if x <= 0), None)
        try:
            closed_form._cf_check_positive(dict(f), P, None, "f")
        except checker.Rejected as error:
            assert first_failure is not None, (f, str(error))
            assert re.search(rf"identically|negative, so|at t = {first_failure}\b", str(error)), (f, str(error))
        else:
            assert first_failure is None, (f, first_failure)


@pytest.mark.parametrize("expected", list(SHORT_JUMP_CASES))
def test_a_short_jump_checks_iii_as_the_exp_polys_do(expected):
    paths, sets, until = SHORT_JUMP_CASES[expected]
    identity = [[F(1), F(0)], [F(0), F(1)]]
    found = []
    for check_sets in (closed_form._cf_check_sets_at, closed_form._cf_check_sets):
        arguments = (paths, sets, list(range(len(paths))), identity, until, "s")
        try:
            check_sets(*arguments) if check_sets is closed_form._cf_check_sets_at else check_sets(*arguments, 0, None)
            found.append("")
        except checker.Rejected as error:
            found.append(str(error))
    assert found[0] == found[1] and (found[0].endswith(expected) if expected else found[0] == "")


@pytest.mark.parametrize("direct", [16, 0])
def test_a_wrong_set_in_a_short_jump_is_rejected(monkeypatch, example, direct):
    # The final segment, restated as a jump of two layers (the segment after it is never reached): the set
    # {0, 1, 2} keeps (ii) (the dropped tokens' displacements cancel) but token 3 ties with it (at t = 0, and
    # identically).
    monkeypatch.setattr(closed_form, "_DIRECT_SCAN", direct)
    final = example["segments"][0]
    example["segments"] = [{**final, "status": "jump", "until": 2}, {**copy.deepcopy(final), "layer": 2}]
    example["segments"][0]["sets"][2] = [0, 1, 2]
    rejected(example, D9_EXAMPLE, F(1, 2),
             match=r"segments\[0\]: \(iii\) token 2, member 0 over 3: (fails at t = 0 \(zero\)|the difference vanishes)")


# ----------------------------------------------------------------------------- rows settled by D7 (D9's (iii))

LOCKED = [(C, F(-1, 2)), (C, F(1, 2)), (C, F(1, 4))]  # two leaders; token 2 locks onto token 1 at layer 0


def _wrong_lock_chain():
    """A chain whose (i) and (ii) hold but whose (iii) fails for token 2: it says token 2 follows token 0."""
    data = certificate(LOCKED, F(1, 2))
    segment = data["segments"][0]
    segment["sets"][2] = [0]
    segment["paths"][2] = [{"coefficient": ["0", "3/4"], "power": 0, "base": "2/3"},
                           {"coefficient": ["-7/8", "-1/2"], "power": 0, "base": "1"}]
    data["limits"][2] = ["-7/8", "-1/2"]
    return data


def test_a_fated_row_skips_iii_only_when_its_set_is_the_fate_set():
    data = _wrong_lock_chain()
    rejected(copy.deepcopy(data), LOCKED, F(1, 2), match=r"\(iii\) token 2")
    # The caller's fates decide which rows are skipped: the true D7 set {1} differs, so the row is checked...
    with pytest.raises(checker.Rejected, match=r"\(iii\) token 2"):
        checker.verify_closed_form(copy.deepcopy(data), positions=LOCKED, alpha=F(1, 2),
                                   fated={0: frozenset({0}), 1: frozenset({1}), 2: frozenset({1})})
    # ...and a fate stating the chain's own set is trusted (which is why only the replay's D7 search gives them).
    checker.verify_closed_form(copy.deepcopy(data), positions=LOCKED, alpha=F(1, 2), fated={2: frozenset({0})})


def test_a_run_takes_its_fated_rows_from_the_replay_not_the_chain():
    from verify.certcheck.kernel import model_of

    config = {"tokens": [[str(x) for x in t] for t in LOCKED], "alpha": "1/2"}
    honest = closed_form._run_chain({"T1": {"certificate": {"closed_form": certificate(LOCKED, F(1, 2))}}},
                                    model_of(config))
    assert honest.chain is not None and honest.problem is None
    wrong = closed_form._run_chain({"T1": {"certificate": {"closed_form": _wrong_lock_chain()}}}, model_of(config))
    assert wrong.chain is None and "(iii) token 2" in wrong.problem


def test_rows_settled_by_d7_cost_no_scores():
    from verify.certcheck.kernel import metered

    data = certificate(D9_EXAMPLE, F(1, 2))
    sets = [frozenset(s) for s in data["segments"][0]["sets"]]
    spent = []
    for fated in (None, {t: sets[t] for t in (0, 1, 3, 4)}):
        with metered(10 ** 9) as meter:
            check_data = copy.deepcopy(data)
            checker.verify_closed_form(check_data, positions=D9_EXAMPLE, alpha=F(1, 2), fated=fated)
            spent.append(meter[1] - meter[0])
    assert spent[1] < spent[0]


def test_the_fated_sets_are_the_attention_sets_the_replay_keeps():
    # (1/2, 1/2) ties with both leaders and itself: fixed by D7 with the leaders G = {0, 1}, so its set at every
    # later layer is G + {2}, not G; a leader keeps {j}. The chain's (iii) is skipped only for rows whose set this is.
    from verify.certcheck.kernel.fates import _search_fates, fate_attention_sets
    model = checker.Model({"tokens": [["1", "0"], ["0", "1"], ["1/2", "1/2"]], "alpha": "1/2"})
    model.last = 3
    fates, _ = _search_fates(model, 0)
    assert {t: f.kind for t, f in fates.items()} == {0: "leader", 1: "leader", 2: "fixed"}
    sets = fate_attention_sets(fates)
    assert sets == {0: frozenset({0}), 1: frozenset({1}), 2: frozenset({0, 1, 2})}
    assert all(model.attention(k)[t] == sets[t] for k in range(4) for t in sets)
