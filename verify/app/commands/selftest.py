"""``hardmax-verify selftest``: does the suite catch deliberately wrong dynamics?"""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from verify.core import exitcodes
from ..selftest.runner import SelfTestResult, VariantResult, run_selftest
from .output import StageLines, emit_json, identifier_column, json_option, summary_console, summary_table


def _families(checks: list[str]) -> str:
    """'known:a', 'known:b', 'claim:T1' -> 'known (2), claim T1' (the full list is in --json)."""
    grouped: dict[str, list[str]] = {}
    for check in checks:
        family, _, item = check.partition(":")
        grouped.setdefault(family, []).append(item)
    parts = []
    for family, items in grouped.items():
        parts.append(f"{family} ({len(items)})" if family == "known" else f"{family} {' '.join(items)}")
    return "; ".join(parts) or "-"


def _shorten(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _row(table: Table, variant: VariantResult, *, baseline: bool) -> None:
    if baseline:
        status = "[red]FALSE ALARM[/red]" if variant.caught else "[green]clean[/green]"
    else:
        status = "[green]caught[/green]" if variant.caught else "[red]MISSED[/red]"
    table.add_row(variant.name, variant.arithmetic, status, _families(variant.catching_checks()))


def _first_detection(variant: VariantResult) -> str | None:
    first = variant.detections[0] if variant.detections else None
    return None if first is None else _shorten(f"{variant.name}: {first.configuration}: {first.detail}")


def render(result: SelfTestResult, console: Console) -> None:
    """The table (names kept whole at 80 columns), then each variant's first detection on a line of its own."""
    table = summary_table(f"Mutation self-test (profile {result.profile})")
    for column in ("variant", "engine", "result"):
        identifier_column(table, column)
    table.add_column("caught by")
    for variant in result.baseline:
        _row(table, variant, baseline=True)
    table.add_section()
    for variant in result.variants:
        _row(table, variant, baseline=False)
    console.print(table)
    lines = [line for line in map(_first_detection, [*result.baseline, *result.variants]) if line]
    if lines:
        console.print("first detection of each (configuration: detail; --json has every one):", highlight=False)
        for line in lines:  # soft-wrapped: a long line is folded by the terminal, never cut inside a name
            console.print(Text(f"  {line}"), soft_wrap=True, highlight=False)
    caught = sum(v.caught for v in result.variants)
    if result.ok:
        verdict = "[green]every variant caught[/green]"
    else:
        verdict = "[red]the suite has a gap[/red]"
    console.print(f"{caught}/{len(result.variants)} variants caught; baseline "
                  f"{'clean' if result.baseline_clean else 'FLAGGED (a check rejects the real engine)'}: {verdict}")


@click.command("selftest")
@click.option("--profile", type=click.Choice(["ci", "dev"]), default="ci", show_default=True,
              help="How hard the property checks search (Hypothesis profile) and how many layers the claim checks run.")
@json_option("the full result (every detection)")
def selftest(profile: str, json_to: str | None) -> int:
    """Run the suite's checks against deliberately wrong implementations of the dynamics.

    The real engines run first and must pass every check; then each wrong variant (wrong
    normalisation, ties broken by index, A ignored, in-place update, own term dropped; float
    ties decided with a loose tolerance, no rounding bound, the proven bound shrunk) must be
    flagged by at least one check. Exit status 0
    when every variant is caught, 1 when one is missed or a check rejects the real engine, 4 when
    a check crashes on the real engine (the self-test could not complete).
    Progress goes to standard error, one line per variant when that is not a terminal.
    """
    console = Console(stderr=True)
    stage = StageLines("selftest", console)  # piped: one line per variant

    def progress(line: str) -> None:
        status.update(f"self-test: {line}")
        stage(line.split(": ", 1)[0])

    with console.status("self-test") as status:
        result = run_selftest(profile=profile, progress=progress)
    render(result, summary_console(json_to))
    emit_json(result.to_json_dict(), json_to)
    if result.baseline_crashes:  # a crash is no verdict on the engine: the self-test did not complete
        first = result.baseline_crashes[0]
        raise exitcodes.CouldNotComplete(f"a check crashed on the real engine ({first.check} on "
                                         f"{first.configuration}: {first.detail}); see --json for every detection")
    return exitcodes.SUCCESS if result.ok else exitcodes.FALSE
