"""A report on a wrong dynamics says that claims failed, shows the shrunk counterexample, exits 1 (issue 4).

The test double moves every position outward (x2) from layer 1 on, as a buggy engine might:
a leader then moves after its first leading layer (T1, D3 false), and the replay disagrees.
The claim checks receive it through ``check_configuration(dynamics=...)``; the report must
still be written, say FAILED up front, and give a CONFIG.json that reproduces the failure.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

import pytest

from verify.core import exitcodes
from verify.claims import check_configuration
from verify.core.config import load_configuration
from verify.core.exact_dynamics import exact_layers
from verify.app.report.build import build_report
from verify.app.campaign import CampaignSpec, FamilySpec
from verify.claims.verdicts import Verdict


def drifting_dynamics(tokens, *, alpha, A=None, V=None):
    """The real engine, but every yielded layer k >= 1 is scaled by 2 (a deliberately wrong engine)."""
    for layer in exact_layers(tokens, alpha=alpha, A=A, V=V):
        if layer.index >= 1:
            layer = dataclasses.replace(layer, numerators=tuple(tuple(2 * x for x in row) for row in layer.numerators))
        yield layer


SPEC = CampaignSpec(examples=2, layer_budget=20, worked=False, float_check=False, shrink=True,
                    families=(FamilySpec("generic", n=(4, 5), d=(2,)),))


@pytest.fixture(scope="module")
def failing_report(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("failing") / "report"
    checker = functools.partial(check_configuration, dynamics=drifting_dynamics)
    outcome = build_report(out=out, seed=0, spec=SPEC, runs_dir=None, checker=checker)
    return out, outcome


def test_exit_status_is_false(failing_report) -> None:
    _, outcome = failing_report
    assert outcome.exit_status == exitcodes.FALSE
    assert outcome.results["summary"]["overall"] == "failed"
    assert outcome.results["summary"]["claims"]["T1"]["failed"] == 2


def test_report_says_failed_up_front(failing_report) -> None:
    out, _ = failing_report
    markdown = (out / "report.md").read_text(encoding="utf-8")
    head = markdown.split("## Counterexamples")[0]
    assert "Overall: **FAILED**" in head
    t1_row = next(line for line in head.splitlines() if line.startswith("| T1 |"))
    assert t1_row.split("|")[4].strip() == "2"  # the "failed" column
    assert "None: no claim failed" not in markdown
    assert "FAILED" in (out / "report.html").read_text(encoding="utf-8")


def test_counterexample_is_shrunk_and_reproduces(failing_report) -> None:
    out, outcome = failing_report
    counterexamples = outcome.results["counterexamples"]
    assert len(counterexamples) == 2
    for c in counterexamples:
        assert c["shrunk_n"] < c["original_n"]
        config = load_configuration(out / c["file"])
        assert config.n == c["shrunk_n"]
        report = check_configuration(config, layer_budget=20, dynamics=drifting_dynamics)
        assert report.verdicts[c["claim"]].status == "failed"
        # With the real engine the same configuration is certified: the failure is the engine's.
        assert check_configuration(config, layer_budget=20).verdicts[c["claim"]].status == "certified"
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert f"hardmax-verify check {counterexamples[0]['file']}" in markdown


class _FakeReport:
    """A ClaimReport stand-in with one injected inconclusive verdict and no layers."""

    def __init__(self, config, status: str) -> None:
        real = check_configuration(config, layer_budget=20)
        self.verdicts = dict(real.verdicts)
        self.verdicts["T3"] = Verdict("T3", status, "injected", {"measured_distance": 0.5})
        self.fates, self.layers, self.layers_run, self.settled_layer = real.fates, real.layers, real.layers_run, None

    def to_json_dict(self):
        return {"verdicts": {c: v.to_json_dict() for c, v in self.verdicts.items()},
                "fates": [f.to_json_dict() for f in self.fates], "last_layer": self.layers_run, "settled_layer": None}


def test_an_inconclusive_run_gives_status_3(tmp_path: Path) -> None:
    # A token that leads only from layer 1 on, and a time budget that stops every run after layer
    # 0: T1..T4 are honestly inconclusive (the independent checker confirms each), the rest certified.
    spec = dataclasses.replace(SPEC, time_budget=1e-9, families=(FamilySpec("emerging_leader", n=(4, 5), d=(2,)),))
    outcome = build_report(out=tmp_path / "r", seed=0, spec=spec, runs_dir=None)
    assert outcome.exit_status == exitcodes.INCONCLUSIVE
    row = outcome.results["summary"]["claims"]["T3"]
    assert (row["inconclusive"], row["measured"], row["certified"]) == (2, 2, 0)
    assert all(not r["certcheck"]["rejected"] for r in outcome.results["examples"])
    assert "Overall: **inconclusive**" in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")


def test_a_verdict_downgraded_by_the_producer_is_caught_by_the_checker(tmp_path: Path) -> None:
    # The injected report says T3 is inconclusive (and the run unsettled) where the run settled:
    # the independent checker, replaying it, rejects the downgrade and the report fails.
    outcome = build_report(out=tmp_path / "r", seed=0, spec=SPEC, runs_dir=None,
                           checker=lambda config, layer_budget: _FakeReport(config, "inconclusive"))
    assert outcome.exit_status == exitcodes.FALSE
    for record in outcome.results["examples"]:
        assert "downgraded" in record["certcheck"]["rejected"]["T3"]
        assert "settled_layer is None" in record["certcheck"]["rejected"]["(run)"]


def test_task_that_raises_is_recorded_not_dropped(tmp_path: Path) -> None:
    calls = []

    def broken(config, layer_budget):
        calls.append(config.name)
        raise ZeroDivisionError("injected")

    outcome = build_report(out=tmp_path / "r", seed=0, spec=SPEC, runs_dir=None, checker=broken)
    assert len(calls) == 4  # two tasks, each retried once
    assert outcome.exit_status == exitcodes.INCONCLUSIVE
    assert [r["status"] for r in outcome.results["examples"]] == ["error", "error"]
    assert outcome.results["summary"]["claims"]["T0"]["unchecked"] == 2
    data = json.loads((tmp_path / "r" / "results.json").read_text(encoding="utf-8"))
    assert data["examples"][0]["error"] == "ZeroDivisionError: injected"


class _TamperedReport(_FakeReport):
    """The real verdicts, but the T0 certificate names a token that does not lead at its layer."""

    def __init__(self, config, status: str = "certified") -> None:
        super().__init__(config, status)
        real = check_configuration(config, layer_budget=20)
        self.verdicts["T3"] = real.verdicts["T3"]
        t0 = real.verdicts["T0"]
        certificate = dict(t0.certificate)
        followers = [i for i in range(config.n) if i not in certificate["leaders"]]
        certificate["leaders"] = sorted(certificate["leaders"] + followers[:1])
        self.verdicts["T0"] = Verdict("T0", "certified", t0.summary, t0.evidence, certificate)
        self.settled_layer = real.settled_layer


@pytest.mark.slow
def test_certificates_are_rechecked_independently(tmp_path: Path) -> None:
    honest = build_report(out=tmp_path / "honest", seed=0, spec=SPEC, runs_dir=None)
    for claim, row in honest.results["summary"]["claims"].items():
        assert row["recertified"] == row["certified"] == 2, claim
    tampered = build_report(out=tmp_path / "tampered", seed=0, spec=SPEC, runs_dir=None,
                            checker=lambda config, layer_budget: _TamperedReport(config))
    row = tampered.results["summary"]["claims"]["T0"]
    assert (row["certified"], row["recertified"], row["rejected_by_checker"]) == (2, 0, 2)
    assert tampered.exit_status == exitcodes.FALSE  # the suite claimed too much: a failure
    markdown = (tmp_path / "tampered" / "report.md").read_text(encoding="utf-8")
    assert "Overall: **FAILED**" in markdown and "REJECTED 2" in markdown
