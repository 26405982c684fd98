"""``report.html`` as a reader's browser shows it (headless Chromium, 900 px and 1400 px wide).

A small campaign (the worked configurations and three generated ones) is reported together with
saved sentiment and conjecture results made here: a wide 14-column analysis table, a gallery of
figures and a long analysis summary. In the page every image loads, nothing sticks out sideways,
every contents link lands on a heading, the browser logs no error, every figure's smallest text
is shown at a size a reader can read (MIN_TEXT_PX, measured from the figure's declared text size
and the width the page gives it), a click enlarges a figure, and the results at a glance end
within the first 900 px at 1400 px width, with what this run verified apart from the saved
results it only read.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from page_checks import (bottom_of, broken_images, console_errors, cut_figures, dangling_anchors, load,
                         overflowing_elements, set_viewport, small_figure_text)

from verify.app.report.build import build_report
from verify.app.campaign.spec import CampaignSpec, FamilySpec
from verify.core.figure_text import png_metadata

pytestmark = pytest.mark.slow   # a campaign, its figures and a browser

SMALL = CampaignSpec(examples=3, layer_budget=50, worked=True, float_check=True, shrink=True,
                     families=(FamilySpec("generic", n=(3, 6), d=(2, 3)), FamilySpec("mirror_ties", n=(4, 6), d=(2,))))
ANALYSIS_LINES = 230   # more than the report keeps: it must say how many it left out
REPO = Path(__file__).resolve().parents[2]
COMMITTED_FIGURES = [*(REPO / "runs" / "sentiment" / "analysis").glob("*.png"),
                     *(REPO / "runs" / "sentiment" / "summary").glob("*.png")]
# The smallest text of a figure as a reader sees it, in CSS px, by window width: at 1,400 px the
# figures are shown at their own width; at 900 px they shrink with the page (a click enlarges them).
MIN_TEXT_PX = {1400: 10.0, 900: 8.0}


def _figure(path: Path, title: str) -> None:
    fig = Figure(figsize=(5, 3), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    ax.plot([1, 2, 3], [0.6, 0.7, 0.75], label="validation")
    ax.set_title(title)
    ax.legend()
    fig.savefig(path, dpi=100, metadata=png_metadata(fig, 100))


def _saved_runs(root: Path) -> Path:
    sentiment = root / "sentiment"
    analysis = sentiment / "analysis"
    analysis.mkdir(parents=True)
    (sentiment / "evaluate-d2-fixture.json").write_text(json.dumps({
        "checkpoint": "models/fixture-d2", "d": 2, "protocol": "paper", "epoch": 3, "reviews": 200,
        "hardmax_accuracy": 0.7215, "softmax_accuracy": 0.7301, "validation_accuracy": 0.7012, "exact_path": 4,
        "hardmax_seconds": 15.724472136993427,
        "softmax_best_test_epoch": {"epoch": 5, "test_acc": 0.7433}}), encoding="utf-8")
    (analysis / "analysis.json").write_text(json.dumps({
        "seed": 0, "converge_layers": 200,
        "checkpoints": [{"path": "models/fixture-d2", "d": 2, "epoch": 3,
                         "leader_statistics": {"mean": 2.5, "std": 0.5, "min": 1, "max": 4,
                                               "fraction_initial_leaders_mean": 0.4},
                         "leader_words": {"top": [["great", 12], ["bad", 9]], "reviews_selected": 40},
                         "lexicon": {"leader_polar_share": 0.61, "all_polar_share": 0.12},
                         "K_vs_converged": {"predictions_changed": 3, "configurations": 200,
                                            "distance_K_to_converged": {"max": 0.0123}},
                         "without_attention": {"accuracy_without_attention": 0.7105, "accuracy_at_K": 0.7215,
                                               "predictions_changed": 9, "reviews": 200},
                         "hypotheses": {"T0_leader_within_K": {"fails": 0, "holds": 200}}}],
        "lines": [f"line {i} of the analysis summary" for i in range(ANALYSIS_LINES)]}), encoding="utf-8")
    for name in ("sentiment-fixture-d2_training_curves", "sentiment-fixture-d2_leader_words"):
        _figure(analysis / f"{name}.png", name)
    # The committed analyses and the reproduction's summary, figures included: every figure the
    # experiment ships is looked at as the report shows it.
    shutil.copytree(REPO / "runs" / "sentiment" / "analysis", sentiment / "analysis-committed")
    shutil.copytree(REPO / "runs" / "sentiment" / "summary", sentiment / "summary")
    conjectures = root / "conjectures"
    conjectures.mkdir()
    (conjectures / "fixture.json").write_text(json.dumps({
        "conjecture": "fixture", "outcome": "not refuted", "expected": "held", "surprise": False, "examples_run": 5,
        "summary": "not refuted by 5 examples"}), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser-report")
    out = root / "report"
    outcome = build_report(out=out, seed=3, spec=SMALL, runs_dir=_saved_runs(root / "runs"), runs_label="runs",
                           command_line="test")
    assert outcome.exit_status == 0, outcome.results["summary"]
    return out / "report.html"


@pytest.mark.parametrize("width", [900, 1400])
def test_report_renders_cleanly(report: Path, chromium: Any, width: int, tmp_path: Path) -> None:
    chromium.get_log("browser")   # drop what earlier pages logged
    set_viewport(chromium, width)
    load(chromium, report)
    chromium.save_screenshot(str(tmp_path / f"report-top-{width}.png"))
    images = chromium.execute_script("return document.images.length")
    assert images == 5 + 2 + len(COMMITTED_FIGURES), "5 campaign figures, 2 made here and every committed one"
    assert broken_images(chromium) == []
    assert cut_figures(chromium) == []
    assert small_figure_text(chromium, MIN_TEXT_PX[width]) == []
    assert dangling_anchors(chromium) == []
    contents = chromium.execute_script("return document.querySelectorAll('nav.contents a').length")
    assert contents >= 8
    assert console_errors(chromium) == []
    assert overflowing_elements(chromium) == []


def test_results_at_a_glance_come_first(report: Path, chromium: Any) -> None:
    set_viewport(chromium, 1400)
    load(chromium, report)
    bottom = bottom_of(chromium, ".glance")
    assert bottom is not None and bottom <= 900, f"the results at a glance end at {bottom} px"
    text = chromium.execute_script("return document.querySelector('.glance').innerText")
    for expected in ("Overall:", "certified", "re-verified by the independent checker", "Verification campaign:",
                     "Sentiment, earlier tuned study:", "0.7215 (authors' softmax 0.7914), 0.7105 without attention",
                     "Conjecture lab:", "1 not refuted; no surprise: the runs not refuted consistent with the expectation"):
        assert expected in text, (expected, text)
    badges = chromium.execute_script(
        "return Array.from(document.querySelectorAll('.glance td .badge')).map(b => b.className)")
    assert badges and all(b in ("badge ok", "badge zero") for b in badges)


def test_the_first_screen_keeps_this_runs_verdict_apart_from_saved_results(report: Path, chromium: Any) -> None:
    set_viewport(chromium, 1400)
    load(chromium, report)
    verified = chromium.execute_script("return document.querySelector('.glance .verified').innerText")
    saved = chromium.execute_script("return document.querySelector('.glance .saved').innerText")
    assert verified.startswith("Verified by this run") and "Overall:" in verified and "Verification campaign:" in verified
    assert saved.startswith("Saved results, not recomputed by this run")
    assert "Sentiment, earlier tuned study:" in saved and "Conjecture lab:" in saved
    assert "Sentiment" not in verified and "Verification campaign" not in saved
    # The green badges are the run's own: none stands beside a saved result.
    assert chromium.execute_script("return document.querySelectorAll('.glance .saved .badge').length") == 0
    cite = chromium.execute_script("return document.querySelector('.cite blockquote').innerText")
    assert cite.startswith("Using hardmax-verify ") and "sha256" in cite


def test_a_click_enlarges_a_figure_and_escape_closes_it(report: Path, chromium: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    set_viewport(chromium, 900)
    load(chromium, report)
    image = chromium.find_element(By.CSS_SELECTOR, "#figure-convergence img")
    chromium.execute_script("arguments[0].scrollIntoView()", image)
    before = image.rect["width"]
    image.click()
    assert chromium.execute_script("return document.querySelector('#figure-convergence').classList.contains('zoomed')")
    assert image.rect["width"] > before * 1.02
    chromium.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    assert not chromium.execute_script("return document.querySelector('figure.zoomed')")
    assert abs(image.rect["width"] - before) < 1


def test_nothing_is_cut_silently(report: Path) -> None:
    text = report.read_text(encoding="utf-8")
    # The sentiment section shows its numbers in its tables, formatted; the analysis's own summary
    # lines are not repeated (a section without tables quotes them: tests/unit/test_report_sections.py).
    assert "line 0 of the analysis summary" not in text
    assert "<td>15.7</td>" in text and "15.724472" not in text
    # The 20-row threshold folds the long tables; the sentiment figures sit in a folded gallery.
    assert "<details><summary>analysis-sentiment-fixture-d2: leader words, training curves (2 figures)" in text
