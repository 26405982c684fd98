"""A results.json's campaign: its plan is the one the campaign implies, and every planned task has its record.

A results.json states its campaign (seed, families, counts, the layer budget) and its plan:
every task planned before any ran, each with its configuration's sha256. Checked here with the
checker's own arithmetic, before anything trusts the records as "the campaign":

- the plan was made from this campaign block (the sha256 of its canonical JSON);
- the plan is the task list the campaign implies: the worked configurations when it says so,
  then per family the examples split by share (largest remainders), task seeds
  seed * SEED_STRIDE + j, names FAMILY-SEED, dimensions cycled through the family's list, sizes
  and alphas among the family's;
- every planned task has exactly one record, with that task and a configuration whose sha256
  is the planned one; no record is unplanned or repeated;
- the worked configurations are those of docs/theory.md §4 (embedded below, typed
  independently of verify/core/worked.py; a test compares them);
- a campaign inside the theorem's hypotheses (docs/theory.md §2) holds only configurations inside
  them (decided here, as for every run).

What the generators drew (each size and alpha within its range, the tokens) is not re-derived
here: `hardmax-verify report --recheck` regenerates the plan with the suite's own generators.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any, cast

from ..kernel import (BadInput, Rejected, canonical_json, counted, hypothesis_violations, json_count, json_digest, model_of,
                      read_number, stated)


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
    seed = json_count(campaign.get("seed"))
    examples = json_count(campaign.get("examples"))
    worked = campaign.get("worked")
    families = campaign.get("families")
    if seed is None or examples is None or not isinstance(worked, bool) or not isinstance(families, list):
        return "campaign: expected a seed, a number of examples, worked (true/false) and a list of families"
    implied = examples + len(WORKED_TOKENS) * worked
    if implied != planned:
        made = (f"{examples:,} generated and {len(WORKED_TOKENS)} worked configurations make" if worked
                else counted(examples, "generated configuration makes", "generated configurations make"))
        return f"campaign: {made} {counted(implied, 'task')}, the plan lists {planned:,}"
    shares = []
    for index, family in enumerate(families):
        where = f"campaign.families[{index}]"
        if not isinstance(family, dict) or not isinstance(family.get("name"), str):
            return f"{where}: expected an object with a name"
        n_range, dims, alphas = family.get("n"), family.get("d"), family.get("alpha")
        if json_count(family.get("share")) is None or not (
                isinstance(n_range, list) and len(n_range) == 2 and all(json_count(x, 1) is not None for x in n_range)
                and isinstance(dims, list) and dims and all(json_count(x, 1) is not None for x in dims)
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
    if json_count(entry["n"], low) is None or entry["n"] > high:
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
    digest = json_digest(campaign)
    if digest != plan["campaign_sha256"]:
        problems.append(("plan.campaign_sha256", f"is {plan['campaign_sha256'][:64]!r}, but the campaign block's "
                                                 f"sha256 is {digest}: the plan was not made from this campaign"))
    if json_count(campaign.get("tasks")) != len(entries):
        problems.append(("campaign.tasks", f"says {stated(campaign.get('tasks'), 'task')}, the plan lists {len(entries):,}"))
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
    # Each set once (a name rebuilt per lookup is quadratic work), of the names that are strings: another JSON
    # value (a list, an object) is not hashable, and was reported above.
    planned_names, recorded_names = ({n for n in names if isinstance(n, str)} for names in (planned, recorded))
    missing = [n for n in planned if isinstance(n, str) and n not in recorded_names]
    unplanned = [n for n in recorded if isinstance(n, str) and n not in planned_names]
    if missing:
        problems.append(("examples", f"{counted(len(missing), 'planned task has', 'planned tasks have')} no record: "
                                     f"{', '.join(map(str, missing[:5]))[:200]}"))
    if unplanned:
        problems.append(("examples", f"{counted(len(unplanned), 'record was', 'records were')} not planned: "
                                     f"{', '.join(map(str, unplanned[:5]))[:200]}"))
    if problems or len(entries) != len(examples):
        return problems or [("examples", f"{counted(len(examples), 'record')} for {counted(len(entries), 'planned task')}")]
    inside = campaign.get("outside_hypotheses") is not True
    float_check = campaign.get("float_check")
    for index, (entry, record) in enumerate(zip(entries, examples)):
        where = f"examples[{index}] ({str(planned[index])[:60]})"
        if not isinstance(record, dict) or not isinstance(entry, dict):
            problems.append((where, "expected a record object"))
            continue
        task = {key: value for key, value in entry.items() if key != "configuration_sha256"}
        if json_digest(record.get("task")) != json_digest(task):
            problems.append((where, f"its task is not the planned task at its place (plan.tasks[{index}])"))
            continue
        if record.get("status") == "error":
            continue
        config = record.get("configuration")
        digest = json_digest(config)
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
        m = model_of(config)
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
        planned_alpha = read_number(entry.get("alpha"), "alpha")
    except Rejected:
        return f"the planned alpha {str(entry.get('alpha'))[:40]!r} is not a number"
    if m.alpha != planned_alpha:
        return f"its configuration has alpha = {m.alpha}, the plan says {planned_alpha}"
    return None


def _hypotheses_in_campaign(config: dict) -> str | None:
    """In a campaign inside the theorem's hypotheses (docs/theory.md §2), why ``config`` is outside them."""
    m = model_of(config)
    violations = hypothesis_violations(config, m)
    if config.get("beta") is not None:
        violations.append("softmax attention (beta) is not the theorem's model")
    if config.get("outside_hypotheses") is True and not violations:
        violations.append("it records outside_hypotheses: true")
    if violations:
        return ("the campaign is inside the theorem's hypotheses (outside_hypotheses is not true), but this "
                f"configuration is not: {'; '.join(violations)[:200]}")
    return None
