"""Small exact linear algebra over the rationals (Fractions).

Used to decide the theorem's hypotheses exactly (docs/theory.md §2: A symmetric positive definite)
and for the change of variables z = L^{-T} y of docs/theory.md §3. Matrices are lists of rows.
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm
from typing import Sequence

from flint import fmpz_mat

Matrix = list[list[Fraction]]

__all__ = [
    "identity",
    "is_symmetric",
    "ldl_decomposition",
    "ldl_pivots",
    "is_symmetric_positive_definite",
    "is_positive_semidefinite",
    "matmul",
    "transpose",
    "mat_vec",
    "dot",
    "solve",
    "rank",
    "row_basis",
    "nullspace",
    "IntegerPoints",
]


def identity(d: int) -> Matrix:
    return [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]


def transpose(M: Sequence[Sequence[Fraction]]) -> Matrix:
    return [list(col) for col in zip(*M)]


def matmul(X: Sequence[Sequence[Fraction]], Y: Sequence[Sequence[Fraction]]) -> Matrix:
    Yt = transpose(Y)
    return [[sum((a * b for a, b in zip(row, col)), Fraction(0)) for col in Yt] for row in X]


def mat_vec(M: Sequence[Sequence[Fraction]], v: Sequence[Fraction]) -> list[Fraction]:
    return [sum((a * b for a, b in zip(row, v)), Fraction(0)) for row in M]


def dot(u: Sequence[Fraction], v: Sequence[Fraction]) -> Fraction:
    return sum((a * b for a, b in zip(u, v)), Fraction(0))


class IntegerPoints:
    """Rational points as integer rows over one common denominator: p_j = rows[j] / denominator.

    Many scores <w, p_j> of one direction w then cost integer products instead of Fraction ones (a
    Fraction product reduces by a gcd every time), with the same answers: every score is scaled by
    the same positive integer, so comparisons and maxima are unchanged.
    """

    __slots__ = ("rows", "denominator")

    def __init__(self, points: Sequence[Sequence[Fraction]]) -> None:
        self.denominator: int = lcm(*(x.denominator for p in points for x in p))
        self.rows: list[list[int]] = [[int(x * self.denominator) for x in p] for p in points]

    def scaled_scores(self, w: Sequence[Fraction]) -> tuple[list[int], int]:
        """(s, scale) with <w, p_j> = s[j] / scale for every point j, scale > 0."""
        w_denominator = lcm(*(x.denominator for x in w))
        wi = [int(x * w_denominator) for x in w]
        return [sum(a * b for a, b in zip(wi, row)) for row in self.rows], w_denominator * self.denominator

    def scores_under(self, A: Sequence[Sequence[Fraction]]) -> list[list[int]]:
        """s with <A p_i, p_j> = s[i][j] / scale for every pair, one scale > 0 (one integer matrix product)."""
        a_denominator = lcm(*(x.denominator for row in A for x in row))
        A_int = fmpz_mat([[int(x * a_denominator) for x in row] for row in A])
        P = fmpz_mat(self.rows)
        n = len(self.rows)
        entries = [int(x) for x in (P * A_int.transpose() * P.transpose()).entries()]  # p_i^T A^T p_j
        return [entries[i * n:(i + 1) * n] for i in range(n)]

    def gram(self, M: Sequence[Sequence[Fraction]]) -> Matrix:
        """G with G[i][j] = p_i^T M p_j exactly, every pair at once (one integer matrix product)."""
        m_denominator = lcm(*(x.denominator for row in M for x in row))
        M_int = fmpz_mat([[int(x * m_denominator) for x in row] for row in M])
        P = fmpz_mat(self.rows)
        n = len(self.rows)
        scale = m_denominator * self.denominator ** 2
        entries = [Fraction(int(x), scale) for x in (P * M_int * P.transpose()).entries()]
        return [entries[i * n:(i + 1) * n] for i in range(n)]

    def max_score(self, w: Sequence[Fraction]) -> Fraction:
        """max_j <w, p_j>, exactly (at least one point)."""
        scores, scale = self.scaled_scores(w)
        return Fraction(max(scores), scale)


def is_symmetric(M: Sequence[Sequence[Fraction]]) -> bool:
    d = len(M)
    return all(M[i][j] == M[j][i] for i in range(d) for j in range(i + 1, d))


def ldl_decomposition(M: Sequence[Sequence[Fraction]]) -> tuple[Matrix, list[Fraction]] | None:
    """Exact M = L diag(D) L^T with L unit lower triangular, or None if a zero pivot appears.

    M must be symmetric. Without pivoting, the pivots are the ratios of consecutive leading
    principal minors, so all pivots > 0 is exactly Sylvester's criterion for positive definiteness.
    """
    d = len(M)
    L = identity(d)
    D: list[Fraction] = []
    for j in range(d):
        pivot = M[j][j] - sum((L[j][k] ** 2 * D[k] for k in range(j)), Fraction(0))
        if pivot == 0:
            return None
        D.append(pivot)
        for i in range(j + 1, d):
            L[i][j] = (M[i][j] - sum((L[i][k] * L[j][k] * D[k] for k in range(j)), Fraction(0))) / pivot
    return L, D


def ldl_pivots(M: Sequence[Sequence[Fraction]]) -> list[Fraction] | None:
    """The pivots D of :func:`ldl_decomposition` (None exactly when it returns None), in integer arithmetic.

    The pivots are the ratios of consecutive leading principal minors, so they need no L:
    with M = B / q (B integer, q the common denominator) fraction-free (Bareiss) elimination of
    B gives its leading minors m_k as integers, and D_k = m_k / (m_(k-1) q). Much faster than
    Fractions when many matrices are checked (the leader-control rounding, docs/theory.md D10).
    M must be symmetric.
    """
    d = len(M)
    if d == 0:
        return []
    entries = [[x if isinstance(x, Fraction) else Fraction(x) for x in row] for row in M]
    common = lcm(*(x.denominator for row in entries for x in row))
    B = [[x.numerator * (common // x.denominator) for x in row] for row in entries]
    pivots: list[Fraction] = []
    previous = 1
    for k in range(d):
        minor = B[k][k]  # the leading principal minor of order k + 1 of B
        if minor == 0:
            return None
        pivots.append(Fraction(minor, previous * common))
        for i in range(k + 1, d):
            row, factor = B[i], B[i][k]
            pivot_row = B[k]
            for j in range(k + 1, d):
                row[j] = (minor * row[j] - factor * pivot_row[j]) // previous  # exact (Bareiss)
        previous = minor
    return pivots


def is_symmetric_positive_definite(M: Sequence[Sequence[Fraction]]) -> bool:
    """Decided exactly: symmetric, and every LDL^T pivot (leading-minor ratio) is positive."""
    if not is_symmetric(M):
        return False
    decomposition = ldl_decomposition(M)
    return decomposition is not None and all(p > 0 for p in decomposition[1])


def is_positive_semidefinite(M: Sequence[Sequence[Fraction]]) -> bool:
    """Decided exactly: symmetric, and positive semidefinite by symmetric elimination with diagonal pivoting.

    Each step takes the largest diagonal entry of what remains as pivot. A negative diagonal
    entry refutes PSD (e_p^T M e_p < 0); when every remaining diagonal entry is zero, M is PSD
    exactly when what remains is zero (a zero diagonal entry with a nonzero entry in its row
    refutes PSD: a 2 x 2 principal minor is negative); a positive pivot p is eliminated, and M
    is PSD iff the Schur complement M' = M - m_p m_p^T / M_pp on the other indices is.
    Used for the infeasibility certificates of docs/theory.md D10 (S = -sum_c y_c M_c >= 0).
    """
    if not is_symmetric(M):
        return False
    rows = [[Fraction(x) for x in row] for row in M]
    while rows:
        diagonal = [rows[i][i] for i in range(len(rows))]
        if any(x < 0 for x in diagonal):
            return False
        top = max(diagonal)
        if top == 0:
            return all(x == 0 for row in rows for x in row)
        p = diagonal.index(top)
        pivot_row = rows[p]
        rows = [[rows[i][j] - pivot_row[i] * pivot_row[j] / top for j in range(len(rows)) if j != p]
                for i in range(len(rows)) if i != p]
    return True


def solve(M: Sequence[Sequence[Fraction]], b: Sequence[Fraction]) -> list[Fraction] | None:
    """Exact solution of M x = b by Gaussian elimination, or None when M is singular."""
    n = len(M)
    aug = [list(map(Fraction, row)) + [Fraction(rhs)] for row, rhs in zip(M, b)]
    for col in range(n):
        pivot_row = next((r for r in range(col, n) if aug[r][col] != 0), None)
        if pivot_row is None:
            return None
        aug[col], aug[pivot_row] = aug[pivot_row], aug[col]
        pivot = aug[col][col]
        for r in range(n):
            if r != col and aug[r][col] != 0:
                factor = aug[r][col] / pivot
                aug[r] = [x - factor * y for x, y in zip(aug[r], aug[col])]
    return [aug[i][n] / aug[i][i] for i in range(n)]


def rank(M: Sequence[Sequence[Fraction]]) -> int:
    """Exact rank by Gaussian elimination over the rationals."""
    rows = [[Fraction(x) for x in r] for r in M]
    found = 0
    cols = len(rows[0]) if rows else 0
    for c in range(cols):
        pivot = next((r for r in range(found, len(rows)) if rows[r][c] != 0), None)
        if pivot is None:
            continue
        rows[found], rows[pivot] = rows[pivot], rows[found]
        for r in range(len(rows)):
            if r != found and rows[r][c] != 0:
                f = rows[r][c] / rows[found][c]
                rows[r] = [a - f * b for a, b in zip(rows[r], rows[found])]
        found += 1
    return found


def row_basis(M: Sequence[Sequence[Fraction]]) -> Matrix:
    """The nonzero rows of the reduced row echelon form of M: a basis of its row space, exact."""
    rows = [[Fraction(x) for x in r] for r in M]
    found = 0
    cols = len(rows[0]) if rows else 0
    for c in range(cols):
        pivot = next((r for r in range(found, len(rows)) if rows[r][c] != 0), None)
        if pivot is None:
            continue
        rows[found], rows[pivot] = rows[pivot], rows[found]
        lead = rows[found][c]
        rows[found] = [x / lead for x in rows[found]]
        for r in range(len(rows)):
            if r != found and rows[r][c] != 0:
                f = rows[r][c]
                rows[r] = [a - f * b for a, b in zip(rows[r], rows[found])]
        found += 1
    return rows[:found]


def nullspace(M: Sequence[Sequence[Fraction]], columns: int) -> Matrix:
    """A basis (as rows) of {x in Q^columns : M x = 0}, exact: one vector per free column of M's echelon form."""
    basis = row_basis(M)
    pivots = [next(c for c, x in enumerate(row) if x != 0) for row in basis]
    vectors = []
    for free in (c for c in range(columns) if c not in pivots):
        x = [Fraction(0)] * columns
        x[free] = Fraction(1)
        for row, pivot in zip(basis, pivots):
            x[pivot] = -row[free]
        vectors.append(x)
    return vectors
