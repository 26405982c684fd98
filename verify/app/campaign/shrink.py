"""Counterexample shrinking: the smallest configuration found on which the same claim still fails."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from verify.core.config import Configuration, parse_configuration
from verify.core.numbers import InputError

__all__ = ["shrink_counterexample", "MAX_SHRINK_CHECKS"]

Check = Callable[..., Any]  # check_configuration(config, **budgets) -> ClaimReport


MAX_SHRINK_CHECKS = 200


def shrink_counterexample(config: Configuration, claims: Sequence[str], check: Check,
                          budgets: Mapping[str, Any]) -> dict[str, Any]:
    """Greedily delete tokens while the same claim still fails; return the smallest CONFIG.json found.

    ``budgets`` are the keywords the original check ran with (:meth:`Task.budgets`).

    Deleting a token keeps the hypotheses (distinct, nonzero tokens, same A), so the shrunk
    configuration is a counterexample of the same kind. Bounded by :data:`MAX_SHRINK_CHECKS`.
    """
    target = claims[0]
    current = config
    checks = 0

    def still_fails(candidate: Configuration) -> bool:
        nonlocal checks
        checks += 1
        try:
            verdict = check(candidate, **budgets).verdicts.get(target)
        except InputError:
            return False
        return verdict is not None and verdict.status == "failed"

    changed = True
    while changed and current.n > 1 and checks < MAX_SHRINK_CHECKS:
        changed = False
        for i in range(current.n):
            if checks >= MAX_SHRINK_CHECKS:
                break
            data = current.to_json_dict()
            data["tokens"] = data["tokens"][:i] + data["tokens"][i + 1:]
            candidate = parse_configuration(data, outside_hypotheses=current.outside_hypotheses)
            if still_fails(candidate):
                current = candidate
                changed = True
                break
    shrunk = current.to_json_dict()
    shrunk["name"] = f"{config.name or 'counterexample'}-{target}-shrunk"
    shrunk["description"] = (f"Counterexample to {target}, shrunk from {config.n} to {current.n} tokens "
                             f"by deleting tokens ({checks} checks).")
    return {"claim": target, "claims": list(claims), "original_n": config.n, "shrunk_n": current.n,
            "checks": checks, "config": shrunk}
