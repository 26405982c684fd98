"""The leader-control study (docs/control.md): which leader sets some A realises at layer 0, and how reliably the exact
certificates are found.

``python scripts/control_study.py --seed 0 --out runs/control/study.json`` writes the results
file (format ``hardmax-verify/control-study-v1``) and, beside it, the figure of one configuration
with two matrices A that cluster the same tokens two ways; the report's section
(:mod:`.report_section`) reads both. Everything is drawn from ``numpy.random.default_rng(seed)``
and the seeded families of :mod:`verify.core.families`, so the same seed and versions give the same
configurations; the rounded certificates depend on the solver's output (docs/control.md,
"Reproducibility"). What it measures:

* **rounding rates** (:func:`rounding_rates`): over (configuration, leader set) cases from
  every family inside the hypotheses (n 4-9, d 2-3, L a random nonempty subset of the hull
  vertices), how many cases the solver calls feasible got an exact A, and how many cases got an
  exact answer either way;
* **realisable leader sets** (:func:`leader_set_rows`): per configuration, the fraction of the
  nonempty subsets of the hull vertices realisable at layer 0, whether all the vertices lead
  together, and, for a few realisable sets, whether every other token can be locked too;
  against n and d (generic tokens), per family, and on the worked configurations.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from verify.core.config import Configuration
from verify.core.families import FAMILIES, INSIDE_FAMILIES, generate
from verify.core.figure_text import png_metadata
from verify.core.geometry import convex_hull_vertices
from verify.core.numbers import rational_to_str
from verify.core.text import short_number
from verify.core.worked import WORKED_CONFIGURATIONS
from .design import control, decide_system
from .leader_sets import decide_leader_sets

__all__ = ["FORMAT", "Case", "sample_cases", "rounding_rates", "leader_set_row", "leader_set_rows", "two_clusterings",
           "run_study", "draw_two_clusterings"]

FORMAT = "hardmax-verify/control-study-v1"
MAX_VERTICES = 12       # configurations with more hull vertices are skipped by the leader-set study (4,095 subsets)
LOCK_SAMPLE = 4         # realisable leader sets per configuration tried for locking every other token

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Case:
    """One (configuration, leader set) case of the rounding-rate sample."""

    config: Configuration
    leaders: tuple[int, ...]
    family: str


def _quiet(phase: str, done: int, total: int) -> None:
    return None


def sample_cases(seed: int, count: int, *, families: Sequence[str] = INSIDE_FAMILIES, n_range: tuple[int, int] = (4, 9),
                 d_range: tuple[int, int] = (2, 3)) -> list[Case]:
    """``count`` cases cycling through ``families``; n, d, the family's seed and L drawn from ``default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    cases = []
    for index in range(count):
        family = families[index % len(families)]
        spec = FAMILIES[family]
        d = int(rng.integers(max(d_range[0], spec.min_d), d_range[1] + 1))
        n = int(rng.integers(max(n_range[0], spec.min_n), n_range[1] + 1))
        config = generate(family, int(rng.integers(0, 2 ** 31)), n=n, d=d)
        vertices = convex_hull_vertices(config.tokens)
        size = int(rng.integers(1, len(vertices) + 1))
        leaders = tuple(sorted(int(v) for v in rng.choice(vertices, size=size, replace=False)))
        cases.append(Case(config, leaders, family))
    return cases


def rounding_rates(cases: Sequence[Case], *, progress: Progress = _quiet) -> dict[str, Any]:
    """Decide every case's leader set (docs/theory.md D10) and count what the exact steps made of the solver's answers.

    ``solver_feasible``: cases whose design program some solver solved (evidence that L can lead);
    ``exact_designs``: cases with an exact A; ``impossible``: cases with an exact certificate (by
    step); ``inconclusive``: the rest, each listed.
    """
    counts: dict[str, Any] = {"cases": len(cases), "solver_feasible": 0, "exact_designs": 0,
                              "exact_designs_of_solver_feasible": 0, "impossible": 0, "inconclusive": 0,
                              "impossible_by_step": {}, "by_family": {}, "inconclusive_cases": []}
    for index, case in enumerate(cases):
        progress("rounding rates", index, len(cases))
        decision = decide_system(case.config.tokens, case.leaders, {})
        solver_feasible = any(r.program == "design" and r.status.startswith("optimal") for r in decision.runs)
        family = counts["by_family"].setdefault(case.family, {"cases": 0, "decided": 0})
        family["cases"] += 1
        counts["solver_feasible"] += solver_feasible
        if decision.kind == "feasible":
            counts["exact_designs"] += 1
            counts["exact_designs_of_solver_feasible"] += solver_feasible
            family["decided"] += 1
        elif decision.kind == "impossible" and decision.infeasibility is not None:
            counts["impossible"] += 1
            step = decision.infeasibility.step
            counts["impossible_by_step"][step] = counts["impossible_by_step"].get(step, 0) + 1
            family["decided"] += 1
        else:
            counts["inconclusive"] += 1
            counts["inconclusive_cases"].append({"configuration": case.config.name, "leaders": list(case.leaders),
                                                 "solver_feasible": solver_feasible})
    progress("rounding rates", len(cases), len(cases))
    counts["impossible_by_step"] = dict(sorted(counts["impossible_by_step"].items()))
    counts["by_family"] = dict(sorted(counts["by_family"].items()))
    return counts


def leader_set_row(config: Configuration, rng: np.random.Generator, *, lock_sample: int = LOCK_SAMPLE,
                   max_vertices: int = MAX_VERTICES) -> dict[str, Any] | None:
    """One configuration's leader sets at layer 0, or None when it has more than ``max_vertices`` hull vertices."""
    vertices = convex_hull_vertices(config.tokens)
    if len(vertices) > max_vertices:
        return None
    result = decide_leader_sets(config.tokens, max_subsets=2 ** max_vertices)
    feasible = result.of_kind("feasible")
    full = tuple(vertices)
    all_lead = next(s.kind for s in result.subsets if s.leaders == full)
    chosen = [feasible[int(i)] for i in rng.permutation(len(feasible))[:lock_sample]] if feasible else []
    locked = sum(control(config.tokens, leaders).kind == "realised" for leaders in chosen)
    return {"configuration": config.name, "n": config.n, "d": config.d, "vertices": len(vertices),
            "subsets": len(result.subsets), "realisable": len(feasible),
            "impossible": len(result.of_kind("impossible")), "inconclusive": len(result.of_kind("inconclusive")),
            "all_vertices": {"feasible": "realisable"}.get(all_lead, all_lead), "programs": result.programs,
            "lock_tried": len(chosen), "lock_realised": locked}


def leader_set_rows(configs: Sequence[tuple[str, Configuration]], seed: int, *, progress: Progress = _quiet,
                    phase: str = "leader sets") -> list[dict[str, Any]]:
    """:func:`leader_set_row` for each (group, configuration); the group is kept in the row."""
    rng = np.random.default_rng(seed)
    rows = []
    for index, (group, config) in enumerate(configs):
        progress(phase, index, len(configs))
        row = leader_set_row(config, rng)
        if row is not None:
            rows.append({"group": group, **row})
    progress(phase, len(configs), len(configs))
    return rows


def _grid_configurations(seed: int, ns: Sequence[int], ds: Sequence[int], per_cell: int
                         ) -> list[tuple[str, Configuration]]:
    rng = np.random.default_rng(seed)
    return [(f"n={n}, d={d}", generate("generic", int(rng.integers(0, 2 ** 31)), n=n, d=d))
            for n in ns for d in ds for _ in range(per_cell)]


def _family_configurations(seed: int, per_family: int) -> list[tuple[str, Configuration]]:
    rng = np.random.default_rng(seed)
    found = []
    for family in INSIDE_FAMILIES:
        spec = FAMILIES[family]
        for _ in range(per_family):
            d = int(rng.integers(max(2, spec.min_d), 4))
            n = int(rng.integers(max(4, spec.min_n), 9))
            found.append((family, generate(family, int(rng.integers(0, 2 ** 31)), n=n, d=d)))
    return found


def two_clusterings(config: Configuration, *, seed: int = 0) -> dict[str, Any] | None:
    """Two realised designs on the same tokens with different leader sets (two different clusterings), or None.

    Tries pairs of hull vertices, then triples, in order, until two realised designs with
    different leader sets are found.
    """
    vertices = convex_hull_vertices(config.tokens)
    found: list[dict[str, Any]] = []
    candidates = [(a, b) for i, a in enumerate(vertices) for b in vertices[i + 1:]]
    for leaders in candidates:
        outcome = control(config.tokens, leaders, seed=seed)
        if outcome.kind == "realised" and outcome.design is not None and outcome.targets is not None:
            found.append({"leaders": list(outcome.leaders),
                          "A": [[rational_to_str(x) for x in row] for row in outcome.design.A],
                          "targets": [{"token": m, "target": t} for m, t in sorted(outcome.targets.items())]})
            if len(found) == 2 and _different(found):
                return {"configuration": config.name,
                        "tokens": [[rational_to_str(x) for x in t] for t in config.tokens],
                        "designs": found}
            if len(found) == 2:
                found.pop()
    return None


def _different(designs: list[dict[str, Any]]) -> bool:
    return set(designs[0]["leaders"]) != set(designs[1]["leaders"])


def run_study(seed: int, *, rate_cases: int = 600, ns: Sequence[int] = (4, 6, 8, 10, 12), ds: Sequence[int] = (2, 3, 4),
              per_cell: int = 6, per_family: int = 4, progress: Progress = _quiet) -> dict[str, Any]:
    """The whole study for one seed (the results file's content, without the figure)."""
    rates = rounding_rates(sample_cases(seed, rate_cases), progress=progress)
    grid = leader_set_rows(_grid_configurations(seed, ns, ds, per_cell), seed, progress=progress,
                           phase="leader sets against n and d")
    families = leader_set_rows(_family_configurations(seed, per_family), seed, progress=progress,
                               phase="leader sets per family")
    worked = leader_set_rows(sorted(WORKED_CONFIGURATIONS.items()), seed, progress=progress,
                             phase="leader sets of the worked configurations")
    figure = two_clusterings(WORKED_CONFIGURATIONS["emerging_leader"], seed=seed)
    return {"format": FORMAT, "seed": seed,
            "plan": {"rate_cases": rate_cases, "ns": list(ns), "ds": list(ds), "per_cell": per_cell,
                     "per_family": per_family, "lock_sample": LOCK_SAMPLE, "max_vertices": MAX_VERTICES},
            "rounding": rates, "against_n_and_d": grid, "families": families, "worked": worked,
            "two_clusterings": figure}


def matrix_text(rows: Sequence[Sequence[Any]]) -> str:
    """A matrix as its rows, each entry by the rule of every readable output: ``[[3, 1], [1, 1]]``."""
    return "[" + ", ".join("[" + ", ".join(short_number(Fraction(x)) for x in row) + "]" for row in rows) + "]"


def draw_two_clusterings(data: dict[str, Any], path: Any) -> None:
    """The figure: the same tokens, two matrices A, each token coloured by the leader it locks onto (matplotlib)."""
    import matplotlib  # heavy: only the study script draws

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tokens = [[float(Fraction(x)) for x in t] for t in data["tokens"]]
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    # The bottom strip is left to the legend of the marks.
    fig, axes = plt.subplots(1, 2, figsize=(9, 4.2), layout=ConstrainedLayoutEngine(rect=(0, 0.07, 1, 0.93)))
    palette = plt.get_cmap("tab10")
    for ax, design in zip(axes, data["designs"]):
        leaders = design["leaders"]
        colour = {leader: palette(k) for k, leader in enumerate(leaders)}
        target = {e["token"]: e["target"] for e in design["targets"]}
        A = np.array([[float(Fraction(x)) for x in row] for row in design["A"]])
        values, vectors = np.linalg.eigh(A)
        angle = np.linspace(0, 2 * np.pi, 200)
        radius = max(np.sqrt(t[0] ** 2 + t[1] ** 2) for t in tokens)
        # the unit ball of the A-norm, scaled to the tokens: where A stretches, tokens score high
        ellipse = vectors @ np.vstack([np.cos(angle) / np.sqrt(values[0]), np.sin(angle) / np.sqrt(values[1])])
        ellipse *= radius / np.max(np.linalg.norm(ellipse, axis=0))
        ax.plot(ellipse[0], ellipse[1], color="0.8", linewidth=1)
        for i, (x, y) in enumerate(tokens):
            leader = i if i in leaders else target[i]
            if i in leaders:
                ax.scatter([x], [y], s=140, marker="*", color=colour[leader], edgecolor="black", zorder=3)
            else:
                tx, ty = tokens[leader]
                ax.annotate("", xy=(tx, ty), xytext=(x, y),
                            arrowprops={"arrowstyle": "->", "color": colour[leader], "alpha": 0.6})
                ax.scatter([x], [y], s=40, color=colour[leader], zorder=3)
            ax.annotate(str(i), (x, y), textcoords="offset points", xytext=(5, 5), fontsize=8)
        ax.set_title(f"leaders {{{', '.join(map(str, leaders))}}}\nA = {matrix_text(design['A'])}", fontsize=9)
        ax.set_aspect("equal")
        ax.set_xlabel("first coordinate of the token")
        ax.set_ylabel("second coordinate of the token")
    # What the marks mean, once for both panels.
    handles = [plt.Line2D([], [], marker="*", linestyle="", markersize=12, color="0.6", markeredgecolor="black",
                          label="leader (locked at layer 0)"),
               plt.Line2D([], [], marker="o", linestyle="", markersize=6, color="0.6",
                          label="other token, arrow to the leader it attends to"),
               plt.Line2D([], [], color="0.8", label="unit ball of the A-norm, scaled")]
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=8, frameon=False)
    fig.suptitle(f"{data['configuration']}: the same tokens, two choices of A (docs/theory.md D10)", fontsize=10)
    fig.savefig(path, dpi=110, metadata=png_metadata(fig, 110))
    plt.close(fig)
