"""How long the independent checker takes on files at the corners of its default limits.

    python bench/certcheck_limits.py [--only NAME]

Each workload is a claims report at a corner of verify/certcheck.py's CHECKER_LIMITS, built here
(never read from elsewhere), and checked in this process with ``certcheck.check_file`` under the
default limits; printed per corner: the checker's estimate of the replay work (work units), the
units its meter charged, the exit status and the CPU seconds of this process (one core; the
machine may be shared, so wall time is not used). The corners:

* ``leaders d=D``: the most tokens ``check`` accepts in dimension D (layer 0 within the
  per-configuration work limit), every token a leader at layer 0, with every certificate
  (T2 compares every leader with every other: the quadratic part of the checks);
* ``replay n=60 d=2`` and ``replay n=2 d=1 alpha=999/1000``: the last layer the per-configuration
  limit admits, the replay checked against a certificate of the final positions (wrong on
  purpose: the time is the replay's, the verdict a rejection);
* ``chain power 10^18``: a closed-form chain (D9) whose term has power 10^18 (rejected: no
  solution of the update rule has it);

Target: every corner under 60 CPU seconds (docs/certcheck.md, Limits).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from verify import certcheck  # noqa: E402


def _text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _sphere(n: int, d: int) -> list[list[Fraction]]:
    """n distinct integer points of one norm in R^d: with A = I every one is a leader at layer 0.

    d = 2: the Gaussian integers of norm 5 * 13 * 17 * ... (a product of primes 1 mod 4 has many);
    otherwise: the vector (1, 2, ..., d) with the signs of its coordinates flipped in n ways.
    """
    if d == 2:
        points = [(1, 0)]
        for a, b in ((1, 2), (2, 3), (1, 4), (2, 5), (1, 6), (4, 5), (2, 7), (5, 6), (3, 8), (5, 8), (4, 9)):
            points = [(x * c - y * e, x * e + y * c) for x, y in points for c, e in ((a, b), (a, -b))]
        points = sorted({(sx * x, sy * y) for x, y in points for sx in (1, -1) for sy in (1, -1)})
        return [[Fraction(x), Fraction(y)] for x, y in points[:n]]
    return [[Fraction((c + 1) * (-1 if (i >> c) & 1 else 1)) for c in range(d)] for i in range(n)]


def leaders_report(points: list[list[Fraction]]) -> dict:
    """A claims report in which every token leads at layer 0 (checked here), with every certificate."""
    n = len(points)
    norms = [sum(x * x for x in p) for p in points]
    for i, p in enumerate(points[:50]):  # a sample: the checker decides them all
        assert all(sum(a * b for a, b in zip(p, q)) < norms[i] for j, q in enumerate(points) if j != i)
    position = [[_text(x) for x in p] for p in points]
    fates = [{"token": i, "kind": "leader", "layer": 0, "set": [i], "limit": position[i]} for i in range(n)]
    leaders = [{"token": i, "first_layer": 0, "position": position[i]} for i in range(n)]

    def verdict(claim: str, certificate: dict | None) -> dict:
        status = "certified" if certificate is not None else "inconclusive"
        return {"claim": claim, "status": status, "summary": "", "evidence": {}, "certificate": certificate}

    verdicts = {
        "T0": verdict("T0", {"layer": 0, "leaders": list(range(n))}),
        "T1": verdict("T1", {"last_layer": 0, "leaders": leaders, "settled_layer": 0, "fates": fates}),
        "T2": verdict("T2", {"settled_layer": 0, "fates": fates,
                             "vertices": [{"token": i, "limit": position[i], "direction": position[i]} for i in range(n)]}),
        "T3": verdict("T3", {"settled_layer": 0, "fates": fates, "boundary": []}),
        "T4": verdict("T4", {"vacuous": True, "fates": fates, "projections": []}),
        "D1": verdict("D1", None),
        "D2": verdict("D2", {"last_layer": 0, "norms": [[_text(x) for x in norms]]}),
        "D3": verdict("D3", {"last_layer": 0, "leaders": leaders}),
        "replay": verdict("replay", None),
    }
    return {"format": certcheck.FORMAT, "config": {"tokens": position, "alpha": "1/2"}, "last_layer": 0,
            "settled_layer": 0, "stopped_by": "settled", "status": "inconclusive", "fates": fates, "verdicts": verdicts}


def replay_report(n: int, d: int, alpha: str) -> dict:
    """n tokens at the last layer the per-configuration limit admits, a (wrong) final-positions certificate."""
    tokens = [[str((i * 37 + c * 11) % 97 + 1 + i) for c in range(d)] for i in range(n)]
    model = certcheck.Model({"tokens": tokens, "alpha": alpha})
    last = certcheck.max_checkable_layer(n, d, bits=model.bits, growth=model.growth)
    certificate = {"last_layer": last, "final_positions": [["0"] * d] * n}
    return {"format": certcheck.FORMAT, "config": {"tokens": tokens, "alpha": alpha}, "last_layer": last,
            "settled_layer": None, "verdicts": {"replay": {"claim": "replay", "status": "certified", "summary": "",
                                                           "evidence": {}, "certificate": certificate}}}


def chain_report() -> dict:
    """Two tokens with a certified closed-form chain whose one term has power 10^18."""
    chain = {"format": certcheck.CLOSED_FORM_FORMAT, "status": "certified", "start_layer": 0, "segments": [
        {"layer": 0, "sets": [[0], [1]], "until": None,
         "paths": [[{"base": "1", "power": 0, "coefficient": ["1", "0"]},
                    {"base": "1/2", "power": 10 ** 18, "coefficient": ["1", "0"]}],
                   [{"base": "1", "power": 0, "coefficient": ["0", "1"]}]]}]}
    config = {"tokens": [["1", "0"], ["0", "1"]], "alpha": "1/2"}
    fates = [{"token": t, "kind": "path", "layer": 0, "set": [t], "limit": ["1", "0"] if t == 0 else ["0", "1"]}
             for t in range(2)]
    certificate = {"last_layer": 0, "settled_layer": 0, "fates": fates, "closed_form": chain,
                   "leaders": [{"token": 0, "first_layer": 0, "position": ["1", "0"]},
                               {"token": 1, "first_layer": 0, "position": ["0", "1"]}]}
    return {"format": certcheck.FORMAT, "config": config, "last_layer": 0, "settled_layer": 0,
            "verdicts": {"T1": {"claim": "T1", "status": "certified", "summary": "", "evidence": {},
                                "certificate": certificate}}}


def measure(name: str, data: dict, folder: Path) -> None:
    path = folder / f"{name.replace(' ', '_').replace('/', '-')}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    runs = data.get("config") and [data] or []
    estimate = sum(certcheck.replay_work(len(r["config"]["tokens"]), len(r["config"]["tokens"][0]), r["last_layer"],
                                         certcheck.Model(r["config"]).bits, certcheck.Model(r["config"]).growth)
                   for r in runs)
    certcheck._MODELS.clear()
    started = time.process_time()
    charged = 0.0
    try:
        result = certcheck.check_file(str(path))
        status, charged = result.exit_status, result.work
    except certcheck.BadInput as error:
        status = 2
        print(f"  ({certcheck.one_line(str(error))[:160]})")
    seconds = time.process_time() - started
    print(f"{name:32s} {path.stat().st_size / 2**20:6.1f} MiB  estimated {estimate:9.3g}  charged {charged:9.3g} units  "
          f"exit {status}  {seconds:6.1f} CPU s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=None, help="run the corners whose name contains this text")
    args = parser.parse_args()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"certcheck at the corners of its default limits (per configuration {certcheck.DEFAULT_MAX_WORK:.3g} units, "
          f"per file {certcheck.DEFAULT_MAX_TOTAL_WORK:.3g}); load average before: {load}")
    n64 = max(n for n in range(1, 2000) if certcheck.replay_work(n, 64, 0) <= certcheck.DEFAULT_MAX_WORK)
    n16 = max(n for n in range(1, 4000) if certcheck.replay_work(n, 16, 0) <= certcheck.DEFAULT_MAX_WORK)
    n2 = max(n for n in range(1, 8000) if certcheck.replay_work(n, 2, 0) <= certcheck.DEFAULT_MAX_WORK)
    corners = {
        f"leaders d=64 n={n64}": lambda: leaders_report(_sphere(n64, 64)),
        f"leaders d=16 n={n16}": lambda: leaders_report(_sphere(n16, 16)),
        f"leaders d=2 n={n2}": lambda: leaders_report(_sphere(n2, 2)),
        "replay n=60 d=2 alpha=1/2": lambda: replay_report(60, 2, "1/2"),
        "replay n=2 d=1 alpha=999/1000": lambda: replay_report(2, 1, "999/1000"),
        "chain power 10^18": chain_report,
    }
    with tempfile.TemporaryDirectory() as folder:
        for name, build in corners.items():
            if args.only is None or args.only in name:
                measure(name, build(), Path(folder))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
