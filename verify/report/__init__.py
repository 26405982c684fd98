"""Verification reports (``hardmax-verify report``): the campaign, its results, figures and rendering.

Modules
-------
build       :func:`build_report`: run the campaign (:mod:`verify.campaign`) and write the report folder atomically
schema      the versioned ``results.json`` schema and its validator
figures     matplotlib figures (Agg canvas, no pyplot state)
render      ``report.md`` and the self-contained ``report.html`` from one document model
provenance  versions, hashes, timestamps: the separated environment block
"""

from .build import ReportOutcome, build_report
from .schema import SCHEMA_VERSION, validate_results

__all__ = ["ReportOutcome", "SCHEMA_VERSION", "build_report", "validate_results"]
