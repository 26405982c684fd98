"""Deciding leader control exactly (docs/theory.md D10): rounding, certificates both ways, the target-map search.

:func:`decide_system` decides one layer-0 system (a leader set L and a possibly partial target
map t) in this order, stopping at the first exact answer:

1. exact pre-checks, no solver: a constraint whose matrix is zero, or a token of L inside the
   convex hull of the other tokens (then sum_j w_j M(i; i, j) = 0: the zero-S certificate);
2. the design program (:func:`.solver.design_program`), its A rounded to p/10^k for
   k = 0, 1, ..., 12 until the exact check holds (SPD by exact LDL^T pivots, every margin > 0);
   leaders closer than :data:`CLOSE_RATIO` of their size get equal A-norms as an exact equality;
3. the lambda_min program, its y rounded the same way until S = -sum_c y_c M_c is positive
   semidefinite exactly, or, when S is singular, one exact facial-reduction step;
4. the exact linear program sum_c y_c M_c = 0, sum y = 1, y >= 0 (cdd, GMP);
5. steps 3 and 4 for each leader alone (its certificate decides every system containing it);

and otherwise says what was tried (inconclusive, never either answer). Given the same solver
output the exact A and y are the same (the rounding is a fixed function of it).

:func:`control` is the command's question: a design in which exactly L leads and every other
token attends to one leader from layer 0 on. It decides L with the requested targets first; if
L can lead, the search of docs/theory.md D10 looks for the other targets: the map sending each
token to the leader it scores highest under L's A, then one token at a time, its leaders in
decreasing score, in seeded orders, up to ``max_tries`` passes and ``max_programs`` programs.
:func:`realisable` decides L alone (the lab's question: can L lead at layer 0?).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Literal, Mapping, Sequence

import numpy as np

from verify.core.config import Configuration
from verify.core.geometry import convex_hull_vertices, origin_in_hull_weights
from verify.core.linalg import mat_vec, matmul, nullspace, row_basis, solve, transpose
from .constraints import (Constraint, DesignCheck, Matrix, Point, certificate_matrix, check_certificate, check_design,
                          constraint_matrix, integer_scores, integer_tokens, is_zero_constraint, margins_positive, solver_rows, svec,
                          system)
from .solver import SOLVERS, SolverRun, design_program, lambda_min_program

__all__ = ["DENOMINATORS", "DEFAULT_TRIES", "DEFAULT_PROGRAMS", "Design", "Infeasibility", "SystemDecision", "Outcome", "decide_system",
           "control", "realisable", "round_matrix", "round_weights", "assignment"]

DENOMINATORS: tuple[int, ...] = tuple(10 ** k for k in range(13))
DEFAULT_TRIES = 4
DEFAULT_PROGRAMS = 64
# A lambda_min the solver reports at or below this is treated as "S is singular": go to the LP.
LAMBDA_FLOOR = 1e-9
# ... and one below this may come from a singular S seen through the solver's tolerance: try the facial step too.
SINGULAR_CEILING = 1e-5

Kind = Literal["feasible", "impossible", "inconclusive"]


@dataclass(frozen=True)
class Design:
    """An exact A and its exact check against the system it was made for (``check.holds``)."""

    A: Matrix
    check: DesignCheck
    denominator: int
    source: str  # the solver whose answer was rounded, or "given"


@dataclass(frozen=True)
class Infeasibility:
    """y >= 0, not all zero, with S = -sum_c y_c M_c positive semidefinite (checked), and how it was found.

    ``step``: ``zero_constraint`` (M_c = 0), ``hull`` (a leader inside the hull of the other
    tokens: S = 0), ``lambda_min`` (the rounded optimum of the lambda_min program), ``facial``
    (S singular: the solver's y moved exactly onto S(y) K = 0 for a rational kernel K) or ``lp``
    (the exact linear program: S = 0).
    """

    weights: dict[Constraint, Fraction]
    S: Matrix
    step: str

    @property
    def tokens(self) -> frozenset[int]:
        """The tokens whose constraints carry weight: every system containing theirs has no solution."""
        return frozenset(c.token for c in self.weights)

    @property
    def zero(self) -> bool:
        return all(x == 0 for row in self.S for x in row)


@dataclass(frozen=True)
class SystemDecision:
    """The decision of one layer-0 system: an exact design, an exact infeasibility certificate, or neither."""

    kind: Kind
    design: Design | None = None
    infeasibility: Infeasibility | None = None
    runs: tuple[SolverRun, ...] = ()
    tried: tuple[str, ...] = ()


# --------------------------------------------------------------------------- rounding


def round_matrix(A: np.ndarray, denominator: int) -> Matrix:
    """The symmetric rational matrix round(A * D) / D from A's upper triangle (a fixed function of A)."""
    d = A.shape[0]
    upper = {(r, s): Fraction(int(np.rint(A[r, s] * denominator)), denominator) for r in range(d) for s in range(r, d)}
    return [[upper[(min(r, s), max(r, s))] for s in range(d)] for r in range(d)]


def round_weights(y: np.ndarray, exponents: Sequence[int], constraints: Sequence[Constraint], denominator: int
                  ) -> dict[Constraint, Fraction]:
    """y_c = round(yhat_c D) / D * 2^(-e_c) for the positive ones (the solver's rows were scaled by 2^(-e_c))."""
    weights = {}
    for value, exponent, c in zip(y, exponents, constraints):
        numerator = int(np.rint(max(float(value), 0.0) * denominator))
        if numerator > 0:
            weights[c] = Fraction(numerator, denominator) * Fraction(2) ** (-exponent)
    return weights


def _g(x: float | None) -> str:
    return "none" if x is None else f"{x:.3g}"


def _exact_design(tokens: Sequence[Point], A: np.ndarray, constraints: Sequence[Constraint], source: str,
                  normals: Sequence[Matrix] = ()) -> Design | None:
    for denominator in DENOMINATORS:
        candidate = round_matrix(A, denominator)
        if normals:
            projected = project(candidate, normals)
            if projected is None:  # pragma: no cover - the normals are independent after row_basis
                return None
            candidate = projected
        check = check_design(tokens, candidate, constraints)
        if check.holds:
            return Design(candidate, check, denominator, source)
    return None


# --------------------------------------------------------------------------- leaders closer than the solver resolves

# Two leaders closer than this (relative to their size) get equal A-norms as an exact linear equality.
CLOSE_RATIO = Fraction(1, 10 ** 6)


def equal_norm_pairs(tokens: Sequence[Point], leaders: Sequence[int]) -> list[tuple[int, int]]:
    """Pairs of leaders i < j with |z_i - z_j| <= CLOSE_RATIO max(|z_i|, |z_j|) (max norms, exact).

    Both lead only if -|z_i - z_j|_A^2 < |z_j|_A^2 - |z_i|_A^2 < |z_i - z_j|_A^2, a wedge far too thin
    for a float solver when they are close. With |z_i|_A = |z_j|_A exactly each beats the other
    by |z_i - z_j|_A^2 / 2 > 0 (z_i^T A (z_i - z_j) = (|z_i|^2 - |z_j|^2 + |z_i - z_j|^2) / 2 in the
    A-norm), so the design program gets the equality instead of the two inequalities, and the
    rounded A is projected exactly back onto it. The exact check still checks every constraint.
    """
    found = []
    ordered = sorted(leaders)
    N, _ = integer_tokens(tokens)  # one positive common scale: the same comparisons, in integers
    for a, i in enumerate(ordered):
        for j in ordered[a + 1:]:
            gap = max(abs(x - y) for x, y in zip(N[i], N[j]))
            size = max(max(abs(x) for x in N[i]), max(abs(x) for x in N[j]))
            if gap * CLOSE_RATIO.denominator <= CLOSE_RATIO.numerator * size:
                found.append((i, j))
    return found


def norm_difference(tokens: Sequence[Point], i: int, j: int) -> Matrix:
    """E = z_j z_j^T - z_i z_i^T, so that <E, A> = |z_j|_A^2 - |z_i|_A^2."""
    d = len(tokens[i])
    return [[tokens[j][r] * tokens[j][s] - tokens[i][r] * tokens[i][s] for s in range(d)] for r in range(d)]


def project(A: Matrix, normals: Sequence[Matrix]) -> Matrix | None:
    """The exact orthogonal (Frobenius) projection of A onto {X : <E, X> = 0 for every E in ``normals``}."""
    d = len(A)
    flat = row_basis([[E[r][s] for r in range(d) for s in range(d)] for E in normals])
    if not flat:
        return [list(row) for row in A]
    vector = [A[r][s] for r in range(d) for s in range(d)]
    multipliers = solve(matmul(flat, transpose(flat)), mat_vec(flat, vector))
    if multipliers is None:  # pragma: no cover - a row basis has independent rows
        return None
    moved = [v - c for v, c in zip(vector, mat_vec(transpose(flat), multipliers))]
    return [[moved[r * d + s] for s in range(d)] for r in range(d)]


def _float_normals(normals: Sequence[Matrix]) -> np.ndarray:
    """The normals scaled to a largest entry of 1, as floats (evidence for the solver)."""
    out = []
    for E in normals:
        top = max(abs(x) for row in E for x in row)
        out.append([[float(x / top) if top else 0.0 for x in row] for row in E])
    return np.array(out, dtype=float).reshape(len(normals), len(normals[0]) if normals else 0, -1)


def _exact_certificate(tokens: Sequence[Point], y: np.ndarray, exponents: Sequence[int],
                       constraints: Sequence[Constraint]) -> Infeasibility | None:
    seen: set[tuple[tuple[Constraint, Fraction], ...]] = set()
    for denominator in DENOMINATORS[2:]:  # y is a probability vector: 1 and 1/10 keep almost nothing
        weights = round_weights(y, exponents, constraints, denominator)
        key = tuple(sorted(weights.items()))
        if not weights or key in seen:
            continue
        seen.add(key)
        if check_certificate(tokens, weights, constraints) is None:
            return Infeasibility(weights, certificate_matrix(tokens, weights), "lambda_min")
    return None


# --------------------------------------------------------------------------- a singular S: one facial-reduction step

KERNEL_TOLERANCES = (1e-7, 1e-5, 1e-3)  # eigenvalues below this times the largest: the solver's numerical kernel
RECONSTRUCTION_TOLERANCES = (1e-7, 1e-5, 1e-3)  # how far a kernel entry may lie from its simplest fraction
SUPPORT_CUTS = (1e-3, 1e-6, 1e-9)  # weights below this times the largest are dropped before the exact projection


def simplest_fraction(x: float, tolerance: float) -> Fraction:
    """The first continued-fraction convergent of x within ``tolerance`` of it: the rational reconstruction of a
    number known to about ``tolerance`` (convergents are x's best approximations for their denominators)."""
    target = Fraction(x)
    h0, h1, k0, k1 = 0, 1, 1, 0  # convergents p/q: h/k
    rest = target
    for _ in range(64):
        a = rest.numerator // rest.denominator
        h0, h1 = h1, a * h1 + h0
        k0, k1 = k1, a * k1 + k0
        candidate = Fraction(h1, k1)
        if abs(candidate - target) <= tolerance or rest == a:
            return candidate
        rest = 1 / (rest - a)
    return Fraction(h1, k1)


def _reduced_rows(B: np.ndarray) -> np.ndarray:
    """Gauss-Jordan with partial pivoting (floats): the reduced row echelon form of B's rows."""
    R = B.astype(float).copy()
    rows, cols = R.shape
    lead = 0
    for c in range(cols):
        if lead == rows:
            break
        pivot = lead + int(np.argmax(np.abs(R[lead:, c])))
        if abs(R[pivot, c]) < 1e-9:
            continue
        R[[lead, pivot]] = R[[pivot, lead]]
        R[lead] /= R[lead, c]
        for r in range(rows):
            if r != lead:
                R[r] -= R[r, c] * R[lead]
        lead += 1
    return R[:lead]


def _rational_kernels(S: np.ndarray, tokens: Sequence[Point]) -> list[list[list[Fraction]]]:
    """Rational candidates (as rows) for the kernel of the solver's nearly singular S, for a few thresholds on its
    eigenvalues: the float kernel basis with each entry replaced by its simplest nearby fraction, and the
    complement of the data vectors (tokens, differences of tokens) nearest to the range of S, which is spanned
    by such vectors when S is a sum of a few terms sym(z_m (z_t - z_k)^T)."""
    values, vectors = np.linalg.eigh((S + S.T) / 2)
    top = float(np.max(np.abs(values))) if values.size else 0.0
    found: list[list[list[Fraction]]] = []
    if top == 0:
        return found
    d = len(tokens[0])
    data = _data_vectors(tokens)
    for threshold in KERNEL_TOLERANCES:
        small = values < threshold * top
        if not small.any() or small.all():
            continue
        candidates = []
        range_basis = vectors[:, ~small]  # orthonormal columns
        candidates += [nullspace(snapped, d) for snapped in _snap_to_data(range_basis, data)]
        basis = _reduced_rows(vectors[:, small].T)
        candidates += [[[simplest_fraction(float(x), tolerance) for x in row] for row in basis]
                       for tolerance in RECONSTRUCTION_TOLERANCES]
        for K in candidates:
            if K and K not in found and any(x != 0 for row in K for x in row):
                found.append(K)
    return found


def _data_vectors(tokens: Sequence[Point]) -> list[list[Fraction]]:
    """The tokens and the differences of two tokens: the vectors a certificate's S is built from."""
    n = len(tokens)
    found = [list(z) for z in tokens]
    found += [[a - b for a, b in zip(tokens[t], tokens[k])] for t in range(n) for k in range(t + 1, n)]
    return found


SNAP_ANGLE = 1e-3  # a data vector this close (sine of the angle) to the range of S is taken to lie in it
SNAP_STARTS = 16  # range candidates tried, each started from one of the nearest data vectors


def _snap_to_data(range_basis: np.ndarray, data: list[list[Fraction]]) -> list[list[list[Fraction]]]:
    """Sets of as many independent data vectors as the range's dimension, each within SNAP_ANGLE of the range:
    one set started from each of the nearest few (close tokens are nearly parallel, and the nearest in floats is
    not always the one in the certificate)."""
    rank = range_basis.shape[1]
    floats = np.array([[float(x) for x in v] for v in data])
    norms = np.linalg.norm(floats, axis=1)
    usable = norms > 0
    unit = np.zeros_like(floats)
    unit[usable] = floats[usable] / norms[usable, None]
    residual = np.linalg.norm(unit - (unit @ range_basis) @ range_basis.T, axis=1)
    near = [int(i) for i in np.argsort(residual, kind="stable") if usable[i] and residual[i] <= SNAP_ANGLE]
    found: list[list[list[Fraction]]] = []
    for first in near[:SNAP_STARTS]:
        chosen = [first]
        for index in near:
            if len(chosen) == rank:
                break
            if index not in chosen and np.linalg.matrix_rank(unit[chosen + [index]], tol=1e-6) == len(chosen) + 1:
                chosen.append(index)
        if len(chosen) == rank:
            found.append([data[i] for i in chosen])
    return found


def _facial_certificate(tokens: Sequence[Point], y: np.ndarray, exponents: Sequence[int], rows: np.ndarray,
                        constraints: Sequence[Constraint]) -> Infeasibility | None:
    """A certificate with S singular: guess S's kernel K as rational vectors, then move the rounded y, exactly, onto
    {y : S(y) K = 0} (the orthogonal projection on the solver's support) and check S(y) >= 0 exactly.

    When the solver's lambda_min is 0, every certificate S is singular (docs/theory.md D10: the
    case left undecided by rounding alone); its kernel is then usually spanned by simple rational
    vectors, and with S(y) K = 0 exact, rounding no longer has to hit a boundary of the PSD cone.
    """
    d = rows.shape[1]
    S0 = -np.einsum("c,cij->ij", y, rows)
    kernels = _rational_kernels(S0, tokens)
    if not kernels:
        return None
    top = float(np.max(y)) if y.size else 0.0
    for cut in SUPPORT_CUTS:
        support = [c for c in range(len(y)) if y[c] > cut * top]
        scaled = [[[x * Fraction(2) ** (-exponents[c]) for x in row] for row in constraint_matrix(tokens, constraints[c])]
                  for c in support]
        for K in kernels:
            equations = [[sum((M[i][j] * k[j] for j in range(d)), Fraction(0)) for M in scaled]
                         for k in K for i in range(d)]
            basis = row_basis(equations)
            gram = matmul(basis, transpose(basis)) if basis else []
            for denominator in DENOMINATORS[2::2]:
                start = [Fraction(int(np.rint(y[c] * denominator)), denominator) for c in support]
                moved = start
                if basis:
                    multipliers = solve(gram, mat_vec(basis, start))
                    if multipliers is None:  # pragma: no cover - the rows of a row basis are independent
                        break
                    moved = [a - b for a, b in zip(start, mat_vec(transpose(basis), multipliers))]
                if any(v < 0 for v in moved) or not any(v > 0 for v in moved):
                    continue
                weights = {constraints[c]: v * Fraction(2) ** (-exponents[c]) for c, v in zip(support, moved) if v > 0}
                if check_certificate(tokens, weights, constraints) is None:
                    return Infeasibility(weights, certificate_matrix(tokens, weights), "facial")
    return None


# --------------------------------------------------------------------------- exact pre-checks and the LP


def _hull_certificate(tokens: Sequence[Point], leaders: Sequence[int], vertices: frozenset[int] | None
                      ) -> Infeasibility | None:
    """A leader i inside conv(other tokens): sum_j w_j M(i; i, j) = sym(z_i (z_i - sum_j w_j z_j)^T) = 0."""
    vertices = frozenset(convex_hull_vertices(tokens)) if vertices is None else vertices
    for i in sorted(leaders):
        if i in vertices:
            continue
        others = [j for j in range(len(tokens)) if j != i]
        shifted = [[a - b for a, b in zip(tokens[j], tokens[i])] for j in others]
        weights = origin_in_hull_weights(shifted)
        if weights is None:  # pragma: no cover - a distinct token that is no vertex lies in the others' hull
            continue
        y = {Constraint(i, i, others[j]): w for j, w in weights.items()}
        return Infeasibility(y, certificate_matrix(tokens, y), "hull")
    return None


def _lp_certificate(tokens: Sequence[Point], constraints: Sequence[Constraint]) -> Infeasibility | None:
    """The exact LP of docs/theory.md D10: y >= 0, sum y = 1, sum_c y_c M_c = 0 (then S = 0), or None."""
    weights = origin_in_hull_weights([svec(constraint_matrix(tokens, c)) for c in constraints])
    if weights is None:
        return None
    y = {constraints[j]: w for j, w in weights.items()}
    return Infeasibility(y, certificate_matrix(tokens, y), "lp")


# --------------------------------------------------------------------------- one system


def decide_system(tokens: Sequence[Point], leaders: Sequence[int], targets: Mapping[int, int], *,
                  vertices: frozenset[int] | None = None, certify: bool = True,
                  objective: np.ndarray | None = None, reference: np.ndarray | None = None) -> SystemDecision:
    """Decide "some SPD A makes every token of ``leaders`` lead and every token of ``targets`` attend only to its
    target, at layer 0", exactly.

    ``certify=False`` skips the infeasibility steps (the target search only wants designs);
    ``objective`` replaces trace A by <objective, A> in the design program (the search's perturbation);
    ``vertices`` are the hull vertices when the caller knows them; ``reference`` is an A near which
    the design program first looks (the rows tightest there are given to the solver first).
    """
    constraints = system(len(tokens), leaders, targets)
    tried: list[str] = []
    runs: list[SolverRun] = []
    if certify:
        zero = next((c for c in constraints if is_zero_constraint(tokens, c)), None)
        if zero is not None:
            y = {zero: Fraction(1)}
            return SystemDecision("impossible", infeasibility=Infeasibility(y, certificate_matrix(tokens, y),
                                                                            "zero_constraint"))
        found = _hull_certificate(tokens, leaders, vertices)
        if found is not None:
            return SystemDecision("impossible", infeasibility=found)
        tried.append("no token of L lies in the convex hull of the other tokens (exact)")
    rows, exponents = solver_rows(tokens, constraints)
    pairs = equal_norm_pairs(tokens, leaders)
    normals = [norm_difference(tokens, i, j) for i, j in pairs]
    inside_pairs = {(i, j) for i, j in pairs} | {(j, i) for i, j in pairs}
    kept = [r for r, c in enumerate(constraints) if (c.token, c.rival) not in inside_pairs or c.token != c.attends_to]
    if pairs:
        tried.append(f"leaders closer than {float(CLOSE_RATIO):g} of their size given equal A-norms: "
                     + ", ".join(f"{i} and {j}" for i, j in pairs))
    # The target search asks many systems: Clarabel alone there (SCS is slower and rarely rescues a design).
    design_runs = design_program(rows[kept], objective=objective,
                                 equalities=_float_normals(normals) if normals else None,
                                 solvers=SOLVERS if certify else SOLVERS[:1],
                                 groups=np.array([constraints[r].token for r in kept], dtype=np.int64),
                                 reference=reference)
    for run in design_runs:
        runs.append(run)
        if run.answer is not None:
            design = _exact_design(tokens, run.answer, constraints, run.solver, normals)
            if design is not None:
                return SystemDecision("feasible", design=design, runs=tuple(runs), tried=tuple(tried))
            tried.append(f"{run.solver}'s A ({run.status}) rounded to denominators 1..10^12: no rounding passes the "
                         "exact check")
        else:
            tried.append(f"design program with {run.solver}: {run.status}")
    if not certify:
        return SystemDecision("inconclusive", runs=tuple(runs), tried=tuple(tried))
    found = _solver_certificate(tokens, constraints, rows, exponents, runs, tried)
    if found is not None:
        return SystemDecision("impossible", infeasibility=found, runs=tuple(runs), tried=tuple(tried))
    found = _lp_certificate(tokens, constraints)
    if found is not None:
        return SystemDecision("impossible", infeasibility=found, runs=tuple(runs), tried=tuple(tried))
    tried.append("exact LP: no y >= 0 with sum y = 1 and sum y_c M_c = 0 (so no zero-S certificate exists)")
    if len(leaders) + len(targets) > 1:
        # A certificate for one leader alone is one for every system containing its constraints.
        for i in sorted(leaders):
            alone = [r for r, c in enumerate(constraints) if c.token == i]
            found = _solver_certificate(tokens, [constraints[r] for r in alone], rows[alone],
                                        [exponents[r] for r in alone], runs, [])
            if found is not None:
                return SystemDecision("impossible", infeasibility=found, runs=tuple(runs), tried=tuple(tried))
        tried.append("the same steps for each listed token alone: no certificate")
    return SystemDecision("inconclusive", runs=tuple(runs), tried=tuple(tried))


def _solver_certificate(tokens: Sequence[Point], constraints: Sequence[Constraint], rows: np.ndarray,
                        exponents: Sequence[int], runs: list[SolverRun], tried: list[str]) -> Infeasibility | None:
    """Step 3 of :func:`decide_system`: the lambda_min program, its y rounded (S positive definite) or, when its
    optimum is 0, moved onto a rational kernel of S (one facial-reduction step). Appends to ``runs``, ``tried``."""
    for run in lambda_min_program(rows):
        runs.append(run)
        if run.answer is None:
            tried.append(f"lambda_min program with {run.solver}: {run.status}")
            continue
        if run.objective is not None and run.objective > LAMBDA_FLOOR:
            found = _exact_certificate(tokens, run.answer, exponents, constraints)
            if found is not None:
                return found
            tried.append(f"{run.solver}'s y (lambda_min {run.objective:.3g}) rounded to denominators 10^2..10^12: "
                         "S is never exactly positive semidefinite")
        if run.objective is None or run.objective < SINGULAR_CEILING:
            found = _facial_certificate(tokens, run.answer, exponents, rows, constraints)
            if found is not None:
                return found
            tried.append(f"lambda_min program with {run.solver}: optimum {_g(run.objective)}, so S may be singular; "
                         "its kernel K guessed as simple rational vectors and y moved exactly onto S(y) K = 0: "
                         "S is never positive semidefinite")
        break
    return None


# --------------------------------------------------------------------------- the command's question


@dataclass(frozen=True)
class Outcome:
    """The answer of :func:`control` for (L, requested targets).

    ``kind``: ``realised`` (``design`` satisfies the full system: L leads and every other token
    attends only to ``targets[m]``), ``impossible`` (``infeasibility`` certifies that no SPD A
    makes L lead with the requested targets at layer 0) or ``inconclusive`` (``leading``, when
    present, is an exact A under which L leads at layer 0, but no target map was found; or
    neither certificate was found). ``tried`` says what was tried, ``runs`` the solver runs.
    """

    kind: Literal["realised", "impossible", "inconclusive"]
    leaders: tuple[int, ...]
    requested: dict[int, int]
    targets: dict[int, int] | None = None
    design: Design | None = None
    leading: Design | None = None
    infeasibility: Infeasibility | None = None
    reason: str = ""
    tried: tuple[str, ...] = ()
    runs: tuple[SolverRun, ...] = ()
    assignments: tuple[dict[int, int], ...] = field(default=())

    def limits(self, tokens: Sequence[Point]) -> list[Point] | None:
        """Every token's exact limit in a realised design: its own position for a leader, its target's otherwise."""
        if self.kind != "realised" or self.targets is None:
            return None
        return [tokens[self.targets.get(i, i)] for i in range(len(tokens))]


def assignment(tokens: Sequence[Point], A: Sequence[Sequence[Fraction]], leaders: Sequence[int],
               fixed: Mapping[int, int]) -> dict[int, int]:
    """Each token outside L to the leader it scores highest under A (exact; ties to the smallest index); ``fixed`` kept."""
    return _assignment(integer_scores(tokens, A)[0], leaders, fixed)


def _assignment(s: Sequence[Sequence[int]], leaders: Sequence[int], fixed: Mapping[int, int]) -> dict[int, int]:
    """:func:`assignment` from A's exact scores."""
    ordered = sorted(leaders)
    chosen = dict(fixed)
    for m in range(len(s)):
        if m not in chosen and m not in leaders:
            chosen[m] = max(ordered, key=lambda leader: (s[m][leader], -leader))
    return dict(sorted(chosen.items()))


def _locks_everything(tokens: Sequence[Point], A: Matrix, s: Sequence[Sequence[int]], L: tuple[int, ...],
                      partial: Mapping[int, int]) -> tuple[dict[int, int], DesignCheck | None]:
    """The argmax map under A (``partial`` kept; ``s``: A's exact scores) and, when every margin of the full system
    it gives is positive, A's exact check against that system (None otherwise: most maps fail at an early token)."""
    chosen = _assignment(s, L, partial)
    full = system(len(tokens), L, chosen)
    return chosen, check_design(tokens, A, full) if margins_positive(s, full) else None


def control(tokens: Sequence[Point], leaders: Sequence[int], targets: Mapping[int, int] | None = None, *,
            seed: int = 0, max_tries: int = DEFAULT_TRIES, max_programs: int = DEFAULT_PROGRAMS,
            vertices: frozenset[int] | None = None, progress: Callable[[str], None] | None = None) -> Outcome:
    """Find a rational SPD A under which exactly ``leaders`` lead and every other token locks onto a leader from
    layer 0 on, or certify that none makes ``leaders`` lead (with ``targets``) at layer 0, or say what was tried.

    ``targets`` (token -> leader) fixes part or all of the target map; the rest is searched
    (docs/theory.md D10): first the map sending each token to the leader it scores highest under
    the current A; then, greedily, one token at a time (in increasing order on the first try, in
    an order drawn from ``numpy.random.default_rng(seed)`` on later ones), its leaders in
    decreasing score, keeping the first whose partial system has an exact design. At most
    ``max_tries`` orders and ``max_programs`` design programs. Tokens must be distinct.
    """
    say = progress or (lambda text: None)
    L = tuple(sorted(leaders))
    requested = dict(sorted((targets or {}).items()))
    n = len(tokens)
    say("deciding the leader set")
    base = decide_system(tokens, L, requested, vertices=vertices)
    runs = list(base.runs)
    if base.kind == "impossible":
        return Outcome("impossible", L, requested, infeasibility=base.infeasibility, tried=base.tried, runs=tuple(runs),
                       reason="no symmetric positive definite A makes every listed token lead at layer 0"
                              + (" with the requested targets" if requested else ""))
    if base.kind == "inconclusive" or base.design is None:
        return Outcome("inconclusive", L, requested, tried=base.tried, runs=tuple(runs),
                       reason="the solvers' answers could not be turned into an exact certificate either way")
    if len(requested) + len(L) == n:
        return Outcome("realised", L, requested, targets=requested, design=base.design, leading=base.design,
                       tried=base.tried, runs=tuple(runs))
    tried = list(base.tried)
    seen: list[dict[int, int]] = []
    programs = 0

    def solve(partial: Mapping[int, int], near: Matrix) -> Design | None:
        nonlocal programs
        programs += 1
        reference = np.array([[float(x) for x in row] for row in near])
        decision = decide_system(tokens, L, partial, certify=False, reference=reference)
        runs.extend(decision.runs)
        return decision.design

    chosen, check = _locks_everything(tokens, base.design.A, integer_scores(tokens, base.design.A)[0], L, requested)
    seen.append(chosen)
    if check is not None and check.holds:  # the leader set's own A already locks every other token onto a leader
        return _realised(L, requested, chosen, Design(base.design.A, check, base.design.denominator,
                                                       base.design.source), base.design, tried, runs, seen)
    design = solve(chosen, base.design.A)
    if design is not None:
        return _realised(L, requested, chosen, design, base.design, tried, runs, seen)
    tried.append(f"the map to each token's highest-scoring leader ({_map_text(chosen)}): no exact design")
    if len(L) == 1:  # one leader: the map is forced, and it was just tried
        return Outcome("inconclusive", L, requested, leading=base.design, tried=tuple(tried), runs=tuple(runs),
                       assignments=tuple(seen),
                       reason="the listed token can lead at layer 0 (an exact A is given), but the only target map, "
                              "every other token onto it, has no exact design")
    rng = np.random.default_rng(seed)
    free = [m for m in range(n) if m not in L and m not in requested]
    for attempt in range(max_tries):
        order = free if attempt == 0 else [free[i] for i in rng.permutation(len(free))]
        say(f"target search, order {attempt + 1} of at most {max_tries}")
        # Invariant: ``current`` is an exact design of the system (L, ``partial``): SPD with every margin positive.
        current, partial = base.design.A, dict(requested)
        scores = integer_scores(tokens, current)[0]
        stuck = None
        for m in order:
            if m in partial:
                continue
            ranking = sorted(L, key=lambda leader: (-scores[m][leader], leader))
            for leader in ranking:
                trial = {**partial, m: leader}
                # By the invariant, current is a design of the trial system iff m's own margins are positive.
                if margins_positive(scores, system(n, (), {m: leader})):
                    partial = trial
                    break
                if programs >= max_programs:
                    break
                design = solve(trial, current)
                if design is not None:
                    current, partial = design.A, trial
                    scores = integer_scores(tokens, current)[0]
                    break
            if m not in partial:
                stuck = m
                break
            chosen, check = _locks_everything(tokens, current, scores, L, partial)
            if check is not None and check.holds:  # the current A locks the rest too
                seen.append(chosen)
                return _realised(L, requested, chosen, Design(current, check, 0, "search"), base.design, tried, runs,
                                 seen)
        if stuck is None:  # pragma: no cover - every token placed means the last check held
            continue
        seen.append(dict(sorted(partial.items())))
        tried.append(f"greedy order {attempt + 1}: token {stuck} fits no leader after {_map_text(partial) or 'none'}"
                     + (" (design program budget spent)" if programs >= max_programs else ""))
        if programs >= max_programs:
            break
    tried.append(f"{programs} design programs for target maps (at most {max_programs}), {max_tries} orders at most, "
                 f"seed {seed}")
    return Outcome("inconclusive", L, requested, leading=base.design, tried=tuple(tried), runs=tuple(runs),
                   assignments=tuple(seen),
                   reason="every listed token can lead at layer 0 (an exact A is given), but no target map locking "
                          "every other token onto a leader was found")


def _realised(L: tuple[int, ...], requested: dict[int, int], chosen: dict[int, int], design: Design,
              leading: Design, tried: list[str], runs: list[SolverRun], seen: list[dict[int, int]]) -> Outcome:
    return Outcome("realised", L, requested, targets=chosen, design=design, leading=leading, tried=tuple(tried),
                   runs=tuple(runs), assignments=tuple(seen))


def _map_text(targets: Mapping[int, int]) -> str:
    return ",".join(f"{m}:{t}" for m, t in sorted(targets.items()))


def realisable(config: Configuration, leaders: Sequence[int]) -> SystemDecision:
    """Can every token of ``leaders`` lead at layer 0 for some SPD A (the configuration's own A is ignored)?

    ``kind`` ``feasible`` with an exact design, ``impossible`` with an exact certificate, or
    ``inconclusive``: the lab's question "is this subset realisable at layer 0" (docs/theory.md D10).
    """
    return decide_system(config.tokens, tuple(sorted(leaders)), {})
