"""The conjecture lab's section of the verification report (the protocol of :mod:`verify.experiments.sections`).

It reads two kinds of saved result under RUNS/conjectures/:

``<name>.json``
    one run of a conjecture (``hardmax-verify conjecture run NAME --results-dir RUNS/conjectures``):
    its outcome, the expectation it was marked against, the examples drawn and what they
    covered. One line per run.
``power/power.json``
    ``python bench/conjecture_power.py --json RUNS/conjectures/power/power.json``: for each
    known-false statement, the examples and seconds the default search needed to refute it
    (median over seeds). The power table; docs/conjectures.md shows the same table
    (scripts/readme_numbers.py renders both with :func:`power_rows`).

The section states its conclusion in one sentence (the report's results at a glance quote it).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping, Sequence

from verify.core.formatting import counted
from verify.core.numbers import InputError
from .outcomes import EXPECTATIONS
from ..sections import Section, Table

__all__ = ["key", "folder", "patterns", "figures_folder", "produced_by", "glance_title", "item_fields", "figure_files",
           "section", "glance_sentence",
           "POWER_FORMAT", "POWER_FILE", "POWER_COMMAND", "read_power", "power_rows", "power_sentence",
           "power_updates_text", "runs_sentence",
           "is_surprise", "glance_numbers"]

key = "conjectures"
folder = "conjectures"
POWER_FILE = "power/power.json"
patterns: tuple[str, ...] = ("*.json", POWER_FILE)
figures_folder: str | None = None
POWER_FORMAT = "hardmax-verify/conjecture-power-v1"
POWER_COMMAND = "python bench/conjecture_power.py --json RUNS/conjectures/power/power.json"
produced_by = (f"`hardmax-verify conjecture run NAME --results-dir RUNS/conjectures` and `{POWER_COMMAND}` "
               "(docs/conjectures.md)")
TITLE = "Conjecture runs (saved results)"
glance_title = "Conjecture lab"
NOTE = ("A conjecture's counterexample is a finding of the conjecture lab, not a failure of this report: optional "
        "sections never change the exit status. \"Not refuted\" is evidence, not a proof: the examples drawn and the "
        "ranges they covered say what was explored.")


# --------------------------------------------------------------------------- reading

def _need(data: Any, field: str, kinds: type | tuple[type, ...], where: str) -> Any:
    """``data[field]`` of the expected type, or an InputError naming ``where.field``."""
    if not isinstance(data, Mapping) or field not in data:
        raise InputError(f"{where}.{field}", "missing")
    value = data[field]
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
        raise InputError(f"{where}.{field}", f"expected {' or '.join(k.__name__ for k in kinds)}, "
                                             f"got {type(value).__name__}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{where}.{field}", f"expected a finite number, got {value}")
    return value


def _spread(data: Any, field: str, where: str) -> dict[str, float]:
    spread = _need(data, field, dict, where)
    values = {k: _need(spread, k, (int, float), f"{where}.{field}") for k in ("median", "min", "max")}
    if not values["min"] <= values["median"] <= values["max"] or values["min"] < 0:
        raise InputError(f"{where}.{field}", "expected 0 <= min <= median <= max")
    return values


def read_power(data: Any, where: str = "power.json") -> dict[str, Any]:
    """The checked content of a power file (only what the table and the sentence need)."""
    if _need(data, "format", str, where) != POWER_FORMAT:
        raise InputError(f"{where}.format", f"expected {POWER_FORMAT!r}, got {data['format']!r}")
    kept: dict[str, Any] = {"date": _need(data, "date", str, where), "command": _need(data, "command", str, where),
                            "seeds": _need(data, "seeds", int, where),
                            "budget_seconds": _need(data, "budget_seconds", (int, float), where),
                            "cores": _need(data, "cores", int, where),
                            "load_average_before": _need(data, "load_average_before", list, where)}
    statements = []
    for index, entry in enumerate(_need(data, "statements", list, where)):
        at = f"{where}.statements[{index}]"
        item: dict[str, Any] = {"name": _need(entry, "name", str, at), "group": _need(entry, "group", str, at),
                                "statement": _need(entry, "statement", str, at),
                                "refuted": _need(entry, "refuted", int, at), "seeds": _need(entry, "seeds", int, at)}
        if not 0 <= item["refuted"] <= item["seeds"]:
            raise InputError(f"{at}.refuted", "expected 0 <= refuted <= seeds")
        if item["refuted"]:
            for field in ("examples", "cpu_seconds", "seconds"):
                item[field] = _spread(entry, field, at)
            sizes = _need(entry, "counterexample_n", dict, at)
            item["counterexample_n"] = {k: _need(sizes, k, int, f"{at}.counterexample_n") for k in ("min", "max")}
        statements.append(item)
    kept["statements"] = statements
    if isinstance(data, Mapping) and "updates" in data:
        updates = []
        for index, entry in enumerate(_need(data, "updates", list, where)):
            at = f"{where}.updates[{index}]"
            names = _need(entry, "statements", list, at)
            if not all(isinstance(name, str) for name in names):
                raise InputError(f"{at}.statements", "expected a list of statement names")
            updates.append({"date": _need(entry, "date", str, at), "command": _need(entry, "command", str, at),
                            "statements": names})
        kept["updates"] = updates
    return kept


def item_fields(path: Path, data: Any) -> dict[str, Any]:
    """A power file's checked table (kept in results.json); a run file's scalars are all the section needs."""
    if isinstance(data, Mapping) and "format" in data:
        return {"power": read_power(data, f"{path.parent.name}/{path.name}")}
    return {}


def figure_files(paths: Sequence[Path]) -> list[Path]:
    return []


# --------------------------------------------------------------------------- showing

POWER_HEADERS = ["statement", "refuted", "examples to refute (median, range)", "CPU seconds (median, range)",
                 "wall seconds (median, range)", "counterexample n"]


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,.1f}"


def _range(spread: Mapping[str, float], seconds: bool = False) -> str:
    show = (lambda v: f"{v:.1f}") if seconds else _number
    return f"{show(spread['median'])} ({show(spread['min'])}-{show(spread['max'])})"


def power_rows(data: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The power table (headers, rows) of a power file (raw or as :func:`read_power` keeps it), easiest first."""
    def order(entry: Mapping[str, Any]) -> tuple[int, float]:
        return (0, entry["examples"]["median"]) if entry["refuted"] else (1, 0.0)

    rows = []
    for entry in sorted(data["statements"], key=order):
        name = f"`{entry['name']}`" + {"built-in": " (built-in)", "held-out": " (held-out)"}.get(entry["group"], "")
        refuted = f"{entry['refuted']} of {entry['seeds']}"
        if entry["refuted"]:
            sizes = entry["counterexample_n"]
            n = str(sizes["min"]) if sizes["min"] == sizes["max"] else f"{sizes['min']}-{sizes['max']}"
            rows.append([name, refuted, _range(entry["examples"]), _range(entry["cpu_seconds"], seconds=True),
                         _range(entry["seconds"], seconds=True), n])
        else:
            rows.append([name, refuted, "-", "-", "-", "-"])
    return POWER_HEADERS, rows


def power_updates_text(power: Mapping[str, Any]) -> str:
    """`` Measured again later: `COMMAND` on DATE (names).`` for each merge into the file (``--merge``), or nothing."""
    return "".join(f" Measured again later: `{u['command']}` on {u['date']} ({', '.join(u['statements'])})."
                   for u in power.get("updates", []))


def power_sentence(power: Mapping[str, Any]) -> str:
    """One sentence: how many known-false statements the default search refuted on every seed, and the hardest."""
    statements = power["statements"]
    always = [s for s in statements if s["refuted"] == s["seeds"]]
    text = (f"Search power ({power['seeds']} seeds, {power['budget_seconds']:g} s budget each): "
            f"{len(always)} of {len(statements)} known-false statements refuted on every seed")
    held_out = [s for s in statements if s["group"] == "held-out"]
    if held_out:
        text += (f" (held-out, written before the search ran on them: "
                 f"{sum(s['refuted'] == s['seeds'] for s in held_out)} of {len(held_out)} on every seed, "
                 f"{sum(s['refuted'] > 0 for s in held_out)} on some seed)")
    missed = [s["name"] for s in statements if s["refuted"] < s["seeds"]]
    if missed:
        text += f"; not always refuted: {', '.join(missed)}"
    if always:
        hardest = max(always, key=lambda s: s["examples"]["median"])
        text += (f"; the hardest, {hardest['name']}, took a median of {_number(hardest['examples']['median'])} "
                 f"examples ({hardest['cpu_seconds']['median']:.1f} CPU s)")
    return text + "."


def is_surprise(summary: Mapping[str, Any]) -> bool:
    """A decided outcome other than those the run's expectation predicts (:data:`outcomes.EXPECTATIONS`);
    a run that states no expectation, or is inconclusive, never surprises."""
    predicted = EXPECTATIONS.get(str(summary.get("expected")))
    outcome = summary.get("outcome")
    return predicted is not None and outcome in DECIDED and outcome not in predicted


DECIDED = ("held", "not refuted", "counterexample")


def _is_power(item: Mapping[str, Any]) -> bool:
    return "power" in item


def glance_numbers(block: Mapping[str, Any]) -> dict[str, Any]:
    """The numbers of the section's line at a glance: the saved runs (the power file is not one), their
    outcomes counted, whether any states an expectation, and those not as expected. The report stores
    them beside the section; the independent checker (verify.certcheck) recomputes them from the files."""
    summaries = [item.get("summary") or {} for item in block["files"] if not _is_power(item)]
    outcomes: dict[str, int] = {}
    for summary in summaries:
        outcome = str(summary.get("outcome", "unreadable"))
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return {"runs": len(summaries), "outcomes": dict(sorted(outcomes.items())),
            "expectations_stated": any(str(s.get("expected")) in EXPECTATIONS for s in summaries),
            "not_as_expected": [str(s.get("conjecture", "?")) for s in summaries if is_surprise(s)]}


def runs_sentence(numbers: Mapping[str, Any]) -> str:
    """One sentence from :func:`glance_numbers`: outcomes counted, surprises named."""
    runs = numbers["runs"]
    text = (f"{counted(runs, 'saved conjecture run')}: "
            + ", ".join(f"{n:,} {outcome}" for outcome, n in numbers["outcomes"].items()))
    surprises = numbers["not_as_expected"]
    if numbers["expectations_stated"]:
        if surprises:
            text += f"; {len(surprises):,} not as expected: {', '.join(surprises)}"
        else:
            found = [words for outcome, words in (("counterexample", "the counterexamples as expected"),
                                                  ("not refuted", "the runs not refuted consistent with the "
                                                                  "expectation (evidence, not a proof)"))
                     if numbers["outcomes"].get(outcome)]
            text += "; no surprise" + (": " + ", ".join(found) if found else "")
    return text + ". A conjecture's counterexample is a finding, not a failure of the suite."


def glance_sentence(numbers: Mapping[str, Any]) -> str:
    """The results at a glance, from :func:`glance_numbers`: :func:`runs_sentence`."""
    return runs_sentence(numbers)


def section(block: Mapping[str, Any]) -> Section:
    files = block["files"]
    runs = [item for item in files if "outcome" in item["summary"]]
    powers = [item["power"] for item in files if "power" in item]
    if len(runs) + len(powers) != len(files):
        return Section(TITLE)  # not all lab results: the report's generic list of files
    tables = []
    sentences = []
    if runs:
        summaries = [item["summary"] for item in runs]
        sentences.append(runs_sentence(glance_numbers(block)))
        tables.append(Table(
            headers=["conjecture", "outcome", "expected", "examples", "covered", "summary", "sha256"],
            rows=[[s.get("conjecture", item["path"]), s["outcome"], s.get("expected") or "—",
                   s.get("examples_run", "—"), s.get("covered", "—"), s.get("summary", ""), item["sha256"][:12] + "…"]
                  for item, s in zip(runs, summaries)],
            note=NOTE))
    for power in powers:
        sentences.append(power_sentence(power))
        headers, rows = power_rows(power)
        tables.append(Table(headers=headers, rows=rows, heading="Search power: known-false statements",
                            note=(f"From `{power['command']}` on {power['date']} ({power['cores']} cores, load average "
                                  f"{' '.join(str(x) for x in power['load_average_before'])} before the run): each "
                                  f"statement searched with the default budget of {power['budget_seconds']:g} s, seeds "
                                  f"0-{power['seeds'] - 1}. Examples to the first counterexample are the same on every "
                                  "machine; CPU seconds are this machine's. Built-in conjectures expected to be refuted "
                                  "are marked, and so are the held-out statements, written with a counterexample found "
                                  "by hand before the search ran on them." + power_updates_text(power))))
    return Section(TITLE, summary=" ".join(sentences), tables=tables, list_files=False)
