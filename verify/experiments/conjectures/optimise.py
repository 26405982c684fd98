"""The worst-case optimiser: local search on rational coordinates for the largest value of a conjecture's target.

Hypothesis's own targeting (:func:`hypothesis.target`) climbs a measurement when small changes
raise it a little at a time. The integer targets of the lab do not behave that way: the layer at
which the last leader emerges, the layer from which the attention pattern is constant, the number
of leaders are constant on large regions of configurations and jump at their boundaries, where
two scores tie at some layer. Near such a boundary the transients are long: a token that only
just fails to lead at layer 0 may lead at layer 13, or never (docs/theory.md §6, n = 3, A = I:
layer 6 for alpha = 1/32, 13 for 1/64, never for 1/128).

So the optimiser starts from the best examples the search has drawn (seeded by Hypothesis) and
probes *moves*: one coordinate of one token shifted by a dyadic step, one token scaled, alpha
halved, doubled or nudged (when the conjecture's range allows it). A move that raises the target
is kept. A move that changes what the predicate measured brackets a boundary between the two
configurations; the optimiser then *bisects* the segment between them (exact dyadic midpoints),
keeping the side whose target is the larger, so that it walks up to the boundary, a near-tie,
where the target grows. Every probe is decided by the conjecture's own predicate (exact), and
every candidate stays within the scope of the branch it came from (same n, d and A, the same
hypotheses kept or broken, alpha within the branch's range).

Everything is a function of the seed and of the predicate's values: with a budget in examples the
same seed probes the same configurations on every machine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Callable, Mapping, Protocol, Sequence

from verify.core.config import Configuration, hypothesis_violations
from verify.core.numbers import rational_to_str


class Observation(Protocol):
    """What the optimiser reads of a predicate's answer (base.Observation, which imports this module)."""

    @property
    def status(self) -> str: ...

    @property
    def measurements(self) -> Mapping[str, Any]: ...

__all__ = ["Scope", "optimise", "numeric_target", "in_scope", "OPTIMISE_PROBES", "OPTIMISE_SEEDS", "BISECTION_STEPS",
           "MAX_BITS"]

OPTIMISE_PROBES = 40     # probes of one optimiser round (one per rotation of the search)
BISECTION_STEPS = 24     # midpoints probed between two configurations with different outcomes
MAX_BITS = 64            # numerators and denominators of a candidate stay below 2^MAX_BITS (exact runs stay fast)
OPTIMISE_SEEDS = 4       # the best examples a round starts from (and as many others at random)
MOVE_ATTEMPTS = 20       # tries to draw a move that stays in scope before a probe is given up
PLATEAU_STEP = 0.25      # chance that a probe of the same target value joins the pool (a walk along a plateau)


@dataclass(frozen=True)
class Scope:
    """Where a branch's configurations live: the optimiser (and the shrinker) never leave it.

    ``alpha_range``: the alphas the branch draws (low == high: alpha fixed); ``min_n``, ``min_d``: the
    smallest sizes it draws; ``label``: the branch's. The hypotheses a seed keeps or breaks (a zero
    token, a repeated token, A not symmetric positive definite, a value matrix) are kept by every
    candidate built from it; the optimiser never changes n, d, A or V.
    """

    alpha_range: tuple[Fraction, Fraction]
    min_n: int = 1
    min_d: int = 1
    label: str = ""


def numeric_target(observation: Observation, target: str) -> float | None:
    """The target's value in an observation, if it is a number (decided examples only)."""
    if observation.status == "undecided":
        return None
    value = observation.measurements.get(target)
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        return None
    return float(value)


def _signature(observation: Observation) -> tuple[Any, ...]:
    """What the predicate said, to tell whether two probes lie in the same region."""
    return (observation.status, tuple(sorted((k, str(v)) for k, v in observation.measurements.items())))


def _violations(config: Configuration) -> tuple[str, ...]:
    """The kinds of hypothesis a configuration breaks (the field named, not the token's index)."""
    return tuple(sorted({field.split("[")[0] for field, _ in hypothesis_violations(config)}))


def simplicity(config: Configuration) -> tuple[int, int, int]:
    """Smaller is simpler: fewer tokens, lower dimension, shorter numbers (its name and description do not count)."""
    numbers = [x for t in config.tokens for x in t] + [config.alpha]
    numbers += [x for row in (config.A or ()) for x in row] + [x for row in (config.V or ()) for x in row]
    numbers += [config.beta] if config.beta is not None else []
    return (config.n, config.d, sum(len(rational_to_str(x)) for x in numbers))


def _small(config: Configuration) -> bool:
    numbers = [x for t in config.tokens for x in t] + [config.alpha]
    return all(abs(x.numerator).bit_length() <= MAX_BITS and x.denominator.bit_length() <= MAX_BITS for x in numbers)


def in_scope(candidate: Configuration, seed: Configuration, scope: Scope) -> bool:
    """The candidate is in the seed's branch: alpha within range, the same hypotheses broken, numbers small."""
    low, high = scope.alpha_range
    if not low <= candidate.alpha <= high or not _small(candidate):
        return False
    return _violations(candidate) == _violations(seed)


def _with(config: Configuration, tokens: Sequence[Sequence[Fraction]] | None = None,
          alpha: Fraction | None = None) -> Configuration:
    family = (config.name or "").split(" (optimised")[0]
    return replace(config, tokens=tuple(tuple(t) for t in (tokens if tokens is not None else config.tokens)),
                   alpha=alpha if alpha is not None else config.alpha, name=f"{family} (optimised)")


def _move(config: Configuration, scope: Scope, rng: random.Random) -> Configuration:
    """One random move: a coordinate shifted, a token scaled, or alpha changed (see the module docstring)."""
    low, high = scope.alpha_range
    kinds = ["coordinate", "coordinate", "scale", "pair"] + (["alpha", "alpha"] if low < high else [])
    kind = rng.choice(kinds)
    tokens = [list(t) for t in config.tokens]
    size = max((abs(x) for t in tokens for x in t), default=Fraction(1)) or Fraction(1)
    step = Fraction(1, 2 ** rng.randint(2, 16))
    sign = rng.choice((-1, 1))
    if kind == "alpha":
        choice = rng.randint(0, 2)
        alpha = config.alpha * (2 if choice == 0 else Fraction(1, 2) if choice == 1 else 1 + sign * step)
        return _with(config, alpha=min(max(alpha, low), high))
    i = rng.randrange(config.n)
    if kind == "pair" and config.n >= 2:
        # Towards (or away from) another token: along the directions in which two tokens' scores trade places.
        j = rng.choice([t for t in range(config.n) if t != i])
        tokens[i] = [x + sign * step * (y - x) for x, y in zip(tokens[i], tokens[j])]
    elif kind == "scale":
        tokens[i] = [x * (1 + sign * step) for x in tokens[i]]
    else:
        c = rng.randrange(config.d)
        tokens[i][c] += sign * step * _power_of_two_at_most(size)
    return _with(config, tokens=tokens)


def _power_of_two_at_most(x: Fraction) -> Fraction:
    """A power of two p with p <= x < 2p (x > 0): steps stay dyadic, so midpoints stay short."""
    p = Fraction(1)
    while p > x:
        p /= 2
    while 2 * p <= x:
        p *= 2
    return p


def _midpoint(a: Configuration, b: Configuration) -> Configuration:
    tokens = [[(x + y) / 2 for x, y in zip(s, t)] for s, t in zip(a.tokens, b.tokens)]
    return _with(a, tokens=tokens, alpha=(a.alpha + b.alpha) / 2)


Evaluate = Callable[[Configuration, Scope], "Observation | None"]


def optimise(seeds: Sequence[tuple[Configuration, Observation, Scope]], *, target: str, evaluate: Evaluate,
             rng: random.Random, probes: int = OPTIMISE_PROBES) -> None:
    """One round of ``probes`` probes from the best seeds (decided, with a numeric target).

    ``evaluate`` decides a candidate with the conjecture's predicate and records it (it may raise to
    stop the search at a counterexample); it returns None when the budget is spent.
    """
    pool = [(config, observation, scope) for config, observation, scope in seeds
            if numeric_target(observation, target) is not None][:2 * OPTIMISE_SEEDS]
    if not pool:
        return
    spent = 0

    def value(observation: Observation) -> float | None:
        return numeric_target(observation, target)

    def probe(candidate: Configuration, scope: Scope) -> Observation | None:
        nonlocal spent
        spent += 1
        return evaluate(candidate, scope)

    while spent < probes:
        best = max(pool, key=lambda item: value(item[1]) or 0.0)
        base, base_observation, scope = best if rng.random() < 0.5 else rng.choice(pool)
        candidate = None
        for _ in range(MOVE_ATTEMPTS):
            moved = _move(base, scope, rng)
            if moved.tokens != base.tokens or moved.alpha != base.alpha:
                if in_scope(moved, base, scope):
                    candidate = moved
                    break
        if candidate is None:
            spent += 1
            continue
        observation = probe(candidate, scope)
        if observation is None:
            return
        base_value, new_value = value(base_observation), value(observation)
        if new_value is not None and base_value is not None and new_value > base_value:
            pool.append((candidate, observation, scope))
        elif new_value is not None and new_value == base_value and rng.random() < PLATEAU_STEP:
            pool.append((candidate, observation, scope))  # a step along a plateau: other neighbourhoods to try
        elif _signature(observation) != _signature(base_observation):
            found = _bisect(base, base_observation, candidate, scope, value, probe,
                            steps=min(BISECTION_STEPS, probes - spent))
            if found is None:
                return
            pool.extend(found)
        pool.sort(key=lambda item: -(value(item[1]) or 0.0))
        del pool[2 * OPTIMISE_SEEDS:]


def _bisect(low: Configuration, low_observation: Observation, high: Configuration,
            scope: Scope, value: Callable[[Observation], float | None],
            probe: Callable[[Configuration, Scope], Observation | None],
            *, steps: int) -> list[tuple[Configuration, Observation, Scope]] | None:
    """Walk from ``low`` (decided) towards the boundary with ``high`` (another outcome), keeping the side whose
    target is larger.

    Returns the improvements found (None when the budget is spent)."""
    found: list[tuple[Configuration, Observation, Scope]] = []
    best = value(low_observation)
    for _ in range(steps):
        middle = _midpoint(low, high)
        if middle.tokens in (low.tokens, high.tokens) and middle.alpha in (low.alpha, high.alpha) \
                or not in_scope(middle, low, scope):
            break
        observation = probe(middle, scope)
        if observation is None:
            return None
        middle_value, low_value = value(observation), value(low_observation)
        if middle_value is not None and low_value is not None and middle_value >= low_value:
            low, low_observation = middle, observation
            if best is None or middle_value > best:
                best = middle_value
                found.append((middle, observation, scope))
        else:
            high = middle
    return found
