"""verify.experiments.sentiment.interpret: group leaders (docs/theory.md D5) certified, deletion, matched polarity, vote, clustering."""

from __future__ import annotations

import numpy as np

from verify.core.exact_dynamics import exact_layers
from verify.experiments.sentiment.checkpoints import ModelWeights
from verify.experiments.sentiment.evaluate import certified_evaluation
from verify.experiments.sentiment.interpret import (cluster_leaders, clustering_measures, delete_positions, deletion_test,
                                        leader_vote, matched_polarity)


def _weights(embedding, alpha=1.0, w=(1.0, -1.0), b=0.0) -> ModelWeights:
    return ModelWeights(embedding=np.asarray(embedding, dtype=np.float32), alpha_raw=np.float32(0.5).reshape(()),
                        alpha=np.float32(alpha).reshape(()), decoder_weight=np.array(w, dtype=np.float32),
                        decoder_bias=np.float32(b).reshape(()))


def test_a_repeated_word_leads_as_a_group_where_no_single_token_can():
    # Word 1 = (2, 0) twice: <z, z> = 4 beats <z, (0, 1)> = 0, so its two copies attend to each
    # other only: C_i = G = {0, 1}. Word 2 = (0, 1) leads alone. Padding (id 0) is (0, 0).
    weights = _weights([[0, 0], [2, 0], [0, 1]])
    ids = np.array([[1, 1, 2]])
    leaders = cluster_leaders(weights, ids, layers=2)
    assert leaders.leader_layer[0].tolist() == [0, 0, 0]
    assert leaders.multiplicity[0].tolist() == [2, 2, 1]
    assert leaders.leading_groups().tolist() == [2]
    # The single-token rule of the certified evaluation misses the group.
    assert certified_evaluation(weights, ids, layers=2).leader_layer[0].tolist() == [-1, -1, 0]


def test_cluster_leaders_equal_the_exact_engine_on_reviews_with_repeats_and_padding():
    rng = np.random.default_rng(3)
    embedding = np.round(rng.normal(size=(12, 2)), 2)
    weights = _weights(embedding, alpha=0.7)
    ids = rng.integers(0, 12, size=(25, 10))
    ids[:, 7:] = 0
    leaders = cluster_leaders(weights, ids, layers=4, block=7)
    E = weights.embedding.astype(np.float64)
    for r in range(len(ids)):
        expected = np.full(10, -1)
        for layer in exact_layers([tuple(float(x) for x in row) for row in E[ids[r]]], alpha=float(weights.alpha)):
            for u, attention in enumerate(layer.attention):
                if attention == (u,):
                    for i in layer.groups.members[u]:
                        expected[i] = layer.index if expected[i] < 0 else expected[i]
            if layer.index == 4:
                final = np.array([[float(x) for x in p] for p in layer.positions()])
                break
        assert leaders.leader_layer[r].tolist() == expected.tolist(), r
        assert np.allclose(leaders.final[r], final, atol=1e-9)


def test_delete_positions_pads_back():
    assert delete_positions(np.array([5, 6, 7, 0]), np.array([False, True, False, False])).tolist() == [5, 7, 0, 0]


def test_deletion_test_counts_flips_of_certified_predictions():
    # Review [1, 2, 2, 3]: word 1 = (3, 0) leads on the positive side, word 2 = (0, 1) leads as a
    # group of two on the negative side, word 3 = (0.2, 0.9) follows word 2 (<z3, z2> = 0.9 >
    # <z3, z3> = 0.85). Positive overall. Without its leaders only word 3 is left: negative, a
    # flip. Deleting three random words of four flips only when word 1 is among them.
    weights = _weights([[0, 0], [3, 0], [0, 1], [0.2, 0.9]], w=(1.0, -1.0), b=0.0)
    ids = np.array([[1, 2, 2, 3, 0]] * 40)
    labels = np.ones(40, dtype=np.int8)
    leaders = cluster_leaders(weights, ids, layers=1)
    assert leaders.leader_layer[0].tolist()[:4] == [0, 0, 0, -1]
    predictions = certified_evaluation(weights, ids, labels, layers=1).predictions
    assert predictions.tolist() == [1] * 40
    record = deletion_test(weights, ids, labels, leaders, predictions=predictions, seed=0)
    assert record["reviews_tested"] == 40 and record["words_deleted_mean"] == 3
    assert record["leaders_deleted"]["flip_rate"] == 1.0 and record["leaders_deleted"]["accuracy"] == 0.0
    assert 0 < record["random_deleted"]["flip_rate"] < 1.0


def test_vote_and_matched_polarity_and_clustering_run_on_a_small_model():
    rng = np.random.default_rng(0)
    weights = _weights(rng.normal(size=(30, 2)), alpha=2.0, w=(1.0, 0.5), b=0.1)
    ids = rng.integers(0, 30, size=(40, 16))
    labels = rng.integers(0, 2, size=40).astype(np.int8)
    leaders = cluster_leaders(weights, ids, layers=8)
    predictions = certified_evaluation(weights, ids, labels, layers=8).predictions
    vote = leader_vote(weights, leaders, labels, predictions)
    assert vote["reviews"] == 40 and 0 <= vote["weighted_vote_agrees_with_model"] <= 1
    words = tuple(["<PAD>", "great", "awful", "good", "bad"] + [f"w{i}" for i in range(25)])
    polarity = matched_polarity(weights, ids, leaders, words, bins=4)
    assert polarity["leader_tokens"] > 0 and 0 <= polarity["leader_polar_share"] <= 1
    measures = clustering_measures(weights, ids, leaders, converge_layers=60)
    assert measures["leaders_per_review"]["min"] >= 1  # a max-norm token always leads (D0)
    assert 0 <= measures["converged"]["share_of_tokens_settled_by_K"] <= 1
    # With alpha = 2, eight layers shrink every gap by (1/3)^8: the state at K is nearly converged.
    assert measures["converged"]["share_of_tokens_settled_by_K"] > 0.5
