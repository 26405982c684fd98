"""How long ``check`` takes on many leaders, against the plain Fraction claim checks measured in the same run.

    python bench/claim_checks.py [--n 512] [--d 16] [--seed 0]

Workload: n tokens in d dimensions with entries p/q (p in -50..50, q in 1..9, drawn by
``numpy.random.default_rng(seed)``), alpha = 1/2, A = I: at n = 512, d = 16 about half the tokens
lead at layer 0, so T2 compares hundreds of leaders pairwise, T3 tests every non-leader's supporting
direction against every leader limit and D7's locking test scores every locked set's mean against
every token. Timed (CPU seconds of this process, one core; the machine may be shared):

* ``check``: ``check_configuration`` as ``hardmax-verify check`` runs it (cross-checks included),
  whose T2 pairs, T3 supports, D7 locking test and replay-oracle attention sets decide on integer
  scores over a common denominator;
* the baseline: the same call with those four replaced by the bench's own plain Fraction formulas
  (the obvious dot products, written here: independent of the package's code; the attention sets
  from the oracle's Fraction score matrix, ``oracle.scores``, compared as Fractions).

Both runs' reports (``check --json``'s content) must be byte for byte equal, or the bench exits 1.
Printed: both times and the ratio check / baseline. Target: ``check`` under 6 CPU seconds at
n = 512, d = 16 (exit 1 above it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from verify.claims import T2, T3, run as claims_run  # noqa: E402
from verify.claims.run import check_configuration  # noqa: E402
from verify.core import oracle  # noqa: E402
from verify.core.config import Configuration, parse_configuration  # noqa: E402

TARGET_SECONDS = 6.0
Vector = Sequence[Fraction]


def workload(n: int, d: int, seed: int) -> Configuration:
    rng = np.random.default_rng(seed)
    tokens = [[f"{int(p)}/{int(q)}" for p, q in zip(rng.integers(-50, 51, d), rng.integers(1, 10, d))]
              for _ in range(n)]
    return parse_configuration({"tokens": tokens, "alpha": "1/2"})


# The baseline: plain Fraction formulas, one dot product per score.
def _dot(u: Vector, v: Vector) -> Fraction:
    return sum((a * b for a, b in zip(u, v)), Fraction(0))


def _mat_vec(A: Sequence[Vector], v: Vector) -> list[Fraction]:
    return [_dot(row, v) for row in A]


def fraction_scores_itself_highest(A: Sequence[Vector], pts: Sequence[Vector]) -> list[bool]:
    highest = []
    for i, v in enumerate(pts):
        c = _mat_vec(A, v)
        highest.append(all(_dot(c, v) > _dot(c, u) for j, u in enumerate(pts) if j != i))
    return highest


class FractionPoints:
    """Stands in for IntegerPoints in T3: keeps the points as they are."""

    def __init__(self, points: Sequence[Vector]) -> None:
        self.points = [tuple(p) for p in points]

    def gram(self, M: Sequence[Vector]) -> list[list[Fraction]]:
        """G[i][j] = p_i^T M p_j in Fractions, pair by pair (the baseline's way)."""
        return [[_dot(p, _mat_vec(M, q)) for q in self.points] for p in self.points]


def fraction_supports_at(direction: Vector, x: Vector, points: FractionPoints) -> bool:
    return all(_dot(direction, u) <= _dot(direction, x) for u in points.points)


def fraction_locking_value(data: Any, F: frozenset[int], A: Sequence[Vector]
                           ) -> tuple[tuple[Fraction, ...], Fraction] | None:
    pos = data.positions
    members = sorted(F)
    m = tuple(sum((pos[v][c] for v in members), Fraction(0)) / len(members) for c in range(len(pos[0])))
    w = _mat_vec(A, m)
    values = {_dot(w, pos[v]) for v in F}
    if len(values) != 1:
        return None
    value = values.pop()
    return None if any(_dot(w, p) > value for p in pos) else (m, value)


def fraction_attention_sets(positions: Sequence[Vector], *, A: Sequence[Vector] | None = None
                            ) -> list[frozenset[int]]:
    """The attention sets from the oracle's Fraction score matrix (its public ``scores``), maxima and ties compared
    as Fractions."""
    result = []
    for row in oracle.scores(positions, A=A):
        top = max(row)
        result.append(frozenset(j for j, s in enumerate(row) if s == top))
    return result


BASELINE: list[tuple[Any, str, Callable[..., Any]]] = [
    (T2, "scores_itself_highest", fraction_scores_itself_highest),
    (T3, "IntegerPoints", FractionPoints), (T3, "supports_at", fraction_supports_at),
    (claims_run, "locking_value", fraction_locking_value),
    (oracle, "attention_sets", fraction_attention_sets),
]


def timed_report(config: Configuration) -> tuple[float, str]:
    started = time.process_time()
    report = check_configuration(config)
    seconds = time.process_time() - started
    return seconds, json.dumps(report.to_json_dict())


def baseline_report(config: Configuration) -> tuple[float, str]:
    saved = [(module, name, getattr(module, name)) for module, name, _ in BASELINE]
    try:
        for module, name, replacement in BASELINE:
            setattr(module, name, replacement)
        return timed_report(config)
    finally:
        for module, name, original in saved:
            setattr(module, name, original)


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=512, help="tokens")
    parser.add_argument("--d", type=int, default=16, help="dimension")
    parser.add_argument("--seed", type=int, default=0, help="seed of the tokens")
    args = parser.parse_args(argv)
    config = workload(args.n, args.d, args.seed)
    print(f"cores: {os.cpu_count()}; load average before: {_load()}; workload: n={args.n}, d={args.d}, "
          f"seed {args.seed}, alpha=1/2, A = I")
    timed_report(workload(8, args.d, args.seed))  # warm-up: lazy imports (the cross-checks') not timed below
    new_seconds, new = timed_report(config)
    old_seconds, old = baseline_report(config)
    data = json.loads(new)
    leaders = sum(f["kind"] == "leader" for f in data["fates"])
    print(f"{leaders} leaders, {sum(f['kind'] == 'locked' for f in data['fates'])} locked, status {data['status']}")
    print(f"  baseline: Fraction claim checks   {old_seconds:7.2f} CPU s")
    verdict = "within" if new_seconds < TARGET_SECONDS else "ABOVE"
    print(f"  check: integer scores             {new_seconds:7.2f} CPU s   {new_seconds / old_seconds:5.3f}x the "
          f"baseline   ({verdict} the target of {TARGET_SECONDS:g} s)")
    same = new == old
    print(f"  reports byte for byte equal: {'yes' if same else 'NO'}")
    print(f"load average after: {_load()}")
    if not same:
        print("FAILED: the integer claim checks' report differs from the Fraction baseline's", file=sys.stderr)
    return 0 if same and new_seconds < TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
