"""The claim registry: one record per claim id, read by everything that names a claim.

A record says what the claim states (docs/theory.md §2/§3, one line, as the report's claims table
and the assertion helpers' failure messages word it), what a certified verdict assumes beyond
the layers computed, whether the claim is a **claim check** or a **testing assertion**, its role
(a statement of the theorem, a derived fact, or a check of the engine), which routine of the
independent checker re-verifies its certificate, which command reproduces a counterexample,
which property module exercises it, and what the report adds about it. The claim checks
(:mod:`verify.claims.run`), :mod:`verify.app.campaign`, :mod:`verify.testing`, the report and the
conjecture lab read it; the independent checker :mod:`verify.certcheck` does not (it imports
nothing from the package) and keeps its own table of routines, which a meta test compares with
this one.

Each record is registered by its claim's own module of this package (``verify/claims/T0.py``,
...): importing :mod:`verify.claims` imports every one of them, in the order of docs/theory.md
(see the package's docstring), so that every consumer sees the whole table.

The rule (docs/claims.md):

* a **claim check** (``kind="check"``) is decided on every configuration a run checks:
  its ``check(run)`` (``check_X`` in ``verify/claims/X.py``) returns a
  :class:`~verify.claims.verdicts.Verdict` with an exact certificate when certified; every
  report tabulates it and certcheck re-verifies its certificate;
* a **testing assertion** (``kind="assertion"``) is a fact about the trajectory exercised by
  properties: ``testing.assert_X(...)`` raises :class:`~verify.testing.ClaimFailure` when it
  fails and emits no verdict or certificate.

Adding a claim: its module ``verify/claims/<id>.py`` with its check (or, for an assertion, its
record only) and its record, ``CLAIM = register(Claim(...))``; its certcheck routine under the
same id; its property module; its row in docs/claims.md. The claim conformance kit
(``tests/common/claim_conformance.py``) says what each must hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Literal, Mapping, Sequence

__all__ = ["Claim", "Kind", "Role", "ROLES", "ReportNote", "PROVED_FACTS", "register", "unregister", "get", "find",
           "claims", "verdict_ids"]

Kind = Literal["check", "assertion"]
# theorem: a statement of docs/theory.md §2 (T0..T4; the conjecture lab decides on these); fact: a
# derived fact of §3 (D0..D8); engine: a check of the engines themselves (the replay of the exact
# layers, the float bound). When a claim check of role engine fails, no other verdict is certified.
Role = Literal["theorem", "fact", "engine"]
ROLES: tuple[Role, ...] = ("theorem", "fact", "engine")
# How the report shows a claim beyond its row of the claims table: from the claim's row of
# results.json's summary and its verdicts (one per example checked), a sentence, or None.
ReportNote = Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]]], str | None]
_ID = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,39}")

# The derived facts of docs/theory.md §3 that carry a certified verdict beyond the layers computed.
# Each is proved once, for the rule with V = alpha I. D7 and D9 are not decided per configuration,
# so they are not claims here (D3 is also a claim check, on the layers run). A claim names the
# facts it may rest on (``rests_on``); each certified verdict's evidence names those its run used.
PROVED_FACTS: dict[str, str] = {
    "D3": "a leader stays a leader and does not move",
    "D7": "leader, fixed and locked tokens: their limits, and that locked and fixed tokens never lead",
    "D9": "closed-form paths: a chain that satisfies its exact conditions is the trajectory for every later layer",
}


@dataclass(frozen=True)
class Claim:
    """One claim id and everything the suite knows about it.

    ``certificate``: the key of the independent checker's routine (``verify.certcheck.CHECKS``)
    that re-verifies a certified verdict, or None for a claim with no certificate (every
    assertion). ``reproduce``: the command that re-decides a counterexample file (``check``
    for what the claim checks decide, ``simulate`` for facts of the trajectory).
    ``rests_on``: the facts of :data:`PROVED_FACTS` a certified verdict may rely on beyond the
    layers computed (which of them a run used is in its verdict's evidence); they are proved for
    V = alpha I only, so with another value matrix nothing resting on them is certified.
    ``check``: for a claim check, the function ``ClaimRun -> Verdict``.
    ``role``: see :data:`Role`. ``decided_on_limits``: the check compares the tokens' limits
    (D7 fates or a D9 chain): a failed verdict carries the chain they came from, and with another
    value matrix a failed verdict is inconclusive (the limits rest on facts unproved for it),
    where a failure observed directly in the layers run stays failed.
    ``report_note``: see :data:`ReportNote` (None: the table row says it all).
    """

    id: str
    statement: str
    kind: Kind
    assumption: str = "none"
    certificate: str | None = None
    reproduce: Literal["check", "simulate"] = "check"
    property_module: str = ""
    rests_on: tuple[str, ...] = ()
    check: Callable[[Any], Any] | None = None
    role: Role = "fact"
    decided_on_limits: bool = False
    report_note: ReportNote | None = None

    def __post_init__(self) -> None:
        if not _ID.fullmatch(self.id):
            raise ValueError(f"claim id {self.id!r}: expected a letter, then letters, digits or _ (at most 40)")
        if self.kind not in ("check", "assertion"):
            raise ValueError(f"claim {self.id}: kind must be 'check' or 'assertion', got {self.kind!r}")
        if self.kind == "assertion" and (self.certificate is not None or self.check is not None
                                         or self.report_note is not None or self.decided_on_limits):
            raise ValueError(f"claim {self.id}: a testing assertion emits no verdict and no certificate")
        if self.role not in ROLES:
            raise ValueError(f"claim {self.id}: role must be one of {', '.join(ROLES)}, got {self.role!r}")
        unknown = [fact for fact in self.rests_on if fact not in PROVED_FACTS]
        if isinstance(self.rests_on, str) or unknown:
            raise ValueError(f"claim {self.id}: rests_on must be a tuple of {sorted(PROVED_FACTS)}, got {self.rests_on!r}")
        if not self.property_module:
            object.__setattr__(self, "property_module", f"test_{self.id}")


_REGISTRY: dict[str, Claim] = {}


def register(claim: Claim) -> Claim:
    """Add ``claim`` (its id must be new); claim checks are run, reported and re-checked in registration order."""
    if claim.id in _REGISTRY:
        raise ValueError(f"claim {claim.id} is registered already")
    _REGISTRY[claim.id] = claim
    return claim


def unregister(claim_id: str) -> None:
    """Remove a claim (tests that register a toy claim put the registry back with this)."""
    del _REGISTRY[claim_id]


def get(claim_id: str) -> Claim:
    try:
        return _REGISTRY[claim_id]
    except KeyError:
        raise KeyError(f"no claim {claim_id!r} in the registry") from None


def claims(kind: Kind | None = None) -> tuple[Claim, ...]:
    """Every registered claim (of one kind), in registration order."""
    return tuple(c for c in _REGISTRY.values() if kind is None or c.kind == kind)


def verdict_ids() -> tuple[str, ...]:
    """The ids every check decides and every report tabulates (the claim checks), in order."""
    return tuple(c.id for c in claims("check"))


def find(claim_id: str) -> Claim | None:
    """The claim's record, or None for an id the registry does not hold."""
    return _REGISTRY.get(claim_id)
