"""``hardmax-verify conjecture``: list, run and re-check conjectures beyond the theorem's hypotheses.

    hardmax-verify conjecture list
    hardmax-verify conjecture run NAME|all|FILE.py [--examples N] [--profile ci|dev|thorough]
                                  [--seed N] [--results-dir DIR]
    hardmax-verify conjecture check NAME|FILE.py CONFIG.json

Every conjecture declares the outcome its author expects (held or refuted); a run marks each
result "as expected" or "surprise". Exit status of ``run``: 0 every outcome as expected, 1 a
surprise (a counterexample to a conjecture expected to hold, confirmed exactly, or no
counterexample to one expected to be refuted), 3 no surprise but something inconclusive, 2 bad
input (unknown name, broken file, a file whose code raises or exits).

A conjecture FILE.py is code: it runs with your rights, as ``python FILE.py`` would.
"""

from __future__ import annotations

import shlex
from contextlib import nullcontext
from pathlib import Path
from typing import ContextManager

import click
import hypothesis
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from verify.core import exitcodes
from verify.experiments.conjectures.base import Conjecture, ConjectureResult, Observation, recheck_file, run_conjecture
from verify.experiments.conjectures.builtin import BUILTIN_CONJECTURES, get_conjecture
from verify.experiments.conjectures.loader import load_conjectures, looks_like_file, user_code
from ..locations import HOME_VARIABLE, user_folder
from verify.core.numbers import InputError
from ..report.provenance import sha256_file
from verify.core.text import one_line, shorten
from .output import echo_summary, emit_json, json_option

PROFILES = ("ci", "dev", "thorough")


def _resolve(target: str) -> list[Conjecture]:
    if target == "all":
        return list(BUILTIN_CONJECTURES.values())
    if looks_like_file(target):
        return load_conjectures(target)
    return [get_conjecture(target)]


def _guard(target: str) -> ContextManager[None]:
    """Code from a conjecture file runs under :func:`user_code` (what it raises is bad input, exit 2)."""
    return user_code(target) if looks_like_file(target) else nullcontext()


_FILE_WARNING = ("A FILE.py is Python code and runs with your rights, as `python FILE.py` would: "
                 "run only files you trust.")


def _combined_exit(results: list[ConjectureResult]) -> int:
    """Exit by surprises: 1 if any result is a surprise, else 3 if any is inconclusive, else 0."""
    verdicts = {r.verdict for r in results}
    if "surprise" in verdicts:
        return exitcodes.FALSE
    if "inconclusive" in verdicts:
        return exitcodes.INCONCLUSIVE
    return exitcodes.SUCCESS


@click.group("conjecture")
def conjecture() -> None:
    """Test conjectures beyond the theorem's hypotheses (docs/theory.md §3 D4, D5, D8 and §6).

    A conjecture FILE.py is Python code and runs with your rights: run only files you trust.
    """


@conjecture.command("list")
@json_option("the built-in conjectures (name, kind, expected outcome, statement, scope)")
def list_command(json_to: str | None) -> int:
    """List the built-in conjectures with their statements and expected outcomes."""
    lines = []
    for c in BUILTIN_CONJECTURES.values():
        lines.append(f"{c.name}  [{c.kind}; expected: {c.expected}]")
        lines.append(f"    {c.statement}")
    echo_summary("\n".join(lines), json_to)
    emit_json([{"name": c.name, "kind": c.kind, "expected": c.expected, "statement": c.statement, "scope": c.scope}
               for c in BUILTIN_CONJECTURES.values()], json_to)
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
    """``as expected``, ``SURPRISE (expected to be refuted)``, or ``inconclusive``."""
    if result.verdict == "surprise":
        return f"SURPRISE (expected {result.conjecture.expected})"
    if result.verdict == "as expected":
        return f"as expected ({result.conjecture.expected})"
    return "inconclusive"


def _summary_line(result: ConjectureResult, target: str) -> str:
    """The result in one line (and the counterexample's file), names as written with control codes escaped."""
    name = result.conjecture.name
    line = f"{one_line(name)}: {result.outcome.upper()}, {_verdict_text(result)} — {one_line(result.reason)}"
    command = reproduce_command(result, target)
    if command is not None:
        line += f"\n    counterexample: {one_line(str(result.counterexample_path))} (reproduce: {one_line(command)})"
    return line


@conjecture.command("run", epilog=_FILE_WARNING)
@click.argument("target", metavar="NAME|all|FILE.py")
@click.option("--examples", type=click.IntRange(min=1), default=None,
              help="Examples to generate per conjecture (default: the profile's max_examples).")
@click.option("--profile", type=click.Choice(PROFILES), default="ci", show_default=True,
              help="Hypothesis settings profile (verify/core/profiles.py).")
@click.option("--seed", type=int, default=0, show_default=True, help="Hypothesis seed (same seed, same result).")
@click.option("--results-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where <name>.json and counterexample CONFIG files are written (default: the user folder's "
                   f"conjectures/: ${HOME_VARIABLE}/conjectures, else ~/.local/share/hardmax-verify/conjectures).")
@json_option("every result (the contents of the <name>.json files)")
def run_command(target: str, examples: int | None, profile: str, seed: int, results_dir: Path | None,
                json_to: str | None) -> int:
    """Search for counterexamples with Hypothesis; report held / counterexample / inconclusive.

    Each result is marked "as expected" or "SURPRISE" against the conjecture's expected
    outcome (held or refuted; `conjecture list` shows them). Exit status 0 when every outcome
    is as expected, 1 on a surprise, 3 when nothing is a surprise but something is inconclusive.

    A counterexample is shrunk by Hypothesis, saved as CONFIG.json (with "outside_hypotheses":
    true when it is outside the theorem's hypotheses, and V / beta / layers when the conjecture
    uses them) and re-checked exactly from that file before it is reported. Results go to the user folder unless --results-dir is
    given, so they never mix with the project's saved results; `hardmax-verify report --runs
    FOLDER` includes the conjecture results of FOLDER/conjectures/.
    """
    conjectures = _resolve(target)
    if results_dir is None:
        results_dir = user_folder("conjectures")
    # The canonical command that reruns exactly this (every option spelled out).
    words = ["hardmax-verify", "conjecture", "run", target, "--profile", profile, "--seed", str(seed),
             "--results-dir", str(results_dir)] + (["--examples", str(examples)] if examples is not None else [])
    provenance: dict[str, str] = {"command": shlex.join(words)}
    if looks_like_file(target):
        provenance["conjecture_file_sha256"] = sha256_file(target)
    console = Console(stderr=True)
    results: list[ConjectureResult] = []
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as progress:
        for c in conjectures:
            total = (examples if examples is not None else hypothesis.settings.get_profile(profile).max_examples) \
                + len(c.explicit)
            task = progress.add_task(shorten(c.name), total=total)

            def advance(count: int, _observation: Observation, task: TaskID = task) -> None:
                progress.update(task, completed=count)

            with _guard(target):
                result = run_conjecture(c, examples=examples, profile=profile, seed=seed, results_dir=results_dir,
                                        progress=advance, provenance=provenance)
            progress.update(task, completed=total)
            results.append(result)
            echo_summary(_summary_line(result, target), json_to)
    names = ", ".join(one_line(r.result_path.name) for r in results if r.result_path is not None)
    click.echo(f"results written to {one_line(str(results_dir))}/ ({names})", err=True)
    if len(results) > 1:
        counts = {v: sum(r.verdict == v for r in results) for v in ("as expected", "surprise", "inconclusive")}
        verdict_words = {"as expected": "as expected", "surprise": "surprise" if counts["surprise"] == 1 else "surprises",
                 "inconclusive": "inconclusive"}
        echo_summary(", ".join(f"{n} {verdict_words[v]}" for v, n in counts.items()) + f" (of {len(results)} conjectures)",
                     json_to)
    emit_json([r.to_json_dict() for r in results], json_to)
    return _combined_exit(results)


@conjecture.command("check", epilog=_FILE_WARNING)
@click.argument("target", metavar="NAME|FILE.py")
@click.argument("config_path", metavar="CONFIG.json", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--name", "name", default=None, help="Which conjecture of FILE.py (default: the only one).")
@json_option("the conjecture, the configuration file, the status and its detail")
def check_command(target: str, config_path: Path, name: str | None, json_to: str | None) -> int:
    """Re-check one configuration against a conjecture rigorously (exact, or arb for softmax).

    Exit 1 if the configuration is a counterexample, 0 if the statement holds on it, 3 if
    undecided (whatever the conjecture's expected outcome: this checks one configuration).
    """
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
    expected = {"held": "expected to hold", "refuted": "expected to be refuted"}[chosen.expected]
    echo_summary(f"{one_line(chosen.name)}: {observation.status} — {one_line(observation.detail)} "
                 f"(the conjecture is {expected})", json_to)
    emit_json({"conjecture": chosen.name, "config": str(config_path), "status": observation.status,
               "detail": observation.detail, "expected": chosen.expected}, json_to)
    return {"held": exitcodes.SUCCESS, "failed": exitcodes.FALSE}.get(observation.status, exitcodes.INCONCLUSIVE)
