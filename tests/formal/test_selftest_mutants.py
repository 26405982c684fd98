"""The self-test's wrong dynamics, exported as statements about the true model, are rejected by the kernel.

Each exact mutant of verify/app/selftest/mutants.py computes wrong layers; the fates and the
last layer it finds are written as a certificate (as if the suite had certified them) and given
to Coq's kernel, which evaluates the model of formal/Statement.v and must reject every one whose
trajectory differs from the true one.
"""

from __future__ import annotations

from typing import Any

from verify.app.selftest.mutants import EXACT_MUTANTS
from verify.app.selftest.runner import CLAIM_CONFIGURATIONS
from verify.claims import check_configuration
from verify.core.exact_dynamics import exact_layers
from verify.core.text import rational_to_str
from verify.formal.kernel import check_tasks
from verify.formal.tasks import REJECTED, plan_record


def _forged(config: Any, dynamics: Any) -> dict[str, Any] | None:
    """The claims report the mutant's layers give, every claim called certified; None if a token is unsettled."""
    report = check_configuration(config, dynamics=dynamics, cross_check=False, closed_form_search=False)
    record = report.to_json_dict()
    if any(f["kind"] not in ("leader", "fixed", "locked") for f in record["fates"]):
        return None
    last = report.layers[-1]
    record["verdicts"] = {c: {"status": "certified"} for c in ("T0", "T1", "D1", "D3")}
    record["verdicts"]["replay"] = {"status": "certified", "certificate": {
        "last_layer": report.layers_run, "final_positions": [[rational_to_str(x) for x in p] for p in last.positions()]}}
    return record


def _differs(config: Any, dynamics: Any, layers: int) -> bool:
    true, wrong = exact_layers(config.tokens, alpha=config.alpha, A=config.A), dynamics(config.tokens, alpha=config.alpha, A=config.A)
    return any(next(true).positions() != next(wrong).positions() for _ in range(layers + 1))


def test_every_mutant_statement_is_rejected() -> None:
    tasks, expected = [], {}
    for mutant in EXACT_MUTANTS:
        for config in CLAIM_CONFIGURATIONS:  # the self-test's own: the worked rows, ties, A != I
            name = config.name
            record = _forged(config, mutant.engine)
            if record is None or not _differs(config, mutant.engine, record["last_layer"]):
                continue
            label = f"{mutant.name}/{name}"
            tasks.append(plan_record(record, label).task)
            expected.setdefault(mutant.name, []).append(label)
    assert set(expected) == {m.name for m in EXACT_MUTANTS}, "a mutant produced no statement to reject"
    run = check_tasks(tasks, jobs=2)
    assert {label: v.summary for label, v in run.verdicts.items()} == {t.name: REJECTED for t in tasks}
    assert all("outcome" in v.rejected for v in run.verdicts.values())
