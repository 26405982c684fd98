"""The claim conformance kit: what every registered claim must provide, and what its check must survive.

The idea of Hypothesis's ``provider_conformance`` suite for backends, for claims: a claim of the
registry conforms when

* its **record** is complete: a one-line statement, a kind, a role, the command that reproduces a
  counterexample, a property module; a claim check also names what a certified verdict assumes,
  its certificate routine and its check, and rests only on proved facts;
* its **module** ``verify/claims/<id>.py`` registers exactly that record as ``CLAIM``, and a claim
  check's function is that module's ``check_<id>``;
* its **property module** ``properties/<property_module>.py`` exists and names the claim;
* a claim check has its **checker routine** ``check_<key>`` in its own module
  ``verify/certcheck/kernel/claims/<key>.py`` (``key`` its certificate key), listed under that key in
  the checker's own table ``verify.certcheck.CHECKS``;
* **docs/claims.md** names it: a claim check has a row in the table of claim checks
  (``| <id> |``), an assertion is named in the text;
* its **check keeps the verdict contract** of :mod:`verify.claims.verdicts` on every run of
  :func:`conformance_runs` (the worked configurations, a tie family, an outside-hypotheses
  configuration, a run stopped by its layer budget): it returns a ``Verdict`` of its own id with
  a known status and a one-line summary, a certificate exactly when certified, evidence and
  certificate that JSON writes without NaN, exact numbers as text in the certificate (no float),
  the same verdict when run twice; and every certificate it issues is **re-verified** by the
  independent checker.

Each ``*_problems`` function returns what is wrong (an empty list: conforms), so the kit runs on
a toy claim as on the built-in ones, and ``tests/meta/test_claim_conformance.py`` shows that it
catches a claim that breaks each rule.
"""

from __future__ import annotations

import functools
import importlib
import json
import re
from pathlib import Path
from typing import Any, Callable, Sequence

from verify import certcheck
from verify.claims import ClaimRun, check_configuration, registry, run_configuration
from verify.claims.verdicts import STATUSES, Verdict
from verify.core.config import Configuration, make_configuration
from verify.core.families import generate
from verify.core.worked import WORKED_CONFIGURATIONS

REPOSITORY = Path(__file__).resolve().parents[2]
CONFORMANCE_BUDGET = 60


def _repository_of(root: Path | None) -> Path:
    return REPOSITORY if root is None else root


# --------------------------------------------------------------------------- what the claim provides


def record_problems(claim: registry.Claim) -> list[str]:
    """Every field of the record filled as its kind requires."""
    problems = []
    if not claim.statement.strip() or "\n" in claim.statement:
        problems.append("the statement must be one non-empty line")
    if claim.role not in registry.ROLES:
        problems.append(f"role {claim.role!r} is not one of {registry.ROLES}")
    if claim.reproduce not in ("check", "simulate"):
        problems.append(f"reproduce {claim.reproduce!r} is not a command that re-decides a counterexample")
    if not re.fullmatch(r"test_\w+", claim.property_module):
        problems.append(f"property module {claim.property_module!r} is not a test module name")
    unknown = set(claim.rests_on) - set(registry.PROVED_FACTS)
    if unknown:
        problems.append(f"rests on {sorted(unknown)}, which are not proved facts")
    if claim.kind == "check":
        if not callable(claim.check):
            problems.append("a claim check needs its check function")
        if not claim.certificate:
            problems.append("a claim check names the checker routine that re-verifies its certificate")
        if not claim.assumption.strip() or "\n" in claim.assumption:
            problems.append("a claim check says in one line what a certified verdict assumes")
        if claim.reproduce != "check":
            problems.append("a claim check's counterexample is re-decided by `check`")
    elif claim.check is not None or claim.certificate is not None:
        problems.append("a testing assertion has no check and no certificate")
    return problems


def module_problems(claim: registry.Claim) -> list[str]:
    """``verify/claims/<id>.py`` registers this very record as ``CLAIM``, with its ``check_<id>``."""
    try:
        module = importlib.import_module(f"verify.claims.{claim.id}")
    except ImportError as error:
        return [f"no module verify/claims/{claim.id}.py ({error})"]
    problems = []
    if getattr(module, "CLAIM", None) is not claim:
        problems.append(f"verify/claims/{claim.id}.py does not hold the registered record as CLAIM")
    if not (module.__doc__ or "").strip():
        problems.append(f"verify/claims/{claim.id}.py has no docstring stating the claim")
    if claim.kind == "check" and claim.check is not getattr(module, f"check_{claim.id}", None):
        problems.append(f"the registered check is not check_{claim.id} of verify/claims/{claim.id}.py")
    return problems


def property_problems(claim: registry.Claim, *, root: Path | None = None) -> list[str]:
    """``properties/<property_module>.py`` exists and names the claim."""
    path = _repository_of(root) / "properties" / f"{claim.property_module}.py"
    if not path.is_file():
        return [f"no property module properties/{path.name}"]
    if not re.search(rf"(?<![\w.]){re.escape(claim.id)}(?!\w)", path.read_text(encoding="utf-8")):
        return [f"properties/{path.name} never names claim {claim.id}"]
    return []


def checker_problems(claim: registry.Claim, *, routines: dict[str, Any] | None = None) -> list[str]:
    """A claim check's certificate key is a routine of the independent checker: ``check_<key>`` of its module
    ``verify/certcheck/kernel/claims/<key>.py``, in the checker's table under that key."""
    routines = certcheck.CHECKS if routines is None else routines
    if claim.kind != "check":
        return []
    key = claim.certificate
    if key not in routines:
        return [f"the independent checker has no routine {key!r} (verify.certcheck.CHECKS)"]
    try:
        module = importlib.import_module(f"verify.certcheck.kernel.claims.{key}")
    except ImportError as error:
        return [f"no checker module verify/certcheck/kernel/claims/{key}.py ({error})"]
    problems = []
    if routines[key] is not getattr(module, f"check_{key}", None):
        problems.append(f"the checker's routine {key!r} is not check_{key} of verify/certcheck/kernel/claims/{key}.py")
    if not (module.__doc__ or "").strip():
        problems.append(f"verify/certcheck/kernel/claims/{key}.py has no docstring saying what it checks")
    return problems


def docs_problems(claim: registry.Claim, *, root: Path | None = None) -> list[str]:
    """docs/claims.md has the claim check's table row, or names the assertion."""
    text = (_repository_of(root) / "docs" / "claims.md").read_text(encoding="utf-8")
    if claim.kind == "check":
        if not re.search(rf"^\| {re.escape(claim.id)} \|", text, re.M):
            return [f"docs/claims.md has no row `| {claim.id} |` in its table of claim checks"]
    elif not re.search(rf"(?<![\w.]){re.escape(claim.id)}(?!\w)", text):
        return [f"docs/claims.md never names the testing assertion {claim.id}"]
    return []


# --------------------------------------------------------------------------- what its check survives


def _conformance_configurations() -> list[tuple[str, Configuration, dict[str, Any]]]:
    """(name, configuration, run options): every worked row, ties, duplicates outside the hypotheses, a spent budget."""
    cases: list[tuple[str, Configuration, dict[str, Any]]] = [
        (name, config, {"layer_budget": CONFORMANCE_BUDGET}) for name, config in WORKED_CONFIGURATIONS.items()]
    cases.append(("mirror_ties", generate("mirror_ties", 0, n=6, d=2), {"layer_budget": CONFORMANCE_BUDGET}))
    cases.append(("duplicates outside the hypotheses",
                  make_configuration([[1, 0], [1, 0], [0, 1], ["-1/2", "1/3"]], alpha="1/2", outside_hypotheses=True),
                  {"layer_budget": CONFORMANCE_BUDGET}))
    # D7 settles this one at layer 4 (with D9 earlier): two layers of D7 alone leave tokens unsettled.
    slow = make_configuration([["0", "1/2"], ["9/10", "-1"], ["-7/10", "7/10"], ["9/10", "-1/2"], ["-2/5", "4/5"]],
                              alpha="1/5")
    cases.append(("a spent layer budget", slow, {"layer_budget": 2, "closed_form_search": False}))
    return cases


@functools.cache
def conformance_runs() -> tuple[tuple[str, ClaimRun], ...]:
    """The runs every claim check is tried on (computed once per process)."""
    return tuple((name, run_configuration(config, **options)) for name, config, options in _conformance_configurations())


@functools.cache
def _checked_reports(claim_ids: tuple[str, ...]) -> tuple[tuple[str, dict[str, Any], dict[str, tuple[str, str]]], ...]:
    """For each conformance configuration: its claims report and the checker's outcome per claim.

    Computed once per set of registered claim checks (``claim_ids``: a toy claim registered by a
    test changes the reports).
    """
    out = []
    for name, config, options in _conformance_configurations():
        report = check_configuration(config, cross_check=False, **options).to_json_dict()
        result = certcheck.check_report(json.loads(json.dumps(report)))
        out.append((name, report, {o.claim: (o.status, o.reason) for o in result.outcomes}))
    return tuple(out)


def _floats_in(value: Any, path: str = "") -> list[str]:
    if isinstance(value, float):
        return [path or "(top)"]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _floats_in(v, f"{path}.{k}")]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in _floats_in(v, f"{path}[{i}]")]
    return []


def verdict_problems(claim: registry.Claim, runs: Sequence[tuple[str, ClaimRun]] | None = None) -> list[str]:
    """The check keeps the verdict contract of verify.claims.verdicts on every conformance run."""
    if claim.kind != "check" or claim.check is None:
        return []
    check: Callable[[ClaimRun], Any] = claim.check
    problems = []
    for name, run in conformance_runs() if runs is None else runs:
        where = f"{claim.id} on {name}"
        try:
            verdict = check(run)
            again = check(run)
        except Exception as error:  # noqa: BLE001 - any exception is a finding here
            problems.append(f"{where}: the check raised {type(error).__name__}: {error}")
            continue
        if not isinstance(verdict, Verdict):
            problems.append(f"{where}: returned {type(verdict).__name__}, not a Verdict")
            continue
        if verdict.claim != claim.id:
            problems.append(f"{where}: the verdict is for claim {verdict.claim!r}")
        if verdict.status not in STATUSES:
            problems.append(f"{where}: status {verdict.status!r} is not one of {STATUSES}")
        if not verdict.summary.strip() or "\n" in verdict.summary:
            problems.append(f"{where}: the summary must be one non-empty line")
        if (verdict.certificate is not None) != (verdict.status == "certified"):
            problems.append(f"{where}: a certificate must be present exactly when certified ({verdict.status})")
        try:
            text = json.dumps(verdict.to_json_dict(), allow_nan=False, sort_keys=True)
        except (TypeError, ValueError) as error:
            problems.append(f"{where}: the verdict is not plain JSON ({error})")
            continue
        floats = _floats_in(verdict.certificate or {})
        if floats:
            problems.append(f"{where}: the certificate holds floats at {floats[:3]}: exact numbers are 'p/q' text")
        if not isinstance(again, Verdict) or json.dumps(again.to_json_dict(), sort_keys=True) != text:
            problems.append(f"{where}: a second run of the check gave another verdict")
    return problems


def recheck_problems(claim: registry.Claim) -> list[str]:
    """Every certificate the claim issues on the conformance configurations is re-verified independently."""
    if claim.kind != "check":
        return []
    problems = []
    for name, report, outcomes in _checked_reports(registry.verdict_ids()):
        verdict = report["verdicts"].get(claim.id)
        if verdict is None:
            problems.append(f"{claim.id} on {name}: check_configuration decided no verdict for it")
            continue
        status, reason = outcomes.get(claim.id, ("missing", "no outcome"))
        expected = {"certified": "verified", "failed": "failed", "inconclusive": "inconclusive"}[verdict["status"]]
        if status != expected:
            problems.append(f"{claim.id} on {name}: {verdict['status']} verdict, the checker says {status}: {reason}")
    return problems


def problems(claim: registry.Claim, *, root: Path | None = None) -> list[str]:
    """Everything the kit finds wrong with ``claim`` (an empty list: it conforms)."""
    return (record_problems(claim) + module_problems(claim) + property_problems(claim, root=root)
            + checker_problems(claim) + docs_problems(claim, root=root) + verdict_problems(claim)
            + recheck_problems(claim))
