"""``hardmax-verify simulate CONFIG.json --layers K``: run the dynamics and write the trajectory."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..config import load_configuration
from ..io import atomic_write_text
from ..limits import DEFAULT_MAX_WORK, work_refusal
from ..numbers import InputError
from ..trajectory import Arithmetic
from ..trajectory import simulate as run_simulation


@click.command("simulate")
@click.argument("config_path", metavar="CONFIG.json", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--layers", type=click.IntRange(min=0), default=None,
              help="Number of layers (default: the file's 'layers' field, else 30).")
@click.option("--arithmetic", type=click.Choice(["exact", "float"]), default="exact", show_default=True,
              help="Exact rationals (the reference) or float64 with a proven rounding bound.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the trajectory as JSON here (exact numbers as \"p/q\" strings); default: standard output.")
@click.option("--outside-hypotheses", is_flag=True,
              help="Allow zero or duplicate tokens and A not symmetric positive definite.")
@click.option("--max-work", "max_work", type=click.IntRange(min=1), default=DEFAULT_MAX_WORK, show_default=True,
              metavar="TOKEN-LAYERS",
              help="Refuse runs of more than this many layers x tokens (exact numbers grow with the layers).")
def simulate(config_path: Path, layers: int | None, arithmetic: Arithmetic, out_path: Path | None,
             outside_hypotheses: bool, max_work: int) -> int:
    """Simulate the hardmax dynamics of a configuration file.

    The JSON output holds the positions at every layer, the attention sets C_i per layer and
    the leaders (tokens with C_i = {i}) with the first layer at which each led. Float runs
    also list, per layer, the tokens whose attention set rounding could have changed.
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
    trajectory = run_simulation(config.tokens, alpha=config.alpha, A=config.A_matrix if config.A else None,
                                layers=layers, arithmetic=arithmetic, V=config.V)
    data = {"config": config.to_json_dict(), **trajectory.to_json_dict()}
    text = json.dumps(data, indent=1) + "\n"
    if out_path is None:
        click.echo(text, nl=False)
    else:
        atomic_write_text(out_path, text)
        leaders = ", ".join(f"{i} (layer {k})" for i, k in sorted(trajectory.leaders.items()))
        click.echo(f"{config.n} tokens, {layers} layers, {arithmetic}: leaders {leaders or 'none'}", err=True)
        if not trajectory.certified:
            click.echo("warning: some float attention sets were not decided by the rounding bound; "
                       "rerun with --arithmetic exact", err=True)
        click.echo(f"wrote {out_path}", err=True)
    return 0
