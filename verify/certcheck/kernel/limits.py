"""The checker's limits: every count, length, size, exponent and power it reads from a file is bounded here.

Each is bounded before any loop uses it. :data:`CHECKER_LIMITS` documents each one (what it
bounds and what happens beyond it); verify/core/limits.py mirrors the table for the README and
docs/certcheck.md, and a test compares the two. Measured on one core of the development machine
(docs/certcheck.md, Limits): a file within every default takes under a minute; the meter
(WORK_SLACK, :mod:`.meter`) stops one whose numbers grow faster than estimated.
"""

from __future__ import annotations

from typing import NamedTuple


MAX_DIGITS = 100_000  # longest number string read (the largest exact positions have a few thousand digits)
MAX_LAYER = 5000  # the last layer a run may state; later is refused before checking
MAX_DIMENSION = 64  # the dimension d of a configuration's points (the suite's own limit); larger is refused
# Estimated work of checking one configuration (replay_work units, a few tenths of a microsecond
# each). The suite never emits a run beyond it (verify.claims caps its layers).
DEFAULT_MAX_WORK = 40_000_000
DEFAULT_MAX_TOTAL_WORK = 80_000_000  # the same, summed over the runs of one file
DEFAULT_MAX_BYTES = 64 << 20  # the largest file read (a default campaign's results.json is about 5 MB)
WORK_BITS = 512  # a work unit: one multiply-add of integers of up to WORK_BITS bits
SCORE_OVERHEAD = 2  # a score's fixed cost, in products (the interpreter's loop over d products)
SET_GROWTH_BITS = 4  # bits a layer adds to the replay's integers through the attention sets' sizes (estimate)
RUN_OVERHEAD = 5000  # work units charged per run (its fixed cost: facts, fates, nine claims)
NUMBER_COST = 12  # work units charged per number read (about what reading one costs, measured: a few microseconds)
WORK_SLACK = 1.2  # the meter stops a file at WORK_SLACK times its total work limit
MAX_CHAIN_DIGITS = 2_000_000  # longest number of a closed-form chain (D9), read in chunks
# The suite's files nest under 20 levels; deeper ones would exhaust the recursion of what reads them later.
MAX_JSON_DEPTH = 100
MAX_CHAIN_THRESHOLD = 200_000  # largest t a chain's sign is scanned to or a path evaluated at
MAX_CHAIN_SEGMENTS = 10_000  # segments of one chain
MAX_SECTION_FILES = 10_000  # saved files of one optional section
MAX_SECTION_BYTES = 1 << 30  # saved files hashed for one results.json, in all
SECTION_READ_BYTES = 16 << 20  # a saved file read as JSON (the report's own input limit)


class Limit(NamedTuple):
    """One documented limit of the checker: its name here, value, what it bounds and what happens beyond it."""

    name: str
    value: int | float
    bounds: str
    beyond: str


REFUSED, UNSUPPORTED, REJECTED, NOT_CHECKED_BEYOND = (
    "refused before checking (exit 2)", "unsupported (exit 3)", "rejected (exit 1)", "not checked (exit 3)")
CHECKER_LIMITS: tuple[Limit, ...] = (
    Limit("DEFAULT_MAX_BYTES", DEFAULT_MAX_BYTES, "the file read (--max-bytes)", REFUSED),
    Limit("MAX_JSON_DEPTH", MAX_JSON_DEPTH, "how deeply arrays and objects nest in a file", REFUSED),
    Limit("MAX_DIGITS", MAX_DIGITS, "characters of a number (p, p/q or a plain decimal; exponents are refused)",
          REJECTED),
    Limit("MAX_LAYER", MAX_LAYER, "the last layer a run states", REFUSED),
    Limit("MAX_DIMENSION", MAX_DIMENSION, "the dimension d of a configuration (its matrices' eliminations are d^3)",
          REFUSED),
    Limit("DEFAULT_MAX_WORK", DEFAULT_MAX_WORK, "estimated work of checking one configuration (--max-work)", REFUSED),
    Limit("DEFAULT_MAX_TOTAL_WORK", DEFAULT_MAX_TOTAL_WORK,
          "estimated work of checking all the configurations of a file (--max-total-work)", REFUSED),
    Limit("WORK_SLACK", WORK_SLACK, "work the checks may do, as a multiple of the total work limit "
                                    "(charged as they run: numbers that grow faster than estimated)", UNSUPPORTED),
    Limit("MAX_CHAIN_DIGITS", MAX_CHAIN_DIGITS, "characters of a number of a closed-form chain (D9)", REJECTED),
    Limit("MAX_CHAIN_SEGMENTS", MAX_CHAIN_SEGMENTS, "segments of a closed-form chain", REJECTED),
    Limit("MAX_CHAIN_THRESHOLD", MAX_CHAIN_THRESHOLD,
          "the t up to which a chain's signs are scanned and its paths evaluated", UNSUPPORTED),
    Limit("MAX_SECTION_FILES", MAX_SECTION_FILES, "saved files of one optional section", NOT_CHECKED_BEYOND),
    Limit("MAX_SECTION_BYTES", MAX_SECTION_BYTES, "bytes of saved files hashed for one results.json", NOT_CHECKED_BEYOND),
    Limit("SECTION_READ_BYTES", SECTION_READ_BYTES, "a saved file read as JSON (larger: listed as unreadable)",
          NOT_CHECKED_BEYOND),
    Limit("SECTION_PARSE_BYTES", 256 << 20, "bytes of saved files parsed as JSON for one results.json (one file "
                                            "held at a time)", NOT_CHECKED_BEYOND),
    Limit("REPRODUCTION_RECORD_BYTES", 64 << 20, "bytes of the reproduction's per-run records read", NOT_CHECKED_BEYOND),
    Limit("CHECKPOINT_HISTORY_BYTES", 64 << 20, "bytes of the reproduction's checkpoint histories read (one file held "
                                                "at a time)", NOT_CHECKED_BEYOND),
)
