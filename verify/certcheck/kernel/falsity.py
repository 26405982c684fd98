"""Counterexamples re-verified on the checker's own replay: a failed D2 or T3 verdict whose evidence names one.

* D2 (docs/theory.md §3): the evidence's ``token`` i and ``layer`` k >= 1 with ``lhs`` the replay's
  <A z_i^k, z_i^k> and ``rhs`` its <A z_i^{k-1}, z_i^{k-1}>, and lhs < rhs: the squared A-norm decreased.
* T3 (§2): the evidence's ``token`` has a verified fate (D7, or a verified D9 path) whose limit is the
  stated ``limit``, and the ``direction`` c gives c.limit = ``lhs`` > ``rhs`` = max c.p over the
  leaders' verified limits: the limit lies outside K.

Any other failed verdict is passed on as the file states it (nothing re-verified). Like the D11
certificates (:mod:`.similarity`), a counterexample that holds is a checked certificate of falsity.
"""

# ruff: noqa: B023 - a message passed to require as a lambda is formatted inside require, before the
# loop it is written in moves on: the loop variables it reads are the current ones.

from __future__ import annotations

from typing import Any

from .common import Rejected, require
from .fates import _is_leader
from .model import Fate, Model
from .numbers import _dot, _get, _int, _point, _q, read_number

VERIFIED = "re-verified:"  # how the reason of a failed outcome whose counterexample holds begins


def judge_failed(claim: str, verdict: dict, m: Model, fates: dict[int, Fate] | None) -> tuple[str, str] | None:
    """(outcome, reason) for a failed D2 or T3 verdict whose evidence states a counterexample, else None.

    ``fates``: every token's verified fate, or None when the replay does not settle them all (then K is not known
    and no T3 counterexample is verified)."""
    evidence = verdict.get("evidence")
    if not isinstance(evidence, dict) or not ("token" in evidence and ("layer" in evidence if claim == "D2"
                                                                         else "direction" in evidence)):
        return None
    try:
        reason = _norm_decreases(evidence, m) if claim == "D2" else _outside_K(evidence, m, fates)
    except Rejected as error:
        return "rejected", str(error)
    return "failed", f"{VERIFIED} {reason}"


def _norm_decreases(e: dict[str, Any], m: Model) -> str:
    k = _int(_get(e, "layer", "evidence"), "evidence.layer", low=1, high=m.last)
    i = _int(_get(e, "token", "evidence"), "evidence.token", high=m.n - 1)
    after, before = m.norm(k, i), m.norm(k - 1, i)
    require(read_number(_get(e, "lhs", "evidence"), "evidence.lhs") == after,
            lambda: f"evidence.lhs is not the replay's <A z_{i}^{k}, z_{i}^{k}> = {_q(after)}")
    require(read_number(_get(e, "rhs", "evidence"), "evidence.rhs") == before,
            lambda: f"evidence.rhs is not the replay's <A z_{i}^{k - 1}, z_{i}^{k - 1}> = {_q(before)}")
    require(after < before, lambda: f"token {i}'s squared A-norm does not decrease from layer {k - 1} to {k}")
    return f"token {i}'s squared A-norm decreases from {_q(before)} at layer {k - 1} to {_q(after)} at layer {k}"


def _outside_K(e: dict[str, Any], m: Model, fates: dict[int, Fate] | None) -> str:
    i = _int(_get(e, "token", "evidence"), "evidence.token", high=m.n - 1)
    require(fates is not None, "the replay does not give every token a verified fate, so K is not known")
    assert fates is not None
    leaders = {t: f.limit for t, f in fates.items() if _is_leader(t, f)}
    require(bool(leaders), "no token has a leader's verified fate: K is empty")
    limit = _point(_get(e, "limit", "evidence"), m.d, "evidence.limit")
    require(limit == fates[i].limit, lambda: f"evidence.limit is not token {i}'s verified limit")
    c = _point(_get(e, "direction", "evidence"), m.d, "evidence.direction")
    lhs, top = _dot(c, limit), max(_dot(c, p) for p in leaders.values())
    require(read_number(_get(e, "lhs", "evidence"), "evidence.lhs") == lhs and
            read_number(_get(e, "rhs", "evidence"), "evidence.rhs") == top,
            lambda: f"evidence.lhs, rhs are not c.limit = {_q(lhs)} and max c.p = {_q(top)} over the leaders' limits")
    require(lhs > top, lambda: f"c.limit = {_q(lhs)} is not above every leader's limit: this shows nothing outside K")
    return f"token {i}'s verified limit lies outside K (c.limit = {_q(lhs)} > {_q(top)} = max over the leaders' limits)"
