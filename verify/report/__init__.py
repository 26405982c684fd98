"""Verification reports (``hardmax-verify report``): the campaign, its results, figures and rendering.

Modules
-------
campaign    the campaign as independent tasks (:func:`plan_tasks`, :func:`run_task`) merged deterministically
build       :func:`build_report`: run the campaign and write the report folder atomically
schema      the versioned ``results.json`` schema and its validator
figures     matplotlib figures (Agg canvas, no pyplot state)
render      ``report.md`` and the self-contained ``report.html`` from one document model
provenance  versions, hashes, timestamps: the separated environment block
"""

from .build import ReportOutcome, build_report
from .campaign import CampaignSpec, FamilySpec, Task, default_spec, load_campaign, plan_tasks, run_task, run_tasks
from .schema import SCHEMA_VERSION, validate_results

__all__ = ["CampaignSpec", "FamilySpec", "ReportOutcome", "SCHEMA_VERSION", "Task", "build_report", "default_spec",
           "load_campaign", "plan_tasks", "run_task", "run_tasks", "validate_results"]
