"""The independent certificate checker: re-verifies claim reports with the standard library only.

Every certified verdict of ``hardmax-verify check`` carries a certificate (docs/certificates.md).
This package re-checks a claims report or a verification report's ``results.json`` without
trusting any of the suite's code: it replays the hardmax dynamics of docs/theory.md §1 itself
with :class:`fractions.Fraction`, re-derives every position, attention set, score, norm and layer
index the certificates name, and verifies every equality and inequality of the schema exactly,
including that each named layer is the FIRST at which its condition holds.

It also reconciles everything else a reader of the file sees with its own replay: every claim
of every run is present and none unknown; an inconclusive verdict must be one the replay
cannot decide (a token without a D7 fate, no leader, a single layer), so a downgraded verdict
is rejected; each run's combined status, settled and last layer, and its fates (the limits a
report renders) are the replay's; in a results.json, each record's own certcheck block and the
summary (counts per claim, overall status, exit status) are recomputed from the records.

**What it may import: the standard library, and its own modules.** Nothing from the rest of
``verify`` (the code it checks) and nothing outside the standard library; its modules import
each other relatively, so the folder runs on its own wherever it is copied
(tests/meta/test_certcheck_independence.py shows both). Its parts: ``kernel/``, the certificate
core behind one named interface (exact numbers, the replay, the D7 and D9 fates, one routine per
claim, closed-form chains, statuses, one run, the meter and estimate, the limits, the schemas);
beside it ``results/`` (the results auditor: a results.json, its campaign, plan and optional
sections), ``softmax/`` (docs/theory.md §6), ``control/`` (D10) and ``classify/`` (§7), each also
runnable on its own; ``jsontext`` (the one strict JSON reader of every file the checkers open,
and their one atomic writer), ``files`` (the kinds of file) and ``cli`` (the command line).

Usage::

    python -m verify.certcheck claims.json          # a claims report (hardmax-verify/claims-v1)
    python -m verify.certcheck results.json         # a verification report: every record and the summary
    python -m certcheck claims.json                 # the folder verify/certcheck/ copied on its own

Exit status: 0 everything verified; 1 any content that does not verify (a rejected
certificate, a missing, unknown, renamed or downgraded claim, a count or status that disagrees)
or a claim the file itself reports false; 2 not a regular readable file of either kind, or a
value beyond a documented limit (a layer past MAX_LAYER, replay work past --max-work, a file
past --max-bytes), refused before any checking; 3 nothing rejected, but something the checker
cannot check: a variant it does not implement (softmax ``beta``), a claim it has no routine
for, or a closed-form chain beyond its limits (MAX_CHAIN_THRESHOLD) and what rests on it;
4 could not complete (I/O error, resource limit, internal error; one line, ``--debug`` for
the traceback). A limit of the checker is never reported as a rejection.

What a verified certificate proves rests, beyond the layers replayed, on facts proved in
docs/theory.md: D3 (leaders stay fixed), D7 (fixed tokens, locking) and D9 (closed-form
chains), for the update z' = (z + alpha m)/(1 + alpha) with any A. With a value matrix V that
is not a positive multiple of I none is proved, so T1-T4 and D3 certificates are then rejected
(their finite conditions are still checked and reported).
"""

from __future__ import annotations

from .cli import could_not_complete, main, one_line, write_json
from .files import KINDS, check_data, check_file, file_kind, read_json, schema_of, schemas
from .kernel import (BAD_INPUT, CHECKER_LIMITS, CHECKS, CLOSED_FORM_FORMAT, COULD_NOT_COMPLETE, DEFAULT_MAX_BYTES,
                     DEFAULT_MAX_TOTAL_WORK, DEFAULT_MAX_WORK, FORMAT, HORIZON, MAX_CHAIN_DIGITS, MAX_CHAIN_SEGMENTS,
                     MAX_CHAIN_THRESHOLD, MAX_DIGITS, MAX_DIMENSION, MAX_JSON_DEPTH, MAX_LAYER, MAX_SECTION_BYTES, MAX_SECTION_FILES,
                     NOT_CHECKED, OUTCOME_STATUSES, RESTS_ON, RESULTS_SCHEMA, RUN, SCORE_OVERHEAD, SECTION_READ_BYTES,
                     SIMILARITY_FORMAT, SIMILARITY_VERIFIED, SUMMARY, WORK_SLACK, BadInput, CheckResult, DecimalText,
                     Limit, Model, Outcome, Rejected, TooExpensive, canonical_json, canonical_sha256, check_record,
                     check_report, input_bits, max_checkable_layer, replay_growth, replay_work, safe_text, schema, setup_work, verify_closed_form)
from .results import check_results
from .results.campaign import SEED_STRIDE, WORKED_ALPHA, WORKED_FAMILY, WORKED_TOKENS
from .results.glance import CONJECTURE_PREDICTS, SUMMARY_FIELDS, SUMMARY_LINES
from .results.reproduction import AUTHORS_SOFTMAX_TEST_ACCURACY, CHECKPOINT_HISTORY_BYTES, REPRODUCTION_RECORD_BYTES
from .results.sections import (SECTION_FILES, SECTION_ITEM_FIELDS, SECTION_PARSE_BYTES, SECTIONS,
                               SENTIMENT_EVALUATION_FIELDS, runs_folder)

__all__ = [
    # checking a file, a decoded file, a claims report, a results.json, one record
    "check_file", "check_data", "check_report", "check_results", "check_record", "read_json", "file_kind", "KINDS",
    "schema_of", "schemas", "schema",
    "CheckResult", "Outcome", "OUTCOME_STATUSES", "NOT_CHECKED", "BadInput", "Rejected", "Model", "CHECKS", "RESTS_ON",
    "FORMAT", "RESULTS_SCHEMA", "RUN", "SUMMARY", "HORIZON", "SECTIONS",
    # closed-form chains (D9), similarity certificates (D11)
    "verify_closed_form", "TooExpensive", "CLOSED_FORM_FORMAT", "SIMILARITY_FORMAT", "SIMILARITY_VERIFIED",
    # the work estimate and the limits (each name of CHECKER_LIMITS; the modules that use one read it from their own
    # imports, so a test that changes a limit changes it there)
    "replay_work", "replay_growth", "setup_work", "input_bits", "max_checkable_layer", "CHECKER_LIMITS", "Limit",
    "SCORE_OVERHEAD", "DEFAULT_MAX_BYTES", "MAX_DIGITS", "MAX_LAYER", "MAX_DIMENSION", "DEFAULT_MAX_WORK", "DEFAULT_MAX_TOTAL_WORK", "WORK_SLACK",
    "MAX_CHAIN_DIGITS", "MAX_CHAIN_SEGMENTS", "MAX_CHAIN_THRESHOLD", "MAX_JSON_DEPTH", "MAX_SECTION_FILES", "MAX_SECTION_BYTES",
    "SECTION_READ_BYTES", "SECTION_PARSE_BYTES", "REPRODUCTION_RECORD_BYTES", "CHECKPOINT_HISTORY_BYTES",
    # the facts typed in a second time, which tests compare with the suite's
    "canonical_json", "canonical_sha256", "DecimalText", "SEED_STRIDE", "WORKED_FAMILY", "WORKED_ALPHA", "WORKED_TOKENS",
    "SECTION_FILES", "SECTION_ITEM_FIELDS", "SENTIMENT_EVALUATION_FIELDS", "SUMMARY_FIELDS", "SUMMARY_LINES",
    "CONJECTURE_PREDICTS", "AUTHORS_SOFTMAX_TEST_ACCURACY", "runs_folder",
    # the command line
    "main", "write_json", "could_not_complete", "one_line", "safe_text", "BAD_INPUT", "COULD_NOT_COMPLETE",
]
