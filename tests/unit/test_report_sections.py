"""Report sections (verify.experiments.sections): providers shape their own results; the report renders them generically."""

from __future__ import annotations

from verify.core import formatting as fmt
from verify.experiments.conjectures import report_section as conjectures
from verify.app.report.render import build_document, to_markdown
from verify.experiments.sections import Figure, Section, Table
from verify.experiments.sentiment import report_section as sentiment


def _evaluation(checkpoint: str, d: int, validation: float | None, protocol: str = "p") -> dict:
    return {"checkpoint": checkpoint, "d": d, "protocol": protocol, "validation_accuracy": validation,
            "hardmax_accuracy": 0.5, "epoch": 3}


def test_selection_rule_best_validation_per_d_and_protocol_first_name_on_ties() -> None:
    runs = [_evaluation("m/b", 2, 0.8), _evaluation("m/a", 2, 0.8), _evaluation("m/c", 2, 0.7),
            _evaluation("m/d", 16, 0.6), _evaluation("m/e", 16, 0.9, protocol="q"), _evaluation("m/f", 16, None)]
    chosen = sorted(e["checkpoint"] for e in sentiment.chosen_on_validation(runs))
    assert chosen == ["m/a", "m/d", "m/e"]


def test_sentiment_section_marks_the_chosen_run_and_keeps_the_figures() -> None:
    block = {"files": [{"path": "r/e1.json", "sha256": "0" * 64, "summary": {},
                        "evaluation": _evaluation("m/a", 2, 0.8)},
                       {"path": "r/e2.json", "sha256": "1" * 64, "summary": {},
                        "evaluation": _evaluation("m/b", 2, 0.9)}],
             "figures": [{"path": "r/x/training_curves.png", "file": "figures/sentiment/x-training_curves.png"}]}
    section = sentiment.section(block)
    (accuracy,) = section.tables
    marked = [row[1] for row in accuracy.rows if "chosen for this d" in row[6]]
    assert marked == ["`m/b`"]
    assert [f.title for f in section.figures] == ["x: training curves"]


def test_conjecture_section_tabulates_lab_runs_only() -> None:
    lab = {"files": [{"path": "r/c.json", "sha256": "a" * 64,
                      "summary": {"conjecture": "c1", "outcome": "not refuted", "examples_run": 5,
                                  "covered": "n 1-4, d 1-2"}}]}
    section = conjectures.section(lab)
    assert not section.list_files and section.tables[0].rows[0][:5] == ["c1", "not refuted", "—", 5, "n 1-4, d 1-2"]
    assert section.summary.startswith("1 saved conjecture run: 1 not refuted.")  # no expectation: no verdict
    other = {"files": [{"path": "r/x.json", "sha256": "b" * 64, "summary": {"x": 1}}]}
    assert conjectures.section(other).list_files and not conjectures.section(other).tables


def test_the_report_renders_any_section(tmp_path) -> None:
    """A section the report has never heard of is rendered from the protocol alone."""
    section = Section("A new experiment", summary="It worked exactly once.",
                      tables=[Table(["x", "y"], [["1", "2"]], heading="Numbers", note="Measured.")],
                      figures=[Figure("f", "figures/new/f.png", "the figure", "A caption.")], figures_heading="Plots")
    results = _minimal_results({"new": {"directory": "runs/new", "files": [
        {"path": "runs/new/a.json", "sha256": "c" * 64, "summary": {"k": 1}}]}})
    text = to_markdown(build_document(results, [], {"new": section}))
    for expected in ("## A new experiment", "Read from `runs/new`", "It worked exactly once.", "### Numbers",
                     "| 1 | 2 |", "Measured.", "### Plots", "figures/new/f.png", "`runs/new/a.json`"):
        assert expected in text, expected


def _minimal_results(optional: dict) -> dict:
    return {"summary": {"overall": "inconclusive", "exit_status": 3, "examples": 0, "errors": 0, "claims": {}},
            "campaign": {"seed": 0, "layer_budget": 1, "source": "test", "time_budget": None},
            "examples": [], "counterexamples": [], "optional_sections": optional,
            "inputs": [], "environment": {"command_line": "", "started": "", "finished": "", "versions": {},
                                          "timings_seconds": {}}}


def test_glance_quotes_the_runs_the_selection_rule_chose_per_d_and_protocol() -> None:
    from verify.app.report.glance import at_a_glance
    evaluations = [dict(_evaluation("m/a", 2, 0.80), hardmax_accuracy=0.81),
                   dict(_evaluation("m/b", 2, 0.70), hardmax_accuracy=0.95),   # better test, worse validation
                   dict(_evaluation("m/c", 2, 0.60, protocol="official"), hardmax_accuracy=0.77)]
    files = [{"path": f"r/{i}.json", "sha256": "0" * 64, "summary": {}, "evaluation": e}
             for i, e in enumerate(evaluations)]
    sentence = dict(at_a_glance(_minimal_results({"sentiment": {"files": files}})).sentences)["Sentiment, earlier tuned study"]
    assert "d = 2 (official protocol): 0.77" in sentence and "d = 2 (p protocol): 0.81" in sentence
    assert "0.95" not in sentence


def test_the_registry_lists_every_provider_in_the_report_s_order() -> None:
    """One table, verify/experiments/registry.py: the report's sections in order, each provider complete."""
    from verify.experiments.classify import report_section as classify
    from verify.experiments.conjectures import atlas_section as atlas
    from verify.experiments.control import report_section as control
    from verify.experiments.registry import SECTION_PROVIDERS
    from verify.experiments.sentiment import reproduction_section

    assert list(SECTION_PROVIDERS) == ["reproduction", "sentiment", "conjectures", "atlas", "classify", "control"]
    assert list(SECTION_PROVIDERS.values()) == [reproduction_section, sentiment, conjectures, atlas, classify, control]
    for key, provider in SECTION_PROVIDERS.items():
        assert provider.key == key and provider.glance_title and provider.produced_by
        assert all(callable(getattr(provider, name)) for name in ("item_fields", "figure_files", "section",
                                                                   "glance_numbers", "glance_sentence"))


def test_the_glance_takes_an_experiment_s_sentence_from_its_provider(monkeypatch) -> None:
    """The report knows no experiment: the glance's title and sentence for a section are its provider's."""
    from verify.app.report import glance

    class Provider:
        glance_title = "A registered experiment"

        @staticmethod
        def glance_numbers(block: dict) -> dict:
            return {"files": len(block["files"])}

        @staticmethod
        def glance_sentence(numbers: dict) -> str:
            return f"{fmt.counted(numbers['files'], 'file')}, read by the provider."

    monkeypatch.setitem(glance.SECTION_PROVIDERS, "new", Provider)
    files = [{"path": "runs/new/a.json", "sha256": "c" * 64, "summary": {}}]
    sentences = dict(glance.at_a_glance(_minimal_results({"new": {"files": files}, "other": {"files": files}})).sentences)
    assert sentences["A registered experiment"] == "1 file, read by the provider."
    assert sentences["Other"] == "1 saved result file, shown below."  # no provider: the files are counted


def _power(**changes) -> dict:
    entry = {"name": "at_most_d_plus_one_leaders", "group": "catalogue", "statement": "At most d + 1 leaders.",
             "refuted": 5, "seeds": 5, "examples": {"median": 115, "min": 14, "max": 120},
             "cpu_seconds": {"median": 0.5, "min": 0.2, "max": 0.6}, "seconds": {"median": 2.0, "min": 1, "max": 3},
             "counterexample_n": {"min": 4, "max": 4}}
    missed = {"name": "hard", "group": "catalogue", "statement": "Hard.", "refuted": 3, "seeds": 5,
              "examples": {"median": 900, "min": 500, "max": 1600}, "cpu_seconds": {"median": 5, "min": 3, "max": 9},
              "seconds": {"median": 5, "min": 3, "max": 9}, "counterexample_n": {"min": 5, "max": 7}}
    data = {"format": conjectures.POWER_FORMAT, "date": "2026-11-27", "command": "python bench/conjecture_power.py",
            "seeds": 5, "budget_seconds": 60, "cores": 2, "load_average_before": [0.5, 0.5, 0.5],
            "statements": [missed, entry]}
    data.update(changes)
    return data


def test_the_power_table_and_its_sentence() -> None:
    from pathlib import Path

    power = conjectures.item_fields(Path("power/power.json"), _power())["power"]
    headers, rows = conjectures.power_rows(power)
    assert headers[0] == "statement" and [r[0] for r in rows] == ["`at_most_d_plus_one_leaders`", "`hard`"]  # easiest first
    assert rows[0][1:] == ["5 of 5", "115 (14-120)", "0.5 (0.2-0.6)", "2.0 (1.0-3.0)", "4"]
    sentence = conjectures.power_sentence(power)
    assert "1 of 2 known-false statements refuted on every seed" in sentence and "not always refuted: hard" in sentence
    run = {"path": "r/c.json", "sha256": "a" * 64, "summary": {"conjecture": "c1", "outcome": "counterexample",
                                                               "expected": "refuted", "surprise": False, "examples_run": 3}}
    section = conjectures.section({"files": [run, {"path": "r/power/power.json", "sha256": "b" * 64,
                                                   "summary": {"format": "x"}, "power": power}]})
    assert [t.heading for t in section.tables] == ["", "Search power: known-false statements"]
    assert "no surprise: the counterexamples as expected" in section.summary and "Search power" in section.summary


def test_a_broken_power_file_names_the_field() -> None:
    import pytest
    from pathlib import Path

    from verify.core.numbers import InputError

    broken = _power()
    broken["statements"][1]["examples"]["min"] = 500
    with pytest.raises(InputError, match=r"statements\[1\]\.examples"):
        conjectures.item_fields(Path("power/power.json"), broken)
    with pytest.raises(InputError, match="format"):
        conjectures.item_fields(Path("power/power.json"), _power(format="other"))


def test_glance_names_the_conjecture_runs_that_surprised() -> None:
    """The lab's expectations are "held" / "refuted"; a refuted "held" conjecture is a surprise at a glance."""
    from verify.app.report.glance import at_a_glance
    summaries = [{"conjecture": "a", "outcome": "counterexample", "expected": "refuted", "surprise": False},
                 {"conjecture": "b", "outcome": "counterexample", "expected": "held"},   # no surprise field
                 {"conjecture": "c", "outcome": "held", "expected": "held", "surprise": False}]
    files = [{"path": f"r/{s['conjecture']}.json", "sha256": "0" * 64, "summary": s} for s in summaries]
    sentence = dict(at_a_glance(_minimal_results({"conjectures": {"files": files}})).sentences)["Conjecture lab"]
    assert sentence.startswith("3 saved conjecture runs: 2 counterexample, 1 held; 1 not as expected: b.")


def test_a_saved_files_own_summary_lines_are_shown_with_the_reports_number_formatter() -> None:
    """A file's `lines` quoted in report.md carry no 17-digit floats: the report's formatter writes them."""
    raw = "initial fraction 0.9970025496011877, accuracy 0.8377333333333333 against 0.8164 at K=8"
    results = _minimal_results({"new": {"directory": "runs/new", "files": [
        {"path": "runs/new/a.json", "sha256": "c" * 64, "summary": {"lines": [raw], "share": 0.123456789}}]}})
    text = to_markdown(build_document(results, [], {"new": Section("A new experiment")}))
    assert "initial fraction 0.997, accuracy 0.838 against 0.8164 at K=8" in text
    assert "0.9970025496011877" not in text and "0.8377333333333333" not in text and "0.123456789" not in text


def test_the_sentiment_section_with_its_tables_does_not_repeat_the_raw_files() -> None:
    block = {"files": [{"path": "r/e1.json", "sha256": "0" * 64, "summary": {"lines": ["raw 0.9970025496011877"]},
                        "evaluation": _evaluation("m/a", 2, 0.8)}]}
    assert sentiment.section(block).tables and not sentiment.section(block).list_files
    assert sentiment.section({"files": [{"path": "r/x.json", "sha256": "0" * 64, "summary": {}}]}).list_files


def test_a_long_summary_of_a_saved_file_says_how_many_lines_it_left_out() -> None:
    from verify.app.report.build import MAX_SUMMARY_LINES, _scalar_summary
    summary = _scalar_summary({"lines": [f"line {i}" for i in range(MAX_SUMMARY_LINES + 30)]})
    assert len(summary["lines"]) == MAX_SUMMARY_LINES and summary["lines_omitted"] == 30
    results = _minimal_results({"new": {"directory": "runs/new", "files": [
        {"path": "runs/new/a.json", "sha256": "c" * 64, "summary": summary}]}})
    text = to_markdown(build_document(results, [], {"new": Section("A new experiment")}))
    assert f"({MAX_SUMMARY_LINES} lines; 30 more lines in that file, not shown)" in text
