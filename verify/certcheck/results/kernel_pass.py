"""A results.json's ``kernel`` block (Coq's kernel pass, docs/formal.md): held to the records, not re-derived.

This checker cannot run Coq. It checks what it can: the block's keys, that its counts are whole
numbers over the configurations the file holds, that no claim is kernel-checked on more
configurations than the file decides it on (certifies it, or, for T0, finds it failed with a D11
similarity certificate, whose failure the kernel proves), that only the formalised claims count as
kernel-checked, and that the rejected certificates and the configurations left unchecked name tasks of
the file (every configuration is one of kernel-checked, rejected or named as unchecked). Whether the kernel
accepted each certificate is Coq's verdict: ``hardmax-verify prove results.json`` runs it again.
"""

from __future__ import annotations

import re
from typing import Any

from ..kernel import Outcome

KERNEL = "(kernel)"
STATUSES = ("kernel-checked", "rejected", "not kernel-checked")
FORMALISED = ("T0", "T1", "T2", "T3", "T4", "D1", "D2", "D3", "replay")   # the claims formal/ proves
KEYS = {"checked": {"status", "coq_version", "statement", "statement_sha256", "configurations",
                    "certificates_kernel_checked", "claims", "rejected", "not_kernel_checked",
                    "unchecked_configurations"},
        "skipped": {"status", "reason"}, "not completed": {"status", "reason"}}
NOT_RE_DERIVED = "the kernel's verdicts are Coq's, not re-derived here (hardmax-verify prove re-runs them)"


def kernel_outcomes(data: dict, source: str) -> list[Outcome]:
    if "kernel" not in data:
        return []
    where = f"{source}.kernel"
    block = data["kernel"]
    if not isinstance(block, dict):
        return [Outcome(where, KERNEL, "rejected", "expected an object")]
    status = block.get("status")
    # Any JSON value: a list or an object is not hashable.
    allowed = KEYS.get("checked" if status == "rejected" else status) if isinstance(status, str) else None
    if allowed is None:
        return [Outcome(where, KERNEL, "rejected", f"status {str(status)[:30]!r} is not one of checked, rejected, "
                                                   "skipped, not completed")]
    unknown = sorted(str(k) for k in block if k not in allowed)
    missing = sorted(allowed - set(block))
    if unknown or missing:
        return [Outcome(where, KERNEL, "rejected", f"keys: {unknown[:3]} not allowed, {missing[:3]} missing")]
    if status in ("skipped", "not completed"):
        # A pass that did not run states nothing to verify (and is never counted as a verified certificate).
        ok = isinstance(block["reason"], str) and block["reason"]
        return [] if ok else [Outcome(where, KERNEL, "rejected", "expected the reason as text")]
    problems = _problems(data, block)
    if problems:
        return [Outcome(where, KERNEL, "rejected", problems[0])]
    if status == "rejected":  # the file says Coq refused certificates it issued: a false statement, passed on
        tasks = ", ".join(str(r["task"])[:60] for r in block["rejected"][:3])
        return [Outcome(where, KERNEL, "failed", f"the file records that Coq's kernel rejected "
                                                 f"{len(block['rejected'])} certificate(s) ({tasks}); " + NOT_RE_DERIVED)]
    return [Outcome(where, KERNEL, "verified", "counts consistent with the records; " + NOT_RE_DERIVED)]


def _whole(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _decided(claim: str, verdict: dict) -> bool:
    """The file decides the claim: certified, or T0 failed with a D11 certificate (the kernel can prove that failure)."""
    if verdict.get("status") == "certified":
        return True
    evidence = verdict.get("evidence")
    return (claim == "T0" and verdict.get("status") == "failed" and isinstance(evidence, dict)
            and isinstance(evidence.get("similarity"), dict))


def _problems(data: dict, block: dict) -> list[str]:
    examples = [r for r in data.get("examples", []) if isinstance(r, dict) and r.get("status") != "error"]
    names = {str(r.get("task", {}).get("name")) for r in examples if isinstance(r.get("task"), dict)}
    n = len(examples)
    problems = []
    if not isinstance(block["statement_sha256"], str) or not re.fullmatch(r"[0-9a-f]{64}", block["statement_sha256"]):
        problems.append("statement_sha256 is not a sha256")
    if block["statement"] != "formal/Statement.v" or not isinstance(block["coq_version"], str):
        problems.append("statement or coq_version is not what a kernel pass writes")
    if block["configurations"] != n:
        problems.append(f"says {block['configurations']!r} configurations, the file holds {n} checked records")
    if not _whole(block["certificates_kernel_checked"]) or block["certificates_kernel_checked"] > n:
        problems.append("certificates_kernel_checked is not a count of the file's records")
    certified = {claim: sum(1 for r in examples if isinstance(r.get("verdicts"), dict)
                            and isinstance(r["verdicts"].get(claim), dict) and _decided(claim, r["verdicts"][claim]))
                 for claim in (block["claims"] if isinstance(block["claims"], dict) else {})}
    if not isinstance(block["claims"], dict):
        return problems + ["claims is not an object"]
    for claim, row in block["claims"].items():
        if not isinstance(row, dict) or set(row) != set(STATUSES) or not all(_whole(v) for v in row.values()):
            problems.append(f"claims.{str(claim)[:20]}: expected the counts {', '.join(STATUSES)}")
            continue
        if sum(row.values()) != n:
            problems.append(f"claims.{claim}: the counts add up to {sum(row.values())}, not {n}")
        if row["kernel-checked"] > certified.get(claim, 0):
            problems.append(f"claims.{claim}: {row['kernel-checked']} kernel-checked, the file decides it on "
                            f"{certified.get(claim, 0)}")
        if claim not in FORMALISED and row["kernel-checked"]:
            problems.append(f"claims.{claim}: kernel-checked, but the claim is not formalised")
    rejected = block["rejected"]
    if not isinstance(rejected, list) or not all(isinstance(r, dict) and set(r) == {"task", "reason"}
                                                 and r["task"] in names for r in rejected):
        problems.append("rejected: expected entries {task, reason} naming tasks of the file")
    elif bool(rejected) != (block["status"] == "rejected"):
        problems.append("status and the list of rejected certificates disagree")
    if not isinstance(block["not_kernel_checked"], dict) or not all(
            isinstance(k, str) and _whole(v) for k, v in block["not_kernel_checked"].items()):
        problems.append("not_kernel_checked: expected reason -> count")
    unchecked = block["unchecked_configurations"]
    if not isinstance(unchecked, list) or not all(isinstance(u, dict) and set(u) == {"task", "reason"}
                                                  and u["task"] in names and isinstance(u["reason"], str)
                                                  for u in unchecked):
        return problems + ["unchecked_configurations: expected entries {task, reason} naming tasks of the file"]
    tasks = [u["task"] for u in unchecked]
    refused = [r.get("task") for r in rejected if isinstance(r, dict)] if isinstance(rejected, list) else []
    if len(set(tasks)) != len(tasks) or set(tasks) & set(refused):
        problems.append("unchecked_configurations: a task named twice, or also among the rejected")
    elif _whole(block["certificates_kernel_checked"]) and (
            block["certificates_kernel_checked"] + len(tasks) + len(refused) < n
            or block["certificates_kernel_checked"] + len(tasks) > n):
        # Every configuration is kernel-checked, rejected or named here (a rejected one may still count as checked).
        problems.append(f"unchecked_configurations: {len(tasks)} named, but {block['certificates_kernel_checked']} of "
                        f"{n} configurations are kernel-checked")
    return problems
