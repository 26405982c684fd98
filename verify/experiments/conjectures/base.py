"""The conjecture object, the Hypothesis-driven runner and the three honest outcomes.

A :class:`Conjecture` is a named statement about the dynamics together with the strategy that
generates its inputs (a Hypothesis strategy of :class:`~verify.core.config.Configuration`), the
predicate that decides one input, and its scope. :func:`run_conjecture` searches with
Hypothesis and returns a :class:`ConjectureResult` whose ``outcome`` is one of

* ``"held"``: every generated example was decided and satisfied the statement (with the
  families and sizes covered, and any measurements);
* ``"counterexample"``: an example falsified it; Hypothesis shrank it, the shrunk example was
  saved as a CONFIG.json (with the variant fields V / beta, and ``"outside_hypotheses": true``
  when it is outside the theorem's hypotheses) and
  then *re-checked from that file* by the conjecture's rigorous check (exact rationals, or arb
  intervals for softmax). Only a re-checked failure is reported as a counterexample;
* ``"inconclusive"``: nothing false was found but something was not decided (a layer budget ran
  out, intervals overlapped, a health check fired...), with the reason.

Every conjecture declares what the project expects (``expected``: ``"held"`` or ``"refuted"``);
a decided outcome is then **as expected** or a **surprise**. Exit statuses
(:mod:`verify.core.exitcodes`): as expected 0, surprise 1, inconclusive 3.
"""

from __future__ import annotations

import hashlib
import json
import math
import traceback
from collections import Counter
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Literal, Mapping

import hypothesis
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis.errors import FailedHealthCheck, Flaky, Unsatisfiable
from hypothesis.strategies import SearchStrategy

from verify.core import exitcodes
from verify.core import profiles as _profiles  # noqa: F401 - registers ci/dev/thorough before any get_profile
from verify.core.config import Configuration, hypothesis_violations, load_configuration, parse_configuration
from verify.core.io import atomic_write_text, safe_name
from verify.core.numbers import rational_to_str
from verify.core.versions import dependency_versions

__all__ = [
    "family_of",
    "Observation",
    "Conjecture",
    "ConjectureResult",
    "run_conjecture",
    "recheck_file",
    "EXPECTATIONS",
    "result_stem",
]

Status = Literal["held", "failed", "undecided"]
Outcome = Literal["held", "counterexample", "inconclusive"]
Expectation = Literal["held", "refuted"]
# What each expectation predicts as the outcome of a run.
EXPECTATIONS: dict[str, Outcome] = {"held": "held", "refuted": "counterexample"}
# Counterexample CONFIG files go one level down, so that RESULTS/*.json are the run results only.
COUNTEREXAMPLE_DIR = "counterexamples"


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
        Hypothesis strategy of :class:`Configuration`. Set ``Configuration.name`` to the family
        label (e.g. ``"psd_rank1_d3"``): the runner counts examples per family.
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
        The outcome the author expects: ``"held"`` (the default: a conjecture is stated because it
        is believed) or ``"refuted"`` (a statement known to be false, kept to show the lab finds
        its counterexample). A decided outcome that differs is a *surprise* (exit 1).
    target
        Name of a measurement Hypothesis should push upwards (:func:`hypothesis.target`), to
        search for worst cases.
    group
        Key used to tabulate measurements (default: n, d, alpha).
    explicit
        Configurations always tried first (Hypothesis ``@example``; they are not shrunk, so a
        claim conjecture whose counterexample should be shrunk leaves this empty).
    """

    name: str
    statement: str
    strategy: SearchStrategy[Configuration]
    predicate: Predicate
    scope: str = ""
    families: tuple[str, ...] = ()
    confirm: Predicate | None = None
    kind: Literal["claim", "measurement"] = "claim"
    expected: Expectation = "held"
    target: str | None = None
    group: Callable[[Configuration], Mapping[str, str]] = _default_group
    explicit: tuple[Configuration, ...] = ()

    def __post_init__(self) -> None:
        if self.expected not in EXPECTATIONS:
            raise ValueError(f"conjecture {self.name!r}: expected must be \"held\" or \"refuted\", "
                             f"got {self.expected!r}")

    def check(self, config: Configuration) -> Observation:
        """The rigorous check of one configuration (``confirm``, else ``predicate``)."""
        return _call(self.confirm or self.predicate, config)


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
    result_path: Path | None = None  # where the result file was written (None: results_dir was None)

    @property
    def surprise(self) -> bool:
        """A decided outcome other than the expected one (a hold where a refutation was expected, or the reverse)."""
        return self.outcome != "inconclusive" and self.outcome != EXPECTATIONS[self.conjecture.expected]

    @property
    def verdict(self) -> str:
        """``as expected``, ``surprise`` or ``inconclusive``."""
        if self.outcome == "inconclusive":
            return "inconclusive"
        return "surprise" if self.surprise else "as expected"

    @property
    def exit_status(self) -> int:
        return {"as expected": exitcodes.SUCCESS, "surprise": exitcodes.FALSE,
                "inconclusive": exitcodes.INCONCLUSIVE}[self.verdict]

    def to_json_dict(self) -> dict[str, Any]:
        c = self.conjecture
        data: dict[str, Any] = {
            # Short scalar fields first: the verification report lists a result file's scalars.
            "conjecture": c.name,
            "outcome": self.outcome,
            "expected": c.expected,
            "surprise": self.surprise,
            "exit_status": self.exit_status,
            "examples_run": self.examples_run,
            "summary": _shorten(self.reason, 120),
        }
        if self.counterexample_path is not None:
            data["counterexample_file"] = f"{COUNTEREXAMPLE_DIR}/{self.counterexample_path.name}"
        data.update({
            "statement": c.statement,
            "scope": c.scope,
            "families": list(c.families),
            "kind": c.kind,
            "reason": self.reason,
            "examples": {
                "run": self.examples_run,
                "distinct": self.distinct_examples,
                "status": self.status_counts,
                "by_family": self.by_family,
                "by_size": self.by_size,
            },
        })
        if self.undecided_reasons:
            data["examples"]["undecided_reasons"] = self.undecided_reasons
        if self.measurements:
            data["measurements"] = self.measurements
        if self.counterexample is not None:
            data["counterexample"] = self.counterexample
        data["settings"] = self.settings_used
        return data


class _Refuted(AssertionError):
    """Raised inside the Hypothesis test so that Hypothesis shrinks the failing example."""


def _call(predicate: Predicate, config: Configuration) -> Observation:
    # A predicate that raises is a defect of the conjecture, not a counterexample to it:
    # it becomes an undecided example with the exception named, never a "failed" one.
    try:
        observation = predicate(config)
    except (KeyboardInterrupt, _Refuted):
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


def run_conjecture(conjecture: Conjecture, *, examples: int | None = None, profile: str = "ci", seed: int = 0,
                   results_dir: Path | None = None,
                   progress: Callable[[int, Observation], None] | None = None,
                   provenance: Mapping[str, Any] | None = None) -> ConjectureResult:
    """Search for a counterexample with Hypothesis and return the honest outcome.

    Parameters
    ----------
    conjecture
        What to test.
    examples
        Number of examples to generate (default: the profile's ``max_examples``).
    profile
        A profile of :mod:`verify.core.profiles` (``ci``, ``dev``, ``thorough``) whose settings are used.
    seed
        Hypothesis seed: the same seed and inputs give the same examples and the same result file.
    results_dir
        Where ``<name>.json`` and a counterexample ``counterexamples/<name>.json`` are written
        (atomically); None (the default) writes nothing (a counterexample is then re-checked
        from its in-memory JSON round trip instead of the file). ``hardmax-verify conjecture
        run`` writes into the user folder (:func:`verify.app.locations.user_folder`).
    progress
        Called after each generated example with the running count and its observation.
    provenance
        Extra fields recorded in the result's ``settings`` (the CLI records its command line
        and, for a user file, the file's sha256).
    """
    base = settings.get_profile(profile)
    max_examples = examples if examples is not None else base.max_examples
    # The seed decides the run (derandomize would ignore it); no database, so reruns do not
    # replay earlier failures and the result depends on the inputs alone.
    run_settings = settings(
        base, max_examples=max_examples, derandomize=False, database=None, deadline=None,
        report_multiple_bugs=False, verbosity=Verbosity.quiet, print_blob=False,
        phases=(Phase.explicit, Phase.generate, Phase.target, Phase.shrink),
        suppress_health_check=list(base.suppress_health_check) + [HealthCheck.too_slow, HealthCheck.data_too_large],
    )

    records: list[tuple[Configuration, Observation]] = []
    state: dict[str, Any] = {"failing": None, "searching": True, "first": None}

    def body(config: Configuration) -> None:
        observation = _call(conjecture.predicate, config)
        if state["searching"]:
            records.append((config, observation))
            if progress is not None:
                progress(len(records), observation)
        if conjecture.target is not None:
            value = observation.measurements.get(conjecture.target)
            if isinstance(value, (int, float, Fraction)) and not isinstance(value, bool):
                hypothesis.target(float(value), label=conjecture.target)
        if observation.status == "failed":
            # After the first failure every call is Hypothesis shrinking; the last failing call
            # is its final replay of the minimal example.
            if state["searching"]:
                state["first"] = config
            state["searching"] = False
            state["failing"] = (config, observation)
            raise _Refuted(observation.detail)

    wrapped = given(conjecture.strategy)(body)
    for config in reversed(conjecture.explicit):
        wrapped = hypothesis.example(config)(wrapped)
    test = hypothesis.seed(seed)(run_settings(wrapped))
    problem: str | None = None
    try:
        test()
    except _Refuted:
        pass
    except Unsatisfiable as error:
        problem = f"Hypothesis could not generate enough valid examples ({error})"
    except FailedHealthCheck as error:
        problem = f"Hypothesis health check failed: {str(error).splitlines()[0]}"
    except Flaky as error:
        problem = f"the predicate is not deterministic (Hypothesis reported flakiness: {str(error).splitlines()[0]})"

    search_records = records
    status_counts = Counter(obs.status for _, obs in search_records)
    undecided_reasons = Counter(obs.detail for _, obs in search_records if obs.status == "undecided")
    by_family = Counter(family_of(config) for config, _ in search_records)
    by_size = Counter(f"n={config.n}, d={config.d}" for config, _ in search_records)
    distinct = len({_config_key(config) for config, _ in search_records})
    measured = [(c, o) for c, o in search_records if o.status != "undecided" or o.measurements]
    measurements = _aggregate_measurements(measured, conjecture.group)

    settings_used = {
        "profile": profile, "examples_requested": max_examples, "explicit_examples": len(conjecture.explicit),
        "seed": seed, "versions": dependency_versions(("hardmax-verify", "hypothesis", "python-flint", "pycddlib")),
        **(provenance or {}),
    }
    counterexample: dict[str, Any] | None = None
    counterexample_path: Path | None = None
    outcome: Outcome
    if state["failing"] is not None:
        config, observation = state["failing"]
        outcome, reason, counterexample, counterexample_path = _confirm(conjecture, config, observation, results_dir)
        first = state["first"]
        if counterexample is not None:
            # What shrinking achieved: the first failing example found against the reported one.
            counterexample["shrinking"] = {"first_found": {"n": first.n, "d": first.d, "config": first.to_json_dict()},
                                           "reported": {"n": config.n, "d": config.d}}
    elif problem is not None:
        outcome, reason = "inconclusive", problem
    elif status_counts.get("undecided"):
        outcome = "inconclusive"
        top = undecided_reasons.most_common(1)[0][0]
        reason = (f"no counterexample, but {status_counts['undecided']} of {len(search_records)} examples were "
                  f"not decided (most common reason: {top})")
    elif not search_records:
        outcome, reason = "inconclusive", "no example was generated"
    else:
        outcome = "held"
        reason = (f"held on {len(search_records)} examples ({distinct} distinct) from "
                  f"{len(by_family)} families; this is evidence, not a proof")

    result = ConjectureResult(
        conjecture=conjecture, outcome=outcome, reason=reason, examples_run=len(search_records),
        distinct_examples=distinct, status_counts={k: status_counts.get(k, 0) for k in ("held", "failed", "undecided")},
        by_family=dict(sorted(by_family.items())), by_size=dict(sorted(by_size.items())),
        measurements=measurements, undecided_reasons=dict(undecided_reasons.most_common(5)),
        counterexample=counterexample, counterexample_path=counterexample_path, settings_used=settings_used,
    )
    if results_dir is not None:
        result.result_path = Path(results_dir) / f"{result_stem(conjecture.name)}.json"
        atomic_write_text(result.result_path, json.dumps(result.to_json_dict(), indent=1) + "\n")
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
        atomic_write_text(path, json.dumps(data, indent=2) + "\n")
        reloaded = load_configuration(path)
    else:
        reloaded = parse_configuration(json.loads(json.dumps(data)))
    confirmation = conjecture.check(reloaded)
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
