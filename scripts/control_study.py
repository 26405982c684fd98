"""The leader-control study (docs/control.md): writes the results file the report's section reads, and its figure.

    python scripts/control_study.py --seed 0 --out runs/control/study.json

writes ``study.json`` (format ``hardmax-verify/control-study-v1``) and ``two-clusterings.png``
beside it, each atomically. Same seed and versions: the same configurations and leader sets;
see docs/control.md for what is reproducible byte for byte. Progress goes to standard error;
Ctrl-C leaves the previous files as they were. Smaller runs (for a quick look):
``--rate-cases 60 --per-cell 1 --per-family 1``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from verify.experiments.control.study import draw_two_clusterings, run_study  # noqa: E402
from verify.core.io import atomic_write_bytes, atomic_write_text  # noqa: E402

FIGURE = "two-clusterings.png"


def _progress(phase: str, done: int, total: int) -> None:
    print(f"\r{phase}: {done} of {total}", end="\n" if done == total else "", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=REPO / "runs" / "control" / "study.json")
    parser.add_argument("--rate-cases", type=int, default=600, help="cases of the rounding-rate sample")
    parser.add_argument("--per-cell", type=int, default=6, help="generic configurations per (n, d)")
    parser.add_argument("--per-family", type=int, default=4, help="configurations per family")
    args = parser.parse_args(argv)
    try:
        data = run_study(args.seed, rate_cases=args.rate_cases, per_cell=args.per_cell, per_family=args.per_family,
                         progress=_progress)
    except KeyboardInterrupt:
        print("interrupted: nothing was written", file=sys.stderr)
        return 130
    if data["two_clusterings"] is not None:
        with tempfile.TemporaryDirectory() as folder:
            drawn = Path(folder) / FIGURE
            draw_two_clusterings(data["two_clusterings"], drawn)
            atomic_write_bytes(args.out.parent / FIGURE, drawn.read_bytes())
    atomic_write_text(args.out, json.dumps(data, indent=1) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
