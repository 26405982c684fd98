"""The numbers the user docs quote, written by the commands that produce them, never typed.

    python scripts/readme_numbers.py                  # rewrite every block (runs the default report: a minute or two)
    python scripts/readme_numbers.py --quick          # the same without running the report (its campaign lines kept)
    python scripts/readme_numbers.py --results reports/latest/results.json   # the at-a-glance block from that report
    python scripts/readme_numbers.py --run bench_dynamics                    # also run a benchmark and quote it
    python scripts/readme_numbers.py --check          # change nothing; exit 1 if a block differs from its sources
    python scripts/readme_numbers.py --check --quick  # the same, without running the report

A number lives between ``<!-- generated: NAME -->`` and ``<!-- end -->`` in README.md,
reports/README.md, tests/README.md or docs/*.md; NAME says where it comes from (:data:`SOURCES`):

* **derived** blocks are computed from committed files and the code (the default campaign's
  plan, the documented limits, the self-test's variants, the saved sentiment evaluations):
  ``--check`` recomputes them and requires the same text;
* the **at-a-glance** block is what ``hardmax-verify report`` (default campaign, seed 0) opens
  with, on the committed code and the saved results under ``runs/``: ``--check`` runs that
  report and requires the same text. The report's results are the same for the same seed and
  code, so nothing in the block depends on when it was written. With ``--quick`` the report is
  not run: the lines of the saved results (sentiment, reproduction, conjecture lab,
  classification) are still recomputed and compared, the campaign's lines only checked for
  their form and their count of configurations;
* **command output** blocks quote what a benchmark printed, verbatim, under a line naming the
  command, the date, the cores and the load average before the run (timings vary with the
  machine and its load, so ``--check`` verifies the form: the command, that line, and lines the
  command still prints, not the numbers).

A new kind of generated text is one more entry of :data:`SOURCES` (a :class:`Derived` render
function is enough for anything computed from committed files).

``--check`` also refuses, outside the blocks and fenced code of every page, the kinds of number
that go stale: speed-up ratios (``2.1x``), durations (``30 s``) and accuracies (``0.8164``).
"""

from __future__ import annotations

import argparse
import ast
import datetime
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

REPO = Path(__file__).resolve().parent.parent
# Where the sources of the numbers are read (the pages checked may be a copy elsewhere, as in the tests).
ROOT = REPO
sys.path.insert(0, str(REPO))

import hypothesis  # noqa: E402
import verify.claims  # noqa: E402,F401  (registers the built-in claims)
import verify.core.profiles  # noqa: E402,F401  (registers the Hypothesis profiles)
from verify.core import formatting, limits, text  # noqa: E402
from verify.app.campaign import default_spec, plan_tasks  # noqa: E402
from verify.app.commands.simulate import summary_lines as simulate_summary_lines  # noqa: E402
from verify.app.commands.softmax import _checked_configuration as checked_softmax_configuration  # noqa: E402
from verify.core.softmax_bound import readable_decimal, softmax_certificate  # noqa: E402
from verify.core.config import load_configuration  # noqa: E402
from verify.experiments.conjectures.builtin import BUILTIN_CONJECTURES  # noqa: E402
from verify.app.commands.conjecture import PLAIN_PROGRESS_EVERY, SHARED_MIN_SECONDS, SHARED_SECONDS  # noqa: E402
from verify.experiments.conjectures.base import SHRINK_CALLS, SHRINK_MIN_SECONDS, SHRINK_SHARE  # noqa: E402
from verify.experiments.conjectures.optimise import OPTIMISE_PROBES  # noqa: E402
from verify.experiments.conjectures.report_section import POWER_FILE, power_rows, power_updates_text, read_power  # noqa: E402
from verify.experiments.conjectures.search import DEFAULT_SECONDS  # noqa: E402
from verify.claims.registry import verdict_ids  # noqa: E402
from verify.core import formatting as fmt  # noqa: E402
from verify.app.report.build import collect_optional_sections, provider_sections  # noqa: E402
from verify.app.report.citation import release_bibtex  # noqa: E402
from verify.core.versions import VERSION  # noqa: E402
from verify.app.report.glance import at_a_glance, experiment_sentences  # noqa: E402
from verify.app.report.render import glance_markdown, saved_results_markdown  # noqa: E402
from verify.core.text import short_number  # noqa: E402
from verify.core.trajectory import simulate as simulate_trajectory  # noqa: E402
from verify.app.selftest.mutants import EXACT_MUTANTS, FLOAT_MUTANTS  # noqa: E402
from verify.experiments.sentiment import AUTHORS_SOFTMAX_TEST_ACCURACY  # noqa: E402
from verify.experiments.sentiment import report_section as sentiment_section  # noqa: E402
from verify.experiments.sentiment.report_section import chosen_on_validation  # noqa: E402

OPEN = re.compile(r"<!-- generated: ([^ ]*) -->")
END = "<!-- end -->"
MARKER = re.compile(r"<!-- generated: ([^ ]*) -->|<!-- end -->")
# Kinds of typed number that go stale, refused outside the blocks of the README.
STALE_NUMBER = re.compile(r"\b\d+(?:\.\d+)?x\b|\b\d+(?:\.\d+)?(?:[-–]\d+(?:\.\d+)?)? ?(?:ms|s|seconds|minutes|hours)\b"
                          r"|\b0\.\d{3,}\b")


def pages(repo: Path | None = None) -> list[Path]:
    """The user docs that may hold generated blocks."""
    repo = REPO if repo is None else repo
    return [repo / "README.md", repo / "reports" / "README.md",
            *[page for page in (repo / "tests" / "README.md",) if page.is_file()],
            *sorted(p for p in (repo / "docs").glob("*.md") if p.name != "theory.md")]


# --- derived blocks ---------------------------------------------------------------------------

def bibtex_block() -> str:
    """The README's BibTeX entry of the release: the version of verify.core.versions, the year CITATION.cff gives."""
    released = re.search(r"^date-released: (\d{4})-", (ROOT / "CITATION.cff").read_text(encoding="utf-8"), re.M)
    return f"\n```bibtex\n{release_bibtex(VERSION, released.group(1) if released else None)}\n```\n"


def softmax_second_example() -> str:
    """docs/softmax.md: where and why `softmax examples/softmax.json --beta 100 --layers 8` stops (the code's own answer)."""
    config, _ = checked_softmax_configuration(ROOT / "examples" / "softmax.json", outside_hypotheses=False)
    certificate = softmax_certificate(config.tokens, alpha=config.alpha, beta=100, layers=8, A=config.A)
    stop = certificate.stop
    if stop is None:
        return "at beta = 100 the bound holds through layer 8 as well (exit status 0)."
    record = certificate.records[stop.layer]
    margin = readable_decimal(record.margin, rounding="down") if record.margin is not None else "-"
    eta = readable_decimal(2 * record.eta, rounding="up") if record.eta is not None else "-"
    return (f"the certificate stops at {stop.describe()}; delta_{stop.layer} = {margin} against "
            f"2 eta_{stop.layer} = {eta}, so the command says inconclusive and exits with status 3.")


def _suite_times(repo: Path) -> dict[str, tuple[float, float]]:
    """(wall, idle 2-core estimate) seconds of each lane, from tests/README.md's quoted bench/test_suite.py output."""
    text = (repo / "tests" / "README.md").read_text(encoding="utf-8")
    found = {}
    for lane, key in (("fast lane", "fast"), ("full suite", "full")):
        match = re.search(rf"^{lane}.*?wall +([\d.]+) s .*?\(CPU / \d+\) +([\d.]+) s", text, re.M)
        if match:
            found[key] = (float(match.group(1)), float(match.group(2)))
    return found


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def command_costs(repo: Path = ROOT) -> str:
    """README: what each command costs, from what the committed files measured (the published report's timings,
    the quoted test-suite benchmark, the reproduction's checkpoints) and the code's own budgets."""
    results = json.loads((repo / "reports" / "published" / "results.json").read_text(encoding="utf-8"))
    timings = results["environment"]["timings_seconds"]
    jobs = re.search(r"--jobs (\d+)", results["environment"]["command_line"])
    report = (f"{_minutes(timings['campaign'])} for the campaign's {fmt.count(results['summary']['examples'])} "
              f"configurations and {_minutes(timings['figures'])} for the figures (wall time of the published "
              f"snapshot, `--jobs {jobs.group(1) if jobs else '?'}`); `--jobs 1` takes about the CPU time")
    suite = _suite_times(repo)
    tests = (f"minutes: the full suite {_minutes(suite['full'][1])}, the fast lane {_minutes(suite['fast'][1])} on two idle "
             f"cores (their CPU time over 2; on the loaded machine of tests/README.md {_minutes(suite['full'][0])} and "
             f"{_minutes(suite['fast'][0])} of wall time)") if len(suite) == 2 else "minutes (tests/README.md)"
    training = []
    for folder in sorted((repo / "models" / "reproduction").glob("d*-K8-s*")):
        history = json.loads((folder / "checkpoint.json").read_text(encoding="utf-8")).get("history", [])
        seconds = sum(e.get("seconds") or 0 for e in history)
        if seconds:
            training.append(seconds)
    train = (f"{_minutes(min(training))} to {_minutes(max(training))} of wall time per run of the reproduction "
             f"(K = 8, d = 2 to 16, {len(training)} runs: the epochs' recorded seconds in models/reproduction); "
             "the whole protocol, days of CPU" if training else "hours per run")
    rows = [
        ("`bash scripts/setup.sh`", "minutes, once: Debian packages, `pip install` (torch's CPU wheel), numba's cache"),
        ("`hardmax-verify --help`, `--version`", "well under a second: the command table is static (`python bench/cli_startup.py`)"),
        ("`simulate`, `check`, `softmax` on the example files", "a second or two (the first float run compiles the "
         "kernel unless `scripts/setup.sh` cached it)"),
        ("`report` (default campaign)", report),
        ("`certcheck reports/published/results.json`", "seconds: it replays every configuration with its own "
         "arithmetic and hashes the saved results"),
        ("`conjecture run NAME`", f"{DEFAULT_SECONDS:g} s by default (`--time`, `--examples`)"),
        ("`conjecture run all`", f"about {SHARED_SECONDS / 60:g} minutes shared among the built-in conjectures"),
        ("`selftest`", "under a minute on two cores"),
        ("`control examples/control.json --leaders ...`", "seconds; `--all-leader-sets` on larger inputs, minutes"),
        ("`sweep MEASUREMENT`", "a float batch per cell, exact runs for the samples its proven bound leaves undecided "
         "and for each cell's extreme (with `--optimise P`, P exact runs more per cell): seconds per small cell "
         "(docs/sweep.md)"),
        ("`sentiment train`", train),
        ("`python -m pytest -n 2`", tests),
    ]
    lines = ["| command | what it costs |", "|---|---|"] + [f"| {command} | {cost} |" for command, cost in rows]
    return "\n" + "\n".join(lines) + "\n"


def api_reference() -> str:
    """docs/api.md's reference of the public module, from the names' docstrings (scripts/api_reference.py)."""
    spec = importlib.util.spec_from_file_location("api_reference", Path(__file__).resolve().parent / "api_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.reference()


def campaign_sentence() -> str:
    tasks = plan_tasks(default_spec(), seed=0)
    worked = sum(t.kind == "worked" for t in tasks)
    families = sorted({t.family for t in tasks if t.kind == "generated"})
    return (f"the {worked} worked configurations of docs/theory.md §4 and {len(tasks) - worked} configurations "
            f"generated from seed 0 across {len(families)} families ({', '.join(families)})")


def limits_table() -> str:
    rows = limits.readme_rows()
    lines = ["| what | limit | raise it with |", "|---|---|---|"] + [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n" + "\n".join(lines) + "\n"


def certcheck_limits_table() -> str:
    """docs/certcheck.md's table of the checker's limits, from its own CHECKER_LIMITS."""
    from verify import certcheck

    def shown(value: float) -> str:
        if isinstance(value, float) and not value.is_integer():
            return f"{value:g}"
        value = int(value)
        if value >= 1 << 30 and value % (1 << 30) == 0:
            return f"{value >> 30:,} GiB"
        return f"{value >> 20:,} MiB" if value >= 1 << 20 and value % (1 << 20) == 0 else f"{value:,}"

    lines = ["| limit | value | what it bounds | beyond it |", "|---|---|---|---|"]
    lines += [f"| `{limit.name}` | {shown(limit.value)} | {limit.bounds} | {limit.beyond} |"
              for limit in certcheck.CHECKER_LIMITS]
    return "\n" + "\n".join(lines) + "\n"


def certcheck_unchecked_table() -> str:
    """docs/certcheck.md's table of every field the checker does not check, from its own schemas."""
    from verify import certcheck

    lines = ["| file | field | why it is not checked |", "|---|---|---|"]
    for kind, node in certcheck.schemas().items():
        lines += [f"| {kind} | `{row.pattern}` | {row.reason} |" for row in certcheck.schema.rows(node)]
    return "\n" + "\n".join(lines) + "\n"


def certcheck_trusted_base() -> str:
    """docs/certcheck.md's sentence on the checker's size: the kernel, what reads and dispatches a file, each checker."""
    from verify import certcheck

    package = Path(certcheck.__file__).parent

    def lines(*parts: str) -> int:
        paths = [p for part in parts for p in ((package / part).rglob("*.py") if (package / part).is_dir()
                                                else [package / part])]
        return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in paths if "__pycache__" not in p.parts)

    kernel, front = lines("kernel"), lines("jsontext.py", "files.py", "cli.py", "__init__.py", "__main__.py")
    return (f"the kernel (`verify/certcheck/kernel/`) has {kernel:,} lines; with the JSON reader, the dispatcher "
            f"and the command line, what a claims report's verdict rests on is {kernel + front:,} lines. The "
            f"results auditor beside it (`results/`) adds {lines('results'):,} for a results.json, and the other "
            f"checkers {lines('softmax'):,} (softmax records), {lines('control'):,} (control results) and "
            f"{lines('classify'):,} (classification networks)")


def selftest_sentence() -> str:
    return (f"{len(EXACT_MUTANTS) + len(FLOAT_MUTANTS)} wrong variants: {len(EXACT_MUTANTS)} of the update rule "
            f"and {len(FLOAT_MUTANTS)} of the float engine")


def number_rule_sentence() -> str:
    """How every readable output writes an exact number (verify.core.text.short_number), with its examples computed."""
    examples = [Fraction(1, 3), Fraction(309017, 10**6), Fraction(-809017, 10**6)]
    long = Fraction(10**30, 3)
    return ("an integer as itself, another rational as the shorter of its fraction and its finite decimal expansion "
            f"({', '.join(f'`{short_number(x)}`' for x in examples)}; the fraction on a tie), when that has at most "
            f"{text.SHORT_EXACT_LENGTH} characters, else `≈` its value to {text.SHORT_DIGITS} significant digits "
            f"(`{short_number(long)}`)")


def simulate_example_output() -> str:
    """The first lines `hardmax-verify simulate examples/example.json --layers 3` prints (the README quotes them)."""
    config = load_configuration(ROOT / "examples" / "example.json")
    trajectory = simulate_trajectory(config.tokens, alpha=config.alpha, A=config.A_matrix if config.A else None,
                                     layers=3, arithmetic="exact")
    lines = simulate_summary_lines(config, trajectory, source="example.json")
    shown = lines[:next(i for i, line in enumerate(lines) if line.startswith("leaders")) + 1]
    return "\n```\n" + "\n".join(shown) + "\n```\n"


def default_examples() -> str:
    """The generated configurations of the embedded default campaign."""
    return f"{default_spec().examples:,}"


def _fast_lane_examples() -> int:
    """FAST_LANE_EXAMPLES of the repository's root conftest.py, read from its text: under pytest the module
    name ``conftest`` may be another folder's conftest."""
    tree = ast.parse((ROOT / "conftest.py").read_text(encoding="utf-8"))
    return next(int(node.value.value) for node in tree.body if isinstance(node, ast.Assign)
                and any(getattr(t, "id", None) == "FAST_LANE_EXAMPLES" for t in node.targets)
                and isinstance(node.value, ast.Constant))


def fast_lane_sentence() -> str:
    """How many examples a property runs in the fast lane (the root conftest.py) against the profiles'."""
    fast = _fast_lane_examples()
    ci, dev = (hypothesis.settings.get_profile(name).max_examples for name in ("ci", "dev"))
    return f"{fast} examples instead of the profile's {ci} or {dev}"


def conjecture_count_line() -> str:
    """What `conjecture run all` ends with when no built-in conjecture surprises: the refuted ones as expected,
    the others consistent with their expectation."""
    n = len(BUILTIN_CONJECTURES)
    refuted = sum(c.expected == "refuted" for c in BUILTIN_CONJECTURES.values())
    return (f"`{refuted} as expected, {n - refuted} consistent with the expectation (evidence, not a proof), "
            f"0 surprises, 0 inconclusive (of {n} conjectures)`")


def _evaluations(repo: Path = ROOT) -> list[dict]:
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


def _epochs_run(evaluation: Mapping, repo: Path = ROOT) -> str:
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


# --- docs/sentiment.md: the tuned study's analyses (runs/sentiment/analysis/analysis.json) ---------

def _analysis() -> Mapping:
    return json.loads((ROOT / "runs" / "sentiment" / "analysis" / "analysis.json").read_text(encoding="utf-8"))


def _model(record: Mapping) -> str:
    return Path(str(record["path"])).name.removeprefix("sentiment-")


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, Mapping) else None
    return data


def authors_figures_list() -> str:
    return ", ".join(f"{AUTHORS_SOFTMAX_TEST_ACCURACY[d]:.4f}" for d in sorted(AUTHORS_SOFTMAX_TEST_ACCURACY))


def sentiment_analyses_table() -> str:
    """Leaders, leader words, polarity and K = 8 against the converged state, one row per analysed model."""
    rows = _analysis()["checkpoints"]
    polar = sorted({fmt.share(_get(r, "lexicon", "all_polar_share")) for r in rows})
    converged = {_get(r, "K_vs_converged", "configurations") for r in rows}
    lines = ["| model | alpha | leaders per review: mean (std, min-max) | already leading at layer 0 | reviews without "
             "a leader (T0 fails, exact) | reviews selected for leader words | VADER-polar share of leader words "
             f"(all words: {' to '.join(polar)}) | K = 8 vs {_analysis()['converge_layers']} layers: predictions changed "
             f"(of {', '.join(fmt.count(c) for c in sorted(converged))} reviews, float) | mean distance | max distance |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        stats, converge = r["leader_statistics"], r["K_vs_converged"]
        lines.append(f"| {_model(r)} | {r['alpha']:.2f} | {stats['mean']:.2f} ({stats['std']:.2f}, {stats['min']}-{stats['max']}) "
                     f"| {fmt.share(stats['fraction_initial_leaders_mean'])} | {fmt.count(stats['reviews_without_leader'])} "
                     f"| {fmt.count(_get(r, 'leader_words', 'reviews_selected'))} "
                     f"| {fmt.share(_get(r, 'lexicon', 'leader_polar_share'))} | {fmt.count(converge['predictions_changed'])} "
                     f"| {fmt.measured(_get(converge, 'distance_K_to_converged', 'mean'))} "
                     f"| {fmt.measured(_get(converge, 'distance_K_to_converged', 'max'))} |")
    return "\n" + "\n".join(lines) + "\n"


def sentiment_ablation_table() -> str:
    """The same weights with K = 0 (certified) against the certified model at K = 8."""
    lines = ["| model | alpha | K = 8 (certified hardmax) | K = 0, same weights | predictions that differ |",
             "|---|---|---|---|---|"]
    for r in _analysis()["checkpoints"]:
        a = r["without_attention"]
        lines.append(f"| {_model(r)} | {r['alpha']:.2f} | {fmt.probability(a['accuracy_at_K'])} "
                     f"| {fmt.probability(a['accuracy_without_attention'])} | {fmt.count(a['predictions_changed'])} |")
    return "\n" + "\n".join(lines) + "\n"


def sentiment_ablation_sentence() -> str:
    rows = _analysis()["checkpoints"]
    changed = [r["without_attention"]["predictions_changed"] / r["without_attention"]["reviews"] for r in rows]
    by_d: dict[int, list[float]] = {}
    for r in rows:
        a = r["without_attention"]
        by_d.setdefault(r["d"], []).append(100 * (a["accuracy_without_attention"] - a["accuracy_at_K"]))
    parts = [f"d = {d}: {min(v):+.2f} to {max(v):+.2f} points" for d, v in sorted(by_d.items())]
    return (f"the K = 8 attention layers change {fmt.share(min(changed))} to {fmt.share(max(changed))} of the "
            f"predictions, and K = 0 against K = 8, per d, is {'; '.join(parts)}")


def sentiment_leader_words() -> str:
    """The top leader words of each analysed model, with their counts."""
    lines = []
    for r in _analysis()["checkpoints"]:
        words = _get(r, "leader_words", "top") or []
        polar = _get(r, "lexicon", "top_words_polar") or []
        lines.append(f"* `{_model(r)}`: " + ", ".join(f"{w} {fmt.count(c)}" for w, c in words)
                     + f" ({len(polar)} of {len(words)} VADER-polar)")
    return "\n" + "\n".join(lines) + "\n"


def sentiment_converged_table() -> str:
    """K = 8 against the state after the converge layers (float), and when the float bound stopped deciding."""
    analysis = _analysis()
    lines = [f"| model | alpha | predictions changed at {analysis['converge_layers']} layers | distance K = 8 to "
             f"{analysis['converge_layers']} layers: mean (max) | float bound undecided from layer (median) |",
             "|---|---|---|---|---|"]
    for r in analysis["checkpoints"]:
        c = r["K_vs_converged"]
        median = _get(c, "undecided_first_layer", "median")
        lines.append(f"| {_model(r)} | {r['alpha']:.2f} | {fmt.fraction(c['predictions_changed'], c['configurations'])} "
                     f"| {fmt.measured(_get(c, 'distance_K_to_converged', 'mean'))} "
                     f"({fmt.measured(_get(c, 'distance_K_to_converged', 'max'))}) "
                     f"| {fmt.layer(median) if median is not None else 'never within ' + str(c['converge_layers'])} |")
    return "\n" + "\n".join(lines) + "\n"


def sentiment_exact_authors_sentence() -> str:
    exact = _analysis()["authors_d2"]["distinct"]["certified_limits"]
    claims = ", ".join(f"{claim} {fmt.count(counts.get('certified', 0))}" for claim, counts in exact["claims"].items())
    return (f"{fmt.count(exact['configurations'])} configurations of {_analysis()['authors_d2']['n']} distinct rows "
            f"of the authors' released d = 2 embedding went through the claim checks (layer budget "
            f"{exact['layer_budget']}): certified per claim {claims}; settled by layer "
            f"{fmt.layer(_get(exact, 'settled_layer', 'max'))} at the latest (median "
            f"{fmt.layer(_get(exact, 'settled_layer', 'median'))}); every token's limit exact by D7 for "
            f"{fmt.count(exact['limits_certified'])}; the class of the limit state differs from the certified class at "
            f"K = {exact['K']} for {fmt.fraction(exact['predictions_changed'], exact['limits_certified'])}; the exact "
            f"distance from layer {exact['K']} to the limit is at most "
            f"{fmt.measured(_get(exact, 'distance_K_to_limit', 'max'))} (mean "
            f"{fmt.measured(_get(exact, 'distance_K_to_limit', 'mean'))})")


def sentiment_hypotheses_sentence() -> str:
    rows = _analysis()["checkpoints"]
    first = rows[0]["hypotheses"]
    t0 = "; ".join(f"{_model(r)} {fmt.count(_get(r, 'hypotheses', 'T0_leader_within_K', 'fails'))}" for r in rows)
    t3 = next((r for r in rows if _get(r, "hypotheses", "T3_limits_on_boundary_of_K")), None)
    among_distinct = sum(_get(r, "hypotheses", "T0_leader_within_K", "fails_among_distinct_reviews") or 0 for r in rows)
    text = (f"of the {fmt.count(first['reviews'])} test reviews, {fmt.count(first['within_hypotheses'])} are within "
            f"the hypotheses: {fmt.count(first['with_padding'])} are padded and {fmt.count(first['with_repeated_word'])} "
            f"repeat a word. T0 (a leader within K, exact) fails on: {t0}; "
            + ("every one a review with duplicates" if among_distinct == 0
               else f"{fmt.count(among_distinct)} of them reviews of distinct tokens"))
    if t3 is not None:
        h = t3["hypotheses"]
        text += (f". In `{_model(t3)}`, measured on the converged state (float, tolerance "
                 f"{h['T3_limits_on_boundary_of_K']['tolerance']:g}), T3 fails on "
                 f"{fmt.fraction(h['T3_limits_on_boundary_of_K']['fails'], h['T3_limits_on_boundary_of_K']['reviews'])} "
                 f"reviews and T2 holds on {fmt.count(h['T2_leader_limits_are_hull_vertices']['holds'])} of the reviews "
                 "with a leader")
    return text


def sentiment_authors_float_sentence() -> str:
    authors = _analysis()["authors_d2"]
    parts = []
    for name in ("distinct", "padded"):
        part = authors[name]
        parts.append(f"{name} ({fmt.count(part['leaders']['reviews'])} configurations): T0 fails "
                     f"{fmt.count(part['T0_leader_within_K']['fails'])}, T2 fails "
                     f"{fmt.count(part['T2_leader_limits_are_hull_vertices']['fails'])}, T3 fails "
                     f"{fmt.count(part['T3_limits_on_boundary_of_K']['fails'])}, and the prediction at K = 8 differs "
                     f"from the one after {_analysis()['converge_layers']} layers for "
                     f"{fmt.count(part['K_vs_converged']['predictions_changed'])}")
    return "; ".join(parts)


def sentiment_hardmax_softmax_sentence() -> str:
    """Certified hardmax against softmax on the committed evaluations."""
    evaluations = [e for e in _evaluations() if e.get("softmax_accuracy") is not None]
    gap = max(abs(e["hardmax_accuracy"] - e["softmax_accuracy"]) for e in evaluations)
    agree = [e["hardmax_softmax_agreement"] for e in evaluations if e.get("hardmax_softmax_agreement") is not None]
    text = (f"over the {len(evaluations)} committed evaluations the certified hardmax accuracy and the softmax "
            f"accuracy of the same checkpoint differ by at most {100 * gap:.2f} points")
    if agree:
        text += f", and the two models' predictions agree on at least {fmt.share(min(agree))} of the test reviews"
    return text + (f"; the exact path was taken by {fmt.count(sum(e['exact_path'] for e in evaluations))} reviews "
                   "in all")


def published_checkpoints_sentence(repo: Path = ROOT) -> str:
    """docs/sentiment.md: the reproduction's published checkpoints against their budget (models/reproduction)."""
    from verify.experiments.sentiment.checkpoints import COMPACT_BEST, compact_header
    from verify.experiments.sentiment.protocol import MODELS_BUDGET_BYTES, published_bytes
    models = repo / "models" / "reproduction"
    compact = sorted(models.glob(f"*/{COMPACT_BEST}"))
    stored = sum(path.stat().st_size for path in compact)
    plain = sum(int(compact_header(path)["bytes"]) for path in compact)
    return (f"{formatting.counted(len(compact), 'checkpoint')} published, "
            f"{sum(published_bytes(models).values()) / 1e6:.1f} MB of the {MODELS_BUDGET_BYTES / 1e6:g} MB budget; "
            f"their weights take {stored / plain:.0%} of the bytes they have as best.safetensors")


def longer_training_summary(repo: Path = ROOT) -> str:
    """docs/sentiment.md: the longer-training protocol's summary sentence (its conclusion, or what is missing)."""
    summary = json.loads((repo / "runs" / "sentiment" / "longer-training-summary" / "summary.json")
                         .read_text(encoding="utf-8"))
    tables = {table["name"]: table for table in summary["tables"]}
    ended = tables["training-length"]["data"] if "training-length" in tables else []
    capped = [run for run in ended if run["reached_cap"]]
    if not ended:
        return summary["summary"]
    how = (f"{formatting.counted(len(capped), 'run')} of {len(ended)} reached the cap" if capped else
           f"every finished run stopped early, the last after {max(run['epochs_run'] for run in ended)} epochs")
    return f"{summary['summary']} Training: {how}."


def softmax_certificate_table(repo: Path = ROOT) -> str:
    """docs/softmax.md: per model (d, K, alpha), the test reviews on which softmax is certified to agree with hardmax."""
    data = json.loads((repo / "runs" / "sentiment" / "softmax-certificate.json").read_text(encoding="utf-8"))
    lines = ["| d | K | alpha | runs | test reviews certified | measured agreement (float softmax) "
             "| stopped: delta <= 2 eta | stopped: no proven margin | decoder margin too small |",
             "|---|---|---|---|---|---|---|---|---|"]
    for g in data["by_d"]:
        reasons = g["not_certified"]
        measured = g["measured_agreement"]
        lines.append(f"| {g['d']} | {g['K']} | {sentiment_section.alpha_cell(g)} | {g['runs']} | {g['certified']:,} of {g['reviews']:,} "
                     f"({100 * g['certified'] / g['reviews']:.2f}%) | "
                     + (f"{100 * measured:.2f}%" if measured is not None else "-")
                     + f" | {reasons.get('margin', 0):,} | {reasons.get('undecided', 0) + reasons.get('tie', 0):,} "
                     f"| {reasons.get('decoder', 0):,} |")
    return "\n" + "\n".join(lines) + "\n"


def conjecture_budget_sentence() -> str:
    """docs/conjectures.md: the default search budgets (verify.app.commands.conjecture, verify.experiments.conjectures.search)."""
    return (f"{DEFAULT_SECONDS:g} s; `conjecture run all` and a file of several conjectures share about "
            f"{SHARED_SECONDS:g} s, at least {SHARED_MIN_SECONDS:g} s each")


def conjecture_shrink_sentence() -> str:
    """docs/conjectures.md: where shrinking a counterexample stops (verify.experiments.conjectures.base)."""
    return (f"at most {SHRINK_CALLS} calls of the predicate and, under a budget in seconds, at most "
            f"{SHRINK_SHARE:.0%} of it (at least {SHRINK_MIN_SECONDS:g} s)")


def conjecture_power_table() -> str:
    """docs/conjectures.md's power table, from the committed runs/conjectures/power/power.json (bench/conjecture_power.py)."""
    path = ROOT / "runs" / "conjectures" / POWER_FILE
    power = read_power(json.loads(path.read_text(encoding="utf-8")), path.name)
    headers, rows = power_rows(power)
    load = " ".join(str(x) for x in power["load_average_before"])
    lines = [f"From `{power['command']}` on {power['date']} ({power['cores']} cores, load average {load} before the "
             f"run; each statement searched as `conjecture run NAME` searches by default, {power['budget_seconds']:g} s, "
             f"seeds 0-{power['seeds'] - 1}; the file is `runs/conjectures/{POWER_FILE}`).{power_updates_text(power)}", "",
             "| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
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
    """What ``hardmax-verify report`` (default campaign, seed 0) opens with, on the saved results of runs/."""


Source = Derived | CommandOutput | Glance

SOURCES: dict[str, Source] = {
    "api_reference": Derived(api_reference),
    "bibtex": Derived(bibtex_block),
    "softmax_second_example": Derived(softmax_second_example),
    "command_costs": Derived(command_costs),
    "campaign": Derived(campaign_sentence),
    "limits": Derived(limits_table),
    "certcheck_limits": Derived(certcheck_limits_table),
    "certcheck_unchecked": Derived(certcheck_unchecked_table),
    "certcheck_trusted_base": Derived(certcheck_trusted_base),
    "selftest_variants": Derived(selftest_sentence),
    "conjecture_count": Derived(conjecture_count_line),
    "fast_lane_examples": Derived(fast_lane_sentence),
    "default_examples": Derived(default_examples),
    "number_rule": Derived(number_rule_sentence),
    "simulate_example": Derived(simulate_example_output),
    "sentiment_table": Derived(sentiment_table),
    "sentiment_chosen": Derived(sentiment_chosen_sentence),
    "sentiment_tuned_table": Derived(sentiment_tuned_table),
    "sentiment_headline_table": Derived(sentiment_headline_table),
    "authors_figures": Derived(authors_figures_list),
    "sentiment_analyses_table": Derived(sentiment_analyses_table),
    "sentiment_ablation_table": Derived(sentiment_ablation_table),
    "sentiment_ablation_sentence": Derived(sentiment_ablation_sentence),
    "sentiment_leader_words": Derived(sentiment_leader_words),
    "sentiment_converged_table": Derived(sentiment_converged_table),
    "sentiment_exact_authors": Derived(sentiment_exact_authors_sentence),
    "sentiment_hypotheses": Derived(sentiment_hypotheses_sentence),
    "sentiment_authors_float": Derived(sentiment_authors_float_sentence),
    "sentiment_hardmax_softmax": Derived(sentiment_hardmax_softmax_sentence),
    "softmax_certificate_table": Derived(softmax_certificate_table),
    "published_checkpoints": Derived(published_checkpoints_sentence),
    "longer_training_summary": Derived(longer_training_summary),
    "conjecture_power": Derived(conjecture_power_table),
    "conjecture_budget": Derived(conjecture_budget_sentence),
    "conjecture_shrink": Derived(conjecture_shrink_sentence),
    "conjecture_progress": Derived(lambda: f"{PLAIN_PROGRESS_EVERY:g} s"),
    "optimiser_probes": Derived(lambda: f"{OPTIMISE_PROBES}"),
    "glance": Glance(),
    "bench_dynamics": CommandOutput("python bench/dynamics.py", (
        r"^workload: B=\d+, n=\d+", r"^\(a\) per-token loop \(baseline\) +[\d.]+ ms/config",
        r"^\(b\) simulate_batch +[\d.]+ ms/config +speed-up vs \(a\): +[\d.]+x",
        r"^\(d\) exact, plain Fraction +[\d.]+ ms/config +\(c\) vs \(d\): +[\d.]+x")),
    "bench_float_kernel": CommandOutput("python bench/float_kernel.py", (
        r"^one layer, one configuration, N\(0,1\) tokens, dense A; threads: \d+", r"^ *2048 +64 \| .* \| same  agrees",
        r"^n=2048 d=64 new within 4x of the DGEMM floor: ", r"^load average after:")),
    "bench_exact_prefilter": CommandOutput("python bench/exact_prefilter.py", (
        r"^cores: \d+; load average before: .*d=2", r"^128 +8 +[\d.]+s +[\d.]+s +[\d.]+s +[\d.]+x .* yes$",
        r"^128 +60 +\(not run\) .* yes$", r"^target: \(c\) >= 100x \(a\) at n = 128, 8 layers: ", r"^load average after:")),
    "bench_certcheck": CommandOutput("python bench/certcheck_limits.py", (
        r"^certcheck at the corners of its default limits", r"^leaders d=64 n=\d+ .* exit 0 ",
        r"^chain power 10\^18 .* exit 1 ", r"^load average after:")),
    "bench_claim_checks": CommandOutput("python bench/claim_checks.py", (
        r"^cores: \d+; load average before: .*workload: n=512, d=16",
        r"^baseline: Fraction claim checks +[\d.]+ CPU s",
        r"^check: integer scores +[\d.]+ CPU s +[\d.]+x the baseline +\((within|ABOVE) the target of 6 s\)",
        r"^reports byte for byte equal: yes", r"^load average after:")),
    "bench_check_large": CommandOutput("python bench/check_large.py", (
        r"^cores: \d+; load average before: .*workload: d=2", r"^baseline: D9 conditions one by one +[\d.]+ s wall",
        r"^check: D9 conditions in bulk +[\d.]+ s wall .*x the baseline's time", r"^reports byte for byte equal: yes",
        r"^certcheck \(default limits\) +[\d.]+ s wall +exit \d", r"^goal: decided, every certificate verified: ",
        r"^goal: under 30 s wall: ", r"^goal: under 1,024 MiB peak memory: ", r"^load average after:")),
    "bench_control": CommandOutput("python bench/control.py", (
        r"^cores: \d+, load average", r"^one control call \(CPU seconds",
        r"^50 +8 +[\d.]+ \[[\d.]+\]", r"^largest: [\d.]+ s \((within|ABOVE) the target\)",
        r"^--all-leader-sets, n = 12, d = 3")),
    "bench_control_rates": CommandOutput("python bench/control_rates.py", (
        r"^cores: \d+, load average", r"^[\d,]+ cases, seed 0 \(",
        r"^solver found a design: [\d,]+; exact A: ", r"^decided exactly either way: ")),
    "bench_campaign": CommandOutput("python bench/campaign.py", (
        r"^campaign: \d+ tasks \(seed 0\); cores: \d+; load average before:", r"^in-process ",
        r"^process pool .*cold", r"^process pool .*warm", r"^load average after:")),
    "bench_kernel": CommandOutput("python bench/kernel.py", (
        r"^Coq [\d.]+, vm_compute; cores \d+", r"^coqc start-up", r"^128 +3 +\d+ ",
        r"^default campaign \(seed 0\): \d+ configurations of \d+ with certificates", r"^load average after:")),
    "bench_cli_startup": CommandOutput("python bench/cli_startup.py", (
        r"^cores: \d+; load average before:", r"^baseline: python -c pass +[\d.]+ s",
        r"^hardmax-verify --help +[\d.]+ s +[\d.]+x the baseline +\((within|ABOVE) the target of 0.3 s\)",
        r"^load average after:")),
    "bench_report": CommandOutput("python bench/report.py", (
        r"^cores: \d+; load average before:", r"^runs: \d+, wall [\d., ]+ s; the fastest",
        r"^start-up +[\d.]+ s", r"^figures +[\d.]+ s",
        r"^wall [\d.]+ s; claim checks", r"^goal: wall <= 10 s on 2 cores: ", r"^load average after:")),
    "bench_test_suite": CommandOutput("python bench/test_suite.py", (
        r"^test suite: pytest -n \d+; cores: \d+", r"^fast lane .* wall +[\d.]+ s +CPU +[\d.]+ s",
        r"^full suite +wall +[\d.]+ s +CPU +[\d.]+ s", r"^load average before: [\d.]+ ")),
}

OUTPUT_HEADER = re.compile(r"^Printed by `(?P<command>[^`]+)` on (?P<date>\d{4}-\d{2}-\d{2}) \((?P<cores>\d+) cores, "
                           r"load average (?P<load>[\d.]+ [\d.]+ [\d.]+) before the run"
                           r"(?:, (?P<after>[\d.]+ [\d.]+ [\d.]+) after it)?\):$")
GLANCE_HEADER = re.compile(r"^From `hardmax-verify report` \(default campaign, seed (?P<seed>\d+)\), "
                           r"with the saved results of `runs/`:$")
GLANCE_SEED = 0
CAMPAIGN_ITEM = "- Verification campaign: "


def run_command(source: CommandOutput, repo: Path = ROOT) -> str:
    """Run ``source.command`` in the repository and return the block quoting its output."""
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    env = {**os.environ, "PYTHONPATH": str(repo)}
    words = shlex.split(source.command)
    words = [sys.executable if w == "python" else w for w in words]
    completed = subprocess.run(words, cwd=repo, env=env, capture_output=True, text=True)
    if completed.returncode != 0:
        raise RuntimeError(f"{source.command} exited {completed.returncode}: {completed.stderr.strip()[-500:]}")
    after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    output = "\n".join(line.rstrip() for line in completed.stdout.strip("\n").splitlines())
    return (f"\nPrinted by `{source.command}` on {datetime.date.today().isoformat()} ({os.cpu_count()} cores, "
            f"load average {load} before the run, {after} after it):\n\n```text\n{output}\n```\n")


def glance_block(results: Mapping) -> str:
    """The README's at-a-glance block for a report's results.json."""
    summaries = {key: section.summary for key, section in
                 provider_sections(results.get("optional_sections") or {}).items()}
    return (f"\nFrom `hardmax-verify report` (default campaign, seed {results['campaign']['seed']}), "
            "with the saved results of `runs/`:\n\n" + glance_markdown(at_a_glance(results, summaries)) + "\n")


def saved_results_lines(repo: Path | None = None) -> list[str]:
    """The at-a-glance lines of the saved results under runs/, computed as the report computes them."""
    optional, _ = collect_optional_sections((ROOT if repo is None else repo) / "runs", "runs")
    summaries = {key: section.summary for key, section in provider_sections(optional).items()}
    saved = saved_results_markdown(experiment_sentences(optional, summaries))
    return ["", *saved.splitlines()] if saved else []


_report_cache: dict[Path, Mapping] = {}


def report_results(repo: Path | None = None) -> Mapping:
    """results.json of ``hardmax-verify report`` on the default campaign (seed 0), run once per process."""
    repo = ROOT if repo is None else repo
    if repo not in _report_cache:
        print("running hardmax-verify report (default campaign, seed 0) ...", file=sys.stderr)
        env = {**os.environ, "PYTHONPATH": str(repo)}
        with tempfile.TemporaryDirectory(prefix="readme-numbers-") as folder:
            out = Path(folder) / "report"
            completed = subprocess.run([sys.executable, "-m", "verify", "report", "--out", str(out), "--seed",
                                        str(GLANCE_SEED)], cwd=repo, env=env, capture_output=True, text=True)
            if completed.returncode not in (0, 1, 3):  # the report is written whatever its verdict
                raise RuntimeError(f"hardmax-verify report exited {completed.returncode}: "
                                   f"{completed.stderr.strip()[-500:]}")
            _report_cache[repo] = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return _report_cache[repo]


def with_saved_results_lines(body: str, lines: Sequence[str]) -> str | None:
    """A glance block's text with the lines after its campaign line replaced (None: it has no campaign line)."""
    kept = body.strip("\n").splitlines()
    campaign = next((i for i, line in enumerate(kept) if line.startswith(CAMPAIGN_ITEM)), None)
    if campaign is None:
        return None
    return "\n" + "\n".join(kept[:campaign + 1] + list(lines)) + "\n"


def first_difference(found: str, expected: str) -> str:
    """Where a block's text departs from its sources' text, for the message."""
    for have, want in zip(found.splitlines(), expected.splitlines()):
        if have != want:
            at = next((i for i, (a, b) in enumerate(zip(have, want)) if a != b), min(len(have), len(want)))
            start = max(at - 40, 0)
            return f"it says '…{have[start:at + 40]}…', its sources say '…{want[start:at + 40]}…'"
    return (f"it has {len(found.splitlines())} lines, its sources give {len(expected.splitlines())}"
            if found.splitlines() != expected.splitlines() else "it differs in blank space")


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
        return ["its first line is not 'Printed by `COMMAND` on DATE (N cores, load average A B C before the run"
                "[, D E F after it]):'"]
    if header.group("command") != source.command:
        return [f"it quotes `{header.group('command')}`, the source is `{source.command}`"]
    fence = re.search(r"```text\n(.*?)\n```", block.body, re.S)
    if fence is None or not fence.group(1).strip():
        return ["no ```text block with the command's output"]
    output = fence.group(1).splitlines()
    return [f"no quoted line matches {pattern!r} (the command prints it)" for pattern in source.expect
            if not any(re.search(pattern, line.strip()) for line in output)]


def check_glance_block(block: Block, *, results: Mapping | None = None,
                       saved_results: Sequence[str] | None = None) -> list[str]:
    """Problems of the at-a-glance block.

    With ``results`` (a report run now): the block must be exactly :func:`glance_block` of them.
    Without: its lines of saved results must be ``saved_results`` (default: recomputed from
    runs/), and its campaign lines must have the form of the report's, name the registry's
    claims and count the default campaign's configurations.
    """
    if results is not None:
        expected = glance_block(results)
        return [] if block.body == expected else [f"stale: {first_difference(block.body, expected)} "
                                                  "(python scripts/readme_numbers.py rewrites it)"]
    lines = block.body.strip("\n").splitlines()
    header = GLANCE_HEADER.match(lines[0]) if lines else None
    if header is None:
        return ["its first line is not 'From `hardmax-verify report` (default campaign, seed N), with the saved "
                "results of `runs/`:'"]
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
    expected = with_saved_results_lines(block.body, saved_results_lines() if saved_results is None else saved_results)
    if expected is None:
        problems.append(f"no '{CAMPAIGN_ITEM.strip()}' line")
    elif block.body != expected:
        problems.append(f"its lines of saved results are stale: {first_difference(block.body, expected)} "
                        "(python scripts/readme_numbers.py --quick rewrites them)")
    return problems


FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def stale_numbers(text: str, where: str) -> list[str]:
    """Typed numbers of the kinds that go stale outside the generated blocks.

    Fenced code is left to tests/docs/test_docs_commands.py, which runs the commands as written
    and requires a quoted error to be the one printed; a command's quoted output is a block.
    """
    found, _ = blocks(text, where)
    outside = list(text)
    for start, end in [(b.start, b.end) for b in found] + [(m.start(), m.end()) for m in FENCE.finditer(text)]:
        outside[start:end] = [c if c == "\n" else " " for c in outside[start:end]]
    plain = "".join(outside)
    problems = []
    for match in STALE_NUMBER.finditer(plain):
        line = plain.count("\n", 0, match.start()) + 1
        problems.append(f"{where}:{line}: the typed number {match.group(0)!r} goes stale; generate it or remove it")
    return problems


def check(repo: Path | None = None, *, quick: bool = False) -> list[str]:
    """Every problem of every page's blocks (an empty list: all consistent).

    ``quick``: do not run the report for the at-a-glance block (see :func:`check_glance_block`).
    """
    repo = REPO if repo is None else repo
    problems: list[str] = []
    seen: set[str] = set()
    derived_cache: dict[str, str] = {}
    for page in pages(repo):
        where = page.relative_to(repo).as_posix()
        text = page.read_text(encoding="utf-8")
        found, marker_problems = blocks(text, where)
        problems += marker_problems
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
                    problems.append(f"{where}:{line}: the block {block.name!r} is stale: "
                                    f"{first_difference(block.body, derived_cache[block.name])} "
                                    "(python scripts/readme_numbers.py rewrites it)")
            elif isinstance(source, CommandOutput):
                problems += [f"{where}:{line}: {block.name}: {p}" for p in check_output_block(block, source)]
            else:
                results = None if quick else report_results()
                problems += [f"{where}:{line}: {block.name}: {p}" for p in check_glance_block(block, results=results)]
    problems += [f"no page holds the block {name!r}" for name in SOURCES if name not in seen]
    return problems


def refresh(*, repo: Path | None = None, results: Mapping | None = None, run: Sequence[str] = (),
            quick: bool = False) -> list[str]:
    """Rewrite the blocks; returns the pages changed.

    The at-a-glance block comes from ``results``, else from a report run now, else (``quick``)
    only its lines of saved results are rewritten.
    """
    repo = REPO if repo is None else repo
    bodies: dict[str, str] = {}
    for name, source in SOURCES.items():
        if isinstance(source, Derived):
            bodies[name] = source.render()
        elif isinstance(source, CommandOutput) and name in run:
            print(f"running {source.command} ...", file=sys.stderr)
            bodies[name] = run_command(source, ROOT)
    changed = []
    for page in pages(repo):
        text = page.read_text(encoding="utf-8")
        found, problems = blocks(text, page.name)
        if problems:
            raise ValueError("; ".join(problems))
        new = text
        for block in reversed(found):
            body = bodies.get(block.name)
            if isinstance(SOURCES.get(block.name), Glance):
                if results is None and not quick:
                    results = report_results()
                body = (glance_block(results) if results is not None
                        else with_saved_results_lines(block.body, saved_results_lines()))
            if body is not None:
                new = new[:block.start] + body + new[block.end:]
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed.append(page.relative_to(repo).as_posix())
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if a block differs from its sources or is malformed")
    parser.add_argument("--quick", action="store_true",
                        help="do not run the report: the at-a-glance block's campaign lines are kept (checked for "
                             "their form only), its lines of saved results recomputed")
    parser.add_argument("--results", type=Path, default=None,
                        help="a report's results.json (default campaign, seed 0) for the at-a-glance block, instead "
                             "of running the report")
    parser.add_argument("--run", action="append", default=[], choices=[n for n, s in SOURCES.items()
                                                                         if isinstance(s, CommandOutput)],
                        help="also run this block's command and quote its output (repeatable; takes minutes)")
    args = parser.parse_args(argv)
    if args.check:
        problems = check(quick=args.quick)
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
    for page in refresh(results=results, run=args.run, quick=args.quick):
        print(f"rewrote {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
