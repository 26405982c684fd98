"""Documented resource limits of the commands (the table in README.md, "Limits").

A value beyond a limit is refused when it is parsed, before any work, with exit status 2 and a
line naming the option and the way to raise the limit where there is one. A limit reached while
running (memory, for instance) ends the command with exit status 4.
"""

from __future__ import annotations

import os

__all__ = ["DEFAULT_MAX_WORK", "MAX_LAYER_BUDGET", "CONTROL_MAX_TOKENS", "CONTROL_MAX_DIMENSION", "CONTROL_MAX_SUBSETS",
           "CONTROL_MAX_TRIES", "CONTROL_MAX_PROGRAMS", "usable_cores", "max_jobs", "work_refusal"]

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
