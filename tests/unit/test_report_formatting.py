"""The report's number formatters (one per kind) and the at-a-glance sentences of absent sections."""

from __future__ import annotations

from verify.core import formatting as fmt
from verify.app.report.glance import _section_sentence


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
    assert fmt.measured(1.5734e-8) == "1.57e-08"
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
