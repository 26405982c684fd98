"""A report's optional sections: the saved results the first screen quotes, against the saved files themselves.

A report's optional sections (the sentiment experiment, its reproduction, the conjecture lab,
the atlas of measured open questions, exact classification, leader control) are built from saved result files under a runs folder.
Each block of ``optional_sections`` lists its files with their sha256 and the fields it copied
from them, and ``glance``: the numbers the section's line on the report's first screen prints.
Given the folder, this checks, with its own code: every listed file and figure has the stated
sha256; the block lists exactly the files of its folder that match its patterns (and the
report's ``inputs`` list says the same); every copied field is the file's (:mod:`.reproduction`
recomputes the reproduction's tables); and the glance numbers are what :mod:`.glance` computes
from the files. Without the folder nothing is read, and the section is reported *not checked*,
never verified.
"""

# ruff: noqa: B023 - a message passed to require as a lambda is formatted inside require, before the
# loop it is written in moves on: the loop variables it reads are the current ones.

from __future__ import annotations

import glob
import hashlib
import itertools
import os
import pathlib
from typing import Any

from .. import control
from ..jsontext import TOO_LARGE, UnreadableJSON, decode_json, open_bounded
from ..kernel import (MAX_SECTION_BYTES, MAX_SECTION_FILES, NOT_CHECKED, SECTION_READ_BYTES, UNREADABLE, BadInput,
                      DecimalText, Outcome, Rejected, brief_json, counted, get_in, is_projection, json_count, json_number,
                      record_read, require, same_json)
from .campaign import WORKED_TOKENS
from .glance import GlanceParts, NoNumbers, is_power_file, scalar_summary
from .reproduction import SectionLimit, reproduction_item, reproduction_problem


SECTIONS = "(sections)"  # outcomes about a results.json's optional sections


# Which saved results each section is built from: (folder under the runs folder, file patterns),
# as verify/app/report/build.py's OPTIONAL_SECTIONS reads them (a test compares the two).
SECTION_FILES: dict[str, tuple[str, tuple[str, ...]]] = {
    "sentiment": ("sentiment", ("*.json", "*/checkpoint.json", "*/analysis.json")),
    "reproduction": ("sentiment/summary", ("summary.json",)),
    "conjectures": ("conjectures", ("*.json", "power/power.json")),
    "atlas": ("atlas", ("*/sweep.json", "general_a/census.json", "leader_control/realisable.json")),
    "classify": ("classify", ("imdb.json", "scaling.json")),
    "control": ("control", ("study.json",)),
}
DEFAULT_RUNS = "runs"  # the folder name a report gives the project's saved results


SENTIMENT_EVALUATION_FIELDS = ("checkpoint", "d", "protocol", "epoch", "reviews", "hardmax_accuracy",
                               "softmax_accuracy", "exact_path", "hardmax_seconds", "validation_accuracy")
SENTIMENT_SOFTMAX_KIND = "sentiment-softmax-certificate"  # runs/sentiment/softmax-certificate.json


# The keys a section's block, a saved file's item and a figure may have (verify/app/report/build.py
# and each provider's item_fields); any other key is refused before checking, so that nothing a
# renderer might show rides along unchecked.
SECTION_BLOCK_KEYS = frozenset({"directory", "files", "skipped", "figures", "glance"})
SECTION_ITEM_KEYS = frozenset({"path", "sha256", "summary"})
SECTION_ITEM_FIELDS: dict[str, frozenset] = {
    "sentiment": frozenset({"analysis_rows", "evaluation", "softmax_certificate"}),
    "reproduction": frozenset({"reproduction_tables", "sentence", "runs", "notes", "protocol"}),
    "conjectures": frozenset({"power"}),
    "atlas": frozenset({"sweep", "census", "leader_control"}),
    "classify": frozenset({"imdb", "scaling"}),
    "control": frozenset({"study"}),
}
SECTION_FIGURE_KEYS = frozenset({"path", "sha256", "file"})
SECTION_PARSE_BYTES = 256 << 20  # bytes of saved files parsed as JSON for one results.json, in all


def _section_keys(sections: Any, source: str) -> None:
    """Refuse (BadInput, exit 2) a key that a section's block, item or figure does not have."""
    if not isinstance(sections, dict):
        return  # rejected with the sections' outcomes
    for key, block in sections.items():
        where = f"{source}.optional_sections.{str(key)[:40]}"
        if not isinstance(block, dict):
            continue
        unknown = sorted(str(k) for k in block if k not in SECTION_BLOCK_KEYS)
        if unknown:
            raise BadInput(f"{where}.{unknown[0][:40]}", "not a key of a section (a block holds "
                                                         f"{', '.join(sorted(SECTION_BLOCK_KEYS))})")
        allowed = SECTION_ITEM_KEYS | SECTION_ITEM_FIELDS.get(key, frozenset())
        for name, listed, keys in (("files", block.get("files"), allowed), ("figures", block.get("figures"),
                                                                            SECTION_FIGURE_KEYS)):
            for index, item in enumerate(listed if isinstance(listed, list) else []):
                if isinstance(item, dict):
                    unknown = sorted(str(k) for k in item if k not in keys)
                    if unknown:
                        raise BadInput(f"{where}.{name}[{index}].{unknown[0][:40]}",
                                       f"not a key of a saved file's entry in this section ({', '.join(sorted(keys))})")


def runs_folder(runs: str | None, root: str) -> str | None:
    """The folder to read a section's saved results from (None: not available).

    ``runs`` (--runs DIR) when given. Otherwise the folder the section's paths start with (``root``, as the
    report wrote it) when it is a plain relative path, from the current folder; for the report's default
    name ``runs``, also the runs folder of the repository this checker runs from. A file never chooses an
    absolute folder, nor one outside the current folder: such a root needs --runs (:func:`_unfollowed`).
    """
    if runs is not None:
        return runs if os.path.isdir(runs) else None
    if _unfollowed(root) is not None:
        return None
    candidates = [os.path.join(os.getcwd(), *root.split("/"))]
    if root == DEFAULT_RUNS:
        # verify/certcheck/results/sections.py: four folders up is the repository.
        repository = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        candidates.append(os.path.join(repository, DEFAULT_RUNS))
    return next((c for c in candidates if os.path.isdir(c)), None)


def _unfollowed(root: str) -> str | None:
    """Why the checker does not look for the folder ``root`` a file names without --runs (None: it does)."""
    parts = root.split("/")
    if os.path.isabs(root) or root.startswith("~") or any(p in ("", ".", "..") for p in parts):
        return (f"the report names the folder {root[:120]!r}, which the checker does not follow on a file's word "
                "(an absolute path, or one leaving the current folder)")
    return None


def _section_outcomes(data: dict, source: str, runs: str | None, models: str | None = None) -> list[Outcome]:
    """One outcome per optional section with files: verified, rejected or not checked (``models``: the
    reproduction's published checkpoints; None: ``models/reproduction`` beside the runs folder)."""
    sections = data.get("optional_sections")
    if not isinstance(sections, dict):
        return [Outcome(f"{source}.optional_sections", SECTIONS, "rejected", "expected an object of sections")]
    outcomes = []
    budget = [MAX_SECTION_BYTES, SECTION_PARSE_BYTES]  # bytes still to hash and to parse, shared by the sections of one file
    # The report reads every section from one runs folder, or (no runs folder) none: a section without a directory
    # beside sections with one was taken out of what the report read.
    read_folder = any(isinstance(b, dict) and isinstance(b.get("directory"), str) for b in sections.values())
    for key, block in sections.items():
        where = f"{source}.optional_sections.{str(key)[:40]}"
        if not isinstance(block, dict) or not isinstance(block.get("files"), list):
            outcomes.append(Outcome(where, SECTIONS, "rejected", "expected an object with a list of files"))
            continue
        if key not in SECTION_FILES:  # with files or without: its block is nothing this checker read
            outcomes.append(Outcome(where, SECTIONS, NOT_CHECKED, f"certcheck has no routine for the section {str(key)[:40]!r}"))
            continue
        if not block["files"]:
            if "glance" in block:
                outcomes.append(Outcome(where, SECTIONS, "rejected", "glance numbers without any saved file"))
            elif read_folder and block.get("directory") is None:
                outcomes.append(Outcome(where, SECTIONS, "rejected", "directory is null, but the other sections name "
                                                                     "the runs folder the report read"))
            else:
                blanked = _blanked(key, block, runs)
                if blanked is not None:
                    outcomes.append(Outcome(where, SECTIONS, "rejected", blanked))
            continue
        folder = SECTION_FILES[key][0]
        directory = block.get("directory")
        if not (isinstance(directory, str) and directory.endswith("/" + folder)):
            outcomes.append(Outcome(where, SECTIONS, "rejected", f"directory is {str(directory)[:80]!r}, expected ROOT/{folder}"))
            continue
        root = directory[:-len(folder) - 1]
        base = runs_folder(runs, root)
        if base is None:
            unfollowed = _unfollowed(root) if runs is None else None
            files = counted(len(block['files']), 'saved file was', 'saved files were')
            outcomes.append(Outcome(where, SECTIONS, NOT_CHECKED, (
                (f"its {files} not read: {unfollowed}" if unfollowed is not None else
                 f"its {files} not found under {root}/ ("
                 + (f"--runs {runs} is not a folder" if runs is not None else f"no folder {root} here") + ")")
                + "; give the folder the report was built from with --runs DIR")))
            continue
        record_read("saved results", f"{os.path.join(base, *folder.split('/'))} ({key} section)")
        try:
            problems = _section_problems(key, block, base, root, data.get("inputs"), budget, models=models)
        except SectionLimit as error:
            outcomes.append(Outcome(where, SECTIONS, NOT_CHECKED, str(error)))
            continue
        if problems:
            outcomes += [Outcome(where, SECTIONS, "rejected", p) for p in problems[:3]]
        else:
            figures = block.get("figures") or []
            outcomes.append(Outcome(where, SECTIONS, "verified",
                                    f"{counted(len(block['files']), 'file')} and {counted(len(figures), 'figure')} of {base} have the stated "
                                    "sha256; the copied fields and the glance numbers are recomputed from the files"))
    return outcomes


def _blanked(key: str, block: dict, runs: str | None) -> str | None:
    """Why a section that lists no saved file is contradicted by the folder given with --runs (None: it is not).

    The report skips a section only when its folder holds no file of its patterns; so when the report read a runs
    folder (its ``directory`` is set) and --runs names that folder, a file of the patterns there means the section
    was emptied after the report listed it. Without --runs, nothing says which folder the report read."""
    if runs is None or not isinstance(block.get("directory"), str) or not os.path.isdir(runs):
        return None
    folder, patterns = SECTION_FILES[key]
    directory = os.path.join(runs, *folder.split("/"))
    # One file is enough to contradict the section: the search stops at the first.
    found = next((path for pattern in patterns for path in glob.iglob(os.path.join(glob.escape(directory), pattern))
                  if os.path.isfile(path)), None)
    if found is None:
        return None
    return (f"lists no saved files, but {directory}, the folder --runs names, holds files of its patterns "
            f"({', '.join(patterns)}): e.g. {os.path.relpath(found, runs)[:80]}")


def _resolve(path: Any, root: str, base: str) -> str:
    """The file a listed path names under ``base`` (the path without its ``root``); Rejected otherwise."""
    require(isinstance(path, str) and path.startswith(root + "/"), lambda: f"{str(path)[:80]!r} is not under {root}/")
    relative = path[len(root) + 1:]
    parts = relative.split("/")
    require(all(p not in ("", ".", "..") for p in parts), lambda: f"{path[:80]!r} is not a plain path under {root}/")
    return os.path.join(base, *parts)


def _hash_file(path: str, budget: list) -> tuple[str, bytes | None]:
    """(sha256, the bytes when at most SECTION_READ_BYTES) of a regular file; Rejected if not one.

    Opened as every file the checker reads (:func:`.jsontext.open_bounded`): a FIFO or a device put
    at ``path`` is never waited on, and no more than the bytes left of ``budget[0]`` are read.
    """
    too_many = f"the saved results are more than {MAX_SECTION_BYTES} bytes in all, beyond what certcheck hashes"
    try:
        opened = open_bounded(path, max(budget[0], 0))
    except UnreadableJSON as error:
        if error.kind == TOO_LARGE:
            raise SectionLimit(too_many) from None
        raise Rejected(f"{path}: {error.reason}") from None
    digest = hashlib.sha256()
    kept: bytearray | None = bytearray()
    with opened as handle:
        while True:
            chunk = handle.read(1 << 20)
            if not chunk:
                break
            budget[0] -= len(chunk)
            if budget[0] < 0:
                raise SectionLimit(too_many)
            digest.update(chunk)
            if kept is not None:
                kept += chunk
                if len(kept) > SECTION_READ_BYTES:
                    kept = None
    return digest.hexdigest(), None if kept is None else bytes(kept)


def _section_listing(base: str, folder: str, patterns: tuple) -> list[str]:
    """The files of ``base``/``folder`` matching ``patterns``, as paths relative to ``base`` (at most MAX_SECTION_FILES)."""

    directory = pathlib.Path(base) / folder
    if not directory.is_dir():
        return []
    found: set = set()
    for pattern in patterns:
        for path in itertools.islice(directory.glob(pattern), MAX_SECTION_FILES + 1):
            if path.is_file():
                found.add(path.relative_to(base).as_posix())
            if len(found) > MAX_SECTION_FILES:
                raise SectionLimit(f"{directory} holds more than {MAX_SECTION_FILES} saved files, beyond what certcheck reads")
    return sorted(found)


def _section_problems(key: str, block: dict, base: str, root: str, inputs: Any, budget: list, *,
                      models: str | None = None) -> list[str]:
    """What does not hold between a section's block and the saved files under ``base``.

    Each file is hashed, parsed (within the bytes left of SECTION_PARSE_BYTES), its item compared
    with it, and what the first screen needs of it kept (:class:`GlanceParts`); its parsed content
    is then dropped, so that memory holds one saved file at a time.
    """
    if len(budget) < 2:
        budget.append(SECTION_PARSE_BYTES)
    folder, patterns = SECTION_FILES[key]
    items, figures = block["files"], block.get("figures") or []
    if len(items) > MAX_SECTION_FILES or not isinstance(figures, list) or len(figures) > MAX_SECTION_FILES:
        raise SectionLimit(f"the section lists more than {MAX_SECTION_FILES} files, beyond what certcheck reads")
    problems: list[str] = []
    listed = [item.get("path") if isinstance(item, dict) else None for item in items]
    present = [f"{root}/{p}" for p in _section_listing(base, folder, patterns)]
    if sorted(map(str, listed)) != present:
        extra = sorted(set(present) - set(map(str, listed)))
        gone = sorted(set(map(str, listed)) - set(present))
        return [f"it lists {counted(len(listed), 'file')}, the folder {base}/{folder} holds {len(present)} matching "
                f"{', '.join(patterns)}" + (f"; not listed: {', '.join(extra[:3])}" if extra else "")
                + (f"; not there: {', '.join(gone[:3])}" if gone else "")]
    parts = GlanceParts(key, len(items), [str(path) for path in listed])
    for index, item in enumerate(items):
        where = f"files[{index}] ({str(item.get('path'))[:80]})"
        try:
            digest, raw = _hash_file(_resolve(item["path"], root, base), budget)
            require(item.get("sha256") == digest, lambda: f"sha256 is {str(item.get('sha256'))[:64]}, the file's is {digest}")
            if raw is not None:
                budget[1] -= len(raw)
                if budget[1] < 0:
                    raise SectionLimit(f"the saved results are more than {SECTION_PARSE_BYTES} bytes to parse in all, "
                                        "beyond what certcheck reads")
            problem, data = _section_file_problem(key, item, raw, base, models=models)
            del raw
        except Rejected as error:
            problems.append(f"{where}: {error}")
            continue
        if problem:
            problems.append(f"{where}: {problem}")
        elif data is not UNREADABLE:
            parts.add(item["path"], data)
        del data
    for index, figure in enumerate(figures):
        try:
            require(isinstance(figure, dict), "expected an object")
            digest, _ = _hash_file(_resolve(figure.get("path"), root, base), budget)
            require(figure.get("sha256") == digest, lambda: f"sha256 is {str(figure.get('sha256'))[:64]}, the file's is {digest}")
        except Rejected as error:
            problems.append(f"figures[{index}]: {error}")
    problems += _inputs_problems(key, items, figures, inputs)
    if problems:
        return problems
    expected = parts.numbers()
    if isinstance(expected, NoNumbers):
        return ["the saved files do not give the numbers the section's first-screen line prints"]
    if expected is not None and not same_json(block.get("glance"), expected):
        problems.append(f"glance is {brief_json(block.get('glance'))}, the files give {brief_json(expected)}")
    return problems


def _section_file_problem(key: str, item: dict, raw: bytes | None, base: str, *,
                          models: str | None = None) -> tuple[str | None, Any]:
    """(why the item's copied fields are not the file's, or None; the file's parsed content, or UNREADABLE)."""
    data: Any = None
    why = f" (more than the {SECTION_READ_BYTES} bytes certcheck parses)" if raw is None else ""
    try:
        # Strict (:mod:`.jsontext`): a repeated key or NaN makes the file not readable here, so that
        # no field is compared with a value another reader of the same file would not see.
        data = None if raw is None else decode_json(raw, str(item.get("path")), parse_float=DecimalText)
    except UnreadableJSON as error:
        why = f" ({error.reason})"
    summary = item.get("summary")
    if isinstance(summary, dict) and set(summary) == {"unreadable"}:
        # The report could not read it: too big, not JSON, or (classification, the search-power file) not the format expected.
        if data is not None and key not in ("classify", "conjectures"):
            return "the item says the file is unreadable, but it reads as JSON", UNREADABLE
        extra = set(item) - {"path", "sha256", "summary"}
        return (f"an unreadable file's item carries {sorted(extra)}" if extra else None), UNREADABLE
    if data is None:
        return f"the file is not readable JSON{why}, but the item holds fields read from it", UNREADABLE
    if not same_json(summary, scalar_summary(data)):
        return "its summary fields are not the file's", data
    return _copied_fields(key, item, data, base, models=models), data


def _copied_fields(key: str, item: dict, data: Any, base: str = "", *, models: str | None = None) -> str | None:
    """Why a field the report copied from the file into the item is not the file's (None: all are)."""
    def get(obj: Any, *keys: str) -> Any:
        for k in keys:
            obj = obj.get(k) if isinstance(obj, dict) else None
        return obj

    if key == "sentiment":
        is_evaluation = json_number(get(data, "hardmax_accuracy")) is not None
        if is_evaluation != ("evaluation" in item):
            return "an evaluation row where the file has no accuracy, or none where it has one"
        if is_evaluation:
            row = {k: data.get(k) for k in SENTIMENT_EVALUATION_FIELDS}
            row["like_for_like_epoch"] = get(data, "softmax_best_test_epoch", "epoch")
            row["like_for_like_accuracy"] = get(data, "softmax_best_test_epoch", "test_acc")
            if not same_json(item["evaluation"], row):
                return "its evaluation row is not the file's"
        rows = item.get("analysis_rows")
        if (rows is not None) != str(item.get("path", "")).endswith("/analysis.json"):
            return "analysis rows on a file that is not an analysis.json, or none on one"
        if rows is not None and not same_json(rows, _analysis_rows(data)):
            return "its analysis rows are not the file's"
        is_certificate = isinstance(data, dict) and data.get("kind") == SENTIMENT_SOFTMAX_KIND
        if is_certificate != ("softmax_certificate" in item):
            return "softmax agreement counts on a file that is not a softmax certificate, or none on one"
        if is_certificate:
            by_d = data.get("by_d") if isinstance(data.get("by_d"), list) else []
            wanted = {"by_d": [g for g in by_d if isinstance(g, dict)], "summary": data.get("summary")}
            if not same_json(item["softmax_certificate"], wanted):
                return "its softmax agreement counts or sentence are not the file's"
    elif key == "reproduction":
        wanted_item = reproduction_item(data)
        shown = {k: item[k] for k in SECTION_ITEM_FIELDS["reproduction"] if k in item}
        if not same_json(shown, wanted_item):
            differing = sorted(k for k in set(shown) | set(wanted_item) if not same_json(shown.get(k), wanted_item.get(k)))
            return f"its {', '.join(differing)} are not the file's"
        if "reproduction_tables" in wanted_item:
            return reproduction_problem(data, base, models=models)
    elif key == "control":
        study = item.get("study")
        if study is not None:
            if not isinstance(study, dict):
                return "its study fields are not an object"
            shown = {k: v for k, v in study.items() if not (k == "two_clusterings" and v is None)}
            if not is_projection(shown, data):
                return "its study fields are not the file's"
        return _study_designs_problem(data)
    elif key == "atlas":
        for field in ("sweep", "census", "leader_control"):
            if field in item and not is_projection(item[field], data):
                return f"its {field} fields are not the file's"
    elif key == "conjectures":
        if is_power_file(data) != ("power" in item):
            return "a search-power table where the file is none, or none where it is one"
        if "power" in item and not is_projection(item["power"], data):
            return "its search-power table is not the file's"
    elif key == "classify":
        if "imdb" in item:
            imdb = item["imdb"]
            if not isinstance(imdb, dict) or not is_projection(
                    {k: v for k, v in imdb.items() if k not in ("seeds", "variants", "test_size", "source")}, data):
                return "its IMDb fields are not the file's"
            source = data.get("source") if isinstance(data.get("source"), dict) else {}
            if not same_json(imdb.get("source"), {k: source[k] for k in ("data", "reference", "sequence_length", "split",
                                                                           "vocabulary") if k in source}):
                return "its IMDb source is not the file's"
            if not (same_json(imdb.get("seeds"), [s for s in get(data, "seeds") or [] if json_count(s, -10**9) is not None])
                    and same_json(imdb.get("variants"), [v for v in get(data, "variants") or [] if isinstance(v, str)])
                    and same_json(imdb.get("test_size"), data.get("test_size") if json_count(data.get("test_size"), -10**9) is not None else None)):
                return "its IMDb seeds, variants or test size are not the file's"
        if "scaling" in item:
            scaling = item["scaling"]
            if not isinstance(scaling, dict) or not is_projection(
                    {k: v for k, v in scaling.items() if k not in ("baseline_sizes", "baseline_lengths", "cpus")}, data):
                return "its scaling fields are not the file's"
            ints = lambda xs: [x for x in xs or [] if json_count(x, -10**9) is not None]  # noqa: E731
            if not (same_json(scaling.get("baseline_sizes"), ints(get(data, "plan", "baseline_sizes")))
                    and same_json(scaling.get("baseline_lengths"), ints(get(data, "plan", "baseline_lengths")))
                    and same_json(scaling.get("cpus"), data.get("cpus") if json_count(data.get("cpus"), -10**9) is not None else None)):
                return "its scaling baseline sizes or cores are not the file's"
    return None


def _study_designs_problem(study: Any) -> str | None:
    """The exact designs a control study shows (its two clusterings of one worked configuration, drawn in the
    report): each A realises its leaders and targets (:func:`.control.realised_problem`), on the worked
    configuration's own tokens (docs/theory.md §4) when it names one."""
    figure = study.get("two_clusterings") if isinstance(study, dict) else None
    if figure is None:
        return None
    if not isinstance(figure, dict) or not isinstance(figure.get("designs"), list):
        return "two_clusterings: expected an object with a list of designs"
    name, tokens = figure.get("configuration"), figure.get("tokens")
    if name in WORKED_TOKENS and tokens != [list(point) for point in WORKED_TOKENS[name]]:
        return f"two_clusterings.tokens: not the worked configuration {name!r} of docs/theory.md §4"
    for k, design in enumerate(figure["designs"]):
        if not isinstance(design, dict):
            return f"two_clusterings.designs[{k}]: expected an object"
        problem = control.realised_problem(tokens, design.get("A"), design.get("leaders"), design.get("targets"),
                                           f"two_clusterings.designs[{k}]")
        if problem is not None:
            return problem
    return None


def _analysis_rows(data: Any) -> list[dict]:
    """The report's rows of an analysis.json (verify/experiments/sentiment/report_section.py's
    analysis_rows), rebuilt here: one per analysed model, then the authors' d = 2 embeddings."""
    rows: list[dict] = []
    entries = get_in(data, "checkpoints") or []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        top = get_in(entry, "leader_words", "top") or []
        rows.append({
            "model": entry.get("path"), "d": entry.get("d"), "epoch": entry.get("epoch"),
            "leaders": get_in(entry, "leader_statistics"),
            "top_words": [w for w in (top if isinstance(top, list) else []) if isinstance(w, list) and len(w) == 2][:5],
            "reviews_selected": get_in(entry, "leader_words", "reviews_selected"),
            "leader_polar_share": get_in(entry, "lexicon", "leader_polar_share"),
            "all_polar_share": get_in(entry, "lexicon", "all_polar_share"),
            "K_vs_converged": get_in(entry, "K_vs_converged"),
            "unseen_words": get_in(entry, "unseen_words"),
            "without_attention": get_in(entry, "without_attention"),
            "T0": get_in(entry, "hypotheses", "T0_leader_within_K"),
            "T2": get_in(entry, "hypotheses", "T2_leader_limits_are_hull_vertices"),
            "T3": get_in(entry, "hypotheses", "T3_limits_on_boundary_of_K"),
            "within_hypotheses": get_in(entry, "hypotheses", "within_hypotheses"),
            "reviews": get_in(entry, "hypotheses", "reviews"),
        })
    authors = get_in(data, "authors_d2")
    for family in ("distinct", "padded"):
        part = get_in(authors, family)
        if isinstance(part, dict):
            rows.append({
                "model": f"authors' d=2 embeddings, {family} samples", "d": 2, "epoch": 100,
                "leaders": part.get("leaders"), "top_words": [], "reviews_selected": None,
                "leader_polar_share": None, "all_polar_share": None,
                "K_vs_converged": part.get("K_vs_converged"), "T0": part.get("T0_leader_within_K"),
                "T2": part.get("T2_leader_limits_are_hull_vertices"), "T3": part.get("T3_limits_on_boundary_of_K"),
                "within_hypotheses": get_in(authors, "samples") if family == "distinct" else 0,
                "reviews": get_in(authors, "samples"), "certified_limits": part.get("certified_limits"),
            })
    return rows


def _inputs_problems(key: str, items: list, figures: list, inputs: Any) -> list[str]:
    """The report's ``inputs`` list must name the same files with the same sha256, in order."""
    entries = inputs if isinstance(inputs, list) else []
    for role, listed in ((f"{key} results", items), (f"{key} figure", figures)):
        stated = [(e.get("path"), e.get("sha256")) for e in entries if isinstance(e, dict) and e.get("role") == role]
        wanted = [(x.get("path"), x.get("sha256")) for x in listed if isinstance(x, dict)]
        if stated != wanted:
            return [f"the report's inputs list {counted(len(stated), f'{role!r} file that is', f'{role!r} files that are')} "
                    f"not the section's {len(wanted)}"]
    return []
