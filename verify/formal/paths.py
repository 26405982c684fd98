"""A D9 closed-form chain's final segment as Coq terms of formal/Paths.v, with the sign thresholds.

The kernel checks the final segment of the chain (the one that holds for every t) from the
model's own layer k of its start: every token's path starts at its position, follows the update
rule identically in t, attends to its set (ties identically equal, every other score strictly
below for every t >= 0). A strict inequality for every t is decided by formal/ExpPoly.v's
``positive_always f T``: f(t) > 0 evaluated for t < T, and from T on one term dominates. This
module finds such a T by the same rule, exactly (it is a hint: the kernel decides).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping, Sequence

from verify.core.numbers import InputError, to_rational

from . import terms

__all__ = ["MAX_THRESHOLD", "segment_term", "threshold"]

MAX_THRESHOLD = 2_000   # t evaluated one by one in the kernel below the threshold: larger is not tried
Term = tuple[Fraction, int, Fraction]   # coefficient, power, base
VTerm = tuple[list[Fraction], int, Fraction]


def _dot(u: Sequence[Fraction], v: Sequence[Fraction]) -> Fraction:
    return sum((a * b for a, b in zip(u, v)), Fraction(0))


def _score_terms(A: Sequence[Sequence[Fraction]], p: Sequence[VTerm], q: Sequence[VTerm]) -> list[Term]:
    # <A p(t), q(t)>: (dot (A c) c', a + a', b b') for every pair of terms, as formal/ExpPoly.v's score_terms.
    out = []
    for c, a, b in p:
        Ac = [_dot(row, c) for row in A]
        out += [(_dot(Ac, c2), a + a2, b * b2) for c2, a2, b2 in q]
    return out


def _normal(f: Sequence[Term]) -> list[Term]:
    merged: dict[tuple[int, Fraction], Fraction] = {}
    for c, a, b in f:
        merged[(a, b)] = merged.get((a, b), Fraction(0)) + c
    return [(c, a, b) for (a, b), c in merged.items() if c != 0]


def _tval(a: int, b: Fraction, t: int) -> Fraction:
    return Fraction(t) ** a * b ** t


class NotPositive(Exception):
    """The score gap is not eventually positive: the certificate is wrong, and the kernel will say so."""


def threshold(f: Sequence[Term]) -> int | None:
    """The least T >= 1 from which the dominant term of ``f`` (largest base, then power) dominates
    by formal/ExpPoly.v's rule, or None when that T is past MAX_THRESHOLD. Raises NotPositive
    when no T exists (f is not eventually positive)."""
    f = _normal(f)
    if not f:
        raise NotPositive
    head = max(f, key=lambda term: (term[2], term[1]))
    c, a, b = head
    if c <= 0 or b <= 0 or any(bi <= 0 for _, _, bi in f):
        raise NotPositive
    others = [term for term in f if term is not head]
    start = 1
    for _, ai, bi in others:
        if ai > a:  # bi < b: (ai - a) b <= (b - bi)(T + 1)
            need = Fraction(ai - a) * b / (b - bi) - 1
            start = max(start, -(-need.numerator // need.denominator))
    for T in range(start, MAX_THRESHOLD + 1):
        if sum((abs(ci) * _tval(ai, bi, T) for ci, ai, bi in others), Fraction(0)) < c * _tval(a, b, T):
            return T
    return None


def _paths(segment: Mapping[str, Any], n: int, d: int, where: str) -> list[list[VTerm]]:
    paths = segment.get("paths")
    if not isinstance(paths, list) or len(paths) != n:
        raise InputError(f"{where}.paths", f"expected {n} paths")
    out = []
    for j, path in enumerate(paths):
        if not isinstance(path, list):
            raise InputError(f"{where}.paths[{j}]", "expected a list of terms")
        terms_j = []
        for k, term in enumerate(path):
            at = f"{where}.paths[{j}][{k}]"
            if not isinstance(term, Mapping) or not isinstance(term.get("coefficient"), list) \
                    or not isinstance(term.get("power"), int) or isinstance(term.get("power"), bool) or term["power"] < 0:
                raise InputError(at, "expected a term {coefficient, power, base}")
            coefficient = [to_rational(x, field=f"{at}.coefficient") for x in term["coefficient"]]
            terms_j.append((coefficient, term["power"], to_rational(term.get("base"), field=f"{at}.base")))
        out.append(terms_j)
    return out


def segment_term(chain: Any, A: Sequence[Sequence[Fraction]], n: int, d: int,
                 where: str) -> tuple[str, int, list[list[int]]] | str:
    """(the Coq term of the final segment, its layer, its sets), or why there is none."""
    if not isinstance(chain, Mapping) or chain.get("status") != "certified":
        return "no certified closed-form chain"
    segments = chain.get("segments")
    if not isinstance(segments, list) or not segments or not isinstance(segments[-1], Mapping):
        raise InputError(f"{where}.segments", "expected the chain's segments")
    final = segments[-1]
    at = f"{where}.segments[{len(segments) - 1}]"
    layer, sets = final.get("layer"), final.get("sets")
    if not isinstance(layer, int) or isinstance(layer, bool) or layer < 0 or not isinstance(sets, list) or len(sets) != n \
            or not all(isinstance(F, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in F) for F in sets):
        raise InputError(at, "expected the final segment's layer and one set per token")
    paths = _paths(final, n, d, at)
    thresholds = []
    for j in range(n):
        F = sets[j]
        row = []
        for w in range(n):
            if w in F or not F or not all(0 <= v < n for v in F):
                row.append(0)
                continue
            v0 = F[0]
            gap = _score_terms(A, paths[j], paths[v0]) + [(-c, a, b) for c, a, b in _score_terms(A, paths[j], paths[w])]
            try:
                T = threshold(gap)
            except NotPositive:
                T = 1  # a wrong certificate: let the kernel reject it
            if T is None:
                return f"no sign threshold below {MAX_THRESHOLD} for token {j} against token {w}"
            row.append(T)
        thresholds.append(row)
    S = "HardmaxVerify.Paths."
    path_terms = "[" + "; ".join(
        "[" + "; ".join(f"({terms.vec(c)}, {a}%nat, {terms.q(b)})" for c, a, b in path) + "]" for path in paths) + "]"
    term = (f"{{| {S}seg_layer := {layer}; {S}seg_paths := {path_terms}; "
            f"{S}seg_sets := [{'; '.join(terms.nat_list(F) for F in sets)}]; "
            f"{S}seg_thresholds := [{'; '.join(terms.nat_list(row) for row in thresholds)}] |}}")
    return term, layer, [list(F) for F in sets]
