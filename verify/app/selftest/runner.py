"""The mutation self-test: run the suite's checks against deliberately wrong dynamics.

"The suite" is everything the project ships to decide whether an implementation is right:

* ``known``: the configurations with exact answers known without the engine
  (:mod:`verify.app.selftest.known_answers`: the worked configurations of docs/theory.md §4 and the
  examples of §3);
* ``claims``: :func:`verify.claims.check_configuration` (verdicts T0..T4, D1..D3 and the
  one-step ``replay`` against the independent oracle) on a fixed set of configurations,
  with the dynamics injected; its whole report is then re-checked by the independent
  checker :mod:`verify.certcheck` (``certcheck:*`` detections: a certificate, status or fate
  built on wrong positions is rejected by the checker's own replay);
* ``properties``: the same claim checks on configurations drawn by the project's Hypothesis
  strategies (:mod:`verify.strategies`), under the chosen settings profile;
* ``float``: the float engine against the exact engine on near-tie configurations (gaps of
  about 1e-4) and on float-stress configurations (exact ties, ties perturbed down to the
  rounding error and some flipped by it, scores at the overflow edge and subnormal scores):
  whatever the float engine presents as decided (its leaders up to the first undecided layer,
  and every final position of a fully decided run) must agree with exact arithmetic within the
  error bound it states.

First the real engines run through every check (the *baseline*): a check that flags the
real engine is broken, and then no "caught" below means anything. Then every mutant of
:mod:`verify.app.selftest.mutants` runs through every check of its arithmetic; a mutant is
*caught* when at least one check reports a failure (a failed verdict, a wrong known answer,
a float/exact disagreement) or crashes on it. A mutant that no check flags is a gap in the
suite, reported as such.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterator, Sequence

import numpy as np
from hypothesis import Phase, Verbosity, given, seed, settings

from verify import certcheck, strategies
from verify.claims import check_configuration
from verify.core import float_dynamics, profiles  # noqa: F401 - profiles registers the ci/dev profiles check_properties uses
from verify.core.config import Configuration, parse_configuration
from verify.core.exact_dynamics import ExactLayer, exact_layers
from verify.core.families import TIE_FAMILIES
from verify.core.numbers import rational_to_str
from verify.core.worked import WORKED_CONFIGURATIONS
from verify.strategies import FLOAT_STRESS_KINDS, float_stress_configuration
from .known_answers import KNOWN_ANSWERS
from .mutants import EXACT_MUTANTS, FLOAT_MUTANTS, Mutant

__all__ = ["Detection", "VariantResult", "SelfTestResult", "run_selftest", "CLAIM_CONFIGURATIONS",
           "near_tie_configurations", "float_stress_set", "check_known_answers", "check_claims",
           "check_float_against_exact", "float_run_disagreements", "stored_float_configuration"]

ExactDynamics = Callable[..., Iterator[ExactLayer]]
Progress = Callable[[str], None]

# Per profile: layer budget of the claim checks, Hypothesis examples come from verify.core.profiles.
LAYER_BUDGET = {"ci": 60, "dev": 120}
RANDOM_NEAR_TIES = {"ci": 40, "dev": 200}
FLOAT_STRESS = {"ci": 30, "dev": 120}  # float_stress_set sizes: ties, flips, overflow, tiny A and tokens
FLOAT_LAYERS = 30
STRESS_LAYERS = 5  # few layers: a wrong decision at layer 0 is still far outside the bound


@dataclass
class Detection:
    """One check flagging one engine on one configuration."""

    check: str
    configuration: str
    detail: str
    crashed: bool = False  # the check raised instead of answering

    def to_json_dict(self) -> dict[str, Any]:
        return {"check": self.check, "configuration": self.configuration, "detail": self.detail,
                **({"crashed": True} if self.crashed else {})}


@dataclass
class VariantResult:
    """All detections of one engine (a mutant, or a real engine in the baseline)."""

    name: str
    description: str
    arithmetic: str
    detections: list[Detection] = field(default_factory=list)
    checks_run: list[str] = field(default_factory=list)
    seconds: float = 0.0
    check_seconds: dict[str, float] = field(default_factory=dict)

    @property
    def caught(self) -> bool:
        return bool(self.detections)

    def catching_checks(self) -> list[str]:
        return sorted({d.check for d in self.detections})

    def to_json_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "arithmetic": self.arithmetic,
                "caught": self.caught, "caught_by": self.catching_checks(), "checks_run": self.checks_run,
                "detections": [d.to_json_dict() for d in self.detections]}


@dataclass
class SelfTestResult:
    """Baseline (must be clean) and mutants (must all be caught)."""

    profile: str
    baseline: list[VariantResult]
    variants: list[VariantResult]

    @property
    def baseline_clean(self) -> bool:
        return not any(v.caught for v in self.baseline)

    @property
    def baseline_crashes(self) -> list[Detection]:
        """Checks that raised on a real engine: not a verdict on it, a self-test that could not complete."""
        return [d for v in self.baseline for d in v.detections if d.crashed]

    @property
    def all_caught(self) -> bool:
        return all(v.caught for v in self.variants)

    @property
    def ok(self) -> bool:
        return self.baseline_clean and self.all_caught

    def to_json_dict(self) -> dict[str, Any]:
        return {"format": "hardmax-verify/selftest-v1", "profile": self.profile, "ok": self.ok,
                "baseline_clean": self.baseline_clean, "all_caught": self.all_caught,
                **({"baseline_crashed": True} if self.baseline_crashes else {}),
                "baseline": [v.to_json_dict() for v in self.baseline],
                "variants": [v.to_json_dict() for v in self.variants]}


# ---------------------------------------------------------------------------------------------
# Configurations.

def _config(name: str, tokens: list[list[str]], *, alpha: str = "1/2", A: list[list[str]] | None = None) -> Configuration:
    data: dict[str, Any] = {"name": name, "tokens": tokens, "alpha": alpha}
    if A is not None:
        data["A"] = A
    return parse_configuration(data)


# Claim checks run on these: the worked rows, the tie examples of docs/theory.md, and configurations
# with A != I (a mutant ignoring A can only be caught where A changes an attention set).
CLAIM_CONFIGURATIONS: tuple[Configuration, ...] = (
    *WORKED_CONFIGURATIONS.values(),
    _config("three_way_tie", [["1", "0"], ["0", "1"], ["1/2", "1/2"]]),
    _config("chain", [["0", "1/4"], ["1", "1/3"], ["-1/12", "1/12"]]),
    _config("diagonal_A", [["1", "0"], ["0", "1"], ["1/2", "1/2"], ["-1/3", "1/5"], ["1/4", "-2/3"]],
            A=[["1", "0"], ["0", "4"]]),
    _config("coupled_A", [["1", "1/2"], ["-1/2", "1"], ["1/3", "-1"], ["-1", "-1/4"], ["1/5", "1/5"], ["-1/4", "1/3"]],
            A=[["2", "1"], ["1", "1"]], alpha="1/3"),
)


def near_tie_configurations(*, count: int, seed: int = 0) -> list[Configuration]:
    """Configurations whose attention sets hinge on score gaps below 1e-3 (but far above rounding).

    A fixed pair (a leader and a token scoring 1/2000 below it) plus ``count`` random ones:
    points on a circle of radius 1 whose angles differ by about 1e-2, so the gaps
    1 - cos(angle) are of order 1e-4. Coordinates are dyadic (exact in float64) and alpha = 1/2,
    so the exact and the float engines start from the same rationals.
    """
    rng = np.random.default_rng(seed)
    configs = [_config("near_tie_pair", [["1", "0"], ["0.9995", "0.03125"], ["-1/2", "1/4"]])]
    for index in range(count):
        n = int(rng.integers(3, 7))
        angles = rng.uniform(0, 0.03, size=n) + rng.uniform(0, 2 * np.pi)
        radii = 1 - rng.uniform(0, 2e-4, size=n)
        tokens = []
        for r, t in zip(radii, angles):
            # Round to multiples of 2^-20: exact in float64, still distinct gaps ~1e-4.
            tokens.append([str(Fraction(round(r * np.cos(t) * 2**20), 2**20)),
                           str(Fraction(round(r * np.sin(t) * 2**20), 2**20))])
        tokens.append([str(Fraction(int(rng.integers(-2**19, 2**19)), 2**20)),
                       str(Fraction(int(rng.integers(-2**19, 2**19)), 2**20))])
        try:
            configs.append(_config(f"near_tie_{seed}_{index}", tokens))
        except ValueError:  # a rare duplicate or zero token after rounding: skip it
            continue
    return configs


# ---------------------------------------------------------------------------------------------
# The checks. Each returns the detections of one engine.

def _crash(check: str, configuration: str, error: BaseException) -> Detection:
    where = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
    at = f" at {where.filename.rsplit('/', 1)[-1]}:{where.lineno}" if where else ""
    return Detection(check, configuration, f"crashed: {type(error).__name__}: {error}{at}", crashed=True)


def check_known_answers(dynamics: ExactDynamics) -> list[Detection]:
    """Every known exact answer of :data:`KNOWN_ANSWERS` against ``dynamics``."""
    found: list[Detection] = []
    for known in KNOWN_ANSWERS:
        try:
            wrong = known.disagreements(dynamics)
        except Exception as error:  # a crash on a known answer is a detection, with its reason
            found.append(_crash(f"known:{known.name}", known.name, error))
            continue
        if wrong:
            more = f" (+{len(wrong) - 1} more)" if len(wrong) > 1 else ""
            found.append(Detection(f"known:{known.name}", known.name, wrong[0] + more))
    return found


def _verdicts(report: Any) -> list[Any]:
    verdicts = report.verdicts
    return list(verdicts.values()) if isinstance(verdicts, dict) else list(verdicts)


def check_claims(dynamics: ExactDynamics, configs: Sequence[Configuration], *, layer_budget: int,
                 prefix: str = "claim") -> list[Detection]:
    """:func:`verify.claims.check_configuration` with ``dynamics`` injected; failed verdicts are detections."""
    found: list[Detection] = []
    for config in configs:
        name = config.name or "unnamed"
        try:
            report = check_configuration(config, layer_budget=layer_budget, dynamics=dynamics)
        except Exception as error:
            found.append(_crash(f"{prefix}:crash", name, error))
            continue
        for verdict in _verdicts(report):
            if verdict.status == "failed":
                found.append(Detection(f"{prefix}:{verdict.claim}", name, verdict.summary))
        found.extend(_certcheck(report, name))
    return found


def _certcheck(report: Any, name: str) -> list[Detection]:
    """The independent certificate checker (stdlib only, its own replay) on every certified verdict."""
    try:
        result = certcheck.check_report(report.to_json_dict(), source=name)
    except Exception as error:
        return [_crash("certcheck:crash", name, error)]
    return [Detection(f"certcheck:{o.claim}", name, o.reason) for o in result.outcomes if o.status == "rejected"]


def _describe(config: Configuration) -> str:
    tokens = "; ".join(", ".join(rational_to_str(x) for x in t) for t in config.tokens)
    A = "" if config.A is None else " A=[" + "; ".join(", ".join(rational_to_str(x) for x in r) for r in config.A) + "]"
    return f"tokens [{tokens}] alpha {rational_to_str(config.alpha)}{A}"


def _property_strategies() -> dict[str, Any]:
    """The draws of the properties/ modules: every family, the persistent-tie families, and A != I.

    ``properties/`` calls the real engine directly; these are the same strategies with the
    claim checks' ``dynamics`` injected.
    """
    return {"configurations()": strategies.configurations(max_n=6),
            "configurations(ties)": strategies.configurations(family=TIE_FAMILIES, max_n=8),
            "configurations(A != I)": strategies.configurations(family=("dense_spd", "diagonal"), max_n=6, min_d=2)}


def check_properties(dynamics: ExactDynamics, *, profile: str, layer_budget: int) -> list[Detection]:
    """The claim checks on configurations drawn by the project's strategies (Hypothesis, ``profile``)."""
    found: list[Detection] = []
    for strategy_name, strategy in _property_strategies().items():
        witness: list[Detection] = []

        # No shrinking in ``ci``: the first failing example already proves the variant is caught,
        # and shrinking a wrong engine's failure costs more than the search itself.
        phases = (Phase.explicit, Phase.generate) if profile == "ci" else tuple(Phase)
        # A fixed seed (and derandomize in ci): the same profile gives the same table and JSON.
        @seed(0)
        @settings(settings.get_profile(profile), database=None, report_multiple_bugs=False, phases=phases,
                  verbosity=Verbosity.quiet)
        @given(config=strategy)
        def no_failed_verdict(config: Configuration) -> None:
            report = check_configuration(config, layer_budget=layer_budget, dynamics=dynamics)
            failed = [v for v in _verdicts(report) if v.status == "failed"]
            if failed:
                # Hypothesis runs this test within the loop iteration that defined it.
                witness[:] = [Detection(f"property:{v.claim}", f"{strategy_name}: {_describe(config)}",  # noqa: B023
                                        v.summary) for v in failed]
                raise AssertionError(failed[0].summary)

        try:
            no_failed_verdict()
        except AssertionError:
            # Hypothesis replays the shrunk example last, so ``witness`` holds the minimal one.
            found.extend(witness)
        except Exception as error:
            found.append(_crash("property:crash", strategy_name, error))
    return found


def _exact_final_and_leaders(config: Configuration, layers: int) -> tuple[list[tuple[Fraction, ...]], dict[int, int]]:
    leaders: dict[int, int] = {}
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A):
        for i in layer.leaders():
            leaders.setdefault(i, layer.index)
        if layer.index == layers:
            return layer.positions(), leaders
    raise AssertionError("unreachable")  # pragma: no cover


def stored_float_configuration(config: Configuration) -> Configuration:
    """The configuration a float engine actually runs: the rationals its float64 inputs store."""
    data: dict[str, Any] = {"name": config.name, "tokens": [[Fraction(float(x)) for x in t] for t in config.tokens],
                            "alpha": Fraction(float(config.alpha)), "outside_hypotheses": True}
    if config.A is not None:
        data["A"] = [[Fraction(float(x)) for x in row] for row in config.A]
    return parse_configuration(data)


def float_run_disagreements(simulate_batch: Callable[..., Any], config: Configuration, *,
                            layers: int = FLOAT_LAYERS) -> list[tuple[str, str]]:
    """Where a float engine presents something as decided, it must be exact: ``(check, detail)`` otherwise.

    The engine runs on the floats of ``config``; the exact engine on the rationals they store.
    Every leader the engine lists (it lists leaders only up to its first undecided layer) must
    lead first at the same layer in exact arithmetic, and every exact leader that leads before
    that layer must be listed. When no layer was undecided, every token's final position must
    be within the engine's bound for that token. An undecided run claims nothing more.
    """
    stored = stored_float_configuration(config)
    tokens = np.array([[float(x) for x in t] for t in stored.tokens])[None]
    A = None if stored.A is None else np.array([[float(x) for x in r] for r in stored.A])
    result = simulate_batch(tokens, alpha=float(stored.alpha), A=A, layers=layers)
    final, leaders = _exact_final_and_leaders(stored, layers)
    undecided = bool(result.undecided[0])
    trusted_until = int(result.first_undecided_layer[0]) if undecided else layers + 1
    float_leaders = {i: int(k) for i, k in enumerate(result.leader_layer[0]) if k >= 0}
    wrong = {i: k for i, k in float_leaders.items() if leaders.get(i) != k}
    missing = {i: k for i, k in leaders.items() if k < trusted_until and i not in float_leaders}
    if wrong or missing:
        return [("float:leaders", f"the run presents leaders {float_leaders} as decided "
                 f"({'up to layer ' + str(trusted_until) if undecided else 'all layers decided'}), exact {leaders}")]
    if undecided:
        return []
    for i in range(stored.n):
        bound = float(result.token_error_bound[0][i])
        error = max(abs(Fraction(float(result.final[0][i][c])) - final[i][c]) if np.isfinite(result.final[0][i][c])
                    else Fraction(10) ** 400 for c in range(stored.d))
        if not error <= Fraction(bound):
            return [("float:positions", f"decided run: token {i} is {float(error):.3g} from exact at layer {layers}, "
                     f"stated bound {bound:.3g}")]
    return []


def check_float_against_exact(simulate_batch: Callable[..., Any], configs: Sequence[Configuration], *,
                              layers: int = FLOAT_LAYERS) -> list[Detection]:
    """:func:`float_run_disagreements` over ``configs``: what the float engine presents as decided is exact.

    Undecided runs are the float engine admitting it cannot tell, which is allowed.
    """
    found: list[Detection] = []
    for config in configs:
        name = config.name or "unnamed"
        try:
            problems = float_run_disagreements(simulate_batch, config, layers=layers)
        except Exception as error:
            found.append(_crash("float:crash", name, error))
            continue
        found += [Detection(check, name, detail) for check, detail in problems]
    return found


def float_stress_set(count: int, seed: int = 0) -> list[Configuration]:
    """``count`` float-stress configurations (:func:`verify.strategies.float_stress_configuration`),
    the kinds in turn, seeded: exact ties, perturbed ties, overflow edge, tiny A, tiny tokens."""
    return [float_stress_configuration(seed * 100_000 + i, FLOAT_STRESS_KINDS[i % len(FLOAT_STRESS_KINDS)])
            for i in range(count)]


# ---------------------------------------------------------------------------------------------
# The runner.

def _exact_checks(profile: str) -> list[tuple[str, Callable[[ExactDynamics], list[Detection]]]]:
    budget = LAYER_BUDGET[profile]
    return [("known", check_known_answers),
            ("claims", lambda dyn: check_claims(dyn, CLAIM_CONFIGURATIONS, layer_budget=budget)),
            ("properties", lambda dyn: check_properties(dyn, profile=profile, layer_budget=budget))]


def run_selftest(*, profile: str = "ci", progress: Progress | None = None,
                 mutants: Sequence[Mutant] | None = None) -> SelfTestResult:
    """Baseline and every mutant through the suite. ``progress`` receives a line per step."""
    if profile not in LAYER_BUDGET:
        raise ValueError(f"profile: expected one of {sorted(LAYER_BUDGET)}, got {profile!r}")
    say = progress or (lambda _: None)
    exact_checks = _exact_checks(profile)
    near_ties = near_tie_configurations(count=RANDOM_NEAR_TIES[profile])
    stress = float_stress_set(FLOAT_STRESS[profile])

    def run(name: str, description: str, arithmetic: str, engine: Callable[..., Any]) -> VariantResult:
        result = VariantResult(name, description, arithmetic)
        start = time.perf_counter()
        if arithmetic == "exact":
            for check_name, check in exact_checks:
                say(f"{name}: {check_name}")
                result.checks_run.append(check_name)
                started = time.perf_counter()
                result.detections.extend(check(engine))
                result.check_seconds[check_name] = time.perf_counter() - started
        else:
            say(f"{name}: float vs exact")
            result.checks_run.append("float")
            result.detections.extend(check_float_against_exact(engine, near_ties))
            result.detections.extend(check_float_against_exact(engine, stress, layers=STRESS_LAYERS))
        result.seconds = time.perf_counter() - start
        return result

    baseline = [run("exact_layers (reference)", "the real exact engine", "exact", exact_layers),
                run("simulate_batch (reference)", "the real float engine", "float", float_dynamics.simulate_batch)]
    chosen = list(mutants) if mutants is not None else list(EXACT_MUTANTS + FLOAT_MUTANTS)
    variants = [run(m.name, m.description, m.arithmetic, m.engine) for m in chosen]
    return SelfTestResult(profile, baseline, variants)
