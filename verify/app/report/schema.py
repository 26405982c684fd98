"""``results.json``: the versioned, machine-readable form of a verification report.

Layout (schema version 2)::

    {
      "schema": "hardmax-verify/results", "schema_version": 2,
      "campaign":  {seed, examples, layer_budget, worked, float_check, shrink, families, source, tasks},
      "plan":      {campaign_sha256,                # the sha256 of the campaign block above
                    tasks: [{kind, family, seed, name, [n, d, alpha, options],
                             configuration_sha256}]},   # every planned task, fixed before any ran
      "inputs":    [{role, path, sha256}],          # every input file read
      "summary":   {overall, exit_status, examples, errors, claims: {claim: counts},
                    closed_form: {configurations, examples, found_at_layer, constant_from_layer,
                                  layers_run, budget_layers, layers_saved, unsettled}},
      "examples":  [record, ...],                   # sorted by kind, family, seed
      "counterexamples": [{example, claim, file, config, ...}],
      "optional_sections": {key: {directory, files: [{path, sha256, summary, ...}], figures, glance}},
      "kernel":    {status, coq_version, statement, statement_sha256, configurations,   # optional: Coq's
                    certificates_kernel_checked, claims, rejected, not_kernel_checked,
                    unchecked_configurations},   # kernel pass
      "environment": {...}                          # LAST key: timestamps, timings (also each
                                                    # configuration's claim checks), versions
    }

The plan's hashes are sha256 of canonical JSON (:func:`verify.app.campaign.plan.canonical_json`).
Everything before ``"environment"`` is a function of the seed, the campaign, the input
files and the dependency versions: two runs agree on it byte for byte. The environment block
is written last so that the deterministic part is a byte prefix of the file.
"""

from __future__ import annotations

from typing import Any, Mapping

from verify.core.io import json_text
from verify.core.numbers import InputError
from verify.claims.verdicts import STATUSES

__all__ = ["SCHEMA_NAME", "SCHEMA_VERSION", "ENVIRONMENT_KEY", "dumps_results", "validate_results",
           "check_results", "deterministic_part"]

SCHEMA_NAME = "hardmax-verify/results"
SCHEMA_VERSION = 2
ENVIRONMENT_KEY = "environment"
TOP_LEVEL_KEYS = ("schema", "schema_version", "campaign", "plan", "inputs", "summary", "examples",
                  "counterexamples", "optional_sections", "kernel", ENVIRONMENT_KEY)
# Written only when the report ran the kernel pass or says why not (docs/formal.md).
OPTIONAL_KEYS = ("kernel",)
COUNT_KEYS = ("certified", "failed", "inconclusive", "unchecked", "exact", "measured", "vacuous", "recertified",
              "rejected_by_checker")


def dumps_results(data: Mapping[str, Any]) -> str:
    """Serialise with a fixed key order (TOP_LEVEL_KEYS, environment last) and fixed formatting."""
    ordered = {key: data[key] for key in TOP_LEVEL_KEYS if key in data}
    extra = sorted(set(data) - set(TOP_LEVEL_KEYS))
    if extra:
        raise ValueError(f"results: unexpected top-level keys {extra}")
    # Non-finite measurements are already strings here ("inf", "nan": verify.app.campaign.records).
    return json_text(ordered, where="results.json", ensure_ascii=False)


def deterministic_part(text: str) -> str:
    """The byte prefix of a results.json text that must not change between runs (before the environment)."""
    marker = f'\n "{ENVIRONMENT_KEY}": '
    index = text.rfind(marker)
    return text if index < 0 else text[:index]


def _type_name(expected: type | tuple[type, ...]) -> str:
    if isinstance(expected, tuple):
        return " or ".join(t.__name__ for t in expected)
    return expected.__name__


def validate_results(data: Any) -> list[str]:
    """Every way ``data`` departs from schema version 1, as readable messages ([] when valid)."""
    errors: list[str] = []

    def need(obj: Any, key: str, expected: type | tuple[type, ...], where: str) -> Any:
        if not isinstance(obj, Mapping) or key not in obj:
            errors.append(f"{where}.{key}: missing")
            return None
        value = obj[key]
        # bool is an int in Python; a count or a seed must not be true/false.
        if not isinstance(value, expected) or (isinstance(value, bool) and bool not in
                                               (expected if isinstance(expected, tuple) else (expected,))):
            errors.append(f"{where}.{key}: expected {_type_name(expected)}, got {type(value).__name__}")
            return None
        return value

    if not isinstance(data, Mapping):
        return ["results: expected a JSON object"]
    if data.get("schema") != SCHEMA_NAME:
        errors.append(f"results.schema: expected {SCHEMA_NAME!r}, got {data.get('schema')!r}")
    if data.get("schema_version") != SCHEMA_VERSION:
        errors.append(f"results.schema_version: expected {SCHEMA_VERSION}, got {data.get('schema_version')!r}")
    for key in TOP_LEVEL_KEYS:
        if key not in data and key not in OPTIONAL_KEYS:
            errors.append(f"results.{key}: missing")
    keys = list(data)
    if keys and keys[-1] != ENVIRONMENT_KEY:
        errors.append("results: the environment block must be the last key")

    campaign = need(data, "campaign", dict, "results")
    if campaign is not None:
        need(campaign, "seed", int, "campaign")
        need(campaign, "examples", int, "campaign")
        need(campaign, "layer_budget", int, "campaign")
        need(campaign, "families", list, "campaign")
        need(campaign, "tasks", int, "campaign")
    plan = need(data, "plan", dict, "results")
    if plan is not None:
        need(plan, "campaign_sha256", str, "plan")
        entries = need(plan, "tasks", list, "plan") or []
        for i, entry in enumerate(entries):
            need(entry, "name", str, f"plan.tasks[{i}]")
            need(entry, "configuration_sha256", str, f"plan.tasks[{i}]")
        if isinstance(campaign, Mapping) and isinstance(campaign.get("tasks"), int) and len(entries) != campaign["tasks"]:
            errors.append(f"plan.tasks: {len(entries)} entries, the campaign says {campaign['tasks']} tasks")
    inputs = need(data, "inputs", list, "results")
    for i, item in enumerate(inputs or []):
        for key in ("role", "path", "sha256"):
            need(item, key, str, f"inputs[{i}]")

    examples = need(data, "examples", list, "results") or []
    statuses: list[str] = []
    for i, record in enumerate(examples):
        where = f"examples[{i}]"
        task = need(record, "task", dict, where)
        if task is not None:
            for key, expected in (("kind", str), ("family", str), ("seed", int), ("name", str)):
                need(task, key, expected, f"{where}.task")
        status = need(record, "status", str, where)
        if status == "error":
            need(record, "error", str, where)
            statuses.append("inconclusive")
            continue
        if status is not None and status not in STATUSES:
            errors.append(f"{where}.status: expected one of {STATUSES + ('error',)}, got {status!r}")
        configuration = need(record, "configuration", dict, where)
        if configuration is not None:
            need(configuration, "tokens", list, f"{where}.configuration")
            need(configuration, "alpha", str, f"{where}.configuration")
        need(record, "layers_run", int, where)
        need(record, "denominator_bits", list, where)
        need(record, "fates", list, where)
        verdicts = need(record, "verdicts", dict, where) or {}
        for claim, verdict in verdicts.items():
            vwhere = f"{where}.verdicts.{claim}"
            vstatus = need(verdict, "status", str, vwhere)
            need(verdict, "summary", str, vwhere)
            need(verdict, "evidence", dict, vwhere)
            if vstatus is not None and vstatus not in STATUSES:
                errors.append(f"{vwhere}.status: expected one of {STATUSES}, got {vstatus!r}")
            if isinstance(verdict, Mapping) and verdict.get("claim") != claim:
                errors.append(f"{vwhere}.claim: expected {claim!r}, got {verdict.get('claim')!r}")
            has_certificate = isinstance(verdict, Mapping) and verdict.get("certificate") is not None
            if has_certificate and vstatus != "certified":
                errors.append(f"{vwhere}.certificate: only certified verdicts carry a certificate")
            statuses.append(vstatus or "")
        if status is not None and verdicts:
            worst = ("failed" if "failed" in [v.get("status") for v in verdicts.values()] else
                     "inconclusive" if "inconclusive" in [v.get("status") for v in verdicts.values()] else "certified")
            if status != worst:
                errors.append(f"{where}.status: is {status!r} but its verdicts combine to {worst!r}")

    summary = need(data, "summary", dict, "results")
    if summary is not None:
        need(summary, "overall", str, "summary")
        exit_status = need(summary, "exit_status", int, "summary")
        if exit_status is not None and exit_status not in (0, 1, 3):
            errors.append(f"summary.exit_status: expected 0, 1 or 3, got {exit_status}")
        count = need(summary, "examples", int, "summary")
        if count is not None and count != len(examples):
            errors.append(f"summary.examples: says {count}, the file holds {len(examples)}")
        claims = need(summary, "claims", dict, "summary") or {}
        for claim, row in claims.items():
            for key in COUNT_KEYS:
                if key == "recertified":
                    if not isinstance(row, Mapping) or key not in row:
                        errors.append(f"summary.claims.{claim}.{key}: missing")
                    elif row[key] is not None and (isinstance(row[key], bool) or not isinstance(row[key], int)):
                        errors.append(f"summary.claims.{claim}.{key}: expected int or null")
                else:
                    need(row, key, int, f"summary.claims.{claim}")
            if isinstance(row, Mapping) and all(isinstance(row.get(s), int) for s in STATUSES + ("unchecked",)):
                total = sum(row[s] for s in STATUSES) + row["unchecked"]
                if total != len(examples):
                    errors.append(f"summary.claims.{claim}: counts add up to {total}, expected {len(examples)}")
        if "closed_form" in summary:  # optional: files written before it existed lack it
            closed_form = need(summary, "closed_form", dict, "summary")
            for key in ("configurations", "layers_run", "budget_layers", "layers_saved", "unsettled"):
                need(closed_form, key, int, "summary.closed_form")
            need(closed_form, "examples", list, "summary.closed_form")
            for key in ("found_at_layer", "constant_from_layer"):
                spread = (closed_form or {}).get(key)
                if spread is not None and not (isinstance(spread, Mapping) and set(spread) == {"min", "median", "max"}):
                    errors.append(f"summary.closed_form.{key}: expected null or {{min, median, max}}")

    for i, item in enumerate(need(data, "counterexamples", list, "results") or []):
        need(item, "example", str, f"counterexamples[{i}]")
        need(item, "claim", str, f"counterexamples[{i}]")
        need(item, "config", dict, f"counterexamples[{i}]")
        need(item, "file", str, f"counterexamples[{i}]")
    need(data, "optional_sections", dict, "results")
    environment = need(data, ENVIRONMENT_KEY, dict, "results")
    if environment is not None:
        need(environment, "versions", dict, ENVIRONMENT_KEY)
        need(environment, "command_line", str, ENVIRONMENT_KEY)
    return errors


def check_results(data: Any) -> None:
    """Raise :class:`InputError` naming the first schema violation."""
    errors = validate_results(data)
    if errors:
        field, _, message = errors[0].partition(": ")
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise InputError(field, message + more)
