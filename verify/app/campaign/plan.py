"""The campaign's plan: every task it runs, fixed before any of them runs, with each configuration's sha256.

``results.json`` carries the plan (its ``plan`` block), so that a reader can tell a complete
report from one with a record missing. Two commands read it:

* ``hardmax-verify certcheck`` (the independent checker, :mod:`verify.certcheck`) requires exactly
  one record per planned task, each with the planned task and a configuration whose sha256 is the
  planned one, and a plan that follows from the campaign block (task names, seeds, counts per
  family) and was made from that block (``campaign_sha256``). It recomputes every hash with its
  own code.
* ``hardmax-verify report --recheck results.json`` (:func:`recheck_plan`, not independent: it
  uses the suite's generators) regenerates the plan from the recorded campaign and compares it
  with the file, which confirms that the configurations are the ones the seed generates.

The canonical form of a JSON value (:func:`canonical_json`) is defined here once: keys sorted,
no whitespace, UTF-8, numbers as Python's ``json`` writes them. The checker implements the same
definition separately; ``tests/unit/test_campaign_plan.py`` checks that the two agree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from verify.core.io import canonical_json, canonical_sha256, read_json
from verify.core.numbers import InputError
from .spec import CampaignSpec, parse_campaign
from .tasks import Task, build_configuration, plan_tasks

__all__ = ["GENERATOR_VERSIONS", "PLAN_KEYS", "canonical_json", "canonical_sha256", "campaign_block", "campaign_plan", "plan_entry",
           "spec_from_campaign", "PlanDifference", "recheck_plan", "parse_results_file", "MAX_RESULTS_BYTES"]

PLAN_KEYS = ("campaign_sha256", "tasks")
# Dependencies whose version can change a generated configuration (numpy's generator draws them).
GENERATOR_VERSIONS = ("hardmax-verify", "numpy", "python")
MAX_RESULTS_BYTES = 1 << 30  # the largest results.json --recheck reads


def campaign_block(spec: CampaignSpec, *, seed: int, tasks: int) -> dict[str, Any]:
    """results.json's ``campaign`` block: the seed, the campaign and the number of planned tasks."""
    return {"seed": seed, **spec.to_json_dict(), "tasks": tasks}


def plan_entry(task: Task) -> dict[str, Any]:
    """One planned task: its description (as its record's ``task``) and its configuration's sha256."""
    return {**task.describe(), "configuration_sha256": canonical_sha256(build_configuration(task).to_json_dict())}


def campaign_plan(campaign: Mapping[str, Any], tasks: Sequence[Task]) -> dict[str, Any]:
    """results.json's ``plan`` block, made before any task runs: the sha256 of the campaign block it
    was made from and one entry per task, in the records' canonical order."""
    return {"campaign_sha256": canonical_sha256(dict(campaign)), "tasks": [plan_entry(task) for task in tasks]}


def spec_from_campaign(campaign: Any) -> tuple[CampaignSpec, int]:
    """The campaign and seed a results.json's ``campaign`` block records (InputError names the field)."""
    if not isinstance(campaign, Mapping):
        raise InputError("campaign", "expected the campaign object of a results.json")
    seed = campaign.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError("campaign.seed", f"expected a non-negative integer, got {str(seed)[:40]}")
    table = {key: campaign[key] for key in ("examples", "layer_budget", "worked", "float_check", "shrink",
                                            "outside_hypotheses") if key in campaign}
    if campaign.get("time_budget") is not None:
        table["time_budget"] = campaign["time_budget"]
    families = campaign.get("families")
    if not isinstance(families, list):
        raise InputError("campaign.families", "expected a list of families")
    source = campaign.get("source")
    spec = parse_campaign({"campaign": table, "family": families} if families else {"campaign": table},
                          source="campaign", outside_hypotheses=campaign.get("outside_hypotheses") is True)
    if not families:  # parse_campaign keeps the embedded families when none is given
        spec = CampaignSpec(**{**{f: getattr(spec, f) for f in spec.__dataclass_fields__}, "families": ()})
    if isinstance(source, str):
        spec = CampaignSpec(**{**{f: getattr(spec, f) for f in spec.__dataclass_fields__}, "source": source})
    return spec, seed


@dataclass(frozen=True)
class PlanDifference:
    """The first place where a results.json departs from the plan regenerated from its campaign."""

    field: str
    stated: str
    regenerated: str

    def line(self) -> str:
        return f"{self.field}: the file says {self.stated}, the regeneration gives {self.regenerated}"


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str) if not isinstance(value, str) else value
    return text if len(text) <= 120 else text[:117] + "..."


def _first_difference(field: str, stated: Any, regenerated: Any) -> PlanDifference | None:
    """The first path at which two JSON values differ (keys in sorted order, list items in order)."""
    if isinstance(stated, Mapping) and isinstance(regenerated, Mapping):
        for key in sorted(set(stated) | set(regenerated), key=str):
            if key not in stated or key not in regenerated:
                return PlanDifference(f"{field}.{key}", _shown(stated.get(key, "(missing)")),
                                      _shown(regenerated.get(key, "(missing)")))
            found = _first_difference(f"{field}.{key}", stated[key], regenerated[key])
            if found is not None:
                return found
        return None
    if isinstance(stated, list) and isinstance(regenerated, list):
        for index, (a, b) in enumerate(zip(stated, regenerated)):
            found = _first_difference(f"{field}[{index}]", a, b)
            if found is not None:
                return found
        if len(stated) != len(regenerated):
            return PlanDifference(f"{field}", f"{len(stated)} items", f"{len(regenerated)} items")
        return None
    if canonical_json(stated) != canonical_json(regenerated):
        return PlanDifference(field, _shown(stated), _shown(regenerated))
    return None


def parse_results_file(path: Any) -> Any:
    """A results.json, parsed (InputError: not a regular file within MAX_RESULTS_BYTES, or not JSON)."""
    return read_json(path, expected="a results.json", limit=MAX_RESULTS_BYTES)


def recheck_plan(results: Any) -> PlanDifference | None:
    """Regenerate the plan of a results.json from its campaign block and compare (not independent:
    this uses the suite's own generators).

    Compares the campaign block as the campaign regenerates it, the ``plan`` block entry by entry
    (task, configuration sha256) and every record's task and configuration sha256 with the
    regenerated plan. Returns the first difference (None: the file is what its campaign and seed
    generate with this installation; :data:`GENERATOR_VERSIONS` says which versions matter).

    Raises
    ------
    InputError
        The file is not a results.json with a campaign block this version can read.
    """
    if not isinstance(results, Mapping) or results.get("schema") != "hardmax-verify/results":
        raise InputError("schema", "expected a results.json of hardmax-verify report")
    stated_campaign = results.get("campaign")
    spec, seed = spec_from_campaign(stated_campaign)
    tasks = plan_tasks(spec, seed=seed)
    campaign = campaign_block(spec, seed=seed, tasks=len(tasks))
    difference = _first_difference("campaign", stated_campaign, campaign)
    if difference is None:
        difference = _first_difference("plan", results.get("plan"), campaign_plan(campaign, tasks))
    if difference is None:
        difference = _records_difference(results.get("examples"), tasks)
    return difference


def _records_difference(examples: Any, tasks: Sequence[Task]) -> PlanDifference | None:
    if not isinstance(examples, list):
        return PlanDifference("examples", _shown(examples), "a list of records")
    for index, (record, task) in enumerate(zip(examples, tasks)):
        where = f"examples[{index}]"
        if not isinstance(record, Mapping):
            return PlanDifference(where, _shown(record), "a record object")
        found = _first_difference(f"{where}.task", record.get("task"), task.describe())
        if found is not None:
            return found
        if record.get("status") == "error":
            continue
        try:
            digest = canonical_sha256(record.get("configuration"))
        except (TypeError, ValueError):
            digest = "(not JSON)"
        expected = canonical_sha256(build_configuration(task).to_json_dict())
        if digest != expected:
            return PlanDifference(f"{where}.configuration", f"a configuration with sha256 {digest}",
                                  f"the configuration with sha256 {expected}")
    if len(examples) != len(tasks):
        return PlanDifference("examples", f"{len(examples)} records", f"{len(tasks)} planned tasks")
    return None
