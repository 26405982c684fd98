"""``prove``: every claim of a configuration, claims report or results.json, checked by Coq's kernel where formalised.

A configuration is first checked exactly (:func:`verify.claims.check_configuration`); its
report, a saved claims report, or each record of a results.json then goes through
:func:`verify.formal.tasks.plan_record` and the kernel (:func:`verify.formal.kernel.check_tasks`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable, Mapping

from verify.claims import check_configuration, registry
from verify.core import exitcodes
from verify.core.config import parse_configuration
from verify.core.io import atomic_write_text, read_json
from verify.core.limits import PROVE_MAX_BYTES
from verify.core.numbers import InputError

from .kernel import DEFAULT_TIME_LIMIT, KernelRun, check_tasks, standalone_text
from .tasks import KERNEL_CHECKED, NOT_KERNEL_CHECKED, REJECTED, ClaimOutcome, RecordPlan, plan_record

__all__ = ["FORMAT", "STATUSES", "ProveResult", "records_of", "prove_records", "prove_path"]

FORMAT = "hardmax-verify/prove-v1"
MAX_FILE_BYTES = PROVE_MAX_BYTES
STATUSES = (KERNEL_CHECKED, REJECTED, NOT_KERNEL_CHECKED)


@dataclass
class ProveResult:
    records: list[tuple[str, dict[str, ClaimOutcome], float | None]]   # label, claim outcomes, kernel seconds
    kernel: KernelRun
    certificates: int = 0   # D7/D9 or D11 certificates (one a configuration) the kernel checked
    outside: list[str] = field(default_factory=list)   # labels of configurations outside the hypotheses
    # (label, why) of every configuration neither kernel-checked nor rejected: no certificate, a time limit
    unchecked: list[tuple[str, str]] = field(default_factory=list)

    def counts(self) -> dict[str, dict[str, int]]:
        """claim -> status -> number of records."""
        table: dict[str, dict[str, int]] = {}
        for _, claims, _ in self.records:
            for claim, outcome in claims.items():
                row = table.setdefault(claim, {s: 0 for s in STATUSES})
                row[outcome.status] += 1
        order = {c: i for i, c in enumerate(registry.verdict_ids())}
        return {c: table[c] for c in sorted(table, key=lambda c: (order.get(c, len(order)), c))}

    @property
    def exit_status(self) -> int:
        statuses = {o.status for _, claims, _ in self.records for o in claims.values()}
        if REJECTED in statuses:
            return exitcodes.FALSE
        if NOT_KERNEL_CHECKED in statuses or not statuses:
            return exitcodes.INCONCLUSIVE
        return exitcodes.SUCCESS

    @property
    def configurations_checked(self) -> int:
        """Records whose D7/D9 certificate (or D11 similarity certificate) the kernel checked."""
        return self.certificates

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "status": {exitcodes.SUCCESS: KERNEL_CHECKED, exitcodes.FALSE: REJECTED}.get(self.exit_status,
                                                                                         NOT_KERNEL_CHECKED),
            "coq_version": self.kernel.coq_version,
            "statement": "formal/Statement.v",
            "statement_sha256": self.kernel.statement_sha256,
            "kernel_seconds": round(self.kernel.seconds, 3),
            "certificates_kernel_checked": self.configurations_checked,
            "counts": self.counts(),
            "unchecked_configurations": [{"label": label, "reason": why} for label, why in self.unchecked],
            "records": [{"label": label, **({"outside_hypotheses": True} if label in self.outside else {}),
                         "kernel_seconds": None if s is None else round(s, 3),
                         "claims": {c: {"status": o.status, "reason": o.reason} for c, o in claims.items()}}
                        for label, claims, s in self.records],
            **({"outside_hypotheses": True} if self.outside else {}),
        }


def _label(record: Mapping[str, Any], fallback: str) -> str:
    config = record.get("configuration", record.get("config"))
    name = config.get("name") if isinstance(config, Mapping) else None
    return f"{name} ({fallback})" if isinstance(name, str) and name else fallback


def records_of(data: Any, source: str) -> list[tuple[str, Mapping[str, Any]]]:
    """The (label, record) pairs of a claims report or a results.json (raises InputError otherwise)."""
    if isinstance(data, Mapping) and data.get("format") == "hardmax-verify/claims-v1":
        return [(_label(data, source), data)]
    if isinstance(data, Mapping) and data.get("schema") == "hardmax-verify/results":
        out = []
        for key in ("examples", "counterexamples"):
            items = data.get(key, [])
            if not isinstance(items, list):
                raise InputError(key, "expected a list of records")
            out += [(_label(r, f"{key}[{i}]"), r) for i, r in enumerate(items)]
        return out
    raise InputError(source, "expected a configuration, a claims report (check --json) or a results.json")


def write_coq_files(plans: list[RecordPlan], folder: Path) -> list[Path]:
    """One .v file per configuration the kernel checks, to re-run by hand (docs/formal.md)."""
    written = []
    used: set[str] = set()
    for plan in plans:
        if plan.task is None:
            continue
        # coqc names the module after the file: letters, digits and _ only, a letter first.
        name = re.sub(r"[^A-Za-z0-9_]+", "_", plan.label).strip("_")[:80] or "configuration"
        if not name[0].isalpha():
            name = "c_" + name
        while name in used:
            name += "_"
        used.add(name)
        written.append(atomic_write_text(folder / f"{name}.v", standalone_text(plan.task, plan.label)))
    return written


def _distinct(labels: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return out


def prove_records(records: list[tuple[str, Mapping[str, Any]]], *, jobs: int = 1,
                  time_limit: float = DEFAULT_TIME_LIMIT,
                  progress: Callable[[int, int], None] | None = None, write_coq: Path | None = None) -> ProveResult:
    labels = _distinct([label for label, _ in records])
    plans: list[RecordPlan] = [plan_record(record, label) for label, (_, record) in zip(labels, records)]
    outside = [label for label, (_, record) in zip(labels, records) if _outside(record)]
    if write_coq is not None:
        write_coq_files(plans, write_coq)
    kernel = check_tasks([p.task for p in plans if p.task is not None], jobs=jobs, time_limit=time_limit,
                         progress=progress)
    out: list[tuple[str, dict[str, ClaimOutcome], float | None]] = []
    certificates = 0
    unchecked: list[tuple[str, str]] = []
    for plan in plans:
        if plan.task is None:
            claims = plan.resolve(NOT_KERNEL_CHECKED, "")
            out.append((plan.label, claims, None))
            unchecked.append((plan.label, _why_not(claims)))
            continue
        verdict = kernel.verdicts[plan.task.name]
        claims = plan.resolve(verdict.status, verdict.reason, verdict.rejected)
        out.append((plan.label, claims, verdict.seconds))
        if verdict.status == KERNEL_CHECKED and (
                (plan.task.outcome and "outcome" not in verdict.rejected)
                or (plan.task.similarity is not None and "no_leader" not in verdict.rejected)):
            certificates += 1
        elif not any(o.status == REJECTED for o in claims.values()):
            unchecked.append((plan.label, verdict.reason if verdict.status != KERNEL_CHECKED else _why_not(claims)))
    return ProveResult(out, kernel, certificates, outside, unchecked)


def _why_not(claims: Mapping[str, ClaimOutcome]) -> str:
    """Why a configuration's certificate was not kernel-checked: T0's reason, else the first claim's."""
    reasons = [o.reason for c, o in sorted(claims.items(), key=lambda item: item[0] != "T0")
               if o.status == NOT_KERNEL_CHECKED and o.reason]
    return reasons[0] if reasons else "no certificate the kernel can check"


def _outside(record: Mapping[str, Any]) -> bool:
    config = record.get("config", record.get("configuration"))
    return isinstance(config, Mapping) and config.get("outside_hypotheses") is True


def prove_path(path: Path, *, outside_hypotheses: bool = False, layer_budget: int = 200, jobs: int = 1,
               time_limit: float = DEFAULT_TIME_LIMIT, progress: Callable[[int, int], None] | None = None,
               write_coq: Path | None = None) -> ProveResult:
    # Numbers as written: a configuration's 0.1 is exactly 1/10, as for every command.
    data = read_json(path, expected="a configuration, a claims report or a results.json", limit=MAX_FILE_BYTES,
                     parse_float=Decimal)
    if isinstance(data, Mapping) and "tokens" in data:
        config = parse_configuration(data, outside_hypotheses=outside_hypotheses, source=path.name)
        report = check_configuration(config, layer_budget=layer_budget, cross_check=False)
        records: list[tuple[str, Mapping[str, Any]]] = [(config.name or path.name, report.to_json_dict())]
    else:
        records = records_of(data, path.name)
    return prove_records(records, jobs=jobs, time_limit=time_limit, progress=progress, write_coq=write_coq)
