"""The fields of a claims report and of a run: the configuration, the fates, every verdict and certificate.

The schema (:mod:`.schema`) of what ``hardmax-verify check --json`` writes (docs/certificates.md)
and of the run a results.json record holds: each key is re-derived by a routine of the checker
(:mod:`.run`, :mod:`.statuses`, :mod:`.claims`, :mod:`.fates`, :mod:`.closed_form`) or is listed
as not checked, with the reason. A verdict's schema depends on its status: a certified verdict
has its claim's certificate and evidence; a failed or inconclusive one has no certificate, and of
its evidence only the run's own fields are re-derived.
"""

from __future__ import annotations

from typing import Any

from .similarity import FIELDS as SIMILARITY_FIELDS
from .schema import ANY_KEY, CHECKED, INDEX_KEY, LAYER_KEY, Checked, Either, Items, Node, Obj, Unchecked

__all__ = ["CONFIGURATION", "FATE", "RUN_FATE", "CHAIN", "CERTIFICATES", "verdict_node", "CLAIMS_REPORT",
           "RUN_FIELDS", "LABEL", "SUMMARY_SENTENCE"]

LABEL = "a name or description for a reader: it states nothing the checks use"
SUMMARY_SENTENCE = ("the engine's sentence about the verdict: reports do not show it, and the verdict it describes "
                    "is checked field by field")
CROSS_CHECKS = ("the solvers' cross-checks (cvxpy, floats): evidence that never decides a verdict, which its exact "
                "certificate does")
SEARCH_LOG = ("the producer's log of its closed-form (D9) searches: the checker repeats no search; the chain a verdict "
              "rests on is in its certificate")
NOT_CERTIFIED_EVIDENCE = ("in a failed or inconclusive verdict, the producer's account of it (a failed verdict's "
                          "counterexample, an inconclusive verdict's reason): certcheck re-verifies certificates and "
                          "the counterexamples of T0 (D11), D2 and T3, not others; `check` re-decides a "
                          "counterexample file")
NO_ROUTINE = "a claim certcheck has no routine for: its verdict is reported unsupported, never verified"

CONFIGURATION = Obj({
    "name": Unchecked(LABEL), "description": Unchecked(LABEL), "tokens": CHECKED, "alpha": CHECKED, "A": CHECKED,
    "V": CHECKED, "beta": CHECKED,
    "outside_hypotheses": Unchecked("the option the run was given: it must be true when the configuration is outside "
                                    "the theorem's hypotheses (decided exactly), and may be true when it is not"),
}, optional=("name", "description", "A", "V", "beta", "outside_hypotheses"), name="a configuration")

# A fate entry of a certificate (leader, fixed, locked, path) and of a run (also "unsettled").
FATE = Obj({"token": CHECKED, "kind": CHECKED, "layer": CHECKED, "set": CHECKED, "limit": CHECKED, "value": CHECKED},
           optional=("value",), name="a fate entry")
RUN_FATE = FATE

_TERM = Obj({"coefficient": CHECKED, "power": CHECKED, "base": CHECKED}, name="a term of a closed-form path")
_SEGMENT = Obj({
    "layer": CHECKED, "status": CHECKED, "until": CHECKED, "sets": CHECKED,
    "paths": Either(Items(Items(_TERM)), none=True), "positions": CHECKED,
    "threshold": Unchecked("a hint of the producer's: the checker computes every threshold itself"),
    "failing": Unchecked("the condition the producer saw fail where the segment ends: the next segment is verified "
                         "from the positions there, whatever ended this one",
                         Obj({"kind": CHECKED, "token": CHECKED, "v": CHECKED, "w": CHECKED})),
    "reason": Unchecked("the producer's note on why an unsettled chain stops"),
}, optional=("positions", "threshold", "failing", "reason"), name="a closed-form segment")
CHAIN = Obj({
    "format": CHECKED, "start_layer": CHECKED, "status": CHECKED, "segments": Items(_SEGMENT),
    "reason": Unchecked("the producer's note on why the chain is unsettled"),
    "leaders": Items(Obj({"token": CHECKED, "first_layer": CHECKED})), "limits": CHECKED,
}, optional=("reason", "leaders", "limits"), name="a closed-form chain (D9)")

_POSITIONS = Obj(extra=(*LAYER_KEY, CHECKED), name="layer_positions")
_LEADER = Obj({"token": CHECKED, "first_layer": CHECKED, "position": CHECKED}, name="a leader entry")
_COMMON = {"layer_positions": _POSITIONS}


def _certificate(fields: dict[str, Node], *, optional: tuple[str, ...] = (), chain: bool = False,
                 name: str) -> Obj:
    extra: dict[str, Node] = {**fields, **_COMMON, **({"closed_form": CHAIN} if chain else {})}
    return Obj(extra, optional=(*optional, "layer_positions", *(("closed_form",) if chain else ())), name=name)


CERTIFICATES: dict[str, Obj] = {
    "T0": _certificate({"layer": CHECKED, "leaders": CHECKED}, name="a T0 certificate"),
    "T1": _certificate({"last_layer": CHECKED, "leaders": Items(_LEADER), "settled_layer": CHECKED,
                        "fates": Items(FATE)}, chain=True, name="a T1 certificate"),
    "T2": _certificate({"settled_layer": CHECKED, "fates": Items(FATE), "vertices": Items(
        Obj({"token": CHECKED, "limit": CHECKED, "direction": CHECKED}, name="a vertex entry"))}, chain=True,
        name="a T2 certificate"),
    "T3": _certificate({"settled_layer": CHECKED, "fates": Items(FATE), "boundary": Items(Obj(
        {"token": CHECKED, "limit": CHECKED, "direction": CHECKED, "value": CHECKED,
         "multipliers": Obj(extra=(*INDEX_KEY, CHECKED), name="multipliers")}, name="a boundary entry"))}, chain=True,
        name="a T3 certificate"),
    "T4": _certificate({"vacuous": CHECKED, "settled_layer": CHECKED, "fates": Items(FATE), "projections": Items(Obj(
        {"tokens": CHECKED, "limit": CHECKED, "fate": CHECKED, "layer": CHECKED, "set": CHECKED, "direction": CHECKED,
         "face_value": CHECKED, "face": CHECKED, "multipliers": Obj(extra=(*INDEX_KEY, CHECKED), name="multipliers"),
         "kkt": Obj(extra=(*INDEX_KEY, CHECKED), name="kkt")}, name="a projection entry"))}, chain=True,
        name="a T4 certificate"),
    "D1": _certificate({"first_layer": CHECKED, "last_layer": CHECKED, "weights": CHECKED}, name="a D1 certificate"),
    "D2": _certificate({"last_layer": CHECKED, "norms": CHECKED}, name="a D2 certificate"),
    "D3": _certificate({"last_layer": CHECKED, "leaders": Items(_LEADER), "settled_layer": CHECKED,
                        "fates": Items(FATE)}, optional=("settled_layer", "fates"), chain=True,
                       name="a D3 certificate"),
    "replay": _certificate({"last_layer": CHECKED, "final_positions": CHECKED}, name="a replay certificate"),
}

# What a certified verdict's evidence may state, beyond the run's own fields (every one re-derived, none required:
# a field left out states nothing).
EVIDENCE_FIELDS: dict[str, tuple[str, ...]] = {
    "T0": ("first_layer", "leaders", "largest_A_norm_tokens", "largest_A_norm_squared"),
    "T1": ("leaders", "rests_on"), "T2": ("vertices", "rests_on"), "T3": ("kinds", "rests_on"),
    "T4": ("non_vertex_limits", "faces", "rests_on"), "D1": (), "D2": ("A_symmetric_positive_definite",),
    "D3": ("rests_on",), "replay": (),
}
RUN_EVIDENCE = ("last_layer", "settled_layer", "outside_hypotheses")


def _evidence(claim: str) -> Obj:
    fields: dict[str, Node] = {key: CHECKED for key in (*RUN_EVIDENCE, *EVIDENCE_FIELDS[claim])}
    if claim == "T1":
        fields["leaders"] = Obj(extra=(*INDEX_KEY, CHECKED))
    if claim == "T3":
        fields["kinds"] = Obj({kind: CHECKED for kind in ("leader", "fixed", "locked", "path")})
    fields["closed_form_searches"] = Unchecked(SEARCH_LOG)
    return Obj(fields, optional=tuple(fields), name=f"a certified {claim} verdict's evidence")


_NOT_CERTIFIED_EVIDENCE = Obj({key: CHECKED for key in RUN_EVIDENCE} | {"closed_form_searches": Unchecked(SEARCH_LOG)},
                              optional=(*RUN_EVIDENCE, "closed_form_searches"),
                              extra=("other fields", lambda key: True, Unchecked(NOT_CERTIFIED_EVIDENCE)),
                              name="a verdict's evidence")


# A failed T0 verdict, and an inconclusive one (T1..T4: no leader to refer to), may carry a similarity certificate
# (docs/theory.md D11) that no token is ever a leader, and what it says of the limits: both re-verified
# (:mod:`.similarity`).
SIMILARITY = Obj({key: CHECKED for key in SIMILARITY_FIELDS}, name="a similarity certificate (D11)")
_FAILED_T0_EVIDENCE, _INCONCLUSIVE_EVIDENCE = (
    Obj({**_NOT_CERTIFIED_EVIDENCE.fields, "similarity": SIMILARITY, "limits": CHECKED},
        optional=(*_NOT_CERTIFIED_EVIDENCE.optional, "similarity", "limits"), extra=_NOT_CERTIFIED_EVIDENCE.extra,
        name=name) for name in ("a failed T0 verdict's evidence", "an inconclusive verdict's evidence"))


# A failed D2 or T3 verdict may state its counterexample, re-verified on the replay (:mod:`.falsity`).
_FAILED_EVIDENCE = {claim: Obj({**_NOT_CERTIFIED_EVIDENCE.fields, **{key: CHECKED for key in keys}},
                               optional=(*_NOT_CERTIFIED_EVIDENCE.optional, *keys), extra=_NOT_CERTIFIED_EVIDENCE.extra,
                               name=f"a failed {claim} verdict's evidence")
                    for claim, keys in (("D2", ("token", "layer", "lhs", "rhs")),
                                        ("T3", ("token", "limit", "direction", "lhs", "rhs")))}


def _verdict(claim: str, status: str) -> Obj:
    evidence = (_evidence(claim) if status == "certified" else _FAILED_T0_EVIDENCE if (claim, status) == ("T0", "failed")
                else _FAILED_EVIDENCE.get(claim, _NOT_CERTIFIED_EVIDENCE) if status == "failed"
                else _INCONCLUSIVE_EVIDENCE)
    fields: dict[str, Node] = {"claim": CHECKED, "status": CHECKED, "summary": Unchecked(SUMMARY_SENTENCE),
                               "evidence": evidence,
                               "cross_checks": Unchecked(CROSS_CHECKS)}
    if status == "certified":
        fields["certificate"] = CERTIFICATES[claim]
    return Obj(fields, optional=("cross_checks",), name=f"a{'n' if status[0] in 'aeiou' else ''} {status} verdict")


_VERDICTS = {claim: {status: _verdict(claim, status) for status in ("certified", "failed", "inconclusive")}
             for claim in CERTIFICATES}


def verdict_node(claim: str, status: Any) -> Node:
    """The schema of ``claim``'s verdict with ``status`` (a claim without a routine: not checked)."""
    by_status = _VERDICTS.get(claim)
    if by_status is None:
        return Unchecked(NO_ROUTINE)
    return by_status[status] if isinstance(status, str) and status in by_status else CHECKED


def _verdict_of(claim: str) -> Either:
    statuses = ("certified", "failed", "inconclusive")

    def choose(verdict: Any) -> int:
        status = verdict.get("status") if isinstance(verdict, dict) else None
        return statuses.index(status) if status in statuses else -1

    return Either(*(_VERDICTS[claim][s] for s in statuses), choose=choose)


VERDICTS = Obj({claim: _verdict_of(claim) for claim in CERTIFICATES}, optional=tuple(CERTIFICATES),
               extra=("a claim without a routine", lambda key: True, Unchecked(NO_ROUTINE)), name="verdicts",
               wildcard=True)

# The run's statements besides its verdicts (a claims report's top level; a record holds the same run).
RUN_FIELDS: dict[str, Node] = {
    "stopped_by": CHECKED, "settled_layer": CHECKED, "status": CHECKED, "fates": Items(RUN_FATE),
    "verdicts": VERDICTS,
}
CLAIMS_REPORT = Obj({
    "format": CHECKED, "config": CONFIGURATION, "outside_hypotheses": CHECKED, "hypothesis_violations": CHECKED,
    "layer_budget": Unchecked("an input of the run: last_layer must be within it, and equal to it when the run "
                              "stopped by its layer budget"),
    "time_budget": Unchecked("an input of the run: a run that stopped by its time budget must have had one"),
    "last_layer": CHECKED, **RUN_FIELDS,
}, name="a claims report")

ANY = Checked()  # an opaque value compared whole (a plan entry's options, a task)
__all__ += ["SIMILARITY", "VERDICTS", "EVIDENCE_FIELDS", "RUN_EVIDENCE", "ANY", "ANY_KEY"]
