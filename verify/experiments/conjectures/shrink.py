"""Structural shrinking: from the counterexample Hypothesis shrank to a smaller one of the same branch, when there is one.

Hypothesis shrinks a drawn example by shrinking the choices that drew it. For the seeded families
that is the family's n, d and seed, and a structured configuration does not shrink well that way:
an octagon of two squares stays at n = 8, because the family with the same seed and n = 4 is a
different configuration that need not fail, although some square fails. Three passes follow,
each decided by the conjecture's own predicate and each inside the scope of the branch the
counterexample came from (:class:`~verify.experiments.conjectures.optimise.Scope`):

1. **Smaller sizes of the same branch.** Short Hypothesis runs of the branch's strategy bounded by
   each smaller size, smallest first (n, then d); the first failure found there is shrunk by
   Hypothesis as usual and replaces the counterexample.
2. **Deletions.** Remove one token, or a whole shell of tokens of equal A-norm (an orbit of a
   symmetric configuration), while the example still fails, keeps the hypotheses it broke, and
   keeps at least the branch's smallest n.
3. **Simpler numbers.** Replace a coordinate or alpha by a simpler rational (a continued-fraction
   convergent, or 0) while the example still fails in scope.

Every pass has a budget of predicate calls (a number, the same on every machine); the search's
shrinking budget in seconds bounds them too. Nothing is assumed: only a configuration the
predicate finds failed is kept, and the reported one is re-checked from its saved file.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Callable, Iterator, TypeVar

from verify.core.config import Configuration
from .optimise import Observation, Scope, in_scope, simplicity

__all__ = ["REDUCE_CALLS", "RESEARCH_EXAMPLES", "Reduction", "reduce_counterexample", "simpler_rationals"]

REDUCE_CALLS = 250       # predicate calls of the deletion and number passes together
RESEARCH_EXAMPLES = 20   # examples of each smaller-size Hypothesis run

Decided = TypeVar("Decided", bound=Observation)


class Reduction:
    """What the passes did: the steps taken, in order, and the predicate calls they cost."""

    def __init__(self) -> None:
        self.steps: list[str] = []
        self.calls = 0

    def to_json_dict(self) -> dict[str, object]:
        return {"steps": list(self.steps), "calls": self.calls}




def simpler_rationals(x: Fraction) -> Iterator[Fraction]:
    """0, then the continued-fraction convergents of x, simplest first (each strictly shorter than x)."""
    if x != 0:
        yield Fraction(0)
    a, b = x.numerator, x.denominator
    h0, h1, k0, k1 = 0, 1, 1, 0
    while b:
        q = a // b
        h0, h1 = h1, q * h1 + h0
        k0, k1 = k1, q * k1 + k0
        a, b = b, a - q * b
        convergent = Fraction(h1, k1)
        if convergent == x:
            return
        yield convergent


def _shells(config: Configuration) -> list[list[int]]:
    """Tokens grouped by A-norm <A z, z>: the orbits of a symmetric configuration fall in one shell each."""
    A = config.A_matrix
    norms: dict[Fraction, list[int]] = {}
    for i, z in enumerate(config.tokens):
        norm = sum((z[r] * A[r][c] * z[c] for r in range(config.d) for c in range(config.d)), Fraction(0))
        norms.setdefault(norm, []).append(i)
    return [members for members in norms.values() if 1 < len(members) < config.n]


def _without(config: Configuration, drop: set[int]) -> Configuration:
    return replace(config, tokens=tuple(t for i, t in enumerate(config.tokens) if i not in drop))


def reduce_counterexample(config: Configuration, observation: Decided, *, scope: Scope,
                          check: Callable[[Configuration], Decided | None],
                          research: Callable[[int, int], tuple[Configuration, Decided] | None] | None,
                          calls: int = REDUCE_CALLS) -> tuple[Configuration, Decided, Reduction]:
    """The three passes of the module docstring on a failing ``config``; returns the simplest failing example.

    ``check`` decides a configuration (None once the shrinking budget is spent); ``research(n, d)`` is a
    Hypothesis run of the branch bounded by (n, d), its shrunk failing example or None.
    """
    reduction = Reduction()
    best, best_observation = config, observation

    def failed(candidate: Configuration) -> Decided | None:
        if reduction.calls >= calls or not in_scope(candidate, config, scope):
            return None
        reduction.calls += 1
        result = check(candidate)
        return result if result is not None and result.status == "failed" else None

    # 1. Smaller sizes of the same branch, smallest first.
    if research is not None:
        sizes = sorted((n, d) for d in range(scope.min_d, best.d + 1) for n in range(scope.min_n, best.n + 1)
                       if (n, d) < (best.n, best.d) and (n < best.n or d < best.d))
        for n, d in sizes:
            found = research(n, d)
            if found is not None and (found[0].n, found[0].d) < (best.n, best.d):
                best, best_observation = found
                reduction.steps.append(f"a smaller example of the branch: n = {best.n}, d = {best.d}")
                break
    # 2. Deletions: a shell of equal A-norm, then single tokens, while it still fails.
    changed = True
    while changed and reduction.calls < calls:
        changed = False
        groups = _shells(best) + [[i] for i in range(best.n)]
        for group in groups:
            if best.n - len(group) < max(scope.min_n, 1):
                continue
            candidate = _without(best, set(group))
            result = failed(candidate)
            if result is not None:
                best, best_observation = candidate, result
                reduction.steps.append(f"removed {'token' if len(group) == 1 else 'tokens'} {group}: n = {best.n}")
                changed = True
                break
    # 3. Simpler numbers: alpha, then each coordinate.
    if scope.alpha_range[0] < scope.alpha_range[1]:
        for simpler in simpler_rationals(best.alpha):
            if simpler <= 0:
                continue
            result = failed(replace(best, alpha=simpler))
            if result is not None:
                best, best_observation = replace(best, alpha=simpler), result
                reduction.steps.append(f"alpha = {simpler}")
                break
    for i in range(best.n):
        for c in range(best.d):
            for simpler in simpler_rationals(best.tokens[i][c]):
                tokens = [list(t) for t in best.tokens]
                tokens[i][c] = simpler
                candidate = replace(best, tokens=tuple(tuple(t) for t in tokens))
                result = failed(candidate)
                if result is not None:
                    best, best_observation = candidate, result
                    reduction.steps.append(f"token {i}[{c}] = {simpler}")
                    break
    if simplicity(best) >= simplicity(config):
        return config, observation, reduction
    return best, best_observation, reduction
