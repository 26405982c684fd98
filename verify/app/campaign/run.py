"""Running one task: check every claim on its configuration and shape the JSON-ready record.

The record holds the configuration, a verdict per claim (decided exactly by
:func:`verify.claims.check_configuration`), leaders and locking layers (the fates), the
exact-versus-float comparison, denominator sizes and the convergence series (measured, see
:mod:`verify.app.campaign.measure`), the independent checker's recheck and, for a failed claim, a
shrunk counterexample. The record depends on the task only.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from verify.claims import check_configuration
from verify.core import geometry
from .measure import HORIZON, convergence_series, exact_run, float_comparison
from .recheck import recheck_certificates
from .records import claim_record
from .shrink import shrink_counterexample
from .tasks import Task, build_configuration

__all__ = ["Checker", "run_task"]

Checker = Callable[..., Any]  # check_configuration(config, *, layer_budget) -> ClaimReport


def run_task(task: Task, *, checker: Checker | None = None, timings: dict[str, float] | None = None) -> dict[str, Any]:
    """Check every claim on the task's configuration and return its JSON-ready record.

    Deterministic: the record depends on the task only. ``checker`` replaces
    :func:`verify.claims.check_configuration` (tests inject failing checkers through it).
    ``timings``, when given, receives the wall time of the claim checks (``"claim_checks"``,
    seconds), which is kept out of the record.
    """
    check = checker or check_configuration
    config = build_configuration(task)
    if checker is None:
        # The T4 cross-check imports its solver on first use: import it before the clock starts, so that
        # the claim checks' time is the checking, not a worker's one-off import.
        geometry.load_solver()
    started = time.perf_counter()
    report = check(config, **task.budgets())
    if timings is not None:
        timings["claim_checks"] = time.perf_counter() - started
    record: dict[str, Any] = {"task": task.describe(), "configuration": config.to_json_dict()}
    record.update(claim_record(report))
    # The claim checks stop one layer after every token is settled (often layer 1 or 2); the
    # figures want a longer view, so the exact engine is run on to a fixed horizon.
    horizon = max(HORIZON, record["layers_run"])
    if checker is None and report.run is not None:  # the real engine: continued where the claim checks paused it
        layers = report.run.layers_through(horizon)
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
