"""Merging: records in canonical order, whatever order they finished in, and the summary counts.

The same task function serves the in-process runner, the process pool and Dask
(:mod:`verify.campaign.executors`); sorting the records here makes results.json the same byte
for byte whichever ran the campaign.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from .. import registry
from ..verdicts import STATUSES

__all__ = ["merge_records", "claim_counts", "overall_statuses"]


def merge_records(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records in canonical order (worked first, then by family and seed), whatever order they finished in."""
    def key(record: dict[str, Any]) -> tuple:
        task = record["task"]
        return (0 if task["kind"] == "worked" else 1, task["family"], task["seed"], task["name"])
    return sorted(records, key=key)


def claim_counts(records: Sequence[dict[str, Any]], claims: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    """Per claim (default: the registry's claim checks): certified / failed / inconclusive / not checked, and how.

    * ``exact``: decided in exact arithmetic (every certified or failed verdict);
    * ``measured``: inconclusive verdicts whose evidence holds a float measurement (``measured_*`` keys);
    * ``unchecked``: examples where the claim has no verdict (task error or claim not run);
    * ``vacuous``: certified verdicts whose certificate says the claim held vacuously (T4 with
      no non-vertex limit: nothing to project);
    * ``recertified``: certified verdicts re-verified by the independent checker
      (``None`` when :mod:`verify.certcheck` is not available).
    """
    counts: dict[str, dict[str, Any]] = {}
    certcheck_available = any(r.get("certcheck", {}).get("available") for r in records)
    for claim in registry.verdict_ids() if claims is None else claims:
        row: dict[str, Any] = {s: 0 for s in STATUSES}
        row.update(unchecked=0, exact=0, measured=0, vacuous=0, rejected_by_checker=0,
                   recertified=0 if certcheck_available else None)
        for record in records:
            verdict = record.get("verdicts", {}).get(claim)
            if verdict is None:
                row["unchecked"] += 1
                continue
            row[verdict["status"]] += 1
            if verdict["status"] in ("certified", "failed"):
                row["exact"] += 1
            if (verdict.get("certificate") or {}).get("vacuous") is True:
                row["vacuous"] += 1
            elif any(key.startswith("measured") for key in verdict.get("evidence", {})):
                row["measured"] += 1
            check = record.get("certcheck", {})
            if certcheck_available and claim in check.get("verified", []):
                row["recertified"] += 1
            if claim in check.get("rejected", {}):
                row["rejected_by_checker"] += 1
        counts[claim] = row
    return counts


def overall_statuses(records: Sequence[dict[str, Any]]) -> list[str]:
    """Every verdict status of the campaign; task errors and checker rejections count as inconclusive/failed."""
    statuses = []
    for record in records:
        if record.get("status") == "error":
            statuses.append("inconclusive")
            continue
        statuses += [v["status"] for v in record["verdicts"].values()]
        if record.get("certcheck", {}).get("rejected"):
            # A certificate the independent checker rejects means the suite claimed too much.
            statuses.append("failed")
        if record.get("float_comparison", {}).get("silent_disagreements"):
            statuses.append("failed")
    return statuses
