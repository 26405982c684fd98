"""``hardmax-verify report --config CAMPAIGN.toml``: bad files give one line naming the key, exit 2;
a good file drives the campaign and its sha256 is recorded; saved results appear as optional sections."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from verify.core import exitcodes
from verify.app.cli import main
from verify.app.report import build as report_build
from verify.app.report.build import NO_RUNS_FOLDER

ROOT = Path(__file__).resolve().parents[2]

GOOD = """
[campaign]
examples = 2
layer_budget = 40
worked = false
shrink = false

[[family]]
name = "sphere_ties"
n = [4, 6]
d = [3]
alpha = ["1/3", 2]
"""


def _report(tmp_path: Path, *args: str) -> int:
    return main(["report", "--out", str(tmp_path / "out"), "--jobs", "1", *args])


@pytest.mark.parametrize("text, key", [
    ("[campaign\nexamples = 2", "malformed TOML"),
    ("[campaign]\nexampels = 2", "campaign.exampels"),
    ("[campaign]\nexamples = \"ten\"", "campaign.examples"),
    ("[campaign]\nexamples = -1", "campaign.examples"),
    ("[campaign]\nworked = 1", "campaign.worked"),
    ("[campaign]\nlayer_budget = 0", "campaign.layer_budget"),
    ("[campaign]\ntime_budget = 0", "campaign.time_budget"),
    ("[campaign]\ntime_budget = \"1 min\"", "campaign.time_budget"),
    ("[campaign]\ntime_budget = nan", "campaign.time_budget"),
    ("[campaign]\ntime_budget = true", "campaign.time_budget"),
    ("[[family]]\nname = \"no_such_family\"", "family[0].name"),
    ("[[family]]\nname = \"generic\"\nn = [3, 99]", "family[0].n"),
    ("[[family]]\nname = \"generic\"\nd = [2, 7]", "family[0].d"),
    ("[[family]]\nname = \"coplanar\"\nd = [2]", "family[0].d"),
    ("[[family]]\nname = \"generic\"\nalpha = [\"-1/2\"]", "family[0].alpha"),
    ("[[family]]\nname = \"generic\"\ncolour = \"red\"", "family[0].colour"),
    ("[[family]]\nname = \"generic\"\noptions = {matrix = \"weird\"}", "family[0].options.matrix"),
    ("[[family]]\nname = \"generic\"\n[[family]]\nname = \"generic\"", "each family may appear once"),
    ("[extras]\nx = 1", "extras"),
])
def test_bad_campaign_file_is_one_line_naming_the_key(tmp_path: Path, capsys, text: str, key: str) -> None:
    path = tmp_path / "CAMPAIGN.toml"
    path.write_text(text, encoding="utf-8")
    assert _report(tmp_path, "--config", str(path)) == exitcodes.BAD_INPUT
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("error: ") and key in err and str(path) in err
    assert not (tmp_path / "out").exists()


def test_missing_campaign_file(tmp_path: Path, capsys) -> None:
    assert _report(tmp_path, "--config", str(tmp_path / "nope.toml")) == exitcodes.BAD_INPUT
    assert "file not found" in capsys.readouterr().err


@pytest.mark.slow
def test_campaign_file_drives_the_run_and_is_hashed(tmp_path: Path) -> None:
    path = tmp_path / "CAMPAIGN.toml"
    path.write_text(GOOD, encoding="utf-8")
    runs = tmp_path / "runs"
    (runs / "sentiment").mkdir(parents=True)
    (runs / "conjectures").mkdir(parents=True)
    (runs / "sentiment" / "d2.json").write_text(json.dumps({"d": 2, "test_accuracy": 0.79, "curve": [1, 2]}),
                                                encoding="utf-8")
    (runs / "conjectures" / "broken.json").write_text("{not json", encoding="utf-8")
    assert _report(tmp_path, "--config", str(path), "--seed", "7", "--runs", str(runs)) == exitcodes.SUCCESS
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert [r["task"]["family"] for r in results["examples"]] == ["sphere_ties", "sphere_ties"]
    assert all(len(r["configuration"]["tokens"][0]) == 3 for r in results["examples"])
    assert results["campaign"]["layer_budget"] == 40 and results["campaign"]["source"] == str(path)
    digests = {i["role"]: i["sha256"] for i in results["inputs"]}
    assert digests["campaign"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert digests["sentiment results"] == hashlib.sha256((runs / "sentiment" / "d2.json").read_bytes()).hexdigest()
    sentiment = results["optional_sections"]["sentiment"]["files"][0]
    assert sentiment["summary"] == {"d": 2, "test_accuracy": 0.79}
    assert results["optional_sections"]["conjectures"]["files"][0]["summary"] == {
        "unreadable": "malformed JSON at line 1, column 2: Expecting property name enclosed in double quotes"}
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "## Sentiment: the earlier tuned study (single runs, saved results)" in markdown and "test_accuracy = 0.79" in markdown
    assert "## Conjecture runs (saved results)" in markdown


@pytest.mark.slow
def test_without_saved_results_the_report_says_which_sections_it_skipped(tmp_path: Path, capsys) -> None:
    path = tmp_path / "CAMPAIGN.toml"
    path.write_text(GOOD, encoding="utf-8")
    (tmp_path / "runs" / "sentiment").mkdir(parents=True)
    assert _report(tmp_path, "--config", str(path), "--examples", "1", "--runs", str(tmp_path / "runs")) == 0
    err = capsys.readouterr().out  # the summary, on standard output
    runs = (tmp_path / "runs").as_posix()
    assert f"skipped the optional sentiment section: {runs}/sentiment holds no saved results" in err
    assert f"skipped the optional conjectures section: the folder {runs}/conjectures does not exist" in err
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "(saved results)" not in markdown
    assert "## Optional sections skipped" in markdown and f"the folder {runs}/conjectures does not exist" in markdown
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert len(results["examples"]) == 1
    assert results["optional_sections"]["conjectures"]["skipped"].startswith(
        f"the folder {runs}/conjectures does not exist; written by `hardmax-verify conjecture run NAME --results-dir "
        f"{runs}/conjectures`")
    assert f"skipped the optional classify section: the folder {runs}/classify does not exist; written by " \
           f"`hardmax-verify classify imdb" in err


@pytest.mark.slow
def test_default_output_folder_is_reports_latest_and_saved_results_come_from_the_clone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # Started in an unrelated folder: the project's saved results are still found (from the
    # package's clone, not the current folder) and shown as runs/..., whatever the clone's path.
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--examples", "1", "--jobs", "1"]) == exitcodes.SUCCESS
    assert "skipped" not in capsys.readouterr().out
    results = json.loads((tmp_path / "reports" / "latest" / "results.json").read_text(encoding="utf-8"))
    assert results["campaign"]["source"] == "embedded defaults"
    assert len(results["examples"]) == 5  # the four worked configurations and one generated
    sections = results["optional_sections"]
    assert sections["sentiment"]["directory"] == "runs/sentiment" and sections["sentiment"]["files"]
    assert sections["conjectures"]["directory"] == "runs/conjectures" and sections["conjectures"]["files"]
    # Saved results under runs/, the specification the claims are checked against as docs/theory.md: never the
    # clone's own path.
    assert all(item["path"].startswith("runs/") for item in results["inputs"] if item["role"] != "specification")
    assert [item["path"] for item in results["inputs"] if item["role"] == "specification"] == ["docs/theory.md"]
    assert str(ROOT) not in json.dumps({k: v for k, v in results.items() if k != "environment"})
    assert "--runs" not in results["environment"]["command_line"]


@pytest.mark.slow
def test_an_installed_copy_says_it_has_no_saved_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys) -> None:
    monkeypatch.setattr("verify.app.commands.report.project_runs", lambda: None)
    path = tmp_path / "CAMPAIGN.toml"
    path.write_text(GOOD, encoding="utf-8")  # no worked configurations: the campaign is beside the point
    assert _report(tmp_path, "--config", str(path), "--examples", "1") == exitcodes.SUCCESS
    err = capsys.readouterr().out
    for section in ("sentiment", "conjectures"):
        assert f"skipped the optional {section} section: no saved results to read: the package does not run " \
               "from a clone of the repository and no --runs FOLDER was given" in err
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert results["optional_sections"]["sentiment"] == {"directory": None, "files": [], "skipped": NO_RUNS_FOLDER}


OUTSIDE = """
[campaign]
examples = 2
worked = false

[[family]]
name = "duplicates"
n = [4, 6]
d = [2]
"""


@pytest.mark.slow
def test_outside_families_need_an_explicit_opt_in(tmp_path: Path, capsys) -> None:
    path = tmp_path / "CAMPAIGN.toml"
    path.write_text(OUTSIDE, encoding="utf-8")
    assert _report(tmp_path, "--config", str(path)) == exitcodes.BAD_INPUT
    err = capsys.readouterr().err
    assert "family[0].name" in err and "--outside-hypotheses" in err
    # Either the flag or the file's key suffices; the examples then say they are outside. A duplicated
    # top token never leads, and the closed form (docs/theory.md D9) settles its group outside K: T3 false.
    assert _report(tmp_path, "--config", str(path), "--outside-hypotheses") == exitcodes.FALSE
    path.write_text(OUTSIDE.replace("worked = false", "worked = false\noutside_hypotheses = true"), encoding="utf-8")
    assert _report(tmp_path, "--config", str(path)) == exitcodes.FALSE
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert results["campaign"]["outside_hypotheses"] is True
    assert all(r["configuration"]["outside_hypotheses"] for r in results["examples"])
    assert "outside the theorem's hypotheses" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_saved_results_in_the_layouts_the_other_commands_write(tmp_path: Path) -> None:
    """Sentiment checkpoints/analyses live one folder down; conjecture runs get a table."""
    runs = tmp_path / "runs"
    (runs / "sentiment" / "d2-paper").mkdir(parents=True)
    (runs / "sentiment" / "analysis").mkdir(parents=True)
    (runs / "conjectures" / "counterexamples").mkdir(parents=True)
    (runs / "sentiment" / "d2-paper" / "checkpoint.json").write_text(
        json.dumps({"format": "ckpt/1", "best": {"epoch": 3, "val_acc": 0.8}, "history": [{"epoch": 1}]}), encoding="utf-8")
    (runs / "sentiment" / "analysis" / "analysis.json").write_text(
        json.dumps({"seed": 0, "lines": ["leaders mean 4.9", "T3 fails 0"]}), encoding="utf-8")
    (runs / "conjectures" / "every_token_settles.json").write_text(
        json.dumps({"conjecture": "every_token_settles", "outcome": "not refuted", "expected": "held",
                    "examples_run": 64, "summary": "not refuted by 64 examples",
                    "covered": "n 2-8, d 1-3"}), encoding="utf-8")
    (runs / "conjectures" / "counterexamples" / "x.json").write_text("{}", encoding="utf-8")
    path = tmp_path / "CAMPAIGN.toml"
    path.write_text(GOOD, encoding="utf-8")
    assert _report(tmp_path, "--config", str(path), "--examples", "1", "--runs", str(runs)) == exitcodes.SUCCESS
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    sentiment = {Path(f["path"]).parent.name: f["summary"] for f in results["optional_sections"]["sentiment"]["files"]}
    assert sentiment["d2-paper"] == {"format": "ckpt/1", "best.epoch": 3, "best.val_acc": 0.8}
    assert sentiment["analysis"]["lines"] == ["leaders mean 4.9", "T3 fails 0"]
    assert len(results["optional_sections"]["conjectures"]["files"]) == 1  # counterexample files are not runs
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "| every_token_settles | not refuted | held | 64 | n 2-8, d 1-3 | not refuted by 64 examples |" in markdown
    assert "says (2 lines):\n\n```\nleaders mean 4.9\nT3 fails 0\n```" in markdown


@pytest.mark.slow
def test_classification_results_become_their_section(tmp_path: Path) -> None:
    """RUNS/classify/imdb.json (`classify imdb`) and scaling.json (`bench/classify.py --json`): the
    exact-classification section, its line at a glance, the files hashed under provenance; a run the
    independent checker did not certify is said, and the report's exit status is still the campaign's."""
    folder = tmp_path / "runs" / "classify"
    folder.mkdir(parents=True)
    run = {"N": 4, "variant": "wide", "seed": 0, "sequences": 4, "certified_by_construction": 4,
           "certified_by_checker": 3, "checker_status": "failed", "blocks": 3, "parameters": 21, "max_width": 4,
           "thresholds": 0, "test_accuracy": 0.25, "test_ties": 0, "cpu_seconds": {"build": 0.1, "check": 0.2, "test": 0}}
    (folder / "imdb.json").write_text(json.dumps({
        "format": "hardmax-verify/classify-imdb-v1", "sizes": [4], "variants": ["wide"], "seeds": [0],
        "samples": [{"N": 4, "kept": 4, "removed": 0, "inseparable_groups": [], "test_reviews": 4,
                     "majority_test": 0.5}], "runs": [run]}), encoding="utf-8")
    row = {"variant": "wide", "N": 4, "tokens": 9, "blocks": 3, "parameters": 21, "max_width": 4, "thresholds": 0,
           "build_s": 0.01, "engine_s": 0.005, "check_s": 0.02, "baseline_s": 0.5}
    (folder / "scaling.json").write_text(json.dumps({
        "format": "hardmax-verify/classify-scaling-v1", "mode": "quick", "d": 3, "plan": {"baseline_sizes": [4]},
        "by_size": [row], "by_length": []}), encoding="utf-8")
    path = tmp_path / "CAMPAIGN.toml"
    path.write_text(GOOD, encoding="utf-8")
    assert _report(tmp_path, "--config", str(path), "--examples", "1", "--runs", str(tmp_path / "runs")) == 0
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    section = results["optional_sections"]["classify"]
    assert [Path(f["path"]).name for f in section["files"]] == ["imdb.json", "scaling.json"]
    assert section["files"][0]["imdb"]["runs"][0]["certified_by_checker"] == 3
    roles = {Path(i["path"]).name: i["role"] for i in results["inputs"]}
    assert roles["imdb.json"] == roles["scaling.json"] == "classify results"
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "## Exact sequence classification (saved results)" in markdown
    assert "| 4 | wide | 4 (0 removed) | 0 | NO: seed 0: 3 of 4 (failed) |" in markdown
    assert "1 of 1 networks built were NOT certified by the independent checker" in markdown
    assert "| wide | N = 4 | 9 | 0.50 | 100x | 25x |" in markdown
    glance = markdown[:markdown.index("## Contents")]
    assert "Exact classification" in glance and "NOT certified" in glance


@pytest.mark.slow
def test_sentiment_results_become_an_accuracy_table_and_figures(tmp_path: Path) -> None:
    """`sentiment evaluate --json` files give the accuracy table against the authors' figures (docs/theory.md §5);
    the analysis's PNGs are copied byte for byte, linked from report.md and embedded in report.html."""
    import base64

    runs = tmp_path / "runs"
    analysis = runs / "sentiment" / "analysis"
    analysis.mkdir(parents=True)
    # Every field `sentiment evaluate --json` writes (more than the generic summary keeps), in its order.
    evaluation = {"checkpoint": "models/sentiment-d4-paper", "which": "best", "epoch": 31, "d": 4,
                  "protocol": "paper", "split": "test", "reviews": 15000, "hardmax_accuracy": 0.7811,
                  "hardmax_loss_float": 0.45, "exact_path": 3, "undecided_by_float_bound": 3,
                  "hardmax_seconds": 9.25, "alpha": 1.7, "certified": "hardmax predictions are exact",
                  "softmax_accuracy": 0.7802, "softmax_seconds": 22.9, "hardmax_softmax_agreement": 0.999,
                  "softmax_best_test_epoch": {"epoch": 40, "test_acc": 0.7923, "note": "test-selected"},
                  "validation_accuracy": 0.7901}
    (runs / "sentiment" / "evaluate-d4-paper.json").write_text(json.dumps(evaluation), encoding="utf-8")
    # A second d = 4 run with the better validation accuracy but the worse test number: it is the
    # one chosen for d = 4 (choosing on test would pick the first).
    other = {**evaluation, "checkpoint": "models/sentiment-d4-paper-min2", "hardmax_accuracy": 0.7733,
             "validation_accuracy": 0.7955}
    (runs / "sentiment" / "evaluate-d4-paper-min2.json").write_text(json.dumps(other), encoding="utf-8")
    analysed = {"path": "models/sentiment-d4-paper", "d": 4, "epoch": 31,
                "leader_statistics": {"mean": 5.25, "std": 1.5, "min": 1, "max": 11,
                                      "fraction_initial_leaders_mean": 0.99},
                "leader_words": {"reviews_selected": 900, "top": [["great", 120], ["worst", 80]]},
                "lexicon": {"leader_polar_share": 0.61, "all_polar_share": 0.16},
                "unseen_words": {"unseen_leader_share": 0.027, "unseen_token_share": 0.017, "unseen_leaders": 2100,
                                 "reviews_with_unseen_leader": 4200, "reviews": 15000},
                "without_attention": {"reviews": 15000, "accuracy_without_attention": 0.8125,
                                      "accuracy_at_K": 0.7811, "predictions_changed": 900, "exact_path": 0},
                "K_vs_converged": {"configurations": 3000, "predictions_changed": 2,
                                   "distance_K_to_converged": {"max": 0.125}},
                "hypotheses": {"reviews": 15000, "within_hypotheses": 0,
                               "T0_leader_within_K": {"holds": 14990, "fails": 10},
                               "T3_limits_on_boundary_of_K": {"holds": 1500, "fails": 1497, "without_leader": 3}}}
    (analysis / "analysis.json").write_text(json.dumps({"seed": 0, "lines": ["x"], "checkpoints": [analysed],
                                                        "authors_d2": {"samples": 2000, "distinct": {
                                                            "leaders": {"mean": 4.94, "std": 1.14, "min": 2, "max": 9},
                                                            "T0_leader_within_K": {"holds": 2000, "fails": 0},
                                                            "certified_limits": {
                                                                "configurations": 200, "limits_certified": 200,
                                                                "status_counts": {"certified": 200},
                                                                "predictions_changed": 1,
                                                                "distance_K_to_limit": {"max": 0.0046}}}}}),
                                            encoding="utf-8")
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(40))  # not rendered, only copied and embedded
    (analysis / "sentiment-d4-paper_leader_words.png").write_bytes(png)
    path = tmp_path / "CAMPAIGN.toml"
    path.write_text(GOOD, encoding="utf-8")
    assert _report(tmp_path, "--config", str(path), "--examples", "1", "--runs", str(runs)) == exitcodes.SUCCESS
    out = tmp_path / "out"
    markdown = (out / "report.md").read_text(encoding="utf-8")
    row = next(line for line in markdown.splitlines() if line.startswith("| 4 | `models/sentiment-d4-paper` |"))
    assert "0.8228" in row and "0.7923 (epoch 40)" in row and "0.7811 (epoch 31)" in row and "| 3 |" in row
    assert "| 0.7901 |" in row and "chosen" not in row
    chosen = next(line for line in markdown.splitlines() if line.startswith("| 4 | `models/sentiment-d4-paper-min2` |"))
    assert "0.7733 (epoch 31) | 0.7955 (chosen for this d) |" in chosen
    analysis_row = next(line for line in markdown.splitlines() if line.startswith("| `models/sentiment-d4-paper` |"))
    for cell in ("5.25 (1.50, 1-11)", "99.0%", "great 120, worst 80 (900 reviews)", "61.0% / 16.0%",
                 "2.7% of leaders (1.7% of tokens); 4,200 of 15,000 reviews", "2 of 3,000 (0.125)",
                 "0.8125 (at K: 0.7811); 900 of 15,000 differ", "10 of 15,000", "1,497 of 3,000"):
        assert cell in analysis_row, cell
    authors_row = next(line for line in markdown.splitlines() if "distinct samples" in line)
    assert authors_row.startswith("| `authors' d=2 embeddings, distinct samples` | 2 | 100 | 4.94 (1.14, 2-9) |")
    assert authors_row.endswith("| 200 of 200; 1 of 200; 0.0046 |")
    copied = out / "figures" / "sentiment" / "analysis-sentiment-d4-paper_leader_words.png"
    assert copied.read_bytes() == png
    assert "](figures/sentiment/analysis-sentiment-d4-paper_leader_words.png)" in markdown
    assert "leader words" in markdown
    assert base64.b64encode(png).decode("ascii") in (out / "report.html").read_text(encoding="utf-8")
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    roles = {entry["role"] for entry in results["inputs"]}
    assert "sentiment figure" in roles


@pytest.mark.slow
def test_time_budget_makes_unsettled_examples_inconclusive_and_the_report_says_so(tmp_path: Path,
                                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 7: a campaign whose runs exceed the time budget reports it (and exits 3, not 0)."""
    path = tmp_path / "CAMPAIGN.toml"
    path.write_text("[campaign]\nexamples = 0\nworked = true\ntime_budget = 1e-9\n", encoding="utf-8")
    assert _report(tmp_path, "--config", str(path), "--runs", str(tmp_path / "none")) == exitcodes.INCONCLUSIVE
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert results["campaign"]["time_budget"] == 1e-9
    stopped = {r["task"]["name"]: r["stopped_by"] for r in results["examples"]}
    assert stopped["emerging_leader"] == "time budget" and stopped["triangle"] == "settled"
    markdown = " ".join((tmp_path / "out" / "report.md").read_text(encoding="utf-8").split())
    assert "time budget 1e-09 s per configuration" in markdown
    assert "stopped by the time budget" in markdown and "emerging_leader" in markdown
    assert "no: time budget spent at layer 0" in markdown
    # The flag overrides the file and lands in the equivalent command (the same records: their
    # figures, drawn above, are left out).
    monkeypatch.setattr(report_build, "write_figures", lambda records, out_dir, **_: [])
    assert _report(tmp_path, "--examples", "0", "--time-budget", "1e-9", "--runs", str(tmp_path / "none")) == 3
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert "--time-budget 1e-09" in results["environment"]["command_line"]


@pytest.mark.slow
def test_the_summary_goes_to_standard_output_and_json_means_what_it_means_everywhere(tmp_path: Path, capsys) -> None:
    """README: the summary on standard output, the verdict first; --json - alone on standard output; --json FILE."""
    path = tmp_path / "CAMPAIGN.toml"
    path.write_text(GOOD.replace("examples = 2", "examples = 1"), encoding="utf-8")
    runs = tmp_path / "runs"
    runs.mkdir()
    assert _report(tmp_path, "--config", str(path), "--runs", str(runs)) == exitcodes.SUCCESS
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0] == "1 configuration: certified" and lines[-1].startswith("report: ")
    assert any(line.startswith("skipped the optional sentiment section") for line in lines)
    # Piped (not a terminal), progress is one line per stage on standard error.
    assert captured.err.splitlines() == ["report: checking 1 configuration", "report: checked 1 of 1 configuration",
                                         "report: kernel", "report: figures", "report: writing"]
    written = (tmp_path / "out" / "results.json").read_text(encoding="utf-8")

    assert _report(tmp_path, "--config", str(path), "--runs", str(runs), "--json") == exitcodes.SUCCESS
    captured = capsys.readouterr()
    record = json.loads(captured.out)
    assert record["summary"]["overall"] == "certified" and "1 configuration: certified" in captured.err
    again = (tmp_path / "out" / "results.json").read_text(encoding="utf-8")
    assert record == json.loads(again)
    assert json.loads(written)["examples"] == record["examples"]

    copy = tmp_path / "copy.json"
    assert _report(tmp_path, "--config", str(path), "--runs", str(runs), "--json", str(copy)) == exitcodes.SUCCESS
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0] == "1 configuration: certified" and f"wrote {copy}" in captured.err
    assert json.loads(copy.read_text(encoding="utf-8")) == json.loads(
        (tmp_path / "out" / "results.json").read_text(encoding="utf-8"))


def test_an_output_folder_that_cannot_be_written_is_named_as_given(capsys) -> None:
    """Not the hidden lock file beside it: the folder the user gave (/proc takes no new entries, even from root),
    refused before the campaign starts."""
    assert main(["report", "--out", "/proc/nope", "--jobs", "1", "--examples", "0"]) == exitcodes.COULD_NOT_COMPLETE
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: could not complete: /proc/nope: no file can be created in /proc (")
    assert err.endswith("; nothing was run")
    assert ".lock" not in err and len(err.splitlines()) == 1
