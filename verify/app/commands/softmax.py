"""``hardmax-verify softmax CONFIG.json --beta B --layers K``: how far softmax attention can be from hardmax, certified."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from verify.core import exitcodes
from verify.core.config import Configuration, HypothesisViolation, hypothesis_violations, parse_configuration
from verify.core.softmax_bound import SoftmaxCertificate, readable_decimal, softmax_certificate
from verify.core.io import read_text
from verify.core.limits import DEFAULT_MAX_WORK, work_refusal
from verify.core.numbers import InputError, parse_json, rational_to_str, to_rational
from verify.core.text import one_line, short_number
from .output import emit_json, json_option, summary_console

DEFAULT_LAYERS = 8

__all__ = ["softmax", "certificate_record", "summary_lines"]


def _checked_configuration(path: Path, *, outside_hypotheses: bool) -> tuple[Configuration, Fraction | None]:
    """The configuration and its 'beta' field, validated as every command does.

    The file's beta is this command's input, not a variant of the model, so it is taken out
    before the theorem's hypotheses are checked (outside them only with the flag or the file's
    "outside_hypotheses": true).
    """
    data = parse_json(read_text(path, expected="a JSON configuration file"), source=str(path))
    beta = None
    if isinstance(data, dict) and data.get("beta") is not None:
        data = dict(data)
        beta = to_rational(data.pop("beta"), field=f"{path}: beta")
    try:
        config = parse_configuration(data, outside_hypotheses=outside_hypotheses, source=str(path))
    except HypothesisViolation as error:
        raise HypothesisViolation(f"{path}: {error.field}", error.message) from None
    except InputError as error:
        where = f"{path}: {error.field}" if error.field and error.field != str(path) else str(path)
        raise InputError(where, error.message) from None
    if config.V is not None:
        raise InputError(f"{path}: V", "the softmax bound is derived for the alpha update only, not a value matrix")
    # Recorded only when the configuration is in fact outside the hypotheses.
    return config.with_outside_hypotheses(bool(hypothesis_violations(config))), beta


def certificate_record(config: Configuration, certificate: SoftmaxCertificate) -> dict[str, Any]:
    """The JSON record of the command: the configuration, the certificate, the verdict."""
    record: dict[str, Any] = {"command": "softmax", "config": config.to_json_dict(),
                              "softmax_certificate": certificate.to_json_dict(),
                              "status": "certified" if certificate.holds else "inconclusive"}
    if config.outside_hypotheses:
        record["outside_hypotheses"] = True
    return record


def summary_lines(config: Configuration, certificate: SoftmaxCertificate, *, source: str) -> tuple[str, Table, list[str]]:
    """The readable summary: a heading, the per-layer table and the verdict lines."""
    heading = (f"{one_line(config.name or source)}: n = {config.n} tokens in d = {config.d}, "
               f"alpha = {short_number(config.alpha)}, beta = {short_number(certificate.beta)}, "
               f"layers 0..{certificate.layers}" + (", OUTSIDE HYPOTHESES" if config.outside_hypotheses else ""))
    table = Table(title="softmax within eps_k of hardmax (docs/theory.md §6)")
    for column in ("layer", "eps_k (bound)", "delta_k (margin)", "2 eta_k", "status"):
        table.add_column(column, justify="right" if column != "status" else "left")
    stop = certificate.stop
    for record in certificate.records:
        status = "holds"
        if stop is not None and record.layer == stop.layer:
            status = "holds; stops here (" + ("tie" if stop.reason == "tie" else "delta <= 2 eta") + ")"
        # Upper bounds (eps, 2 eta) are printed rounded up, the margin delta rounded down.
        margin = "-" if record.margin is None else readable_decimal(record.margin, rounding="down")
        eta = "-" if record.eta is None else readable_decimal(2 * record.eta, rounding="up")
        table.add_row(str(record.layer), readable_decimal(record.bound, rounding="up"), margin, eta, status)
    lines = [f"R <= {readable_decimal(certificate.radius, rounding='up')}, "
             f"||A|| <= {readable_decimal(certificate.norm, rounding='up')} "
             f"({certificate.norm_method}), gamma = {short_number(certificate.gamma)}"]
    if certificate.holds:
        lines.append(f"certified: the softmax trajectory (exact real arithmetic) stays within eps_k of the exact "
                     f"hardmax one at every layer 0..{certificate.layers}; eps_{certificate.layers} <= "
                     f"{readable_decimal(certificate.records[-1].bound, rounding='up')}")
    elif stop is not None:
        lines.append(f"inconclusive: the certificate stops at {stop.describe()}; the bound holds through layer "
                     f"{certificate.certified_through} of {certificate.layers}")
    lines.append("every bound is rounded upward in rational arithmetic and re-checked independently by "
                 "'hardmax-verify certcheck' on the --json record; printed bounds are rounded up, margins down")
    return heading, table, lines


@click.command("softmax")
@click.argument("config_path", metavar="CONFIG.json", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--beta", "beta_text", default=None, metavar="B",
              help="Softmax inverse temperature beta > 0 (an integer, 'p/q' or a decimal) [default: the file's "
                   "'beta' field].")
@click.option("--layers", type=click.IntRange(min=0), default=None,
              help=f"K: certify layers 0..K (default: the file's 'layers' field, else {DEFAULT_LAYERS}).")
@json_option("the configuration and the certificate (every number exact, as \"p/q\" strings)")
@click.option("--outside-hypotheses", is_flag=True,
              help="Allow zero or duplicate tokens and A not symmetric positive definite (recorded in the output).")
@click.option("--max-work", "max_work", type=click.IntRange(min=1), default=DEFAULT_MAX_WORK, show_default=True,
              metavar="TOKEN-LAYERS",
              help="Refuse runs of more than this many layers x tokens (exact numbers grow with the layers).")
def softmax(config_path: Path, beta_text: str | None, layers: int | None, json_to: str | None,
            outside_hypotheses: bool, max_work: int) -> int:
    """Certify how far softmax attention at inverse temperature B can be from hardmax, layer by layer.

    From the exact hardmax trajectory, prints per layer the certified bound eps_k on
    max_i ||softmax token - hardmax token|| (exact real arithmetic for both), the score margin
    delta_k and 2 eta_k, the score error the bound allows; the certificate stops at the first
    layer where an attention set holds two distinct positions or delta_k <= 2 eta_k, and says
    which (docs/softmax.md). Exit status 0 when the bound holds through layer K, 3 when it
    stops earlier, 2 for bad input.
    """
    config, file_beta = _checked_configuration(config_path, outside_hypotheses=outside_hypotheses)
    if beta_text is None:
        if file_beta is None:
            raise InputError("--beta", "missing: give the inverse temperature, e.g. --beta 1000 (or a 'beta' field)")
        beta = file_beta
    else:
        beta = to_rational(beta_text, field="--beta")
    if beta <= 0:
        raise InputError("--beta", f"expected a positive inverse temperature, got {rational_to_str(beta)}")
    option = "--layers"
    if layers is None:
        option = f"{config_path}: layers" if "layers" in config.extra else option
        layers = int(config.extra.get("layers", DEFAULT_LAYERS))
    refusal = work_refusal(layers, config.n, max_work)
    if refusal is not None:
        raise InputError(option, refusal)
    certificate = softmax_certificate(config.tokens, alpha=config.alpha, beta=beta, layers=layers,
                                      A=config.A_matrix if config.A is not None else None)
    heading, table, lines = summary_lines(config, certificate, source=config_path.name)
    out = summary_console(json_to)
    out.print(Text(heading), soft_wrap=True)
    out.print(table)
    for line in lines:
        out.print(Text(line), soft_wrap=True)
    emit_json(certificate_record(config, certificate), json_to)
    return exitcodes.SUCCESS if certificate.holds else exitcodes.INCONCLUSIVE
