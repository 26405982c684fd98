"""A conjecture run's outcomes and what each expectation predicts.

Apart from the lab (:mod:`verify.experiments.conjectures.base`), so that the report's section can
read saved runs without importing Hypothesis.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["Outcome", "Expectation", "EXPECTATIONS"]

Outcome = Literal["held", "not refuted", "counterexample", "inconclusive"]
Expectation = Literal["held", "refuted"]
# The outcomes each expectation predicts ("held" is reserved for a proof; a search can only fail to refute).
EXPECTATIONS: dict[str, tuple[Outcome, ...]] = {"held": ("held", "not refuted"), "refuted": ("counterexample",)}
