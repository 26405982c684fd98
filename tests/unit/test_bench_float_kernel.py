"""bench/float_kernel.py times the float kernel against the row-layout oracle and fails when their bits differ."""

from __future__ import annotations

import pytest

from tests.common.scripts import load_script


def _bench():
    return load_script("bench/float_kernel.py", "bench_float_kernel")


def test_small_workload_prints_ratios_and_goals(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench()
    assert bench.main(["--n", "40", "--d", "16", "64", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("| same  agrees") == 2
    assert "n=40 d=16 new vs old: " in out and "n=40 d=64 new within 4x of the DGEMM floor: " in out


def test_a_kernel_that_rounds_otherwise_fails_the_bench(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A kernel whose positions differ in the last bit from the oracle's: the bench reports DIFF and exits 1."""
    bench = _bench()
    kernel = bench.layer_kernel

    def off_by_one_ulp(*args):
        kernel(*args)
        new_Z = args[10]
        new_Z[...] = new_Z * (1.0 + 2.0 ** -52)

    monkeypatch.setattr(bench, "layer_kernel", off_by_one_ulp)
    assert bench.main(["--n", "40", "--d", "16", "--repeat", "1"]) == 1
    assert "| DIFF" in capsys.readouterr().out
