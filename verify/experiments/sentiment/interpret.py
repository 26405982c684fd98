"""Interpretability tests of a trained sentiment model, certified where they use hardmax, and clustering measures.

Leaders here include the clusters of equal tokens (docs/theory.md D5): a repeated word or the
padding can never satisfy C_i = {i}, but its copies together can lead as one group G with
C_i = G for each member. :func:`cluster_leaders` finds, for every token, the first layer <= K
at which its group (itself alone, or all its copies) has C = the group. Decided by the float
engine's proven bound, and by exact arithmetic for every review where the bound cannot
decide an attention set: certified.

The tests, each on the test reviews of a checkpoint:

* :func:`deletion_test`: delete a review's leader words (every copy, padding excluded), pad
  the review back to n, and count how often the certified hardmax prediction flips, against
  deleting as many randomly chosen words (seeded). Predictions before and after: certified.
* :func:`matched_polarity`: is a leader word more often a sentiment word (VADER polarity) than
  a non-leader word at the same distance |w.z + b| from the decision hyperplane? Tokens are
  binned by that distance (quantiles of the leaders'), and the non-leaders are weighted to the
  leaders' distribution over the bins. Leaders certified; distances and shares measured.
* :func:`leader_vote`: every token joins its nearest leader at layer K (float); each leader
  votes with the side of the hyperplane it lies on, weighted by its cluster's size. How often
  does the vote give the label, and the model's certified prediction?
* :func:`clustering_measures`: leaders per review (certified), the distance of the state at K
  from the state after ``converge_layers`` layers, and the share of tokens settled by layer K
  (within ``tolerance`` times the review's largest initial token norm of their position after
  ``converge_layers`` layers); float evidence for the last two.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from verify.core.exact_dynamics import exact_layers
from verify.core.float_dynamics import float_layers, merge_identical_tokens, simulate_batch
from .analyze import _vader_lexicon
from .checkpoints import ModelWeights, checkpoint_corpus, read_checkpoint, required_field
from .evaluate import certified_evaluation

__all__ = ["ClusterLeaders", "cluster_leaders", "deletion_test", "matched_polarity", "leader_vote",
           "clustering_measures", "delete_positions", "interpret_checkpoint"]

Progress = Callable[[int, int], None]


@dataclass
class ClusterLeaders:
    """Certified leaders of N reviews, groups of equal tokens included (docs/theory.md D5)."""

    leader_layer: np.ndarray    # (N, n) first layer <= K at which the token's group had C = the group; -1 never
    multiplicity: np.ndarray    # (N, n) copies of the token in its review (1 = a single token)
    final: np.ndarray           # (N, n, d) float positions at layer K (exact-path reviews rounded from exact)
    exact_path: int             # reviews decided by exact arithmetic
    layers: int

    @property
    def leaders(self) -> np.ndarray:
        return self.leader_layer >= 0

    def leading_groups(self) -> np.ndarray:
        """(N,) number of leading clusters per review (a group of copies counts once)."""
        return np.array([len({tuple(p) for p in self.final[r][self.leaders[r]]}) if self.leaders[r].any() else 0
                         for r in range(len(self.final))])


def cluster_leaders(weights: ModelWeights, ids: np.ndarray, *, layers: int, block: int = 1024,
                    progress: Progress | None = None) -> ClusterLeaders:
    """Leaders and group leaders of every review within ``layers`` hardmax layers, certified."""
    ids = np.asarray(ids)
    N, n = ids.shape
    E = weights.embedding.astype(np.float64)  # float32 -> float64 is exact
    d = E.shape[1]
    alpha = float(weights.alpha)
    leader_layer = np.full((N, n), -1)
    multiplicity = np.zeros((N, n), dtype=np.int64)
    final = np.zeros((N, n, d))
    exact_count = 0
    for start in range(0, N, block):
        stop = min(N, start + block)
        tokens = E[ids[start:stop]]
        b = stop - start
        batch = merge_identical_tokens(tokens, np.broadcast_to(np.eye(d), (b, d, d)))
        m = batch.positions.shape[1]
        point_layer = np.full((b, m), -1)
        undecided = np.zeros(b, dtype=bool)
        layer = None
        for layer in float_layers(batch, alpha=np.full(b, alpha), initial_error=np.zeros(b),
                                  matrix_bound=np.ones(b)):
            undecided |= layer.undecided_rows.any(axis=1)
            leads = (layer.argmax == np.arange(m)) & ~layer.undecided_rows & ~layer.tie_rows & (batch.weights > 0)
            point_layer[leads & (point_layer < 0)] = layer.index
            if layer.index == layers:
                break
        assert layer is not None  # float_layers yields layer 0 at least
        rows = slice(start, stop)
        leader_layer[rows] = np.take_along_axis(point_layer, batch.inverse, axis=1)
        multiplicity[rows] = np.take_along_axis(batch.weights, batch.inverse, axis=1).astype(np.int64)
        final[rows] = np.take_along_axis(layer.positions, batch.inverse[:, :, None], axis=1)
        for local in np.flatnonzero(undecided):
            exact_count += 1
            r = start + local
            leader_layer[r] = -1
            for exact in exact_layers([tuple(float(x) for x in row) for row in tokens[local]], alpha=alpha):
                for u, attention in enumerate(exact.attention):
                    if attention == (u,):
                        for i in exact.groups.members[u]:
                            if leader_layer[r, i] < 0:
                                leader_layer[r, i] = exact.index
                if exact.index == layers:
                    final[r] = np.array([[float(x) for x in p] for p in exact.positions()])
                    break
        if progress is not None:
            progress(stop, N)
    return ClusterLeaders(leader_layer, multiplicity, final, exact_count, layers)


def delete_positions(ids: np.ndarray, remove: np.ndarray) -> np.ndarray:
    """The review ``ids`` (n,) without the positions in the mask ``remove``, padded back to n with 0."""
    kept = ids[~remove]
    out = np.zeros_like(ids)
    out[:len(kept)] = kept
    return out


def deletion_test(weights: ModelWeights, ids: np.ndarray, labels: np.ndarray, leaders: ClusterLeaders, *,
                  predictions: np.ndarray, seed: int = 0) -> dict:
    """Flip rates after deleting the leader words vs as many random words (certified predictions)."""
    ids = np.asarray(ids)
    rng = np.random.default_rng(seed)
    word = ids != 0
    leader_words = leaders.leaders & word
    chosen = np.flatnonzero(leader_words.any(axis=1) & (leader_words.sum(axis=1) < word.sum(axis=1)))
    without_leaders = np.array([delete_positions(ids[r], leader_words[r]) for r in chosen]).reshape(-1, ids.shape[1])
    random_rows = []
    for r in chosen:
        positions = np.flatnonzero(word[r])
        mask = np.zeros(ids.shape[1], dtype=bool)
        mask[rng.choice(positions, size=int(leader_words[r].sum()), replace=False)] = True
        random_rows.append(delete_positions(ids[r], mask))
    without_random = np.array(random_rows).reshape(-1, ids.shape[1])
    record: dict[str, Any] = {"reviews": int(len(ids)), "reviews_tested": int(len(chosen)),
              "words_deleted_mean": float(leader_words[chosen].sum(axis=1).mean()) if len(chosen) else None,
              "seed": seed,
              "definition": "leader words (C = own group within K layers, padding excluded) deleted and the "
                            "review padded back to n; control: as many words chosen at random (seeded); "
                            "predictions certified; reviews whose every word leads are left out"}
    if not len(chosen):
        return record
    labels = np.asarray(labels)[chosen]
    before = np.asarray(predictions)[chosen]
    for name, modified in (("leaders_deleted", without_leaders), ("random_deleted", without_random)):
        result = certified_evaluation(weights, modified, labels, layers=leaders.layers)
        record[name] = {"flip_rate": float((result.predictions != before).mean()),
                        "accuracy": result.accuracy, "exact_path": result.exact_path}
    record["accuracy_before"] = float((before == labels).mean())
    return record


def _side_values(weights: ModelWeights, points: np.ndarray) -> np.ndarray:
    return points @ weights.decoder_weight.astype(np.float64) + float(weights.decoder_bias)


def matched_polarity(weights: ModelWeights, ids: np.ndarray, leaders: ClusterLeaders, words: tuple[str, ...], *,
                     bins: int = 20) -> dict:
    """VADER polarity share of leader words against non-leader words matched on |w.z + b| at layer K."""
    lexicon = _vader_lexicon()
    ids = np.asarray(ids)
    word = ids != 0
    distance = np.abs(_side_values(weights, leaders.final))
    polar_word = np.array([lexicon.get(w.lower(), 0.0) != 0.0 for w in words])
    polar = polar_word[ids]
    leader = leaders.leaders & word
    other = ~leaders.leaders & word
    if not leader.any() or not other.any():
        return {"leader_tokens": int(leader.sum()), "non_leader_tokens": int(other.sum())}
    edges = np.unique(np.quantile(distance[leader], np.linspace(0, 1, bins + 1)))
    edges[0], edges[-1] = -np.inf, np.inf
    leader_bin = np.digitize(distance[leader], edges[1:-1])
    other_bin = np.digitize(distance[other], edges[1:-1])
    matched_share, matched_weight, unmatched = 0.0, 0, 0
    for k in range(len(edges) - 1):
        in_leaders = leader_bin == k
        in_others = other_bin == k
        if not in_leaders.any():
            continue
        if not in_others.any():
            unmatched += int(in_leaders.sum())
            continue
        matched_share += int(in_leaders.sum()) * float(polar[other][in_others].mean())
        matched_weight += int(in_leaders.sum())
    leader_share = float(polar[leader].mean())
    return {
        "lexicon": "VADER polarity != 0, compared lowercased",
        "leader_tokens": int(leader.sum()), "non_leader_tokens": int(other.sum()),
        "leader_polar_share": leader_share,
        "matched_non_leader_polar_share": matched_share / matched_weight if matched_weight else None,
        "unmatched_leader_tokens": unmatched,
        "all_non_leader_polar_share": float(polar[other].mean()),
        "bins": int(len(edges) - 1),
        "definition": "tokens binned by |w.z + b| at layer K (quantiles of the leaders'); non-leaders weighted to "
                      "the leaders' distribution over the bins; leaders certified (groups of equal tokens included)",
    }


def leader_vote(weights: ModelWeights, leaders: ClusterLeaders, labels: np.ndarray, predictions: np.ndarray) -> dict:
    """Cluster-size-weighted vote of the leaders' sides, against the label and the model's prediction."""
    N = len(leaders.final)
    weighted = np.zeros(N, dtype=np.int8)
    plain = np.zeros(N, dtype=np.int8)
    without = 0
    for r in range(N):
        mask = leaders.leaders[r]
        if not mask.any():
            without += 1
            continue
        points = np.unique(leaders.final[r][mask], axis=0)
        sides = np.where(_side_values(weights, points) > 0, 1, -1)
        nearest = np.argmin(((leaders.final[r][:, None, :] - points[None, :, :]) ** 2).sum(axis=2), axis=1)
        sizes = np.bincount(nearest, minlength=len(points))
        weighted[r] = int((sizes * sides).sum() > 0)   # a tied vote is negative, as a logit of 0
        plain[r] = int(sides.sum() > 0)
    labels = np.asarray(labels)
    predictions = np.asarray(predictions)
    has = np.array([leaders.leaders[r].any() for r in range(N)])
    return {
        "reviews": N, "reviews_without_leader": without,
        "weighted_vote_accuracy": float((weighted[has] == labels[has]).mean()) if has.any() else None,
        "weighted_vote_agrees_with_model": float((weighted[has] == predictions[has]).mean()) if has.any() else None,
        "plain_vote_accuracy": float((plain[has] == labels[has]).mean()) if has.any() else None,
        "model_accuracy_same_reviews": float((predictions[has] == labels[has]).mean()) if has.any() else None,
        "definition": "each token joins its nearest leader at layer K (float); each leader votes with its side of "
                      "w.z + b = 0, weighted by its cluster's size (plain: one vote per leader); a tie is negative",
    }


def clustering_measures(weights: ModelWeights, ids: np.ndarray, leaders: ClusterLeaders, *,
                        converge_layers: int = 200, tolerance: float = 1e-3, max_reviews: int | None = None) -> dict:
    """Leaders per review (certified) and how close the state at K is to the state after ``converge_layers``."""
    ids = np.asarray(ids)
    groups = leaders.leading_groups()
    subset = slice(0, len(ids) if max_reviews is None else min(max_reviews, len(ids)))
    tokens = weights.embedding.astype(np.float64)[ids[subset]]
    far = simulate_batch(tokens, alpha=float(weights.alpha), layers=converge_layers)
    scale = np.linalg.norm(tokens, axis=2).max(axis=1)
    gap = np.linalg.norm(leaders.final[subset] - far.final, axis=2)
    settled = gap <= tolerance * scale[:, None]
    distance = gap.max(axis=1)
    return {
        "reviews": int(len(ids)), "layers": leaders.layers,
        "leaders_per_review": {"mean": float(groups.mean()), "std": float(groups.std()),
                               "min": int(groups.min()), "max": int(groups.max()),
                               "definition": "leading clusters (a group of equal tokens counts once), certified"},
        "single_token_leaders_per_review": float((leaders.leaders & (leaders.multiplicity == 1)).sum(axis=1).mean()),
        "group_leaders_per_review": float(np.mean([len({tuple(p) for p in leaders.final[r][leaders.leaders[r] & (
            leaders.multiplicity[r] > 1)]}) for r in range(len(ids))])),
        "converged": {"reviews": int(len(tokens)), "converge_layers": converge_layers,
                      "undecided_within_converge_layers": int(far.undecided.sum()),
                      "distance_K_to_converged_mean": float(distance.mean()),
                      "distance_K_to_converged_median": float(np.median(distance)),
                      "distance_K_to_converged_max": float(distance.max()),
                      "share_of_tokens_settled_by_K": float(settled.mean()),
                      "tolerance": f"{tolerance} x the review's largest initial token norm",
                      "status": "float evidence"},
    }


def interpret_checkpoint(checkpoint_dir, *, data, cache_dir=None, max_reviews: int | None = None,
                         converge_layers: int = 200, converge_reviews: int = 3000, seed: int = 0,
                         progress: Callable[[str, int, int], None] | None = None) -> dict:
    """Every test of this module on the test reviews of a checkpoint's selected model (one JSON record)."""

    update = progress or (lambda *args: None)
    started = time.perf_counter()
    checkpoint = read_checkpoint(checkpoint_dir)
    weights = checkpoint.best or checkpoint.weights
    layers = int(required_field(checkpoint, "settings").get("layers", 8))
    corpus, split = checkpoint_corpus(checkpoint, Path(data), cache_dir=cache_dir,
                                      progress=lambda done, total: update("preprocessing", done, total))
    rows = split.test if max_reviews is None else split.test[:max_reviews]
    ids, labels = corpus.ids[rows], corpus.labels[rows]
    evaluation = certified_evaluation(weights, ids, labels, layers=layers,
                                      progress=lambda done, total: update("hardmax (certified)", done, total))
    leaders = cluster_leaders(weights, ids, layers=layers,
                              progress=lambda done, total: update("leaders (certified)", done, total))
    update("deletion test", 0, 1)
    deletion = deletion_test(weights, ids, labels, leaders, predictions=evaluation.predictions, seed=seed)
    update("deletion test", 1, 1)
    record = {
        "checkpoint": str(checkpoint_dir), "d": weights.d, "layers": layers, "alpha": float(weights.alpha),
        "epoch": (checkpoint.meta.get("best") or {}).get("epoch"), "split": "test", "reviews": int(len(rows)),
        "leader_exact_path": leaders.exact_path,
        "deletion": deletion,
        "matched_polarity": matched_polarity(weights, ids, leaders, corpus.vocabulary.words),
        "leader_vote": leader_vote(weights, leaders, labels, evaluation.predictions),
        "clustering": clustering_measures(weights, ids, leaders, converge_layers=converge_layers,
                                          max_reviews=converge_reviews),
    }
    record["seconds"] = round(time.perf_counter() - started, 1)
    return record
