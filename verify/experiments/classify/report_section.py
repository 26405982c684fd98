"""Exact classification's section of the verification report (the protocol of :mod:`verify.experiments.sections`).

It reads two saved results under RUNS/classify/:

``imdb.json``
    ``hardmax-verify classify imdb`` (:mod:`.experiment`): per training-set size N, the reviews
    removed as inseparable, and per variant and seed the reviews certified, blocks, parameters
    and the test accuracy next to the majority-class rate.
``scaling.json``
    ``python bench/classify.py --json``: build, engine and independent-check CPU time against N
    and against the sequence length, blocks and parameters against N, the plain-Fraction
    baseline where it was timed, and the orders stated for the construction.

Either may be absent; the section says which and gives the command that writes it. A file that
is not what it should be is named with the offending field (it is then listed as unreadable,
and the report still writes). :func:`item_fields` keeps only what the tables need in
results.json.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any, Mapping, Sequence

from verify.core.formatting import noun_for
from verify.core.numbers import InputError
from ..sections import Figure, Section, Table, need_field
from . import IMDB_RESULTS_FORMAT as IMDB_FORMAT
from . import SCALING_RESULTS_FORMAT as SCALING_FORMAT

__all__ = ["key", "folder", "patterns", "figures_folder", "produced_by", "glance_title", "item_fields", "figure_files",
           "section", "glance_numbers", "glance_sentence",
           "read_imdb", "read_scaling", "exponent", "imdb_glance", "scaling_glance",
           "IMDB_FORMAT", "SCALING_FORMAT", "IMDB_COMMAND", "SCALING_COMMAND"]

key = "classify"
folder = "classify"
IMDB_FILE, SCALING_FILE, SCALING_FIGURE = "imdb.json", "scaling.json", "scaling.png"
patterns: tuple[str, ...] = (IMDB_FILE, SCALING_FILE)
figures_folder: str | None = "figures/classify"
TITLE = "Exact sequence classification (saved results)"
glance_title = "Exact classification"
IMDB_COMMAND = ("hardmax-verify classify imdb --data IMDB.csv.gz --reference EMBEDDING.npz --seeds 0,1,2 "
                "--out RUNS/classify/imdb.json")
SCALING_COMMAND = ("python bench/classify.py --full --baseline-max 100 --json RUNS/classify/scaling.json "
                   "--figure RUNS/classify/scaling.png")
produced_by = f"`{IMDB_COMMAND}` and `{SCALING_COMMAND}` (docs/classify.md)"


# --------------------------------------------------------------------------- reading


def _need(data: Any, field: str, kinds: type | tuple[type, ...], where: str) -> Any:
    """:func:`need_field`, and a float must be finite."""
    value = need_field(data, field, kinds, where)
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{where}.{field}", f"expected a finite number, got {value}")
    return value


def _count(data: Any, field: str, where: str) -> int:
    value = _need(data, field, int, where)
    if value < 0:
        raise InputError(f"{where}.{field}", f"expected a count >= 0, got {value}")
    return value


def _rate(data: Any, field: str, where: str) -> float:
    value = _need(data, field, (int, float), where)
    if not 0 <= value <= 1:
        raise InputError(f"{where}.{field}", f"expected a rate in [0, 1], got {value}")
    return float(value)


def _seconds(data: Any, field: str, where: str) -> float:
    value = _need(data, field, (int, float), where)
    if value < 0:
        raise InputError(f"{where}.{field}", f"expected seconds >= 0, got {value}")
    return float(value)


def _objects(data: Any, field: str, where: str) -> list[Mapping[str, Any]]:
    items = _need(data, field, list, where)
    for n, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise InputError(f"{where}.{field}[{n}]", f"expected an object, got {type(item).__name__}")
    return items


def _group(group: Any, where: str) -> list[dict[str, int]]:
    if not isinstance(group, list) or not group:
        raise InputError(where, "expected a non-empty list of reviews")
    members = []
    for k, member in enumerate(group):
        at = f"{where}[{k}]"
        members.append({"review_row": _count(member, "review_row", at), "label": _need(member, "label", int, at),
                        "length": _count(member, "length", at)})
    return members


def read_imdb(data: Any, where: str = IMDB_FILE) -> dict[str, Any]:
    """The fields of an IMDb results file the section shows, checked (InputError names the field)."""
    samples = []
    for n, sample in enumerate(_objects(data, "samples", where)):
        at = f"{where}.samples[{n}]"
        groups = _need(sample, "inseparable_groups", list, at)
        samples.append({
            "N": _count(sample, "N", at), "kept": _count(sample, "kept", at), "removed": _count(sample, "removed", at),
            "test_reviews": _count(sample, "test_reviews", at), "majority_test": _rate(sample, "majority_test", at),
            "inseparable_groups": [_group(group, f"{at}.inseparable_groups[{g}]") for g, group in enumerate(groups)],
        })
    runs = []
    for n, run in enumerate(_objects(data, "runs", where)):
        at = f"{where}.runs[{n}]"
        variant = _need(run, "variant", str, at)
        status = _need(run, "checker_status", str, at)
        if status not in ("certified", "failed"):
            raise InputError(f"{at}.checker_status", f"expected 'certified' or 'failed', got {status!r}")
        cpu = _need(run, "cpu_seconds", Mapping, at)
        runs.append({
            "N": _count(run, "N", at), "variant": variant, "seed": _count(run, "seed", at),
            "sequences": _count(run, "sequences", at),
            "certified_by_construction": _count(run, "certified_by_construction", at),
            "certified_by_checker": _count(run, "certified_by_checker", at), "checker_status": status,
            "blocks": _count(run, "blocks", at), "parameters": _count(run, "parameters", at),
            "max_width": _count(run, "max_width", at), "thresholds": _count(run, "thresholds", at),
            "test_accuracy": _rate(run, "test_accuracy", at), "test_ties": _count(run, "test_ties", at),
            "cpu_seconds": {part: _seconds(cpu, part, f"{at}.cpu_seconds") for part in ("build", "check", "test")},
        })
    known = {s["N"] for s in samples}
    for n, run in enumerate(runs):
        if run["N"] not in known:
            raise InputError(f"{where}.runs[{n}].N", f"no sample of N = {run['N']} reviews in {where}.samples")
    source = data.get("source") if isinstance(data.get("source"), Mapping) else {}
    return {"seeds": [s for s in data.get("seeds") or [] if isinstance(s, int)],
            "variants": [v for v in data.get("variants") or [] if isinstance(v, str)],
            "test_size": data.get("test_size") if isinstance(data.get("test_size"), int) else None,
            "source": {name: source[name] for name in ("data", "reference", "sequence_length", "split", "vocabulary")
                       if name in source},
            "samples": samples, "runs": runs}


_SCALING_ROW_COUNTS = ("N", "tokens", "blocks", "parameters", "max_width", "thresholds")
_SCALING_ROW_SECONDS = ("build_s", "engine_s", "check_s")


def read_scaling(data: Any, where: str = SCALING_FILE) -> dict[str, Any]:
    """The fields of a bench/classify.py --json file the section shows, checked (InputError names the field)."""
    d = _count(data, "d", where)
    plan = _need(data, "plan", Mapping, where)
    tables: dict[str, list[dict[str, Any]]] = {}
    for part in ("by_size", "by_length"):
        rows = []
        for n, row in enumerate(_objects(data, part, where)):
            at = f"{where}.{part}[{n}]"
            kept: dict[str, Any] = {"variant": _need(row, "variant", str, at)}
            kept.update({name: _count(row, name, at) for name in _SCALING_ROW_COUNTS})
            kept.update({name: _seconds(row, name, at) for name in _SCALING_ROW_SECONDS})
            if part == "by_length":
                kept["L"] = _count(row, "L", at)
            if "baseline_s" in row:
                kept["baseline_s"] = _seconds(row, "baseline_s", at)
            rows.append(kept)
        tables[part] = rows
    return {"mode": _need(data, "mode", str, where), "d": d,
            "baseline_sizes": [n for n in plan.get("baseline_sizes") or [] if isinstance(n, int)],
            "baseline_lengths": [n for n in plan.get("baseline_lengths") or [] if isinstance(n, int)],
            "cpus": data.get("cpus") if isinstance(data.get("cpus"), int) else None, **tables}


def item_fields(path: Path, data: Any) -> dict[str, Any]:
    """The checked content of one saved file, by its format (kept in results.json)."""
    kind = data.get("format") if isinstance(data, Mapping) else None
    if kind == IMDB_FORMAT:
        return {"imdb": read_imdb(data, path.name)}
    if kind == SCALING_FORMAT:
        return {"scaling": read_scaling(data, path.name)}
    raise InputError(f"{path.name}.format", f"expected {IMDB_FORMAT!r} or {SCALING_FORMAT!r}, got {kind!r}")


def figure_files(paths: Sequence[Path]) -> list[Path]:
    """The scaling figure drawn by bench/classify.py --figure beside scaling.json."""
    return [path.parent / SCALING_FIGURE for path in paths
            if path.name == SCALING_FILE and (path.parent / SCALING_FIGURE).is_file()]


# --------------------------------------------------------------------------- showing


def _n(value: int) -> str:
    return f"{value:,}"


def _span(values: Sequence[int]) -> str:
    low, high = min(values), max(values)
    return _n(low) if low == high else f"{_n(low)}-{_n(high)}"


def _mean_sd(values: Sequence[float]) -> str:
    if len(values) == 1:
        return f"{values[0]:.4f} (one seed)"
    return f"{statistics.mean(values):.4f} ± {statistics.stdev(values):.4f} ({len(values)} seeds)"


def _variant_order(variant: str) -> tuple[int, str]:
    return ({"wide": 0, "narrow": 1}.get(variant, 2), variant)


def _imdb_tables(imdb: Mapping[str, Any]) -> tuple[list[Table], str]:
    """The demonstration's tables and its summary sentence."""
    samples = {s["N"]: s for s in imdb["samples"]}
    runs = imdb["runs"]
    rows = []
    missing = []
    for size in sorted(samples):
        variants = sorted({r["variant"] for r in runs if r["N"] == size} | set(imdb["variants"]), key=_variant_order)
        for variant in variants:
            mine = sorted((r for r in runs if r["N"] == size and r["variant"] == variant), key=lambda r: r["seed"])
            seeds_done = [r["seed"] for r in mine]
            not_run = [s for s in imdb["seeds"] if s not in seeds_done]
            if not_run:
                missing.append(f"{noun_for(len(not_run), 'seed')} {', '.join(map(str, not_run))} of "
                               f"N = {_n(size)} {variant}")
            if not mine:
                continue
            sample = samples[size]
            certified = all(r["checker_status"] == "certified" and r["certified_by_checker"] == r["sequences"]
                            == r["certified_by_construction"] for r in mine)
            rows.append([
                _n(size), variant, f"{_n(sample['kept'])} ({_n(sample['removed'])} removed)",
                ", ".join(map(str, seeds_done)),
                (f"{_n(mine[0]['sequences'])} of {_n(mine[0]['sequences'])}, every seed" if certified
                 else "NO: " + "; ".join(f"seed {r['seed']}: {_n(r['certified_by_checker'])} of {_n(r['sequences'])}"
                                         f" ({r['checker_status']})" for r in mine)),
                _span([r["blocks"] for r in mine]), _span([r["parameters"] for r in mine]),
                _span([r["max_width"] for r in mine]), _span([r["thresholds"] for r in mine]),
                _mean_sd([r["test_accuracy"] for r in mine]), f"{sample['majority_test']:.4f}",
                f"{statistics.mean(r['cpu_seconds']['build'] for r in mine):.1f} / "
                f"{statistics.mean(r['cpu_seconds']['check'] for r in mine):.1f}",
            ])
    source = imdb["source"]
    embedding = source.get("reference", {}).get("file", "the d = 2 embedding")
    note = (f"Training reviews of the paper split embedded with `{embedding}` (d = 2) and cut or padded to "
            f"{source.get('sequence_length', 128)} tokens; the test reviews are all "
            f"{_n(next(iter(samples.values()))['test_reviews']) if samples else '—'} of the split's test part. "
            "'Certified' means every kept review's final tokens all have its label as first coordinate, decided in "
            "exact rational arithmetic by the construction's forward pass and again by the independent checker "
            "(verify/certcheck/classify/). Test accuracy is evidence about generalisation, not a certificate: the "
            "prediction is the label nearest to the mean first coordinate of the final tokens (exact; a tie counts "
            "as wrong), mean ± sd over the construction seeds, beside the rate of always answering the majority "
            "class. CPU seconds are means over the seeds.")
    tables = [Table(heading="IMDb reviews: exact classification of the training reviews, then the test reviews",
                    headers=["N", "variant", "reviews kept", "seeds", "certified exactly (construction and checker)",
                             "blocks", "parameters", "largest width", "thresholds", "test accuracy",
                             "majority class (test)", "CPU s build / check"],
                    rows=rows, note=note)]
    groups = [(s["N"], g) for s in imdb["samples"] for g in s["inseparable_groups"]]
    if groups:
        tables.append(Table(
            heading="Inseparable reviews removed",
            headers=["N", "reviews with one empirical distribution and both labels"],
            rows=[[_n(size), "; ".join(f"row {m['review_row']} (label {m['label']}, {m['length']} tokens)"
                                       for m in group)] for size, group in groups],
            note="No transformer of the family tells these reviews apart (docs/theory.md §7): every group is removed "
                 "whole before building."))
    numbers = imdb_glance(imdb)
    sizes = " and ".join(_n(n) for n in numbers["sizes"])
    removed = numbers["removed"]
    failed = numbers["not_certified"]
    if not numbers["networks"]:
        summary = "The IMDb results file holds no run."
    elif not failed:
        summary = (f"IMDb (N = {sizes} training reviews, d = 2, 128 tokens): "
                   + (f"{_n(removed)} inseparable reviews removed; " if removed else "no inseparable reviews; ")
                   + f"every kept review is classified exactly by all {numbers['networks']} networks built, certified by "
                     "the independent checker.")
    else:
        named = ", ".join(f"N = {_n(r['N'])} {r['variant']} seed {r['seed']}" for r in failed)
        summary = (f"IMDb: {len(failed)} of {numbers['networks']} networks built were NOT certified by the independent "
                   f"checker ({named}).")
    if numbers["test_accuracy_min"] is not None:
        summary += (f" On the test reviews the N = {_n(numbers['largest_N'])} networks score "
                    f"{numbers['test_accuracy_min']:.4f} to {numbers['test_accuracy_max']:.4f} against "
                    f"{numbers['majority_test']:.4f} for always answering the majority class: exact memorisation, "
                    "not generalisation.")
    if missing:
        summary += " Not run: " + "; ".join(missing) + "."
    return tables, summary


def imdb_glance(imdb: Mapping[str, Any]) -> dict[str, Any]:
    """The numbers the IMDb sentence of the report's first screen prints (see :func:`glance_numbers`)."""
    samples = {s["N"]: s for s in imdb["samples"]}
    runs = imdb["runs"]
    failed = [{"N": r["N"], "variant": r["variant"], "seed": r["seed"]} for r in runs
              if r["checker_status"] != "certified" or r["certified_by_checker"] != r["sequences"]]
    largest = max(samples) if samples else None
    accuracies = [r["test_accuracy"] for r in runs if r["N"] == largest]
    return {"sizes": sorted(samples), "removed": sum(s["removed"] for s in imdb["samples"]), "networks": len(runs),
            "not_certified": failed, "largest_N": largest,
            "test_accuracy_min": min(accuracies) if accuracies else None,
            "test_accuracy_max": max(accuracies) if accuracies else None,
            "majority_test": samples[largest]["majority_test"] if accuracies and largest is not None else None}


def exponent(rows: Sequence[Mapping[str, Any]], x: str, y: str) -> float | None:
    """Least-squares exponent a of y ~ x^a (log-log) over the rows with both positive."""
    points = [(math.log(r[x]), math.log(r[y])) for r in rows if r[x] > 0 and r[y] > 0]
    if len(points) < 2:
        return None
    mx = sum(p for p, _ in points) / len(points)
    my = sum(q for _, q in points) / len(points)
    den = sum((p - mx) ** 2 for p, _ in points)
    return sum((p - mx) * (q - my) for p, q in points) / den if den else None


def _exponents(rows: Sequence[Mapping[str, Any]], x: str) -> str:
    parts = []
    for variant in ("wide", "narrow"):
        mine = [r for r in rows if r["variant"] == variant]
        slopes = [exponent(mine, x, y) for y in _SCALING_ROW_SECONDS]
        if any(s is not None for s in slopes):
            parts.append(f"{variant}: " + ", ".join(f"{name} {'—' if s is None else f'{s:.2f}'}"
                                                    for name, s in zip(("build", "engine", "check"), slopes)))
    return "; ".join(parts) or "—"


def _seconds_text(value: float) -> str:
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def _scaling_tables(scaling: Mapping[str, Any]) -> tuple[list[Table], str]:
    d = scaling["d"]
    by_size, by_length = scaling["by_size"], scaling["by_length"]
    times = ["variant", "N", "tokens", "build s", "engine s", "check s", "baseline s"]
    tables = [Table(
        heading=f"Time against the number of sequences N (bench/classify.py, {scaling['mode']} run; CPU seconds)",
        headers=times,
        rows=[[r["variant"], _n(r["N"]), _n(r["tokens"]), _seconds_text(r["build_s"]), _seconds_text(r["engine_s"]),
               _seconds_text(r["check_s"]), _seconds_text(r["baseline_s"]) if "baseline_s" in r else "—"]
              for r in by_size],
        note=(f"Seeded datasets in d = {d}, lengths 1..43. build = the construction including its exact forward pass "
              "(that certifies the network); engine = that forward pass alone; check = the independent checker on the "
              "files. Least-squares exponents a of time ~ N^a: " + _exponents(by_size, "N") + "."))]
    if by_length:
        tables.append(Table(
            heading="Time against the sequence length L (CPU seconds)",
            headers=["variant", "L", "N", "tokens", "build s", "engine s", "check s", "baseline s"],
            rows=[[r["variant"], _n(r["L"]), _n(r["N"]), _n(r["tokens"]), _seconds_text(r["build_s"]),
                   _seconds_text(r["engine_s"]), _seconds_text(r["check_s"]),
                   _seconds_text(r["baseline_s"]) if "baseline_s" in r else "—"] for r in by_length],
            note="Every sequence of length L over a vocabulary of 4 L tokens. Exponents a of time ~ L^a: "
                 + _exponents(by_length, "L") + " (linear growth is a = 1)."))
    pairs: dict[int, dict[str, Mapping[str, Any]]] = {}
    for r in by_size:
        pairs.setdefault(r["N"], {})[r["variant"]] = r
    rows = []
    for n, pair in sorted(pairs.items()):
        wide, narrow = pair.get("wide"), pair.get("narrow")
        rows.append([_n(n),
                     _n(wide["blocks"]) if wide else "—", _n(wide["parameters"]) if wide else "—",
                     f"{wide['parameters'] / (n * d):.2f}" if wide else "—",
                     _n(narrow["blocks"]) if narrow else "—", _n(narrow["parameters"]) if narrow else "—",
                     f"{narrow['parameters'] / (n * d):.2f}" if narrow else "—",
                     _n(2 * n + 1), _n(4 * n + 1)])
    tables.append(Table(
        heading="Blocks and parameters against N, next to the stated orders",
        headers=["N", "wide blocks", "wide parameters", "wide parameters / (N d)", "narrow blocks",
                 "narrow parameters", "narrow parameters / (N d)", "2N + 1", "4N + 1"],
        rows=rows,
        note=("[P2] states O(N) blocks and O(N d) parameters, independent of the sequence length. The wide network "
              "has 3 blocks; the narrow one (width at most 4) at most 2N + 1 blocks (docs/theory.md §7): parameters "
              "/ (N d) staying bounded as N grows is the O(N d) order. 4N + 1 is the count reported for the later "
              "version's sequence-to-sequence interpolation when every output length m_j = 1 "
              "(2 sum_j m_j + 2N + 1 blocks); that number comes from a machine-written summary, not checked against "
              "the paper.")))
    timed = [r for r in by_size + by_length if "baseline_s" in r]
    numbers = scaling_glance(scaling)
    ratio_text = ""
    if timed:
        ratio_rows = [[r["variant"], f"L = {_n(r['L'])}" if "L" in r else f"N = {_n(r['N'])}", _n(r["tokens"]),
                       _seconds_text(r["baseline_s"]), f"{r['baseline_s'] / max(r['engine_s'], 1e-9):.0f}x",
                       f"{r['baseline_s'] / max(r['check_s'], 1e-9):.0f}x"] for r in timed]
        engine_min, check_min = numbers["engine_speedup_min"], numbers["check_speedup_min"]
        tables.append(Table(
            heading="Against the plain-Fraction baseline",
            headers=["variant", "dataset", "tokens", "baseline s", "baseline / engine", "baseline / check"],
            rows=ratio_rows,
            note=(f"The baseline (verify/experiments/classify/oracle.py: every token through every unit, every attention score, "
                  f"plain Fractions) was timed at N in {scaling['baseline_sizes'] or '—'} and L in "
                  f"{scaling['baseline_lengths'] or '—'} only: its work is quadratic, minutes per variant from a few "
                  "hundred sequences on. Aim: at least 10x.")))
        ratio_text = (f" Against the plain-Fraction baseline the engine is at least {engine_min:.0f}x and the "
                      f"independent check at least {check_min:.0f}x faster on every dataset it was timed on.")
    summary = ""
    if numbers["largest_N"] is not None:
        parts = [f"{variant} {_n(row['blocks'])} blocks and {_n(row['parameters'])} parameters, built in "
                 f"{_seconds_text(row['build_s'])} s and checked in {_seconds_text(row['check_s'])} s"
                 for variant, row in numbers["variants"].items()]
        summary = (f"Scaling (bench/classify.py, CPU time): at N = {_n(numbers['largest_N'])}, " + "; ".join(parts)
                   + "." + ratio_text)
    return tables, summary


def scaling_glance(scaling: Mapping[str, Any]) -> dict[str, Any]:
    """The numbers the scaling sentence of the report's first screen prints (see :func:`glance_numbers`)."""
    by_size, by_length = scaling["by_size"], scaling["by_length"]
    pairs: dict[int, dict[str, Mapping[str, Any]]] = {}
    for r in by_size:
        pairs.setdefault(r["N"], {})[r["variant"]] = r
    largest = max(pairs) if pairs else None
    variants = {} if largest is None else {
        variant: {key: pairs[largest][variant][key] for key in ("blocks", "parameters", "build_s", "check_s")}
        for variant in ("wide", "narrow") if variant in pairs[largest]}
    timed = [r for r in by_size + by_length if "baseline_s" in r]
    return {"largest_N": largest, "variants": variants,
            "engine_speedup_min": min((r["baseline_s"] / max(r["engine_s"], 1e-9) for r in timed), default=None),
            "check_speedup_min": min((r["baseline_s"] / max(r["check_s"], 1e-9) for r in timed), default=None)}


def glance_numbers(block: Mapping[str, Any]) -> dict[str, Any]:
    """The numbers this section's line on the report's first screen prints: from the IMDb results, the
    training-set sizes, inseparable reviews removed, networks built and those not certified, and the
    test accuracies at the largest N against the majority class; from the scaling results, the largest N
    with each variant's blocks, parameters, build and check CPU seconds, and the smallest speed-ups
    over the plain-Fraction baseline. None for a part whose file is absent or unreadable."""
    imdb = next((item["imdb"] for item in block["files"] if item.get("imdb")), None)
    scaling = next((item["scaling"] for item in block["files"] if item.get("scaling")), None)
    return {"imdb": None if imdb is None else imdb_glance(imdb),
            "scaling": None if scaling is None else scaling_glance(scaling)}


def section(block: Mapping[str, Any]) -> Section:
    """The IMDb demonstration and the scaling tables, from results.json's block for this section."""
    imdb = next((item["imdb"] for item in block["files"] if item.get("imdb")), None)
    scaling = next((item["scaling"] for item in block["files"] if item.get("scaling")), None)
    tables: list[Table] = []
    sentences: list[str] = []
    unreadable = [f"`{item['path']}` could not be read: {item['summary']['unreadable']}."
                  for item in block["files"] if "unreadable" in item.get("summary", {})]
    if imdb is not None:
        imdb_tables, text = _imdb_tables(imdb)
        tables += imdb_tables
        sentences.append(text)
    else:
        sentences.append(f"No IMDb demonstration among the saved results ({IMDB_FILE}; `{IMDB_COMMAND}` writes it).")
    if scaling is not None:
        scaling_tables, text = _scaling_tables(scaling)
        tables += scaling_tables
        if text:
            sentences.append(text)
    else:
        sentences.append(f"No scaling measurements among the saved results ({SCALING_FILE}; `{SCALING_COMMAND}` "
                         "writes it).")
    figures = [Figure("classify_scaling", figure["file"], "build and check time against N",
                      f"CPU seconds of the construction (with its certifying exact forward pass) and of the independent "
                      f"checker against the number of sequences, both variants, log-log. Source: `{figure['path']}`.")
               for figure in block.get("figures") or []]
    return Section(TITLE, summary=" ".join(unreadable + sentences), tables=tables, figures=figures,
                   figures_heading="Scaling" if figures else "", list_files=bool(unreadable))


def glance_sentence(numbers: Mapping[str, Any]) -> str:
    """Nothing beyond the section's own summary: the results at a glance count the files."""
    return ""
