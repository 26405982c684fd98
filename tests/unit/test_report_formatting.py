"""The report's number formatters (one per kind), the at-a-glance sentences of absent sections, and counts
with their nouns (singular for one, the verb agreeing) in the report's notes."""

from __future__ import annotations

from typing import Any

import pytest

from verify.core import formatting as fmt
from verify.app.report.glance import _section_sentence, at_a_glance
from verify.app.report.render import Block, build_document, closed_form_blocks, folded_summary, to_markdown
from verify.experiments.sections import Section
from verify.experiments.sentiment import report_section as sentiment

from test_report_sections import _minimal_results


def test_each_kind_has_its_format() -> None:
    assert fmt.count(1502) == "1,502" and fmt.count(3.0) == "3" and fmt.count(None) == "—"
    assert fmt.count(2.5) == "2.5"   # never cut to an integer
    # A layer or a median of layers is exact: a half stays a half where a measured value would round.
    assert fmt.layer(4) == "4" and fmt.layer(4.0) == "4" and fmt.layer(102.5) == "102.5" and fmt.count(102.5) == "102"
    assert fmt.layer(12345.5) == "12,345.5" and fmt.layer(None) == "—"
    assert fmt.probability(0.99889641529528) == "0.9989"
    assert fmt.share(0.001) == "0.1%"
    assert fmt.seconds(15.724472136993427) == "15.7 s" and fmt.seconds(0.4213) == "0.42 s"
    assert fmt.fraction(3, 3000) == "3 of 3,000 (0.1%)" and fmt.fraction(0, 0) == "0 of 0"
    assert fmt.measured(1.5734e-8) == "1.57e-8"  # no zero-padded exponent: as the softmax bounds are written
    assert fmt.measured(4.2e5) == "4.2e+5" and fmt.measured(1e-300) == "1e-300"
    assert fmt.probability(float("nan")) == "nan"   # shown, not hidden


def test_fields_are_formatted_by_their_names() -> None:
    assert fmt.by_key("hardmax_seconds", 15.724472136993427) == "15.7 s"
    assert fmt.by_key("best.val_acc", 0.812345) == "0.8123"
    assert fmt.by_key("leader_polar_share", 0.61) == "61.0%"
    assert fmt.by_key("reviews", 15000) == "15,000"
    assert fmt.by_key("checkpoint", "models/x") == "models/x"


def test_an_absent_section_says_so_and_why() -> None:
    assert _section_sentence("sentiment", None) == "absent from this report."
    assert _section_sentence("sentiment", {"files": [], "skipped": "the folder runs/sentiment does not exist"}) == \
        "absent from this report: the folder runs/sentiment does not exist."
    # The provider's sentence is used; a block-level "summary" (which certcheck refuses) never is.
    assert _section_sentence("sentiment", {"files": [{}]}, "Clustering does not help this task.") == \
        "Clustering does not help this task."
    planted = {"files": [{}], "summary": "Conclusion: K = 8 beats the baseline.", "glance": {"files": 1, "evaluations": 0,
                                                                                           "chosen": []}}
    assert "K = 8 beats" not in _section_sentence("sentiment", planted)


def test_a_count_takes_its_noun_singular_for_one() -> None:
    assert fmt.counted(1, "finished run") == "1 finished run"
    assert fmt.counted(0, "run") == "0 runs" and fmt.counted(1502, "run") == "1,502 runs"
    assert fmt.counted(2, "study", "studies") == "2 studies" and fmt.counted(1, "study", "studies") == "1 study"


def test_a_noun_alone_and_after_a_fraction_agree_as_counted_writes_them() -> None:
    assert fmt.noun_for(1, "seed") == "seed" and fmt.noun_for(2, "seed") == "seeds" and fmt.noun_for(0, "seed") == "seeds"
    assert fmt.noun_for(1, "family", "families") == "family" and fmt.noun_for(3, "family", "families") == "families"
    # After "k of n" the noun counts the n.
    assert fmt.fraction(1, 1, "example") == "1 of 1 (100.0%) example"
    assert fmt.fraction(1, 2, "example") == "1 of 2 (50.0%) examples"
    assert fmt.fraction(3, 3000, "example") == "3 of 3,000 (0.1%) examples"
    assert fmt.fraction(1, None, "example") == "1 example" and fmt.fraction(None, 2, "example") == "—"


# --------------------------------------------------------------------------- counts in the report's sentences


def _record(i: int) -> dict[str, Any]:
    """A checked example with everything the notes count: an unsettled token, the time budget spent, outside
    the hypotheses, a silent float disagreement and a certificate the checker rejected."""
    return {"task": {"kind": "generated", "family": "f", "seed": i, "name": f"ex-{i}"}, "status": "inconclusive",
            "configuration": {"outside_hypotheses": True, "tokens": [[0, 1]], "alpha": "1/2"},
            "fates": [{"kind": "unsettled", "token": 0}], "verdicts": {}, "stopped_by": "time budget",
            "layers_run": 3, "settled_layer": None, "certcheck": {"rejected": {"T2": "forged"}},
            "float_comparison": {"silent_disagreements": 1, "first_undecided_layer": None,
                                 "first_differing_layer": None, "final_max_abs_difference": 0.0}}


def _error(i: int) -> dict[str, Any]:
    return {"task": {"kind": "generated", "family": "f", "seed": 100 + i, "name": f"bad-{i}"}, "status": "error",
            "error": "boom"}


def _counted_results(n: int) -> dict[str, Any]:
    results = _minimal_results({})
    results["examples"] = [_record(i) for i in range(n)] + [_error(i) for i in range(n)]
    results["campaign"].update(layer_budget=n, time_budget=5)
    results["summary"].update(examples=2 * n, errors=n)
    return results


@pytest.mark.parametrize("n,expected", [
    (1, ["1 token in 1 example neither locked nor became fixed", "within 1 layer: its convergence is measured",
         "1 example was stopped by the time budget", "(ex-0); its unsettled claims are inconclusive",
         "1 task raised an error twice and was not checked: bad-0 (boom).",
         "1 example lies outside the theorem's hypotheses (recorded as such): ex-0.",
         "**Defects found in the suite itself:** 1 float attention set differed from the exact ones",
         "; 1 certificate rejected by the independent checker"]),
    (2, ["2 tokens in 2 examples neither locked nor became fixed", "within 2 layers: their convergence is measured",
         "2 examples were stopped by the time budget", "(ex-0, ex-1); their unsettled claims are inconclusive",
         "2 tasks raised an error twice and were not checked: bad-0 (boom), bad-1 (boom).",
         "2 examples lie outside the theorem's hypotheses (recorded as such): ex-0, ex-1.",
         "**Defects found in the suite itself:** 2 float attention sets differed from the exact ones",
         "; 2 certificates rejected by the independent checker"]),
], ids=["one", "two"])
def test_the_report_s_notes_count_in_the_singular_for_one(n: int, expected: list[str]) -> None:
    text = to_markdown(build_document(_counted_results(n), []))
    assert "(s)" not in text
    for words in expected:
        assert words in text, words


@pytest.mark.parametrize("n,expected", [(1, "1 example: 1 inconclusive"), (2, "2 examples: 2 inconclusive")])
def test_the_folded_table_of_every_example_counts_its_rows(n: int, expected: str) -> None:
    results = _counted_results(n)
    results["examples"] = [_record(i) for i in range(n)]
    assert expected in [block.text for block in build_document(results, []) if block.kind == "table"]


@pytest.mark.parametrize("n,expected", [
    (1, ("1 task could not be checked", "1 configuration still has a token settled by neither",
         "1 saved result file, shown below.")),
    (2, ("2 tasks could not be checked", "2 configurations still have a token settled by neither",
         "2 saved result files, shown below.")),
], ids=["one", "two"])
def test_the_first_screen_and_the_closed_form_section_count_in_the_singular_for_one(n: int, expected: tuple) -> None:
    results = _counted_results(n)
    assert expected[0] in dict(at_a_glance(results).sentences)["Verification campaign"]
    results["summary"]["closed_form"] = {"configurations": 0, "unsettled": n}
    assert expected[1] in to_markdown(closed_form_blocks(results))
    assert _section_sentence("unregistered", {"files": [{}] * n}) == expected[2]


@pytest.mark.parametrize("n,expected", [(1, "1 saved file, without an accuracy; see the section below."),
                                        (2, "2 saved files, none with an accuracy; see the section below.")])
def test_the_sentiment_sentence_without_accuracies_counts_its_files(n: int, expected: str) -> None:
    assert sentiment.glance_sentence({"files": n, "evaluations": 0, "chosen": []}) == expected


def _campaign_results(n: int, failed: int = 1) -> dict[str, Any]:
    """n worked examples whose last leader first led at layer 2, n certificates all re-verified, a counterexample
    shrunk to n tokens, and ``failed`` claims that failed."""
    results = _counted_results(n)
    results["examples"] = [_record(i) for i in range(n)]
    for record in results["examples"]:
        record["task"]["kind"] = "worked"
        record["fates"] = [{"kind": "leader", "token": 0, "layer": 2}]
    results["summary"].update(examples=n, errors=0)
    results["summary"]["claims"] = {
        claim: {"certified": n if claim == "T0" else 0, "failed": int(index < failed), "inconclusive": 0, "unchecked": 0,
                "exact": n, "measured": 0, "recertified": n if claim == "T0" else 0, "rejected_by_checker": 0}
        for index, claim in enumerate(("T0", "T1"))}
    results["counterexamples"] = [{"claim": "T0", "example": "ex-0", "original_n": 3, "shrunk_n": n, "file": "c.json",
                                   "config": {}}]
    return results


@pytest.mark.parametrize("n,expected", [
    (1, ["Overall: **inconclusive** (exit status 3) on 1 configuration; 1 of 1 certificate re-verified by the",
         "1 configuration checked: 1 worked configuration of docs/theory.md §4 and 0 generated from seed 0",
         "re-verified 1 of the 1 certificate, and checked every example's status",
         "shrunk from 3 to 1 token, reproduce with",
         "first led at layer 2 in 1 of 1 (100.0%) example (exact;",
         "Verification campaign: 1 configuration (1 worked, 0 generated from seed 0)"]),
    (2, ["Overall: **inconclusive** (exit status 3) on 2 configurations; 2 of 2 certificates re-verified by the",
         "2 configurations checked: 2 worked configurations of docs/theory.md §4 and 0 generated from seed 0",
         "re-verified 2 of the 2 certificates, and checked every example's status",
         "shrunk from 3 to 2 tokens, reproduce with",
         "first led at layer 2 in 2 of 2 (100.0%) examples (exact;",
         "Verification campaign: 2 configurations (2 worked, 0 generated from seed 0)"]),
], ids=["one", "two"])
def test_the_report_s_campaign_lines_count_in_the_singular_for_one(n: int, expected: list[str]) -> None:
    text = to_markdown(build_document(_campaign_results(n), []))
    for words in expected:
        assert words in text, words


@pytest.mark.parametrize("failed,expected", [(1, "claim T0 FAILED on at least one configuration"),
                                             (2, "claims T0, T1 FAILED on at least one configuration")])
def test_the_first_screen_names_one_failed_claim_in_the_singular(failed: int, expected: str) -> None:
    assert expected in dict(at_a_glance(_campaign_results(2, failed)).sentences)["Verification campaign"]


@pytest.mark.parametrize("n,expected", [
    (1, ["1 of 1 (100.0%) configuration needed closed-form paths", "the claim checks of all 1 configuration took 0.50 s",
         "says (1 line; 1 more line in that file, not shown)", "model-d2 (1 figure)"]),
    (2, ["2 of 2 (100.0%) configurations needed closed-form paths", "the claim checks of all 2 configurations took 1.00 s",
         "says (2 lines; 2 more lines in that file, not shown)", "model-d2 (2 figures)"]),
], ids=["one", "two"])
def test_the_closed_form_section_saved_files_and_galleries_count_in_the_singular_for_one(n: int, expected: list[str]) -> None:
    results = _counted_results(n)
    results["examples"] = [_record(i) for i in range(n)]
    names = [r["task"]["name"] for r in results["examples"]]
    spread = {"min": 4, "median": 4, "max": 4}
    results["summary"]["closed_form"] = {"configurations": n, "unsettled": 0, "examples": names, "found_at_layer": spread,
                                         "constant_from_layer": spread, "layers_run": n, "budget_layers": n,
                                         "layers_saved": 0}
    results["environment"]["claim_check_seconds"] = {name: 0.5 for name in names}
    text = to_markdown(closed_form_blocks(results))
    summary = {"lines": [f"line {i}" for i in range(n)], "lines_omitted": n}
    files = [{"path": "runs/new/a.json", "sha256": "c" * 64, "summary": summary}]
    text += to_markdown(build_document(_minimal_results({"new": {"directory": "runs/new", "files": files}}), [],
                                       {"new": Section("A new experiment")}))
    text += str(folded_summary(Block("gallery", text="model-d2", figures=[None] * n)))
    for words in expected:
        assert words in text, words
