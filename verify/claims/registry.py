"""The claim registry: one record per claim id, read by everything that names a claim.

A record says what the claim states (docs/theory.md §2/§3, one line, as the report's claims table
and the assertion helpers' failure messages word it), what a certified verdict assumes beyond
the layers computed, whether the claim is a **claim check** or a **testing assertion**, which
routine of the independent checker re-verifies its certificate, which command reproduces a
counterexample, and which property module exercises it. :mod:`verify.claims.checks`,
:mod:`verify.app.campaign`, :mod:`verify.testing` and the report read it; the independent checker
:mod:`verify.certcheck` does not (it imports nothing from the package) and keeps its own table
of routines, which a meta test compares with this one.

The rule (docs/claims.md):

* a **claim check** (``kind="check"``) is decided on every configuration a run checks:
  ``claims.check_X(run)`` returns a :class:`~verify.claims.verdicts.Verdict` with an exact certificate
  when certified; every report tabulates it and certcheck re-verifies its certificate;
* a **testing assertion** (``kind="assertion"``) is a fact about the trajectory exercised by
  properties: ``testing.assert_X(...)`` raises :class:`~verify.testing.ClaimFailure` when it
  fails and emits no verdict or certificate.

Adding a claim: its check (or assertion) in its own module, registered with
:func:`register` (or, for the built-in checks of :mod:`verify.claims.checks`, the :func:`checks`
decorator next to the function); its certcheck routine under the same id; its property module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Callable, Literal

__all__ = ["Claim", "Kind", "PROVED_FACTS", "register", "unregister", "checks", "get", "find", "claims", "verdict_ids"]

Kind = Literal["check", "assertion"]
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
    for what :mod:`verify.claims.checks` decides, ``simulate`` for facts of the trajectory).
    ``rests_on``: the facts of :data:`PROVED_FACTS` a certified verdict may rely on beyond the
    layers computed (which of them a run used is in its verdict's evidence); they are proved for
    V = alpha I only, so with another value matrix nothing resting on them is certified.
    ``check``: for a claim check, the function ``ClaimRun -> Verdict``.
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

    def __post_init__(self) -> None:
        if not _ID.fullmatch(self.id):
            raise ValueError(f"claim id {self.id!r}: expected a letter, then letters, digits or _ (at most 40)")
        if self.kind not in ("check", "assertion"):
            raise ValueError(f"claim {self.id}: kind must be 'check' or 'assertion', got {self.kind!r}")
        if self.kind == "assertion" and (self.certificate is not None or self.check is not None):
            raise ValueError(f"claim {self.id}: a testing assertion emits no verdict and no certificate")
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


def checks(claim_id: str) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """Decorator: ``function`` is the check of the registered claim check ``claim_id``."""
    def bind(function: Callable[[Any], Any]) -> Callable[[Any], Any]:
        claim = get(claim_id)
        if claim.kind != "check":
            raise ValueError(f"claim {claim_id} is a testing assertion: it has no check function")
        _REGISTRY[claim_id] = replace(claim, check=function)
        return function
    return bind


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


# --------------------------------------------------------------------------- the claims of docs/theory.md

# Claim checks: decided by verify.claims.checks on every configuration; certcheck re-verifies each one.
register(Claim("T0", "the set of leaders is nonempty", "check",
               assumption="none (exact scores at the certificate's layer)", certificate="T0"))
# T1..T4 need every token settled: by D7 (leader, fixed, locked) and, for the tokens D7 leaves,
# by D9 (a closed-form path); a verdict's evidence says which its run used.
_SETTLED = "every token settled by D7 (leader, fixed or locked) or by a D9 closed-form path"
register(Claim("T1", "each leader is fixed from the first layer at which it is a leader", "check",
               assumption=f"D3 for layers after the last one computed; the leader set is final: {_SETTLED}",
               certificate="T1", rests_on=("D3", "D7", "D9")))
register(Claim("T2", "the leaders' limits are pairwise distinct and are exactly the vertices of K", "check",
               assumption=f"the leader set is final: {_SETTLED}, and neither locked nor fixed tokens nor paths whose "
                          "final set is not their own token ever lead", certificate="T2", rests_on=("D3", "D7", "D9")))
register(Claim("T3", "every token converges to a point of S, and S lies on the boundary of K", "check",
               assumption="exact convergence from the settled layer on: D7 (leaders stay, locked tokens converge "
                          "geometrically) or D9 (every token on its exact closed-form path)", certificate="T3",
               rests_on=("D3", "D7", "D9")))
register(Claim("T4", "every non-vertex point of S is the A-norm projection of the origin onto a face of K", "check",
               assumption="the limits of D7 or D9 (as for T3), and A symmetric positive definite (KKT conditions imply "
                          "the projection)", certificate="T4", rests_on=("D3", "D7", "D9")))
register(Claim("D1", "each token of layer k+1 lies in the convex hull of layer k", "check",
               assumption="none within the layers computed; later layers unchecked", certificate="D1"))
register(Claim("D2", "the A-norm of a token never decreases", "check",
               assumption="none within the layers computed; later layers unchecked", certificate="D2"))
register(Claim("D3", "a leader stays a leader and does not move", "check",
               assumption="D3's proof for layers after the last one computed", certificate="D3", rests_on=("D3",)))
register(Claim("replay", "each layer equals the independent oracle's one step from the previous layer", "check",
               assumption="none", certificate="replay", property_module="test_certificate_round_trip"))

# Testing assertions: facts of the trajectory, asserted by verify.testing in the properties.
# D0 is part of T0's check too, so `check` reproduces it; the others need `simulate`.
register(Claim("D0", "a token of largest A-norm is a leader at layer 0", "assertion"))
register(Claim("D5", "equal tokens stay equal forever", "assertion", reproduce="simulate"))
register(Claim("D8", "distinct tokens never merge (A positive definite)", "assertion", reproduce="simulate"))
register(Claim("float", "the float trajectory is within its proven rounding bound of the exact one", "assertion",
               reproduce="simulate", property_module="test_float_bound"))
