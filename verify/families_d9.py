"""A family for THEORY.md D9: a token at the mean of a face whose other members move symmetrically.

D7 certifies a token whose attention set is made of *fixed* tokens. The configurations below
give a token whose set keeps *moving* tokens for ever, so that only a closed-form certificate
(D9) settles it; seeded campaigns meet them among hull-edge and diagonal configurations.

Construction, in coordinates y with A = L D L^T and z = L^{-T} y (so <A z, z'> = <D y, y'>,
THEORY.md §3; D = I and z = y for A = I):

* the face is the hyperplane y_0 = c (c != 0), its centre m = c e_0 is the D-norm projection
  of the origin onto it;
* leaders on the face: the points (c, s * u) for sign patterns s of a base u (coordinates
  1..d-1), taken in pairs (c, v), (c, -v) (the reflection y -> (y_0, -y_1, ..., -y_(d-1)), an
  isometry of the D-inner product fixing m). All have the largest D-norm, so each leads at
  layer 0 (THEORY.md D0, Cauchy-Schwarz);
* lockers on the face: (c, theta v) and (c, -theta v), 0 < theta < 1, each attending only to
  the leader (c, +-v) it lies towards, so it locks onto it (D7) and moves along the face;
* the centre: a token at m ties with every token of the face and with itself (every score
  against D m is D_0 c^2); the pairs' displacements cancel in the face's mean, so it never
  moves although its set keeps moving tokens. Optionally (or instead) a token at s m,
  0 < s < 1, ties with the face and m but not with itself, and converges geometrically to m;
* other tokens (up to n) lie strictly inside (c y_0 < c^2 and a smaller D-norm), kept only if the
  structure's attention sets at layer 0 are as designed (checked exactly).

Nothing about the later layers is assumed: the tests run the exact dynamics and the
closed-form certificate on every configuration drawn.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import numpy as np

from .config import Configuration, parse_configuration
from .families import DEFAULT_ALPHAS, GRID, MATRIX_KINDS, Family, Matrix, Vector, random_spd_matrix
from .families import _change_of_variables  # the one exact LDL^T change of variables of THEORY.md §3
from .numbers import InputError, to_rational
from .exact_dynamics import exact_layers

__all__ = ["FACE_MEAN_TIES", "face_mean_ties", "generate_face_mean_ties", "CENTRE_KINDS"]

# Where the centre tokens go: at m (in its own set), at s m (not in its own set), or both.
CENTRE_KINDS: tuple[str, ...] = ("at_mean", "inside", "both")
MIN_N = 5  # two leaders, two lockers, one centre
_THETAS = (Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1, 3), Fraction(2, 3), Fraction(3, 5))


def _quad(D: Sequence[Fraction], u: Sequence[Fraction], v: Sequence[Fraction]) -> Fraction:
    return sum((w * a * b for w, a, b in zip(D, u, v)), Fraction(0))


def _structure(rng: np.random.Generator, n: int, d: int, centre: str) -> tuple[list[Vector], Fraction]:
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


def _sets(tokens: Sequence[Vector], D: Sequence[Fraction]) -> list[frozenset[int]]:
    d = len(D)
    diagonal = [[D[r] if r == s else Fraction(0) for s in range(d)] for r in range(d)]
    return next(exact_layers(tokens, alpha=1, A=diagonal)).attention_sets()


def face_mean_ties(rng: np.random.Generator, n: int, d: int, A: Matrix | None, alpha: Fraction, *,
                   centre: str | None = None) -> tuple[list[Vector], Matrix | None]:
    """Tokens of the face-mean structure (see the module docstring), padded to n with inside tokens."""
    if d < 2 or n < MIN_N:
        raise InputError("n" if d >= 2 else "d", f"face_mean_ties needs d >= 2 and n >= {MIN_N}, got n={n}, d={d}")
    D, to_z = _change_of_variables(A, d)
    centre = centre or CENTRE_KINDS[int(rng.integers(0, len(CENTRE_KINDS)))]
    if centre not in CENTRE_KINDS:
        raise InputError("centre", f"expected one of {', '.join(CENTRE_KINDS)}, got {centre!r}")
    if centre == "both" and n < MIN_N + 1:
        centre = "at_mean"
    structure, c = _structure(rng, n, d, centre)
    radius2 = max(_quad(D, y, y) for y in structure)
    expected = _sets(structure, D)
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
        if _sets(tokens + [y], D)[:len(structure)] != expected:
            continue  # an inside token must not change the structure's sets at layer 0
        tokens.append(y)
        taken.add(y)
    order = rng.permutation(len(tokens))
    return [to_z(tokens[int(i)]) for i in order], A


FACE_MEAN_TIES = Family(
    "face_mean_ties",
    "a token at the mean of a face whose other members (leaders, lockers) move in symmetric pairs (THEORY.md D9)",
    face_mean_ties, min_n=MIN_N, min_d=2, reaches=frozenset({"tie", "persistent_tie", "moving_tie", "nonvertex_limit"}))


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
                  "description": f"verify.families_d9.generate_face_mean_ties({seed}, n={n}, d={d}, "
                                 f"matrix={matrix!r}, centre={centre!r})",
                  "tokens": [list(t) for t in tokens], "alpha": alpha}
    if A is not None:
        data["A"] = [list(r) for r in A]
    return parse_configuration(data)
