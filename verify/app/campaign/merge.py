"""Merging: records in canonical order, whatever order they finished in, and the summary counts.

The same task function serves the in-process runner, the process pool and Dask
(:mod:`verify.app.campaign.executors`); sorting the records here makes results.json the same byte
for byte whichever ran the campaign.
"""

from __future__ import annotations

import statistics
from typing import Any, Iterable, Sequence

from verify.claims import registry
from verify.claims import layer_limit
from verify.core.config import parse_configuration
from verify.claims.verdicts import STATUSES

__all__ = ["merge_records", "claim_counts", "overall_statuses", "closed_form_summary"]


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


def closed_form_summary(records: Sequence[dict[str, Any]], layer_budget: int) -> dict[str, Any]:
    """What the closed-form certificates (docs/theory.md D9) did in a campaign, from the records.

    * ``configurations``: the checked configurations with a path fate, i.e. settled by D9 where D7
      left a token (``examples``: their names);
    * ``found_at_layer``: min / median / max of the layer whose positions the certified chain
      starts from (the run's settled layer);
    * ``constant_from_layer``: the same for the layer from which the chain's final segment holds,
      the attention pattern constant (reached by the chain's jumps, not by simulating layers);
    * ``layers_run``: layers the claim checks simulated for them; ``budget_layers``: what the fixed
      layer budget lets a run simulate (capped by the independent checker's work limit, as
      :func:`verify.claims.layer_limit`), which is what a run without D9 simulates while D7 leaves
      a token unsettled; ``layers_saved``: the difference;
    * ``unsettled``: configurations with a token still unsettled (by neither D7 nor D9).

    Only fields the independent checker re-derives are read (fates, layers, the verified chain),
    and :mod:`verify.certcheck` recomputes this summary from the records.
    """
    checked = [r for r in records if r.get("status") != "error"]
    settled = [r for r in checked if any(f.get("kind") == "path" for f in r["fates"])]
    budget = sum(layer_limit(parse_configuration(r["configuration"], outside_hypotheses=True), layer_budget)
                 for r in settled)
    run = sum(r["layers_run"] for r in settled)
    return {
        "configurations": len(settled),
        "examples": sorted(r["task"]["name"] for r in settled),
        "found_at_layer": _spread([r["settled_layer"] for r in settled]),
        "constant_from_layer": _spread([layer for r in settled if (layer := _final_segment_layer(r)) is not None]),
        "layers_run": run,
        "budget_layers": budget,
        "layers_saved": budget - run,
        "unsettled": sum(any(f.get("kind") == "unsettled" for f in r["fates"]) for r in checked),
    }


def _spread(values: Sequence[int]) -> dict[str, Any] | None:
    """min / median / max (None for no value)."""
    if not values:
        return None
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def _final_segment_layer(record: dict[str, Any]) -> int | None:
    """The layer from which the record's certified chain's final segment holds (None: no chain)."""
    for claim in sorted(record["verdicts"]):
        verdict = record["verdicts"][claim]
        for part in ("certificate", "evidence"):
            chain = (verdict.get(part) or {}).get("closed_form")
            if isinstance(chain, dict) and chain.get("status") == "certified":
                return int(chain["segments"][-1]["layer"])
    return None  # the checker rejects such a record
