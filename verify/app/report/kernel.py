"""The report's kernel pass: the campaign's certificates checked by Coq's kernel (docs/formal.md).

The block it adds to results.json (``"kernel"``) says which Coq checked, against which statement
(formal/Statement.v and its sha256), how many configurations' certificates (D7 fates, D9 paths,
D11 similarities) the kernel checked, and per claim how many configurations are kernel-checked, rejected or not kernel-checked. It is deterministic
(its time goes to the environment block). Without coqc, or with ``--no-kernel``, the block says
the pass was skipped and why; the report is written either way.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from verify.core import formatting as fmt
from verify.core.exitcodes import CouldNotComplete
from verify.formal.library import CoqUnavailable
from verify.formal.prove import prove_records
from verify.formal.tasks import REJECTED

__all__ = ["kernel_block", "skipped_block", "kernel_sentence", "kernel_lines", "unchecked_shown", "KERNEL_KEY"]

KERNEL_KEY = "kernel"


def skipped_block(reason: str) -> dict[str, Any]:
    return {"status": "skipped", "reason": reason}


def kernel_block(records: Sequence[Mapping[str, Any]], *, jobs: int = 1) -> tuple[dict[str, Any], float]:
    """(the block, the kernel's seconds) for the campaign's records (errors left out)."""
    checked = [(str(r["task"]["name"]), r) for r in records if r.get("status") != "error"]
    try:
        result = prove_records(checked, jobs=jobs)
    except CoqUnavailable as error:
        return skipped_block(str(error)), 0.0
    except CouldNotComplete as error:
        return {"status": "not completed", "reason": str(error)}, 0.0
    reasons: dict[str, int] = {}
    rejected = []
    for label, claims, _ in result.records:
        why = sorted({o.reason for o in claims.values() if o.status == REJECTED})
        if why:  # one certificate per configuration
            rejected.append({"task": label, "reason": why[0]})
        for outcome in claims.values():
            if outcome.status not in (REJECTED, "kernel-checked"):
                reasons[outcome.reason] = reasons.get(outcome.reason, 0) + 1
    block = {
        "status": "rejected" if rejected else "checked",
        "coq_version": result.kernel.coq_version,
        "statement": "formal/Statement.v",
        "statement_sha256": result.kernel.statement_sha256,
        "configurations": len(checked),
        "certificates_kernel_checked": result.configurations_checked,
        "claims": result.counts(),
        "rejected": rejected,
        "not_kernel_checked": {reason: reasons[reason] for reason in sorted(reasons)},
        "unchecked_configurations": [{"task": label, "reason": why} for label, why in result.unchecked],
    }
    return block, result.kernel.seconds


def kernel_sentence(block: Mapping[str, Any] | None) -> str | None:
    """What the kernel pass did, in one sentence (None when the report has no kernel block)."""
    if not block:
        return None
    if block["status"] in ("skipped", "not completed"):
        return f"Coq's kernel did not check this report ({block['status']}: {block['reason']})"
    text = (f"{fmt.count(block['certificates_kernel_checked'])} of {fmt.counted(block['configurations'], 'configuration')}' "
            f"certificates (D7 fates, D9 paths, D11 similarities) checked by Coq's kernel (Coq {block['coq_version']}, "
            f"vm_compute; statement "
            f"{block['statement']}, sha256 {block['statement_sha256'][:16]}…)")
    if block["rejected"]:
        text += f"; the kernel REJECTED {fmt.counted(len(block['rejected']), 'certificate')}"
    return text


def kernel_lines(block: Mapping[str, Any] | None) -> list[str]:
    """The command line's summary lines about the kernel pass."""
    sentence = kernel_sentence(block)
    if sentence is None or block is None:
        return []
    return ([f"kernel: {sentence}"] + [f"kernel REJECTED {r['task']}: {r['reason']}" for r in block.get("rejected", [])]
            + [f"kernel: not kernel-checked {u['task']}: {u['reason']}" for u in unchecked_shown(block)])


SHOWN_UNCHECKED = 10   # configurations named in the summary and the report; results.json names them all


def unchecked_shown(block: Mapping[str, Any]) -> list[Mapping[str, str]]:
    """The first configurations the kernel did not check, to name (results.json has every one)."""
    unchecked = block.get("unchecked_configurations", [])
    return unchecked[:SHOWN_UNCHECKED] if isinstance(unchecked, list) else []
