"""The sentiment reproduction's tables, conclusion and notes, recomputed from the per-run records (docs/theory.md §5).

summary.json's tables (verify/experiments/sentiment/summary.py) are not believed: each cell is the
mean ± sample sd over a cell's finished seeds of the per-run records under the runs folder,
computed here exactly (fractions) and compared with the text shown at its 4 decimals; the runs
planned per cell come from the protocol file (its sha256 checked); the K = 8 against K = 0
differences ± 2 se and the protocol's verdict are decided exactly, and the conclusion sentence is
derived from those verdicts; the validation losses and the notes come from the published
checkpoints' training histories. What cannot be read within the limits is *not checked*.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import re
import stat
import tomllib
from fractions import Fraction
from typing import Any, Callable, NamedTuple

from ..jsontext import NOT_FOUND, NOT_JSON, NOT_UTF8, TOO_LARGE, UnreadableJSON, read_bounded, read_json_file
from ..kernel import (MAX_SECTION_FILES, SECTION_READ_BYTES, DecimalText, brief_json, counted, get_in, json_count,
                      json_number, record_read, same_json)


class SectionLimit(Exception):
    """The saved results are beyond the checker's limits for them: the section is not checked."""


def _display(value: Any) -> str:
    """A JSON scalar as Python's str() shows it after json.loads (a decimal's text is the float's repr)."""
    if isinstance(value, DecimalText):
        return repr(float(value))
    if value is None or isinstance(value, bool):
        return str(value)
    return str(value)


def reproduction_item(data: Any) -> dict:
    """The fields the report copies from summary.json (reproduction_section.py's item_fields), rebuilt here."""
    if not isinstance(data, dict):
        return {}
    tables = []
    listed = data.get("tables") or []
    for table in listed if isinstance(listed, list) else []:
        if isinstance(table, dict) and isinstance(table.get("columns"), list) and isinstance(table.get("rows"), list):
            tables.append({"title": _display(table.get("title", "")), "columns": [_display(c) for c in table["columns"]],
                           "rows": [[_display(v) for v in row] for row in table["rows"] if isinstance(row, list)]})
    fields: dict = {"reproduction_tables": tables}
    if isinstance(data.get("summary"), str):
        fields["sentence"] = data["summary"]
    runs = data.get("runs")
    if isinstance(runs, dict):
        fields["runs"] = {"finished": runs.get("finished"), "planned": runs.get("planned")}
    notes = data.get("notes")
    if isinstance(notes, list):
        fields["notes"] = [_display(note) for note in notes]
    protocol = data.get("protocol")
    if isinstance(protocol, dict):
        fields["protocol"] = {"file": protocol.get("file"), "sha256": protocol.get("sha256")}
    return fields


# The reproduction's tables (verify/experiments/sentiment/summary.py) recomputed from the per-run
# records, not read from summary.json: each cell is the mean ± sample sd over a cell's finished
# seeds, computed here exactly (fractions) and compared with the text shown at its 4 decimals.
REPRODUCTION_RECORDS = ("sentiment", "protocol")  # the per-run records under the runs folder
REPRODUCTION_RECORD_BYTES = 64 << 20  # bytes of per-run records read, in all
# The published checkpoints (``sentiment protocol collect --models``), whose training histories give the
# training-length table's validation-loss columns and the notes' "validation loss lowest at epoch N".
DEFAULT_MODELS = ("models", "reproduction")  # beside the runs folder
CHECKPOINT_HISTORY_BYTES = 64 << 20  # bytes of checkpoint.json files read, in all (one held at a time)
PROTOCOL_FILE_BYTES = 1 << 20
# The authors' softmax test accuracies (docs/theory.md §5), shown next to the reproduction.
AUTHORS_SOFTMAX_TEST_ACCURACY = {2: "0.7914", 4: "0.8228", 8: "0.8505", 16: "0.8821"}
_ROUNDING_NOISE = Fraction(1, 10 ** 12)  # a float mean or sd may sit this close to a rounding boundary
_CELL = re.compile(r"\A(-?[0-9]+\.[0-9]{4})(?: ± ([0-9]+\.[0-9]{4}))?(?: \(([0-9]+) of ([0-9]+) seeds\))?\Z")
_DIFFERENCE = re.compile(r"\A([+-][0-9]+\.[0-9]{4}) ± ([0-9]+\.[0-9]{4})\Z")


class _Cell(NamedTuple):
    n: int
    mean: Fraction | None
    variance: Fraction | None  # sample variance (n - 1 in the denominator); None below two values


def _cell_of(values: list) -> _Cell:
    exact = [Fraction(str.__str__(v)) if isinstance(v, DecimalText) else Fraction(v) for v in values if v is not None]
    if not exact:
        return _Cell(0, None, None)
    mean = sum(exact, Fraction(0)) / len(exact)
    variance = sum(((x - mean) ** 2 for x in exact), Fraction(0)) / (len(exact) - 1) if len(exact) > 1 else None
    return _Cell(len(exact), mean, variance)


def _sqrt(x: Fraction) -> Fraction:
    """sqrt(x) to within 10^-20 (x >= 0)."""
    scale = 10 ** 20
    return Fraction(math.isqrt(x.numerator * scale * scale // x.denominator), scale)


def _rounded(text: str, value: Fraction, places: int) -> bool:
    """``text`` is ``value`` rounded to ``places`` decimals (up to float noise at the boundary)."""
    try:
        shown = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return False
    return abs(shown - value) <= Fraction(1, 2 * 10 ** places) + _ROUNDING_NOISE


def _cell_problem(text: Any, cell: _Cell, planned: int | None) -> str | None:
    if cell.n == 0:
        return None if text == "not run yet" else f"{str(text)[:60]!r} where no seed has finished"
    match = _CELL.match(text) if isinstance(text, str) else None
    if match is None:
        return f"{str(text)[:60]!r} is not a mean ± sd"
    mean, sd, finished, of = match.groups()
    assert cell.mean is not None
    if not _rounded(mean, cell.mean, 4):
        return f"{text!r}: the mean of its {counted(cell.n, 'seed')} is {float(cell.mean):.6f}"
    if (sd is None) != (cell.variance is None) or (sd is not None and cell.variance is not None
                                                   and not _rounded(sd, _sqrt(cell.variance), 4)):
        return f"{text!r}: the sd of its {counted(cell.n, 'seed')} is " + (
            "undefined" if cell.variance is None else f"{float(_sqrt(cell.variance)):.6f}")
    wanted = (str(cell.n), str(planned)) if planned is not None and cell.n < planned else (None, None)
    if (finished, of) != wanted:
        return f"{text!r}: {cell.n} of {planned} planned seeds finished"
    return None


def _protocol_runs(document: Any) -> list[dict] | str:
    """The protocol's runs in queue order (verify/experiments/sentiment/protocol.py's expand), or why not."""
    studies = document.get("study") if isinstance(document, dict) else None
    if not isinstance(studies, list) or not studies or len(studies) > 100:
        return "the protocol file has no [[study]] tables"
    runs: dict[str, dict] = {}
    for study in studies:
        lists: list[Any] = [study.get(k) if isinstance(study, dict) else None for k in ("d", "layers", "seeds")]
        alphas: Any = study.get("fixed_alpha", [None]) if isinstance(study, dict) else None
        if not (all(isinstance(x, list) and x and all(json_count(v) is not None for v in x) for x in lists)
                and isinstance(alphas, list) and isinstance(study.get("name"), str)
                and isinstance(study.get("phase", 1), int)):
            return "a study of the protocol file is not one the suite reads"
        if math.prod(len(x) for x in lists) * len(alphas) > 1000:
            return "the protocol plans more than 1000 runs"
        for d in lists[0]:
            for k in lists[1]:
                for seed in lists[2]:
                    for alpha in alphas:
                        if alpha is not None and (isinstance(alpha, bool) or not isinstance(alpha, (int, float))):
                            return "a fixed_alpha of the protocol file is not a number"
                        alpha = None if alpha is None else float(alpha)
                        name = f"d{d}-K{k}" + ("" if alpha is None else f"-alpha{alpha:g}") + f"-s{seed}"
                        previous = runs.get(name)
                        runs[name] = {"name": name, "d": d, "layers": k, "seed": seed, "fixed_alpha": alpha,
                                      "phase": min(study.get("phase", 1), previous["phase"]) if previous else study.get("phase", 1),
                                      "studies": (previous["studies"] if previous else ()) + (study["name"],)}
    return sorted(runs.values(), key=lambda r: (r["phase"], r["seed"], r["d"], -r["layers"],
                                                 -1.0 if r["fixed_alpha"] is None else r["fixed_alpha"]))


_RECORD_FIELDS = ("hardmax_accuracy", "softmax_accuracy", "validation_accuracy", "alpha", "epochs_completed", "epoch",
                  "published")


def _run_records(folder: str) -> tuple[dict, dict] | str:
    """(evaluations, interpretations) by run name: the fields the tables use of each per-run record."""
    try:
        names = sorted(entry.name for entry in os.scandir(folder) if entry.name.endswith(".json") and entry.is_file())
    except OSError as error:
        raise SectionLimit(f"the per-run records {folder} cannot be listed ({error.strerror or error})") from None
    if len(names) > MAX_SECTION_FILES:
        raise SectionLimit(f"{folder} holds more than {MAX_SECTION_FILES} records, beyond what certcheck reads")
    record_read("per-run records", folder)
    evaluations: dict = {}
    interpretations: dict = {}
    left = REPRODUCTION_RECORD_BYTES
    for name in names:
        path = os.path.join(folder, name)
        size = os.path.getsize(path)
        left -= size
        if size > SECTION_READ_BYTES or left < 0:
            raise SectionLimit(f"the per-run records in {folder} are more than certcheck reads "
                                f"({SECTION_READ_BYTES} bytes a file, {REPRODUCTION_RECORD_BYTES} in all)")
        try:
            # Strict (:mod:`.jsontext`): a repeated key or NaN is not read, so that no value a
            # first-wins reader would see differently is taken from the record.
            record = read_json_file(path, max_bytes=SECTION_READ_BYTES, parse_float=DecimalText)
        except UnreadableJSON as error:
            return f"the per-run record {name} is not readable JSON ({error.reason})"
        except OSError:
            return f"the per-run record {name} is not readable JSON"
        if not isinstance(record, dict):
            return f"the per-run record {name} is not an object"
        if name.endswith(".interpret.json"):
            interpretations[name[:-len(".interpret.json")]] = {
                "clustering": (get_in(record, "clustering", "leaders_per_review", "mean"),
                               get_in(record, "clustering", "converged", "distance_K_to_converged_mean"),
                               get_in(record, "clustering", "converged", "share_of_tokens_settled_by_K")),
                "flips": (get_in(record, "deletion", "leaders_deleted", "flip_rate"),
                          get_in(record, "deletion", "random_deleted", "flip_rate")),
                "polarity": (get_in(record, "matched_polarity", "leader_polar_share"),
                             get_in(record, "matched_polarity", "matched_non_leader_polar_share")),
                "vote": (get_in(record, "leader_vote", "weighted_vote_accuracy"),
                         get_in(record, "leader_vote", "model_accuracy_same_reviews")),
                "has_polarity_share": isinstance(record.get("matched_polarity"), dict)
                and "leader_polar_share" in record["matched_polarity"]}
        else:
            kept = {k: record.get(k) for k in _RECORD_FIELDS}
            kept["like_for_like"] = get_in(record, "softmax_best_test_epoch", "test_acc")
            evaluations[name[:-len(".json")]] = kept
    return evaluations, interpretations


def _values(runs: list, evaluations: dict, key: str) -> list:
    values = [evaluations[r["name"]][key] for r in runs if r["name"] in evaluations]
    if any(v is not None and json_number(v) is None for v in values):
        raise _NotANumber(key)
    return values


class _NotANumber(Exception):
    pass


def _expected_tables(runs: list, evaluations: dict, interpretations: dict, common: dict,
                     histories: dict | None = None, unchecked: list | None = None) -> dict[str, list]:
    """Per table name, its rows as (text, check) pairs: ``check(text)`` gives why the text is wrong, or None.

    ``histories``: per run, its checkpoint's validation losses (:func:`_checkpoint_history`; a run
    missing: no checkpoint to read). A validation-loss cell shown for a run whose history could not
    be read is not checked: the reason is appended to ``unchecked``.
    """
    histories = {} if histories is None else histories
    unchecked = [] if unchecked is None else unchecked
    def of(study: str, **match: Any) -> list:
        return [r for r in runs if study in r["studies"] and all(r[k] == v for k, v in match.items())]

    def cell_check(values: list, planned: int | None = None) -> Callable[[Any], str | None]:
        cell = _cell_of(values)
        return lambda text: _cell_problem(text, cell, planned)

    def equal(wanted: str) -> Callable[[Any], str | None]:
        return lambda text: None if text == wanted else f"{str(text)[:60]!r} where the records give {wanted!r}"

    tables: dict[str, list] = {}
    rows = []
    for d in sorted({r["d"] for r in of("reproduction")}):
        cell_runs = of("reproduction", d=d)
        authors = AUTHORS_SOFTMAX_TEST_ACCURACY.get(d, "")
        rows.append([equal(str(d)), cell_check(_values(cell_runs, evaluations, "hardmax_accuracy"), len(cell_runs)),
                     cell_check(_values(cell_runs, evaluations, "softmax_accuracy")),
                     cell_check(_values(cell_runs, evaluations, "like_for_like")), equal(authors),
                     cell_check(_values(cell_runs, evaluations, "validation_accuracy")),
                     cell_check(_values(cell_runs, evaluations, "alpha"))])
    tables["reproduction"] = rows
    rows = []
    for c in _comparisons(runs, evaluations):
        difference_check, verdict_check = equal(""), equal("incomplete")
        if c.difference is not None and c.four_se2 is not None:
            difference_check = _difference_check(c.difference, _sqrt(c.four_se2))
            verdict_check = _verdict_check(c.difference, c.four_se2)
        rows.append([equal(str(c.d)), _cell_check(c.with_attention, c.planned[0]), _cell_check(c.baseline, c.planned[1]),
                     difference_check, verdict_check])
    tables["baselines"] = rows
    for study in ("depth-d2", "depth-d16"):
        study_runs = of(study)
        if study_runs:
            tables[study] = [[equal(str(k)), cell_check(_values([r for r in study_runs if r["layers"] == k], evaluations,
                                                                "hardmax_accuracy"), sum(r["layers"] == k for r in study_runs)),
                              cell_check(_values([r for r in study_runs if r["layers"] == k], evaluations,
                                                 "validation_accuracy"))]
                             for k in sorted({r["layers"] for r in study_runs})]
    study_runs = of("alpha-d2")
    if study_runs:
        rows = []
        for alpha in sorted({r["fixed_alpha"] for r in study_runs}):
            cell_runs = [r for r in study_runs if r["fixed_alpha"] == alpha]
            measures = [interpretations[r["name"]]["clustering"] for r in cell_runs if r["name"] in interpretations]
            rows.append([equal(f"{alpha:g}"), cell_check(_values(cell_runs, evaluations, "hardmax_accuracy"), len(cell_runs))]
                        + [cell_check([m[i] for m in measures]) for i in range(3)])
        tables["alpha-d2"] = rows
    rows = []
    for run in runs:
        found = interpretations.get(run["name"])
        if found is None or run["layers"] == 0:
            continue
        rows.append([equal(run["name"])] + [_decimal_check(v, 3, "") for v in found["flips"]]
                    + [_decimal_check(found["polarity"][0] if found["has_polarity_share"] else None, 3, "nan")]
                    + [_decimal_check(v if json_number(v) else None, 3, "nan") for v in (found["polarity"][1], *found["vote"])])
    if rows:
        tables["interpretability"] = rows
    cap, patience = json_count(common.get("epochs")), json_count(common.get("patience"))
    rows = []
    for run in runs:
        record = evaluations.get(run["name"])
        ran, selected = (json_count(record.get("epochs_completed")), json_count(record.get("epoch"))) if record else (None, None)
        if ran is None or selected is None or cap is None or patience is None:
            continue
        how = (f"reached the {cap}-epoch cap, still improving" if ran >= cap and ran - selected < patience
               else f"early stop ({patience} epochs without a better validation accuracy)")
        history = histories.get(run["name"])
        if history is None and record and record.get("published") is False:  # a record only: no history to show
            loss_checks: list = [equal("")] * 2
        elif history is None or history.unchecked:
            reason = history.unchecked if history is not None else "no checkpoint history was found"
            loss_checks = [_unchecked_unless_empty(f"run {run['name']}'s validation losses: {reason}", unchecked)] * 2
        elif history.problem:
            loss_checks = [lambda text, problem=history.problem: problem] * 2
        else:
            loss_checks = [_lowest_loss_check(history), _loss_at_selected_check(history)]
        published = "published" if record and record.get("published") is True else "record only"  # in models/ or not
        rows.append([equal(run["name"]), equal(str(ran)), equal(str(selected)), equal(how)] + loss_checks
                    + [equal(published)])
    if rows:
        tables["training-length"] = rows
    return tables


def _cell_check(cell: _Cell, planned: int | None) -> Callable[[Any], str | None]:
    return lambda text: _cell_problem(text, cell, planned)


class _Comparison(NamedTuple):
    """K = 8 against the trained K = 0 baseline at one d (the protocol's ``baseline-k0`` study)."""
    d: int
    with_attention: _Cell
    baseline: _Cell
    planned: tuple[int, int]
    difference: Fraction | None  # K = 8 mean minus K = 0 mean; None until both cells are complete
    four_se2: Fraction | None    # (2 se)^2 = 4 (var8/n8 + var0/n0), exactly


def _comparisons(runs: list, evaluations: dict) -> list[_Comparison]:
    """Per d of the baseline study, in increasing d: the two cells and, once both are complete (every
    planned seed finished, at least two each), the difference of their means and (2 se)^2."""
    def of(study: str, d: int) -> list:
        return [r for r in runs if study in r["studies"] and r["d"] == d]

    out = []
    for d in sorted({r["d"] for r in runs if "baseline-k0" in r["studies"]}):
        with_attention, baseline = of("reproduction", d), of("baseline-k0", d)
        a = _cell_of(_values(with_attention, evaluations, "hardmax_accuracy"))
        b = _cell_of(_values(baseline, evaluations, "hardmax_accuracy"))
        difference = four_se2 = None
        if a.n == len(with_attention) and b.n == len(baseline) and a.n > 1 and b.n > 1:
            assert a.mean is not None and b.mean is not None and a.variance is not None and b.variance is not None
            difference = a.mean - b.mean
            four_se2 = 4 * (a.variance / a.n + b.variance / b.n)
        out.append(_Comparison(d, a, b, (len(with_attention), len(baseline)), difference, four_se2))
    return out


def _verdicts(difference: Fraction, four_se2: Fraction) -> tuple[str, frozenset]:
    """(the protocol's verdict decided exactly, the verdicts accepted): helps when the difference exceeds
    2 se, hurts below -2 se, else no difference resolved. Within float noise of the boundary the
    summary's float arithmetic may fall either side, so both are accepted there."""
    squared = difference * difference
    exact = "no difference resolved" if squared <= four_se2 else "helps" if difference > 0 else "hurts"
    near = abs(squared - four_se2) <= _ROUNDING_NOISE * max(four_se2, Fraction(1, 10 ** 12))
    return exact, frozenset({exact, "no difference resolved", "helps" if difference > 0 else "hurts"} if near else {exact})


class _History(NamedTuple):
    """What the training-length table and its notes use of one run's checkpoint history."""
    lowest: Fraction | None      # the lowest validation loss (None: the history has none)
    lowest_epoch: int | None     # its epoch (the earliest, on a tie)
    at_selected: Any             # the validation loss at the selected epoch, as read (None: none recorded)
    problem: str | None = None   # the history is malformed (rejected)
    unchecked: str | None = None  # the history could not be read within the limits (not checked)


_LOWEST_LOSS = re.compile(r"\A(-?[0-9]+\.[0-9]{4}) \(([0-9]+)\)\Z")


def _checkpoint_history(path: str, selected: int, budget: list) -> _History | None:
    """The validation losses of ``path`` (a checkpoint.json; None: there is none), as
    verify/experiments/sentiment/summary.py's training_lengths uses them: entries of ``history`` with
    a numeric ``val_loss``; a file that is not a JSON object with a list ``history`` has none.
    ``budget``: [bytes still to read of CHECKPOINT_HISTORY_BYTES]."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return _History(None, None, None, problem=f"{path} is not a regular file")
    budget[0] -= info.st_size
    if info.st_size > SECTION_READ_BYTES or budget[0] < 0:
        return _History(None, None, None, unchecked=f"the checkpoint histories are more than certcheck reads "
                                                    f"({SECTION_READ_BYTES} bytes a file, {CHECKPOINT_HISTORY_BYTES} in all)")
    try:
        meta = read_json_file(path, max_bytes=SECTION_READ_BYTES, parse_float=DecimalText)
    except UnreadableJSON as error:
        if error.kind not in (NOT_JSON, NOT_UTF8):
            # A repeated key or NaN (the summary refuses such a file, so a loss shown was read from
            # another version of it), or the file changed since it was looked at: the losses shown are not checked.
            return _History(None, None, None, unchecked=f"{path} is not readable as strict JSON ({error.reason})")
        meta = None  # not JSON at all: no history (the summary refuses the file and shows none from it)
    except OSError as error:
        return _History(None, None, None, unchecked=f"{path} cannot be read ({error.strerror or error})")
    history = meta.get("history") if isinstance(meta, dict) else None
    losses: list[tuple[Fraction, int, Any]] = []
    for entry in history if isinstance(history, list) else []:
        value = entry.get("val_loss") if isinstance(entry, dict) else None
        if not isinstance(value, (int, float, DecimalText)):
            continue  # the summary skips it too (a boolean, which it would not, is rejected below)
        if isinstance(value, float) and not math.isfinite(value):
            return _History(None, None, None, unchecked=f"{path} holds a validation loss that is not finite")
        epoch = entry.get("epoch")
        if isinstance(value, bool) or json_count(epoch) is None:
            return _History(None, None, None, problem=f"{path}: a history entry's val_loss {str(value)[:20]} or epoch "
                                                      f"{str(epoch)[:20]} is not a number")
        losses.append((Fraction(str.__str__(value)) if isinstance(value, DecimalText) else Fraction(value), epoch, value))
    if not losses:
        return _History(None, None, None)
    lowest, lowest_epoch, _ = min(losses, key=lambda e: (e[0], e[1]))
    return _History(lowest, lowest_epoch, next((raw for _, epoch, raw in losses if epoch == selected), None))


def _checkpoint_histories(models: str, runs: list, evaluations: dict) -> dict[str, _History]:
    """Per finished run with a published checkpoint under ``models``: its history's validation losses
    (read one file at a time; only these few numbers are kept)."""
    budget = [CHECKPOINT_HISTORY_BYTES]
    histories: dict[str, _History] = {}
    if not os.path.isdir(models):
        return histories
    for run in runs:
        record = evaluations.get(run["name"])
        selected = json_count(record.get("epoch")) if record else None
        if selected is None:
            continue
        found = _checkpoint_history(os.path.join(models, run["name"], "checkpoint.json"), selected, budget)
        if found is not None:
            histories[run["name"]] = found
    return histories


def _unchecked_unless_empty(reason: str, unchecked: list) -> Callable[[Any], str | None]:
    """A cell whose source could not be read: empty is what the summary shows then; anything else is not checked."""
    def check(text: Any) -> str | None:
        if text != "":
            unchecked.append(reason)
        return None
    return check


def _lowest_loss_check(history: _History) -> Callable[[Any], str | None]:
    def check(text: Any) -> str | None:
        if history.lowest is None:
            return None if text == "" else f"{str(text)[:60]!r} where the checkpoint history has no validation loss"
        match = _LOWEST_LOSS.match(text) if isinstance(text, str) else None
        if match and _rounded(match.group(1), history.lowest, 4) and match.group(2) == str(history.lowest_epoch):
            return None
        return (f"{str(text)[:60]!r} where the checkpoint history gives {float(history.lowest):.6f} at epoch "
                f"{history.lowest_epoch}")
    return check


def _loss_at_selected_check(history: _History) -> Callable[[Any], str | None]:
    value = history.at_selected
    exact = None if value is None else Fraction(str.__str__(value)) if isinstance(value, DecimalText) else Fraction(value)

    def check(text: Any) -> str | None:
        if exact is None:
            return None if text == "" else f"{str(text)[:60]!r} where the checkpoint history has no loss at that epoch"
        if isinstance(text, str) and re.fullmatch(r"-?[0-9]+\.[0-9]{4}", text) and _rounded(text, exact, 4):
            return None
        return f"{str(text)[:60]!r} where the checkpoint history gives {float(exact):.6f}"
    return check


def _difference_check(difference: Fraction, two_se: Fraction) -> Callable[[Any], str | None]:
    def check(text: Any) -> str | None:
        match = _DIFFERENCE.match(text) if isinstance(text, str) else None
        if match and _rounded(match.group(1), difference, 4) and _rounded(match.group(2), two_se, 4):
            return None
        return f"{str(text)[:60]!r} where the records give {float(difference):+.6f} ± {float(two_se):.6f}"
    return check


def _verdict_check(difference: Fraction, four_se2: Fraction) -> Callable[[Any], str | None]:
    """The protocol's rule (:func:`_verdicts`) applied to the table's verdict column."""
    exact, accepted = _verdicts(difference, four_se2)
    return lambda text: None if text in accepted else f"{str(text)[:60]!r} where the protocol's rule gives {exact!r}"


def _decimal_check(value: Any, places: int, missing: str) -> Callable[[Any], str | None]:
    if value is None:
        return lambda text: None if text == missing else f"{str(text)[:60]!r} where the records give no value"
    number = json_number(value)
    if number is None:
        raise _NotANumber("an interpretability value")
    exact = Fraction(str.__str__(value)) if isinstance(value, DecimalText) else Fraction(number)
    return lambda text: (None if isinstance(text, str) and re.fullmatch(rf"-?[0-9]+\.[0-9]{{{places}}}", text)
                         and _rounded(text, exact, places) else f"{str(text)[:60]!r} where the records give "
                                                                 f"{float(exact):.{places + 2}f}")


def reproduction_problem(data: dict, base: str, *, models: str | None = None) -> str | None:
    """Why summary.json's tables, run counts, protocol, conclusion sentence or notes are not what the
    per-run records, the protocol file and the checkpoint histories give (None: they are).

    The protocol file is looked for beside the runs folder; the checkpoints under ``models``
    (default: ``models/reproduction`` beside the runs folder). A validation loss shown for a run
    whose checkpoint history is not there makes the section not checked (SectionLimit), raised
    only when nothing else is wrong.
    """
    protocol: dict = data["protocol"] if isinstance(data.get("protocol"), dict) else {}
    name = protocol.get("file")
    if not (isinstance(name, str) and name and not os.path.isabs(name)
            and all(p not in ("", ".", "..") for p in name.split("/"))):
        return f"summary.json names the protocol file {str(name)[:80]!r}, not a plain relative path"
    path = os.path.join(os.path.dirname(os.path.abspath(base)), *name.split("/"))
    try:
        # Read as every file the checker reads (jsontext.read_bounded): a FIFO put there is never waited on.
        raw = read_bounded(path, PROTOCOL_FILE_BYTES)
    except UnreadableJSON as error:
        if error.kind == TOO_LARGE:
            return f"the protocol file {path} is more than {PROTOCOL_FILE_BYTES} bytes"
        if error.kind == NOT_FOUND:
            raise SectionLimit(f"the protocol file {name} was not found beside the runs folder {base}, so the "
                                "reproduction tables are not recomputed") from None
        raise SectionLimit(f"the protocol file {path} cannot be read ({error.reason}), so the reproduction "
                            "tables are not recomputed") from None
    record_read("protocol file", path)
    digest = hashlib.sha256(raw).hexdigest()
    if protocol.get("sha256") != digest:
        return f"summary.json gives the protocol sha256 {str(protocol.get('sha256'))[:64]}, the file {path} has {digest}"
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return f"the protocol file {path} is not TOML"
    runs = _protocol_runs(document)
    if isinstance(runs, str):
        return runs
    found = _run_records(os.path.join(base, *REPRODUCTION_RECORDS))
    if isinstance(found, str):
        return found
    evaluations, interpretations = found
    finished = sum(r["name"] in evaluations for r in runs)
    if not same_json(data.get("runs"), {**(data["runs"] if isinstance(data.get("runs"), dict) else {}),
                                         "finished": finished, "planned": len(runs)}):
        return f"summary.json says {brief_json(data.get('runs'))}, the records give {finished} of {len(runs)} runs"
    common: dict = document["common"] if isinstance(document.get("common"), dict) else {}
    folder = models if models is not None else os.path.join(os.path.dirname(os.path.abspath(base)), *DEFAULT_MODELS)
    record_read("checkpoint histories", folder)
    histories = _checkpoint_histories(folder, runs, evaluations)
    unchecked: list[str] = []
    try:
        expected = _expected_tables(runs, evaluations, interpretations, common, histories, unchecked)
        comparisons = _comparisons(runs, evaluations)
    except _NotANumber as error:
        return f"a per-run record's {error} is not a number"
    tables = [t for t in data.get("tables") or [] if isinstance(t, dict)]
    if sorted(str(t.get("name")) for t in tables) != sorted(expected):
        return f"summary.json has the tables {sorted(str(t.get('name')) for t in tables)}, the records give {sorted(expected)}"
    for table in tables:
        rows, checks = table.get("rows"), expected[str(table.get("name"))]
        if not isinstance(rows, list) or len(rows) != len(checks):
            return f"table {table.get('name')!r}: {len(rows) if isinstance(rows, list) else 'no'} rows, the records give {len(checks)}"
        for row, row_checks in zip(rows, checks):
            if not isinstance(row, list) or len(row) != len(row_checks):
                return f"table {table.get('name')!r}: a row does not have the {len(row_checks)} columns the records give"
            for column, (text, check) in enumerate(zip(row, row_checks)):
                problem = check(text)
                if problem:
                    return f"table {table.get('name')!r}, row {str(row[0])[:20]}, column {column}: {problem}"
    problem = _sentence_problem(data.get("summary"), comparisons, finished, len(runs))
    if problem:
        return problem
    problem = _notes_problem(data.get("notes"), runs, evaluations, common, histories)
    if problem and not problem.startswith(_NOT_CHECKED_NOTES):
        return problem
    if problem or unchecked:
        raise SectionLimit((unchecked[0] if unchecked else str(problem)) + f" (the checkpoints looked for: {folder}; give them with "
                                                        "--models DIR)")
    return None


# The conclusion sentence (verify/experiments/sentiment/summary.py's conclusion_sentence and
# comparison_numbers, docs/sentiment.md), derived here from the per-d verdicts this module decides:
# a phrase per verdict naming its dimensions, a task-level sentence only when no d is pending, then
# the means ± sd of both cells at each d. The wording is mirrored; its numbers are checked as the
# tables' cells are (the exact value, rounded to the 4 decimals shown).
_VERDICT_PHRASES = (
    ("helps", "the K = 8 attention layers beat the trained mean-of-embeddings baseline (K = 0)"),
    ("hurts", "the trained mean-of-embeddings baseline (K = 0) beats the K = 8 attention layers"),
    ("no difference resolved", "the K = 8 attention layers and the trained K = 0 baseline do not differ by more "
                               "than two standard errors"),
)
_CELL_TEXT = r"(not run yet|-?[0-9]+\.[0-9]{4}(?: ± [0-9]+\.[0-9]{4})?(?: \([0-9]+ of [0-9]+ seeds\))?)"
_MAX_BOUNDARY_VERDICTS = 6  # dimensions whose verdict sits within float noise of the boundary (2^6 sentences tried)


def _sentence_parts(verdicts: dict[int, str], comparisons: list[_Comparison], finished: int,
                    planned: int) -> list:
    """The sentence as literal text and cell slots ((cell, planned seeds or None)), for these verdicts per d."""
    parts: list = []
    if not verdicts:
        parts.append(f"No conclusion yet: the reproduction and baseline cells are not complete ({finished} of "
                     f"{planned} runs finished).")
    else:
        phrases = []
        for verdict, phrase in _VERDICT_PHRASES:
            dims = sorted(d for d, v in verdicts.items() if v == verdict)
            if dims:
                phrases.append(f"at d = {', '.join(map(str, dims))} {phrase}")
        text = "On IMDb, under the paper's protocol with validation-selected epochs, " + "; ".join(phrases) + "."
        pending = [c.d for c in comparisons if c.d not in verdicts]
        given = set(verdicts.values())
        if pending:
            text += (f" At d = {', '.join(map(str, pending))} the compared cells are not complete yet ({finished} of "
                     f"{planned} runs finished), so there is no conclusion for the task as a whole.")
        elif given <= {"hurts", "no difference resolved"}:
            text += " Clustering by the attention layers does not help this task."
        elif given == {"helps"}:
            text += " Clustering by the attention layers helps this task."
        parts.append(text)
    shown = [c for c in comparisons if c.with_attention.n or c.baseline.n]
    if shown:
        parts.append(" Certified hardmax test accuracy, mean ± sd over seeds, K = 8 against the trained K = 0 "
                     "baseline: ")
        for index, c in enumerate(shown):
            parts += ["; " if index else "", f"d = {c.d}: ", (c.with_attention, c.planned[0]), " against ",
                      (c.baseline, c.planned[1])]
            if c.d in AUTHORS_SOFTMAX_TEST_ACCURACY:
                parts.append(f" (authors' softmax {AUTHORS_SOFTMAX_TEST_ACCURACY[c.d]})")
        parts.append(".")
    return parts


def _sentence_problem(shown: Any, comparisons: list[_Comparison], finished: int, planned: int) -> str | None:
    """Why summary.json's sentence is not the conclusion the per-run records give (None: it is)."""
    choices = []
    for c in comparisons:
        if c.difference is not None and c.four_se2 is not None:
            exact, accepted = _verdicts(c.difference, c.four_se2)
            choices.append([(c.d, exact)] + [(c.d, v) for v in sorted(accepted - {exact})])
    if sum(len(options) > 1 for options in choices) > _MAX_BOUNDARY_VERDICTS:
        raise SectionLimit(f"more than {_MAX_BOUNDARY_VERDICTS} verdicts sit within float noise of the protocol's "
                            "boundary; the conclusion sentence is not checked")
    wanted = ""
    for assignment in itertools.product(*choices):
        parts = _sentence_parts(dict(assignment), comparisons, finished, planned)
        if not wanted:  # the exact verdicts, numbers at 4 decimals: what the message shows
            wanted = "".join(p if isinstance(p, str) else _cell_text(*p) for p in parts)
        pattern = "".join(re.escape(p) if isinstance(p, str) else _CELL_TEXT for p in parts)
        match = re.fullmatch(pattern, shown) if isinstance(shown, str) else None
        if match and not any(_cell_problem(text, *slot) for text, slot in zip(match.groups(), [
                p for p in parts if not isinstance(p, str)])):
            return None
    if not isinstance(shown, str):
        return "summary.json has no conclusion sentence"
    at = next((i for i, (x, y) in enumerate(zip(shown, wanted)) if x != y), min(len(shown), len(wanted)))
    return (f"its conclusion sentence is not the one the per-run records give under the protocol's rule: from "
            f"character {at}, it says {shown[at:at + 100]!r}, the records give {wanted[at:at + 100]!r}")


def _cell_text(cell: _Cell, planned: int | None) -> str:
    """A cell as the summary writes it (for messages: the check itself compares exact values)."""
    if not cell.n or cell.mean is None:
        return "not run yet"
    text = f"{float(cell.mean):.4f}" + (f" ± {float(_sqrt(cell.variance)):.4f}" if cell.variance is not None else "")
    return text + (f" ({cell.n} of {planned} seeds)" if planned is not None and cell.n < planned else "")


_NOT_CHECKED_NOTES = "the notes name the validation loss of"


def _notes_problem(shown: Any, runs: list, evaluations: dict, common: dict, histories: dict) -> str | None:
    """Why summary.json's notes are not what the records and checkpoint histories give (None: they are).

    The notes name the runs that reached the protocol's epoch cap while still improving on validation
    and, where the checkpoint history shows it, the earlier epoch of their lowest validation loss.
    A message starting with _NOT_CHECKED_NOTES: a capped run's history could not be read, and the
    notes are not what they would be without it.
    """
    cap, patience = json_count(common.get("epochs")), json_count(common.get("patience"))
    described, unknown = [], []
    for run in runs:
        record = evaluations.get(run["name"])
        ran, selected = (json_count(record.get("epochs_completed")), json_count(record.get("epoch"))) if record else (None, None)
        if ran is None or selected is None or cap is None or patience is None or not (ran >= cap and ran - selected < patience):
            continue
        text = f"{run['name']} (selected epoch {selected}"
        history = histories.get(run["name"])
        if history is None and record and record.get("published") is False:
            pass  # a record only (no checkpoint published): no history, so no validation loss is named
        elif history is None or history.unchecked or history.problem:
            unknown.append(run["name"])
        elif history.lowest_epoch is not None and history.lowest_epoch < selected:
            text += (f"; validation loss lowest at epoch {history.lowest_epoch} and higher since, while validation "
                     "accuracy still crept up")
        described.append(text + ")")
    wanted = [] if not described else [
        f"{counted(len(described), 'run')} reached the protocol's {cap}-epoch cap while still improving on validation: "
        f"{', '.join(described)}. Their accuracy may be limited by the cap. Training longer would be a new "
        "preregistered protocol, run after this one; it does not change these numbers."]
    if same_json(shown, wanted):
        return None
    if unknown:
        return f"{_NOT_CHECKED_NOTES} {', '.join(unknown[:3])}, whose checkpoint history was not read"
    return (f"its notes are not what the records and checkpoint histories give: it says {brief_json(shown)[:200]}, "
            f"they give {brief_json(wanted)[:200]}")
