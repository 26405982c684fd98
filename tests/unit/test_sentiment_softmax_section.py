"""The softmax-certificate counts of `sentiment softmax-certificate` (verify/commands/sentiment.py): totals per
(d, K) from the rows, and their table in the sentiment report section (verify/sentiment/report_section.py)."""

from __future__ import annotations

import json
from pathlib import Path

from verify.app.commands.sentiment import softmax_certificate_row, softmax_certificate_summary
from verify.experiments.sentiment import report_section


def _record(d: int, K: int, certified: int, reasons: dict, measured: float | None) -> dict:
    return {"d": d, "layers": K, "alpha": 1.0, "softmax_beta": 1000.0, "epoch": 3, "reviews": 100,
            "softmax_certified_agreement": certified, "softmax_not_certified": reasons,
            "softmax_stop_layers": {"1": sum(reasons.values())}, "softmax_bound_holds": certified,
            "softmax_bound_median": 1e-9, "exact_path": 0, "hardmax_accuracy": 0.8,
            "hardmax_softmax_agreement": measured}


def test_totals_per_d_and_the_report_table():
    rows = [softmax_certificate_row(Path("models/x/d2-K8-s0"), _record(2, 8, 3, {"margin": 97}, 0.999)),
            softmax_certificate_row(Path("models/x/d2-K8-s1"), _record(2, 8, 5, {"margin": 90, "decoder": 5}, 0.997)),
            softmax_certificate_row(Path("models/x/d16-K8-s0"), _record(16, 8, 60, {"margin": 40}, None)),
            softmax_certificate_row(Path("models/x/d16-K0-s0"), _record(16, 0, 100, {}, 1.0))]
    summary = json.loads(json.dumps(softmax_certificate_summary(rows)))
    by_d = {(g["d"], g["K"]): g for g in summary["by_d"]}
    assert by_d[(2, 8)]["certified"] == 8 and by_d[(2, 8)]["reviews"] == 200 and by_d[(2, 8)]["runs"] == 2
    assert by_d[(2, 8)]["not_certified"] == {"margin": 187, "decoder": 5}
    assert abs(by_d[(2, 8)]["measured_agreement"] - 0.998) < 1e-12
    assert by_d[(16, 8)]["measured_agreement"] is None
    assert "d = 2, K = 8: 8 of 200 (4.00%) certified vs 99.80% measured" in summary["summary"]
    assert "d = 16, K = 8: 60 of 100 (60.00%) certified" in summary["summary"]

    fields = report_section.item_fields(Path("softmax-certificate.json"), summary)
    section = report_section.section({"files": [{**fields, "path": "runs/sentiment/softmax-certificate.json"}],
                                      "figures": []})
    table = next(t for t in section.tables if t.heading.startswith("Softmax certified"))
    assert ["2", "8", "trained", "2", "8 of 200 (4.0%)", "99.8%", "187", "0", "5"] in [list(r) for r in table.rows]
    assert "runs/sentiment/softmax-certificate.json" in table.note


def test_the_sentence_names_k_when_one_d_has_several_depths():
    rows = [softmax_certificate_row(Path("models/x/d2-K8-s0"), _record(2, 8, 3, {"margin": 97}, 0.999)),
            softmax_certificate_row(Path("models/x/d2-K1-s0"), _record(2, 1, 40, {"decoder": 60}, 0.999))]
    sentence = softmax_certificate_summary(rows)["summary"]
    assert "d = 2, K = 1: 40 of 100 (40.00%)" in sentence and "d = 2, K = 8: 3 of 100 (3.00%)" in sentence


def test_a_fixed_alpha_is_a_model_of_its_own():
    # the alpha study's runs (d = 2, K = 8, alpha held fixed) are not pooled with the runs that trained alpha
    fixed = {**_record(2, 8, 40, {"margin": 60}, 0.999), "alpha": 0.10000000149011612, "alpha_fixed": 0.1}
    rows = [softmax_certificate_row(Path("models/x/d2-K8-s0"), _record(2, 8, 3, {"margin": 97}, 0.999)),
            softmax_certificate_row(Path("models/x/d2-K8-alpha0.1-s0"), fixed),
            softmax_certificate_row(Path("models/x/d2-K8-alpha0.1-s1"), fixed)]
    summary = softmax_certificate_summary(rows)
    assert [(g["d"], g["K"], g["alpha_fixed"], g["runs"]) for g in summary["by_d"]] == [(2, 8, None, 1), (2, 8, 0.1, 2)]
    assert "d = 2, K = 8: 3 of 100 (3.00%)" in summary["summary"]
    assert "d = 2, K = 8, alpha fixed at 0.1: 80 of 200 (40.00%)" in summary["summary"]
    fields = report_section.item_fields(Path("softmax-certificate.json"), json.loads(json.dumps(summary)))
    section = report_section.section({"files": [{**fields, "path": "softmax-certificate.json"}], "figures": []})
    table = next(t for t in section.tables if t.heading.startswith("Softmax certified"))
    assert [list(r)[:4] for r in table.rows] == [["2", "8", "trained", "1"], ["2", "8", "fixed 0.1", "2"]]
