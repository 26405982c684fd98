"""The paper's analyses of the sentiment model, and the experiment's claims checked on it.

What is exact and what is measured
----------------------------------
* Leaders, predictions at K = 8: certified (float engine with proven bound, exact fallback;
  :mod:`verify.experiments.sentiment.evaluate`). A leader is a token with C_i = {i} at some layer <= K,
  defined on the original token indices, so a duplicated word or padding is never a leader
  (docs/theory.md D5); the authors' "first index of the argmax" rule is not used.
* The "converged" state is the float state after ``converge_layers`` layers (measured, not
  certified: reviews whose attention sets the float bound could not decide in those layers are
  counted and left out of the comparison).
* Lexicon shares (VADER) and leader-word counts are plain counts.
* The ablation without attention (K = 0, the same weights) is certified: float64 sums under a
  proven rounding bound, the exact engine where the bound cannot decide.
* T0 on real data is exact at K (from the certified leaders); T2 (leaders are the vertices of K)
  is checked in float on the converged state (measured, tolerance stated).
* On configurations of the authors' embedding within the hypotheses (distinct nonzero rows),
  :func:`certified_limits` decides T0..T4 and the limit state exactly with the claim checks
  (D7 certificates): the class of the asymptotic state and its distance from the state at K
  are then exact, not measured.

Everything is written under ``out_dir`` as ``analysis.json`` plus PNG figures, replaced
atomically as one folder.
"""

from __future__ import annotations

import platform
import zipfile
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from verify.claims import check_configuration
from verify.core import formatting as fmt
from verify.core.config import make_configuration
from verify.core.figure_text import png_metadata
from verify.core.float_dynamics import rounding_gamma, simulate_batch
from verify.core.io import atomic_directory, json_text, open_input, safe_name
from verify.core.numbers import InputError
from verify.core.trajectory import simulate
from verify.experiments.imdb.corpus import training_word_counts
from verify.experiments.imdb.data import file_sha256
from .checkpoints import ModelWeights, checkpoint_corpus, read_checkpoint
from .evaluate import Evaluation, certified_evaluation, exact_review
from .model import running_train

__all__ = ["run_analyses", "leader_statistics", "leader_words", "compare_with_converged", "lexicon_shares",
           "unseen_word_leaders", "without_attention", "hypotheses_on_reviews", "authors_configurations",
           "Curve", "history_curves"]

Progress = Callable[[str, int, int], None]
CONFIDENCE = 0.95
DISTANCE_FROM_HYPERPLANE = 2.0
TOP_WORDS = 15


def leader_statistics(evaluation: Evaluation) -> dict:
    """Per review: number of leaders within K layers; fraction of them leading already at layer 0."""
    leaders = evaluation.leader_layer >= 0
    count = leaders.sum(axis=1)
    initial = (evaluation.leader_layer == 0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        fraction = np.where(count > 0, initial / np.maximum(count, 1), np.nan)
    return {
        "reviews": int(len(count)), "layers": evaluation.layers,
        "mean": float(count.mean()), "std": float(count.std()), "min": int(count.min()), "max": int(count.max()),
        "fraction_initial_leaders_mean": float(np.nanmean(fraction)) if np.isfinite(fraction).any() else None,
        "reviews_without_leader": int((count == 0).sum()),
        "definition": "C_i = {i} at some layer <= K (original token indices; duplicates never lead)",
    }


def unseen_word_leaders(evaluation: Evaluation, ids: np.ndarray, train_counts: np.ndarray) -> dict:
    """How much of the test reviews' leadership goes to words the training never showed.

    ``train_counts`` is ``corpus.training_word_counts``: a word with count 0 is in no training row
    (validation rows do not train either), got no gradient and keeps its random initial embedding.
    Tokens and leaders are counted without padding (id 0); leaders are the certified ones
    (C_i = {i} within K layers). With ``--min-count`` such words are read as the trained ``<UNK>``
    row, so there are none.
    """
    words = ids != 0
    unseen = words & (train_counts[ids] == 0)
    leaders = (evaluation.leader_layer >= 0) & words
    unseen_leaders = leaders & unseen
    token_count, leader_count = int(words.sum()), int(leaders.sum())
    return {
        "reviews": int(len(ids)),
        "tokens": token_count, "unseen_tokens": int(unseen.sum()),
        "unseen_token_share": float(unseen.sum() / token_count) if token_count else None,
        "leaders": leader_count, "unseen_leaders": int(unseen_leaders.sum()),
        "unseen_leader_share": float(unseen_leaders.sum() / leader_count) if leader_count else None,
        "reviews_with_unseen_word": int(unseen.any(axis=1).sum()),
        "reviews_with_unseen_leader": int(unseen_leaders.any(axis=1).sum()),
        "definition": "unseen: a word id in no training row (padding excluded); leaders certified, C_i = {i} "
                      "within K layers",
    }


def without_attention(weights: ModelWeights, ids: np.ndarray, labels: np.ndarray,
                      predictions_at_K: np.ndarray) -> dict:
    """The same weights with no attention layer (K = 0: the mean of the embedded tokens, decoded), certified.

    An ablation of what the K layers contribute to the trained classifier. The sign of
    w.mean(Z^0) + b is that of S = sum_tokens sum_j E[t, j] w_j + n b. Each product of two
    float32 numbers is exact in float64, and any order of summing m float64 terms errs by at
    most gamma_m sum |terms| (gamma_m = m u / (1 - m u), u = 2^-53), so a review whose |S| exceeds
    that bound has the sign of exact arithmetic; the others take the exact path of the certified
    evaluation (:func:`exact_review` with zero layers), where a logit of exactly 0 is negative.

    Not ``certified_evaluation(..., layers=0)``: that also decides the layer-0 attention sets
    (for the leaders), which K = 0 does not need, and sends every review with a tie there (a zero
    row, say) to the exact path.
    """
    ids = np.asarray(ids)
    n = ids.shape[1]
    w = weights.decoder_weight.astype(np.float64)
    E = weights.embedding.astype(np.float64)                # float32 -> float64 is exact
    terms = (E[ids] * w).reshape(len(ids), -1)
    bias_term = n * float(weights.decoder_bias)              # n < 2^29: exact in float64
    total = terms.sum(axis=1) + bias_term
    m = terms.shape[1] + 1
    gamma = rounding_gamma(m)
    # The factor 2 covers the bound's own rounding: the computed sum of |terms| is within a factor
    # (1 +- gamma) of the true one, and the two products each add half an ulp.
    bound = 2 * gamma * (np.abs(terms).sum(axis=1) + abs(bias_term))
    predictions = (total > 0).astype(np.int8)
    undecided = np.flatnonzero(np.abs(total) <= bound)
    for r in undecided:
        exact = exact_review(E[ids[r]], alpha=float(weights.alpha), w=w, b=float(weights.decoder_bias), layers=0)
        predictions[r] = 1 if exact.logit > 0 else 0
    labels = np.asarray(labels)
    return {
        "reviews": int(len(ids)),
        "accuracy_without_attention": float((predictions == labels).mean()) if len(ids) else None,
        "accuracy_at_K": float((np.asarray(predictions_at_K) == labels).mean()) if len(ids) else None,
        "predictions_changed": int((predictions != np.asarray(predictions_at_K)).sum()),
        "exact_path": int(len(undecided)),
        "status": "certified (float64 sums with a proven rounding bound, exact fractions where it cannot decide)",
    }


def _decision_values(weights: ModelWeights, points: np.ndarray) -> np.ndarray:
    return points @ weights.decoder_weight.astype(np.float64) + float(weights.decoder_bias)


def leader_words(evaluation: Evaluation, weights: ModelWeights, ids: np.ndarray, labels: np.ndarray,
                 words: tuple[str, ...], *, confidence: float = CONFIDENCE,
                 distance: float = DISTANCE_FROM_HYPERPLANE) -> tuple[Counter, int]:
    """Leader words of correctly classified confident reviews whose leaders satisfy |w.z + b| > distance.

    A leader is fixed from the layer it first leads (D3), so its final position is its position then.
    Returns the word counts (one per leader occurrence) and the number of reviews selected.
    """
    if evaluation.final is None:
        raise ValueError("leader_words needs an evaluation run with keep_final=True")
    threshold = np.log(confidence / (1 - confidence))
    selected = (evaluation.predictions == labels) & (np.abs(evaluation.logits) > threshold)
    counts: Counter = Counter()
    for r in np.flatnonzero(selected):
        leaders = np.flatnonzero(evaluation.leader_layer[r] >= 0)
        if len(leaders) == 0:
            continue
        values = _decision_values(weights, evaluation.final[r, leaders])
        for i in leaders[np.abs(values) > distance]:
            counts[words[ids[r, i]]] += 1
    return counts, int(selected.sum())


def _vader_lexicon() -> dict[str, float]:
    import vaderSentiment
    path = Path(vaderSentiment.__file__).with_name("vader_lexicon.txt")
    lexicon = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split("\t")
        if len(parts) >= 2:
            try:
                lexicon[parts[0].lower()] = float(parts[1])
            except ValueError:
                continue
    return lexicon


def lexicon_shares(leader_counts: Counter, ids: np.ndarray, words: tuple[str, ...]) -> dict:
    """Share of leader words with a VADER polarity, against the share among all words of the same reviews."""
    lexicon = _vader_lexicon()

    def polar(word: str) -> bool:
        return lexicon.get(word.lower(), 0.0) != 0.0

    all_counts = Counter(ids[ids > 0].tolist())
    all_total = sum(all_counts.values())
    all_polar = sum(c for i, c in all_counts.items() if polar(words[i]))
    distinct_polar = sum(1 for i in all_counts if polar(words[i]))
    leader_total = sum(leader_counts.values())
    leader_polar = sum(c for w, c in leader_counts.items() if polar(w))
    top = leader_counts.most_common(TOP_WORDS)
    return {
        "lexicon": "VADER (vaderSentiment package, vader_lexicon.txt), polarity != 0, compared lowercased",
        "leader_occurrences": leader_total,
        "leader_polar_share": leader_polar / leader_total if leader_total else None,
        "leader_distinct_words": len(leader_counts),
        "leader_distinct_polar_share": (sum(1 for w in leader_counts if polar(w)) / len(leader_counts)
                                        if leader_counts else None),
        "top_words_polar": [w for w, _ in top if polar(w)],
        "top_words_polar_share": (sum(1 for w, _ in top if polar(w)) / len(top)) if top else None,
        "all_word_occurrences": all_total,
        "all_polar_share": all_polar / all_total if all_total else None,
        "all_distinct_words": len(all_counts),
        "all_distinct_polar_share": distinct_polar / len(all_counts) if all_counts else None,
    }


def compare_with_converged(tokens: np.ndarray, *, alpha: float, weights: ModelWeights | None, layers: int,
                           converge_layers: int, certified_final: np.ndarray | None = None,
                           certified_predictions: np.ndarray | None = None) -> dict:
    """K layers against ``converge_layers`` layers: prediction changes and distances between the states.

    Float evidence. Over many layers tokens approach their limits geometrically, so scores of a
    token and of the point it converges to become equal to rounding and the float bound stops
    deciding attention sets: most configurations end up "undecided" in a long run. That count is
    reported, and the comparison uses the float states of all configurations (measured, not
    certified). Distances are the max over tokens of the Euclidean distance.
    """
    final_k = certified_final if certified_final is not None else simulate_batch(tokens, alpha=alpha,
                                                                                  layers=layers).final
    half = simulate_batch(tokens, alpha=alpha, layers=converge_layers // 2)
    far = simulate_batch(tokens, alpha=alpha, layers=converge_layers)
    ok = np.ones(len(tokens), dtype=bool)
    dist = np.linalg.norm(final_k - far.final, axis=2).max(axis=1)
    settle = np.linalg.norm(half.final - far.final, axis=2).max(axis=1)
    leaders_k = (far.leader_layer >= 0) & (far.leader_layer <= layers)
    leaders_far = far.leader_layer >= 0
    # Per configuration (asarray: numpy's stubs allow a scalar from any(axis=...)).
    gains_leaders = np.asarray((leaders_far & ~leaders_k).any(axis=1))
    leaderless_k = np.asarray(~leaders_k.any(axis=1))
    leaderless_far = np.asarray(~leaders_far.any(axis=1))
    record = {
        "configurations": int(len(tokens)), "layers": layers, "converge_layers": converge_layers,
        "undecided_within_converge_layers": int(far.undecided.sum()),
        "undecided_first_layer": _summary(far.first_undecided_layer[far.undecided].astype(float)),
        "distance_K_to_converged": _summary(dist[ok]),
        "distance_half_to_converged": _summary(settle[ok]),
        "share_with_new_leaders_after_K": float(gains_leaders[ok].mean()) if ok.any() else None,
        "share_without_leader_at_K": float(leaderless_k[ok].mean()) if ok.any() else None,
        "share_without_leader_converged": float(leaderless_far[ok].mean()) if ok.any() else None,
        "note": "float evidence (converged state not certified; see undecided counts)",
    }
    if weights is not None:
        w = weights.decoder_weight.astype(np.float64)
        b = float(weights.decoder_bias)
        pred_k = (final_k.mean(axis=1) @ w + b > 0) if certified_predictions is None else certified_predictions == 1
        pred_far = far.final.mean(axis=1) @ w + b > 0
        record["share_prediction_changed"] = float((pred_k != pred_far)[ok].mean()) if ok.any() else None
        record["predictions_changed"] = int((pred_k != pred_far)[ok].sum())
    return record


def _summary(values: np.ndarray) -> dict:
    if len(values) == 0:
        return {"count": 0}
    return {"count": int(len(values)), "mean": float(values.mean()), "median": float(np.median(values)),
            "p95": float(np.quantile(values, 0.95)), "max": float(values.max())}


def hypotheses_on_reviews(ids: np.ndarray, evaluation: Evaluation) -> dict:
    """How real reviews violate distinctness (D5), and T0 at K (exact, from the certified leaders)."""
    padded = (ids == 0).any(axis=1)
    repeated = np.array([len(set(row[row > 0].tolist())) < int((row > 0).sum()) for row in ids])
    any_duplicate = evaluation.distinct_points < ids.shape[1]
    has_leader = (evaluation.leader_layer >= 0).any(axis=1)
    return {
        "reviews": int(len(ids)),
        "with_padding": int(padded.sum()), "with_repeated_word": int(repeated.sum()),
        "with_any_duplicate_token": int(any_duplicate.sum()),
        "within_hypotheses": int((~any_duplicate).sum()),
        "distinct_points": _summary(evaluation.distinct_points.astype(float)),
        "T0_leader_within_K": {"holds": int(has_leader.sum()), "fails": int((~has_leader).sum()),
                               "fails_among_duplicate_reviews": int((~has_leader & any_duplicate).sum()),
                               "fails_among_distinct_reviews": int((~has_leader & ~any_duplicate).sum()),
                               "status": "exact (certified leaders)"},
    }


def _t2_vertices(points: np.ndarray, leader_mask: np.ndarray, tolerance: float = 1e-9) -> tuple[int, int]:
    """(holds, fails): leaders' converged positions are exactly the vertices of their hull (float, d = 2)."""
    from scipy.spatial import ConvexHull, QhullError
    holds = fails = 0
    for Z, mask in zip(points, leader_mask):
        L = Z[mask]
        if len(L) == 0:
            continue
        if len(L) <= 2:
            distinct = len(L) == 1 or np.linalg.norm(L[0] - L[1]) > tolerance
            holds, fails = (holds + 1, fails) if distinct else (holds, fails + 1)
            continue
        try:
            hull = ConvexHull(L)
            ok = len(hull.vertices) == len(L)
        except QhullError:
            # Collinear leaders: only the two extremes can be vertices.
            ok = False
        holds, fails = (holds + 1, fails) if ok else (holds, fails + 1)
    return holds, fails


def _t3_boundary(points: np.ndarray, leader_mask: np.ndarray, tolerance: float = 1e-6) -> dict:
    """T3 in float on converged states: every token's limit lies on the boundary of K = conv(leader limits).

    K is taken in R^d (docs/theory.md §2): when K is a point or a segment it is its own boundary and
    a limit must lie on K. Implemented for d = 2; a configuration without leaders is counted apart.
    """
    from scipy.spatial import ConvexHull, QhullError
    holds = fails = no_leader = 0
    interior_tokens = off_tokens = 0
    for Z, mask in zip(points, leader_mask):
        L = np.unique(Z[mask], axis=0)
        if len(L) == 0:
            no_leader += 1
            continue
        bad_interior = bad_off = 0
        hull = None
        if len(L) >= 3:
            try:
                hull = ConvexHull(L)
            except QhullError:
                hull = None
        if hull is not None:
            # Facet equations: normal . z + offset <= 0 inside; on the boundary the max is ~0.
            values = (Z @ hull.equations[:, :-1].T + hull.equations[:, -1]).max(axis=1)
            bad_interior = int((values < -tolerance).sum())
            bad_off = int((values > tolerance).sum())
        else:
            # K is a point or a segment (collinear leaders): distance of each token to the segment.
            a, b = L[np.argmin(L @ (L[-1] - L[0]))], L[np.argmax(L @ (L[-1] - L[0]))]
            direction = b - a
            length = float(direction @ direction)
            t = np.clip(((Z - a) @ direction) / length, 0, 1) if length > 0 else np.zeros(len(Z))
            distance = np.linalg.norm(Z - (a + t[:, None] * direction), axis=1)
            bad_off = int((distance > tolerance).sum())
        interior_tokens += bad_interior
        off_tokens += bad_off
        if bad_interior or bad_off:
            fails += 1
        else:
            holds += 1
    return {"holds": holds, "fails": fails, "without_leader": no_leader, "tokens_strictly_inside_K": interior_tokens,
            "tokens_outside_K": off_tokens, "tolerance": tolerance, "status": "measured (float, converged state, d = 2)"}


def certified_limits(tokens: np.ndarray, *, weights: ModelWeights, layers: int, predictions_at_K: np.ndarray,
                     layer_budget: int = 200, progress: Callable[[int, int], None] | None = None) -> dict:
    """The theorem and "K layers approximate the asymptotic state", decided exactly (docs/theory.md §2, D7).

    For each configuration (distinct nonzero rows, A = I: within the hypotheses) the claim checks
    run the exact engine until every token is a leader, fixed or locked, which certifies T0..T4
    and gives every token's exact limit (D7). The decoder applied to the mean of the limits gives
    the class of the asymptotic state exactly, compared with the certified class at layer K;
    the distance between the state at K and the limit is exact too (D7's geometric path),
    reported rounded to float. Float32 inputs are taken as the rationals they represent.
    """

    alpha = Fraction(float(weights.alpha))
    w = [Fraction(float(x)) for x in np.asarray(weights.decoder_weight).reshape(-1)]
    b = Fraction(float(weights.decoder_bias))
    rate = 1 / (1 + alpha)
    statuses: Counter = Counter()
    claims: dict[str, Counter] = {}
    changed = certified = 0
    distances: list[float] = []
    settled: list[int] = []
    for r, Z in enumerate(tokens):
        config = make_configuration([[Fraction(float(v)) for v in row] for row in Z], alpha=alpha)
        report = check_configuration(config, layer_budget=layer_budget, cross_check=False)
        statuses[report.status] += 1
        for claim, verdict in report.verdicts.items():
            claims.setdefault(claim, Counter())[verdict.status] += 1
        if progress is not None:
            progress(r + 1, len(tokens))
        if report.verdicts["T3"].status != "certified" or report.settled_layer is None:
            continue
        certified += 1
        settled.append(report.settled_layer)
        limits, fate_layers = [], []
        for fate in report.fates:
            assert fate.limit is not None and fate.layer is not None  # T3 certified: every token has a fate
            limits.append(fate.limit)
            fate_layers.append(fate.layer)
        mean = [sum(limit[j] for limit in limits) / len(limits) for j in range(len(w))]
        logit = sum(wj * mj for wj, mj in zip(w, mean)) + b
        changed += int((logit > 0) != bool(predictions_at_K[r]))  # logit 0 is negative, as at K
        if any(layer > layers for layer in fate_layers):
            continue  # settled after layer K: the state at K is not on the D7 path yet
        worst = Fraction(0)
        for fate in report.fates:
            if fate.kind == "locked":
                assert fate.start is not None and fate.limit is not None and fate.layer is not None  # D7 fate
                # D7: z^k = m + rate^(k - k0) (z^k0 - m) for k >= k0; leaders and fixed tokens sit at their limit.
                gap = sum((a - m) ** 2 for a, m in zip(fate.start, fate.limit)) * rate ** (2 * (layers - fate.layer))
                worst = max(worst, gap)
        distances.append(float(worst) ** 0.5)
    return {"configurations": int(len(tokens)), "layer_budget": layer_budget, "K": layers,
            "status_counts": dict(sorted(statuses.items())),
            "claims": {c: dict(sorted(v.items())) for c, v in sorted(claims.items())},
            "limits_certified": certified, "predictions_changed": changed,
            "share_prediction_changed": changed / certified if certified else None,
            "settled_layer": _summary(np.asarray(settled, dtype=float)),
            "distance_K_to_limit": _summary(np.asarray(distances, dtype=float)),
            "status": "exact (claim checks with D7 certificates; distances rounded from exact values)"}


def authors_configurations(npz: Path, *, samples: int, n: int = 128, layers: int = 8, converge_layers: int,
                           seed: int, certify_samples: int = 0,
                           progress: Callable[[int, int], None] | None = None) -> dict:
    """Word-free checks on configurations drawn from the authors' d = 2 embedding (no word list exists).

    Two families, seeded: ``distinct`` draws n different non-padding rows (within the theorem's
    hypotheses when they are nonzero and distinct) and ``padded`` draws a review-like length
    m ~ U{1..n} of rows and pads with row 0 (outside: duplicates).
    """
    try:
        # Opened as every input is: a FIFO or a device in its place is refused, never waited on.
        with open_input(npz, expected="the authors' model arrays (.npz)") as handle, \
                np.load(handle, allow_pickle=False) as data:
            E = data["E"].astype(np.float64)
            alpha = float(np.asarray(data["alpha"], dtype=np.float32).reshape(-1)[0])
            w = np.asarray(data["w"], dtype=np.float32).reshape(-1)
            b = np.asarray(data["b"], dtype=np.float32).reshape(())
    except (OSError, ValueError, KeyError, IndexError, EOFError, zipfile.BadZipFile) as error:
        raise InputError(str(npz), f"not an .npz file with arrays E, alpha, w and b ({str(error)[:200]})") from None
    weights = ModelWeights(E.astype(np.float32), np.array(0, dtype=np.float32), np.array(alpha, dtype=np.float32), w, b)
    rng = np.random.default_rng(seed)
    rows = np.arange(1, len(E))
    distinct_ids = np.stack([rng.choice(rows, size=n, replace=False) for _ in range(samples)])
    padded_ids = distinct_ids.copy()
    lengths = rng.integers(1, n + 1, size=samples)
    for r, m in enumerate(lengths):
        padded_ids[r, m:] = 0
    record: dict = {"file": str(npz), "sha256": file_sha256(npz), "alpha": alpha, "samples": samples, "n": n,
                    "seed": seed}
    for name, ids in (("distinct", distinct_ids), ("padded", padded_ids)):
        evaluation = certified_evaluation(weights, ids, None, layers=layers, keep_final=True)
        tokens = E[ids]
        comparison = compare_with_converged(tokens, alpha=alpha, weights=weights, layers=layers,
                                            converge_layers=converge_layers, certified_final=evaluation.final,
                                            certified_predictions=evaluation.predictions)
        far = simulate_batch(tokens, alpha=alpha, layers=converge_layers)
        holds, fails = _t2_vertices(far.final, far.leader_layer >= 0)
        record[name] = {
            "leaders": leader_statistics(evaluation),
            "exact_path": evaluation.exact_path,
            "zero_tokens": int((np.abs(tokens).sum(axis=2) == 0).sum()),
            "T0_leader_within_K": {"holds": int((evaluation.leader_layer >= 0).any(axis=1).sum()),
                                   "fails": int((~(evaluation.leader_layer >= 0).any(axis=1)).sum()),
                                   "status": "exact (certified leaders)"},
            "T2_leader_limits_are_hull_vertices": {"holds": holds, "fails": fails,
                                                   "status": "measured (float, converged state)"},
            "T3_limits_on_boundary_of_K": _t3_boundary(far.final, far.leader_layer >= 0),
            "K_vs_converged": comparison,
        }
        if name == "distinct" and certify_samples:
            # Within the hypotheses: the theorem itself, and the limit state, decided exactly.
            count = min(certify_samples, samples)
            record[name]["certified_limits"] = certified_limits(
                tokens[:count], weights=weights, layers=layers, predictions_at_K=evaluation.predictions[:count],
                progress=progress)
    return record


@dataclass(frozen=True)
class Curve:
    """One series of the training-curve figure: ``metric`` "loss" or "acc", drawn as ``style``."""

    metric: str
    label: str
    points: tuple[tuple[int, float], ...]
    style: str  # "line" (end of epoch, softmax), "running" (mean over the batches), "marker" (hardmax)
    colour: str
    marker: str = ""


def history_curves(history: list[dict], *, train_subset: dict | None = None) -> list[Curve]:
    """The series of the training-curve figure, from a checkpoint's history.

    Train and validation are compared like for like: both evaluated at the end of each epoch
    with the same softmax model, no dropout (``train_subset_*``, ``val_*``; verify.experiments.sentiment.model).
    The running mean over an epoch's batches (weights changing, dropout on) is not comparable;
    it is drawn, dotted and labelled as such, only for epochs without the end-of-epoch train
    number (histories of older checkpoints).
    """
    def points(values: Sequence[object]) -> tuple[tuple[int, float], ...]:
        return tuple((int(h["epoch"]), float(v)) for h, v in zip(history, values) if isinstance(v, (int, float)))

    def recorded(key: str) -> tuple[tuple[int, float], ...]:
        return points([h.get(key) for h in history])

    if train_subset and train_subset.get("reviews"):
        subset = f"{fmt.count(train_subset['reviews'])} fixed training reviews"
    else:
        subset = "fixed training subset"
    curves: list[Curve] = []
    for metric in ("loss", "acc"):
        curves.append(Curve(metric, f"train ({subset}), softmax, end of epoch", recorded(f"train_subset_{metric}"),
                            "line", "C4"))
        running = [None if f"train_subset_{metric}" in h else running_train(h, metric) for h in history]
        curves.append(Curve(metric, "train, softmax, running mean over the epoch's batches (not like for like)",
                            points(running), "running", "0.6"))
        for colour, split, key in (("C0", "validation", "val"), ("C1", "test", "test")):
            curves.append(Curve(metric, f"{split}, softmax, end of epoch", recorded(f"{key}_{metric}"), "line", colour))
        for colour, marker, split in (("C4", "^", "train"), ("C2", "s", "validation"), ("C3", "o", "test")):
            what = "all training reviews" if split == "train" else split
            # One label for both panels (the figure's one legend lists each series once); the
            # accuracy is certified, the loss a float of the certified predictions' logits.
            curves.append(Curve(metric, f"{what}, hardmax, end of epoch (accuracy certified)",
                                recorded(f"hardmax_{split}_{metric}"), "marker", colour, marker))
    return [c for c in curves if c.points]


def _plot_history(history: list[dict], path: Path, model: str, train_subset: dict | None = None) -> None:
    """Loss and accuracy per epoch (:func:`history_curves`), titled with the model's name."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.4), layout="constrained")
    curves = history_curves(history, train_subset=train_subset)
    for ax, metric, ylabel in ((axes[0], "loss", "BCE loss"), (axes[1], "acc", "accuracy")):
        for curve in (c for c in curves if c.metric == metric):
            epochs, values = [e for e, _ in curve.points], [v for _, v in curve.points]
            if curve.style == "marker":
                ax.scatter(epochs, values, marker=curve.marker, facecolor="none", edgecolor=curve.colour, zorder=3,
                           label=curve.label)
            else:
                ax.plot(epochs, values, color=curve.colour, linestyle=":" if curve.style == "running" else "-",
                        label=curve.label)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("epoch")
        ax.set_ylabel(ylabel)
    # One legend for both panels, below them: the same series in each, never over the curves.
    entries: dict[str, Any] = {}
    for ax in axes:
        for handle, text in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(text, handle)
    fig.legend(list(entries.values()), list(entries), loc="outside lower center", ncol=2, fontsize=8, frameon=False)
    fig.suptitle(f"Training curves of {model}", fontsize=10)
    fig.savefig(path, dpi=120, metadata=png_metadata(fig, 120))
    plt.close(fig)


def _plot_words(top: list[tuple[str, int]], path: Path, model: str, reviews: int | None) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
    fig, ax = plt.subplots(figsize=(6, 3.8), layout="constrained")
    ax.bar([w for w, _ in top], [c for _, c in top])
    ax.set_ylabel("leader occurrences")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.tick_params(axis="x", rotation=60)
    selection = f"{reviews} " if reviews is not None else ""
    ax.set_title(f"Leader words of {model}\n({selection}correct test reviews with confidence >= 0.95, |w.z + b| > 2)",
                 fontsize=8)
    fig.savefig(path, dpi=120, metadata=png_metadata(fig, 120))
    plt.close(fig)


def plot_review_evolution(weights: ModelWeights, ids: np.ndarray, words: tuple[str, ...], *, layers: int,
                          png: Path, gif: Path | None = None, title: str = "") -> dict:
    """Token evolution of one review for d = 2 (layers 0..K), exact positions (:func:`verify.core.trajectory.simulate`).

    Leaders (C_i = {i} at some layer <= K) are labelled with their words; the decision line
    w.z + b = 0 splits the plane into the positive (green) and negative (red) sides; the mean
    token (what the decoder sees) is the star. The legend says so, below the panels.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if weights.d != 2:
        raise InputError("d", "the token-evolution plot needs d = 2")
    tokens = weights.embedding.astype(np.float64)[ids]
    trajectory = simulate([tuple(float(x) for x in row) for row in tokens], alpha=float(weights.alpha),
                          layers=layers, arithmetic="exact")
    positions = [np.array([[float(x) for x in p] for p in layer], dtype=np.float64) for layer in trajectory.positions]
    leaders = sorted(trajectory.leaders)
    w = weights.decoder_weight.astype(np.float64)
    b = float(weights.decoder_bias)
    everything = np.vstack(positions)
    low, high = everything.min(axis=0), everything.max(axis=0)
    pad = 0.1 * np.maximum(high - low, 1e-6)
    low, high = low - pad, high + pad

    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    legend = [Line2D([], [], marker="o", linestyle="", color="C0", markersize=4, label="token (its word: a leader)"),
              Line2D([], [], marker="*", linestyle="", color="C3", markersize=9,
                     label="mean token (what the decoder reads)"),
              Line2D([], [], color="k", linewidth=0.8, label="decision line w.z + b = 0"),
              Patch(color="#d9ead3", label="positive side (w.z + b > 0)"),
              Patch(color="#f4cccc", label="negative side (w.z + b < 0)")]
    middle = (low + high) / 2

    def label(ax, text: str, point: np.ndarray, *, flip: bool = False, **style) -> None:
        # Words point inwards (left of a point in the right half, below one in the top half), so no
        # word runs past the panel's edge; ``flip`` puts a second label on the other side vertically.
        right, top = point[0] > middle[0], (point[1] > middle[1]) != flip
        ax.annotate(text, point, xytext=(-3 if right else 3, -3 if top else 3), textcoords="offset points",
                    ha="right" if right else "left", va="top" if top else "bottom", fontsize=7.5, **style)

    def draw(ax, k: int) -> None:
        Z = positions[k]
        gx, gy = np.meshgrid(np.linspace(low[0], high[0], 80), np.linspace(low[1], high[1], 80))
        ax.contourf(gx, gy, w[0] * gx + w[1] * gy + b > 0, levels=[-0.5, 0.5, 1.5], colors=["#f4cccc", "#d9ead3"],
                    alpha=0.6)
        ax.contour(gx, gy, w[0] * gx + w[1] * gy + b, levels=[0], colors="k", linewidths=0.8)
        ax.scatter(Z[:, 0], Z[:, 1], s=8, c="C0")
        for i in leaders:
            if trajectory.leaders[i] <= k:
                label(ax, words[ids[i]], Z[i])
        mean = Z.mean(axis=0)
        ax.scatter([mean[0]], [mean[1]], marker="*", s=80, c="C3")
        # The largest cluster (padding, or a repeated word) hides many tokens under one dot: say how many.
        groups = Counter(tuple(np.round(z, 9)) for z in Z)
        spot, size = groups.most_common(1)[0]
        if size >= 3:
            members = [i for i in range(len(Z)) if tuple(np.round(Z[i], 9)) == spot]
            word, _ = Counter(words[ids[i]] for i in members).most_common(1)[0]
            # On the other side of a leader's word at the same spot.
            label(ax, f"{size} tokens ({word})", np.array(spot), flip=True, color="C0", fontweight="bold")
        ax.set_xlim(low[0], high[0]), ax.set_ylim(low[1], high[1])
        ax.set_title(f"layer {k}", fontsize=9)
        ax.tick_params(labelsize=7.5)

    fig, axes = plt.subplots(3, 3, figsize=(9, 9.8), layout="constrained")
    for k, ax in enumerate(axes.flat):
        draw(ax, min(k, layers))
    for ax in axes[-1]:
        ax.set_xlabel("z, first coordinate", fontsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("z, second coordinate", fontsize=8)
    fig.legend(handles=legend, loc="outside lower center", ncol=3, fontsize=8, frameon=False)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.savefig(png, dpi=110, metadata=png_metadata(fig, 110))
    plt.close(fig)
    if gif is not None:
        from matplotlib.animation import FuncAnimation, PillowWriter
        fig, ax = plt.subplots(figsize=(5, 6), layout="constrained")
        fig.legend(handles=legend, loc="outside lower center", ncol=2, fontsize=6, frameon=False)
        if title:
            fig.suptitle(title, fontsize=8)

        def frame(k: int) -> None:
            ax.clear()
            draw(ax, k)
            ax.set_xlabel("first coordinate of z", fontsize=7)
            ax.set_ylabel("second coordinate of z", fontsize=7)
        animation = FuncAnimation(fig, frame, frames=layers + 1)
        animation.save(gif, writer=PillowWriter(fps=2))
        plt.close(fig)
    return {"leaders": {words[ids[i]]: trajectory.leaders[i] for i in leaders}, "layers": layers}


def _analyze_checkpoint(checkpoint_dir: Path, *, data: Path, cache_dir: Path | None, max_reviews: int | None,
                        converge_layers: int, converge_reviews: int, update: Progress, lines: list[str],
                        figures: dict[str, Callable[[Path], None]]) -> dict:
    """The word-based analyses of one checkpoint (figures are registered, drawn later into the output folder)."""
    prefix = safe_name(Path(checkpoint_dir).name, fallback="checkpoint") + "_"
    checkpoint = read_checkpoint(checkpoint_dir)
    weights = checkpoint.best or checkpoint.weights
    corpus, split = checkpoint_corpus(checkpoint, data, cache_dir=cache_dir,
                                      progress=lambda done, total: update("preprocessing", done, total))
    rows = split.test if max_reviews is None else split.test[:max_reviews]
    ids, labels = corpus.ids[rows], corpus.labels[rows]
    layers = checkpoint.meta["settings"]["layers"]
    evaluation = certified_evaluation(weights, ids, labels, layers=layers, keep_final=True,
                                      progress=lambda done, total: update("hardmax (certified)", done, total))
    counts, selected = leader_words(evaluation, weights, ids, labels, corpus.vocabulary.words)
    top = counts.most_common(TOP_WORDS)
    assert evaluation.final is not None  # asked for with keep_final
    subset = slice(0, min(converge_reviews, len(ids)))
    update("converged state", 0, 1)
    comparison = compare_with_converged(weights.embedding.astype(np.float64)[ids[subset]],
                                        alpha=float(weights.alpha), weights=weights, layers=layers,
                                        converge_layers=converge_layers,
                                        certified_final=evaluation.final[subset],
                                        certified_predictions=evaluation.predictions[subset])
    update("converged state", 1, 1)
    t3 = None
    if weights.d == 2:
        far = simulate_batch(weights.embedding.astype(np.float64)[ids[subset]], alpha=float(weights.alpha),
                             layers=converge_layers)
        t3 = _t3_boundary(far.final, far.leader_layer >= 0)
        t2_holds, t2_fails = _t2_vertices(far.final, far.leader_layer >= 0)
    record: dict = {
        "path": str(checkpoint_dir), "epoch": (checkpoint.meta.get("best") or {}).get("epoch"), "d": weights.d,
        "alpha": float(weights.alpha), "split": split.describe(), "reviews": int(len(rows)),
        "hardmax_accuracy": evaluation.accuracy, "exact_path": evaluation.exact_path,
        "leader_statistics": leader_statistics(evaluation),
        "leader_words": {"confidence": CONFIDENCE, "distance": DISTANCE_FROM_HYPERPLANE,
                         "reviews_selected": selected, "top": top},
        "lexicon": lexicon_shares(counts, ids, corpus.vocabulary.words),
        "unseen_words": unseen_word_leaders(evaluation, ids, training_word_counts(corpus, split)),
        "K_vs_converged": comparison,
        "without_attention": without_attention(weights, ids, labels, evaluation.predictions),
        "hypotheses": hypotheses_on_reviews(ids, evaluation),
    }
    if t3 is not None:
        record["hypotheses"]["T3_limits_on_boundary_of_K"] = {
            **t3, "reviews": int(len(ids[subset]))}
        record["hypotheses"]["T2_leader_limits_are_hull_vertices"] = {
            "holds": t2_holds, "fails": t2_fails, "status": "measured (float, converged state)"}
    stats = record["leader_statistics"]
    lines.append(f"checkpoint {checkpoint_dir} (d={weights.d}): hardmax test accuracy {evaluation.accuracy:.4f} "
                 f"({evaluation.exact_path} exact-path reviews)")
    lines.append(f"  leaders per review: mean {stats['mean']:.2f}, std {stats['std']:.2f}, min {stats['min']}, "
                 f"max {stats['max']}, leading already at layer 0 {fmt.share(stats['fraction_initial_leaders_mean'])}")
    lines.append("  top leader words: " + ", ".join(f"{w} {c}" for w, c in top))
    lex = record["lexicon"]
    lines.append(f"  VADER polarity share: leaders {fmt.share(lex['leader_polar_share'])}, "
                 f"all words {fmt.share(lex['all_polar_share'])}")
    unseen = record["unseen_words"]
    lines.append(f"  words never seen in training: {fmt.share(unseen['unseen_token_share'])} of test tokens, "
                 f"{fmt.share(unseen['unseen_leader_share'])} of leaders, a leader in "
                 f"{fmt.fraction(unseen['reviews_with_unseen_leader'], unseen['reviews'])} reviews")
    ablation = record["without_attention"]
    lines.append(f"  without attention (K=0, same weights): accuracy {fmt.probability(ablation['accuracy_without_attention'])} "
                 f"against {fmt.probability(ablation['accuracy_at_K'])} at K={layers}; "
                 f"{fmt.count(ablation['predictions_changed'])} predictions differ (certified)")
    lines.append(f"  K=8 vs {converge_layers} layers: prediction changed for "
                 f"{fmt.share(comparison.get('share_prediction_changed'))} of {fmt.count(comparison['configurations'])} "
                 "reviews")
    if weights.d == 2:
        threshold = np.log(0.999 / 0.001)
        chosen = {}
        for label in (1, 0):
            correct = np.flatnonzero((evaluation.predictions == labels) & (labels == label))
            confident = correct[np.abs(evaluation.logits[correct]) > threshold]
            if len(confident):
                chosen["positive" if label else "negative"] = int(confident[0])
            elif len(correct):
                # The paper plots reviews with confidence > 0.999; a less trained model may have
                # none, so the most confident correct review stands in (its logit is recorded).
                chosen["positive" if label else "negative"] = int(correct[np.argmax(np.abs(evaluation.logits[correct]))])

        def review_figure(name: str, r: int) -> Callable[[Path], None]:
            """Draws test review r's evolution and records it under ``reviews_plotted``."""
            def draw(p: Path) -> None:
                plotted = record.setdefault("reviews_plotted", {})
                plotted[name] = {"test_row": int(rows[r]), "hardmax_logit": float(evaluation.logits[r]),
                                 **plot_review_evolution(weights, ids[r], corpus.vocabulary.words, layers=layers,
                                                         png=p, gif=p.with_suffix(".gif"),
                                                         title=f"{Path(checkpoint_dir).name}: {name} test review "
                                                               f"{int(rows[r])}, layers 0..{layers}")}
            return draw

        for name, r in chosen.items():
            figures[f"{prefix}review_{name}.png"] = review_figure(name, r)
    history = checkpoint.meta.get("history", [])
    model = Path(checkpoint_dir).name
    if history:
        train_subset = checkpoint.meta.get("train_subset")

        def training_curves(p: Path) -> None:
            _plot_history(history, p, model, train_subset if isinstance(train_subset, dict) else None)
        figures[f"{prefix}training_curves.png"] = training_curves
    if top:
        reviews_selected = (record.get("leader_words") or {}).get("reviews_selected")

        def leader_words_figure(p: Path) -> None:
            _plot_words(top, p, model, reviews_selected)
        figures[f"{prefix}leader_words.png"] = leader_words_figure
    return record


def run_analyses(*, checkpoint_dirs: list[Path] | tuple[Path, ...] = (), authors_npz: Path | None, data: Path | None,
                 cache_dir: Path | None, out_dir: Path, max_reviews: int | None = None, samples: int = 2000,
                 converge_layers: int = 200, seed: int = 0, converge_reviews: int = 3000,
                 certify_samples: int = 0, progress: Progress | None = None) -> dict:
    """Run every analysis that its inputs allow and write ``analysis.json`` (+ PNG/GIF) to ``out_dir``.

    ``analysis.json`` holds ``checkpoints`` (one record per checkpoint, e.g. one per d: the
    leader-statistics table is their ``leader_statistics``) and ``authors_d2`` when the
    authors' arrays are given. ``data`` (the reviews) is needed only for checkpoints.
    """
    update = progress or (lambda *args: None)
    result: dict = {"versions": {"python": platform.python_version(), "numpy": np.__version__},
                    "converge_layers": converge_layers, "seed": seed, "checkpoints": []}
    lines: list[str] = []
    figures: dict[str, Callable[[Path], None]] = {}
    for checkpoint_dir in checkpoint_dirs:
        if data is None:
            raise InputError("--data", "analysing a checkpoint needs the reviews it was trained on")
        result["checkpoints"].append(_analyze_checkpoint(
            Path(checkpoint_dir), data=data, cache_dir=cache_dir, max_reviews=max_reviews,
            converge_layers=converge_layers, converge_reviews=converge_reviews, update=update, lines=lines,
            figures=figures))
    if authors_npz is not None:
        if not Path(authors_npz).exists():
            raise InputError(str(authors_npz), "no such file")
        update("authors' embeddings", 0, 1)
        result["authors_d2"] = authors_configurations(
            Path(authors_npz), samples=samples, converge_layers=converge_layers, seed=seed,
            certify_samples=certify_samples,
            progress=lambda done, total: update("authors' configurations: exact claim checks", done, total))
        update("authors' embeddings", 1, 1)
        for name in ("distinct", "padded"):
            part = result["authors_d2"][name]
            lines.append(f"authors' d=2 embeddings, {name} configurations: leaders mean "
                         f"{part['leaders']['mean']:.2f}; K=8 vs converged prediction changed for "
                         f"{fmt.share(part['K_vs_converged'].get('share_prediction_changed'))}; T0 fails "
                         f"{part['T0_leader_within_K']['fails']}; T2 fails "
                         f"{part['T2_leader_limits_are_hull_vertices']['fails']}; T3 fails "
                         f"{part['T3_limits_on_boundary_of_K']['fails']}")
            exact = part.get("certified_limits")
            if exact:
                lines.append(f"  exact, {exact['configurations']} of them: theorem certified on "
                             f"{exact['status_counts'].get('certified', 0)}; limit state's class differs from "
                             f"K=8's on {exact['predictions_changed']} of {exact['limits_certified']}; max distance "
                             f"K=8 to limit {exact['distance_K_to_limit'].get('max', float('nan')):.3g}")
    result["lines"] = lines
    with atomic_directory(Path(out_dir)) as staging:
        staging.chmod(0o755)  # mkdtemp makes it private; results are meant to be read and committed
        for name, draw in figures.items():
            draw(staging / name)
        (staging / "analysis.json").write_text(json_text(result, where=str(Path(out_dir) / "analysis.json"),
                                                         default=_json_default), encoding="utf-8")
    return result


def _json_default(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    raise TypeError(f"not JSON serialisable: {type(value)}")
