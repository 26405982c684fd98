"""``hardmax-verify control CONFIG.json --leaders I,J,...``: choose A so that the listed tokens lead (docs/theory.md D10).

A thin layer over :mod:`verify.experiments.control`: it reads and checks the request, runs the
decision, prints what backs the answer and what it proves, and writes the JSON result and, for
a realised design, the configuration with the chosen A (``--out``). Every file is written
atomically and only after the answer is known, so Ctrl-C leaves nothing half-written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

import click
from rich.table import Table
from rich.text import Text

from verify.core.config import Configuration, hypothesis_violations, load_configuration, save_configuration
from verify.experiments.control.constraints import Matrix
from verify.experiments.control.design import DEFAULT_PROGRAMS, DEFAULT_TRIES, Design, Outcome, control as decide
from verify.experiments.control.leader_sets import LeaderSets, decide_leader_sets
from verify.experiments.control.result import EXIT_STATUS, leader_sets_exit_status, leader_sets_json, outcome_json, statements
from verify.core.limits import (CONTROL_MAX_DIMENSION, CONTROL_MAX_PROGRAMS, CONTROL_MAX_SUBSETS, CONTROL_MAX_TOKENS,
                      CONTROL_MAX_TRIES)
from verify.core.numbers import InputError
from verify.core.text import one_line, short_number
from .output import emit_json, json_option, progress_reporter, summary_console, writable_file

_STEP = {"zero_constraint": "a constraint matrix is zero",
         "hull": "a listed token lies in the convex hull of the other tokens",
         "lambda_min": "the solver's maximal lambda_min(S), rounded: S is positive semidefinite exactly",
         "facial": "the solver's y moved exactly onto S(y) K = 0 for a rational kernel K of a singular S",
         "lp": "the exact linear program sum_c y_c M_c = 0, sum y = 1, y >= 0"}


def _indices(text: str, n: int, option: str) -> list[int]:
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or any(not p for p in parts):
        raise InputError(option, f"expected token indices separated by commas, such as 0,2,5; got {text!r}")
    values = []
    for p in parts:
        if not p.lstrip("-").isdigit() or len(p) > 12:
            raise InputError(option, f"{p!r} is not a token index")
        value = int(p)
        if not 0 <= value < n:
            raise InputError(option, f"unknown token {value}: the configuration has tokens 0..{n - 1}")
        if value in values:
            raise InputError(option, f"token {value} is listed twice")
        values.append(value)
    return values


def parse_request(leaders_text: str, targets_text: str | None, n: int) -> tuple[list[int], dict[int, int]]:
    """The leader set and requested targets, checked: every problem is an InputError naming the option."""
    leaders = _indices(leaders_text, n, "--leaders")
    targets: dict[int, int] = {}
    if targets_text is not None:
        for part in targets_text.split(","):
            token_text, colon, leader_text = part.strip().partition(":")
            if not colon:
                raise InputError("--targets", f"expected TOKEN:LEADER pairs such as 1:0,3:2; got {part.strip()!r}")
            (token,) = _indices(token_text, n, "--targets")
            (leader,) = _indices(leader_text, n, "--targets")
            if token in targets:
                raise InputError("--targets", f"token {token} is given two targets")
            if token in leaders:
                raise InputError("--targets", f"token {token} is listed both as a leader and as a token with a target")
            if leader not in leaders:
                raise InputError("--targets", f"target {leader} of token {token} is not one of the listed leaders")
            targets[token] = leader
    return leaders, targets


def _load(config_path: Path) -> Configuration:
    """The configuration; its A is ignored (replaced), but its tokens must be distinct and nonzero."""
    config = load_configuration(config_path, outside_hypotheses=True)
    if config.n > CONTROL_MAX_TOKENS:
        raise InputError(f"{config_path}: tokens", f"control takes at most {CONTROL_MAX_TOKENS} tokens, got {config.n}")
    if config.d > CONTROL_MAX_DIMENSION:
        raise InputError(f"{config_path}: tokens[0]",
                         f"control takes dimension at most {CONTROL_MAX_DIMENSION}, got {config.d}")
    for field, message in hypothesis_violations(config):
        if field != "A":  # the configuration's A is replaced, so only the tokens and the model must fit
            raise InputError(f"{config_path}: {field}", f"{message}; control needs distinct nonzero tokens and the "
                                                        "theorem's model (docs/theory.md D10)")
    return config


def _matrix_lines(A: Matrix) -> list[str]:
    cells = [[short_number(x) for x in row] for row in A]
    width = max(len(c) for row in cells for c in row)
    return ["  [ " + "  ".join(c.rjust(width) for c in row) + " ]" for row in cells]


def _design_table(config: Configuration, design: Design, roles: dict[int, int], leaders: Sequence[int],
                  *, limits: bool) -> Table:
    table = Table(title="every token at layer 0 under A (margins exact; docs/theory.md D10)")
    for column in ("token", "role", "attends only to", "closest rival", "margin") + (("limit",) if limits else ()):
        table.add_column(column, overflow="fold")
    for m, (rival, margin) in sorted(design.check.closest.items()):
        role = "leader" if m in leaders else f"locks onto {roles[m]}"
        row = [str(m), role, str(roles[m]), str(rival), short_number(margin)]
        if limits:
            row.append("(" + ", ".join(short_number(x) for x in config.tokens[roles[m]]) + ")")
        table.add_row(*(Text(cell) for cell in row))
    return table


def _print_outcome(out: Any, config: Configuration, outcome: Outcome, shown: str) -> None:
    leaders = ",".join(map(str, outcome.leaders))
    out.print(Text(f"{shown}: n = {config.n} tokens in d = {config.d}; leaders {{{leaders}}}"
                   + (f", requested targets {_pairs(outcome.requested)}" if outcome.requested else "")
                   + f": {outcome.kind.upper()}" + (" at layer 0" if outcome.kind == "impossible" else "")), soft_wrap=True)
    if config.A is not None:
        out.print(Text("the configuration's own A is ignored and replaced by the one chosen here"), soft_wrap=True)
    if outcome.kind == "realised" and outcome.design is not None and outcome.targets is not None:
        design = outcome.design
        pivots = ", ".join(short_number(p) for p in design.check.pivots or ())
        out.print(Text(f"A (rational, symmetric positive definite: exact LDL^T pivots {pivots}):"), soft_wrap=True)
        for line in _matrix_lines(design.A):
            out.print(Text(line), soft_wrap=True)
        roles = {**{i: i for i in outcome.leaders}, **outcome.targets}
        out.print(_design_table(config, design, roles, outcome.leaders, limits=True))
    elif outcome.kind == "impossible" and outcome.infeasibility is not None:
        certificate = outcome.infeasibility
        S = "S = 0" if certificate.zero else "S positive semidefinite (exact elimination)"
        out.print(Text(f"certificate: weights y >= 0 on {len(certificate.weights)} constraints <M(m; t, k), A> > 0 of "
                       f"the system, with M(m; t, k) = sym(z_m (z_t - z_k)^T) and S = -sum y M(m; t, k): {S}; found "
                       f"by: {_STEP[certificate.step]}"), soft_wrap=True)
        table = Table(title="the weights y")
        for column in ("token m", "attends to t", "rival k", "y"):
            table.add_column(column)
        for c, y in sorted(certificate.weights.items()):
            table.add_row(str(c.token), str(c.attends_to), str(c.rival), short_number(y))
        out.print(table)
    else:
        out.print(Text(f"reason: {outcome.reason}"), soft_wrap=True)
        if outcome.leading is not None:
            out.print(Text("an exact A under which every listed token leads at layer 0 (other tokens not locked):"), soft_wrap=True)
            for line in _matrix_lines(outcome.leading.A):
                out.print(Text(line), soft_wrap=True)
    if outcome.tried and outcome.kind != "realised":
        out.print(Text("tried:"), soft_wrap=True)
        for line in outcome.tried:
            out.print(Text(f"  - {one_line(line)}"), soft_wrap=True)
    proves, not_proved = statements(outcome)
    out.print(Text(f"proves: {proves}"), soft_wrap=True)
    out.print(Text(f"does not prove: {not_proved}"), soft_wrap=True)


def _pairs(targets: dict[int, int]) -> str:
    return ",".join(f"{m}:{t}" for m, t in sorted(targets.items()))


def _print_sets(out: Any, config: Configuration, result: LeaderSets, shown: str) -> None:
    counts = {kind: len(result.of_kind(kind)) for kind in ("feasible", "impossible", "inconclusive")}
    out.print(Text(f"{shown}: n = {config.n} tokens in d = {config.d}; {len(result.hull.vertices)} hull vertices "
                   f"{list(result.hull.vertices)}; {len(result.subsets):,} nonempty subsets decided with "
                   f"{result.programs} programs"), soft_wrap=True)
    out.print(Text(f"realisable at layer 0: {counts['feasible']:,}; impossible at layer 0: {counts['impossible']:,}; "
                   f"inconclusive: {counts['inconclusive']:,}"), soft_wrap=True)
    out.print(Text("maximal realisable sets (every subset of one is realisable): "
                   + "; ".join("{" + ",".join(map(str, s)) + "}" for s in result.maximal_feasible()) or "none"),
              soft_wrap=True)
    out.print(Text("minimal impossible sets (every superset of one is impossible): "
                   + ("; ".join("{" + ",".join(map(str, s)) + "}" for s in result.minimal_impossible()) or "none")),
              soft_wrap=True)
    for leaders in result.of_kind("inconclusive"):
        out.print(Text("inconclusive: {" + ",".join(map(str, leaders)) + "}"), soft_wrap=True)
    out.print(Text("each answer is backed by an exact certificate in --json (a design's A, or weights y with S "
                   "positive semidefinite); 'impossible' is about layer 0 only: a token may still emerge as a leader "
                   "later (docs/theory.md D10)"), soft_wrap=True)


def _phases(reporter: Any) -> Callable[[str], None]:
    """A progress callback showing the current step as the one bar on standard error."""
    current: list[str] = []

    def say(text: str) -> None:
        if current:
            reporter.update(current[0], 1, 1)
            current.clear()
        current.append(text)
        reporter.update(text, 0, 1)

    return say


@click.command("control")
@click.argument("config_path", metavar="CONFIG.json", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--leaders", "leaders_text", metavar="I,J,...", default=None,
              help="The tokens that must lead (indices from 0, separated by commas).")
@click.option("--targets", "targets_text", metavar="M:L,...", default=None,
              help="Require token M to attend only to leader L from layer 0 on (pairs separated by commas); the other "
                   "tokens' leaders are searched for.")
@click.option("--all-leader-sets", is_flag=True,
              help=f"Decide every nonempty subset of the hull vertices instead (at most {CONTROL_MAX_SUBSETS:,} "
                   "subsets).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              callback=writable_file,
              help="For a realised design, write the configuration (same tokens and alpha) with the chosen A to FILE; "
                   "'hardmax-verify check FILE' then certifies it.")
@click.option("--seed", type=click.IntRange(0, 2 ** 32 - 1), default=0, show_default=True,
              help="Seed of the target search's perturbations (numpy.random.default_rng).")
@click.option("--max-tries", type=click.IntRange(1, CONTROL_MAX_TRIES), default=DEFAULT_TRIES, show_default=True,
              help="Orders the target search tries.")
@click.option("--max-programs", type=click.IntRange(1, CONTROL_MAX_PROGRAMS), default=DEFAULT_PROGRAMS,
              show_default=True, help="Design programs the target search may solve.")
@json_option("the result with its exact certificates (re-verified by 'hardmax-verify certcheck')")
def control(config_path: Path, leaders_text: str | None, targets_text: str | None, all_leader_sets: bool,
            out_path: Path | None, seed: int, max_tries: int, max_programs: int, json_to: str | None) -> int:
    """Choose A so that the listed tokens lead, with exact certificates both ways (docs/theory.md D10).

    The configuration's own A, if any, is ignored and replaced. Outcomes: REALISED (exit 0): a
    rational symmetric positive definite A under which exactly the listed tokens lead and every
    other token attends only to one leader from layer 0 on, so every limit is known exactly;
    IMPOSSIBLE at layer 0 (exit 1): an exact certificate that no SPD A makes every listed token
    lead at layer 0 (with --targets: with those targets); a token may still emerge as a leader
    later. INCONCLUSIVE (exit 3): neither certificate was found; the output says what was tried.
    With --all-leader-sets: every nonempty subset of the hull vertices decided (exit 0, or 3 when
    some subset stays inconclusive). Bad input exits 2 and writes nothing.
    """
    if all_leader_sets == (leaders_text is not None):
        raise InputError("--leaders", "give either --leaders I,J,... or --all-leader-sets")
    if all_leader_sets and (targets_text is not None or out_path is not None):
        raise InputError("--targets" if targets_text is not None else "--out",
                         "goes with --leaders, not with --all-leader-sets")
    if targets_text is not None and leaders_text is None:  # pragma: no cover - refused above
        raise InputError("--targets", "needs --leaders")
    config = _load(config_path)
    shown = one_line(config.name or config_path.name)
    out = summary_console(json_to)
    if all_leader_sets:
        with progress_reporter() as reporter:
            result = decide_leader_sets(config.tokens, max_subsets=CONTROL_MAX_SUBSETS,
                                        progress=lambda done, total: reporter.update("leader sets", done, total))
        _print_sets(out, config, result, shown)
        emit_json(leader_sets_json(config, result), json_to)
        return leader_sets_exit_status(result)
    assert leaders_text is not None
    leaders, targets = parse_request(leaders_text, targets_text, config.n)
    with progress_reporter() as reporter:
        outcome = decide(config.tokens, leaders, targets, seed=seed, max_tries=max_tries, max_programs=max_programs,
                         progress=_phases(reporter))
    _print_outcome(out, config, outcome, shown)
    emit_json(outcome_json(config, outcome, seed=seed, max_tries=max_tries, max_programs=max_programs), json_to)
    if out_path is not None:
        if outcome.kind == "realised" and outcome.design is not None:
            designed = Configuration(tokens=config.tokens, alpha=config.alpha,
                                     A=tuple(tuple(row) for row in outcome.design.A), name=config.name,
                                     description=f"A chosen by hardmax-verify control so that exactly tokens "
                                                 f"{list(outcome.leaders)} lead (docs/theory.md D10)")
            save_configuration(designed, out_path)
            click.echo(f"wrote {out_path}", err=True)
        else:
            click.echo(f"nothing written to {out_path}: no design was realised", err=True)
    return EXIT_STATUS[outcome.kind]
