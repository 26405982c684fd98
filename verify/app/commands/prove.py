"""``hardmax-verify prove FILE``: the claims of a configuration, claims report or results.json checked by Coq's kernel.

What the kernel proves is stated in formal/Statement.v (docs/formal.md); this command writes each
configuration and its D7 or D9 certificate as Coq terms (verify/formal, untrusted) and says, claim by
claim, kernel-checked, rejected by the kernel, or not kernel-checked and why.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table
from rich.text import Text

from verify.core.limits import MAX_LAYER_BUDGET
from verify.core.text import one_line
from verify.formal.kernel import DEFAULT_TIME_LIMIT
from verify.formal.prove import STATUSES, prove_path
from verify.formal.tasks import FAILURES, KERNEL_CHECKED, NOT_KERNEL_CHECKED, REJECTED, THEOREMS
from .output import emit_json, json_option, progress_reporter, summary_console, verdict_line

_STYLE = {"kernel-checked": "green", "rejected": "bold red", "not kernel-checked": "yellow"}


@click.command("prove")
@click.argument("path", metavar="CONFIG.json|claims.json|results.json", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--outside-hypotheses", is_flag=True,
              help="For a configuration: allow zero or duplicate tokens and A not symmetric positive definite.")
@click.option("--layer-budget", type=click.IntRange(min=1, max=MAX_LAYER_BUDGET), default=200, show_default=True,
              help="For a configuration: the largest layer the exact check computes before the kernel pass.")
@click.option("--jobs", type=click.IntRange(min=1, max=64), default=1, show_default=True,
              help="coqc processes run at once.")
@click.option("--time-limit", type=click.FloatRange(min=1, max=86400), default=DEFAULT_TIME_LIMIT, show_default=True,
              metavar="SECONDS", help="Wall time allowed to one coqc run (a configuration past it is not kernel-checked).")
@click.option("--write-coq", "write_coq", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Also write each configuration's proof as DIR/NAME.v, to check by hand with coqc (docs/formal.md).")
@click.option("--verbose", is_flag=True, help="One line per configuration and claim, not only the rejected ones.")
@json_option("every configuration's claims with their kernel status and reason")
def prove(path: Path, outside_hypotheses: bool, layer_budget: int, jobs: int, time_limit: float,
          write_coq: Path | None, verbose: bool, json_to: str | None) -> int:
    """Check the certified claims of FILE with Coq's kernel (formal/, docs/formal.md).

    FILE is a configuration (checked exactly first, as by 'check'), a claims report of 'check
    --json' or a report's results.json. For every configuration whose tokens all have D7 fates or
    D9 closed-form paths, the kernel evaluates the model of formal/Statement.v and checks the
    certificates: T0, T1 (with the final leader set and every token's limit), T2-T4 and the
    replayed last layer are then kernel-checked; D1 and D3 are theorems for every configuration,
    D2 for every A that is symmetric positive semidefinite. A value matrix and softmax attention
    are not formalised: those claims are reported not kernel-checked. A T0 that check found
    failed with a D11 similarity certificate is kernel-checked as a
    failure: the kernel proves that no token ever leads (the line says "T0 fails"). Exit status 0 every claim
    kernel-checked, 1 the kernel rejected a certificate, 2 bad input, 3 nothing rejected but
    something not kernel-checked, 4 could not complete (coqc missing: scripts/setup.sh).
    """
    with progress_reporter() as reporter:
        result = prove_path(path, outside_hypotheses=outside_hypotheses, layer_budget=layer_budget, jobs=jobs,
                            time_limit=time_limit, write_coq=write_coq,
                            progress=lambda done, total: reporter("kernel", done, total))
    out = summary_console(json_to)
    shown = one_line(path.name)
    status = result.exit_status
    overall = {0: "kernel-checked", 1: "rejected by the kernel"}.get(status, "not everything kernel-checked")
    out.print(Text(verdict_line(shown, overall)), soft_wrap=True)
    for label, claims, _ in result.records:
        for claim, outcome in claims.items():
            # A failure the kernel proves (T0 with a D11 certificate) is always said: its count reads as kernel-checked.
            proved_failure = outcome.status == KERNEL_CHECKED and outcome.reason == FAILURES.get(claim)
            if verbose or outcome.status == REJECTED or proved_failure:
                line = Text(f"{one_line(label)}: {claim} ")
                line.append(outcome.status, style=_STYLE[outcome.status])
                line.append(f": {one_line(outcome.reason)}" if outcome.reason else "")
                out.print(line, soft_wrap=True, highlight=False)
    table = Table(title=Text(f"Coq's kernel on {shown} ({len(result.records)} configuration"
                             f"{'' if len(result.records) == 1 else 's'})"))
    table.add_column("claim")
    for s in STATUSES:
        table.add_column(s, justify="right")
    table.add_column("proved by", overflow="fold")
    for claim, row in result.counts().items():
        table.add_row(claim, *(str(row[s]) for s in STATUSES), THEOREMS.get(claim, "not formalised yet"))
    out.print(table)
    reasons = sorted({o.reason for _, claims, _ in result.records for o in claims.values()
                      if o.status == NOT_KERNEL_CHECKED and o.reason})
    for reason in reasons:
        count = sum(1 for _, claims, _ in result.records for o in claims.values() if o.reason == reason)
        out.print(Text(f"not kernel-checked ({count}): {one_line(reason)}"), soft_wrap=True)
    out.print(Text(f"Coq {result.kernel.coq_version}, vm_compute; statement formal/Statement.v "
                   f"sha256 {result.kernel.statement_sha256}; the certificates (D7 fates, D9 paths, D11 similarities) "
                   f"of "
                   f"{result.configurations_checked} configuration{'' if result.configurations_checked == 1 else 's'} "
                   f"checked by the kernel "
                   f"in {result.kernel.seconds:.1f} s"), soft_wrap=True)
    emit_json(result.to_json_dict(), json_to)
    return status
