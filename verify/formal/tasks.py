"""What a claims report or a results.json record asks of the kernel, claim by claim.

A configuration whose tokens all have D7 fates (leader, fixed, locked) becomes one
:class:`KernelTask`: the configuration, the fates, the limits and the positions of the last
layer, for the soundness theorem ``certificate_sound`` of formal/Checker.v. D1 and D3 are
theorems for every configuration (``D1``, ``D3`` of formal/Checker.v), so they need no task.
Everything else is "not kernel-checked", with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping

from verify.core.config import Configuration, parse_configuration
from verify.core.numbers import InputError, to_rational

from . import terms

__all__ = ["KERNEL_CHECKED", "REJECTED", "NOT_KERNEL_CHECKED", "COVERED_CLAIMS", "NOT_FORMALISED", "THEOREMS", "ClaimOutcome",
           "KernelTask", "RecordPlan", "plan_record"]

KERNEL_CHECKED = "kernel-checked"
REJECTED = "rejected"
NOT_KERNEL_CHECKED = "not kernel-checked"

# The claims the kernel proves today, and the Coq theorem each rests on (docs/formal.md).
COVERED_CLAIMS: dict[str, str] = {
    "T0": "certificate_sound: a leader exists",
    "T1": "certificate_sound: each leader leads first at its layer and stays fixed; the leaders are exactly these",
    "D1": "D1: every layer is a convex combination of the previous one (every configuration)",
    "D3": "D3: a leader leads again and does not move (every configuration)",
    "replay": "certificate_sound: the positions of the last layer are the model's",
}
GENERIC_THEOREMS = ("D1", "D3")
# The Coq theorem behind each covered claim (formal/Checker.v), for tables.
THEOREMS: dict[str, str] = {"T0": "certificate_sound", "T1": "certificate_sound", "D1": "D1", "D3": "D3",
                            "replay": "certificate_sound"}
NOT_FORMALISED: dict[str, str] = {
    "T2": "the vertices of K are not formalised yet (the leader set and every limit are kernel-checked)",
    "T3": "the boundary of K is not formalised yet (every token's limit is kernel-checked)",
    "T4": "A-norm projections onto the faces of K are not formalised yet",
    "D2": "D2 (the A-norm never decreases) is not formalised yet",
}


@dataclass(frozen=True)
class ClaimOutcome:
    claim: str
    status: str        # kernel-checked | rejected | not kernel-checked
    reason: str        # the theorem it rests on, or why not

    def to_json_dict(self) -> dict[str, str]:
        return {"claim": self.claim, "status": self.status, "reason": self.reason}


@dataclass(frozen=True)
class KernelTask:
    """One configuration and its D7 certificate, as the Coq terms of Statement.v's ``Outcome``."""

    name: str
    config: str                 # a term of type config
    fates: list[str]            # one term of type fate per token
    limits: list[str]           # one vector term per token
    last_layer: int             # K
    last_positions: str         # ZK, a term of type list vec
    size: int = 0               # tokens x layers, to plan batches

    def definitions(self) -> str:
        return (f"Definition cfg : config := {self.config}.\n"
                f"Definition fates : list fate := [{'; '.join(self.fates)}].\n"
                f"Definition limits : list vec := [{'; '.join(self.limits)}].\n"
                f"Definition K : nat := {self.last_layer}.\n"
                f"Definition ZK : list vec := {self.last_positions}.\n")


@dataclass
class RecordPlan:
    """The claims of one record: those decided without the kernel, and the task the rest wait on."""

    label: str
    task: KernelTask | None
    decided: dict[str, ClaimOutcome] = field(default_factory=dict)
    waiting: list[str] = field(default_factory=list)   # claims decided by the task's kernel verdict

    def resolve(self, verdict: str, reason: str) -> dict[str, ClaimOutcome]:
        """Every claim's outcome once the task's verdict is known (kernel-checked / rejected / not kernel-checked)."""
        out = dict(self.decided)
        for claim in self.waiting:
            out[claim] = ClaimOutcome(claim, verdict, COVERED_CLAIMS[claim] if verdict == KERNEL_CHECKED else reason)
        return {c: out[c] for c in sorted(out)}


def _rational(value: Any, where: str) -> Fraction:
    return to_rational(value, field=where)


def _point(value: Any, where: str) -> list[Fraction]:
    if not isinstance(value, list):
        raise InputError(where, "expected a list of numbers")
    return [_rational(x, f"{where}[{i}]") for i, x in enumerate(value)]


def _configuration(record: Mapping[str, Any], where: str) -> Configuration:
    data = record.get("config", record.get("configuration"))
    key = "config" if "config" in record else "configuration"
    return parse_configuration(data, outside_hypotheses=True, source=f"{where}.{key}")


def plan_record(record: Mapping[str, Any], label: str) -> RecordPlan:
    """The kernel's part in one claims report (``check --json``) or results.json record.

    Raises :class:`InputError` for a record that is not of that form.
    """
    if not isinstance(record, Mapping):
        raise InputError(label, "expected a JSON object (a claims report or a results.json record)")
    config = _configuration(record, label)
    verdicts = record.get("verdicts")
    if not isinstance(verdicts, Mapping):
        raise InputError(f"{label}.verdicts", "expected an object of verdicts")
    plan = RecordPlan(label, None)
    needs_task: list[str] = []
    for claim in sorted(verdicts):
        verdict = verdicts[claim]
        status = verdict.get("status") if isinstance(verdict, Mapping) else None
        if status != "certified":
            plan.decided[claim] = ClaimOutcome(claim, NOT_KERNEL_CHECKED, f"check did not certify it ({status})")
        elif config.V is not None:
            plan.decided[claim] = ClaimOutcome(claim, NOT_KERNEL_CHECKED,
                                               "a value matrix V is outside the formalised model (V = alpha I)")
        elif claim in GENERIC_THEOREMS:
            plan.decided[claim] = ClaimOutcome(claim, KERNEL_CHECKED, COVERED_CLAIMS[claim])
        elif claim in COVERED_CLAIMS:
            needs_task.append(claim)
        else:
            plan.decided[claim] = ClaimOutcome(claim, NOT_KERNEL_CHECKED, NOT_FORMALISED.get(claim, "not formalised yet"))
    if not needs_task:
        return plan
    fates = record.get("fates")
    if not isinstance(fates, list):
        raise InputError(f"{label}.fates", "expected the list of fates")
    by_token: dict[int, Mapping[str, Any]] = {}
    for i, f in enumerate(fates):
        if not isinstance(f, Mapping) or not isinstance(f.get("token"), int):
            raise InputError(f"{label}.fates[{i}]", "expected a fate object with a token index")
        by_token[f["token"]] = f
    uncovered = [f for f in (by_token.get(i) for i in range(config.n)) if f is None or f.get("kind") not in ("leader", "fixed", "locked")]
    if len(by_token) != config.n or uncovered:
        bad = uncovered[0] if uncovered else None
        reason = ("a D9 closed-form path certificate (token {}) is not formalised yet".format(bad.get("token"))
                  if bad is not None and bad.get("kind") == "path"
                  else "not every token has a D7 fate (leader, fixed or locked)")
        for claim in needs_task:
            plan.decided[claim] = ClaimOutcome(claim, NOT_KERNEL_CHECKED, reason)
        return plan
    coq_fates, coq_limits = [], []
    for i in range(config.n):
        f = by_token[i]
        where = f"{label}.fates[token {i}]"
        members = f.get("set")
        if not isinstance(f.get("layer"), int) or not isinstance(members, list) or not all(isinstance(j, int) for j in members):
            raise InputError(where, "expected an integer layer and a list of token indices")
        coq_fates.append(terms.fate(f["kind"], f["layer"], members))
        coq_limits.append(terms.vec(_point(f.get("limit"), f"{where}.limit")))
    replay = verdicts.get("replay")
    certificate = replay.get("certificate") if isinstance(replay, Mapping) and replay.get("status") == "certified" else None
    if isinstance(certificate, Mapping):
        last_layer = certificate.get("last_layer")
        positions = certificate.get("final_positions")
        if not isinstance(last_layer, int) or not isinstance(positions, list):
            raise InputError(f"{label}.verdicts.replay.certificate", "expected last_layer and final_positions")
        last = terms.matrix(_point(p, f"{label}.verdicts.replay.certificate.final_positions[{i}]")
                            for i, p in enumerate(positions))
    else:
        last_layer, last = 0, terms.matrix(config.tokens)
        if "replay" in needs_task:
            needs_task.remove("replay")
            plan.decided["replay"] = ClaimOutcome("replay", NOT_KERNEL_CHECKED, "no replay certificate")
    plan.task = KernelTask(name=label, config=terms.config(config.tokens, config.alpha, config.A_matrix),
                           fates=coq_fates, limits=coq_limits, last_layer=last_layer, last_positions=last,
                           size=config.n * (1 + max([last_layer] + [by_token[i]["layer"] for i in range(config.n)])))
    plan.waiting = needs_task
    return plan
