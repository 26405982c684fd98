"""The atlas's two saved digests beside its sweeps (docs/sweep.md): general A, and leader control against n and d.

``python -m verify.experiments.conjectures.atlas_census general-a --grid scripts/atlas_general_a.toml --out DIR``
runs the **general-A census** (docs/theory.md §6): over the seeded families of
:mod:`verify.core.families` that break the symmetric positive definite hypothesis on purpose
(their configurations carry ``outside_hypotheses: true``), grouped into four classes of A
(non-symmetric positive definite, positive semidefinite of low rank, indefinite, negative
semidefinite), every configuration is checked with :func:`verify.claims.check_configuration`
(exact engine, float cross-checks off) and each claim T0..T4, D1..D3 is tallied certified,
failed or inconclusive. The first failure of each (class, claim) is saved as its claims report,
``DIR/counterexamples/CLASS-CLAIM.json``, and re-verified at once by the independent checker
(:func:`verify.certcheck.check_report`): a counterexample counts as certified only when the
checker re-verifies it (a D11 similarity certificate for T0, the replayed norms for D2, the
verified limit outside K for T3); any other failure is recorded as not re-verified.
``DIR/census.json`` keeps the tally and ``DIR/claims.png`` draws it.

``python -m verify.experiments.conjectures.atlas_census leader-control --study runs/control/study.json --out DIR``
digests the committed control study (docs/control.md, D10) into ``DIR/realisable.json``: per
(n, d) of its generic-token grid, the subsets of hull vertices realisable at layer 0, impossible
and inconclusive (each decided by an exact certificate the study checked, or by neither), beside
the study's solver evidence (how many cases a solver called feasible), with the study's sha256;
``DIR/realisable.png`` draws the realisable fraction against n, one line per d.

Both are deterministic: the same grid (or study file) and versions give the same bytes.
"""

from __future__ import annotations

import argparse
import copy
import io
import sys
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping, Sequence

from verify import certcheck
from verify.claims import check_configuration
from verify.core.families import FAMILIES, generate
from verify.core.figure_text import png_metadata
from verify.core.io import atomic_write_bytes, atomic_write_text, json_text, read_json, read_text, sha256_file
from verify.core.numbers import InputError, rational_to_str
from verify.experiments.control.report_section import read_study
from .sweep import sample_seed

__all__ = ["CENSUS_FORMAT", "CONTROL_FORMAT", "CLASSES", "CLAIMS", "read_grid", "run_census", "write_census",
           "leader_control_digest", "write_leader_control", "draw_census", "draw_leader_control", "main"]

CENSUS_FORMAT = "hardmax-verify/general-a-census-v1"
CONTROL_FORMAT = "hardmax-verify/atlas-leader-control-v1"
CENSUS_FILE, CENSUS_FIGURE = "census.json", "claims.png"
CONTROL_FILE, CONTROL_FIGURE = "realisable.json", "realisable.png"
# The classes of A of docs/theory.md §6, each drawn from the families of verify.core.families that build it.
CLASSES: dict[str, tuple[str, tuple[str, ...]]] = {
    "nonsymmetric_pd": ("non-symmetric positive definite", ("nonsymmetric_pd", "rotating_polygons", "cyclic_simplices")),
    "psd_low_rank": ("low-rank positive semidefinite", ("psd_low_rank",)),
    "indefinite": ("indefinite", ("indefinite",)),
    "negative_semidefinite": ("negative semidefinite", ("negative_semidefinite",)),
}
CLAIMS: tuple[str, ...] = ("T0", "T1", "T2", "T3", "T4", "D1", "D2", "D3")
STATUSES: tuple[str, ...] = ("certified", "failed", "inconclusive")
GRID_KEYS: tuple[str, ...] = ("n", "d", "alpha", "samples", "seed", "layers")
DPI = 110


# --------------------------------------------------------------------------- the general-A census

def read_grid(path: str | Path) -> dict[str, Any]:
    """The census grid of a TOML file (every key of :data:`GRID_KEYS`, nothing else); InputError names the key."""
    where = str(path)
    try:
        data = tomllib.loads(read_text(Path(path), expected="a TOML grid file"))
    except tomllib.TOMLDecodeError as error:
        raise InputError(where, f"not TOML: {error}") from None
    unknown = sorted(set(data) - set(GRID_KEYS))
    if unknown:
        raise InputError(f"{where}: {unknown[0]}", f"unknown key; expected {', '.join(GRID_KEYS)}")
    for key in GRID_KEYS:
        if key not in data:
            raise InputError(f"{where}: {key}", "missing")

    def positive_ints(key: str) -> list[int]:
        values = data[key]
        if not isinstance(values, list) or not values or not all(
                isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in values):
            raise InputError(f"{where}: {key}", "expected a nonempty list of positive integers")
        return list(values)

    alphas = []
    for value in data["alpha"] if isinstance(data["alpha"], list) else [None]:
        try:
            alpha = Fraction(str(value))
        except (ValueError, ZeroDivisionError):
            raise InputError(f"{where}: alpha", f"expected a list of exact numbers > 0, got {value!r}") from None
        if alpha <= 0:
            raise InputError(f"{where}: alpha", f"expected alpha > 0, got {value!r}")
        alphas.append(alpha)
    scalars = {}
    for key in ("samples", "seed", "layers"):
        value = data[key]
        if not isinstance(value, int) or isinstance(value, bool) or value < (0 if key == "seed" else 1):
            raise InputError(f"{where}: {key}", f"expected an integer {'>= 0' if key == 'seed' else '>= 1'}")
        scalars[key] = value
    return {"n": positive_ints("n"), "d": positive_ints("d"), "alpha": alphas, **scalars}


def _rechecked(report: dict[str, Any], claim: str) -> tuple[bool, str]:
    """Whether the independent checker re-verifies the failure of ``claim`` in ``report``, and its reason."""
    outcome = next((o for o in certcheck.check_report(copy.deepcopy(report)).outcomes if o.claim == claim), None)
    if outcome is None:
        return False, "the checker has no outcome for this claim"
    return outcome.status == "failed" and outcome.reason.startswith("re-verified:"), outcome.reason


def run_census(grid: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The census record and the claims report of each saved counterexample (file name -> report)."""
    classes = []
    saved: dict[str, dict[str, Any]] = {}
    for name, (label, families) in CLASSES.items():
        tally = {claim: {status: 0 for status in STATUSES} for claim in CLAIMS}
        first: dict[str, dict[str, Any]] = {}
        configurations = 0
        for family in families:
            spec = FAMILIES[family]
            for n in grid["n"]:
                for d in grid["d"]:
                    if n < spec.min_n or d < spec.min_d:
                        continue
                    for alpha in grid["alpha"]:
                        for j in range(grid["samples"]):
                            seed = sample_seed(grid["seed"], j)
                            config = generate(family, seed, n=n, d=d, alpha=alpha)
                            report = check_configuration(config, layer_budget=grid["layers"], cross_check=False)
                            configurations += 1
                            for claim in CLAIMS:
                                verdict = report.verdicts[claim]
                                tally[claim][verdict.status] += 1
                                if verdict.status == "failed" and claim not in first:
                                    first[claim] = {"family": family, "n": n, "d": d,
                                                    "alpha": rational_to_str(alpha), "sample": j,
                                                    "family_seed": seed, "summary": verdict.summary,
                                                    "report": report.to_json_dict()}
        claims = {}
        for claim in CLAIMS:
            entry: dict[str, Any] = dict(tally[claim])
            found = first.get(claim)
            if found is not None:
                report = found.pop("report")
                file = f"counterexamples/{name}-{claim}.json"
                saved[file] = report
                rechecked, reason = _rechecked(report, claim)
                found.update({"file": file, "rechecked": rechecked, "checker": reason})
            entry["counterexample"] = found
            claims[claim] = entry
        classes.append({"name": name, "label": label, "families": list(families), "configurations": configurations,
                        "claims": claims})
    record = {"format": CENSUS_FORMAT,
              "grid": {"n": list(grid["n"]), "d": list(grid["d"]),
                       "alpha": [rational_to_str(a) for a in grid["alpha"]], "samples": grid["samples"],
                       "seed": grid["seed"], "layers": grid["layers"]},
              "claims": list(CLAIMS), "classes": classes}
    return record, saved


def write_census(grid: Mapping[str, Any], out: Path) -> dict[str, Any]:
    """Run the census and write ``out/census.json``, its counterexamples and ``out/claims.png``; the record."""
    record, saved = run_census(grid)
    (out / "counterexamples").mkdir(parents=True, exist_ok=True)
    for stale in (out / "counterexamples").glob("*.json"):
        if stale.relative_to(out).as_posix() not in saved:
            stale.unlink()
    for file, report in saved.items():
        atomic_write_text(out / file, json_text(report, where=file))
    atomic_write_text(out / CENSUS_FILE, json_text(record, where=CENSUS_FILE))
    atomic_write_bytes(out / CENSUS_FIGURE, draw_census(record))
    return record


# --------------------------------------------------------------------------- leader control against n and d

def leader_control_digest(study_path: Path, label: str) -> dict[str, Any]:
    """Per (n, d) of the study's generic-token grid: configurations, subsets realisable / impossible / inconclusive."""
    study = read_study(read_json(study_path, expected="a control study (runs/control/study.json)"), study_path.name)
    cells: dict[tuple[int, int], dict[str, int]] = {}
    for row in study["against_n_and_d"]:
        cell = cells.setdefault((row["n"], row["d"]), {"configurations": 0, "subsets": 0, "realisable": 0,
                                                       "impossible": 0, "inconclusive": 0, "all_vertices_lead": 0})
        cell["configurations"] += 1
        for key in ("subsets", "realisable", "impossible", "inconclusive"):
            cell[key] += row[key]
        cell["all_vertices_lead"] += row["all_vertices"] == "realisable"
    rates = study["rounding"]
    return {"format": CONTROL_FORMAT,
            "source": {"path": label, "sha256": sha256_file(study_path), "seed": study["seed"]},
            "cells": [{"n": n, "d": d, **counts} for (n, d), counts in sorted(cells.items())],
            "solver": {key: rates[key] for key in ("cases", "solver_feasible", "exact_designs_of_solver_feasible",
                                                   "exact_designs", "impossible", "inconclusive")}}


def write_leader_control(study_path: Path, out: Path, label: str) -> dict[str, Any]:
    digest = leader_control_digest(study_path, label)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / CONTROL_FILE, json_text(digest, where=CONTROL_FILE))
    atomic_write_bytes(out / CONTROL_FIGURE, draw_leader_control(digest))
    return digest


# --------------------------------------------------------------------------- figures

def _figure(size: tuple[float, float]) -> Any:
    # matplotlib: seconds to import, needed only to draw.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size)
    FigureCanvasAgg(fig)
    return fig


def _png(fig: Any) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, metadata=png_metadata(fig, DPI))
    return buffer.getvalue()


# Cell colours: held on every configuration, a certified counterexample, a failure not re-verified, never decided.
HELD, REFUTED, UNVERIFIED, OPEN = "#4c9f70", "#c8553d", "#e8a87c", "#d9d9d9"


def census_cell(entry: Mapping[str, Any]) -> tuple[str, str]:
    """(colour, label) of one (class, claim) cell of the census figure."""
    total = sum(entry[s] for s in STATUSES)
    counterexample = entry.get("counterexample")
    if entry["failed"]:
        colour = REFUTED if counterexample and counterexample["rechecked"] else UNVERIFIED
        return colour, f"fails\n{entry['failed']}/{total}"
    if entry["certified"] == total:
        return HELD, f"held\n{total}/{total}"
    if entry["certified"] == 0:
        return OPEN, f"open\n0/{total}"
    return HELD, f"held\n{entry['certified']}/{total}*"


def draw_census(record: Mapping[str, Any]) -> bytes:
    """The census as a grid: one row per class of A, one column per claim, coloured by what the census shows."""
    from matplotlib.patches import Patch  # heavy: only to draw

    classes, claims = record["classes"], record["claims"]
    fig = _figure((6.8, 0.7 * len(classes) + 1.9))
    ax = fig.add_axes((0.24, 0.16, 0.75, 0.66))
    for r, cls in enumerate(classes):
        for c, claim in enumerate(claims):
            colour, text = census_cell(cls["claims"][claim])
            ax.add_patch(_rectangle(c, len(classes) - 1 - r, colour))
            ax.text(c + 0.5, len(classes) - 0.5 - r, text, ha="center", va="center", fontsize=8)
    ax.set_xlim(0, len(claims))
    ax.set_ylim(0, len(classes))
    ax.set_xticks([c + 0.5 for c in range(len(claims))], claims)
    ax.set_yticks([len(classes) - 0.5 - r for r in range(len(classes))],
                  [f"{_wrapped(cls['label'])}\n({cls['configurations']} configurations)" for cls in classes],
                  fontsize=8)
    ax.tick_params(length=0)
    ax.xaxis.tick_top()
    for spine in ax.spines.values():
        spine.set_visible(False)
    handles = [Patch(color=HELD, label="held on every configuration (* the rest inconclusive)"),
               Patch(color=REFUTED, label="fails: counterexample re-verified by certcheck"),
               Patch(color=UNVERIFIED, label="fails: not re-verified"), Patch(color=OPEN, label="never decided")]
    fig.legend(handles=handles, loc="lower center", ncol=2, fontsize=8, frameon=False)
    grid = record["grid"]
    fig.suptitle(f"General A (docs/theory.md §6): which claims survive, exact check of every configuration\n"
                 f"n {_span(grid['n'])}, d {_span(grid['d'])}, {grid['samples']} samples per cell, seed {grid['seed']}",
                 fontsize=9.5)
    return _png(fig)


def _rectangle(x: float, y: float, colour: str) -> Any:
    from matplotlib.patches import Rectangle  # heavy: only to draw

    return Rectangle((x + 0.04, y + 0.06), 0.92, 0.88, facecolor=colour, edgecolor="white")


def _wrapped(label: str, width: int = 18) -> str:
    """A class label on lines of about ``width`` characters (the figure's row labels)."""
    lines: list[str] = []
    for word in label.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "\n".join(lines)


def _span(values: Sequence[int]) -> str:
    return str(values[0]) if min(values) == max(values) else f"{min(values)}-{max(values)}"


def draw_leader_control(digest: Mapping[str, Any]) -> bytes:
    """The realisable fraction of hull-vertex subsets against n, one line per d, with the inconclusive share shaded."""
    fig = _figure((6.4, 3.9))
    ax = fig.add_axes((0.12, 0.14, 0.62, 0.74))
    ds = sorted({cell["d"] for cell in digest["cells"]})
    markers = "osD^v"
    for k, d in enumerate(ds):
        cells = [c for c in digest["cells"] if c["d"] == d and c["subsets"]]
        ns = [c["n"] for c in cells]
        realisable = [c["realisable"] / c["subsets"] for c in cells]
        undecided = [(c["realisable"] + c["inconclusive"]) / c["subsets"] for c in cells]
        line, = ax.plot(ns, realisable, marker=markers[k % len(markers)], label=f"d = {d}")
        ax.fill_between(ns, realisable, undecided, color=line.get_color(), alpha=0.2, linewidth=0)
    ax.set_xlabel("number of tokens n")
    ax.set_ylabel("subsets of hull vertices\nrealisable at layer 0")
    ax.set_ylim(0, 1.02)
    ax.set_xticks(sorted({c["n"] for c in digest["cells"]}))
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False,
              title="exact certificates\n(shade: inconclusive)", title_fontsize=8)
    fig.suptitle(f"Leader control (docs/theory.md D10): realisable leader sets, generic tokens, seed "
                 f"{digest['source']['seed']}", fontsize=9.5)
    return _png(fig)


# --------------------------------------------------------------------------- command line

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verify.experiments.conjectures.atlas_census",
                                     description="The atlas's general-A census and leader-control digest.")
    commands = parser.add_subparsers(dest="command", required=True)
    census = commands.add_parser("general-a", help="the general-A census (docs/theory.md §6)")
    census.add_argument("--grid", required=True)
    census.add_argument("--out", required=True)
    digest = commands.add_parser("leader-control", help="the control study against n and d (D10)")
    digest.add_argument("--study", required=True)
    digest.add_argument("--out", required=True)
    digest.add_argument("--label", default="runs/control/study.json", help="how the digest names the study file")
    args = parser.parse_args(argv)
    try:
        if args.command == "general-a":
            record = write_census(read_grid(args.grid), Path(args.out))
            unverified = [f"{cls['name']} {claim}" for cls in record["classes"] for claim, entry in cls["claims"].items()
                          if entry["counterexample"] and not entry["counterexample"]["rechecked"]]
            if unverified:
                print(f"atlas_census: failures not re-verified by certcheck: {', '.join(unverified)}", file=sys.stderr)
                return 3
        else:
            write_leader_control(Path(args.study), Path(args.out), args.label)
    except InputError as error:
        print(f"atlas_census: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
