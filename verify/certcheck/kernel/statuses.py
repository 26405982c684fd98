"""Statuses: whether each verdict's status is the one the replay justifies (docs/theory.md §2, §3).

A certified verdict is verified by its claim's routine (:mod:`.claims`); an inconclusive one is
accepted only when the replay (with any verified D9 chain) cannot decide the claim, so that a
downgraded verdict is rejected; a failed one is passed on. :class:`Facts` is what the replay says
about one run (fates, settled layer, leaders) that every status is judged against. T1..T4 and D3
rest on D3 and D7, which are not proved with a value matrix V that is not a positive multiple of
I, and D1 and D2 are proved for that rule only, D2 for A symmetric positive semidefinite: outside
their proofs a certificate over finitely many layers proves nothing beyond them, so it is rejected
and an inconclusive verdict is accepted (:func:`outside_proof`).
"""

from __future__ import annotations

import json
from typing import Any

from .claims import CHECKS, _check_layer_positions
from .common import NEEDS_D3_D7, Rejected, counted
from .falsity import judge_failed
from .fates import _is_leader, _rests_on_chain, _search_fates
from .model import Chain, Context, Fate, Model
from .numbers import _show, _text
from .report_schema import verdict_node
from .schema import problem as _schema_problem
from .similarity import judge_failed_T0, judge_similarity_evidence


def outside_proof(claim: str, m: Model) -> str | None:
    """Why a certified ``claim`` would rest on no proof for this model (None: its proof covers every layer)."""
    if not m.proved_model and claim in NEEDS_D3_D7:
        return "with this value matrix V, D3/D7 are not proved: nothing follows beyond the layers run"
    if not m.proved_model and claim in ("D1", "D2"):
        return (f"{claim} is proved for the rule of docs/theory.md §1 (V = alpha I) only: with this value matrix V "
                "the layers run prove nothing about later ones")
    if claim == "D2" and not m.A_symmetric_positive_semidefinite:
        return ("D2 is proved for A symmetric positive semidefinite only: with this A the layers run prove nothing "
                "about later ones")
    return None


class Facts:
    """What the replay says about one run (layers 0..last), against which every verdict status is judged."""

    def __init__(self, m: Model, last: int, chain: Chain | None = None) -> None:
        self.model, self.last = m, last
        self.fates, self.settled = _search_fates(m, last if chain is None else min(chain.start, last))
        if chain is not None and self.settled is None:
            # D9: the tokens D7 leaves at the chain's first layer follow their verified paths.
            for t in range(m.n):
                if t not in self.fates:
                    self.fates[t] = Fate("path", chain.start, chain.sets[t], chain.limits[t])
            self.settled = chain.start
        self.leader_seen = any(m.attention(k)[i] == {i} for k in range(last + 1) for i in range(m.n))
        leader_limits = {f.limit for t, f in self.fates.items() if _is_leader(t, f)}
        self.non_vertex = self.settled is not None and any(f.limit not in leader_limits for f in self.fates.values())

    def inconclusive_reason(self, claim: str) -> str | None:
        """Why ``claim`` cannot be decided on this run (None: the replay decides it, so 'inconclusive' is wrong)."""
        m, last = self.model, self.last
        unproved = outside_proof(claim, m)
        if unproved is not None:
            return unproved
        without = set(range(m.n)) - set(self.fates)
        unsettled = (f"{_tokens_have(without)} no D7 fate within layers 0..{last} "
                     "and the run carries no verified certified closed-form chain (D9)" if self.settled is None else None)
        if claim in ("T0", "D3"):
            return None if self.leader_seen else f"no token leads within layers 0..{last}"
        if claim in ("T2", "T3", "T4") and unsettled is None and not any(
                _is_leader(t, f) for t, f in self.fates.items()):
            return "every token's fate is known and none ever leads (duplicates): K is empty"
        if claim in ("T1", "T2", "T3"):
            return unsettled
        if claim == "T4":
            if unsettled:
                return unsettled
            if self.non_vertex and not m.Asym_positive_definite:
                return "(A + A^T)/2 is not positive definite: the A-projection of the origin is not defined"
            return None
        if claim in ("D1", "replay"):
            return None if last > 0 else "only layer 0 was run: no transition"
        return None  # D2 is decided inside its proof (outside_proof)


def facts_of(m: Model, last: int, chain: Chain | None = None) -> Facts:
    """What the replay of ``m`` through layer ``last`` says (fates, settled layer, leaders), with the run's
    verified closed-form ``chain`` if any, computed once per model."""
    key = (last, None if chain is None else json.dumps([chain.start, [sorted(s) for s in chain.sets],
                                                        [[_text(x) for x in p] for p in chain.limits]]))
    if key not in m._facts:
        m._facts[key] = Facts(m, last, chain)
    return m._facts[key]


def _tokens_have(tokens: set[int]) -> str:
    """``token 3 has`` / ``tokens {2, 3} have``: the tokens named, the verb agreeing."""
    return f"token {min(tokens)} has" if len(tokens) == 1 else f"tokens {_show(tokens)} have"


def _decided_because(facts: Facts, claim: str) -> str:
    if claim in ("T0", "D3"):
        return "a token leads within the layers run"
    if claim in ("D1", "replay"):
        return f"layers 0..{facts.last} hold {counted(facts.last, 'transition')}"
    if claim == "D2":
        return "D2's proof covers this A and rule"
    return f"every token has a D7 fate or a verified closed-form path (D9) by layer {facts.settled}"


def _form_problem(claim: str, verdict: Any) -> str | None:
    """Why ``verdict`` is not a verdict object for ``claim`` with a known status, or None."""
    if not isinstance(verdict, dict):
        return "the verdict is not an object"
    if verdict.get("claim") != claim:
        return f"the verdict under {claim!r} names claim {str(verdict.get('claim'))[:40]!r}"
    if verdict.get("status") not in ("certified", "failed", "inconclusive"):
        return f"unknown status {str(verdict.get('status'))[:40]!r} (expected certified, failed or inconclusive)"
    return None


def _verify(claim: str, verdict: Any, ctx: "Context", facts: Facts, replay_failed: bool) -> tuple[str, str]:
    """(outcome, reason) for one verdict: verified, inconclusive (justified), failed, rejected or unsupported."""
    problem = _form_problem(claim, verdict) or _schema_problem(verdict, verdict_node(claim, verdict.get("status")),
                                                               f"verdicts.{claim}")
    if problem is not None:
        return "rejected", problem
    status, cert = verdict.get("status"), verdict.get("certificate")
    if status != "certified":
        if cert is not None:
            return "rejected", f"a {status} verdict carries a certificate"
        if status == "failed":
            judged = judge_failed_T0(verdict, ctx.model) if claim == "T0" else None  # docs/theory.md D11
            if claim in ("D2", "T3"):  # a counterexample on the replay (falsity.py)
                judged = judge_failed(claim, verdict, ctx.model, facts.fates if facts.settled is not None else None)
            if judged is not None:
                return judged
            return "failed", ("the file reports this claim false (certcheck re-verifies certificates and the "
                              "counterexamples of T0, T3 and D2, not this one)")
        evidence = verdict.get("evidence")
        if isinstance(evidence, dict) and {"similarity", "limits"} & set(evidence):
            try:  # what the verdict says of the limits (docs/theory.md D11) is a statement: it must hold
                judge_similarity_evidence(evidence, ctx.model)
            except Rejected as error:
                return "rejected", str(error)
        reason = facts.inconclusive_reason(claim)
        if reason is None and replay_failed:
            reason = "the file reports the replay failed, so its other verdicts are not decided"
        if reason is None:
            return "rejected", (f"the verdict is inconclusive, but the replay decides it ({_decided_because(facts, claim)}): "
                                "a downgraded verdict")
        return "inconclusive", reason
    if not isinstance(cert, dict):
        return "rejected", "a certified verdict without a certificate"
    try:
        _check_layer_positions(cert, ctx.model)
        CHECKS[claim](cert, ctx)
    except Rejected as error:
        return "rejected", str(error)
    unproved = outside_proof(claim, ctx.model)
    if unproved is not None:
        return "rejected", f"every condition holds for the layers replayed, but {unproved}"
    if ctx.unverified_chain is not None and _rests_on_chain(cert):
        # A limit of the checker is not a falsehood: neither verified nor rejected.
        return "unsupported", (f"every other condition holds, but the certificate rests on a "
                               f"{ctx.unverified_chain}")
    return "verified", ""


def _without_routine(claim: str, verdict: Any) -> tuple[str, str]:
    """(outcome, reason) for a verdict of a claim this checker has no routine for.

    Its form is checked like any verdict's; a failed one is passed on (the file says the claim
    is false); anything else is unsupported: nothing about it is verified.
    """
    problem = _form_problem(claim, verdict)
    if problem is not None:
        return "rejected", problem
    status, cert = verdict.get("status"), verdict.get("certificate")
    if (status == "certified") != isinstance(cert, dict):
        return "rejected", ("a certified verdict without a certificate" if status == "certified"
                            else f"a {status} verdict carries a certificate")
    if status == "failed":
        return "failed", "the file reports this claim false (certcheck re-verifies certificates, not counterexamples)"
    return "unsupported", (f"certcheck has no routine for claim {claim} (it re-verifies {', '.join(CHECKS)}): "
                           f"this {status} verdict is not re-verified")


def combine_statuses(statuses: list) -> str:
    return "failed" if "failed" in statuses else "inconclusive" if "inconclusive" in statuses else "certified"
