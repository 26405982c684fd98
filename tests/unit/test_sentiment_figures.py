"""The sentiment analysis's and summary's figures: no text past the figure's edge, no legend over the data,
each names its model. Every drawing function runs as ``sentiment analyze`` and ``sentiment summarize`` run it,
on inputs made here (long words near the panels' edges, long model names)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from figure_checks import annotations_across_axes, legends_over_content, saved_figures, text_outside

from verify.experiments.sentiment.analyze import _plot_history, _plot_words, plot_review_evolution
from verify.experiments.sentiment.checkpoints import ModelWeights
from verify.experiments.sentiment.protocol import load_protocol
from verify.experiments.sentiment.summary import summarize

MODEL = "sentiment-d16-paper-min2-drop0.2-lowercase"
LONG_WORDS = ("ridiculously", "unfortunately", "disappointment", "masterpiece", "<UNK>", "fulfillment",
              "incomprehensible", "twisty", "catchy", "ancient")
PROTOCOL = Path(__file__).resolve().parents[2] / "protocols" / "reproduction.toml"


def _history() -> list[dict]:
    epochs = range(1, 102)
    return [{"epoch": e, "train_subset_loss": 0.7 - e / 200, "train_subset_acc": 0.5 + e / 250,
             "val_loss": 0.69 - e / 400, "val_acc": 0.55 + e / 500, "test_loss": 0.69 - e / 380,
             "test_acc": 0.55 + e / 480, "running_train_loss": 0.72 - e / 190, "running_train_acc": 0.5 + e / 240,
             **({"hardmax_test_acc": 0.55 + e / 470, "hardmax_train_acc": 0.5 + e / 260,
                 "hardmax_validation_acc": 0.55 + e / 490} if e % 5 == 0 else {})} for e in epochs]


@pytest.mark.slow  # matplotlib draws for seconds per figure
def test_training_curves_name_the_model_and_keep_every_text_inside(tmp_path: Path) -> None:
    with saved_figures() as saved:
        _plot_history(_history(), tmp_path / "curves.png", MODEL, {"reviews": 2000})
    (fig,) = saved
    assert MODEL in fig._suptitle.get_text()  # type: ignore[union-attr]
    assert text_outside(fig) == [] and legends_over_content(fig) == []


def test_leader_words_name_the_model_and_keep_every_word_inside(tmp_path: Path) -> None:
    top = [(word, 900 - 60 * i) for i, word in enumerate(LONG_WORDS * 2)][:15]
    with saved_figures() as saved:
        _plot_words(top, tmp_path / "words.png", MODEL, 6388)
    (fig,) = saved
    assert MODEL in fig.axes[0].get_title()
    assert text_outside(fig) == []


def _weights() -> tuple[ModelWeights, np.ndarray, tuple[str, ...]]:
    """Ten words spread to the corners of the plane (where their labels would run off), padding at the origin."""
    rng = np.random.default_rng(0)
    corners = np.array([[2.4, 1.0], [-4.7, -3.5], [0.1, 2.1], [-2.5, 1.4], [2.0, -0.6], [2.5, 2.2],
                        [-4.6, 2.0], [2.3, -3.4], [0.0, -3.6], [-0.5, 0.3]], np.float32)
    embedding = np.vstack([np.zeros((1, 2), np.float32), corners, rng.normal(size=(30, 2)).astype(np.float32)])
    weights = ModelWeights(embedding, np.float32(0).reshape(()), np.float32(1.5).reshape(()),
                           np.array([1.0, 0.4], np.float32), np.float32(0.3).reshape(()))
    ids = np.concatenate([np.arange(1, 41), np.zeros(24, int)])
    words = ("<PAD>", *LONG_WORDS, *(f"word{i}" for i in range(30)))
    return weights, ids, words


@pytest.mark.slow  # nine panels of exact dynamics and their drawing
def test_review_panels_have_axis_labels_a_legend_outside_and_no_word_cut(tmp_path: Path) -> None:
    weights, ids, words = _weights()
    with saved_figures() as saved:
        plot_review_evolution(weights, ids, words, layers=8, png=tmp_path / "review.png",
                              title=f"{MODEL}: positive test review 27, layers 0..8")
    (fig,) = saved
    assert all("first coordinate" in ax.get_xlabel() for ax in fig.axes[-3:])
    assert all("second coordinate" in ax.get_ylabel() for ax in fig.axes[::3])
    (legend,) = fig.legends
    texts = [t.get_text() for t in legend.get_texts()]
    assert any("mean token" in t for t in texts) and any("positive side" in t for t in texts) \
        and any("negative side" in t for t in texts)
    assert text_outside(fig) == [] and legends_over_content(fig) == []


@pytest.mark.slow  # four figures, twice
@pytest.mark.parametrize("finished", ["all runs", "seed 0, one alpha"])
def test_the_summary_figures_keep_every_text_inside(finished: str, tmp_path: Path) -> None:
    protocol = load_protocol(PROTOCOL)
    runs = protocol.runs
    if finished != "all runs":  # as the alpha study began: only its left end has a point, the axis ends at it
        runs = [run for run in runs if run.seed == 0 and ("alpha" not in run.name or "alpha0.1" in run.name)]
    records = {run.name: {"hardmax_accuracy": 0.8 + 0.01 * run.seed, "validation_accuracy": 0.8, "alpha": 1.0,
                          "softmax_accuracy": 0.8, "softmax_best_test_epoch": {"test_acc": 0.9}}
               for run in runs}
    with saved_figures() as saved:
        summarize(protocol, records, figures_dir=tmp_path)
    assert len(saved) == 4
    for fig in saved:
        assert text_outside(fig) == [] and legends_over_content(fig) == [] and annotations_across_axes(fig) == []
