"""verify/certcheck/softmax/, the independent checker of softmax certificates: it verifies what the
engine writes, rejects every tampered margin, bound, stop or summary, refuses what is beyond its
limits before any replay, and its exponential lower bound is one (against mpmath)."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import mpmath
import pytest

from verify.certcheck import softmax as checker
from verify.app.commands.softmax import certificate_record
from verify.core.config import parse_configuration
from verify.core.softmax_bound import softmax_certificate

mpmath.mp.dps = 60


def record(tokens, *, alpha="1/2", beta=200, layers=6, A=None):
    data = {"tokens": tokens, "alpha": alpha, "outside_hypotheses": True}
    if A is not None:
        data["A"] = A
    config = parse_configuration(data)
    certificate = softmax_certificate(config.tokens, alpha=config.alpha, beta=beta, layers=layers,
                                      A=config.A_matrix if config.A is not None else None)
    # Through JSON, as the checker reads a file: every number a string.
    return json.loads(json.dumps(certificate_record(config, certificate)))


HOLDS = dict(tokens=[[1, 0], [0, 1], ["1/2", "1/3"], ["1/2", "1/3"]], beta=200, layers=6)
TIE = dict(tokens=[[1, 0], [0, 1], ["1/2", "1/2"]], beta=200, layers=3)
MARGIN_STOP = dict(tokens=[[1, 0], [0, 1], ["1/2", "1/3"]], beta=1, layers=6)
DENSE = dict(tokens=[[1, 0], [0, 1], ["1/2", "-1/3"], ["-1/4", "1/5"]], beta=300, layers=5,
             A=[["2", "1/3"], ["1/3", "5/4"]])


@pytest.mark.parametrize("case", [HOLDS, TIE, MARGIN_STOP, DENSE], ids=["holds", "tie", "margin", "dense-A"])
def test_engine_certificates_verify(case):
    result = checker.check_record(record(**case))
    assert result.status == "verified", result.reason
    assert result.exit_status == 0


def _tampered(case, change):
    data = record(**case)
    change(data["softmax_certificate"], data)
    return checker.check_record(data)


def _halve_bound(k):
    def change(cert, data):
        r = cert["records"][k]
        r["bound"] = str(Fraction(r["bound"]) / 2)
    return change


def _nudge_margin(k):
    def change(cert, data):
        r = cert["records"][k]
        r["margin"] = str(Fraction(r["margin"]) * Fraction(1001, 1000))
    return change


TAMPERINGS = {
    "bound halved at layer 1": (HOLDS, _halve_bound(1)),
    "bound halved at the last layer": (HOLDS, _halve_bound(6)),
    "margin enlarged at layer 2": (HOLDS, _nudge_margin(2)),
    "margin enlarged, dense A": (DENSE, _nudge_margin(1)),
    "eta lowered": (HOLDS, lambda c, d: c["records"][3].__setitem__("eta", str(Fraction(c["records"][3]["eta"]) / 3))),
    "radius lowered": (HOLDS, lambda c, d: c.__setitem__("radius", "1/2")),
    "norm lowered": (DENSE, lambda c, d: c.__setitem__("norm_bound", "1")),
    "gamma changed": (HOLDS, lambda c, d: c.__setitem__("gamma", "1/4")),
    "beta lowered": (HOLDS, lambda c, d: c.__setitem__("beta", "50")),
    "a tie passed over": (TIE, lambda c, d: (c.__setitem__("stop", None), c.__setitem__("holds", True),
                                             c.__setitem__("certified_through", 3),
                                             c["records"].extend([{"layer": k, "bound": "1", "margin": None,
                                                                   "eta": None} for k in (1, 2, 3)]),
                                             d.__setitem__("status", "certified"))),
    "stop claimed where there is no tie": (HOLDS, lambda c, d: (c.__setitem__("stop", {"layer": 6, "reason": "tie",
                                                                                        "token": 0, "tokens": [0, 1]}),
                                                                c.__setitem__("holds", False),
                                                                d.__setitem__("status", "inconclusive"))),
    "holds claimed for a stopped certificate": (MARGIN_STOP, lambda c, d: c.__setitem__("holds", True)),
    "status says certified": (TIE, lambda c, d: d.__setitem__("status", "certified")),
    "token moved out of the radius": (HOLDS, lambda c, d: d["config"]["tokens"][0].__setitem__(0, "3/2")),
    "token moved onto a tie": (HOLDS, lambda c, d: d["config"]["tokens"][2].__setitem__(1, "1/2")),
    "eps_0 not zero": (HOLDS, lambda c, d: c["records"][0].__setitem__("bound", "-1")),
    "the printed bound below the proven one": (HOLDS, lambda c, d: c["records"][-1].__setitem__("bound_approx",
                                                                                               "1.00e-300")),
    "the printed margin above the proven one": (HOLDS, lambda c, d: c["records"][2].__setitem__("margin_approx",
                                                                                               "9.99e+9")),
    "the norm's method misnamed": (DENSE, lambda c, d: c.__setitem__("norm_method", "exact spectral norm")),
    "the approximations' rounding misstated": (HOLDS, lambda c, d: c.__setitem__(
        "approx_rounding", {"bound_approx": "nearest", "margin_approx": "nearest"})),
}


def test_a_larger_beta_leaves_a_valid_certificate():
    """Raising beta only shrinks the true bound, so the stated one still holds: verified, not rejected."""
    result = _tampered(HOLDS, lambda c, d: c.__setitem__("beta", "2000"))
    assert result.status == "verified"


@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_tampering_is_rejected(name):
    case, change = TAMPERINGS[name]
    result = _tampered(case, change)
    assert result.status == "rejected" and result.exit_status == 1, name


def test_limits_are_refused_before_any_replay():
    data = record(**HOLDS)
    with pytest.raises(checker.BadInput):
        checker.check_record(data, max_work=10)
    big = copy.deepcopy(data)
    big["softmax_certificate"]["layers"] = checker.MAX_LAYERS + 1
    with pytest.raises(checker.BadInput):
        checker.check_record(big)
    with pytest.raises(checker.BadInput):
        checker.check_record({"config": {}, "softmax_certificate": {}})
    with pytest.raises(checker.BadInput):
        checker.check_record({"tokens": []})


@pytest.mark.parametrize("y", [Fraction(0), Fraction(1, 7), Fraction(1), Fraction(5, 2), Fraction(745),
                               Fraction(65539, 3)], ids=str)
def test_exp_lower_is_a_lower_bound(y):
    value = checker.exp_lower(y)
    true = mpmath.exp(mpmath.mpf(y.numerator) / y.denominator)
    assert mpmath.mpf(value.numerator) / value.denominator <= true
    assert mpmath.mpf(value.numerator) / value.denominator >= true * (1 - mpmath.mpf(2) ** -80)  # slack 2^-32 needed


# ---------------------------------------------------------------------------------------------
# Repeated keys, long numbers and bounded work


def _write(tmp_path, data, name="record.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_repeated_key_is_refused_not_read(tmp_path):
    """A first-wins reader would see eps_K = 0 where the checker (last wins) sees the true bound: refused, exit 2."""
    data = record(**HOLDS)
    text = json.dumps(data)
    last = data["softmax_certificate"]["records"][-1]["bound"]
    text = text.replace(f'"bound": "{last}"', f'"bound": "0", "bound": "{last}"')
    assert text.count('"bound": "0", "bound"') == 1
    path = tmp_path / "dup.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(checker.BadInput, match="twice"):
        checker.check_path(str(path))
    assert checker.main([str(path)]) == 2
    from verify.app.cli import main as cli_main
    assert cli_main(["certcheck", str(path)]) == 2


def test_a_certificate_with_numbers_beyond_4300_digits_verifies(tmp_path):
    """beta = 10^6 gives bounds near exp(-65536) (about 10^-28462): denominators of about 28,000 digits."""
    from verify.app.cli import main as cli_main
    config = _write(tmp_path, {"tokens": [["1", "0"], ["0", "1"], ["-1", "-1"]], "alpha": "1", "layers": 3},
                    "big.json")
    out = tmp_path / "big-out.json"
    assert cli_main(["softmax", str(config), "--beta", "1000000", "--json", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert max(len(r["bound"]) for r in data["softmax_certificate"]["records"]) > 20_000
    assert checker.check_path(str(out)).status == "verified"
    assert cli_main(["certcheck", str(out)]) == 0
    # The same record with a bound below the previous layer's is still rejected on its merits.
    data["softmax_certificate"]["records"][3]["bound"] = data["softmax_certificate"]["records"][1]["bound"]
    assert checker.check_record(data).status == "rejected"


def test_a_number_beyond_the_checkers_digit_limit_is_refused_not_rejected():
    data = record(**HOLDS)
    data["softmax_certificate"]["records"][1]["bound"] = "1" + "0" * checker.MAX_DIGITS + "/3"
    with pytest.raises(checker.BadInput, match="limit"):
        checker.check_record(data)


def test_work_beyond_the_limit_is_refused_before_the_replay(monkeypatch):
    data = record(tokens=[[str(i), str(i * i % 7)] for i in range(1, 40)], beta=10, layers=2)
    estimate = checker.record_work(data)
    assert 0 < estimate
    calls = []
    monkeypatch.setattr(checker, "_Layer", lambda *a: calls.append(a))
    with pytest.raises(checker.BadInput, match="units of work"):
        checker.check_record(data, max_work=estimate - 1)
    assert calls == []  # nothing replayed


def test_work_beyond_the_estimate_is_unsupported_not_rejected(monkeypatch):
    """The meter (the claims checker's) stops a check that needs more than it estimated: exit 3."""
    data = record(**HOLDS)
    monkeypatch.setattr(checker, "estimated_work", lambda *a, **k: 0)
    result = checker.check_record(data, max_work=50)
    assert result.status == "unsupported" and result.exit_status == 3
    assert "work units" in result.reason
    assert result.lines()[0].startswith("softmax certificate not checked")


def test_the_work_units_are_the_claims_checkers():
    """Same units: one layer of n tokens in d costs the claims checker's price of its products."""
    from verify import certcheck
    from verify.certcheck.kernel import meter
    n, d = 5, 3
    one = checker.estimated_work(n, d, 0, bits=10, growth=0)
    assert one == int(meter.cost(n * d * d + n * n * (d + certcheck.SCORE_OVERHEAD) + n * d, 10, 10)
                      + meter.cost(checker.STEP_OPERATIONS, 20, 20))
    assert checker.DEFAULT_MAX_WORK == certcheck.DEFAULT_MAX_WORK
    # Numbers that grow cost more per layer (Karatsuba beyond 512 bits).
    assert checker.estimated_work(n, d, 50, bits=10, growth=100) > 51 * one * 2


def test_a_status_set_to_null_is_rejected():
    # null skipped the comparison of the record's status with what its certificate shows (certified when it holds).
    data = record(**HOLDS)
    assert data["status"] == "certified"
    data["status"] = None
    result = checker.check_record(data)
    assert result.status == "rejected" and "status" in result.reason
