"""The atlas: docs/theory.md §6's open questions, measured, as a section of the verification report.

It reads the sweeps saved under RUNS/atlas/ (``MEASUREMENT/sweep.json`` with its figures beside
it), written by one command, ``scripts/atlas.sh`` (:data:`COMMAND`; the grid is
``scripts/atlas.toml``). One subsection per question it has data for:

* emergence (``last_leader_layer``): the latest first-leading layer per (family, n, alpha), its
  extreme certified by the exact check (T1's certificate records every leader's first layer);
* eventual constancy (``constancy_layer``): the layer from which the attention pattern stays
  constant against alpha, with a fitted c / alpha (a float fit: evidence) and the samples the
  exact run could not settle within the layer budget.

Each subsection opens with a one-sentence answer and says what is certified (the extremes) and
what is measured (medians, fits). The other questions of §6 (general A, leader control) are
shown by the conjecture lab's and leader control's sections.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping, Sequence

from verify.core.numbers import InputError
from verify.core.text import short_number
from ..sections import Figure, Section, Table, need_field
from .sweep import SWEEP_FORMAT

__all__ = ["key", "folder", "patterns", "figures_folder", "produced_by", "glance_title", "item_fields", "figure_files",
           "section", "glance_numbers", "glance_sentence", "read_sweep", "COMMAND", "QUESTIONS", "fitted_c"]

key = "atlas"
folder = "atlas"
patterns: tuple[str, ...] = ("*/sweep.json",)
figures_folder: str | None = "figures/atlas"
COMMAND = "scripts/atlas.sh RUNS/atlas"
produced_by = f"`{COMMAND}` (docs/sweep.md)"
TITLE = "Open questions, measured (docs/theory.md §6)"
glance_title = "Open questions"
# measurement -> the question it measures (a subsection each, in this order)
QUESTIONS: dict[str, str] = {"last_leader_layer": "Emergence: how late does the last leader appear?",
                             "constancy_layer": "Eventual constancy: from which layer is the attention pattern "
                                                "constant?"}
_RESULT_FIELDS = ("samples", "defined", "undefined", "q50", "max", "status")


_need = need_field


def _value(data: Any, field: str, where: str) -> int | None:
    return _need(data, field, (int, type(None)), where)


def read_sweep(data: Any, where: str = "sweep.json") -> dict[str, Any]:
    """The fields of a saved sweep the section shows, checked (InputError names the field): a projection of the file."""
    if not isinstance(data, Mapping) or data.get("format") != SWEEP_FORMAT:
        raise InputError(f"{where}.format", f"expected {SWEEP_FORMAT!r}")
    cells = []
    for k, entry in enumerate(_need(data, "cells", list, where)):
        at = f"{where}.cells[{k}]"
        cell = _need(entry, "cell", Mapping, at)
        shown_cell = {"family": _need(cell, "family", str, f"{at}.cell"), "n": _need(cell, "n", int, f"{at}.cell"),
                      "d": _need(cell, "d", int, f"{at}.cell"), "alpha": _need(cell, "alpha", str, f"{at}.cell")}
        try:
            Fraction(shown_cell["alpha"])
        except (ValueError, ZeroDivisionError):
            raise InputError(f"{at}.cell.alpha", f"expected an exact number, got {shown_cell['alpha']!r}") from None
        result = _need(entry, "result", (Mapping, type(None)), at)
        shown_result: dict[str, Any] | None = None
        if result is not None:
            shown_result = {name: (_need(result, name, str, f"{at}.result") if name == "status"
                                   else _value(result, name, f"{at}.result")) for name in _RESULT_FIELDS}
            extreme = _need(result, "extreme", (Mapping, type(None)), f"{at}.result")
            shown_result["extreme"] = None if extreme is None else {
                "certified": _need(extreme, "certified", bool, f"{at}.result.extreme"),
                "certified_value": _value(extreme, "certified_value", f"{at}.result.extreme")}
        cells.append({"cell": shown_cell, "result": shown_result})
    grid = _need(data, "grid", Mapping, where)
    return {"measurement": _need(data, "measurement", str, where),
            "grid": {"samples": _need(grid, "samples", int, f"{where}.grid"),
                     "seed": _need(grid, "seed", int, f"{where}.grid"),
                     "layers": _need(grid, "layers", int, f"{where}.grid")},
            "cells": cells}


def item_fields(path: Path, data: Any) -> dict[str, Any]:
    return {"sweep": read_sweep(data, f"{path.parent.name}/{path.name}")}


def figure_files(paths: Sequence[Path]) -> list[Path]:
    """The PNGs beside each sweep.json (scripts/atlas.sh puts them there), sorted."""
    return [png for path in paths for png in sorted(path.parent.glob("*.png")) if png.is_file()]


# --------------------------------------------------------------------------- showing

def fitted_c(points: Sequence[tuple[Fraction, int]]) -> float | None:
    """The least-squares c of value = c / alpha over (alpha, value) points (a float fit: evidence); None without any."""
    if not points:
        return None
    numerator = sum(float(Fraction(value) / alpha) for alpha, value in points)
    denominator = sum(float(1 / alpha ** 2) for alpha, _ in points)
    return numerator / denominator if denominator else None


def _extreme(result: Mapping[str, Any] | None) -> str:
    if result is None:
        return "n/a"
    extreme = result.get("extreme")
    if not extreme:
        return "-"
    if extreme["certified"]:
        return str(extreme["certified_value"])
    return f"{result['max']} (not certified)"


def _grouped(sweep: Mapping[str, Any]) -> tuple[list[str], dict[tuple[str, int, int], dict[str, Any]]]:
    alphas = sorted({c["cell"]["alpha"] for c in sweep["cells"]}, key=Fraction)
    rows: dict[tuple[str, int, int], dict[str, Any]] = {}
    for entry in sweep["cells"]:
        cell = entry["cell"]
        rows.setdefault((cell["family"], cell["n"], cell["d"]), {})[cell["alpha"]] = entry["result"]
    return alphas, rows


def _certified(sweep: Mapping[str, Any]) -> list[tuple[dict[str, Any], int]]:
    return [(e["cell"], e["result"]["extreme"]["certified_value"]) for e in sweep["cells"]
            if e["result"] and e["result"]["extreme"] and e["result"]["extreme"]["certified"]]


def _counts(sweep: Mapping[str, Any]) -> tuple[int, int]:
    measured = [e["result"] for e in sweep["cells"] if e["result"] is not None]
    return len(measured), sum(1 for r in measured if r["extreme"] and r["extreme"]["certified"])


def _where(cell: Mapping[str, Any]) -> str:
    return f"{cell['family']}, n = {cell['n']}, d = {cell['d']}, alpha = {short_number(Fraction(cell['alpha']))}"


def _emergence(sweep: Mapping[str, Any]) -> Table:
    alphas, rows = _grouped(sweep)
    certified = _certified(sweep)
    cells, certified_cells = _counts(sweep)
    if certified:
        cell, latest = max(certified, key=lambda item: (item[1], -Fraction(item[0]["alpha"])))
        per_alpha = [f"{max(v for c, v in certified if c['alpha'] == a)} at alpha = {short_number(Fraction(a))}"
                     for a in alphas if any(c["alpha"] == a for c, _ in certified)]
        listed = ", ".join(per_alpha[:-1]) + " and " + per_alpha[-1] if len(per_alpha) > 1 else per_alpha[0]
        answer = (f"Leaders can emerge late, the latest at layer {latest} in this grid ({_where(cell)}); per alpha "
                  f"the latest certified first-leading layer is {listed}.")
    else:
        answer = "No extreme of this sweep is certified, so it answers nothing yet."
    table_rows = [[family, str(n), str(d), *(f"{_extreme(results.get(a))} / {_median(results.get(a))}"
                                              for a in alphas)]
                  for (family, n, d), results in sorted(rows.items())]
    return Table(heading=QUESTIONS["last_leader_layer"], intro=answer,
                 headers=["family", "n", "d", *(f"alpha {short_number(Fraction(a))}" for a in alphas)],
                 rows=table_rows,
                 note=(f"Each entry: the cell's latest first-leading layer over {sweep['grid']['samples']} seeded samples "
                       f"(seed {sweep['grid']['seed']}) / its median. **Certified**: {certified_cells} of {cells} "
                       "extremes, each re-computed with the exact engine and every claim certified (T1's certificate "
                       "records each leader's first leading layer; `hardmax-verify certcheck` re-verifies it). "
                       "**Measured**: the medians (the float screen under its proven rounding bound, or exact runs)."))


def _median(result: Mapping[str, Any] | None) -> str:
    return "-" if result is None or result["q50"] is None else str(result["q50"])


def _constancy(sweep: Mapping[str, Any]) -> Table:
    alphas, rows = _grouped(sweep)
    cells, certified_cells = _counts(sweep)
    table_rows = []
    fits: list[float] = []
    unsettled = samples = 0
    for (family, n, d), results in sorted(rows.items()):
        points = [(Fraction(a), r["extreme"]["certified_value"]) for a, r in results.items()
                  if r and r["extreme"] and r["extreme"]["certified"]]
        c = fitted_c(points)
        if c is not None and any(v for _, v in points):
            fits.append(c)
        row_unsettled = sum(r["undefined"] for r in results.values() if r)
        unsettled += row_unsettled
        samples += sum(r["samples"] for r in results.values() if r)
        table_rows.append([family, str(n), str(d), *(f"{_extreme(results.get(a))} / {_median(results.get(a))}"
                                                     for a in alphas),
                           "-" if c is None else f"{c:.3g}", str(row_unsettled)])
    if fits:
        answer = (f"Where the exact run proves the pattern constant, the certified constancy layer grows roughly "
                  f"like c / alpha as alpha shrinks (fitted c from {min(fits):.3g} to {max(fits):.3g} over the rows "
                  f"where it is not 0); for {unsettled} of {samples} samples constancy was not established within "
                  f"{sweep['grid']['layers']} layers.")
    else:
        answer = (f"Every certified constancy layer of this sweep is 0 or none is certified; for {unsettled} of "
                  f"{samples} samples constancy was not established within {sweep['grid']['layers']} layers.")
    return Table(heading=QUESTIONS["constancy_layer"], intro=answer,
                 headers=["family", "n", "d", *(f"alpha {short_number(Fraction(a))}" for a in alphas),
                          "fitted c (c / alpha)", "unsettled"],
                 rows=table_rows,
                 note=(f"Each entry: the cell's constancy layer extreme over {sweep['grid']['samples']} seeded samples "
                       f"/ its median. **Certified**: {certified_cells} of {cells} extremes (exact engine, every claim "
                       "certified; the value is defined only where a D9 chain or leader and locked fates prove the "
                       "sets constant for ever). **Measured**: the medians and the fit of c / alpha to the certified "
                       "extremes (least squares, floats). 'Unsettled': samples whose constancy the exact run did not "
                       "establish (not counted in the quantiles)."))


def _sweeps(block: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for item in block["files"]:
        sweep = item.get("sweep")
        if sweep is not None and sweep["measurement"] in QUESTIONS:
            found.setdefault(sweep["measurement"], sweep)
    return found


def section(block: Mapping[str, Any]) -> Section:
    sweeps = _sweeps(block)
    unreadable = [f"`{item['path']}` could not be read: {item['summary']['unreadable']}."
                  for item in block["files"] if "unreadable" in item.get("summary", {})]
    tables = [{"last_leader_layer": _emergence, "constancy_layer": _constancy}[name](sweeps[name])
              for name in QUESTIONS if name in sweeps]
    figures = []
    order = list(QUESTIONS)
    for figure in sorted(block.get("figures", []), key=lambda f: (
            next((i for i, name in enumerate(order) if Path(f["file"]).stem.startswith(name + "-")), len(order)),
            Path(f["file"]).stem)):
        stem = Path(figure["file"]).stem  # MEASUREMENT-KIND-FAMILY (build names it after the folder)
        measurement = next((name for name in QUESTIONS if stem.startswith(name + "-")), None)
        if measurement is None:
            continue
        kind, _, family = stem[len(measurement) + 1:].partition("-")
        question = QUESTIONS[measurement].split(":", 1)[0]
        what = ("extreme and median per (n, alpha) cell" if kind == "heatmap"
                else "extreme (solid) and median (dashed) against alpha")
        figures.append(Figure(stem, figure["file"], f"{question}: {kind}, {family}",
                              f"{measurement} of the {family} family: {what}; '?' marks an extreme not certified. "
                              "An illustration of the table above."))
    numbers = glance_numbers(block)
    summary = (f"{numbers['certified']} of {numbers['cells']} cell extremes certified over {len(sweeps)} measurement "
               "sweeps (docs/sweep.md); medians and fits measured. General A, leader control: their own sections.")
    if unreadable:
        summary += " " + " ".join(unreadable)
    if not tables:
        summary += f" No sweep of {', '.join(QUESTIONS)} among the saved results ({COMMAND})."
    return Section(TITLE, summary=summary, tables=tables, figures=figures, figures_heading="Figures", list_files=False)


def glance_numbers(block: Mapping[str, Any]) -> dict[str, Any]:
    """The sweeps, their measured cells and certified extremes (verify.certcheck recomputes them from the files)."""
    counts = [_counts(item["sweep"]) for item in block["files"] if item.get("sweep") is not None]
    return {"sweeps": len(block["files"]), "cells": sum(c for c, _ in counts),
            "certified": sum(c for _, c in counts)}


def glance_sentence(numbers: Mapping[str, Any]) -> str:
    return (f"{numbers['sweeps']} measurement sweeps (emergence, eventual constancy): {numbers['certified']} of "
            f"{numbers['cells']} cell extremes certified; medians and fits measured.")
