"""``hardmax-verify check CONFIG.json``: every claim of the theorem checked exactly on one configuration."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn
from rich.table import Table
from rich.text import Text

from verify.claims import registry
from verify.core import exitcodes
from verify.claims import ClaimReport, TokenFate, check_configuration
from verify.core.config import load_configuration
from verify.core.limits import MAX_LAYER_BUDGET
from verify.core.text import one_line, short_number
from verify.claims.verdicts import Verdict
from .output import LayerLines, emit_json, json_option, summary_console, verdict_line

_STYLE = {"certified": "green", "failed": "bold red", "inconclusive": "yellow"}


def _one_line(verdict: Verdict) -> str:
    """The verdict's summary plus the first cross-check that disagrees (the exact result decides)."""
    text = verdict.summary
    for cross in verdict.cross_checks:
        if not cross.get("agree", True):
            text += f" | cross-check {cross.get('check', '')}: status {cross.get('status')}"
            if cross.get("residual_max_abs") is not None:
                text += f", residual {cross['residual_max_abs']:.2e}"
            break
    return text


# What each D7 fate means, for the fates table (docs/theory.md D7).
_FATE_MEANING = {
    "leader": "C_i = {i}: fixed from that layer on",
    "fixed": "attends only to fixed tokens G: converges to a point of their hull",
    "locked": "attention set F fixed forever: converges geometrically to its mean",
    "unsettled": "no D7 fate within the budget: limit not certified",
}


def _fate_row(fate: TokenFate) -> list[str]:
    limit = "(" + ", ".join(short_number(x) for x in fate.limit) + ")" if fate.limit is not None else "-"
    members = "{" + ",".join(str(j) for j in sorted(fate.attention)) + "}" if fate.attention is not None else "-"
    return [str(fate.token), fate.kind, "-" if fate.layer is None else str(fate.layer), members, limit]


def fates_table(report: ClaimReport) -> Table:
    """One row per token: its D7 fate, the layer it was established, the set behind it, the exact limit."""
    table = Table(title="fates and limits (docs/theory.md D7)")
    for column in ("token", "fate", "from layer", "set", "limit"):
        table.add_column(column, overflow="fold")
    for fate in sorted(report.fates, key=lambda f: f.token):
        table.add_row(*(Text(cell) for cell in _fate_row(fate)))
    return table


def fate_legend(report: ClaimReport) -> list[str]:
    """What each fate in the table means (only those that occur), and what a similarity certificate adds."""
    kinds = sorted({f.kind for f in report.fates})
    lines = [f"  {kind}: {_FATE_MEANING[kind]}" for kind in kinds if kind in _FATE_MEANING]
    similar = report.run.similarity if report.run is not None else None
    if similar is not None:
        lines.append(f"  D11: {similar.describe()}: no token is ever a leader; "
                     + ("every token converges to 0" if similar.converges_to_zero else "the limits are not certified"))
    return lines + ["  (a limit too long to write exactly is shown as ≈ its decimal value; --json has every one exactly)"]


@click.command("check")
@click.argument("config_path", metavar="CONFIG.json", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--outside-hypotheses", is_flag=True,
              help="Allow zero or duplicate tokens and A not symmetric positive definite (recorded in the output).")
@click.option("--layer-budget", type=click.IntRange(min=1, max=MAX_LAYER_BUDGET), default=200, show_default=True,
              help="Largest layer computed; the check stops one layer after every token is a leader, fixed or locked.")
@click.option("--time-budget", type=click.FloatRange(min=0, min_open=True, max=1e9), default=None, metavar="SECONDS",
              help="Stop computing layers after this much wall-clock time (default: no limit); tokens not settled "
                   "by then are inconclusive, and the output says the time budget stopped the run.")
@json_option("the full report with certificates (docs/certificates.md)")
@click.option("--no-cross-check", is_flag=True, help="Skip the float cross-checks (cvxpy projections, candidate set).")
def check(config_path: Path, outside_hypotheses: bool, layer_budget: int, time_budget: float | None,
          json_to: str | None, no_cross_check: bool) -> int:
    """Check claims T0..T4, facts D1..D3 and the one-step replay on CONFIG.json, exactly.

    Prints the overall verdict in one line, then one row per claim: status (certified / failed / inconclusive) and one line of
    evidence; then one row per token: its fate (leader, fixed, locked, or unsettled), the
    layer from which it holds, and the token's exact limit. Exit status 0 every claim certified, 1 a claim failed, 2 bad input, 3 nothing
    failed but something is inconclusive (e.g. a token did not lock within the budget).
    """
    config = load_configuration(config_path, outside_hypotheses=outside_hypotheses)
    shown_name = one_line(config.name or config_path.name)  # the file's text, never terminal codes or markup
    console = Console(stderr=True)
    lines = LayerLines(f"checking {shown_name}", f"at most {layer_budget}", console=console)  # piped: no bar

    def progress(k: int) -> None:
        bar.update(task, completed=k)
        lines(k)

    with Progress(TextColumn("checking {task.description}", markup=False), BarColumn(),
                  TextColumn("layer {task.completed}"), console=console, transient=True,
                  disable=not console.is_terminal) as bar:
        task = bar.add_task(shown_name, total=layer_budget)
        report = check_configuration(config, layer_budget=layer_budget, cross_check=not no_cross_check,
                                     progress=progress, time_budget=time_budget)

    stopped = {"settled": "", "similarity": ", stopped: the pattern repeats for ever (D11)"}.get(
        report.stopped_by, f", stopped by the {report.stopped_by}")
    title = (f"{shown_name}: n={config.n}, d={config.d}, layers 0..{report.layers_run}"
             f"{'' if report.settled_layer is None else f', settled at layer {report.settled_layer}'}"
             f"{stopped}"
             f"{', OUTSIDE HYPOTHESES' if config.outside_hypotheses else ''}")
    table = Table(title=Text(title))
    table.add_column("claim")
    table.add_column("status")
    table.add_column("evidence", overflow="fold")
    for cid in registry.verdict_ids():
        verdict = report.verdicts[cid]
        table.add_row(cid, f"[{_STYLE[verdict.status]}]{verdict.status}[/]", Text(one_line(_one_line(verdict))))
    out = summary_console(json_to)
    status = exitcodes.combine([v.status for v in report.verdicts.values()])
    overall = {exitcodes.SUCCESS: "certified", exitcodes.FALSE: "failed"}.get(status, "inconclusive")
    out.print(Text(verdict_line(shown_name, overall,
                                failed=[c for c, v in report.verdicts.items() if v.status == "failed"],
                                inconclusive=[c for c, v in report.verdicts.items() if v.status == "inconclusive"])),
              soft_wrap=True)
    out.print(table)
    out.print(fates_table(report))
    for line in fate_legend(report):
        out.print(Text(line), soft_wrap=True)
    emit_json(report.to_json_dict(), json_to)
    return status
