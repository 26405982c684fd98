"""Deliberately wrong implementations of the hardmax dynamics: the test doubles of the mutation self-test.

Each exact mutant has the signature of :func:`verify.core.exact_dynamics.exact_layers` and yields
:class:`~verify.core.exact_dynamics.ExactLayer` objects, so it can be passed wherever the suite
accepts an injectable ``dynamics``. Each is a small, independent computation over
:class:`fractions.Fraction` with one plausible mistake in the update rule of docs/theory.md §1::

    C_i(Z) = { j : <A z_i, z_j> = max_l <A z_i, z_l> }
    z_i^{k+1} = ( z_i^k + alpha * mean_{j in C_i(Z^k)} z_j^k ) / (1 + alpha)

These are *copies* of the update rule on purpose (the one-implementation rule of the house
style applies to the product, not to test doubles); they must never be imported by the
product. The float mutants are variants of :func:`verify.core.float_dynamics.simulate_batch`: one
decides near-ties with a loose tolerance, one with no bound at all (whenever the float argmax
is unique), one with the proven bound shrunk 2^20-fold; each still reports its rows as decided.

Layers are yielded with every original token as its own point (no merging of equal
tokens): mutants only run on configurations inside the theorem's hypotheses, where tokens
are distinct, and the ExactLayer contract (``positions()``, ``attention_sets()``,
``leaders()``) then reads the same as for the real engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import lcm
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from verify.core.exact_dynamics import ExactLayer, TokenGroups
from verify.core.float_dynamics import UNIT_ROUNDOFF, BatchResult
from verify.core.numbers import InputError, to_rational

__all__ = ["Mutant", "EXACT_MUTANTS", "FLOAT_MUTANTS", "MUTANTS", "LOOSE_TOLERANCE",
           "wrong_normalisation", "ties_first_index", "ties_last_index", "without_A",
           "in_place_update", "without_own_term", "loose_tolerance_simulate_batch", "without_bound_simulate_batch",
           "shrunk_bound_simulate_batch", "proven_bound_copy_simulate_batch"]

Point = tuple[Fraction, ...]
Matrix = list[list[Fraction]]
# One wrong step: (positions, alpha, A) -> (attention sets used, positions of the next layer).
Step = Callable[[list[Point], Fraction, Matrix], tuple[list[tuple[int, ...]], list[Point]]]

LOOSE_TOLERANCE = 1e-3


# ---------------------------------------------------------------------------------------------
# Shared plumbing (not the update rule): exact inputs and the ExactLayer shape.

def _exact_inputs(tokens: Sequence[Sequence[object]], alpha: object,
                  A: Sequence[Sequence[object]] | None) -> tuple[list[Point], Fraction, Matrix]:
    points = [tuple(to_rational(x, field=f"tokens[{i}][{c}]") for c, x in enumerate(t))
              for i, t in enumerate(tokens)]
    if not points:
        raise InputError("tokens", "expected at least one token")
    d = len(points[0])
    matrix = ([[Fraction(int(r == c)) for c in range(d)] for r in range(d)] if A is None
              else [[to_rational(x, field="A") for x in row] for row in A])
    return points, to_rational(alpha, field="alpha"), matrix


def _layer(index: int, points: list[Point], attention: list[tuple[int, ...]]) -> ExactLayer:
    n = len(points)
    denominator = lcm(*(x.denominator for p in points for x in p))
    numerators = tuple(tuple(int(x * denominator) for x in p) for p in points)
    groups = TokenGroups(tuple((i,) for i in range(n)), tuple(range(n)))
    return ExactLayer(index, numerators, denominator, tuple(attention), groups)


def _run(step: Step, tokens: Sequence[Sequence[object]], alpha: object,
         A: Sequence[Sequence[object]] | None) -> Iterator[ExactLayer]:
    points, a, matrix = _exact_inputs(tokens, alpha, A)
    k = 0
    while True:
        attention, following = step(points, a, matrix)
        yield _layer(k, points, attention)
        points = following
        k += 1


def _score(A: Matrix, x: Point, y: Point) -> Fraction:
    """<A x, y>, written out again here so that a mutant never calls the engine."""
    d = len(x)
    return sum((sum((A[r][c] * x[c] for c in range(d)), Fraction(0)) * y[r] for r in range(d)), Fraction(0))


def _maximisers(A: Matrix, points: Sequence[Point], z: Point) -> tuple[int, ...]:
    scores = [_score(A, z, w) for w in points]
    top = max(scores)
    return tuple(j for j, s in enumerate(scores) if s == top)


def _mean(points: Sequence[Point], members: Sequence[int]) -> Point:
    d = len(points[0])
    return tuple(sum((points[j][c] for j in members), Fraction(0)) / len(members) for c in range(d))


def _correct_update(z: Point, m: Point, alpha: Fraction) -> Point:
    return tuple((x + alpha * y) / (1 + alpha) for x, y in zip(z, m))


# ---------------------------------------------------------------------------------------------
# The exact mutants: one wrong step each.

def _step_wrong_normalisation(points: list[Point], alpha: Fraction, A: Matrix):
    sets = [_maximisers(A, points, z) for z in points]
    # Mistake: divides by alpha instead of 1 + alpha.
    new = [tuple((x + alpha * y) / alpha for x, y in zip(z, _mean(points, c))) for z, c in zip(points, sets)]
    return sets, new


def _step_ties_first(points: list[Point], alpha: Fraction, A: Matrix):
    # Mistake: argmax keeps the first maximiser instead of averaging all of them.
    sets = [_maximisers(A, points, z)[:1] for z in points]
    return sets, [_correct_update(z, points[c[0]], alpha) for z, c in zip(points, sets)]


def _step_ties_last(points: list[Point], alpha: Fraction, A: Matrix):
    # Mistake: keeps the last maximiser.
    sets = [_maximisers(A, points, z)[-1:] for z in points]
    return sets, [_correct_update(z, points[c[0]], alpha) for z, c in zip(points, sets)]


def _step_without_A(points: list[Point], alpha: Fraction, A: Matrix):
    d = len(points[0])
    identity = [[Fraction(int(r == c)) for c in range(d)] for r in range(d)]
    # Mistake: scores are the Euclidean inner product whatever A is.
    sets = [_maximisers(identity, points, z) for z in points]
    return sets, [_correct_update(z, _mean(points, c), alpha) for z, c in zip(points, sets)]


def _step_in_place(points: list[Point], alpha: Fraction, A: Matrix):
    # Mistake: tokens are overwritten one after another, so later tokens see updated earlier ones.
    current = list(points)
    sets = []
    for i in range(len(current)):
        c = _maximisers(A, current, current[i])
        sets.append(c)
        current[i] = _correct_update(current[i], _mean(current, c), alpha)
    return sets, current


def _step_correct(points: list[Point], alpha: Fraction, A: Matrix):
    sets = [_maximisers(A, points, z) for z in points]
    return sets, [_correct_update(z, _mean(points, c), alpha) for z, c in zip(points, sets)]


def _step_without_own_term(points: list[Point], alpha: Fraction, A: Matrix):
    sets = [_maximisers(A, points, z) for z in points]
    # Mistake: the residual term z_i^k is dropped: z' = alpha m / (1 + alpha).
    return sets, [tuple(alpha * y / (1 + alpha) for y in _mean(points, c)) for c in sets]


def _exact_mutant(step: Step, name: str, doc: str) -> Callable[..., Iterator[ExactLayer]]:
    def dynamics(tokens: Sequence[Sequence[object]], *, alpha: object,
                 A: Sequence[Sequence[object]] | None = None,
                 V: Sequence[Sequence[object]] | None = None) -> Iterator[ExactLayer]:
        if V is not None:
            raise InputError("V", "the mutants implement only the theorem's model (no value matrix)")
        return _run(step, tokens, alpha, A)

    dynamics.__name__ = dynamics.__qualname__ = name
    dynamics.__doc__ = doc
    return dynamics


wrong_normalisation = _exact_mutant(
    _step_wrong_normalisation, "wrong_normalisation",
    "z' = (z + alpha m) / alpha: the normalisation divides by alpha instead of 1 + alpha.")
ties_first_index = _exact_mutant(
    _step_ties_first, "ties_first_index", "Ties broken by the first maximising index instead of averaged.")
ties_last_index = _exact_mutant(
    _step_ties_last, "ties_last_index", "Ties broken by the last maximising index instead of averaged.")
without_A = _exact_mutant(
    _step_without_A, "without_A", "Scores <z_i, z_j> instead of <A z_i, z_j> (A replaced by I).")
in_place_update = _exact_mutant(
    _step_in_place, "in_place_update", "Tokens updated in place one after another instead of all at once.")
without_own_term = _exact_mutant(
    _step_without_own_term, "without_own_term", "z' = alpha m / (1 + alpha): the token's own term z_i^k dropped.")

# Not a mutant: the right rule written with the mutants' own helpers, the harness's control
# (tests show it is certified everywhere, so a mutant caught is caught for its mistake).
correct_rule = _exact_mutant(
    _step_correct, "correct_rule", "The correct rule, through the mutants' harness (the control, not a mutant).")


# ---------------------------------------------------------------------------------------------
# The float mutant.

def loose_tolerance_simulate_batch(tokens: np.ndarray, *, alpha: float | np.ndarray, A: np.ndarray | None = None,
                                   layers: int, tolerance: float = LOOSE_TOLERANCE, **_: Any) -> BatchResult:
    """:func:`verify.core.float_dynamics.simulate_batch` with ties decided by ``|score - top| <= tolerance``.

    Mistake: every score within ``tolerance`` of the top joins the attention set (and is
    averaged), and the row is reported as *decided* with the usual rounding-error bound, as
    if a tolerance far above the rounding error (1e-3 against ~1e-15) could certify a tie.
    """
    with np.errstate(over="ignore", invalid="ignore"):  # overflowing inputs: this mutant just runs on
        return _loose_tolerance(tokens, alpha=alpha, A=A, layers=layers, tolerance=tolerance)


def _loose_tolerance(tokens: np.ndarray, *, alpha: float | np.ndarray, A: np.ndarray | None, layers: int,
                     tolerance: float) -> BatchResult:
    Z = np.array(tokens, dtype=np.float64)
    B, n, d = Z.shape
    a = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (B,))[:, None, None]
    At = None if A is None else np.swapaxes(np.asarray(A, dtype=np.float64), -1, -2)
    leader_layer = np.full((B, n), -1)
    for k in range(layers + 1):
        left = Z if At is None else Z @ At
        scores = np.matmul(left, Z.transpose(0, 2, 1))
        members = scores >= scores.max(axis=2, keepdims=True) - tolerance
        alone = members.sum(axis=2) == 1
        leads = alone & members[:, np.arange(n), np.arange(n)]
        leader_layer[leads & (leader_layer < 0)] = k
        if k == layers:
            break
        means = np.einsum("buv,bvc->buc", members.astype(float), Z) / members.sum(axis=2, keepdims=True)
        Z = (Z + a * means) / (1 + a)
    # The claimed bound: rounding only, as the real engine would state for decided rows.
    R = np.abs(np.asarray(tokens, dtype=np.float64)).max(axis=(1, 2))
    bound = R * 8 * (layers + 1) * UNIT_ROUNDOFF
    return BatchResult(final=Z, undecided=np.zeros(B, dtype=bool), first_undecided_layer=np.full(B, -1),
                       leaders=leader_layer >= 0, leader_layer=leader_layer, position_error_bound=bound,
                       score_error_bound=bound, distinct_points=np.full(B, n),
                       token_error_bound=np.repeat(bound[:, None], n, axis=1))


def _float_engine_with_scaled_bound(tokens: np.ndarray, *, alpha: float | np.ndarray, A: np.ndarray | None = None,
                                    layers: int, scale: float, **_: Any) -> BatchResult:
    """A copy of :func:`verify.core.float_dynamics.simulate_batch` (per-point bounds, no merging of
    copies) whose decision threshold is the proven bound times ``scale``.

    ``scale = 1`` is the real rule (the meta-tests use it to show the harness passes a right
    engine); ``scale = 0`` decides whenever the float argmax is unique; 2^-20 trusts a bound a
    million times too small. Positions and their bounds follow the real update either way.
    """
    Z = np.array(tokens, dtype=np.float64)
    B, n, d = Z.shape
    a = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (B,))[:, None]
    M = np.broadcast_to(np.eye(d) if A is None else np.asarray(A, dtype=np.float64), (B, d, d))
    pair_scale = d * d * np.abs(M).max(axis=(1, 2))[:, None, None]
    u = UNIT_ROUNDOFF
    gamma = lambda k: k * u / (1 - k * u)  # noqa: E731
    score_rounding = 2 * (u + gamma(2 * d) * (1 + u))
    step_rounding = 2 * (a * gamma(2) + gamma(3) * (1 + a * (1 + gamma(2)))) / (1 + a)
    slack, safety = 2.0 ** -1000, 1 + 2.0 ** -40
    error = np.zeros((B, n))
    first = np.full(B, -1)
    leader_layer = np.full((B, n), -1)
    rows, tokens_index = np.arange(B)[:, None], np.arange(n)[None, :]
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(layers + 1):
            S = np.einsum("bur,bvr->buv", np.einsum("brc,buc->bur", M, Z), Z)
            rho = np.abs(Z).max(axis=2)
            E = (pair_scale * (error[:, :, None] * rho[:, None, :] + rho[:, :, None] * error[:, None, :]
                               + error[:, :, None] * error[:, None, :]
                               + score_rounding * (rho + error)[:, :, None] * (rho + error)[:, None, :])
                 + slack * d * (1 + d * (rho[:, :, None] + rho[:, None, :])))
            t = S.argmax(axis=2)
            top = S[rows, tokens_index, t]
            need = (E[rows, tokens_index, t][:, :, None] + E) * scale * safety
            beats = (top[:, :, None] - S > need) | (np.arange(n)[None, None, :] == t[:, :, None])
            decided = beats.all(axis=2) & np.isfinite(S).all(axis=2)
            trusted = (first < 0)[:, None]
            leads = (t == tokens_index) & decided & trusted
            leader_layer[leads & (leader_layer < 0)] = k
            first[~decided.all(axis=1) & (first < 0)] = k
            if k == layers:
                break
            members = S == top[:, :, None]
            means = np.einsum("buv,bvc->buc", members.astype(float), Z) / np.maximum(members.sum(axis=2), 1)[:, :, None]
            target = np.where(decided[:, :, None], Z[rows, t], means)
            e_t = error[rows, t]
            rho_t = rho[rows, t]
            error = ((error + a * e_t) / (1 + a) + (np.maximum(rho, rho_t) + np.maximum(error, e_t)) * step_rounding
                     + slack) * safety
            Z = (Z + a[:, :, None] * target) / (1 + a[:, :, None])
    undecided = first >= 0
    bound = np.where(undecided, np.inf, error.max(axis=1))
    return BatchResult(final=Z, undecided=undecided, first_undecided_layer=first, leaders=leader_layer >= 0,
                       leader_layer=leader_layer, position_error_bound=bound, score_error_bound=bound,
                       distinct_points=np.full(B, n), token_error_bound=np.where(undecided[:, None], np.inf, error))


def without_bound_simulate_batch(tokens: np.ndarray, **kwargs: Any) -> BatchResult:
    """Float engine that decides a row whenever its float argmax is unique (a score bound of zero)."""
    return _float_engine_with_scaled_bound(tokens, scale=0.0, **kwargs)


def shrunk_bound_simulate_batch(tokens: np.ndarray, **kwargs: Any) -> BatchResult:
    """Float engine that trusts the proven score bound divided by 2^20."""
    return _float_engine_with_scaled_bound(tokens, scale=2.0 ** -20, **kwargs)


def proven_bound_copy_simulate_batch(tokens: np.ndarray, **kwargs: Any) -> BatchResult:
    """The same copy with the proven bound itself (not a mutant: the meta-tests' control)."""
    return _float_engine_with_scaled_bound(tokens, scale=1.0, **kwargs)


# ---------------------------------------------------------------------------------------------
# The catalogue.

@dataclass(frozen=True)
class Mutant:
    """A named wrong variant; ``arithmetic`` says which engine it replaces ("exact" or "float")."""

    name: str
    description: str
    arithmetic: str
    engine: Callable[..., Any]


EXACT_MUTANTS: tuple[Mutant, ...] = tuple(
    Mutant(f.__name__, f.__doc__ or "", "exact", f)
    for f in (wrong_normalisation, ties_first_index, ties_last_index, without_A, in_place_update, without_own_term))
FLOAT_MUTANTS: tuple[Mutant, ...] = (
    Mutant("loose_tolerance_float", f"Float engine deciding ties with tolerance {LOOSE_TOLERANCE:g} "
           "(far above the rounding bound) and calling them decided.", "float", loose_tolerance_simulate_batch),
    Mutant("no_bound_float", "Float engine deciding every row whose float argmax is unique (a score bound of "
           "zero).", "float", without_bound_simulate_batch),
    Mutant("bound_shrunk_float", "Float engine trusting the proven score bound divided by 2^20.", "float",
           shrunk_bound_simulate_batch),
)
MUTANTS: tuple[Mutant, ...] = EXACT_MUTANTS + FLOAT_MUTANTS
