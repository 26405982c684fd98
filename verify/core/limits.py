"""Documented resource limits of the commands (the table in README.md, "Limits", is generated from
:func:`readme_rows`).

A value beyond a limit is refused when it is parsed, before any work, with exit status 2 and a
line naming the option and the way to raise the limit where there is one. A limit reached while
running (memory, for instance) ends the command with exit status 4.

The independent checker (verify/certcheck/) imports nothing from the package, so its limits are
defined there (``CHECKER_LIMITS``) and mirrored here (:data:`CHECKER`) for the tables;
tests/unit/test_certcheck_campaign.py checks that the two agree.
"""

from __future__ import annotations

import os
import sys

from verify import certcheck  # the checker's own estimate of the work it allows
from . import config, io, numbers

__all__ = ["DEFAULT_MAX_WORK", "MAX_LAYER_BUDGET", "CONTROL_MAX_TOKENS", "CONTROL_MAX_DIMENSION", "CONTROL_MAX_SUBSETS",
           "CONTROL_MAX_TRIES", "CONTROL_MAX_PROGRAMS", "CHECKER", "usable_cores", "max_jobs", "work_refusal",
           "check_max_tokens", "readme_rows"]

# simulate computes every layer it is asked for, and the exact engine's numbers grow with the
# layers: measured on a 2-core machine, 2 tokens x 10,000 layers take ~25 s and ~0.4 GB, 8 tokens
# x 10,000 layers ~170 s and ~1.4 GB. The default keeps a mistyped --layers from costing hours;
# --max-work raises it.
DEFAULT_MAX_WORK = 20_000  # layers x tokens

# The claim checks stop one layer after every token has settled (usually within a few layers);
# the budget only bounds configurations that do not settle.
MAX_LAYER_BUDGET = 100_000

# control (docs/theory.md D10): one semidefinite program has n (n - 1) linear constraints on a
# d x d matrix (about 16,000 rows of 256 entries at the limits, a few seconds), and the
# independent checker recomputes every score in plain Python.
CONTROL_MAX_TOKENS = 128
CONTROL_MAX_DIMENSION = 16
CONTROL_MAX_SUBSETS = 2 ** 16        # --all-leader-sets: nonempty subsets of the hull vertices (16 vertices)
CONTROL_MAX_TRIES = 64               # --max-tries: orders of the target search
CONTROL_MAX_PROGRAMS = 4096          # --max-programs: design programs of the target search


# The independent checker's limits (verify/certcheck/kernel/limits.py, CHECKER_LIMITS), by name.
CHECKER: dict[str, int | float] = {
    "DEFAULT_MAX_BYTES": 64 << 20,          # the file read (--max-bytes)
    "MAX_JSON_DEPTH": numbers.MAX_JSON_DEPTH,  # how deeply arrays and objects nest in a file (the suite's reader too)
    "MAX_DIGITS": 100_000,                  # characters of a number
    "MAX_LAYER": 5000,                      # the last layer a run states
    "MAX_DIMENSION": 64,                    # the dimension of a configuration
    "DEFAULT_MAX_WORK": 40_000_000,         # estimated work of checking one configuration (--max-work)
    "DEFAULT_MAX_TOTAL_WORK": 80_000_000,   # the same for all the configurations of a file (--max-total-work)
    "WORK_SLACK": 1.2,                      # work charged as the checks run, as a multiple of the total limit
    "MAX_CHAIN_DIGITS": 2_000_000,          # characters of a number of a closed-form chain (D9)
    "MAX_CHAIN_SEGMENTS": 10_000,           # segments of a chain
    "MAX_CHAIN_THRESHOLD": 200_000,         # t up to which a chain's signs are scanned and paths evaluated
    "MAX_SECTION_FILES": 10_000,            # saved files of one optional section
    "MAX_SECTION_BYTES": 1 << 30,           # saved files hashed for one results.json
    "SECTION_READ_BYTES": 16 << 20,         # a saved file read as JSON
    "SECTION_PARSE_BYTES": 256 << 20,       # saved files parsed as JSON for one results.json, one at a time
    "REPRODUCTION_RECORD_BYTES": 64 << 20,  # the reproduction's per-run records read
    "CHECKPOINT_HISTORY_BYTES": 64 << 20,   # the reproduction's checkpoint histories read, one at a time
}


# Coq's kernel pass (verify.formal, docs/formal.md): one coqc run's wall time and address space.
KERNEL_TIME_LIMIT = 600.0
KERNEL_MEMORY_LIMIT = 8 << 30
PROVE_MAX_BYTES = 256 << 20  # a results.json given to `prove`


def check_max_tokens(d: int) -> int:
    """The most tokens in dimension ``d`` whose layer 0 the checker replays within its default work limit
    (small inputs): ``check`` refuses more, since no certificate could be re-verified."""

    low, high = 0, 1 << 20
    while low < high:
        mid = (low + high + 1) // 2
        if certcheck.replay_work(mid, d, 0) <= CHECKER["DEFAULT_MAX_WORK"]:
            low = mid
        else:
            high = mid - 1
    return low


def _mib(n: int | float) -> str:
    return f"{int(n) >> 20:,} MiB" if int(n) < 1 << 30 else f"{int(n) >> 30:,} GiB"


def readme_rows() -> list[tuple[str, str, str]]:
    """README.md's table of limits: (what, limit, how to raise it), from the modules that enforce them."""

    c = CHECKER
    tokens = ", ".join(f"{check_max_tokens(d):,} tokens in d = {d}" for d in (2, 16, 64))
    return [
        ("an input file (configuration, CAMPAIGN.toml, conjecture file)",
         f"a regular file (not a FIFO, device or socket), at most {io.MAX_INPUT_BYTES // 2**20} MiB", "-"),
        ("a number", f"at most {sys.int_info.default_max_str_digits} significant digits (Python's integer limit), "
                     f"exponent at most {numbers._MAX_EXPONENT:,} in size", "-"),
        ("a configuration (`simulate`)", f"at most {config.MAX_TOKENS} tokens, dimension at most "
                                         f"{config.MAX_DIMENSION}", "-"),
        ("`simulate`, `softmax`", f"layers x tokens at most {DEFAULT_MAX_WORK:,} (exact numbers grow with the layers)",
         "`--max-work N`"),
        ("`check`, `report`", "only the layers the independent checker replays within its default work limit "
                              f"({c['DEFAULT_MAX_WORK']:,.0f} units, see `certcheck` below; the run then stops "
                              f"by \"work limit\"); refused when not even layer 0 fits: at most {tokens}", "-"),
        ("`check --layer-budget`, `layer_budget` of a campaign", f"at most {MAX_LAYER_BUDGET:,}", "-"),
        ("`report --jobs`, `--dask-local`", "twice the usable cores, at least 4", "-"),
        ("`control`", f"at most {CONTROL_MAX_TOKENS} tokens, dimension at most {CONTROL_MAX_DIMENSION}; "
                      f"`--all-leader-sets` at most {CONTROL_MAX_SUBSETS:,} subsets; `--max-tries` at most "
                      f"{CONTROL_MAX_TRIES}, `--max-programs` at most {CONTROL_MAX_PROGRAMS:,}", "-"),
        ("`prove`", f"a file of at most {_mib(PROVE_MAX_BYTES)}; each coqc run at most "
                    f"{KERNEL_TIME_LIMIT:g} s of wall time and {_mib(KERNEL_MEMORY_LIMIT)} of memory (a configuration "
                    "past them is not kernel-checked, exit 3)", "`--time-limit SECONDS`"),
        ("`certcheck` file", f"a regular file, at most {_mib(c['DEFAULT_MAX_BYTES'])}", "`--max-bytes N`"),
        ("`certcheck` replay", f"last layer at most {c['MAX_LAYER']:,}, dimension at most {c['MAX_DIMENSION']}; "
                               "estimated work (about n^2 (d + 2) units a layer and n^2 d once for n tokens in d dimensions, more "
                               "as the numbers grow, and d^3 for each matrix A or V) at most "
                               f"{c['DEFAULT_MAX_WORK']:,.0f} per configuration and {c['DEFAULT_MAX_TOTAL_WORK']:,.0f} "
                               f"per file; the work done is metered, and past {c['WORK_SLACK']} times the file's "
                               "limit the rest is unsupported (exit 3)", "`--max-work N`, `--max-total-work N`"),
        ("`certcheck` numbers", f"at most {c['MAX_DIGITS']:,} characters (`p`, `p/q` or a plain decimal); in a "
                                f"closed-form chain {c['MAX_CHAIN_DIGITS']:,} (longer: in the configuration refused, "
                                "exit 2; in a certificate rejected, exit 1)", "-"),
        ("`certcheck` closed-form chains (D9)", f"at most {c['MAX_CHAIN_SEGMENTS']:,} segments, and per segment "
                                                "powers with sum over the bases of (1 + highest power) at most n "
                                                "(more is rejected, exit 1: no solution of the update rule has them); signs "
                                                f"scanned and paths evaluated up to t = {c['MAX_CHAIN_THRESHOLD']:,} "
                                                "(beyond: unsupported, exit 3)", "-"),
        ("`certcheck` saved results of a report's sections", f"{c['MAX_SECTION_FILES']:,} files a section, "
                                                             f"{_mib(c['MAX_SECTION_BYTES'])} hashed in all, "
                                                             f"{_mib(c['SECTION_READ_BYTES'])} read a file, "
                                                             f"{_mib(c['SECTION_PARSE_BYTES'])} parsed in all "
                                                             "(beyond: not checked, exit 3)", "-"),
    ]


def usable_cores() -> int:
    """Cores this process may run on (the affinity mask where the platform has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def max_jobs() -> int:
    """The most worker processes --jobs and --dask-local accept: twice the usable cores, at least 4.

    Each worker holds its own copy of the engine (about 150 MB); more workers than cores only
    add memory and context switches to CPU-bound checks.
    """
    return max(4, 2 * usable_cores())


def work_refusal(layers: int, tokens: int, max_work: int) -> str | None:
    """Why ``layers`` layers of ``tokens`` tokens exceed ``max_work``, or None when they do not."""
    work = layers * tokens
    if work <= max_work:
        return None
    return (f"{layers:,} layers x {tokens:,} tokens = {work:,} token-layers, more than the limit of {max_work:,} "
            "(raise it with --max-work if you mean it)")
