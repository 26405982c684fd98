"""Verification reports (``hardmax-verify report``): the campaign, its results, figures and rendering.

Modules
-------
build       :func:`build_report`: run the campaign (:mod:`verify.app.campaign`) and write the report folder atomically
schema      the versioned ``results.json`` schema and its validator
figures     matplotlib figures (Agg canvas, no pyplot state)
render      ``report.md`` and the self-contained ``report.html`` from one document model
provenance  versions, hashes, timestamps: the separated environment block
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .schema import SCHEMA_VERSION, validate_results

if TYPE_CHECKING:
    from .build import ReportOutcome, build_report


def __getattr__(name: str) -> Any:
    # build imports matplotlib, numba and Hypothesis (seconds): importing the package for a hash
    # (provenance) or the schema must not pay for them, so build is imported on first use.
    if name in ("ReportOutcome", "build_report"):
        from . import build
        return getattr(build, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ReportOutcome", "SCHEMA_VERSION", "build_report", "validate_results"]
