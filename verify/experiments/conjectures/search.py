"""Where the lab's search draws its examples, in what order, and for how long.

A conjecture's strategy is split into **branches**: one per family of :mod:`verify.core.families`
when it was built by :func:`verify.strategies.configurations` or
:func:`verify.strategies.outside_configurations` (read back with
:func:`verify.strategies.strategy_spec`), one per item when it is a list, and the strategy itself
otherwise. The search runs in **rounds**: short Hypothesis runs of :data:`ROUND_EXAMPLES`
examples, each on one branch, visiting the branches in rotation so that every family gets its
share of the draws whatever the budget. Sizes grow with the rotations: the first draws at most
:data:`SIZE_LEVELS` ``[0]`` (n <= 4 tokens, d <= 2), later ones larger n and d, up to the
bounds the strategy itself states (never beyond them: those bounds are the conjecture's scope).
When the conjecture names a measurement to push upwards (its ``target``, e.g. the number of
leaders for "at most d + 1 leaders"), each rotation ends with :data:`FOCUS_ROUNDS` longer rounds on
the branch that has pushed it highest so far, where Hypothesis's own targeting can climb further.

Everything here is a function of the seed and the round index: with a budget in examples the
same seed draws the same examples on every machine. A budget in seconds only decides how many
rounds run (:class:`Budget`).
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from hypothesis.strategies import SearchStrategy

from verify.core.config import Configuration
from verify.core.families import FAMILIES, MAX_D, MAX_N
from .optimise import Scope
from verify.strategies import NEEDS_D2, SEEDED_KINDS, StrategySpec, configurations, outside_configurations, strategy_spec

__all__ = ["Branch", "Round", "Budget", "Clock", "branches_of", "rounds", "level_sizes", "round_seed", "SIZE_LEVELS",
           "ROUND_EXAMPLES", "ROTATIONS_PER_LEVEL", "FOCUS_ROUNDS", "FOCUS_EXAMPLES", "DEFAULT_SECONDS"]

# (max n, max d) of the successive size levels; a branch never exceeds its own bounds.
SIZE_LEVELS: tuple[tuple[int, int], ...] = ((4, 2), (6, 3), (10, 3), (16, 4), (24, 4), (MAX_N, MAX_D))
ROUND_EXAMPLES = 10        # examples per Hypothesis run: small, so that a rotation reaches every family soon
ROTATIONS_PER_LEVEL = 1    # whole rotations through the branches before sizes grow
FOCUS_ROUNDS = 2           # extra rounds per rotation on the branch that pushed the target highest
FOCUS_EXAMPLES = 20        # examples of a focus round: Hypothesis optimises a target after the first 10
DEFAULT_SECONDS = 60.0     # the search budget of one conjecture when none is given

StrategyBuilder = Callable[[int, int], SearchStrategy[Configuration]]


@dataclass(frozen=True)
class Branch:
    """One source of examples: ``build(max_n, max_d)`` is its strategy at a size level.

    ``label`` names it in the results (a family name, or the strategy's repr). A branch built
    with :meth:`fixed` ignores the size levels.
    """

    label: str
    build: StrategyBuilder
    grows: bool = True
    # Where the branch's configurations live (alpha range, smallest sizes), when known: the worst-case
    # optimiser and the structural shrinker work only inside it (None: a strategy of your own, left alone).
    scope: Scope | None = None

    @classmethod
    def fixed(cls, label: str, strategy: SearchStrategy[Configuration]) -> "Branch":
        return cls(label, lambda _n, _d: strategy, grows=False)


def _minimum(spec: StrategySpec, name: str) -> tuple[int, int]:
    """The smallest n and d a family (or an outside kind) of ``spec`` can draw."""
    if spec.kind == "configurations":
        own = FAMILIES[name]
        return max(spec.min_n, own.min_n), max(spec.min_d, own.min_d)
    needs_d2 = name in NEEDS_D2
    return max(spec.min_n, 2 if name == "duplicates" or name in SEEDED_KINDS else 1), max(spec.min_d, 2 if needs_d2 else 1)


def _family_branch(spec: StrategySpec, name: str) -> Branch | None:
    """The branch of one family (or outside kind) of a spec; None when it cannot fit the spec's bounds."""
    min_n, min_d = _minimum(spec, name)
    if min_n > spec.max_n or min_d > spec.max_d:
        return None

    def build(max_n: int, max_d: int) -> SearchStrategy[Configuration]:
        top_n, top_d = max(min(spec.max_n, max_n), min_n), max(min(spec.max_d, max_d), min_d)
        if spec.kind == "configurations":
            return configurations(family=name, min_n=spec.min_n, max_n=top_n, min_d=spec.min_d, max_d=top_d,
                                  matrix=spec.matrix, alpha=spec.alpha)
        return outside_configurations(kind=name, min_n=spec.min_n, max_n=top_n, min_d=spec.min_d, max_d=top_d,
                                      alpha=spec.alpha)

    return Branch(name, build, scope=Scope(spec.alpha_range(), min_n=min_n, min_d=min_d, label=name))


def branches_of(strategy: SearchStrategy[Configuration] | Branch | Sequence[Any]) -> list[Branch]:
    """The branches of a conjecture's strategy (see the module docstring), in rotation order."""
    if isinstance(strategy, Branch):
        return [strategy]
    if not isinstance(strategy, SearchStrategy):
        return [branch for item in strategy for branch in branches_of(item)]
    spec = strategy_spec(strategy)
    if spec is None:
        return [Branch.fixed(_short_repr(strategy), strategy)]
    usable = [branch for branch in (_family_branch(spec, name) for name in spec.families) if branch is not None]
    return usable or [Branch.fixed(_short_repr(strategy), strategy)]


def _short_repr(strategy: object, limit: int = 60) -> str:
    text = repr(strategy)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def level_sizes(level: int) -> tuple[int, int]:
    """(max n, max d) of a size level (the last level for any level beyond it)."""
    return SIZE_LEVELS[min(level, len(SIZE_LEVELS) - 1)]


@dataclass(frozen=True)
class Round:
    """One Hypothesis run of the search: which branch, at which size level, how many examples, which seed.

    ``rotation`` counts whole rotations; ``focus`` marks a round of the branch that pushed the
    conjecture's target highest (see :func:`rounds`).
    """

    index: int
    branch: Branch
    level: int
    seed: int
    rotation: int = 0
    examples: int = ROUND_EXAMPLES
    focus: bool = False

    def strategy(self) -> SearchStrategy[Configuration]:
        max_n, max_d = level_sizes(self.level)
        return self.branch.build(max_n, max_d)


def round_seed(seed: int, index: int) -> int:
    """The Hypothesis seed of round ``index``: a hash of the run's seed and the index (stable across versions)."""
    return int.from_bytes(hashlib.sha256(f"hardmax-verify conjecture {seed} {index}".encode()).digest()[:8], "big")


def rounds(branches: Sequence[Branch], *, seed: int,
           focus: Callable[[], Branch | None] | None = None) -> Iterator[Round]:
    """The rounds of a search, for ever.

    Each rotation runs every branch once, in order, at the rotation's size level (which grows
    every :data:`ROTATIONS_PER_LEVEL` rotations up to the last of :data:`SIZE_LEVELS`). After a
    rotation, ``focus()`` (when given) names the branch whose examples pushed the conjecture's
    target highest so far; it gets :data:`FOCUS_ROUNDS` more rounds of :data:`FOCUS_EXAMPLES`
    examples, long enough for Hypothesis's own targeting (:func:`hypothesis.target`) to climb.
    Everything depends on the seed and on the examples' values only, never on time.
    """
    if not branches:
        raise ValueError("a search needs at least one branch")
    index = 0
    rotation = 0
    while True:
        level = min(rotation // ROTATIONS_PER_LEVEL, len(SIZE_LEVELS) - 1)
        for branch in branches:
            yield Round(index, branch, level, round_seed(seed, index), rotation)
            index += 1
        chosen = focus() if focus is not None else None
        if chosen is not None:
            for _ in range(FOCUS_ROUNDS):
                yield Round(index, chosen, level, round_seed(seed, index), rotation, FOCUS_EXAMPLES, focus=True)
                index += 1
        rotation += 1


@dataclass(frozen=True)
class Budget:
    """How much search a conjecture gets: a number of examples, a number of seconds, or both (the first reached).

    A budget in examples alone is reproducible on every machine; a budget in seconds is not
    (the examples drawn in that time depend on the machine and its load), so a result records
    both the budget and what was used.
    """

    examples: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.examples is not None and self.examples < 1:
            raise ValueError(f"examples must be >= 1, got {self.examples}")
        if self.seconds is not None and not (self.seconds > 0 and math.isfinite(self.seconds)):
            raise ValueError(f"seconds must be a positive number, got {self.seconds}")
        if self.examples is None and self.seconds is None:
            raise ValueError("a budget needs examples, seconds or both")

    @property
    def reproducible(self) -> bool:
        return self.seconds is None

    def to_json_dict(self) -> dict[str, Any]:
        return {"examples": self.examples, "seconds": self.seconds}

    def describe(self) -> str:
        parts = ([f"{self.examples:,} examples"] if self.examples is not None else []) + \
            ([f"{self.seconds:g} s"] if self.seconds is not None else [])
        return " or ".join(parts)


class Clock:
    """Monotonic time since the search started, against an optional limit."""

    def __init__(self, seconds: float | None) -> None:
        self.started = time.monotonic()
        self.started_cpu = time.process_time()
        self.limit = seconds

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def cpu(self) -> float:
        """CPU seconds of this process since the start (on a shared machine, wall time also measures the others)."""
        return time.process_time() - self.started_cpu

    def expired(self) -> bool:
        return self.limit is not None and self.elapsed >= self.limit
