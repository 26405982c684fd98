"""The preregistered reproduction in the report: `sentiment summarize` output, its sentence at a glance (docs/theory.md §5)."""

from __future__ import annotations

from pathlib import Path

from verify.app.report.build import collect_optional_sections, provider_sections
from verify.app.report.glance import at_a_glance
from verify.app.report.render import build_document, to_markdown
from verify.experiments.sentiment import reproduction_section
from verify.experiments.sentiment.protocol import load_protocol
from verify.experiments.sentiment.summary import summarize, write_summary

from test_report_sections import _minimal_results

REPO = Path(__file__).resolve().parents[2]


def _record(accuracy: float) -> dict:
    return {"hardmax_accuracy": accuracy, "softmax_accuracy": accuracy, "validation_accuracy": accuracy,
            "alpha": 1.0, "softmax_best_test_epoch": {"test_acc": accuracy}}


def _report_text(runs: Path, evaluations: dict) -> tuple[str, str]:
    protocol = load_protocol(REPO / "protocols" / "reproduction.toml")
    summary = summarize(protocol, evaluations)
    folder = runs / "sentiment" / "summary"
    folder.mkdir(parents=True, exist_ok=True)
    write_summary(summary, folder / "summary.json")
    optional, _ = collect_optional_sections(runs, "runs")
    block = optional["reproduction"]
    results = _minimal_results(optional)
    summaries = {key: section.summary for key, section in provider_sections(optional).items()}
    sentence = dict(at_a_glance(results, summaries).sentences)["Sentiment reproduction"]
    assert sentence == summary["summary"]
    text = to_markdown(build_document(results, [], {"reproduction": reproduction_section.section(block)}))
    return sentence, text


def test_an_unfinished_protocol_says_so_at_a_glance_and_shows_its_tables(tmp_path) -> None:
    sentence, text = _report_text(tmp_path / "runs", {"d2-K8-s0": _record(0.78)})
    assert sentence.startswith("No conclusion yet") and "1 of 46 runs finished" in sentence
    for expected in ("## Sentiment: the preregistered reproduction", "### The reproduction: K = 8",
                     "0.7800 (1 of 3 seeds)", "protocols/reproduction.toml", "1 of 46 runs finished"):
        assert expected in text, expected


def test_a_finished_comparison_states_its_conclusion_with_numbers(tmp_path) -> None:
    protocol = load_protocol(REPO / "protocols" / "reproduction.toml")
    evaluations = {}
    for run in protocol.runs:  # K = 8 clearly below K = 0 at every d: the sentence must say it hurts
        base = 0.85 if run.layers == 0 else 0.75
        evaluations[run.name] = _record(base + 0.001 * run.seed)
    sentence, text = _report_text(tmp_path / "runs", evaluations)
    assert "beats the K = 8 attention layers" in sentence and "does not help" in sentence
    assert sentence in text


def test_without_a_summary_the_section_is_skipped_with_the_reason(tmp_path) -> None:
    (tmp_path / "runs" / "sentiment").mkdir(parents=True)
    optional, _ = collect_optional_sections(tmp_path / "runs", "runs")
    assert not optional["reproduction"]["files"]
    assert "runs/sentiment/summary" in optional["reproduction"]["skipped"]
