"""The verification campaign: a list of independent tasks, run anywhere, merged deterministically.

A campaign is described by a :class:`CampaignSpec` (embedded defaults, or a CAMPAIGN.toml
file). :func:`plan_tasks` turns it and a seed into a list of :class:`Task` objects: the four
worked configurations of THEORY.md §4, then seed-generated configurations across the
families of :mod:`verify.families`. Each task is self-contained and picklable, and
:func:`run_task` maps it to a JSON-ready *record* (configuration, verdict per claim, leaders,
locking layers, exact-versus-float comparison, denominator sizes, convergence series).
Records are merged by :func:`merge_records`, which sorts them by (kind, family, seed), so the
result does not depend on the order in which an executor finished the tasks (issue 9: the
same task function serves the in-process runner, the process pool and Dask).

Everything a record holds about the mathematics is decided exactly (via
:func:`verify.claims.check_configuration`) except the fields documented as *measured*:
the float comparison and the convergence distances, which are float renderings of exact
positions and are labelled as measurements in the report.
"""

from __future__ import annotations

import importlib
import math
import os
import sys
import tomllib
import zlib
from dataclasses import asdict, dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from ..config import Configuration
from ..io import read_input
from ..limits import MAX_LAYER_BUDGET
from ..numbers import InputError, rational_to_str, to_rational
from ..text import describe_value
from ..verdicts import CLAIM_IDS, STATUSES

__all__ = [
    "FamilySpec", "CampaignSpec", "Task", "DEFAULT_SPEC", "default_spec", "load_campaign",
    "parse_campaign", "plan_tasks", "run_task", "run_tasks", "merge_records", "REPORT_CLAIMS",
    "Checker",
]

# The verdicts a report tabulates: the theorem's claims, the checked facts, and the replay
# check of verify.claims (the exact engine against an independent known-answer replay).
REPORT_CLAIMS: tuple[str, ...] = tuple(CLAIM_IDS) + ("replay",)

Checker = Callable[..., Any]  # check_configuration(config, *, layer_budget) -> ClaimReport

SEED_STRIDE = 10_000  # task seed = campaign seed * SEED_STRIDE + index within its family
WORKED_FAMILY = "worked"


# --------------------------------------------------------------------------- specification

@dataclass(frozen=True)
class FamilySpec:
    """One family of generated configurations and the ranges its tasks draw from.

    ``share`` is a relative weight: the campaign's ``examples`` are split between families in
    proportion to it. ``n`` is an inclusive range, ``d`` and ``alpha`` lists to draw from.
    ``options`` are passed on to :func:`verify.families.generate` unchanged.
    """

    name: str
    share: int = 1
    n: tuple[int, int] = (4, 16)
    d: tuple[int, ...] = (2, 3, 4)
    alpha: tuple[str, ...] = ("1/10", "1/2", "2", "10")
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class CampaignSpec:
    """What a campaign runs. ``examples`` counts the generated configurations (worked ones come on top)."""

    examples: int
    layer_budget: int
    worked: bool
    float_check: bool
    shrink: bool
    families: tuple[FamilySpec, ...]
    source: str = "embedded defaults"
    outside_hypotheses: bool = False  # allow families outside the theorem's hypotheses (recorded per example)
    time_budget: float | None = None  # wall-clock seconds per configuration (None: none; makes results machine-dependent)

    def to_json_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["families"] = [
            {"name": f.name, "share": f.share, "n": list(f.n), "d": list(f.d), "alpha": list(f.alpha),
             "options": {k: v for k, v in f.options}} for f in self.families]
        return data


# The default campaign: sized to finish within a few minutes on 2 cores (measured, docs/report.md).
DEFAULT_SPEC = CampaignSpec(
    examples=144,
    layer_budget=200,
    worked=True,
    float_check=True,
    shrink=True,
    families=(
        FamilySpec("generic", share=2, n=(4, 32)),          # A = I
        FamilySpec("diagonal", share=1, n=(4, 24)),
        FamilySpec("dense_spd", share=1, n=(4, 24)),
        FamilySpec("ill_conditioned", share=1, n=(4, 16)),
        FamilySpec("mirror_ties", share=1, n=(4, 16)),      # persistent ties, non-vertex limits (T4)
        FamilySpec("sphere_ties", share=1, n=(4, 16)),      # persistent ties on edge midpoints
        FamilySpec("collinear", share=1, n=(4, 16)),
        FamilySpec("coplanar", share=1, n=(4, 16), d=(3, 4)),
        FamilySpec("hull_edges", share=1, n=(4, 16)),       # tokens on edges of the hull
        FamilySpec("near_origin", share=1, n=(4, 16)),
        FamilySpec("close_pairs", share=1, n=(4, 16)),
    ),
)


def default_spec(*, examples: int | None = None) -> CampaignSpec:
    """The embedded default campaign, restricted to the families :mod:`verify.families` provides."""
    families = _available_families()
    chosen = tuple(f for f in DEFAULT_SPEC.families if families is None or f.name in families)
    spec = CampaignSpec(**{**_spec_fields(DEFAULT_SPEC), "families": chosen})
    if examples is not None:
        spec = CampaignSpec(**{**_spec_fields(spec), "examples": examples})
    return spec


def _spec_fields(spec: CampaignSpec) -> dict[str, Any]:
    return {name: getattr(spec, name) for name in spec.__dataclass_fields__}


def _available_families() -> Mapping[str, Any] | None:
    try:
        families = importlib.import_module("verify.families")
    except ModuleNotFoundError:
        return None
    return getattr(families, "FAMILIES", None)


_CAMPAIGN_KEYS = {"examples", "layer_budget", "time_budget", "worked", "float_check", "shrink", "outside_hypotheses"}
MAX_TIME_BUDGET = 1e9
_FAMILY_KEYS = {"name", "share", "n", "d", "alpha", "options"}
MAX_EXAMPLES = 1_000_000


def _int(value: Any, key: str, *, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(key, f"expected an integer, got {describe_value(value)}")
    if not low <= value <= high:
        raise InputError(key, f"expected an integer in [{low}, {high}], got {value}")
    return value


def _bool(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(key, f"expected true or false, got {describe_value(value)}")
    return value


def parse_campaign(data: Mapping[str, Any], *, source: str = "campaign", outside_hypotheses: bool = False) -> CampaignSpec:
    """Validate a decoded CAMPAIGN.toml; every problem is an :class:`InputError` naming the key.

    Layout (every key optional; missing keys keep the embedded defaults)::

        [campaign]
        examples = 48          # generated configurations, split between families by share
        layer_budget = 200     # layers the claim checks may run per configuration
        time_budget = 30       # wall-clock seconds per configuration (default: none; results then depend on speed)
        worked = true          # include the four worked configurations of THEORY.md section 4
        float_check = true     # compare the float dynamics with the exact ones
        shrink = true          # shrink counterexamples before reporting them
        outside_hypotheses = false  # allow families outside the theorem's hypotheses (or --outside-hypotheses)

        [[family]]             # repeat per family; when present, replaces the default list
        name = "generic"       # a name registered in verify.families.FAMILIES (generic: A = I)
        share = 2
        n = [4, 32]            # inclusive range of token counts
        d = [2, 3, 4]
        alpha = ["1/10", "1/2", "2", "10"]
        options = {}           # passed to verify.families.generate
    """
    unknown = sorted(set(data) - {"campaign", "family"})
    if unknown:
        raise InputError(f"{source}: {unknown[0]}", "unknown table (expected [campaign] and [[family]])")
    fields = _spec_fields(default_spec())
    fields["source"] = source
    fields["outside_hypotheses"] = outside_hypotheses
    table = data.get("campaign", {})
    if not isinstance(table, Mapping):
        raise InputError(f"{source}: campaign", "expected a table [campaign]")
    for key in sorted(set(table) - _CAMPAIGN_KEYS):
        raise InputError(f"{source}: campaign.{key}", f"unknown key (expected one of: {', '.join(sorted(_CAMPAIGN_KEYS))})")
    if "examples" in table:
        fields["examples"] = _int(table["examples"], f"{source}: campaign.examples", low=0, high=MAX_EXAMPLES)
    if "layer_budget" in table:
        fields["layer_budget"] = _int(table["layer_budget"], f"{source}: campaign.layer_budget", low=1,
                                      high=MAX_LAYER_BUDGET)
    if "time_budget" in table:
        value = table["time_budget"]
        where = f"{source}: campaign.time_budget"
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(where, f"expected a number of seconds, got {describe_value(value)}")
        if not 0 < value <= MAX_TIME_BUDGET:  # also refuses nan and inf
            raise InputError(where, f"expected seconds in (0, {MAX_TIME_BUDGET:g}], got {value}")
        fields["time_budget"] = float(value)
    for key in ("worked", "float_check", "shrink", "outside_hypotheses"):
        if key in table:
            fields[key] = _bool(table[key], f"{source}: campaign.{key}")
    # Either the flag or the file suffices (project convention).
    fields["outside_hypotheses"] = fields["outside_hypotheses"] or outside_hypotheses

    if "family" in data:
        entries = data["family"]
        if not isinstance(entries, list) or not entries:
            raise InputError(f"{source}: family", "expected one or more [[family]] tables")
        registry = _available_families()
        families = []
        for index, entry in enumerate(entries):
            where = f"{source}: family[{index}]"
            if not isinstance(entry, Mapping):
                raise InputError(where, "expected a table")
            for key in sorted(set(entry) - _FAMILY_KEYS):
                raise InputError(f"{where}.{key}", f"unknown key (expected one of: {', '.join(sorted(_FAMILY_KEYS))})")
            families.append(_parse_family(entry, where, registry))
        names = [f.name for f in families]
        if len(set(names)) != len(names):
            raise InputError(f"{source}: family", "each family may appear once")
        fields["families"] = tuple(families)
    spec = CampaignSpec(**fields)
    check_outside(spec, where=f"{source}: family")
    if spec.examples and not spec.families:
        raise InputError(f"{source}: family", "no family to generate examples from")
    return spec


def check_outside(spec: CampaignSpec, *, where: str = "family") -> None:
    """Refuse families outside the theorem's hypotheses unless the campaign allows them explicitly.

    The project's convention: ``--outside-hypotheses`` or ``outside_hypotheses = true`` (in
    [campaign]) says the user means it; the examples then carry ``outside_hypotheses`` and
    the report lists them as such.
    """
    if spec.outside_hypotheses:
        return
    registry = _available_families() or {}
    for index, family in enumerate(spec.families):
        if getattr(registry.get(family.name), "outside", False):
            raise InputError(f"{where}[{index}].name",
                             f"family {family.name!r} lies outside the theorem's hypotheses; pass "
                             "--outside-hypotheses or set outside_hypotheses = true in [campaign] to study it")


def _parse_family(entry: Mapping[str, Any], where: str, registry: Mapping[str, Any] | None) -> FamilySpec:
    if "name" not in entry or not isinstance(entry["name"], str):
        raise InputError(f"{where}.name", "expected the family's name as a string")
    name = entry["name"]
    if registry is not None and name not in registry:
        raise InputError(f"{where}.name", f"unknown family {name!r} (known: {', '.join(sorted(registry))})")
    base = FamilySpec(name)
    share = _int(entry.get("share", base.share), f"{where}.share", low=0, high=MAX_EXAMPLES)
    family = registry.get(name) if registry is not None else None
    min_n, min_d = getattr(family, "min_n", 1), getattr(family, "min_d", 1)
    max_n, max_d = _family_limits()
    n = entry.get("n", list(base.n))
    if not isinstance(n, list) or len(n) != 2:
        raise InputError(f"{where}.n", f"expected an inclusive range [low, high], got {describe_value(n)}")
    n_low = _int(n[0], f"{where}.n", low=min_n, high=max_n)
    n_high = _int(n[1], f"{where}.n", low=n_low, high=max_n)
    d = entry.get("d", [x for x in base.d if min_d <= x <= max_d])
    if not isinstance(d, list) or not d:
        raise InputError(f"{where}.d", f"expected a non-empty list of dimensions, got {describe_value(d)}")
    dims = tuple(_int(x, f"{where}.d", low=min_d, high=max_d) for x in d)
    alphas = entry.get("alpha", list(base.alpha))
    if not isinstance(alphas, list) or not alphas:
        raise InputError(f"{where}.alpha", f"expected a non-empty list of numbers, got {describe_value(alphas)}")
    alpha_text = []
    for x in alphas:
        value = to_rational(x if not isinstance(x, float) else repr(x), field=f"{where}.alpha")
        if value <= 0:
            raise InputError(f"{where}.alpha", f"expected alpha > 0, got {describe_value(value)}")
        text = rational_to_str(value)
        # Tasks carry alpha as "p/q" text and read it back: a value whose exact text is beyond the
        # number parser's limits ("1e5000" has 5001 digits) is refused here, not in every task.
        try:
            to_rational(text, field=f"{where}.alpha")
        except InputError as error:
            raise InputError(f"{where}.alpha", f"{describe_value(x)} written exactly is {len(text):,} characters: "
                                               f"{error.message}") from None
        alpha_text.append(text)
    options = entry.get("options", {})
    if not isinstance(options, Mapping):
        raise InputError(f"{where}.options", "expected a table of keyword arguments")
    for key in sorted(set(options) - {"matrix"}):
        raise InputError(f"{where}.options.{key}", "unknown option (expected: matrix)")
    kinds = getattr(importlib.import_module("verify.families"), "MATRIX_KINDS", None) if registry is not None else None
    if "matrix" in options and kinds is not None and options["matrix"] not in kinds:
        raise InputError(f"{where}.options.matrix", f"expected one of {', '.join(kinds)}, got {describe_value(options['matrix'])}")
    return FamilySpec(name, share, (n_low, n_high), dims, tuple(alpha_text), tuple(sorted(options.items())))


def _family_limits() -> tuple[int, int]:
    try:
        families = importlib.import_module("verify.families")
    except ModuleNotFoundError:
        return 4096, 64
    return getattr(families, "MAX_N", 4096), getattr(families, "MAX_D", 64)


def load_campaign(path: str | os.PathLike[str], *, outside_hypotheses: bool = False) -> CampaignSpec:
    """Read CAMPAIGN.toml; a missing, unreadable or malformed file is an :class:`InputError`."""
    path = Path(path)
    raw = read_input(path, expected="a CAMPAIGN.toml file")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(str(path), "is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise InputError(str(path), f"malformed TOML: {error}") from None
    except RecursionError:
        raise InputError(str(path), "malformed TOML: nested too deeply") from None
    except ValueError as error:  # tomllib reads integers with int(): Python's digit limit
        if "digits" not in str(error):
            raise
        raise InputError(str(path), f"an integer has too many digits (limit {sys.get_int_max_str_digits()})") from None
    return parse_campaign(data, source=str(path), outside_hypotheses=outside_hypotheses)


# --------------------------------------------------------------------------- tasks

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
    from ..worked import WORKED_NAMES

    tasks: list[Task] = []
    if spec.worked:
        # Seed = the builder's own seed in verify.worked (0: no randomness), which is also the
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
        from ..worked import WORKED_CONFIGURATIONS
        return WORKED_CONFIGURATIONS[task.name]
    families = importlib.import_module("verify.families")
    return families.generate(task.family, task.seed, n=task.n, d=task.d, alpha=Fraction(task.alpha),
                             **dict(task.options))


# --------------------------------------------------------------------------- running one task

def default_checker() -> Checker:
    return importlib.import_module("verify.claims").check_configuration


def run_task(task: Task, *, checker: Checker | None = None) -> dict[str, Any]:
    """Check every claim on the task's configuration and return its JSON-ready record.

    Deterministic: the record depends on the task only. ``checker`` replaces
    :func:`verify.claims.check_configuration` (tests inject failing checkers through it).
    """
    check = checker or default_checker()
    config = build_configuration(task)
    report = check(config, **task.budgets())
    record: dict[str, Any] = {"task": task.describe(), "configuration": config.to_json_dict()}
    record.update(claim_record(report))
    # The claim checks stop one layer after every token is settled (often layer 1 or 2); the
    # figures want a longer view, so the exact engine is run on to a fixed horizon.
    horizon = max(HORIZON, record["layers_run"])
    engine_layers = list(getattr(report, "layers", []) or [])
    if checker is None and len(engine_layers) > horizon:
        layers = engine_layers[:horizon + 1]  # the claim checks already ran the real engine this far
    else:
        layers = exact_run(config, horizon)
    fates = record["fates"]
    record["horizon"] = horizon
    record["denominator_bits"] = [layer.denominator.bit_length() for layer in layers]
    record["convergence"] = convergence_series(config, layers, fates)
    if task.float_check:
        record["float_comparison"] = float_comparison(config, layers)
    record["certcheck"] = recheck_certificates(record, layer_budget=task.layer_budget, time_budget=task.time_budget)
    failed = sorted(c for c, v in record["verdicts"].items() if v["status"] == "failed")
    if failed and task.shrink:
        record["counterexample"] = shrink_counterexample(config, failed, check, task.budgets())
    return record


HORIZON = 30  # layers shown in the convergence, float and denominator figures ([P1] Figure 2 runs 30)


def exact_run(config: Configuration, layers: int) -> list[Any]:
    """Layers 0..``layers`` of the exact engine (:func:`verify.exact_dynamics.exact_layers`)."""
    from itertools import islice

    from ..exact_dynamics import exact_layers

    A = [list(r) for r in config.A] if config.A is not None else None
    V = [list(r) for r in config.V] if config.V is not None else None
    return list(islice(exact_layers([list(t) for t in config.tokens], alpha=config.alpha, A=A, V=V), layers + 1))


def _json_ready(value: Any) -> Any:
    """Evidence and certificates as plain JSON (Fractions as "p/q", tuples and sets as lists)."""
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


def _significant(x: float, digits: int = 6) -> float:
    """Round for storage: six significant digits are plenty for a plot and keep the file small."""
    return float(f"{x:.{digits}g}") if math.isfinite(x) else x


def convergence_series(config: Configuration, layers: Sequence[Any], fates: list[dict[str, Any]]) -> dict[str, Any]:
    """max_i ||z_i^k - s_i||_A per layer k over the tokens with a certified limit s_i.

    The squared distances are computed exactly in integers and only the final square root is
    taken in float64, so tiny distances (1e-30 after 30 layers with alpha = 10) are not lost
    to the rounding of positions. Tokens without a certified limit are counted, not guessed.
    """
    from math import lcm

    limits = {f["token"]: [Fraction(x) for x in f["limit"]] for f in fates if f.get("limit")}
    uncertified = sorted(set(range(config.n)) - set(limits))
    series: list[float] = []
    if limits and layers:
        A = config.A_matrix
        a = lcm(*(x.denominator for row in A for x in row))
        A_int = [[int(x * a) for x in row] for row in A]
        identity = config.A is None
        tokens = sorted(limits)
        S = lcm(*(x.denominator for i in tokens for x in limits[i]))
        scaled_limits = {i: [int(x * S) for x in limits[i]] for i in tokens}
        d = config.d
        for layer in layers:
            D = layer.denominator
            best = 0
            for i in tokens:
                row = layer.numerators[layer.groups.point_of[i]]
                diff = [row[c] * S - scaled_limits[i][c] * D for c in range(d)]
                if identity:
                    value = sum(x * x for x in diff)
                else:
                    value = sum(diff[r] * A_int[r][c] * diff[c] for r in range(d) for c in range(d))
                best = max(best, value)
            # ||.||_A^2 = best / (a (S D)^2), exactly; one rounding to float at the end.
            series.append(_significant(math.sqrt(float(Fraction(best, a * (S * D) ** 2)))))
    return {"max_A_distance": series, "tokens_with_limit": len(limits), "tokens_without_limit": uncertified,
            "kind": "exact squared distance, square root in float64"}


def float_comparison(config: Configuration, layers: Sequence[Any]) -> dict[str, Any]:
    """Run the float dynamics for as many layers as ``layers`` (exact) and compare attention sets.

    ``silent_disagreements`` counts layers where a float set the run presents as decided
    differs from the exact one. That includes the decided rows of the first undecided layer
    (all earlier layers were decided, so the proven rounding bound of
    :mod:`verify.float_dynamics` still covers them); later layers are all undecided. The bound
    says this cannot happen, so a nonzero count is a defect.
    """
    from ..trajectory import simulate

    last = layers[-1].index
    trajectory = simulate(config.tokens, alpha=config.alpha, A=config.A_matrix if config.A is not None else None,
                          layers=last, arithmetic="float")
    differing_layers = []
    differing_tokens = 0
    first_undecided = trajectory.first_undecided_layer
    silent = 0
    for layer in layers:
        exact_sets = layer.attention_sets()
        float_sets = trajectory.attention[layer.index]
        flagged = trajectory.undecided[layer.index]
        wrong = [i for i, (a, b) in enumerate(zip(exact_sets, float_sets)) if a != b]
        if wrong:
            differing_layers.append(layer.index)
            differing_tokens += len(wrong)
            if any(i not in flagged for i in wrong):
                silent += 1
    differences = []
    for layer in layers:
        # n / D for Python ints is correctly rounded: the exact positions' nearest floats.
        exact = np.array([[x / layer.denominator for x in row] for row in layer.numerators], dtype=float)
        exact = exact[list(layer.groups.point_of)]
        differences.append(_significant(float(np.abs(exact - np.asarray(trajectory.positions[layer.index])).max())))
    distance = differences[-1]
    return {
        "layers": last,
        "first_undecided_layer": first_undecided,
        "undecided_token_layers": sum(len(s) for s in trajectory.undecided),
        "first_differing_layer": differing_layers[0] if differing_layers else None,
        "differing_layers": len(differing_layers),
        "differing_token_layers": differing_tokens,
        "silent_disagreements": silent,
        "final_max_abs_difference": distance,
        "max_abs_difference": differences,
        "kind": "measured (float64 run against the exact run)",
    }


# --------------------------------------------------------------------------- certificates

CERTCHECK_MODULE = "verify.certcheck"


def recheck_certificates(record: dict[str, Any], *, layer_budget: int | None = None,
                         time_budget: float | None = None) -> dict[str, Any]:
    """Re-verify the record with the independent checker.

    Calls :func:`verify.certcheck.check_record` (standard library only, imports nothing from
    the package) with the record's configuration, verdicts, fates, status and layers in their
    JSON form: the checker replays the dynamics itself and trusts nothing else. Returns
    ``{"available", "verified": [claims], "rejected": {claim: reason}, "unsupported": {claim: reason}}``;
    a problem with the record as a whole (its status, fates or layers) is rejected under "(run)".
    ``available`` is False when the checker module is missing (the report then says n/a).
    """
    try:
        module = importlib.import_module(CERTCHECK_MODULE)
    except ModuleNotFoundError:
        return {"available": False, "verified": [], "rejected": {}, "unsupported": {}}
    outcome = module.check_record(record["configuration"], record["verdicts"], last_layer=record.get("layers_run"),
                                  settled_layer=record.get("settled_layer"), fates=record.get("fates"),
                                  status=record.get("status"), stopped_by=record.get("stopped_by"),
                                  layer_budget=layer_budget, time_budget=time_budget)
    verified, rejected, unsupported = [], {}, {}
    for claim in sorted(outcome):
        result = outcome[claim]
        if result.get("status") == "verified":
            verified.append(claim)
        elif result.get("status") == "unsupported":
            unsupported[claim] = str(result.get("reason", ""))
        elif result.get("status") == "rejected":
            rejected[claim] = str(result.get("reason") or "rejected")
    return {"available": True, "verified": verified, "rejected": rejected, "unsupported": unsupported}


# --------------------------------------------------------------------------- counterexamples

MAX_SHRINK_CHECKS = 200


def shrink_counterexample(config: Configuration, claims: Sequence[str], check: Checker,
                          budgets: Mapping[str, Any]) -> dict[str, Any]:
    """Greedily delete tokens while the same claim still fails; return the smallest CONFIG.json found.

    ``budgets`` are the keywords the original check ran with (:meth:`Task.budgets`).

    Deleting a token keeps the hypotheses (distinct, nonzero tokens, same A), so the shrunk
    configuration is a counterexample of the same kind. Bounded by :data:`MAX_SHRINK_CHECKS`.
    """
    from ..config import parse_configuration

    target = claims[0]
    current = config
    checks = 0

    def still_fails(candidate: Configuration) -> bool:
        nonlocal checks
        checks += 1
        try:
            verdict = check(candidate, **budgets).verdicts.get(target)
        except InputError:
            return False
        return verdict is not None and verdict.status == "failed"

    changed = True
    while changed and current.n > 1 and checks < MAX_SHRINK_CHECKS:
        changed = False
        for i in range(current.n):
            if checks >= MAX_SHRINK_CHECKS:
                break
            data = current.to_json_dict()
            data["tokens"] = data["tokens"][:i] + data["tokens"][i + 1:]
            candidate = parse_configuration(data, outside_hypotheses=current.outside_hypotheses)
            if still_fails(candidate):
                current = candidate
                changed = True
                break
    shrunk = current.to_json_dict()
    shrunk["name"] = f"{config.name or 'counterexample'}-{target}-shrunk"
    shrunk["description"] = (f"Counterexample to {target}, shrunk from {config.n} to {current.n} tokens "
                             f"by deleting tokens ({checks} checks).")
    return {"claim": target, "claims": list(claims), "original_n": config.n, "shrunk_n": current.n,
            "checks": checks, "config": shrunk}


# --------------------------------------------------------------------------- running many tasks

def _attempt(task: Task, checker: Checker | None) -> dict[str, Any]:
    """Run a task, retrying once; a task that fails twice becomes an error record (never dropped).

    Kept for callers of the old name; the task function lives in :mod:`verify.report.executors`.
    """
    from .executors import attempt_task
    return attempt_task(task, checker)


def _set_float_threads(count: int | None) -> int | None:
    """Set numba's thread count (the float kernel's), returning the previous one (None without numba).

    One configuration per call is far too little work for a thread team: with several threads
    each float layer pays for waking them (measured: 0.75 s against ~4 s for 34 float runs on a
    busy 2-core machine), and a process pool would oversubscribe the cores.
    """
    try:
        import numba
    except ImportError:  # pragma: no cover - numba is a dependency of the float engine
        return None
    previous = numba.get_num_threads()
    if count is not None:
        numba.set_num_threads(max(1, min(count, numba.config.NUMBA_NUM_THREADS)))
    return previous


def run_tasks(tasks: Sequence[Task], *, jobs: int = 1, checker: Checker | None = None,
              progress: Callable[[Task, dict[str, Any]], None] | None = None,
              executor: Any = None) -> list[dict[str, Any]]:
    """Run the tasks and return the merged records (one per task, errors included).

    ``executor`` is a :class:`verify.report.executors.Executor` (in-process, process pool or
    Dask); without one, ``jobs == 1`` runs in this process and more runs a process pool of
    ``jobs`` workers that is closed afterwards. ``progress`` is called once per finished task,
    in completion order. Ctrl-C cancels the outstanding tasks and propagates (the caller's
    atomic directory then leaves nothing).
    """
    from .executors import InProcessExecutor, ProcessPoolExecutorBackend

    if executor is not None:
        return executor.run(tasks, checker=checker, progress=progress)
    own = InProcessExecutor() if jobs <= 1 or len(tasks) <= 1 else ProcessPoolExecutorBackend(jobs)
    with own:
        return own.run(tasks, checker=checker, progress=progress)


def merge_records(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records in canonical order (worked first, then by family and seed), whatever order they finished in."""
    def key(record: dict[str, Any]) -> tuple:
        task = record["task"]
        return (0 if task["kind"] == "worked" else 1, task["family"], task["seed"], task["name"])
    return sorted(records, key=key)


def claim_counts(records: Sequence[dict[str, Any]], claims: Sequence[str] = REPORT_CLAIMS) -> dict[str, dict[str, Any]]:
    """Per claim: certified / failed / inconclusive / not checked, and how each was decided.

    * ``exact``: decided in exact arithmetic (every certified or failed verdict);
    * ``measured``: inconclusive verdicts whose evidence holds a float measurement (``measured_*`` keys);
    * ``unchecked``: examples where the claim has no verdict (task error or claim not run);
    * ``vacuous``: certified verdicts whose certificate says the claim held vacuously (T4 with
      no non-vertex limit: nothing to project);
    * ``recertified``: certified verdicts re-verified by the independent checker
      (``None`` when :mod:`verify.certcheck` is not available).
    """
    counts: dict[str, dict[str, Any]] = {}
    certcheck_available = any(r.get("certcheck", {}).get("available") for r in records)
    for claim in claims:
        row: dict[str, Any] = {s: 0 for s in STATUSES}
        row.update(unchecked=0, exact=0, measured=0, vacuous=0, rejected_by_checker=0,
                   recertified=0 if certcheck_available else None)
        for record in records:
            verdict = record.get("verdicts", {}).get(claim)
            if verdict is None:
                row["unchecked"] += 1
                continue
            row[verdict["status"]] += 1
            if verdict["status"] in ("certified", "failed"):
                row["exact"] += 1
            if (verdict.get("certificate") or {}).get("vacuous") is True:
                row["vacuous"] += 1
            elif any(key.startswith("measured") for key in verdict.get("evidence", {})):
                row["measured"] += 1
            check = record.get("certcheck", {})
            if certcheck_available and claim in check.get("verified", []):
                row["recertified"] += 1
            if claim in check.get("rejected", {}):
                row["rejected_by_checker"] += 1
        counts[claim] = row
    return counts


def overall_statuses(records: Sequence[dict[str, Any]]) -> list[str]:
    """Every verdict status of the campaign; task errors and checker rejections count as inconclusive/failed."""
    statuses = []
    for record in records:
        if record.get("status") == "error":
            statuses.append("inconclusive")
            continue
        statuses += [v["status"] for v in record["verdicts"].values()]
        if record.get("certcheck", {}).get("rejected"):
            # A certificate the independent checker rejects means the suite claimed too much.
            statuses.append("failed")
        if record.get("float_comparison", {}).get("silent_disagreements"):
            statuses.append("failed")
    return statuses

