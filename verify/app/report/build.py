"""Build a verification report: run the campaign, then write the report folder atomically.

:func:`build_report` is what ``hardmax-verify report`` calls. The folder holds ``report.md``,
``report.html`` (self-contained), ``results.json`` (schema in :mod:`verify.app.report.schema`),
``figures/`` and ``counterexamples/`` (one CONFIG.json per shrunk counterexample). It is
assembled in a temporary folder beside the target and renamed into place only when complete
(:func:`verify.core.io.atomic_directory`), so an exception or Ctrl-C at any point leaves the
previous report untouched and no partial folder behind; the folder's lock is held from the
start, so a second run into the same folder is refused instead of racing this one.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from verify.core import exitcodes
from verify.core.io import atomic_directory, directory_lock, json_text, read_json, safe_name
from verify.core.numbers import InputError
from verify.experiments.registry import SECTION_PROVIDERS
from verify.experiments.sections import SectionProvider
from ..campaign import CampaignSpec, Checker, Task, claim_counts, closed_form_summary, overall_statuses, plan_tasks, run_tasks
from ..campaign.executors import error_record
from ..campaign.merge import merge_records
from ..campaign.plan import campaign_block, campaign_plan
from ..locations import project_folder
from .citation import SPECIFICATION_ROLE, citation
from .figures import write_figures
from .glance import WRITTEN_BY, section_glance
from .kernel import KERNEL_KEY, kernel_block
from .provenance import environment_block, sha256_file, sha256_text, utc_now
from .render import build_document, to_html, to_markdown
from .schema import SCHEMA_NAME, SCHEMA_VERSION, dumps_results, validate_results

__all__ = ["ReportOutcome", "build_report", "OPTIONAL_SECTIONS", "collect_optional_sections", "provider_sections"]

# Saved results shown when present (never recomputed), each read and rendered by its provider
# (verify.experiments.registry lists them): section key -> its folder under RUNS and file patterns.
OPTIONAL_SECTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    key: (provider.folder, provider.patterns) for key, provider in SECTION_PROVIDERS.items()}
MAX_SUMMARY_FIELDS = 16
MAX_SUMMARY_LINES = 200   # the rest is counted in lines_omitted and named in the report


@dataclass
class ReportOutcome:
    exit_status: int
    out: Path
    results: dict[str, Any]


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (int, float, bool)) or (isinstance(value, str) and len(value) <= 200)


def _scalar_summary(data: Any) -> dict[str, Any]:
    """Top-level scalar fields of a saved result, and one level of small objects ("best.val_acc"), in file order.

    A ``lines`` list of strings (the analysis's own summary) is kept as ``lines``.
    """
    if not isinstance(data, Mapping):
        return {}
    summary: dict[str, Any] = {}
    for key, value in data.items():
        if len(summary) >= MAX_SUMMARY_FIELDS:
            break
        if _is_scalar(value):
            summary[str(key)] = value
        elif isinstance(value, Mapping) and value and len(value) <= 6 and all(_is_scalar(v) for v in value.values()):
            for inner, v in value.items():
                summary[f"{key}.{inner}"] = v
    lines = data.get("lines")
    if isinstance(lines, list) and lines and all(isinstance(x, str) for x in lines):
        summary["lines"] = lines[:MAX_SUMMARY_LINES]
        if len(lines) > MAX_SUMMARY_LINES:
            summary["lines_omitted"] = len(lines) - MAX_SUMMARY_LINES
    return summary


NO_RUNS_FOLDER = ("no saved results to read: the package does not run from a clone of the repository "
                  "and no --runs FOLDER was given")


def _skip_reason(runs_dir: Path, label: str, provider: SectionProvider) -> str:
    folder = provider.folder
    if not runs_dir.is_dir():
        reason = f"the folder {label} does not exist"
    elif not (runs_dir / folder).is_dir():
        reason = f"the folder {label}/{folder} does not exist"
    else:
        reason = f"{label}/{folder} holds no saved results ({', '.join(provider.patterns)})"
    return f"{reason}{WRITTEN_BY}{provider.produced_by.replace('RUNS', label)}"


def provider_sections(optional: Mapping[str, Any]) -> dict[str, Any]:
    """Each provider's :class:`~verify.experiments.sections.Section` for the blocks of results.json's optional_sections that hold files."""
    return {key: SECTION_PROVIDERS[key].section(block) for key, block in optional.items()
            if key in SECTION_PROVIDERS and block.get("files")}


def collect_optional_sections(runs_dir: Path | None, label: str | None = None) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """Read the saved results of :data:`OPTIONAL_SECTIONS` under ``runs_dir`` if they exist.

    Returns the ``optional_sections`` block and the input-file entries (with sha256) for provenance.
    Paths are shown under ``label`` (default: ``runs_dir`` as given), so that a report does not
    depend on where the folder lies. A section with no file carries a ``skipped`` reason. A file
    that is not valid JSON is listed with its hash and an ``unreadable`` note, not skipped.
    """
    sections: dict[str, Any] = {}
    inputs: list[dict[str, str]] = []
    if runs_dir is None:
        for section in OPTIONAL_SECTIONS:
            sections[section] = {"directory": None, "files": [], "skipped": NO_RUNS_FOLDER}
        return sections, inputs
    runs_dir = Path(runs_dir)
    root = label if label is not None else runs_dir.as_posix()
    for section, provider in SECTION_PROVIDERS.items():
        folder, patterns = provider.folder, provider.patterns
        directory = runs_dir / folder
        files = sorted({p for pattern in patterns for p in directory.glob(pattern) if p.is_file()}) \
            if directory.is_dir() else []
        items = []
        for path in files:
            shown = f"{root}/{path.relative_to(runs_dir).as_posix()}"
            digest = sha256_file(path)
            item: dict[str, Any] = {"path": shown, "sha256": digest}
            try:
                # Strict, as certcheck reads it: a repeated key or NaN makes the file unreadable here too.
                data = read_json(path, expected="a JSON results file")
                item["summary"] = _scalar_summary(data)
            except InputError as error:  # not JSON, ambiguous, too large, or gone since it was listed
                item["summary"] = {"unreadable": error.message}
            else:
                try:
                    item.update(provider.item_fields(path, data))
                except InputError as error:  # the provider names the field that is not as it should be
                    item["summary"] = {"unreadable": str(error)}
            items.append(item)
            inputs.append({"role": f"{section} results", "path": shown, "sha256": digest})
        sections[section] = {"directory": f"{root}/{folder}", "files": items}
        if not items:
            sections[section]["skipped"] = _skip_reason(runs_dir, root, provider)
        if provider.figures_folder is not None:
            # The provider's figures are copied into the report; their sources are hashed like every other input.
            figures = []
            for png in provider.figure_files(files):
                digest = sha256_file(png)
                shown = f"{root}/{png.relative_to(runs_dir).as_posix()}"
                figures.append({"path": shown, "sha256": digest, "source": png.as_posix(),
                                "file": f"{provider.figures_folder}/{safe_name(png.parent.name)}-{safe_name(png.stem)}.png"})
                inputs.append({"role": f"{section} figure", "path": shown, "sha256": digest})
            sections[section]["figures"] = figures
        if items:
            # The numbers the section's line on the first screen prints; the independent checker
            # recomputes them from the files (verify.certcheck, given the runs folder).
            numbers = section_glance(section, sections[section])
            if numbers is not None:
                sections[section]["glance"] = numbers
    return sections, inputs


def _specification() -> dict[str, str] | None:
    """docs/theory.md of the clone the package runs from, as an input entry (None for an installed copy)."""
    folder = project_folder()
    path = folder / "docs" / "theory.md" if folder is not None else None
    if path is None or not path.is_file():
        return None
    return {"role": SPECIFICATION_ROLE, "path": "docs/theory.md", "sha256": sha256_file(path)}


def _counterexamples(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for record in records:
        c = record.get("counterexample")
        if not c:
            continue
        name = record["task"]["name"]
        found.append({"example": name, "claim": c["claim"], "claims": c["claims"],
                      "original_n": c["original_n"], "shrunk_n": c["shrunk_n"], "checks": c["checks"],
                      "file": f"counterexamples/{safe_name(name)}-{safe_name(c['claim'])}.json",
                      "config": c["config"]})
    return found


def _one_record_per_task(tasks: Sequence[Task], records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records in canonical order, one per planned task: a task whose record did not come back is
    recorded as an error (so the report says it is incomplete); a record no task planned is a bug."""
    by_name: dict[str, dict[str, Any]] = {}
    for record in records:
        name = record["task"]["name"]
        if name in by_name:
            raise RuntimeError(f"two records came back for task {name!r}")
        by_name[name] = record
    unplanned = sorted(set(by_name) - {task.name for task in tasks})
    if unplanned:
        raise RuntimeError(f"records came back for tasks that were not planned: {unplanned[:5]}")
    missing = [error_record(task, "no record came back for this planned task", attempts=0)
               for task in tasks if task.name not in by_name]
    return merge_records([*by_name.values(), *missing])


def build_report(*, out: Path, seed: int, spec: CampaignSpec, jobs: int = 1, runs_dir: Path | None = None,
                 runs_label: str | None = None, campaign_file: Path | None = None, argv: Sequence[str] = (), command_line: str = "",
                 checker: Checker | None = None,
                 progress: Callable[[Task, dict[str, Any]], None] | None = None,
                 on_tasks: Callable[[list[Task]], None] | None = None,
                 on_stage: Callable[[str], None] | None = None, executor: Any = None,
                 kernel: bool = False) -> ReportOutcome:
    """Run the campaign and write the report folder ``out`` atomically; the report is written in every case.

    Parameters
    ----------
    out
        The report folder (replaced whole on success, untouched on failure).
    seed
        Campaign seed; the same seed, campaign and versions give the same ``results.json``
        apart from its ``environment`` block.
    spec
        The campaign (:func:`verify.app.campaign.default_spec` or a CAMPAIGN.toml).
    jobs
        Worker processes (1 runs in this process).
    runs_dir, runs_label
        Where saved sentiment / conjecture results are looked for (None: skip, saying so), and
        the name their paths are shown under in the report (default: ``runs_dir`` as given).
    campaign_file
        The CAMPAIGN.toml read, if any (its sha256 is recorded).
    argv, command_line
        The command line as typed and an equivalent canonical one, for provenance.
    checker
        Replaces :func:`verify.claims.check_configuration` (tests).
    progress, on_tasks, on_stage
        Called per finished task, once with the planned task list, and with the name of
        each later stage ("figures", "writing").
    executor
        A :class:`verify.app.campaign.executors.Executor` (in-process, process pool, Dask) to run the
        tasks on instead of ``jobs``; started before planning so workers come up meanwhile.
        The caller closes it.
    kernel
        Run the kernel pass (Coq's kernel on every D7 or D9 certificate, docs/formal.md); False writes
        no kernel block.
    """
    if seed < 0:
        raise InputError("--seed", f"expected a non-negative integer, got {seed}")
    # The folder's lock for the whole run (the command takes it earlier still; it is reentrant):
    # a second run into the same folder is refused now, not after its campaign.
    with directory_lock(Path(out)):
        return _build_report(out=Path(out), seed=seed, spec=spec, jobs=jobs, runs_dir=runs_dir,
                             runs_label=runs_label, campaign_file=campaign_file, argv=argv, command_line=command_line, checker=checker,
                             progress=progress, on_tasks=on_tasks, on_stage=on_stage, executor=executor,
                             kernel=kernel)


def _build_report(*, out: Path, seed: int, spec: CampaignSpec, jobs: int, runs_dir: Path | None,
                  runs_label: str | None, campaign_file: Path | None, argv: Sequence[str], command_line: str, checker: Checker | None,
                  progress: Callable[[Task, dict[str, Any]], None] | None,
                  on_tasks: Callable[[list[Task]], None] | None, on_stage: Callable[[str], None] | None,
                  executor: Any, kernel: bool = False) -> ReportOutcome:
    started = utc_now()
    clock = time.perf_counter()
    if executor is not None:
        executor.start()
    tasks = plan_tasks(spec, seed=seed)
    # The plan is fixed before any task runs: every planned task must come back with one record,
    # and results.json carries the plan so that the independent checker can tell.
    campaign = campaign_block(spec, seed=seed, tasks=len(tasks))
    plan = campaign_plan(campaign, tasks)
    if on_tasks is not None:
        on_tasks(tasks)
    claim_check_seconds: dict[str, float] = {}
    records = _one_record_per_task(tasks, run_tasks(tasks, jobs=jobs, checker=checker, progress=progress,
                                                    executor=executor, timings=claim_check_seconds))
    campaign_seconds = time.perf_counter() - clock

    optional, inputs = collect_optional_sections(runs_dir, runs_label)
    # Where each sentiment figure is copied from; not part of results.json (it names this machine's folders).
    figure_sources = [figure.pop("source") for block in optional.values() for figure in block.get("figures", [])]
    if campaign_file is not None:
        inputs.insert(0, {"role": "campaign", "path": Path(campaign_file).as_posix(), "sha256": sha256_file(campaign_file)})
    specification = _specification()
    if specification is not None:  # the statements the claims are checked against, and the facts they assume
        inputs.insert(0, specification)
    counterexamples = _counterexamples(records)
    statuses = overall_statuses(records)
    # A campaign of no configuration certifies nothing: inconclusive, never "certified".
    exit_status = exitcodes.combine(statuses) if records else exitcodes.INCONCLUSIVE
    overall = {exitcodes.SUCCESS: "certified", exitcodes.FALSE: "failed"}.get(exit_status, "inconclusive")
    results: dict[str, Any] = {
        "schema": SCHEMA_NAME,
        "schema_version": SCHEMA_VERSION,
        "campaign": campaign,
        "plan": plan,
        "inputs": inputs,
        "summary": {"overall": overall, "exit_status": exit_status, "examples": len(records),
                    "errors": sum(r.get("status") == "error" for r in records),
                    "claims": claim_counts(records),
                    "closed_form": closed_form_summary(records, spec.layer_budget)},
        "examples": records,
        "counterexamples": counterexamples,
        "optional_sections": optional,
    }
    kernel_seconds = None
    if kernel:
        if on_stage is not None:
            on_stage("kernel")
        results[KERNEL_KEY], kernel_seconds = kernel_block(records, jobs=jobs)
        if results[KERNEL_KEY]["status"] == "rejected":
            exit_status = exitcodes.FALSE  # a certificate the suite issued is false: the suite failed
            results["summary"].update(overall="failed", exit_status=exit_status)

    with atomic_directory(out) as staging:
        if on_stage is not None:
            on_stage("figures")
        clock = time.perf_counter()
        figures = write_figures(records, staging, jobs=jobs)
        figure_seconds = time.perf_counter() - clock
        figure_targets = [figure for block in optional.values() for figure in block.get("figures", [])]
        for figure, source in zip(figure_targets, figure_sources):
            target = staging / figure["file"]
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        for c in counterexamples:
            path = staging / c["file"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json_text(c["config"], where=c["file"], indent=2), encoding="utf-8")
        results["environment"] = environment_block(
            started=started, finished=utc_now(),
            timings={"campaign": campaign_seconds, "figures": figure_seconds,
                     "per_task_mean": campaign_seconds / max(len(tasks), 1),
                     **({} if kernel_seconds is None else {"kernel": kernel_seconds})},
            argv=list(argv), equivalent_command=command_line, claim_check_seconds=claim_check_seconds)
        if on_stage is not None:
            on_stage("writing")
        errors = validate_results(results)
        if errors:  # a bug in the suite, not bad input: raise and write nothing
            raise RuntimeError("results.json would violate its schema: " + "; ".join(errors[:5]))
        text = dumps_results(results)
        (staging / "results.json").write_text(text, encoding="utf-8")
        sections = provider_sections(optional)
        blocks = build_document(results, figures, sections, cite=citation(results, results_sha256=sha256_text(text)))
        (staging / "report.md").write_text(to_markdown(blocks), encoding="utf-8")
        (staging / "report.html").write_text(to_html(blocks, report_dir=staging), encoding="utf-8")
    return ReportOutcome(exit_status, out, results)
