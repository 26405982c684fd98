"""T1 (docs/theory.md §2): each leader is fixed from the first layer at which it is a leader.

Checked at every layer run (the leader permanence T1 shares with D3), and certified once the
leader set is final: every token settled by D7 or by a D9 closed-form path (its chain is in the
certificate).
"""

from __future__ import annotations

from verify.claims import registry
from verify.claims.run import (SETTLED, ClaimRun, fates_json, inconclusive_unsettled, is_leader, leader_permanence,
                               make_verdict)
from verify.claims.verdicts import Verdict
from verify.core.formatting import counted


def check_T1(run: ClaimRun) -> Verdict:
    """T1: each leader is fixed from the first layer at which it leads (D3), and the leader set is final."""
    failures, cert = leader_permanence(run, "T1")
    if failures:
        f = failures[0]
        return make_verdict("T1", "failed", f"token {f['token']} led at layer {f['first_layer']} but at layer "
                        f"{f['layer']}: {f['what']}", run, failures=failures)
    count = len(cert["leaders"])
    if not run.settled:
        return inconclusive_unsettled("T1", run, f"{counted(count, 'leader')} fixed over the layers run, but the leader set is not final")
    cert["settled_layer"] = run.settled_layer
    cert["fates"] = fates_json(run)
    later = sorted(f.token for f in run.fates if f.kind == "path" and is_leader(f))
    count += sum(1 for t in later if t not in {x["token"] for x in cert["leaders"]})
    return make_verdict("T1", "certified", f"{counted(count, 'leader')}, {'' if count == 1 else 'each '}fixed from its first leading layer "
                    f"(checked to layer {run.last_layer}; final by {run.settled_by()} at layer {run.settled_layer})", run,
                    certificate=run.with_chain(cert), leaders={str(x["token"]): x["first_layer"] for x in cert["leaders"]})


CLAIM = registry.register(registry.Claim(
    "T1", "each leader is fixed from the first layer at which it is a leader", "check", role="theorem",
    assumption=f"D3 for layers after the last one computed; the leader set is final: {SETTLED}",
    certificate="T1", rests_on=("D3", "D7", "D9"), check=check_T1))
