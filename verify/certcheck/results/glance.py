"""The numbers each optional section's line on a report's first screen prints, recomputed from the saved files.

The sentiment experiment's chosen run per d with the same weights' accuracy without attention,
the reproduction's runs finished, the conjecture lab's outcomes and those not as expected, the
classification's networks, accuracies and timings, the control study's counts (docs/theory.md
D10): each from the saved files the section lists, with the checker's own code, kept while the
files are read one at a time (:class:`GlanceParts`).
"""

from __future__ import annotations

from typing import Any

from ..kernel import DecimalText, json_count, json_number, number_of


# The outcomes a conjecture's expectation predicts (verify/experiments/conjectures/outcomes.py's EXPECTATIONS;
# "held" is reserved for a proof, a search that finds nothing says "not refuted").
CONJECTURE_PREDICTS = {"held": ("held", "not refuted"), "refuted": ("counterexample",)}
CONJECTURE_DECIDED = ("held", "not refuted", "counterexample")
# The lab's search-power file (bench/conjecture_power.py) is one of the section's files, not a run.
CONJECTURE_POWER_FORMAT = "hardmax-verify/conjecture-power-v1"


SUMMARY_FIELDS, SUMMARY_LINES, SUMMARY_TEXT = 16, 200, 200  # a file's scalar summary, as the report keeps it


def _scalar(value: Any) -> bool:
    return (isinstance(value, (int, bool, DecimalText)) or (isinstance(value, str) and len(value) <= SUMMARY_TEXT)
            or isinstance(value, float))


def scalar_summary(data: Any) -> dict:
    """The top-level scalars of a saved file and one level of small objects ("best.val_acc"), as the
    report keeps them beside the file (at most SUMMARY_FIELDS, then the file's own ``lines``)."""
    if not isinstance(data, dict):
        return {}
    summary: dict = {}
    for key, value in data.items():
        if len(summary) >= SUMMARY_FIELDS:
            break
        if _scalar(value):
            summary[str(key)] = value
        elif isinstance(value, dict) and value and len(value) <= 6 and all(_scalar(v) for v in value.values()):
            for inner, v in value.items():
                summary[f"{key}.{inner}"] = v
    lines = data.get("lines")
    if isinstance(lines, list) and lines and all(isinstance(x, str) for x in lines):
        summary["lines"] = lines[:SUMMARY_LINES]
        if len(lines) > SUMMARY_LINES:
            summary["lines_omitted"] = len(lines) - SUMMARY_LINES
    return summary


class NoNumbers:
    """The saved files do not give the first screen's numbers (a field of the wrong type)."""


_GLANCE_ERRORS = (TypeError, ValueError, KeyError, AttributeError, ZeroDivisionError)


class GlanceParts:
    """What a section's first-screen numbers need from its saved files, kept while they are read one at a
    time (a file's parsed content is dropped after its item is checked; only these small parts stay)."""

    def __init__(self, key: str, count: int, paths: list | None = None) -> None:
        self.key, self.count = key, count
        self.paths: list = list(paths or [])  # every listed file's path, readable or not (atlas: which are sweeps)
        self.digests: dict = {"general_a": None, "leader_control": None}  # atlas: the census's and control's numbers
        self.evaluations: list = []   # sentiment: the fields of each evaluation the choice reads
        self.ablations: dict = {}     # sentiment: per analysed checkpoint, its accuracy without attention and at K
        self.summaries: list = []     # conjectures: the scalar summary of each run
        self.power_files = 0          # conjectures: search-power files (not runs)
        self.first: Any = None        # reproduction: the first summary; control: the study's numbers
        self.classify: dict = {"imdb": None, "scaling": None}
        self.seen: set = set()
        self.failed = False

    def add(self, path: str, data: Any) -> None:
        try:
            self._add(path, data)
        except _GLANCE_ERRORS:
            self.failed = True

    def _add(self, path: str, data: Any) -> None:
        if self.key == "sentiment":
            if isinstance(data, dict) and json_number(data.get("hardmax_accuracy")) is not None:
                self.evaluations.append({k: data.get(k) for k in ("checkpoint", "d", "protocol", "hardmax_accuracy",
                                                                   "validation_accuracy")})
            if path.endswith("/analysis.json") and isinstance(data, dict) and isinstance(data.get("checkpoints"), list):
                for entry in data["checkpoints"]:
                    if isinstance(entry, dict):
                        without = entry.get("without_attention")
                        self.ablations[entry.get("path")] = {k: without.get(k) for k in (
                            "accuracy_without_attention", "accuracy_at_K")} if isinstance(without, dict) else {}
        elif self.key == "atlas":
            if path.endswith("/general_a/census.json"):
                self.digests["general_a"] = _census_glance(data)
            elif path.endswith("/leader_control/realisable.json"):
                self.digests["leader_control"] = {name: sum(cell[name] for cell in data["cells"])
                                                  for name in ("subsets", "realisable", "impossible")}
            else:
                self.summaries.append(_atlas_counts(data))
        elif self.key == "conjectures":
            if is_power_file(data):
                self.power_files += 1
            else:
                self.summaries.append(scalar_summary(data))
        elif self.key == "reproduction":
            if self.first is None and isinstance(data, dict):
                runs = data.get("runs")
                self.first = {"sentence": data.get("summary") if isinstance(data.get("summary"), str) else None,
                              "finished": runs.get("finished") if isinstance(runs, dict) else None,
                              "planned": runs.get("planned") if isinstance(runs, dict) else None}
        elif self.key == "classify":
            for name, glance in (("imdb", _imdb_glance), ("scaling", _scaling_glance)):
                if path.endswith(f"/{name}.json") and name not in self.seen:  # the first file of each name
                    self.seen.add(name)
                    self.classify[name] = glance(data) if isinstance(data, dict) else None
        elif self.key == "control":
            if "study" not in self.seen and path.endswith("/study.json") and isinstance(data, dict):
                self.seen.add("study")
                self.first = _study_glance(data)

    def numbers(self) -> dict | None | NoNumbers:
        if self.failed:
            return NoNumbers()
        try:
            if self.key == "sentiment":
                return _sentiment_glance(self.evaluations, self.ablations, self.count)
            if self.key == "atlas":
                return {"sweeps": sum(str(p).endswith("/sweep.json") for p in self.paths),
                        "cells": sum(c for c, _ in self.summaries), "certified": sum(c for _, c in self.summaries),
                        **self.digests}
            if self.key == "conjectures":
                return _conjecture_glance(self.summaries, self.count - self.power_files)
            if self.key == "reproduction":
                return self.first or {"sentence": None, "finished": None, "planned": None}
            if self.key == "classify":
                return dict(self.classify)
            if self.key == "control":
                return self.first
        except _GLANCE_ERRORS:
            return NoNumbers()
        return None


def glance_numbers(key: str, files: dict, count: int) -> dict | None | NoNumbers:
    """The numbers the section's first-screen line prints, from the saved files (path -> parsed JSON)."""
    parts = GlanceParts(key, count, list(files))
    for path, data in files.items():
        parts.add(path, data)
    return parts.numbers()


def _study_glance(study: dict) -> dict:
    """From study.json (docs/theory.md D10's study): the counts its first-screen sentence prints."""
    rows = [r for name in ("against_n_and_d", "families", "worked") for r in study.get(name) or [] if isinstance(r, dict)]
    rounding: dict = study["rounding"] if isinstance(study.get("rounding"), dict) else {}
    return {"seed": study.get("seed"), "configurations": len(rows),
            "subsets": sum(number_of(r.get("subsets")) for r in rows),
            "realisable": sum(number_of(r.get("realisable")) for r in rows),
            "all_vertices_lead": sum(r.get("all_vertices") == "realisable" for r in rows),
            "lock_tried": sum(number_of(r.get("lock_tried")) for r in rows),
            "lock_realised": sum(number_of(r.get("lock_realised")) for r in rows),
            "solver_feasible": rounding.get("solver_feasible"),
            "exact_designs_of_solver_feasible": rounding.get("exact_designs_of_solver_feasible"),
            "decided": number_of(rounding.get("exact_designs")) + number_of(rounding.get("impossible")),
            "cases": rounding.get("cases")}


def _sentiment_glance(evaluations: list, ablations: dict, count: int) -> dict:
    """Per (d, protocol) the evaluation with the highest validation accuracy (ties: the first by checkpoint
    name), its test accuracy, and the analyses' accuracy of the same weights without attention and at K."""
    best: dict = {}
    for e in sorted(evaluations, key=lambda e: str(e.get("checkpoint"))):
        value = json_number(e.get("validation_accuracy"))
        if value is None or json_count(e.get("d"), -10**9) is None:
            continue
        group = (e.get("d"), e.get("protocol"))
        if group not in best or value > number_of(best[group].get("validation_accuracy")):
            best[group] = e
    chosen = []
    for e in sorted(best.values(), key=lambda e: (e["d"], str(e.get("protocol")))):
        ablation = ablations.get(e.get("checkpoint")) or {}
        chosen.append({"d": e["d"], "protocol": e.get("protocol"), "checkpoint": e.get("checkpoint"),
                       "hardmax_accuracy": e["hardmax_accuracy"], "validation_accuracy": e.get("validation_accuracy"),
                       "accuracy_without_attention": ablation.get("accuracy_without_attention")
                       if json_number(ablation.get("accuracy_without_attention")) is not None else None,
                       "accuracy_at_K": ablation.get("accuracy_at_K") if json_number(ablation.get("accuracy_at_K")) is not None else None})
    return {"files": count, "evaluations": len(evaluations), "chosen": chosen}


def is_power_file(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == CONJECTURE_POWER_FORMAT


def _atlas_counts(sweep: Any) -> tuple[int, int]:
    """(cells measured, extremes certified) of one saved sweep (docs/sweep.md): a certified extreme has
    ``certified`` true (the claims report it carries is re-verified on its own, by ``certcheck FILE``)."""
    results = [entry["result"] for entry in sweep["cells"] if entry["result"] is not None]
    return len(results), sum(1 for r in results if r["extreme"] is not None and r["extreme"]["certified"] is True)


def _census_glance(census: Any) -> dict:
    """From the general-A census (docs/sweep.md): its configurations, the claims failing for some class of A, and
    how many of the counterexamples it names the independent checker re-verified when the census ran."""
    claims, classes = census["claims"], census["classes"]
    found = [c["claims"][claim]["counterexample"] for c in classes for claim in claims
             if c["claims"][claim]["counterexample"]]
    return {"configurations": sum(c["configurations"] for c in classes),
            "failing": [claim for claim in claims if any(c["claims"][claim]["failed"] for c in classes)],
            "counterexamples": len(found), "rechecked": sum(x["rechecked"] is True for x in found)}


def _conjecture_glance(summaries: list, count: int) -> dict:
    """The saved runs (not the search-power file; ``count`` of them, ``summaries`` of those readable), their
    outcomes counted, whether any states an expectation, and those whose decided outcome is not one the
    expectation predicts."""
    summaries = summaries + [{}] * (count - len(summaries))
    outcomes: dict = {}
    for s in summaries:
        outcome = str(s.get("outcome", "unreadable")) if s else "unreadable"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    surprises = [str(s.get("conjecture", "?")) for s in summaries
                 if s.get("outcome") in CONJECTURE_DECIDED and str(s.get("expected")) in CONJECTURE_PREDICTS
                 and s.get("outcome") not in CONJECTURE_PREDICTS[str(s.get("expected"))]]
    return {"runs": count, "outcomes": dict(sorted(outcomes.items())),
            "expectations_stated": any(str(s.get("expected")) in CONJECTURE_PREDICTS for s in summaries),
            "not_as_expected": surprises}


def _imdb_glance(imdb: dict) -> dict:
    """From imdb.json: sizes, reviews removed, networks built and those not certified, test accuracies at the
    largest N and its majority rate."""
    samples: dict[Any, dict] = {s.get("N"): s for s in imdb.get("samples") or [] if isinstance(s, dict)}
    runs = [r for r in imdb.get("runs") or [] if isinstance(r, dict)]
    sizes: list[Any] = list(samples)
    largest = max(sizes) if sizes else None  # keys of mixed kinds: a TypeError, caught by the caller
    accuracies = [number_of(r.get("test_accuracy")) for r in runs if r.get("N") == largest]
    return {
        "sizes": sorted(samples), "removed": sum(s.get("removed") for s in samples.values()), "networks": len(runs),
        "not_certified": [{"N": r.get("N"), "variant": r.get("variant"), "seed": r.get("seed")} for r in runs
                          if r.get("checker_status") != "certified" or r.get("certified_by_checker") != r.get("sequences")],
        "largest_N": largest, "test_accuracy_min": min(accuracies) if accuracies else None,
        "test_accuracy_max": max(accuracies) if accuracies else None,
        "majority_test": samples[largest].get("majority_test") if accuracies else None}


def _scaling_glance(scaling: dict) -> dict:
    """From scaling.json: the largest N's blocks, parameters, build and check seconds per variant, and the
    smallest speed-ups over the baseline."""
    rows = [r for r in scaling.get("by_size") or [] if isinstance(r, dict)]
    lengths = [r for r in scaling.get("by_length") or [] if isinstance(r, dict)]
    pairs: dict = {}
    for r in rows:
        pairs.setdefault(r.get("N"), {})[r.get("variant")] = r
    largest = max(pairs) if pairs else None
    variants = {} if largest is None else {
        v: {k: pairs[largest][v].get(k) for k in ("blocks", "parameters", "build_s", "check_s")}
        for v in ("wide", "narrow") if v in pairs[largest]}
    timed = [r for r in rows + lengths if "baseline_s" in r]
    return {
        "largest_N": largest, "variants": variants,
        "engine_speedup_min": min((number_of(r["baseline_s"]) / max(number_of(r.get("engine_s")), 1e-9)
                                   for r in timed), default=None),
        "check_speedup_min": min((number_of(r["baseline_s"]) / max(number_of(r.get("check_s")), 1e-9)
                                  for r in timed), default=None)}
