"""A verification report's results.json: every record as a run, its certcheck block, the campaign and the summary.

Each record is checked as a run (:mod:`.run`) and its own ``certcheck`` block (what the report's
run of this checker found) must be what this run finds; the campaign and its plan are checked by
:mod:`.campaign`, the optional sections by :mod:`.sections`; and the summary a reader sees first
is recomputed from the records: counts per claim, the overall status and exit status, and what
the closed-form chains (docs/theory.md D9) did.
"""

from __future__ import annotations

import math
import re
import statistics
from fractions import Fraction
from typing import Any

from ..kernel import (CHECKED, CHECKS, CONFIGURATION, DEFAULT_MAX_TOTAL_WORK, DEFAULT_MAX_WORK, HORIZON, NOT_CHECKED,
                      RESULTS_SCHEMA, RUN, SUMMARY, BadInput, CheckResult, Obj, Outcome, Rejected, Run, admit, brief_json,
                      check_run, combine_statuses, counted, json_count, max_checkable_layer, metered, model_of, models_cached,
                      null_fields, read_number, same_json, shape_of, stated, STATED_FIELDS)
from ..kernel import problem as _schema_problem
from .campaign import CAMPAIGN, _campaign_problems
from .kernel_pass import kernel_outcomes
from .schema import ERROR_RECORD, RECORD, RESULTS
from .sections import SECTIONS, _section_keys, _section_outcomes

SCHEMA_VERSION = 2  # the results.json version this checker reads (verify/app/report/schema.py)
# A task that raised states no verdict, so none of its claims is checked: not checked (exit 3), never "verified".
TASK_ERROR = "the task raised an error: none of its claims was checked"


def _record_run(record: Any, where: str, campaign: dict) -> Run:
    if not isinstance(record, dict):
        raise BadInput(where, "expected a record object")
    config_problem = _schema_problem(record.get("configuration"), CONFIGURATION, "configuration")
    if config_problem is not None:
        field, _, why = config_problem.partition(": ")
        raise BadInput(f"{where}.{field}", why)
    task = record.get("task")
    name = task.get("name") if isinstance(task, dict) else None
    source = f"{where} ({str(name)[:60]})" if name else where
    # The record's own fields (its verdicts are judged one by one, each with its claim's schema).
    shape = _schema_problem(record, Obj({**RECORD.fields, "configuration": CHECKED, "verdicts": CHECKED},
                                        optional=RECORD.optional))
    return Run(source, record.get("configuration"), record.get("verdicts"), record.get("layers_run"),
               record.get("settled_layer"), fates=record.get("fates"), status=record.get("status"),
               stopped_by=record.get("stopped_by"), layer_budget=campaign.get("layer_budget"),
               time_budget=campaign.get("time_budget"), certcheck=record.get("certcheck"),
               problems=tuple(p for p in (shape, null_fields(record, STATED_FIELDS[:2])) if p is not None))


def check_results(data: dict, *, source: str = "results", max_work: int = None,  # type: ignore[assignment]
                  max_total_work: int = None, runs: str | None = None,  # type: ignore[assignment]
                  models: str | None = None) -> CheckResult:
    """Re-verify a verification report's ``results.json``: every record as a run, each record's own
    certcheck block, the campaign and its plan (one record per planned task, the planned
    configurations), the summary (counts per claim, overall status and exit status), and the
    optional sections against their saved files (``runs``: the folder; None: see :func:`runs_folder`;
    ``models``: the reproduction's published checkpoints, whose histories give the training-length
    table's validation losses; None: ``models/reproduction`` beside the runs folder)."""
    if not (isinstance(data, dict) and data.get("schema") == RESULTS_SCHEMA):
        raise BadInput("schema", f"expected {RESULTS_SCHEMA!r}")
    examples, summary = data.get("examples"), data.get("summary")
    stated_campaign = data.get("campaign")
    campaign = stated_campaign if isinstance(stated_campaign, dict) else {}
    if not isinstance(examples, list):
        raise BadInput(f"{source}.examples", "expected a list of records")
    if not isinstance(summary, dict) or not isinstance(summary.get("claims"), dict):
        raise BadInput(f"{source}.summary", "expected an object with per-claim counts")
    _section_keys(data.get("optional_sections"), source)
    records = {}
    for i, record in enumerate(examples):
        if isinstance(record, dict) and record.get("status") == "error":
            continue
        records[i] = _record_run(record, f"{source}.examples[{i}]", campaign)
    total = DEFAULT_MAX_TOTAL_WORK if max_total_work is None else max_total_work
    with models_cached(), metered(total) as meter:
        admit(list(records.values()), DEFAULT_MAX_WORK if max_work is None else max_work, total)
        result = _check_results(data, source, examples, records, runs, models)
        result.work = meter[1] - meter[0]
        return result


def _check_results(data: dict, source: str, examples: list, records: dict, runs: str | None,
                   models: str | None = None) -> CheckResult:
    result = CheckResult()
    verified: dict[int, list] = {}
    for where, problem in _file_problems(data):
        result.outcomes.append(Outcome(f"{source}", where, "rejected", problem))
    for i in range(len(examples)):
        if i not in records:
            # A task that raised: its record holds the task, the error and nothing else (no verdict to count).
            shape = _schema_problem(examples[i], ERROR_RECORD)
            result.outcomes.append(Outcome(f"{source}.examples[{i}]", RUN, "rejected", shape) if shape else
                                   Outcome(f"{source}.examples[{i}]", RUN, NOT_CHECKED, TASK_ERROR))
            continue
        outcomes = check_run(records[i])
        result.outcomes += outcomes
        verified[i] = sorted(o.claim for o in outcomes if o.status == "verified")
        block = _certcheck_block_problem(records[i].certcheck, outcomes)
        if block:
            result.outcomes.append(Outcome(records[i].source, RUN, "rejected", block))
        horizon, layers = examples[i].get("horizon"), records[i].last_layer
        if not (json_count(horizon) is not None and horizon == max(HORIZON, layers)):
            result.outcomes.append(Outcome(records[i].source, RUN, "rejected", f"horizon is {str(horizon)[:20]}, a "
                                           f"record's exact run is shown to layer max({HORIZON}, layers_run) = "
                                           f"{max(HORIZON, layers)}"))
        derived = _convergence_problem(examples[i], records[i].source) or _counterexample_problem(
            examples[i], data["campaign"] if isinstance(data.get("campaign"), dict) else {})
        if derived:
            result.outcomes.append(Outcome(records[i].source, RUN, "rejected", derived))
    for where, problem in _campaign_problems(data, examples):
        result.outcomes.append(Outcome(f"{source}.{where}", CAMPAIGN, "rejected", problem))
    for problem in _summary_problems(data, examples, verified, result):
        result.outcomes.append(Outcome(source, SUMMARY, "rejected", problem))
    if not examples:  # a report of nothing certifies nothing: inconclusive, as the summary rule says
        result.outcomes.append(Outcome(source, SUMMARY, NOT_CHECKED, "the file holds no configurations: there is "
                                                                     "nothing to verify"))
    listed = _inputs_problem(data)
    if listed is not None:
        result.outcomes.append(Outcome(f"{source}.inputs", SECTIONS, "rejected", listed))
    result.outcomes += _section_outcomes(data, source, runs, models)
    result.outcomes += kernel_outcomes(data, source)
    return result


EMBEDDED_CAMPAIGN = "embedded defaults"  # a campaign block's source when no CAMPAIGN.toml was read
# The report's first input when it runs from a clone: the statements its claims are checked against.
SPECIFICATION_ROLE, SPECIFICATION_PATH = "specification", "docs/theory.md"


def _inputs_problem(data: dict) -> str | None:
    """The report's ``inputs`` list, re-derived: docs/theory.md first when the report ran from a clone, then the
    CAMPAIGN.toml when one was read (its path the campaign's source; neither file is given to the checker),
    then each section's saved files and figures with their sha256, in the sections' order
    (verify/app/report/build.py)."""
    inputs, sections = data.get("inputs"), data.get("optional_sections")
    campaign: dict = data["campaign"] if isinstance(data.get("campaign"), dict) else {}
    if not isinstance(inputs, list) or not isinstance(sections, dict):
        return None  # the file's shape is judged with it
    expected: list = []
    for key, block in sections.items():
        if not isinstance(block, dict):
            return None
        for listed, role in ((block.get("files"), "results"), (block.get("figures"), "figure")):
            for item in listed if isinstance(listed, list) else []:
                if isinstance(item, dict):
                    expected.append({"role": f"{key} {role}", "path": item.get("path"), "sha256": item.get("sha256")})
    given = list(inputs)
    if given and isinstance(given[0], dict) and given[0].get("role") == SPECIFICATION_ROLE:
        if given[0].get("path") != SPECIFICATION_PATH:
            return f"inputs[0] names the specification {str(given[0].get('path'))[:80]!r}, not {SPECIFICATION_PATH}"
        given = given[1:]
    source = campaign.get("source")
    if given and isinstance(given[0], dict) and given[0].get("role") == "campaign":
        if source == EMBEDDED_CAMPAIGN or given[0].get("path") != source:
            return (f"inputs[0] names the campaign file {str(given[0].get('path'))[:80]!r}, but the campaign's source "
                    f"is {str(source)[:80]!r}")
        given = given[1:]
    if not same_json(given, expected):
        wrong = next((i for i, (a, b) in enumerate(zip(given, expected)) if not same_json(a, b)), min(len(given), len(expected)))
        return (f"inputs lists {counted(len(given), 'saved file')} besides the campaign file, the sections list "
                f"{len(expected):,}; the first difference is at entry {wrong}: "
                f"{brief_json(given[wrong] if wrong < len(given) else None)[:120]}")
    return None


FILE = "(file)"  # outcomes about what a results.json states as a whole (its version, its blocks' keys)


def _file_problems(data: dict) -> list[tuple[str, str]]:
    """(claim, why) for the keys of the file's blocks besides its records and sections (results_schema)."""
    problems = []
    if data.get("schema_version") != SCHEMA_VERSION or isinstance(data.get("schema_version"), bool):
        problems.append((FILE, f"schema_version is {str(data.get('schema_version'))[:20]}, this checker reads "
                               f"version {SCHEMA_VERSION}"))
    parts = {"examples": CHECKED, "optional_sections": CHECKED}
    top = _schema_problem(data, Obj({**RESULTS.fields, **parts}, optional=RESULTS.optional))
    if top is not None:
        claim = {"campaign": CAMPAIGN, "plan": CAMPAIGN, "summary": SUMMARY, "counterexamples": SUMMARY,
                 "inputs": SECTIONS}.get(top.split(".")[0].split("[")[0].split(":")[0], FILE)
        problems.append((claim, top))
    return problems


def _convergence_problem(record: dict, source: str) -> str | None:
    """A record's convergence counts are its fates': the tokens with a limit, and those without one, listed."""
    convergence, fates = record.get("convergence"), record.get("fates")
    if not isinstance(convergence, dict) or not isinstance(fates, list):
        return None  # the record's shape is judged with the record
    with_limit = [f.get("token") for f in fates if isinstance(f, dict) and f.get("limit") is not None]
    without = sorted(set(range(len(fates))) - set(t for t in with_limit if isinstance(t, int)))
    if convergence.get("tokens_with_limit") != len(with_limit) or isinstance(convergence.get("tokens_with_limit"), bool):
        return (f"convergence.tokens_with_limit is {str(convergence.get('tokens_with_limit'))[:20]}, the record's fates "
                f"give {len(with_limit)}")
    if convergence.get("tokens_without_limit") != without:
        return (f"convergence.tokens_without_limit is {brief_json(convergence.get('tokens_without_limit'))}, the "
                f"record's fates give {without[:20]}")
    if convergence.get("kind") != CONVERGENCE_KIND:
        return f"convergence.kind is {str(convergence.get('kind'))[:80]!r}, expected {CONVERGENCE_KIND!r}"
    return None


# What a record's convergence series is (verify/app/campaign/measure.py), as the report labels it.
CONVERGENCE_KIND = "exact squared distance, square root in float64"


def _certcheck_block_problem(block: Any, outcomes: list) -> str | None:
    """A record's "certcheck" block (what the report's own run of this checker found) must be what this run finds."""
    expected_verified = sorted(o.claim for o in outcomes if o.status == "verified")
    expected_unsupported = sorted(o.claim for o in outcomes if o.status == "unsupported")
    if not isinstance(block, dict) or block.get("available") is not True:
        return "the record's certcheck block is missing or says the checker was not available"
    verified = _claim_names(block.get("verified"))
    if verified != expected_verified:
        return (f"the record says certcheck verified {brief_json(block.get('verified'))[:200]}, "
                f"this run verifies {expected_verified}")
    rejected = block.get("rejected")
    expected_rejected = sorted({o.claim for o in outcomes if o.status == "rejected"})
    if not isinstance(rejected, dict) or sorted(rejected) != expected_rejected:
        return (f"the record says certcheck rejected {sorted(rejected) if isinstance(rejected, dict) else rejected!r}"[:200]
                + f", this run rejects {expected_rejected}")
    unsupported = block.get("unsupported")
    if not isinstance(unsupported, dict) or sorted(unsupported) != expected_unsupported:
        return "the record's unsupported certificates differ from this run's"
    return None


def _claim_names(value: Any) -> list[str] | None:
    """A stated list of claim names, sorted; None when it is not a list of strings (a file may hold anything)."""
    if isinstance(value, list) and all(isinstance(name, str) for name in value):
        return sorted(value)
    return None


def _summary_problems(data: dict, examples: list, verified: dict, result: CheckResult) -> list[str]:
    """The summary a reader sees first, recomputed from the records (after each record was checked)."""
    summary = data["summary"]
    problems = []
    errors = [r for r in examples if isinstance(r, dict) and r.get("status") == "error"]
    if json_count(summary.get("examples")) != len(examples):
        problems.append(f"summary says {stated(summary.get('examples'), 'example')}, the file holds {len(examples):,}")
    if json_count(summary.get("errors")) != len(errors):
        problems.append(f"summary says {stated(summary.get('errors'), 'task error')}, the file holds {len(errors):,}")
    claims = summary["claims"]
    # The claims this checker decides, plus those the records hold without a routine here (unsupported).
    expected_claims = list(CHECKS) + sorted({o.claim for o in result.outcomes if o.status == "unsupported"} - set(CHECKS))
    if set(claims) != set(expected_claims):
        problems.append(f"summary counts claims {sorted(map(str, claims))[:12]}, expected {expected_claims[:12]}")
    for claim in expected_claims:
        row = claims.get(claim)
        expected = _claim_counts(examples, claim, verified)
        if not isinstance(row, dict):
            problems.append(f"summary.claims.{claim}: expected an object of counts, got {brief_json(row)[:60]}")
            continue
        for key, value in expected.items():
            if row.get(key) != value or isinstance(row.get(key), bool):
                problems.append(f"summary.claims.{claim}.{key} is {str(row.get(key))[:20]}, the records give {value}")
                break
    statuses: list[Any] = []  # as the records state them: any value, compared with the known ones
    for record in examples:
        if not isinstance(record, dict) or record.get("status") == "error":
            statuses.append("inconclusive")
            continue
        statuses += [v.get("status") for v in (record.get("verdicts") or {}).values() if isinstance(v, dict)]
        block = record.get("certcheck")
        if isinstance(block, dict) and block.get("rejected"):
            statuses.append("failed")
        comparison = record.get("float_comparison")
        if isinstance(comparison, dict) and comparison.get("silent_disagreements"):
            statuses.append("failed")
    kernel = data.get("kernel")
    if isinstance(kernel, dict) and kernel.get("status") == "rejected":
        statuses.append("failed")  # Coq's kernel refused a certificate the suite issued: the report fails
    overall = combine_statuses(statuses)
    exit_status = {"certified": 0, "failed": 1, "inconclusive": 3}[overall]
    if not examples:
        overall, exit_status = "inconclusive", 3  # nothing was checked: nothing is certified
    if summary.get("overall") != overall or summary.get("exit_status") != exit_status:
        problems.append(f"summary says overall {str(summary.get('overall'))[:20]} (exit {str(summary.get('exit_status'))[:5]}), "
                        f"the records give {overall} (exit {exit_status})")
    problem = _closed_form_problem(summary.get("closed_form"), examples, data.get("campaign"))
    if problem:
        problems.append(problem)
    claims_certified = any(isinstance(r, dict) and r.get("certified") for r in claims.values()) \
        or summary.get("overall") == "certified"
    if claims_certified and not any(o.status == "verified" for o in result.outcomes):
        problems.append("the file claims certified results, but not one certificate in it verifies")
    expected_counterexamples = _counterexamples(examples)
    if not same_json(data.get("counterexamples"), expected_counterexamples):
        problems.append(f"counterexamples is {brief_json(data.get('counterexamples'))[:120]}, the records' shrunk "
                        f"counterexamples give {brief_json(expected_counterexamples)[:120]}")
    return problems


def _safe_name(name: str) -> str:
    """A file name from a task or claim name (verify/core/io.py's safe_name, typed here a second time)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._-")[:80] or "item"


def _counterexamples(examples: list) -> list[dict]:
    """results.json's ``counterexamples``: each record's shrunk counterexample, with the file the report writes it to."""
    found = []
    for record in examples:
        c = record.get("counterexample") if isinstance(record, dict) and record.get("status") != "error" else None
        task = record.get("task") if isinstance(record, dict) else None
        name = task.get("name") if isinstance(task, dict) else None
        if not isinstance(c, dict) or not isinstance(name, str) or not isinstance(c.get("claim"), str):
            continue
        found.append({"example": name, "claim": c["claim"], "claims": c.get("claims"), "original_n": c.get("original_n"),
                      "shrunk_n": c.get("shrunk_n"), "checks": c.get("checks"),
                      "file": f"counterexamples/{_safe_name(name)}-{_safe_name(c['claim'])}.json", "config": c.get("config")})
    return found


def _counterexample_problem(record: dict, campaign: dict) -> str | None:
    """A record holds a shrunk counterexample exactly when a claim failed and the campaign shrinks, of its failed
    claims, shrunk from its own configuration."""
    verdicts: dict = record["verdicts"] if isinstance(record.get("verdicts"), dict) else {}
    failed = sorted(str(c) for c, v in verdicts.items() if isinstance(v, dict) and v.get("status") == "failed")
    c = record.get("counterexample")
    wanted = bool(failed) and campaign.get("shrink") is True
    if (c is not None) != wanted:
        return ("the record holds a shrunk counterexample, but " + ("no claim failed" if not failed else
                                                                     "the campaign does not shrink")
                if c is not None else "a claim failed and the campaign shrinks, but the record holds no counterexample")
    if c is None:
        return None
    if not isinstance(c, dict):
        return "counterexample: expected an object"
    config = c.get("config")
    tokens = config.get("tokens") if isinstance(config, dict) else None
    n = len(record["configuration"]["tokens"]) if isinstance(record.get("configuration"), dict) and isinstance(
        record["configuration"].get("tokens"), list) else None
    if c.get("claims") != failed or c.get("claim") != failed[0]:
        return f"counterexample: claims {brief_json(c.get('claims'))[:80]}, the record's failed claims are {failed}"
    if c.get("original_n") != n or isinstance(c.get("original_n"), bool):
        return f"counterexample.original_n is {str(c.get('original_n'))[:20]}, the configuration has {n} tokens"
    if not isinstance(tokens, list) or c.get("shrunk_n") != len(tokens) or isinstance(c.get("shrunk_n"), bool) \
            or not 1 <= len(tokens) <= (n or 0):
        return f"counterexample.shrunk_n is {str(c.get('shrunk_n'))[:20]}, not the shrunk configuration's tokens"
    return None


def _closed_form_problem(stated: Any, examples: list, campaign: Any) -> str | None:
    """The summary of what the closed-form chains (D9) did, recomputed from the records: the
    configurations with a path fate, their settled layers, their chains' final-segment layers,
    the layers they ran against the layer budget (capped by the default work limit, as the suite
    caps its runs), and the configurations left with an unsettled token."""
    budget = campaign.get("layer_budget") if isinstance(campaign, dict) else None
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        return "summary.closed_form: the campaign states no layer budget to compare with"
    checked = [r for r in examples if isinstance(r, dict) and r.get("status") != "error"]

    def fates(record: dict) -> list:  # a record's fates as stated (a malformed list is rejected elsewhere)
        stated = record.get("fates")
        return [f for f in stated if isinstance(f, dict)] if isinstance(stated, list) else []

    def name(record: dict) -> str:
        task = record.get("task")
        return str(task.get("name") if isinstance(task, dict) else None)

    settled = [r for r in checked if any(f.get("kind") == "path" for f in fates(r))]
    budget_layers = 0
    for record in settled:
        n, d = shape_of(record.get("configuration"), "configuration")
        model = model_of(record["configuration"])
        budget_layers += min(budget, max_checkable_layer(n, d, bits=model.bits, growth=model.growth))
    run = sum(r["layers_run"] if isinstance(r.get("layers_run"), int) else 0 for r in settled)
    expected: dict[str, Any] = {
        "configurations": len(settled),
        "examples": sorted(name(r) for r in settled),
        "found_at_layer": _spread([r.get("settled_layer") for r in settled]),
        "constant_from_layer": _spread([x for x in map(_final_segment_layer, settled) if x is not None]),
        "layers_run": run, "budget_layers": budget_layers, "layers_saved": budget_layers - run,
        "unsettled": sum(any(f.get("kind") == "unsettled" for f in fates(r)) for r in checked),
    }
    if not isinstance(stated, dict) or set(stated) != set(expected):
        return f"summary.closed_form: expected the keys {sorted(expected)}"
    for key, value in expected.items():
        given = stated[key]
        if key.endswith("_layer") and value is not None and isinstance(given, dict) and set(given) == set(value):
            same = all(_exact(given[k]) == _exact(value[k]) for k in value)
        else:
            same = given == value and not isinstance(given, bool)
        if not same:
            return f"summary.closed_form.{key} is {str(given)[:80]}, the records give {str(value)[:80]}"
    return None


def _spread(values: list) -> dict | None:
    if not values:
        return None
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return {"min": None, "median": None, "max": None}  # a record without its layer: never equal
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def _exact(x: Any) -> Fraction | None:
    """A number as the file states it (a float from a parsed dict, a decimal string from a file)."""
    if isinstance(x, float) and math.isfinite(x):
        return Fraction(x)
    try:
        return read_number(x, "median")
    except Rejected:
        return None


def _final_segment_layer(record: dict) -> int | None:
    verdicts = record.get("verdicts")
    if not isinstance(verdicts, dict):
        return None
    for claim in sorted(verdicts, key=str):
        verdict = verdicts[claim]
        for part in ("certificate", "evidence"):
            holder = verdict.get(part) if isinstance(verdict, dict) else None
            chain = holder.get("closed_form") if isinstance(holder, dict) else None
            if isinstance(chain, dict) and chain.get("status") == "certified":
                segments = chain.get("segments")
                last = segments[-1] if isinstance(segments, list) and segments else None
                layer = last.get("layer") if isinstance(last, dict) else None
                return layer if isinstance(layer, int) and not isinstance(layer, bool) else None
    return None


def _claim_counts(examples: list, claim: str, verified: dict) -> dict[str, int]:
    """The report's per-claim counts (results.json summary.claims), from the records."""
    row = {"certified": 0, "failed": 0, "inconclusive": 0, "unchecked": 0, "exact": 0, "measured": 0, "vacuous": 0,
           "recertified": 0, "rejected_by_checker": 0}
    for i, record in enumerate(examples):
        verdict = ((record.get("verdicts") or {}) if isinstance(record, dict) else {}).get(claim)
        if not isinstance(verdict, dict):
            row["unchecked"] += 1
            continue
        status = verdict.get("status")
        if status in ("certified", "failed", "inconclusive"):
            row[status] += 1
        if status in ("certified", "failed"):
            row["exact"] += 1
        if isinstance(verdict.get("certificate"), dict) and verdict["certificate"].get("vacuous") is True:
            row["vacuous"] += 1
        elif isinstance(verdict.get("evidence"), dict) and any(str(key).startswith("measured")
                                                                for key in verdict["evidence"]):
            row["measured"] += 1
        if claim in verified.get(i, []):
            row["recertified"] += 1
        block = record.get("certcheck")
        if isinstance(block, dict) and isinstance(block.get("rejected"), dict) and claim in block["rejected"]:
            row["rejected_by_checker"] += 1
    return row
