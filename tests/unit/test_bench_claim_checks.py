"""bench/claim_checks.py compares check's integer claim checks with its own Fraction baseline: the two reports must
be byte for byte equal (docs/theory.md T2, T3, D7), or the bench fails."""

from __future__ import annotations

import pytest

from tests.common.scripts import load_script


def _bench():
    return load_script("bench/claim_checks.py", "bench_claim_checks")


def test_small_workload_reports_agree(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench()
    assert bench.main(["--n", "40", "--d", "3"]) == 0
    out = capsys.readouterr().out
    assert "reports byte for byte equal: yes" in out
    assert "locked" in out and "x the baseline" in out


def test_a_baseline_that_decides_otherwise_fails_the_bench(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """No token ever locks under the broken baseline: its report differs, and the bench exits 1."""
    bench = _bench()
    broken = [(m, name, (lambda data, F, A: None) if name == "locking_value" else f) for m, name, f in bench.BASELINE]
    monkeypatch.setattr(bench, "BASELINE", broken)
    assert bench.main(["--n", "40", "--d", "3"]) == 1
    assert "reports byte for byte equal: NO" in capsys.readouterr().out


def test_the_baseline_is_restored_after_it_ran() -> None:
    bench = _bench()
    from verify.claims import run as claims_run
    from verify.core import oracle

    before = (claims_run.locking_value, oracle.attention_sets)
    bench.baseline_report(bench.workload(6, 2, 0))
    assert (claims_run.locking_value, oracle.attention_sets) == before
