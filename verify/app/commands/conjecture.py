"""``hardmax-verify conjecture``: list, run and re-check conjectures beyond the theorem's hypotheses.

    hardmax-verify conjecture list
    hardmax-verify conjecture run NAME|all|catalogue|heldout|FILE.py [--name NAME] [--time SECONDS]
                                  [--examples N] [--seed N] [--results-dir DIR]
    hardmax-verify conjecture check NAME|FILE.py CONFIG.json

The search of each conjecture runs until a counterexample or its budget: --time seconds
(default 60 for one conjecture; ``all`` shares about four minutes among its conjectures),
--examples examples, or whichever comes first when both are given; --examples alone is
reproducible on every machine. A conjecture may state the outcome its author expects (held or
refuted); a run then marks each result "as expected" (a counterexample to a statement expected
to be refuted), "consistent with the expectation" (not refuted, expected to hold: evidence, not a
proof) or "SURPRISE". Exit status of ``run``: 0 no surprise (a conjecture without an expectation:
not refuted), 1 a surprise or
a counterexample to a conjecture without an expectation, 3 nothing of that but something
inconclusive, 2 bad input (unknown name, broken file, a file whose code raises or exits).

A conjecture FILE.py is code: it runs with your rights, as ``python FILE.py`` would.
"""

from __future__ import annotations

import math
import shlex
import time
import warnings
from contextlib import nullcontext
from pathlib import Path
from typing import ContextManager

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from verify.core import exitcodes
from verify.core.formatting import counted
from verify.experiments.conjectures.base import (AS_EXPECTED, CONSISTENT, CONSISTENT_WORDS, Conjecture, ConjectureResult,
                                                SearchProgress, coverage_sentence, recheck_file, run_conjecture)
from verify.experiments.conjectures.builtin import BUILTIN_CONJECTURES, get_conjecture
from verify.experiments.conjectures.catalogue import CATALOGUE
from verify.experiments.conjectures.heldout import HELD_OUT
from verify.experiments.conjectures.loader import load_conjectures
from verify.experiments.conjectures.user_files import looks_like_file, user_code
from verify.experiments.conjectures.search import DEFAULT_SECONDS
from ..locations import HOME_VARIABLE, user_folder
from verify.core.numbers import InputError
from ..report.provenance import sha256_file
from verify.core.text import one_line, shorten
from .output import echo_summary, emit_json, json_option, writable_folder

# ``run all`` (or a file of several conjectures) without --time shares about this many seconds
# among its conjectures, at least SHARED_MIN_SECONDS each: the built-in ones take a few minutes.
SHARED_SECONDS = 240.0
SHARED_MIN_SECONDS = 10.0
PLAIN_PROGRESS_EVERY = 30.0  # seconds between progress lines when standard error is not a terminal


def _show_warning(warning: warnings.WarningMessage) -> None:
    """A warning the conjecture file's import raised (a moved import path), as one line on standard error."""
    click.echo(one_line(f"warning: {warning.filename}:{warning.lineno}: {warning.category.__name__}: {warning.message}"),
               err=True)


def _resolve(target: str) -> list[Conjecture]:
    if target == "all":
        return list(BUILTIN_CONJECTURES.values())
    if target == "catalogue":
        return list(CATALOGUE.values())
    if target == "heldout":
        return list(HELD_OUT.values())
    if looks_like_file(target):
        return load_conjectures(target, on_warning=_show_warning)
    if target in CATALOGUE:
        return [CATALOGUE[target]]
    if target in HELD_OUT:
        return [HELD_OUT[target]]
    return [get_conjecture(target)]


def _chosen(conjectures: list[Conjecture], names: tuple[str, ...], target: str) -> list[Conjecture]:
    """The conjectures named by --name (all of them without it), in the file's order."""
    if not names:
        return conjectures
    known = {c.name for c in conjectures}
    missing = [name for name in names if name not in known]
    if missing:
        raise InputError("--name", f"no conjecture named \"{shorten(missing[0])}\" in {shorten(target)}")
    return [c for c in conjectures if c.name in names]


def default_seconds(count: int) -> float:
    """The budget in seconds of each of ``count`` conjectures run without --time or --examples."""
    if count <= 1:
        return DEFAULT_SECONDS
    return min(DEFAULT_SECONDS, max(SHARED_MIN_SECONDS, round(SHARED_SECONDS / count)))


def _guard(target: str) -> ContextManager[None]:
    """Code from a conjecture file runs under :func:`user_code` (what it raises is bad input, exit 2)."""
    return user_code(target) if looks_like_file(target) else nullcontext()


_FILE_WARNING = ("A FILE.py is Python code and runs with your rights, as `python FILE.py` would: "
                 "run only files you trust.")


def _combined_exit(results: list[ConjectureResult]) -> int:
    """1 if any result came out false (a surprise, or a counterexample nobody expected), else 3 if any is
    inconclusive, else 0."""
    statuses = {r.exit_status for r in results}
    for status in (exitcodes.FALSE, exitcodes.INCONCLUSIVE):
        if status in statuses:
            return status
    return exitcodes.SUCCESS


def _expectation_words(conjecture: Conjecture) -> str:
    return {"held": "expected to hold", "refuted": "expected to be refuted", None: "no expectation stated"}[
        conjecture.expected]


@click.group("conjecture")
def conjecture() -> None:
    """Test conjectures beyond the theorem's hypotheses (docs/theory.md §3 D4, D5, D8 and §6).

    A conjecture FILE.py is Python code and runs with your rights: run only files you trust.
    """


@conjecture.command("list")
@json_option("the built-in, catalogued and held-out conjectures (name, group, kind, expected outcome, statement, scope)")
def list_command(json_to: str | None) -> int:
    """List the built-in conjectures, the catalogue and the held-out known-false statements, with their expectations."""
    lines = ["Built-in conjectures (`conjecture run all`):"]
    for c in BUILTIN_CONJECTURES.values():
        lines.append(f"  {c.name}  [{c.kind}; {_expectation_words(c)}]")
        lines.append(f"      {c.statement}")
    lines.append("Known-false statements that measure the search's power (`conjecture run catalogue`, "
                 "bench/conjecture_power.py):")
    for c in CATALOGUE.values():
        lines.append(f"  {c.name}  [{_expectation_words(c)}]")
        lines.append(f"      {c.statement}")
    lines.append("Held-out false statements, written with a counterexample found by hand before the lab searched "
                 "them (`conjecture run heldout`, bench/conjecture_power.py):")
    for c in HELD_OUT.values():
        lines.append(f"  {c.name}  [{_expectation_words(c)}]")
        lines.append(f"      {c.statement}")
    echo_summary("\n".join(lines), json_to)
    emit_json([{"name": c.name, "group": group, "kind": c.kind, "expected": c.expected, "statement": c.statement,
                "scope": c.scope}
               for group, conjectures in (("built-in", BUILTIN_CONJECTURES), ("catalogue", CATALOGUE),
                                          ("held-out", HELD_OUT))
               for c in conjectures.values()], json_to)
    return exitcodes.SUCCESS


def reproduce_command(result: ConjectureResult, target: str) -> str | None:
    """The command that re-checks a saved counterexample: the file for a user file's conjecture, else its name."""
    if result.counterexample_path is None:
        return None
    name = result.conjecture.name
    words = ["hardmax-verify", "conjecture", "check"]
    words += [target, str(result.counterexample_path), "--name", name] if looks_like_file(target) \
        else [name, str(result.counterexample_path)]
    return shlex.join(words)


def _verdict_text(result: ConjectureResult) -> str:
    """``, as expected (expected to be refuted)``, ``, consistent with the expectation (expected to hold;
    evidence, not a proof)``, ``, SURPRISE (expected to be refuted)``, or nothing."""
    if result.verdict == "surprise":
        return f", SURPRISE ({_expectation_words(result.conjecture)})"
    if result.verdict == AS_EXPECTED:
        return f", as expected ({_expectation_words(result.conjecture)})"
    if result.verdict == CONSISTENT:
        return f", {CONSISTENT} ({_expectation_words(result.conjecture)}; evidence, not a proof)"
    return ""


def summary_lines(result: ConjectureResult, target: str) -> str:
    """The result in one line, then what was covered or the counterexample's file; names as written, control codes escaped."""
    name = result.conjecture.name
    line = (f"{one_line(name)}: {result.outcome.upper()}{_verdict_text(result)} — {one_line(result.reason)} "
            f"[{result.seconds:.1f} s]")
    if result.outcome != "counterexample":
        line += f"\n    covered: {one_line(coverage_sentence(result.coverage))}"
    command = reproduce_command(result, target)
    if command is not None:
        line += f"\n    counterexample: {one_line(str(result.counterexample_path))} (reproduce: {one_line(command)})"
    return line


class _ProgressLines:
    """Progress of each conjecture's search on standard error: a bar on a terminal, else a line now and then."""

    def __init__(self, progress: Progress | None, console: Console) -> None:
        self.progress = progress
        self.console = console
        self.task: TaskID | None = None
        self.name = ""
        self.last_line = 0.0

    def start(self, name: str, seconds: float | None, examples: int | None) -> None:
        self.name = shorten(name)
        self.last_line = time.monotonic()
        if self.progress is not None:
            total = seconds if seconds is not None else float(examples or 1)
            self.task = self.progress.add_task(self.name, total=total, status="")

    def __call__(self, state: SearchProgress) -> None:
        text = (f"{counted(state.examples, 'example')}, n <= {state.max_n}, d <= {state.max_d}"
                + (f", {state.branch}" if state.branch else ""))
        if self.progress is not None and self.task is not None:
            done = state.seconds if state.budget.seconds is not None else state.examples
            self.progress.update(self.task, completed=done, status=text)
        elif time.monotonic() - self.last_line >= PLAIN_PROGRESS_EVERY:
            self.last_line = time.monotonic()
            budget = f" of {state.budget.seconds:g}" if state.budget.seconds is not None else ""
            self.console.print(f"{self.name}: {text}; {state.seconds:.0f} s{budget}", highlight=False, markup=False)

    def finish(self) -> None:
        if self.progress is not None and self.task is not None:
            self.progress.remove_task(self.task)
            self.task = None


@conjecture.command("run", epilog=_FILE_WARNING)
@click.argument("target", metavar="NAME|all|catalogue|heldout|FILE.py")
@click.option("--time", "seconds", type=click.FloatRange(min=0, min_open=True, max=10 ** 6), default=None,
              help=f"Search budget of each conjecture in seconds (default {DEFAULT_SECONDS:g}; `all` and files of "
                   f"several conjectures share about {SHARED_SECONDS:g} s, at least {SHARED_MIN_SECONDS:g} s each). "
                   "The number of examples drawn in that time depends on the machine.")
@click.option("--examples", type=click.IntRange(min=1), default=None,
              help="Stop each search after this many examples (with --time: whichever comes first). Alone, it "
                   "makes the run reproducible on every machine.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Search seed (same seed and --examples: same result).")
@click.option("--results-dir", type=click.Path(file_okay=False, path_type=Path), default=None, callback=writable_folder,
              help="Where <name>.json and counterexample CONFIG files are written (default: the user folder's "
                   f"conjectures/: ${HOME_VARIABLE}/conjectures, else $XDG_DATA_HOME/hardmax-verify/conjectures, else "
                   "~/.local/share/hardmax-verify/conjectures).")
@click.option("--name", "names", multiple=True, metavar="NAME",
              help="Run only the conjecture of this name from FILE.py, all, catalogue or heldout (repeat for several); the "
                   "budget is then shared among those chosen only, so one conjecture of a file gets the budget of "
                   "one.")
@json_option("every result (the contents of the <name>.json files)")
def run_command(target: str, seconds: float | None, examples: int | None, seed: int, results_dir: Path | None,
                names: tuple[str, ...], json_to: str | None) -> int:
    """Search for counterexamples with Hypothesis within a budget; report not refuted / counterexample / inconclusive.

    The search draws from the families of verify.core.families in rotation (ties, symmetric polygons,
    points on A-spheres, collinear tokens, late leaders...), with n and d growing as the budget
    allows. "Not refuted" is evidence, not a proof: each result says how many examples were
    drawn, in how long, from which families, and the range of every quantity the predicate
    measured. Each result of a conjecture that states an expected outcome (held or refuted;
    `conjecture list` shows them) is marked "as expected" (refuted when expected to be),
    "consistent with the expectation" (not refuted when expected to hold: evidence, not a proof) or
    "SURPRISE". Exit status 0 when nothing is a surprise (or not refuted, without an expectation), 1 on a surprise or a
    counterexample nobody expected, 3 when nothing is false but something is inconclusive, 4 at
    once on an internal error (two of the suite's own computations disagree, such as a measured
    softmax deviation above its certified bound: a bug, never a counterexample).

    A counterexample is shrunk by Hypothesis, saved as CONFIG.json (with "outside_hypotheses":
    true when it is outside the theorem's hypotheses, and V / beta / layers when the conjecture
    uses them) and re-checked exactly from that file before it is reported. Results go to the user folder unless --results-dir is
    given, so they never mix with the project's saved results; `hardmax-verify report --runs
    FOLDER` includes the conjecture results of FOLDER/conjectures/.
    """
    if seconds is not None and not math.isfinite(seconds):
        raise InputError("--time", f"expected a number of seconds, got {seconds}")
    conjectures = _chosen(_resolve(target), names, target)
    if seconds is None and examples is None:
        seconds = default_seconds(len(conjectures))
    if results_dir is None:
        results_dir = user_folder("conjectures")
    # The canonical command that reruns exactly this (every option spelled out).
    words = ["hardmax-verify", "conjecture", "run", target, "--seed", str(seed), "--results-dir", str(results_dir)]
    words += (["--time", f"{seconds:g}"] if seconds is not None else []) + \
        (["--examples", str(examples)] if examples is not None else []) + \
        [word for name in names for word in ("--name", name)]
    provenance: dict[str, str] = {"command": shlex.join(words)}
    if looks_like_file(target):
        provenance["conjecture_file_sha256"] = sha256_file(target)
    console = Console(stderr=True)
    results: list[ConjectureResult] = []
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[status]}"),
                  TimeElapsedColumn(), console=console, transient=True, disable=not console.is_terminal) as bar:
        lines = _ProgressLines(bar if console.is_terminal else None, console)
        for c in conjectures:
            lines.start(c.name, seconds, examples)
            with _guard(target):
                result = run_conjecture(c, examples=examples, seconds=seconds, seed=seed, results_dir=results_dir,
                                        progress=lines, provenance=provenance)
            lines.finish()
            results.append(result)
            echo_summary(summary_lines(result, target), json_to)
    written = ", ".join(one_line(r.result_path.name) for r in results if r.result_path is not None)
    click.echo(f"results written to {one_line(str(results_dir))}/ ({written})", err=True)
    if len(results) > 1:
        echo_summary(count_line(results), json_to)
    emit_json([r.to_json_dict() for r in results], json_to)
    return _combined_exit(results)


def count_line(results: list[ConjectureResult]) -> str:
    """``12 as expected, 5 consistent with the expectation (evidence, not a proof), 0 surprises, 0 inconclusive
    (of 17 conjectures)``; results without an expectation by outcome."""
    counts = {v: sum(r.verdict == v for r in results)
              for v in (AS_EXPECTED, CONSISTENT, "surprise", "inconclusive", "not refuted", "counterexample")}
    nouns = {AS_EXPECTED: (AS_EXPECTED, AS_EXPECTED), CONSISTENT: (CONSISTENT_WORDS, CONSISTENT_WORDS),
             "surprise": ("surprise", "surprises"), "inconclusive": ("inconclusive", "inconclusive"),
             "not refuted": ("not refuted (no expectation)", "not refuted (no expectation)"),
             "counterexample": ("counterexample (no expectation)", "counterexamples (no expectation)")}
    shown = [v for v in (AS_EXPECTED, CONSISTENT, "surprise", "inconclusive")
             if any(r.conjecture.expected for r in results) and (v != CONSISTENT or counts[v])]
    shown += [v for v in ("not refuted", "counterexample") if counts[v]]
    if "inconclusive" not in shown and counts["inconclusive"]:
        shown.append("inconclusive")
    return ", ".join(counted(counts[v], *nouns[v]) for v in shown) + f" (of {counted(len(results), 'conjecture')})"


@conjecture.command("check", epilog=_FILE_WARNING)
@click.argument("target", metavar="NAME|FILE.py")
@click.argument("config_path", metavar="CONFIG.json", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--name", "name", default=None, help="Which conjecture of FILE.py (default: the only one).")
@json_option("the conjecture, the configuration file, the status and its detail")
def check_command(target: str, config_path: Path, name: str | None, json_to: str | None) -> int:
    """Re-check one configuration against a conjecture rigorously (exact, or arb for softmax).

    Prints "satisfied by this configuration" (evidence about it, not a proof of the statement),
    "COUNTEREXAMPLE" or "undecided". Exit 1 if the configuration is a counterexample, 0 if it
    satisfies the statement, 3 if undecided (whatever the conjecture's expected outcome: this checks one configuration), 4 on
    an internal error (two of the suite's own computations disagree: a bug, not a verdict).
    """
    if target in ("all", "catalogue", "heldout"):
        raise InputError(target, "`conjecture check` takes one conjecture: a name or a FILE.py")
    conjectures = _resolve(target)
    if name is not None:
        conjectures = [c for c in conjectures if c.name == name]
        if not conjectures:
            raise InputError("--name", f"no conjecture named \"{shorten(name)}\" in {target}")
    if len(conjectures) != 1:
        raise InputError(target, "defines several conjectures; choose one with --name")
    with _guard(target):
        observation = recheck_file(conjectures[0], config_path)
    chosen = conjectures[0]
    status = ONE_CONFIGURATION[observation.status]
    detail = f" — {one_line(observation.detail)}" if observation.detail else ""
    echo_summary(f"{one_line(chosen.name)}: {status[1]}{detail} ({status[2]}; the conjecture: "
                 f"{_expectation_words(chosen)})", json_to)
    emit_json({"conjecture": chosen.name, "config": str(config_path), "status": status[0],
               "detail": observation.detail, "expected": chosen.expected}, json_to)
    return {"held": exitcodes.SUCCESS, "failed": exitcodes.FALSE}.get(observation.status, exitcodes.INCONCLUSIVE)


# What one configuration's check says (the JSON status, the line's words, what it means): a configuration that
# satisfies a statement is evidence about that configuration only, never a proof of the statement.
ONE_CONFIGURATION: dict[str, tuple[str, str, str]] = {
    "held": ("satisfied", "satisfied by this configuration",
             "checked exactly on this one configuration: evidence, not a proof of the statement"),
    "failed": ("counterexample", "COUNTEREXAMPLE: this configuration falsifies the statement",
               "checked exactly"),
    "undecided": ("undecided", "undecided on this configuration", "nothing was decided"),
}
