"""The lab's leader-control conjectures (docs/theory.md D10), decided by :mod:`verify.experiments.control`.

Two statements about the layer-0 leader sets that some symmetric positive definite A can make
lead (the configuration's own A plays no part; distinct, nonzero tokens, as inside the
hypotheses):

* every subset of the vertices of conv(Z^0) is realisable at layer 0;
* all the hull vertices can lead together at layer 0.

For one configuration the two say the same thing. The realisable sets are closed under subsets
(an A under which the tokens of L lead makes every subset of L lead, by the same margins), and
an infeasibility certificate for a subset is one for every superset (its weights sit on
constraints the larger system also has). So one layer-0 system decides both: the system "every
hull vertex leads", at any hull size. A design for it realises every subset at once; an
impossibility certificate for it names a subset (the tokens its weights sit on) that cannot
lead. The subset statement's re-check then shrinks that subset greedily, one vertex at a time
(at most one system per vertex), to a subset each of whose one-smaller subsets has an exact
design: a minimal impossible subset.

The predicate fails only on ``impossible``, an exact certificate y >= 0 with
S = -sum_c y_c M_c positive semidefinite; before it is reported, the certificate is written as a
``hardmax-verify/control-v1`` result and re-verified by the independent checker
(:mod:`verify.certcheck.control`, standard library only). A certificate the exact check accepted
and the independent checker rejects is a bug (:class:`~verify.experiments.conjectures.base.InternalError`).
``inconclusive`` (neither certificate found) is undecided, never either answer.
"""

from __future__ import annotations

from typing import Any, Sequence

from verify.certcheck.control import check_control
from verify.core.config import Configuration
from verify.core.formatting import counted
from verify.core.geometry import convex_hull_vertices
from verify.core.numbers import rational_to_str
from verify.experiments.control import realisable
from verify.experiments.control.design import Infeasibility, SystemDecision
from verify.experiments.control.result import (EXIT_STATUS, FORMAT, STATEMENTS, configuration_block,
                                               infeasibility_block)
from .base import InternalError, Observation

__all__ = ["hull_vertex_subsets_realisable", "hull_vertex_subsets_confirm", "all_hull_vertices_lead_together",
           "impossibility_result", "independently_checked"]


def impossibility_result(config: Configuration, leaders: Sequence[int], certificate: Infeasibility) -> dict[str, Any]:
    """The ``hardmax-verify/control-v1`` result "no SPD A makes ``leaders`` lead at layer 0" with its certificate.

    The same format as ``hardmax-verify control --json``, so ``hardmax-verify certcheck`` (and
    ``python -m verify.certcheck.control``) re-verify it from a file.
    """
    proves, not_proved = STATEMENTS["impossible"]
    return {
        "format": FORMAT, "kind": "control",
        "configuration": configuration_block(config),
        "replaced_A": None if config.A is None else [[rational_to_str(x) for x in row] for row in config.A_matrix],
        "leaders": sorted(leaders),
        "requested_targets": [],
        "outcome": "impossible",
        "exit_status": EXIT_STATUS["impossible"],
        "proves": proves,
        "does_not_prove": not_proved,
        "reason": "no symmetric positive definite A makes every listed token lead at layer 0",
        "infeasibility": infeasibility_block(certificate),
    }


def independently_checked(config: Configuration, leaders: Sequence[int], certificate: Infeasibility
                          ) -> dict[str, Any]:
    """The result of :func:`impossibility_result`, re-verified by the independent checker.

    Raises :class:`InternalError` unless the checker verifies it as an impossibility (its own
    arithmetic recomputes S from the tokens and the weights and checks it positive semidefinite).
    """
    data = impossibility_result(config, leaders, certificate)
    check = check_control(data)
    if check.status != "verified" or check.outcome != "impossible" or not any(i.status == "failed" for i in check.items):
        raise InternalError(f"the exact D10 certificate that tokens {sorted(leaders)} cannot lead together was "
                            f"accepted by verify.experiments.control but the independent checker says {check.status}: "
                            + "; ".join(check.reasons or [i.reason for i in check.items]))
    return data


def _inconclusive(vertices: Sequence[int]) -> Observation:
    # One fixed reason (what was tried holds solver numbers): the run counts undecided examples by reason.
    return Observation.undecided(f"D10 inconclusive for the system of all {len(vertices)} hull vertices: neither an "
                                 "exact design nor an exact impossibility certificate", hull_vertices=len(vertices))


def _decide_vertices(config: Configuration) -> tuple[list[int], SystemDecision]:
    vertices = convex_hull_vertices(config.tokens)
    return vertices, realisable(config, vertices)


def _refuted(config: Configuration, vertices: list[int], leaders: Sequence[int], certificate: Infeasibility,
             detail: str, **extra: Any) -> Observation:
    data = independently_checked(config, leaders, certificate)
    evidence = {"hull_vertices": vertices, "impossible_subset": sorted(leaders),
                "certificate_step": certificate.step,
                "independent_check": "verify.certcheck.control: the certificate verifies (S recomputed from the tokens "
                                     "and the weights, positive semidefinite by its own exact elimination)",
                "control_result": data, **extra}
    return Observation.failed(detail, evidence=evidence, hull_vertices=len(vertices),
                              impossible_subset_size=len(leaders))


def _certified_words(leaders: Sequence[int], certificate: Infeasibility) -> str:
    who = f"token {leaders[0]} lead" if len(leaders) == 1 else f"tokens {list(leaders)} lead together"
    return (f"no symmetric positive definite A makes {who} at layer 0 (exact certificate: weights y >= 0 on "
            f"{counted(len(certificate.weights), 'constraint')} with S = -sum y M positive semidefinite"
            f"{', S = 0' if certificate.zero else ''}, found by step {certificate.step}; re-verified by the "
            "independent checker)")


def all_hull_vertices_lead_together(config: Configuration) -> Observation:
    """Can every vertex of conv(Z^0) lead at layer 0 under one SPD A? One layer-0 system (docs/theory.md D10)."""
    vertices, decision = _decide_vertices(config)
    if decision.kind == "feasible" and decision.design is not None:
        return Observation.held(f"an exact A makes all {len(vertices)} hull vertices lead at layer 0",
                                hull_vertices=len(vertices))
    if decision.kind == "impossible" and decision.infeasibility is not None:
        certificate = decision.infeasibility
        core = sorted(certificate.tokens)
        return _refuted(config, vertices, core, certificate,
                        f"the {len(vertices)} hull vertices {vertices} cannot all lead together: "
                        + _certified_words(core, certificate))
    return _inconclusive(vertices)


def hull_vertex_subsets_realisable(config: Configuration) -> Observation:
    """Is every subset of the hull vertices realisable at layer 0? Decided by the one system of all of them.

    A design for every vertex realises each of the 2^h - 1 subsets by the same A; an
    impossibility certificate names a subset that no SPD A realises (the tokens its weights sit
    on). The search stops there; the re-check (:func:`hull_vertex_subsets_confirm`) shrinks it.
    """
    vertices, decision = _decide_vertices(config)
    subsets = 2 ** len(vertices) - 1
    if decision.kind == "feasible" and decision.design is not None:
        return Observation.held(f"one exact A makes all {len(vertices)} hull vertices lead, so every one of the "
                                f"{subsets} nonempty subsets leads under it", hull_vertices=len(vertices))
    if decision.kind == "impossible" and decision.infeasibility is not None:
        certificate = decision.infeasibility
        core = sorted(certificate.tokens)
        return _refuted(config, vertices, core, certificate,
                        f"the subset {core} of the hull vertices {vertices} is not realisable: "
                        + _certified_words(core, certificate))
    return _inconclusive(vertices)


def hull_vertex_subsets_confirm(config: Configuration) -> Observation:
    """The rigorous re-check of a counterexample: the same decision, then the impossible subset shrunk to a minimal one.

    Greedy deletion: for each vertex of the current impossible set S (in increasing order), decide
    S minus that vertex; an impossibility certificate replaces S by the tokens it sits on. At the
    end every one-smaller subset tried has an exact design (S is then minimal: the realisable
    sets are closed under subsets) or was inconclusive (then S is only the smallest found, and the
    evidence says so). At most one layer-0 system per vertex.
    """
    observation = hull_vertex_subsets_realisable(config)
    if observation.status != "failed":
        return observation
    vertices = list(observation.evidence["hull_vertices"])
    current = tuple(observation.evidence["impossible_subset"])
    decisions: dict[tuple[int, ...], SystemDecision] = {}
    certificate: Infeasibility | None = None
    changed = True
    while changed:
        changed = False
        for v in current:
            smaller = tuple(t for t in current if t != v)
            if not smaller:
                continue
            if smaller not in decisions:
                decisions[smaller] = realisable(config, smaller)
            decision = decisions[smaller]
            if decision.kind == "impossible" and decision.infeasibility is not None:
                current, certificate, changed = tuple(sorted(decision.infeasibility.tokens)), decision.infeasibility, True
                break
    if certificate is None:  # the search's own subset is already minimal (or its deletions are undecided)
        certificate = realisable(config, current).infeasibility
        if certificate is None:  # pragma: no cover - the same deterministic system was impossible a moment ago
            raise InternalError(f"the subset {list(current)} was impossible and is not any more: the D10 decision is "
                                "not deterministic")
    undecided = sorted(list(s) for s, d in decisions.items() if d.kind == "inconclusive" and len(s) == len(current) - 1
                       and set(s) <= set(current))
    minimal = not undecided
    detail = (f"the subset {list(current)} of the hull vertices {vertices} is not realisable"
              + (" (a minimal one: every subset one smaller has an exact design)" if minimal and len(current) > 1
                 else "" if minimal else f" (the smallest found: {undecided} stayed inconclusive)") + ": "
              + _certified_words(current, certificate))
    return _refuted(config, vertices, current, certificate, detail, minimal=minimal,
                    search_subset=list(observation.evidence["impossible_subset"]))
