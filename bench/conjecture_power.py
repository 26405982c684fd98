"""The conjecture lab's power: how much default search each known-false statement needs before it is refuted.

    python bench/conjecture_power.py                              # every statement, 5 seeds, print the table
    python bench/conjecture_power.py --json runs/conjectures/power/power.json   # what the docs and the report show
    python bench/conjecture_power.py --only at_most_d_plus_one_leaders --seeds 2
    python bench/conjecture_power.py --only NAME --merge runs/conjectures/power/power.json   # measure one, keep the rest

The statements are the catalogue of known-false statements (verify.experiments.conjectures.catalogue), the
held-out ones, written with a hand-found counterexample before the lab searched them
(verify.experiments.conjectures.heldout), and the built-in conjectures expected to be refuted
(verify.experiments.conjectures.builtin). Each is run as
``hardmax-verify conjecture run NAME`` runs it by default (a budget of 60 seconds, the rotation
of families, sizes growing with the rounds) with seeds 0..4; recorded per seed: whether it was
refuted within the budget, the examples drawn up to the first counterexample (the same on
every machine: the search's examples do not depend on its speed), the CPU and wall seconds to
that counterexample and to the end (shrinking and the exact re-check from the saved file
included), and the size of the reported counterexample. The table gives the median over the
seeds and the range.

Times are those of one process on the machine that ran it; the file records the cores and the
load average before and after (a shared machine stretches wall time, CPU time much less).
``--json FILE`` writes format hardmax-verify/conjecture-power-v1, which
scripts/readme_numbers.py turns into the table of docs/conjectures.md and the report's
conjecture section shows. ``--merge FILE`` measures only the statements named with ``--only``
and writes them into an existing power file of the same seeds and budget, replacing their old
entries and keeping every other one; the file's top-level fields still describe the run that
wrote it whole, and each merge is recorded in its ``updates`` list (date, command, load, cores,
statements).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from verify.experiments.conjectures import run_conjecture  # noqa: E402
from verify.experiments.conjectures.builtin import BUILTIN_CONJECTURES  # noqa: E402
from verify.experiments.conjectures.catalogue import CATALOGUE  # noqa: E402
from verify.experiments.conjectures.heldout import HELD_OUT  # noqa: E402
from verify.experiments.conjectures.report_section import POWER_FORMAT, power_rows  # noqa: E402
from verify.experiments.conjectures.search import DEFAULT_SECONDS  # noqa: E402
from verify.core.io import atomic_write_text  # noqa: E402

SEEDS = 5


def statements() -> dict[str, tuple[str, Any]]:
    """name -> (group, conjecture): the catalogue, the held-out statements, then the built-in conjectures expected
    to be refuted."""
    found: dict[str, tuple[str, Any]] = {name: ("catalogue", c) for name, c in CATALOGUE.items()}
    found.update({name: ("held-out", c) for name, c in HELD_OUT.items()})
    found.update({name: ("built-in", c) for name, c in BUILTIN_CONJECTURES.items() if c.expected == "refuted"})
    return found


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def measure(conjecture: Any, seed: int, seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        result = run_conjecture(conjecture, seconds=seconds, seed=seed, results_dir=Path(folder))
    refuted = result.outcome == "counterexample"
    run: dict[str, Any] = {"seed": seed, "outcome": result.outcome, "refuted": refuted,
                           "examples": result.examples_to_counterexample if refuted else result.examples_run,
                           "cpu_seconds": round(result.cpu_seconds_to_counterexample if refuted else result.cpu_seconds, 3),
                           "seconds": round(result.seconds_to_counterexample if refuted else result.seconds, 3),
                           "cpu_seconds_total": round(result.cpu_seconds, 3), "seconds_total": round(result.seconds, 3)}
    if refuted and result.counterexample is not None:
        config = result.counterexample["config"]
        run["counterexample"] = {"n": len(config["tokens"]), "d": len(config["tokens"][0]),
                                 "shrunk_from_n": result.counterexample["shrinking"]["first_found"]["n"]}
    return run


def _median(values: list[float]) -> float:
    return round(float(statistics.median(values)), 3)


def summarise(name: str, group: str, conjecture: Any, runs: list[dict[str, Any]]) -> dict[str, Any]:
    refuted = [r for r in runs if r["refuted"]]
    entry: dict[str, Any] = {"name": name, "group": group, "statement": conjecture.statement,
                             "refuted": len(refuted), "seeds": len(runs), "runs": runs}
    if refuted:
        for key in ("examples", "cpu_seconds", "seconds", "cpu_seconds_total", "seconds_total"):
            values = [r[key] for r in refuted]
            entry[key] = {"median": _median(values), "min": min(values), "max": max(values)}
        entry["counterexample_n"] = {"min": min(r["counterexample"]["n"] for r in refuted),
                                     "max": max(r["counterexample"]["n"] for r in refuted)}
    return entry


def merged(base: dict[str, Any], entries: list[dict[str, Any]], *, order: list[str], command: str,
           load: tuple[list[float], list[float]]) -> dict[str, Any]:
    """``base`` with ``entries`` in place of its entries of the same names (new names added), in ``order``
    (names outside it last, as they were), and the merge recorded in ``updates``."""
    by_name = {entry["name"]: entry for entry in base["statements"]}
    by_name.update({entry["name"]: entry for entry in entries})
    rank = {name: i for i, name in enumerate(order)}
    ordered = sorted(by_name.values(), key=lambda e: rank.get(e["name"], len(rank)))  # stable: unknown names keep their order
    update = {"date": datetime.date.today().isoformat(), "command": command, "cores": os.cpu_count(),
              "load_average_before": load[0], "load_average_after": load[1],
              "statements": [entry["name"] for entry in entries]}
    return {**base, "statements": ordered, "updates": [*base.get("updates", []), update]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=SEEDS, help=f"seeds 0..N-1 per statement (default {SEEDS})")
    parser.add_argument("--time", type=float, default=DEFAULT_SECONDS,
                        help=f"budget of each run in seconds (default {DEFAULT_SECONDS:g}: the command's default)")
    parser.add_argument("--only", action="append", default=[], help="measure only this statement (repeatable)")
    parser.add_argument("--json", type=Path, default=None, help="write the measurements to this file (atomically)")
    parser.add_argument("--merge", type=Path, default=None,
                        help="measure the --only statements and write them into this existing power file (same seeds "
                             "and budget), keeping its other statements")
    args = parser.parse_args(argv)
    if args.merge is not None and (args.json is not None or not args.only):
        parser.error("--merge FILE needs --only NAME (one or more) and replaces --json")
    chosen = statements()
    unknown = [name for name in args.only if name not in chosen]
    if unknown:
        parser.error(f"unknown statement {unknown[0]!r}; known: {', '.join(chosen)}")
    if args.only:
        chosen = {name: chosen[name] for name in args.only}
    base = None
    if args.merge is not None:
        base = json.loads(args.merge.read_text(encoding="utf-8"))
        if base.get("format") != POWER_FORMAT or base.get("seeds") != args.seeds or base.get("budget_seconds") != args.time:
            parser.error(f"--merge: {args.merge} is not a power file of {args.seeds} seeds and {args.time:g} s each")
    load_before = _load()
    print(f"conjecture power: {len(chosen)} statements x {args.seeds} seeds, budget {args.time:g} s each; "
          f"cores: {os.cpu_count()}; load average before: {' '.join(map(str, load_before))}", flush=True)
    entries = []
    for name, (group, conjecture) in chosen.items():
        runs = []
        for seed in range(args.seeds):
            runs.append(measure(conjecture, seed, args.time))
            print(f"  {name} seed {seed}: {runs[-1]['outcome']} after {runs[-1]['examples']:,} examples, "
                  f"{runs[-1]['cpu_seconds']:.1f} CPU s", file=sys.stderr, flush=True)
        entries.append(summarise(name, group, conjecture, runs))
    load_after = _load()
    if base is not None:
        data = merged(base, entries, order=list(statements()), command="python bench/conjecture_power.py "
                      + " ".join(f"--only {name}" for name in args.only) + f" --merge {args.merge}",
                      load=(load_before, load_after))
        atomic_write_text(args.merge, json.dumps(data, indent=1) + "\n")
        print(f"wrote {args.merge} ({len(entries)} statements measured, {len(data['statements'])} in the file)",
              file=sys.stderr)
        headers, rows = power_rows(data)
        print("| " + " | ".join(headers) + " |")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return 0 if all(entry["refuted"] == entry["seeds"] for entry in entries) else 1
    data = {"format": POWER_FORMAT, "date": datetime.date.today().isoformat(),
            "command": "python bench/conjecture_power.py" + (f" --seeds {args.seeds}" if args.seeds != SEEDS else "")
            + (f" --time {args.time:g}" if args.time != DEFAULT_SECONDS else ""),
            "budget_seconds": args.time, "seeds": args.seeds, "cores": os.cpu_count(),
            "load_average_before": load_before, "load_average_after": load_after,
            "times": "CPU and wall seconds of this one process, up to the first counterexample (median over the "
                     "seeds that refuted); *_total: to the end of the run, shrinking and re-check included",
            "statements": entries}
    headers, rows = power_rows(data)
    print("| " + " | ".join(headers) + " |")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"load average after: {' '.join(map(str, load_after))}")
    if args.json is not None:
        atomic_write_text(args.json, json.dumps(data, indent=1) + "\n")
        print(f"wrote {args.json}", file=sys.stderr)
    return 0 if all(entry["refuted"] == entry["seeds"] for entry in entries) else 1


if __name__ == "__main__":
    sys.exit(main())
