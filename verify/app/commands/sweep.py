"""``hardmax-verify sweep MEASUREMENT``: a measurement over a grid of seeded families, extremes certified exactly.

    hardmax-verify sweep MEASUREMENT|FILE.py --out DIR [--n 3,4,6] [--d 2,3] [--alpha 1/16,1/4,1]
                         [--samples N] [--families generic,...] [--seed S] [--layers L] [--optimise P]
                         [--json [FILE|-]]
    hardmax-verify sweep MEASUREMENT|FILE.py --out DIR --grid GRID.toml

What is computed is in :mod:`verify.experiments.conjectures.sweep`; this module reads the grid,
shows progress, keeps the output folder (resume, atomic files) and writes the tables.
"""

from __future__ import annotations

import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from verify.core import exitcodes
from verify.core.families import FAMILIES, INSIDE_FAMILIES, MAX_D, MAX_N
from verify.core.io import atomic_write_text, directory_lock, json_text, read_text
from verify.core.limits import MAX_LAYER_BUDGET
from verify.core.numbers import InputError, rational_to_str, to_rational
from verify.core.limits import max_jobs
from verify.experiments.conjectures.sweep import (MAX_OPTIMISE_PROBES, QUANTILES, SWEEP_FORMAT, CellJob, Measurement,
                                                 applicable, cell_key, cells_of, measure_cell, measurement_named,
                                                 run_cell_job, save_cell, saved_cell)
from verify.experiments.conjectures.sweep_figures import write_sweep_figures
from ..campaign.executors import DEFAULT_CONNECT_TIMEOUT, DaskExecutor, Executor, make_executor
from .output import emit_json, identifier_column, json_option, progress_reporter, summary_console, summary_table

MAX_SAMPLES = 1_000_000
DEFAULTS: dict[str, Any] = {"n": "4", "d": "2", "alpha": "1/4", "samples": 100, "families": "generic", "seed": 0,
                            "layers": 200, "optimise": 0}
COLUMNS = ("family", "n", "d", "alpha", "samples", "defined", "min", "q50", "q90", "q99", "max", "share_nonzero",
           "extreme", "status")
# The terminal summary (80 columns): the files have every column.
SUMMARY_COLUMNS = ("family", "n", "d", "alpha", "q50", "q90", "max", "share_nonzero", "extreme")
# With the optimiser stage (--optimise P > 0), the column of its best, after the extreme's.
OPTIMISED_COLUMN = "optimised"


def columns(optimised: bool) -> tuple[str, ...]:
    """The table's columns: with ``optimised``, the optimiser's best beside the extreme."""
    if not optimised:
        return COLUMNS
    at = COLUMNS.index("extreme") + 1
    return (*COLUMNS[:at], OPTIMISED_COLUMN, *COLUMNS[at:])


def _integers(text: Any, field: str, low: int, high: int) -> list[int]:
    items = text if isinstance(text, list) else str(text).split(",")
    values = []
    for item in items:
        try:
            value = int(str(item).strip())
        except ValueError:
            raise InputError(field, f"expected integers separated by commas, got {str(item).strip()!r}") from None
        if not low <= value <= high:
            raise InputError(field, f"expected values in {low}..{high}, got {value}")
        values.append(value)
    if not values:
        raise InputError(field, "expected at least one value")
    return sorted(set(values))


def _alphas(text: Any, field: str) -> list[Fraction]:
    items = text if isinstance(text, list) else str(text).split(",")
    values = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, float, str)):
            raise InputError(field, f"expected numbers such as 1/16 or 0.25, got {item!r}")
        # A TOML float is read as written (0.1 is 1/10), as the campaign's TOML reads alpha.
        value = to_rational(repr(item) if isinstance(item, float) else item.strip() if isinstance(item, str) else item,
                            field=field)
        if value <= 0:
            raise InputError(field, f"expected alpha > 0, got {rational_to_str(value)}")
        values.append(value)
    if not values:
        raise InputError(field, "expected at least one value")
    return sorted(set(values))


def _families(text: Any, field: str) -> list[str]:
    items = text if isinstance(text, list) else str(text).split(",")
    names = []
    for item in (str(i).strip() for i in items):
        if item not in FAMILIES:
            raise InputError(field, f"unknown family {item!r}; expected some of {', '.join(INSIDE_FAMILIES)}")
        if item not in INSIDE_FAMILIES:
            raise InputError(field, f"family {item!r} lies outside the theorem's hypotheses; the sweep measures "
                                    "families inside them")
        if item not in names:
            names.append(item)
    if not names:
        raise InputError(field, "expected at least one family")
    return names


def _count(value: Any, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) and not str(value).strip().lstrip("-").isdigit():
        raise InputError(field, f"expected an integer, got {value!r}")
    number = int(value)
    if not low <= number <= high:
        raise InputError(field, f"expected {low}..{high}, got {number}")
    return number


def read_grid(options: dict[str, Any], grid_file: Path | None) -> dict[str, Any]:
    """The grid from the options or from a TOML file (not both; ``optimise`` may be an option beside the file),
    checked, each error naming its field.

    ``optimise`` is in the grid only when it is > 0, so that a sweep without the optimiser stage
    writes the files it wrote before the stage existed.
    """
    given = {key: value for key, value in options.items() if value is not None}
    raw: dict[str, Any] = dict(DEFAULTS)
    prefix = "--"
    # The optimiser stage is not part of the grid's cells: --optimise may go with a grid file (one grid, two stages).
    probes_option = given.pop("optimise", None) if grid_file is not None else None
    if grid_file is not None:
        if given:
            raise InputError("--grid", f"give the grid in the file or as options, not both (also given: "
                                       f"--{sorted(given)[0]})")
        try:
            data = tomllib.loads(read_text(grid_file, expected="a TOML grid file"))
        except tomllib.TOMLDecodeError as error:
            raise InputError(str(grid_file), f"not valid TOML: {error}") from None
        unknown = sorted(set(data) - set(DEFAULTS))
        if unknown:
            raise InputError(f"{grid_file}: {unknown[0]}", f"unknown key; expected some of {', '.join(DEFAULTS)}")
        raw.update(data)
        prefix = f"{grid_file}: "
    else:
        raw.update(given)
    optimise_field = f"{prefix}optimise"
    if probes_option is not None:
        if "optimise" in data:
            raise InputError("--optimise", f"give optimise in {grid_file} or as the option, not both")
        raw["optimise"], optimise_field = probes_option, "--optimise"
    grid: dict[str, Any] = {
        "families": _families(raw["families"], f"{prefix}families"),
        "n": _integers(raw["n"], f"{prefix}n", 1, MAX_N),
        "d": _integers(raw["d"], f"{prefix}d", 1, MAX_D),
        "alpha": _alphas(raw["alpha"], f"{prefix}alpha"),
        "samples": _count(raw["samples"], f"{prefix}samples", 1, MAX_SAMPLES),
        "seed": _count(raw["seed"], f"{prefix}seed", 0, 2**63 - 1),
        "layers": _count(raw["layers"], f"{prefix}layers", 1, MAX_LAYER_BUDGET),
    }
    probes = _count(raw["optimise"], optimise_field, 0, MAX_OPTIMISE_PROBES)
    if probes:
        grid["optimise"] = probes
    return grid


def cell_parameters(measurement: str, cell: Any, grid: dict[str, Any]) -> dict[str, Any]:
    """What a saved cell must have been computed with to be reused (the optimiser's probes only when > 0)."""
    parameters = {"measurement": measurement, **cell.to_json_dict(), "samples": grid["samples"],
                  "seed": grid["seed"], "layers": grid["layers"]}
    if grid.get("optimise"):
        parameters["optimise"] = grid["optimise"]
    return parameters


def _measure_on_dask(executor: DaskExecutor, measurement: Measurement, target: str, where: str, grid: dict[str, Any],
                     cells: list[Any], pending: list[tuple[int, dict[str, Any]]], out: Path, finished: Any) -> None:
    """The pending cells on Dask workers, each saved (and its certificate written) as it comes back."""
    # A worker loads the user's file again: by its absolute path. A registered measurement goes by name.
    job_target = str(Path(target).resolve()) if where != "measurement" else measurement.name
    jobs = [CellJob(job_target, cells[index], grid["samples"], grid["seed"], grid["layers"], grid.get("optimise", 0))
            for index, _ in pending]
    for position, (outcome, first, second) in executor.map_unordered(run_cell_job, jobs, name="hardmax-sweep"):
        if outcome == "bad input":  # named as the user wrote the file's path
            raise InputError(where if first == job_target else first, second)
        index, parameters = pending[position]
        for relative, report in second:  # the extreme's claims report, and the optimiser's best's
            atomic_write_text(out / relative, json_text(report, where=relative))
        finished(index, first, parameters)


def _cell_text(value: Any) -> str:
    return "-" if value is None else str(value)


def _extreme_text(result: dict[str, Any]) -> str:
    extreme = result.get("extreme")
    if not extreme:
        return "-"
    if extreme["certified"]:
        return f"{extreme['certified_value']} certified"
    return f"{extreme['screen_value']} not certified"


def _optimised_text(result: dict[str, Any]) -> str:
    """The optimiser's best value: certified or not, and whether it is later than the sampled extreme."""
    found = result.get("optimised")
    if not found or found["value"] is None:
        return "-"
    if not found["certified"]:
        return f"{found['value']} not certified"
    return f"{found['certified_value']} certified" + (" (improves)" if found["improves"] else "")


def table_rows(cells: list[dict[str, Any]], *, optimised: bool = False) -> list[list[str]]:
    """One row per cell, in the order of :func:`columns` (``optimised``: with the optimiser's best)."""
    rows = []
    for entry in cells:
        cell, result = entry["cell"], entry["result"]
        extra = ["-"] if optimised else []
        if result is None:
            rows.append([cell["family"], str(cell["n"]), str(cell["d"]), cell["alpha"], "-", "-", "-", "-", "-", "-",
                         "-", "-", "-", *extra, f"not applicable: {entry['not_applicable']}"])
            continue
        if optimised:
            extra = [_optimised_text(result)]
        rows.append([cell["family"], str(cell["n"]), str(cell["d"]), cell["alpha"], str(result["samples"]),
                     str(result["defined"]), *(_cell_text(result[k]) for k in ("min", "q50", "q90", "q99", "max")),
                     _cell_text(result["share_nonzero"]), _extreme_text(result), *extra, result["status"]])
    return rows


def markdown_table(measurement: Measurement, rows: list[list[str]], *, probes: int = 0) -> str:
    header = columns(probes > 0)
    lines = [f"# sweep: {measurement.name}", "", measurement.description + ".", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    lines += ["", "Quantiles are nearest-rank over the samples whose value is defined; `certified` marks an extreme "
                  "re-computed with the exact engine whose every claim came out certified (docs/sweep.md)."]
    if probes:
        lines += ["", f"`optimised`: the best configuration the worst-case optimiser found in {probes} probes from "
                      "the cell's best samples (same n, d and A, alpha fixed), re-checked and certified under the "
                      "same rule as the extreme; `(improves)` where it is later than the sampled extreme."]
    return "\n".join([*lines, ""])


def csv_table(rows: list[list[str]], *, optimised: bool = False) -> str:
    def field(text: str) -> str:
        return f'"{text.replace(chr(34), chr(34) * 2)}"' if any(c in text for c in ',"\n') else text
    return "\n".join(",".join(field(c) for c in line) for line in [list(columns(optimised)), *rows]) + "\n"


def _run(measurement: Measurement, where: str, target: str, grid: dict[str, Any], cells: list[Any],
         entries: list[dict[str, Any]], out: Path,
         executor: Executor | None) -> tuple[dict[str, Any], list[list[str]], list[str]]:
    """Measure the cells not done yet (in this process or on Dask), holding ``out``; the record, rows and figures."""
    with directory_lock(out), progress_reporter() as reporter:
        (out / "cells").mkdir(parents=True, exist_ok=True)
        (out / "certificates").mkdir(exist_ok=True)
        pending: list[tuple[int, dict[str, Any]]] = []
        for index, cell in enumerate(cells):
            key = cell_key(measurement.name, cell)
            entry: dict[str, Any] = {"cell": cell.to_json_dict(), "result": None}
            entries.append(entry)
            reason = applicable(cell)
            if reason is not None:
                entry["not_applicable"] = reason
                continue
            parameters = cell_parameters(measurement.name, cell, grid)
            result, unusable = saved_cell(out / "cells" / f"{key}.json", parameters)
            if result is not None:
                reporter.log(f"cell {index + 1}/{len(cells)} {key}: done in an earlier run, skipped")
                entry["result"] = result
                continue
            if unusable:
                reporter.log(f"cell {index + 1}/{len(cells)} {key}: the saved file is {unusable}; recomputed")
            pending.append((index, parameters))

        def finished(index: int, result: dict[str, Any], parameters: dict[str, Any]) -> None:
            key = cell_key(measurement.name, cells[index])
            save_cell(out / "cells" / f"{key}.json", parameters, result)
            entries[index]["result"] = result
            reporter.log(f"cell {index + 1}/{len(cells)} {key}: {result['status']}")

        if executor is None:
            for index, parameters in pending:
                def store(report: dict[str, Any], relative: str) -> str:
                    atomic_write_text(out / relative, json_text(report, where=relative))
                    return relative

                finished(index, measure_cell(measurement, cells[index], samples=grid["samples"], seed=grid["seed"],
                                             layers=grid["layers"], where=where, progress=reporter.update,
                                             certificate=store, optimise_probes=grid.get("optimise", 0)),
                         parameters)
        elif pending:
            assert isinstance(executor, DaskExecutor)  # make_executor, given a scheduler or local workers
            _measure_on_dask(executor, measurement, target, where, grid, cells, pending, out, finished)
        record = {"format": SWEEP_FORMAT, "measurement": measurement.name, "description": measurement.description,
                  "grid": {**grid, "alpha": [rational_to_str(a) for a in grid["alpha"]]},
                  "quantiles": [name for name, _ in QUANTILES], "cells": entries}
        probes = grid.get("optimise", 0)
        rows = table_rows(entries, optimised=probes > 0)
        atomic_write_text(out / "sweep.json", json_text(record, where="sweep.json"))
        atomic_write_text(out / "sweep.md", markdown_table(measurement, rows, probes=probes))
        atomic_write_text(out / "sweep.csv", csv_table(rows, optimised=probes > 0))
        figures = write_sweep_figures(record, out)
    return record, rows, figures


@click.command("sweep")
@click.argument("target", metavar="MEASUREMENT")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Output folder: sweep.md, sweep.csv, sweep.json, figures/, cells/ (resume) and certificates/.")
@click.option("--grid", "grid_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="A TOML file with the grid (keys n, d, alpha, samples, families, seed, layers, optimise) instead "
                   "of options (--optimise may go with it).")
@click.option("--n", "n", default=None, help=f"Token counts, comma-separated (default {DEFAULTS['n']}).")
@click.option("--d", "d", default=None, help=f"Dimensions, comma-separated (default {DEFAULTS['d']}).")
@click.option("--alpha", "alpha", default=None, help=f"Exact step parameters, comma-separated (default {DEFAULTS['alpha']}).")
@click.option("--samples", default=None, help=f"Configurations drawn per cell (default {DEFAULTS['samples']}).")
@click.option("--families", default=None, help=f"Families inside the hypotheses, comma-separated (default {DEFAULTS['families']}).")
@click.option("--seed", default=None, help=f"The sweep's seed (default {DEFAULTS['seed']}): the same seed gives the same files.")
@click.option("--layers", default=None, help=f"Layer budget of every run (default {DEFAULTS['layers']}).")
@click.option("--optimise", "optimise", default=None, metavar="P",
              help="Run the worst-case optimiser for P exact probes per cell from its best samples and certify its "
                   "best beside the extreme (default 0: off).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="Measure the cells on an existing Dask cluster (`dask scheduler`; needs the 'distributed' extra; "
                   "a FILE.py must be at the same path on the workers).")
@click.option("--dask-local", "dask_local", type=click.IntRange(min=1, max=max_jobs()), default=None, metavar="N",
              help="Start a Dask LocalCluster of N worker processes on loopback and measure the cells there.")
@click.option("--connect-timeout", "connect_timeout", type=click.FloatRange(min=0.1, max=600),
              default=DEFAULT_CONNECT_TIMEOUT, show_default=True, help="Seconds to reach the --scheduler.")
@json_option("the sweep's record (as sweep.json)")
def sweep(target: str, out: Path, grid_file: Path | None, n: str | None, d: str | None, alpha: str | None,
          samples: str | None, families: str | None, seed: str | None, layers: str | None, optimise: str | None,
          scheduler: str | None, dask_local: int | None, connect_timeout: float, json_to: str | None) -> int:
    """Measure a quantity over a grid of seeded families, with each cell's extreme certified exactly.

    MEASUREMENT is one of last_leader_layer, settling_layer, constancy_layer, leader_count,
    distinct_limits, late_leader, or a FILE.py defining one Measurement (it runs with your
    rights, as `python FILE.py` would). Each finished cell is saved in DIR/cells/ at once: a rerun
    with the same grid skips it. --scheduler or --dask-local spread the cells over Dask workers,
    with the same files as a serial run. --optimise P also runs the worst-case optimiser in each
    cell and certifies its best beside the extreme. Exit status 0 every cell's extreme (and
    optimiser's best) certified, 1 a claim came out false on one, 3 some not certified, 2 bad
    input, 4 could not complete.
    """
    measurement, where = measurement_named(target)
    grid = read_grid({"n": n, "d": d, "alpha": alpha, "samples": samples, "families": families, "seed": seed,
                      "layers": layers, "optimise": optimise}, grid_file)
    executor = (make_executor(scheduler=scheduler, dask_local=dask_local, connect_timeout=connect_timeout)
                if scheduler is not None or dask_local is not None else None)
    cells = list(cells_of(grid["families"], grid["n"], grid["d"], grid["alpha"]))
    entries: list[dict[str, Any]] = []
    if executor is not None:
        executor.start()  # an unreachable scheduler is refused before the output folder is made
    try:
        record, rows, figures = _run(measurement, where, target, grid, cells, entries, out, executor)
    finally:
        if executor is not None:
            executor.close()
    measured = [e["result"] for e in entries if e["result"] is not None]
    statuses = {r["status"] for r in measured}
    status = (exitcodes.FALSE if "failed" in statuses else
              exitcodes.SUCCESS if measured and statuses == {"certified"} else exitcodes.INCONCLUSIVE)
    console = summary_console(json_to)
    table = summary_table(Text(f"sweep {measurement.name}: {len(measured)} cells"))
    identifier_column(table, "family")
    header = columns("optimise" in grid)
    summary = (*SUMMARY_COLUMNS, OPTIMISED_COLUMN) if "optimise" in grid else SUMMARY_COLUMNS
    shown = [header.index(c) for c in summary]
    for column in summary[1:]:
        table.add_column(column.replace("share_nonzero", "nonzero"))
    for row in rows:
        table.add_row(*(Text(row[i]) for i in shown))
    console.print(table)
    console.print(Text(f"wrote {out}/sweep.md, sweep.csv, sweep.json" + "".join(f", {f}" for f in figures)),
                  soft_wrap=True)
    emit_json(record, json_to)
    return status
