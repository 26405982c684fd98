"""``hardmax-verify report``: run the verification campaign and write the report folder."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from dataclasses import replace

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from verify.core import exitcodes
from verify.core.formatting import counted
from ..campaign import default_spec, load_campaign
from ..campaign.plan import GENERATOR_VERSIONS, MAX_RESULTS_BYTES, parse_results_file, recheck_plan
from ..campaign.executors import TLSFiles, make_executor
from ..interrupts import raise_interrupt
from verify.core.io import check_writable, directory_lock, read_input
from verify.core.numbers import InputError
from verify.core.limits import max_jobs
from verify.core.versions import dependency_versions
from ..locations import project_runs
from ..report.build import build_report
from ..report.citation import citation
from ..report.schema import validate_results
from ..report.kernel import kernel_lines
from .output import StageLines, echo_summary, emit_json, json_option, verdict_line

DEFAULT_OUT = Path("reports") / "latest"


def _equivalent_command(out: Path, seed: int, examples: int | None, config: Path | None, jobs: int | None,
                        runs: Path | None, outside_hypotheses: bool, scheduler: str | None = None,
                        dask_local: int | None = None, time_budget: float | None = None,
                        tls: dict[str, Path | None] | None = None, kernel: bool = True) -> str:
    parts = ["hardmax-verify", "report", "--out", str(out), "--seed", str(seed)]
    if not kernel:
        parts.append("--no-kernel")
    if examples is not None:
        parts += ["--examples", str(examples)]
    if config is not None:
        parts += ["--config", str(config)]
    if outside_hypotheses:
        parts.append("--outside-hypotheses")
    if time_budget is not None:
        parts += ["--time-budget", repr(time_budget)]
    if scheduler is not None:
        parts += ["--scheduler", scheduler]
        for option, path in (tls or {}).items():
            if path is not None:
                parts += [option, str(path)]
    elif dask_local is not None:
        parts += ["--dask-local", str(dask_local)]
    else:
        parts += ["--jobs", str(jobs)]
    if runs is not None:  # without it the default (the project's saved results) applies again
        parts += ["--runs", str(runs)]
    return shlex.join(parts)


@click.command("report")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_OUT,
              show_default=True, help="Report folder (replaced whole, atomically, when the report is complete).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Campaign seed: the same seed and versions give the same results.json (apart from its environment block).")
@click.option("--examples", type=click.IntRange(min=0), default=None,
              help=f"Number of generated configurations (default: the campaign's; {default_spec().examples} for the "
                   "embedded one).")
@click.option("--config", "config", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="CAMPAIGN.toml with families, counts, sizes and layer budget (see docs/report.md).")
@click.option("--jobs", type=click.IntRange(min=1, max=max_jobs()), default=None,
              help="Worker processes (default: all cores; 1 runs everything in this process; at most twice the "
                   "cores, and at least 4).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="Run the tasks on an existing Dask cluster (`dask scheduler`; needs the 'distributed' extra). "
                   "tls://HOST:PORT with --tls-ca-file (and --tls-cert, --tls-key) for an encrypted connection.")
@click.option("--tls-ca-file", "tls_ca_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="With a tls:// --scheduler: the CA certificate that signed the scheduler's.")
@click.option("--tls-cert", "tls_cert", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="With a tls:// --scheduler: this client's certificate (PEM; may hold the key too), signed by a CA "
                   "the scheduler trusts.")
@click.option("--tls-key", "tls_key", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="With a tls:// --scheduler: this client's private key (PEM), if not in --tls-cert.")
@click.option("--dask-local", "dask_local", type=click.IntRange(min=1, max=max_jobs()), default=None, metavar="N",
              help="Start a Dask LocalCluster of N worker processes on loopback and run the tasks there.")
@click.option("--connect-timeout", "connect_timeout", type=click.FloatRange(min=0.1, max=600), default=10.0,
              show_default=True, help="Seconds to reach the --scheduler before giving up (exit status 2); a service "
                                      "there that is not a Dask scheduler is exit status 4.")
@click.option("--runs", "runs", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where saved sentiment / conjecture / classification results are looked for "
                   "(RUNS/sentiment/*.json, RUNS/conjectures/*.json, RUNS/classify/*.json), relative to the "
                   "current folder. Default: the project's saved results (runs/ of the clone the package runs "
                   "from, wherever the command is started); an installed copy has none and says so.")
@click.option("--time-budget", "time_budget", type=click.FloatRange(min=0, min_open=True, max=1e9), default=None,
              metavar="SECONDS", help="Wall-clock seconds per configuration (default: the campaign's, none for the "
                                      "embedded one). Runs it stops are inconclusive and say so; results then depend "
                                      "on the machine's speed.")
@click.option("--outside-hypotheses", is_flag=True,
              help="Allow campaign families outside the theorem's hypotheses (zero or duplicate tokens, A not SPD).")
@click.option("--recheck", "recheck", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="results.json",
              help="Run no campaign: regenerate the plan of a results.json from its recorded campaign (seed, families, "
                   "counts, sizes) with this installation's generators and compare it, and every record's "
                   "configuration, with the file. Exit 0 the same, 1 a difference (the first is named).")
@click.option("--cite", is_flag=True,
              help="Run no campaign: print the citable paragraph of the report in --out (what was certified, on which "
                   "configurations, by which commit and checker, assuming which facts of docs/theory.md) and its "
                   "BibTeX entry, from its results.json.")
@click.option("--no-kernel", "no_kernel", is_flag=True,
              help="Skip the kernel pass (Coq's kernel on every D7 or D9 certificate, docs/formal.md; it runs by default "
                   "when coqc is installed, and the report says when it did not).")
@json_option("the full result (the contents of results.json; with --cite, the paragraph and the entry)")
@click.pass_context
def report(ctx: click.Context, out: Path, seed: int, examples: int | None, config: Path | None, jobs: int | None,
           scheduler: str | None, tls_ca_file: Path | None, tls_cert: Path | None, tls_key: Path | None,
           dask_local: int | None, connect_timeout: float, runs: Path | None,
           time_budget: float | None, outside_hypotheses: bool, recheck: Path | None, cite: bool, no_kernel: bool,
           json_to: str | None) -> int:
    """Run the verification campaign and write report.md, report.html, results.json and figures/.

    The campaign checks every claim (T0..T4, D1..D3 and the replay) exactly on the four worked
    configurations of docs/theory.md §4 and on seed-generated configurations across families.
    The report is written in every case; the exit status combines the verdicts: 0 all
    certified, 1 something failed (or Coq's kernel rejected a certificate), 3 nothing failed but
    something inconclusive. When coqc is installed the kernel pass checks every D7 or D9 certificate
    with Coq's kernel (docs/formal.md); the report's claims table says per claim how many
    configurations are kernel-checked. A second run
    into the same --out while one is running is refused (exit status 4). The summary (the
    overall verdict first) goes to standard output; progress to standard error, one line per
    stage when that is not a terminal.


    With --recheck results.json no campaign runs: the file's plan is regenerated from its
    campaign and compared (not independent: it uses the suite's own generators; docs/certcheck.md).
    With --cite no campaign runs either: the citable paragraph of the report in --out is printed
    (the one at the top of its report.md), computed from its results.json.
    """
    if cite:
        given = [f"--{name.replace('_', '-')}" for name in ctx.params if name not in ("cite", "out", "json_to")
                 and ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT]
        if given:
            raise click.UsageError(f"--cite runs no campaign: {', '.join(given)} cannot be given with it "
                                   "(only --out, the report to cite, and --json)")
        return _cite(out, json_to)
    if recheck is not None:
        given = [f"--{name.replace('_', '-')}" for name in ctx.params
                 if name != "recheck" and ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT]
        if given:
            raise click.UsageError(f"--recheck runs no campaign: {', '.join(given)} cannot be given with it "
                                   "(the campaign is the file's)")
        return _recheck(recheck)

    # Before anything runs: an output folder that cannot be written (exit 4), then two executors at
    # once or an empty address (bad input).
    check_writable(out, folder=True, replaced=True)
    tls = TLSFiles(ca_file=tls_ca_file, cert=tls_cert, key=tls_key)
    executor = make_executor(jobs=jobs, scheduler=scheduler, dask_local=dask_local, connect_timeout=connect_timeout,
                             tls=tls)
    if scheduler is None and dask_local is None:
        jobs = jobs or os.cpu_count() or 1
    previous_handler = signal.getsignal(signal.SIGTERM)
    if threading.current_thread() is threading.main_thread():
        # SIGTERM (a scheduler stopping the job) is handled like Ctrl-C: the pool is stopped and
        # the staging folder removed, instead of the process vanishing mid-write.
        signal.signal(signal.SIGTERM, raise_interrupt)
    try:
        # The output folder's lock first: a second run into it is refused before any worker starts.
        with directory_lock(out), executor:
            return _run(out, seed, examples, config, jobs, runs, outside_hypotheses, executor,
                        scheduler=scheduler, dask_local=dask_local, time_budget=time_budget, tls=tls.options(),
                        json_to=json_to, kernel=not no_kernel)
    finally:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, previous_handler)


def _cite(out: Path, json_to: str | None) -> int:
    """``report --cite``: the paragraph and BibTeX entry of the report in ``out``, from its results.json."""
    path = out / "results.json"
    raw = read_input(path, expected="a report's results.json (run hardmax-verify report first)", limit=MAX_RESULTS_BYTES)
    data = parse_results_file(path)
    errors = validate_results(data)
    if errors:
        raise InputError(str(path), f"not a results.json of this version: {errors[0]}")
    cited = citation(data, results_sha256=hashlib.sha256(raw).hexdigest())
    echo_summary(f"{cited.paragraph}\n\n{cited.bibtex}", json_to)
    emit_json(cited.to_json_dict(), json_to)
    return exitcodes.SUCCESS


def _recheck(path: Path) -> int:
    """``report --recheck``: 0 when the file's plan and records are what its campaign generates, 1 otherwise."""
    data = parse_results_file(path)
    difference = recheck_plan(data)
    for note in _version_notes(data):
        click.echo(f"note: a generator version differs: {note}", err=True)
    if difference is not None:
        click.echo(f"{path}: DIFFERS from what its campaign generates: {difference.line()}")
        return exitcodes.FALSE
    campaign = data["campaign"]
    click.echo(f"{path}: the campaign block, the plan ({len(data['plan']['tasks'])} tasks) and every record's task "
               f"and configuration are what seed {campaign['seed']} generates with this installation")
    return exitcodes.SUCCESS


def _version_notes(results: Any) -> list[str]:
    """The generator versions of the report's environment block that differ from this installation's."""

    environment = results.get("environment") if isinstance(results, dict) else None
    stated = environment.get("versions") if isinstance(environment, dict) else None
    if not isinstance(stated, dict):
        return ["the file records no versions (its environment block is missing)"]
    here = dependency_versions([name for name in GENERATOR_VERSIONS if name != "python"])
    return [f"{name}: the report ran with {stated.get(name)}, this installation has {here.get(name)}"
            for name in GENERATOR_VERSIONS if stated.get(name) != here.get(name)]


def _run(out: Path, seed: int, examples: int | None, config: Path | None, jobs: int | None, runs: Path | None,
         outside_hypotheses: bool, executor: Any, *, scheduler: str | None, dask_local: int | None,
         time_budget: float | None = None, tls: dict[str, Path | None] | None = None,
         json_to: str | None = None, kernel: bool = True) -> int:
    spec = load_campaign(config, outside_hypotheses=outside_hypotheses) if config is not None else default_spec()
    changes: dict[str, Any] = {}
    if examples is not None:
        changes["examples"] = examples
    if outside_hypotheses:
        changes["outside_hypotheses"] = True
    if time_budget is not None:
        changes["time_budget"] = time_budget
    if changes:
        spec = replace(spec, **changes)
    console = Console(stderr=True)
    stage = StageLines("report", console)
    with Progress(TextColumn("checking"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=console, transient=True,
                  disable=not console.is_terminal) as bar:
        progress_task = bar.add_task("", total=None)
        planned = [0]
        finished = [0]

        def on_tasks(tasks: list) -> None:
            planned[0] = len(tasks)
            bar.update(progress_task, total=len(tasks))
            stage(f"checking {counted(len(tasks), 'configuration')}")

        def on_done(task, record) -> None:
            finished[0] += 1
            bar.update(progress_task, advance=1, description=f"{task.name}: {record.get('status')}")
            # Piped: a line at every quarter of the campaign, the longest stage.
            if planned[0] and finished[0] * 4 // planned[0] != (finished[0] - 1) * 4 // planned[0]:
                stage(f"checked {finished[0]:,} of {counted(planned[0], 'configuration')}")

        def on_stage(name: str) -> None:
            bar.update(progress_task, description=f"{name}...")
            stage(name)

        # The project's saved results are found from the package, not the current folder, and
        # shown as "runs/..." so that results.json does not depend on where the clone lies.
        runs_dir, runs_label = (runs, str(runs)) if runs is not None else (project_runs(), "runs")
        outcome = build_report(out=out, seed=seed, spec=spec, jobs=jobs or 1, runs_dir=runs_dir, runs_label=runs_label,
                               campaign_file=config,
                               argv=list(sys.argv),
                               command_line=_equivalent_command(out, seed, examples, config, jobs, runs, outside_hypotheses,
                                                                scheduler, dask_local, time_budget, tls, kernel),
                               progress=on_done, executor=executor, on_tasks=on_tasks, on_stage=on_stage,
                               kernel=kernel)
    summary = outcome.results["summary"]
    failed = [c for c, row in summary["claims"].items() if row["failed"]]
    inconclusive = [c for c, row in summary["claims"].items() if row["inconclusive"] or row["unchecked"]]
    configurations = counted(summary["examples"], "configuration")
    lines = [verdict_line(configurations, summary["overall"], failed=failed,
                          inconclusive=inconclusive)]
    lines += kernel_lines(outcome.results.get("kernel"))
    for name, section in outcome.results["optional_sections"].items():
        if section.get("skipped"):
            lines.append(f"skipped the optional {name} section: {section['skipped']}")
    lines.append(f"report: {out}/report.md, report.html, results.json")
    echo_summary("\n".join(lines), json_to)
    # The record is results.json itself, read back: the same key order and content as the file.
    emit_json(json.loads((Path(out) / "results.json").read_text(encoding="utf-8")), json_to)
    return outcome.exit_status
