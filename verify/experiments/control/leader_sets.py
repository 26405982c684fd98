"""Every leader set at layer 0: which subsets of the hull vertices some SPD A makes lead together (docs/theory.md D10).

Only hull vertices can lead at layer 0 (a token inside the hull of the others has the zero-S
certificate), so the question is about the 2^h - 1 nonempty subsets of the h hull vertices.
Certificates decide many subsets at once, in both directions:

* an exact A under which the tokens Lead(A) lead at layer 0 makes every subset of Lead(A)
  lead (the same margins);
* an exact infeasibility certificate y whose weights sit on the constraints of the tokens
  core(y) ⊆ L proves that no SPD A makes any superset of core(y) lead (the same y).

So the subsets are visited from the largest down; each one not yet decided is decided by
:func:`verify.experiments.control.design.decide_system`, and its certificate then marks every
subset (or superset) it covers. The hull itself is certified too: a separating direction for
each vertex, convex weights for each other token.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Literal, Sequence

from verify.core.config import Configuration
from verify.core.geometry import convex_hull_vertices, origin_in_hull_weights, separating_direction
from verify.core.numbers import InputError
from .constraints import Point, leaders_under
from .design import Design, Infeasibility, decide_system

__all__ = ["HullCertificate", "LeaderSets", "SubsetDecision", "hull_certificate", "decide_leader_sets",
           "all_hull_vertices_lead", "subset_count_refusal"]


@dataclass(frozen=True)
class HullCertificate:
    """The hull vertices, each with a direction c scoring it strictly above every other token, and every other token
    with convex weights of the others reproducing it (so it is no vertex)."""

    vertices: tuple[int, ...]
    directions: dict[int, list[Fraction]]
    inside: dict[int, dict[int, Fraction]]


def hull_certificate(tokens: Sequence[Point], vertices: Sequence[int] | None = None) -> HullCertificate:
    """The exact hull vertices of distinct tokens (``vertices`` when the caller has them), certified both ways."""
    vertices = tuple(convex_hull_vertices(tokens) if vertices is None else vertices)
    directions: dict[int, list[Fraction]] = {}
    for v in vertices:
        direction = separating_direction(v, tokens)
        if direction is None:  # pragma: no cover - cdd's vertex is exposed for distinct tokens
            raise RuntimeError(f"token {v}: a hull vertex without a separating direction")
        directions[v] = direction
    inside: dict[int, dict[int, Fraction]] = {}
    for j in range(len(tokens)):
        if j in directions:
            continue
        others = [k for k in range(len(tokens)) if k != j]
        weights = origin_in_hull_weights([[a - b for a, b in zip(tokens[k], tokens[j])] for k in others])
        if weights is None:  # pragma: no cover - a distinct token that is no vertex lies in the others' hull
            raise RuntimeError(f"token {j}: neither a vertex nor inside the others' hull")
        inside[j] = {others[k]: w for k, w in weights.items()}
    return HullCertificate(vertices, directions, inside)


@dataclass(frozen=True)
class SubsetDecision:
    """One subset: ``kind`` and the index of the design (``feasible``) or certificate (``impossible``) behind it."""

    leaders: tuple[int, ...]
    kind: Literal["feasible", "impossible", "inconclusive"]
    by: int | None = None
    tried: tuple[str, ...] = ()


@dataclass(frozen=True)
class LeaderSets:
    """Every nonempty subset of the hull vertices, decided; ``designs[i]`` leads exactly ``design_leaders[i]``."""

    hull: HullCertificate
    subsets: tuple[SubsetDecision, ...]
    designs: tuple[Design, ...]
    design_leaders: tuple[frozenset[int], ...]
    certificates: tuple[Infeasibility, ...]
    programs: int  # layer-0 systems sent to the solver

    def of_kind(self, kind: str) -> list[tuple[int, ...]]:
        return [s.leaders for s in self.subsets if s.kind == kind]

    def maximal_feasible(self) -> list[tuple[int, ...]]:
        """The realisable sets contained in no other realisable set (the family is closed under subsets)."""
        sets = [frozenset(s) for s in self.of_kind("feasible")]
        return sorted((tuple(sorted(s)) for s in sets if not any(s < t for t in sets)), key=lambda s: (-len(s), s))

    def minimal_impossible(self) -> list[tuple[int, ...]]:
        """The impossible sets containing no other impossible set (the family is closed under supersets)."""
        sets = [frozenset(s) for s in self.of_kind("impossible")]
        return sorted((tuple(sorted(s)) for s in sets if not any(t < s for t in sets)), key=lambda s: (len(s), s))


def subset_count_refusal(vertices: int, limit: int) -> str | None:
    """Why 2^vertices - 1 subsets exceed ``limit``, or None."""
    count = 2 ** vertices - 1
    if count <= limit:
        return None
    return f"{vertices} hull vertices give {count:,} nonempty subsets, more than the limit of {limit:,}"


def _members(mask: int, vertices: Sequence[int]) -> tuple[int, ...]:
    return tuple(v for bit, v in enumerate(vertices) if mask >> bit & 1)


def _mask(tokens: frozenset[int], vertices: Sequence[int]) -> int:
    return sum(1 << bit for bit, v in enumerate(vertices) if v in tokens)


def decide_leader_sets(tokens: Sequence[Point], *, max_subsets: int,
                       progress: Callable[[int, int], None] | None = None) -> LeaderSets:
    """Decide every nonempty subset of the hull vertices of ``tokens`` (distinct), exactly where the certificates allow.

    Raises :class:`InputError` (field ``--all-leader-sets``) when there are more than
    ``max_subsets`` subsets, before any work.
    """
    vertices = tuple(convex_hull_vertices(tokens))
    refusal = subset_count_refusal(len(vertices), max_subsets)
    if refusal is not None:  # before the hull is certified and before any program
        raise InputError("--all-leader-sets", refusal)
    hull = hull_certificate(tokens, vertices)
    full = (1 << len(vertices)) - 1
    decided: dict[int, tuple[str, int | None, tuple[str, ...]]] = {}
    designs: list[Design] = []
    design_leaders: list[frozenset[int]] = []
    certificates: list[Infeasibility] = []
    programs = 0
    order = sorted(range(1, full + 1), key=lambda m: (-bin(m).count("1"), m))
    vertex_set = frozenset(vertices)
    for mask in order:
        if progress is not None:
            progress(len(decided), full)
        if mask in decided:
            continue
        programs += 1
        decision = decide_system(tokens, _members(mask, vertices), {}, vertices=vertex_set)
        if decision.kind == "feasible" and decision.design is not None:
            lead = leaders_under(tokens, decision.design.A)
            designs.append(decision.design)
            design_leaders.append(lead)
            cover = _mask(lead & vertex_set, vertices)
            sub = cover
            while sub:  # every subset of Lead(A) leads under A
                decided.setdefault(sub, ("feasible", len(designs) - 1, ()))
                sub = (sub - 1) & cover
        elif decision.kind == "impossible" and decision.infeasibility is not None:
            certificates.append(decision.infeasibility)
            core = _mask(decision.infeasibility.tokens, vertices)
            rest = full & ~core
            sub = rest
            while True:  # every superset of core(y) is refuted by y
                decided.setdefault(core | sub, ("impossible", len(certificates) - 1, ()))
                if sub == 0:
                    break
                sub = (sub - 1) & rest
        else:
            decided[mask] = ("inconclusive", None, decision.tried)
    if progress is not None:
        progress(full, full)
    subsets = tuple(SubsetDecision(_members(mask, vertices), decided[mask][0], decided[mask][1],  # type: ignore[arg-type]
                                   decided[mask][2])
                    for mask in sorted(range(1, full + 1), key=lambda m: (bin(m).count("1"), _members(m, vertices))))
    return LeaderSets(hull, subsets, tuple(designs), tuple(design_leaders), tuple(certificates), programs)


def all_hull_vertices_lead(config: Configuration) -> Literal["feasible", "impossible", "inconclusive"]:
    """Can every hull vertex of the configuration's tokens lead together at layer 0 (its own A ignored)?

    The lab's question "all hull vertices can lead together" for one configuration, decided
    exactly when the certificates allow (docs/theory.md D10).
    """
    vertices = convex_hull_vertices(config.tokens)
    return decide_system(config.tokens, tuple(vertices), {}, vertices=frozenset(vertices)).kind
