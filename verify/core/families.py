"""Seeded generators of exact rational configurations ("families") that reach the theorem's hard cases.

Random configurations almost never produce the cases the theorem is careful about (docs/theory.md
§3, end of D7): persistent ties |C_i| > 1, non-vertex limit points (claim T4), collinear or
coplanar tokens, tokens on edges of the hull. Each family below is built to reach one of them,
with exact rational coordinates and ``numpy.random.default_rng(seed)`` as its only randomness,
so the same (family, seed, n, d, alpha, matrix) always gives the same configuration.

Within the hypotheses (docs/theory.md §2: nonzero, distinct tokens; A symmetric positive definite):

============== =============================================================================
generic        tokens on a grid in [-1, 1]^d (A of any kind, identity by default)
diagonal       generic tokens, diagonal A
dense_spd      generic tokens, A = B B^T + c I
ill_conditioned generic tokens, A = u u^T + eps I (condition number up to ~10^4)
mirror_ties    persistent ties from coordinate reflections, carried to any SPD A by the exact
               LDL^T change of variables z = L^{-T} y of docs/theory.md §3
sphere_ties    A = c I: rational points on the sphere (inverse stereographic projection),
               tie tokens on the rays of exposed edge midpoints, a rational (Cayley) rotation
               and a rational scaling
collinear      all tokens on one line
coplanar       all tokens on one affine plane (d >= 3)
hull_edges     a subset of the vertices of a box, tokens on its edges, interior tokens
emerging_leader A = c I: a token that leads only from layer 1 on (row 1 of docs/theory.md §4, perturbed)
face_mean_ties a token at the mean of a face whose other members (leaders, lockers) move in
               symmetric pairs, in 2-D and 3-D, carried to any SPD A: only D9 settles it
sphere_points  shells of tokens of equal A-norm (rational points of A-spheres, any SPD A): the outer
               shell all leads, so the number of leaders is as large as n allows
symmetric_polygons orbits of points under coordinate sign changes (and cyclic shifts when A's
               diagonal D is constant there): squares, octagons, cubes, cross-polytopes
tie_chains     chains of A-projections: each token ties with the previous one in its own row;
               the ties break after a few layers (late leaders, late pattern changes)
near_origin    generic tokens and tokens within ~10^-6 of the origin
close_pairs    generic tokens and partners at distance ~10^-9
============== =============================================================================

Outside the hypotheses (for the conjecture lab; ``outside_hypotheses`` is set):
``origin_token``, ``duplicates``, ``nonsymmetric_pd`` (A = S + K, K skew: positive definite
but not symmetric, docs/theory.md D8), ``rotating_polygons`` and ``cyclic_simplices`` (symmetric
configurations under A = c S + b K, preserved by a rational rotation that permutes the tokens:
tokens that attend to the next one for ever, docs/theory.md §6 and D11), ``psd_low_rank``,
``indefinite``, ``negative_semidefinite``.

Why the tie families tie forever
--------------------------------
*mirror_ties*: let A = L D L^T (exact, D diagonal) and y = L^T z, so <A z, z'> = <D y, y'>.
In y-coordinates the vertices are every sign pattern, on a set J of coordinates, of one base
vector b; reflections of coordinates in J preserve every D-inner product. For S ⊂ J nonempty
and a sign pattern on J \\ S, the point m (b with the coordinates in S set to 0) is the mean of
the face F of vertices that agree with it, <D m, v> = |m|_D^2 for v in F and
<D m, w> <= |m|_D^2 - 2 min_j D_j b_j^2 for the other vertices. A tie token t = s m, 0 < s < 1,
therefore has C_t = F as long as every other token w has |w|_D < |m|_D (Cauchy–Schwarz), it
moves along the ray towards m, and by docs/theory.md D7 it locks at layer 0 and converges to m, the
A-norm projection of the origin onto the face conv(F) of K: a non-vertex limit (T4) in every
example. Sometimes one tie token sits at m itself (s = 1): C_t = F ∪ {t}, fixed from layer 0 by
D7(b). *sphere_ties*: the vertices are distinct points of the unit sphere (all leaders by
D0), and a tie token on the ray of the midpoint m of two of them is kept only when every
other token scores strictly below |m|^2 against m, checked exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Sequence, cast

import numpy as np

from .config import Configuration, parse_configuration
from .exact_dynamics import exact_layers
from .linalg import identity, ldl_decomposition, matmul, solve, transpose
from .numbers import InputError, to_rational

__all__ = [
    "Family",
    "FAMILIES",
    "MATRIX_KINDS",
    "INSIDE_FAMILIES",
    "OUTSIDE_FAMILIES",
    "TIE_FAMILIES",
    "generate",
    "generate_face_mean_ties",
    "face_mean_ties",
    "CENTRE_KINDS",
    "random_spd_matrix",
    "cayley_rotation",
    "MAX_N",
    "MAX_D",
]

Vector = tuple[Fraction, ...]
Matrix = tuple[tuple[Fraction, ...], ...]
Built = tuple[list[Vector], "Matrix | None"]  # a family's tokens and its A

MAX_N = 32
MAX_D = 4
GRID = 8  # generic coordinates are multiples of 1/GRID: small denominators keep exact runs fast
MATRIX_KINDS: tuple[str, ...] = ("identity", "scalar", "diagonal", "dense", "ill_conditioned")
DEFAULT_ALPHAS: tuple[Fraction, ...] = (Fraction(1, 2), Fraction(1), Fraction(1, 3), Fraction(2), Fraction(3, 4))


@dataclass(frozen=True)
class Family:
    """A named generator: ``build(rng, n, d, A, alpha)`` returns the tokens (and possibly its own A).

    ``reaches`` names the hard cases the family is built to produce (the quality tests in
    ``tests/meta/test_strategies_quality.py`` measure them), ``outside`` marks families that
    violate the theorem's hypotheses on purpose.
    """

    name: str
    description: str
    build: Callable[[np.random.Generator, int, int, Matrix | None, Fraction], Built]
    default_matrix: str = "identity"
    min_n: int = 1
    min_d: int = 1
    outside: bool = False
    reaches: frozenset[str] = field(default_factory=frozenset)
    # Matrix kinds the family accepts (None: every kind of MATRIX_KINDS); outside families build their own A.
    matrices: tuple[str, ...] | None = None


# ----------------------------------------------------------------------------- small exact helpers

def _grid(rng: np.random.Generator, low: int, high: int, denominator: int) -> Fraction:
    return Fraction(int(rng.integers(low, high + 1)), denominator)


def _grid_vector(rng: np.random.Generator, d: int, *, scale: Fraction | Sequence[Fraction] = Fraction(1),
                 grid: int = GRID) -> Vector:
    scales = [scale] * d if isinstance(scale, Fraction) else list(scale)
    return tuple(scales[i] * _grid(rng, -grid, grid, grid) for i in range(d))


def _rational_below(x: float) -> Fraction:
    """A positive rational <= x (x > 0) with a power-of-two denominator: a safe exact radius."""
    k = 0
    while int(x * 2 ** k) < 4 and k < 200:
        k += 1
    return Fraction(max(int(x * 2 ** k) - 1, 1), 2 ** k)


def _ellipsoid_scales(D: Sequence[Fraction], radius2: Fraction) -> list[Fraction]:
    """Per-coordinate half-widths h_i with sum D_i h_i^2 < radius2: the box fits in the D-ball."""
    d = len(D)
    return [_rational_below(float(np.sqrt(float(radius2) / (d * float(Di))))) for Di in D]


def _is_zero(v: Sequence[Fraction]) -> bool:
    return all(x == 0 for x in v)


def _dot(u: Sequence[Fraction], v: Sequence[Fraction]) -> Fraction:
    return sum((a * b for a, b in zip(u, v)), Fraction(0))


def _quad(D: Sequence[Fraction], u: Sequence[Fraction], v: Sequence[Fraction]) -> Fraction:
    return sum((w * a * b for w, a, b in zip(D, u, v)), Fraction(0))


def _mat_vec(M: Sequence[Sequence[Fraction]], v: Sequence[Fraction]) -> Vector:
    return tuple(_dot(row, v) for row in M)


def _fresh(candidate: Vector, taken: set[Vector]) -> bool:
    """Nonzero and not yet used: the theorem's hypotheses for one more token."""
    return not _is_zero(candidate) and candidate not in taken


def _fill_generic(rng: np.random.Generator, tokens: list[Vector], n: int, d: int, *,
                  scale: Fraction | Sequence[Fraction] = Fraction(1),
                  accept: Callable[[Vector], bool] | None = None, grid: int = GRID) -> list[Vector]:
    """Append distinct nonzero grid tokens until there are n (a finer grid if the coarse one runs out)."""
    taken = set(tokens)
    attempts = 0
    while len(tokens) < n:
        attempts += 1
        if attempts % 200 == 0:
            if grid > 2 ** 12:
                raise RuntimeError(f"cannot place {n} tokens: the acceptance region is empty")  # a bug, not bad input
            grid *= 2  # small regions (accept filters) need a finer grid to hold n points
        v = _grid_vector(rng, d, scale=scale, grid=grid)
        if _fresh(v, taken) and (accept is None or accept(v)):
            taken.add(v)
            tokens.append(v)
    return tokens


def _as_matrix(rows: Sequence[Sequence[Fraction]]) -> Matrix:
    return tuple(tuple(Fraction(x) for x in row) for row in rows)


def cayley_rotation(rng: np.random.Generator, d: int, *, size: int = 3) -> Matrix:
    """A rational orthogonal matrix Q = (I - S)(I + S)^{-1}, S skew-symmetric with small rational entries.

    In d = 2 with S = [[0, -t], [t, 0]] this is the rotation by the Pythagorean triple
    ((1 - t^2), 2t, (1 + t^2)); I + S is always invertible because S has imaginary eigenvalues.
    """
    S = [[Fraction(0)] * d for _ in range(d)]
    for r in range(d):
        for c in range(r + 1, d):
            value = Fraction(int(rng.integers(-size, size + 1)), int(rng.integers(1, size + 1)))
            S[r][c], S[c][r] = value, -value
    eye = identity(d)
    minus = [[eye[r][c] - S[r][c] for c in range(d)] for r in range(d)]
    plus = [[eye[r][c] + S[r][c] for c in range(d)] for r in range(d)]
    # Q = (I - S) (I + S)^{-1}: solve (I + S)^T Q^T = (I - S)^T column by column.
    columns = [solve(transpose(plus), [minus[r][c] for c in range(d)]) for r in range(d)]
    Q = [cast(list[Fraction], col) for col in columns]  # row r of Q; I + S is invertible for skew S
    return _as_matrix(Q)


def random_spd_matrix(rng: np.random.Generator, d: int, kind: str) -> Matrix | None:
    """An exact symmetric positive definite d x d matrix of the given kind (None for the identity).

    ``scalar`` c I; ``diagonal`` positive entries in [1/4, 4]; ``dense`` B B^T + c I with B
    entries in {-3/2, ..., 3/2}; ``ill_conditioned`` u u^T + eps I with eps in {1/1000, 1/250}, so
    the condition number is 1 + |u|^2 / eps, up to about 10^4.
    """
    if kind == "identity":
        return None
    if kind == "scalar":
        c = Fraction(int(rng.integers(1, 9)), int(rng.integers(1, 5)))
        return _as_matrix([[c if r == s else Fraction(0) for s in range(d)] for r in range(d)])
    if kind == "diagonal":
        diag = [Fraction(int(rng.integers(1, 17)), 4) for _ in range(d)]
        return _as_matrix([[diag[r] if r == s else Fraction(0) for s in range(d)] for r in range(d)])
    if kind == "dense":
        B = [[Fraction(int(rng.integers(-3, 4)), 2) for _ in range(d)] for _ in range(d)]
        c = Fraction(int(rng.integers(1, 5)), 4)
        BBt = matmul(B, transpose(B))
        return _as_matrix([[BBt[r][s] + (c if r == s else 0) for s in range(d)] for r in range(d)])
    if kind == "ill_conditioned":
        u = [Fraction(int(rng.integers(-3, 4))) for _ in range(d)]
        if _is_zero(u):
            u[0] = Fraction(2)
        eps = Fraction(1, 1000) if rng.integers(0, 2) else Fraction(1, 250)
        return _as_matrix([[u[r] * u[s] + (eps if r == s else 0) for s in range(d)] for r in range(d)])
    raise InputError("matrix", f"unknown matrix kind {kind!r}; expected one of {', '.join(MATRIX_KINDS)}")


def _change_of_variables(A: Matrix | None, d: int) -> tuple[list[Fraction], Callable[[Vector], Vector]]:
    """D and the map y -> z = L^{-T} y for A = L D L^T (docs/theory.md §3): <A z, z'> = <D y, y'>."""
    if A is None:
        return [Fraction(1)] * d, lambda y: tuple(y)
    decomposition = ldl_decomposition([list(r) for r in A])
    assert decomposition is not None, "an SPD matrix has an LDL^T decomposition without pivoting"
    L, D = decomposition
    Lt = transpose(L)

    def to_z(y: Vector) -> Vector:
        z = solve(Lt, list(y))
        assert z is not None
        return tuple(z)

    return D, to_z


def _is_scalar(A: Matrix | None) -> bool:
    if A is None:
        return True
    d = len(A)
    return all(A[r][c] == (A[0][0] if r == c else 0) for r in range(d) for c in range(d))


# ----------------------------------------------------------------------------- families (inside)

def _generic(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    return _fill_generic(rng, [], n, d), A


def _mirror_ties(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    D, to_z = _change_of_variables(A, d)
    # 2^|J| vertices and at least one tie token: |J| <= log2(n - 1).
    max_J = min(d, int(np.floor(np.log2(n - 1))))
    size_J = int(rng.integers(1, max_J + 1))
    J = sorted(int(j) for j in rng.choice(d, size=size_J, replace=False))
    # Off J the base is nonzero, so that m is nonzero even when S = J.
    base = [Fraction(int(rng.integers(GRID // 2, GRID + 1)), GRID) if i in J
            else Fraction(int(rng.integers(1, GRID + 1)) * int(rng.choice([-1, 1])), GRID) for i in range(d)]

    def point(signs: dict[int, int], zeroed: frozenset[int]) -> Vector:
        return tuple(Fraction(0) if i in zeroed else (base[i] * signs[i] if i in J else base[i]) for i in range(d))

    sign_patterns = [dict(zip(J, (1 - 2 * ((mask >> b) & 1) for b in range(size_J)))) for mask in range(2 ** size_J)]
    vertices = [point(signs, frozenset()) for signs in sign_patterns]

    # Candidate tie points m (S nonempty, a sign pattern on J \ S); m = 0 is excluded (hypothesis: nonzero).
    candidates: list[tuple[frozenset[int], Vector]] = []
    for mask in range(1, 2 ** size_J):
        S = frozenset(J[b] for b in range(size_J) if (mask >> b) & 1)
        for signs in sign_patterns:
            if all(signs[j] == 1 for j in S):  # one representative per sign pattern on J \ S
                m = point(signs, S)
                if not _is_zero(m):
                    candidates.append((S, m))
    room = n - len(vertices)
    if not candidates:
        raise InputError("n", "mirror_ties needs a nonzero tie point; this draw had none")  # pragma: no cover
    count = int(rng.integers(1, min(room, len(candidates)) + 1))
    order = rng.permutation(len(candidates))[:count]
    chosen = [candidates[int(i)] for i in order]
    fractions_s = [Fraction(1, 2), Fraction(1, 3), Fraction(2, 3), Fraction(1, 4), Fraction(3, 4), Fraction(3, 5)]
    y_tokens: list[Vector] = list(vertices)
    taken = set(y_tokens)
    radius2 = None
    # A tie token placed exactly at m ties with F and with itself: it is fixed from layer 0 by D7(b)
    # (the three-way tie of docs/theory.md D7). Allowed for the first tie point only when no other tie
    # direction m' scores it as high as its own face (<D m', m> < |m'|_D^2), so no other tie moves.
    exact_first = bool(rng.integers(0, 3) == 0) and all(
        _quad(D, other, chosen[0][1]) < _quad(D, other, other) for _, other in chosen[1:])
    for index, (_face, m) in enumerate(chosen):
        s = fractions_s[int(rng.integers(0, len(fractions_s)))]
        if index == 0 and exact_first:
            s = Fraction(1)
        t = tuple(s * x for x in m)
        while t in taken:
            s = s * Fraction(7, 8)
            t = tuple(s * x for x in m)
        taken.add(t)
        y_tokens.append(t)
        norm2 = _quad(D, m, m)
        radius2 = norm2 if radius2 is None else min(radius2, norm2)
    # Interior tokens: |w|_D < min |m|_D keeps every tie (Cauchy–Schwarz in the D-inner product).
    assert radius2 is not None
    _fill_generic(rng, y_tokens, n, d, scale=_ellipsoid_scales(D, radius2), accept=lambda w: _quad(D, w, w) < radius2)
    if _is_scalar(A) and d >= 2 and rng.integers(0, 2):
        Q = cayley_rotation(rng, d)  # an isometry of the Euclidean (= D) inner product keeps every tie
        y_tokens = [_mat_vec(Q, y) for y in y_tokens]
    return [to_z(y) for y in y_tokens], A


def _sphere_point(x: Sequence[Fraction]) -> Vector:
    """Inverse stereographic projection of x in Q^{d-1}: a rational point on the unit sphere of R^d."""
    r2 = _dot(x, x)
    return tuple([2 * xi / (r2 + 1) for xi in x] + [(r2 - 1) / (r2 + 1)])


def _sphere_ties(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    # Redrawn until at least one tie exists (two antipodal vertices have no exposed midpoint).
    for _attempt in range(50):
        k = int(rng.integers(2, max(3, min(n - 1, 2 * d + 2)) + 1))
        k = min(k, n - 1)
        vertices: list[Vector] = []
        taken: set[Vector] = set()
        while len(vertices) < k:
            v = _sphere_point([_grid(rng, -2 * GRID, 2 * GRID, GRID // 2) for _ in range(d - 1)])
            if v not in taken:
                taken.add(v)
                vertices.append(v)
        tokens: list[Vector] = list(vertices)
        ties: list[tuple[Vector, Fraction, frozenset[Vector]]] = []  # (direction m, |m|^2, the face F)

        def keeps_ties(w: Vector, own: frozenset[Vector] = frozenset()) -> bool:
            # Called only within this iteration, on this iteration's list of ties.
            return all(_dot(m, w) < m2 for m, m2, F in ties if w not in F and w not in own)  # noqa: B023

        pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
        for index in rng.permutation(len(pairs)):
            if len(tokens) >= n or len(ties) >= max(1, (n - k) // 2 + 1):
                break
            a, b = pairs[int(index)]
            m = tuple((x + y) / 2 for x, y in zip(vertices[a], vertices[b]))
            m2 = _dot(m, m)
            if m2 == 0 or any(_dot(m, v) >= m2 for c, v in enumerate(vertices) if c not in (a, b)):
                continue  # the midpoint direction does not expose exactly the edge {a, b}
            s = Fraction(int(rng.integers(1, 8)), 8)
            t = tuple(s * x for x in m)
            F = frozenset({vertices[a], vertices[b]})
            if t in taken or any(_dot(m, w) >= m2 for w in tokens if w not in F) or not keeps_ties(t):
                continue
            ties.append((m, m2, F))
            taken.add(t)
            tokens.append(t)
        if ties:
            break
    radius2 = min((m2 for _, m2, _ in ties), default=Fraction(1, 4))
    _fill_generic(rng, tokens, n, d, scale=_ellipsoid_scales([Fraction(1)] * d, radius2),
                  accept=lambda w: _dot(w, w) < radius2 and keeps_ties(w))
    c = Fraction(int(rng.integers(1, 5)), int(rng.integers(1, 5)))  # scaling keeps every tie
    Q = cayley_rotation(rng, d)
    tokens = [tuple(c * x for x in _mat_vec(Q, t)) for t in tokens]
    A_scalar = A if _is_scalar(A) else None
    return tokens, A_scalar


def _collinear(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    p = _grid_vector(rng, d)
    u = _grid_vector(rng, d)
    while _is_zero(u):
        u = _grid_vector(rng, d)
    tokens: list[Vector] = []
    taken: set[Vector] = set()
    grid = GRID
    while len(tokens) < n:
        t = _grid(rng, -grid, grid, grid)
        v = tuple(pi + t * ui for pi, ui in zip(p, u))
        if _fresh(v, taken):
            taken.add(v)
            tokens.append(v)
        elif len(taken) > grid:
            grid *= 2
    return tokens, A


def _coplanar(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    p, u, w = _grid_vector(rng, d), _grid_vector(rng, d), _grid_vector(rng, d)
    tokens: list[Vector] = []
    taken: set[Vector] = set()
    while len(tokens) < n:
        s, t = _grid(rng, -GRID, GRID, GRID), _grid(rng, -GRID, GRID, GRID)
        v = tuple(pi + s * ui + t * wi for pi, ui, wi in zip(p, u, w))
        if _fresh(v, taken):
            taken.add(v)
            tokens.append(v)
    return tokens, A


def _hull_edges(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    # A subset of the vertices of a box is in convex position, and the segment between two of its
    # vertices that differ in one coordinate is an edge of the box, hence of the subset's hull.
    half = [Fraction(int(rng.integers(GRID // 2, GRID + 1)), GRID) for _ in range(d)]
    corners = [tuple(half[i] * (1 - 2 * ((mask >> i) & 1)) for i in range(d)) for mask in range(2 ** d)]
    count = int(rng.integers(2, max(2, min(len(corners), n - 1)) + 1))
    # Keep a corner and one of its neighbours so at least one edge exists.
    first = int(rng.integers(0, 2 ** d))
    neighbour = first ^ (1 << int(rng.integers(0, d)))
    rest = [i for i in rng.permutation(2 ** d) if int(i) not in (first, neighbour)]
    chosen = [first, neighbour] + [int(i) for i in rest[:count - 2]]
    tokens = [corners[i] for i in chosen]
    taken = set(tokens)
    edges = [(a, b) for a in chosen for b in chosen if a < b and bin(a ^ b).count("1") == 1]
    on_edges = int(rng.integers(1, max(1, (n - len(tokens) + 1) // 2) + 1)) if n > len(tokens) else 0
    attempts = 0
    while on_edges > 0 and attempts < 100:
        attempts += 1
        a, b = edges[int(rng.integers(0, len(edges)))]
        t = Fraction(int(rng.integers(1, GRID)), GRID)
        v = tuple(x + t * (y - x) for x, y in zip(corners[a], corners[b]))
        if _fresh(v, taken):
            taken.add(v)
            tokens.append(v)
            on_edges -= 1
    shrink = min(half) / 2
    _fill_generic(rng, tokens, n, d, scale=shrink)
    D, to_z = _change_of_variables(A, d)  # a linear bijection keeps faces, edges and convex position
    return [to_z(y) for y in tokens], A


def _emerging_leader(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    # Token i = (1, 0) attends to j = (11/10, 1/2) at layer 0 (<i, j> > <i, i>), but j attends to the
    # far token l = (0, 3) (<j, l> > |j|^2) and moves away, so i leads from layer 1 on: a leader that
    # emerges after layer 0, like row 1 of docs/theory.md §4. The template is perturbed on a grid, padded
    # with small tokens, rotated and scaled (A = c I), and kept only if an emergence is observed in
    # the exact dynamics (the unperturbed template is the fallback); D3 must then hold from layer 1.
    def emerges(tokens: list[Vector]) -> bool:
        first: set[int] | None = None
        for layer in exact_layers(tokens, alpha=alpha, A=A):
            leaders = set(layer.leaders())
            if first is None:
                first = leaders
            elif leaders - first:
                return True
            if layer.index == 8:
                return False
        return False  # pragma: no cover - the loop always returns

    pad = [Fraction(0)] * (d - 2)
    template = [(Fraction(1), Fraction(0), *pad), (Fraction(11, 10), Fraction(1, 2), *pad),
                (Fraction(0), Fraction(3), *pad)]
    for attempt in range(30):
        jitter = [] if attempt == 29 else [_grid_vector(rng, d, scale=Fraction(1, 10)) for _ in template]
        core = [tuple(x + (jitter[t][c] if jitter else 0) for c, x in enumerate(v)) for t, v in enumerate(template)]
        if len(set(core)) < 3 or any(_is_zero(v) for v in core):
            continue
        tokens = _fill_generic(rng, list(core), n, d, scale=Fraction(1, 4))
        c = Fraction(int(rng.integers(1, 5)), int(rng.integers(1, 3)))
        Q = cayley_rotation(rng, d) if rng.integers(0, 2) else None
        tokens = [tuple(c * x for x in (_mat_vec(Q, t) if Q is not None else t)) for t in tokens]
        if emerges(tokens) or attempt == 29:
            order = rng.permutation(len(tokens))  # the emerging token is not always token 0
            return [tokens[int(i)] for i in order], A
    raise AssertionError("unreachable")  # pragma: no cover


def _quadratic_form(A: Matrix | None) -> Callable[[Sequence[Fraction], Sequence[Fraction]], Fraction]:
    """(u, v) -> <A u, v> (A = I when None)."""
    if A is None:
        return _dot
    return lambda u, v: _dot(_mat_vec(A, u), v)


def _sphere_points(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    # Points of equal A-norm: from a rational point p on the A-sphere, the line p + t v meets the
    # sphere again at t = -2 <A p, v> / <A v, v>, a rational point. Distinct points of one A-sphere
    # are all leaders at layer 0 (docs/theory.md D0: Cauchy-Schwarz in the A-inner product), so the
    # outer shell gives as many leaders as it has points; inner shells (smaller A-norm) attend them.
    form = _quadratic_form(A)
    shells = int(rng.integers(1, min(3, n) + 1))
    cuts = sorted(int(c) for c in rng.choice(np.arange(1, n), size=shells - 1, replace=False)) if shells > 1 else []
    sizes = sorted((b - a for a, b in zip([0, *cuts], [*cuts, n])), reverse=True)  # the outer shell is the largest
    origin_point = _grid_vector(rng, d)
    while _is_zero(origin_point):
        origin_point = _grid_vector(rng, d)

    def another(p: Vector) -> Vector | None:
        """The second point where a line through p with a random grid direction meets p's A-sphere."""
        v = _grid_vector(rng, d)
        if _is_zero(v):
            return None
        t = -2 * form(p, v) / form(v, v)
        return None if t == 0 else tuple(x + t * y for x, y in zip(p, v))

    tokens: list[Vector] = []
    taken: set[Vector] = set()
    scale = Fraction(1)
    for index, size in enumerate(sizes):
        # Inner shells: a point of the outer sphere scaled by scale < 1, so their A-norm is scale times smaller.
        p = origin_point if index == 0 else tuple(scale * x for x in (another(origin_point) or origin_point))
        shell = [p] if p not in taken else []
        if rng.integers(0, 2) and tuple(-x for x in p) not in taken:
            shell.append(tuple(-x for x in p))  # the antipode: a centrally symmetric shell
        attempts = 0
        while len(shell) < size and attempts < 200:
            attempts += 1
            point = another(p)
            if point is not None and point not in taken and point not in shell:
                shell.append(point)
        for point in shell[:size]:
            taken.add(point)
            tokens.append(point)
        scale *= Fraction(int(rng.integers(1, 4)), 4)
    _fill_generic(rng, tokens, n, d, scale=scale)
    order = rng.permutation(len(tokens))
    return [tokens[int(i)] for i in order], A


def _symmetric_polygons(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    # In the coordinates y of A = L D L^T (z = L^{-T} y, <A z, z'> = <D y, y'>): orbits of base points
    # under the sign changes of a set J of coordinates, and, when the D entries on J are equal, their
    # cyclic permutations. Every point of an orbit has the same D-norm, so an outer orbit is all
    # leaders: the square (+-1, +-1), rectangles, octagons, cross-polytopes, cubes. Orbits that do not
    # fit in n tokens are cut; the rest are smaller orbits (scaled) and interior tokens.
    D, to_z = _change_of_variables(A, d)
    size_J = int(rng.integers(1, d + 1))
    J = sorted(int(j) for j in rng.choice(d, size=size_J, replace=False))
    permutable = len({D[j] for j in J}) == 1 and size_J >= 2
    tokens: list[Vector] = []
    taken: set[Vector] = set()
    scale = Fraction(1)
    for _orbit in range(3):
        room = n - len(tokens)
        if room <= 0:
            break
        base = [Fraction(int(rng.integers(1, GRID + 1)), GRID) if i in J
                else Fraction(int(rng.integers(-GRID, GRID + 1)), GRID) for i in range(d)]
        base = [scale * x for x in base]
        shifts = range(size_J) if permutable and rng.integers(0, 2) else range(1)
        orbit: list[Vector] = []
        for shift in shifts:
            # Cyclic shift of the values on J (equal D entries there keep the D-norm).
            values = [base[J[(k + shift) % size_J]] for k in range(size_J)]
            shifted = list(base)
            for k, j in enumerate(J):
                shifted[j] = values[k]
            for mask in range(2 ** size_J):
                point = list(shifted)
                for b, j in enumerate(J):
                    if (mask >> b) & 1:
                        point[j] = -point[j]
                orbit.append(tuple(point))
        orbit = list(dict.fromkeys(p for p in orbit if not _is_zero(p) and p not in taken))
        if len(orbit) > room:
            orbit = [orbit[int(i)] for i in sorted(rng.choice(len(orbit), size=room, replace=False))]
        tokens += orbit
        taken.update(orbit)
        scale *= Fraction(int(rng.integers(1, 4)), 4)
    radius2 = min(_quad(D, y, y) for y in tokens)
    _fill_generic(rng, tokens, n, d, scale=_ellipsoid_scales(D, radius2), accept=lambda w: _quad(D, w, w) < radius2)
    order = rng.permutation(len(tokens))
    return [to_z(tokens[int(i)]) for i in order], A


def _tie_chains(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    # Chains z_0, z_1, ... where z_{k+1} = (<A v, z_k> / <A v, v>) v is the A-projection of z_k onto
    # a line: then <A z_{k+1}, z_k> = <A z_{k+1}, z_{k+1}>, so z_{k+1} ties with z_k in its own row
    # (it is in its own attention set with z_k when nothing scores higher). These self-ties break
    # as z_k moves, some only after a few layers: a token then becomes a leader late (an
    # emergence at layer 2 or later is about a hundred times commoner here than among generic
    # tokens) and attention patterns change late.
    form = _quadratic_form(A)
    tokens: list[Vector] = []
    taken: set[Vector] = set()
    while len(tokens) < n:
        z = _grid_vector(rng, d)
        if _is_zero(z) or z in taken:
            continue
        tokens.append(z)
        taken.add(z)
        length = int(rng.integers(1, max(2, min(6, n - len(tokens) + 1))))
        for _ in range(length):
            if len(tokens) >= n:
                break
            v = _grid_vector(rng, d)
            if _is_zero(v):
                continue
            projected = tuple(form(v, z) / form(v, v) * x for x in v)
            if _is_zero(projected) or projected in taken:
                break
            tokens.append(projected)
            taken.add(projected)
            z = projected
    order = rng.permutation(len(tokens))
    return [tokens[int(i)] for i in order], A


def _near_origin(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    near = int(rng.integers(1, max(1, n // 2) + 1))
    tokens = _fill_generic(rng, [], near, d, scale=Fraction(1, 10 ** 6), grid=4)
    return _fill_generic(rng, tokens, n, d), A


def _close_pairs(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    tokens = _fill_generic(rng, [], (n + 1) // 2, d)
    taken = set(tokens)
    while len(tokens) < n:
        partner_of = tokens[int(rng.integers(0, len(tokens)))]
        offset = _grid_vector(rng, d, scale=Fraction(1, 10 ** 9), grid=4)
        v = tuple(x + o for x, o in zip(partner_of, offset))
        if _fresh(v, taken):
            taken.add(v)
            tokens.append(v)
    return tokens, A


# ----------------------------------------------------------------------------- families (outside)

def _unimodular(rng: np.random.Generator, d: int) -> list[list[Fraction]]:
    """An integer matrix of determinant 1 (unit lower times unit upper triangular)."""
    lower = [[Fraction(1 if r == c else (int(rng.integers(-2, 3)) if r > c else 0)) for c in range(d)] for r in range(d)]
    upper = [[Fraction(1 if r == c else (int(rng.integers(-2, 3)) if r < c else 0)) for c in range(d)] for r in range(d)]
    return matmul(lower, upper)


def _congruent(rng: np.random.Generator, diag: Sequence[Fraction]) -> Matrix:
    """P^T diag P with P unimodular: by Sylvester's law of inertia it has the signs of ``diag``."""
    d = len(diag)
    P = _unimodular(rng, d)
    middle = [[diag[r] if r == c else Fraction(0) for c in range(d)] for r in range(d)]
    return _as_matrix(matmul(transpose(P), matmul(middle, P)))


def _origin_token(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    tokens: list[Vector] = [tuple(Fraction(0) for _ in range(d))]
    if d >= 2 and n >= 5 and rng.integers(0, 2):
        # docs/theory.md D4: the square (+-1, +-1) plus the origin keeps the origin token at 0 forever.
        tokens += [tuple([Fraction(sx), Fraction(sy)] + [Fraction(0)] * (d - 2)) for sx in (1, -1) for sy in (1, -1)]
    return _fill_generic(rng, tokens, n, d), A


def _duplicates(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    distinct = _fill_generic(rng, [], max(1, n - int(rng.integers(1, max(1, n // 2) + 1))), d)
    tokens = list(distinct)
    while len(tokens) < n:
        tokens.append(distinct[int(rng.integers(0, len(distinct)))])
    order = rng.permutation(n)
    return [tokens[int(i)] for i in order], A


def _nonsymmetric_pd(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    S = random_spd_matrix(rng, d, "dense")
    assert S is not None
    K = [[Fraction(0)] * d for _ in range(d)]
    for r in range(d):
        for c in range(r + 1, d):
            K[r][c] = Fraction(int(rng.integers(-4, 5)), 2)
            K[c][r] = -K[r][c]
    if d >= 2 and all(K[r][c] == 0 for r in range(d) for c in range(d)):
        K[0][1], K[1][0] = Fraction(1), Fraction(-1)
    # x^T (S + K) x = x^T S x > 0: positive definite, and not symmetric as soon as K != 0.
    matrix = _as_matrix([[S[r][c] + K[r][c] for c in range(d)] for r in range(d)])
    return _fill_generic(rng, [], n, d), matrix


def _psd_low_rank(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    rank = int(rng.integers(1, d))
    diag = [Fraction(int(rng.integers(1, 5))) if i < rank else Fraction(0) for i in range(d)]
    return _fill_generic(rng, [], n, d), _congruent(rng, diag)


def _indefinite(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    negatives = int(rng.integers(1, d))
    diag = [Fraction(-int(rng.integers(1, 5))) if i < negatives else Fraction(int(rng.integers(1, 5))) for i in range(d)]
    return _fill_generic(rng, [], n, d), _congruent(rng, diag)


def _negative_semidefinite(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    rank = int(rng.integers(1, d + 1))
    diag = [Fraction(-int(rng.integers(1, 5))) if i < rank else Fraction(0) for i in range(d)]
    return _fill_generic(rng, [], n, d), _congruent(rng, diag)


# ----------------------------------------------------------------------------- rotations: non-symmetric A
# A rational linear map R of finite order that preserves A (R^T A R = A) carries the configuration's
# orbits to themselves, so the attention pattern is R-equivariant. With A = c S + b K (S symmetric
# positive definite, K skew, both preserved by R) every token may attend to the next one of its orbit
# rather than to itself: with b large enough no token leads at layer 0, and on one planar orbit the
# layers are similar copies of each other (docs/theory.md D11: no token ever leads, T0 fails).

# Rational rotations of order m in the plane and a metric S they preserve (R^T S R = S): the square
# (order 4, S = I) and the hexagonal lattice (orders 3 and 6, S = [[2, -1], [-1, 2]]).
_PLANAR_ROTATIONS: dict[int, tuple[list[list[int]], list[list[int]]]] = {
    4: ([[1, 0], [0, 1]], [[0, -1], [1, 0]]),
    3: ([[2, -1], [-1, 2]], [[0, -1], [1, -1]]),
    6: ([[2, -1], [-1, 2]], [[1, -1], [1, 0]]),
}
# Ratios b / c of the skew part to the symmetric part (b > 0: A is not symmetric): small ones keep
# leaders, large ones make every token attend to another.
_SKEW_RATIOS: tuple[Fraction, ...] = (Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(3), Fraction(5))


def _orbit(R: Sequence[Sequence[Fraction]], base: Vector, limit: int) -> list[Vector]:
    """base, R base, R^2 base, ... until it comes back (at most ``limit`` points)."""
    points = [base]
    while len(points) < limit:
        following = _mat_vec(R, points[-1])
        if following == base:
            break
        points.append(following)
    return points


def _conjugated(rng: np.random.Generator, tokens: list[Vector], A: list[list[Fraction]]) -> Built:
    """The same scores in other coordinates: y = U x, A' = U^{-T} A U^{-1}, U unimodular (or U = I)."""
    d = len(A)
    if rng.integers(0, 2):
        return tokens, _as_matrix(A)
    U = _unimodular(rng, d)
    columns = [solve(U, [Fraction(int(r == c)) for r in range(d)]) for c in range(d)]
    inverse = [[cast(list[Fraction], columns[c])[r] for c in range(d)] for r in range(d)]
    return [_mat_vec(U, t) for t in tokens], _as_matrix(matmul(transpose(inverse), matmul(A, inverse)))


def _pad(rng: np.random.Generator, tokens: list[Vector], n: int, d: int) -> list[Vector]:
    """Up to n tokens: the structure, then small generic tokens (they break its symmetry on purpose)."""
    tokens = tokens[:n]
    return _fill_generic(rng, tokens, n, d, scale=Fraction(1, 4))


def _rotating_polygons(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    # Orbits of a planar rational rotation R of order m (docs/theory.md §6, general A), in the plane of the
    # first two coordinates of R^d, A = c S + b J on that plane (J the rotation by 90 degrees, which every
    # R of determinant 1 preserves) and a positive diagonal on the others; then other coordinates.
    orders = [m for m in _PLANAR_ROTATIONS if n % m == 0] or list(_PLANAR_ROTATIONS)
    m = orders[int(rng.integers(0, len(orders)))]
    S_int, R_int = _PLANAR_ROTATIONS[m]
    c = Fraction(int(rng.integers(1, 5)), 2)
    b = c * _SKEW_RATIOS[int(rng.integers(0, len(_SKEW_RATIOS)))]
    A_full = [[Fraction(0)] * d for _ in range(d)]
    for r in range(2):
        for q in range(2):
            A_full[r][q] = c * S_int[r][q] + b * (-1 if (r, q) == (0, 1) else 1 if (r, q) == (1, 0) else 0)
    for r in range(2, d):
        A_full[r][r] = Fraction(int(rng.integers(1, 5)), 2)
    R = [[Fraction(x) for x in row] for row in R_int]
    tokens: list[Vector] = []
    orbits = 1 if n < 2 * m or rng.integers(0, 2) else int(rng.integers(1, n // m + 1))
    for index in range(orbits):
        base = _grid_vector(rng, 2)
        while _is_zero(base):
            base = _grid_vector(rng, 2)
        scale = Fraction(1, index + 1)
        for point in _orbit(R, tuple(scale * x for x in base), m):
            token = point + tuple(Fraction(0) for _ in range(d - 2))
            if token not in tokens:
                tokens.append(token)
    return _conjugated(rng, _pad(rng, tokens, n, d), A_full)


def _cyclic_simplices(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction) -> Built:
    # A signed cyclic permutation R of the first k coordinates (R e_i = e_(i+1), R e_k = sigma e_1): the
    # orbit of e_1 is a simplex (sigma = 1, k vertices) or a cross-polytope (sigma = -1, 2k vertices), and
    # A = c I + b (R - R^T) is preserved by R; orbits of other base points, then other coordinates.
    k = int(rng.integers(2, min(d, n) + 1))
    # For k = 2 only sigma = -1 (the rotation by 90 degrees): the swap is symmetric, so R - R^T = 0.
    sigma = -1 if k == 2 or (2 * k <= n and rng.integers(0, 2)) else 1
    R = [[Fraction(0)] * d for _ in range(d)]
    for i in range(d):
        if i >= k:
            R[i][i] = Fraction(1)
        elif i + 1 < k:
            R[i + 1][i] = Fraction(1)
        else:
            R[0][i] = Fraction(sigma)
    c = Fraction(int(rng.integers(1, 5)), 2)
    b = c * _SKEW_RATIOS[int(rng.integers(0, len(_SKEW_RATIOS)))]
    A_full = [[(c if r == q else Fraction(0)) + b * (R[r][q] - R[q][r]) for q in range(d)] for r in range(d)]
    order = k if sigma == 1 else 2 * k
    tokens: list[Vector] = []
    first = tuple(Fraction(int(i == 0)) for i in range(d))
    for index in range(max(1, n // order)):
        base = first if index == 0 else tuple(Fraction(int(rng.integers(-GRID, GRID + 1)), GRID) if i < k
                                              else Fraction(0) for i in range(d))
        if _is_zero(base):
            continue
        for point in _orbit(R, base, order):
            if point not in tokens:
                tokens.append(point)
    return _conjugated(rng, _pad(rng, tokens, n, d), A_full)


# ----------------------------------------------------------------------------- face_mean_ties (docs/theory.md D9)
# Why face_mean_ties needs D9.
#
# D7 certifies a token whose attention set is made of *fixed* tokens. The configurations below
# give a token whose set keeps *moving* tokens for ever, so that only a closed-form certificate
# (D9) settles it; seeded campaigns meet them among hull-edge and diagonal configurations.
#
# Construction, in coordinates y with A = L D L^T and z = L^{-T} y (so <A z, z'> = <D y, y'>,
# docs/theory.md §3; D = I and z = y for A = I):
#
# * the face is the hyperplane y_0 = c (c != 0), its centre m = c e_0 is the D-norm projection
#   of the origin onto it;
# * leaders on the face: the points (c, s * u) for sign patterns s of a base u (coordinates
#   1..d-1), taken in pairs (c, v), (c, -v) (the reflection y -> (y_0, -y_1, ..., -y_(d-1)), an
#   isometry of the D-inner product fixing m). All have the largest D-norm, so each leads at
#   layer 0 (docs/theory.md D0, Cauchy-Schwarz);
# * lockers on the face: (c, theta v) and (c, -theta v), 0 < theta < 1, each attending only to
#   the leader (c, +-v) it lies towards, so it locks onto it (D7) and moves along the face;
# * the centre: a token at m ties with every token of the face and with itself (every score
#   against D m is D_0 c^2); the pairs' displacements cancel in the face's mean, so it never
#   moves although its set keeps moving tokens. Optionally (or instead) a token at s m,
#   0 < s < 1, ties with the face and m but not with itself, and converges geometrically to m;
# * other tokens (up to n) lie strictly inside (c y_0 < c^2 and a smaller D-norm), kept only if the
#   structure's attention sets at layer 0 are as designed (checked exactly).
#
# Nothing about the later layers is assumed: the tests run the exact dynamics and the
# closed-form certificate on every configuration drawn.

# Where the centre tokens go: at m (in its own set), at s m (not in its own set), or both.
CENTRE_KINDS: tuple[str, ...] = ("at_mean", "inside", "both")
FACE_MEAN_MIN_N = 5  # two leaders, two lockers, one centre
_THETAS = (Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1, 3), Fraction(2, 3), Fraction(3, 5))


def _face_structure(rng: np.random.Generator, n: int, d: int, centre: str) -> tuple[list[Vector], Fraction]:
    """The face tokens (leader pairs, locker pairs, centres) in y-coordinates, at most n of them, and c."""
    c = Fraction(int(rng.integers(GRID // 2, GRID + 1)), GRID) * int(rng.choice([-1, 1]))
    # Base u: nonzero on a nonempty set J of the coordinates 1..d-1.
    size_J = int(rng.integers(1, d))
    J = sorted(int(j) for j in rng.choice(np.arange(1, d), size=size_J, replace=False))
    u = [Fraction(0)] * d
    for j in J:
        u[j] = Fraction(int(rng.integers(GRID // 2, GRID + 1)), GRID)
    centres = 2 if centre == "both" else 1
    # Sign patterns on J up to the overall sign: one representative v of each pair {v, -v}.
    patterns = [[1] + [1 - 2 * ((mask >> b) & 1) for b in range(size_J - 1)] for mask in range(2 ** (size_J - 1))]
    order = rng.permutation(len(patterns))
    # Every leader pair costs 2 tokens, and one locker pair (2 more) is always needed.
    room_pairs = max(1, min(len(patterns), (n - centres - 2) // 2))
    pairs = [patterns[int(i)] for i in order[:int(rng.integers(1, room_pairs + 1))]]

    def face_point(signs: Sequence[int], scale: Fraction) -> Vector:
        y = [Fraction(0)] * d
        y[0] = c
        for j, s in zip(J, signs):
            y[j] = scale * s * u[j]
        return tuple(y)

    tokens: list[Vector] = []
    for signs in pairs:
        tokens += [face_point(signs, Fraction(1)), face_point([-s for s in signs], Fraction(1))]
    lockers: list[Vector] = []
    for index, signs in enumerate(pairs):
        # The first pair always gets a locker pair (the moving members); the others 0 to 2.
        count = max(1 if index == 0 else 0, int(rng.integers(0, 3)))
        for theta in [_THETAS[int(i)] for i in rng.permutation(len(_THETAS))[:count]]:
            if len(tokens) + len(lockers) + 2 + centres <= n or not lockers:
                lockers += [face_point(signs, theta), face_point([-s for s in signs], theta)]
    tokens += lockers
    m = tuple(c if i == 0 else Fraction(0) for i in range(d))
    if centre in ("at_mean", "both"):
        tokens.append(m)
    if centre in ("inside", "both"):
        s = Fraction(int(rng.integers(1, GRID)), GRID)
        tokens.append(tuple(s * x for x in m))
    return tokens, c


def _face_sets(tokens: Sequence[Vector], D: Sequence[Fraction]) -> list[frozenset[int]]:
    d = len(D)
    diagonal = [[D[r] if r == s else Fraction(0) for s in range(d)] for r in range(d)]
    return next(exact_layers(tokens, alpha=1, A=diagonal)).attention_sets()


def face_mean_ties(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction, *,
                   centre: str | None = None) -> Built:
    """Tokens of the face-mean structure (see "Why face_mean_ties needs D9" above), padded to n with inside tokens."""
    if d < 2 or n < FACE_MEAN_MIN_N:
        raise InputError("n" if d >= 2 else "d", f"face_mean_ties needs d >= 2 and n >= {FACE_MEAN_MIN_N}, got n={n}, d={d}")
    D, to_z = _change_of_variables(A, d)
    centre = centre or CENTRE_KINDS[int(rng.integers(0, len(CENTRE_KINDS)))]
    if centre not in CENTRE_KINDS:
        raise InputError("centre", f"expected one of {', '.join(CENTRE_KINDS)}, got {centre!r}")
    if centre == "both" and n < FACE_MEAN_MIN_N + 1:
        centre = "at_mean"
    structure, c = _face_structure(rng, n, d, centre)
    radius2 = max(_quad(D, y, y) for y in structure)
    expected = _face_sets(structure, D)
    tokens = list(structure)
    taken = set(tokens)
    attempts = 0
    while len(tokens) < n:
        attempts += 1
        if attempts > 2000:
            raise RuntimeError(f"cannot place {n} tokens inside the face structure")  # a bug, not bad input
        grid = GRID * (1 + attempts // 100)
        y = tuple(Fraction(int(rng.integers(-grid, grid + 1)), grid) for _ in range(d))
        if y in taken or not any(y) or c * y[0] >= c * c or _quad(D, y, y) >= radius2:
            continue
        if _face_sets(tokens + [y], D)[:len(structure)] != expected:
            continue  # an inside token must not change the structure's sets at layer 0
        tokens.append(y)
        taken.add(y)
    order = rng.permutation(len(tokens))
    return [to_z(tokens[int(i)]) for i in order], A


def generate_face_mean_ties(seed: int, *, n: int, d: int, alpha: Fraction | int | str | None = None,
                            matrix: str = "identity", centre: str | None = None) -> Configuration:
    """The configuration of :data:`FACE_MEAN_TIES` for this seed (same arguments, same configuration)."""
    if matrix not in MATRIX_KINDS:
        raise InputError("matrix", f"unknown matrix kind {matrix!r}; expected one of {', '.join(MATRIX_KINDS)}")
    rng = np.random.default_rng(seed)
    A = random_spd_matrix(rng, d, matrix)
    default_alpha = DEFAULT_ALPHAS[int(rng.integers(0, len(DEFAULT_ALPHAS)))]
    alpha = default_alpha if alpha is None else to_rational(alpha, field="alpha")
    if alpha <= 0:
        raise InputError("alpha", f"expected alpha > 0, got {alpha}")
    tokens, A = face_mean_ties(rng, n, d, A, alpha, centre=centre)
    data: dict = {"name": f"face_mean_ties-seed{seed}-n{n}-d{d}",
                  "description": f"verify.core.families.generate_face_mean_ties({seed}, n={n}, d={d}, "
                                 f"matrix={matrix!r}, centre={centre!r})",
                  "tokens": [list(t) for t in tokens], "alpha": alpha}
    if A is not None:
        data["A"] = [list(r) for r in A]
    return parse_configuration(data)


FAMILIES: dict[str, Family] = {f.name: f for f in [
    Family("generic", "grid tokens in [-1, 1]^d", _generic),
    Family("diagonal", "grid tokens, diagonal A", _generic, default_matrix="diagonal"),
    Family("dense_spd", "grid tokens, A = B B^T + c I", _generic, default_matrix="dense"),
    Family("ill_conditioned", "grid tokens, A = u u^T + eps I", _generic, default_matrix="ill_conditioned"),
    Family("mirror_ties", "persistent ties by coordinate reflections, carried to A by z = L^{-T} y",
           _mirror_ties, min_n=3, min_d=2, reaches=frozenset({"tie", "persistent_tie", "nonvertex_limit"})),
    Family("sphere_ties", "A = c I: rational points on the sphere, tie tokens on exposed edge midpoints",
           _sphere_ties, min_n=3, min_d=2, matrices=("identity", "scalar"),
           reaches=frozenset({"tie", "persistent_tie", "nonvertex_limit"})),
    Family("collinear", "all tokens on one line", _collinear, min_n=2, reaches=frozenset({"collinear"})),
    Family("coplanar", "all tokens on one affine plane", _coplanar, min_n=3, min_d=3, reaches=frozenset({"coplanar"})),
    Family("hull_edges", "box vertices, tokens on the edges of their hull, interior tokens", _hull_edges,
           min_n=3, min_d=2, reaches=frozenset({"edge_point"})),
    Family("emerging_leader", "a token that is not a leader at layer 0 becomes one later (A = c I)",
           _emerging_leader, min_n=3, min_d=2, matrices=("identity", "scalar"), reaches=frozenset({"emerging_leader"})),
    Family("face_mean_ties", "a token at the mean of a face whose other members (leaders, lockers) move in symmetric "
           "pairs (docs/theory.md D9)", face_mean_ties, min_n=FACE_MEAN_MIN_N, min_d=2,
           reaches=frozenset({"tie", "persistent_tie", "moving_tie", "nonvertex_limit"})),
    Family("sphere_points", "shells of tokens with equal A-norm (rational points of A-spheres): the outer shell "
           "all leads", _sphere_points, min_n=2, min_d=2, reaches=frozenset({"many_leaders"})),
    Family("symmetric_polygons", "orbits under sign changes (and cyclic shifts): squares, octagons, cubes, "
           "cross-polytopes, carried to A by z = L^{-T} y", _symmetric_polygons, min_n=2, min_d=2,
           reaches=frozenset({"many_leaders", "symmetric"})),
    Family("tie_chains", "chains of A-projections: each token ties with the previous one in its own row, and the ties "
           "break late", _tie_chains, min_n=2, min_d=2,
           reaches=frozenset({"tie", "self_tie", "late_emergence", "late_pattern"})),
    Family("near_origin", "tokens within ~1e-6 of the origin", _near_origin, reaches=frozenset({"near_origin"})),
    Family("close_pairs", "pairs of tokens at distance ~1e-9", _close_pairs, min_n=2, reaches=frozenset({"close_pair"})),
    Family("origin_token", "one token at the origin (docs/theory.md D4)", _origin_token, outside=True,
           reaches=frozenset({"origin_token"})),
    Family("duplicates", "repeated tokens (docs/theory.md D5)", _duplicates, min_n=2, outside=True,
           reaches=frozenset({"duplicates"})),
    Family("nonsymmetric_pd", "A = S + K, S SPD, K skew: positive definite, not symmetric (docs/theory.md D8)",
           _nonsymmetric_pd, min_d=2, outside=True, reaches=frozenset({"nonsymmetric_A"})),
    Family("rotating_polygons", "orbits of a rational rotation of order 3, 4 or 6 in a plane, A = c S + b J there "
           "(positive definite, not symmetric): tokens may attend to the next vertex for ever, with no leader "
           "(docs/theory.md §6, D11)", _rotating_polygons, min_n=2, min_d=2, outside=True,
           reaches=frozenset({"nonsymmetric_A", "rotating", "no_leader"})),
    Family("cyclic_simplices", "simplices and cross-polytopes whose vertices a signed cyclic permutation R carries "
           "to each other, A = c I + b (R - R^T): each vertex may attend to the next", _cyclic_simplices, min_n=2,
           min_d=2, outside=True, reaches=frozenset({"nonsymmetric_A", "rotating"})),
    Family("psd_low_rank", "A positive semidefinite of rank < d", _psd_low_rank, min_d=2, outside=True,
           reaches=frozenset({"psd_A"})),
    Family("indefinite", "A symmetric indefinite", _indefinite, min_d=2, outside=True,
           reaches=frozenset({"indefinite_A"})),
    Family("negative_semidefinite", "A symmetric negative semidefinite", _negative_semidefinite, outside=True,
           reaches=frozenset({"nsd_A"})),
]}
INSIDE_FAMILIES: tuple[str, ...] = tuple(name for name, f in FAMILIES.items() if not f.outside)
OUTSIDE_FAMILIES: tuple[str, ...] = tuple(name for name, f in FAMILIES.items() if f.outside)
TIE_FAMILIES: tuple[str, ...] = tuple(name for name, f in FAMILIES.items() if "persistent_tie" in f.reaches)


def generate(family: str, seed: int, *, n: int, d: int, alpha: Fraction | int | None = None,
             matrix: str | None = None) -> Configuration:
    """The configuration of ``family`` for this seed: exact, and the same for the same arguments.

    Parameters
    ----------
    family
        A key of :data:`FAMILIES`.
    seed
        Seed of ``numpy.random.default_rng``; the only source of randomness.
    n, d
        Number of tokens (1..:data:`MAX_N`) and dimension (1..:data:`MAX_D`); each family has
        its own minimum (``FAMILIES[name].min_n`` / ``min_d``).
    alpha
        Step parameter, an exact number (parsed by the caller); by default drawn from a few
        simple values with the same seed.
    matrix
        Kind of A for families inside the hypotheses (one of :data:`MATRIX_KINDS`); default the
        family's own. Outside families build their own A and refuse this option.

    Raises
    ------
    InputError
        Unknown family or matrix kind, or n, d outside the family's range.
    """
    if family not in FAMILIES:
        raise InputError("family", f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
    spec = FAMILIES[family]
    if not (spec.min_n <= n <= MAX_N):
        raise InputError("n", f"family {family!r} needs {spec.min_n} <= n <= {MAX_N}, got {n}")
    if not (spec.min_d <= d <= MAX_D):
        raise InputError("d", f"family {family!r} needs {spec.min_d} <= d <= {MAX_D}, got {d}")
    if spec.outside and matrix is not None:
        raise InputError("matrix", f"family {family!r} builds its own matrix A")
    kind = matrix or spec.default_matrix
    if spec.matrices is not None and kind not in spec.matrices:
        raise InputError("matrix", f"family {family!r} accepts matrix kinds {', '.join(spec.matrices)}, got {kind!r}")
    rng = np.random.default_rng(seed)
    A = None if spec.outside else random_spd_matrix(rng, d, kind)
    # The default alpha is always drawn, so a given alpha does not shift the rest of the random stream.
    default_alpha = DEFAULT_ALPHAS[int(rng.integers(0, len(DEFAULT_ALPHAS)))]
    alpha = default_alpha if alpha is None else Fraction(alpha)
    if alpha <= 0:
        raise InputError("alpha", f"expected alpha > 0, got {alpha}")
    tokens, A = spec.build(rng, n, d, A, alpha)
    data: dict = {
        "name": f"{family}-seed{seed}-n{n}-d{d}",
        "description": f"verify.core.families.generate({family!r}, {seed}, n={n}, d={d}, matrix={kind!r}): {spec.description}",
        "tokens": [list(t) for t in tokens],
        "alpha": alpha,
    }
    if A is not None:
        data["A"] = [list(r) for r in A]
    if spec.outside:
        data["outside_hypotheses"] = True
    # Validation re-decides the hypotheses exactly: a family inside them that broke them raises here.
    return parse_configuration(data)
