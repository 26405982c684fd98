"""The numbers the user docs quote, written by the commands that produce them, never typed.

    python scripts/readme_numbers.py                    # refresh the blocks derived from committed files and code
    python scripts/readme_numbers.py --results reports/latest/results.json   # also the at-a-glance block
    python scripts/readme_numbers.py --run bench_dynamics                    # also run a benchmark and quote it
    python scripts/readme_numbers.py --check            # change nothing; exit 1 if a block is stale or malformed

A number lives between ``<!-- generated: NAME -->`` and ``<!-- end -->`` in README.md,
reports/README.md or docs/*.md; NAME says where it comes from (:data:`SOURCES`):

* **derived** blocks are computed from committed files and the code (the default campaign's
  plan, the documented limits, the self-test's variants, the saved sentiment evaluations):
  ``--check`` recomputes them and requires the same text;
* **command output** blocks quote what a benchmark printed, verbatim, under a line naming the
  command, the date, the cores and the load average before the run (timings vary with the
  machine and its load, so ``--check`` verifies the form: the command, that line, and lines the
  command still prints, not the numbers);
* the **at-a-glance** block quotes a report's results at a glance (``hardmax-verify report``
  writes the results.json it reads); ``--check`` verifies its form, its claims and its count of
  configurations against the registry and the default campaign.

``--check`` also refuses, outside the blocks of README.md, the kinds of number that go stale:
speed-up ratios (``2.1x``), durations (``30 s``) and accuracies (``0.8164``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import verify.claims  # noqa: E402,F401  (registers the built-in claims)
from verify.core import config as configuration_limits  # noqa: E402
from verify.core import io as input_limits  # noqa: E402
from verify.core import limits, numbers  # noqa: E402
from verify.app.campaign import default_spec, plan_tasks  # noqa: E402
from verify.claims.registry import verdict_ids  # noqa: E402
from verify.app.report.build import provider_sections  # noqa: E402
from verify.app.report.glance import at_a_glance  # noqa: E402
from verify.app.report.render import glance_markdown  # noqa: E402
from verify.app.selftest.mutants import EXACT_MUTANTS, FLOAT_MUTANTS  # noqa: E402
from verify.experiments.sentiment import AUTHORS_SOFTMAX_TEST_ACCURACY  # noqa: E402
from verify.experiments.sentiment.report_section import chosen_on_validation  # noqa: E402

OPEN = re.compile(r"<!-- generated: ([^ ]*) -->")
END = "<!-- end -->"
MARKER = re.compile(r"<!-- generated: ([^ ]*) -->|<!-- end -->")
# Kinds of typed number that go stale, refused outside the blocks of the README.
STALE_NUMBER = re.compile(r"\b\d+(?:\.\d+)?x\b|\b\d+(?:\.\d+)?(?:[-–]\d+(?:\.\d+)?)? ?(?:ms|s|seconds|minutes|hours)\b"
                          r"|\b0\.\d{3,}\b")


def pages(repo: Path = REPO) -> list[Path]:
    """The user docs that may hold generated blocks."""
    return [repo / "README.md", repo / "reports" / "README.md",
            *sorted(p for p in (repo / "docs").glob("*.md") if p.name != "theory.md")]


# --- derived blocks ---------------------------------------------------------------------------

def campaign_sentence() -> str:
    tasks = plan_tasks(default_spec(), seed=0)
    worked = sum(t.kind == "worked" for t in tasks)
    families = sorted({t.family for t in tasks if t.kind == "generated"})
    return (f"the {worked} worked configurations of docs/theory.md §4 and {len(tasks) - worked} configurations "
            f"generated from seed 0 across {len(families)} families ({', '.join(families)})")


def limits_table() -> str:
    rows = [
        ("an input file (configuration, CAMPAIGN.toml, conjecture file)",
         f"a regular file (not a FIFO, device or socket), at most {input_limits.MAX_INPUT_BYTES // 2**20} MiB", "-"),
        ("a number", f"at most {sys.int_info.default_max_str_digits} significant digits (Python's integer limit), "
                     f"exponent at most {numbers._MAX_EXPONENT:,} in size", "-"),
        ("a configuration", f"at most {configuration_limits.MAX_TOKENS} tokens, dimension at most "
                            f"{configuration_limits.MAX_DIMENSION}", "-"),
        ("`simulate`, `softmax`", f"layers x tokens at most {limits.DEFAULT_MAX_WORK:,} (exact numbers grow with the layers)",
         "`--max-work N`"),
        ("`check --layer-budget`, `layer_budget` of a campaign", f"at most {limits.MAX_LAYER_BUDGET:,}", "-"),
        ("`report --jobs`, `--dask-local`", "twice the usable cores, at least 4", "-"),
        ("`control`", f"at most {limits.CONTROL_MAX_TOKENS} tokens, dimension at most {limits.CONTROL_MAX_DIMENSION}; "
                      f"`--all-leader-sets` at most {limits.CONTROL_MAX_SUBSETS:,} subsets; `--max-tries` at most "
                      f"{limits.CONTROL_MAX_TRIES}, `--max-programs` at most {limits.CONTROL_MAX_PROGRAMS:,}", "-"),
    ]
    lines = ["| what | limit | raise it with |", "|---|---|---|"] + [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n" + "\n".join(lines) + "\n"


def selftest_sentence() -> str:
    return (f"{len(EXACT_MUTANTS) + len(FLOAT_MUTANTS)} wrong variants: {len(EXACT_MUTANTS)} of the update rule "
            f"and {len(FLOAT_MUTANTS)} of the float engine")


def _evaluations(repo: Path = REPO) -> list[dict]:
    files = sorted((repo / "runs" / "sentiment").glob("evaluate-*.json"))
    return [json.loads(path.read_text(encoding="utf-8")) for path in files]


def _run_name(evaluation: Mapping) -> str:
    return str(evaluation["checkpoint"]).removeprefix("models/sentiment-")


def _chosen(evaluations: Sequence[Mapping]) -> set[str]:
    return {str(e["checkpoint"]) for e in chosen_on_validation(evaluations)}


def sentiment_table() -> str:
    """The tuned study's accuracy table (tests/docs/test_readme_accuracy_table.py reads it independently)."""
    evaluations = sorted(_evaluations(), key=lambda e: (e["d"], _run_name(e)))
    chosen = _chosen(evaluations)
    lines = ["| d | run (`models/sentiment-...`) | authors (softmax, best test epoch) | ours like-for-like (softmax, "
             "best test epoch) | ours honest (certified hardmax, epoch chosen on validation) | validation accuracy "
             "| exact-path reviews |", "|---|---|---|---|---|---|---|"]
    for e in evaluations:
        picked = e["checkpoint"] in chosen
        honest = f"**{e['hardmax_accuracy']:.4f}**" if picked else f"{e['hardmax_accuracy']:.4f}"
        validation = f"{e['validation_accuracy']:.4f}" + (" (chosen)" if picked else "")
        lines.append(f"| {e['d']} | `{_run_name(e)}` | {AUTHORS_SOFTMAX_TEST_ACCURACY[e['d']]:.4f} | "
                     f"{e['softmax_best_test_epoch']['test_acc']:.4f} | {honest} | {validation} | {e['exact_path']} |")
    return "\n" + "\n".join(lines) + "\n"


def sentiment_chosen_sentence() -> str:
    evaluations = _evaluations()
    chosen = sorted((e for e in evaluations if e["checkpoint"] in _chosen(evaluations)), key=lambda e: e["d"])
    parts = [f"d = {e['d']} {e['hardmax_accuracy']:.4f} ({_margin(e)} points, `{_run_name(e)}`)" for e in chosen]
    alphas = [e["alpha"] for e in chosen]
    return (f"{'; '.join(parts)}. The chosen runs learned a small alpha ({min(alphas):.2f} to {max(alphas):.2f}), "
            "where 8 layers leave the tokens far from clustered")


def _epochs_run(evaluation: Mapping, repo: Path = REPO) -> str:
    checkpoint = repo / str(evaluation["checkpoint"]) / "checkpoint.json"
    if not checkpoint.is_file():
        return "n/a"
    return str(json.loads(checkpoint.read_text(encoding="utf-8")).get("epochs_completed", "n/a"))


def _margin(evaluation: Mapping) -> str:
    """Points above (+) or below (-) the authors' softmax figure at the same d."""
    return f"{100 * (evaluation['hardmax_accuracy'] - AUTHORS_SOFTMAX_TEST_ACCURACY[evaluation['d']]):+.2f}"


def sentiment_tuned_table() -> str:
    """docs/sentiment.md's table of the tuned runs: the README's columns, the epochs, and the runs' lengths."""
    evaluations = sorted(_evaluations(), key=lambda e: (e["d"], _run_name(e)))
    chosen = _chosen(evaluations)
    lines = ["| d | run (`models/sentiment-...`) | authors (softmax, best *test* epoch) | ours, like-for-like (softmax, "
             "best test epoch) | ours, honest (certified hardmax test accuracy, epoch chosen on validation) | "
             "validation accuracy of that epoch | softmax at that epoch | exact-path reviews | epochs run |",
             "|---|---|---|---|---|---|---|---|---|"]
    for e in evaluations:
        picked = e["checkpoint"] in chosen
        honest = (f"**{e['hardmax_accuracy']:.4f}** (epoch {e['epoch']}), **{_margin(e)} points**" if picked
                  else f"{e['hardmax_accuracy']:.4f} (epoch {e['epoch']})")
        validation = f"**{e['validation_accuracy']:.4f}** (chosen)" if picked else f"{e['validation_accuracy']:.4f}"
        best = e["softmax_best_test_epoch"]
        lines.append(f"| {e['d']} | `{_run_name(e)}` | {AUTHORS_SOFTMAX_TEST_ACCURACY[e['d']]:.4f} | "
                     f"{best['test_acc']:.4f} (epoch {best['epoch']}) | {honest} | {validation} | "
                     f"{e['softmax_accuracy']:.4f} | {e['exact_path']} | {_epochs_run(e)} |")
    return "\n" + "\n".join(lines) + "\n"


def sentiment_headline_table() -> str:
    """Per d, the run chosen on validation against the authors' figure."""
    evaluations = _evaluations()
    chosen = sorted((e for e in evaluations if e["checkpoint"] in _chosen(evaluations)), key=lambda e: e["d"])
    lines = ["| d | authors (softmax, test-selected) | honest (run chosen on validation) | difference (points) |",
             "|---|---|---|---|"]
    lines += [f"| {e['d']} | {AUTHORS_SOFTMAX_TEST_ACCURACY[e['d']]:.4f} | {e['hardmax_accuracy']:.4f} "
              f"(`{_run_name(e)}`, alpha {e['alpha']:.2f}) | **{_margin(e)}** |" for e in chosen]
    return "\n" + "\n".join(lines) + "\n"


def softmax_certificate_table(repo: Path = REPO) -> str:
    """docs/softmax.md: per (d, K), the test reviews on which softmax is certified to agree with hardmax."""
    data = json.loads((repo / "runs" / "sentiment" / "softmax-certificate.json").read_text(encoding="utf-8"))
    lines = ["| d | K | runs | test reviews certified | measured agreement (float softmax) | stopped: delta <= 2 eta "
             "| stopped: no proven margin | decoder margin too small |", "|---|---|---|---|---|---|---|---|"]
    for g in data["by_d"]:
        reasons = g["not_certified"]
        measured = g["measured_agreement"]
        lines.append(f"| {g['d']} | {g['K']} | {g['runs']} | {g['certified']:,} of {g['reviews']:,} "
                     f"({100 * g['certified'] / g['reviews']:.2f}%) | "
                     + (f"{100 * measured:.2f}%" if measured is not None else "-")
                     + f" | {reasons.get('margin', 0):,} | {reasons.get('undecided', 0) + reasons.get('tie', 0):,} "
                     f"| {reasons.get('decoder', 0):,} |")
    return "\n" + "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Derived:
    """Computed from committed files and the code; ``--check`` requires the same text."""

    render: Callable[[], str]


@dataclass(frozen=True)
class CommandOutput:
    """A command's standard output quoted verbatim under a line naming the command, date, cores and load."""

    command: str
    expect: tuple[str, ...]  # patterns of lines the command prints; each must match a quoted line


@dataclass(frozen=True)
class Glance:
    """A report's results at a glance, read from its results.json."""


Source = Derived | CommandOutput | Glance

SOURCES: dict[str, Source] = {
    "campaign": Derived(campaign_sentence),
    "limits": Derived(limits_table),
    "selftest_variants": Derived(selftest_sentence),
    "sentiment_table": Derived(sentiment_table),
    "sentiment_chosen": Derived(sentiment_chosen_sentence),
    "sentiment_tuned_table": Derived(sentiment_tuned_table),
    "sentiment_headline_table": Derived(sentiment_headline_table),
    "softmax_certificate_table": Derived(softmax_certificate_table),
    "glance": Glance(),
    "bench_dynamics": CommandOutput("python bench/dynamics.py", (
        r"^workload: B=\d+, n=\d+", r"^\(a\) per-token loop \(baseline\) +[\d.]+ ms/config",
        r"^\(b\) simulate_batch +[\d.]+ ms/config +speed-up vs \(a\): +[\d.]+x",
        r"^\(d\) exact, plain Fraction +[\d.]+ ms/config +\(c\) vs \(d\): +[\d.]+x")),
    "bench_campaign": CommandOutput("python bench/campaign.py", (
        r"^campaign: \d+ tasks \(seed 0\); cores: \d+; load average before:", r"^in-process ",
        r"^process pool .*cold", r"^process pool .*warm", r"^load average after:")),
}

OUTPUT_HEADER = re.compile(r"^Printed by `(?P<command>[^`]+)` on (?P<date>\d{4}-\d{2}-\d{2}) \((?P<cores>\d+) cores, "
                           r"load average (?P<load>[\d.]+ [\d.]+ [\d.]+) before the run\):$")
GLANCE_HEADER = re.compile(r"^From `hardmax-verify report` \(default campaign, seed (?P<seed>\d+)\), "
                           r"run on (?P<date>\d{4}-\d{2}-\d{2}):$")


def run_command(source: CommandOutput, repo: Path = REPO) -> str:
    """Run ``source.command`` in the repository and return the block quoting its output."""
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    env = {**os.environ, "PYTHONPATH": str(repo)}
    words = shlex.split(source.command)
    words = [sys.executable if w == "python" else w for w in words]
    completed = subprocess.run(words, cwd=repo, env=env, capture_output=True, text=True)
    if completed.returncode != 0:
        raise RuntimeError(f"{source.command} exited {completed.returncode}: {completed.stderr.strip()[-500:]}")
    output = "\n".join(line.rstrip() for line in completed.stdout.strip("\n").splitlines())
    return (f"\nPrinted by `{source.command}` on {datetime.date.today().isoformat()} ({os.cpu_count()} cores, "
            f"load average {load} before the run):\n\n```text\n{output}\n```\n")


def glance_block(results: Mapping) -> str:
    date = str(results["environment"].get("finished") or results["environment"].get("started"))[:10]
    return (f"\nFrom `hardmax-verify report` (default campaign, seed {results['campaign']['seed']}), run on {date}:\n\n"
            + glance_markdown(at_a_glance(results, {key: section.summary for key, section in
                                                    provider_sections(results.get("optional_sections") or {}).items()}))
            + "\n")


# --- reading and checking pages ---------------------------------------------------------------

@dataclass(frozen=True)
class Block:
    name: str
    start: int  # offset of the body in the page
    end: int
    body: str


def blocks(text: str, where: str) -> tuple[list[Block], list[str]]:
    """The generated blocks of a page and the problems of its markers (unterminated, nested, stray)."""
    found, problems = [], []
    opened: re.Match | None = None
    for marker in MARKER.finditer(text):
        line = text.count("\n", 0, marker.start()) + 1
        if marker.group(1) is not None:
            if opened is not None:
                problems.append(f"{where}:{line}: a block opens inside the block {opened.group(1)!r}")
            opened = marker
        elif opened is None:
            problems.append(f"{where}:{line}: {END} without a block")
        else:
            found.append(Block(opened.group(1), opened.end(), marker.start(), text[opened.end():marker.start()]))
            opened = None
    if opened is not None:
        problems.append(f"{where}: the block {opened.group(1)!r} has no {END}")
    return found, problems


def check_output_block(block: Block, source: CommandOutput) -> list[str]:
    lines = block.body.strip("\n").splitlines()
    header = OUTPUT_HEADER.match(lines[0]) if lines else None
    if header is None:
        return ["its first line is not 'Printed by `COMMAND` on DATE (N cores, load average A B C before the run):'"]
    if header.group("command") != source.command:
        return [f"it quotes `{header.group('command')}`, the source is `{source.command}`"]
    fence = re.search(r"```text\n(.*?)\n```", block.body, re.S)
    if fence is None or not fence.group(1).strip():
        return ["no ```text block with the command's output"]
    output = fence.group(1).splitlines()
    return [f"no quoted line matches {pattern!r} (the command prints it)" for pattern in source.expect
            if not any(re.search(pattern, line.strip()) for line in output)]


def check_glance_block(block: Block) -> list[str]:
    lines = block.body.strip("\n").splitlines()
    header = GLANCE_HEADER.match(lines[0]) if lines else None
    if header is None:
        return ["its first line is not 'From `hardmax-verify report` (default campaign, seed N), run on DATE:'"]
    problems = []
    overall = re.search(r"^Overall: \*\*\w+\*\* \(exit status \d\) on ([\d,]+) configurations;", block.body, re.M)
    planned = len(plan_tasks(default_spec(), seed=int(header.group("seed"))))
    if overall is None:
        problems.append("no 'Overall: ... on N configurations;' line")
    elif int(overall.group(1).replace(",", "")) != planned:
        problems.append(f"it counts {overall.group(1)} configurations, the default campaign has {planned}")
    claims = re.search(r"^\| claim \| (.*) \|$", block.body, re.M)
    if claims is None or tuple(c.strip() for c in claims.group(1).split("|")) != verdict_ids():
        problems.append(f"its claims row is not the registry's claims {', '.join(verdict_ids())}")
    return problems


def stale_numbers(text: str, where: str) -> list[str]:
    """Typed numbers of the kinds that go stale outside the generated blocks."""
    found, _ = blocks(text, where)
    outside = list(text)
    for block in found:
        outside[block.start:block.end] = [" "] * (block.end - block.start)
    plain = "".join(outside)
    problems = []
    for match in STALE_NUMBER.finditer(plain):
        line = plain.count("\n", 0, match.start()) + 1
        problems.append(f"{where}:{line}: the typed number {match.group(0)!r} goes stale; generate it or remove it")
    return problems


def check(repo: Path = REPO) -> list[str]:
    """Every problem of every page's blocks (an empty list: all consistent)."""
    problems: list[str] = []
    seen: set[str] = set()
    derived_cache: dict[str, str] = {}
    for page in pages(repo):
        where = page.relative_to(repo).as_posix()
        text = page.read_text(encoding="utf-8")
        found, marker_problems = blocks(text, where)
        problems += marker_problems
        if page.name == "README.md" and page.parent == repo:
            problems += stale_numbers(text, where)
        for block in found:
            line = text.count("\n", 0, block.start) + 1
            source = SOURCES.get(block.name)
            seen.add(block.name)
            if source is None:
                problems.append(f"{where}:{line}: unknown block {block.name!r} (known: {', '.join(SOURCES)})")
            elif isinstance(source, Derived):
                if block.name not in derived_cache:
                    derived_cache[block.name] = source.render()
                if block.body != derived_cache[block.name]:
                    problems.append(f"{where}:{line}: the block {block.name!r} is stale "
                                    "(python scripts/readme_numbers.py rewrites it)")
            elif isinstance(source, CommandOutput):
                problems += [f"{where}:{line}: {block.name}: {p}" for p in check_output_block(block, source)]
            else:
                problems += [f"{where}:{line}: {block.name}: {p}" for p in check_glance_block(block)]
    problems += [f"no page holds the block {name!r}" for name in SOURCES if name not in seen]
    return problems


def refresh(*, repo: Path = REPO, results: Mapping | None = None, run: Sequence[str] = ()) -> list[str]:
    """Rewrite the blocks that can be produced now; returns the pages changed."""
    bodies: dict[str, str] = {}
    for name, source in SOURCES.items():
        if isinstance(source, Derived):
            bodies[name] = source.render()
        elif isinstance(source, CommandOutput) and name in run:
            print(f"running {source.command} ...", file=sys.stderr)
            bodies[name] = run_command(source, repo)
        elif isinstance(source, Glance) and results is not None:
            bodies[name] = glance_block(results)
    changed = []
    for page in pages(repo):
        text = page.read_text(encoding="utf-8")
        found, problems = blocks(text, page.name)
        if problems:
            raise ValueError("; ".join(problems))
        new = text
        for block in reversed(found):
            if block.name in bodies:
                new = new[:block.start] + bodies[block.name] + new[block.end:]
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed.append(page.relative_to(repo).as_posix())
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a block is stale or malformed")
    parser.add_argument("--results", type=Path, default=None,
                        help="a report's results.json, for the at-a-glance block (hardmax-verify report writes "
                             "reports/latest/results.json)")
    parser.add_argument("--run", action="append", default=[], choices=[n for n, s in SOURCES.items()
                                                                         if isinstance(s, CommandOutput)],
                        help="also run this block's command and quote its output (repeatable; takes minutes)")
    args = parser.parse_args(argv)
    if args.check:
        problems = check()
        for problem in problems:
            print(problem)
        return 1 if problems else 0
    results = None
    if args.results is not None:
        try:
            results = json.loads(args.results.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            print(f"error: --results: {error}", file=sys.stderr)
            return 2
    for page in refresh(results=results, run=args.run):
        print(f"rewrote {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
