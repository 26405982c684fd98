"""The checker's certificate kernel: what "verified" rests on, behind one named interface.

Exact numbers read from text (:mod:`.numbers`), the replay of the hardmax dynamics
(docs/theory.md §1, :mod:`.model`), the D7 and D9 fates (:mod:`.fates`), one routine per claim
(:mod:`.claims`), closed-form chains (:mod:`.closed_form`), similarity certificates
(:mod:`.similarity`), which verdict status the replay justifies (:mod:`.statuses`), one run as a
claims report or a record states it (:mod:`.run`), the work meter and estimate (:mod:`.meter`,
:mod:`.estimate`), the documented limits (:mod:`.limits`), JSON values compared and hashed
(:mod:`.jsonvalues`), and the schema of every file (:mod:`.schema` its language,
:mod:`.report_schema` a claims report and a run). It imports the standard library
and its own modules only.

Everything outside the kernel (the results auditor beside it, the softmax, control and
classification checkers, the dispatcher and the command line) imports from this module the names
of :data:`__all__`, and no other: no private name crosses it, and no module of the kernel is
imported from outside it (tests/meta/test_certcheck_independence.py holds both, and the kernel's
size). docs/certcheck.md states its line count: the trusted base, small enough to read in an
afternoon.
"""

from __future__ import annotations

from . import schema
from .claims import CHECKS, RESTS_ON
from .closed_form import CLOSED_FORM_FORMAT, TooExpensive, verify_closed_form
from .common import (BAD_INPUT, CLAIM_ID, COULD_NOT_COMPLETE, FORMAT, NOT_CHECKED, OUTCOME_STATUSES, RESULTS_SCHEMA,
                     BadInput, CheckResult, Outcome, Rejected, counted, reading, record_read, require, safe_text, stated)
from .estimate import input_bits, max_checkable_layer, replay_growth, replay_work, setup_work
from .jsonvalues import (UNREADABLE, DecimalText, Unreadable, brief_json, canonical_json, canonical_sha256, get_in,
                         is_projection, json_count, json_digest, json_number, number_of, same_json)
from .limits import (CHECKER_LIMITS, DEFAULT_MAX_BYTES, DEFAULT_MAX_TOTAL_WORK, DEFAULT_MAX_WORK, MAX_CHAIN_DIGITS,
                     MAX_CHAIN_SEGMENTS, MAX_CHAIN_THRESHOLD, MAX_DIGITS, MAX_JSON_DEPTH, MAX_DIMENSION, MAX_LAYER, MAX_SECTION_BYTES,
                     MAX_SECTION_FILES, SCORE_OVERHEAD, SECTION_READ_BYTES, WORK_SLACK, Limit)
from .meter import WorkLimit, charge, cost, gcd_cost, metered
from .model import Model, model_of, models_cached
from .numbers import (bits_of, elimination_work, int_text, integer_rows, inverse, positive_definite, positive_semidefinite,
                      power_of_ten, read_digits, read_number)
from .report_schema import CLAIMS_REPORT, CONFIGURATION, LABEL, RUN_FIELDS
from .run import (HORIZON, RUN, STATED_FIELDS, SUMMARY, Run, admit, check_record, check_report, check_run,
                  hypothesis_violations, null_fields, shape_of)
from .schema import (ANY_KEY, CHECKED, CLAIM_KEY, INDEX_KEY, LAYER_KEY, Checked, Either, Items, Node, Obj, Projection, Row,
                     Unchecked, node_at, problem, rows, unchecked)
from .similarity import FORMAT as SIMILARITY_FORMAT, VERIFIED as SIMILARITY_VERIFIED
from .statuses import combine_statuses

__all__ = [
    # files and findings
    "FORMAT", "RESULTS_SCHEMA", "NOT_CHECKED", "OUTCOME_STATUSES", "BAD_INPUT", "COULD_NOT_COMPLETE", "CLAIM_ID",
    "BadInput", "Rejected", "Outcome", "CheckResult", "counted", "stated", "safe_text", "require", "reading",
    "record_read",
    # limits, work
    "CHECKER_LIMITS", "Limit", "DEFAULT_MAX_BYTES", "DEFAULT_MAX_TOTAL_WORK", "DEFAULT_MAX_WORK", "MAX_CHAIN_DIGITS",
    "MAX_CHAIN_SEGMENTS", "MAX_CHAIN_THRESHOLD", "MAX_DIGITS", "MAX_JSON_DEPTH", "MAX_DIMENSION", "MAX_LAYER", "MAX_SECTION_BYTES",
    "MAX_SECTION_FILES", "SCORE_OVERHEAD", "SECTION_READ_BYTES", "WORK_SLACK", "WorkLimit", "charge", "cost",
    "gcd_cost", "metered", "input_bits", "max_checkable_layer", "replay_growth", "replay_work", "setup_work",
    # exact numbers
    "read_number", "read_digits", "int_text", "power_of_ten", "integer_rows", "bits_of", "positive_definite", "positive_semidefinite",
    "inverse", "elimination_work",
    # JSON values
    "DecimalText", "canonical_json", "canonical_sha256", "json_digest", "same_json", "brief_json", "is_projection",
    "json_count", "json_number", "number_of", "get_in", "UNREADABLE", "Unreadable",
    # the replay, the claims, one run
    "Model", "model_of", "models_cached", "CHECKS", "RESTS_ON", "CLOSED_FORM_FORMAT", "TooExpensive",
    "verify_closed_form", "SIMILARITY_FORMAT",
    "SIMILARITY_VERIFIED", "Run", "RUN", "SUMMARY", "HORIZON", "check_report", "check_record", "check_run", "admit",
    "shape_of", "hypothesis_violations", "null_fields", "STATED_FIELDS", "combine_statuses",
    # the schema
    "schema", "CHECKED", "Checked", "Unchecked", "Projection", "Node", "Obj", "Items", "Either", "Row", "ANY_KEY",
    "CLAIM_KEY", "INDEX_KEY", "LAYER_KEY", "problem", "unchecked", "rows", "node_at", "CLAIMS_REPORT",
    "CONFIGURATION", "LABEL", "RUN_FIELDS",
]
