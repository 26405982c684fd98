"""The conjecture object, the Hypothesis-driven search and its honest outcomes.

A :class:`Conjecture` is a named statement about the dynamics together with the strategy that
generates its inputs (Hypothesis strategies of :class:`~verify.core.config.Configuration`), the
predicate that decides one input, and its scope. :func:`run_conjecture` searches for a
counterexample within a :class:`~verify.experiments.conjectures.search.Budget` (seconds, examples or both;
the families drawn from in rotation and the sizes growing with the budget,
:mod:`verify.experiments.conjectures.search`) and returns a :class:`ConjectureResult` whose ``outcome`` is one of

* ``"not refuted"``: every example drawn within the budget was decided and satisfied the
  statement. This is evidence, not a proof: the result says how much was searched (examples,
  seconds, families) and what was covered (n, d, and the range of every quantity the predicate
  measured);
* ``"counterexample"``: an example falsified it; Hypothesis shrank it, the shrunk example was
  saved as a CONFIG.json (with the variant fields V / beta, and ``"outside_hypotheses": true``
  when it is outside the theorem's hypotheses) and
  then *re-checked from that file* by the conjecture's rigorous check (exact rationals, or arb
  intervals for softmax). Only a re-checked failure is reported as a counterexample;
* ``"inconclusive"``: nothing false was found but something was not decided (a layer budget ran
  out, intervals overlapped, a health check fired...), with the reason.

A predicate that finds two of the suite's own computations disagreeing where a proof says they
cannot (a measured softmax deviation above its certified bound, an exact certificate the
independent checker rejects) raises :class:`InternalError`: the search stops at once and the
error propagates (exit status 4). It is a bug to report, never a counterexample.

``"held"`` is reserved for a statement the lab proves; no search outcome is ever ``"held"``.

A conjecture may declare what its author expects (``expected``: ``"held"`` or ``"refuted"``);
a decided outcome is then judged against it. A confirmed counterexample to a statement expected
to be refuted is **as expected** (an exact fact); a search that does not refute a statement
expected to hold is only **consistent with the expectation** (evidence, not a proof: a search
proves nothing true); any other decided outcome is a **surprise**. Without an expectation there
is neither: the outcome is the verdict. Exit statuses (:mod:`verify.core.exitcodes`): as expected
and consistent with the expectation 0, surprise 1; without an expectation, not refuted 0 and
counterexample 1 (the statement checked came out false); inconclusive 3.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import statistics
import traceback
from collections import Counter
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Sequence

import hypothesis
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis.errors import FailedHealthCheck, Flaky, Unsatisfiable
from hypothesis.strategies import SearchStrategy

from verify.core import exitcodes
from verify.core.exitcodes import CouldNotComplete
from verify.core.formatting import count, counted, measured
from verify.core.config import Configuration, hypothesis_violations, load_configuration, parse_configuration
from verify.core.io import atomic_write_text, json_text, safe_name
from verify.core.numbers import rational_to_str

from verify.core.versions import dependency_versions
from .outcomes import EXPECTATIONS, Expectation, Outcome
from .optimise import OPTIMISE_PROBES, OPTIMISE_SEEDS, Scope, numeric_target, optimise, simplicity
from .search import (DEFAULT_SECONDS, ROUND_EXAMPLES, Branch, Budget, Clock, Round, branches_of, level_sizes,
                     round_seed, rounds)
from .shrink import RESEARCH_EXAMPLES, Reduction, reduce_counterexample

__all__ = [
    "family_of",
    "Observation",
    "Conjecture",
    "ConjectureResult",
    "SearchProgress",
    "run_conjecture",
    "recheck_file",
    "EXPECTATIONS",
    "AS_EXPECTED",
    "CONSISTENT",
    "CONSISTENT_WORDS",
    "result_stem",
    "coverage_sentence",
    "InternalError",
]

Status = Literal["held", "failed", "undecided"]
# The verdict of an outcome an expectation predicts: a refutation (or a proof) is as expected, a search that
# found nothing is evidence only.
AS_EXPECTED = "as expected"
CONSISTENT = "consistent with the expectation"
CONSISTENT_WORDS = "consistent with the expectation (evidence, not a proof)"
# Counterexample CONFIG files go one level down, so that RESULTS/*.json are the run results only.
COUNTEREXAMPLE_DIR = "counterexamples"
# Shrinking a counterexample stops after SHRINK_CALLS calls of the predicate (a number: the
# same on every machine) and, under a budget in seconds, after SHRINK_SHARE of that budget (at
# least SHRINK_MIN_SECONDS); the simplest failing example seen so far is then reported.
SHRINK_CALLS = 250
SHRINK_SHARE = 0.25
SHRINK_MIN_SECONDS = 5.0


def result_stem(name: str) -> str:
    """The file name (less ``.json``) of a conjecture's results and counterexample: one per name.

    A name that is already a safe file name is used as it is. Any other is cleaned
    (:func:`verify.core.io.safe_name`) and given ``~`` and a hash of the exact name: ``~`` never
    occurs in a safe name, so ``x/y`` (``x_y~...``) and ``x_y`` cannot share a file.
    """
    cleaned = safe_name(name, fallback="conjecture", max_length=60)
    if cleaned == name:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{cleaned}~{digest}"


class InternalError(CouldNotComplete):
    """Two of the suite's own computations disagree where a proof says they cannot: a bug, never a counterexample.

    Raised by a predicate (for example: a measured softmax deviation above the certified bound
    of docs/theory.md §6, or an exact D10 certificate that the independent checker rejects). The
    search stops at once and :func:`run_conjecture` raises it again (the command line exits 4).
    """

    def __init__(self, what: str) -> None:
        super().__init__(f"INTERNAL ERROR (a bug of the suite, not a counterexample): {what}")


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


@dataclass(frozen=True)
class Observation:
    """What the predicate says about one example.

    ``status`` is ``"held"``, ``"failed"`` (decided false: ``detail`` says why, with exact
    numbers) or ``"undecided"`` (``detail`` gives the reason). ``measurements`` are numbers
    (ints, Fractions or floats labelled in their name) aggregated by the runner into worst
    case and distribution.
    """

    status: Status
    detail: str = ""
    measurements: Mapping[str, Any] = field(default_factory=dict)
    evidence: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def held(cls, detail: str = "", **measurements: Any) -> "Observation":
        return cls("held", detail, measurements)

    @classmethod
    def failed(cls, detail: str, *, evidence: Mapping[str, Any] | None = None, **measurements: Any) -> "Observation":
        return cls("failed", detail, measurements, evidence or {})

    @classmethod
    def undecided(cls, detail: str, **measurements: Any) -> "Observation":
        return cls("undecided", detail, measurements)


Predicate = Callable[[Configuration], Observation]


def family_of(config: Configuration) -> str:
    """The family label of a drawn configuration: its name without seed and size suffixes.

    verify.core.families names its draws ``<family>-seed<s>-n<n>-d<d>``; verify.strategies adds
    `` (drawn by Hypothesis)`` or `` (outside the hypotheses, ...)``.
    """
    name = config.name or "unnamed"
    return name.split("-seed")[0].split(" (")[0]


def _default_group(config: Configuration) -> dict[str, str]:
    return {"n": str(config.n), "d": str(config.d), "alpha": rational_to_str(config.alpha)}


StrategyInput = SearchStrategy[Configuration] | Branch | Sequence[SearchStrategy[Configuration] | Branch]


@dataclass(frozen=True)
class Conjecture:
    """A named, documented conjecture.

    Parameters
    ----------
    name
        Identifier (used on the command line and, through :func:`result_stem`, in file names).
    statement
        The mathematical statement, in words, with the docs/theory.md ids it extends.
    strategy
        Where the examples come from: a Hypothesis strategy of :class:`Configuration`, or a list
        of them. A strategy built by :func:`verify.strategies.configurations` (or
        ``outside_configurations``) is searched family by family, in rotation, with n and d
        growing with the budget up to the bounds it was given; each item of a list is a source
        of its own in the rotation (:mod:`verify.experiments.conjectures.search`). Set
        ``Configuration.name`` to the family label (e.g. ``"psd_rank1_d3"``): the runner counts
        examples per family.
    predicate
        Decides one configuration. It must be deterministic; it may be a fast search check.
    scope
        Where the statement is claimed (which A, which inputs, which layer budget).
    families
        The families the strategy draws from (documentation and coverage).
    confirm
        The rigorous re-check run on the *saved file* of a candidate counterexample; default:
        ``predicate`` (fine when the predicate is already exact).
    kind
        ``"claim"`` (a statement that can come out false) or ``"measurement"`` (the statement
        that the measured quantity is decided on every example; the numbers are the result).
    expected
        What the author expects, if anything: ``"held"`` (believed true), ``"refuted"`` (a
        statement known to be false, kept to show the lab finds its counterexample), or None
        (the default: no expectation, and no result is then judged against one). A counterexample to a
        statement expected to be refuted is *as expected*; no counterexample to one expected to hold is
        *consistent with the expectation* (evidence, not a proof). A decided outcome that differs from a
        stated expectation is a *surprise* (exit 1).
    target
        Name of a measurement Hypothesis should push upwards (:func:`hypothesis.target`), to
        search for worst cases (for a statement "X <= k", the X).
    group
        Key used to tabulate measurements (default: n, d, alpha).
    explicit
        Configurations always tried first (they are not shrunk, so a claim conjecture whose
        counterexample should be shrunk leaves this empty).
    """

    name: str
    statement: str
    strategy: StrategyInput
    predicate: Predicate
    scope: str = ""
    families: tuple[str, ...] = ()
    confirm: Predicate | None = None
    kind: Literal["claim", "measurement"] = "claim"
    expected: Expectation | None = None
    target: str | None = None
    group: Callable[[Configuration], Mapping[str, str]] = _default_group
    explicit: tuple[Configuration, ...] = ()

    def __post_init__(self) -> None:
        if self.expected is not None and self.expected not in EXPECTATIONS:
            raise ValueError(f"conjecture {self.name!r}: expected must be \"held\", \"refuted\" or None (no "
                             f"expectation), got {self.expected!r}")
        items = self.strategy if isinstance(self.strategy, (list, tuple)) else [self.strategy]
        if not items or not all(isinstance(item, (SearchStrategy, Branch)) for item in items):
            raise ValueError(f"conjecture {self.name!r}: strategy must be a Hypothesis strategy of Configuration "
                             "or a non-empty list of them")

    def check(self, config: Configuration) -> Observation:
        """The rigorous check of one configuration (``confirm``, else ``predicate``)."""
        return _call(self.confirm or self.predicate, config)

    def branches(self) -> list[Branch]:
        """The sources the search rotates through (:func:`verify.experiments.conjectures.search.branches_of`)."""
        return branches_of(self.strategy)


@dataclass(frozen=True)
class SearchProgress:
    """Where a search stands (passed to ``run_conjecture(progress=...)`` after each example)."""

    examples: int
    distinct: int
    seconds: float
    budget: Budget
    branch: str
    max_n: int
    max_d: int
    shrinking: bool = False


@dataclass
class ConjectureResult:
    """The outcome of one run, JSON-serialisable with :meth:`to_json_dict`."""

    conjecture: Conjecture
    outcome: Outcome
    reason: str
    examples_run: int
    distinct_examples: int
    status_counts: dict[str, int]
    by_family: dict[str, int]
    by_size: dict[str, int]
    measurements: dict[str, Any]
    undecided_reasons: dict[str, int]
    counterexample: dict[str, Any] | None
    counterexample_path: Path | None
    settings_used: dict[str, Any]
    budget: Budget = field(default_factory=lambda: Budget(seconds=DEFAULT_SECONDS))
    search: dict[str, Any] = field(default_factory=dict)      # rounds, what stopped the search, branches
    coverage: dict[str, Any] = field(default_factory=dict)    # ranges of n, d, alpha and of every measurement
    seconds: float = 0.0                                      # wall time of the search and the re-check
    cpu_seconds: float = 0.0                                  # CPU time of the same
    seconds_to_counterexample: float | None = None            # wall time when the first failing example was drawn
    cpu_seconds_to_counterexample: float | None = None        # CPU time when it was drawn
    examples_to_counterexample: int | None = None             # examples drawn up to and including it
    result_path: Path | None = None  # where the result file was written (None: results_dir was None)

    @property
    def surprise(self) -> bool:
        """A decided outcome other than the stated expectation (never without one)."""
        expected = self.conjecture.expected
        return expected is not None and self.outcome != "inconclusive" and self.outcome not in EXPECTATIONS[expected]

    @property
    def verdict(self) -> str:
        """``as expected`` (a counterexample to a statement expected to be refuted), ``consistent with the
        expectation`` (not refuted, expected to hold: evidence, not a proof), ``surprise`` or ``inconclusive``;
        without an expectation, the outcome itself."""
        if self.outcome == "inconclusive":
            return "inconclusive"
        if self.conjecture.expected is None:
            return self.outcome
        if self.surprise:
            return "surprise"
        return CONSISTENT if self.outcome == "not refuted" else AS_EXPECTED

    @property
    def exit_status(self) -> int:
        return {AS_EXPECTED: exitcodes.SUCCESS, CONSISTENT: exitcodes.SUCCESS, "surprise": exitcodes.FALSE,
                "inconclusive": exitcodes.INCONCLUSIVE, "not refuted": exitcodes.SUCCESS, "held": exitcodes.SUCCESS,
                "counterexample": exitcodes.FALSE}[self.verdict]

    def to_json_dict(self) -> dict[str, Any]:
        """The result file. Everything but ``timing`` is a function of the inputs when the budget is in examples."""
        c = self.conjecture
        data: dict[str, Any] = {
            # Short scalar fields first: the verification report lists a result file's scalars.
            "conjecture": c.name,
            "outcome": self.outcome,
            "expected": c.expected,
            "verdict": self.verdict,
            "surprise": self.surprise,
            "exit_status": self.exit_status,
            "examples_run": self.examples_run,
            "summary": _shorten(self.reason, 120),
            "covered": _shorten(coverage_sentence(self.coverage), 200),
        }
        if self.counterexample_path is not None:
            data["counterexample_file"] = f"{COUNTEREXAMPLE_DIR}/{self.counterexample_path.name}"
        data.update({
            "statement": c.statement,
            "scope": c.scope,
            "families": list(c.families),
            "kind": c.kind,
            "reason": self.reason,
            "budget": self.budget.to_json_dict(),
            "search": self.search,
            "examples": {
                "run": self.examples_run,
                "distinct": self.distinct_examples,
                "status": self.status_counts,
                "by_family": self.by_family,
                "by_size": self.by_size,
            },
            "coverage": self.coverage,
        })
        if self.examples_to_counterexample is not None:
            data["examples"]["to_counterexample"] = self.examples_to_counterexample
        if self.undecided_reasons:
            data["examples"]["undecided_reasons"] = self.undecided_reasons
        if self.measurements:
            data["measurements"] = self.measurements
        if self.counterexample is not None:
            data["counterexample"] = self.counterexample
        data["settings"] = self.settings_used
        # Wall time depends on the machine and its load: kept apart, the rest is reproducible.
        data["timing"] = {"seconds": round(self.seconds, 3), "cpu_seconds": round(self.cpu_seconds, 3),
                          "seconds_to_counterexample": _rounded(self.seconds_to_counterexample),
                          "cpu_seconds_to_counterexample": _rounded(self.cpu_seconds_to_counterexample),
                          "note": "wall and CPU time on the machine that ran the search; not reproducible"}
        return data


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 3)


class _Refuted(AssertionError):
    """Raised inside the Hypothesis test so that Hypothesis shrinks the failing example."""


class _Aborted(BaseException):
    """Raised from the test body after an :class:`InternalError`: a BaseException, so Hypothesis neither shrinks
    nor retries it; the search stops and :func:`run_conjecture` raises the internal error."""


def _call(predicate: Predicate, config: Configuration) -> Observation:
    # A predicate that raises is a defect of the conjecture, not a counterexample to it:
    # it becomes an undecided example with the exception named, never a "failed" one. An
    # InternalError (two of the suite's computations disagree) is raised on: it ends the run.
    try:
        observation = predicate(config)
    except (KeyboardInterrupt, _Refuted, InternalError):
        raise
    except Exception as error:  # noqa: BLE001 - reported, not hidden
        where = traceback.extract_tb(error.__traceback__)[-1]
        return Observation.undecided(
            f"predicate raised {type(error).__name__}: {error} ({Path(where.filename).name}:{where.lineno})")
    if not isinstance(observation, Observation):
        return Observation.undecided(f"predicate returned {type(observation).__name__}, expected an Observation")
    return observation


def _json_number(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else rational_to_str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return value


def _sort_key(value: Any) -> Any:
    if isinstance(value, (int, float, Fraction)) and not isinstance(value, bool):
        return (0, value, "")
    return (1, 0, str(value))


def _decade(value: float) -> str:
    if value == 0:
        return "0"
    exponent = math.floor(math.log10(abs(value)))
    sign = "-" if value < 0 else ""
    return f"{sign}[1e{exponent}, 1e{exponent + 1})"


def _bin_order(key: Any) -> Any:
    # Decade bins "[1e-3, 1e-2)" sort by exponent (negative values reversed), everything else by value.
    if isinstance(key, str) and key.lstrip("-").startswith("[1e"):
        exponent = int(key.lstrip("-")[3:].split(",")[0])
        return (0, -exponent if key.startswith("-") else exponent, "")
    return _sort_key(key)


def _config_key(config: Configuration) -> str:
    return json.dumps(config.to_json_dict(), sort_keys=True)


def _aggregate_measurements(records: list[tuple[Configuration, Observation]],
                            group: Callable[[Configuration], Mapping[str, str]]) -> dict[str, Any]:
    names = sorted({name for _, obs in records for name in obs.measurements})
    result: dict[str, Any] = {}
    for name in names:
        values = [(config, obs.measurements[name]) for config, obs in records
                  if name in obs.measurements and obs.measurements[name] is not None]
        if not values:
            continue
        numeric = all(isinstance(v, (int, float, Fraction)) and not isinstance(v, bool) for _, v in values)
        if numeric and any(isinstance(v, float) for _, v in values):
            # Real-valued measurements: a histogram by order of magnitude, not one bin per value.
            distribution = Counter(_decade(float(v)) for _, v in values)
        else:
            distribution = Counter(_json_number(v) if numeric else str(v) for _, v in values)
        entry: dict[str, Any] = {
            "count": len(values),
            "distribution": {str(k): distribution[k] for k in sorted(distribution, key=_bin_order)},
        }
        if numeric:
            worst_config, worst = max(values, key=lambda item: item[1])
            entry["worst"] = _json_number(worst)
            entry["worst_example"] = worst_config.to_json_dict()
            groups: dict[str, list[Any]] = {}
            for config, value in values:
                label = ", ".join(f"{k}={v}" for k, v in group(config).items())
                groups.setdefault(label, []).append(value)
            entry["by_group"] = {
                label: {"count": len(vals), "worst": _json_number(max(vals)),
                        "mean": _json_number(sum(Fraction(v) for v in vals) / len(vals))
                        if all(isinstance(v, (int, Fraction)) for v in vals) else float(sum(vals) / len(vals))}
                for label, vals in sorted(groups.items())
            }
        result[name] = entry
    return result


def _number_text(value: Any) -> str:
    if isinstance(value, Fraction):
        return rational_to_str(value)
    if isinstance(value, float):
        return measured(value)
    return str(value)


def _span(values: Sequence[Any]) -> list[Any]:
    low, high = min(values), max(values)
    return [_json_number(low), _json_number(high)]


def coverage_of(records: Sequence[tuple[Configuration, Observation]]) -> dict[str, Any]:
    """What the examples covered: the range of n, d and alpha, and of every numeric quantity the predicate measured.

    A measurement that is not a number is summarised by its number of distinct values.
    """
    if not records:
        return {}
    coverage: dict[str, Any] = {"n": _span([c.n for c, _ in records]), "d": _span([c.d for c, _ in records]),
                                "alpha": _span([c.alpha for c, _ in records])}
    measured: dict[str, Any] = {}
    for name in sorted({name for _, obs in records for name in obs.measurements}):
        values = [obs.measurements[name] for _, obs in records
                  if name in obs.measurements and obs.measurements[name] is not None]
        if values and all(isinstance(v, (int, float, Fraction)) and not isinstance(v, bool) for v in values):
            measured[name] = _span(values)
        elif values:
            measured[name] = {"distinct values": len({str(v) for v in values})}
    if measured:
        coverage["measurements"] = measured
    return coverage


def coverage_sentence(coverage: Mapping[str, Any]) -> str:
    """``n 1-10, d 1-3, alpha 1/8 to 4; leaders 1-9, last_leader_layer 0-2``: the ranges seen, for a reader."""
    if not coverage:
        return "nothing drawn"

    def span(values: Any) -> str:
        if isinstance(values, Mapping):
            return f"{values.get('distinct values', '?')} distinct values"
        low, high = (_parse_number(v) for v in values)
        if low == high:
            return _number_text(low)
        plain = all(isinstance(v, int) and v >= 0 for v in (low, high))
        return f"{_number_text(low)}{'-' if plain else ' to '}{_number_text(high)}"

    sizes = ", ".join(f"{key} {span(coverage[key])}" for key in ("n", "d", "alpha") if key in coverage)
    measured = coverage.get("measurements") or {}
    if not measured:
        return sizes
    return sizes + "; " + ", ".join(f"{name} {span(values)}" for name, values in measured.items())


def _parse_number(value: Any) -> Any:
    """A number of a result file back from its JSON form (integers stay integers, "p/q" strings become Fractions)."""
    if isinstance(value, str):
        try:
            number = Fraction(value)
        except ValueError:
            return value
        return int(number) if number.denominator == 1 else number
    return value


class _OutOfTime(BaseException):
    """Raised from the test body when the budget in seconds is spent.

    A BaseException (like KeyboardInterrupt): Hypothesis does not treat it as a failure to
    shrink, it ends the Hypothesis run at once.
    """


class _Search:
    """One conjecture's search: rounds of Hypothesis runs within a budget (see :mod:`verify.experiments.conjectures.search`)."""

    def __init__(self, conjecture: Conjecture, budget: Budget, seed: int,
                 progress: Callable[[SearchProgress], None] | None) -> None:
        self.conjecture = conjecture
        self.budget = budget
        self.seed = seed
        self.progress = progress
        self.clock = Clock(budget.seconds)
        self.branches = conjecture.branches()
        self.records: list[tuple[Configuration, Observation]] = []
        self.memo: dict[str, Observation] = {}
        self.searching = True
        self.failing: tuple[Configuration, Observation] | None = None   # the last failing call (Hypothesis's final replay)
        self.smallest: tuple[Configuration, Observation] | None = None  # the simplest failing example seen
        self.first: Configuration | None = None
        self.first_at: tuple[int, float, float] | None = None           # (examples, seconds, CPU seconds) when drawn
        self.shrink_deadline: float | None = None
        self.shrink_complete = True
        self.shrink_calls = 0
        self.problems: dict[str, str] = {}     # branch label -> why it was dropped
        self.problem: str | None = None        # a problem that ends the search (a non-deterministic predicate)
        self.internal_error: InternalError | None = None  # raised again by run_conjecture once the search stops
        self.rounds_run = 0
        self.stopped_by = ""
        self.current: Round | None = None
        self.largest = (0, 0)
        self.target_values: dict[str, list[float]] = {}  # branch label -> the target's values its examples gave
        self.focused: list[str] = []                      # the branch of each rotation's focus rounds
        self.strategies: dict[tuple[int, int], SearchStrategy[Configuration]] = {}
        self.origin: dict[str, Branch] = {}              # config key -> the branch that drew (or optimised) it
        self.scoped: dict[Scope, Branch] = {b.scope: b for b in self.branches if b.scope is not None}
        self.probes = 0                                   # the optimiser's probes (decided ones are examples too)
        self.probes_undecided: Counter[str] = Counter()   # probes the predicate left undecided: reasons
        self.optimiser_best: float | None = None
        self.reduction: Reduction | None = None

    # ------------------------------------------------------------------ one example
    def observe(self, config: Configuration) -> Observation:
        key = _config_key(config)
        observation = self.memo.get(key)
        if observation is None:
            try:
                observation = _call(self.conjecture.predicate, config)
            except InternalError as error:
                self.internal_error = error
                raise _Aborted from None
            self.memo[key] = observation
        return observation

    def body(self, config: Configuration) -> None:
        if self.searching and self.clock.expired():
            raise _OutOfTime
        if not self.searching:
            self.shrink_calls += 1
            if self.shrink_calls > SHRINK_CALLS or (self.shrink_deadline is not None
                                                    and self.clock.elapsed > self.shrink_deadline):
                self.shrink_complete = False
                raise _OutOfTime
        observation = self.observe(config)
        if self.current is not None:
            self.origin.setdefault(_config_key(config), self.current.branch)
        if self.searching:
            self.records.append((config, observation))
            value = observation.measurements.get(self.conjecture.target) if self.conjecture.target else None
            if self.current is not None and isinstance(value, (int, float, Fraction)) and not isinstance(value, bool):
                self.target_values.setdefault(self.current.branch.label, []).append(float(value))
            self.largest = (max(self.largest[0], config.n), max(self.largest[1], config.d))
            self._report()
        target = self.conjecture.target
        if target is not None and hypothesis.currently_in_test_context():  # not for the explicit examples
            value = observation.measurements.get(target)
            if isinstance(value, (int, float, Fraction)) and not isinstance(value, bool):
                hypothesis.target(float(value), label=target)
        if observation.status == "failed":
            self.found(config, observation)
            raise _Refuted(observation.detail)

    def found(self, config: Configuration, observation: Observation) -> None:
        if self.searching:
            self.first = config
            self.first_at = (len(self.records), self.clock.elapsed, self.clock.cpu)
            self.searching = False
            if self.budget.seconds is not None:
                self.shrink_deadline = self.clock.elapsed + max(SHRINK_MIN_SECONDS, SHRINK_SHARE * self.budget.seconds)
        self.failing = (config, observation)
        if self.smallest is None or _simplicity(config) <= _simplicity(self.smallest[0]):  # ties: the later (shrunk)
            self.smallest = (config, observation)

    def _report(self) -> None:
        if self.progress is None:
            return
        self.progress(SearchProgress(examples=len(self.records), distinct=len(self.memo), seconds=self.clock.elapsed,
                                     budget=self.budget, branch=self.current.branch.label if self.current else "",
                                     max_n=self.largest[0], max_d=self.largest[1]))

    # ------------------------------------------------------------------ the rounds
    def run(self) -> None:
        for config in self.conjecture.explicit:
            if self._spent():
                return
            try:
                self.body(config)
            except _Refuted:
                self.stopped_by = "counterexample"
                return
            except _OutOfTime:
                self.stopped_by = "time"
                return
            except _Aborted:
                self.stopped_by = "internal error"
                return
        dropped: set[str] = set()
        new_in_rotation, rotation, level = 0, 0, 0
        for rnd in rounds(self.branches, seed=self.seed, focus=self._focus if self.conjecture.target else None):
            if self._spent():
                return
            if len(dropped) == len(self.branches):
                self.stopped_by = "no usable strategy"
                return
            if rnd.rotation != rotation:
                if self.conjecture.target is not None:
                    # The worst-case optimiser: local search from the best examples so far (optimise.py).
                    before = len(self.memo)
                    stop = self._optimise_round(rotation)
                    if stop is not None:
                        self.stopped_by = stop
                        return
                    new_in_rotation += len(self.memo) - before
                # A whole rotation drew nothing new from strategies that did not change: they are exhausted.
                if new_in_rotation == 0 and (rnd.level == level or not any(b.grows for b in self.branches)):
                    self.stopped_by = "exhausted"
                    return
                new_in_rotation, rotation, level = 0, rnd.rotation, rnd.level
            if rnd.branch.label in dropped:
                continue
            before = len(self.memo)
            outcome = self._round(rnd)
            new_in_rotation += len(self.memo) - before
            if outcome == "internal error":
                self.stopped_by = outcome
                return
            if outcome in ("counterexample", "time"):
                self.stopped_by = outcome
                return
            if outcome is not None:
                if self.problem is not None:
                    self.stopped_by = "problem"
                    return
                dropped.add(rnd.branch.label)
                self.problems[rnd.branch.label] = outcome

    # ------------------------------------------------------------------ the worst-case optimiser
    def _optimise_round(self, rotation: int) -> str | None:
        """One optimiser round from the best examples of branches with a known scope; why the search stops, or None."""
        target = self.conjecture.target
        assert target is not None
        rng = random.Random(round_seed(self.seed, -1 - rotation))
        seeds: list[tuple[Configuration, Observation, Scope]] = []
        seen: set[str] = set()
        ranked = sorted(((numeric_target(obs, target), index) for index, (_, obs) in enumerate(self.records)
                         if numeric_target(obs, target) is not None), key=lambda item: (-(item[0] or 0.0), item[1]))
        # The best examples so far, then a few others drawn at random: a climb stuck on one example's
        # neighbourhood gets other starting points.
        order = [index for _, index in ranked[:OPTIMISE_SEEDS]]
        rest = [index for _, index in ranked[OPTIMISE_SEEDS:]]
        order += rng.sample(rest, min(len(rest), OPTIMISE_SEEDS))
        for index in order:
            config, observation = self.records[index]
            key = _config_key(config)
            branch = self.origin.get(key)
            if branch is None or branch.scope is None or key in seen:
                continue
            seen.add(key)
            seeds.append((config, observation, branch.scope))
        if not seeds:
            return None
        try:
            optimise(seeds, target=target, evaluate=self._probe, rng=rng, probes=OPTIMISE_PROBES)
        except _Refuted:
            return "counterexample"
        except _Aborted:
            return "internal error"
        return None

    def _probe(self, config: Configuration, scope: Scope) -> Observation | None:
        """Decide one optimiser candidate; None once the budget is spent. A failure ends the search as usual."""
        if self._spent():
            return None
        key = _config_key(config)
        observation = self.observe(config)
        self.probes += 1
        branch = self.scoped.get(scope)
        if branch is not None:
            self.origin.setdefault(key, branch)
        if observation.status == "undecided":
            # Not an example: a probe near a boundary may need more layers than the predicate's budget.
            self.probes_undecided[observation.detail] += 1
            return observation
        self.records.append((config, observation))
        value = numeric_target(observation, self.conjecture.target or "")
        if value is not None:
            self.optimiser_best = value if self.optimiser_best is None else max(self.optimiser_best, value)
            if branch is not None:
                self.target_values.setdefault(branch.label, []).append(value)
        self.largest = (max(self.largest[0], config.n), max(self.largest[1], config.d))
        self._report()
        if observation.status == "failed":
            self.found(config, observation)
            raise _Refuted(observation.detail)
        return observation

    # ------------------------------------------------------------------ structural shrinking
    def reduce(self) -> None:
        """Shrink the reported counterexample further within its branch (:mod:`.shrink`), when the branch's scope is known."""
        reported = self.reported()
        if reported is None:
            return
        config, observation = reported
        branch = self.origin.get(_config_key(config))
        if branch is None or branch.scope is None:
            return
        scope = branch.scope

        def check(candidate: Configuration) -> Observation | None:
            if self.shrink_deadline is not None and self.clock.elapsed > self.shrink_deadline:
                return None
            try:
                return self.observe(candidate)
            except _Aborted:
                raise
        research = (lambda n, d: self._research(branch, n, d)) if branch.grows else None
        reduced, reduced_observation, self.reduction = reduce_counterexample(config, observation, scope=scope,
                                                                             check=check, research=research)
        if reduced is not config:
            self.failing = (reduced, reduced_observation)
            self.smallest = (reduced, reduced_observation)
            self.origin.setdefault(_config_key(reduced), branch)

    def _research(self, branch: Branch, max_n: int, max_d: int) -> tuple[Configuration, Observation] | None:
        """A short Hypothesis run of ``branch`` bounded by (max_n, max_d); its shrunk failing example, or None."""
        if self.shrink_deadline is not None and self.clock.elapsed > self.shrink_deadline:
            return None
        failing: list[tuple[Configuration, Observation]] = []

        def body(config: Configuration) -> None:
            if self.shrink_deadline is not None and self.clock.elapsed > self.shrink_deadline:
                raise _OutOfTime
            observation = self.observe(config)
            if observation.status == "failed":
                failing.append((config, observation))
                raise _Refuted(observation.detail)

        run_settings = settings(
            settings.get_profile("default"), max_examples=RESEARCH_EXAMPLES, derandomize=False, database=None,
            deadline=None, report_multiple_bugs=False, verbosity=Verbosity.quiet, print_blob=False,
            phases=(Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck))
        strategy = branch.build(max_n, max_d)
        test = hypothesis.seed(round_seed(self.seed, 10_000 + 100 * max_n + max_d))(run_settings(given(strategy)(body)))
        try:
            test()
        except (_Refuted, _OutOfTime, Unsatisfiable, FailedHealthCheck, Flaky):
            pass
        if not failing:
            return None
        return min(failing, key=lambda item: _simplicity(item[0]))

    def _focus(self) -> Branch | None:
        """The branch whose examples pushed the target highest (then: spread widest), or None before any value."""
        best: tuple[float, float, int] | None = None
        chosen: Branch | None = None
        for position, branch in enumerate(self.branches):
            values = self.target_values.get(branch.label)
            if not values or branch.label in self.problems:
                continue
            key = (max(values), statistics.pstdev(values), -position)
            if best is None or key > best:
                best, chosen = key, branch
        if chosen is not None:
            self.focused.append(chosen.label)
        return chosen

    def _spent(self) -> bool:
        if self.budget.examples is not None and len(self.records) >= self.budget.examples:
            self.stopped_by = "examples"
            return True
        if self.clock.expired():
            self.stopped_by = "time"
            return True
        return False

    def _strategy(self, rnd: Round) -> SearchStrategy[Configuration]:
        index = self.branches.index(rnd.branch)
        key = (index, rnd.level if rnd.branch.grows else 0)
        if key not in self.strategies:
            max_n, max_d = level_sizes(rnd.level)
            self.strategies[key] = rnd.branch.build(max_n, max_d)
        return self.strategies[key]

    def _round(self, rnd: Round) -> str | None:
        """Run one round; returns "counterexample", "time", "internal error", a problem (the branch is dropped) or None."""
        self.current = rnd
        self.rounds_run += 1
        remaining = rnd.examples if self.budget.examples is None else min(rnd.examples,
                                                                            self.budget.examples - len(self.records))
        run_settings = settings(
            settings.get_profile("default"), max_examples=remaining, derandomize=False, database=None, deadline=None,
            report_multiple_bugs=False, verbosity=Verbosity.quiet, print_blob=False,
            phases=(Phase.generate, Phase.target, Phase.shrink),
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        test = hypothesis.seed(rnd.seed)(run_settings(given(self._strategy(rnd))(self.body)))
        try:
            test()
        except _Refuted:
            return "counterexample"
        except _OutOfTime:
            return "counterexample" if self.failing is not None else "time"
        except _Aborted:
            return "internal error"
        except Unsatisfiable as error:
            return f"Hypothesis could not generate enough valid examples ({str(error).splitlines()[0]})"
        except FailedHealthCheck as error:
            return f"Hypothesis health check failed: {str(error).splitlines()[0]}"
        except Flaky as error:
            self.problem = ("the predicate is not deterministic (Hypothesis reported flakiness: "
                            f"{str(error).splitlines()[0]})")
            return self.problem
        return None

    def reported(self) -> tuple[Configuration, Observation] | None:
        """The counterexample to report: the simplest failing example seen (fewest tokens, lowest dimension, shortest
        numbers), Hypothesis's shrunk one included. For a seeded family Hypothesis shrinks the seed, not the
        configuration, so its last one need not be the simplest."""
        if self.failing is None:
            return None
        return self.smallest if self.smallest is not None else self.failing


_simplicity = simplicity  # one rule of what is simpler (optimise.py)


def run_conjecture(conjecture: Conjecture, *, examples: int | None = None, seconds: float | None = None, seed: int = 0,
                   results_dir: Path | None = None,
                   progress: Callable[[SearchProgress], None] | None = None,
                   provenance: Mapping[str, Any] | None = None) -> ConjectureResult:
    """Search for a counterexample with Hypothesis within a budget and return the honest outcome.

    Parameters
    ----------
    conjecture
        What to test.
    examples, seconds
        The budget: stop after this many examples, after this many seconds, or at whichever
        comes first when both are given. Neither: :data:`verify.experiments.conjectures.search.DEFAULT_SECONDS`.
        A budget in examples alone gives the same result file on every machine (apart from its
        ``timing`` block); one in seconds depends on the machine's speed.
    seed
        The search's seed: the same seed, inputs and budget in examples give the same examples.
    results_dir
        Where ``<name>.json`` and a counterexample ``counterexamples/<name>.json`` are written
        (atomically); None (the default) writes nothing (a counterexample is then re-checked
        from its in-memory JSON round trip instead of the file). ``hardmax-verify conjecture
        run`` writes into the user folder (:func:`verify.app.locations.user_folder`).
    progress
        Called after each example drawn with a :class:`SearchProgress`.
    provenance
        Extra fields recorded in the result's ``settings`` (the CLI records its command line
        and, for a user file, the file's sha256).

    Raises
    ------
    InternalError
        When the predicate or the re-check raised it: the search stops at once and nothing is
        written (a bug of the suite, never an outcome).
    """
    budget = Budget(examples=examples, seconds=DEFAULT_SECONDS if examples is None and seconds is None else seconds)
    search = _Search(conjecture, budget, seed, progress)
    search.run()
    if search.internal_error is None and search.failing is not None:
        try:
            search.reduce()
        except _Aborted:
            pass
    if search.internal_error is not None:
        raise search.internal_error
    search_records = search.records
    status_counts = Counter(obs.status for _, obs in search_records)
    undecided_reasons = Counter(obs.detail for _, obs in search_records if obs.status == "undecided")
    by_family = Counter(family_of(config) for config, _ in search_records)
    by_size = Counter(f"n={config.n}, d={config.d}" for config, _ in search_records)
    distinct = len({_config_key(config) for config, _ in search_records})
    measured = [(c, o) for c, o in search_records if o.status != "undecided" or o.measurements]
    measurements = _aggregate_measurements(measured, conjecture.group)
    coverage = coverage_of(search_records)

    settings_used = {
        "seed": seed, "explicit_examples": len(conjecture.explicit), "round_examples": ROUND_EXAMPLES,
        "versions": dependency_versions(("hardmax-verify", "hypothesis", "python-flint", "pycddlib")),
        **(provenance or {}),
    }
    search_block: dict[str, Any] = {
        "stopped_by": search.stopped_by, "rounds": search.rounds_run,
        "branches": [b.label for b in search.branches],
        "largest": {"n": max((c.n for c, _ in search_records), default=0),
                    "d": max((c.d for c, _ in search_records), default=0)},
    }
    if search.focused:
        search_block["focus"] = dict(Counter(search.focused))
    if search.probes:
        search_block["optimiser"] = {"probes": search.probes,
                                     "undecided": sum(search.probes_undecided.values()),
                                     "best": _json_number(search.optimiser_best)
                                     if search.optimiser_best is None or not float(search.optimiser_best).is_integer()
                                     else int(search.optimiser_best)}
        if search.probes_undecided:
            search_block["optimiser"]["undecided_reasons"] = dict(search.probes_undecided.most_common(3))
    if search.problems:
        search_block["dropped"] = search.problems
    counterexample: dict[str, Any] | None = None
    counterexample_path: Path | None = None
    outcome: Outcome
    reported = search.reported()
    examples_text = (f"{counted(len(search_records), 'example')} ({count(distinct)} distinct) from "
                     f"{counted(len(by_family), 'family', 'families')}")
    if reported is not None:
        config, observation = reported
        outcome, reason, counterexample, counterexample_path = _confirm(conjecture, config, observation, results_dir)
        first = search.first
        assert first is not None
        if counterexample is not None:
            # What shrinking achieved: the first failing example found against the reported one.
            counterexample["shrinking"] = {"first_found": {"n": first.n, "d": first.d, "config": first.to_json_dict()},
                                           "reported": {"n": config.n, "d": config.d},
                                           "calls": min(search.shrink_calls, SHRINK_CALLS),
                                           "complete": search.shrink_complete}
            if search.reduction is not None:
                counterexample["shrinking"]["structural"] = search.reduction.to_json_dict()
    elif search.problem is not None:
        outcome, reason = "inconclusive", search.problem
    elif search.stopped_by == "no usable strategy":
        outcome = "inconclusive"
        reason = "no strategy could generate examples: " + "; ".join(f"{k}: {v}" for k, v in search.problems.items())
    elif status_counts.get("undecided"):
        outcome = "inconclusive"
        top = undecided_reasons.most_common(1)[0][0]
        reason = (f"no counterexample, but {status_counts['undecided']} of {len(search_records)} examples were "
                  f"not decided (most common reason: {top})")
    elif not search_records:
        outcome, reason = "inconclusive", "no example was generated"
    else:
        outcome = "not refuted"
        stop = {"examples": "the budget of examples was spent", "time": "the budget of seconds was spent",
                "exhausted": "the strategies had no new example left"}.get(search.stopped_by, search.stopped_by)
        reason = f"not refuted by {examples_text} ({stop}); evidence, not a proof"
        if search.probes_undecided:
            reason += (f"; {counted(sum(search.probes_undecided.values()), 'probe')} of the worst-case optimiser "
                       "left undecided (not counted as examples)")
    result = ConjectureResult(
        conjecture=conjecture, outcome=outcome, reason=reason, examples_run=len(search_records),
        distinct_examples=distinct, status_counts={k: status_counts.get(k, 0) for k in ("held", "failed", "undecided")},
        by_family=dict(sorted(by_family.items())), by_size=dict(sorted(by_size.items())),
        measurements=measurements, undecided_reasons=dict(undecided_reasons.most_common(5)),
        counterexample=counterexample, counterexample_path=counterexample_path, settings_used=settings_used,
        budget=budget, search=search_block, coverage=coverage, seconds=search.clock.elapsed,
        cpu_seconds=search.clock.cpu, seconds_to_counterexample=search.first_at[1] if search.first_at else None,
        cpu_seconds_to_counterexample=search.first_at[2] if search.first_at else None,
        examples_to_counterexample=search.first_at[0] if search.first_at else None,
    )
    if results_dir is not None:
        result.result_path = Path(results_dir) / f"{result_stem(conjecture.name)}.json"
        atomic_write_text(result.result_path, json_text(result.to_json_dict(), where=str(result.result_path)))
    return result


def _counterexample_config(conjecture: Conjecture, config: Configuration, observation: Observation) -> Configuration:
    description = (f"Counterexample to conjecture '{conjecture.name}': {conjecture.statement} "
                   f"Found by Hypothesis and shrunk; {observation.detail}")
    # Recorded only when true: a counterexample inside the hypotheses (a conjecture about the
    # theorem's own setting) is an ordinary configuration that every command takes as it is.
    return replace(config, outside_hypotheses=bool(hypothesis_violations(config)),
                   name=f"{conjecture.name} counterexample", description=description)


def _confirm(conjecture: Conjecture, config: Configuration, observation: Observation,
             results_dir: Path | None) -> tuple[Outcome, str, dict[str, Any] | None, Path | None]:
    """Save the shrunk example, reload it from disk and re-check it rigorously."""
    saved = _counterexample_config(conjecture, config, observation)
    data = saved.to_json_dict()
    if "layers" in config.extra:
        data["layers"] = config.extra["layers"]
    path: Path | None = None
    if results_dir is not None:
        path = Path(results_dir) / COUNTEREXAMPLE_DIR / f"{result_stem(conjecture.name)}.json"
        atomic_write_text(path, json_text(data, where=str(path), indent=2))
        reloaded = load_configuration(path)
    else:
        reloaded = parse_configuration(json.loads(json.dumps(data)))
    try:
        confirmation = conjecture.check(reloaded)
    except InternalError:
        if path is not None:  # no counterexample file without a confirmed counterexample
            path.unlink(missing_ok=True)
        raise
    report = {"config": data, "detail": observation.detail, "evidence": dict(observation.evidence),
              "confirmation": {"status": confirmation.status, "detail": confirmation.detail,
                               "evidence": dict(confirmation.evidence),
                               "method": "rigorous re-check of the saved file"}}
    if path is not None:
        # Relative to the results folder: results do not depend on where they were written.
        report["file"] = f"{COUNTEREXAMPLE_DIR}/{path.name}"
    if confirmation.status == "failed":
        return ("counterexample", f"refuted: {confirmation.detail}", report, path)
    # The search said false but the rigorous check does not: never report it as a counterexample.
    if path is not None:
        path.unlink(missing_ok=True)
        report.pop("file", None)
    reason = ("the search found a candidate counterexample that the rigorous re-check did not confirm "
              f"(re-check: {confirmation.status}: {confirmation.detail})")
    return ("inconclusive", reason, {"unconfirmed_candidate": report}, None)


def recheck_file(conjecture: Conjecture, path: str | Path) -> Observation:
    """Re-check one saved configuration file rigorously (what ``conjecture check`` runs)."""
    return conjecture.check(load_configuration(path, outside_hypotheses=True))
