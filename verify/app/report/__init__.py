"""Verification reports (``hardmax-verify report``): the campaign, its results, figures and rendering.

Modules
-------
build       :func:`~verify.app.report.build.build_report`: run the campaign (:mod:`verify.app.campaign`) and write
            the report folder atomically
schema      the versioned ``results.json`` schema and its validator
figures     matplotlib figures (Agg canvas, no pyplot state)
render      ``report.md`` and the self-contained ``report.html`` from one document model
glance      the results at a glance the report opens with
provenance  versions, hashes, timestamps: the separated environment block

The package imports only the schema: importing it for a hash (provenance) or the schema must not
pay for what build imports (matplotlib, numba, Hypothesis: seconds).
"""

from __future__ import annotations

from .schema import SCHEMA_VERSION, validate_results

__all__ = ["SCHEMA_VERSION", "validate_results"]
