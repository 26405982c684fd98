"""What every part of the checker shares: the file markers, the exceptions, one finding and the findings of a file.

:class:`BadInput` is what is refused before any checking (exit status 2), :class:`Rejected` a
certificate or statement that does not verify, :class:`Outcome` one finding about a claim, a run,
a summary, a campaign or a section, and :class:`CheckResult` the findings of one file with their
counts and exit status (0 verified, 1 rejected or false, 3 unsupported or not checked).
"""

from __future__ import annotations

import contextlib
import re
import threading
from typing import Any, Callable, Iterator, NamedTuple


FORMAT = "hardmax-verify/claims-v1"
RESULTS_SCHEMA = "hardmax-verify/results"
# A claim id this checker has no routine for: reported unsupported (never verified), not rejected.
CLAIM_ID = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,39}")
NEEDS_D3_D7 = ("T1", "T2", "T3", "T4", "D3")
BAD_INPUT = 2
COULD_NOT_COMPLETE = 4

Point = tuple  # tuple of Fractions


def counted(value: int, noun: str, plural: str | None = None) -> str:
    """A count with its noun, singular for one: ``1 certificate``, ``1,502 certificates`` (``plural``: when not
    noun + s). The report's rule (verify.core.formatting.counted), kept here so that the checker stays
    independent and a note it recomputes reads exactly as the report's."""
    return f"{value:,} {noun if value == 1 else plural or noun + 's'}"


def stated(value: Any, noun: str, plural: str | None = None) -> str:
    """A count as a file states it, which may be anything: :func:`counted` for an integer of at most
    18 digits, else the value's text cut to 20 characters with the plural noun (``summary says 1 example``,
    ``summary says 1.5 examples``)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10 ** 18:
        return counted(value, noun, plural)
    return f"{str(value)[:20]} {plural or noun + 's'}"


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
    section whose saved files were not given, a task that raised and states no verdict)."""

    source: str
    claim: str
    status: str
    reason: str


OUTCOME_STATUSES = ("verified", "inconclusive", "failed", "rejected", "unsupported", "not checked")


NOT_CHECKED = "not checked"  # a section whose saved files were not given, a task that raised (an Outcome status)
SHOWN_TASK_ERRORS = 10  # task errors printed one a line without --verbose (the rest counted in one line)


_READ = threading.local()


def record_read(what: str, path: str) -> None:
    """Note that the check read ``path`` (a file or folder, ``what`` it is), for the output to name."""
    log = getattr(_READ, "log", None)
    if log is not None and (what, path) not in log:
        log.append((what, path))


@contextlib.contextmanager
def reading() -> Iterator[list]:
    """Collect what the checks inside read (:func:`record_read`), as (what, path) pairs in order."""
    previous = getattr(_READ, "log", None)
    _READ.log = []
    try:
        yield _READ.log
    finally:
        _READ.log = previous


def safe_text(text: Any, limit: int = 500) -> str:
    """Text from a file made safe to print: control characters escaped (one line, no terminal codes), cut to
    ``limit`` characters."""
    text = str(text)
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


class CheckResult:
    """All outcomes of one file or report, with counts per claim and the exit status."""

    def __init__(self, outcomes: list[Outcome] | None = None) -> None:
        self.outcomes: list[Outcome] = list(outcomes or [])
        self.read: list[tuple[str, str]] = []  # (what, path): every file and folder the check read, in order
        self.unchecked: list = []  # the not-checked fields the file holds (schema.Row: pattern, reason)
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
                "read": [{"what": what, "path": path} for what, path in self.read],
                "not_checked": [{"field": row.pattern, "why": row.reason} for row in self.unchecked],
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
            # A run not checked is a task that raised (its record states no verdict); the rest are saved results.
            tasks = sum(o.status == NOT_CHECKED and o.claim == "(run)" for o in self.outcomes)
            parts = [f"{counted(tasks, 'task')} raised an error and {'was' if tasks == 1 else 'were'} not checked"
                     ] if tasks else []
            if any(o.status == NOT_CHECKED and o.claim != "(run)" for o in self.outcomes):
                parts.append("some saved results the report quotes were not checked")
            verdict = "nothing rejected, but " + "; ".join(parts)
        elif "inconclusive" in statuses:
            # An inconclusive verdict states nothing false and carries no certificate: accepted, never proof.
            undecided = sum(o.status == "inconclusive" and not o.claim.startswith("(") for o in self.outcomes)
            verdict = (f"{'everything verified' if verified else 'nothing rejected'}; "
                       f"{counted(undecided, 'inconclusive verdict')} accepted as stated (no certificate to verify)")
        else:
            verdict = "everything verified"
        return f"certcheck: {counted(verified, 'certificate')} verified; {verdict}"

    def read_lines(self) -> list[str]:
        """One line per file and folder the check read (the file itself first)."""
        return [f"{what}: {safe_text(path)}" for what, path in self.read]

    def unchecked_lines(self, *, verbose: bool = False) -> list[str]:
        """The file's fields the checker does not check: one line naming them (with ``verbose``, one line each,
        with the reason; docs/certcheck.md, "Not checked")."""
        if not self.unchecked:
            return []
        if verbose:
            return [safe_text(f"not checked: {row.pattern}: {row.reason}", 2000) for row in self.unchecked]
        return [safe_text("not checked (measured, labels, logs; docs/certcheck.md, \"Not checked\"): "
                          + ", ".join(row.pattern for row in self.unchecked), 4000)]

    def shown_outcomes(self, *, verbose: bool = False) -> tuple[list[Outcome], str | None]:
        """The outcomes printed one a line (``verbose``: all) and a line counting the task errors past the first
        SHOWN_TASK_ERRORS (300,000 tasks that raised would print 300,000 lines)."""
        shown, errors = [], 0
        for o in self.outcomes:
            if not (verbose or o.status in ("rejected", "failed", "unsupported", NOT_CHECKED)):
                continue
            if not verbose and o.status == NOT_CHECKED and o.claim == "(run)":
                errors += 1
                if errors > SHOWN_TASK_ERRORS:
                    continue
            shown.append(o)
        more = errors - SHOWN_TASK_ERRORS
        return shown, (f"... and {counted(more, 'more task')} that raised an error (--verbose lists them)"
                       if more > 0 else None)

    def outcome_lines(self, *, verbose: bool = False) -> list[str]:
        shown, more = self.shown_outcomes(verbose=verbose)
        return [safe_text(f"{o.source}: {o.claim} {o.status}" + (f": {o.reason}" if o.reason else ""), 2000)
                for o in shown] + ([more] if more else [])

    def lines(self, *, verbose: bool = False) -> list[str]:
        out = self.read_lines() + self.unchecked_lines(verbose=verbose) + self.outcome_lines(verbose=verbose)
        out += [safe_text(note, 2000) for note in self.notes]
        for claim, row in sorted(self.counts().items()):
            out.append(safe_text(f"{claim}: " + ", ".join(f"{v} {k}" for k, v in row.items() if v)))
        out.append(self.verdict_line())
        return out


def require(condition: bool, message: "str | Callable[[], str]") -> None:
    """Reject unless ``condition``; a callable ``message`` is formatted only then (numbers of the replay
    can be long, and most checks pass)."""
    if not condition:
        raise Rejected(message() if callable(message) else message)

