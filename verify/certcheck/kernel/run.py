"""One run, as a claims report or a results.json record states it: every verdict and everything else it says.

Every claim of the checker's table (:mod:`.claims`) must be present under its own name, and none
unknown; each verdict's status is judged (:mod:`.statuses`); then what the run states besides its
verdicts is compared with the replay: its combined status, settled and last layer, how it
stopped, its fates (the limits a report renders), the evidence of its certified verdicts, and
whether the configuration is outside the theorem's hypotheses (docs/theory.md §2, decided
exactly). :func:`check_report` checks a claims report, :func:`check_record` is the report
builder's hook for one record.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from typing import Any, NamedTuple

from .claims import CHECKS, RESTS_ON
from .closed_form import _run_chain
from .common import BadInput, CLAIM_ID, CheckResult, FORMAT, Outcome, Point, Rejected
from .estimate import replay_work, setup_work
from .fates import _fate_value, _is_leader
from .jsonvalues import brief_json, json_number, same_json
from .limits import DEFAULT_MAX_TOTAL_WORK, DEFAULT_MAX_WORK, MAX_DIMENSION, MAX_LAYER, RUN_OVERHEAD
from .meter import WorkLimit, charge, metered
from .model import Context, Fate, Model, model_of, models_cached
from .numbers import read_number, _text
from .report_schema import CLAIMS_REPORT, CONFIGURATION
from .schema import CHECKED, Obj
from .schema import problem as _schema_problem
from .statuses import Facts, combine_statuses, _verify, _without_routine, facts_of
from .falsity import VERIFIED as FALSITY_VERIFIED
from .similarity import STOPPED_BY, VERIFIED, stated_similarity


class Run(NamedTuple):
    """One configuration's run as a file states it (a claims report or a results.json record)."""

    source: str
    config: Any
    verdicts: Any
    last_layer: Any
    settled_layer: Any
    fates: Any = None          # the run's fates, token order ("unsettled" allowed); None: not stated
    status: Any = None         # the run's combined status; None: not stated
    stopped_by: Any = None
    layer_budget: Any = None
    time_budget: Any = None
    certcheck: Any = None      # a results.json record's own "certcheck" block
    outside_hypotheses: Any = None     # a claims report's top-level flag; None: not stated (records)
    hypothesis_violations: Any = None  # a claims report's list; None: not stated (records)
    problems: tuple = ()               # keys of the run the schema does not have, or lacks (report_schema)


# Fields a file states (a claims report all five, a record the first two): null would skip their comparison.
STATED_FIELDS = ("status", "stopped_by", "layer_budget", "outside_hypotheses", "hypothesis_violations")


def null_fields(data: Any, keys: tuple[str, ...]) -> str | None:
    """The problem with a run whose file holds null in one of ``keys`` (see STATED_FIELDS), or None."""
    null = [key for key in keys if isinstance(data, dict) and key in data and data[key] is None]
    return f"{', '.join(null)}: null, where the file must state {'it' if len(null) == 1 else 'them'}" if null else None


def shape_of(config: Any, where: str) -> tuple[int, int]:
    tokens = config.get("tokens") if isinstance(config, dict) else None
    if not (isinstance(tokens, list) and tokens and all(isinstance(t, list) and t for t in tokens)
            and len({len(t) for t in tokens}) == 1):
        raise BadInput(f"{where}.tokens", "expected a nonempty list of points of one dimension")
    return len(tokens), len(tokens[0])


def admit(runs: list, max_work: int, max_total_work: int) -> None:
    """Refuse, before any checking, a run whose last layer, dimension or estimated work is beyond the limits,
    and a file whose runs together are. Called under the file's meter (:func:`_checked`).

    First every configuration is read and what checking it costs before any layer is estimated from its
    size (:func:`.estimate.setup_work`: the eliminations of A and V), so that no elimination runs for a file
    whose configurations alone are beyond the limits; then each run's replay through its last layer."""
    shapes = []
    smallest = 0.0
    for index, run in enumerate(runs):
        # Every run costs RUN_OVERHEAD whatever its size (the meter charges it): 60,000 one-token records, 60 MB,
        # would otherwise be admitted and keep the checker busy for minutes after the meter stopped their checks.
        if (index + 1) * RUN_OVERHEAD > max_total_work:
            raise BadInput(f"{run.source}", f"checking the file's runs up to this one ({index + 1:,}, at least "
                                            f"{RUN_OVERHEAD:,} units each) is {(index + 1) * RUN_OVERHEAD:.3g} units of "
                                            f"work, more than the limit of {max_total_work:.3g} for one file (raise it "
                                            f"with --max-total-work)")
        last = run.last_layer
        if isinstance(last, bool) or not isinstance(last, int) or last < 0:
            raise BadInput(f"{run.source}.last_layer", f"expected a non-negative integer, got {str(last)[:40]}")
        if last > MAX_LAYER:
            raise BadInput(f"{run.source}.last_layer", f"{last} is beyond the checker's limit of {MAX_LAYER} layers")
        n, d = shape_of(run.config, f"{run.source}.config")
        if d > MAX_DIMENSION:
            raise BadInput(f"{run.source}.config.tokens", f"points of dimension {d}, beyond the checker's limit of "
                                                          f"{MAX_DIMENSION}")
        # The least its matrices can cost (numbers of one bit), before a number of them is read.
        smallest += setup_work(d, 1, A=run.config.get("A") is not None, V=run.config.get("V") is not None)
        _refuse_setup(run, d, smallest, max_total_work, "the file's configurations up to this one")
        shapes.append((n, d))
    setups = []
    total = 0.0
    for run, (n, d) in zip(runs, shapes):
        try:
            model = model_of(run.config)
        except WorkLimit as error:  # reading the configurations' numbers alone spent the file's allowance
            raise BadInput(f"{run.source}.config", str(error)) from None
        total += model.setup
        _refuse_setup(run, d, model.setup, max_work, "the configuration")
        _refuse_setup(run, d, total, max_total_work, "the file's configurations up to this one")
        setups.append((run, n, d, model))
    total = 0.0
    for run, n, d, model in setups:
        try:
            growth = model.growth
        except WorkLimit as error:  # the numbers of an inverse grew beyond every estimate: refused, not checked
            raise BadInput(f"{run.source}.config.V", str(error)) from None
        work = replay_work(n, d, run.last_layer, model.bits, growth, A=model.given_A, V=model.V is not None)
        if work > max_work:
            raise BadInput(f"{run.source}.last_layer",
                           f"replaying {n} tokens in d = {d} through layer {run.last_layer} is {work:.3g} units of work, "
                           f"more than the limit of {max_work:.3g} (raise it with --max-work)")
        total += work + RUN_OVERHEAD
        if total > max_total_work:
            raise BadInput(f"{run.source}.last_layer",
                           f"replaying the file's configurations up to this one is {total:.3g} units of work, more "
                           f"than the limit of {max_total_work:.3g} for one file (raise it with --max-total-work)")


def _refuse_setup(run: Run, d: int, work: float, limit: float, what: str) -> None:
    if work > limit:
        raise BadInput(f"{run.source}.config", f"checking {what} in d = {d} before any layer (the eliminations of "
                                               f"A and V, d^3 each) is {work:.3g} units of work, more than the limit "
                                               f"of {limit:.3g} (raise it with --max-work or --max-total-work)")


def check_run(run: Run) -> list[Outcome]:
    """Every verdict of one run, then everything the run states besides them (status, fates, layers);
    every claim of the run unsupported if the file's work allowance runs out on the way."""
    try:
        return _check_run_within_limits(run)
    except WorkLimit as error:
        claims = list(CHECKS) + sorted(set(run.verdicts) - set(CHECKS), key=str) if isinstance(run.verdicts, dict) \
            else list(CHECKS)
        return [Outcome(run.source, str(claim)[:40], "unsupported", str(error)) for claim in claims] + [
            Outcome(run.source, RUN, "unsupported", str(error))]


def _check_run_within_limits(run: Run) -> list[Outcome]:
    """Every verdict of one run and what the run states besides them (see :func:`check_run`)."""
    charge(RUN_OVERHEAD)
    source = run.source
    m = model_of(run.config)
    m.last = run.last_layer
    verdicts = run.verdicts
    if not isinstance(verdicts, dict):
        raise BadInput(f"{source}.verdicts", "expected an object keyed by claim id")
    if m.unsupported:
        return [Outcome(source, claim, "unsupported", m.unsupported) for claim in sorted(verdicts)]
    reading = _run_chain(verdicts, m)
    # Statuses are judged by the replay and a verified chain only: a chain beyond the checker's
    # limits never makes an inconclusive verdict a downgrade.
    facts = facts_of(m, run.last_layer, reading.chain)
    # Certificates and the run's statements are checked against the chain as it stands (verified,
    # or stated but beyond the limits); what rests on an unverified chain is then unsupported.
    stated = reading.chain or reading.stated
    ctx = Context(m, last_layer=run.last_layer, settled_layer=run.settled_layer, chain=stated,
                  unverified_chain=reading.beyond_limits)
    replay = verdicts.get("replay")
    replay_failed = isinstance(replay, dict) and replay.get("status") == "failed"
    outcomes = []
    for claim in CHECKS:
        if claim not in verdicts:
            outcomes.append(Outcome(source, claim, "rejected", f"claim {claim} is missing: every run decides all of "
                                    f"{', '.join(CHECKS)}"))
        else:
            outcomes.append(Outcome(source, claim, *_verify(claim, verdicts[claim], ctx, facts, replay_failed)))
    for claim in sorted(set(verdicts) - set(CHECKS), key=str):
        if not (isinstance(claim, str) and CLAIM_ID.fullmatch(claim)):
            outcomes.append(Outcome(source, str(claim)[:40], "rejected", f"unknown claim {str(claim)[:40]!r} "
                                    f"(the claims are {', '.join(CHECKS)})"))
        else:
            outcomes.append(Outcome(source, claim, *_without_routine(claim, verdicts[claim])))
    if reading.problem is not None:
        outcomes.append(Outcome(source, RUN, "rejected", reading.problem))
    problems = _run_problems(run, facts if stated is None else facts_of(m, run.last_layer, stated))
    for problem in problems:
        outcomes.append(Outcome(source, RUN, "rejected", problem))
    if reading.beyond_limits is not None and not problems:
        outcomes.append(Outcome(source, RUN, "unsupported", "the run's settled layer and fates rest on its closed-form "
                                f"chain (D9), which is beyond this checker's limits: {reading.beyond_limits}"))
    return outcomes


RUN = "(run)"  # outcomes about a run as a whole: status, fates, layers
SUMMARY = "(summary)"  # outcomes about a results.json's summary
HORIZON = 30  # a record's exact run is shown to layer max(HORIZON, layers_run) (verify/app/campaign/measure.py)


def _fate_entry(f: Fate | None, m: Model, token: int) -> dict:
    """A fate as the reports write it (token order, exact numbers as strings)."""
    if f is None:
        return {"token": token, "kind": "unsettled", "layer": None, "set": None, "limit": None}
    entry: dict = {"token": token, "kind": f.kind, "layer": f.layer, "set": sorted(f.set), "limit": [_text(x) for x in f.limit]}
    if f.kind == "locked":
        entry["value"] = _text(_fate_value(m, f))
    return entry


def hypothesis_violations(config: dict, m: Model) -> list[str]:
    """How the configuration is outside the theorem's hypotheses (docs/theory.md §2), decided exactly, in the
    words a claims report lists them (``field: message``, verify/core/config.py's ``hypothesis_violations``,
    typed here a second time; a test compares the two): a zero or repeated token, A not symmetric positive
    definite, a value matrix V, softmax attention (beta)."""
    tokens = m.layer(0)
    found = []
    first: dict[Point, int] = {}
    for i, z in enumerate(tokens):
        if not any(z):
            found.append(f"tokens[{i}]: token is the origin (the theorem needs nonzero tokens, docs/theory.md D4)")
        if z in first:
            found.append(f"tokens[{i}]: token equals tokens[{first[z]}] (the theorem needs distinct tokens, "
                         "docs/theory.md D5)")
        else:
            first[z] = i
    if config.get("A") is not None:
        if not m.A_symmetric:
            found.append("A: A is not symmetric (the theorem needs A symmetric positive definite)")
        elif not m.Asym_positive_definite:
            found.append("A: A is not positive definite: an exact LDL^T pivot is <= 0")
    if m.V is not None:
        found.append("V: a value matrix V is a variant of the theorem's model")
    if config.get("beta") is not None:
        found.append("beta: softmax attention (beta) is a variant of the theorem's hardmax model")
    return found


def _hypotheses_problems(run: Run, m: Model) -> list[str]:
    """A configuration outside the hypotheses must be recorded as such (its ``outside_hypotheses``),
    and a claims report's flag and list of violations must say what the configuration is."""
    violations = hypothesis_violations(run.config, m)
    flag = run.config.get("outside_hypotheses") is True
    problems = []
    if violations and not flag:
        problems.append(f"the configuration is outside the theorem's hypotheses ({'; '.join(violations)[:200]}), "
                        "but it does not record outside_hypotheses: true")
    if run.outside_hypotheses is not None and run.outside_hypotheses is not flag:
        problems.append(f"outside_hypotheses is {str(run.outside_hypotheses)[:20]}, the configuration's is {flag}")
    if run.hypothesis_violations is not None and run.hypothesis_violations != violations:
        problems.append(f"hypothesis_violations lists {brief_json(run.hypothesis_violations)}, the configuration "
                        + (f"violates the hypotheses by {brief_json(violations)}" if violations
                           else "satisfies the hypotheses"))
    return problems


def _run_problems(run: Run, facts: Facts) -> list[str]:
    """What a run states besides its verdicts, against the replay: settled and last layer, how it
    stopped, its combined status, its fates (the report's "exact limit" column reads them) and
    whether it is outside the theorem's hypotheses."""
    m, last = facts.model, run.last_layer
    problems = list(run.problems) + _hypotheses_problems(run, m)
    settled = run.settled_layer
    if settled != facts.settled or isinstance(settled, bool):
        problems.append(f"settled_layer is {str(settled)[:20]}, the replay settles "
                        f"{'at layer ' + str(facts.settled) if facts.settled is not None else 'at no layer'} "
                        f"of 0..{last}")
    elif settled is not None and last > settled + 1:
        problems.append(f"last_layer is {last}, but a run stops one layer after settling (layer {settled})")
    budget = run.layer_budget
    if budget is not None and not (isinstance(budget, int) and not isinstance(budget, bool) and budget >= 0):
        # An input of the run, not re-derived, but a number: another value would skip the two checks on it.
        problems.append(f"layer_budget is {brief_json(budget)[:30]}, expected a whole number of layers")
    seconds = json_number(run.time_budget)  # a decimal kept as its text (DecimalText) too, never a string
    if run.time_budget is not None and not (seconds is not None and 0 < seconds < float("inf")):
        problems.append(f"time_budget is {brief_json(run.time_budget)[:30]}, expected null or a positive number of "
                        "seconds")
    if isinstance(budget, int) and not isinstance(budget, bool) and last > budget:
        problems.append(f"last_layer {last} is beyond the layer budget {budget}")
    if run.stopped_by == STOPPED_BY:
        # docs/theory.md D11: the run stops at layer k + p of the failed T0 verdict's certificate, which must hold.
        similar = stated_similarity(run.verdicts, m)
        if similar is None or similar.end != last:
            problems.append(f"stopped_by is {STOPPED_BY!r}, but the T0 verdict carries no similarity certificate that "
                            f"holds with layer + period = last_layer {last}")
    elif run.stopped_by is not None:
        allowed = {"settled"} if facts.settled is not None else {"layer budget", "time budget", "work limit"}
        if not isinstance(run.stopped_by, str) or run.stopped_by not in allowed:  # a list is not hashable
            problems.append(f"stopped_by is {str(run.stopped_by)[:30]!r}, expected "
                            f"{' or '.join(repr(a) for a in sorted(allowed))}")
        elif run.stopped_by == "layer budget" and isinstance(budget, int) and last != budget:
            problems.append(f"stopped_by is 'layer budget', but last_layer {last} is not the budget {budget}")
        elif run.stopped_by == "time budget" and run.time_budget is None:
            problems.append("stopped_by is 'time budget', but the run had no time budget")
        elif run.stopped_by == "work limit" and replay_work(m.n, m.d, last + 1, m.bits, m.growth, A=m.given_A,
                                                            V=m.V is not None) <= DEFAULT_MAX_WORK:
            problems.append(f"stopped_by is 'work limit', but layer {last + 1} is within the default work limit")
    statuses = [v.get("status") for v in run.verdicts.values() if isinstance(v, dict)]
    if run.status is not None and run.status != combine_statuses(statuses):
        problems.append(f"status is {str(run.status)[:30]!r}, its verdicts combine to {combine_statuses(statuses)!r}")
    problems += _evidence_problems(run, facts)
    if run.fates is not None:
        expected = [_fate_entry(facts.fates.get(t), m, t) for t in range(m.n)]
        if not (isinstance(run.fates, list) and len(run.fates) == m.n):
            problems.append(f"fates: expected one entry per token ({m.n}), in token order")
        else:
            for t, (given, wanted) in enumerate(zip(run.fates, expected)):
                if not _same_fate(given, wanted):
                    problems.append(f"fates[{t}] is {_brief(given)}, the replay gives {_brief(wanted)}")
                    break
    return problems


def _evidence_problems(run: Run, facts: Facts) -> list[str]:
    """Everything a certified verdict's ``evidence`` states, against the replay: layers, leaders, the
    largest A-norm at layer 0, vertices, kinds of fate, non-vertex limits and their faces, whether A is
    symmetric positive definite, the hypotheses flag, and the facts the verdict rests on. Its ``summary``
    sentence is the engine's prose: reports do not show it, and certcheck does not read it (docs/certcheck.md)."""
    m = facts.model
    leading = [[i for i in range(m.n) if m.attention(k)[i] == {i}] for k in range(facts.last + 1)]
    first = next((k for k, found in enumerate(leading) if found), None)
    leader_fates = {t: f for t, f in facts.fates.items() if _is_leader(t, f)}
    kinds: dict = {}
    for f in facts.fates.values():
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    norms = [m.norm(0, i) for i in range(m.n)]
    leader_limits = {f.limit for f in leader_fates.values()}
    # D3 when some token leads, D7 for the fates it settles, D9 for the paths of a closed-form chain.
    used = ({"D3"} if leader_fates else set()) | ({"D7"} if set(kinds) & {"leader", "fixed", "locked"} else set()) | (
        {"D9"} if "path" in kinds else set())
    wanted_by_claim: dict[str, dict] = {
        "T0": {"first_layer": first, "leaders": leading[first] if first is not None else [],
               "largest_A_norm_tokens": [i for i in range(m.n) if norms[i] == max(norms)],
               "largest_A_norm_squared": max(norms)},
        # Every token that leads within the layers run, from its first leading layer (the T1 certificate's
        # list): also one whose closed-form path first leads after the chain's first layer.
        "T1": {"leaders": {str(i): next(k for k, found in enumerate(leading) if i in found)
                           for i in range(m.n) if any(i in found for found in leading)}},
        "T2": {"vertices": len(leader_limits)},
        "T3": {"kinds": {kind: kinds.get(kind, 0) for kind in ("leader", "fixed", "locked", "path")}},
        "T4": {"non_vertex_limits": len({f.limit for f in facts.fates.values() if f.limit not in leader_limits})},
        "D2": {"A_symmetric_positive_definite": m.A_symmetric and m.Asym_positive_definite},
    }
    outside = run.config.get("outside_hypotheses") is True
    problems = []
    for claim, verdict in run.verdicts.items():
        if not isinstance(verdict, dict) or not isinstance(verdict.get("evidence"), dict):
            continue  # the verdict's own form is judged with it (statuses, report_schema)
        evidence = verdict["evidence"]
        wanted: dict[str, Any] = {"last_layer": run.last_layer, "settled_layer": facts.settled, "outside_hypotheses": outside}
        if verdict.get("status") == "certified":
            wanted["rests_on"] = [fact for fact in RESTS_ON.get(claim, ()) if fact in used]
            wanted.update(wanted_by_claim.get(claim, {}))
            certificate = verdict.get("certificate")
            if claim == "T4" and isinstance(certificate, dict) and isinstance(certificate.get("projections"), list):
                # The faces the evidence names are those of the projections its (verified) certificate holds.
                wanted["faces"] = [e.get("face") if isinstance(e, dict) else None for e in certificate["projections"]]
        for key, value in wanted.items():
            if key in evidence and not _same_value(evidence[key], value):
                problems.append(f"verdicts.{str(claim)[:40]}.evidence.{key} is {brief_json(evidence[key])}, the replay "
                                f"gives {brief_json(_text(value) if isinstance(value, Fraction) else value)}")
    return problems[:3]


def _same_value(given: Any, wanted: Any) -> bool:
    """JSON equality, and for an exact number the same rational however it is written."""
    if isinstance(wanted, Fraction):
        try:
            return isinstance(given, str) and read_number(given, "evidence") == wanted
        except Rejected:
            return False
    return same_json(given, wanted)


def _same_entry(given: Any, wanted: Any) -> bool:
    """Equal and of the same JSON type: ``true`` is not the token or layer 1, nor ``1.0`` the layer 1."""
    if isinstance(wanted, list):
        return isinstance(given, list) and len(given) == len(wanted) and all(map(_same_entry, given, wanted))
    return type(given) is type(wanted) and given == wanted


def _same_fate(given: Any, wanted: dict) -> bool:
    if not isinstance(given, dict) or set(given) - {"token", "kind", "layer", "set", "limit", "value"}:
        return False
    if not all(_same_entry(given.get(key), wanted.get(key)) for key in ("token", "kind", "layer", "set")):
        return False
    if wanted["limit"] is None:
        return given.get("limit") is None and "value" not in given
    try:
        limit = given.get("limit")
        same_limit = isinstance(limit, list) and len(limit) == len(wanted["limit"]) and all(
            read_number(a, "limit") == read_number(b, "limit") for a, b in zip(limit, wanted["limit"]))
        same_value = ("value" not in wanted and "value" not in given) or (
            "value" in wanted and "value" in given and read_number(given["value"], "value") == read_number(wanted["value"], "value"))
    except Rejected:
        return False
    return same_limit and same_value


def _brief(fate: Any) -> str:
    if not isinstance(fate, dict):
        return str(fate)[:60]
    text = f"{fate.get('kind')} at layer {fate.get('layer')}"
    if fate.get("limit") is not None:
        text += f" -> ({', '.join(str(x)[:30] for x in fate['limit']) if isinstance(fate['limit'], list) else '?'})"
    return text[:200]


def check_report(data: dict, *, source: str = "report", max_work: int = None,  # type: ignore[assignment]
                 max_total_work: int = None) -> CheckResult:  # type: ignore[assignment]
    """Re-verify one claims report (format ``hardmax-verify/claims-v1``): every verdict and what the
    report states besides them (status, fates, settled and last layer).

    Raises
    ------
    BadInput
        When ``data`` is not a claims report, its configuration is malformed, or its replay would
        exceed ``max_work`` (default :data:`DEFAULT_MAX_WORK`).
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BadInput("format", f"expected {FORMAT!r}, got {str(data.get('format') if isinstance(data, dict) else data)[:60]!r}")
    config_problem = _schema_problem(data.get("config"), CONFIGURATION, "config")
    if config_problem is not None:
        field, _, why = config_problem.partition(": ")
        raise BadInput(f"{source}.{field}", why)
    # The report's own fields (its verdicts are judged one by one, each with its claim's schema).
    top = _schema_problem(data, Obj({**CLAIMS_REPORT.fields, "config": CHECKED, "verdicts": CHECKED}))
    run = Run(source, data.get("config"), data.get("verdicts"), data.get("last_layer"), data.get("settled_layer"),
              fates=data.get("fates"), status=data.get("status"), stopped_by=data.get("stopped_by"),
              layer_budget=data.get("layer_budget"), time_budget=data.get("time_budget"),
              outside_hypotheses=data.get("outside_hypotheses"),
              hypothesis_violations=data.get("hypothesis_violations"),
              problems=tuple(p for p in (top, null_fields(data, STATED_FIELDS)) if p is not None))
    total = DEFAULT_MAX_TOTAL_WORK if max_total_work is None else max_total_work
    with models_cached(), metered(total) as meter:
        admit([run], DEFAULT_MAX_WORK if max_work is None else max_work, total)
        result = CheckResult(check_run(run))
        result.work = meter[1] - meter[0]
        # A failed T0 whose similarity certificate holds (docs/theory.md D11), or a failed D2 or T3 whose counterexample
        # holds on the replay (falsity.py), is a checked certificate of falsity.
        result.certificates_of_falsity = sum(o.status == "failed" and o.reason.startswith((VERIFIED, FALSITY_VERIFIED))
                                             for o in result.outcomes)
        return result


def check_record(configuration: dict, verdicts: dict, *, last_layer: int, settled_layer: int | None,
                 fates: list | None = None, status: str | None = None, stopped_by: str | None = None,
                 layer_budget: int | None = None, time_budget: float | None = None) -> dict[str, dict[str, Any]]:
    """The report builder's hook: ``{claim: {"ok": bool, "status": str, "reason": str}}`` for one record.

    Every claim of the record gets an entry (its verdict's outcome); problems with the record
    as a whole (status, fates, layers) come under the key ``"(run)"`` with ``ok`` False.
    No work limit is applied: the suite itself produced the record.
    """
    run = Run("record", configuration, verdicts, last_layer, settled_layer, fates=fates, status=status,
              stopped_by=stopped_by, layer_budget=layer_budget, time_budget=time_budget)
    with models_cached():
        admit([run], sys.maxsize, sys.maxsize)
        outcomes = check_run(run)
    result: dict[str, dict[str, Any]] = {}
    for o in outcomes:
        if o.claim in result:  # several problems with the run: keep the first
            continue
        result[o.claim] = {"ok": o.status in ("verified", "inconclusive"), "status": o.status, "reason": o.reason}
    return result
