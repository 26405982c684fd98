"""``hardmax-verify report``: run the verification campaign and write the report folder."""

from __future__ import annotations

import os
import shlex
import signal
import sys
import threading
from pathlib import Path

from dataclasses import replace

import click

from ..report.build import build_report
from ..report.campaign import default_spec, load_campaign

DEFAULT_OUT = Path("reports") / "latest"


def _equivalent_command(out: Path, seed: int, examples: int | None, config: Path | None, jobs: int,
                        runs: Path, outside_hypotheses: bool) -> str:
    parts = ["hardmax-verify", "report", "--out", str(out), "--seed", str(seed)]
    if examples is not None:
        parts += ["--examples", str(examples)]
    if config is not None:
        parts += ["--config", str(config)]
    if outside_hypotheses:
        parts.append("--outside-hypotheses")
    parts += ["--jobs", str(jobs), "--runs", str(runs)]
    return shlex.join(parts)


@click.command("report")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_OUT,
              show_default=True, help="Report folder (replaced whole, atomically, when the report is complete).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Campaign seed: the same seed and versions give the same results.json (apart from its environment block).")
@click.option("--examples", type=click.IntRange(min=0), default=None,
              help="Number of generated configurations (default: the campaign's; 144 for the embedded one).")
@click.option("--config", "config", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="CAMPAIGN.toml with families, counts, sizes and layer budget (see docs/report.md).")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes (default: all cores; 1 runs everything in this process).")
@click.option("--runs", "runs", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"),
              show_default=True, help="Where saved sentiment / conjecture results are looked for (RUNS/sentiment/*.json, RUNS/conjectures/*.json).")
@click.option("--outside-hypotheses", is_flag=True,
              help="Allow campaign families outside the theorem's hypotheses (zero or duplicate tokens, A not SPD).")
def report(out: Path, seed: int, examples: int | None, config: Path | None, jobs: int | None, runs: Path,
           outside_hypotheses: bool) -> int:
    """Run the verification campaign and write report.md, report.html, results.json and figures/.

    The campaign checks every claim (T0..T4, D1..D3 and the replay) exactly on the four worked
    configurations of THEORY.md §4 and on seed-generated configurations across families.
    The report is written in every case; the exit status combines the verdicts: 0 all
    certified, 1 something failed, 3 nothing failed but something inconclusive.
    """
    jobs = jobs or os.cpu_count() or 1
    previous_handler = signal.getsignal(signal.SIGTERM)
    if threading.current_thread() is threading.main_thread():
        # SIGTERM (a scheduler stopping the job) is handled like Ctrl-C: the pool is stopped and
        # the staging folder removed, instead of the process vanishing mid-write.
        signal.signal(signal.SIGTERM, _terminate)
    try:
        return _run(out, seed, examples, config, jobs, runs, outside_hypotheses)
    finally:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, previous_handler)


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _run(out: Path, seed: int, examples: int | None, config: Path | None, jobs: int, runs: Path,
         outside_hypotheses: bool) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    spec = load_campaign(config, outside_hypotheses=outside_hypotheses) if config is not None else default_spec()
    changes = {}
    if examples is not None:
        changes["examples"] = examples
    if outside_hypotheses:
        changes["outside_hypotheses"] = True
    if changes:
        spec = replace(spec, **changes)
    console = Console(stderr=True)
    with Progress(TextColumn("checking"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=console, transient=True,
                  disable=not console.is_terminal) as bar:
        progress_task = bar.add_task("", total=None)

        def on_tasks(tasks: list) -> None:
            bar.update(progress_task, total=len(tasks))

        def on_done(task, record) -> None:
            bar.update(progress_task, advance=1, description=f"{task.name}: {record.get('status')}")

        outcome = build_report(out=out, seed=seed, spec=spec, jobs=jobs, runs_dir=runs, campaign_file=config,
                               argv=list(sys.argv),
                               command_line=_equivalent_command(out, seed, examples, config, jobs, runs, outside_hypotheses),
                               progress=on_done, on_tasks=on_tasks,
                               on_stage=lambda stage: bar.update(progress_task, description=f"{stage}..."))
    summary = outcome.results["summary"]
    failed = [c for c, row in summary["claims"].items() if row["failed"]]
    inconclusive = [c for c, row in summary["claims"].items() if row["inconclusive"] or row["unchecked"]]
    click.echo(f"{summary['examples']} configurations: {summary['overall']}"
               + (f"; failed: {', '.join(failed)}" if failed else "")
               + (f"; inconclusive or unchecked: {', '.join(inconclusive)}" if inconclusive else ""), err=True)
    click.echo(f"wrote {out}/report.md, report.html, results.json", err=True)
    return outcome.exit_status
