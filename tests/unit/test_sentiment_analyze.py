"""verify.experiments.sentiment.analyze: leader statistics, leader-word selection and lexicon shares on hand-made evaluations."""

from __future__ import annotations

import numpy as np

from verify.experiments.sentiment.analyze import (_plot_history, _t3_boundary, history_curves, leader_statistics, leader_words,
                                     lexicon_shares, unseen_word_leaders, without_attention)
from verify.experiments.sentiment.checkpoints import ModelWeights
from verify.experiments.sentiment.evaluate import Evaluation

WORDS = ("<PAD>", "great", "film", "awful", "plot")


def _evaluation() -> Evaluation:
    # Review 0: tokens great, film, pad, pad; leaders great (layer 0) and film (layer 2).
    # Review 1: tokens awful, plot, pad, pad; one leader awful (layer 0).
    leader_layer = np.array([[0, 2, -1, -1], [0, -1, -1, -1]])
    final = np.array([[[3.0, 0.0], [0.5, 0.0], [0.0, 1.0], [0.0, 1.0]],
                      [[-3.0, 0.0], [-0.5, 0.0], [0.0, 1.0], [0.0, 1.0]]])
    return Evaluation(predictions=np.array([1, 0], dtype=np.int8), logits=np.array([4.0, -4.0]),
                      exact_path_mask=np.zeros(2, bool), undecided_mask=np.zeros(2, bool), leader_layer=leader_layer,
                      distinct_points=np.array([3, 3]), final=final, labels=np.array([1, 0], dtype=np.int8),
                      seconds=0.0, layers=8)


def _weights() -> ModelWeights:
    # Decision value w.z + b = z_x: |.| > 2 only for the tokens at x = +-3.
    return ModelWeights(np.zeros((5, 2), np.float32), np.float32(0).reshape(()), np.float32(1).reshape(()),
                        np.array([1.0, 0.0], np.float32), np.float32(0).reshape(()))


def test_leader_statistics_known_answer():
    stats = leader_statistics(_evaluation())
    assert (stats["mean"], stats["min"], stats["max"]) == (1.5, 1, 2)
    assert stats["fraction_initial_leaders_mean"] == 0.75  # (1/2 + 1/1) / 2


def test_leader_words_keep_confident_correct_reviews_and_far_leaders():
    ids = np.array([[1, 2, 0, 0], [3, 4, 0, 0]])
    counts, selected = leader_words(_evaluation(), _weights(), ids, np.array([1, 0]), WORDS)
    assert selected == 2 and dict(counts) == {"great": 1, "awful": 1}  # "film" is too close to the line
    # A wrong prediction drops the review.
    counts, selected = leader_words(_evaluation(), _weights(), ids, np.array([0, 0]), WORDS)
    assert selected == 1 and dict(counts) == {"awful": 1}


def test_lexicon_shares_compare_leaders_with_all_words():
    ids = np.array([[1, 2, 0, 0], [3, 4, 0, 0]])
    counts, _ = leader_words(_evaluation(), _weights(), ids, np.array([1, 0]), WORDS)
    shares = lexicon_shares(counts, ids, WORDS)
    assert shares["leader_polar_share"] == 1.0          # great, awful are in VADER with polarity
    assert shares["all_polar_share"] == 0.5             # film, plot are not; padding is not a word


def test_unseen_word_leaders_count_words_absent_from_training_rows():
    ids = np.array([[1, 2, 0, 0], [3, 4, 0, 0]])
    # Training showed "great" and "plot" (and padding): "film" and "awful" never got a gradient.
    train_ids = np.array([[1, 0, 0, 0], [4, 1, 0, 0]])
    unseen = unseen_word_leaders(_evaluation(), ids, np.bincount(train_ids.ravel(), minlength=len(WORDS)))
    assert (unseen["tokens"], unseen["unseen_tokens"]) == (4, 2)          # padding is not counted
    assert (unseen["leaders"], unseen["unseen_leaders"]) == (3, 2)        # film (review 0), awful (review 1)
    assert unseen["reviews_with_unseen_leader"] == 2 and unseen["reviews_with_unseen_word"] == 2
    # Once "awful" is seen in training, only review 0 keeps an unseen leader; "plot" never led.
    unseen = unseen_word_leaders(_evaluation(), ids, np.bincount([1, 3, 4, 0], minlength=len(WORDS)))
    assert (unseen["unseen_tokens"], unseen["unseen_leaders"], unseen["reviews_with_unseen_leader"]) == (1, 1, 1)
    assert unseen["unseen_leader_share"] == 1 / 3


def test_t3_boundary_flags_a_limit_inside_or_outside_the_leader_hull():
    leaders = np.array([[True, True, True, False]])
    on_edge = np.array([[[0, 0], [2, 0], [0, 2], [1, 0]]], dtype=float)
    inside = np.array([[[0, 0], [2, 0], [0, 2], [0.5, 0.5]]], dtype=float)
    outside = np.array([[[0, 0], [2, 0], [0, 2], [3, 3]]], dtype=float)
    assert _t3_boundary(on_edge, leaders)["holds"] == 1
    assert _t3_boundary(inside, leaders)["tokens_strictly_inside_K"] == 1
    assert _t3_boundary(outside, leaders)["tokens_outside_K"] == 1
    # Two leaders: K is a segment, its own boundary; a limit on it is fine, off it is not.
    two = np.array([[True, True, False]])
    assert _t3_boundary(np.array([[[0, 0], [2, 0], [1, 0]]], dtype=float), two)["holds"] == 1
    assert _t3_boundary(np.array([[[0, 0], [2, 0], [1, 1]]], dtype=float), two)["fails"] == 1


def test_certified_limits_agree_with_a_long_float_run_and_catch_a_changed_class():
    """certified_limits (exact, D7) against an independent measurement: 400 float layers.

    The exact limit state's class must equal the class of the long float run, the exact
    distance K -> limit must match the float one to rounding, and a wrong class at K is counted.
    """
    from verify.core.float_dynamics import simulate_batch
    from verify.experiments.sentiment.analyze import certified_limits
    from verify.experiments.sentiment.evaluate import certified_evaluation

    rng = np.random.default_rng(3)
    E = rng.normal(size=(60, 2)).astype(np.float32)
    weights = ModelWeights(E, np.float32(0).reshape(()), np.float32(2.0).reshape(()),
                           np.array([1.5, -0.5], dtype=np.float32), np.float32(0.1).reshape(()))
    ids = np.stack([rng.choice(np.arange(1, 60), size=12, replace=False) for _ in range(4)])
    tokens = E[ids].astype(np.float64)
    at_K = certified_evaluation(weights, ids, None, layers=8, keep_final=True)
    result = certified_limits(tokens, weights=weights, layers=8, predictions_at_K=at_K.predictions)
    assert result["limits_certified"] == 4 and result["claims"]["T3"] == {"certified": 4}

    far = simulate_batch(tokens, alpha=2.0, layers=400).final
    logits_far = far.mean(axis=1) @ weights.decoder_weight.astype(np.float64) + float(weights.decoder_bias)
    changed = int(((logits_far > 0).astype(np.int8) != at_K.predictions).sum())
    assert result["predictions_changed"] == changed
    float_distance = np.linalg.norm(at_K.final - far, axis=2).max(axis=1)
    assert abs(result["distance_K_to_limit"]["max"] - float_distance.max()) < 1e-9
    assert abs(result["distance_K_to_limit"]["mean"] - float_distance.mean()) < 1e-9

    flipped = certified_limits(tokens, weights=weights, layers=8, predictions_at_K=1 - at_K.predictions)
    assert flipped["predictions_changed"] == 4 - changed


def test_without_attention_decodes_the_mean_embedding_exactly():
    # Embedding rows on the x axis; decoder w = (1, 0), b = 0: the K = 0 logit is the mean x.
    embedding = np.array([[0, 0], [3, 0], [-1, 0], [-2, 0], [1, 5]], np.float32)
    weights = ModelWeights(embedding, np.float32(0).reshape(()), np.float32(1).reshape(()),
                           np.array([1.0, 0.0], np.float32), np.float32(0).reshape(()))
    ids = np.array([[1, 2, 0, 0],    # 3 - 1 = 2 > 0: positive
                    [2, 3, 0, 0],    # -3: negative
                    [1, 3, 2, 0],    # 3 - 2 - 1 = 0 exactly: negative (the paper's rule), by the exact path
                    [4, 4, 0, 0]])   # 2 > 0: positive
    labels = np.array([1, 0, 1, 1])
    result = without_attention(weights, ids, labels, predictions_at_K=np.array([1, 1, 1, 1]))
    assert result["accuracy_without_attention"] == 0.75        # review 2 is wrong (0 counts negative)
    assert result["accuracy_at_K"] == 0.75                     # review 1 is wrong at K
    assert result["predictions_changed"] == 2                  # reviews 1 and 2
    assert result["exact_path"] == 1                           # only the exact tie needed fractions
    # A bias shifts every sum by n b: with b = 1/4 the tie becomes n b = 1 > 0, positive.
    shifted = ModelWeights(embedding, weights.alpha_raw, weights.alpha, weights.decoder_weight,
                           np.float32(0.25).reshape(()))
    result = without_attention(shifted, ids, labels, predictions_at_K=np.array([1, 0, 1, 1]))
    assert result["accuracy_without_attention"] == 1.0 and result["predictions_changed"] == 0
    assert result["exact_path"] == 0


def test_without_attention_decides_sums_that_float_rounding_would_get_wrong():
    # 1 + 2^-30 - 1 in float32 weights: float64 keeps it, but the bound must not hide a cancellation
    # that float64 could not resolve; 2^60 + 1 - 2^60 has to go to fractions and come out positive.
    big = np.float32(2.0 ** 60)
    embedding = np.array([[0, 0], [big, 0], [1, 0], [-big, 0]], np.float32)
    weights = ModelWeights(embedding, np.float32(0).reshape(()), np.float32(1).reshape(()),
                           np.array([1.0, 0.0], np.float32), np.float32(0).reshape(()))
    ids = np.array([[1, 2, 3]])
    assert float(np.float64(big) + 1.0 - np.float64(big)) == 0.0   # float64 alone would call it 0: negative
    result = without_attention(weights, ids, np.array([1]), predictions_at_K=np.array([0]))
    assert result["accuracy_without_attention"] == 1.0 and result["exact_path"] == 1


def _labels(curves, metric: str) -> dict[str, tuple]:
    return {c.label: c.points for c in curves if c.metric == metric}


def test_training_curves_compare_train_and_validation_like_for_like(tmp_path):
    history = [{"epoch": e, "train_running_loss": 0.7 - 0.1 * e, "train_running_acc": 0.5 + 0.1 * e,
                "train_subset_loss": 0.6 - 0.1 * e, "train_subset_acc": 0.55 + 0.1 * e,
                "val_loss": 0.65 - 0.05 * e, "val_acc": 0.52 + 0.05 * e, "hardmax_train_loss": 0.5,
                "hardmax_train_acc": 0.7} for e in (1, 2, 3)]
    curves = history_curves(history, train_subset={"reviews": 2500, "of": 22500})
    loss = _labels(curves, "loss")
    train = "train (2,500 fixed training reviews), softmax, end of epoch"
    assert loss[train] == tuple((e, 0.6 - 0.1 * e) for e in (1, 2, 3))
    assert loss["validation, softmax, end of epoch"] == tuple((e, 0.65 - 0.05 * e) for e in (1, 2, 3))
    assert not [label for label in loss if "running" in label]  # every epoch has its like-for-like number
    # One label per series in both panels: the figure's one legend lists each once, with its own marker.
    hardmax = "all training reviews, hardmax, end of epoch (accuracy certified)"
    assert hardmax in _labels(curves, "acc") and hardmax in _labels(curves, "loss")
    assert {c.label for c in curves if c.metric == "loss"} == {c.label for c in curves if c.metric == "acc"}
    _plot_history(history, tmp_path / "curves.png", "d2-run", {"reviews": 2500, "of": 22500})
    assert (tmp_path / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_older_history_draws_its_running_mean_labelled_for_what_it_is(tmp_path):
    older = [{"epoch": e, "train_loss": 0.7 - 0.1 * e, "train_acc": 0.6, "val_loss": 0.6, "val_acc": 0.6}
             for e in (1, 2)]
    curves = history_curves(older)
    running = "train, softmax, running mean over the epoch's batches (not like for like)"
    assert _labels(curves, "loss")[running] == tuple((e, 0.7 - 0.1 * e) for e in (1, 2))
    assert not [c for c in curves if c.label.startswith("train (")]
    # A resumed older run: the running mean where the end-of-epoch number is missing, only there.
    mixed = older + [{"epoch": 3, "train_running_loss": 0.3, "train_running_acc": 0.8, "train_subset_loss": 0.35,
                      "train_subset_acc": 0.7, "val_loss": 0.5, "val_acc": 0.7}]
    loss = _labels(history_curves(mixed), "loss")
    assert [e for e, _ in loss[running]] == [1, 2]
    assert loss["train (fixed training subset), softmax, end of epoch"] == ((3, 0.35),)
    _plot_history(older, tmp_path / "older.png", "d2-older")
    assert (tmp_path / "older.png").stat().st_size > 0
