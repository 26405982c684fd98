"""The fields of a verification report's results.json: its campaign, plan, records, summary and sections.

The schema (:mod:`.schema`) of what ``hardmax-verify report`` writes (verify/app/report/schema.py):
each key is re-derived by the results auditor (:mod:`.results`, :mod:`.campaign`, :mod:`.sections`,
:mod:`.reproduction`, :mod:`.glance`) or by the run checker a record shares with a claims report
(:mod:`.report_schema`), or it is listed as not checked, with the reason.
"""

from __future__ import annotations

from typing import Any

from ..kernel import (ANY_KEY, CHECKED, CLAIM_KEY, CONFIGURATION, LABEL, RUN_FIELDS, Either, Items, Node, Obj, Projection,
                      Unchecked)
from .sections import SECTION_BLOCK_KEYS, SECTION_FIGURE_KEYS, SECTION_ITEM_FIELDS, SECTION_ITEM_KEYS

__all__ = ["RECORD", "ERROR_RECORD", "RESULTS", "record_node"]

MEASURED = "measured (floats), labelled as a measurement in the report"
# The counts of the report's claims table, per claim (verify/app/campaign/merge.py's claim_counts).
COUNT_KEYS = ("certified", "failed", "inconclusive", "unchecked", "exact", "measured", "vacuous", "recertified",
              "rejected_by_checker")

_CERTCHECK_BLOCK = Obj({
    "available": CHECKED, "verified": CHECKED,
    "rejected": Obj(extra=(*CLAIM_KEY, Unchecked("the reason the report's own run of the checker gave (its claims are "
                                                 "compared with this run's)"))),
    "unsupported": Obj(extra=(*CLAIM_KEY, Unchecked("the reason the report's own run of the checker gave (its claims "
                                                    "are compared with this run's)"))),
}, name="a record's certcheck block")

_COUNTEREXAMPLE = Obj({
    "claim": CHECKED, "claims": CHECKED, "original_n": CHECKED, "shrunk_n": CHECKED,
    "checks": Unchecked("how many checks the shrinker ran (its log)"),
    "config": Unchecked("the shrunk counterexample: certcheck re-verifies certificates, not counterexamples; "
                        "`check counterexamples/NAME.json` re-decides it"),
}, name="a record's counterexample")

RECORD = Obj({
    "task": CHECKED, "configuration": CONFIGURATION, "layers_run": CHECKED, **RUN_FIELDS, "horizon": CHECKED,
    "denominator_bits": Unchecked("the sizes of the exact run's denominators to the horizon, plotted in the report: "
                                  "the checker replays the layers the claims were checked on, not the figure's"),
    "convergence": Obj({
        "max_A_distance": Unchecked(f"{MEASURED}: the exact squared distances' square roots in float64, plotted"),
        "tokens_with_limit": CHECKED, "tokens_without_limit": CHECKED, "kind": CHECKED}, name="convergence"),
    "float_comparison": Unchecked(f"{MEASURED}: the float64 run against the exact run (its silent disagreements are "
                                  "counted into the summary's overall status, as the report counts them)", Obj({
                                      "layers": CHECKED, "first_undecided_layer": CHECKED,
                                      "undecided_token_layers": CHECKED, "first_differing_layer": CHECKED,
                                      "differing_layers": CHECKED, "differing_token_layers": CHECKED,
                                      "silent_disagreements": CHECKED, "final_max_abs_difference": CHECKED,
                                      "max_abs_difference": CHECKED, "kind": CHECKED}, name="a float comparison")),
    "certcheck": _CERTCHECK_BLOCK,
    "counterexample": _COUNTEREXAMPLE,
}, optional=("float_comparison", "counterexample"), name="a record")

ERROR_RECORD = Obj({
    "task": CHECKED, "status": CHECKED,
    "error": Unchecked("the error the task raised: the record counts as a task error and none of its claims as "
                       "checked"),
    "attempts": Unchecked("how often the task was tried"),
}, name="an error record (a task that raised)")


def _is_error(record: Any) -> int:
    return 1 if isinstance(record, dict) and record.get("status") == "error" else 0


def record_node(record: Any) -> Obj:
    """A checked record's schema, or an error record's."""
    return ERROR_RECORD if _is_error(record) else RECORD


_SPREAD = Either(Obj({"min": CHECKED, "median": CHECKED, "max": CHECKED}), none=True)
_SUMMARY = Obj({
    "overall": CHECKED, "exit_status": CHECKED, "examples": CHECKED, "errors": CHECKED,
    "claims": Obj(extra=(*CLAIM_KEY, Obj({key: CHECKED for key in COUNT_KEYS}, name="a row of counts"))),
    "closed_form": Obj({"configurations": CHECKED, "examples": CHECKED, "found_at_layer": _SPREAD,
                        "constant_from_layer": _SPREAD, "layers_run": CHECKED, "budget_layers": CHECKED,
                        "layers_saved": CHECKED, "unsettled": CHECKED}, name="summary.closed_form"),
}, name="the summary")

_CAMPAIGN = Obj({
    "seed": CHECKED, "examples": CHECKED, "layer_budget": CHECKED, "worked": CHECKED, "float_check": CHECKED,
    "shrink": CHECKED,
    "families": Items(Obj({"name": CHECKED, "share": CHECKED, "n": CHECKED, "d": CHECKED, "alpha": CHECKED,
                           "options": CHECKED}, name="a family")),
    "source": Unchecked("where the campaign was read from (a label; a CAMPAIGN.toml read is also listed in inputs)"),
    "outside_hypotheses": CHECKED,
    "time_budget": Unchecked("an input of the campaign: a run that stopped by its time budget must have had one"),
    "tasks": CHECKED,
}, name="the campaign")

_AN_INPUT = Obj({"role": CHECKED, "path": CHECKED, "sha256": CHECKED}, name="an input")
_INPUT = Either(
    _AN_INPUT,
    Unchecked("the entry of role campaign, the CAMPAIGN.toml the campaign was read from: the checker is not given the "
              "file (the campaign block itself is checked, and the entry's path is its source)", _AN_INPUT),
    Unchecked("the entry of role specification, docs/theory.md of the clone the report was built from: the checker is "
              "not given it (its path is checked)", _AN_INPUT),
    choose=lambda entry: {"campaign": 1, "specification": 2}.get(str(entry.get("role")), 0) if isinstance(entry, dict)
    else 0)

_TOP_COUNTEREXAMPLE = Obj({
    "example": CHECKED, "claim": CHECKED, "claims": CHECKED, "original_n": CHECKED, "shrunk_n": CHECKED,
    "checks": Unchecked("how many checks the shrinker ran (its log)"), "file": CHECKED,
    "config": Unchecked("the shrunk counterexample: certcheck re-verifies certificates, not counterexamples; "
                        "`check counterexamples/NAME.json` re-decides it"),
}, name="a counterexample")


# The copied fields compared as projections of their saved file (sections.py): they may leave keys out.
PROJECTED_FIELDS = {"control": ("study",), "conjectures": ("power",), "atlas": ("sweep", "census", "leader_control"), "classify": ("imdb", "scaling")}


def _section(key: str) -> Obj:
    item_fields: dict[str, Node] = {k: CHECKED for k in (*sorted(SECTION_ITEM_KEYS),
                                                         *sorted(SECTION_ITEM_FIELDS.get(key, ())))}
    item_fields.update({k: Projection() for k in PROJECTED_FIELDS.get(key, ())})
    figure = Obj({"path": CHECKED, "sha256": CHECKED,
                  "file": Unchecked("where the report folder holds its copy of the figure (report.md and report.html "
                                    "show it; they are not read)")}, name="a figure")
    assert set(figure.fields) == SECTION_FIGURE_KEYS
    block = {"directory": CHECKED, "files": Items(Obj(item_fields, optional=tuple(set(item_fields) - {"path", "sha256"}),
                                                      name="a saved file's entry")),
             "skipped": Unchecked("why a section has no saved file (a sentence; the section then shows nothing)"),
             "figures": Items(figure), "glance": CHECKED}
    assert set(block) == SECTION_BLOCK_KEYS
    return Obj(block, optional=("skipped", "figures", "glance"), name=f"the {key} section")


_SECTIONS = Obj({key: _section(key) for key in SECTION_ITEM_FIELDS}, optional=tuple(SECTION_ITEM_FIELDS),
                extra=("a section without a routine", lambda key: True,
                       Unchecked("a section certcheck has no routine for: reported not checked")),
                name="optional_sections", wildcard=True)

_ENVIRONMENT = Unchecked("provenance: when and where the report was built (timestamps, timings, versions, the "
                         "command line, the git commit); the only block allowed to differ between runs",
                         Obj({"note": CHECKED, "started": CHECKED, "finished": CHECKED,
                              "timings_seconds": Obj(extra=(*ANY_KEY, CHECKED)),
                              "claim_check_seconds": Obj(extra=(*ANY_KEY, CHECKED)), "command_line": CHECKED,
                              "argv": CHECKED, "versions": Obj(extra=(*ANY_KEY, CHECKED)), "git_commit": CHECKED,
                              "platform": CHECKED, "executable": CHECKED}, name="the environment block"))

# Coq's kernel pass (docs/formal.md, verify/app/report/kernel.py): held to the records by results/kernel_pass.py.
_KERNEL_PASS = Unchecked(
    "Coq's kernel pass (docs/formal.md): which certificates Coq's kernel accepted is Coq's verdict, not re-derived "
    "here (hardmax-verify prove re-runs it); the block's keys, and its counts against the file's records, are checked",
    Either(Obj({key: CHECKED for key in ("status", "coq_version", "statement", "statement_sha256", "configurations",
                                         "certificates_kernel_checked", "claims", "rejected", "not_kernel_checked",
                                         "unchecked_configurations")},
               name="a kernel pass"),
           Obj({"status": CHECKED, "reason": CHECKED}, name="a kernel pass not run"),
           choose=lambda block: 0 if isinstance(block, dict) and block.get("status") in ("checked", "rejected") else
           1 if isinstance(block, dict) and block.get("status") in ("skipped", "not completed") else -1))

RESULTS = Obj({
    "schema": CHECKED, "schema_version": CHECKED, "campaign": _CAMPAIGN,
    "plan": Obj({"campaign_sha256": CHECKED, "tasks": Items(CHECKED)}, name="the plan"),
    "inputs": Items(_INPUT), "summary": _SUMMARY,
    "examples": Items(Either(RECORD, ERROR_RECORD, choose=_is_error)),
    "counterexamples": Items(_TOP_COUNTEREXAMPLE), "optional_sections": _SECTIONS, "kernel": _KERNEL_PASS,
    "environment": _ENVIRONMENT,
}, optional=("kernel",), name="a results.json")

__all__ += ["COUNT_KEYS", "LABEL"]
