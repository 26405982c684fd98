"""The claim-related part of a record, in plain JSON (exact numbers as "p/q" strings)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, Mapping

import numpy as np

from verify.core.numbers import rational_to_str, to_rational

__all__ = ["claim_record", "fate_records"]


_AS_IS = frozenset((str, int, bool, type(None)))


def _json_ready(value: Any) -> Any:
    """Evidence and certificates as plain JSON (Fractions as "p/q", tuples and sets as lists)."""
    kind = type(value)
    # The common cases first, by exact type (an ABC's isinstance costs far more, on every node).
    if kind in _AS_IS:
        return value
    if kind is dict:
        return {str(k): _json_ready(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [_json_ready(v) for v in value]
    if isinstance(value, Fraction):
        return rational_to_str(value)
    if isinstance(value, Mapping):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, (frozenset, set)):
        return sorted(_json_ready(v) for v in value)
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return value


def claim_record(report: Any) -> dict[str, Any]:
    """The claim-related part of a record, from a :class:`verify.claims.ClaimReport`.

    Uses the report's own JSON form (docs/certificates.md: ``verdicts`` with certificates,
    ``fates`` in establishment order, ``last_layer``, ``settled_layer``).
    """
    data = report.to_json_dict() if hasattr(report, "to_json_dict") else {}
    verdicts = data.get("verdicts")
    if verdicts is None:
        verdicts = {c: (v.to_json_dict() if hasattr(v, "to_json_dict") else dict(v))
                    for c, v in report.verdicts.items()}
    verdicts = {claim: _json_ready(verdicts[claim]) for claim in sorted(verdicts)}
    statuses = [v["status"] for v in verdicts.values()]
    status = "failed" if "failed" in statuses else "inconclusive" if "inconclusive" in statuses else "certified"
    fates = _json_ready(data.get("fates", fate_records(report)))
    layers_run = getattr(report, "layers_run", None)
    if layers_run is None:
        layers_run = data.get("last_layer", len(getattr(report, "layers", []) or []))
    return {
        "status": status,
        "layers_run": int(layers_run),
        "settled_layer": data.get("settled_layer"),
        "stopped_by": data.get("stopped_by", "settled" if data.get("settled_layer") is not None else "layer budget"),
        "verdicts": verdicts,
        "fates": fates,
    }


def fate_records(report: Any) -> list[dict[str, Any]]:
    """Fates read from ``report.fates`` when the report has no JSON form (objects or mappings)."""
    fates = getattr(report, "fates", None)
    if fates is None:
        return []
    out = []
    for fate in fates:
        get: Callable[..., Any] = fate.get if isinstance(fate, Mapping) else (lambda key, default=None, f=fate: getattr(f, key, default))
        limit = get("limit")
        members = get("set")
        out.append({"token": int(get("token")), "kind": str(get("kind")),
                    "layer": None if get("layer") is None else int(get("layer")),
                    "set": None if members is None else sorted(int(j) for j in members),
                    "limit": None if limit is None else [rational_to_str(to_rational(x)) for x in limit]})
    return out
