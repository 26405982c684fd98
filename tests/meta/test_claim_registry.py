"""The claim registry (verify/claims/registry.py) is the one list of claims, and the structure around it holds.

* the claims of docs/theory.md are registered, in its order, with the roles and facts the
  consumers read (what each claim must provide is the conformance kit's,
  tests/meta/test_claim_conformance.py);
* the independent checker's own table (verify/certcheck/kernel/claims/ keeps it, importing nothing from
  the package) has the registry's claim checks under their keys, in the same order, and no other.

The import structure around it is tests/meta/test_import_directions.py's.
"""

from __future__ import annotations

import pytest

from verify import certcheck
from verify.claims import claim_modules, registry


def test_the_claims_of_the_theory_are_registered_in_its_order() -> None:
    assert registry.verdict_ids() == ("T0", "T1", "T2", "T3", "T4", "D1", "D2", "D3", "replay")
    assert [c.id for c in registry.claims("assertion")] == ["D0", "D5", "D8", "float"]
    assert claim_modules() == ("T0", "T1", "T2", "T3", "T4", "D0", "D1", "D2", "D3", "D5", "D8", "float", "replay")


def test_roles_and_limits_are_the_theory_s() -> None:
    """What the consumers read instead of lists of ids: the theorem's claims, the engine check, the limit-based checks."""
    by_role = {role: [c.id for c in registry.claims("check") if c.role == role] for role in registry.ROLES}
    assert by_role == {"theorem": ["T0", "T1", "T2", "T3", "T4"], "fact": ["D1", "D2", "D3"], "engine": ["replay"]}
    assert [c.id for c in registry.claims() if c.decided_on_limits] == ["T2", "T3", "T4"]
    assert [c.id for c in registry.claims() if c.report_note is not None] == ["T4"]


def test_a_claim_with_an_unknown_role_is_refused() -> None:
    with pytest.raises(ValueError, match="role"):
        registry.Claim("X9", "a toy claim", "check", role="lemma")  # type: ignore[arg-type]


def test_assertions_emit_no_verdict() -> None:
    assertions = registry.claims("assertion")
    assert {c.id for c in assertions} >= {"D0", "D5", "D8", "float"}
    assert all(c.check is None and c.certificate is None for c in assertions)


def test_claims_rest_on_proved_facts_only() -> None:
    # docs/theory.md §3: T1..T4 are settled by D7 or by a D9 closed-form path; the record says both.
    for claim in registry.claims():
        assert set(claim.rests_on) <= set(registry.PROVED_FACTS), claim.id
    for claim_id in ("T1", "T2", "T3", "T4"):
        claim = registry.get(claim_id)
        assert {"D7", "D9"} <= set(claim.rests_on), claim_id
        assert "D7" in claim.assumption and "D9" in claim.assumption, claim.assumption
    assert registry.get("D3").rests_on == ("D3",)
    assert all(not c.rests_on for c in registry.claims() if c.id in ("T0", "D1", "D2", "replay"))


@pytest.mark.parametrize("rests_on", ["D7", ("D7", "D10"), ("T3",)])
def test_a_claim_resting_on_an_unknown_fact_is_refused(rests_on: object) -> None:
    with pytest.raises(ValueError, match="rests_on"):
        registry.Claim("X9", "a toy claim", "check", rests_on=rests_on)  # type: ignore[arg-type]


def test_certcheck_routines_are_the_registry_claims() -> None:
    """The checker's own table and the registry's keys are the same list, in the same order."""
    keys = [c.certificate for c in registry.claims("check") if c.certificate is not None]
    assert list(certcheck.CHECKS) == keys


def test_certcheck_rests_on_is_the_registry_s() -> None:
    """The facts each claim may rest on, in the checker's own copy and in the registry, are the same."""
    wanted = {c.id: c.rests_on for c in registry.claims("check") if c.rests_on}
    assert certcheck.RESTS_ON == wanted
