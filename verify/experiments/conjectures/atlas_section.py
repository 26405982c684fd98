"""The atlas: docs/theory.md §6's open questions, measured, as a section of the verification report.

It reads what ``scripts/atlas.sh`` (:data:`COMMAND`) saves under RUNS/atlas/: the sweeps
``MEASUREMENT/sweep.json`` (grid ``scripts/atlas.toml``) with their figures beside them, the
general-A census ``general_a/census.json`` (grid ``scripts/atlas_general_a.toml``) with its
counterexamples and figure, and ``leader_control/realisable.json``, a digest of the committed
control study (:mod:`.atlas_census` writes both). One subsection per question it has data for:

* emergence (``last_leader_layer``): the latest first-leading layer per (family, n, alpha), its
  extreme certified by the exact check (T1's certificate records every leader's first layer),
  and, where the sweep ran the worst-case optimiser (``--optimise``), the optimiser's best
  beside it, certified by the same check;
* eventual constancy (``constancy_layer``): the layer from which the attention pattern stays
  constant against alpha, with a fitted c / alpha (a float fit: evidence) and the samples the
  exact run could not settle within the layer budget;
* general A: for each class of A of §6 (non-symmetric positive definite, positive semidefinite
  of low rank, indefinite, negative semidefinite), which of T0..T4 and D1..D3 held on every
  sampled configuration and which fail, each failure with a counterexample saved as a claims
  report that the independent checker re-verifies (D11 for T0, the replayed norms for D2, a
  verified limit outside K for T3); every count is an exact decision, none a float;
* leader control: the fraction of the subsets of hull vertices realisable at layer 0 against n
  and d (D10), decided by exact certificates checked when the study ran, beside the solver's
  answers, which are evidence only.

Each subsection opens with a one-sentence answer and says what is certified and what is measured.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping, Sequence

from verify.core.numbers import InputError
from verify.core.text import short_number
from ..sections import Figure, Section, Table, need_field
from .atlas_census import CENSUS_FIGURE as _CENSUS_FIGURE
from .atlas_census import CENSUS_FILE, CENSUS_FORMAT, CONTROL_FILE, CONTROL_FORMAT, STATUSES
from .atlas_census import CONTROL_FIGURE as _CONTROL_FIGURE
from .sweep import SWEEP_FORMAT

__all__ = ["key", "folder", "patterns", "figures_folder", "produced_by", "glance_title", "item_fields", "figure_files",
           "section", "glance_numbers", "glance_sentence", "read_sweep", "read_census", "read_leader_control", "COMMAND",
           "QUESTIONS", "SUBSECTIONS", "fitted_c", "general_a_answer", "leader_control_answer", "emergence_answer"]

key = "atlas"
folder = "atlas"
GENERAL_A, LEADER_CONTROL = "general_a", "leader_control"  # the folders of the census and of the control digest
patterns: tuple[str, ...] = ("*/sweep.json", f"{GENERAL_A}/{CENSUS_FILE}", f"{LEADER_CONTROL}/{CONTROL_FILE}")
figures_folder: str | None = "figures/atlas"
COMMAND = "scripts/atlas.sh RUNS/atlas"
produced_by = f"`{COMMAND}` (docs/sweep.md)"
TITLE = "Open questions, measured (docs/theory.md §6)"
glance_title = "Open questions"
# measurement -> the question it measures (a subsection each, in this order)
QUESTIONS: dict[str, str] = {"last_leader_layer": "Emergence: how late does the last leader appear?",
                             "constancy_layer": "Eventual constancy: from which layer is the attention pattern "
                                                "constant?"}
# folder -> the question its digest answers (after the sweeps' subsections, in this order)
SUBSECTIONS: dict[str, str] = {GENERAL_A: "General A: which claims survive when A is not symmetric positive definite?",
                               LEADER_CONTROL: "Leader control: which sets of hull vertices can some A make lead?"}
_RESULT_FIELDS = ("samples", "defined", "undefined", "q50", "max", "status")
OPTIMISER_COLUMN = "optimiser's best (certified)"


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
            if "optimised" in result:  # only a sweep run with --optimise has it
                found = _need(result, "optimised", Mapping, f"{at}.result")
                here = f"{at}.result.optimised"
                shown_result["optimised"] = {
                    "probes": _need(found, "probes", int, here), "value": _value(found, "value", here),
                    "improves": _need(found, "improves", bool, here), "certified": _need(found, "certified", bool, here),
                    "certified_value": _value(found, "certified_value", here)}
                if shown_result["optimised"]["certified"] and shown_result["optimised"]["certified_value"] is None:
                    raise InputError(f"{here}.certified_value", "expected the certified value of a certified best")
        cells.append({"cell": shown_cell, "result": shown_result})
    grid = _need(data, "grid", Mapping, where)
    shown_grid = {"samples": _need(grid, "samples", int, f"{where}.grid"),
                  "seed": _need(grid, "seed", int, f"{where}.grid"),
                  "layers": _need(grid, "layers", int, f"{where}.grid")}
    if "optimise" in grid:
        shown_grid["optimise"] = _need(grid, "optimise", int, f"{where}.grid")
    return {"measurement": _need(data, "measurement", str, where), "grid": shown_grid, "cells": cells}


def _count(data: Any, field: str, where: str) -> int:
    value = _need(data, field, int, where)
    if value < 0:
        raise InputError(f"{where}.{field}", f"expected a count >= 0, got {value}")
    return value


def read_census(data: Any, where: str = f"{GENERAL_A}/{CENSUS_FILE}") -> dict[str, Any]:
    """The fields of the general-A census the section shows, checked (InputError names the field): a projection."""
    if not isinstance(data, Mapping) or data.get("format") != CENSUS_FORMAT:
        raise InputError(f"{where}.format", f"expected {CENSUS_FORMAT!r}")
    grid = _need(data, "grid", Mapping, where)
    shown_grid = {"n": _need(grid, "n", list, f"{where}.grid"), "d": _need(grid, "d", list, f"{where}.grid"),
                  "alpha": _need(grid, "alpha", list, f"{where}.grid"),
                  **{k: _count(grid, k, f"{where}.grid") for k in ("samples", "seed", "layers")}}
    claims = _need(data, "claims", list, where)
    if not claims or not all(isinstance(c, str) for c in claims):
        raise InputError(f"{where}.claims", "expected a nonempty list of claim ids")
    classes = []
    for k, entry in enumerate(_need(data, "classes", list, where)):
        at = f"{where}.classes[{k}]"
        configurations = _count(entry, "configurations", at)
        tally = _need(entry, "claims", Mapping, at)
        shown_claims: dict[str, Any] = {}
        for claim in claims:
            cell = _need(tally, claim, Mapping, f"{at}.claims")
            here = f"{at}.claims.{claim}"
            shown: dict[str, Any] = {status: _count(cell, status, here) for status in STATUSES}
            if sum(shown.values()) != configurations:
                raise InputError(here, f"the counts do not add up to the class's {configurations} configurations")
            found = _need(cell, "counterexample", (Mapping, type(None)), here)
            if (found is None) != (shown["failed"] == 0):
                raise InputError(f"{here}.counterexample", "expected one exactly when the claim failed")
            shown["counterexample"] = None if found is None else {
                "family": _need(found, "family", str, f"{here}.counterexample"),
                **{name: _count(found, name, f"{here}.counterexample") for name in ("n", "d")},
                "alpha": _need(found, "alpha", str, f"{here}.counterexample"),
                "summary": _need(found, "summary", str, f"{here}.counterexample"),
                "file": _need(found, "file", str, f"{here}.counterexample"),
                "rechecked": _need(found, "rechecked", bool, f"{here}.counterexample"),
                "checker": _need(found, "checker", str, f"{here}.counterexample")}
            shown_claims[claim] = shown
        classes.append({"name": _need(entry, "name", str, at), "label": _need(entry, "label", str, at),
                        "configurations": configurations, "claims": shown_claims})
    if not classes:
        raise InputError(f"{where}.classes", "expected at least one class of A")
    return {"grid": shown_grid, "claims": claims, "classes": classes}


_CONTROL_COUNTS = ("n", "d", "configurations", "subsets", "realisable", "impossible", "inconclusive",
                   "all_vertices_lead")
_SOLVER_COUNTS = ("cases", "solver_feasible", "exact_designs_of_solver_feasible", "exact_designs", "impossible",
                  "inconclusive")


def read_leader_control(data: Any, where: str = f"{LEADER_CONTROL}/{CONTROL_FILE}") -> dict[str, Any]:
    """The fields of the leader-control digest the section shows, checked (InputError names the field)."""
    if not isinstance(data, Mapping) or data.get("format") != CONTROL_FORMAT:
        raise InputError(f"{where}.format", f"expected {CONTROL_FORMAT!r}")
    source = _need(data, "source", Mapping, where)
    cells = []
    for k, entry in enumerate(_need(data, "cells", list, where)):
        at = f"{where}.cells[{k}]"
        cell = {name: _count(entry, name, at) for name in _CONTROL_COUNTS}
        if cell["realisable"] + cell["impossible"] + cell["inconclusive"] != cell["subsets"]:
            raise InputError(at, "the counts do not add up to its subsets")
        cells.append(cell)
    if not cells:
        raise InputError(f"{where}.cells", "expected at least one (n, d) cell")
    solver = _need(data, "solver", Mapping, where)
    return {"source": {"path": _need(source, "path", str, f"{where}.source"),
                       "sha256": _need(source, "sha256", str, f"{where}.source"),
                       "seed": _count(source, "seed", f"{where}.source")},
            "cells": cells, "solver": {name: _count(solver, name, f"{where}.solver") for name in _SOLVER_COUNTS}}


def item_fields(path: Path, data: Any) -> dict[str, Any]:
    where = f"{path.parent.name}/{path.name}"
    if path.name == CENSUS_FILE:
        return {"census": read_census(data, where)}
    if path.name == CONTROL_FILE:
        return {"leader_control": read_leader_control(data, where)}
    return {"sweep": read_sweep(data, where)}


def figure_files(paths: Sequence[Path]) -> list[Path]:
    """The PNGs beside each saved file (scripts/atlas.sh puts them there), sorted."""
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


def _optimised(sweep: Mapping[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The cells whose sweep ran the optimiser, each with its best (certified or not)."""
    return [(e["cell"], e["result"]["optimised"]) for e in sweep["cells"]
            if e["result"] and e["result"].get("optimised") is not None]


def _latest(found: Sequence[tuple[Mapping[str, Any], int]]) -> tuple[Mapping[str, Any], int]:
    """The latest value and its cell (a tie: the smallest alpha, as the sampled answer names it)."""
    return max(found, key=lambda item: (item[1], -Fraction(item[0]["alpha"])))


def emergence_answer(sweep: Mapping[str, Any]) -> str:
    """The emergence subsection's one-sentence answer, from the sweep whichever way it falls: the optimiser, where it
    ran, may find a later certified leader than the samples, or nothing later; only certified values are named."""
    alphas, _ = _grouped(sweep)
    certified = _certified(sweep)
    found = _optimised(sweep)
    later = [(c, o["certified_value"]) for c, o in found if o["certified"] and o["improves"]]
    if certified:
        cell, latest = _latest(certified)
        per_alpha = [f"{max(v for c, v in certified if c['alpha'] == a)} at alpha = {short_number(Fraction(a))}"
                     for a in alphas if any(c["alpha"] == a for c, _ in certified)]
        where = "among the samples of this grid" if later else "in this grid"
        answer = (f"Leaders can emerge late, the latest at layer {latest} {where} ({_where(cell)}); per alpha "
                  f"the latest certified first-leading layer is {_listed(per_alpha)}")
    else:
        answer = f"No {'sampled ' if found else ''}extreme of this sweep is certified"
    if found:
        probes = found[0][1]["probes"]
        search = f"the worst-case optimiser ({probes} exact probes per cell from its best samples)"
        unsure = sum(1 for _, o in found if o["improves"] and not o["certified"])  # later, but not certified
        certified_bests = sum(1 for _, o in found if o["certified"])
        if later:
            cell, latest = _latest(later)
            answer += (f"; {search} found a later one, certified, in {len(later)} of {len(found)} cells, the latest "
                       f"at layer {latest} ({_where(cell)})")
            answer += f", and a later one not certified in {unsure} more" if unsure else ""
        elif unsure:
            answer += (f"; {search} found a later one in {unsure} of the {len(found)} cells, none of them certified, "
                       "so it shows none")
        else:
            answer += (f"; {search} found no later one in any of the {len(found)} cells (its best certified in "
                       f"{certified_bests} of them)")
    return answer + ("." if certified or found else ", so it answers nothing yet.")


def _optimiser_entry(results: Mapping[str, Mapping[str, Any] | None]) -> str:
    """A row's optimiser column: its latest certified best and where, and in how many cells it beat the samples."""
    found = [(alpha, r["optimised"]) for alpha, r in results.items() if r and r.get("optimised") is not None]
    if not found:
        return "-"
    certified = [({"alpha": a}, o["certified_value"]) for a, o in found if o["certified"]]
    uncertified = sum(1 for _, o in found if o["value"] is not None and not o["certified"])
    text = "none certified"
    if certified:
        cell, latest = _latest(certified)
        later = sum(1 for _, o in found if o["certified"] and o["improves"])
        text = (f"{latest} at alpha = {short_number(Fraction(cell['alpha']))}; later than sampled in {later} of "
                f"{len(found)}")
    return text + (f" ({uncertified} not certified)" if uncertified and certified else "")


def _emergence(sweep: Mapping[str, Any]) -> Table:
    alphas, rows = _grouped(sweep)
    cells, certified_cells = _counts(sweep)
    found = _optimised(sweep)
    table_rows = [[family, str(n), str(d), *(f"{_extreme(results.get(a))} / {_median(results.get(a))}"
                                              for a in alphas), *([_optimiser_entry(results)] if found else [])]
                  for (family, n, d), results in sorted(rows.items())]
    optimiser_note = ""
    if found:
        certified_bests = sum(1 for _, o in found if o["certified"])
        optimiser_note = (f" The column '{OPTIMISER_COLUMN}': the worst-case optimiser's best over the row's cells, "
                          f"from {found[0][1]['probes']} exact probes per cell that start at the cell's best samples "
                          "and stay in it (same n, d and A, alpha fixed; docs/sweep.md), and in how many cells it is "
                          "later than the sampled extreme. **Certified**: "
                          f"{certified_bests} of {len(found)} optimiser's bests, each re-checked by the same exact "
                          "check as the extremes (its claims report saved beside theirs, `CELL-optimised.json`); "
                          "a best not certified is not shown as a value.")
    return Table(heading=QUESTIONS["last_leader_layer"], intro=emergence_answer(sweep),
                 headers=["family", "n", "d", *(f"alpha {short_number(Fraction(a))}" for a in alphas),
                          *([OPTIMISER_COLUMN] if found else [])],
                 rows=table_rows,
                 note=(f"Each entry: the cell's latest first-leading layer over {sweep['grid']['samples']} seeded samples "
                       f"(seed {sweep['grid']['seed']}) / its median. **Certified**: {certified_cells} of {cells} "
                       "extremes, each re-computed with the exact engine and every claim certified (T1's certificate "
                       "records each leader's first leading layer; `hardmax-verify certcheck` re-verifies it). "
                       "**Measured**: the medians (the float screen under its proven rounding bound, or exact runs)."
                       + optimiser_note))


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


def _digest(block: Mapping[str, Any], field: str) -> dict[str, Any] | None:
    return next((item[field] for item in block["files"] if item.get(field) is not None), None)


def _share(part: int, whole: int) -> str:
    return "-" if whole == 0 else f"{100 * part / whole:.1f}%"


def _listed(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _cell_text(cell: Mapping[str, Any], configurations: int) -> str:
    if cell["failed"]:
        return f"fails {cell['failed']}/{configurations}"
    held = f"held {cell['certified']}/{configurations}"
    return held if not cell["inconclusive"] else f"{held} ({cell['inconclusive']} inconclusive)"


def general_a_answer(census: Mapping[str, Any]) -> str:
    """The general-A subsection's one-sentence answer, from the census whichever way it falls."""
    claims, classes = census["claims"], census["classes"]
    total = sum(c["configurations"] for c in classes)
    failing = {claim: tuple(c["label"] for c in classes if c["claims"][claim]["failed"]) for claim in claims}
    every = [claim for claim in claims if all(c["claims"][claim]["certified"] == c["configurations"] for c in classes)]
    open_ = [claim for claim in claims if not failing[claim] and claim not in every]
    unverified = [f"{claim} ({c['label']})" for claim in claims for c in classes
                  if c["claims"][claim]["counterexample"] and not c["claims"][claim]["counterexample"]["rechecked"]]
    held = []
    if every:
        held.append(f"{_listed(every)} held on every one")
    if open_:
        held.append(f"{_listed(open_)} never failed where the exact check decided {'it' if len(open_) == 1 else 'them'}")
    text = f"On {total:,} configurations outside the hypotheses, " + (" and ".join(held) or "no claim held on all")
    if not any(failing.values()):
        return text + ", and no claim failed for any class of A."
    grouped: dict[tuple[str, ...], list[str]] = {}
    for claim, labels in failing.items():
        if labels:
            grouped.setdefault(labels, []).append(claim)
    fails = [f"{_listed(group)} {'fails' if len(group) == 1 else 'fail'} for {_listed(list(labels))} A"
             for labels, group in grouped.items()]
    spared = [c["label"] for c in classes if not any(c["claims"][claim]["failed"] for claim in claims)]
    text += f", while {_listed(fails)}" + (f" (none for {_listed(spared)} A)" if spared else "")
    if unverified:
        return text + f", each with an exact counterexample, of which the independent checker does not re-verify " \
                      f"{_listed(unverified)}."
    return text + ", each with an exact counterexample that `hardmax-verify certcheck` re-verifies."


def _general_a(census: Mapping[str, Any], directory: str) -> list[Table]:
    claims = census["claims"]
    grid = census["grid"]
    rows = [[c["label"], f"{c['configurations']:,}", *(_cell_text(c["claims"][claim], c["configurations"])
                                                      for claim in claims)] for c in census["classes"]]
    found = [(c, claim, c["claims"][claim]["counterexample"]) for c in census["classes"] for claim in claims
             if c["claims"][claim]["counterexample"]]
    tally = Table(heading=SUBSECTIONS[GENERAL_A], intro=general_a_answer(census),
                  headers=["class of A", "configurations", *claims], rows=rows,
                  note=(f"Families of verify/core/families.py outside the hypotheses (their configurations record "
                        f"`outside_hypotheses: true`), n {_listed([str(n) for n in grid['n']])}, d "
                        f"{_listed([str(d) for d in grid['d']])}, alpha {_listed(grid['alpha'])}, {grid['samples']} "
                        f"seeded samples per cell (seed {grid['seed']}), each checked by the exact engine within "
                        f"{grid['layers']} layers. **Certified**: every count is an exact decision of that check "
                        "(held = the claim's certificate; fails = an exact counterexample); 'inconclusive' means not "
                        "decided within the budget, evidence neither way. **Measured**: nothing (no float decides "
                        "anything here). 'Held on every one' is about the sampled configurations, not a proof for "
                        "every A of the class; T1 holds vacuously on a run where no token ever leads."))
    table = Table(heading="General A: the counterexamples",
                  headers=["class of A", "claim", "first failing configuration", "what fails", "re-verified"],
                  rows=[[c["label"], claim, f"{x['family']}, n = {x['n']}, d = {x['d']}, alpha = {x['alpha']}",
                         x["summary"], ("yes: " if x["rechecked"] else "no: ") + x["checker"]] for c, claim, x in found],
                  note=(f"Each is saved as its claims report, `{directory}/{GENERAL_A}/FILE` (the files "
                        + ", ".join(f"`{x['file']}`" for _, _, x in found[:3]) + (", ..." if len(found) > 3 else "")
                        + "); `hardmax-verify certcheck FILE` replays it with the independent checker's own arithmetic "
                        "and re-verifies the failure: T0 by its similarity certificate (docs/theory.md D11: the "
                        "pattern repeats for ever with no leader), D2 by the replayed squared A-norms, T3 by a "
                        "verified limit outside K with the separating direction."))
    return [tally, table] if found else [tally]


def _trend(shares: Sequence[float]) -> str:
    """How a sequence of shares moves: stays at, rises from .. to, falls from .. to, or varies between .. and .."""
    shown = [f"{100 * x:.1f}%" for x in shares]
    if len(set(shown)) == 1:
        return f"stays at {shown[0]}"
    if all(a <= b for a, b in zip(shares, shares[1:])):
        return f"rises from {shown[0]} to {shown[-1]}"
    if all(a >= b for a, b in zip(shares, shares[1:])):
        return f"falls from {shown[0]} to {shown[-1]}"
    return f"varies between {100 * min(shares):.1f}% and {100 * max(shares):.1f}% with no steady trend"


def leader_control_answer(digest: Mapping[str, Any]) -> str:
    """The leader-control subsection's one-sentence answer: the realisable share per d, and how it moves with n."""
    cells = digest["cells"]
    ns = sorted({c["n"] for c in cells})
    pooled, trends = [], []
    for d in sorted({c["d"] for c in cells}):
        row = sorted((c for c in cells if c["d"] == d and c["subsets"]), key=lambda c: c["n"])
        if row:
            pooled.append((d, sum(c["realisable"] for c in row) / sum(c["subsets"] for c in row)))
            trends.append(f"{_trend([c['realisable'] / c['subsets'] for c in row])} in d = {d}")
    shares = [x for _, x in pooled]
    with_d = ("" if len(shares) < 2 else ", rising with d" if all(a < b for a, b in zip(shares, shares[1:]))
              else ", falling with d" if all(a > b for a, b in zip(shares, shares[1:])) else "")
    return (f"Pooled over n = {ns[0]}-{ns[-1]}, the share of subsets of hull vertices realisable at layer 0 is "
            f"{_listed([f'{100 * x:.1f}% in d = {d}' for d, x in pooled])}{with_d}; against n it {_listed(trends)}.")


def _leader_control(digest: Mapping[str, Any]) -> Table:
    solver = digest["solver"]
    rows = [[str(c["n"]), str(c["d"]), str(c["configurations"]), f"{c['subsets']:,}",
             f"{c['realisable']:,} ({_share(c['realisable'], c['subsets'])})",
             f"{c['impossible']:,} ({_share(c['impossible'], c['subsets'])})", str(c["inconclusive"]),
             f"{c['all_vertices_lead']} of {c['configurations']}"] for c in digest["cells"]]
    source = digest["source"]
    return Table(heading=SUBSECTIONS[LEADER_CONTROL], intro=leader_control_answer(digest),
                 headers=["n", "d", "configurations", "subsets of hull vertices", "realisable (certified)",
                          "impossible (certified)", "inconclusive", "all vertices lead together"], rows=rows,
                 note=(f"From the control study `{source['path']}` (seed {source['seed']}, sha256 "
                       f"{source['sha256'][:16]}…; generic tokens; docs/theory.md D10). **Certified**: a realisable "
                       "subset has an exact rational A with every LDL^T pivot and every layer-0 margin exactly "
                       "positive, an impossible one exact weights y >= 0 with S = -sum y_c M_c exactly positive "
                       "semidefinite, checked when the study ran; one certificate decides many subsets (every subset "
                       "of the tokens an A makes lead, every superset of a certificate's core). The study file keeps "
                       "the counts, not the certificates: `hardmax-verify control FILE --all-leader-sets` recomputes "
                       "them for one configuration. **Solver evidence**: over the study's "
                       f"{solver['cases']:,} rounding cases a solver called {solver['solver_feasible']:,} feasible, "
                       f"and {solver['exact_designs_of_solver_feasible']:,} of those became exact designs; "
                       f"{solver['inconclusive']:,} cases had neither certificate. 'Impossible' is about layer 0 "
                       "only: a token may still emerge as a leader later."))


def section(block: Mapping[str, Any]) -> Section:
    sweeps = _sweeps(block)
    unreadable = [f"`{item['path']}` could not be read: {item['summary']['unreadable']}."
                  for item in block["files"] if "unreadable" in item.get("summary", {})]
    tables = [{"last_leader_layer": _emergence, "constancy_layer": _constancy}[name](sweeps[name])
              for name in QUESTIONS if name in sweeps]
    census, control = _digest(block, "census"), _digest(block, "leader_control")
    if census is not None:
        tables += _general_a(census, block.get("directory") or f"RUNS/{folder}")
    if control is not None:
        tables.append(_leader_control(control))
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
        if kind == "curves" and measurement in sweeps and _optimised(sweeps[measurement]):
            what += ", the optimiser's certified best as crosses"
        figures.append(Figure(stem, figure["file"], f"{question}: {kind}, {family}",
                              f"{measurement} of the {family} family: {what}; '?' marks an extreme not certified. "
                              "An illustration of the table above."))
    # The digests' figures: titles without "group: " are shown unfolded, each on its own.
    for figure in sorted(block.get("figures", []), key=lambda f: Path(f["file"]).stem):
        stem = Path(figure["file"]).stem  # FOLDER-NAME (build names it after the folder)
        if stem == f"{GENERAL_A}-{Path(_CENSUS_FIGURE).stem}" and census is not None:
            figures.append(Figure(stem, figure["file"], "General A, claim by claim",
                                  "One row per class of A, one column per claim: green where the exact check "
                                  "certified the claim on every configuration it decided (an asterisk: the rest "
                                  "inconclusive), red where it fails, with a counterexample the independent checker "
                                  "re-verifies. The same numbers as the table above."))
        elif stem == f"{LEADER_CONTROL}-{Path(_CONTROL_FIGURE).stem}" and control is not None:
            figures.append(Figure(stem, figure["file"], "Leader control against n and d",
                                  "The share of the subsets of hull vertices that some exact A makes lead at layer 0, "
                                  "against n, one line per d; the shade above a line is the share left inconclusive. "
                                  "The same numbers as the table above."))
    numbers = glance_numbers(block)
    summary = glance_sentence(numbers)
    if unreadable:
        summary += " " + " ".join(unreadable)
    listed = {str(item["path"]).rsplit("/", 2)[-2] for item in block["files"]}
    for name, file in ((GENERAL_A, CENSUS_FILE), (LEADER_CONTROL, CONTROL_FILE)):
        if name not in listed:
            summary += f" No {name}/{file} among the saved results ({COMMAND})."
    if not sweeps:
        summary += f" No sweep of {', '.join(QUESTIONS)} among the saved results ({COMMAND})."
    return Section(TITLE, summary=summary, tables=tables, figures=figures, figures_heading="Figures", list_files=False)


def glance_numbers(block: Mapping[str, Any]) -> dict[str, Any]:
    """What the first screen prints (verify.certcheck recomputes it from the files): the sweeps, their measured
    cells and certified extremes; the census's configurations, failing claims and re-verified counterexamples; the
    leader-control digest's subsets and realisable ones (None where the file is absent or unreadable)."""
    counts = [_counts(item["sweep"]) for item in block["files"] if item.get("sweep") is not None]
    census, control = _digest(block, "census"), _digest(block, "leader_control")
    general_a = None
    if census is not None:
        found = [c["claims"][claim]["counterexample"] for c in census["classes"] for claim in census["claims"]
                 if c["claims"][claim]["counterexample"]]
        general_a = {"configurations": sum(c["configurations"] for c in census["classes"]),
                     "failing": [claim for claim in census["claims"]
                                 if any(c["claims"][claim]["failed"] for c in census["classes"])],
                     "counterexamples": len(found), "rechecked": sum(x["rechecked"] for x in found)}
    leader_control = None if control is None else {
        name: sum(c[name] for c in control["cells"]) for name in ("subsets", "realisable", "impossible")}
    return {"sweeps": sum(str(item["path"]).endswith("/sweep.json") for item in block["files"]),
            "cells": sum(c for c, _ in counts), "certified": sum(c for _, c in counts),
            "general_a": general_a, "leader_control": leader_control}


def glance_sentence(numbers: Mapping[str, Any]) -> str:
    text = (f"{numbers['certified']} of {numbers['cells']} cell extremes certified over {numbers['sweeps']} "
            "measurement sweeps (docs/sweep.md); medians and fits measured.")
    general_a = numbers.get("general_a")
    if general_a:
        failing = general_a["failing"]
        text += (f" General A: on {general_a['configurations']:,} configurations outside the hypotheses, "
                 + (f"{_listed(failing)} fail for some class of A, with {general_a['rechecked']} of "
                    f"{general_a['counterexamples']} counterexamples re-verified by the independent checker; "
                    "the other claims never failed." if failing else "no claim failed.") )
    control = numbers.get("leader_control")
    if control:
        text += (f" Leader control against n and d (generic tokens): {_share(control['realisable'], control['subsets'])} of {control['subsets']:,} "
                 f"subsets of hull vertices realisable at layer 0 (exact certificates), "
                 f"{control['impossible']:,} certified impossible.")
    return text
