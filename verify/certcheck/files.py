"""Kinds of file: one dispatcher for both entry points, by each kind's exact marker.

``python -m verify.certcheck`` and ``hardmax-verify certcheck`` read a file with :func:`read_json`
(a repeated key, NaN or Infinity refused, decimals kept as text) and decide its kind from its
exact marker, never from what else it happens to contain: a claims report and a results.json are
checked here (docs/theory.md §2, §3, D9), a softmax record by :mod:`.softmax` (docs/theory.md §6),
a control result by :mod:`.control` (D10). A file that carries the markers of two kinds is
refused, and each kind's top-level keys are exact, so that no key of another kind can ride along
unchecked.
"""

from __future__ import annotations

from typing import Any

from . import control, jsontext, softmax
from .kernel import (CLAIMS_REPORT, DEFAULT_MAX_BYTES, FORMAT, RESULTS_SCHEMA, BadInput, CheckResult, DecimalText, Node,
                     Outcome, check_report, reading, record_read, unchecked)
from .results import check_results
from .results.schema import RESULTS


SOFTMAX_MARKER = "softmax_certificate"  # the key of a ``hardmax-verify softmax --json`` record (docs/theory.md §6)
CONTROL_FORMAT = "hardmax-verify/control-v1"  # the ``format`` of a ``hardmax-verify control --json`` result (D10)
CLAIMS_KEYS = frozenset(CLAIMS_REPORT.fields)
RESULTS_KEYS = frozenset(RESULTS.fields)
SOFTMAX_KEYS = frozenset(softmax.RECORD.fields)
CONTROL_KEYS = {kind: frozenset(node.fields) for kind, node in control.RESULTS.items()}
KINDS = ("claims", "results", "softmax", "control")
KIND_NAMES = {"claims": "claims report", "results": "verification report", "softmax": "softmax record",
              "control": "control result"}


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
        raise BadInput(source, f"no kind's marker (its format, schema or {SOFTMAX_MARKER}): neither a claims report "
                               f"({FORMAT!r}), a verification report ({RESULTS_SCHEMA!r}), a softmax record (a "
                               f"{SOFTMAX_MARKER!r} object) nor a control result ({CONTROL_FORMAT!r})")
    if len(markers) > 1:
        fields = " and ".join(f"{field} ({kind})" for kind, field in markers)
        raise BadInput(f"{source}.{markers[1][1]}", f"the file carries the markers of more than one kind: {fields}")
    kind = markers[0][0]
    if kind == "control":
        stated_kind = data.get("kind")  # any JSON value: a list or an object is not hashable
        allowed = CONTROL_KEYS.get(stated_kind) if isinstance(stated_kind, str) else None
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
    refused, decimals kept as their text (:class:`DecimalText`), by the checker's one reader
    (:mod:`.jsontext`).

    Raises
    ------
    BadInput
        Not a regular readable file within ``max_bytes``, not UTF-8, not JSON (exit status 2).
    OSError
        Reading failed after the file was opened (exit status 4).
    """
    limit = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    try:
        # parse_float=DecimalText: a decimal is kept as its text (read exactly later, exponents
        # refused). A repeated key or NaN/Infinity makes the file mean different things to
        # different readers (json.loads keeps the last of two keys), so neither is read at all.
        return jsontext.read_json_file(path, max_bytes=limit, parse_float=DecimalText)
    except jsontext.UnreadableJSON as error:
        if error.kind == jsontext.TOO_LARGE:
            raise BadInput(error.path, f"{error.reason} (raise it with --max-bytes)") from None
        if error.kind in jsontext.AMBIGUOUS:
            raise BadInput(error.path, f"not read: {error.reason}") from None
        raise BadInput(error.path, error.reason) from None


def _check_softmax(data: dict, source: str, max_work: int | None) -> CheckResult:
    """A softmax record (docs/theory.md §6), re-derived by the softmax checker (:mod:`.softmax`)."""
    try:
        check = softmax.check_record(data, **({} if max_work is None else {"max_work": max_work}))
    except softmax.BadInput as error:
        raise BadInput(source, str(error)) from None
    # "unsupported": its work allowance ran out while checking (exit 3), never a rejection.
    status = check.status if check.status in ("verified", "unsupported") else "rejected"
    result = CheckResult([Outcome(source, "§6", status, "; ".join(check.lines()))])
    result.notes = list(check.lines())
    return result


def _check_control(data: dict, source: str) -> CheckResult:
    """A control result (docs/theory.md D10), re-verified by the control checker (:mod:`.control`)."""
    try:
        check = control.check_control(data)
    except control.BadInput as error:
        raise BadInput(source, str(error)) from None
    result = CheckResult([Outcome(source, item.what, item.status, item.reason) for item in check.items])
    # The control checker's "failed" is a verified impossibility certificate (control.Item).
    result.certificates_of_falsity = sum(item.status == "failed" for item in check.items)
    return result


def check_data(data: Any, *, source: str = "file", max_work: int = None,  # type: ignore[assignment]
               max_total_work: int = None, runs: str | None = None,  # type: ignore[assignment]
               models: str | None = None) -> CheckResult:
    """Re-verify a decoded file of any of the four kinds (:func:`file_kind` decides which); the result also
    lists the fields of the file that are not checked (:func:`.schema.unchecked`)."""
    kind = file_kind(data, source)
    if kind == "claims":
        result = check_report(data, source=source, max_work=max_work, max_total_work=max_total_work)
    elif kind == "results":
        result = check_results(data, source=source, max_work=max_work, max_total_work=max_total_work, runs=runs,
                               models=models)
    elif kind == "softmax":
        result = _check_softmax(data, source, max_work)
    else:
        result = _check_control(data, source)
    result.unchecked = unchecked(data, schema_of(data))
    return result


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
    data = read_json(path, max_bytes)
    kind = file_kind(data, str(path))
    with reading() as read:
        record_read("checked", f"{path} ({KIND_NAMES[kind]})")
        result = check_data(data, source=str(path), max_work=max_work, max_total_work=max_total_work, runs=runs,
                            models=models)
    result.read = list(read)
    return result


def schema_of(data: Any) -> Node:
    """The schema (:mod:`.schema`) of a decoded file of a known kind (:func:`file_kind`)."""
    kind = file_kind(data)
    if kind == "control":
        return control.RESULTS[data["kind"]]
    return {"claims": CLAIMS_REPORT, "results": RESULTS, "softmax": softmax.RECORD}[kind]


def schemas() -> dict[str, Node]:
    """Every kind of file's schema, by name (docs/certcheck.md's table of what is not checked)."""
    return {"claims report": CLAIMS_REPORT, "verification report (results.json)": RESULTS,
            "softmax record": softmax.RECORD, "control result": control.RESULTS["control"],
            "leader-sets result": control.RESULTS["leader_sets"]}
