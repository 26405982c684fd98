"""results.json files assembled around claims reports with the report's own functions, for checker tests.

A test that needs a results.json of particular configurations (a fate of a given kind, a value
matrix, a record the campaign would not generate) builds its claims reports and passes them here:
each record gets every field the report writes (the horizon's exact run, the convergence series,
the float comparison when asked, the record's own certcheck block), and the file its campaign,
plan, summary, sections and environment, by the functions ``hardmax-verify report`` uses
(verify/app/campaign/, verify/app/report/). So that the only thing inconsistent in a test's file is
what the test changes.
"""

from __future__ import annotations

import copy
from typing import Any, Iterable

from verify.app.campaign import claim_counts, closed_form_summary, overall_statuses
from verify.app.campaign.measure import HORIZON, convergence_series, exact_run, float_comparison
from verify.app.campaign.plan import canonical_sha256
from verify.app.campaign.recheck import recheck_certificates
from verify.app.report.build import collect_optional_sections
from verify.app.report.provenance import environment_block
from verify.core import exitcodes
from verify.core.config import parse_configuration

__all__ = ["record_of", "results_of", "summary_of"]


def record_of(report: dict[str, Any], task: dict[str, Any], *, layer_budget: int, float_check: bool = False,
              time_budget: float | None = None) -> dict[str, Any]:
    """The results.json record of a claims report (``report``) for ``task``, every field the report writes."""
    config = parse_configuration(report["config"], outside_hypotheses=bool(report["config"].get("outside_hypotheses")))
    record: dict[str, Any] = {"task": task, "configuration": copy.deepcopy(report["config"]), "status": report["status"],
                              "layers_run": report["last_layer"], "settled_layer": report["settled_layer"],
                              "stopped_by": report["stopped_by"], "verdicts": copy.deepcopy(report["verdicts"]),
                              "fates": copy.deepcopy(report["fates"])}
    horizon = max(HORIZON, record["layers_run"])
    layers = exact_run(config, horizon)
    record["horizon"] = horizon
    record["denominator_bits"] = [layer.denominator.bit_length() for layer in layers]
    record["convergence"] = convergence_series(config, layers, record["fates"])
    if float_check:
        record["float_comparison"] = float_comparison(config, layers)
    record["certcheck"] = recheck_certificates(record, layer_budget=layer_budget, time_budget=time_budget)
    return record


def summary_of(records: list[dict[str, Any]], layer_budget: int) -> dict[str, Any]:
    """The summary the report writes for ``records``."""
    exit_status = exitcodes.combine(overall_statuses(records)) if records else exitcodes.INCONCLUSIVE
    return {"overall": {exitcodes.SUCCESS: "certified", exitcodes.FALSE: "failed"}.get(exit_status, "inconclusive"),
            "exit_status": exit_status, "examples": len(records),
            "errors": sum(r.get("status") == "error" for r in records), "claims": claim_counts(records),
            "closed_form": closed_form_summary(records, layer_budget)}


def results_of(reports: Iterable[dict[str, Any]], *, family: str = "fixtures", layer_budget: int = 60,
               float_check: bool = False) -> dict[str, Any]:
    """A results.json of one generated family whose tasks ``FAMILY-j`` are the reports' configurations, in order."""
    reports_ = [copy.deepcopy(r) for r in reports]
    sizes = [(len(r["config"]["tokens"]), len(r["config"]["tokens"][0])) for r in reports_]
    campaign = {"seed": 0, "examples": len(reports_), "layer_budget": layer_budget, "worked": False,
                "float_check": float_check, "shrink": False,
                "families": [{"name": family, "share": 1, "n": [min(n for n, _ in sizes), max(n for n, _ in sizes)],
                              "d": [d for _, d in sizes], "alpha": sorted({r["config"]["alpha"] for r in reports_}),
                              "options": {}}],
                "source": "embedded defaults", "outside_hypotheses": any(r["config"].get("outside_hypotheses") for r in reports_),
                "time_budget": None, "tasks": len(reports_)}
    examples, entries = [], []
    for j, (r, (n, d)) in enumerate(zip(reports_, sizes)):
        task = {"kind": "generated", "family": family, "seed": j, "name": f"{family}-{j}", "n": n, "d": d,
                "alpha": r["config"]["alpha"], "options": {}}
        entries.append({**task, "configuration_sha256": canonical_sha256(r["config"])})
        examples.append(record_of(r, task, layer_budget=r.get("layer_budget", layer_budget), float_check=float_check))
    optional, inputs = collect_optional_sections(None)
    return {"schema": "hardmax-verify/results", "schema_version": 2, "campaign": campaign,
            "plan": {"campaign_sha256": canonical_sha256(campaign), "tasks": entries}, "inputs": inputs,
            "summary": summary_of(examples, layer_budget), "examples": examples, "counterexamples": [],
            "optional_sections": optional,
            "environment": environment_block(started="2026-01-01T00:00:00+00:00", finished="2026-01-01T00:00:01+00:00",
                                             timings={}, argv=[], equivalent_command="test")}
