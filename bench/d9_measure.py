"""Measurement of closed-form certificates (docs/theory.md D9) on the default campaign's configurations.

    python bench/d9_measure.py [--seeds 0-19] [--layer-budget 200] [--check] [--json FILE]

For every generated configuration of the default campaign (``report --seed s`` for each s; the
worked configurations too) it runs

* the D7 fates as the claim checks do (:func:`verify.claims.run_configuration`, the campaign's
  layer budget): settled or not, at which layer, and the time taken;
* the jump search of D9 from layer 0 (:func:`verify.core.closed_form.certify`): certified or
  unsettled (and why), the layer from which the certificate holds, the number of jumps,
  whether a t-power term (the t r^t term) was needed in any segment or in the final one, and
  whether the final certificate keeps a moving token in a set (where D7 cannot settle it);
* exact simulation of the same number of layers (the certificate's layer + 1) with
  :func:`verify.core.exact_dynamics.exact_layers`, as the time baseline;
* with ``--check``: the chain's positions and sets against the exact engine up to its layer + 2,
  and the independent checker (verify.certcheck) on its JSON (both must pass; a failure is reported).

It prints counts and times (CPU seconds of this process, so that other load on the machine
does not count; mean and total, and the ratio D9 / simulation) and can write every row as
JSON. Stop with Ctrl-C: the rows measured so far are summarised and written.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from verify import certcheck as checker  # noqa: E402
from verify.claims import run_configuration  # noqa: E402
from verify.core.closed_form import ExpPoly, certify, chain_to_json  # noqa: E402
from verify.core.exact_dynamics import exact_layers  # noqa: E402
from verify.app.campaign import build_configuration, default_spec, plan_tasks  # noqa: E402


def seeds(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def simulate(config, layers: int) -> float:
    started = time.process_time()
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A):
        if layer.index >= layers:
            break
    return time.process_time() - started


def agrees_with_engine(chain, config) -> bool:
    known = chain.known_until()
    last = chain.layer + 2 if known is None else known
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A):
        k = layer.index
        if chain.positions_at(k) != tuple(tuple(p) for p in layer.positions()):
            return False
        if (known is None or k < known) and chain.sets_at(k) != tuple(frozenset(s) for s in layer.attention_sets()):
            return False
        if k == last:
            return True
    return True  # pragma: no cover


def measure(task, config, *, layer_budget: int, check: bool) -> dict:
    started = time.process_time()
    run = run_configuration(config, layer_budget=layer_budget)
    d7_time = time.process_time() - started
    started = time.process_time()
    chain = certify(config.tokens, alpha=config.alpha, A=config.A)
    d9_time = time.process_time() - started
    row = {"name": task.name, "family": task.family, "n": config.n, "d": config.d, "alpha": str(config.alpha),
           "d7_settled_layer": run.settled_layer, "d7_time": d7_time,
           "d9_status": chain.status, "d9_reason": chain.reason.partition(":")[0], "d9_layer": chain.layer,
           "jumps": chain.jumps, "largest_jump": max((s.until or 0 for s in chain.segments), default=0),
           "power_terms": chain.power_terms(), "final_power_terms": chain.final.power_terms(),
           "d9_time": d9_time}
    if chain.certified:
        final = chain.final
        moving = {v for v, p in enumerate(final.paths) if p != ExpPoly.constant(p.at(0))}
        row["moving_member"] = any(moving & (s - {j}) for j, s in enumerate(final.sets))
        row["threshold"] = final.threshold
    row["simulated_layers"] = chain.layer + 1
    row["simulation_time"] = simulate(config, chain.layer + 1)
    if check:
        row["agrees"] = agrees_with_engine(chain, config)
        started = time.process_time()
        try:
            checker.verify_closed_form(chain_to_json(chain), positions=config.tokens, alpha=config.alpha, A=config.A)
            row["checker"] = "verified"
        except checker.Rejected as error:
            row["checker"] = f"rejected: {error}"
        except checker.TooExpensive:
            row["checker"] = "too expensive"
        row["checker_time"] = time.process_time() - started
    return row


def summarise(rows: list[dict]) -> str:
    total = len(rows)
    if not total:
        return "nothing measured"
    certified = [r for r in rows if r["d9_status"] == "certified"]
    d7_unsettled = [r for r in rows if r["d7_settled_layer"] is None]
    lines = [
        f"configurations: {total}",
        f"D7 fates settle within the layer budget: {total - len(d7_unsettled)}; unsettled: {len(d7_unsettled)}",
        f"D9 certified: {len(certified)}; unsettled: {total - len(certified)} "
        f"({', '.join(sorted({r['d9_reason'] for r in rows if r['d9_status'] != 'certified'})) or 'none'})",
        f"  of the D7-unsettled, D9 certifies: {sum(r['d9_status'] == 'certified' for r in d7_unsettled)}",
        f"  final certificate keeps a moving token in a set (D9 beyond D7): "
        f"{sum(bool(r.get('moving_member')) for r in certified)}",
        f"  needed a jump: {sum(r['jumps'] > 0 for r in rows)} (largest jump {max(r['largest_jump'] for r in rows)} "
        f"layers, largest certificate layer {max(r['d9_layer'] for r in rows)})",
        f"  t-power term in some segment: {sum(r['power_terms'] for r in rows)}; in the final one: "
        f"{sum(r['final_power_terms'] for r in rows)}",
        f"  mutual membership: {sum(r['d9_reason'] == 'mutual membership' for r in rows)}",
        f"  certificate layer <= D7 settled layer (where D7 settles): "
        f"{sum(r['d9_layer'] <= r['d7_settled_layer'] for r in certified if r['d7_settled_layer'] is not None)}"
        f" of {sum(r['d7_settled_layer'] is not None for r in certified)}",
    ]
    d9 = [r["d9_time"] for r in rows]
    sim = [r["simulation_time"] for r in rows]
    d7 = [r["d7_time"] for r in rows]
    lines += [
        f"time per configuration (s): D9 search mean {statistics.mean(d9):.4f} sd {statistics.pstdev(d9):.4f} "
        f"max {max(d9):.3f}; exact simulation of the same layers mean {statistics.mean(sim):.4f}; "
        f"D7 fates (claims run) mean {statistics.mean(d7):.4f}",
        f"totals (s): D9 {sum(d9):.1f}, simulation of the same layers {sum(sim):.1f} "
        f"(ratio {sum(d9) / max(sum(sim), 1e-12):.2f}), D7 run {sum(d7):.1f}",
        f"  on the D7-unsettled: D9 {sum(r['d9_time'] for r in d7_unsettled):.1f} s vs D7 run to the budget "
        f"{sum(r['d7_time'] for r in d7_unsettled):.1f} s",
    ]
    if "agrees" in rows[0]:
        lines.append(f"agreement with the exact engine: {sum(r['agrees'] for r in rows)} of {total}; "
                     f"checker verified {sum(r['checker'] == 'verified' for r in rows)}, "
                     f"rejected {sum(r['checker'].startswith('rejected') for r in rows)}, "
                     f"too expensive {sum(r['checker'] == 'too expensive' for r in rows)}; "
                     f"checker time total {sum(r['checker_time'] for r in rows):.1f} s")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0-19", help="campaign seeds, e.g. 0-19 or 7")
    parser.add_argument("--layer-budget", type=int, default=200)
    parser.add_argument("--check", action="store_true", help="compare with the engine and run the draft checker")
    parser.add_argument("--json", type=Path, help="write every row here")
    args = parser.parse_args()
    spec = default_spec()
    rows: list[dict] = []
    try:
        for seed in seeds(args.seeds):
            tasks = [t for t in plan_tasks(spec, seed=seed) if t.kind == "generated" or seed == seeds(args.seeds)[0]]
            for index, task in enumerate(tasks):
                config = build_configuration(task)
                rows.append({"seed": seed, **measure(task, config, layer_budget=args.layer_budget, check=args.check)})
                print(f"\rseed {seed}: {index + 1}/{len(tasks)} {task.name:<28}", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
    except KeyboardInterrupt:
        print("\ninterrupted: summarising what was measured", file=sys.stderr)
    print(summarise(rows))
    if args.json:
        temporary = args.json.with_suffix(args.json.suffix + ".tmp")
        temporary.write_text(json.dumps(rows, indent=1))
        temporary.replace(args.json)
    failures = [r for r in rows if r.get("agrees") is False or str(r.get("checker", "")).startswith("rejected")]
    for r in failures:
        print(f"FAILED: {r['name']}: agrees={r.get('agrees')} checker={r.get('checker')}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
