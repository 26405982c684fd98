"""A campaign as tasks: :func:`plan_tasks` turns a spec and a seed into self-contained, picklable tasks.

The four worked configurations of docs/theory.md §4 come first, then seed-generated configurations
across the families of :mod:`verify.core.families`; :func:`build_configuration` makes a task's
configuration (the same one on any machine).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from verify.core.config import Configuration
from verify.core.families import generate
from verify.core.numbers import InputError
from verify.core.worked import WORKED_CONFIGURATIONS, WORKED_NAMES
from .spec import CampaignSpec

__all__ = ["Task", "plan_tasks", "build_configuration", "SEED_STRIDE", "WORKED_FAMILY"]

SEED_STRIDE = 10_000  # task seed = campaign seed * SEED_STRIDE + index within its family
WORKED_FAMILY = "worked"


@dataclass(frozen=True)
class Task:
    """One configuration to check: everything :func:`run_task` needs, nothing it must look up elsewhere."""

    kind: str              # "worked" or "generated"
    family: str            # family name ("worked" for the worked configurations)
    seed: int              # generator seed (the worked configurations' builders fix theirs)
    name: str              # example id, unique within the campaign
    n: int = 0
    d: int = 0
    alpha: str = ""
    layer_budget: int = 200
    time_budget: float | None = None
    float_check: bool = True
    shrink: bool = True
    options: tuple[tuple[str, Any], ...] = ()

    def budgets(self) -> dict[str, Any]:
        """The checker's budget keywords; time_budget only when set, so checkers without it keep working."""
        return {"layer_budget": self.layer_budget,
                **({"time_budget": self.time_budget} if self.time_budget is not None else {})}

    @property
    def sort_key(self) -> tuple:
        return (0 if self.kind == "worked" else 1, self.family, self.seed, self.name)

    def describe(self) -> dict[str, Any]:
        data = {"kind": self.kind, "family": self.family, "seed": self.seed, "name": self.name}
        if self.kind == "generated":
            data.update(n=self.n, d=self.d, alpha=self.alpha, options=dict(self.options))
        return data


def _family_counts(spec: CampaignSpec) -> list[int]:
    """Split ``spec.examples`` by share (largest remainders, ties in listed order)."""
    shares = [f.share for f in spec.families]
    total = sum(shares)
    if total == 0 or spec.examples == 0:
        return [0] * len(shares)
    exact = [Fraction(spec.examples * s, total) for s in shares]
    counts = [math.floor(x) for x in exact]
    order = sorted(range(len(shares)), key=lambda i: (-(exact[i] - counts[i]), i))
    for i in order[:spec.examples - sum(counts)]:
        counts[i] += 1
    return counts


def plan_tasks(spec: CampaignSpec, *, seed: int) -> list[Task]:
    """The campaign's tasks in their canonical order. Same spec and seed, same tasks."""
    tasks: list[Task] = []
    if spec.worked:
        # Seed = the builder's own seed in verify.core.worked (0: no randomness), which is also the
        # order of [P1] Figure 2's rows.
        tasks += [Task("worked", WORKED_FAMILY, index, name, layer_budget=spec.layer_budget,
                       time_budget=spec.time_budget, float_check=spec.float_check, shrink=spec.shrink) for index, name in enumerate(WORKED_NAMES)]
    for family, count in zip(spec.families, _family_counts(spec)):
        if count > SEED_STRIDE:
            raise InputError(f"family {family.name}", f"at most {SEED_STRIDE} examples per family, got {count}")
        for j in range(count):
            # Derived from names, not list positions, so adding a family leaves the others' tasks unchanged.
            rng = np.random.default_rng([seed, zlib.crc32(family.name.encode()), j])
            n = int(rng.integers(family.n[0], family.n[1] + 1))
            d = family.d[j % len(family.d)]
            alpha = family.alpha[int(rng.integers(len(family.alpha)))]
            task_seed = seed * SEED_STRIDE + j
            tasks.append(Task("generated", family.name, task_seed, f"{family.name}-{task_seed}", n=n, d=d,
                              alpha=alpha, layer_budget=spec.layer_budget, time_budget=spec.time_budget,
                              float_check=spec.float_check,
                              shrink=spec.shrink, options=family.options))
    return sorted(tasks, key=lambda t: t.sort_key)


def build_configuration(task: Task) -> Configuration:
    """The configuration a task checks."""
    if task.kind == "worked":
        return WORKED_CONFIGURATIONS[task.name]
    return generate(task.family, task.seed, n=task.n, d=task.d, alpha=Fraction(task.alpha),
                             **dict(task.options))
