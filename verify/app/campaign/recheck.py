"""Every record re-verified by the independent certificate checker, :mod:`verify.certcheck`."""

from __future__ import annotations

from typing import Any, cast

from verify import certcheck

__all__ = ["recheck_certificates"]


def recheck_certificates(record: dict[str, Any], *, layer_budget: int | None = None,
                         time_budget: float | None = None) -> dict[str, Any]:
    """Re-verify the record with the independent checker.

    Calls :func:`verify.certcheck.check_record` (standard library only, imports nothing from
    the package) with the record's configuration, verdicts, fates, status and layers in their
    JSON form: the checker replays the dynamics itself and trusts nothing else. Returns
    ``{"available", "verified": [claims], "rejected": {claim: reason}, "unsupported": {claim: reason}}``;
    a problem with the record as a whole (its status, fates or layers) is rejected under "(run)".
    ``available`` is always True (the checker ships with the package; the field is part of the
    results.json layout).
    """
    # The record's fields are passed as they are, even missing or malformed: the checker validates them.
    last_layer = cast(int, record.get("layers_run"))
    outcome = certcheck.check_record(record["configuration"], record["verdicts"], last_layer=last_layer,
                                     settled_layer=record.get("settled_layer"), fates=record.get("fates"),
                                     status=record.get("status"), stopped_by=record.get("stopped_by"),
                                     layer_budget=layer_budget, time_budget=time_budget)
    verified, rejected, unsupported = [], {}, {}
    for claim in sorted(outcome):
        result = outcome[claim]
        if result.get("status") == "verified":
            verified.append(claim)
        elif result.get("status") == "unsupported":
            unsupported[claim] = str(result.get("reason", ""))
        elif result.get("status") == "rejected":
            rejected[claim] = str(result.get("reason") or "rejected")
    return {"available": True, "verified": verified, "rejected": rejected, "unsupported": unsupported}
