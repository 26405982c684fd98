"""``hardmax-verify simulate CONFIG.json --layers K``: run the dynamics; a readable summary, the trajectory as JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from verify.core import exitcodes
from verify.core.config import Configuration, load_configuration
from verify.core.limits import DEFAULT_MAX_WORK, work_refusal
from verify.core.numbers import InputError
from verify.core.text import one_line, short_number
from verify.core.trajectory import Arithmetic, Trajectory
from verify.core.trajectory import simulate as run_simulation
from .output import LayerLines, echo_summary, emit_json, json_option

# A summary line lists at most this many tokens' attention sets (the JSON has them all).
MAX_TOKENS_SHOWN = 24


def _set_text(members: frozenset[int]) -> str:
    return "{" + ",".join(str(j) for j in sorted(members)) + "}"


def _sets_line(sets: Sequence[frozenset[int]], undecided: frozenset[int] = frozenset()) -> str:
    shown = [_set_text(c) + ("?" if i in undecided else "") for i, c in enumerate(sets[:MAX_TOKENS_SHOWN])]
    more = f" … ({len(sets) - MAX_TOKENS_SHOWN} more tokens)" if len(sets) > MAX_TOKENS_SHOWN else ""
    return " ".join(shown) + more


def summary_lines(config: Configuration, trajectory: Trajectory, *, source: str) -> list[str]:
    """The readable summary of a run: attention sets per layer (repeats folded), leaders, final positions."""
    n, layers = trajectory.n, trajectory.layers
    lines = [f"{one_line(config.name or source)}: n = {n} tokens in d = {config.d}, alpha = {short_number(config.alpha)}, "
             f"layers 0..{layers}, {trajectory.arithmetic} arithmetic"
             + (", OUTSIDE HYPOTHESES" if config.outside_hypotheses else "")]
    lines.append("attention sets C_0 .. C_{n-1} per layer (a set is the tokens token i attends to"
                 + ("; ? = not decided by the rounding bound" if trajectory.arithmetic == "float" else "") + "):")
    undecided = trajectory.undecided or [frozenset()] * (layers + 1)
    k = 0
    while k <= layers:
        end = k
        while (end + 1 <= layers and trajectory.attention[end + 1] == trajectory.attention[k]
               and undecided[end + 1] == undecided[k]):
            end += 1
        label = f"layer {k}" if end == k else f"layers {k}..{end}"
        lines.append(f"  {label:<14} {_sets_line(trajectory.attention[k], undecided[k])}")
        k = end + 1
    if trajectory.leaders:
        leaders = ", ".join(f"{i} (from layer {first})" for i, first in sorted(trajectory.leaders.items()))
        lines.append(f"leaders (C_i = {{i}}): {leaders}")
    else:
        lines.append(f"leaders (C_i = {{i}}): none within layers 0..{layers}")
    lines.append(f"final positions (layer {layers}; every value in full with --json):")
    final, before = trajectory.positions[layers], trajectory.positions[max(layers - 1, 0)]
    for i in range(min(n, MAX_TOKENS_SHOWN)):
        moved = "" if layers == 0 or list(final[i]) != list(before[i]) else "  (did not move in the last layer)"
        lines.append(f"  token {i:<4} ({', '.join(short_number(x) for x in final[i])}){moved}")
    if n > MAX_TOKENS_SHOWN:
        lines.append(f"  … {n - MAX_TOKENS_SHOWN} more tokens (--json for all)")
    if trajectory.arithmetic == "exact":
        lines.append("certified: every attention set was decided in exact rational arithmetic. The limits and "
                     "every claim: hardmax-verify check")
    elif trajectory.certified:
        lines.append("certified: every float attention set was decided by the proven rounding bound")
    else:
        lines.append(f"NOT certified: float attention sets are not decided by the rounding bound from layer "
                     f"{trajectory.first_undecided_layer} on; rerun with --arithmetic exact")
    return lines


@click.command("simulate")
@click.argument("config_path", metavar="CONFIG.json", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--layers", type=click.IntRange(min=0), default=None,
              help="Number of layers (default: the file's 'layers' field, else 30).")
@click.option("--arithmetic", type=click.Choice(["exact", "float"]), default="exact", show_default=True,
              help="Exact rationals (the reference) or float64 with a proven rounding bound.")
@json_option("the trajectory (positions and attention sets at every layer, exact numbers as \"p/q\" strings)")
@click.option("--outside-hypotheses", is_flag=True,
              help="Allow zero or duplicate tokens and A not symmetric positive definite.")
@click.option("--max-work", "max_work", type=click.IntRange(min=1), default=DEFAULT_MAX_WORK, show_default=True,
              metavar="TOKEN-LAYERS",
              help="Refuse runs of more than this many layers x tokens (exact numbers grow with the layers).")
def simulate(config_path: Path, layers: int | None, arithmetic: Arithmetic, json_to: str | None,
             outside_hypotheses: bool, max_work: int) -> int:
    """Simulate the hardmax dynamics of a configuration file.

    Prints the attention sets C_i of every layer (layers with the same sets folded into one
    line), the leaders (tokens with C_i = {i}) with the first layer at which each led, the
    final positions and whether the run is certified. --json gives the whole trajectory;
    float runs also list, per layer, the tokens whose attention set rounding could have changed.
    Exit status 0 when certified (always in exact arithmetic), 3 when a float run is not.
    """
    config = load_configuration(config_path, outside_hypotheses=outside_hypotheses)
    option = "--layers"
    if layers is None:
        option = f"{config_path}: layers" if "layers" in config.extra else option
        layers = int(config.extra.get("layers", 30))
    refusal = work_refusal(layers, config.n, max_work)
    if refusal is not None:
        raise InputError(option, refusal)
    if config.beta is not None:
        raise InputError("beta", "softmax attention is simulated by the conjecture lab, not by 'simulate'")
    shown_name = one_line(config.name or config_path.name)
    console = Console(stderr=True)
    lines = LayerLines(f"simulating {shown_name}", str(layers), console=console)  # piped: no bar

    def progress(k: int) -> None:
        bar.update(task, completed=k)
        lines(k)

    with Progress(TextColumn("simulating {task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task(shown_name, total=layers)
        trajectory = run_simulation(config.tokens, alpha=config.alpha, A=config.A_matrix if config.A else None,
                                    layers=layers, arithmetic=arithmetic, V=config.V, progress=progress)
    echo_summary("\n".join(summary_lines(config, trajectory, source=config_path.name)), json_to)
    emit_json({"config": config.to_json_dict(), **trajectory.to_json_dict()}, json_to)
    # A float run with an undecided attention set is not certified: nothing false, inconclusive.
    return exitcodes.SUCCESS if trajectory.certified else exitcodes.INCONCLUSIVE
