"""bench/classify.py on a tiny plan: its --json file is what the report's exact-classification
section reads, --baseline-max caps where the baseline is timed, --figure draws the PNG."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.common.scripts import load_script

from verify.experiments.classify import SCALING_RESULTS_FORMAT
from verify.experiments.classify import report_section

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    return load_script("bench/classify.py", "bench_classify")


@pytest.mark.slow
def test_json_and_figure_are_what_the_report_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench()
    monkeypatch.setattr(bench, "QUICK", {"sizes": [4, 12], "lengths": [1, 6], "baseline_sizes": [4, 12],
                                         "baseline_lengths": [1, 6]})
    out, png = tmp_path / "classify" / "scaling.json", tmp_path / "classify" / "scaling.png"
    assert bench.main(["--baseline-max", "5", "--json", str(out), "--figure", str(png)]) == 0
    printed = capsys.readouterr()
    assert "Baseline timed at N in [4] and L in [1] (--baseline-max 5)" in printed.out
    assert "L = 6 narrow: independent check" in printed.err     # progress, phase by phase
    data = json.loads(out.read_text())
    assert data["format"] == SCALING_RESULTS_FORMAT and data["plan"]["baseline_sizes"] == [4]
    assert "4N + 1" in data["stated_orders"]["later_version"]
    scaling = report_section.read_scaling(data)
    assert [(r["variant"], r["N"]) for r in scaling["by_size"]] == [("wide", 4), ("narrow", 4), ("wide", 12),
                                                                    ("narrow", 12)]
    assert ["baseline_s" in r for r in scaling["by_size"]] == [True, True, False, False]
    assert [r["L"] for r in scaling["by_length"]] == [1, 1, 6, 6]
    assert png.read_bytes().startswith(b"\x89PNG")
    assert report_section.figure_files([out]) == [png]
