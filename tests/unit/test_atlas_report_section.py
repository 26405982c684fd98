"""The atlas section of the report (verify/experiments/conjectures/atlas_section.py, docs/theory.md §6), from
small sweeps (the emergence one with the worst-case optimiser's stage), a small general-A census and the
leader-control digest made here: one subsection per question opening with its answer in one sentence, certified
and measured said apart, the optimiser's certified best beside the sampled extreme, the figures copied; the
independent checker agrees with its fields and first-screen numbers and refuses an edited one; a malformed file is named
with its field and the report still renders; the committed census is of its grid, and every counterexample it
names is re-verified by `hardmax-verify certcheck`, which rejects a tampered one."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Callable

import pytest

from verify.app.cli import main
from verify.app.report.build import collect_optional_sections
from verify.app.report.render import _section_blocks
from verify import certcheck
from verify.certcheck.kernel import jsonvalues as checker_json
from verify.certcheck.results import glance as checker_glance
from verify.certcheck.results import sections as checker_sections
from verify.experiments.conjectures import atlas_census as census_module
from verify.experiments.conjectures import atlas_section as atlas
from verify.experiments.registry import SECTION_PROVIDERS

REPO = Path(__file__).resolve().parents[2]
TINY_GRID = {"n": [3], "d": [2], "alpha": [Fraction(1, 2)], "samples": 3, "seed": 0, "layers": 40}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """RUNS/atlas/ as scripts/atlas.sh lays it out, from two tiny sweeps (emerging_leader has late leaders), the
    emergence one with the optimiser stage."""
    root = tmp_path_factory.mktemp("atlas")
    for measurement in ("last_leader_layer", "constancy_layer"):
        work = root / "work" / measurement
        optimise = ["--optimise", "8"] if measurement == "last_leader_layer" else []
        assert main(["sweep", measurement, "--out", str(work), "--families", "emerging_leader", "--n", "4",
                     "--alpha", "1/16,1", "--samples", "3", "--seed", "0", *optimise]) == 0
        final = root / "runs" / "atlas" / measurement
        final.mkdir(parents=True)
        for name in ("sweep.json", "sweep.md"):
            shutil.copy(work / name, final / name)
        for png in (work / "figures").glob("*.png"):
            shutil.copy(png, final / png.name)
    census_module.write_census(TINY_GRID, root / "runs" / "atlas" / "general_a")
    census_module.write_leader_control(REPO / "runs" / "control" / "study.json", root / "runs" / "atlas" /
                                       "leader_control", "runs/control/study.json")
    return root / "runs"


def _block(runs: Path) -> tuple[dict, list]:
    optional, inputs = collect_optional_sections(runs, "RUNS")
    return json.loads(json.dumps(optional["atlas"])), inputs


def test_one_subsection_per_question_each_opening_with_its_answer(runs: Path) -> None:
    block, _ = _block(runs)
    section = SECTION_PROVIDERS["atlas"].section(block)
    assert [t.heading for t in section.tables] == [*atlas.QUESTIONS.values(), atlas.SUBSECTIONS["general_a"],
                                                   "General A: the counterexamples", atlas.SUBSECTIONS["leader_control"]]
    emergence, constancy, general_a, counterexamples, control = section.tables
    record = json.loads((runs / "atlas" / "last_leader_layer" / "sweep.json").read_text())
    latest = max(c["result"]["extreme"]["certified_value"] for c in record["cells"])
    assert latest > 0  # the family's leader emerges late
    assert emergence.intro.startswith(f"Leaders can emerge late, the latest at layer {latest} in this grid")
    assert "**Certified**: 2 of 2 extremes" in emergence.note and "**Measured**: the medians" in emergence.note
    # The optimiser's best beside the sampled extreme: here it finds nothing later, and says so.
    assert emergence.headers[-1] == atlas.OPTIMISER_COLUMN == "optimiser's best (certified)"
    bests = [c["result"]["optimised"] for c in record["cells"]]
    assert all(b["certified"] and not b["improves"] for b in bests)
    assert emergence.rows[0][-1] == f"{max(b['certified_value'] for b in bests)} at alpha = 1/16; later than sampled " \
                                    "in 0 of 2"
    assert emergence.intro.endswith("; the worst-case optimiser (8 exact probes per cell from its best samples) "
                                    "found no later one in any of the 2 cells (its best certified in 2 of them).")
    assert "**Certified**: 2 of 2 optimiser's bests" in emergence.note
    assert atlas.OPTIMISER_COLUMN not in constancy.headers
    assert constancy.headers[-2:] == ["fitted c (c / alpha)", "unsettled"]
    assert "c / alpha" in constancy.intro and "**Measured**: the medians and the fit" in constancy.note
    # Rendered: the answer is the paragraph right after the question's heading.
    blocks = _section_blocks(section)
    heading = next(i for i, b in enumerate(blocks) if b.kind == "h3"
                   and b.text == atlas.QUESTIONS["last_leader_layer"])
    assert (blocks[heading + 1].kind, blocks[heading + 1].text) == ("p", emergence.intro)
    # General A and leader control: the answer, then what is certified and what is measured or only evidence.
    for table in (general_a, control):
        assert table.intro.endswith(".") and ". " not in table.intro and "; " not in table.intro.split(";")[0]
        assert "**Certified**" in table.note
    assert "**Measured**: nothing" in general_a.note and "**Solver evidence**" in control.note
    assert general_a.intro.startswith("On 18 configurations outside the hypotheses, ")
    assert "T0 fails for non-symmetric positive definite A" in general_a.intro
    assert general_a.headers == ["class of A", "configurations", *census_module.CLAIMS]
    assert general_a.rows[0][:4] == ["non-symmetric positive definite", "9", "fails 1/9", "held 8/9 (1 inconclusive)"]
    assert [row[:2] for row in counterexamples.rows] == [["non-symmetric positive definite", "T0"],
                                                        ["non-symmetric positive definite", "D2"],
                                                        ["negative semidefinite", "D2"]]
    assert all(row[-1].startswith("yes: re-verified:") for row in counterexamples.rows)
    assert control.headers[4:6] == ["realisable (certified)", "impossible (certified)"]
    files = {Path(f.file).name for f in section.figures}
    assert files == {f"{m}-{kind}-emerging_leader.png" for m in atlas.QUESTIONS for kind in ("heatmap", "curves")} | {
        "general_a-claims.png", "leader_control-realisable.png"}
    assert [f.title.split(":")[0] for f in section.figures] == (["Emergence"] * 2 + ["Eventual constancy"] * 2
                                                                + ["General A, claim by claim",
                                                                   "Leader control against n and d"])
    crosses = [f.name.rsplit("-", 1)[0] for f in section.figures if "optimiser's certified best" in f.caption]
    assert crosses == ["last_leader_layer-curves"]  # the emergence sweep ran the optimiser; constancy did not
    # The digests' figures are shown as they are, not folded into a gallery.
    shown = [b for b in blocks if b.kind == "figure"]
    assert [b.figure.png for b in shown if b.figure is not None] == [f.file for f in section.figures[-2:]]
    assert section.summary.startswith("4 of 4 cell extremes certified over 2 measurement sweeps")
    assert "General A: on 18 configurations outside the hypotheses, T0 and D2 fail for some class of A, with 3 of " \
           "3 counterexamples re-verified by the independent checker" in section.summary


def test_fitted_c_is_the_least_squares_c_over_alpha() -> None:
    assert atlas.fitted_c([(Fraction(1, 4), 4), (Fraction(1), 1)]) == pytest.approx(1.0)
    # values 8 and 0 at alpha 1/4 and 1: c = (8 * 4 + 0) / (16 + 1)
    assert atlas.fitted_c([(Fraction(1, 4), 8), (Fraction(1), 0)]) == pytest.approx(32 / 17)
    assert atlas.fitted_c([]) is None


def test_the_checker_agrees_with_the_fields_and_the_first_screen_numbers(runs: Path, tmp_path: Path) -> None:
    block, inputs = _block(runs)
    files = {item["path"]: json.loads((runs.parent / item["path"].replace("RUNS", "runs", 1)).read_text(),
                                      parse_float=checker_json.DecimalText) for item in block["files"]}
    assert checker_json.same_json(block["glance"], checker_glance.glance_numbers("atlas", files, len(files)))
    assert block["glance"]["general_a"] == {"configurations": 18, "failing": ["T0", "D2"], "counterexamples": 3,
                                            "rechecked": 3}
    digest = json.loads((runs / "atlas" / "leader_control" / "realisable.json").read_text())
    assert block["glance"] == {"sweeps": 2, "cells": 4, "certified": 4, "general_a": block["glance"]["general_a"],
                               "leader_control": {name: sum(c[name] for c in digest["cells"])
                                                  for name in ("subsets", "realisable", "impossible")}}
    assert checker_sections._section_problems("atlas", block, str(runs), "RUNS", inputs, [1 << 30]) == []

    # A certified value edited in the report's copy (not in the file) is refused.
    item = block["files"][0]
    item["sweep"]["cells"][0]["result"]["extreme"]["certified_value"] += 5
    problems = checker_sections._section_problems("atlas", block, str(runs), "RUNS", inputs, [1 << 30])
    assert any("its sweep fields are not the file's" in p for p in problems), problems

    # So is the optimiser's best edited in the copy, or in the file after the report copied it.
    block, inputs = _block(runs)
    emergence = next(item for item in block["files"] if item.get("sweep", {}).get("measurement") == "last_leader_layer")
    emergence["sweep"]["cells"][0]["result"]["optimised"].update(certified_value=99, improves=True)
    problems = checker_sections._section_problems("atlas", block, str(runs), "RUNS", inputs, [1 << 30])
    assert any("its sweep fields are not the file's" in p for p in problems), problems
    copy = tmp_path / "runs"
    shutil.copytree(runs, copy)
    block, inputs = _block(copy)
    path = copy / "atlas" / "last_leader_layer" / "sweep.json"
    record = json.loads(path.read_text())
    record["cells"][1]["result"]["optimised"]["certified_value"] += 3
    path.write_text(json.dumps(record))
    problems = checker_sections._section_problems("atlas", block, str(copy), "RUNS", inputs, [1 << 30])
    assert any("sha256 is" in p for p in problems), problems
    # ... and with the report's sha256 made the edited file's, the copied fields still are not the file's.
    item = next(item for item in block["files"] if item["path"].endswith("last_leader_layer/sweep.json"))
    item["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    problems = checker_sections._section_problems("atlas", block, str(copy), "RUNS", inputs, [1 << 30])
    assert any("its sweep fields are not the file's" in p for p in problems), problems

    # So is a census count or a leader-control count edited in the copy.
    for field, edit in (("census", lambda f: f["classes"][0]["claims"]["T0"].update(failed=0)),
                        ("leader_control", lambda f: f["cells"][0].update(realisable=0))):
        block, inputs = _block(runs)
        edit(next(item[field] for item in block["files"] if field in item))
        problems = checker_sections._section_problems("atlas", block, str(runs), "RUNS", inputs, [1 << 30])
        assert any(f"its {field} fields are not the file's" in p for p in problems), problems


def test_a_malformed_sweep_is_named_with_its_field_and_the_section_still_renders(runs: Path, tmp_path: Path) -> None:
    copy = tmp_path / "runs"
    shutil.copytree(runs, copy)
    path = copy / "atlas" / "constancy_layer" / "sweep.json"
    record = json.loads(path.read_text())
    record["cells"][1]["result"]["max"] = "many"
    path.write_text(json.dumps(record))
    block, _ = _block(copy)
    unreadable = [item["summary"]["unreadable"] for item in block["files"] if "unreadable" in item["summary"]]
    assert unreadable == ["sweep.json.cells[1].result.max: expected int or NoneType, got str".replace(
        "sweep.json", "constancy_layer/sweep.json")]
    section = SECTION_PROVIDERS["atlas"].section(block)
    assert [t.heading for t in section.tables][:2] == [atlas.QUESTIONS["last_leader_layer"],
                                                       atlas.SUBSECTIONS["general_a"]]
    assert "could not be read" in section.summary


def _edited(runs: Path, tmp_path: Path, relative: str, edit: Callable[[dict], None]) -> dict:
    copy = tmp_path / "runs"
    shutil.copytree(runs, copy)
    path = copy / "atlas" / relative
    record = json.loads(path.read_text())
    edit(record)
    path.write_text(json.dumps(record))
    return _block(copy)[0]


@pytest.mark.parametrize(("relative", "edit", "message"), [
    ("general_a/census.json", lambda r: r["classes"][0]["claims"]["T0"]["counterexample"].pop("rechecked"),
     "general_a/census.json.classes[0].claims.T0.counterexample.rechecked: missing"),
    ("general_a/census.json", lambda r: r["classes"][1]["claims"]["D1"].update(certified=2),
     "general_a/census.json.classes[1].claims.D1: the counts do not add up to the class's 3 configurations"),
    ("general_a/census.json", lambda r: r["classes"][1]["claims"]["D1"].update(failed=1, certified=2),
     "general_a/census.json.classes[1].claims.D1.counterexample: expected one exactly when the claim failed"),
    ("general_a/census.json", lambda r: r.update(format="hardmax-verify/sweep-v1"),
     "general_a/census.json.format: expected 'hardmax-verify/general-a-census-v1'"),
    ("leader_control/realisable.json", lambda r: r["cells"][2].pop("subsets"),
     "leader_control/realisable.json.cells[2].subsets: missing"),
    ("leader_control/realisable.json", lambda r: r["solver"].update(cases="600"),
     "leader_control/realisable.json.solver.cases: expected int, got str"),
])
def test_a_malformed_census_or_digest_is_named_with_its_field_and_the_rest_renders(
        runs: Path, tmp_path: Path, relative: str, edit: Callable[[dict], None], message: str) -> None:
    block = _edited(runs, tmp_path, relative, edit)
    unreadable = [item["summary"]["unreadable"] for item in block["files"] if "unreadable" in item["summary"]]
    assert unreadable == [message]
    section = SECTION_PROVIDERS["atlas"].section(block)
    shown = [t.heading for t in section.tables]
    assert atlas.QUESTIONS["last_leader_layer"] in shown and atlas.QUESTIONS["constancy_layer"] in shown
    gone = atlas.SUBSECTIONS["general_a" if relative.startswith("general_a") else "leader_control"]
    assert gone not in shown and f"`RUNS/atlas/{relative}` could not be read: {message}." in section.summary
    # The first-screen numbers say the file is missing, and the checker agrees.
    assert block["glance"]["general_a" if relative.startswith("general_a") else "leader_control"] is None


def test_a_missing_census_or_digest_is_named_and_the_rest_renders(runs: Path, tmp_path: Path) -> None:
    copy = tmp_path / "runs"
    shutil.copytree(runs, copy)
    shutil.rmtree(copy / "atlas" / "general_a")
    block = _block(copy)[0]
    section = SECTION_PROVIDERS["atlas"].section(block)
    assert atlas.SUBSECTIONS["general_a"] not in [t.heading for t in section.tables]
    assert atlas.SUBSECTIONS["leader_control"] in [t.heading for t in section.tables]
    assert section.summary.endswith(f" No general_a/census.json among the saved results ({atlas.COMMAND}).")
    assert block["glance"]["general_a"] is None and "General A" not in section.summary
    assert [f.name for f in section.figures][-1] == "leader_control-realisable"


def _census(*cells: tuple[str, dict[str, tuple[int, int, int, bool | None]]]) -> dict:
    """A census of classes (label, {claim: (certified, failed, inconclusive, rechecked)}), the other claims held."""
    classes = []
    for label, given in cells:
        total = sum(next(iter(given.values()))[:3]) if given else 10
        claims = {}
        for claim in census_module.CLAIMS:
            certified, failed, inconclusive, rechecked = given.get(claim, (total, 0, 0, None))
            claims[claim] = {"certified": certified, "failed": failed, "inconclusive": inconclusive,
                             "counterexample": None if not failed else {"rechecked": rechecked}}
        classes.append({"label": label, "configurations": total, "claims": claims})
    return {"claims": list(census_module.CLAIMS), "classes": classes}


def test_the_general_A_answer_says_what_the_census_shows_whichever_way_it_falls() -> None:
    every = atlas.general_a_answer(_census(("indefinite", {}), ("negative semidefinite", {})))
    assert every == ("On 20 configurations outside the hypotheses, T0, T1, T2, T3, T4, D1, D2 and D3 held on every "
                     "one, and no claim failed for any class of A.")
    mixed = atlas.general_a_answer(_census(("indefinite", {"T0": (8, 2, 0, True), "T4": (7, 0, 3, None)}),
                                           ("negative semidefinite", {"T0": (9, 1, 0, True), "D2": (5, 5, 0, True)})))
    assert mixed == ("On 20 configurations outside the hypotheses, T1, T2, T3, D1 and D3 held on every one and T4 "
                     "never failed where the exact check decided it, while T0 fails for indefinite and negative "
                     "semidefinite A and D2 fails for negative semidefinite A, each with an exact counterexample that "
                     "`hardmax-verify certcheck` re-verifies.")
    unverified = atlas.general_a_answer(_census(("indefinite", {"T2": (9, 1, 0, False)}), ("low-rank PSD", {})))
    assert unverified.endswith("while T2 fails for indefinite A (none for low-rank PSD A), each with an exact "
                               "counterexample, of which the independent checker does not re-verify T2 (indefinite).")
    for answer in (every, mixed, unverified):
        assert answer.count(".") == 1 and answer.endswith(".")  # one sentence


def _emergence_sweep(*cells: tuple[str, int, dict | None]) -> dict:
    """A projected emergence sweep of (alpha, certified extreme, optimiser's best or None) cells, emerging_leader n = 3."""
    return {"measurement": "last_leader_layer", "grid": {"samples": 40, "seed": 0, "layers": 200},
            "cells": [{"cell": {"family": "emerging_leader", "n": 3, "d": 2, "alpha": alpha},
                       "result": {"samples": 40, "defined": 40, "undefined": 0, "q50": 1, "max": value,
                                  "status": "certified", "extreme": {"certified": True, "certified_value": value},
                                  **({"optimised": best} if best is not None else {})}}
                      for alpha, value, best in cells]}


def _best(value: int | None, *, improves: bool, certified: bool = True) -> dict:
    return {"probes": 200, "value": value, "improves": improves, "certified": certified,
            "certified_value": value if certified else None}


def test_the_emergence_answer_says_what_the_optimiser_found_whichever_way_it_falls() -> None:
    without = atlas.emergence_answer(_emergence_sweep(("1/64", 8, None), ("1", 1, None)))
    assert without == ("Leaders can emerge late, the latest at layer 8 in this grid (emerging_leader, n = 3, d = 2, "
                       "alpha = 1/64); per alpha the latest certified first-leading layer is 8 at alpha = 1/64 and 1 "
                       "at alpha = 1.")
    later = atlas.emergence_answer(_emergence_sweep(("1/64", 8, _best(13, improves=True)),
                                                    ("1", 1, _best(1, improves=False))))
    assert later == ("Leaders can emerge late, the latest at layer 8 among the samples of this grid (emerging_leader, "
                     "n = 3, d = 2, alpha = 1/64); per alpha the latest certified first-leading layer is 8 at alpha "
                     "= 1/64 and 1 at alpha = 1; the worst-case optimiser (200 exact probes per cell from its best "
                     "samples) found a later one, certified, in 1 of 2 cells, the latest at layer 13 "
                     "(emerging_leader, n = 3, d = 2, alpha = 1/64).")
    # A later best that is not certified is never named as a value, nor counted as found.
    unsure = atlas.emergence_answer(_emergence_sweep(("1/64", 8, _best(13, improves=True, certified=False)),
                                                     ("1", 1, _best(1, improves=False))))
    assert unsure.endswith("; the worst-case optimiser (200 exact probes per cell from its best samples) found a "
                           "later one in 1 of the 2 cells, none of them certified, so it shows none.")
    assert "13" not in unsure
    sweep = _emergence_sweep(("1/64", 8, _best(13, improves=True, certified=False)), ("1", 1, _best(2, improves=True)))
    table = atlas._emergence(sweep)
    assert table.headers[-1] == atlas.OPTIMISER_COLUMN
    assert table.rows == [["emerging_leader", "3", "2", "8 / 1", "1 / 1",
                           "2 at alpha = 1; later than sampled in 1 of 2 (1 not certified)"]]
    assert "**Certified**: 1 of 2 optimiser's bests" in table.note
    for answer in (without, later, unsure):
        assert answer.endswith(".") and ". " not in answer  # one sentence


def _digest(shares: dict[int, list[tuple[int, int]]]) -> dict:
    return {"cells": [{"n": n, "d": d, "subsets": subsets, "realisable": realisable}
                      for d, row in shares.items() for n, (realisable, subsets) in zip((4, 6, 8), row)]}


def test_the_leader_control_answer_says_how_the_share_moves_whichever_way() -> None:
    answer = atlas.leader_control_answer(_digest({2: [(9, 10), (8, 10), (7, 10)], 3: [(10, 10)] * 3}))
    assert answer == ("Pooled over n = 4-8, the share of subsets of hull vertices realisable at layer 0 is 80.0% in "
                      "d = 2 and 100.0% in d = 3, rising with d; against n it falls from 90.0% to 70.0% in d = 2 and "
                      "stays at 100.0% in d = 3.")
    answer = atlas.leader_control_answer(_digest({2: [(5, 10), (9, 10), (6, 10)], 3: [(1, 10), (2, 10), (4, 10)]}))
    assert answer == ("Pooled over n = 4-8, the share of subsets of hull vertices realisable at layer 0 is 66.7% in "
                      "d = 2 and 23.3% in d = 3, falling with d; against n it varies between 50.0% and 90.0% with no "
                      "steady trend in d = 2 and rises from 10.0% to 40.0% in d = 3.")


def test_the_figures_are_the_same_bytes_for_the_same_record(runs: Path) -> None:
    census = json.loads((runs / "atlas" / "general_a" / "census.json").read_text())
    assert census_module.draw_census(census) == census_module.draw_census(census) == (
        runs / "atlas" / "general_a" / "claims.png").read_bytes()
    digest = json.loads((runs / "atlas" / "leader_control" / "realisable.json").read_text())
    assert census_module.draw_leader_control(digest) == (runs / "atlas" / "leader_control" / "realisable.png").read_bytes()
    # The census is the same bytes when made again (same grid, same seed).
    record, saved = census_module.run_census(TINY_GRID)
    assert record == census and set(saved) == {p.relative_to(runs / "atlas" / "general_a").as_posix()
                                                for p in (runs / "atlas" / "general_a" / "counterexamples").glob("*")}
    assert census_module.census_cell(census["classes"][0]["claims"]["T0"])[0] == census_module.REFUTED
    assert census_module.census_cell(census["classes"][1]["claims"]["T0"]) == (census_module.HELD, "held\n3/3")


def test_the_committed_atlas_is_of_the_documented_grid() -> None:
    grid = tomllib.loads((REPO / "scripts" / "atlas.toml").read_text())
    for measurement in atlas.QUESTIONS:
        record = json.loads((REPO / "runs" / "atlas" / measurement / "sweep.json").read_text())
        assert record["measurement"] == measurement
        shown = record["grid"]
        assert {k: shown[k] for k in grid} == grid
        # The emergence sweep runs the optimiser stage with scripts/atlas.sh's probes; the other, none.
        probes = re.search(r"^EMERGENCE_OPTIMISE=(\d+)$", (REPO / "scripts" / "atlas.sh").read_text(), re.M)
        assert probes is not None
        assert shown.get("optimise") == (int(probes.group(1)) if measurement == "last_leader_layer" else None)
        assert all(("optimised" in c["result"]) == ("optimise" in shown) for c in record["cells"] if c["result"])
        assert sorted(p.name for p in (REPO / "runs" / "atlas" / measurement).glob("*.png")) == sorted(
            f"{kind}-{family}.png" for kind in ("curves", "heatmap") for family in grid["families"])


def test_the_committed_census_is_of_its_grid_and_its_counterexamples_re_verify() -> None:
    folder = REPO / "runs" / "atlas" / "general_a"
    census = json.loads((folder / "census.json").read_text())
    grid = census_module.read_grid(REPO / "scripts" / "atlas_general_a.toml")
    assert census["grid"] == {**grid, "alpha": [str(a) for a in grid["alpha"]]}
    named = [x for c in census["classes"] for x in (c["claims"][k]["counterexample"] for k in census["claims"]) if x]
    assert sorted(x["file"] for x in named) == sorted(p.relative_to(folder).as_posix()
                                                     for p in (folder / "counterexamples").glob("*.json"))
    assert named and all(x["rechecked"] for x in named)
    for x in named:
        report = json.loads((folder / x["file"]).read_text(), parse_float=checker_json.DecimalText)
        assert report["outside_hypotheses"] is True and report["config"]["outside_hypotheses"] is True
        claim = Path(x["file"]).stem.rsplit("-", 1)[1]
        outcome = next(o for o in certcheck.check_report(report).outcomes if o.claim == claim)
        assert (outcome.status, outcome.reason) == ("failed", x["checker"]), x["file"]


@pytest.mark.parametrize(("claim", "tamper"), [
    ("T0", lambda r: r["verdicts"]["T0"]["evidence"]["similarity"].update(scale="1/2")),
    ("D2", lambda r: r["verdicts"]["D2"]["evidence"].update(lhs="-1")),
])
def test_certcheck_rejects_a_tampered_committed_counterexample(tmp_path: Path, claim: str,
                                                               tamper: Callable[[dict], None],
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    source = REPO / "runs" / "atlas" / "general_a" / "counterexamples" / f"nonsymmetric_pd-{claim}.json"
    assert main(["certcheck", str(source)]) == 1  # the file reports a claim false, and that is re-verified
    assert "a verified certificate shows the file's statement FALSE" in capsys.readouterr().out
    report = json.loads(source.read_text())
    tamper(report)
    edited = tmp_path / source.name
    edited.write_text(json.dumps(report))
    assert main(["certcheck", str(edited)]) == 1
    out = capsys.readouterr().out
    assert "REJECTED" in out and f"{claim} rejected" in out, out
