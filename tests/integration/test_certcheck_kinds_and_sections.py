"""What a reader sees is checked, and a file is of one kind (docs/certcheck.md).

Three parts, on one small report built from the project's saved results (as in
test_certcheck_tamper.py):

* The file's kind comes from its exact marker. A results.json that also carries a softmax
  record's or a control result's keys, or a softmax record with a control result's, is refused
  (exit 2) by both entry points (``hardmax-verify certcheck`` and ``python -m verify.certcheck``),
  which agree; before, the extra keys sent the file to another checker and its false exact limit
  went unchecked.
* Each field a renderer shows from results.json is compared with the saved files, or recomputed:
  the sentiment softmax agreement counts, the reproduction tables (their means and sds from the
  per-run records), analysis rows, a section's first-screen sentence (no block-level text is
  accepted), the replay facts of a verdict's evidence and a record's horizon.
* A per-run record, checkpoint history or saved file with a key repeated within one object is
  not read with its last value (as json.loads reads it): the record is rejected, the history's
  losses not checked, and a saved file is unreadable, to the report (which reads it as strictly)
  as to the checker; a report item holding fields read from it is rejected.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.common.saved_results import copy_saved_results
from verify import certcheck
from verify.certcheck.results import reproduction
from verify.app.cli import main as cli_main
from verify.app.report.build import build_report, collect_optional_sections
from verify.app.report.glance import experiment_sentences
from verify.app.campaign import CampaignSpec, FamilySpec
from verify.experiments.sentiment.protocol import load_protocol
from verify.experiments.sentiment.summary import load_results, summarize, write_summary

REPO = Path(__file__).resolve().parents[2]
SPEC = CampaignSpec(examples=2, layer_budget=50, worked=True, float_check=False, shrink=False,
                    families=(FamilySpec("generic", n=(3, 5), d=(2,)),))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path, Path]:
    """(the results, the runs folder beside its protocols/, a folder with a softmax record and a control result)."""
    root = tmp_path_factory.mktemp("kinds")
    runs = copy_saved_results(root)
    outcome = build_report(out=root / "report", seed=3, spec=SPEC, runs_dir=runs, runs_label="runs", command_line="test")
    assert outcome.exit_status == 0
    others = root / "others"
    others.mkdir()
    assert cli_main(["softmax", str(REPO / "examples" / "softmax.json"), "--beta", "1000", "--layers", "4",
                     "--json", str(others / "softmax.json")]) == 0
    assert cli_main(["control", str(REPO / "examples" / "control.json"), "--leaders", "0,2,5",
                     "--json", str(others / "control.json")]) == 0
    return json.loads((root / "report" / "results.json").read_text(encoding="utf-8")), runs, others


@pytest.fixture()
def results(built: tuple[dict[str, Any], Path, Path]) -> dict[str, Any]:
    return copy.deepcopy(built[0])


def both_entry_points(data: dict[str, Any], runs: Path, tmp_path: Path) -> tuple[int, int, str]:
    """(exit status of hardmax-verify certcheck, of python -m verify.certcheck, the latter's stderr)."""
    path = tmp_path / "file.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    command = cli_main(["certcheck", str(path), "--runs", str(runs)])
    module = subprocess.run([sys.executable, "-m", "verify.certcheck", str(path), "--runs", str(runs)],
                            capture_output=True, text=True, cwd=REPO, timeout=600)
    return command, module.returncode, module.stderr


def test_the_report_a_softmax_record_and_a_control_result_each_verify(built: tuple[dict[str, Any], Path, Path],
                                                                      tmp_path: Path) -> None:
    results, runs, others = built
    assert both_entry_points(results, runs, tmp_path)[:2] == (0, 0)
    for name in ("softmax.json", "control.json"):
        assert both_entry_points(json.loads((others / name).read_text()), runs, tmp_path)[:2] == (0, 0), name


def _false_limit(results: dict[str, Any]) -> dict[str, Any]:
    record = results["examples"][0]
    fate = next(f for f in record["fates"] if f["limit"] is not None)
    fate["limit"] = ["7"] * len(fate["limit"])
    return results


@pytest.mark.parametrize("direction", ["results + softmax", "results + control", "softmax + control"])
def test_a_file_with_the_markers_of_two_kinds_is_refused_by_both_entry_points(
        built: tuple[dict[str, Any], Path, Path], tmp_path: Path, direction: str) -> None:
    results, runs, others = built
    softmax = json.loads((others / "softmax.json").read_text())
    control = json.loads((others / "control.json").read_text())
    if direction == "results + softmax":
        data = _false_limit(copy.deepcopy(results))
        data.update(config=softmax["config"], softmax_certificate=softmax["softmax_certificate"])
    elif direction == "results + control":
        data = _false_limit(copy.deepcopy(results))
        data.update(control)
    else:
        data = {**softmax, **control}
    command, module, stderr = both_entry_points(data, runs, tmp_path)
    assert command == module == 2
    assert "more than one kind" in stderr and len(stderr.strip().splitlines()) == 1
    # The false limit alone is rejected: the refusal above is not hiding a verdict of 0.
    if direction != "softmax + control":
        assert both_entry_points(_false_limit(copy.deepcopy(results)), runs, tmp_path)[:2] == (1, 1)


@pytest.mark.parametrize("kind,key", [("results", "softmax_stop"), ("softmax", "proves"), ("control", "by_d"),
                                      ("claims", "schema_version")])
def test_a_key_its_kind_does_not_have_is_refused(built: tuple[dict[str, Any], Path, Path], tmp_path: Path,
                                                 kind: str, key: str) -> None:
    results, runs, others = built
    if kind == "claims":
        data = {"format": certcheck.FORMAT, "config": {"tokens": [["1", "0"], ["0", "1"]], "alpha": "1/2"}}
    else:
        data = copy.deepcopy(results) if kind == "results" else json.loads((others / f"{kind}.json").read_text())
    data[key] = "anything"
    command, module, stderr = both_entry_points(data, runs, tmp_path)
    assert command == module == 2 and key in stderr


def _softmax_item(results: dict[str, Any]) -> dict[str, Any]:
    return next(f for f in results["optional_sections"]["sentiment"]["files"] if "softmax_certificate" in f)


def _set_softmax_counts(d: dict[str, Any]) -> None:
    block = _softmax_item(d)["softmax_certificate"]
    row = block["by_d"][-1]
    row.update(certified=row["reviews"], certified_share=1.0, not_certified={})


def _reproduction_item(d: dict[str, Any]) -> dict[str, Any]:
    return d["optional_sections"]["reproduction"]["files"][0]


def _table(d: dict[str, Any], name: str) -> dict[str, Any]:
    titles = {"reproduction": "The reproduction", "baselines": "K = 8 against"}
    return next(t for t in _reproduction_item(d)["reproduction_tables"] if t["title"].startswith(titles[name]))


@pytest.mark.parametrize("change", [
    _set_softmax_counts,
    lambda d: _softmax_item(d)["softmax_certificate"].update(summary="Softmax agrees with hardmax on every review."),
    lambda d: _table(d, "reproduction")["rows"][0].__setitem__(1, "0.8917 ± 0.0016 (3 of 3 seeds)"),
    lambda d: _table(d, "baselines")["rows"][-1].__setitem__(4, "helps"),
    lambda d: _reproduction_item(d).update(notes=["The test set was used once; nothing reached the epoch cap."]),
    lambda d: _reproduction_item(d)["protocol"].update(sha256="0" * 64),
    lambda d: next(f for f in d["optional_sections"]["sentiment"]["files"] if "analysis_rows" in f)
    ["analysis_rows"][0]["top_words"].__setitem__(0, ["great", 9999]),
    lambda d: next(f for f in d["optional_sections"]["sentiment"]["files"] if "analysis_rows" in f)
    ["analysis_rows"][0].update(leaders={"reviews_without_leader": 0}),
], ids=["softmax counts", "softmax sentence", "reproduction cell", "baseline verdict", "reproduction notes",
        "protocol sha256", "analysis top word", "analysis leaders"])
def test_a_copied_field_changed_is_rejected(results: dict[str, Any], built: tuple[dict[str, Any], Path, Path],
                                            tmp_path: Path, change: Callable[[dict[str, Any]], Any]) -> None:
    change(results)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    result = certcheck.check_file(str(path), runs=str(built[1]))
    assert result.exit_status == 1
    assert [o for o in result.outcomes if o.claim == certcheck.SECTIONS and o.status == "rejected"]


def test_the_tables_are_recomputed_from_the_per_run_records(built: tuple[dict[str, Any], Path, Path],
                                                            tmp_path: Path) -> None:
    """summary.json and results.json agree, but a per-run record says otherwise: the tables are not the records'."""
    results, runs, _ = built
    copied = tmp_path / "runs"
    shutil.copytree(runs, copied)
    shutil.copytree(runs.parent / "protocols", tmp_path / "protocols")
    record = copied / "sentiment" / "protocol" / "d8-K8-s0.json"
    data = json.loads(record.read_text(encoding="utf-8"))
    data["hardmax_accuracy"] = 0.99
    record.write_text(json.dumps(data), encoding="utf-8")
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    result = certcheck.check_file(str(path), runs=str(copied))
    reasons = [o.reason for o in result.outcomes if o.status == "rejected"]
    assert result.exit_status == 1 and any("the mean of its" in r for r in reasons), reasons
    # Without the protocol beside the runs folder the tables cannot be recomputed: not checked, never verified.
    shutil.rmtree(tmp_path / "protocols")
    result = certcheck.check_file(str(path), runs=str(copied))
    assert result.exit_status == 3 and any(o.status == certcheck.NOT_CHECKED and "protocol" in o.reason
                                           for o in result.outcomes)


@pytest.mark.parametrize("where", ["block", "item", "figure"])
def test_a_section_key_no_renderer_is_given_is_refused(results: dict[str, Any], built: tuple[dict[str, Any], Path, Path],
                                                       tmp_path: Path, where: str) -> None:
    block = results["optional_sections"]["reproduction"]
    target = block if where == "block" else block["files"][0] if where == "item" else block["figures"][0]
    target["summary" if where != "item" else "conclusion"] = "Conclusion: K = 8 beats the trained K = 0 baseline."
    command, module, stderr = both_entry_points(results, built[1], tmp_path)
    assert command == module == 2 and len(stderr.strip().splitlines()) == 1


def test_the_first_screen_prints_no_block_level_sentence(results: dict[str, Any]) -> None:
    planted = "Conclusion: K = 8 beats the trained K = 0 baseline at every d."
    results["optional_sections"]["reproduction"]["summary"] = planted
    assert all(planted not in sentence for _, sentence in experiment_sentences(results["optional_sections"]))


@pytest.mark.parametrize("change", [
    lambda r: r["verdicts"]["T0"]["evidence"].update(leaders=[5]),
    lambda r: r["verdicts"]["T2"]["evidence"].update(vertices=r["verdicts"]["T2"]["evidence"]["vertices"] + 1),
    lambda r: r["verdicts"]["T3"]["evidence"]["kinds"].update(leader=0),
    lambda r: r["verdicts"]["D1"]["evidence"].update(last_layer=r["verdicts"]["D1"]["evidence"]["last_layer"] + 1),
    lambda r: r.update(horizon=3),
    lambda r: r["verdicts"]["T0"]["evidence"].update(largest_A_norm_tokens=[]),
    lambda r: r["verdicts"]["T0"]["evidence"].update(
        largest_A_norm_squared=str(Fraction(r["verdicts"]["T0"]["evidence"]["largest_A_norm_squared"]) + 1)),
    lambda r: r["verdicts"]["T1"]["evidence"].update(rests_on=[]),
    lambda r: r["verdicts"]["T4"]["evidence"].update(
        non_vertex_limits=r["verdicts"]["T4"]["evidence"]["non_vertex_limits"] + 1),
    lambda r: r["verdicts"]["T4"]["evidence"].update(faces=[*r["verdicts"]["T4"]["evidence"].get("faces", []), [0]]),
    lambda r: r["verdicts"]["D2"]["evidence"].update(
        A_symmetric_positive_definite=not r["verdicts"]["D2"]["evidence"]["A_symmetric_positive_definite"]),
    lambda r: r["verdicts"]["T2"]["evidence"].update(outside_hypotheses=True),
    lambda r: r["verdicts"]["T2"]["evidence"].update(A_symmetric_positive_definite=False),
    lambda r: r["verdicts"]["T1"]["evidence"].update(measured_distance_to_attention_mean=0.5),
    lambda r: r["verdicts"]["T3"].update(evidence="certified by D7"),
], ids=["T0 leaders", "T2 vertices", "T3 kinds", "D1 last layer", "horizon", "T0 largest A-norm tokens",
        "T0 largest A-norm", "T1 rests on", "T4 non-vertex limits", "T4 faces", "D2 A spd", "T2 outside hypotheses",
        "T2 a field of D2", "T1 a measured field", "T3 evidence not an object"])
def test_evidence_and_horizon_are_the_replays(results: dict[str, Any], built: tuple[dict[str, Any], Path, Path],
                                               tmp_path: Path, change: Callable[[dict[str, Any]], Any]) -> None:
    record = next(r for r in results["examples"] if r["task"]["name"] == "emerging_leader")
    change(record)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    result = certcheck.check_file(str(path), runs=str(built[1]))
    assert result.exit_status == 1 and [o for o in result.outcomes if o.claim == certcheck.RUN and o.status == "rejected"]


# --------------------------------------------------------------------------- the reproduction's conclusion and training lengths
#
# summary.json is changed (or rewritten by the product's summarize from changed per-run records) and
# results.json rebuilt from it as the report would, so that every hash and copied field agrees: what
# remains to catch a wrong sentence, note or validation loss is the checker's own derivation.

PLANTED = "K = 8 beats the baseline at every d."


def _saved_copy(built: tuple[dict[str, Any], Path, Path], tmp_path: Path) -> Path:
    """A private copy of the runs folder with the protocol and checkpoint histories beside it."""
    root = built[1].parent
    runs = tmp_path / "runs"
    shutil.copytree(built[1], runs)
    shutil.copytree(root / "protocols", tmp_path / "protocols")
    shutil.copytree(root / "models", tmp_path / "models")
    return runs


def _summary_path(runs: Path) -> Path:
    return runs / "sentiment" / "summary" / "summary.json"


def _rewrite_summary(runs: Path, change: Callable[[dict[str, Any]], Any]) -> None:
    path = _summary_path(runs)
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def _resummarize(runs: Path) -> None:
    """summary.json as `sentiment summarize` writes it from the (changed) per-run records and checkpoints."""
    root = runs.parent
    protocol = load_protocol(root / "protocols" / "reproduction.toml")
    evaluations, interpretations = load_results(runs / "sentiment" / "protocol")
    summary = summarize(protocol, evaluations, interpretations, models_dir=root / "models" / "reproduction")
    old = json.loads(_summary_path(runs).read_text(encoding="utf-8"))
    summary.update(figures=old["figures"], protocol={**summary["protocol"], "file": old["protocol"]["file"]})
    write_summary(summary, _summary_path(runs))


def _reported(results: dict[str, Any], runs: Path) -> dict[str, Any]:
    """``results`` with its reproduction block and inputs read again from ``runs``, as the report builds them."""
    sections, inputs = collect_optional_sections(runs, label="runs")
    block = results["optional_sections"]["reproduction"]
    block.update(files=sections["reproduction"]["files"], glance=sections["reproduction"]["glance"])
    stated = {e["path"]: e["sha256"] for e in inputs}
    for entry in results["inputs"]:
        entry["sha256"] = stated.get(entry["path"], entry["sha256"])
    return results


def _check(results: dict[str, Any], runs: Path, tmp_path: Path, **options: str) -> certcheck.CheckResult:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    return certcheck.check_file(str(path), runs=str(runs), **options)


def _section(result: certcheck.CheckResult) -> certcheck.Outcome:
    return next(o for o in result.outcomes if o.source.endswith("optional_sections.reproduction"))


def test_the_report_rebuilt_from_an_unchanged_copy_verifies(results: dict[str, Any],
                                                            built: tuple[dict[str, Any], Path, Path],
                                                            tmp_path: Path) -> None:
    """The control for the tests below: rebuilding results.json from the saved files changes nothing checked."""
    runs = _saved_copy(built, tmp_path)
    _rewrite_summary(runs, lambda data: None)  # rewritten (new bytes, new sha256), same content
    result = _check(_reported(results, runs), runs, tmp_path)
    assert result.exit_status == 0 and _section(result).status == "verified", _section(result)


def test_a_planted_sentence_in_results_json_is_rejected_by_both_entry_points(
        results: dict[str, Any], built: tuple[dict[str, Any], Path, Path], tmp_path: Path) -> None:
    _reproduction_item(results)["sentence"] = PLANTED
    results["optional_sections"]["reproduction"]["glance"]["sentence"] = PLANTED
    assert both_entry_points(results, built[1], tmp_path)[:2] == (1, 1)


def _swap_verdict(data: dict[str, Any]) -> None:
    sentence = data["summary"]
    hurts = "the trained mean-of-embeddings baseline (K = 0) beats the K = 8 attention layers"
    assert hurts in sentence
    data["summary"] = sentence.replace(hurts, "the K = 8 attention layers beat the trained mean-of-embeddings "
                                              "baseline (K = 0)")


TASK_LEVEL = " Clustering by the attention layers does not help this task."


def _misstate_completeness(data: dict[str, Any]) -> None:
    """A task-level conclusion added while a d is incomplete, or dropped once every d is decided."""
    sentence = data["summary"]
    if TASK_LEVEL in sentence:
        data["summary"] = sentence.replace(TASK_LEVEL, "")
        return
    start = sentence.index(" At d = ")
    end = sentence.index("as a whole.") + len("as a whole.")
    data["summary"] = sentence[:start] + TASK_LEVEL + sentence[end:]


def _raise_a_mean(data: dict[str, Any]) -> None:
    sentence = data["summary"]
    assert "d = 8: 0.8510 ± 0.0049" in sentence
    data["summary"] = sentence.replace("d = 8: 0.8510 ± 0.0049", "d = 8: 0.8610 ± 0.0049")


@pytest.mark.parametrize("change", [
    lambda data: data.update(summary=PLANTED),
    _swap_verdict,
    _misstate_completeness,
    _raise_a_mean,
], ids=["planted", "verdict swapped", "task-level conclusion misstated", "a mean raised"])
def test_a_sentence_that_is_not_the_derived_conclusion_is_rejected(
        results: dict[str, Any], built: tuple[dict[str, Any], Path, Path], tmp_path: Path,
        change: Callable[[dict[str, Any]], Any]) -> None:
    """summary.json, its sha256 and the report's copies agree; only the checker's derivation can tell."""
    runs = _saved_copy(built, tmp_path)
    _rewrite_summary(runs, change)
    forged = _reported(results, runs)
    command, module, _ = both_entry_points(forged, runs, tmp_path)
    assert (command, module) == (1, 1)
    outcome = _section(_check(forged, runs, tmp_path))
    assert outcome.status == "rejected" and "conclusion sentence" in outcome.reason, outcome


def _raise_d16(records: Path) -> None:
    for path in records.glob("d16-K8-s?.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        data["hardmax_accuracy"] += 0.05
        path.write_text(json.dumps(data), encoding="utf-8")


def _complete_every_cell(records: Path) -> None:
    """The missing seeds of d = 2 and 4, made from seed 1 with a small change of accuracy."""
    for name in ("d2-K8-s2", "d4-K8-s2", "d4-K0-s2"):
        data = json.loads((records / f"{name[:-1]}1.json").read_text(encoding="utf-8"))
        data["hardmax_accuracy"] -= 0.003
        (records / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")


def _leave_one_seed_per_baseline(records: Path) -> None:
    for path in records.glob("d*-K0-s[12].json"):
        path.unlink()


@pytest.mark.parametrize("change,words", [
    (_raise_d16, "at d = 16 the K = 8 attention layers beat"),
    (_complete_every_cell, "does not help this task."),
    (_leave_one_seed_per_baseline, "No conclusion yet"),
], ids=["d = 16 helps", "every cell complete", "no comparison complete"])
def test_the_checker_derives_the_sentence_the_product_writes(
        results: dict[str, Any], built: tuple[dict[str, Any], Path, Path], tmp_path: Path,
        change: Callable[[Path], Any], words: str) -> None:
    """Changed per-run records, summarized again by the product: the checker's own derivation agrees (a
    verdict that turns, the task-level sentence, no conclusion), and the old sentence is then rejected."""
    runs = _saved_copy(built, tmp_path)
    old = json.loads(_summary_path(runs).read_text(encoding="utf-8"))["summary"]
    change(runs / "sentiment" / "protocol")
    _resummarize(runs)
    new = json.loads(_summary_path(runs).read_text(encoding="utf-8"))["summary"]
    assert words in new and new != old
    result = _check(_reported(copy.deepcopy(results), runs), runs, tmp_path)
    assert result.exit_status == 0 and _section(result).status == "verified", _section(result)
    _rewrite_summary(runs, lambda data: data.update(summary=old))
    outcome = _section(_check(_reported(results, runs), runs, tmp_path))
    assert outcome.status == "rejected" and "conclusion sentence" in outcome.reason, outcome


def _training_length(data: dict[str, Any]) -> dict[str, Any]:
    return next(t for t in data["tables"] if t["name"] == "training-length")


def _row(data: dict[str, Any], run: str) -> list[str]:
    return next(r for r in _training_length(data)["rows"] if r[0] == run)


def _change_history(runs: Path) -> None:
    """d8-K8-s0's checkpoint history: a lower validation loss at its last epoch."""
    path = runs.parent / "models" / "reproduction" / "d8-K8-s0" / "checkpoint.json"
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta["history"][-1]["val_loss"] = 0.1
    path.write_text(json.dumps(meta), encoding="utf-8")


@pytest.mark.parametrize("change", [
    lambda runs: _rewrite_summary(runs, lambda data: _row(data, "d8-K8-s0").__setitem__(4, "0.3768 (22)")),
    lambda runs: _rewrite_summary(runs, lambda data: _row(data, "d8-K8-s0").__setitem__(4, "0.3868 (21)")),
    lambda runs: _rewrite_summary(runs, lambda data: _row(data, "d16-K8-s0").__setitem__(5, "0.3191")),
    lambda runs: _rewrite_summary(runs, lambda data: _row(data, "d8-K8-s0").__setitem__(5, "")),
    lambda runs: _rewrite_summary(runs, lambda data: _row(data, "d8-K8-s0").append("0.1")),
    lambda runs: _rewrite_summary(runs, lambda data: data.update(notes=[
        data["notes"][0].replace("lowest at epoch 55", "lowest at epoch 89")])),
    lambda runs: _rewrite_summary(runs, lambda data: data.update(notes=[])),
    _change_history,
    lambda runs: _rewrite_summary(runs, lambda data: _row(data, "d8-K8-s0").__setitem__(6, "record only")),
], ids=["lowest loss", "its epoch", "loss at the selected epoch", "a loss left out", "an extra column",
        "the notes' epoch", "the notes left out", "a checkpoint history changed", "a published checkpoint denied"])
def test_validation_losses_and_notes_are_the_checkpoint_histories(
        results: dict[str, Any], built: tuple[dict[str, Any], Path, Path], tmp_path: Path,
        change: Callable[[Path], Any]) -> None:
    runs = _saved_copy(built, tmp_path)
    change(runs)
    forged = _reported(results, runs)
    assert both_entry_points(forged, runs, tmp_path)[:2] == (1, 1)
    outcome = _section(_check(forged, runs, tmp_path))
    assert outcome.status == "rejected" and ("'training-length'" in outcome.reason or "notes" in outcome.reason), outcome


def test_without_the_checkpoints_the_validation_losses_are_not_checked(
        results: dict[str, Any], built: tuple[dict[str, Any], Path, Path], tmp_path: Path) -> None:
    """No models folder beside the runs: the section is not checked (exit 3), never verified; --models DIR
    names the folder wherever it is."""
    runs = _saved_copy(built, tmp_path)
    moved = tmp_path / "elsewhere"
    (tmp_path / "models" / "reproduction").rename(moved)
    result = _check(results, runs, tmp_path)
    outcome = _section(result)
    assert result.exit_status == 3 and outcome.status == certcheck.NOT_CHECKED and "--models" in outcome.reason, outcome
    command = cli_main(["certcheck", str(tmp_path / "results.json"), "--runs", str(runs), "--models", str(moved)])
    module = subprocess.run([sys.executable, "-m", "verify.certcheck", str(tmp_path / "results.json"), "--runs",
                             str(runs), "--models", str(moved)], capture_output=True, text=True, cwd=REPO, timeout=600)
    assert (command, module.returncode) == (0, 0), module.stdout[-2000:]
    # A wrong number is still rejected without the checkpoints: what can be checked is.
    _rewrite_summary(runs, _swap_verdict)
    assert _section(_check(_reported(results, runs), runs, tmp_path)).status == "rejected"


def test_checkpoint_histories_past_the_byte_limit_are_not_checked(results: dict[str, Any],
                                                                  built: tuple[dict[str, Any], Path, Path],
                                                                  tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """CHECKPOINT_HISTORY_BYTES bounds what is read of the histories; past it the losses are not checked."""
    runs = _saved_copy(built, tmp_path)
    largest = max(p.stat().st_size for p in (tmp_path / "models" / "reproduction").glob("*/checkpoint.json"))
    monkeypatch.setattr(reproduction, "CHECKPOINT_HISTORY_BYTES", largest)  # room for one file, not two
    result = _check(results, runs, tmp_path)
    outcome = _section(result)
    assert result.exit_status == 3 and outcome.status == certcheck.NOT_CHECKED, outcome
    assert "checkpoint histories are more than certcheck reads" in outcome.reason


def test_a_run_kept_as_a_record_only_is_checked_in_full(
        results: dict[str, Any], built: tuple[dict[str, Any], Path, Path], tmp_path: Path) -> None:
    """A run whose checkpoint is not published (past the budget) has no history: its loss cells are empty and
    its cap note names no loss, which the checker knows from the record, so a forged value is rejected."""
    runs = _saved_copy(built, tmp_path)
    record_path = runs / "sentiment" / "protocol" / "d2-K8-s0.json"   # reached the cap, lowest loss before it
    record = json.loads(record_path.read_text(encoding="utf-8"))
    record["published"] = False
    record_path.write_text(json.dumps(record), encoding="utf-8")
    shutil.rmtree(tmp_path / "models" / "reproduction" / "d2-K8-s0")
    _resummarize(runs)
    assert _row(json.loads(_summary_path(runs).read_text(encoding="utf-8")), "d2-K8-s0")[4:] == ["", "", "record only"]
    result = _check(_reported(copy.deepcopy(results), runs), runs, tmp_path)
    assert _section(result).status == "verified", _section(result)
    for forge in (lambda data: _row(data, "d2-K8-s0").__setitem__(4, "0.5522 (55)"),
                  lambda data: data.update(notes=[data["notes"][0].replace(
                      "d2-K8-s0 (selected epoch 90)", "d2-K8-s0 (selected epoch 90; validation loss lowest at epoch "
                      "55 and higher since, while validation accuracy still crept up)")])):
        saved = _summary_path(runs).read_text(encoding="utf-8")
        _rewrite_summary(runs, forge)
        assert _summary_path(runs).read_text(encoding="utf-8") != saved
        outcome = _section(_check(_reported(copy.deepcopy(results), runs), runs, tmp_path))
        assert outcome.status == "rejected", outcome
        _summary_path(runs).write_text(saved, encoding="utf-8")


# --------------------------------------------------------------------------- a file that says two things


def _repeat_first(text: str, key: str, first: str) -> str:
    """``text`` with ``key`` given twice in its object: ``first`` before the value json.loads keeps (the last)."""
    marker = f'"{key}": '
    assert text.count(marker) >= 1
    repeated = text.replace(marker, f"{marker}{first}, {marker}", 1)
    assert json.loads(repeated) == json.loads(text)  # json.loads, and so the product, reads the file unchanged
    return repeated


def test_a_per_run_record_with_a_repeated_key_is_rejected_not_read_with_its_last_value(
        results: dict[str, Any], built: tuple[dict[str, Any], Path, Path], tmp_path: Path) -> None:
    runs = _saved_copy(built, tmp_path)
    record = runs / "sentiment" / "protocol" / "d8-K8-s0.json"
    record.write_text(_repeat_first(record.read_text(encoding="utf-8"), "hardmax_accuracy", "0.99"), encoding="utf-8")
    outcome = _section(_check(results, runs, tmp_path))
    assert outcome.status == "rejected", outcome
    assert "the per-run record d8-K8-s0.json is not readable JSON" in outcome.reason
    assert '"hardmax_accuracy" appears twice' in outcome.reason


def test_a_checkpoint_history_with_a_repeated_key_leaves_its_losses_not_checked(
        results: dict[str, Any], built: tuple[dict[str, Any], Path, Path], tmp_path: Path) -> None:
    runs = _saved_copy(built, tmp_path)
    checkpoint = tmp_path / "models" / "reproduction" / "d8-K8-s0" / "checkpoint.json"
    checkpoint.write_text(_repeat_first(checkpoint.read_text(encoding="utf-8"), "val_loss", "0.001"), encoding="utf-8")
    result = _check(results, runs, tmp_path)
    outcome = _section(result)
    assert result.exit_status == 3 and outcome.status == certcheck.NOT_CHECKED, outcome
    assert "not readable as strict JSON" in outcome.reason and '"val_loss" appears twice' in outcome.reason


def test_a_saved_file_with_a_repeated_key_is_unreadable_to_the_report_and_the_checker(
        results: dict[str, Any], built: tuple[dict[str, Any], Path, Path], tmp_path: Path) -> None:
    """The report reads a saved file as strictly as the checker (verify.core.io.read_json): it lists a
    file with a repeated key as unreadable, which the checker accepts; an item holding fields read
    from it with its last value (as json.loads reads it) is rejected."""
    runs = _saved_copy(built, tmp_path)
    saved = next(p for p in sorted((runs / "sentiment").glob("*.json"))
                 if "hardmax_accuracy" in json.loads(p.read_text(encoding="utf-8")))
    shown = f"runs/sentiment/{saved.name}"
    block = results["optional_sections"]["sentiment"]
    [read_leniently] = [dict(item) for item in block["files"] if item["path"] == shown]  # fields read from the file
    saved.write_text(_repeat_first(saved.read_text(encoding="utf-8"), "hardmax_accuracy", "0.99"), encoding="utf-8")
    sections, inputs = collect_optional_sections(runs, label="runs")
    [item] = [item for item in sections["sentiment"]["files"] if item["path"] == shown]
    assert set(item) == {"path", "sha256", "summary"} and '"hardmax_accuracy" appears twice' in item["summary"]["unreadable"]
    block.update(files=sections["sentiment"]["files"], glance=sections["sentiment"]["glance"])  # the report rebuilt
    stated = {e["path"]: e["sha256"] for e in inputs}
    for entry in results["inputs"]:
        entry["sha256"] = stated.get(entry["path"], entry["sha256"])
    result = _check(results, runs, tmp_path)
    outcome = next(o for o in result.outcomes if o.source.endswith("optional_sections.sentiment"))
    assert outcome.status == "verified", outcome
    block["files"] = [dict(read_leniently, sha256=item["sha256"]) if i is item else i for i in block["files"]]
    result = _check(results, runs, tmp_path)
    outcome = next(o for o in result.outcomes if o.source.endswith("optional_sections.sentiment"))
    assert result.exit_status == 1 and outcome.status == "rejected", outcome
    assert shown in outcome.reason and '"hardmax_accuracy" appears twice' in outcome.reason


def test_a_section_emptied_after_the_report_is_rejected_against_its_runs_folder(
        results: dict[str, Any], built: tuple[dict[str, Any], Path, Path], tmp_path: Path) -> None:
    """A producer that blanks an unfavourable section (no files, a skipped reason, its inputs removed) is caught when
    --runs names the folder the report read, which holds that section's files; without --runs nothing says so."""
    block = results["optional_sections"]["control"]
    assert block["files"] and block["directory"] == "runs/control"
    listed = {item["path"] for item in block["files"]} | {figure.get("path") for figure in block.get("figures", [])}
    results["optional_sections"]["control"] = {"directory": block["directory"], "files": [],
                                               "skipped": "runs/control holds no saved results (study.json)"}
    results["inputs"] = [entry for entry in results["inputs"] if entry["path"] not in listed]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    result = certcheck.check_file(str(path), runs=str(built[1]))
    reasons = [o.reason for o in result.outcomes if o.claim == certcheck.SECTIONS and o.status == "rejected"]
    assert result.exit_status == 1 and any("lists no saved files, but" in r and "holds files of its patterns" in r
                                           for r in reasons), reasons
    # The same with the directory taken out too: the other sections name the folder the report read.
    results["optional_sections"]["control"]["directory"] = None
    path.write_text(json.dumps(results), encoding="utf-8")
    for runs in (str(built[1]), None):
        result = certcheck.check_file(str(path), runs=runs)
        reasons = [o.reason for o in result.outcomes if o.claim == certcheck.SECTIONS and o.status == "rejected"]
        assert result.exit_status == 1 and any("directory is null" in r for r in reasons), reasons
