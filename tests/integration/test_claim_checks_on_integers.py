"""T2's leader pairs, T3's supporting directions and D7's locking test decide on integer scores over a common
denominator (verify/core/linalg.IntegerPoints, the layer's integer score matrix): whole ``check`` reports must be
byte for byte those of the plain Fraction formulas (docs/theory.md T2, T3, D7), on every family, ties included.

The Fraction formulas (tests/common/fraction_scores.py) are the tests' own: the obvious dot products, swapped in
for the integer ones, so the reports compared are computed by two different implementations in the same process.
"""

from __future__ import annotations

import json

import pytest

from tests.common.fraction_scores import fraction_locking_value, fraction_scores_itself_highest, fraction_supports_at
from verify.claims import T2, T3, run as claims_run
from verify.claims.run import check_configuration
from verify.core import families
from verify.core.config import Configuration

CASES = [(family, seed) for family in families.FAMILIES for seed in (0, 1)]


def _report(config: Configuration) -> str:
    report = check_configuration(config, layer_budget=40, cross_check=False)
    return json.dumps(report.to_json_dict(), sort_keys=False)


def _config(family: str, seed: int) -> Configuration:
    spec = families.FAMILIES[family]
    n = max(spec.min_n, 12)
    d = max(spec.min_d, 3 if seed else 2)
    return families.generate(family, seed, n=n, d=d)


@pytest.mark.parametrize(("family", "seed"), CASES, ids=[f"{f}-{s}" for f, s in CASES])
def test_integer_claim_checks_give_the_fraction_reports(family: str, seed: int,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    config = _config(family, seed)
    integer = _report(config)
    calls = {"T2": 0, "T3": 0, "D7": 0}

    def counted(name, function):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(T2, "scores_itself_highest", counted("T2", fraction_scores_itself_highest))
    original_points = T3.IntegerPoints

    class RecordingPoints(original_points):  # hands the Fraction oracle the very points T3 built
        def __init__(self, points):
            super().__init__(points)
            monkeypatch.setattr(T3, "supports_at", counted("T3", fraction_supports_at([tuple(p) for p in points])))

    monkeypatch.setattr(T3, "IntegerPoints", RecordingPoints)
    monkeypatch.setattr(claims_run, "locking_value", counted("D7", fraction_locking_value))
    fraction = _report(config)
    assert integer == fraction
    statuses = json.loads(integer)["verdicts"]
    if statuses["T2"]["status"] != "inconclusive":
        assert calls["T2"] > 0  # the swapped formula was the one deciding


def test_the_families_reach_every_swapped_formula() -> None:
    """The comparison above means something: over the cases, each integer formula decides something, ties
    (a locked token: D7's equal scores on F) included."""
    seen = {"T2": 0, "T3": 0, "D7": 0}
    for family, seed in CASES:
        data = json.loads(_report(_config(family, seed)))
        verdicts = data["verdicts"]
        seen["T2"] += verdicts["T2"]["status"] == "certified"
        seen["T3"] += bool(verdicts["T3"].get("certificate", {}) and verdicts["T3"]["certificate"].get("boundary"))
        seen["D7"] += any(f["kind"] == "locked" for f in data["fates"])
    assert all(count > 0 for count in seen.values()), seen
