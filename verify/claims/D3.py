"""D3 (docs/theory.md §3): a leader stays a leader and does not move.

Checked at every layer run (the leader permanence D3 shares with T1); certified when some token
leads within the layers run.
"""

from __future__ import annotations

from verify.claims import registry
from verify.claims.run import ClaimRun, leader_permanence, make_verdict
from verify.claims.verdicts import Verdict
from verify.core.formatting import counted


def check_D3(run: ClaimRun) -> Verdict:
    """D3: a leader stays a leader and does not move (checked at every layer run)."""
    failures, cert = leader_permanence(run, "D3")
    if failures:
        f = failures[0]
        return make_verdict("D3", "failed", f"token {f['token']} led at layer {f['first_layer']} but at layer "
                        f"{f['layer']}: {f['what']}", run, failures=failures)
    if not cert["leaders"]:
        return make_verdict("D3", "inconclusive", "no leader within the layers run, nothing to check", run)
    stay = counted(len(cert["leaders"]), "leader stays a leader and does not move", "leaders stay leaders and do not move")
    return make_verdict("D3", "certified", f"{stay}, layers checked up to {run.last_layer}", run, certificate=cert)


CLAIM = registry.register(registry.Claim(
    "D3", "a leader stays a leader and does not move", "check",
    assumption="D3's proof for layers after the last one computed", certificate="D3", rests_on=("D3",),
    check=check_D3))
