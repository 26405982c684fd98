"""Leader control's section of the verification report (the protocol of :mod:`verify.experiments.sections`).

It reads RUNS/control/study.json, written with its figure ``two-clusterings.png`` by
``python scripts/control_study.py`` (:mod:`.study`): the rounding rates (how often the solver's
answers became exact certificates), the fraction of the subsets of hull vertices realisable at
layer 0 against n and d, per family and on the worked configurations, how often a realisable set
also admits locking every other token, and one configuration clustered two ways by two A's. A
file that is not what it should be is named with the offending field (it is then listed as
unreadable, and the report still writes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from verify.core.numbers import InputError
from verify.experiments.sections import Figure, Section, Table, need_field
from .study import FORMAT

__all__ = ["key", "folder", "patterns", "figures_folder", "produced_by", "glance_title", "item_fields", "figure_files",
           "section", "glance_numbers", "glance_sentence",
           "read_study", "STUDY_FILE", "FIGURE_FILE", "COMMAND"]

key = "control"
folder = "control"
STUDY_FILE, FIGURE_FILE = "study.json", "two-clusterings.png"
patterns: tuple[str, ...] = (STUDY_FILE,)
figures_folder: str | None = "figures/control"
COMMAND = "python scripts/control_study.py --seed 0 --out RUNS/control/study.json"
produced_by = f"`{COMMAND}` (docs/control.md)"
TITLE = "Leader control: choosing A so that chosen tokens lead (saved results)"
glance_title = "Leader control"
_ROW_COUNTS = ("n", "d", "vertices", "subsets", "realisable", "impossible", "inconclusive", "programs", "lock_tried",
               "lock_realised")
_RATE_COUNTS = ("cases", "solver_feasible", "exact_designs", "exact_designs_of_solver_feasible", "impossible",
                "inconclusive")


_need = need_field


def _count(data: Any, field: str, where: str) -> int:
    value = _need(data, field, int, where)
    if value < 0:
        raise InputError(f"{where}.{field}", f"expected a count >= 0, got {value}")
    return value


def _rows(data: Any, field: str, where: str) -> list[dict[str, Any]]:
    rows = []
    for k, row in enumerate(_need(data, field, list, where)):
        at = f"{where}.{field}[{k}]"
        kept: dict[str, Any] = {name: _count(row, name, at) for name in _ROW_COUNTS}
        kept["group"] = _need(row, "group", str, at)
        kept["configuration"] = _need(row, "configuration", str, at)
        kept["all_vertices"] = _need(row, "all_vertices", str, at)
        if kept["all_vertices"] not in ("realisable", "impossible", "inconclusive"):
            raise InputError(f"{at}.all_vertices", f"expected realisable, impossible or inconclusive, got "
                                                   f"{kept['all_vertices']!r}")
        if kept["realisable"] + kept["impossible"] + kept["inconclusive"] != kept["subsets"] \
                or kept["lock_realised"] > kept["lock_tried"]:
            raise InputError(at, "the counts do not add up")
        rows.append(kept)
    return rows


def read_study(data: Any, where: str = STUDY_FILE) -> dict[str, Any]:
    """The fields of a study file the section shows, checked (InputError names the field)."""
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        raise InputError(f"{where}.format", f"expected {FORMAT!r}")
    rounding = _need(data, "rounding", Mapping, where)
    rates: dict[str, Any] = {name: _count(rounding, name, f"{where}.rounding") for name in _RATE_COUNTS}
    if rates["exact_designs"] + rates["impossible"] + rates["inconclusive"] != rates["cases"]:
        raise InputError(f"{where}.rounding", "the counts do not add up")
    steps = _need(rounding, "impossible_by_step", Mapping, f"{where}.rounding")
    rates["impossible_by_step"] = {str(k): _count(steps, k, f"{where}.rounding.impossible_by_step") for k in steps}
    families = _need(rounding, "by_family", Mapping, f"{where}.rounding")
    rates["by_family"] = {str(name): {"cases": _count(v, "cases", f"{where}.rounding.by_family.{name}"),
                                      "decided": _count(v, "decided", f"{where}.rounding.by_family.{name}")}
                          for name, v in families.items()}
    rates["inconclusive_cases"] = [
        {"configuration": _need(c, "configuration", str, f"{where}.rounding.inconclusive_cases[{k}]"),
         "leaders": [x for x in _need(c, "leaders", list, f"{where}.rounding.inconclusive_cases[{k}]")
                     if isinstance(x, int)]}
        for k, c in enumerate(_need(rounding, "inconclusive_cases", list, f"{where}.rounding"))]
    figure = data.get("two_clusterings")
    designs = []
    name = ""
    if isinstance(figure, Mapping):
        name = str(figure.get("configuration", ""))
        for k, design in enumerate(_need(figure, "designs", list, f"{where}.two_clusterings")):
            at = f"{where}.two_clusterings.designs[{k}]"
            designs.append({"leaders": _need(design, "leaders", list, at), "A": _need(design, "A", list, at)})
    return {"seed": _count(data, "seed", where), "rounding": rates,
            "against_n_and_d": _rows(data, "against_n_and_d", where), "families": _rows(data, "families", where),
            "worked": _rows(data, "worked", where),
            "two_clusterings": {"configuration": name, "designs": designs} if designs else None}


def item_fields(path: Path, data: Any) -> dict[str, Any]:
    return {"study": read_study(data, path.name)}


def figure_files(paths: Sequence[Path]) -> list[Path]:
    return [path.parent / FIGURE_FILE for path in paths
            if path.name == STUDY_FILE and (path.parent / FIGURE_FILE).is_file()]


# --------------------------------------------------------------------------- showing


def _share(part: int, whole: int) -> str:
    return "—" if whole == 0 else f"{part:,} of {whole:,} ({100 * part / whole:.1f}%)"


def _grouped(rows: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row["group"], []).append(row)
    table = []
    for group, members in groups.items():
        subsets = sum(r["subsets"] for r in members)
        table.append([
            group, str(len(members)), f"{sum(r['vertices'] for r in members) / len(members):.1f}",
            _share(sum(r["realisable"] for r in members), subsets),
            _share(sum(r["impossible"] for r in members), subsets),
            str(sum(r["inconclusive"] for r in members)),
            _share(sum(r["all_vertices"] == "realisable" for r in members), len(members)),
            _share(sum(r["lock_realised"] for r in members), sum(r["lock_tried"] for r in members)),
        ])
    return table


_HEADERS = ["configurations", "count", "hull vertices (mean)", "subsets realisable at layer 0", "subsets impossible",
            "inconclusive", "all vertices lead together", "realisable sets tried that lock every other token"]
_NOTE = ("A subset L of the hull vertices is realisable at layer 0 when an exact rational A makes every token of L lead "
         "at layer 0 (docs/theory.md D10), impossible when an exact certificate (y >= 0 with S = -sum y_c M_c positive "
         "semidefinite) says no SPD A does; 'impossible' is about layer 0 only. Locking: for up to {lock} realisable "
         "sets per configuration, the target search found an A under which exactly L leads and every other token "
         "attends to one leader from layer 0 on (not finding one is not a proof that none exists).")


def glance_numbers(block: Mapping[str, Any]) -> dict[str, Any] | None:
    """The counts the section's first-screen sentence prints (verify.certcheck recomputes them from the file)."""
    study = next((item["study"] for item in block["files"] if item.get("study")), None)
    if study is None:
        return None
    rates = study["rounding"]
    every = study["against_n_and_d"] + study["families"] + study["worked"]
    return {"seed": study["seed"], "configurations": len(every), "subsets": sum(r["subsets"] for r in every),
            "realisable": sum(r["realisable"] for r in every),
            "all_vertices_lead": sum(r["all_vertices"] == "realisable" for r in every),
            "lock_tried": sum(r["lock_tried"] for r in every), "lock_realised": sum(r["lock_realised"] for r in every),
            "solver_feasible": rates["solver_feasible"],
            "exact_designs_of_solver_feasible": rates["exact_designs_of_solver_feasible"],
            "decided": rates["exact_designs"] + rates["impossible"], "cases": rates["cases"]}


def section(block: Mapping[str, Any]) -> Section:
    study = next((item["study"] for item in block["files"] if item.get("study")), None)
    unreadable = [f"`{item['path']}` could not be read: {item['summary']['unreadable']}."
                  for item in block["files"] if "unreadable" in item.get("summary", {})]
    if study is None:
        return Section(TITLE, summary=" ".join(unreadable) or f"No study among the saved results ({COMMAND}).",
                       list_files=True)
    rates = study["rounding"]
    decided = rates["exact_designs"] + rates["impossible"]
    steps = ", ".join(f"{step} {count:,}" for step, count in rates["impossible_by_step"].items()) or "none"
    rate_rows = [
        ["cases (configuration, leader set)", f"{rates['cases']:,}"],
        ["the solver found a design (evidence)", f"{rates['solver_feasible']:,}"],
        ["... turned into an exact A", _share(rates["exact_designs_of_solver_feasible"], rates["solver_feasible"])],
        ["exact impossibility certificates", f"{rates['impossible']:,} (by step: {steps})"],
        ["decided exactly, either way", _share(decided, rates["cases"])],
        ["inconclusive", f"{rates['inconclusive']:,}" + (": " + "; ".join(
            f"{c['configuration']} L = {{{', '.join(map(str, c['leaders']))}}}"
            for c in rates["inconclusive_cases"][:12]) if rates["inconclusive_cases"] else "")],
    ]
    family_rows = [[name, f"{v['cases']:,}", _share(v["decided"], v["cases"])]
                   for name, v in rates["by_family"].items()]
    every = study["against_n_and_d"] + study["families"] + study["worked"]
    note = _NOTE.format(lock=_lock_sample(every))
    tables = [
        Table(heading="From solver answers to exact certificates (rounding rates)", headers=["", "count"],
              rows=rate_rows,
              note=("Leader sets drawn at random among the hull vertices of configurations from every family inside the "
                    "hypotheses (n 4-9, d 2-3). A solver's answer is evidence; only the exact checks decide: an A "
                    "rounded to p/10^k with every LDL^T pivot and margin exactly positive, or weights y with S exactly "
                    "positive semidefinite (steps: lambda_min = the solver's y rounded; facial = y moved exactly onto "
                    "a rational kernel of a singular S; hull / lp = S = 0).")),
        Table(heading="Decided exactly, per family", headers=["family", "cases", "decided"], rows=family_rows),
        Table(heading="Leader sets realisable at layer 0, against n and d (generic tokens)", headers=_HEADERS,
              rows=_grouped(study["against_n_and_d"]), note=note),
        Table(heading="Per family (n 4-8, d 2-3)", headers=_HEADERS, rows=_grouped(study["families"])),
        Table(heading="The worked configurations", headers=_HEADERS, rows=_grouped(study["worked"])),
    ]
    numbers = block.get("glance") if isinstance(block.get("glance"), Mapping) else glance_numbers(block)
    summary = glance_sentence(numbers) if numbers else ""
    figure = study.get("two_clusterings")
    figures = []
    for item in block.get("figures") or []:
        leaders = " and ".join("{" + ", ".join(map(str, d["leaders"])) + "}" for d in (figure or {}).get("designs", []))
        figures.append(Figure("control_two_clusterings", item["file"], "the same tokens clustered two ways",
                              f"{(figure or {}).get('configuration', 'A configuration')}: two exact matrices A, one "
                              f"making {leaders or 'two different sets'} lead; every other token (dot) locks onto "
                              "the leader (star) of its colour from layer 0 on. The grey curve is the unit ball of "
                              f"the A-norm, scaled to the tokens. Source: `{item['path']}`."))
    return Section(TITLE, summary=" ".join(unreadable + [summary]), tables=tables, figures=figures,
                   figures_heading="Two clusterings" if figures else "", list_files=bool(unreadable))


def glance_sentence(numbers: Mapping[str, Any]) -> str:
    """The section's first-screen sentence, from :func:`glance_numbers` (the numbers the checker verifies)."""
    n = numbers
    return (f"At layer 0 (docs/theory.md D10, seed {n['seed']}), "
            f"{_percent(n['realisable'], n['subsets'])} of {n['subsets']:,} subsets of hull vertices are realisable "
            f"across {n['configurations']:,} configurations; all hull vertices lead together in "
            f"{n['all_vertices_lead']:,} of {n['configurations']:,}; every other token could also be locked for "
            f"{n['lock_realised']:,} of {n['lock_tried']:,} realisable sets tried. Solver answers became exact "
            f"certificates for {n['exact_designs_of_solver_feasible']:,} of {n['solver_feasible']:,} feasible cases, "
            f"and {n['decided']:,} of {n['cases']:,} cases were decided exactly ({_percent(n['decided'], n['cases'])}).")


def _percent(part: int, whole: int) -> str:
    return "—" if whole == 0 else f"{100 * part / whole:.1f}%"


def _lock_sample(rows: Sequence[Mapping[str, Any]]) -> int:
    return max((r["lock_tried"] for r in rows), default=0) or 0
