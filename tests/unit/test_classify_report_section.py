"""The exact-classification section of the report (verify/experiments/classify/report_section.py), from small
result files made here: the IMDb demonstration (docs/theory.md §7, the classification of every
kept review certified) and the scaling measurements; absent files are named with the command that
writes them; a malformed file is named with its field and the report still renders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from verify.experiments.classify import IMDB_RESULTS_FORMAT, SCALING_RESULTS_FORMAT
from verify.experiments.classify import report_section as classify
from verify.core.numbers import InputError
from verify.app.report.build import collect_optional_sections
from verify.experiments.registry import SECTION_PROVIDERS
from verify.app.report.glance import at_a_glance
from verify.app.report.render import build_document, to_markdown


def _run(n: int, variant: str, seed: int, accuracy: float, *, certified: bool = True, blocks: int = 3) -> dict:
    kept = n - 2
    return {"N": n, "variant": variant, "seed": seed, "sequences": kept, "certified_by_construction": kept,
            "certified_by_checker": kept if certified else kept - 1,
            "checker_status": "certified" if certified else "failed", "checker_summary": "…",
            "blocks": blocks, "parameters": 7 * n, "max_width": n if variant == "wide" else 3, "thresholds": 1,
            "redraws": {}, "test_accuracy": accuracy, "test_ties": 0,
            "cpu_seconds": {"build": 1.0 + seed, "check": 2.0, "test": 0.5}}


def imdb_results(runs: list[dict] | None = None) -> dict:
    """Two sizes; N = 20 narrow has seed 0 only (seed 1 planned, not run); one inseparable pair at N = 20."""
    group = [{"review_row": 11, "label": 0, "length": 128}, {"review_row": 29, "label": 1, "length": 128}]
    return {
        "format": IMDB_RESULTS_FORMAT, "protocol": "docs/classify.md", "sizes": [10, 20],
        "variants": ["wide", "narrow"], "seeds": [0, 1], "test_size": 6,
        "source": {"data": {"file": "reviews.csv.gz", "sha256": "0" * 64},
                   "reference": {"file": "embedding.npz", "sha256": "1" * 64, "rows": 9}, "sequence_length": 128},
        "samples": [{"N": 10, "kept": 8, "removed": 2, "inseparable_groups": [group], "majority_train": 0.5,
                     "test_reviews": 6, "majority_test": 0.5},
                    {"N": 20, "kept": 18, "removed": 2, "inseparable_groups": [], "majority_train": 0.5,
                     "test_reviews": 6, "majority_test": 0.5}],
        "runs": runs if runs is not None else [
            _run(10, "wide", 0, 0.5), _run(10, "wide", 1, 0.6), _run(10, "narrow", 0, 0.4, blocks=11),
            _run(10, "narrow", 1, 0.4, blocks=12), _run(20, "wide", 0, 0.7), _run(20, "wide", 1, 0.3),
            _run(20, "narrow", 0, 0.5, blocks=21)],
    }


def _row(variant: str, n: int, factor: float, **extra: Any) -> dict:
    return {"variant": variant, "N": n, "tokens": 22 * n, "distinct_tokens": n, "longest": 43,
            "blocks": 3 if variant == "wide" else n, "parameters": 7 * n, "max_width": n, "thresholds": 0,
            "build_s": factor * n, "engine_s": factor * n / 2, "check_s": factor * n * 2, **extra}


def scaling_results() -> dict:
    return {"format": SCALING_RESULTS_FORMAT, "mode": "quick", "d": 3, "cpus": 2,
            "plan": {"sizes": [10, 100], "lengths": [5, 50], "baseline_sizes": [10], "baseline_lengths": [5]},
            "by_size": [_row("wide", 10, 0.001, baseline_s=0.5), _row("narrow", 10, 0.002, baseline_s=1.0),
                        _row("wide", 100, 0.001), _row("narrow", 100, 0.002)],
            "by_length": [_row("wide", 20, 0.001, L=5, baseline_s=0.2), _row("narrow", 20, 0.001, L=5, baseline_s=0.3),
                          _row("wide", 20, 0.01, L=50), _row("narrow", 20, 0.01, L=50)]}


def _runs_folder(tmp_path: Path, files: dict[str, Any]) -> Path:
    folder = tmp_path / "runs" / "classify"
    folder.mkdir(parents=True)
    for name, content in files.items():
        (folder / name).write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return tmp_path / "runs"


def _block(runs: Path) -> dict:
    optional, _ = collect_optional_sections(runs, "runs")
    return optional["classify"]


def _results_with(block: dict) -> dict:
    """A results.json of no configuration whose only saved-results section is ``block``."""
    return {"summary": {"overall": "inconclusive", "exit_status": 3, "examples": 0, "errors": 0, "claims": {}},
            "campaign": {"seed": 0, "layer_budget": 1, "source": "test", "time_budget": None},
            "examples": [], "counterexamples": [], "optional_sections": {"classify": block}, "inputs": [],
            "environment": {"command_line": "", "started": "", "finished": "", "versions": {}, "timings_seconds": {}}}


def _markdown(block: dict) -> str:
    section = classify.section(block)
    return to_markdown(build_document(_results_with(block), [], {"classify": section}))


def test_the_report_knows_the_section() -> None:
    assert SECTION_PROVIDERS["classify"] is classify
    assert classify.patterns == ("imdb.json", "scaling.json") and classify.folder == "classify"


def test_imdb_results_become_a_table_with_mean_sd_over_seeds_and_the_missing_seed_named(tmp_path: Path) -> None:
    block = _block(_runs_folder(tmp_path, {"imdb.json": imdb_results()}))
    section = classify.section(block)
    imdb, groups = section.tables
    rows = {(row[0], row[1]): row for row in imdb.rows}
    assert list(rows) == [("10", "wide"), ("10", "narrow"), ("20", "wide"), ("20", "narrow")]
    assert rows["10", "wide"][9] == "0.5500 ± 0.0707 (2 seeds)"
    assert rows["20", "wide"][9] == "0.5000 ± 0.2828 (2 seeds)"
    assert rows["20", "narrow"][9] == "0.5000 (one seed)" and rows["20", "narrow"][3] == "0"
    assert rows["10", "narrow"][5] == "11-12"                      # blocks differ between seeds: a range
    assert rows["10", "wide"][4] == "8 of 8, every seed" and rows["10", "wide"][2] == "8 (2 removed)"
    assert rows["10", "wide"][11] == "1.5 / 2.0"                   # mean CPU seconds over the seeds
    assert groups.rows == [["10", "row 11 (label 0, 128 tokens); row 29 (label 1, 128 tokens)"]]
    assert "every kept review is classified exactly by all 7 networks" in section.summary
    assert "N = 20 networks score 0.3000 to 0.7000 against 0.5000" in section.summary
    assert "seed 1 of N = 20 narrow" in section.summary
    # The scaling file is absent: said, with the command that writes it.
    assert "No scaling measurements" in section.summary and "bench/classify.py" in section.summary
    assert not section.list_files


def test_the_seeds_not_run_are_named_after_their_noun(tmp_path: Path) -> None:
    runs = [r for r in imdb_results()["runs"] if (r["N"], r["variant"]) != (20, "narrow")]
    section = classify.section(_block(_runs_folder(tmp_path, {"imdb.json": imdb_results(runs)})))
    assert "seeds 0, 1 of N = 20 narrow" in section.summary


def test_a_run_the_checker_did_not_certify_is_shown_as_such(tmp_path: Path) -> None:
    runs = [_run(10, "wide", 0, 0.5), _run(10, "wide", 1, 0.5, certified=False)]
    section = classify.section(_block(_runs_folder(tmp_path, {"imdb.json": imdb_results(runs)})))
    row = section.tables[0].rows[0]
    assert row[4].startswith("NO: ") and "seed 1: 7 of 8 (failed)" in row[4]
    assert "1 of 2 networks built were NOT certified" in section.summary and "N = 10 wide seed 1" in section.summary
    assert "every kept review" not in section.summary


def test_scaling_results_become_time_order_and_baseline_tables_with_the_figure(tmp_path: Path) -> None:
    runs = _runs_folder(tmp_path, {"scaling.json": scaling_results()})
    (runs / "classify" / "scaling.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    block = _block(runs)
    assert block["figures"][0]["file"] == "figures/classify/classify-scaling.png"
    section = classify.section(block)
    by_size, by_length, orders, baseline = section.tables
    assert [row[:2] for row in by_size.rows] == [["wide", "10"], ["narrow", "10"], ["wide", "100"], ["narrow", "100"]]
    assert by_size.rows[0][6] == "0.50" and by_size.rows[2][6] == "—"
    assert "wide: build 1.00, engine 1.00, check 1.00" in by_size.note    # time proportional to N here
    assert [row[1] for row in by_length.rows] == ["5", "5", "50", "50"]
    assert orders.rows == [["10", "3", "70", "2.33", "10", "70", "2.33", "21", "41"],
                           ["100", "3", "700", "2.33", "100", "700", "2.33", "201", "401"]]
    assert "machine-written summary" in orders.note
    ratios = {(row[0], row[1]): row[4:] for row in baseline.rows}
    assert ratios["wide", "N = 10"] == ["100x", "25x"]                   # 0.5 / 0.005, 0.5 / 0.02
    assert ratios["narrow", "L = 5"] == ["30x", "8x"]
    assert ratios["wide", "L = 5"] == ["20x", "5x"]
    assert "engine is at least 20x and the independent check at least 5x" in section.summary
    assert "No IMDb demonstration" in section.summary and "classify imdb" in section.summary
    assert [f.file for f in section.figures] == ["figures/classify/classify-scaling.png"]


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d["runs"][1].__setitem__("test_accuracy", "high"), "imdb.json.runs[1].test_accuracy"),
    (lambda d: d["runs"][0].__setitem__("test_accuracy", 1.5), "imdb.json.runs[0].test_accuracy"),
    (lambda d: d["runs"][2].pop("blocks"), "imdb.json.runs[2].blocks"),
    (lambda d: d["runs"][0].__setitem__("checker_status", "maybe"), "imdb.json.runs[0].checker_status"),
    (lambda d: d["runs"][0].__setitem__("N", 30), "imdb.json.runs[0].N"),
    (lambda d: d["samples"][0]["inseparable_groups"][0][1].pop("label"),
     "imdb.json.samples[0].inseparable_groups[0][1].label"),
    (lambda d: d["samples"][1].__setitem__("kept", True), "imdb.json.samples[1].kept"),
    (lambda d: d.__setitem__("format", "something-else"), "imdb.json.format"),
])
def test_a_malformed_file_is_named_with_its_field_and_the_report_still_renders(tmp_path: Path, mutate, field) -> None:
    data = imdb_results()
    mutate(data)
    block = _block(_runs_folder(tmp_path, {"imdb.json": data, "scaling.json": scaling_results()}))
    imdb_item = next(item for item in block["files"] if item["path"].endswith("imdb.json"))
    assert imdb_item["summary"]["unreadable"].startswith(field + ": ")
    assert "imdb" not in imdb_item
    section = classify.section(block)
    assert f"`runs/classify/imdb.json` could not be read: {field}: " in section.summary
    assert section.list_files and section.tables                       # the scaling part is still shown
    assert field in _markdown(block)


def test_read_imdb_names_the_field_directly() -> None:
    data = imdb_results()
    data["runs"][3]["cpu_seconds"]["check"] = -1.0
    with pytest.raises(InputError) as caught:
        classify.read_imdb(data)
    assert caught.value.field == "imdb.json.runs[3].cpu_seconds.check"
    scaling = scaling_results()
    scaling["by_length"][1]["L"] = "five"
    with pytest.raises(InputError) as caught:
        classify.read_scaling(scaling)
    assert caught.value.field == "scaling.json.by_length[1].L"


def test_not_json_is_unreadable_not_a_crash(tmp_path: Path) -> None:
    block = _block(_runs_folder(tmp_path, {"imdb.json": "{not json"}))
    reason = "malformed JSON at line 1, column 2: Expecting property name enclosed in double quotes"
    assert block["files"][0]["summary"] == {"unreadable": reason}
    section = classify.section(block)
    assert f"could not be read: {reason}" in section.summary and not section.tables


def test_absent_results_skip_the_section_with_the_commands_that_write_them(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    block = _block(tmp_path / "runs")
    assert block["files"] == []
    assert block["skipped"].startswith("the folder runs/classify does not exist; written by ")
    assert "hardmax-verify classify imdb" in block["skipped"] and "bench/classify.py" in block["skipped"]
    assert "--out runs/classify/imdb.json" in block["skipped"]          # RUNS shown as the runs folder's label
    empty = _block(_runs_folder(tmp_path / "other", {"net.json": {}}))   # only files the section does not read
    assert empty["skipped"].startswith("runs/classify holds no saved results (imdb.json, scaling.json)")


def test_the_report_shows_the_section_and_its_summary_at_a_glance(tmp_path: Path) -> None:
    block = _block(_runs_folder(tmp_path, {"imdb.json": imdb_results(), "scaling.json": scaling_results()}))
    markdown = _markdown(block)
    for expected in ("## Exact sequence classification (saved results)", "Read from `runs/classify`",
                     "### IMDb reviews: exact classification", "### Inseparable reviews removed",
                     "### Blocks and parameters against N, next to the stated orders",
                     "### Against the plain-Fraction baseline", "| 10 | wide | 8 (2 removed) |"):
        assert expected in markdown, expected
    glance = at_a_glance(_results_with(block), {"classify": classify.section(block).summary})
    assert dict(glance.sentences)["Exact classification"].startswith("IMDb (N = 10 and 20 training reviews")
