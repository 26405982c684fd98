"""Measurement sweeps: one quantity of the dynamics over a grid of seeded families (docs/theory.md §6, docs/sweep.md).

A **measurement** maps a configuration to an integer (or None: not defined for it, e.g. an
unsettled run). Each registered one has two readings of the same definition:

* ``exact(run)`` on the exact engine's :class:`~verify.claims.run.ClaimRun` (the run ``check``
  makes), defined only where the run's D7/D9 fates establish it;
* ``screen(run)`` on the float engine's trajectory (:func:`verify.core.float_dynamics.float_layers`),
  used only over the layers whose every attention set the proven rounding bound decided; a
  configuration the screen cannot measure (an undecided set, no settling within the layers) is
  measured by the exact run instead.

Over each cell of the grid (family, n, d, alpha) the sweep draws ``samples`` configurations with
:func:`verify.core.families.generate` (seed of sample j: :func:`sample_seed`), records quantiles,
the share of nonzero values and the largest value, and re-computes the configuration attaining
it with :func:`verify.claims.check_configuration` (exact engine, every claim's certificate). The
extreme is **certified** only when every verdict of that check is certified and the exact
reading of the measurement is defined; its certified value is the exact one. The cell's other
statistics are evidence (float screen under a proven bound, or exact runs), labelled so.

With ``optimise_probes`` P > 0, the cell then runs the lab's worst-case optimiser
(:func:`verify.experiments.conjectures.optimise.optimise`) for P probes from the cell's best
sampled configurations, within the cell (same n, d and A, alpha fixed, the hypotheses kept), each
probe measured on the exact run; its best configuration is re-checked with
:func:`verify.claims.check_configuration` and certified under the same rule as the extreme. The
sampled statistics and the extreme are left as they are: the optimiser's best is recorded beside
them (``optimised``).

Each finished cell is saved at once (atomically) under ``OUT/cells/``; a rerun with the same
parameters skips it, so an interrupted sweep resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from verify.claims import check_configuration
from verify.claims.run import ClaimRun, leader_layers, run_configuration
from verify.core.config import Configuration
from verify.core.families import FAMILIES, generate
from verify.core.float_dynamics import MergedBatch, float_layers, merge_identical_tokens
from verify.core.float_rounding import SMALLEST_NORMAL, UNDERFLOW_SLACK, UNIT_ROUNDOFF
from verify.core.io import atomic_write_text, canonical_sha256, json_text, read_json, safe_name
from verify.core.numbers import InputError, rational_to_str
from .optimise import OPTIMISE_SEEDS, Scope, optimise
from .user_files import import_user_file, looks_like_file, user_code

__all__ = ["Measurement", "FloatRun", "MEASUREMENTS", "Cell", "sample_seed", "screen_cell", "measure_cell",
           "load_measurement", "measurement_named", "CellJob", "run_cell_job", "quantile", "cell_key", "SWEEP_FORMAT", "CELL_FORMAT",
           "optimiser_seed", "certificate_path", "MAX_OPTIMISE_PROBES"]

SWEEP_FORMAT = "hardmax-verify/sweep-v1"
CELL_FORMAT = "hardmax-verify/sweep-cell-v2"
# A measured value is a count or a layer: within float64's exact integers, so figures draw it as it is.
MAX_VALUE = 2**53
# Probes of one cell's optimiser stage at most (each is one exact run).
MAX_OPTIMISE_PROBES = 100_000
QUANTILES: tuple[tuple[str, Fraction], ...] = (("q50", Fraction(1, 2)), ("q90", Fraction(9, 10)),
                                                ("q99", Fraction(99, 100)))


@dataclass
class FloatRun:
    """One configuration's float trajectory over the layers the proven bound decided.

    ``patterns[k][u]`` is the point u attends to at layer k (every set decided, so a singleton,
    equal to the exact one); ``complete`` says whether all layers 0..``layers`` were decided.
    Points are the configuration's distinct tokens (inside the hypotheses: the tokens).
    """

    patterns: list[tuple[int, ...]]
    layers: int
    complete: bool

    def leads(self, k: int) -> list[bool]:
        return [target == u for u, target in enumerate(self.patterns[k])]

    def first_leading(self) -> dict[int, int]:
        first: dict[int, int] = {}
        for k in range(len(self.patterns)):
            for u, leads in enumerate(self.leads(k)):
                if leads:
                    first.setdefault(u, k)
        return first

    def settled_layer(self) -> int | None:
        """The first layer at which every point leads or attends to a leader (D7: leader or fixed), if any."""
        for k, pattern in enumerate(self.patterns):
            leads = self.leads(k)
            if all(leads[u] or leads[target] for u, target in enumerate(pattern)):
                return k
        return None


@dataclass(frozen=True)
class Measurement:
    """A quantity of one configuration: its exact reading (certifiable) and an optional float screen.

    ``exact(run)`` receives the exact :class:`~verify.claims.run.ClaimRun` and returns an int, or
    None where the run does not establish the value. ``screen(run)`` receives a :class:`FloatRun`
    and returns an int, or None to have that configuration measured exactly. A measurement without
    a screen is measured exactly on every sample (slower).
    """

    name: str
    description: str
    exact: Callable[[ClaimRun], int | None]
    screen: Callable[[FloatRun], int | None] | None = None
    # The screen reads only the layers up to settling (every point leads or attends to a leader).
    screen_until_settled: bool = False


# ----------------------------------------------------------------------------- the registered measurements

def _exact_leader_layers(run: ClaimRun) -> dict[int, int] | None:
    layers = leader_layers(run)
    return layers if run.settled else None


def _exact_last_leader(run: ClaimRun) -> int | None:
    layers = _exact_leader_layers(run)
    return max(layers.values()) if layers else None


def _screen_last_leader(run: FloatRun) -> int | None:
    if run.settled_layer() is None:
        return None
    first = run.first_leading()
    return max(first.values()) if first else None


def _exact_leader_count(run: ClaimRun) -> int | None:
    layers = _exact_leader_layers(run)
    return None if layers is None else len(layers)


def _screen_leader_count(run: FloatRun) -> int | None:
    return None if run.settled_layer() is None else len(run.first_leading())


def _exact_late(run: ClaimRun) -> int | None:
    last = _exact_last_leader(run)
    return None if last is None else int(last > 0)


def _screen_late(run: FloatRun) -> int | None:
    last = _screen_last_leader(run)
    return None if last is None else int(last > 0)


def _exact_settling(run: ClaimRun) -> int | None:
    return run.settled_layer


def _exact_constancy(run: ClaimRun) -> int | None:
    """The first layer from which every attention set stays the same for ever, where the run proves it.

    A certified D9 chain gives every token's sets for ever from its last segment's layer (a jump
    before it changes them at that layer). Without a chain, leaders ({i}, D3) and locked tokens
    (F, D7) keep their sets for ever from their fate layer. A fixed fate does not pin its set, and
    an unsettled run proves nothing: then the value is not established (None).
    """
    if not run.settled:
        return None
    chain = run.chain
    if chain is not None and chain.certified:
        final = tuple(chain.final.sets)
        constant_from = chain.final.layer
        if len(chain.segments) > 1:  # the jump before the last segment changed the sets at its layer
            return constant_from
    elif all(f.kind in ("leader", "locked") and f.layer is not None for f in run.fates):
        constant_from = max(f.layer for f in run.fates if f.layer is not None)
        if constant_from >= len(run.data):
            return None
        final = tuple(run.data[constant_from].attention)
    else:
        return None
    constant_from = min(constant_from, len(run.data))
    while constant_from > 0 and tuple(run.data[constant_from - 1].attention) == final:
        constant_from -= 1
    return constant_from


def _screen_constancy(run: FloatRun) -> int | None:
    if not run.complete:
        return None
    final = run.patterns[-1]
    constant_from = len(run.patterns) - 1
    while constant_from > 0 and run.patterns[constant_from - 1] == final:
        constant_from -= 1
    return constant_from


def _exact_distinct_limits(run: ClaimRun) -> int | None:
    if not run.settled or any(f.limit is None for f in run.fates):
        return None
    return len({tuple(f.limit) for f in run.fates if f.limit is not None})


def _screen_distinct_limits(run: FloatRun) -> int | None:
    """At the last layer every point attends to a leader, which is where it converges (evidence)."""
    if not run.complete or run.settled_layer() is None:
        return None
    return len(set(run.patterns[-1]))


MEASUREMENTS: dict[str, Measurement] = {m.name: m for m in (
    Measurement("last_leader_layer", "the first leading layer of the last token to become a leader",
                _exact_last_leader, _screen_last_leader, screen_until_settled=True),
    Measurement("settling_layer", "the layer at which check's D7/D9 fates settle every token (a D9 closed form can "
                "settle a token before it first leads)",
                _exact_settling, None),
    Measurement("constancy_layer", "the layer from which the attention pattern stays constant",
                _exact_constancy, _screen_constancy),
    Measurement("leader_count", "the number of tokens that are eventually leaders",
                _exact_leader_count, _screen_leader_count, screen_until_settled=True),
    Measurement("distinct_limits", "the number of distinct limit points of the tokens",
                _exact_distinct_limits, _screen_distinct_limits),
    Measurement("late_leader", "1 when some token first leads after layer 0, else 0",
                _exact_late, _screen_late, screen_until_settled=True),
)}


def load_measurement(path: str | Path) -> Measurement:
    """The one :class:`Measurement` defined at module level in the user's Python file ``path``."""
    where = str(path)
    module = import_user_file(path, expected="a Python file defining one Measurement")
    found = [value for value in vars(module).values() if isinstance(value, Measurement)]
    if len(found) != 1:
        raise InputError(where, f"expected exactly one verify.Measurement at module "
                                f"level, found {len(found)}")
    measurement = found[0]
    if not isinstance(measurement.name, str) or not measurement.name.strip():
        raise InputError(where, "the measurement's name must be a non-empty string")
    if not isinstance(measurement.description, str):
        raise InputError(where, "the measurement's description must be a string")
    if not callable(measurement.exact):
        raise InputError(where, "the measurement's exact reading must be a function of the run")
    if measurement.screen is not None and not callable(measurement.screen):
        raise InputError(where, "the measurement's screen must be a function of the float run, or None")
    if measurement.name in MEASUREMENTS:
        raise InputError(where, f"the measurement {measurement.name!r} has the name of a registered one; "
                                "give it another name")
    return measurement


def measurement_named(target: str) -> tuple[Measurement, str]:
    """A registered measurement by name, or the one of a user's file; and what its errors name."""
    if looks_like_file(target):
        return load_measurement(target), target
    if target not in MEASUREMENTS:
        raise InputError("MEASUREMENT", f"unknown measurement {target!r}; expected one of {', '.join(MEASUREMENTS)} "
                                        "or a FILE.py")
    return MEASUREMENTS[target], "measurement"


# ----------------------------------------------------------------------------- grid cells

@dataclass(frozen=True)
class Cell:
    family: str
    n: int
    d: int
    alpha: Fraction

    def to_json_dict(self) -> dict[str, Any]:
        return {"family": self.family, "n": self.n, "d": self.d, "alpha": rational_to_str(self.alpha)}


def cell_key(measurement: str, cell: Cell) -> str:
    """The file stem of a cell's saved result: readable, and one per (measurement, cell)."""
    alpha = f"{cell.alpha.numerator}_{cell.alpha.denominator}"
    # A user's measurement names it: never a path, never a control character (safe_name).
    return safe_name(f"{measurement}-{cell.family}-n{cell.n}-d{cell.d}-alpha{alpha}", max_length=160)


def sample_seed(seed: int, index: int) -> int:
    """The family seed of sample ``index`` of a sweep with seed ``seed`` (a hash: stable across versions)."""
    return int.from_bytes(hashlib.sha256(f"hardmax-verify sweep {seed} {index}".encode()).digest()[:8], "big")


def optimiser_seed(seed: int, measurement: str, cell: Cell) -> int:
    """The seed of a cell's optimiser stage: a hash of the sweep's seed and the cell's key (stable across versions)."""
    text = f"hardmax-verify sweep optimise {seed} {cell_key(measurement, cell)}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def applicable(cell: Cell) -> str | None:
    """Why the family cannot be drawn at this size (None: it can)."""
    spec = FAMILIES[cell.family]
    if cell.n < spec.min_n:
        return f"family {cell.family} needs n >= {spec.min_n}"
    if cell.d < spec.min_d:
        return f"family {cell.family} needs d >= {spec.min_d}"
    return None


def quantile(values: Sequence[int], p: Fraction) -> int:
    """The nearest-rank p-quantile of sorted ``values`` (exact: no interpolation, no float)."""
    rank = max(1, math.ceil(p * len(values)))
    return values[rank - 1]


# ----------------------------------------------------------------------------- the float screen

def _float_batch(configs: Sequence[Configuration]) -> tuple[MergedBatch, np.ndarray, np.ndarray, list[bool]]:
    """The configurations as one float batch, with each point's initial rounding bound and max |A| bound.

    The same rule as the float ``simulate`` (verify/core/trajectory.py): rounding a rational to the
    nearest float64 errs by at most u |x| (1 + 2u) plus the underflow slack; a rounds up. A
    configuration whose distinct rationals round to one float is flagged (never screened).
    """
    tokens = np.array([[[float(x) for x in t] for t in c.tokens] for c in configs], dtype=np.float64)
    B, n, d = tokens.shape
    A_transposed = np.empty((B, d, d))
    matrix_bound = np.empty(B)
    for b, config in enumerate(configs):
        A = config.A_matrix
        A_transposed[b] = np.array([[float(x) for x in row] for row in A]).T
        largest = max(abs(x) for row in A for x in row)
        matrix_bound[b] = max(float(np.nextafter(float(largest), np.inf)), SMALLEST_NORMAL)
    batch = merge_identical_tokens(tokens, A_transposed)
    collided = [int(batch.counts[b]) < len(set(c.tokens)) for b, c in enumerate(configs)]
    e0 = (np.abs(batch.positions).max(axis=2) * UNIT_ROUNDOFF * (1 + 2 * UNIT_ROUNDOFF) * (1 + 2 * UNIT_ROUNDOFF)
          + UNDERFLOW_SLACK)
    return batch, e0, matrix_bound, collided


def screen_cell(configs: Sequence[Configuration], *, layers: int, until_settled: bool = False) -> list[FloatRun | None]:
    """The float trajectories of one cell's configurations (same n, d, alpha), over their decided layers.

    None for a configuration the float engine cannot screen at all (float collision, alpha
    outside float64's normal range, an undecided set at layer 0). With ``until_settled`` a
    configuration stops being recorded at the first layer at which every point leads or attends
    to a leader (enough for the leader measurements; the run then counts as not complete).
    """
    if not configs:
        return []
    try:
        alpha = float(configs[0].alpha)
    except OverflowError:  # beyond float64: every configuration is measured on the exact run
        return [None] * len(configs)
    if not alpha >= SMALLEST_NORMAL or not math.isfinite(alpha):
        return [None] * len(configs)
    batch, e0, matrix_bound, collided = _float_batch(configs)
    B, m = batch.weights.shape
    points = np.arange(m)
    real = points[None, :] < batch.counts[:, None]  # rows past a configuration's point count are padding
    active = ~np.array(collided)
    last_trusted = np.full(B, -1)
    history: list[np.ndarray] = []
    for layer in float_layers(batch, alpha=np.full(B, alpha), initial_error=e0, matrix_bound=matrix_bound):
        active &= ~((layer.undecided_rows | layer.tie_rows) & real).any(axis=1)
        history.append(layer.argmax.copy())
        last_trusted[active] = layer.index
        if until_settled:
            leads = layer.argmax == points[None, :]
            settled = (leads | np.take_along_axis(leads, layer.argmax, axis=1) | ~real).all(axis=1)
            active &= ~settled
        if layer.index == layers or not active.any():
            break
    runs: list[FloatRun | None] = []
    for b in range(B):
        if collided[b] or last_trusted[b] < 0:
            runs.append(None)
            continue
        count = int(batch.counts[b])
        patterns = [tuple(int(t) for t in history[k][b, :count]) for k in range(int(last_trusted[b]) + 1)]
        runs.append(FloatRun(patterns, layers, complete=int(last_trusted[b]) == layers))
    return runs


# ----------------------------------------------------------------------------- one cell

def _exact_value(measurement: Measurement, run: ClaimRun, where: str) -> int | None:
    with user_code(where):
        value = measurement.exact(run)
    return _checked_value(value, where)


def _checked_value(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return int(value)
    if not isinstance(value, int):
        raise InputError(where, f"a measurement must return an int or None, got {type(value).__name__}")
    if abs(value) > MAX_VALUE:
        raise InputError(where, f"a measurement must return an int of at most 2**53 in absolute value, got one of "
                                f"{value.bit_length()} bits")
    return value


def measure_cell(measurement: Measurement, cell: Cell, *, samples: int, seed: int, layers: int,
                 where: str = "measurement", progress: Callable[[str, int, int], None] | None = None,
                 certificate: Callable[[dict[str, Any], str], str] | None = None,
                 optimise_probes: int = 0, stages: dict[str, float] | None = None) -> dict[str, Any]:
    """Measure one cell: draw, screen, measure exactly what the screen cannot, certify the extreme.

    ``certificate(report_json, relative_path)`` stores a claims report (the extreme's at
    :func:`certificate_path`, the optimiser's best at its ``optimised=True`` path) and returns the
    path recorded. With ``optimise_probes`` > 0 the optimiser stage runs after the extreme
    (:func:`_optimised`) and its result is ``result["optimised"]``. ``stages``, when given, receives
    the wall seconds of each stage (:data:`STAGES`; bench/sweep_cell.py prints their shares).
    """
    clock = _StageClock(stages)
    seeds = [sample_seed(seed, j) for j in range(samples)]
    configs = [generate(cell.family, s, n=cell.n, d=cell.d, alpha=cell.alpha) for s in seeds]
    clock.lap("draw")
    screens = (screen_cell(configs, layers=layers, until_settled=measurement.screen_until_settled)
               if measurement.screen is not None else [None] * samples)
    clock.lap("float screen")
    values: list[int | None] = []
    exactly = 0
    for j, (config, screen) in enumerate(zip(configs, screens)):
        value = None
        if screen is not None and measurement.screen is not None:
            with user_code(where):
                value = _checked_value(measurement.screen(screen), where)
        if value is None:
            exactly += 1
            run = run_configuration(config, layer_budget=layers)
            value = _exact_value(measurement, run, where)
        values.append(value)
        if progress is not None:
            progress(cell_key(measurement.name, cell), j + 1, samples)
    clock.lap("exact runs")
    defined = sorted(v for v in values if v is not None)
    result: dict[str, Any] = {
        "samples": samples, "defined": len(defined), "undefined": samples - len(defined),
        "measured_exactly": exactly, "screened_by_float": samples - exactly,
    }
    if not defined:
        result.update({"min": None, **{name: None for name, _ in QUANTILES}, "max": None,
                       "nonzero": 0, "share_nonzero": None, "extreme": None,
                       "status": "inconclusive", "reason": "no sample had a defined value"})
        return result
    nonzero = sum(1 for v in defined if v != 0)
    top = defined[-1]
    at = [j for j, v in enumerate(values) if v == top]
    result.update({"min": defined[0], **{name: quantile(defined, p) for name, p in QUANTILES}, "max": top,
                   "nonzero": nonzero, "share_nonzero": f"{nonzero}/{len(defined)}"})
    extreme_index = at[0]
    config = configs[extreme_index]
    report, certified, exact_value = _certify(measurement, config, layers=layers, where=where)
    extreme: dict[str, Any] = {
        "sample": extreme_index, "family_seed": seeds[extreme_index], "attained_by": len(at),
        "config": config.to_json_dict(), "screen_value": top, "claims_status": report.status,
        "certified": certified, "certified_value": exact_value if certified else None,
    }
    if certificate is not None:
        extreme["certificate"] = certificate(report.to_json_dict(), certificate_path(measurement.name, cell))
    if certified and exact_value != top:
        extreme["note"] = "the exact value differs from the sweep's value: the exact one is certified"
    result["extreme"] = extreme
    if certified:
        result["status"] = "certified"
    elif report.status == "failed":  # a claim of the theorem came out false on this draw: a finding, exit 1
        result["status"] = "failed"
        result["reason"] = "a claim came out false in the exact check: " + _failed_claims(report)
    else:
        result["status"] = "inconclusive"
        result["reason"] = (f"the exact check came out {report.status}" if report.status != "certified"
                            else "the exact run does not establish the value")
    clock.lap("extreme check")
    if optimise_probes > 0:
        ranked = sorted((j for j, v in enumerate(values) if v is not None), key=lambda j: (-(values[j] or 0), j))
        starts = [(configs[j], values[j]) for j in ranked[:OPTIMISE_SEEDS]]
        reference = extreme["certified_value"] if certified else top
        optimised = _optimised(measurement, cell, starts, reference, probes=optimise_probes, seed=seed,
                               layers=layers, where=where, certificate=certificate)
        result["optimised"] = optimised
        _merge_optimised_status(result, optimised)
        clock.lap("optimiser")
    return result


# The stages of one cell, in order (what measure_cell's ``stages`` receives).
STAGES: tuple[str, ...] = ("draw", "float screen", "exact runs", "extreme check", "optimiser")


class _StageClock:
    """Adds the wall seconds since the previous lap to ``stages[name]`` (nothing when ``stages`` is None)."""

    def __init__(self, stages: dict[str, float] | None) -> None:
        self.stages = stages
        self.mark = time.perf_counter()

    def lap(self, name: str) -> None:
        if self.stages is not None:
            now = time.perf_counter()
            self.stages[name] = self.stages.get(name, 0.0) + now - self.mark
            self.mark = now


def _failed_claims(report: Any) -> str:
    return ", ".join(sorted(c for c, v in report.verdicts.items() if v.status == "failed"))


def _certify(measurement: Measurement, config: Configuration, *, layers: int, where: str) -> tuple[Any, bool, int | None]:
    """The claims report of ``config``, whether its value is certified, and the exact value (the extreme's rule).

    Certified only when every verdict of the exact check is certified and the exact reading is defined.
    """
    report = check_configuration(config, layer_budget=layers, cross_check=False)
    exact_value = _exact_value(measurement, report.run, where) if report.run is not None else None
    return report, report.status == "certified" and exact_value is not None, exact_value


@dataclass(frozen=True)
class _Probe:
    """An optimiser probe's outcome, as the optimiser reads it (its Observation protocol)."""

    status: str
    measurements: dict[str, Any]


def _optimised(measurement: Measurement, cell: Cell, starts: Sequence[tuple[Configuration, int | None]],
               reference: int, *, probes: int, seed: int, layers: int, where: str,
               certificate: Callable[[dict[str, Any], str], str] | None) -> dict[str, Any]:
    """The optimiser stage of one cell: ``probes`` probes from ``starts`` (the best samples), its best re-checked.

    Every probe is measured on the exact run (``run_configuration`` and the measurement's exact
    reading); an undefined value is an undecided probe. The scope is the cell: its n, d and A,
    alpha fixed, the seeds' hypotheses kept (:class:`~.optimise.Scope`, :func:`~.optimise.in_scope`).
    The best probe (the largest value, the first probed on a tie) is re-checked with
    ``check_configuration`` and certified under the extreme's rule; it is recorded whether or not
    it beats ``reference``, the extreme's value (``improves``).
    """
    scope = Scope(alpha_range=(cell.alpha, cell.alpha), min_n=cell.n, min_d=cell.d,
                  label=cell_key(measurement.name, cell))
    name = measurement.name

    def observed(value: int | None) -> _Probe:
        return _Probe("undecided", {}) if value is None else _Probe("held", {name: value})

    seeds = [(config, observed(value), scope) for config, value in starts]
    evaluated = 0
    best: tuple[int, Configuration] | None = None

    def evaluate(candidate: Configuration, _scope: Scope) -> _Probe | None:
        nonlocal evaluated, best
        if evaluated >= probes:
            return None
        evaluated += 1
        value = _exact_value(measurement, run_configuration(candidate, layer_budget=layers), where)
        if value is not None and (best is None or value > best[0]):
            best = (value, candidate)
        return observed(value)

    optimise(seeds, target=name, evaluate=evaluate, rng=random.Random(optimiser_seed(seed, name, cell)),
             probes=probes)
    found: dict[str, Any] = {"probes": probes, "evaluated": evaluated, "seeds": len(starts)}
    if best is None:
        found.update({"config": None, "value": None, "improves": False, "claims_status": None,
                      "certified": False, "certified_value": None})
        return found
    value, config = best
    report, certified, exact_value = _certify(measurement, config, layers=layers, where=where)
    found.update({"config": config.to_json_dict(), "value": value,
                  "improves": value > reference, "claims_status": report.status,
                  "certified": certified, "certified_value": exact_value if certified else None})
    if certificate is not None:
        found["certificate"] = certificate(report.to_json_dict(), certificate_path(name, cell, optimised=True))
    if certified and exact_value != value:
        found["note"] = "the exact check's value differs from the probe's: the exact one is certified"
    if report.status == "failed":
        found["reason"] = "a claim came out false in the exact check: " + _failed_claims(report)
    return found


def _merge_optimised_status(result: dict[str, Any], optimised: dict[str, Any]) -> None:
    """A cell is certified only if its optimiser's best is too; a failed claim on it is a finding (status failed)."""
    if optimised["config"] is None or optimised["certified"] or result["status"] == "failed":
        return
    if optimised["claims_status"] == "failed":
        result["status"] = "failed"
        result["reason"] = "on the optimiser's best, " + optimised["reason"]
    elif result["status"] == "certified":
        result["status"] = "inconclusive"
        result["reason"] = (f"the optimiser's best: the exact check came out {optimised['claims_status']}"
                            if optimised["claims_status"] != "certified"
                            else "the optimiser's best: the exact run does not establish the value")


@dataclass(frozen=True)
class CellJob:
    """One cell to measure on a worker: everything :func:`run_cell_job` needs, picklable.

    ``target`` is a registered measurement's name or the absolute path of the user's file (a
    worker loads it again, so it must be at that path there; its errors name that path).
    """

    target: str
    cell: Cell
    samples: int
    seed: int
    layers: int
    optimise_probes: int = 0


def run_cell_job(job: CellJob) -> tuple[str, Any, Any]:
    """Measure one cell where it runs (a Dask worker): ("done", result, [(relative path, claims report), ...]).

    The reports are the extreme's and, with the optimiser stage, its best's: the client writes
    them. Bad input (the user's measurement raising, say) comes back as ("bad input", field,
    message): the client raises it, as a serial sweep would.
    """
    try:
        registered = job.target in MEASUREMENTS
        measurement = MEASUREMENTS[job.target] if registered else load_measurement(job.target)
        reports: list[tuple[str, dict[str, Any]]] = []

        def keep(report: dict[str, Any], relative: str) -> str:
            reports.append((relative, report))
            return relative

        result = measure_cell(measurement, job.cell, samples=job.samples, seed=job.seed, layers=job.layers,
                              where="measurement" if registered else job.target, certificate=keep,
                              optimise_probes=job.optimise_probes)
    except InputError as error:
        return "bad input", error.field, error.message
    return "done", result, reports


def certificate_path(measurement: str, cell: Cell, *, optimised: bool = False) -> str:
    """Where, relative to the output folder, a cell's claims report is written: its extreme's, or its optimiser's best's."""
    return f"certificates/{cell_key(measurement, cell)}{'-optimised' if optimised else ''}.json"


# ----------------------------------------------------------------------------- saved cells (resume)

def saved_cell(path: Path, parameters: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """A cell's saved result when it was computed with exactly these parameters, and why not when it is None.

    The file's ``sha256`` (of its parameters and result, canonical JSON) must match: a file that
    was cut short, edited or damaged is never merged into the tables; the cell is recomputed and
    its file rewritten. The reason is "" when there is no file (nothing to say).
    """
    if not path.exists():
        return None, ""
    try:
        data = read_json(path, expected="a sweep cell result")
    except (InputError, OSError, ValueError):
        return None, "unreadable"
    if not isinstance(data, dict) or data.get("format") != CELL_FORMAT:
        return None, "not a cell file of this version"
    if data.get("parameters") != parameters:
        return None, "saved with other parameters"
    result = data.get("result")
    try:
        intact = isinstance(result, dict) and data.get("sha256") == canonical_sha256([parameters, result])
    except (TypeError, ValueError):
        intact = False
    return (result, "") if intact else (None, "damaged (its sha256 does not match)")


def save_cell(path: Path, parameters: dict[str, Any], result: dict[str, Any]) -> None:
    atomic_write_text(path, json_text({"format": CELL_FORMAT, "parameters": parameters, "result": result,
                                       "sha256": canonical_sha256([parameters, result])}, where=str(path)))


def cells_of(families: Sequence[str], ns: Sequence[int], ds: Sequence[int], alphas: Sequence[Fraction]) -> Iterator[Cell]:
    for family in families:
        for n in ns:
            for d in ds:
                for alpha in alphas:
                    yield Cell(family, n, d, alpha)
