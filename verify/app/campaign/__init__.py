"""The verification campaign: a list of independent tasks, run anywhere, merged deterministically.

Modules, each depending only on those above it:

spec        what a campaign runs (:class:`CampaignSpec`): embedded defaults or a CAMPAIGN.toml
tasks       :func:`plan_tasks` (the worked configurations, then seed-generated ones) and
            :func:`build_configuration`
measure     the exact run to a fixed horizon, convergence series, float-versus-exact comparison
records     the claim-related part of a record in plain JSON
recheck     every record re-verified by the independent checker :mod:`verify.certcheck`
shrink      counterexample shrinking
run         :func:`run_task`: one task to its JSON-ready record
merge       records in canonical order, per-claim counts, the overall statuses, what D9 did
executors   where tasks run: in this process, a process pool, or Dask; :func:`run_tasks`

Everything a record holds about the mathematics is decided exactly (via
:func:`verify.claims.check_configuration`) except the fields documented as *measured*: the
float comparison and the convergence distances.
"""

from .executors import run_tasks
from .merge import claim_counts, closed_form_summary, merge_records, overall_statuses
from .run import Checker, run_task
from .spec import DEFAULT_SPEC, CampaignSpec, FamilySpec, default_spec, load_campaign, parse_campaign
from .tasks import Task, build_configuration, plan_tasks

__all__ = ["CampaignSpec", "FamilySpec", "DEFAULT_SPEC", "default_spec", "load_campaign", "parse_campaign", "Task",
           "plan_tasks", "build_configuration", "run_task", "run_tasks", "merge_records", "claim_counts",
           "overall_statuses", "closed_form_summary", "Checker"]
