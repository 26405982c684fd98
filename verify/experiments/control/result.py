"""The JSON form of leader-control results (format ``hardmax-verify/control-v1``), which the independent checker
``verify/certcheck/control/`` re-verifies.

Two kinds share the format:

``"kind": "control"``
    one leader set L (and requested targets): ``outcome`` realised / impossible / inconclusive,
    the design (A, its LDL^T pivots, every token's target, closest rival and exact margin), the
    infeasibility certificate (weights y on named constraints and S), each token's limit, what
    was tried and the solver runs (float evidence, 6 significant digits).
``"kind": "leader_sets"``
    every nonempty subset of the hull vertices: the certified hull, the designs (each with the
    set of tokens leading under it), the infeasibility certificates, and per subset its outcome
    and the index of the design or certificate behind it.

Exact numbers are "p/q" strings. Given the same solver output, the file is the same byte for
byte; solver outputs can differ in their last bits between machines and library versions, and
then so can the rounded A or y (never their validity, which the checker decides).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping, Sequence

from verify.core import exitcodes
from verify.core.config import Configuration
from verify.core.numbers import rational_to_str
from .constraints import Constraint
from .design import Design, Infeasibility, Outcome
from .leader_sets import LeaderSets

__all__ = ["FORMAT", "EXIT_STATUS", "STATEMENTS", "statements", "configuration_block", "design_block", "infeasibility_block",
           "outcome_json", "leader_sets_json", "leader_sets_exit_status"]

FORMAT = "hardmax-verify/control-v1"
EXIT_STATUS = {"realised": exitcodes.SUCCESS, "impossible": exitcodes.FALSE, "inconclusive": exitcodes.INCONCLUSIVE}

# What each outcome proves and what it does not (docs/theory.md D10), as the result states it.
STATEMENTS: dict[str, tuple[str, str]] = {
    "realised": ("under A, exactly the listed tokens lead from layer 0 on and every other token attends only to its "
                 "target leader at every layer, converging to it geometrically; so for every alpha > 0 the leader set "
                 "is exactly L and every limit is its target's position (docs/theory.md D10)",
                 "anything about the dynamics under another A, the configuration's own included"),
    "impossible": ("no symmetric positive definite A makes every listed token lead at layer 0",
                   "a listed token may still emerge as a leader at a later layer under some A, so L may still be the "
                   "final leader set (docs/theory.md D10, 'What it does not say')"),
    "inconclusive": ("nothing beyond the certificates included (an A under which L leads at layer 0, when given)",
                     "neither that L can be realised nor that it cannot"),
    # the result of --all-leader-sets (not an outcome of one call)
    "leader_sets": ("each realisable subset leads at layer 0 under the design named (every subset of the tokens "
                    "leading under an A leads under it); each impossible subset contains the tokens of a certificate "
                    "that no symmetric positive definite A makes them all lead at layer 0",
                    "a token outside a realisable set may also lead under that design; nothing about leaders "
                    "that emerge after layer 0"),
}


def statements(outcome: Outcome) -> tuple[str, str]:
    """What the outcome proves and what it does not, for these leaders and requested targets."""
    proves, not_proved = STATEMENTS[outcome.kind]
    if outcome.kind == "impossible" and outcome.requested:
        proves += (" with the requested tokens attending only to their targets at layer 0 ("
                   + ",".join(f"{m}:{t}" for m, t in sorted(outcome.requested.items())) + ")")
    return proves, not_proved


def _q(x: Fraction) -> str:
    return rational_to_str(x)


def _matrix(M: Sequence[Sequence[Fraction]]) -> list[list[str]]:
    return [[_q(x) for x in row] for row in M]


def configuration_block(config: Configuration) -> dict[str, Any]:
    """The tokens and alpha the result is about (the configuration's own A is reported apart, as replaced)."""
    data: dict[str, Any] = {}
    if config.name is not None:
        data["name"] = config.name
    data["tokens"] = [[_q(x) for x in t] for t in config.tokens]
    data["alpha"] = _q(config.alpha)
    return data


def design_block(design: Design, roles: Mapping[int, int]) -> dict[str, Any]:
    """A, its pivots, and per token of the system: whom it attends to, its closest rival and the exact margin."""
    assert design.check.pivots is not None
    return {
        "A": _matrix(design.A),
        "pivots": [_q(p) for p in design.check.pivots],
        "denominator": design.denominator,
        "source": design.source,
        "margins": [{"token": m, "attends_to": roles[m], "closest_rival": rival, "margin": _q(margin)}
                    for m, (rival, margin) in sorted(design.check.closest.items())],
    }


def _constraint(c: Constraint) -> dict[str, int]:
    return {"token": c.token, "attends_to": c.attends_to, "rival": c.rival}


def infeasibility_block(certificate: Infeasibility) -> dict[str, Any]:
    return {"step": certificate.step,
            "weights": [{**_constraint(c), "y": _q(y)} for c, y in sorted(certificate.weights.items())],
            "S": _matrix(certificate.S)}


def _replaced(config: Configuration) -> list[list[str]] | None:
    return None if config.A is None else _matrix(config.A_matrix)


def _pairs(targets: Mapping[int, int]) -> list[dict[str, int]]:
    return [{"token": m, "target": t} for m, t in sorted(targets.items())]


def outcome_json(config: Configuration, outcome: Outcome, *, seed: int, max_tries: int, max_programs: int
                 ) -> dict[str, Any]:
    """The result of one ``control`` call."""
    statement, not_proved = statements(outcome)
    data: dict[str, Any] = {
        "format": FORMAT, "kind": "control",
        "configuration": configuration_block(config),
        "replaced_A": _replaced(config),
        "leaders": list(outcome.leaders),
        "requested_targets": _pairs(outcome.requested),
        "outcome": outcome.kind,
        "exit_status": EXIT_STATUS[outcome.kind],
        "proves": statement,
        "does_not_prove": not_proved,
        "reason": outcome.reason,
    }
    if outcome.kind == "realised" and outcome.design is not None and outcome.targets is not None:
        roles = {**{i: i for i in outcome.leaders}, **outcome.targets}
        data["targets"] = _pairs(outcome.targets)
        data["design"] = design_block(outcome.design, roles)
        limits = outcome.limits(config.tokens) or []
        data["limits"] = [[_q(x) for x in p] for p in limits]
    if outcome.kind == "impossible" and outcome.infeasibility is not None:
        data["infeasibility"] = infeasibility_block(outcome.infeasibility)
    if outcome.kind == "inconclusive" and outcome.leading is not None:
        roles = {**{i: i for i in outcome.leaders}, **outcome.requested}
        data["leading"] = design_block(outcome.leading, roles)
    data["tried"] = list(outcome.tried)
    data["search"] = {"seed": seed, "max_tries": max_tries, "max_programs": max_programs,
                      "target_maps": [_pairs(m) for m in outcome.assignments]}
    data["solver_runs"] = [run.to_json_dict() for run in outcome.runs]
    return data


def leader_sets_exit_status(result: LeaderSets) -> int:
    """0 when every subset is decided, 3 when some is inconclusive (an impossible subset is an answer, not a failure)."""
    return exitcodes.INCONCLUSIVE if result.of_kind("inconclusive") else exitcodes.SUCCESS


_SUBSET_OUTCOME = {"feasible": "realisable", "impossible": "impossible", "inconclusive": "inconclusive"}


def leader_sets_json(config: Configuration, result: LeaderSets) -> dict[str, Any]:
    """The result of ``control --all-leader-sets``."""
    hull = result.hull
    counts = {name: sum(s.kind == kind for s in result.subsets) for kind, name in _SUBSET_OUTCOME.items()}
    subsets = []
    for s in result.subsets:
        entry: dict[str, Any] = {"leaders": list(s.leaders), "outcome": _SUBSET_OUTCOME[s.kind]}
        if s.by is not None:
            entry["by"] = s.by
        if s.tried:
            entry["tried"] = list(s.tried)
        subsets.append(entry)
    return {
        "format": FORMAT, "kind": "leader_sets",
        "configuration": configuration_block(config),
        "replaced_A": _replaced(config),
        "hull": {"vertices": [{"token": v, "direction": [_q(x) for x in hull.directions[v]]} for v in hull.vertices],
                 "inside": [{"token": j, "weights": [{"token": k, "weight": _q(w)} for k, w in sorted(ws.items())]}
                            for j, ws in sorted(hull.inside.items())]},
        "designs": [{"A": _matrix(d.A), "pivots": [_q(p) for p in d.check.pivots or ()], "leaders": sorted(lead)}
                    for d, lead in zip(result.designs, result.design_leaders)],
        "certificates": [infeasibility_block(c) for c in result.certificates],
        "subsets": subsets,
        "counts": {"subsets": len(result.subsets), **counts},
        "maximal_realisable": [list(s) for s in result.maximal_feasible()],
        "minimal_impossible": [list(s) for s in result.minimal_impossible()],
        "programs": result.programs,
        "exit_status": leader_sets_exit_status(result),
        "proves": STATEMENTS["leader_sets"][0],
        "does_not_prove": STATEMENTS["leader_sets"][1],
    }

