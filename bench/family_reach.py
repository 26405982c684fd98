"""What each family of verify.core.families reaches: how often the structures a conjecture may hinge on occur.

    python bench/family_reach.py                      # 60 draws per family inside the hypotheses
    python bench/family_reach.py --draws 600 --family tie_chains --family generic

Per family, over seeded draws (n in 2..12 or the family's minimum, d in 2..3, the family's matrix
kinds in turn, seed 0 for the draw plan), the distribution of:

  leaders       the number of final leaders (D7 and D9 fates, docs/theory.md §3)
  last leader   the layer at which the last leader first leads
  constant from the layer from which every attention set is constant (the D9 jump search)
  tie at 0      the largest attention set at layer 0
  self-tie at 0 whether a token ties with another token in its own row (i in C_i, |C_i| > 1)
  end on a tie  tokens whose final attention set has two or more members (persistent ties)

It is how the lab decided which events are rare and which families to build for them; the
quality tests (tests/meta/test_strategies_quality.py) check thresholds on the same quantities.
Exact throughout; a run that does not settle within 60 layers is counted as "unsettled".
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from verify.claims import run_configuration  # noqa: E402
from verify.core.closed_form import certify  # noqa: E402
from verify.core.config import Configuration  # noqa: E402
from verify.claims import leader_layers  # noqa: E402
from verify.core.families import FAMILIES, INSIDE_FAMILIES, MATRIX_KINDS, generate  # noqa: E402

QUANTITIES = ("leaders", "last leader", "constant from", "tie at 0", "self-tie at 0", "end on a tie")


def measure(config: Configuration) -> dict[str, object]:
    run = run_configuration(config, layer_budget=60)
    sets = run.data[0].attention
    out: dict[str, object] = {"tie at 0": max(len(C) for C in sets),
                              "self-tie at 0": any(i in C and len(C) > 1 for i, C in enumerate(sets))}
    if run.settled_layer is None:
        out.update({"leaders": "unsettled", "last leader": "unsettled", "end on a tie": "unsettled"})
    else:
        first = leader_layers(run) or {}
        out["leaders"] = len(first)
        out["last leader"] = max(first.values())
        out["end on a tie"] = sum(1 for f in run.fates if f.kind != "leader" and len(f.attention or ()) > 1)
    chain = certify(config.tokens, alpha=config.alpha, A=config.A)
    out["constant from"] = chain.layer if chain.certified else "unsettled"
    return out


def _order(value: object) -> tuple[int, float]:
    return (1, 0.0) if isinstance(value, str) else (0, float(value))  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=60, help="draws per family (default 60)")
    parser.add_argument("--family", action="append", default=[], help="only this family (repeatable)")
    args = parser.parse_args(argv)
    families = args.family or list(INSIDE_FAMILIES)
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        parser.error(f"unknown family {unknown[0]!r}")
    rng = np.random.default_rng(0)
    for family in families:
        spec = FAMILIES[family]
        kinds = spec.matrices or MATRIX_KINDS
        counts: dict[str, Counter] = defaultdict(Counter)
        started = time.process_time()
        for draw in range(args.draws):
            n = int(rng.integers(max(spec.min_n, 2), 13))
            d = int(rng.integers(max(spec.min_d, 2), 4))
            config = generate(family, int(rng.integers(2 ** 32)), n=n, d=d, matrix=kinds[draw % len(kinds)])
            for name, value in measure(config).items():
                counts[name][value] += 1
        print(f"{family} ({args.draws} draws, {time.process_time() - started:.1f} CPU s)")
        for name in QUANTITIES:
            shown = ", ".join(f"{value}: {count}" for value, count in sorted(counts[name].items(), key=lambda kv: _order(kv[0])))
            print(f"  {name:<14} {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
