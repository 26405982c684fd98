"""The independent certificate checker: re-verifies claim reports with the standard library only.

Every certified verdict of ``hardmax-verify check`` carries a certificate (docs/certificates.md).
This module re-checks a claims report or a verification report's ``results.json`` without
trusting any of the suite's code: it imports nothing from the package and nothing outside the
standard library, replays the hardmax dynamics of docs/theory.md §1 itself with
:class:`fractions.Fraction`, re-derives every position, attention set, score, norm and layer
index the certificates name, and verifies every equality and inequality of the schema
exactly, including that each named layer is the FIRST at which its condition holds.

It also reconciles everything else a reader of the file sees with its own replay: every claim
of every run is present and none unknown; an inconclusive verdict must be one the replay
cannot decide (a token without a D7 fate, no leader, a single layer), so a downgraded verdict
is rejected; each run's combined status, settled and last layer, and its fates (the limits a
report renders) are the replay's; in a results.json, each record's own certcheck block and the
summary (counts per claim, overall status, exit status) are recomputed from the records.

Usage::

    python -m verify.certcheck claims.json          # a claims report (hardmax-verify/claims-v1)
    python -m verify.certcheck results.json         # a verification report: every record and the summary

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

# ruff: noqa: B023 - a message passed to _require as a lambda is formatted inside _require, before the
# loop it is written in moves on: the loop variables it reads are the current ones.

from __future__ import annotations

import argparse
import contextlib
import errno
import hashlib
import itertools
import json
import math
import os
import pathlib
import re
import runpy
import stat
import statistics
import sys
import tempfile
import threading
import tomllib
import traceback
from fractions import Fraction
from typing import Any, Callable, NamedTuple, cast

__all__ = ["FORMAT", "CHECKS", "DEFAULT_MAX_WORK", "DEFAULT_MAX_BYTES", "MAX_LAYER", "OUTCOME_STATUSES", "BadInput", "Outcome",
           "CheckResult", "check_report", "check_results", "check_record", "check_file", "replay_work", "input_bits",
           "max_checkable_layer", "write_json", "could_not_complete", "one_line", "main"]

# --------------------------------------------------------------------------- limits
#
# Every count, length, size, exponent and power the checker reads from a file is bounded here,
# before any loop uses it. CHECKER_LIMITS below documents each (verify/core/limits.py mirrors the
# table for the README and docs/certcheck.md, and a test compares the two). Measured on one
# core of the development machine (docs/certcheck.md, Limits): a file within every default
# takes under a minute; the meter (WORK_SLACK) stops one whose numbers grow faster than
# estimated.

MAX_DIGITS = 100_000  # longest number string read (the largest exact positions have a few thousand digits)
MAX_LAYER = 5000  # the last layer a run may state; later is refused before checking
# Estimated work of checking one configuration (replay_work units, a few tenths of a microsecond
# each). The suite never emits a run beyond it (verify.claims caps its layers).
DEFAULT_MAX_WORK = 40_000_000
DEFAULT_MAX_TOTAL_WORK = 80_000_000  # the same, summed over the runs of one file
DEFAULT_MAX_BYTES = 64 << 20  # the largest file read (a default campaign's results.json is about 5 MB)
WORK_BITS = 512  # a work unit: one multiply-add of integers of up to WORK_BITS bits
SCORE_OVERHEAD = 2  # a score's fixed cost, in products (the interpreter's loop over d products)
SET_GROWTH_BITS = 4  # bits a layer adds to the replay's integers through the attention sets' sizes (estimate)
RUN_OVERHEAD = 5000  # work units charged per run (its fixed cost: facts, fates, nine claims)
NUMBER_COST = 4  # work units charged per number read from a certificate
WORK_SLACK = 1.2  # the meter stops a file at WORK_SLACK times its total work limit
MAX_CHAIN_DIGITS = 2_000_000  # longest number of a closed-form chain (D9), read in chunks
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
    Limit("MAX_DIGITS", MAX_DIGITS, "characters of a number (p, p/q or a plain decimal; exponents are refused)",
          REJECTED),
    Limit("MAX_LAYER", MAX_LAYER, "the last layer a run states", REFUSED),
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

FORMAT = "hardmax-verify/claims-v1"
RESULTS_SCHEMA = "hardmax-verify/results"
# A claim id this checker has no routine for: reported unsupported (never verified), not rejected.
CLAIM_ID = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,39}")
NEEDS_D3_D7 = ("T1", "T2", "T3", "T4", "D3")
BAD_INPUT = 2
COULD_NOT_COMPLETE = 4

Point = tuple  # tuple of Fractions


class BadInput(Exception):
    """Nothing can be checked: the file or its configuration is malformed (exit status 2)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


class Rejected(Exception):
    """A certificate is malformed or one of its conditions fails."""


class Outcome(NamedTuple):
    """One finding. ``claim`` is a claim id, or "(run)" / "(summary)" / "(campaign)" / "(sections)"
    for what a run, a results file's summary, its campaign and plan, or its optional sections state
    besides the verdicts. ``status``: verified (a certificate re-verified, or a section's files and
    numbers recomputed), inconclusive (an inconclusive verdict the replay confirms cannot be
    decided), failed (the file reports the claim false), rejected (something that does not
    verify), unsupported (beyond what the checker implements or its limits) or not checked (a
    section whose saved files were not given)."""

    source: str
    claim: str
    status: str
    reason: str


OUTCOME_STATUSES = ("verified", "inconclusive", "failed", "rejected", "unsupported", "not checked")


class CheckResult:
    """All outcomes of one file or report, with counts per claim and the exit status."""

    def __init__(self, outcomes: list[Outcome] | None = None) -> None:
        self.outcomes: list[Outcome] = list(outcomes or [])
        self.work = 0.0  # work units the checks were charged (see CHECKER_LIMITS)
        self.notes: list[str] = []  # lines a sibling checker prints (a softmax record's)
        # Verified certificates that a statement is false (a control result's impossibility
        # certificate): "failed" outcomes, but certificates that were checked.
        self.certificates_of_falsity = 0

    def counts(self) -> dict[str, dict[str, int]]:
        table: dict[str, dict[str, int]] = {}
        for o in self.outcomes:
            row = table.setdefault(o.claim, {s: 0 for s in OUTCOME_STATUSES})
            row[o.status] += 1
        return table

    @property
    def exit_status(self) -> int:
        statuses = {o.status for o in self.outcomes}
        return 1 if statuses & {"rejected", "failed"} else 3 if statuses & {"unsupported", "not checked"} else 0

    def to_json_dict(self) -> dict[str, Any]:
        return {"exit_status": self.exit_status, "counts": self.counts(),
                "outcomes": [o._asdict() for o in self.outcomes]}

    def verdict_line(self) -> str:
        verified = sum(o.status == "verified" and not o.claim.startswith("(") for o in self.outcomes) \
            + self.certificates_of_falsity
        statuses = {o.status for o in self.outcomes}
        if "rejected" in statuses:
            verdict = "something in the file was REJECTED"
        elif "failed" in statuses and self.certificates_of_falsity:
            verdict = "nothing rejected; a verified certificate shows the file's statement FALSE"
        elif "failed" in statuses:
            verdict = "nothing rejected, but the file reports a claim FALSE"
        elif "unsupported" in statuses:
            verdict = "nothing rejected, but some certificates could not be checked"
        elif NOT_CHECKED in statuses:
            verdict = "nothing rejected, but some saved results the report quotes were not checked"
        else:
            verdict = "everything verified"
        return f"certcheck: {verified} certificate(s) verified; {verdict}"

    def lines(self, *, verbose: bool = False) -> list[str]:
        out = [f"{o.source}: {o.claim} {o.status}" + (f": {o.reason}" if o.reason else "")
               for o in self.outcomes if verbose or o.status in ("rejected", "failed", "unsupported", NOT_CHECKED)]
        out += self.notes
        for claim, row in sorted(self.counts().items()):
            out.append(f"{claim}: " + ", ".join(f"{v} {k}" for k, v in row.items() if v))
        out.append(self.verdict_line())
        return out


# --------------------------------------------------------------------------- reading numbers


def _require(condition: bool, message: "str | Callable[[], str]") -> None:
    """Reject unless ``condition``; a callable ``message`` is formatted only then (numbers of the replay
    can be long, and most checks pass)."""
    if not condition:
        raise Rejected(message() if callable(message) else message)


def _number(x: Any, where: str) -> Fraction:
    # bool is an int in Python; a float's binary value is not the exact number it was meant to be.
    if isinstance(x, (int, Fraction)) and not isinstance(x, bool):
        return Fraction(x)
    # Only "p", "p/q" or a plain decimal: Fraction would also take "1e999999999", a denial of service.
    if isinstance(x, str) and len(x) <= MAX_DIGITS and _plain(x):
        _charge(NUMBER_COST - 1 + _gcd_cost(1, int(len(x) * 1.67)))
        try:
            return Fraction(x) if len(x) <= _CF_CHUNK else _long_number(x)
        except (ZeroDivisionError, ValueError):
            pass
    raise Rejected(f"{where}: not an exact number: {x!r}"[:300])


def _long_number(text: str) -> Fraction:
    """A plain number ("p", "p/q" or a decimal, checked by :func:`_plain`) of more digits than int() converts
    (Python refuses more than 4300), read in chunks: within MAX_DIGITS a long number is read, never rejected."""
    sign = -1 if text[:1] == "-" else 1
    body = text[1:] if text[:1] in "+-" else text
    head, slash, tail = body.partition("/")
    if slash:
        return sign * Fraction(_cf_digits(head), _cf_digits(tail))  # ZeroDivisionError for q = 0
    whole, _, fraction = head.partition(".")
    return sign * Fraction(_cf_digits(whole + fraction), _power_of_ten(len(fraction)))


def _int_text(n: int) -> str:
    """str(n) for an integer of any size (str() refuses more than 4300 digits): halves, each padded."""
    if n < 0:
        return "-" + _int_text(-n)
    if n.bit_length() <= 13_000:
        return str(n)
    half = max(1, int(n.bit_length() * 0.30103) // 2)
    high, low = divmod(n, _power_of_ten(half))
    return _int_text(high) + _int_text(low).rjust(half, "0")


def _plain(text: str) -> bool:
    body = text[1:] if text[:1] in "+-" else text
    head, slash, tail = body.partition("/")
    if slash:
        return head.isdigit() and tail.isdigit() and head.isascii() and tail.isascii()
    whole, dot, fraction = head.partition(".")
    return (whole + fraction).isdigit() and (whole + fraction).isascii()


def _get(obj: Any, key: str, where: str) -> Any:
    _require(isinstance(obj, dict) and key in obj, lambda: f"{where}: missing {key!r}")
    return obj[key]


def _int(x: Any, where: str, *, low: int = 0, high: int = MAX_LAYER) -> int:
    _require(isinstance(x, int) and not isinstance(x, bool) and low <= x <= high,
             f"{where}: expected an integer in {low}..{high}, got {x!r}")
    return x


def _point(x: Any, d: int, where: str) -> Point:
    _require(isinstance(x, list) and len(x) == d, lambda: f"{where}: expected a point with {d} coordinates")
    return tuple(_number(c, f"{where}[{r}]") for r, c in enumerate(x))


def _index_set(x: Any, n: int, where: str) -> frozenset:
    _require(isinstance(x, list), lambda: f"{where}: expected a sorted list of token indices")
    items = [_int(j, where, high=n - 1) for j in x]
    _require(items == sorted(set(items)), lambda: f"{where}: expected a sorted list of distinct token indices")
    return frozenset(items)


def _key_index(key: Any) -> int | None:
    """A JSON key holding a non-negative integer in canonical form ("0", "17"), else None.

    ASCII digits only ("²" and other scripts' digits pass str.isdigit), and short: a
    5,000-digit key is not an index.
    """
    if isinstance(key, str) and 0 < len(key) <= 9 and key.isascii() and key.isdigit() and key == str(int(key)):
        return int(key)
    return None


def _weights(x: Any, n: int, where: str) -> dict[int, Fraction]:
    """Multipliers {"token": "lambda"}: keys are token indices as strings."""
    _require(isinstance(x, dict) and all(_key_index(k) is not None for k in x),
             f"{where}: expected an object keyed by token indices")
    return {_int(_key_index(k), where, high=n - 1): _number(v, f"{where}[{k}]") for k, v in x.items()}


def _show(p: Any) -> str:
    if isinstance(p, (Fraction, int)):
        return _q(p)
    if isinstance(p, (frozenset, set)):
        return "{" + ", ".join(map(str, sorted(p)[:50])) + (", ..." if len(p) > 50 else "") + "}"
    return "(" + ", ".join(_q(c) if isinstance(c, (Fraction, int)) else str(c)[:100] for c in p) + ")"


def _q(x: Any) -> str:
    """An exact number for a message: in full up to about a thousand digits, else its size and leading digits
    (longer integers cannot even be printed: Python refuses more than 4300 digits)."""
    if isinstance(x, bool) or not isinstance(x, (int, Fraction)):
        return str(x)[:200]
    x = Fraction(x)
    if max(abs(x.numerator).bit_length(), x.denominator.bit_length()) <= 3300:
        return str(x)
    digits = [math.floor(v.bit_length() * 0.30103) + 1 for v in (abs(x.numerator), x.denominator)]
    return f"{'-' if x < 0 else ''}(a {digits[0]}-digit integer)/(a {digits[1]}-digit integer)"


def _dot(x: Point, y: Point) -> Fraction:
    return sum((a * b for a, b in zip(x, y)), Fraction(0))


def _mean(points: list) -> Point:
    return tuple(sum(col, Fraction(0)) / len(points) for col in zip(*points))


def _matvec(M: list, x: Point) -> Point:
    return tuple(_dot(row, x) for row in M)


def _integer_rows(points: list) -> tuple[list[list[int]], int]:
    """(N, D) with points[i][r] = N[i][r] / D, D > 0 the common denominator: comparisons of inner
    products with integer vectors then need no fraction arithmetic."""
    D = math.lcm(*(x.denominator for p in points for x in p)) if points else 1
    return [[x.numerator * (D // x.denominator) for x in p] for p in points], D


def _bits(rows: list) -> int:
    """The largest bit length among integer ``rows`` (a list of lists, or one list)."""
    flat = [x for row in rows for x in row] if rows and isinstance(rows[0], list) else rows
    return max((abs(x).bit_length() for x in flat), default=0)


# --------------------------------------------------------------------------- bounded work
#
# Every loop whose length or whose numbers come from a file is paid for before it runs, in
# work units: one multiply-add of integers of up to WORK_BITS bits; larger numbers cost in
# proportion to the product of their sizes. A file is admitted only if its estimated replay
# work (replay_work) is within the limit; the meter below then charges what the checks
# actually do (the numbers' sizes are known only as the replay goes), and a file that needs
# more than WORK_SLACK times its limit is stopped: what is left is reported unsupported.

class WorkLimit(Exception):
    """The checks of a file need more work than the limit allows: what is left is unsupported (exit 3)."""


_METER = threading.local()


def _cost(count: int, bits_a: int = 0, bits_b: int = 0) -> float:
    """Work units of ``count`` multiply-adds of a ``bits_a``-bit by a ``bits_b``-bit integer (or, with
    ``bits_b`` 0, additions): one unit up to WORK_BITS bits each, then the larger size times the
    smaller's to the power 0.6 (Karatsuba: (b/WORK_BITS)^1.6 for two b-bit integers)."""
    a, b = max(1.0, bits_a / WORK_BITS), max(1.0, bits_b / WORK_BITS)
    return count * max(a, b) * min(a, b) ** 0.6


def _charge(units: float) -> None:
    """Pay for work about to be done; WorkLimit when the file's allowance is spent."""
    meter = getattr(_METER, "left", None)
    if meter is not None:
        meter[0] -= units
        if meter[0] < 0:
            raise WorkLimit(f"checking the file needs more than {meter[1]:.3g} work units ({WORK_SLACK} times the "
                            "total work limit): its numbers grow faster than estimated; raise --max-total-work to "
                            "check it")


@contextlib.contextmanager
def _metered(max_work: float | None) -> Any:
    """Charge the checks run inside to an allowance of WORK_SLACK * ``max_work`` units (None: unlimited)."""
    previous = getattr(_METER, "left", None)
    _METER.left = [math.inf, math.inf] if max_work is None else [WORK_SLACK * max_work, WORK_SLACK * max_work]
    try:
        yield _METER.left
    finally:
        _METER.left = previous


# --------------------------------------------------------------------------- the replay


class Model:
    """The configuration and its exact replay (docs/theory.md §1), layer by layer on demand."""

    def __init__(self, config: Any) -> None:
        def number(x: Any, where: str) -> Fraction:
            if isinstance(x, float):  # a JSON decimal in a hand-written file: its decimal text, as the suite reads it
                x = repr(x)
            try:
                return _number(x, where)
            except Rejected as error:
                raise BadInput(where, str(error).partition(": ")[2]) from None

        def matrix(x: Any, where: str) -> list:
            if not (isinstance(x, list) and len(x) == self.d and all(isinstance(r, list) and len(r) == self.d for r in x)):
                raise BadInput(where, f"expected a {self.d} x {self.d} matrix")
            return [[number(v, f"{where}[{r}][{c}]") for c, v in enumerate(row)] for r, row in enumerate(x)]

        if not isinstance(config, dict):
            raise BadInput("config", "expected a JSON object")
        tokens = config.get("tokens")
        if not (isinstance(tokens, list) and tokens and all(isinstance(t, list) and t for t in tokens)
                and len({len(t) for t in tokens}) == 1):
            raise BadInput("config.tokens", "expected a nonempty list of points of one dimension")
        self.n, self.d = len(tokens), len(tokens[0])
        self.unsupported = None if config.get("beta") is None else (
            "softmax attention (beta) is not implemented by the checker; no certificate can be re-derived")
        layer0 = [tuple(number(c, f"config.tokens[{i}][{r}]") for r, c in enumerate(t)) for i, t in enumerate(tokens)]
        identity = [[Fraction(int(r == c)) for c in range(self.d)] for r in range(self.d)]
        self.A = identity if config.get("A") is None else matrix(config["A"], "config.A")
        self.V = None if config.get("V") is None else matrix(config["V"], "config.V")
        self.alpha = None
        if self.V is None:
            self.alpha = number(config.get("alpha"), "config.alpha")
            if self.alpha <= 0:
                raise BadInput("config.alpha", f"expected alpha > 0, got {self.alpha}")
        else:
            # z' = (I + V)^{-1} (z + V m) (docs/theory.md §6): keep = (I + V)^{-1}, move = (I + V)^{-1} V.
            self.keep = _inverse([[identity[r][c] + self.V[r][c] for c in range(self.d)] for r in range(self.d)])
            if self.keep is None:
                raise BadInput("config.V", "I + V is singular, so the update is undefined")
            self.move = [[_dot(row, col) for col in zip(*self.V)] for row in self.keep]
        # D3 and D7 are proved for z' = (z + alpha m)/(1 + alpha), which V = c I (c > 0) is, with alpha = c.
        self.proved_model = self.V is None or (self.V[0][0] > 0 and all(
            self.V[r][c] == (self.V[0][0] if r == c else 0) for r in range(self.d) for c in range(self.d)))
        self.Asym = [[(self.A[r][c] + self.A[c][r]) / 2 for c in range(self.d)] for r in range(self.d)]
        self._layers = [layer0]
        self._attention: list = []
        self.bits = input_bits([x for z in layer0 for x in z] + [x for row in self.A for x in row]
                               + ([self.alpha] if self.alpha is not None else [])
                               + ([x for row in self.V for x in row] if self.V is not None else []))
        self.growth = replay_growth(self.alpha, self.V)
        self._A_scale = math.lcm(*(x.denominator for row in self.A for x in row))
        self._A_integer = [[int(x * self._A_scale) for x in row] for row in self.A]
        self._diagonals: dict[int, tuple[list, int]] = {}
        self._integers: dict[int, tuple[list, int]] = {}
        self._locks: dict[tuple, list] = {}
        self._Asym_integer: tuple[list, int] | None = None
        self._rows: tuple[int, Rows] | None = None
        self._facts: dict[tuple, Facts] = {}
        # The replay never goes past the run's last layer (set by the caller, checked against the
        # work limit before any checking): a certificate naming a later layer is rejected.
        self.last = 0

    def layer(self, k: int) -> list:
        _require(0 <= k <= self.last, lambda: f"layer {k} is outside the run's layers 0..{self.last}")
        while len(self._layers) <= k:
            previous = len(self._layers) - 1
            Z, C = self._layers[-1], self.attention(previous)
            N, D = self.integer_layer(previous)
            size = _bits(N)
            # The sums over every C_i, then one reduced fraction (a gcd) per coordinate.
            _charge(_cost(sum(map(len, C)) * self.d, size) + _cost(self.n * self.d, size, size))
            new = []
            for i, Ci in enumerate(C):
                # The mean over C_i from the layer's integer numerators: sum / (|C_i| D).
                total = [sum(col) for col in zip(*(N[j] for j in Ci))]
                members = len(Ci)
                if self.V is None:  # then alpha = p/q is set (checked > 0 on input)
                    alpha = cast(Fraction, self.alpha)
                    p, q = alpha.numerator, alpha.denominator
                    # z' = (z + alpha m)/(1 + alpha) = (q |C_i| N_i + p sum) / (|C_i| D (p + q))
                    scale = members * D * (p + q)
                    new.append(tuple(Fraction(q * members * x + p * t, scale) for x, t in zip(N[i], total)))
                else:  # then keep and move are set (I + V checked invertible on input)
                    keep, move = cast(list, self.keep), cast(list, self.move)
                    m = tuple(Fraction(t, members * D) for t in total)
                    new.append(tuple(a + b for a, b in zip(_matvec(keep, Z[i]), _matvec(move, m))))
            self._layers.append(new)
        return self._layers[k]

    def rows(self, k: int) -> "Rows":
        """Layer k's positions as :class:`Rows` (keyed by token), for exact combinations of them."""
        if self._rows is None or self._rows[0] != k:
            self._rows = (k, Rows(dict(enumerate(self.layer(k)))))
        return self._rows[1]

    def integer_layer(self, k: int) -> tuple[list[list[int]], int]:
        """(N, D): the positions of layer k as integer numerators over their common denominator D > 0."""
        if k not in self._integers:
            if len(self._integers) >= 8:
                self._integers.pop(next(iter(self._integers)))
            self._integers[k] = _integer_rows(self.layer(k))
        return self._integers[k]

    def facts(self, last: int, chain: "Chain | None" = None) -> "Facts":
        """What the replay through layer ``last`` says (fates, settled layer, leaders), with the run's
        verified closed-form ``chain`` if any, computed once."""
        key = (last, None if chain is None else json.dumps([chain.start, [sorted(s) for s in chain.sets],
                                                            [[_text(x) for x in p] for p in chain.limits]]))
        if key not in self._facts:
            self._facts[key] = Facts(self, last, chain)
        return self._facts[key]

    def norm(self, k: int, i: int) -> Fraction:
        """<A z_i^k, z_i^k>, the squared A-norm (D2)."""
        diagonal, scale = self._scored(k)
        return Fraction(diagonal[i], scale)

    def score(self, x: Point, y: Point) -> Fraction:
        """<A x, y> (docs/theory.md §1: C_i maximises <A z_i, z_j> over j)."""
        return _dot(_matvec(self.A, x), y)

    def scale(self, k: int) -> int:
        """The positive scale of layer k's integer scores: scale <A z_i, z_j> = <A_int N_i, N_j>."""
        return self._scored(k)[1]

    def _scored(self, k: int) -> tuple[list, int]:
        """(the diagonal <A_int N_i, N_i>, scale) of layer k; scoring a layer also records its attention sets.

        Over one common denominator D of layer k, scale = D^2 a (a the denominator of A): a
        positive scale changes no comparison, and integers make this the fast part of the
        replay. Each row of scores is reduced to its attention set and its diagonal entry as it is
        computed (memory n per layer, not n^2); identical sets are kept once.
        """
        if k not in self._diagonals:
            N, D = self.integer_layer(k)
            size = _bits(N)
            a_bits = _bits(self._A_integer)
            _charge(_cost(self.n * self.d * self.d, size, a_bits)
                    + _cost(self.n * self.n * (self.d + SCORE_OVERHEAD), size + a_bits, size))
            sets: list[frozenset] = []
            diagonal: list[int] = []
            interned: dict[frozenset, frozenset] = {}
            for i, row in enumerate(N):
                Az = [sum(a * x for a, x in zip(A_row, row)) for A_row in self._A_integer]
                values = [sum(a * y for a, y in zip(Az, other)) for other in N]
                top = max(values)
                members = frozenset(j for j, v in enumerate(values) if v == top)
                sets.append(interned.setdefault(members, members))
                diagonal.append(values[i])
            if len(self._attention) == k:
                self._attention.append(sets)
            if len(self._diagonals) >= 8:
                self._diagonals.pop(next(iter(self._diagonals)))
            self._diagonals[k] = (diagonal, D * D * self._A_scale)
        return self._diagonals[k]

    def attention(self, k: int) -> list:
        while len(self._attention) <= k:
            self._scored(len(self._attention))
        return self._attention[k]


def _inverse(M: list) -> list | None:
    """Gauss-Jordan inverse over the rationals; None when singular."""
    d = len(M)
    rows = [list(row) + [Fraction(int(r == c)) for c in range(d)] for r, row in enumerate(M)]
    for p in range(d):
        pivot = next((r for r in range(p, d) if rows[r][p] != 0), None)
        if pivot is None:
            return None
        rows[p], rows[pivot] = rows[pivot], rows[p]
        rows[p] = [x / rows[p][p] for x in rows[p]]
        for r in range(d):
            if r != p and rows[r][p] != 0:
                rows[r] = [a - rows[r][p] * b for a, b in zip(rows[r], rows[p])]
    return [row[d:] for row in rows]


def _positive_definite(S: list) -> bool:
    """Symmetric S is positive definite iff elimination without pivoting meets only positive pivots."""
    S = [list(row) for row in S]
    for p in range(len(S)):
        if S[p][p] <= 0:
            return False
        for r in range(p + 1, len(S)):
            f = S[r][p] / S[p][p]
            S[r] = [a - f * b for a, b in zip(S[r], S[p])]
    return True


# --------------------------------------------------------------------------- fates (docs/theory.md D7)


class Fate(NamedTuple):
    kind: str  # leader | fixed | locked (D7), or path (a verified closed-form chain, D9)
    layer: int
    set: frozenset
    limit: Point


class Chain(NamedTuple):
    """A verified, certified closed-form chain (docs/theory.md D9) of a run: what it proves about every token."""

    start: int                # the layer its first segment starts from (a replayed layer)
    sets: list                # the final segment's sets: C_j for every layer from the final segment on
    limits: list              # the constant terms of the final paths: every token's limit
    leaders: dict             # token -> first layer with C_j = {j}, from the chain's start on


def _is_leader(token: int, f: Fate) -> bool:
    """A D7 leader, or a token whose verified path ends with C_j = {j} (a leader from some layer on, D3)."""
    return f.kind == "leader" or (f.kind == "path" and f.set == {token})


def _fixed_failure(m: Model, j: int, k: int, G: frozenset, fixed: set) -> str | None:
    """Why D7 (b) does not hold for token j at layer k with G (None when it holds)."""
    # G empty would need C_j = {j} and z_j = mean of nothing; j in G would give j two fates.
    C = m.attention(k)[j]
    if C != G | {j}:
        return f"C_{j} at layer {k} is {_show(C)}, not G + {{{j}}} = {_show(G | {j})}"
    if not G <= fixed:
        return f"tokens {_show(G - fixed)} of G are not established as leader/fixed before"
    if not _at_mean(m, j, k, G):
        return f"z_{j} at layer {k} is {_show(m.layer(k)[j])}, not the mean of G, {_show(_mean_of(m, k, G))}"
    return None


def _at_mean(m: Model, j: int, k: int, G: frozenset) -> bool:
    """z_j = mean of z_g over G at layer k, in the layer's integer numerators: sum_G N_g = |G| N_j."""
    N, _ = m.integer_layer(k)
    _charge(_cost(len(G) * m.d, _bits(N)))
    return [sum(col) for col in zip(*(N[g] for g in G))] == [len(G) * x for x in N[j]]


def _mean_of(m: Model, k: int, F: frozenset) -> Point:
    """The mean of the positions of the tokens of F at layer k (exact), from the integer numerators."""
    N, D = m.integer_layer(k)
    _charge(_cost(len(F) * m.d, _bits(N)) + _cost(m.d, _bits(N), _bits(N)))
    return tuple(Fraction(sum(col), len(F) * D) for col in zip(*(N[v] for v in F)))


def _lock_values(m: Model, k: int, F: frozenset) -> list[int]:
    """[sum_{v in F} S_vw for every w]: |F| <A m_F, z_w> on the scale m.scale(k), computed as
    <A_int sum_F N_v, N_w> (the same integers, with d products per token instead of |F|)."""
    key = (k, F)
    if key not in m._locks:
        N, _ = m.integer_layer(k)
        size, a_bits = _bits(N), _bits(m._A_integer)
        _charge(_cost(len(F) * m.d, size) + _cost(m.d * m.d, size, a_bits) + _cost(m.n * m.d, size + a_bits, size))
        total = [sum(col) for col in zip(*(N[v] for v in F))]
        direction = [sum(a * x for a, x in zip(row, total)) for row in m._A_integer]
        if len(m._locks) >= 256:
            m._locks.pop(next(iter(m._locks)))
        m._locks[key] = [sum(a * y for a, y in zip(direction, other)) for other in N]
    return m._locks[key]


def _locked_failure(m: Model, i: int, k: int, F: frozenset, fixed: set) -> str | None:
    """Why the D7 locking condition does not hold for token i at layer k with F (None when it holds)."""
    C = m.attention(k)[i]
    if C != F:
        return f"C_{i} at layer {k} is {_show(C)}, not F = {_show(F)}"
    # i in F is caught here: i has no leader/fixed fate before its own entry.
    if not F <= fixed:
        return f"tokens {_show(F - fixed)} of F are not established as leader/fixed before"
    # <A m_F, z_w> = (1/|F|) sum_{v in F} <A z_v, z_w>: integer column sums of the score matrix.
    scale = m.scale(k)
    members = sorted(F)
    value = _lock_values(m, k, F)
    on_F = {v: value[v] for v in members}
    top = max(on_F.values())
    exact = lambda x: _q(Fraction(x, scale * len(members)))  # noqa: E731
    if min(on_F.values()) != top:
        shown = ", ".join(f"{v}: {exact(s)}" for v, s in list(on_F.items())[:8])
        return f"<A m_F, v> differs on F at layer {k}: {shown}"
    for w in range(m.n):
        if value[w] > top:
            return f"token {w} scores {exact(value[w])} > {exact(top)} = <A m_F, v> on F at layer {k}"
    return None


def _check_fates(raw: Any, m: Model, chain: Chain | None = None) -> dict[int, Fate]:
    """Verify a fates list (establishment order, one entry per token) and return it by token.

    A "path" fate (docs/theory.md D9) is accepted only with the run's verified certified ``chain``: its
    layer is the chain's first layer, its set the final segment's set, its limit the final path's
    constant term."""
    _require(isinstance(raw, list) and len(raw) == m.n, lambda: f"fates: expected one entry per token ({m.n})")
    fates: dict[int, Fate] = {}
    previous = 0
    for p, e in enumerate(raw):
        w = f"fates[{p}]"
        i = _int(_get(e, "token", w), f"{w}.token", high=m.n - 1)
        _require(i not in fates, lambda: f"{w}: token {i} has two fates")
        kind = _get(e, "kind", w)
        _require(kind in ("leader", "fixed", "locked", "path"), lambda: f"{w}.kind: {kind!r} is not leader, fixed, locked or path")
        k = _int(_get(e, "layer", w), f"{w}.layer")
        _require(k >= previous, lambda: f"{w}: layer {k} after layer {previous}, not in establishment order")
        previous = k
        S = _index_set(_get(e, "set", w), m.n, f"{w}.set")
        limit = _point(_get(e, "limit", w), m.d, f"{w}.limit")
        if kind == "path":
            where = f"{w} (token {i}, path from layer {k})"
            _require(chain is not None, lambda: f"{where}: no verified certified closed-form chain in the run supports it")
            chain = cast(Chain, chain)
            _require(k == chain.start, lambda: f"{where}: the run's chain starts at layer {chain.start}")
            _require(S == chain.sets[i], lambda: f"{where}: set {_show(S)} is not the final segment's {_show(chain.sets[i])}")
            _require(limit == chain.limits[i], lambda: f"{where}: limit is {_show(limit)}, the chain's is {_show(chain.limits[i])}")
            fates[i] = Fate(kind, k, S, limit)
            continue
        Z = m.layer(k)
        # Entries are sorted by layer, so everything earlier in the list has layer <= k.
        fixed_now = {t for t, f in fates.items() if f.kind in ("leader", "fixed")}
        fixed_before = {t for t, f in fates.items() if f.kind in ("leader", "fixed") and f.layer <= k - 1}
        where = f"{w} (token {i}, {kind} at layer {k})"
        if kind == "leader":
            _require(S == {i}, lambda: f"{where}: set must be [{i}]")
            C = m.attention(k)[i]
            _require(C == {i}, lambda: f"{where}: C_{i} at layer {k} is {_show(C)}, not {{{i}}}")
            _require(k == 0 or m.attention(k - 1)[i] != {i}, lambda: f"{where}: not the first layer, C_{i} = {{{i}}} at layer {k - 1}")
            expected = Z[i]
        elif kind == "fixed":
            failure = _fixed_failure(m, i, k, S, fixed_now)
            _require(failure is None, lambda: f"{where}: {failure}")
            _require(k == 0 or _fixed_failure(m, i, k - 1, m.attention(k - 1)[i] - {i}, fixed_before) is not None,
                     f"{where}: not the first layer, D7 (b) holds already at layer {k - 1}")
            expected = Z[i]
        else:
            failure = _locked_failure(m, i, k, S, fixed_now)
            _require(failure is None, lambda: f"{where}: {failure}")
            _require(k == 0 or _locked_failure(m, i, k - 1, m.attention(k - 1)[i], fixed_before) is not None,
                     f"{where}: not the first layer, the locking condition holds already at layer {k - 1}")
            expected = _mean_of(m, k, S)
            value = _number(_get(e, "value", w), f"{w}.value")
            top = _lock_value(m, k, S)
            _require(value == top, lambda: f"{where}: value is {_q(value)}, but <A m_F, z_v> = {_q(top)} on F")
        _require(limit == expected, lambda: f"{where}: limit is {_show(limit)}, the replay gives {_show(expected)}")
        fates[i] = Fate(kind, k, S, limit)
    return fates


def _lock_value(m: Model, k: int, F: frozenset) -> Fraction:
    """<A m_F, z_v> for v in F at layer k (the common score a locked entry states)."""
    return Fraction(_lock_values(m, k, F)[min(F)], m.scale(k) * len(F))


def _fates_of(cert: dict, ctx: "Context", *, settled: bool = True) -> dict[int, Fate]:
    """The certificate's verified fates; with ``settled``, its settled_layer = the last fate layer.

    T1..T4 usually carry the same list: it is verified once per run (a rejection is not cached).
    """
    raw = _get(cert, "fates", "certificate")
    carried = cert.get("closed_form")
    _require(not _rests_on_chain({"fates": raw}) or (isinstance(carried, dict) and carried.get("status") == "certified"),
             "fates: a path fate (D9) in a certificate that does not carry the certified closed-form chain it rests on")
    key = json.dumps(raw, sort_keys=True, default=str)
    fates = ctx.verified_fates.get(key)
    if fates is None:
        fates = ctx.verified_fates[key] = _check_fates(raw, ctx.model, ctx.chain)
    if settled:
        last = max(f.layer for f in fates.values())
        given = _get(cert, "settled_layer", "certificate")
        _require(given == last and not isinstance(given, bool), lambda: f"settled_layer is {given!r}, the fates settle at {last}")
        ctx.same("settled_layer", given)
    return fates


def _leaders(fates: dict[int, Fate]) -> dict[int, Point]:
    return {t: f.limit for t, f in fates.items() if _is_leader(t, f)}


def _convex_combination(raw: Any, points: dict, target: Point, m: Model, where: str,
                        rows: "Rows | None" = None) -> None:
    """``raw`` = {"u": lambda_u} over keys of ``points``: lambda >= 0, sum 1, sum lambda_u points[u] = target.

    ``rows``: ``points`` (or more) as integer rows over one denominator, when the caller has them."""
    lam = _weights(raw, m.n, where)
    _require(set(lam) <= set(points), lambda: f"{where}: keys {_show(set(lam) - set(points))} are not allowed here")
    _require(all(v >= 0 for v in lam.values()), lambda: f"{where}: a multiplier is negative")
    _require(sum(lam.values()) == 1, lambda: f"{where}: multipliers sum to {_q(sum(lam.values()))}, not 1")
    rows = rows or Rows({u: points[u] for u in lam})
    combo = rows.combination(lam)
    _require(combo == target, f"{where}: sum lambda_u u = {_show(combo)}, not {_show(target)}")


class Rows:
    """Points keyed by token as integer rows over one common denominator: inner products with a
    direction and convex combinations in integer arithmetic (paid for with _charge)."""

    def __init__(self, points: dict) -> None:
        self.keys = list(points)
        rows, self.denominator = _integer_rows([points[u] for u in self.keys])
        self.rows = dict(zip(self.keys, rows))
        self.d = len(rows[0]) if rows else 0
        self.size = _bits(rows)

    def products(self, direction: Point) -> tuple[dict, int]:
        """({u: <c, u> * scale}, scale) for every point, with scale > 0 (c scaled to integers)."""
        c, c_scale = _integer_rows([direction])
        _charge(_cost(len(self.keys) * self.d, self.size, _bits(c)))
        return ({u: sum(a * b for a, b in zip(c[0], row)) for u, row in self.rows.items()},
                c_scale * self.denominator)

    def combination(self, weights: dict) -> Point:
        """sum_u weights[u] * point_u, exactly."""
        if not weights:
            return tuple(Fraction(0) for _ in range(self.d))
        w, w_scale = _integer_rows([[weights[u] for u in weights]])
        _charge(_cost(len(weights) * self.d, self.size, _bits(w)) + _cost(self.d, self.size, self.size))
        return tuple(Fraction(sum(x * self.rows[u][r] for x, u in zip(w[0], weights)), w_scale * self.denominator)
                     for r in range(self.d))


# --------------------------------------------------------------------------- one checker per claim


class Context:
    """The replay plus what the enclosing report says (last_layer, settled_layer), to compare with."""

    def __init__(self, model: Model, *, last_layer: Any = None, settled_layer: Any = None,
                 chain: Chain | None = None, unverified_chain: str | None = None) -> None:
        self.model, self.report = model, {"last_layer": last_layer, "settled_layer": settled_layer}
        self.verified_fates: dict[str, dict[int, Fate]] = {}
        # The run's certified closed-form chain (docs/theory.md D9), if any: verified, or, with
        # ``unverified_chain`` (why it is beyond the checker's limits), only what it states.
        self.chain = chain
        self.unverified_chain = unverified_chain

    def same(self, key: str, value: Any) -> None:
        expected = self.report[key]
        _require(expected is None or value == expected, lambda: f"{key} is {value!r}, the report says {expected!r}")


def _last_layer(cert: dict, ctx: Context) -> int:
    last = _int(_get(cert, "last_layer", "certificate"), "last_layer")
    ctx.same("last_layer", last)
    return last


def check_T0(cert: dict, ctx: Context) -> None:
    m = ctx.model
    k = _int(_get(cert, "layer", "certificate"), "layer")
    leaders = _index_set(_get(cert, "leaders", "certificate"), m.n, "leaders")
    actual = {i for i in range(m.n) if m.attention(k)[i] == {i}}
    _require(bool(actual) and leaders == actual, lambda: f"leaders at layer {k} are {_show(actual)}, not {_show(leaders)}")
    for earlier in range(k):
        lead = [i for i in range(m.n) if m.attention(earlier)[i] == {i}]
        _require(not lead, lambda: f"not the first layer with a leader: token {lead[:1]} leads at layer {earlier}")


def check_T1(cert: dict, ctx: Context, *, needs_fates: bool = True) -> None:
    m = ctx.model
    last = _last_layer(cert, ctx)
    entries = _get(cert, "leaders", "certificate")
    _require(isinstance(entries, list), "leaders: expected a list")
    listed: dict[int, int] = {}
    for p, e in enumerate(entries):
        w = f"leaders[{p}]"
        i = _int(_get(e, "token", w), f"{w}.token", high=m.n - 1)
        f = _int(_get(e, "first_layer", w), f"{w}.first_layer", high=last)
        position = _point(_get(e, "position", w), m.d, f"{w}.position")
        _require(i not in listed, lambda: f"{w}: token {i} listed twice")
        listed[i] = f
        _require(f == 0 or m.attention(f - 1)[i] != {i}, lambda: f"{w}: token {i} leads already at layer {f - 1}")
        for k in range(f, last + 1):
            _require(m.attention(k)[i] == {i}, lambda: f"{w}: C_{i} at layer {k} is {_show(m.attention(k)[i])}, not {{{i}}}")
            _require(m.layer(k)[i] == position,
                     lambda: f"{w}: z_{i} at layer {k} is {_show(m.layer(k)[i])}, not {_show(position)}")
    leading = {i for k in range(last + 1) for i in range(m.n) if m.attention(k)[i] == {i}}
    _require(set(listed) == leading, lambda: f"tokens leading by layer {last} are {_show(leading)}, listed {_show(set(listed))}")
    if needs_fates or "fates" in cert:
        fates = _fates_of(cert, ctx)
        leader_fates = {t: f.layer for t, f in fates.items() if f.kind == "leader"}
        if ctx.chain is not None:
            # A path fate's leader leads from the chain's layer at which C_j = {j}; listed when replayed.
            leader_fates.update({t: ctx.chain.leaders[t] for t, f in fates.items() if f.kind == "path"
                                 and _is_leader(t, f) and ctx.chain.leaders.get(t, last + 1) <= last})
        _require(leader_fates == listed, lambda: f"leaders {listed} differ from the leader fates {leader_fates}")


def check_D3(cert: dict, ctx: Context) -> None:
    check_T1(cert, ctx, needs_fates=False)


def check_T2(cert: dict, ctx: Context) -> None:
    m = ctx.model
    leaders = _leaders(_fates_of(cert, ctx))
    vertices = _get(cert, "vertices", "certificate")
    _require(isinstance(vertices, list), "vertices: expected a list")
    seen = set()
    rows = Rows(leaders)
    for p, e in enumerate(vertices):
        w = f"vertices[{p}]"
        i = _int(_get(e, "token", w), f"{w}.token", high=m.n - 1)
        _require(i in leaders and i not in seen, lambda: f"{w}: token {i} is not a leader fate, or listed twice")
        seen.add(i)
        limit = _point(_get(e, "limit", w), m.d, f"{w}.limit")
        _require(limit == leaders[i], lambda: f"{w}: limit {_show(limit)} is not the fate's {_show(leaders[i])}")
        c = _point(_get(e, "direction", w), m.d, f"{w}.direction")
        values, scale = rows.products(c)
        for u in leaders:
            _require(u == i or values[i] > values[u],
                     lambda: f"{w}: <c, v> = {_q(Fraction(values[i], scale))} is not > <c, u> = "
                             f"{_q(Fraction(values[u], scale))} for leader {u}")
    _require(seen == set(leaders), lambda: f"vertices cover {_show(seen)}, the leaders are {_show(set(leaders))}")


def check_T3(cert: dict, ctx: Context) -> None:
    m = ctx.model
    fates = _fates_of(cert, ctx)
    leaders = _leaders(fates)
    boundary = _get(cert, "boundary", "certificate")
    _require(isinstance(boundary, list), "boundary: expected a list")
    seen = set()
    rows = Rows(leaders)
    for p, e in enumerate(boundary):
        w = f"boundary[{p}]"
        i = _int(_get(e, "token", w), f"{w}.token", high=m.n - 1)
        _require(i not in leaders and i not in seen, lambda: f"{w}: token {i} is a leader or listed twice")
        seen.add(i)
        limit = _point(_get(e, "limit", w), m.d, f"{w}.limit")
        _require(limit == fates[i].limit, lambda: f"{w}: limit {_show(limit)} is not the fate's {_show(fates[i].limit)}")
        c = _point(_get(e, "direction", w), m.d, f"{w}.direction")
        _require(any(c), lambda: f"{w}: the direction is zero")
        value = _number(_get(e, "value", w), f"{w}.value")
        _require(value == _dot(c, limit), lambda: f"{w}: value {_q(value)} is not <c, limit> = {_q(_dot(c, limit))}")
        values, scale = rows.products(c)
        for u in leaders:
            # <c, u> <= value, on the integer scale: values[u] / scale <= p / q.
            _require(values[u] * value.denominator <= value.numerator * scale,
                     lambda: f"{w}: leader {u} has <c, u> = {_q(Fraction(values[u], scale))} > {_q(value)}")
        _convex_combination(_get(e, "multipliers", w), leaders, limit, m, f"{w}.multipliers", rows)
    _require(seen == set(fates) - set(leaders), lambda: f"boundary covers {_show(seen)}, not every non-leader token")


def check_T4(cert: dict, ctx: Context) -> None:
    m = ctx.model
    fates = _fates_of(cert, ctx, settled=False)
    leaders = _leaders(fates)
    vertex_limits = set(leaders.values())
    non_vertex: dict[Point, list] = {}
    for t in sorted(fates):
        if fates[t].limit not in vertex_limits:
            non_vertex.setdefault(fates[t].limit, []).append(t)
    vacuous = _get(cert, "vacuous", "certificate")
    projections = _get(cert, "projections", "certificate")
    _require(vacuous is (not non_vertex), lambda: f"vacuous is {vacuous!r}, but there are {len(non_vertex)} non-vertex limits")
    _require(isinstance(projections, list) and len(projections) == len(non_vertex),
             f"projections: expected one entry per non-vertex limit ({len(non_vertex)})")
    if non_vertex:
        _require(_positive_definite(m.Asym), "(A + A^T)/2 is not positive definite: KKT does not prove an A-projection")
    seen = set()
    rows = Rows(leaders)
    for p, e in enumerate(projections):
        w = f"projections[{p}]"
        point = _point(_get(e, "limit", w), m.d, f"{w}.limit")
        _require(point in non_vertex and point not in seen, lambda: f"{w}: {_show(point)} is not a (new) non-vertex limit")
        seen.add(point)
        tokens = non_vertex[point]
        _require(_index_set(_get(e, "tokens", w), m.n, f"{w}.tokens") == set(tokens), lambda: f"{w}: tokens with this limit are {tokens}")
        first = fates[tokens[0]]
        _require(_get(e, "fate", w) == first.kind and _int(_get(e, "layer", w), f"{w}.layer") == first.layer
                 and _index_set(_get(e, "set", w), m.n, f"{w}.set") == first.set,
                 lambda: f"{w}: fate/layer/set do not copy token {tokens[0]}'s fate ({first.kind}, {first.layer}, "
                         f"{_show(first.set)})")
        c = _point(_get(e, "direction", w), m.d, f"{w}.direction")
        top = _number(_get(e, "face_value", w), f"{w}.face_value")
        face = _index_set(_get(e, "face", w), m.n, f"{w}.face")
        values, scale = rows.products(c)
        exposed = {u for u in leaders if values[u] * top.denominator == top.numerator * scale}
        _require(face == exposed, lambda: f"{w}: leaders with <c, u> = {_q(top)} are {_show(exposed)}, not face {_show(face)}")
        above = [u for u in leaders if values[u] * top.denominator > top.numerator * scale]
        _require(not above, lambda: f"{w}: leader {above[:1]} has <c, u> > face_value {_q(top)}")
        _convex_combination(_get(e, "multipliers", w), {u: leaders[u] for u in face}, point, m, f"{w}.multipliers", rows)
        kkt = _weights(_get(e, "kkt", w), m.n, f"{w}.kkt")
        _require(set(kkt) == face, lambda: f"{w}.kkt: keys must be the face {_show(face)}")
        kkt_values = _kkt_values(m, rows, point, face)
        for u in sorted(face):
            exact = kkt_values[u]
            _require(kkt[u] == exact, lambda: f"{w}.kkt[{u}] is {_q(kkt[u])}, <Asym p, u - p> = {_q(exact)}")
            _require(exact >= 0, lambda: f"{w}.kkt[{u}] = {_q(exact)} < 0: p is not the A-projection of 0 onto the face")


def _kkt_values(m: Model, rows: Rows, point: Point, face: frozenset) -> dict[int, Fraction]:
    """{u: <Asym p, u - p>} for the leaders u of the face, in integer arithmetic."""
    if m._Asym_integer is None:
        m._Asym_integer = _integer_rows(m.Asym)
    S, s_scale = m._Asym_integer
    (P,), p_scale = _integer_rows([point])
    U, u_scale = rows.rows, rows.denominator
    _charge(_cost(m.d * m.d, _bits(S), _bits(P)) + _cost(len(face) * m.d, rows.size + _bits(P), _bits(S) + _bits(P)))
    Ap = [sum(a * x for a, x in zip(row, P)) for row in S]  # s_scale p_scale Asym p
    # u - p = (U_u p_scale - P u_scale) / (u_scale p_scale)
    return {u: Fraction(sum(a * (x * p_scale - y * u_scale) for a, x, y in zip(Ap, U[u], P)),
                        s_scale * p_scale * u_scale * p_scale) for u in face}


def check_D1(cert: dict, ctx: Context) -> None:
    m = ctx.model
    first = _int(_get(cert, "first_layer", "certificate"), "first_layer")
    last = _last_layer(cert, ctx)
    weights = _get(cert, "weights", "certificate")
    _require(isinstance(weights, list) and len(weights) == last - first,
             f"weights: expected {max(last - first, 0)} layers ({first}..{last - 1})")
    for offset, rows in enumerate(weights):
        k = first + offset
        _require(isinstance(rows, list) and len(rows) == m.n, lambda: f"weights[{offset}]: expected one entry per token")
        after = m.layer(k + 1)
        layer_rows = m.rows(k)
        for i, pairs in enumerate(rows):
            w = f"weights[{offset}][{i}] (layer {k} -> {k + 1})"
            _require(isinstance(pairs, list) and all(isinstance(q, list) and len(q) == 2 for q in pairs),
                     f"{w}: expected [token, weight] pairs")
            _charge(_cost(2 * len(pairs)))
            lam: dict[int, Fraction] = {}
            for j, v in pairs:
                j = _int(j, w, high=m.n - 1)
                weight = _number(v, w)
                lam[j] = lam.get(j, Fraction(0)) + weight
                _require(weight >= 0, lambda: f"{w}: weight of token {j} is negative")
            _require(sum(lam.values()) == 1, lambda: f"{w}: weights sum to {_q(sum(lam.values()))}, not 1")
            combo = layer_rows.combination(lam)
            _require(combo == after[i], lambda: f"{w}: sum w z_j = {_show(combo)}, z_{i} at layer {k + 1} is {_show(after[i])}")


def check_D2(cert: dict, ctx: Context) -> None:
    m = ctx.model
    last = _last_layer(cert, ctx)
    norms = _get(cert, "norms", "certificate")
    _require(isinstance(norms, list) and len(norms) == last + 1, lambda: f"norms: expected layers 0..{last}")
    for k, row in enumerate(norms):
        _require(isinstance(row, list) and len(row) == m.n, lambda: f"norms[{k}]: expected one entry per token")
        for i, raw in enumerate(row):
            exact = m.norm(k, i)
            _require(_number(raw, f"norms[{k}][{i}]") == exact, lambda: f"norms[{k}][{i}] is {str(raw)[:100]}, <A z, z> = {_q(exact)}")
            _require(k == 0 or exact >= m.norm(k - 1, i),
                     f"token {i}: squared A-norm decreases from layer {k - 1} to {k}")


def check_replay(cert: dict, ctx: Context) -> None:
    m = ctx.model
    last = _last_layer(cert, ctx)
    final = _get(cert, "final_positions", "certificate")
    _require(isinstance(final, list) and len(final) == m.n, "final_positions: expected one point per token")
    for i, raw in enumerate(final):
        p = _point(raw, m.d, f"final_positions[{i}]")
        _require(p == m.layer(last)[i], lambda: f"final_positions[{i}] is {_show(p)}, the replay gives {_show(m.layer(last)[i])}")


# The checker's own table of routines, one per claim whose certificates it re-verifies. It is
# kept here, not read from the suite's claim registry (verify.claims.registry), so that the checker
# imports nothing from the package; a meta test compares the two. Every run decides all of
# these (docs/theory.md §2 claims, §3 facts, and the suite's one-step replay). A claim the suite
# emits without a routine here is reported *unsupported*, never verified.
CHECKS: dict[str, Callable[[dict, Context], None]] = {
    "T0": check_T0, "T1": check_T1, "T2": check_T2, "T3": check_T3, "T4": check_T4,
    "D1": check_D1, "D2": check_D2, "D3": check_D3, "replay": check_replay}


def _check_layer_positions(cert: dict, m: Model) -> None:
    raw = cert.get("layer_positions")
    if raw is None:
        return
    _require(isinstance(raw, dict), "layer_positions: expected an object keyed by layer")
    for key, points in raw.items():
        k = _key_index(key)
        _require(k is not None, lambda: f"layer_positions: bad layer key {str(key)[:20]!r}")
        k = _int(k, "layer_positions", high=m.last)
        _require(isinstance(points, list) and len(points) == m.n, lambda: f"layer_positions[{key}]: expected one point per token")
        for i, raw_point in enumerate(points):
            p = _point(raw_point, m.d, f"layer_positions[{key}][{i}]")
            _require(p == m.layer(k)[i], lambda: f"layer_positions[{key}][{i}] is {_show(p)}, the replay gives {_show(m.layer(k)[i])}")


# --------------------------------------------------------------------------- closed-form chains (docs/theory.md D9)
#
# A chain (format hardmax-verify/closed-form-v1) is a list of segments. For segment s, starting at
# layer k_s with sets F_j and paths zhat_j(t) (exponential polynomials, sums of c t^a b^t), it is
# verified exactly:
# (i)   zhat_j(0) is the replay's position of token j at the chain's first layer for s = 0, and the
#       previous segment's zhat_j(until) later, with k_s = k_(s-1) + until;
# (ii)  zhat_j(t+1) = r zhat_j(t) + gamma mean_{v in F_j} zhat_v(t) as an identity: both sides
#       expanded into coefficients of t^a b^t ((t+1)^a by the binomial theorem) and compared (these
#       functions are linearly independent on the integers t >= 0);
# (iii) with s_jv(t) = <A zhat_j(t), zhat_v(t)>: s_jv - s_jv' vanishes for v, v' in F_j, and
#       s_jv - s_jw > 0 for w outside F_j, at every integer t in [0, until), or every t >= 0 for the
#       last segment of a certified chain.
# Signs for every t >= 0 use a threshold computed here, never read from the chain: with c t^a b^t
# the leading term (largest b, then largest a) and R_i(t) = |c_i/c| t^(a_i-a) (b_i/b)^t for every
# other term whose coefficient has the sign opposite to c, each R_i is nonincreasing for
# t >= t_i = max(1, ceil((a_i - a)/(1 - b_i/b))), so from the first T in t_0, 2 t_0, 4 t_0, ...
# with sum R_i(T) < 1 on, f has the sign of c. Below T every t is evaluated exactly. A tie that is
# not identical is nonzero somewhere among any M consecutive integers (M = sum over distinct b of
# 1 + highest power), which bounds that work. Numbers of a chain may be longer than int() reads
# from text (positions after a jump of t layers have about t log10(1 + 1/alpha) digits): they are
# read here in chunks, up to MAX_CHAIN_DIGITS; every other number of a file keeps MAX_DIGITS.

CLOSED_FORM_FORMAT = "hardmax-verify/closed-form-v1"
# MAX_CHAIN_THRESHOLD (limits, above) is the largest t the checker scans a sign up to or evaluates a path
# at (a sign threshold, a segment's `until`); a chain that needs more is not checkable here: neither
# verified nor rejected.
_CF_CHUNK = 4000
_CF_RATIONAL = re.compile(r"\A-?[0-9]+(/[0-9]+)?\Z", re.ASCII)


class TooExpensive(Exception):
    """A chain needs a scan or an evaluation beyond :data:`MAX_CHAIN_THRESHOLD`: neither verified nor rejected.

    A limit of this checker, not a fault of the chain: what rests on the chain is *unsupported*
    (exit status 3), never rejected. Raised only after every other condition the checker can
    reach has held, so a chain that is also wrong somewhere it can check is rejected instead.
    """


def _cf_digits(text):
    """int(text) for a string of ASCII digits of any length (int() refuses more than ~4300 digits).

    Divide and conquer (high half times a power of ten plus the low half), so that a number of
    MAX_CHAIN_DIGITS digits costs a few products of its size, not a pass per chunk (quadratic)."""
    if len(text) <= _CF_CHUNK:
        return int(text)
    low = len(text) // 2
    return _cf_digits(text[:-low]) * _power_of_ten(low) + _cf_digits(text[-low:])


_POWERS_OF_TEN: dict[int, int] = {}


def _power_of_ten(k: int) -> int:
    if k not in _POWERS_OF_TEN:
        if len(_POWERS_OF_TEN) >= 64:
            _POWERS_OF_TEN.clear()
        _POWERS_OF_TEN[k] = 10 ** k
    return _POWERS_OF_TEN[k]


def _cf_number(value, where):
    if isinstance(value, bool):
        raise Rejected(f"{where}: expected a rational, got a boolean")
    if isinstance(value, int):
        return Fraction(value)
    if not isinstance(value, str) or len(value) > MAX_CHAIN_DIGITS or not _CF_RATIONAL.match(value):
        raise Rejected(f"{where}: expected a rational 'p/q', got {str(value)[:40]!r}")
    numerator, _, denominator = value.partition("/")
    sign = -1 if numerator.startswith("-") else 1
    bits = int(len(value) * 3.33) + 1
    _charge(_cost(2, bits, bits) + _gcd_cost(1, bits))  # the digits' conversion, then the reduction
    denominator = _cf_digits(denominator) if denominator else 1
    if denominator == 0:
        raise Rejected(f"{where}: zero denominator")
    return Fraction(sign * _cf_digits(numerator.lstrip("-")), denominator)


def _gcd_cost(count: int, bits: int) -> float:
    """Work units of ``count`` reductions of fractions of ``bits``-bit integers (gcd: quadratic in the size)."""
    return count * max(1.0, bits / WORK_BITS) ** 2


def _cf_bits(paths) -> int:
    """The largest bit size among the bases and coefficients of exponential polynomials."""
    return max((max(x.numerator.bit_length(), x.denominator.bit_length())
                for path in paths for (base, _), c in path.items() for x in (base, *c)), default=1)


def _cf_jordan_problem(paths, n) -> str | None:
    """Why ``paths`` cannot satisfy the update rule of n tokens, by the size of their terms (None: they may).

    The rule zhat(t+1) = M zhat(t) (M the n x n matrix r I + gamma W of the segment's sets) is a
    linear recurrence: by coordinate and base b, the coefficient polynomials q satisfy
    b q(t+1) = M q(t), so a term t^a b^t with a nonzero coefficient needs a Jordan chain of M of
    length a + 1 at the eigenvalue b. Over all bases, sum (1 + highest power) <= n. A chain that
    states more is rejected before any term is expanded (this bounds every power, and the number
    of terms of a path, by n).
    """
    highest: dict = {}
    for path in paths:
        for base, power in path:
            highest[base] = max(highest.get(base, 0), power)
    needed = sum(1 + a for a in highest.values())
    if needed > n:
        return (f"its terms need {needed} independent solutions of the update rule (sum over the bases of 1 + the "
                f"highest power), but {n} tokens have at most {n} (D9: powers below the Jordan chains of the rule)")
    return None


def _cf_count(value, where, low):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise Rejected(f"{where}: expected an integer >= {low}, got {value!r}")
    return value


def _cf_read_path(data, d, where):
    """{(base, power): [coefficient vector]} with zero vectors dropped and equal keys summed."""
    if not isinstance(data, list):
        raise Rejected(f"{where}: expected a list of terms")
    path = {}
    for i, term in enumerate(data):
        here = f"{where}[{i}]"
        if not isinstance(term, dict):
            raise Rejected(f"{here}: expected an object")
        base = _cf_number(term.get("base"), here + ".base")
        if base <= 0 or base > 1:
            raise Rejected(f"{here}.base: must satisfy 0 < base <= 1, got {_q(base)}")
        power = _cf_count(term.get("power"), here + ".power", 0)
        vector = term.get("coefficient")
        if not isinstance(vector, list) or len(vector) != d:
            raise Rejected(f"{here}.coefficient: expected {d} numbers")
        coefficient = [_cf_number(x, f"{here}.coefficient[{c}]") for c, x in enumerate(vector)]
        old = path.get((base, power), [Fraction(0)] * d)
        path[(base, power)] = [x + y for x, y in zip(old, coefficient)]
    return {key: c for key, c in path.items() if any(c)}


def _cf_read_sets(data, n, where):
    if not isinstance(data, list) or len(data) != n:
        raise Rejected(f"{where}: expected {n} sets")
    sets = []
    for j, members in enumerate(data):
        if not isinstance(members, list) or not members:
            raise Rejected(f"{where}[{j}]: expected a non-empty list of tokens")
        chosen = set()
        for v in members:
            if _cf_count(v, f"{where}[{j}]", 0) >= n:
                raise Rejected(f"{where}[{j}]: token {v} out of range")
            chosen.add(v)
        sets.append(chosen)
    return sets


# ----------------------------------------------------------------------------- exponential polynomials


def _cf_value(path, t, d):
    """The exact vector zhat(t)."""
    total = [Fraction(0)] * d
    bits = _cf_bits([path])
    for (base, power), c in path.items():
        size = t * max(base.numerator.bit_length(), base.denominator.bit_length()) + power * t.bit_length() + bits
        _charge(_gcd_cost(d + 1, size))
        weight = Fraction(t) ** power * base ** t
        total = [x + weight * y for x, y in zip(total, c)]
    return total


def _cf_next(path, d):
    """zhat(t + 1) as coefficients: c (t+1)^a b^(t+1) = sum_i c b binom(a, i) t^i b^t."""
    out = {}
    for (base, power), c in path.items():
        for i in range(power + 1):
            factor = base * math.comb(power, i)
            old = out.get((base, i), [Fraction(0)] * d)
            out[(base, i)] = [x + factor * y for x, y in zip(old, c)]
    return {key: c for key, c in out.items() if any(c)}


def _cf_rule(path_j, members, paths, r, gamma, d):
    """r zhat_j(t) + gamma mean_{v in F_j} zhat_v(t) as coefficients."""
    out = {key: [r * x for x in c] for key, c in path_j.items()}
    weight = gamma / len(members)
    for v in members:
        for key, c in paths[v].items():
            old = out.get(key, [Fraction(0)] * d)
            out[key] = [x + weight * y for x, y in zip(old, c)]
    return {key: c for key, c in out.items() if any(c)}


class _CFScores:
    """The scores <A zhat_j(t), zhat_v(t)> of one segment, times a positive constant.

    Every coefficient is multiplied by one common denominator (and A by its own), so the
    arithmetic is on integers; bases are numbered, and a score is {(base pair, power): integer}.
    A positive constant changes no sign and no identity. :meth:`scalar` turns a difference of
    two scores back into {(base, power): Fraction} for the sign checks.
    """

    def __init__(self, paths, matrix):
        bases = sorted({b for path in paths for b, _ in path})
        number = {b: i for i, b in enumerate(bases)}
        self.bases = sorted({b * c for b in bases for c in bases})  # products of two path bases
        product_number = {b: i for i, b in enumerate(self.bases)}
        self.products = {(i, k): product_number[b * c] for i, b in enumerate(bases) for k, c in enumerate(bases)}
        denominators = [x.denominator for path in paths for c in path.values() for x in c]
        bits = _cf_bits(paths)
        # The common denominator (at most the sum of the sizes), then every score: |T_j| |T_v| d products
        # of scaled integers for every pair (j, v), and a fraction per term of each difference compared.
        scale_bits = min(sum(x.bit_length() for x in denominators), len(denominators) * bits) + 1
        _charge(_cost(len(denominators), scale_bits, bits))
        scale = math.lcm(*denominators)
        total_terms = sum(len(path) for path in paths)
        size = scale.bit_length() + bits
        a_bits = max(max(x.numerator.bit_length(), x.denominator.bit_length()) for row in matrix for x in row)
        _charge(_cost(total_terms * total_terms * len(matrix), size + a_bits, size)
                + _gcd_cost(total_terms * total_terms * len(paths), 2 * size + a_bits))
        a_scale = math.lcm(*(x.denominator for row in matrix for x in row))
        whole = [[int(x * a_scale) for x in row] for row in matrix]
        self.right = [[(number[b], a, [int(x * scale) for x in c]) for (b, a), c in path.items()] for path in paths]
        self.left = [[(i, a, [sum(m * x for m, x in zip(row, c)) for row in whole]) for i, a, c in terms]
                     for terms in self.right]

    def score(self, j, v):
        out = {}
        for i, a1, c1 in self.left[j]:
            for k, a2, c2 in self.right[v]:
                x = sum(p * q for p, q in zip(c1, c2))
                if x:
                    key = (self.products[(i, k)], a1 + a2)
                    out[key] = out.get(key, 0) + x
        return out

    def scalar(self, score_p, score_q):
        """score_p - score_q as {(base, power): Fraction}, zero coefficients dropped."""
        out = dict(score_p)
        for key, x in score_q.items():
            out[key] = out.get(key, 0) - x
        return {(self.bases[b], a): Fraction(x) for (b, a), x in out.items() if x}


def _cf_signs(f, start, stop):
    """(t, N(t)) for t = start .. stop - 1 with N(t) = f(t) D L^t an integer (D, L > 0): N(t) has
    the sign of f(t). L is the common denominator of the bases, D of the coefficients."""
    L = math.lcm(*(b.denominator for b, _ in f))
    D = math.lcm(*(x.denominator for x in f.values()))
    by_base = {}
    for (b, a), x in f.items():
        by_base.setdefault(b.numerator * (L // b.denominator), []).append((a, x.numerator * (D // x.denominator)))
    coefficient_bits = max(abs(c).bit_length() + a * max(stop, 1).bit_length() for terms in by_base.values()
                           for a, c in terms)
    _charge(_cost(max(stop - start, 0) * len(f), coefficient_bits,
                  max(stop, 1) * max(P.bit_length() for P in by_base)))
    powers = {P: P ** start for P in by_base}
    for t in range(start, stop):
        yield t, sum(sum(c * t ** a for a, c in terms) * powers[P] for P, terms in by_base.items())
        for P in powers:
            powers[P] *= P


def _cf_threshold(f):
    """T with sign f(t) = sign of the leading coefficient for every t >= T (see the module docstring)."""
    lead_key = max(f)
    b, a = lead_key
    c = f[lead_key]
    against = [(key, x) for key, x in f.items() if key != lead_key and (x > 0) != (c > 0)]
    t0 = 1
    for (bi, ai), _ in against:
        q = bi / b
        if q < 1 and ai > a:
            t0 = max(t0, math.ceil((ai - a) / (1 - q)))
    # sum R_i(T) < 1  iff  |c| T^a b^T - sum |c_i| T^(a_i) b_i^T > 0: the sign of one more exp-poly at T.
    margin = {lead_key: abs(c)}
    for key, x in against:
        margin[key] = -abs(x)
    T = t0
    while True:
        if T > MAX_CHAIN_THRESHOLD:
            raise TooExpensive(f"a sign needs a scan beyond t = {MAX_CHAIN_THRESHOLD}")
        for _, value in _cf_signs(margin, T, T + 1):
            if value > 0:
                return T
        T *= 2


def _cf_zero_bound(f):
    highest = {}
    for b, a in f:
        highest[b] = max(highest.get(b, 0), a)
    return sum(1 + a for a in highest.values())


def _cf_check_tie(f, until, what):
    """f = 0 at every t < until (until None: identically, by coefficients)."""
    if not f:
        return
    if until is None:
        raise Rejected(f"{what}: the tie is not an identity (nonzero coefficients)")
    # A nonzero f vanishes at no more than M - 1 integers: among min(until, M) values a nonzero
    # shows exactly when the tie breaks before until.
    for t, value in _cf_signs(f, 0, min(until, _cf_zero_bound(f))):
        if value != 0:
            raise Rejected(f"{what}: the tie breaks at t = {t}")


def _cf_check_positive(f, until, what):
    """f > 0 at every t < until (until None: every t >= 0); returns the threshold used (0 if none)."""
    if not f:
        raise Rejected(f"{what}: the difference vanishes identically")
    if all(x > 0 for x in f.values()):
        # Every term is positive for t >= 1; at t = 0 only the terms without a power of t remain.
        if sum((x for (_, a), x in f.items() if a == 0), Fraction(0)) <= 0:
            raise Rejected(f"{what}: fails at t = 0")
        return 1
    lead = f[max(f)]
    if until is None and lead < 0:
        raise Rejected(f"{what}: the leading coefficient is negative, so it fails for large t")
    try:
        T = _cf_threshold(f)
    except TooExpensive:
        if until is None or until > MAX_CHAIN_THRESHOLD:
            raise
        T = until
    stop = min(until, T) if until is not None and lead > 0 else (until if until is not None else T)
    for t, value in _cf_signs(f, 0, stop):
        if value <= 0:
            raise Rejected(f"{what}: fails at t = {t} ({'zero' if value == 0 else 'negative'})")
    return T if lead > 0 else 0


# ----------------------------------------------------------------------------- the chain


def verify_closed_form(certificate, *, positions, alpha, A=None):
    """Verify a closed-form certificate against the caller's exact data; raise :class:`Rejected`, or
    :class:`TooExpensive` when a condition is beyond this checker's limits and every other one holds.

    ``positions``: the exact positions (Fractions) of every token at the chain's first layer,
    from a trusted source (the configuration, or the checker's own replay); ``alpha`` > 0;
    ``A``: the d x d matrix (None: identity). Returns a summary: the segments' layers, the
    layer from which the last segment holds, the largest threshold used, and for a certified
    chain the limits and the leaders with their first layers (checked against the
    certificate's claims when it makes them).
    """
    if not isinstance(certificate, dict) or certificate.get("format") != CLOSED_FORM_FORMAT:
        raise Rejected(f"format: expected {CLOSED_FORM_FORMAT!r}")
    n = len(positions)
    d = len(positions[0])
    start = [[Fraction(x) for x in p] for p in positions]
    alpha = Fraction(alpha)
    if alpha <= 0:
        raise Rejected("alpha: must be positive")
    r = 1 / (1 + alpha)
    gamma = 1 - r
    matrix = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)] if A is None else \
        [[Fraction(x) for x in row] for row in A]
    status = certificate.get("status")
    if status not in ("certified", "unsettled"):
        raise Rejected(f"status: expected certified or unsettled, got {status!r}")
    segments = certificate.get("segments")
    if not isinstance(segments, list) or not segments or len(segments) > MAX_CHAIN_SEGMENTS:
        raise Rejected("segments: expected a non-empty list")
    layer = _cf_count(certificate.get("start_layer"), "start_layer", 0)
    layers = []
    all_sets = []
    largest = 0
    beyond_limit = None  # the first sign the checker could not scan (raised once everything else held)
    previous_paths = None
    sets = paths = None
    for s, segment in enumerate(segments):
        where = f"segments[{s}]"
        if not isinstance(segment, dict):
            raise Rejected(f"{where}: expected an object")
        if _cf_count(segment.get("layer"), where + ".layer", 0) != layer:
            raise Rejected(f"{where}.layer: expected {layer}, got {segment.get('layer')!r}")
        last = s == len(segments) - 1
        sets = _cf_read_sets(segment.get("sets"), n, where + ".sets")
        all_sets.append((layer, sets))
        if segment.get("paths") is None:
            # Only an unsettled chain may end without paths; it then states where it stopped.
            if not last or status != "unsettled":
                raise Rejected(f"{where}.paths: missing")
            stated = segment.get("positions")
            if not isinstance(stated, list) or len(stated) != n:
                raise Rejected(f"{where}.positions: expected {n} positions")
            for j, p in enumerate(stated):
                if not isinstance(p, list) or [_cf_number(x, f"{where}.positions[{j}]") for x in p] != start[j]:
                    raise Rejected(f"{where}.positions[{j}]: not the position reached at layer {layer}")
            layers.append(layer)
            paths = None
            break
        raw = segment.get("paths")
        if not isinstance(raw, list) or len(raw) != n:
            raise Rejected(f"{where}.paths: expected {n} paths")
        paths = [_cf_read_path(p, d, f"{where}.paths[{j}]") for j, p in enumerate(raw)]
        until = segment.get("until")
        if until is not None:
            until = _cf_count(until, where + ".until", 1)
        if last and status == "certified" and until is not None:
            raise Rejected(f"{where}.until: the last segment of a certified chain must hold for every t (null)")
        if until is None and not (last and status == "certified"):
            raise Rejected(f"{where}.until: only the last segment of a certified chain may hold for every t")
        # (i)
        for j in range(n):
            if _cf_value(paths[j], 0, d) != start[j]:
                raise Rejected(f"{where}: (i) token {j} does not start at its position of layer {layer}")
        # (ii), paid for first: the expansions of (t+1)^a and the rule's sums, fraction by fraction
        jordan = _cf_jordan_problem(paths, n)
        if jordan is not None:
            raise Rejected(f"{where}: (ii) {jordan}")
        bits = _cf_bits(paths) + _cf_bits([{(Fraction(1), 0): [r, gamma]}])
        terms = [len(path) for path in paths]
        _charge(_gcd_cost(d * sum(sum(a + 1 for _, a in path) + len(path) + sum(terms[v] for v in sets[j])
                                  for j, path in enumerate(paths)), 2 * bits + 64))
        for j in range(n):
            if _cf_next(paths[j], d) != _cf_rule(paths[j], sets[j], paths, r, gamma, d):
                raise Rejected(f"{where}: (ii) token {j}'s path does not satisfy the update rule identically")
        # (iii)
        table = _CFScores(paths, matrix)
        for j in range(n):
            members = sorted(sets[j])
            scores = [table.score(j, v) for v in range(n)]
            first = members[0]
            for v in members[1:]:
                _cf_check_tie(table.scalar(scores[v], scores[first]), until,
                           f"{where}: (iii) token {j}, members {first} and {v}")
            for w in range(n):
                if w not in sets[j]:
                    what = f"{where}: (iii) token {j}, member {first} over {w}"
                    try:
                        largest = max(largest, _cf_check_positive(table.scalar(scores[first], scores[w]), until, what))
                    except TooExpensive as error:
                        beyond_limit = beyond_limit or f"{what}: {error}"
        layers.append(layer)
        if until is not None:
            if until > MAX_CHAIN_THRESHOLD:
                # Evaluating the paths at t = until (the next segment's start) is the expensive part.
                raise TooExpensive(beyond_limit or f"{where}.until: {until} is beyond t = {MAX_CHAIN_THRESHOLD}, "
                                   "the last t this checker evaluates a path at")
            start = [_cf_value(paths[j], until, d) for j in range(n)]
            layer += until
        previous_paths = paths
    summary = {"layers": layers, "final_layer": layers[-1], "largest_threshold": largest}
    if status != "certified":
        if beyond_limit:
            raise TooExpensive(beyond_limit)
        summary["reached_layer"] = layer
        return summary
    assert paths is not None and previous_paths is paths
    limits = []
    for j, path in enumerate(paths):
        if any(base == 1 and power > 0 for base, power in path):
            raise Rejected(f"token {j}: the final path grows without bound")
        limits.append(path.get((Fraction(1), 0), [Fraction(0)] * d))
    leaders = {}
    for start_layer, sets in all_sets:
        for j, members in enumerate(sets):
            if members == {j} and j not in leaders:
                leaders[j] = start_layer
    if "limits" in certificate:
        stated = certificate["limits"]
        if not isinstance(stated, list) or len(stated) != n or any(
                not isinstance(p, list) or [_cf_number(x, f"limits[{j}]") for x in p] != limits[j]
                for j, p in enumerate(stated)):
            raise Rejected("limits: not the constant terms of the final paths")
    if "leaders" in certificate:
        stated = certificate["leaders"]
        if not isinstance(stated, list) or not all(isinstance(x, dict) for x in stated) or \
                {(x.get("token"), x.get("first_layer")) for x in stated} != set(leaders.items()) or \
                len(stated) != len(leaders):
            raise Rejected("leaders: not the tokens with F_j = {j} at their first segment")
    if beyond_limit:
        raise TooExpensive(beyond_limit)
    summary["limits"] = limits
    summary["leaders"] = leaders
    summary["final_sets"] = [frozenset(members) for members in sets]
    return summary


def _stated_chain(certificate, *, n, d):
    """What a certified chain states, read but NOT verified: (final sets, limits, leaders).

    For a chain beyond this checker's limits (:class:`TooExpensive`): the rest of the run is
    still checked against what the chain says, so that only the chain itself stays unverified.
    Nothing read here is ever reported verified. Raises :class:`Rejected` when malformed.
    """
    segments = certificate.get("segments") if isinstance(certificate, dict) else None
    if not isinstance(segments, list) or not segments:
        raise Rejected("segments: expected a non-empty list")
    leaders = {}
    sets = []
    for s, segment in enumerate(segments):
        where = f"segments[{s}]"
        if not isinstance(segment, dict):
            raise Rejected(f"{where}: expected an object")
        layer = _cf_count(segment.get("layer"), where + ".layer", 0)
        sets = _cf_read_sets(segment.get("sets"), n, where + ".sets")
        for j, members in enumerate(sets):
            if members == {j} and j not in leaders:
                leaders[j] = layer
    raw = segments[-1].get("paths")
    if not isinstance(raw, list) or len(raw) != n:
        raise Rejected(f"segments[{len(segments) - 1}].paths: expected {n} paths")
    limits = []
    for j, data in enumerate(raw):
        path = _cf_read_path(data, d, f"segments[{len(segments) - 1}].paths[{j}]")
        if any(base == 1 and power > 0 for base, power in path):
            raise Rejected(f"token {j}: the final path grows without bound")
        limits.append(path.get((Fraction(1), 0), [Fraction(0)] * d))
    return [frozenset(members) for members in sets], limits, leaders


# --------------------------------------------------------------------------- the fates the replay implies


def _search_fates(m: Model, last: int) -> tuple[dict[int, Fate], int | None]:
    """Every D7 fate established within layers 0..last, and the settled layer (None if never).

    The same inductive rule the suite applies (docs/theory.md D7), found here from the replay: at
    each layer until every token has a fate, leaders first, then fixed tokens (D7 (b), repeated
    until nothing changes, since a newly fixed token can make another one fixed), then locked
    tokens. A fate is established at the first layer its condition holds, so the result is
    unique and a report's fates can be compared with it entry by entry.
    """
    fates: dict[int, Fate] = {}
    for k in range(last + 1):
        Z, C = m.layer(k), m.attention(k)
        for i in range(m.n):
            if i not in fates and C[i] == {i}:
                fates[i] = Fate("leader", k, frozenset({i}), Z[i])
        fixed = {t for t, f in fates.items() if f.kind != "locked"}
        # D7 (b) is closed under itself (a newly fixed token can fix another): the tokens at the
        # mean of the rest G of their set wait until every token of G is fixed (a worklist, so
        # each membership is looked at once per layer).
        waiting: dict[int, set] = {}
        watchers: dict[int, list] = {}
        ready = []
        for j in range(m.n):
            G = C[j] - {j}
            if j not in fates and j in C[j] and G and _at_mean(m, j, k, G):
                if G <= fixed:
                    ready.append(j)
                else:
                    waiting[j] = set(G - fixed)
                    for t in waiting[j]:
                        watchers.setdefault(t, []).append(j)
        while ready:
            j = ready.pop()
            fates[j] = Fate("fixed", k, C[j] - {j}, Z[j])
            fixed.add(j)
            for watcher in watchers.pop(j, []):
                waiting[watcher].discard(j)
                if not waiting[watcher]:
                    ready.append(watcher)
        for i in range(m.n):
            if i not in fates and i not in C[i] and _locked_failure(m, i, k, C[i], fixed) is None:
                fates[i] = Fate("locked", k, C[i], _mean_of(m, k, C[i]))
        if len(fates) == m.n:
            return fates, k
    return fates, None


def _fate_value(m: Model, f: Fate) -> Fraction:
    """<A m_F, z_v> on F at the fate layer (the common score a locked entry states)."""
    return _dot(_matvec(m.A, f.limit), m.layer(f.layer)[min(f.set)])


# --------------------------------------------------------------------------- statuses: verified, justified or not


class Facts:
    """What the replay says about one run (layers 0..last), against which every verdict status is judged."""

    def __init__(self, m: Model, last: int, chain: Chain | None = None) -> None:
        self.model, self.last = m, last
        self.fates, self.settled = _search_fates(m, last if chain is None else min(chain.start, last))
        if chain is not None and self.settled is None:
            # D9: the tokens D7 leaves at the chain's first layer follow their verified paths.
            for t in range(m.n):
                if t not in self.fates:
                    self.fates[t] = Fate("path", chain.start, chain.sets[t], chain.limits[t])
            self.settled = chain.start
        self.leader_seen = any(m.attention(k)[i] == {i} for k in range(last + 1) for i in range(m.n))
        leader_limits = {f.limit for t, f in self.fates.items() if _is_leader(t, f)}
        self.non_vertex = self.settled is not None and any(f.limit not in leader_limits for f in self.fates.values())

    def inconclusive_reason(self, claim: str) -> str | None:
        """Why ``claim`` cannot be decided on this run (None: the replay decides it, so 'inconclusive' is wrong)."""
        m, last = self.model, self.last
        if not m.proved_model and claim in NEEDS_D3_D7:
            return "with this value matrix V, D3/D7 are not proved: nothing follows beyond the layers run"
        unsettled = (f"token(s) {_show(set(range(m.n)) - set(self.fates))} have no D7 fate within layers 0..{last} "
                     "and the run carries no verified certified closed-form chain (D9)" if self.settled is None else None)
        if claim in ("T0", "D3"):
            return None if self.leader_seen else f"no token leads within layers 0..{last}"
        if claim in ("T2", "T3", "T4") and unsettled is None and not any(
                _is_leader(t, f) for t, f in self.fates.items()):
            return "every token's fate is known and none ever leads (duplicates): K is empty"
        if claim in ("T1", "T2", "T3"):
            return unsettled
        if claim == "T4":
            if unsettled:
                return unsettled
            if self.non_vertex and not _positive_definite(m.Asym):
                return "(A + A^T)/2 is not positive definite: the A-projection of the origin is not defined"
            return None
        if claim in ("D1", "replay"):
            return None if last > 0 else "only layer 0 was run: no transition"
        return None  # D2 is always decided


def _decided_because(facts: Facts, claim: str) -> str:
    if claim in ("T0", "D3"):
        return "a token leads within the layers run"
    if claim in ("D1", "replay"):
        return f"layers 0..{facts.last} hold {facts.last} transition(s)"
    if claim == "D2":
        return "D2 is decided on every run"
    return f"every token has a D7 fate or a verified closed-form path (D9) by layer {facts.settled}"


def _form_problem(claim: str, verdict: Any) -> str | None:
    """Why ``verdict`` is not a verdict object for ``claim`` with a known status, or None."""
    if not isinstance(verdict, dict):
        return "the verdict is not an object"
    if verdict.get("claim") != claim:
        return f"the verdict under {claim!r} names claim {str(verdict.get('claim'))[:40]!r}"
    if verdict.get("status") not in ("certified", "failed", "inconclusive"):
        return f"unknown status {str(verdict.get('status'))[:40]!r} (expected certified, failed or inconclusive)"
    return None


def _verify(claim: str, verdict: Any, ctx: "Context", facts: Facts, replay_failed: bool) -> tuple[str, str]:
    """(outcome, reason) for one verdict: verified, inconclusive (justified), failed, rejected or unsupported."""
    problem = _form_problem(claim, verdict)
    if problem is not None:
        return "rejected", problem
    status, cert = verdict.get("status"), verdict.get("certificate")
    if status != "certified":
        if cert is not None:
            return "rejected", f"a {status} verdict carries a certificate"
        if status == "failed":
            return "failed", "the file reports this claim false (certcheck re-verifies certificates, not counterexamples)"
        reason = facts.inconclusive_reason(claim)
        if reason is None and replay_failed:
            reason = "the file reports the replay failed, so its other verdicts are not decided"
        if reason is None:
            return "rejected", (f"the verdict is inconclusive, but the replay decides it ({_decided_because(facts, claim)}): "
                                "a downgraded verdict")
        return "inconclusive", reason
    if not isinstance(cert, dict):
        return "rejected", "a certified verdict without a certificate"
    try:
        _check_layer_positions(cert, ctx.model)
        CHECKS[claim](cert, ctx)
    except Rejected as error:
        return "rejected", str(error)
    if claim in NEEDS_D3_D7 and not ctx.model.proved_model:
        return "rejected", ("every condition holds for the layers replayed, but with this value matrix V "
                            "D3/D7 are not proved, so nothing follows beyond them")
    if ctx.unverified_chain is not None and _rests_on_chain(cert):
        # A limit of the checker is not a falsehood: neither verified nor rejected.
        return "unsupported", (f"every other condition holds, but the certificate rests on a "
                               f"{ctx.unverified_chain}")
    return "verified", ""


def _rests_on_chain(cert: dict) -> bool:
    """Whether a certificate needs the run's closed-form chain: it carries one, or has a path fate."""
    fates = cert.get("fates")
    return isinstance(cert.get("closed_form"), dict) or (
        isinstance(fates, list) and any(isinstance(e, dict) and e.get("kind") == "path" for e in fates))


def _without_routine(claim: str, verdict: Any) -> tuple[str, str]:
    """(outcome, reason) for a verdict of a claim this checker has no routine for.

    Its form is checked like any verdict's; a failed one is passed on (the file says the claim
    is false); anything else is unsupported: nothing about it is verified.
    """
    problem = _form_problem(claim, verdict)
    if problem is not None:
        return "rejected", problem
    status, cert = verdict.get("status"), verdict.get("certificate")
    if (status == "certified") != isinstance(cert, dict):
        return "rejected", ("a certified verdict without a certificate" if status == "certified"
                            else f"a {status} verdict carries a certificate")
    if status == "failed":
        return "failed", "the file reports this claim false (certcheck re-verifies certificates, not counterexamples)"
    return "unsupported", (f"certcheck has no routine for claim {claim} (it re-verifies {', '.join(CHECKS)}): "
                           f"this {status} verdict is not re-verified")


def _combine(statuses: list) -> str:
    return "failed" if "failed" in statuses else "inconclusive" if "inconclusive" in statuses else "certified"


# --------------------------------------------------------------------------- one run (claims report or record)


class Run(NamedTuple):
    """One configuration's run as a file states it (a claims report or a results.json record)."""

    source: str
    config: Any
    verdicts: Any
    last_layer: Any
    settled_layer: Any
    fates: Any = None          # the run's fates, token order ("unsettled" allowed); None: not stated
    status: Any = None         # the run's combined status; None: not stated
    stopped_by: Any = None
    layer_budget: Any = None
    time_budget: Any = None
    certcheck: Any = None      # a results.json record's own "certcheck" block
    outside_hypotheses: Any = None     # a claims report's top-level flag; None: not stated (records)
    hypothesis_violations: Any = None  # a claims report's list; None: not stated (records)


_MODELS: dict[str, Model] = {}


def _model(config: Any) -> Model:
    """The replay of ``config``, kept for a few configurations (it depends on the configuration only)."""
    key = json.dumps(config, sort_keys=True, default=str)
    if key not in _MODELS:
        model = Model(config)
        if len(_MODELS) >= 16:
            _MODELS.pop(next(iter(_MODELS)))
        _MODELS[key] = model
    return _MODELS[key]


def replay_work(n: int, d: int, last_layer: int, bits: int = 0, growth: int = None) -> int:  # type: ignore[assignment]
    """The estimated work of checking a run of n tokens in d dimensions through layers 0..last_layer, in work units.

    Each layer takes n^2 scores of d products (plus a fixed cost per score) twice, for the replay and
    for D1's combinations; the certificates of T2..T4 compare every leader with every entry once
    more. The integers start at ``bits`` (:func:`input_bits`) and grow by about ``growth`` bits a
    layer (:func:`replay_growth`; default: the growth of alpha = 1/2), and a product of two b-bit
    integers costs (b/WORK_BITS)^1.6 units once b passes WORK_BITS (Karatsuba). Measured: a few
    tenths of a microsecond per unit on one core (docs/certcheck.md, Limits).
    """
    prefix = _layer_costs(max(bits, 1), replay_growth(Fraction(1, 2)) if growth is None else growth)
    return int(n * n * (d + SCORE_OVERHEAD) * (2 * prefix[min(last_layer, MAX_LAYER)] + 1))


def replay_growth(alpha: Fraction | None = None, V: Any = None) -> int:
    """Bits the replay's integers grow by per layer: the update's own (z' = (q z + p m)/(p + q) for
    alpha = p/q; the entries of (I + V)^-1 and (I + V)^-1 V for a value matrix) plus
    SET_GROWTH_BITS for the attention sets' sizes (the work meter charges more if they grow faster)."""
    if V is None:
        alpha = Fraction(alpha if alpha is not None else Fraction(1, 2))
        return SET_GROWTH_BITS + (alpha.numerator + alpha.denominator).bit_length()
    d = len(V)
    keep = _inverse([[int(r == c) + Fraction(V[r][c]) for c in range(d)] for r in range(d)])
    if keep is None:
        return SET_GROWTH_BITS
    move = [[_dot(row, col) for col in zip(*V)] for row in keep]
    return SET_GROWTH_BITS + input_bits([x for row in keep + move for x in row])


_LAYER_COSTS: dict[tuple[int, int], list[float]] = {}


def _layer_costs(bits: int, growth: int) -> list[float]:
    """prefix[L] = sum over layers k <= L of the cost factor of a product of (bits + k growth)-bit integers."""
    key = (bits, growth)
    if key not in _LAYER_COSTS:
        total, prefix = 0.0, []
        for k in range(MAX_LAYER + 1):
            size = (bits + k * growth) / WORK_BITS
            total += size ** 1.6 if size > 1 else 1.0
            prefix.append(total)
        if len(_LAYER_COSTS) >= 64:
            _LAYER_COSTS.pop(next(iter(_LAYER_COSTS)))
        _LAYER_COSTS[key] = prefix
    return _LAYER_COSTS[key]


def input_bits(numbers: Any) -> int:
    """Bits of the common denominator of exact ``numbers`` plus their largest numerator: the size
    of the integers the replay starts from (stops counting once past 2^20 bits: beyond any limit)."""
    denominator, numerator = 1, 0
    for x in numbers:
        denominator = math.lcm(denominator, x.denominator)
        numerator = max(numerator, abs(x.numerator).bit_length())
        if denominator.bit_length() + numerator > 1 << 20:
            break
    return denominator.bit_length() + numerator


def max_checkable_layer(n: int, d: int, max_work: int = None, bits: int = 0,  # type: ignore[assignment]
                        growth: int = None) -> int:  # type: ignore[assignment]
    """The largest last layer whose estimated replay stays within ``max_work`` (-1: not even layer 0)."""
    limit = DEFAULT_MAX_WORK if max_work is None else max_work
    if replay_work(n, d, 0, bits, growth) > limit:
        return -1
    low, high = 0, MAX_LAYER
    while low < high:
        mid = (low + high + 1) // 2
        if replay_work(n, d, mid, bits, growth) <= limit:
            low = mid
        else:
            high = mid - 1
    return low


def _shape(config: Any, where: str) -> tuple[int, int]:
    tokens = config.get("tokens") if isinstance(config, dict) else None
    if not (isinstance(tokens, list) and tokens and all(isinstance(t, list) and t for t in tokens)
            and len({len(t) for t in tokens}) == 1):
        raise BadInput(f"{where}.tokens", "expected a nonempty list of points of one dimension")
    return len(tokens), len(tokens[0])


def _admit(runs: list, max_work: int, max_total_work: int) -> None:
    """Refuse, before any checking, a run whose last layer or estimated replay work is beyond the limits,
    and a file whose runs together are."""
    total = 0
    for run in runs:
        last = run.last_layer
        if isinstance(last, bool) or not isinstance(last, int) or last < 0:
            raise BadInput(f"{run.source}.last_layer", f"expected a non-negative integer, got {str(last)[:40]}")
        if last > MAX_LAYER:
            raise BadInput(f"{run.source}.last_layer", f"{last} is beyond the checker's limit of {MAX_LAYER} layers")
        n, d = _shape(run.config, f"{run.source}.config")
        model = _model(run.config)
        work = replay_work(n, d, last, model.bits, model.growth)
        if work > max_work:
            raise BadInput(f"{run.source}.last_layer",
                           f"replaying {n} tokens in d = {d} through layer {last} is {work:.3g} units of work, more "
                           f"than the limit of {max_work:.3g} (raise it with --max-work)")
        total += work
        if total > max_total_work:
            raise BadInput(f"{run.source}.last_layer",
                           f"replaying the file's configurations up to this one is {total:.3g} units of work, more "
                           f"than the limit of {max_total_work:.3g} for one file (raise it with --max-total-work)")


def _check_run(run: Run) -> list[Outcome]:
    """Every verdict of one run, then everything the run states besides them (status, fates, layers);
    every claim of the run unsupported if the file's work allowance runs out on the way."""
    try:
        return _check_run_within_limits(run)
    except WorkLimit as error:
        claims = list(CHECKS) + sorted(set(run.verdicts) - set(CHECKS), key=str) if isinstance(run.verdicts, dict) \
            else list(CHECKS)
        return [Outcome(run.source, str(claim)[:40], "unsupported", str(error)) for claim in claims] + [
            Outcome(run.source, RUN, "unsupported", str(error))]


def _check_run_within_limits(run: Run) -> list[Outcome]:
    """Every verdict of one run and what the run states besides them (see :func:`_check_run`)."""
    _charge(RUN_OVERHEAD)
    source = run.source
    m = _model(run.config)
    m.last = run.last_layer
    verdicts = run.verdicts
    if not isinstance(verdicts, dict):
        raise BadInput(f"{source}.verdicts", "expected an object keyed by claim id")
    if m.unsupported:
        return [Outcome(source, claim, "unsupported", m.unsupported) for claim in sorted(verdicts)]
    reading = _run_chain(verdicts, m)
    # Statuses are judged by the replay and a verified chain only: a chain beyond the checker's
    # limits never makes an inconclusive verdict a downgrade.
    facts = m.facts(run.last_layer, reading.chain)
    # Certificates and the run's statements are checked against the chain as it stands (verified,
    # or stated but beyond the limits); what rests on an unverified chain is then unsupported.
    stated = reading.chain or reading.stated
    ctx = Context(m, last_layer=run.last_layer, settled_layer=run.settled_layer, chain=stated,
                  unverified_chain=reading.beyond_limits)
    replay = verdicts.get("replay")
    replay_failed = isinstance(replay, dict) and replay.get("status") == "failed"
    outcomes = []
    for claim in CHECKS:
        if claim not in verdicts:
            outcomes.append(Outcome(source, claim, "rejected", f"claim {claim} is missing: every run decides all of "
                                    f"{', '.join(CHECKS)}"))
        else:
            outcomes.append(Outcome(source, claim, *_verify(claim, verdicts[claim], ctx, facts, replay_failed)))
    for claim in sorted(set(verdicts) - set(CHECKS), key=str):
        if not (isinstance(claim, str) and CLAIM_ID.fullmatch(claim)):
            outcomes.append(Outcome(source, str(claim)[:40], "rejected", f"unknown claim {str(claim)[:40]!r} "
                                    f"(the claims are {', '.join(CHECKS)})"))
        else:
            outcomes.append(Outcome(source, claim, *_without_routine(claim, verdicts[claim])))
    if reading.problem is not None:
        outcomes.append(Outcome(source, RUN, "rejected", reading.problem))
    problems = _run_problems(run, facts if stated is None else m.facts(run.last_layer, stated))
    for problem in problems:
        outcomes.append(Outcome(source, RUN, "rejected", problem))
    if reading.beyond_limits is not None and not problems:
        outcomes.append(Outcome(source, RUN, "unsupported", "the run's settled layer and fates rest on its closed-form "
                                f"chain (D9), which is beyond this checker's limits: {reading.beyond_limits}"))
    return outcomes


class ChainReading(NamedTuple):
    """The run's certified closed-form chain as far as the checker gets with it.

    ``chain``: verified; ``problem``: why it is rejected; ``beyond_limits``: why it could not be
    checked within the checker's limits (then ``stated`` holds what it says, unverified, when
    that can be read), which is neither a verification nor a rejection.
    """

    chain: Chain | None = None
    problem: str | None = None
    beyond_limits: str | None = None
    stated: Chain | None = None


def _run_chain(verdicts: dict, m: Model) -> ChainReading:
    """The run's certified closed-form chain (docs/theory.md D9), verified here, or what is wrong with it.

    Verdicts that rely on a chain carry it under "closed_form" in their certificate or evidence;
    every one must carry the same chain. It is verified from the replay's positions at its first
    layer (a layer of the run). Unsettled chains settle nothing and are not read.
    """
    found: dict[str, Any] = {}
    for verdict in verdicts.values():
        if not isinstance(verdict, dict):
            continue
        for part in ("certificate", "evidence"):
            holder = verdict.get(part)
            data = holder.get("closed_form") if isinstance(holder, dict) else None
            if isinstance(data, dict) and data.get("status") == "certified":
                found.setdefault(json.dumps(data, sort_keys=True), data)
    if not found:
        return ChainReading()
    if len(found) > 1:
        return ChainReading(problem=f"the verdicts carry {len(found)} different certified closed-form chains")
    data = next(iter(found.values()))
    if m.V is not None:
        return ChainReading(problem="a closed-form chain (D9) is checked for the rule with alpha only, not with a "
                                    "value matrix V")
    start = data.get("start_layer")
    if isinstance(start, bool) or not isinstance(start, int) or not 0 <= start <= m.last:
        return ChainReading(problem=f"closed_form.start_layer is {str(start)[:20]}, not a layer of the run (0..{m.last})")
    try:
        summary = verify_closed_form(data, positions=m.layer(start), alpha=m.alpha, A=m.A)
    except Rejected as error:
        return ChainReading(problem=f"closed-form chain (D9) rejected: {str(error)[:300]}")
    except TooExpensive as error:
        try:
            sets, limits, leaders = _stated_chain(data, n=m.n, d=m.d)
        except Rejected as malformed:  # beyond the limits, and malformed where it was not reached
            return ChainReading(problem=f"closed-form chain (D9) rejected: {str(malformed)[:300]}")
        reason = f"closed-form chain (D9) beyond the checker's limits: {str(error)[:300]}"
        stated = _chain(start, sets, limits, leaders)
        if isinstance(stated, str):
            return ChainReading(problem=stated)
        return ChainReading(beyond_limits=reason, stated=stated)
    chain = _chain(start, summary["final_sets"], summary["limits"], summary["leaders"])
    return ChainReading(problem=chain) if isinstance(chain, str) else ChainReading(chain=chain)


def _chain(start: int, sets: list, limits: list, leaders: dict) -> Chain | str:
    """The chain's outcome as the fates use it, or why it cannot become fate entries."""
    points = [tuple(p) for p in limits]
    # A limit becomes a fate entry, whose numbers are read with MAX_DIGITS and written by str(int).
    if any(max(abs(x.numerator), x.denominator).bit_length() > 13_000 for p in points for x in p):
        return "a closed-form limit has more digits than a fate entry may hold (about 4000)"
    return Chain(start, sets, points, leaders)


RUN = "(run)"  # outcomes about a run as a whole: status, fates, layers
SUMMARY = "(summary)"  # outcomes about a results.json's summary
HORIZON = 30  # a record's exact run is shown to layer max(HORIZON, layers_run) (verify/app/campaign/measure.py)


def _fate_entry(f: Fate | None, m: Model, token: int) -> dict:
    """A fate as the reports write it (token order, exact numbers as strings)."""
    if f is None:
        return {"token": token, "kind": "unsettled", "layer": None, "set": None, "limit": None}
    entry: dict = {"token": token, "kind": f.kind, "layer": f.layer, "set": sorted(f.set), "limit": [_text(x) for x in f.limit]}
    if f.kind == "locked":
        entry["value"] = _text(_fate_value(m, f))
    return entry


def _text(x: Fraction) -> str:
    return _int_text(x.numerator) if x.denominator == 1 else f"{_int_text(x.numerator)}/{_int_text(x.denominator)}"


def _hypothesis_violations(config: dict, m: Model) -> list[str]:
    """How the configuration is outside the theorem's hypotheses (docs/theory.md §2), decided exactly:
    a zero or repeated token, A not symmetric positive definite, a value matrix V (beta is never
    checked here: such runs are unsupported)."""
    tokens = m.layer(0)
    found = [f"token {i} is the origin" for i, z in enumerate(tokens) if not any(z)]
    first: dict[Point, int] = {}
    for i, z in enumerate(tokens):
        first.setdefault(z, i)
    found += [f"token {i} equals token {first[z]}" for i, z in enumerate(tokens) if first[z] != i]
    if config.get("A") is not None:
        if any(m.A[r][c] != m.A[c][r] for r in range(m.d) for c in range(m.d)):
            found.append("A is not symmetric")
        elif not _positive_definite(m.A):
            found.append("A is not positive definite")
    if m.V is not None:
        found.append("a value matrix V is a variant of the model")
    return found


def _hypotheses_problems(run: Run, m: Model) -> list[str]:
    """A configuration outside the hypotheses must be recorded as such (its ``outside_hypotheses``),
    and a claims report's flag and list of violations must say what the configuration is."""
    violations = _hypothesis_violations(run.config, m)
    flag = run.config.get("outside_hypotheses") is True
    problems = []
    if violations and not flag:
        problems.append(f"the configuration is outside the theorem's hypotheses ({'; '.join(violations)[:200]}), "
                        "but it does not record outside_hypotheses: true")
    if run.outside_hypotheses is not None and run.outside_hypotheses is not flag:
        problems.append(f"outside_hypotheses is {str(run.outside_hypotheses)[:20]}, the configuration's is {flag}")
    if run.hypothesis_violations is not None and (not isinstance(run.hypothesis_violations, list)
                                                  or bool(run.hypothesis_violations) != bool(violations)):
        problems.append(f"hypothesis_violations lists {str(run.hypothesis_violations)[:100]}, but the configuration "
                        + (f"is outside the hypotheses ({'; '.join(violations)[:200]})" if violations
                           else "satisfies the hypotheses"))
    return problems


def _run_problems(run: Run, facts: Facts) -> list[str]:
    """What a run states besides its verdicts, against the replay: settled and last layer, how it
    stopped, its combined status, its fates (the report's "exact limit" column reads them) and
    whether it is outside the theorem's hypotheses."""
    m, last = facts.model, run.last_layer
    problems = _hypotheses_problems(run, m)
    settled = run.settled_layer
    if settled != facts.settled or isinstance(settled, bool):
        problems.append(f"settled_layer is {str(settled)[:20]}, the replay settles "
                        f"{'at layer ' + str(facts.settled) if facts.settled is not None else 'at no layer'} "
                        f"of 0..{last}")
    elif settled is not None and last > settled + 1:
        problems.append(f"last_layer is {last}, but a run stops one layer after settling (layer {settled})")
    budget = run.layer_budget
    if isinstance(budget, int) and not isinstance(budget, bool) and last > budget:
        problems.append(f"last_layer {last} is beyond the layer budget {budget}")
    if run.stopped_by is not None:
        allowed = {"settled"} if facts.settled is not None else {"layer budget", "time budget", "work limit"}
        if run.stopped_by not in allowed:
            problems.append(f"stopped_by is {str(run.stopped_by)[:30]!r}, expected "
                            f"{' or '.join(repr(a) for a in sorted(allowed))}")
        elif run.stopped_by == "layer budget" and isinstance(budget, int) and last != budget:
            problems.append(f"stopped_by is 'layer budget', but last_layer {last} is not the budget {budget}")
        elif run.stopped_by == "time budget" and run.time_budget is None:
            problems.append("stopped_by is 'time budget', but the run had no time budget")
        elif run.stopped_by == "work limit" and replay_work(m.n, m.d, last + 1, m.bits, m.growth) <= DEFAULT_MAX_WORK:
            problems.append(f"stopped_by is 'work limit', but layer {last + 1} is within the default work limit")
    statuses = [v.get("status") for v in run.verdicts.values() if isinstance(v, dict)]
    if run.status is not None and run.status != _combine(statuses):
        problems.append(f"status is {str(run.status)[:30]!r}, its verdicts combine to {_combine(statuses)!r}")
    problems += _evidence_problems(run, facts)
    if run.fates is not None:
        expected = [_fate_entry(facts.fates.get(t), m, t) for t in range(m.n)]
        if not (isinstance(run.fates, list) and len(run.fates) == m.n):
            problems.append(f"fates: expected one entry per token ({m.n}), in token order")
        else:
            for t, (given, wanted) in enumerate(zip(run.fates, expected)):
                if not _same_fate(given, wanted):
                    problems.append(f"fates[{t}] is {_brief(given)}, the replay gives {_brief(wanted)}")
                    break
    return problems


def _evidence_problems(run: Run, facts: Facts) -> list[str]:
    """The replay facts a certified verdict's ``evidence`` states (layers, leaders, vertices, kinds of fate),
    against the replay. Its ``summary`` sentence is the engine's prose: reports do not show it, and
    certcheck does not read it (docs/certcheck.md)."""
    m = facts.model
    leading = [[i for i in range(m.n) if m.attention(k)[i] == {i}] for k in range(facts.last + 1)]
    first = next((k for k, found in enumerate(leading) if found), None)
    leader_fates = {t: f for t, f in facts.fates.items() if _is_leader(t, f)}
    kinds: dict = {}
    for f in facts.fates.values():
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    wanted_by_claim: dict[str, dict] = {
        "T0": {"first_layer": first, "leaders": leading[first] if first is not None else []},
        "T1": {"leaders": {str(t): f.layer for t, f in sorted(facts.fates.items()) if f.kind == "leader"}},
        "T2": {"vertices": len({f.limit for f in leader_fates.values()})},
        "T3": {"kinds": {kind: kinds.get(kind, 0) for kind in ("leader", "fixed", "locked", "path")}},
    }
    problems = []
    for claim, verdict in run.verdicts.items():
        evidence = verdict.get("evidence") if isinstance(verdict, dict) else None
        if not isinstance(evidence, dict) or verdict.get("status") != "certified":
            continue
        wanted = {"last_layer": run.last_layer, "settled_layer": facts.settled, **wanted_by_claim.get(claim, {})}
        for key, value in wanted.items():
            if key in evidence and not _same_json(evidence[key], value):
                problems.append(f"verdicts.{str(claim)[:40]}.evidence.{key} is {_brief_json(evidence[key])}, the replay "
                                f"gives {_brief_json(value)}")
    return problems[:3]


def _same_fate(given: Any, wanted: dict) -> bool:
    if not isinstance(given, dict) or set(given) - {"token", "kind", "layer", "set", "limit", "value"}:
        return False
    if any(given.get(key) != wanted.get(key) for key in ("token", "kind", "layer", "set")):
        return False
    if wanted["limit"] is None:
        return given.get("limit") is None and "value" not in given
    try:
        limit = given.get("limit")
        same_limit = isinstance(limit, list) and len(limit) == len(wanted["limit"]) and all(
            _number(a, "limit") == _number(b, "limit") for a, b in zip(limit, wanted["limit"]))
        same_value = ("value" not in wanted and "value" not in given) or (
            "value" in wanted and "value" in given and _number(given["value"], "value") == _number(wanted["value"], "value"))
    except Rejected:
        return False
    return same_limit and same_value


def _brief(fate: Any) -> str:
    if not isinstance(fate, dict):
        return str(fate)[:60]
    text = f"{fate.get('kind')} at layer {fate.get('layer')}"
    if fate.get("limit") is not None:
        text += f" -> ({', '.join(str(x)[:30] for x in fate['limit']) if isinstance(fate['limit'], list) else '?'})"
    return text[:200]


# --------------------------------------------------------------------------- the campaign: completeness and identity
#
# A results.json states its campaign (seed, families, counts, the layer budget) and its plan:
# every task planned before any ran, each with its configuration's sha256. Checked here with this
# module's own arithmetic, before anything trusts the records as "the campaign":
#
# - the plan was made from this campaign block (the sha256 of its canonical JSON);
# - the plan is the task list the campaign implies: the worked configurations when it says so,
#   then per family the examples split by share (largest remainders), task seeds
#   seed * SEED_STRIDE + j, names FAMILY-SEED, dimensions cycled through the family's list, sizes
#   and alphas among the family's;
# - every planned task has exactly one record, with that task and a configuration whose sha256
#   is the planned one; no record is unplanned or repeated;
# - the worked configurations are those of docs/theory.md §4 (embedded below, typed
#   independently of verify/core/worked.py; a test compares them);
# - a campaign inside the theorem's hypotheses holds only configurations inside them (decided
#   here, as for every run).
#
# What the generators drew (each size and alpha within its range, the tokens) is not re-derived
# here: `hardmax-verify report --recheck` regenerates the plan with the suite's own generators.

CAMPAIGN = "(campaign)"  # outcomes about a results.json's campaign, plan and records as a whole
SEED_STRIDE = 10_000  # a generated task's seed: campaign seed * SEED_STRIDE + its index in its family
WORKED_FAMILY = "worked"
# docs/theory.md §4, with the suite's seeds for the random points: d = 2, A = I, alpha = 1/2.
WORKED_ALPHA = "1/2"
WORKED_TOKENS: dict[str, tuple[tuple[str, str], ...]] = {
    "emerging_leader": (("1", "1/3"), ("-1/12", "1/12"), ("-1", "-1"), ("0", "1/4"), ("-3/10", "-7/10"),
                        ("-3/5", "-9/10"), ("4/5", "1/10"), ("3/5", "3/20")),
    "triangle": (("1", "1"), ("1/2", "-1/2"), ("-1", "-1"), ("9/20", "1/2"), ("3/4", "19/20"), ("-1", "-17/20"),
                 ("-3/20", "-1/20"), ("3/10", "-1/5"), ("1/10", "-1/5")),
    "square": (("1", "1"), ("1", "-1"), ("-1", "1"), ("-1", "-1"), ("7/20", "-1/4"), ("-2/5", "-1/5"),
               ("-1/10", "7/20"), ("-1/20", "-9/20"), ("-3/20", "1/10"), ("7/20", "1/4")),
    "non_leader_clusters": (("1", "1"), ("1", "-1"), ("-1", "1"), ("-1", "-1"), ("-1/2", "0"), ("1/2", "0"),
                            ("3/10", "-2/5"), ("-3/10", "-1/4"), ("-3/10", "3/10"), ("7/20", "1/10")),
}
_GENERATED_KEYS = ("kind", "family", "seed", "name", "n", "d", "alpha", "options")
_SHA256 = re.compile(r"\A[0-9a-f]{64}\Z")


class DecimalText(str):
    """A JSON decimal as its text (how :func:`check_file` reads non-integers): exact, and written back
    verbatim by :func:`canonical_json`."""


def canonical_json(value: Any) -> str:
    """The canonical text of a JSON value: keys sorted, no whitespace, non-ASCII kept as it is,
    numbers as Python's ``json`` writes them (a decimal read by :func:`check_file` as its text).

    The definition the suite uses for the plan's hashes (verify.app.campaign.plan), implemented here
    separately. Raises ValueError for what is not JSON (NaN, a non-string key, another type).
    """
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:  # iterative: a deep value cannot exhaust the recursion limit
        item = stack.pop()
        if isinstance(item, _Raw):
            out.append(item)
        elif item is None:
            out.append("null")
        elif item is True or item is False:
            out.append("true" if item else "false")
        elif isinstance(item, DecimalText):
            out.append(str.__str__(item))
        elif isinstance(item, str):
            out.append(json.dumps(item, ensure_ascii=False))
        elif isinstance(item, int):
            out.append(int.__repr__(item))
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise ValueError(f"{item!r} is not a JSON number")
            out.append(float.__repr__(item))
        elif isinstance(item, (list, tuple)):
            parts: list[Any] = [_Raw("[")]
            for index, element in enumerate(item):
                parts += [_Raw(",")] * (index > 0) + [element]
            stack.extend(reversed(parts + [_Raw("]")]))
        elif isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                raise ValueError("an object key is not a string")
            parts = [_Raw("{")]
            for index, key in enumerate(sorted(item)):
                parts += [_Raw(",")] * (index > 0) + [_Raw(json.dumps(key, ensure_ascii=False) + ":"), item[key]]
            stack.extend(reversed(parts + [_Raw("}")]))
        else:
            raise ValueError(f"a {type(item).__name__} is not JSON")
    return "".join(out)


class _Raw(str):
    """Text :func:`canonical_json` emits as it is (brackets, separators, a key)."""


def canonical_sha256(value: Any) -> str:
    """The sha256 (hex) of :func:`canonical_json` encoded as UTF-8."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def _digest(value: Any) -> str | None:
    try:
        return canonical_sha256(value)
    except (ValueError, UnicodeEncodeError):  # NaN, a lone surrogate: not one canonical text
        return None


def _count(value: Any, low: int = 0) -> int | None:
    """A JSON integer >= ``low`` (never a boolean), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= low else None


def _family_counts(examples: int, shares: list[int]) -> list[int]:
    """``examples`` split by share, largest remainders first, ties in listed order (as the suite plans)."""
    total = sum(shares)
    if total == 0 or examples == 0:
        return [0] * len(shares)
    exact = [Fraction(examples * s, total) for s in shares]
    counts = [math.floor(x) for x in exact]
    order = sorted(range(len(shares)), key=lambda i: (-(exact[i] - counts[i]), i))
    for i in order[:examples - sum(counts)]:
        counts[i] += 1
    return counts


def _implied_tasks(campaign: dict, planned: int) -> list[dict] | str:
    """The task list ``campaign`` implies, as skeletons {kind, family, seed, name, and for a generated
    task: d, n_range, alphas, options}, or why the campaign block cannot imply one.

    ``planned`` (the plan's length, bounded by the file) caps the loops: a campaign implying a
    different number of tasks is refused before any is built.
    """
    seed = _count(campaign.get("seed"))
    examples = _count(campaign.get("examples"))
    worked = campaign.get("worked")
    families = campaign.get("families")
    if seed is None or examples is None or not isinstance(worked, bool) or not isinstance(families, list):
        return "campaign: expected a seed, a number of examples, worked (true/false) and a list of families"
    if examples + len(WORKED_TOKENS) * worked != planned:
        return (f"campaign: {examples} generated {'and 4 worked ' if worked else ''}configurations make "
                f"{examples + len(WORKED_TOKENS) * worked} tasks, the plan lists {planned}")
    shares = []
    for index, family in enumerate(families):
        where = f"campaign.families[{index}]"
        if not isinstance(family, dict) or not isinstance(family.get("name"), str):
            return f"{where}: expected an object with a name"
        n_range, dims, alphas = family.get("n"), family.get("d"), family.get("alpha")
        if _count(family.get("share")) is None or not (
                isinstance(n_range, list) and len(n_range) == 2 and all(_count(x, 1) is not None for x in n_range)
                and isinstance(dims, list) and dims and all(_count(x, 1) is not None for x in dims)
                and isinstance(alphas, list) and alphas and all(isinstance(a, str) for a in alphas)
                and isinstance(family.get("options"), dict)):
            return f"{where}: expected share, n = [low, high], a list d, a list alpha and options"
        shares.append(family["share"])
    if len({f["name"] for f in families}) != len(families):
        return "campaign.families: a family appears twice"
    tasks: list[dict] = []
    if worked:
        tasks += [{"kind": "worked", "family": WORKED_FAMILY, "seed": index, "name": name}
                  for index, name in enumerate(WORKED_TOKENS)]
    for family, count in zip(families, _family_counts(examples, shares)):
        if count > SEED_STRIDE:
            return f"campaign: family {family['name'][:40]!r} would hold {count} examples, more than {SEED_STRIDE}"
        for j in range(count):
            task_seed = seed * SEED_STRIDE + j
            tasks.append({"kind": "generated", "family": family["name"], "seed": task_seed,
                          "name": f"{family['name']}-{task_seed}", "d": family["d"][j % len(family["d"])],
                          "n_range": family["n"], "alphas": family["alpha"], "options": family["options"]})
    tasks.sort(key=lambda t: (t["kind"] != "worked", t["family"], t["seed"], t["name"]))
    return tasks


def _plan_entry_problem(entry: Any, implied: dict) -> str | None:
    """Why a plan entry is not the task the campaign implies at its place (None: it is)."""
    if not isinstance(entry, dict):
        return "expected an object"
    keys = ("kind", "family", "seed", "name") if implied["kind"] == "worked" else _GENERATED_KEYS
    if set(entry) != set(keys) | {"configuration_sha256"}:
        return f"expected the keys {sorted(set(keys) | {'configuration_sha256'})}"
    if not (isinstance(entry["configuration_sha256"], str) and _SHA256.match(entry["configuration_sha256"])):
        return "configuration_sha256 is not a sha256"
    for key in ("kind", "family", "seed", "name"):
        if entry[key] != implied[key] or isinstance(entry[key], bool):
            return f"{key} is {str(entry[key])[:60]!r}, the campaign implies {str(implied[key])[:60]!r}"
    if implied["kind"] == "worked":
        return None
    low, high = implied["n_range"]
    if _count(entry["n"], low) is None or entry["n"] > high:
        return f"n is {str(entry['n'])[:20]}, outside the family's range {low}..{high}"
    if entry["d"] != implied["d"] or isinstance(entry["d"], bool):
        return f"d is {str(entry['d'])[:20]}, the campaign implies {implied['d']}"
    if entry["alpha"] not in implied["alphas"]:
        return f"alpha {str(entry['alpha'])[:40]} is not among the family's {implied['alphas'][:8]}"
    if canonical_json(entry["options"]) != canonical_json(implied["options"]):
        return "options are not the family's"
    return None


def _campaign_problems(data: dict, examples: list) -> list[tuple[str, str]]:
    """(where, why) for everything that ties the records to the campaign and does not hold."""
    campaign, plan = data.get("campaign"), data.get("plan")
    if not isinstance(campaign, dict):
        return [("campaign", "the file states no campaign")]
    if not (isinstance(plan, dict) and isinstance(plan.get("tasks"), list) and isinstance(plan.get("campaign_sha256"), str)):
        return [("plan", "the file holds no plan (the task list fixed before any task ran), so nothing shows "
                         "that every planned configuration has its record")]
    entries = plan["tasks"]
    problems: list[tuple[str, str]] = []
    digest = _digest(campaign)
    if digest != plan["campaign_sha256"]:
        problems.append(("plan.campaign_sha256", f"is {plan['campaign_sha256'][:64]!r}, but the campaign block's "
                                                 f"sha256 is {digest}: the plan was not made from this campaign"))
    if _count(campaign.get("tasks")) != len(entries):
        problems.append(("campaign.tasks", f"says {str(campaign.get('tasks'))[:20]} tasks, the plan lists {len(entries)}"))
    implied = _implied_tasks(campaign, len(entries))
    if isinstance(implied, str):
        problems.append(("plan", implied))
    else:
        for index, (entry, task) in enumerate(zip(entries, implied)):
            problem = _plan_entry_problem(entry, task)
            if problem is not None:
                problems.append((f"plan.tasks[{index}]", problem))
                break
    problems += _record_problems(campaign, entries, examples)
    return problems


def _record_problems(campaign: dict, entries: list, examples: list) -> list[tuple[str, str]]:
    """Exactly one record per planned task, in the plan's order, each the planned task and configuration."""
    def name_of(item: Any, key: str) -> Any:
        holder = item.get(key) if key and isinstance(item, dict) else item
        return holder.get("name") if isinstance(holder, dict) else None

    problems: list[tuple[str, str]] = []
    planned = [name_of(e, "") for e in entries]
    recorded = [name_of(r, "task") for r in examples]
    for names, what in ((planned, "plan.tasks"), (recorded, "examples")):
        seen: set = set()
        for name in names:
            if not isinstance(name, str) or name in seen:
                problems.append((what, f"the name {str(name)[:60]!r} is {'not a name' if not isinstance(name, str) else 'used twice'}"))
                break
            seen.add(name)
    missing = [n for n in planned if n not in set(recorded)]
    unplanned = [n for n in recorded if n not in set(planned)]
    if missing:
        problems.append(("examples", f"{len(missing)} planned task(s) have no record: {', '.join(map(str, missing[:5]))[:200]}"))
    if unplanned:
        problems.append(("examples", f"{len(unplanned)} record(s) were not planned: {', '.join(map(str, unplanned[:5]))[:200]}"))
    if problems or len(entries) != len(examples):
        return problems or [("examples", f"{len(examples)} records for {len(entries)} planned tasks")]
    inside = campaign.get("outside_hypotheses") is not True
    float_check = campaign.get("float_check")
    for index, (entry, record) in enumerate(zip(entries, examples)):
        where = f"examples[{index}] ({str(planned[index])[:60]})"
        if not isinstance(record, dict) or not isinstance(entry, dict):
            problems.append((where, "expected a record object"))
            continue
        task = {key: value for key, value in entry.items() if key != "configuration_sha256"}
        if _digest(record.get("task")) != _digest(task):
            problems.append((where, f"its task is not the planned task at its place (plan.tasks[{index}])"))
            continue
        if record.get("status") == "error":
            continue
        config = record.get("configuration")
        digest = _digest(config)
        if digest != entry.get("configuration_sha256"):
            problems.append((where, f"its configuration's sha256 is {digest}, the plan's is "
                                    f"{str(entry.get('configuration_sha256'))[:64]}: not the planned configuration"))
            continue
        problem = _identity_problem(entry, config) or (_hypotheses_in_campaign(cast(dict, config)) if inside else None)
        if problem is not None:
            problems.append((where, problem))
        if isinstance(float_check, bool) and isinstance(record.get("float_comparison"), dict) is not float_check:
            problems.append((where, f"the campaign says float_check = {str(float_check).lower()}, but the record "
                                    f"{'lacks' if float_check else 'holds'} a float comparison"))
    return problems


def _identity_problem(entry: dict, config: Any) -> str | None:
    """A worked configuration must be docs/theory.md §4's; a generated one must have the planned n, d and alpha."""
    try:
        m = _model(config)
    except BadInput as error:
        return f"its configuration is malformed ({error})"
    if entry.get("kind") == "worked":
        expected = [tuple(Fraction(c) for c in token) for token in WORKED_TOKENS[entry["name"]]]
        identity = [[Fraction(int(r == c)) for c in range(m.d)] for r in range(m.d)]
        if (m.layer(0) != expected or m.alpha != Fraction(WORKED_ALPHA) or m.A != identity or m.V is not None
                or config.get("beta") is not None):
            return (f"the worked configuration {entry['name']!r} is not the one of docs/theory.md §4 "
                    f"({len(expected)} tokens in d = 2, A = I, alpha = {WORKED_ALPHA})")
        return None
    if (m.n, m.d) != (entry.get("n"), entry.get("d")):
        return f"its configuration has n = {m.n}, d = {m.d}; the plan says n = {entry.get('n')}, d = {entry.get('d')}"
    try:
        planned_alpha = _number(entry.get("alpha"), "alpha")
    except Rejected:
        return f"the planned alpha {str(entry.get('alpha'))[:40]!r} is not a number"
    if m.alpha != planned_alpha:
        return f"its configuration has alpha = {m.alpha}, the plan says {planned_alpha}"
    return None


def _hypotheses_in_campaign(config: dict) -> str | None:
    """In a campaign inside the theorem's hypotheses (docs/theory.md §2), why ``config`` is outside them."""
    m = _model(config)
    violations = _hypothesis_violations(config, m)
    if config.get("beta") is not None:
        violations.append("softmax attention (beta) is not the theorem's model")
    if config.get("outside_hypotheses") is True and not violations:
        violations.append("it records outside_hypotheses: true")
    if violations:
        return ("the campaign is inside the theorem's hypotheses (outside_hypotheses is not true), but this "
                f"configuration is not: {'; '.join(violations)[:200]}")
    return None


# --------------------------------------------------------------------------- optional sections: the saved results the first screen quotes
#
# A report's optional sections (the sentiment experiment, its reproduction, the conjecture lab,
# exact classification) are built from saved result files under a runs folder. Each block of
# ``optional_sections`` lists its files with their sha256 and the fields it copied from them,
# and ``glance``: the numbers the section's line on the report's first screen prints. Given the
# folder, this checks, with its own code: every listed file and figure has the stated sha256;
# the block lists exactly the files of its folder that match its patterns (and the report's
# ``inputs`` list says the same); every copied field is the file's; and the glance numbers are
# what this module computes from the files. Without the folder nothing is read, and the section
# is reported *not checked*, never verified.

SECTIONS = "(sections)"  # outcomes about a results.json's optional sections
NOT_CHECKED = "not checked"
# Which saved results each section is built from: (folder under the runs folder, file patterns),
# as verify/app/report/build.py's OPTIONAL_SECTIONS reads them (a test compares the two).
SECTION_FILES: dict[str, tuple[str, tuple[str, ...]]] = {
    "sentiment": ("sentiment", ("*.json", "*/checkpoint.json", "*/analysis.json")),
    "reproduction": ("sentiment/summary", ("summary.json",)),
    "conjectures": ("conjectures", ("*.json", "power/power.json")),
    "classify": ("classify", ("imdb.json", "scaling.json")),
    "control": ("control", ("study.json",)),
}
DEFAULT_RUNS = "runs"  # the folder name a report gives the project's saved results
# The outcomes a conjecture's expectation predicts (verify/experiments/conjectures/base.py's EXPECTATIONS;
# "held" is reserved for a proof, a search that finds nothing says "not refuted").
CONJECTURE_PREDICTS = {"held": ("held", "not refuted"), "refuted": ("counterexample",)}
CONJECTURE_DECIDED = ("held", "not refuted", "counterexample")
# The lab's search-power file (bench/conjecture_power.py) is one of the section's files, not a run.
CONJECTURE_POWER_FORMAT = "hardmax-verify/conjecture-power-v1"
SENTIMENT_EVALUATION_FIELDS = ("checkpoint", "d", "protocol", "epoch", "reviews", "hardmax_accuracy",
                               "softmax_accuracy", "exact_path", "hardmax_seconds", "validation_accuracy")
SENTIMENT_SOFTMAX_KIND = "sentiment-softmax-certificate"  # runs/sentiment/softmax-certificate.json
SUMMARY_FIELDS, SUMMARY_LINES, SUMMARY_TEXT = 16, 200, 200  # a file's scalar summary, as the report keeps it


# The keys a section's block, a saved file's item and a figure may have (verify/app/report/build.py
# and each provider's item_fields); any other key is refused before checking, so that nothing a
# renderer might show rides along unchecked.
SECTION_BLOCK_KEYS = frozenset({"directory", "files", "skipped", "figures", "glance"})
SECTION_ITEM_KEYS = frozenset({"path", "sha256", "summary"})
SECTION_ITEM_FIELDS: dict[str, frozenset] = {
    "sentiment": frozenset({"analysis_rows", "evaluation", "softmax_certificate"}),
    "reproduction": frozenset({"reproduction_tables", "sentence", "runs", "notes", "protocol"}),
    "conjectures": frozenset({"power"}),
    "classify": frozenset({"imdb", "scaling"}),
    "control": frozenset({"study"}),
}
SECTION_FIGURE_KEYS = frozenset({"path", "sha256", "file"})
SECTION_PARSE_BYTES = 256 << 20  # bytes of saved files parsed as JSON for one results.json, in all


def _section_keys(sections: Any, source: str) -> None:
    """Refuse (BadInput, exit 2) a key that a section's block, item or figure does not have."""
    if not isinstance(sections, dict):
        return  # rejected with the sections' outcomes
    for key, block in sections.items():
        where = f"{source}.optional_sections.{str(key)[:40]}"
        if not isinstance(block, dict):
            continue
        unknown = sorted(str(k) for k in block if k not in SECTION_BLOCK_KEYS)
        if unknown:
            raise BadInput(f"{where}.{unknown[0][:40]}", "not a key of a section (a block holds "
                                                         f"{', '.join(sorted(SECTION_BLOCK_KEYS))})")
        allowed = SECTION_ITEM_KEYS | SECTION_ITEM_FIELDS.get(key, frozenset())
        for name, listed, keys in (("files", block.get("files"), allowed), ("figures", block.get("figures"),
                                                                            SECTION_FIGURE_KEYS)):
            for index, item in enumerate(listed if isinstance(listed, list) else []):
                if isinstance(item, dict):
                    unknown = sorted(str(k) for k in item if k not in keys)
                    if unknown:
                        raise BadInput(f"{where}.{name}[{index}].{unknown[0][:40]}",
                                       f"not a key of a saved file's entry in this section ({', '.join(sorted(keys))})")


class _SectionLimit(Exception):
    """The saved results are beyond the checker's limits for them: the section is not checked."""


def runs_folder(runs: str | None, root: str) -> str | None:
    """The folder to read a section's saved results from (None: not available).

    ``runs`` (--runs DIR) when given. Otherwise the folder the section's paths start with
    (``root``, as the report wrote it), from the current folder; for the report's default name
    ``runs``, also the runs folder of the repository this checker runs from.
    """
    if runs is not None:
        return runs if os.path.isdir(runs) else None
    candidates = [root] if os.path.isabs(root) else [os.path.join(os.getcwd(), root)]
    if root == DEFAULT_RUNS:
        candidates.append(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), DEFAULT_RUNS))
    return next((c for c in candidates if os.path.isdir(c)), None)


def _section_outcomes(data: dict, source: str, runs: str | None, models: str | None = None) -> list[Outcome]:
    """One outcome per optional section with files: verified, rejected or not checked (``models``: the
    reproduction's published checkpoints; None: ``models/reproduction`` beside the runs folder)."""
    sections = data.get("optional_sections")
    if not isinstance(sections, dict):
        return [Outcome(f"{source}.optional_sections", SECTIONS, "rejected", "expected an object of sections")]
    outcomes = []
    budget = [MAX_SECTION_BYTES, SECTION_PARSE_BYTES]  # bytes still to hash and to parse, shared by the sections of one file
    for key, block in sections.items():
        where = f"{source}.optional_sections.{str(key)[:40]}"
        if not isinstance(block, dict) or not isinstance(block.get("files"), list):
            outcomes.append(Outcome(where, SECTIONS, "rejected", "expected an object with a list of files"))
            continue
        if not block["files"]:
            if "glance" in block:
                outcomes.append(Outcome(where, SECTIONS, "rejected", "glance numbers without any saved file"))
            continue
        if key not in SECTION_FILES:
            outcomes.append(Outcome(where, SECTIONS, NOT_CHECKED, f"certcheck has no routine for the section {str(key)[:40]!r}"))
            continue
        folder = SECTION_FILES[key][0]
        directory = block.get("directory")
        if not (isinstance(directory, str) and directory.endswith("/" + folder)):
            outcomes.append(Outcome(where, SECTIONS, "rejected", f"directory is {str(directory)[:80]!r}, expected ROOT/{folder}"))
            continue
        root = directory[:-len(folder) - 1]
        base = runs_folder(runs, root)
        if base is None:
            outcomes.append(Outcome(where, SECTIONS, NOT_CHECKED, (
                f"its {len(block['files'])} saved file(s) under {root}/ were not found "
                f"({'--runs ' + runs + ' is not a folder' if runs is not None else 'no folder ' + root + ' here'}); "
                "give the folder the report was built from with --runs DIR")))
            continue
        try:
            problems = _section_problems(key, block, base, root, data.get("inputs"), budget, models=models)
        except _SectionLimit as error:
            outcomes.append(Outcome(where, SECTIONS, NOT_CHECKED, str(error)))
            continue
        if problems:
            outcomes += [Outcome(where, SECTIONS, "rejected", p) for p in problems[:3]]
        else:
            figures = block.get("figures") or []
            outcomes.append(Outcome(where, SECTIONS, "verified",
                                    f"{len(block['files'])} file(s) and {len(figures)} figure(s) of {base} have the stated "
                                    "sha256; the copied fields and the glance numbers are recomputed from the files"))
    return outcomes


def _resolve(path: Any, root: str, base: str) -> str:
    """The file a listed path names under ``base`` (the path without its ``root``); Rejected otherwise."""
    _require(isinstance(path, str) and path.startswith(root + "/"), lambda: f"{str(path)[:80]!r} is not under {root}/")
    relative = path[len(root) + 1:]
    parts = relative.split("/")
    _require(all(p not in ("", ".", "..") for p in parts), lambda: f"{path[:80]!r} is not a plain path under {root}/")
    return os.path.join(base, *parts)


def _hash_file(path: str, budget: list) -> tuple[str, bytes | None]:
    """(sha256, the bytes when at most SECTION_READ_BYTES) of a regular file; Rejected if not one."""
    try:
        info = os.stat(path)
    except OSError as error:
        raise Rejected(f"{path}: {error.strerror or error}") from None
    _require(stat.S_ISREG(info.st_mode), lambda: f"{path}: not a regular file")
    if info.st_size > budget[0]:
        raise _SectionLimit(f"the saved results are more than {MAX_SECTION_BYTES} bytes in all, beyond what certcheck hashes")
    digest = hashlib.sha256()
    kept = bytearray() if info.st_size <= SECTION_READ_BYTES else None
    with open(path, "rb") as handle:
        while True:
            chunk = handle.read(1 << 20)
            if not chunk:
                break
            budget[0] -= len(chunk)
            if budget[0] < 0:
                raise _SectionLimit(f"the saved results are more than {MAX_SECTION_BYTES} bytes in all, beyond what "
                                    "certcheck hashes")
            digest.update(chunk)
            if kept is not None:
                kept += chunk
                if len(kept) > SECTION_READ_BYTES:
                    kept = None
    return digest.hexdigest(), None if kept is None else bytes(kept)


def _section_listing(base: str, folder: str, patterns: tuple) -> list[str]:
    """The files of ``base``/``folder`` matching ``patterns``, as paths relative to ``base`` (at most MAX_SECTION_FILES)."""

    directory = pathlib.Path(base) / folder
    if not directory.is_dir():
        return []
    found: set = set()
    for pattern in patterns:
        for path in itertools.islice(directory.glob(pattern), MAX_SECTION_FILES + 1):
            if path.is_file():
                found.add(path.relative_to(base).as_posix())
            if len(found) > MAX_SECTION_FILES:
                raise _SectionLimit(f"{directory} holds more than {MAX_SECTION_FILES} saved files, beyond what certcheck reads")
    return sorted(found)


def _section_problems(key: str, block: dict, base: str, root: str, inputs: Any, budget: list, *,
                      models: str | None = None) -> list[str]:
    """What does not hold between a section's block and the saved files under ``base``.

    Each file is hashed, parsed (within the bytes left of SECTION_PARSE_BYTES), its item compared
    with it, and what the first screen needs of it kept (:class:`_GlanceParts`); its parsed content
    is then dropped, so that memory holds one saved file at a time.
    """
    if len(budget) < 2:
        budget.append(SECTION_PARSE_BYTES)
    folder, patterns = SECTION_FILES[key]
    items, figures = block["files"], block.get("figures") or []
    if len(items) > MAX_SECTION_FILES or not isinstance(figures, list) or len(figures) > MAX_SECTION_FILES:
        raise _SectionLimit(f"the section lists more than {MAX_SECTION_FILES} files, beyond what certcheck reads")
    problems: list[str] = []
    listed = [item.get("path") if isinstance(item, dict) else None for item in items]
    present = [f"{root}/{p}" for p in _section_listing(base, folder, patterns)]
    if sorted(map(str, listed)) != present:
        extra = sorted(set(present) - set(map(str, listed)))
        gone = sorted(set(map(str, listed)) - set(present))
        return [f"it lists {len(listed)} file(s), the folder {base}/{folder} holds {len(present)} matching "
                f"{', '.join(patterns)}" + (f"; not listed: {', '.join(extra[:3])}" if extra else "")
                + (f"; not there: {', '.join(gone[:3])}" if gone else "")]
    parts = _GlanceParts(key, len(items))
    for index, item in enumerate(items):
        where = f"files[{index}] ({str(item.get('path'))[:80]})"
        try:
            digest, raw = _hash_file(_resolve(item["path"], root, base), budget)
            _require(item.get("sha256") == digest, lambda: f"sha256 is {str(item.get('sha256'))[:64]}, the file's is {digest}")
            if raw is not None:
                budget[1] -= len(raw)
                if budget[1] < 0:
                    raise _SectionLimit(f"the saved results are more than {SECTION_PARSE_BYTES} bytes to parse in all, "
                                        "beyond what certcheck reads")
            problem, data = _section_file_problem(key, item, raw, base, models=models)
            del raw
        except Rejected as error:
            problems.append(f"{where}: {error}")
            continue
        if problem:
            problems.append(f"{where}: {problem}")
        elif data is not _UNREADABLE:
            parts.add(item["path"], data)
        del data
    for index, figure in enumerate(figures):
        try:
            _require(isinstance(figure, dict), "expected an object")
            digest, _ = _hash_file(_resolve(figure.get("path"), root, base), budget)
            _require(figure.get("sha256") == digest, lambda: f"sha256 is {str(figure.get('sha256'))[:64]}, the file's is {digest}")
        except Rejected as error:
            problems.append(f"figures[{index}]: {error}")
    problems += _inputs_problems(key, items, figures, inputs)
    if problems:
        return problems
    expected = parts.numbers()
    if isinstance(expected, _NoNumbers):
        return ["the saved files do not give the numbers the section's first-screen line prints"]
    if expected is not None and not _same_json(block.get("glance"), expected):
        problems.append(f"glance is {_brief_json(block.get('glance'))}, the files give {_brief_json(expected)}")
    return problems


class _Unreadable(str):
    """A saved file the report could not read (its item then carries only path, sha256 and the reason)."""


_UNREADABLE = _Unreadable()


def _section_file_problem(key: str, item: dict, raw: bytes | None, base: str, *,
                          models: str | None = None) -> tuple[str | None, Any]:
    """(why the item's copied fields are not the file's, or None; the file's parsed content, or _UNREADABLE)."""
    data: Any = None
    try:
        data = None if raw is None else json.loads(raw.decode("utf-8"), parse_float=DecimalText)
    except (ValueError, UnicodeDecodeError, RecursionError):
        data = None
    summary = item.get("summary")
    if isinstance(summary, dict) and set(summary) == {"unreadable"}:
        # The report could not read it: too big, not JSON, or (classification, the search-power file) not the format expected.
        if data is not None and key not in ("classify", "conjectures"):
            return "the item says the file is unreadable, but it reads as JSON", _UNREADABLE
        extra = set(item) - {"path", "sha256", "summary"}
        return (f"an unreadable file's item carries {sorted(extra)}" if extra else None), _UNREADABLE
    if data is None:
        return "the file is not readable JSON, but the item holds fields read from it", _UNREADABLE
    if not _same_json(summary, _scalar_summary(data)):
        return "its summary fields are not the file's", data
    return _copied_fields(key, item, data, base, models=models), data


def _scalar(value: Any) -> bool:
    return (isinstance(value, (int, bool, DecimalText)) or (isinstance(value, str) and len(value) <= SUMMARY_TEXT)
            or isinstance(value, float))


def _scalar_summary(data: Any) -> dict:
    """The top-level scalars of a saved file and one level of small objects ("best.val_acc"), as the
    report keeps them beside the file (at most SUMMARY_FIELDS, then the file's own ``lines``)."""
    if not isinstance(data, dict):
        return {}
    summary: dict = {}
    for key, value in data.items():
        if len(summary) >= SUMMARY_FIELDS:
            break
        if _scalar(value):
            summary[str(key)] = value
        elif isinstance(value, dict) and value and len(value) <= 6 and all(_scalar(v) for v in value.values()):
            for inner, v in value.items():
                summary[f"{key}.{inner}"] = v
    lines = data.get("lines")
    if isinstance(lines, list) and lines and all(isinstance(x, str) for x in lines):
        summary["lines"] = lines[:SUMMARY_LINES]
        if len(lines) > SUMMARY_LINES:
            summary["lines_omitted"] = len(lines) - SUMMARY_LINES
    return summary


def _copied_fields(key: str, item: dict, data: Any, base: str = "", *, models: str | None = None) -> str | None:
    """Why a field the report copied from the file into the item is not the file's (None: all are)."""
    def get(obj: Any, *keys: str) -> Any:
        for k in keys:
            obj = obj.get(k) if isinstance(obj, dict) else None
        return obj

    if key == "sentiment":
        is_evaluation = _num(get(data, "hardmax_accuracy")) is not None
        if is_evaluation != ("evaluation" in item):
            return "an evaluation row where the file has no accuracy, or none where it has one"
        if is_evaluation:
            row = {k: data.get(k) for k in SENTIMENT_EVALUATION_FIELDS}
            row["like_for_like_epoch"] = get(data, "softmax_best_test_epoch", "epoch")
            row["like_for_like_accuracy"] = get(data, "softmax_best_test_epoch", "test_acc")
            if not _same_json(item["evaluation"], row):
                return "its evaluation row is not the file's"
        rows = item.get("analysis_rows")
        if (rows is not None) != str(item.get("path", "")).endswith("/analysis.json"):
            return "analysis rows on a file that is not an analysis.json, or none on one"
        if rows is not None and not _same_json(rows, _analysis_rows(data)):
            return "its analysis rows are not the file's"
        is_certificate = isinstance(data, dict) and data.get("kind") == SENTIMENT_SOFTMAX_KIND
        if is_certificate != ("softmax_certificate" in item):
            return "softmax agreement counts on a file that is not a softmax certificate, or none on one"
        if is_certificate:
            by_d = data.get("by_d") if isinstance(data.get("by_d"), list) else []
            wanted = {"by_d": [g for g in by_d if isinstance(g, dict)], "summary": data.get("summary")}
            if not _same_json(item["softmax_certificate"], wanted):
                return "its softmax agreement counts or sentence are not the file's"
    elif key == "reproduction":
        wanted_item = _reproduction_item(data)
        shown = {k: item[k] for k in SECTION_ITEM_FIELDS["reproduction"] if k in item}
        if not _same_json(shown, wanted_item):
            differing = sorted(k for k in set(shown) | set(wanted_item) if not _same_json(shown.get(k), wanted_item.get(k)))
            return f"its {', '.join(differing)} are not the file's"
        if "reproduction_tables" in wanted_item:
            return _reproduction_problem(data, base, models=models)
    elif key == "control":
        study = item.get("study")
        if study is not None:
            if not isinstance(study, dict):
                return "its study fields are not an object"
            shown = {k: v for k, v in study.items() if not (k == "two_clusterings" and v is None)}
            if not _projection(shown, data):
                return "its study fields are not the file's"
    elif key == "conjectures":
        if _is_power_file(data) != ("power" in item):
            return "a search-power table where the file is none, or none where it is one"
        if "power" in item and not _projection(item["power"], data):
            return "its search-power table is not the file's"
    elif key == "classify":
        if "imdb" in item:
            imdb = item["imdb"]
            if not isinstance(imdb, dict) or not _projection(
                    {k: v for k, v in imdb.items() if k not in ("seeds", "variants", "test_size", "source")}, data):
                return "its IMDb fields are not the file's"
            source = data.get("source") if isinstance(data.get("source"), dict) else {}
            if not _same_json(imdb.get("source"), {k: source[k] for k in ("data", "reference", "sequence_length", "split",
                                                                           "vocabulary") if k in source}):
                return "its IMDb source is not the file's"
            if not (_same_json(imdb.get("seeds"), [s for s in get(data, "seeds") or [] if _count(s, -10**9) is not None])
                    and _same_json(imdb.get("variants"), [v for v in get(data, "variants") or [] if isinstance(v, str)])
                    and _same_json(imdb.get("test_size"), data.get("test_size") if _count(data.get("test_size"), -10**9) is not None else None)):
                return "its IMDb seeds, variants or test size are not the file's"
        if "scaling" in item:
            scaling = item["scaling"]
            if not isinstance(scaling, dict) or not _projection(
                    {k: v for k, v in scaling.items() if k not in ("baseline_sizes", "baseline_lengths", "cpus")}, data):
                return "its scaling fields are not the file's"
            ints = lambda xs: [x for x in xs or [] if _count(x, -10**9) is not None]  # noqa: E731
            if not (_same_json(scaling.get("baseline_sizes"), ints(get(data, "plan", "baseline_sizes")))
                    and _same_json(scaling.get("baseline_lengths"), ints(get(data, "plan", "baseline_lengths")))
                    and _same_json(scaling.get("cpus"), data.get("cpus") if _count(data.get("cpus"), -10**9) is not None else None)):
                return "its scaling baseline sizes or cores are not the file's"
    return None


def _get_in(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _analysis_rows(data: Any) -> list[dict]:
    """The report's rows of an analysis.json (verify/experiments/sentiment/report_section.py's
    analysis_rows), rebuilt here: one per analysed model, then the authors' d = 2 embeddings."""
    rows: list[dict] = []
    entries = _get_in(data, "checkpoints") or []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        top = _get_in(entry, "leader_words", "top") or []
        rows.append({
            "model": entry.get("path"), "d": entry.get("d"), "epoch": entry.get("epoch"),
            "leaders": _get_in(entry, "leader_statistics"),
            "top_words": [w for w in (top if isinstance(top, list) else []) if isinstance(w, list) and len(w) == 2][:5],
            "reviews_selected": _get_in(entry, "leader_words", "reviews_selected"),
            "leader_polar_share": _get_in(entry, "lexicon", "leader_polar_share"),
            "all_polar_share": _get_in(entry, "lexicon", "all_polar_share"),
            "K_vs_converged": _get_in(entry, "K_vs_converged"),
            "unseen_words": _get_in(entry, "unseen_words"),
            "without_attention": _get_in(entry, "without_attention"),
            "T0": _get_in(entry, "hypotheses", "T0_leader_within_K"),
            "T2": _get_in(entry, "hypotheses", "T2_leader_limits_are_hull_vertices"),
            "T3": _get_in(entry, "hypotheses", "T3_limits_on_boundary_of_K"),
            "within_hypotheses": _get_in(entry, "hypotheses", "within_hypotheses"),
            "reviews": _get_in(entry, "hypotheses", "reviews"),
        })
    authors = _get_in(data, "authors_d2")
    for family in ("distinct", "padded"):
        part = _get_in(authors, family)
        if isinstance(part, dict):
            rows.append({
                "model": f"authors' d=2 embeddings, {family} samples", "d": 2, "epoch": 100,
                "leaders": part.get("leaders"), "top_words": [], "reviews_selected": None,
                "leader_polar_share": None, "all_polar_share": None,
                "K_vs_converged": part.get("K_vs_converged"), "T0": part.get("T0_leader_within_K"),
                "T2": part.get("T2_leader_limits_are_hull_vertices"), "T3": part.get("T3_limits_on_boundary_of_K"),
                "within_hypotheses": _get_in(authors, "samples") if family == "distinct" else 0,
                "reviews": _get_in(authors, "samples"), "certified_limits": part.get("certified_limits"),
            })
    return rows


def _display(value: Any) -> str:
    """A JSON scalar as Python's str() shows it after json.loads (a decimal's text is the float's repr)."""
    if isinstance(value, DecimalText):
        return repr(float(value))
    if value is None or isinstance(value, bool):
        return str(value)
    return str(value)


def _reproduction_item(data: Any) -> dict:
    """The fields the report copies from summary.json (reproduction_section.py's item_fields), rebuilt here."""
    if not isinstance(data, dict):
        return {}
    tables = []
    listed = data.get("tables") or []
    for table in listed if isinstance(listed, list) else []:
        if isinstance(table, dict) and isinstance(table.get("columns"), list) and isinstance(table.get("rows"), list):
            tables.append({"title": _display(table.get("title", "")), "columns": [_display(c) for c in table["columns"]],
                           "rows": [[_display(v) for v in row] for row in table["rows"] if isinstance(row, list)]})
    fields: dict = {"reproduction_tables": tables}
    if isinstance(data.get("summary"), str):
        fields["sentence"] = data["summary"]
    runs = data.get("runs")
    if isinstance(runs, dict):
        fields["runs"] = {"finished": runs.get("finished"), "planned": runs.get("planned")}
    notes = data.get("notes")
    if isinstance(notes, list):
        fields["notes"] = [_display(note) for note in notes]
    protocol = data.get("protocol")
    if isinstance(protocol, dict):
        fields["protocol"] = {"file": protocol.get("file"), "sha256": protocol.get("sha256")}
    return fields


# The reproduction's tables (verify/experiments/sentiment/summary.py) recomputed from the per-run
# records, not read from summary.json: each cell is the mean ± sample sd over a cell's finished
# seeds, computed here exactly (fractions) and compared with the text shown at its 4 decimals.
REPRODUCTION_RECORDS = ("sentiment", "protocol")  # the per-run records under the runs folder
REPRODUCTION_RECORD_BYTES = 64 << 20  # bytes of per-run records read, in all
# The published checkpoints (``sentiment protocol collect --models``), whose training histories give the
# training-length table's validation-loss columns and the notes' "validation loss lowest at epoch N".
DEFAULT_MODELS = ("models", "reproduction")  # beside the runs folder
CHECKPOINT_HISTORY_BYTES = 64 << 20  # bytes of checkpoint.json files read, in all (one held at a time)
PROTOCOL_FILE_BYTES = 1 << 20
# The authors' softmax test accuracies (docs/theory.md §5), shown next to the reproduction.
AUTHORS_SOFTMAX_TEST_ACCURACY = {2: "0.7914", 4: "0.8228", 8: "0.8505", 16: "0.8821"}
_ROUNDING_NOISE = Fraction(1, 10 ** 12)  # a float mean or sd may sit this close to a rounding boundary
_CELL = re.compile(r"\A(-?[0-9]+\.[0-9]{4})(?: ± ([0-9]+\.[0-9]{4}))?(?: \(([0-9]+) of ([0-9]+) seeds\))?\Z")
_DIFFERENCE = re.compile(r"\A([+-][0-9]+\.[0-9]{4}) ± ([0-9]+\.[0-9]{4})\Z")


class _Cell(NamedTuple):
    n: int
    mean: Fraction | None
    variance: Fraction | None  # sample variance (n - 1 in the denominator); None below two values


def _cell_of(values: list) -> _Cell:
    exact = [Fraction(str.__str__(v)) if isinstance(v, DecimalText) else Fraction(v) for v in values if v is not None]
    if not exact:
        return _Cell(0, None, None)
    mean = sum(exact, Fraction(0)) / len(exact)
    variance = sum(((x - mean) ** 2 for x in exact), Fraction(0)) / (len(exact) - 1) if len(exact) > 1 else None
    return _Cell(len(exact), mean, variance)


def _sqrt(x: Fraction) -> Fraction:
    """sqrt(x) to within 10^-20 (x >= 0)."""
    scale = 10 ** 20
    return Fraction(math.isqrt(x.numerator * scale * scale // x.denominator), scale)


def _rounded(text: str, value: Fraction, places: int) -> bool:
    """``text`` is ``value`` rounded to ``places`` decimals (up to float noise at the boundary)."""
    try:
        shown = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return False
    return abs(shown - value) <= Fraction(1, 2 * 10 ** places) + _ROUNDING_NOISE


def _cell_problem(text: Any, cell: _Cell, planned: int | None) -> str | None:
    if cell.n == 0:
        return None if text == "not run yet" else f"{str(text)[:60]!r} where no seed has finished"
    match = _CELL.match(text) if isinstance(text, str) else None
    if match is None:
        return f"{str(text)[:60]!r} is not a mean ± sd"
    mean, sd, finished, of = match.groups()
    assert cell.mean is not None
    if not _rounded(mean, cell.mean, 4):
        return f"{text!r}: the mean of its {cell.n} seed(s) is {float(cell.mean):.6f}"
    if (sd is None) != (cell.variance is None) or (sd is not None and cell.variance is not None
                                                   and not _rounded(sd, _sqrt(cell.variance), 4)):
        return f"{text!r}: the sd of its {cell.n} seed(s) is " + (
            "undefined" if cell.variance is None else f"{float(_sqrt(cell.variance)):.6f}")
    wanted = (str(cell.n), str(planned)) if planned is not None and cell.n < planned else (None, None)
    if (finished, of) != wanted:
        return f"{text!r}: {cell.n} of {planned} planned seeds finished"
    return None


def _protocol_runs(document: Any) -> list[dict] | str:
    """The protocol's runs in queue order (verify/experiments/sentiment/protocol.py's expand), or why not."""
    studies = document.get("study") if isinstance(document, dict) else None
    if not isinstance(studies, list) or not studies or len(studies) > 100:
        return "the protocol file has no [[study]] tables"
    runs: dict[str, dict] = {}
    for study in studies:
        lists: list[Any] = [study.get(k) if isinstance(study, dict) else None for k in ("d", "layers", "seeds")]
        alphas: Any = study.get("fixed_alpha", [None]) if isinstance(study, dict) else None
        if not (all(isinstance(x, list) and x and all(_count(v) is not None for v in x) for x in lists)
                and isinstance(alphas, list) and isinstance(study.get("name"), str)
                and isinstance(study.get("phase", 1), int)):
            return "a study of the protocol file is not one the suite reads"
        if math.prod(len(x) for x in lists) * len(alphas) > 1000:
            return "the protocol plans more than 1000 runs"
        for d in lists[0]:
            for k in lists[1]:
                for seed in lists[2]:
                    for alpha in alphas:
                        if alpha is not None and (isinstance(alpha, bool) or not isinstance(alpha, (int, float))):
                            return "a fixed_alpha of the protocol file is not a number"
                        alpha = None if alpha is None else float(alpha)
                        name = f"d{d}-K{k}" + ("" if alpha is None else f"-alpha{alpha:g}") + f"-s{seed}"
                        previous = runs.get(name)
                        runs[name] = {"name": name, "d": d, "layers": k, "seed": seed, "fixed_alpha": alpha,
                                      "phase": min(study.get("phase", 1), previous["phase"]) if previous else study.get("phase", 1),
                                      "studies": (previous["studies"] if previous else ()) + (study["name"],)}
    return sorted(runs.values(), key=lambda r: (r["phase"], r["seed"], r["d"], -r["layers"],
                                                 -1.0 if r["fixed_alpha"] is None else r["fixed_alpha"]))


_RECORD_FIELDS = ("hardmax_accuracy", "softmax_accuracy", "validation_accuracy", "alpha", "epochs_completed", "epoch")


def _run_records(folder: str) -> tuple[dict, dict] | str:
    """(evaluations, interpretations) by run name: the fields the tables use of each per-run record."""
    try:
        names = sorted(entry.name for entry in os.scandir(folder) if entry.name.endswith(".json") and entry.is_file())
    except OSError as error:
        raise _SectionLimit(f"the per-run records {folder} cannot be listed ({error.strerror or error})") from None
    if len(names) > MAX_SECTION_FILES:
        raise _SectionLimit(f"{folder} holds more than {MAX_SECTION_FILES} records, beyond what certcheck reads")
    evaluations: dict = {}
    interpretations: dict = {}
    left = REPRODUCTION_RECORD_BYTES
    for name in names:
        path = os.path.join(folder, name)
        size = os.path.getsize(path)
        left -= size
        if size > SECTION_READ_BYTES or left < 0:
            raise _SectionLimit(f"the per-run records in {folder} are more than certcheck reads "
                                f"({SECTION_READ_BYTES} bytes a file, {REPRODUCTION_RECORD_BYTES} in all)")
        try:
            with open(path, "rb") as handle:
                record = json.loads(handle.read(SECTION_READ_BYTES + 1).decode("utf-8"), parse_float=DecimalText)
        except (OSError, ValueError, UnicodeDecodeError, RecursionError):
            return f"the per-run record {name} is not readable JSON"
        if not isinstance(record, dict):
            return f"the per-run record {name} is not an object"
        if name.endswith(".interpret.json"):
            interpretations[name[:-len(".interpret.json")]] = {
                "clustering": (_get_in(record, "clustering", "leaders_per_review", "mean"),
                               _get_in(record, "clustering", "converged", "distance_K_to_converged_mean"),
                               _get_in(record, "clustering", "converged", "share_of_tokens_settled_by_K")),
                "flips": (_get_in(record, "deletion", "leaders_deleted", "flip_rate"),
                          _get_in(record, "deletion", "random_deleted", "flip_rate")),
                "polarity": (_get_in(record, "matched_polarity", "leader_polar_share"),
                             _get_in(record, "matched_polarity", "matched_non_leader_polar_share")),
                "vote": (_get_in(record, "leader_vote", "weighted_vote_accuracy"),
                         _get_in(record, "leader_vote", "model_accuracy_same_reviews")),
                "has_polarity_share": isinstance(record.get("matched_polarity"), dict)
                and "leader_polar_share" in record["matched_polarity"]}
        else:
            kept = {k: record.get(k) for k in _RECORD_FIELDS}
            kept["like_for_like"] = _get_in(record, "softmax_best_test_epoch", "test_acc")
            evaluations[name[:-len(".json")]] = kept
    return evaluations, interpretations


def _values(runs: list, evaluations: dict, key: str) -> list:
    values = [evaluations[r["name"]][key] for r in runs if r["name"] in evaluations]
    if any(v is not None and _num(v) is None for v in values):
        raise _NotANumber(key)
    return values


class _NotANumber(Exception):
    pass


def _expected_tables(runs: list, evaluations: dict, interpretations: dict, common: dict,
                     histories: dict | None = None, unchecked: list | None = None) -> dict[str, list]:
    """Per table name, its rows as (text, check) pairs: ``check(text)`` gives why the text is wrong, or None.

    ``histories``: per run, its checkpoint's validation losses (:func:`_checkpoint_history`; a run
    missing: no checkpoint to read). A validation-loss cell shown for a run whose history could not
    be read is not checked: the reason is appended to ``unchecked``.
    """
    histories = {} if histories is None else histories
    unchecked = [] if unchecked is None else unchecked
    def of(study: str, **match: Any) -> list:
        return [r for r in runs if study in r["studies"] and all(r[k] == v for k, v in match.items())]

    def cell_check(values: list, planned: int | None = None) -> Callable[[Any], str | None]:
        cell = _cell_of(values)
        return lambda text: _cell_problem(text, cell, planned)

    def equal(wanted: str) -> Callable[[Any], str | None]:
        return lambda text: None if text == wanted else f"{str(text)[:60]!r} where the records give {wanted!r}"

    tables: dict[str, list] = {}
    rows = []
    for d in sorted({r["d"] for r in of("reproduction")}):
        cell_runs = of("reproduction", d=d)
        authors = AUTHORS_SOFTMAX_TEST_ACCURACY.get(d, "")
        rows.append([equal(str(d)), cell_check(_values(cell_runs, evaluations, "hardmax_accuracy"), len(cell_runs)),
                     cell_check(_values(cell_runs, evaluations, "softmax_accuracy")),
                     cell_check(_values(cell_runs, evaluations, "like_for_like")), equal(authors),
                     cell_check(_values(cell_runs, evaluations, "validation_accuracy")),
                     cell_check(_values(cell_runs, evaluations, "alpha"))])
    tables["reproduction"] = rows
    rows = []
    for c in _comparisons(runs, evaluations):
        difference_check, verdict_check = equal(""), equal("incomplete")
        if c.difference is not None and c.four_se2 is not None:
            difference_check = _difference_check(c.difference, _sqrt(c.four_se2))
            verdict_check = _verdict_check(c.difference, c.four_se2)
        rows.append([equal(str(c.d)), _cell_check(c.with_attention, c.planned[0]), _cell_check(c.baseline, c.planned[1]),
                     difference_check, verdict_check])
    tables["baselines"] = rows
    for study in ("depth-d2", "depth-d16"):
        study_runs = of(study)
        if study_runs:
            tables[study] = [[equal(str(k)), cell_check(_values([r for r in study_runs if r["layers"] == k], evaluations,
                                                                "hardmax_accuracy"), sum(r["layers"] == k for r in study_runs)),
                              cell_check(_values([r for r in study_runs if r["layers"] == k], evaluations,
                                                 "validation_accuracy"))]
                             for k in sorted({r["layers"] for r in study_runs})]
    study_runs = of("alpha-d2")
    if study_runs:
        rows = []
        for alpha in sorted({r["fixed_alpha"] for r in study_runs}):
            cell_runs = [r for r in study_runs if r["fixed_alpha"] == alpha]
            measures = [interpretations[r["name"]]["clustering"] for r in cell_runs if r["name"] in interpretations]
            rows.append([equal(f"{alpha:g}"), cell_check(_values(cell_runs, evaluations, "hardmax_accuracy"), len(cell_runs))]
                        + [cell_check([m[i] for m in measures]) for i in range(3)])
        tables["alpha-d2"] = rows
    rows = []
    for run in runs:
        found = interpretations.get(run["name"])
        if found is None or run["layers"] == 0:
            continue
        rows.append([equal(run["name"])] + [_decimal_check(v, 3, "") for v in found["flips"]]
                    + [_decimal_check(found["polarity"][0] if found["has_polarity_share"] else None, 3, "nan")]
                    + [_decimal_check(v if _num(v) else None, 3, "nan") for v in (found["polarity"][1], *found["vote"])])
    if rows:
        tables["interpretability"] = rows
    cap, patience = _count(common.get("epochs")), _count(common.get("patience"))
    rows = []
    for run in runs:
        record = evaluations.get(run["name"])
        ran, selected = (_count(record.get("epochs_completed")), _count(record.get("epoch"))) if record else (None, None)
        if ran is None or selected is None or cap is None or patience is None:
            continue
        how = (f"reached the {cap}-epoch cap, still improving" if ran >= cap and ran - selected < patience
               else f"early stop ({patience} epochs without a better validation accuracy)")
        history = histories.get(run["name"])
        if history is None or history.unchecked:
            reason = history.unchecked if history is not None else "no checkpoint history was found"
            loss_checks: list = [_unchecked_unless_empty(f"run {run['name']}'s validation losses: {reason}", unchecked)] * 2
        elif history.problem:
            loss_checks = [lambda text, problem=history.problem: problem] * 2
        else:
            loss_checks = [_lowest_loss_check(history), _loss_at_selected_check(history)]
        rows.append([equal(run["name"]), equal(str(ran)), equal(str(selected)), equal(how)] + loss_checks)
    if rows:
        tables["training-length"] = rows
    return tables


def _cell_check(cell: _Cell, planned: int | None) -> Callable[[Any], str | None]:
    return lambda text: _cell_problem(text, cell, planned)


class _Comparison(NamedTuple):
    """K = 8 against the trained K = 0 baseline at one d (the protocol's ``baseline-k0`` study)."""
    d: int
    with_attention: _Cell
    baseline: _Cell
    planned: tuple[int, int]
    difference: Fraction | None  # K = 8 mean minus K = 0 mean; None until both cells are complete
    four_se2: Fraction | None    # (2 se)^2 = 4 (var8/n8 + var0/n0), exactly


def _comparisons(runs: list, evaluations: dict) -> list[_Comparison]:
    """Per d of the baseline study, in increasing d: the two cells and, once both are complete (every
    planned seed finished, at least two each), the difference of their means and (2 se)^2."""
    def of(study: str, d: int) -> list:
        return [r for r in runs if study in r["studies"] and r["d"] == d]

    out = []
    for d in sorted({r["d"] for r in runs if "baseline-k0" in r["studies"]}):
        with_attention, baseline = of("reproduction", d), of("baseline-k0", d)
        a = _cell_of(_values(with_attention, evaluations, "hardmax_accuracy"))
        b = _cell_of(_values(baseline, evaluations, "hardmax_accuracy"))
        difference = four_se2 = None
        if a.n == len(with_attention) and b.n == len(baseline) and a.n > 1 and b.n > 1:
            assert a.mean is not None and b.mean is not None and a.variance is not None and b.variance is not None
            difference = a.mean - b.mean
            four_se2 = 4 * (a.variance / a.n + b.variance / b.n)
        out.append(_Comparison(d, a, b, (len(with_attention), len(baseline)), difference, four_se2))
    return out


def _verdicts(difference: Fraction, four_se2: Fraction) -> tuple[str, frozenset]:
    """(the protocol's verdict decided exactly, the verdicts accepted): helps when the difference exceeds
    2 se, hurts below -2 se, else no difference resolved. Within float noise of the boundary the
    summary's float arithmetic may fall either side, so both are accepted there."""
    squared = difference * difference
    exact = "no difference resolved" if squared <= four_se2 else "helps" if difference > 0 else "hurts"
    near = abs(squared - four_se2) <= _ROUNDING_NOISE * max(four_se2, Fraction(1, 10 ** 12))
    return exact, frozenset({exact, "no difference resolved", "helps" if difference > 0 else "hurts"} if near else {exact})


class _History(NamedTuple):
    """What the training-length table and its notes use of one run's checkpoint history."""
    lowest: Fraction | None      # the lowest validation loss (None: the history has none)
    lowest_epoch: int | None     # its epoch (the earliest, on a tie)
    at_selected: Any             # the validation loss at the selected epoch, as read (None: none recorded)
    problem: str | None = None   # the history is malformed (rejected)
    unchecked: str | None = None  # the history could not be read within the limits (not checked)


_LOWEST_LOSS = re.compile(r"\A(-?[0-9]+\.[0-9]{4}) \(([0-9]+)\)\Z")


def _checkpoint_history(path: str, selected: int, budget: list) -> _History | None:
    """The validation losses of ``path`` (a checkpoint.json; None: there is none), as
    verify/experiments/sentiment/summary.py's training_lengths uses them: entries of ``history`` with
    a numeric ``val_loss``; a file that is not a JSON object with a list ``history`` has none.
    ``budget``: [bytes still to read of CHECKPOINT_HISTORY_BYTES]."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return _History(None, None, None, problem=f"{path} is not a regular file")
    budget[0] -= info.st_size
    if info.st_size > SECTION_READ_BYTES or budget[0] < 0:
        return _History(None, None, None, unchecked=f"the checkpoint histories are more than certcheck reads "
                                                    f"({SECTION_READ_BYTES} bytes a file, {CHECKPOINT_HISTORY_BYTES} in all)")
    try:
        with open(path, "rb") as handle:
            meta = json.loads(handle.read(SECTION_READ_BYTES + 1).decode("utf-8"), parse_float=DecimalText)
    except (ValueError, UnicodeDecodeError, RecursionError):
        meta = None  # the summary reads no history from it either
    except OSError as error:
        return _History(None, None, None, unchecked=f"{path} cannot be read ({error.strerror or error})")
    history = meta.get("history") if isinstance(meta, dict) else None
    losses: list[tuple[Fraction, int, Any]] = []
    for entry in history if isinstance(history, list) else []:
        value = entry.get("val_loss") if isinstance(entry, dict) else None
        if not isinstance(value, (int, float, DecimalText)):
            continue  # the summary skips it too (a boolean, which it would not, is rejected below)
        if isinstance(value, float) and not math.isfinite(value):
            return _History(None, None, None, unchecked=f"{path} holds a validation loss that is not finite")
        epoch = entry.get("epoch")
        if isinstance(value, bool) or _count(epoch) is None:
            return _History(None, None, None, problem=f"{path}: a history entry's val_loss {str(value)[:20]} or epoch "
                                                      f"{str(epoch)[:20]} is not a number")
        losses.append((Fraction(str.__str__(value)) if isinstance(value, DecimalText) else Fraction(value), epoch, value))
    if not losses:
        return _History(None, None, None)
    lowest, lowest_epoch, _ = min(losses, key=lambda e: (e[0], e[1]))
    return _History(lowest, lowest_epoch, next((raw for _, epoch, raw in losses if epoch == selected), None))


def _checkpoint_histories(models: str, runs: list, evaluations: dict) -> dict[str, _History]:
    """Per finished run with a published checkpoint under ``models``: its history's validation losses
    (read one file at a time; only these few numbers are kept)."""
    budget = [CHECKPOINT_HISTORY_BYTES]
    histories: dict[str, _History] = {}
    if not os.path.isdir(models):
        return histories
    for run in runs:
        record = evaluations.get(run["name"])
        selected = _count(record.get("epoch")) if record else None
        if selected is None:
            continue
        found = _checkpoint_history(os.path.join(models, run["name"], "checkpoint.json"), selected, budget)
        if found is not None:
            histories[run["name"]] = found
    return histories


def _unchecked_unless_empty(reason: str, unchecked: list) -> Callable[[Any], str | None]:
    """A cell whose source could not be read: empty is what the summary shows then; anything else is not checked."""
    def check(text: Any) -> str | None:
        if text != "":
            unchecked.append(reason)
        return None
    return check


def _lowest_loss_check(history: _History) -> Callable[[Any], str | None]:
    def check(text: Any) -> str | None:
        if history.lowest is None:
            return None if text == "" else f"{str(text)[:60]!r} where the checkpoint history has no validation loss"
        match = _LOWEST_LOSS.match(text) if isinstance(text, str) else None
        if match and _rounded(match.group(1), history.lowest, 4) and match.group(2) == str(history.lowest_epoch):
            return None
        return (f"{str(text)[:60]!r} where the checkpoint history gives {float(history.lowest):.6f} at epoch "
                f"{history.lowest_epoch}")
    return check


def _loss_at_selected_check(history: _History) -> Callable[[Any], str | None]:
    value = history.at_selected
    exact = None if value is None else Fraction(str.__str__(value)) if isinstance(value, DecimalText) else Fraction(value)

    def check(text: Any) -> str | None:
        if exact is None:
            return None if text == "" else f"{str(text)[:60]!r} where the checkpoint history has no loss at that epoch"
        if isinstance(text, str) and re.fullmatch(r"-?[0-9]+\.[0-9]{4}", text) and _rounded(text, exact, 4):
            return None
        return f"{str(text)[:60]!r} where the checkpoint history gives {float(exact):.6f}"
    return check


def _difference_check(difference: Fraction, two_se: Fraction) -> Callable[[Any], str | None]:
    def check(text: Any) -> str | None:
        match = _DIFFERENCE.match(text) if isinstance(text, str) else None
        if match and _rounded(match.group(1), difference, 4) and _rounded(match.group(2), two_se, 4):
            return None
        return f"{str(text)[:60]!r} where the records give {float(difference):+.6f} ± {float(two_se):.6f}"
    return check


def _verdict_check(difference: Fraction, four_se2: Fraction) -> Callable[[Any], str | None]:
    """The protocol's rule (:func:`_verdicts`) applied to the table's verdict column."""
    exact, accepted = _verdicts(difference, four_se2)
    return lambda text: None if text in accepted else f"{str(text)[:60]!r} where the protocol's rule gives {exact!r}"


def _decimal_check(value: Any, places: int, missing: str) -> Callable[[Any], str | None]:
    if value is None:
        return lambda text: None if text == missing else f"{str(text)[:60]!r} where the records give no value"
    number = _num(value)
    if number is None:
        raise _NotANumber("an interpretability value")
    exact = Fraction(str.__str__(value)) if isinstance(value, DecimalText) else Fraction(number)
    return lambda text: (None if isinstance(text, str) and re.fullmatch(rf"-?[0-9]+\.[0-9]{{{places}}}", text)
                         and _rounded(text, exact, places) else f"{str(text)[:60]!r} where the records give "
                                                                 f"{float(exact):.{places + 2}f}")


def _reproduction_problem(data: dict, base: str, *, models: str | None = None) -> str | None:
    """Why summary.json's tables, run counts, protocol, conclusion sentence or notes are not what the
    per-run records, the protocol file and the checkpoint histories give (None: they are).

    The protocol file is looked for beside the runs folder; the checkpoints under ``models``
    (default: ``models/reproduction`` beside the runs folder). A validation loss shown for a run
    whose checkpoint history is not there makes the section not checked (_SectionLimit), raised
    only when nothing else is wrong.
    """
    protocol: dict = data["protocol"] if isinstance(data.get("protocol"), dict) else {}
    name = protocol.get("file")
    if not (isinstance(name, str) and name and not os.path.isabs(name)
            and all(p not in ("", ".", "..") for p in name.split("/"))):
        return f"summary.json names the protocol file {str(name)[:80]!r}, not a plain relative path"
    path = os.path.join(os.path.dirname(os.path.abspath(base)), *name.split("/"))
    if not os.path.isfile(path):
        raise _SectionLimit(f"the protocol file {name} was not found beside the runs folder {base}, so the reproduction "
                            "tables are not recomputed")
    with open(path, "rb") as handle:
        raw = handle.read(PROTOCOL_FILE_BYTES + 1)
    if len(raw) > PROTOCOL_FILE_BYTES:
        return f"the protocol file {path} is more than {PROTOCOL_FILE_BYTES} bytes"
    digest = hashlib.sha256(raw).hexdigest()
    if protocol.get("sha256") != digest:
        return f"summary.json gives the protocol sha256 {str(protocol.get('sha256'))[:64]}, the file {path} has {digest}"
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return f"the protocol file {path} is not TOML"
    runs = _protocol_runs(document)
    if isinstance(runs, str):
        return runs
    found = _run_records(os.path.join(base, *REPRODUCTION_RECORDS))
    if isinstance(found, str):
        return found
    evaluations, interpretations = found
    finished = sum(r["name"] in evaluations for r in runs)
    if not _same_json(data.get("runs"), {**(data["runs"] if isinstance(data.get("runs"), dict) else {}),
                                         "finished": finished, "planned": len(runs)}):
        return f"summary.json says {_brief_json(data.get('runs'))}, the records give {finished} of {len(runs)} runs"
    common: dict = document["common"] if isinstance(document.get("common"), dict) else {}
    folder = models if models is not None else os.path.join(os.path.dirname(os.path.abspath(base)), *DEFAULT_MODELS)
    histories = _checkpoint_histories(folder, runs, evaluations)
    unchecked: list[str] = []
    try:
        expected = _expected_tables(runs, evaluations, interpretations, common, histories, unchecked)
        comparisons = _comparisons(runs, evaluations)
    except _NotANumber as error:
        return f"a per-run record's {error} is not a number"
    tables = [t for t in data.get("tables") or [] if isinstance(t, dict)]
    if sorted(str(t.get("name")) for t in tables) != sorted(expected):
        return f"summary.json has the tables {sorted(str(t.get('name')) for t in tables)}, the records give {sorted(expected)}"
    for table in tables:
        rows, checks = table.get("rows"), expected[str(table.get("name"))]
        if not isinstance(rows, list) or len(rows) != len(checks):
            return f"table {table.get('name')!r}: {len(rows) if isinstance(rows, list) else 'no'} rows, the records give {len(checks)}"
        for row, row_checks in zip(rows, checks):
            if not isinstance(row, list) or len(row) != len(row_checks):
                return f"table {table.get('name')!r}: a row does not have the {len(row_checks)} columns the records give"
            for column, (text, check) in enumerate(zip(row, row_checks)):
                problem = check(text)
                if problem:
                    return f"table {table.get('name')!r}, row {str(row[0])[:20]}, column {column}: {problem}"
    problem = _sentence_problem(data.get("summary"), comparisons, finished, len(runs))
    if problem:
        return problem
    problem = _notes_problem(data.get("notes"), runs, evaluations, common, histories)
    if problem and not problem.startswith(_NOT_CHECKED_NOTES):
        return problem
    if problem or unchecked:
        raise _SectionLimit((unchecked[0] if unchecked else str(problem)) + f" (the checkpoints looked for: {folder}; give them with "
                                                        "--models DIR)")
    return None


# The conclusion sentence (verify/experiments/sentiment/summary.py's conclusion_sentence and
# comparison_numbers, docs/sentiment.md), derived here from the per-d verdicts this module decides:
# a phrase per verdict naming its dimensions, a task-level sentence only when no d is pending, then
# the means ± sd of both cells at each d. The wording is mirrored; its numbers are checked as the
# tables' cells are (the exact value, rounded to the 4 decimals shown).
_VERDICT_PHRASES = (
    ("helps", "the K = 8 attention layers beat the trained mean-of-embeddings baseline (K = 0)"),
    ("hurts", "the trained mean-of-embeddings baseline (K = 0) beats the K = 8 attention layers"),
    ("no difference resolved", "the K = 8 attention layers and the trained K = 0 baseline do not differ by more "
                               "than two standard errors"),
)
_CELL_TEXT = r"(not run yet|-?[0-9]+\.[0-9]{4}(?: ± [0-9]+\.[0-9]{4})?(?: \([0-9]+ of [0-9]+ seeds\))?)"
_MAX_BOUNDARY_VERDICTS = 6  # dimensions whose verdict sits within float noise of the boundary (2^6 sentences tried)


def _sentence_parts(verdicts: dict[int, str], comparisons: list[_Comparison], finished: int,
                    planned: int) -> list:
    """The sentence as literal text and cell slots ((cell, planned seeds or None)), for these verdicts per d."""
    parts: list = []
    if not verdicts:
        parts.append(f"No conclusion yet: the reproduction and baseline cells are not complete ({finished} of "
                     f"{planned} runs finished).")
    else:
        phrases = []
        for verdict, phrase in _VERDICT_PHRASES:
            dims = sorted(d for d, v in verdicts.items() if v == verdict)
            if dims:
                phrases.append(f"at d = {', '.join(map(str, dims))} {phrase}")
        text = "On IMDb, under the paper's protocol with validation-selected epochs, " + "; ".join(phrases) + "."
        pending = [c.d for c in comparisons if c.d not in verdicts]
        given = set(verdicts.values())
        if pending:
            text += (f" At d = {', '.join(map(str, pending))} the compared cells are not complete yet ({finished} of "
                     f"{planned} runs finished), so there is no conclusion for the task as a whole.")
        elif given <= {"hurts", "no difference resolved"}:
            text += " Clustering by the attention layers does not help this task."
        elif given == {"helps"}:
            text += " Clustering by the attention layers helps this task."
        parts.append(text)
    shown = [c for c in comparisons if c.with_attention.n or c.baseline.n]
    if shown:
        parts.append(" Certified hardmax test accuracy, mean ± sd over seeds, K = 8 against the trained K = 0 "
                     "baseline: ")
        for index, c in enumerate(shown):
            parts += ["; " if index else "", f"d = {c.d}: ", (c.with_attention, c.planned[0]), " against ",
                      (c.baseline, c.planned[1])]
            if c.d in AUTHORS_SOFTMAX_TEST_ACCURACY:
                parts.append(f" (authors' softmax {AUTHORS_SOFTMAX_TEST_ACCURACY[c.d]})")
        parts.append(".")
    return parts


def _sentence_problem(shown: Any, comparisons: list[_Comparison], finished: int, planned: int) -> str | None:
    """Why summary.json's sentence is not the conclusion the per-run records give (None: it is)."""
    choices = []
    for c in comparisons:
        if c.difference is not None and c.four_se2 is not None:
            exact, accepted = _verdicts(c.difference, c.four_se2)
            choices.append([(c.d, exact)] + [(c.d, v) for v in sorted(accepted - {exact})])
    if sum(len(options) > 1 for options in choices) > _MAX_BOUNDARY_VERDICTS:
        raise _SectionLimit(f"more than {_MAX_BOUNDARY_VERDICTS} verdicts sit within float noise of the protocol's "
                            "boundary; the conclusion sentence is not checked")
    wanted = ""
    for assignment in itertools.product(*choices):
        parts = _sentence_parts(dict(assignment), comparisons, finished, planned)
        if not wanted:  # the exact verdicts, numbers at 4 decimals: what the message shows
            wanted = "".join(p if isinstance(p, str) else _cell_text(*p) for p in parts)
        pattern = "".join(re.escape(p) if isinstance(p, str) else _CELL_TEXT for p in parts)
        match = re.fullmatch(pattern, shown) if isinstance(shown, str) else None
        if match and not any(_cell_problem(text, *slot) for text, slot in zip(match.groups(), [
                p for p in parts if not isinstance(p, str)])):
            return None
    if not isinstance(shown, str):
        return "summary.json has no conclusion sentence"
    at = next((i for i, (x, y) in enumerate(zip(shown, wanted)) if x != y), min(len(shown), len(wanted)))
    return (f"its conclusion sentence is not the one the per-run records give under the protocol's rule: from "
            f"character {at}, it says {shown[at:at + 100]!r}, the records give {wanted[at:at + 100]!r}")


def _cell_text(cell: _Cell, planned: int | None) -> str:
    """A cell as the summary writes it (for messages: the check itself compares exact values)."""
    if not cell.n or cell.mean is None:
        return "not run yet"
    text = f"{float(cell.mean):.4f}" + (f" ± {float(_sqrt(cell.variance)):.4f}" if cell.variance is not None else "")
    return text + (f" ({cell.n} of {planned} seeds)" if planned is not None and cell.n < planned else "")


_NOT_CHECKED_NOTES = "the notes name the validation loss of"


def _notes_problem(shown: Any, runs: list, evaluations: dict, common: dict, histories: dict) -> str | None:
    """Why summary.json's notes are not what the records and checkpoint histories give (None: they are).

    The notes name the runs that reached the protocol's epoch cap while still improving on validation
    and, where the checkpoint history shows it, the earlier epoch of their lowest validation loss.
    A message starting with _NOT_CHECKED_NOTES: a capped run's history could not be read, and the
    notes are not what they would be without it.
    """
    cap, patience = _count(common.get("epochs")), _count(common.get("patience"))
    described, unknown = [], []
    for run in runs:
        record = evaluations.get(run["name"])
        ran, selected = (_count(record.get("epochs_completed")), _count(record.get("epoch"))) if record else (None, None)
        if ran is None or selected is None or cap is None or patience is None or not (ran >= cap and ran - selected < patience):
            continue
        text = f"{run['name']} (selected epoch {selected}"
        history = histories.get(run["name"])
        if history is None or history.unchecked or history.problem:
            unknown.append(run["name"])
        elif history.lowest_epoch is not None and history.lowest_epoch < selected:
            text += (f"; validation loss lowest at epoch {history.lowest_epoch} and higher since, while validation "
                     "accuracy still crept up")
        described.append(text + ")")
    wanted = [] if not described else [
        f"{len(described)} run(s) reached the protocol's {cap}-epoch cap while still improving on validation: "
        f"{', '.join(described)}. Their accuracy may be limited by the cap. Training longer would be a new "
        "preregistered protocol, run after this one; it does not change these numbers."]
    if _same_json(shown, wanted):
        return None
    if unknown:
        return f"{_NOT_CHECKED_NOTES} {', '.join(unknown[:3])}, whose checkpoint history was not read"
    return (f"its notes are not what the records and checkpoint histories give: it says {_brief_json(shown)[:200]}, "
            f"they give {_brief_json(wanted)[:200]}")


def _num(value: Any) -> float | int | None:
    """A JSON number as a Python number (a decimal read as its text becomes a float), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, (DecimalText, float)):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _number_of(value: Any) -> float | int:
    """A JSON number (TypeError when it is not one: the glance numbers cannot then be computed)."""
    number = _num(value)
    if number is None:
        raise TypeError(f"{str(value)[:40]!r} is not a number")
    return number


def _same_json(a: Any, b: Any) -> bool:
    """Equal JSON values, numbers compared by value (1 and 1.0, a decimal's text and its float)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b))
    x, y = _num(a), _num(b)
    if x is not None or y is not None:
        return x is not None and y is not None and x == y
    if isinstance(a, str) and isinstance(b, str):
        return str.__str__(a) == str.__str__(b)
    return type(a) is type(b) and a == b  # null, true, false


def _projection(part: Any, whole: Any) -> bool:
    """Every value of ``part`` is ``whole``'s at the same place (objects: ``part``'s keys only)."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(k in whole and _projection(v, whole[k]) for k, v in part.items())
    if isinstance(part, list):
        return isinstance(whole, list) and len(part) == len(whole) and all(_projection(x, y) for x, y in zip(part, whole))
    return _same_json(part, whole)


def _inputs_problems(key: str, items: list, figures: list, inputs: Any) -> list[str]:
    """The report's ``inputs`` list must name the same files with the same sha256, in order."""
    entries = inputs if isinstance(inputs, list) else []
    for role, listed in ((f"{key} results", items), (f"{key} figure", figures)):
        stated = [(e.get("path"), e.get("sha256")) for e in entries if isinstance(e, dict) and e.get("role") == role]
        wanted = [(x.get("path"), x.get("sha256")) for x in listed if isinstance(x, dict)]
        if stated != wanted:
            return [f"the report's inputs list {len(stated)} {role!r} file(s) that are not the section's {len(wanted)}"]
    return []


class _NoNumbers:
    """The saved files do not give the first screen's numbers (a field of the wrong type)."""


_GLANCE_ERRORS = (TypeError, ValueError, KeyError, AttributeError, ZeroDivisionError)


class _GlanceParts:
    """What a section's first-screen numbers need from its saved files, kept while they are read one at a
    time (a file's parsed content is dropped after its item is checked; only these small parts stay)."""

    def __init__(self, key: str, count: int) -> None:
        self.key, self.count = key, count
        self.evaluations: list = []   # sentiment: the fields of each evaluation the choice reads
        self.ablations: dict = {}     # sentiment: per analysed checkpoint, its accuracy without attention and at K
        self.summaries: list = []     # conjectures: the scalar summary of each run
        self.power_files = 0          # conjectures: search-power files (not runs)
        self.first: Any = None        # reproduction: the first summary; control: the study's numbers
        self.classify: dict = {"imdb": None, "scaling": None}
        self.seen: set = set()
        self.failed = False

    def add(self, path: str, data: Any) -> None:
        try:
            self._add(path, data)
        except _GLANCE_ERRORS:
            self.failed = True

    def _add(self, path: str, data: Any) -> None:
        if self.key == "sentiment":
            if isinstance(data, dict) and _num(data.get("hardmax_accuracy")) is not None:
                self.evaluations.append({k: data.get(k) for k in ("checkpoint", "d", "protocol", "hardmax_accuracy",
                                                                   "validation_accuracy")})
            if path.endswith("/analysis.json") and isinstance(data, dict) and isinstance(data.get("checkpoints"), list):
                for entry in data["checkpoints"]:
                    if isinstance(entry, dict):
                        without = entry.get("without_attention")
                        self.ablations[entry.get("path")] = {k: without.get(k) for k in (
                            "accuracy_without_attention", "accuracy_at_K")} if isinstance(without, dict) else {}
        elif self.key == "conjectures":
            if _is_power_file(data):
                self.power_files += 1
            else:
                self.summaries.append(_scalar_summary(data))
        elif self.key == "reproduction":
            if self.first is None and isinstance(data, dict):
                runs = data.get("runs")
                self.first = {"sentence": data.get("summary") if isinstance(data.get("summary"), str) else None,
                              "finished": runs.get("finished") if isinstance(runs, dict) else None,
                              "planned": runs.get("planned") if isinstance(runs, dict) else None}
        elif self.key == "classify":
            for name, glance in (("imdb", _imdb_glance), ("scaling", _scaling_glance)):
                if path.endswith(f"/{name}.json") and name not in self.seen:  # the first file of each name
                    self.seen.add(name)
                    self.classify[name] = glance(data) if isinstance(data, dict) else None
        elif self.key == "control":
            if "study" not in self.seen and path.endswith("/study.json") and isinstance(data, dict):
                self.seen.add("study")
                self.first = _study_glance(data)

    def numbers(self) -> dict | None | _NoNumbers:
        if self.failed:
            return _NoNumbers()
        try:
            if self.key == "sentiment":
                return _sentiment_glance(self.evaluations, self.ablations, self.count)
            if self.key == "conjectures":
                return _conjecture_glance(self.summaries, self.count - self.power_files)
            if self.key == "reproduction":
                return self.first or {"sentence": None, "finished": None, "planned": None}
            if self.key == "classify":
                return dict(self.classify)
            if self.key == "control":
                return self.first
        except _GLANCE_ERRORS:
            return _NoNumbers()
        return None


def _glance_numbers(key: str, files: dict, count: int) -> dict | None | _NoNumbers:
    """The numbers the section's first-screen line prints, from the saved files (path -> parsed JSON)."""
    parts = _GlanceParts(key, count)
    for path, data in files.items():
        parts.add(path, data)
    return parts.numbers()


def _study_glance(study: dict) -> dict:
    """From study.json (docs/theory.md D10's study): the counts its first-screen sentence prints."""
    rows = [r for name in ("against_n_and_d", "families", "worked") for r in study.get(name) or [] if isinstance(r, dict)]
    rounding: dict = study["rounding"] if isinstance(study.get("rounding"), dict) else {}
    return {"seed": study.get("seed"), "configurations": len(rows),
            "subsets": sum(_number_of(r.get("subsets")) for r in rows),
            "realisable": sum(_number_of(r.get("realisable")) for r in rows),
            "all_vertices_lead": sum(r.get("all_vertices") == "realisable" for r in rows),
            "lock_tried": sum(_number_of(r.get("lock_tried")) for r in rows),
            "lock_realised": sum(_number_of(r.get("lock_realised")) for r in rows),
            "solver_feasible": rounding.get("solver_feasible"),
            "exact_designs_of_solver_feasible": rounding.get("exact_designs_of_solver_feasible"),
            "decided": _number_of(rounding.get("exact_designs")) + _number_of(rounding.get("impossible")),
            "cases": rounding.get("cases")}


def _sentiment_glance(evaluations: list, ablations: dict, count: int) -> dict:
    """Per (d, protocol) the evaluation with the highest validation accuracy (ties: the first by checkpoint
    name), its test accuracy, and the analyses' accuracy of the same weights without attention and at K."""
    best: dict = {}
    for e in sorted(evaluations, key=lambda e: str(e.get("checkpoint"))):
        value = _num(e.get("validation_accuracy"))
        if value is None or _count(e.get("d"), -10**9) is None:
            continue
        group = (e.get("d"), e.get("protocol"))
        if group not in best or value > _number_of(best[group].get("validation_accuracy")):
            best[group] = e
    chosen = []
    for e in sorted(best.values(), key=lambda e: (e["d"], str(e.get("protocol")))):
        ablation = ablations.get(e.get("checkpoint")) or {}
        chosen.append({"d": e["d"], "protocol": e.get("protocol"), "checkpoint": e.get("checkpoint"),
                       "hardmax_accuracy": e["hardmax_accuracy"], "validation_accuracy": e.get("validation_accuracy"),
                       "accuracy_without_attention": ablation.get("accuracy_without_attention")
                       if _num(ablation.get("accuracy_without_attention")) is not None else None,
                       "accuracy_at_K": ablation.get("accuracy_at_K") if _num(ablation.get("accuracy_at_K")) is not None else None})
    return {"files": count, "evaluations": len(evaluations), "chosen": chosen}


def _is_power_file(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == CONJECTURE_POWER_FORMAT


def _conjecture_glance(summaries: list, count: int) -> dict:
    """The saved runs (not the search-power file; ``count`` of them, ``summaries`` of those readable), their
    outcomes counted, whether any states an expectation, and those whose decided outcome is not one the
    expectation predicts."""
    summaries = summaries + [{}] * (count - len(summaries))
    outcomes: dict = {}
    for s in summaries:
        outcome = str(s.get("outcome", "unreadable")) if s else "unreadable"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    surprises = [str(s.get("conjecture", "?")) for s in summaries
                 if s.get("outcome") in CONJECTURE_DECIDED and str(s.get("expected")) in CONJECTURE_PREDICTS
                 and s.get("outcome") not in CONJECTURE_PREDICTS[str(s.get("expected"))]]
    return {"runs": count, "outcomes": dict(sorted(outcomes.items())),
            "expectations_stated": any(str(s.get("expected")) in CONJECTURE_PREDICTS for s in summaries),
            "not_as_expected": surprises}


def _imdb_glance(imdb: dict) -> dict:
    """From imdb.json: sizes, reviews removed, networks built and those not certified, test accuracies at the
    largest N and its majority rate."""
    samples: dict[Any, dict] = {s.get("N"): s for s in imdb.get("samples") or [] if isinstance(s, dict)}
    runs = [r for r in imdb.get("runs") or [] if isinstance(r, dict)]
    sizes: list[Any] = list(samples)
    largest = max(sizes) if sizes else None  # keys of mixed kinds: a TypeError, caught by the caller
    accuracies = [_number_of(r.get("test_accuracy")) for r in runs if r.get("N") == largest]
    return {
        "sizes": sorted(samples), "removed": sum(s.get("removed") for s in samples.values()), "networks": len(runs),
        "not_certified": [{"N": r.get("N"), "variant": r.get("variant"), "seed": r.get("seed")} for r in runs
                          if r.get("checker_status") != "certified" or r.get("certified_by_checker") != r.get("sequences")],
        "largest_N": largest, "test_accuracy_min": min(accuracies) if accuracies else None,
        "test_accuracy_max": max(accuracies) if accuracies else None,
        "majority_test": samples[largest].get("majority_test") if accuracies else None}


def _scaling_glance(scaling: dict) -> dict:
    """From scaling.json: the largest N's blocks, parameters, build and check seconds per variant, and the
    smallest speed-ups over the baseline."""
    rows = [r for r in scaling.get("by_size") or [] if isinstance(r, dict)]
    lengths = [r for r in scaling.get("by_length") or [] if isinstance(r, dict)]
    pairs: dict = {}
    for r in rows:
        pairs.setdefault(r.get("N"), {})[r.get("variant")] = r
    largest = max(pairs) if pairs else None
    variants = {} if largest is None else {
        v: {k: pairs[largest][v].get(k) for k in ("blocks", "parameters", "build_s", "check_s")}
        for v in ("wide", "narrow") if v in pairs[largest]}
    timed = [r for r in rows + lengths if "baseline_s" in r]
    return {
        "largest_N": largest, "variants": variants,
        "engine_speedup_min": min((_number_of(r["baseline_s"]) / max(_number_of(r.get("engine_s")), 1e-9)
                                   for r in timed), default=None),
        "check_speedup_min": min((_number_of(r["baseline_s"]) / max(_number_of(r.get("check_s")), 1e-9)
                                  for r in timed), default=None)}


def _brief_json(value: Any) -> str:
    text = canonical_json(value) if not isinstance(value, _Unreadable) else "?"
    return text if len(text) <= 200 else text[:197] + "..."


# --------------------------------------------------------------------------- reports and files


def check_report(data: dict, *, source: str = "report", max_work: int = None,  # type: ignore[assignment]
                 max_total_work: int = None) -> CheckResult:  # type: ignore[assignment]
    """Re-verify one claims report (format ``hardmax-verify/claims-v1``): every verdict and what the
    report states besides them (status, fates, settled and last layer).

    Raises
    ------
    BadInput
        When ``data`` is not a claims report, its configuration is malformed, or its replay would
        exceed ``max_work`` (default :data:`DEFAULT_MAX_WORK`).
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BadInput("format", f"expected {FORMAT!r}, got {str(data.get('format') if isinstance(data, dict) else data)[:60]!r}")
    run = Run(source, data.get("config"), data.get("verdicts"), data.get("last_layer"), data.get("settled_layer"),
              fates=data.get("fates"), status=data.get("status"), stopped_by=data.get("stopped_by"),
              layer_budget=data.get("layer_budget"), time_budget=data.get("time_budget"),
              outside_hypotheses=data.get("outside_hypotheses"),
              hypothesis_violations=data.get("hypothesis_violations"))
    total = DEFAULT_MAX_TOTAL_WORK if max_total_work is None else max_total_work
    _admit([run], DEFAULT_MAX_WORK if max_work is None else max_work, total)
    with _metered(total) as meter:
        result = CheckResult(_check_run(run))
        result.work = meter[1] - meter[0]
        return result


def check_record(configuration: dict, verdicts: dict, *, last_layer: int, settled_layer: int | None,
                 fates: list | None = None, status: str | None = None, stopped_by: str | None = None,
                 layer_budget: int | None = None, time_budget: float | None = None) -> dict[str, dict[str, Any]]:
    """The report builder's hook: ``{claim: {"ok": bool, "status": str, "reason": str}}`` for one record.

    Every claim of the record gets an entry (its verdict's outcome); problems with the record
    as a whole (status, fates, layers) come under the key ``"(run)"`` with ``ok`` False.
    No work limit is applied: the suite itself produced the record.
    """
    run = Run("record", configuration, verdicts, last_layer, settled_layer, fates=fates, status=status,
              stopped_by=stopped_by, layer_budget=layer_budget, time_budget=time_budget)
    _admit([run], sys.maxsize, sys.maxsize)
    result: dict[str, dict[str, Any]] = {}
    for o in _check_run(run):
        if o.claim in result:  # several problems with the run: keep the first
            continue
        result[o.claim] = {"ok": o.status in ("verified", "inconclusive"), "status": o.status, "reason": o.reason}
    return result


def _record_run(record: Any, where: str, campaign: dict) -> Run:
    if not isinstance(record, dict):
        raise BadInput(where, "expected a record object")
    task = record.get("task")
    name = task.get("name") if isinstance(task, dict) else None
    source = f"{where} ({str(name)[:60]})" if name else where
    return Run(source, record.get("configuration"), record.get("verdicts"), record.get("layers_run"),
               record.get("settled_layer"), fates=record.get("fates"), status=record.get("status"),
               stopped_by=record.get("stopped_by"), layer_budget=campaign.get("layer_budget"),
               time_budget=campaign.get("time_budget"), certcheck=record.get("certcheck"))


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
    _admit(list(records.values()), DEFAULT_MAX_WORK if max_work is None else max_work, total)
    with _metered(total) as meter:
        result = _check_results(data, source, examples, records, runs, models)
        result.work = meter[1] - meter[0]
        return result


def _check_results(data: dict, source: str, examples: list, records: dict, runs: str | None,
                   models: str | None = None) -> CheckResult:
    result = CheckResult()
    verified: dict[int, list] = {}
    for i in range(len(examples)):
        if i not in records:
            result.outcomes.append(Outcome(f"{source}.examples[{i}]", RUN, "inconclusive",
                                           "the task raised an error and was not checked"))
            continue
        outcomes = _check_run(records[i])
        result.outcomes += outcomes
        verified[i] = sorted(o.claim for o in outcomes if o.status == "verified")
        problem = _certcheck_block_problem(records[i].certcheck, outcomes)
        if problem:
            result.outcomes.append(Outcome(records[i].source, RUN, "rejected", problem))
        horizon, layers = examples[i].get("horizon"), records[i].last_layer
        if isinstance(layers, int) and "horizon" in examples[i] and not (
                _count(horizon) is not None and horizon == max(HORIZON, layers)):
            result.outcomes.append(Outcome(records[i].source, RUN, "rejected", f"horizon is {str(horizon)[:20]}, a "
                                           f"record's exact run is shown to layer max({HORIZON}, layers_run) = "
                                           f"{max(HORIZON, layers)}"))
    for where, problem in _campaign_problems(data, examples):
        result.outcomes.append(Outcome(f"{source}.{where}", CAMPAIGN, "rejected", problem))
    for problem in _summary_problems(data, examples, verified, result):
        result.outcomes.append(Outcome(source, SUMMARY, "rejected", problem))
    result.outcomes += _section_outcomes(data, source, runs, models)
    return result


def _certcheck_block_problem(block: Any, outcomes: list) -> str | None:
    """A record's "certcheck" block (what the report's own run of this checker found) must be what this run finds."""
    expected_verified = sorted(o.claim for o in outcomes if o.status == "verified")
    expected_unsupported = sorted(o.claim for o in outcomes if o.status == "unsupported")
    if not isinstance(block, dict) or block.get("available") is not True:
        return "the record's certcheck block is missing or says the checker was not available"
    if sorted(block.get("verified") or []) != expected_verified:
        return (f"the record says certcheck verified {sorted(block.get('verified') or [])}, "
                f"this run verifies {expected_verified}")
    rejected = block.get("rejected")
    expected_rejected = sorted({o.claim for o in outcomes if o.status == "rejected"})
    if not isinstance(rejected, dict) or sorted(rejected) != expected_rejected:
        return (f"the record says certcheck rejected {sorted(rejected) if isinstance(rejected, dict) else rejected!r}"[:200]
                + f", this run rejects {expected_rejected}")
    if sorted(block.get("unsupported") or []) != expected_unsupported:
        return "the record's unsupported certificates differ from this run's"
    return None


def _summary_problems(data: dict, examples: list, verified: dict, result: CheckResult) -> list[str]:
    """The summary a reader sees first, recomputed from the records (after each record was checked)."""
    summary = data["summary"]
    problems = []
    errors = [r for r in examples if isinstance(r, dict) and r.get("status") == "error"]
    if summary.get("examples") != len(examples):
        problems.append(f"summary says {str(summary.get('examples'))[:20]} examples, the file holds {len(examples)}")
    if summary.get("errors") != len(errors):
        problems.append(f"summary says {str(summary.get('errors'))[:20]} task errors, the file holds {len(errors)}")
    claims = summary["claims"]
    # The claims this checker decides, plus those the records hold without a routine here (unsupported).
    expected_claims = list(CHECKS) + sorted({o.claim for o in result.outcomes if o.status == "unsupported"} - set(CHECKS))
    if set(claims) != set(expected_claims):
        problems.append(f"summary counts claims {sorted(map(str, claims))[:12]}, expected {expected_claims[:12]}")
    for claim in expected_claims:
        row = claims.get(claim)
        expected = _claim_counts(examples, claim, verified)
        if not isinstance(row, dict):
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
    overall = _combine(statuses)
    exit_status = {"certified": 0, "failed": 1, "inconclusive": 3}[overall]
    if not examples:
        overall, exit_status = "inconclusive", 3  # nothing was checked: nothing is certified
    if summary.get("overall") != overall or summary.get("exit_status") != exit_status:
        problems.append(f"summary says overall {str(summary.get('overall'))[:20]} (exit {str(summary.get('exit_status'))[:5]}), "
                        f"the records give {overall} (exit {exit_status})")
    if "closed_form" in summary:  # absent from files written before it existed
        problem = _closed_form_problem(summary["closed_form"], examples, data.get("campaign"))
        if problem:
            problems.append(problem)
    claims_certified = any(isinstance(r, dict) and r.get("certified") for r in claims.values()) \
        or summary.get("overall") == "certified"
    if claims_certified and not any(o.status == "verified" for o in result.outcomes):
        problems.append("the file claims certified results, but not one certificate in it verifies")
    by_name = {}
    for record in examples:
        task = record.get("task") if isinstance(record, dict) else None
        if isinstance(task, dict):
            by_name[task.get("name")] = record
    counterexamples = data.get("counterexamples")
    for c in counterexamples if isinstance(counterexamples, list) else []:
        record = by_name.get(c.get("example")) if isinstance(c, dict) else None
        verdict = ((record or {}).get("verdicts") or {}).get(c.get("claim")) if isinstance(c, dict) else None
        if not (isinstance(verdict, dict) and verdict.get("status") == "failed"):
            problems.append(f"counterexample {str(c.get('example') if isinstance(c, dict) else c)[:60]}: "
                            "no record with that claim failed")
            break
    return problems


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
        n, d = _shape(record.get("configuration"), "configuration")
        model = _model(record["configuration"])
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
        return _number(x, "median")
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
        elif any(str(key).startswith("measured") for key in (verdict.get("evidence") or {})):
            row["measured"] += 1
        if claim in verified.get(i, []):
            row["recertified"] += 1
        block = record.get("certcheck")
        if isinstance(block, dict) and claim in (block.get("rejected") or {}):
            row["rejected_by_checker"] += 1
    return row


def _regular_file(path: str, max_bytes: int) -> None:
    """Refuse, before reading, what is not a regular file of a sensible size (a FIFO or /dev/zero would hang)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise BadInput(str(path), "file not found") from None
    except OSError as error:
        raise BadInput(str(path), error.strerror or str(error)) from None
    if not stat.S_ISREG(info.st_mode):
        raise BadInput(str(path), "not a regular file (a directory, FIFO or device is not read)")
    if info.st_size > max_bytes:
        raise BadInput(str(path), f"{info.st_size} bytes, more than the limit of {max_bytes} (raise it with --max-bytes)")


class _Ambiguous(Exception):
    """JSON that does not say one thing: a key repeated within an object, or NaN / Infinity."""


def _unique_keys(pairs: list) -> dict:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set = set()
        for key, _ in pairs:
            if key in seen:
                raise _Ambiguous(f"the key {json.dumps(key)[:60]} appears twice in one object")
            seen.add(key)
    return data


def _refuse_constant(name: str) -> Any:
    raise _Ambiguous(f"{name} is not a JSON number")


# --------------------------------------------------------------------------- kinds of file
#
# One dispatcher for both entry points (``python -m verify.certcheck`` and ``hardmax-verify
# certcheck``). A file's kind is decided by its exact marker, never by what else it happens to
# contain: a file that carries the markers of two kinds is refused, and each kind's top-level
# keys are exact, so that no key of another kind can ride along unchecked.

SOFTMAX_MARKER = "softmax_certificate"  # the key of a ``hardmax-verify softmax --json`` record (docs/theory.md §6)
CONTROL_FORMAT = "hardmax-verify/control-v1"  # the ``format`` of a ``hardmax-verify control --json`` result (D10)
CLAIMS_KEYS = frozenset({"format", "config", "outside_hypotheses", "hypothesis_violations", "layer_budget", "time_budget",
                         "stopped_by", "last_layer", "settled_layer", "status", "fates", "verdicts"})
RESULTS_KEYS = frozenset({"schema", "schema_version", "campaign", "plan", "inputs", "summary", "examples",
                          "counterexamples", "optional_sections", "environment"})
SOFTMAX_KEYS = frozenset({"command", "config", SOFTMAX_MARKER, "status"})
CONTROL_KEYS = {
    "control": frozenset({"format", "kind", "configuration", "replaced_A", "leaders", "requested_targets", "outcome",
                          "exit_status", "proves", "does_not_prove", "reason", "targets", "design", "limits",
                          "infeasibility", "leading", "tried", "search", "solver_runs"}),
    "leader_sets": frozenset({"format", "kind", "configuration", "replaced_A", "hull", "designs", "certificates",
                              "subsets", "counts", "maximal_realisable", "minimal_impossible", "programs", "exit_status",
                              "proves", "does_not_prove"}),
}
KINDS = ("claims", "results", "softmax", "control")
KIND_NAMES = {"claims": "claims report", "results": "verification report", "softmax": "softmax record",
              "control": "control result"}
# The standard-library checkers of the other two kinds, beside this file (run by path: this
# module imports nothing from the package, and they import nothing either).
SIBLING_CHECKERS = {"softmax": "_checker_softmax.py", "control": "_checker_control.py"}


def file_kind(data: Any, source: str = "file") -> str:
    """The kind of a decoded file (one of :data:`KINDS`), from its exact marker.

    Raises
    ------
    BadInput
        Not an object, no marker, the markers of more than one kind, or a top-level key the kind
        does not have (exit status 2).
    """
    if not isinstance(data, dict):
        raise BadInput(source, f"neither a claims report, a verification report, a softmax record nor a control result "
                               f"(expected a JSON object, got a {type(data).__name__})")
    markers = []
    if data.get("format") == FORMAT:
        markers.append(("claims", "format"))
    if data.get("schema") == RESULTS_SCHEMA:
        markers.append(("results", "schema"))
    if SOFTMAX_MARKER in data:
        markers.append(("softmax", SOFTMAX_MARKER))
    if data.get("format") == CONTROL_FORMAT:
        markers.append(("control", "format"))
    if not markers:
        raise BadInput(source, f"neither a claims report ({FORMAT!r}), a verification report ({RESULTS_SCHEMA!r}), a "
                               f"softmax record (a {SOFTMAX_MARKER!r} object) nor a control result ({CONTROL_FORMAT!r})")
    if len(markers) > 1:
        fields = " and ".join(f"{field} ({kind})" for kind, field in markers)
        raise BadInput(f"{source}.{markers[1][1]}", f"the file carries the markers of more than one kind: {fields}")
    kind = markers[0][0]
    if kind == "control":
        allowed = CONTROL_KEYS.get(data.get("kind"))  # type: ignore[arg-type]
        if allowed is None:
            raise BadInput(f"{source}.kind", f"expected one of {sorted(CONTROL_KEYS)} in a control result")
    else:
        allowed = {"claims": CLAIMS_KEYS, "results": RESULTS_KEYS, "softmax": SOFTMAX_KEYS}[kind]
    unknown = sorted(str(key) for key in data if key not in allowed)
    if unknown:
        more = f" (and {len(unknown) - 1} more unknown keys)" if len(unknown) > 1 else ""
        raise BadInput(f"{source}.{unknown[0][:60]}", f"not a key of a {KIND_NAMES[kind]}{more}")
    return kind


def read_json(path: str, max_bytes: int | None = None) -> Any:
    """The decoded JSON of a regular file of at most ``max_bytes``: a repeated key, NaN or Infinity
    refused, decimals kept as their text (:class:`DecimalText`).

    Raises
    ------
    BadInput
        Not a regular readable file within ``max_bytes``, not UTF-8, not JSON (exit status 2).
    OSError
        Reading failed after the file was opened (exit status 4).
    """
    limit = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    _regular_file(path, limit)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(limit + 1)  # bounded even if the file grows after the check above
    except (FileNotFoundError, IsADirectoryError, PermissionError) as error:
        raise BadInput(str(path), error.strerror or str(error)) from None
    if len(raw) > limit:
        raise BadInput(str(path), f"more than the limit of {limit} bytes (raise it with --max-bytes)")
    try:
        # parse_float=str: a decimal is kept as its text (read exactly later, exponents refused).
        # A repeated key or NaN/Infinity makes the file mean different things to different
        # readers (json.loads keeps the last of two keys), so neither is read at all.
        return json.loads(raw.decode("utf-8"), parse_float=DecimalText, parse_constant=_refuse_constant,
                          object_pairs_hook=_unique_keys)
    except UnicodeDecodeError:
        raise BadInput(str(path), "not UTF-8 text") from None
    except _Ambiguous as error:
        raise BadInput(str(path), f"not read: {error}") from None
    except (ValueError, RecursionError) as error:
        raise BadInput(str(path), f"not valid JSON ({str(error)[:200]})") from None


_SIBLINGS: dict[str, dict] = {}


def _sibling(kind: str) -> dict | None:
    """The namespace of the standard-library checker of ``kind`` beside this file (None: not there)."""
    if kind not in _SIBLINGS:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), SIBLING_CHECKERS[kind])
        if not os.path.isfile(path):
            return None
        _SIBLINGS[kind] = runpy.run_path(path, run_name=f"certcheck_{kind}_checker")
    return _SIBLINGS[kind]


def _check_softmax(data: dict, source: str, max_work: int | None) -> CheckResult:
    """A softmax record (docs/theory.md §6), re-derived by _checker_softmax.py."""
    module = _sibling("softmax")
    if module is None:
        return CheckResult([Outcome(source, "§6", NOT_CHECKED, f"{SIBLING_CHECKERS['softmax']} is not beside this checker")])
    try:
        check = module["check_record"](data, **({} if max_work is None else {"max_work": max_work}))
    except module["BadInput"] as error:
        raise BadInput(source, str(error)) from None
    # "unsupported": its work allowance ran out while checking (exit 3), never a rejection.
    status = check.status if check.status in ("verified", "unsupported") else "rejected"
    result = CheckResult([Outcome(source, "§6", status, "; ".join(check.lines()))])
    result.notes = list(check.lines())
    return result


def _check_control(data: dict, source: str) -> CheckResult:
    """A control result (docs/theory.md D10), re-verified by _checker_control.py."""
    module = _sibling("control")
    if module is None:
        return CheckResult([Outcome(source, "D10", NOT_CHECKED, f"{SIBLING_CHECKERS['control']} is not beside this checker")])
    try:
        check = module["check_control"](data)
    except module["BadInput"] as error:
        raise BadInput(source, str(error)) from None
    result = CheckResult([Outcome(source, item.what, item.status, item.reason) for item in check.items])
    # The control checker's "failed" is a verified impossibility certificate (_checker_control.Item).
    result.certificates_of_falsity = sum(item.status == "failed" for item in check.items)
    return result


def check_data(data: Any, *, source: str = "file", max_work: int = None,  # type: ignore[assignment]
               max_total_work: int = None, runs: str | None = None,  # type: ignore[assignment]
               models: str | None = None) -> CheckResult:
    """Re-verify a decoded file of any of the four kinds (:func:`file_kind` decides which)."""
    kind = file_kind(data, source)
    if kind == "claims":
        return check_report(data, source=source, max_work=max_work, max_total_work=max_total_work)
    if kind == "results":
        return check_results(data, source=source, max_work=max_work, max_total_work=max_total_work, runs=runs,
                             models=models)
    if kind == "softmax":
        return _check_softmax(data, source, max_work)
    return _check_control(data, source)


def check_file(path: str, *, max_work: int = None, max_bytes: int = None,  # type: ignore[assignment]
               max_total_work: int = None, runs: str | None = None,  # type: ignore[assignment]
               models: str | None = None) -> CheckResult:
    """Re-verify a claims report, a ``results.json`` (every record, each record's certcheck block,
    the campaign and its plan, the summary, and with ``runs`` or a runs folder found by
    :func:`runs_folder` the optional sections), a softmax record or a control result: the one
    dispatcher of both entry points.

    Raises
    ------
    BadInput
        Not a regular readable file within ``max_bytes``, not JSON, not exactly one of the four
        kinds, malformed, or beyond ``max_work`` (exit status 2).
    OSError
        Reading failed after the file was opened (exit status 4).
    """
    return check_data(read_json(path, max_bytes), source=str(path), max_work=max_work, max_total_work=max_total_work,
                      runs=runs, models=models)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("expected a positive integer")
    return value


def write_json(text: str, destination: str) -> None:
    """Write ``text`` to ``destination`` ("-": standard output) whole or not at all (a temporary
    file renamed into place, so a full disk leaves no half-written file)."""
    if destination == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    if os.path.exists(destination) and not os.path.isfile(destination):
        # A device or FIFO (/dev/stdout, a pipe): written in place, never replaced by a rename.
        with open(destination, "w", encoding="utf-8") as handle:
            handle.write(text)
        return
    directory = os.path.dirname(os.path.abspath(destination))
    blocker = directory
    while blocker and not os.path.isdir(blocker):
        if os.path.exists(blocker):  # a file where a folder must be: name it, not the temporary file
            raise NotADirectoryError(errno.ENOTDIR, "exists and is not a folder", blocker)
        parent = os.path.dirname(blocker)
        blocker = "" if parent == blocker else parent
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".certcheck.", suffix=".partial")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, destination)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verify.certcheck", description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="a claims report (hardmax-verify check --json), a results.json, a softmax record "
                                        "(hardmax-verify softmax --json) or a control result (hardmax-verify control --json)")
    parser.add_argument("--json", nargs="?", const="-", default=None, metavar="FILE|-",
                        help="write the outcomes as JSON to FILE (or standard output with - or no value)")
    parser.add_argument("--verbose", action="store_true", help="print every outcome, not only rejections")
    parser.add_argument("--max-work", type=_positive_int, default=DEFAULT_MAX_WORK, metavar="N",
                        help=f"replay work allowed per configuration (default {DEFAULT_MAX_WORK:g}; see docs/certcheck.md)")
    parser.add_argument("--max-total-work", type=_positive_int, default=DEFAULT_MAX_TOTAL_WORK, metavar="N",
                        help=f"replay work allowed for all the configurations of the file (default "
                             f"{DEFAULT_MAX_TOTAL_WORK:g})")
    parser.add_argument("--max-bytes", type=_positive_int, default=DEFAULT_MAX_BYTES, metavar="N",
                        help=f"largest file read (default {DEFAULT_MAX_BYTES})")
    parser.add_argument("--runs", default=None, metavar="DIR",
                        help="the saved results a results.json's optional sections were built from (default: the "
                             "folder their paths name, from the current folder; see docs/certcheck.md)")
    parser.add_argument("--models", default=None, metavar="DIR",
                        help="the reproduction's published checkpoints, whose training histories give the "
                             "training-length table's validation losses (default: models/reproduction beside the "
                             "runs folder)")
    parser.add_argument("--debug", action="store_true", help="print the traceback when the check cannot complete")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse: 0 for --help, 2 for bad usage
        return int(exit_.code or 0)
    try:
        result = check_file(args.file, max_work=args.max_work, max_bytes=args.max_bytes,
                            max_total_work=args.max_total_work, runs=args.runs, models=args.models)
        text = json.dumps(result.to_json_dict(), indent=1) + "\n"
        if args.json != "-":
            print("\n".join(result.lines(verbose=args.verbose)))
        if args.json is not None:
            write_json(text, args.json)
    except BadInput as error:
        print(f"certcheck: error: {one_line(str(error))}", file=sys.stderr)
        return BAD_INPUT
    except KeyboardInterrupt:
        print("certcheck: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # noqa: BLE001 - a crash must never look like a verdict
        return could_not_complete(error, debug=args.debug)
    return result.exit_status


def could_not_complete(error: BaseException, *, debug: bool, prefix: str = "certcheck: ") -> int:
    """Exit status 4 with one line (the traceback with ``debug``): I/O error, resource limit, internal error."""
    if debug:
        traceback.print_exception(error, file=sys.stderr)
    if isinstance(error, OSError):
        what = f"I/O error: {error.strerror or error}" + (f": {error.filename}" if error.filename else "")
    elif isinstance(error, (MemoryError, RecursionError)):
        what = f"resource limit reached ({type(error).__name__})"
    else:
        what = f"internal error: {type(error).__name__}: {error}"
    message = f"{prefix}could not complete: {one_line(what)[:500]}" + ("" if debug else " (--debug for the traceback)")
    with contextlib.suppress(OSError):  # even stderr may be gone
        print(message, file=sys.stderr)
    return COULD_NOT_COMPLETE


def one_line(text: str) -> str:
    """``text`` with control characters escaped, so that a message stays on one line."""
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


if __name__ == "__main__":
    sys.exit(main())
