"""How long the independent checker takes on files at the corners of its default limits.

    python bench/certcheck_limits.py [--only NAME]

Each workload is a claims report at a corner of verify/certcheck/kernel/limits.py's CHECKER_LIMITS, built here
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
* ``chain run n=N d=2``: ``check``'s report on bench/check_large.py's workload at the most tokens of
  ``leaders d=2``: stopped at layer 0, settled by D7 fates and a closed-form chain (D9) of short
  jumps and a final segment, whose every condition the checker verifies;
* ``softmax d=64 n=N`` and ``softmax d=1 n=3 L=K``: records of ``hardmax-verify softmax --json``
  (built by the engine) with the most tokens, and the most layers, within the softmax checker's
  default work (verify/certcheck/softmax/, in the same units), beta large enough to hold;
* ``control sets n=256 d=32 h=16``: a leader-sets result of 256 tokens in d = 32 with 16 hull
  vertices, all 65,535 subsets realisable, and as many designs as the control checker's work
  limit admits (verify/certcheck/control/); ``control sets h=16 65535 designs``: 65,535
  identical designs of 16 tokens in the plane, every other subset inconclusive (each compared
  with every design); ``control sets h=256``: 256 hull vertices and 60 designs in d = 32 (no
  such file can list its 2^256 - 1 subsets: rejected before any design).

Every corner must get its expected status: verified (exit 0), or rejected (exit 1) for the files wrong on purpose;
a file the checker refuses for another reason would time nothing of what is claimed here, so the bench then exits 1
naming the corner (tests/unit/test_bench_certcheck_limits.py checks the corners' construction at small sizes).

Target: every corner under 60 CPU seconds (docs/certcheck.md, Limits).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
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
from verify.certcheck import control as control_checker  # noqa: E402
from verify.certcheck.kernel import model as checker_model  # noqa: E402
from verify.certcheck import softmax as softmax_checker  # noqa: E402
from verify.experiments.control.result import STATEMENTS as CONTROL_STATEMENTS  # noqa: E402


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
        if certificate is None:  # an inconclusive verdict has no certificate field
            return {"claim": claim, "status": "inconclusive", "summary": "", "evidence": {}}
        return {"claim": claim, "status": "certified", "summary": "", "evidence": {}, "certificate": certificate}

    verdicts = {
        "T0": verdict("T0", {"layer": 0, "leaders": list(range(n))}),
        "T1": verdict("T1", {"last_layer": 0, "leaders": leaders, "settled_layer": 0, "fates": fates}),
        "T2": verdict("T2", {"settled_layer": 0, "fates": fates,
                             "vertices": [{"token": i, "limit": position[i], "direction": position[i]} for i in range(n)]}),
        "T3": verdict("T3", {"settled_layer": 0, "fates": fates, "boundary": []}),
        "T4": verdict("T4", {"vacuous": True, "settled_layer": 0, "fates": fates, "projections": []}),
        "D1": verdict("D1", None),
        "D2": verdict("D2", {"last_layer": 0, "norms": [[_text(x) for x in norms]]}),
        "D3": verdict("D3", {"last_layer": 0, "leaders": leaders}),
        "replay": verdict("replay", None),
    }
    return {"format": certcheck.FORMAT, "config": {"tokens": position, "alpha": "1/2"}, "outside_hypotheses": False,
            "hypothesis_violations": [], "layer_budget": 200, "time_budget": None, "last_layer": 0,
            "settled_layer": 0, "stopped_by": "settled", "status": "inconclusive", "fates": fates, "verdicts": verdicts}


CLAIMS = ("T0", "T1", "T2", "T3", "T4", "D1", "D2", "D3", "replay")


def _run(config: dict, last_layer: int, settled_layer: int | None, certified: dict[str, dict]) -> dict:
    """A run deciding every claim: the ``certified`` ones with their certificates, the others inconclusive."""
    verdicts = {claim: ({"claim": claim, "status": "certified", "summary": "", "evidence": {},
                         "certificate": certified[claim]} if claim in certified
                        else {"claim": claim, "status": "inconclusive", "summary": "", "evidence": {}})
                for claim in CLAIMS}
    return {"format": certcheck.FORMAT, "config": config, "outside_hypotheses": False, "hypothesis_violations": [],
            "layer_budget": 5000, "time_budget": None, "last_layer": last_layer, "settled_layer": settled_layer, "verdicts": verdicts}


def replay_report(n: int, d: int, alpha: str) -> dict:
    """n tokens at the last layer the per-configuration limit admits, a (wrong) final-positions certificate."""
    tokens = [[str((i * 37 + c * 11) % 97 + 1 + i) for c in range(d)] for i in range(n)]
    model = certcheck.Model({"tokens": tokens, "alpha": alpha})
    last = certcheck.max_checkable_layer(n, d, bits=model.bits, growth=model.growth)
    certificate = {"last_layer": last, "final_positions": [["0"] * d] * n}
    return _run({"tokens": tokens, "alpha": alpha}, last, None, {"replay": certificate})


def chain_report() -> dict:
    """Two tokens with a certified closed-form chain whose one term has power 10^18."""
    chain = {"format": certcheck.CLOSED_FORM_FORMAT, "status": "certified", "start_layer": 0, "segments": [
        {"layer": 0, "status": "certified", "sets": [[0], [1]], "until": None,
         "paths": [[{"base": "1", "power": 0, "coefficient": ["1", "0"]},
                    {"base": "1/2", "power": 10 ** 18, "coefficient": ["1", "0"]}],
                   [{"base": "1", "power": 0, "coefficient": ["0", "1"]}]]}]}
    config = {"tokens": [["1", "0"], ["0", "1"]], "alpha": "1/2"}
    fates = [{"token": t, "kind": "path", "layer": 0, "set": [t], "limit": ["1", "0"] if t == 0 else ["0", "1"]}
             for t in range(2)]
    certificate = {"last_layer": 0, "settled_layer": 0, "fates": fates, "closed_form": chain,
                   "leaders": [{"token": 0, "first_layer": 0, "position": ["1", "0"]},
                               {"token": 1, "first_layer": 0, "position": ["0", "1"]}]}
    return _run(config, 0, 0, {"T1": certificate})


def chain_run(n: int, layer_budget: int = 200) -> dict:
    """``check``'s report (float cross-checks off) on bench/check_large.py's workload of n tokens in d = 2: at the
    largest n the run stops at layer 0, most tokens locked by D7 and the rest settled by a D9 chain, whose (iii)
    the checker verifies on every row D7 leaves, against every token."""
    from verify.claims import check_configuration
    from verify.core.config import parse_configuration

    spec = importlib.util.spec_from_file_location("check_large", Path(__file__).with_name("check_large.py"))
    large = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(large)
    report = check_configuration(parse_configuration(large.workload(n, 0)), layer_budget=layer_budget, cross_check=False)
    return json.loads(json.dumps(report.to_json_dict()))


def softmax_record(tokens: list[list[str]], *, alpha: str, beta: int, layers: int) -> dict:
    """A record of ``hardmax-verify softmax --json``, built by the engine (the bench is not the checker)."""
    from verify.app.commands.softmax import certificate_record
    from verify.core.config import parse_configuration
    from verify.core.softmax_bound import softmax_certificate

    config = parse_configuration({"tokens": tokens, "alpha": alpha, "outside_hypotheses": True})
    certificate = softmax_certificate(config.tokens, alpha=config.alpha, beta=beta, layers=layers)
    assert certificate.holds, certificate.stop
    return json.loads(json.dumps(certificate_record(config, certificate)))


def _softmax_fits(n: int, d: int, layers: int, numbers: list[Fraction], alpha: Fraction) -> bool:
    bits = certcheck.input_bits(numbers + [alpha])
    growth = certcheck.replay_growth(alpha)
    return softmax_checker.estimated_work(n, d, layers, bits=bits, growth=growth) <= softmax_checker.DEFAULT_MAX_WORK


def softmax_wide(d: int) -> tuple[str, dict]:
    """The most tokens in dimension d (entries p/97) whose 8 layers fit the softmax checker's default work."""
    rng = __import__("random").Random(0)
    n = max(n for n in range(2, softmax_checker.MAX_TOKENS + 1)
            if _softmax_fits(n, d, 8, [Fraction(1, 97), Fraction(50)], Fraction(1, 2)))
    tokens = [[f"{rng.randint(-50, 50)}/97" for _ in range(d)] for _ in range(n)]
    return f"softmax d={d} n={n}", softmax_record(tokens, alpha="1/2", beta=1000, layers=8)


def softmax_long() -> tuple[str, dict]:
    """Three tokens on a line, one moving towards a leader every layer (its numbers grow), the most layers
    (beta = 10^1000: the margin halves each layer and must stay far above 1/beta)."""
    tokens = [["1"], ["-1"], ["1/2"]]
    layers = max(k for k in range(0, 20000, 10) if _softmax_fits(3, 1, k, [Fraction(1, 2)], Fraction(999, 1000)))
    # The stated bounds' sizes count too: the longest prefix of this record whose estimate fits, built again.
    data = softmax_record(tokens, alpha="999/1000", beta=10 ** 1000, layers=layers)
    records = data["softmax_certificate"]["records"]
    layers = max(k for k in range(len(records)) if softmax_checker.record_work(
        {**data, "softmax_certificate": {**data["softmax_certificate"], "records": records[:k + 1]}})
        <= softmax_checker.DEFAULT_MAX_WORK)
    return f"softmax d=1 n=3 L={layers}", softmax_record(tokens, alpha="999/1000", beta=10 ** 1000, layers=layers)


def _control_sets(tokens: list[list[Fraction]], vertices: int, designs: int, *, realisable: bool,
                  combinations: list[tuple[int, ...]] = ()) -> dict:
    """A leader-sets result: the first ``vertices`` tokens (equal norms) lead under A = I, token vertices + j is the
    mean of the vertices ``combinations[j]``; every subset realisable by design 0, or every one inconclusive."""
    text = [[_text(x) for x in t] for t in tokens]
    leaders = list(range(vertices))
    subsets, kinds = [], {"realisable": 0, "impossible": 0, "inconclusive": 0}
    for mask in range(1, 2 ** vertices):
        members = [v for v in leaders if mask >> v & 1]
        if realisable:
            subsets.append({"leaders": members, "outcome": "realisable", "by": 0})
        else:
            subsets.append({"leaders": members, "outcome": "inconclusive"})
        kinds["realisable" if realisable else "inconclusive"] += 1
    identity = [["1" if r == c else "0" for c in range(len(tokens[0]))] for r in range(len(tokens[0]))]
    design = {"A": identity, "pivots": ["1"] * len(tokens[0]), "leaders": leaders}
    inside = [{"token": j, "weights": [{"token": v, "weight": f"1/{len(combination)}"} for v in combination]}
              for j, combination in enumerate(combinations, start=vertices)]
    return {"format": control_checker.FORMAT, "kind": "leader_sets",
            "configuration": {"tokens": text, "alpha": "1"},
            "hull": {"vertices": [{"token": v, "direction": text[v]} for v in range(vertices)], "inside": inside},
            "designs": [design] * designs, "certificates": [], "subsets": subsets,
            "counts": {"subsets": 2 ** vertices - 1, **kinds},
            "maximal_realisable": [leaders] if realisable else [], "minimal_impossible": [],
            "replaced_A": None, "programs": 0, "exit_status": 0 if realisable else 3,
            # what the command states (the engine's statements, not the checker's copy)
            "proves": CONTROL_STATEMENTS["leader_sets"][0], "does_not_prove": CONTROL_STATEMENTS["leader_sets"][1]}


def control_dense(d: int = 32, h: int = 16, inside_triples: int = 120, designs: int | None = None) -> tuple[str, dict]:
    """256 tokens in d = 32: 16 vertices of equal norm (rotations of (1, ..., 32)) and 240 means of two or three
    of them (inside, never leading under A = I); the most designs (A = I) that fit the control checker's work
    (or ``designs``; smaller d, h and triples: the same construction at a size a test can check)."""
    vertices = [[Fraction((c + i) % d + 1) for c in range(d)] for i in range(h)]
    combinations = (list(itertools.combinations(range(h), 2))
                    + list(itertools.combinations(range(h), 3))[:inside_triples])
    inside = [[sum((vertices[v][c] for v in combination), Fraction(0)) / len(combination) for c in range(d)]
              for combination in combinations]
    tokens = vertices + inside
    assert len({tuple(t) for t in tokens}) == len(tokens)
    if designs is None:
        one = _control_sets(tokens, h, 1, realisable=True, combinations=combinations)
        fixed = control_checker.sized_work({**one, "designs": []}, "leader_sets", tokens)
        per_design = control_checker.sized_work(one, "leader_sets", tokens) - fixed
        designs = int((control_checker.MAX_WORK - fixed) // per_design)
    return (f"control sets n={len(tokens)} d={d} h={h} ({designs} designs)",
            _control_sets(tokens, h, designs, realisable=True, combinations=combinations))


def control_repeated_designs(half: int = 8, designs: int = 65535) -> tuple[str, dict]:
    """16 tokens on a parabola (all hull vertices), 65,535 identical designs (A = I); the subsets inside the design's
    leader set realisable, every other one inconclusive (each must be shown undecided by every design)."""
    tokens = [[Fraction(x), Fraction(x * x + 1)] for x in range(-half, half)]
    h = len(tokens)
    led = [i for i, t in enumerate(tokens)
           if all(t[0] * t[0] + t[1] * t[1] > t[0] * u[0] + t[1] * u[1] for j, u in enumerate(tokens) if j != i)]
    data = _control_sets(tokens, h, designs, realisable=False)
    data["hull"]["vertices"] = [{"token": i, "direction": [str(2 * (i - half)), "-1"]} for i in range(h)]
    for design in data["designs"][:1]:
        design["leaders"] = led
    realisable = []
    for entry in data["subsets"]:
        if set(entry["leaders"]) <= set(led):
            entry.update(outcome="realisable", by=0)
            realisable.append(entry["leaders"])
    data["counts"].update(realisable=len(realisable), inconclusive=2 ** h - 1 - len(realisable))
    data["maximal_realisable"] = [led]
    return f"control sets h={h} {designs} designs", data


def control_wide_hull() -> tuple[str, dict]:
    """256 tokens in d = 32, every one a hull vertex, 92 designs: 2^256 - 1 subsets can never be listed."""
    data = control_dense()[1]
    data["hull"]["vertices"] = [{"token": v, "direction": data["configuration"]["tokens"][v]} for v in range(256)]
    data["hull"]["inside"] = []
    data["designs"] = data["designs"][:1] * 60
    return "control sets h=256 (60 designs)", data


def measure_other(name: str, data: dict, folder: Path, kind: str) -> int:
    """A softmax record or a control result, checked by its own checker under its default limits."""
    path = folder / f"{name.split(' (')[0].replace(' ', '_').replace('/', '-')}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    started = time.process_time()
    charged: float | str = "-"
    try:
        if kind == "softmax":
            estimate = f"{softmax_checker.record_work(data):.3g}"
            result = softmax_checker.check_path(str(path))
            assert result is not None
            status, charged = result.exit_status, result.work
        else:
            tokens = [tuple(Fraction(x) for x in t) for t in data["configuration"]["tokens"]]
            estimate = f"{control_checker.sized_work(data, data['kind'], tokens):.3g}"
            check = control_checker.check_control_file(str(path))
            status = check.exit_status if check.status != "rejected" else 1
            if check.status == "rejected":
                print(f"  ({check.reasons[0][:160]})")
    except (softmax_checker.BadInput, control_checker.BadInput) as error:
        status, estimate = 2, "-"
        print(f"  ({str(error)[:160]})")
    seconds = time.process_time() - started
    charged_text = charged if isinstance(charged, str) else f"{charged:.3g}"
    print(f"{name:32s} {path.stat().st_size / 2**20:6.1f} MiB  estimated {estimate:>9s}  charged {charged_text:>9s} units  "
          f"exit {status}  {seconds:6.1f} CPU s", flush=True)
    return status


def measure(name: str, data: dict, folder: Path) -> int:
    path = folder / f"{name.replace(' ', '_').replace('/', '-')}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    runs = data.get("config") and [data] or []
    estimate = sum(certcheck.replay_work(len(r["config"]["tokens"]), len(r["config"]["tokens"][0]), r["last_layer"],
                                         certcheck.Model(r["config"]).bits, certcheck.Model(r["config"]).growth)
                   for r in runs)
    checker_model._MODELS.clear()
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
    return status


# The exit status each corner must get: 0 (verified) for a file built right, 1 (rejected) for the files wrong on
# purpose. A corner that gets another status timed the wrong thing (a file the checker refused early, say): the
# bench then fails, naming it.
VERIFIED, REJECTED = 0, 1


def main() -> int:
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
        f"leaders d=64 n={n64}": (lambda: leaders_report(_sphere(n64, 64)), VERIFIED),
        f"leaders d=16 n={n16}": (lambda: leaders_report(_sphere(n16, 16)), VERIFIED),
        f"leaders d=2 n={n2}": (lambda: leaders_report(_sphere(n2, 2)), VERIFIED),
        "replay n=60 d=2 alpha=1/2": (lambda: replay_report(60, 2, "1/2"), REJECTED),
        "replay n=2 d=1 alpha=999/1000": (lambda: replay_report(2, 1, "999/1000"), REJECTED),
        "chain power 10^18": (chain_report, REJECTED),
        f"chain run n={n2} d=2": (lambda: chain_run(n2), VERIFIED),
    }
    others = {"softmax d=64": ("softmax", lambda: softmax_wide(64), VERIFIED),
              "softmax d=1": ("softmax", softmax_long, VERIFIED),
              "control sets n=256": ("control", control_dense, VERIFIED),
              "control sets h=16 65535": ("control", control_repeated_designs, VERIFIED),
              "control sets h=256": ("control", control_wide_hull, REJECTED)}
    wrong: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        for name, (build, expected) in corners.items():
            if args.only is None or args.only in name:
                if measure(name, build(), Path(folder)) != expected:
                    wrong.append(f"{name} (expected exit {expected})")
        for key, (kind, make, expected) in others.items():
            if args.only is None or args.only in key:
                name, data = make()
                if measure_other(name, data, Path(folder), kind) != expected:
                    wrong.append(f"{name} (expected exit {expected})")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if wrong:
        print(f"FAILED: {len(wrong)} corner(s) did not get their expected status, so their times measure something "
              f"else: {'; '.join(wrong)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
