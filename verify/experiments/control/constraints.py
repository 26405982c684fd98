"""The linear constraints of leader control and their exact checks (docs/theory.md D10).

For tokens m, t, k write M(m; t, k) = sym(z_m (z_t - z_k)^T), so that for symmetric A

    <M(m; t, k), A> = z_m^T A (z_t - z_k) = <A z_m, z_t> - <A z_m, z_k>,

the margin by which token m scores t above k. A token i leads at layer 0 iff every margin
<M(i; i, j), A> (j != i) is positive; a token m attends only to t at layer 0 iff every margin
<M(m; t, k), A> (k != t) is positive. Both are linear in A.

A :class:`Constraint` names one such strict inequality; a *system* is the list of them for a
leader set L and a (possibly partial) target map. Everything that decides is exact here: the
margins come from the exact score matrix in integers (:func:`integer_scores`), positive definiteness
from the exact LDL^T pivots (:mod:`verify.core.linalg`), positive semidefiniteness of
S = -sum_c y_c M_c from exact symmetric elimination (:func:`verify.core.linalg.is_positive_semidefinite`).
:func:`solver_rows` gives the float rows a solver sees: evidence only.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from math import lcm
from typing import Mapping, Sequence

import numpy as np
from flint import fmpz_mat

from verify.core.linalg import is_positive_semidefinite, is_symmetric, ldl_pivots

__all__ = ["Constraint", "Matrix", "Point", "system", "constraint_matrix", "is_zero_constraint", "DesignCheck",
           "integer_tokens", "integer_scores", "check_design", "margins_positive", "leaders_under", "combination",
           "certificate_matrix", "check_certificate", "solver_rows", "svec"]

Point = tuple[Fraction, ...]
Matrix = list[list[Fraction]]


@dataclass(frozen=True, order=True)
class Constraint:
    """<M(token; attends_to, rival), A> > 0: under A, ``token`` scores ``attends_to`` strictly above ``rival``.

    A leader constraint has ``attends_to == token``; a lock constraint has ``attends_to`` the
    token's target leader.
    """

    token: int
    attends_to: int
    rival: int


def system(n: int, leaders: Sequence[int], targets: Mapping[int, int]) -> list[Constraint]:
    """The constraints of "every token of L leads and every token m of the map attends only to t(m)" at layer 0.

    Leaders first (in increasing order), then the targeted tokens (in increasing order); rivals
    in increasing order. There are (n - 1) per token named.
    """
    found = [c for i in sorted(leaders) for c in _token_constraints(n, i, i)]
    for m in sorted(targets):
        found += _token_constraints(n, m, targets[m])
    return found


@functools.lru_cache(maxsize=4096)
def _token_constraints(n: int, token: int, attends_to: int) -> tuple[Constraint, ...]:
    """The n - 1 constraints of ``token`` attending only to ``attends_to`` (the target search builds many systems)."""
    return tuple(Constraint(token, attends_to, k) for k in range(n) if k != attends_to)


def constraint_matrix(tokens: Sequence[Point], c: Constraint) -> Matrix:
    """M(m; t, k) = (z_m (z_t - z_k)^T + (z_t - z_k) z_m^T) / 2, exact."""
    z = tokens[c.token]
    w = [a - b for a, b in zip(tokens[c.attends_to], tokens[c.rival])]
    d = len(z)
    return [[(z[r] * w[s] + w[r] * z[s]) / 2 for s in range(d)] for r in range(d)]


def is_zero_constraint(tokens: Sequence[Point], c: Constraint) -> bool:
    """M(m; t, k) = 0 exactly: z_m = 0 or z_t = z_k (sym(a b^T) = 0 only when a = 0 or b = 0)."""
    return all(x == 0 for x in tokens[c.token]) or tokens[c.attends_to] == tokens[c.rival]


def svec(M: Sequence[Sequence[Fraction]]) -> list[Fraction]:
    """The upper triangle of a symmetric matrix, row by row (an injective linear map)."""
    d = len(M)
    return [M[r][s] for r in range(d) for s in range(r, d)]


# --------------------------------------------------------------------------- a design: A, checked exactly


@dataclass(frozen=True)
class DesignCheck:
    """The exact check of a candidate A against one system.

    ``pivots``: the LDL^T pivots of A (None when a zero pivot stops the decomposition);
    ``closest[m] = (rival, margin)``: token m's smallest margin over its constraints and the
    first rival attaining it; ``holds`` when A is symmetric, every pivot is positive and every
    margin is positive.
    """

    symmetric: bool
    pivots: tuple[Fraction, ...] | None
    closest: dict[int, tuple[int, Fraction]]

    @property
    def positive_definite(self) -> bool:
        return self.symmetric and self.pivots is not None and all(p > 0 for p in self.pivots)

    @property
    def margins_positive(self) -> bool:
        return all(margin > 0 for _, margin in self.closest.values())

    @property
    def holds(self) -> bool:
        return self.positive_definite and self.margins_positive


def _integers(rows: Sequence[Sequence[Fraction]]) -> tuple[list[list[int]], int]:
    """The rows over one common denominator q, as integers, and q."""
    common = lcm(*(x.denominator for row in rows for x in row))
    return [[x.numerator * (common // x.denominator) for x in row] for row in rows], common


_TOKEN_CACHE: list[tuple[tuple[Point, ...], tuple[list[list[int]], int, fmpz_mat, fmpz_mat]]] = []
_TOKEN_CACHE_SIZE = 8


def _token_integers(tokens: Sequence[Point]) -> tuple[list[list[int]], int, fmpz_mat, fmpz_mat]:
    """N (the tokens over one common denominator q, as integers), q, and N and N^T as flint matrices.

    Remembered for the last few token lists seen, recognised by identity of their points: a point
    is an immutable tuple of Fractions, so the same point objects mean the same numbers (hashing
    Fractions would cost more than the products they save; lists as points are not remembered).
    """
    if all(type(z) is tuple for z in tokens):
        for points, found in _TOKEN_CACHE:
            if len(points) == len(tokens) and all(a is b for a, b in zip(points, tokens)):
                return found
    N, common = _integers(tokens)
    matrix = fmpz_mat(N) if N else fmpz_mat(0, 0)
    found = (N, common, matrix, matrix.transpose())
    if all(type(z) is tuple for z in tokens):
        _TOKEN_CACHE.insert(0, (tuple(tokens), found))
        del _TOKEN_CACHE[_TOKEN_CACHE_SIZE:]
    return found


def integer_tokens(tokens: Sequence[Point]) -> tuple[list[list[int]], int]:
    """The tokens over one common denominator q, as integers (do not modify: remembered), and q."""
    N, common, _, _ = _token_integers(tokens)
    return N, common


def integer_scores(tokens: Sequence[Point], A: Sequence[Sequence[Fraction]]) -> tuple[list[list[int]], int]:
    """The exact score matrix as integers: s[i][j] = <A z_i, z_j> = rows[i][j] / scale (python-flint products).

    The same numbers as :func:`verify.core.oracle.scores`, kept as integers over one positive scale so
    that a margin is one integer subtraction (the target search compares thousands of them).
    """
    _, common, N, N_transposed = _token_integers(tokens)
    integers, a_common = _integers(A)
    # <A z_i, z_j> = z_i^T A^T z_j
    A_transposed = fmpz_mat([list(column) for column in zip(*integers)])
    product = N * A_transposed * N_transposed
    n = len(tokens)
    entries = [int(x) for x in product.entries()]
    return [entries[i * n:(i + 1) * n] for i in range(n)], common * common * a_common


def check_design(tokens: Sequence[Point], A: Sequence[Sequence[Fraction]], constraints: Sequence[Constraint]
                 ) -> DesignCheck:
    """Decide exactly whether A is symmetric positive definite and satisfies every constraint strictly."""
    symmetric = is_symmetric(A)
    found = ldl_pivots(A) if symmetric else None  # the LDL^T pivots, in integer arithmetic
    pivots = tuple(found) if found is not None else None
    s, scale = integer_scores(tokens, A)
    closest: dict[int, tuple[int, int]] = {}
    for c in constraints:
        margin = s[c.token][c.attends_to] - s[c.token][c.rival]
        best = closest.get(c.token)
        if best is None or margin < best[1] or (margin == best[1] and c.rival < best[0]):
            closest[c.token] = (c.rival, margin)
    return DesignCheck(symmetric, pivots, {m: (k, Fraction(v, scale)) for m, (k, v) in closest.items()})


def margins_positive(s: Sequence[Sequence[int]], constraints: Sequence[Constraint]) -> bool:
    """Every margin of ``constraints`` positive, from A's exact scores ``s`` (:func:`integer_scores`).

    The same decision as ``check_design(...).margins_positive``, stopping at the first margin that
    is not positive and leaving out A's pivots (the target search asks it of one A many times).
    """
    return all(s[c.token][c.attends_to] > s[c.token][c.rival] for c in constraints)


def leaders_under(tokens: Sequence[Point], A: Sequence[Sequence[Fraction]]) -> frozenset[int]:
    """The tokens that lead at layer 0 under A (C_i = {i}), from the exact scores."""
    s, _ = integer_scores(tokens, A)
    return frozenset(i for i, row in enumerate(s) if all(row[i] > x for j, x in enumerate(row) if j != i))


# --------------------------------------------------------------------------- an infeasibility certificate


def combination(tokens: Sequence[Point], weights: Mapping[Constraint, Fraction]) -> Matrix:
    """sum_c y_c M_c, exact."""
    d = len(tokens[0])
    total = [[Fraction(0)] * d for _ in range(d)]
    for c, y in weights.items():
        if y == 0:
            continue
        M = constraint_matrix(tokens, c)
        for r in range(d):
            for s in range(d):
                total[r][s] += y * M[r][s]
    return total


def certificate_matrix(tokens: Sequence[Point], weights: Mapping[Constraint, Fraction]) -> Matrix:
    """S = -sum_c y_c M_c, exact."""
    return [[-x for x in row] for row in combination(tokens, weights)]


def check_certificate(tokens: Sequence[Point], weights: Mapping[Constraint, Fraction],
                      allowed: Sequence[Constraint]) -> str | None:
    """Why ``weights`` is not a certificate that the system ``allowed`` has no SPD solution, or None when it is.

    docs/theory.md D10 (Gordan's alternative): y_c >= 0 on constraints of the system, not all
    zero, with S = -sum_c y_c M_c positive semidefinite. Then for A > 0 satisfying the system,
    <S, A> = -sum_c y_c <M_c, A> < 0, while <S, A> >= 0 for S >= 0 and A > 0.
    """
    members = set(allowed)
    if any(c not in members for c in weights):
        return "a weight is on a constraint outside the system"
    if any(y < 0 for y in weights.values()):
        return "a weight is negative"
    if not any(y > 0 for y in weights.values()):
        return "every weight is zero"
    if not is_positive_semidefinite(certificate_matrix(tokens, weights)):
        return "S = -sum y_c M_c is not positive semidefinite"
    return None


# --------------------------------------------------------------------------- what a solver sees (floats)


def solver_rows(tokens: Sequence[Point], constraints: Sequence[Constraint]) -> tuple[np.ndarray, list[int]]:
    """Float matrices Mhat_c = 2^(-e_c) sym(N_m (N_t - N_k)^T) (C x d x d) and the exponents e_c.

    N are the tokens over one common denominator q, shifted right by s bits when they would not
    fit a float64, so Mhat_c is about 2^(-e_c) q^2 2^(-2s) M_c with its largest entry in [1/2, 1):
    each row is scaled on its own (the system is homogeneous row by row), which keeps the solver's
    problem well scaled for tokens of any size. A certificate found for the rows Mhat_c is a
    certificate for the exact rows with y_c = yhat_c 2^(-e_c) (the common factor q^2 2^(-2s) is
    dropped: a positive multiple of a certificate is one). A zero row gets e_c = 0. Evidence only.
    """
    N = _token_integers(tokens)[0]  # a positive scale changes no constraint's sign
    bits = max((abs(x).bit_length() for z in N for x in z), default=0)
    shift = max(0, bits - 500)  # products of two entries stay below 2^1000, inside float64
    Z = np.array([[float(x >> shift) for x in z] for z in N], dtype=float)
    d = Z.shape[1]
    count = len(constraints)
    index = np.array([(c.token, c.attends_to, c.rival) for c in constraints], dtype=np.int64).reshape(count, 3)
    left = Z[index[:, 0]]
    if bits <= 52:
        # Entries below 2^52 are exact floats, and so are their differences: the same numbers as below, at once.
        diffs = Z[index[:, 1]] - Z[index[:, 2]]
    else:
        diffs = np.empty((count, d))
        for row, c in enumerate(constraints):
            # Differences in integers first: close tokens keep every bit of their difference.
            diffs[row] = [float((a - b) >> shift) for a, b in zip(N[c.attends_to], N[c.rival])]
    outer = left[:, :, None] * diffs[:, None, :]
    sym = (outer + outer.transpose(0, 2, 1)) / 2
    largest = np.abs(sym).reshape(count, -1).max(axis=1) if count else np.zeros(0)
    exponents = [math.frexp(float(x))[1] if x > 0 and math.isfinite(x) else 0 for x in largest]
    scaled = np.ldexp(sym, -np.array(exponents, dtype=np.int64)[:, None, None]) if count else sym
    return scaled, exponents
