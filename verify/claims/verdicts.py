"""Verdicts: what a claim check returns (the contract between claims, reports, conjectures and self-test).

A verdict is **certified** (checked exactly, with a proof object in ``certificate``), **failed**
(checked exactly and false; the evidence holds the counterexample: layer, tokens, the two
exact numbers compared) or **inconclusive** (neither, with the reason: e.g. a token that did
not lock within the layer budget; a measured float distance may be shown, labelled as a
measurement).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["certified", "failed", "inconclusive"]
STATUSES: tuple[Status, ...] = ("certified", "failed", "inconclusive")


@dataclass
class Verdict:
    """The outcome of one claim check on one configuration.

    ``evidence`` and ``certificate`` are JSON-serialisable; exact numbers are "p/q" strings.
    ``certificate`` is present exactly when ``status == "certified"``; ``cross_checks`` holds
    non-deciding evidence (a cvxpy answer and its residual against the exact one, say).
    """

    claim: str
    status: Status
    summary: str
    evidence: dict[str, Any] = field(default_factory=dict)
    certificate: dict[str, Any] | None = None
    cross_checks: list[dict[str, Any]] = field(default_factory=list)

    def to_json_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"claim": self.claim, "status": self.status, "summary": self.summary,
                                "evidence": self.evidence}
        if self.cross_checks:
            data["cross_checks"] = self.cross_checks
        if self.certificate is not None:
            data["certificate"] = self.certificate
        return data
