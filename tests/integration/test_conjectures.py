"""The conjecture lab end to end: CLI, saved counterexamples reproduced by simulate/check, user files, examples/."""

import json
import os
import shlex
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from verify.app.cli import main
from verify.core.config import load_configuration
from verify.claims import check_configuration
from verify.experiments.conjectures import BUILTIN_CONJECTURES, run_conjecture
from verify.experiments.conjectures.catalogue import EASY
from verify.core.geometry import convex_hull_vertices

ROOT = Path(__file__).resolve().parents[2]


def _simulate(path: Path, tmp_path: Path, layers: int) -> dict:
    out = tmp_path / "trajectory.json"
    assert main(["simulate", str(path), "--layers", str(layers), "--json", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.mark.slow
def test_known_false_is_refuted_shrunk_confirmed_and_reproduced(tmp_path, capsys):
    # docs/theory.md §4: leaders are vertices, but not every initial hull vertex becomes a leader.
    status = main(["conjecture", "run", "leaders_equal_hull_vertices", "--examples", "25", "--seed", "0",
                   "--results-dir", str(tmp_path)])
    assert status == 0  # expected to be refuted, and refuted: as expected
    result = json.loads((tmp_path / "leaders_equal_hull_vertices.json").read_text())
    assert result["outcome"] == "counterexample" and result["expected"] == "refuted" and result["surprise"] is False
    counterexample = result["counterexample"]
    assert counterexample["confirmation"]["status"] == "failed"
    assert counterexample["shrinking"]["reported"]["n"] <= counterexample["shrinking"]["first_found"]["n"]

    path = tmp_path / counterexample["file"]
    config = load_configuration(path)  # inside the hypotheses: no flag needed, none written
    assert not config.outside_hypotheses and "outside_hypotheses" not in json.loads(path.read_text())
    # Reproduced by simulate: the exact leaders are fewer than the exact hull vertices.
    settled = counterexample["evidence"]["settled_layer"]
    trajectory = _simulate(path, tmp_path, settled + 1)
    leaders = sorted(entry["token"] for entry in trajectory["leaders"])
    assert leaders == counterexample["evidence"]["leaders"]
    assert len(leaders) != len(convex_hull_vertices(config.tokens))
    # ... and by the lab's own rigorous re-check from the file, and by the claim checker.
    assert main(["conjecture", "check", "leaders_equal_hull_vertices", str(path)]) == 1
    capsys.readouterr()
    assert main(["check", str(path)]) == 0  # inside the hypotheses: the theorem itself is certified
    assert "OUTSIDE HYPOTHESES" not in capsys.readouterr().out


@pytest.mark.slow
def test_d8_merge_counterexample_reproduced_by_simulate(tmp_path):
    result = run_conjecture(BUILTIN_CONJECTURES["d8_beyond_pd"], examples=100, seed=0, results_dir=tmp_path)
    assert result.outcome == "counterexample"
    evidence = result.counterexample["evidence"]
    trajectory = _simulate(result.counterexample_path, tmp_path, evidence["layer"])
    i, j = evidence["tokens"]
    final = trajectory["positions"][evidence["layer"]]
    start = trajectory["positions"][0]
    assert start[i] != start[j] and final[i] == final[j] == evidence["position"]


@pytest.mark.slow
def test_value_matrix_counterexample_keeps_V_and_check_sees_D3_fail(tmp_path, capsys):
    result = run_conjecture(BUILTIN_CONJECTURES["value_matrix_rank_one"], examples=25, seed=0, results_dir=tmp_path)
    assert result.outcome == "counterexample"
    config = load_configuration(result.counterexample_path)
    assert config.V is not None
    assert result.counterexample["evidence"]["claim"] == "D3"  # seed 0 finds a lost leader
    # The claim checker (verify.claims, through `check`) sees the same D3 failure from the file.
    assert main(["check", str(result.counterexample_path)]) == 1
    assert "D3" in capsys.readouterr().out


@pytest.mark.slow
def test_softmax_counterexample_keeps_beta_and_layers(tmp_path):
    result = run_conjecture(BUILTIN_CONJECTURES["softmax_tracks_hardmax"], examples=25, seed=0, results_dir=tmp_path)
    assert result.outcome == "counterexample"
    data = json.loads(result.counterexample_path.read_text())
    assert data["beta"] == "1000" and data["layers"] == 6 and data["outside_hypotheses"] is True
    # Confirmed at a higher arb precision than the search used.
    assert result.counterexample["confirmation"]["evidence"]["precision_bits"] >= 512
    assert main(["conjecture", "check", "softmax_tracks_hardmax", str(result.counterexample_path)]) == 1


@pytest.mark.parametrize("name", ["hull_vertex_subsets_realisable", "all_hull_vertices_lead_together"])
def test_d10_counterexample_rests_on_a_certificate_the_independent_checker_verifies(name, tmp_path, capsys):
    # docs/theory.md D10: the lab refutes it with an exact impossibility certificate, saved in the result.
    result = run_conjecture(BUILTIN_CONJECTURES[name], examples=100, seed=0, results_dir=tmp_path)
    assert result.outcome == "counterexample" and result.verdict == "as expected"
    confirmation = result.counterexample["confirmation"]
    assert confirmation["status"] == "failed"
    certificate = tmp_path / "certificate.json"
    certificate.write_text(json.dumps(confirmation["evidence"]["control_result"]))
    # `certcheck` reads it with the independent checker: exit 1 = the certificate verifies, the statement is false.
    assert main(["certcheck", str(certificate)]) == 1
    assert "1 certificate verified; nothing rejected; a verified certificate shows the file's statement FALSE" \
        in capsys.readouterr().out
    # The saved counterexample is an ordinary configuration: `conjecture check` decides it again from the file.
    assert not load_configuration(result.counterexample_path).outside_hypotheses
    assert main(["conjecture", "check", name, str(result.counterexample_path)]) == 1


def test_a_softmax_measurement_above_its_certified_bound_exits_4_as_an_internal_error(tmp_path, monkeypatch, capsys):
    from dataclasses import replace

    from verify.core.softmax_bound import LayerBound, softmax_certificate
    from verify.experiments.conjectures import builtin

    # A bound every layer claims to be 0 (a bug in the bound): any softmax deviation measured is above it.
    def zero_bound(*args, **kwargs):
        real = softmax_certificate(*args, **kwargs)
        return replace(real, stop=None, records=tuple(LayerBound(k, Fraction(0)) for k in range(real.layers + 1)))

    monkeypatch.setattr(builtin, "softmax_certificate", zero_bound)
    assert main(["conjecture", "run", "softmax_tracks_hardmax", "--examples", "20",
                 "--results-dir", str(tmp_path)]) == 4
    assert "INTERNAL ERROR (a bug of the suite, not a counterexample)" in capsys.readouterr().err
    assert not list(tmp_path.rglob("*.json"))  # no result, no counterexample
    saved = ROOT / "runs" / "conjectures" / "counterexamples" / "softmax_tracks_hardmax.json"
    assert main(["conjecture", "check", "softmax_tracks_hardmax", str(saved)]) == 4


def test_believed_true_is_not_refuted_with_its_coverage(tmp_path, capsys):
    status = main(["conjecture", "run", "every_token_settles", "--examples", "20", "--results-dir", str(tmp_path)])
    result = json.loads((tmp_path / "every_token_settles.json").read_text())
    assert status == 0 and result["outcome"] == "not refuted" and result["verdict"] == "consistent with the expectation"
    assert result["examples"]["status"]["held"] == result["examples"]["run"] >= 20
    # The words say what was searched: never "held", the examples, the seconds, the ranges covered.
    out = capsys.readouterr().out
    assert "HELD" not in out and "as expected" not in out
    assert ("every_token_settles: NOT REFUTED, consistent with the expectation (expected to hold; evidence, not a "
            "proof)") in out
    assert "not refuted by 2" in out and " s]" in out and "covered: n " in out and "settled_layer " in out
    assert result["budget"] == {"examples": 20, "seconds": None} and result["search"]["stopped_by"] == "examples"
    assert result["covered"].startswith("n ") and "settled_layer" in result["coverage"]["measurements"]
    settled = result["measurements"]["settled_layer"]
    assert settled["count"] == result["examples"]["run"] and "by_group" in settled


@pytest.mark.slow
def test_every_builtin_runs_from_the_cli_and_reports_honestly(tmp_path, capsys):
    status = main(["conjecture", "run", "all", "--examples", "3", "--results-dir", str(tmp_path)])
    outcomes, surprises = [], []
    for name in BUILTIN_CONJECTURES:
        result = json.loads((tmp_path / f"{name}.json").read_text())
        outcomes.append(result["outcome"])
        surprises.append(result["surprise"])
        assert result["surprise"] == (result["outcome"] != "inconclusive" and result["outcome"] != {
            "held": "not refuted", "refuted": "counterexample"}[result["expected"]])
        assert result["outcome"] in ("not refuted", "counterexample", "inconclusive")
        if result["outcome"] == "counterexample":
            assert (tmp_path / "counterexamples" / f"{name}.json").exists()
            assert result["counterexample_file"] == f"counterexamples/{name}.json"
    # Exit by surprises only (with 3 examples a known refutation may not be found: that is a surprise).
    expected = 1 if any(surprises) else 3 if "inconclusive" in outcomes else 0
    assert status == expected
    out = capsys.readouterr().out
    assert all(f"{name}:" in out for name in BUILTIN_CONJECTURES)


def test_list_shows_every_builtin_and_the_catalogue(capsys):
    from verify.experiments.conjectures.catalogue import CATALOGUE

    assert main(["conjecture", "list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in BUILTIN_CONJECTURES) and all(name in out for name in CATALOGUE)
    assert "[claim; expected to be refuted]" in out and "Known-false statements" in out


def test_progress_goes_to_standard_error_as_lines_when_it_is_not_a_terminal(tmp_path, capsys, monkeypatch):
    from verify.app.commands import conjecture as command

    monkeypatch.setattr(command, "PLAIN_PROGRESS_EVERY", 0.0)  # a line after every example instead of every 30 s
    assert main(["conjecture", "run", "ends_at_leader_or_tie", "--examples", "3", "--results-dir", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.startswith("ends_at_leader_or_tie: ")]
    assert [line.split(": ")[1].split(",")[0] for line in lines] == ["1 example", "2 examples", "3 examples"]
    assert not [line for line in captured.out.splitlines() if ", n <= " in line]  # standard output: the result only


def test_the_count_line_writes_each_count_with_its_noun():
    from types import SimpleNamespace
    from verify.app.commands.conjecture import count_line

    def results(verdicts):
        return [SimpleNamespace(verdict=v, conjecture=SimpleNamespace(expected="held")) for v in verdicts]

    assert count_line(results(["as expected", "surprise"])) == "1 as expected, 1 surprise, 0 inconclusive (of 2 conjectures)"
    assert count_line(results(["surprise", "surprise", "counterexample"])) == \
        "0 as expected, 2 surprises, 0 inconclusive, 1 counterexample (no expectation) (of 3 conjectures)"
    assert count_line(results(["counterexample", "counterexample"])).endswith(
        "2 counterexamples (no expectation) (of 2 conjectures)")
    assert count_line(results(["as expected"])) == "1 as expected, 0 surprises, 0 inconclusive (of 1 conjecture)"
    assert count_line(results(["as expected", "consistent with the expectation"])) == (
        "1 as expected, 1 consistent with the expectation (evidence, not a proof), 0 surprises, 0 inconclusive "
        "(of 2 conjectures)")


USER_FILE = '''
from fractions import Fraction
from verify.claims import check_configuration
from verify.experiments.conjectures import Conjecture, Observation
from verify.strategies import configurations


def one_leader(config):
    report = check_configuration(config, layer_budget=40, cross_check=False)
    leaders = [f.token for f in report.fates if f.kind == "leader"]
    if report.settled_layer is None:
        return Observation.undecided("not settled")
    if len(leaders) != 1:
        return Observation.failed(f"{len(leaders)} leaders")
    return Observation.held()


ONE_LEADER = Conjecture("only_one_leader", "There is exactly one leader.",
                        configurations(family="generic", min_n=2, max_n=5, max_d=2), one_leader)
'''


def test_a_user_written_conjecture_file_works(tmp_path):
    path = tmp_path / "user_conj.py"
    path.write_text(USER_FILE)
    assert main(["conjecture", "run", str(path), "--examples", "25", "--results-dir", str(tmp_path / "out")]) == 1
    saved = load_configuration(tmp_path / "out" / "counterexamples" / "only_one_leader.json")
    assert saved.n >= 2
    assert main(["conjecture", "check", str(path), str(tmp_path / "out" / "counterexamples" / "only_one_leader.json")]) == 1


def test_the_documented_user_conjecture_file_runs(tmp_path):
    status = main(["conjecture", "run", str(ROOT / "examples" / "my_conjecture.py"), "--examples", "10",
                   "--results-dir", str(tmp_path)])
    result = json.loads((tmp_path / "leaders_at_most_hull_vertices.json").read_text())
    # No expectation stated: not refuted 0, a counterexample 1 (the statement came out false), inconclusive 3.
    assert result["expected"] is None and result["verdict"] == result["outcome"]
    assert status == {"not refuted": 0, "counterexample": 1, "inconclusive": 3}[result["outcome"]]
    assert result["examples"]["run"] >= 10


def test_regression_the_documented_user_conjecture_counts_closed_form_leaders():
    # docs/theory.md D9, "patterns that change late": token 4 leads only from layer 201, on its closed-form path
    # (fate "path", not "leader"). Counting kind == "leader" alone reported 2 leaders; the certified set is 3.
    from verify.experiments.conjectures.loader import load_conjectures
    from verify.core.config import make_configuration

    config = make_configuration([["1/2", 1], ["1/2", -1], ["3/5", "3/4"], ["3/5", "-3/4"], ["2/5", 0]], alpha="1/100")
    report = check_configuration(config, layer_budget=60, cross_check=False)
    assert sorted(f.token for f in report.fates if f.kind == "leader") == [0, 1]
    assert report.leader_layers() == {0: 0, 1: 0, 4: 201}
    conjecture = load_conjectures(str(ROOT / "examples" / "my_conjecture.py"))[0]
    observation = conjecture.check(config)
    assert observation.measurements["leaders"] == 3 and observation.measurements["last_leader_layer"] == 201


# The documented example as it was written before the layered layout moved the lab (verify.conjectures
# -> verify.experiments.conjectures) and the core modules.
OLD_LAYOUT_IMPORTS = {
    "from verify import Configuration, Conjecture, Observation, check_configuration, configurations, convex_hull_vertices\n":
        "from verify.claims import check_configuration\nfrom verify.config import Configuration\n"
        "from verify.conjectures import Conjecture, Observation\nfrom verify.geometry import convex_hull_vertices\n"
        "from verify.strategies import configurations\n",
}


def test_a_conjecture_file_written_against_the_old_import_paths_runs_and_warns(tmp_path, capsys, monkeypatch):
    source = (ROOT / "examples" / "my_conjecture.py").read_text(encoding="utf-8")
    for new, old in OLD_LAYOUT_IMPORTS.items():
        assert new in source, "examples/my_conjecture.py changed its imports: update OLD_LAYOUT_IMPORTS"
        source = source.replace(new, old)
    path = tmp_path / "old_layout.py"
    path.write_text(source, encoding="utf-8")
    for name in ("verify.config", "verify.conjectures", "verify.geometry"):  # as in a fresh process
        monkeypatch.delitem(sys.modules, name, raising=False)
    status = main(["conjecture", "run", str(path), "--examples", "10", "--results-dir", str(tmp_path / "out")])
    err = capsys.readouterr().err
    result = json.loads((tmp_path / "out" / "leaders_at_most_hull_vertices.json").read_text())
    assert status == {"not refuted": 0, "counterexample": 1, "inconclusive": 3}[result["outcome"]]
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert [line.split(": ")[3].split(" has moved")[0] for line in warnings] == [
        "verify.config", "verify.conjectures", "verify.geometry"], err
    assert all(f"{path}:" in line and "DeprecationWarning" in line for line in warnings)
    assert "verify.conjectures has moved to verify.experiments.conjectures" in err


@pytest.mark.slow
def test_the_documented_user_pytest_example_passes_under_the_ci_profile():
    # A fresh pytest, as a user would start it: none of this run's PYTEST_* (xdist worker) variables.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["HYPOTHESIS_PROFILE"] = "ci"
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "examples/test_user_example.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "1 passed" in completed.stdout


@pytest.mark.parametrize("option", [["--examples", "0"], ["--time", "0"], ["--time", "-3"], ["--time", "nan"],
                                    ["--profile", "ci"]])
def test_bad_options_exit_2(option):
    assert main(["conjecture", "run", "d8_beyond_pd", *option]) == 2


def test_the_default_budget_is_in_seconds_shared_by_run_all():
    from verify.app.commands.conjecture import SHARED_SECONDS, default_seconds
    from verify.experiments.conjectures.search import DEFAULT_SECONDS

    assert default_seconds(1) == DEFAULT_SECONDS
    # run all: about SHARED_SECONDS in all, so a few minutes whatever the number of built-in conjectures.
    count = len(BUILTIN_CONJECTURES)
    assert default_seconds(count) * count <= SHARED_SECONDS + count and default_seconds(count) >= 10


def test_fraction_positions_are_exact_strings(tmp_path):
    # Counterexample files are exact: every coordinate parses back to the same Fraction.
    result = run_conjecture(BUILTIN_CONJECTURES["theorem_duplicate_tokens"], examples=25, seed=0, results_dir=tmp_path)
    data = json.loads(result.counterexample_path.read_text())
    config = load_configuration(result.counterexample_path)
    assert [[Fraction(x) for x in t] for t in data["tokens"]] == [list(t) for t in config.tokens]


@pytest.mark.slow
def test_a_budget_in_examples_gives_the_same_result_in_a_fresh_interpreter(tmp_path):
    # Outside pytest (no profile loaded, another process): the same seed and --examples, the same result.
    words = ["conjecture", "run", "ends_at_leader_or_tie", "--examples", "40", "--seed", "3"]
    completed = subprocess.run([sys.executable, "-m", "verify", *words, "--results-dir", str(tmp_path / "a")],
                               cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr
    assert main([*words, "--results-dir", str(tmp_path / "b")]) == 0
    first, second = (json.loads((tmp_path / side / "ends_at_leader_or_tie.json").read_text()) for side in "ab")
    for result in (first, second):
        result.pop("timing")
        result["settings"].pop("command")  # names the results folder
    assert first == second


def test_origin_counterexample_reproduced_by_check(tmp_path, capsys):
    # docs/theory.md D4: +-v plus the origin; the origin never moves and its limit lies inside K.
    result = run_conjecture(BUILTIN_CONJECTURES["theorem_origin_token"], examples=25, seed=0, results_dir=tmp_path)
    assert result.outcome == "counterexample" and result.counterexample["evidence"].keys() >= {"T3"}
    config = load_configuration(result.counterexample_path)
    assert any(not any(t) for t in config.tokens)
    assert main(["check", str(result.counterexample_path)]) == 1
    assert "T3" in capsys.readouterr().out


@pytest.mark.slow
def test_run_all_exits_0_when_every_builtin_behaves_as_expected(tmp_path, capsys):
    # 60 examples each, seed 0: nothing expected to hold is refuted, everything expected to be refuted is
    # (softmax_tracks_hardmax included: the near-origin family makes its counterexample common).
    assert main(["conjecture", "run", "all", "--examples", "60", "--results-dir", str(tmp_path),
                 "--json", str(tmp_path / "all.json")]) == 0
    out = capsys.readouterr().out
    refuted = sum(c.expected == "refuted" for c in BUILTIN_CONJECTURES.values())
    assert "SURPRISE" not in out and (f"{refuted} as expected, {len(BUILTIN_CONJECTURES) - refuted} consistent with the "
                                      "expectation (evidence, not a proof), 0 surprises") in out
    results = json.loads((tmp_path / "all.json").read_text())
    assert [r["conjecture"] for r in results] == list(BUILTIN_CONJECTURES)
    assert {r["outcome"] for r in results if r["expected"] == "refuted"} == {"counterexample"}
    assert not any(r["surprise"] for r in results)


@pytest.mark.slow
def test_the_printed_reproduce_command_for_a_user_file_works(tmp_path, monkeypatch, capsys):
    # Run as a user would, from the file's folder; then run the command the output prints, as printed.
    # In this process (verify.app.cli.main, what the console script calls): fresh interpreters are
    # shown to give the same results by test_a_budget_in_examples_gives_the_same_result_in_a_fresh_interpreter.
    (tmp_path / "user_conj.py").write_text(USER_FILE)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    status = main(["conjecture", "run", "user_conj.py", "--examples", "25", "--results-dir", "out"])
    run = capsys.readouterr()
    # No expectation stated: a counterexample is reported as one (exit 1), neither expected nor a surprise.
    assert status == 1 and "only_one_leader: COUNTEREXAMPLE — refuted" in run.out, run.out + run.err
    printed = run.out.split("(reproduce: ", 1)[1].split(")\n", 1)[0]
    words = shlex.split(printed)
    assert words[:4] == ["hardmax-verify", "conjecture", "check", "user_conj.py"]  # the file, not the name
    status = main(words[1:])
    again = capsys.readouterr()
    assert status == 1 and again.out.startswith("only_one_leader: COUNTEREXAMPLE"), again.out + again.err
    # Two tokens, nonzero and distinct, A = I: inside the hypotheses, so `check` shows no banner.
    status = main(["check", words[4], "--no-cross-check"])
    checked = capsys.readouterr()
    assert status == 0 and "OUTSIDE HYPOTHESES" not in checked.out, checked.out + checked.err


@pytest.mark.slow
@pytest.mark.parametrize("name", EASY)
def test_the_easy_part_of_the_catalogue_is_refuted_and_reproduced(name, tmp_path, capsys):
    # bench/conjecture_power.py measures the whole catalogue; every run of the suite refutes the easy part
    # with a budget in examples (reproducible), and `conjecture check` reproduces the saved counterexample.
    assert main(["conjecture", "run", name, "--examples", "600", "--results-dir", str(tmp_path)]) == 0
    result = json.loads((tmp_path / f"{name}.json").read_text())
    assert result["outcome"] == "counterexample" and result["verdict"] == "as expected"
    assert result["counterexample"]["confirmation"]["status"] == "failed"
    capsys.readouterr()
    assert main(["conjecture", "check", name, str(tmp_path / result["counterexample_file"])]) == 1
    assert capsys.readouterr().out.startswith(f"{name}: COUNTEREXAMPLE")


def test_at_most_d_plus_one_leaders_written_as_a_user_would_is_refuted(tmp_path):
    # The guess of the docs' reader: false by the square (+-1, +-1), 4 leaders in d = 2. With the rotation
    # of families (symmetric polygons, points on A-spheres) the search refutes it within one rotation.
    path = tmp_path / "guess.py"
    path.write_text(D_PLUS_ONE)
    assert main(["conjecture", "run", str(path), "--examples", "160", "--results-dir", str(tmp_path / "out")]) == 1
    result = json.loads((tmp_path / "out" / "at_most_d_plus_one.json").read_text())
    assert result["outcome"] == "counterexample" and result["examples"]["to_counterexample"] <= 160
    config = load_configuration(tmp_path / "out" / result["counterexample_file"])
    leaders = check_configuration(config, cross_check=False).fates
    assert sum(f.kind == "leader" for f in leaders) > config.d + 1


D_PLUS_ONE = '''
from verify.claims import check_configuration
from verify.experiments.conjectures import Conjecture, Observation
from verify.strategies import configurations


def at_most_d_plus_one(config):
    report = check_configuration(config, layer_budget=60, cross_check=False)
    if report.settled_layer is None:
        return Observation.undecided("not settled")
    leaders = [f.token for f in report.fates if f.kind == "leader"]
    if len(leaders) > config.d + 1:
        return Observation.failed(f"{len(leaders)} leaders in d = {config.d}")
    return Observation.held(leaders=len(leaders))


GUESS = Conjecture("at_most_d_plus_one", "There are at most d + 1 leaders.", configurations(), at_most_d_plus_one)
'''


TWO_CONJECTURES = USER_FILE + '''

def never_fails(config):
    return Observation.held(n=config.n)


ALWAYS = Conjecture("always_true", "Nothing is false.", configurations(family="generic", max_n=3, max_d=2), never_fails,
                    expected="held")
'''


def test_run_name_gives_one_conjecture_of_a_file_the_budget_of_one(tmp_path, capsys):
    path = tmp_path / "two.py"
    path.write_text(TWO_CONJECTURES)
    status = main(["conjecture", "run", str(path), "--name", "always_true", "--examples", "12",
                   "--results-dir", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert status == 0 and sorted(p.name for p in (tmp_path / "out").glob("*.json")) == ["always_true.json"]
    result = json.loads((tmp_path / "out" / "always_true.json").read_text())
    assert "--name always_true" in result["settings"]["command"]
    assert "consistent with the expectation (expected to hold; evidence, not a proof)" in out
    assert "as expected" not in out
    # Without --time the one conjecture chosen gets the budget of one, not a share of the file's.
    from verify.app.commands.conjecture import _chosen, default_seconds
    from verify.experiments.conjectures.loader import load_conjectures

    chosen = _chosen(load_conjectures(str(path)), ("always_true",), str(path))
    assert [c.name for c in chosen] == ["always_true"] and default_seconds(len(chosen)) == 60
    assert main(["conjecture", "run", str(path), "--name", "nope", "--examples", "1"]) == 2
    assert "--name" in capsys.readouterr().err


def test_conjecture_check_on_one_configuration_never_says_held(tmp_path, capsys):
    config = tmp_path / "square.json"
    config.write_text(json.dumps({"tokens": [[1, 1], [1, -1], [-1, 1], [-1, -1]], "alpha": "1/2"}))
    assert main(["conjecture", "check", "every_token_settles", str(config), "--json", str(tmp_path / "out.json")]) == 0
    out = capsys.readouterr().out
    assert "held" not in out.lower().replace("threshold", "")
    assert out.startswith("every_token_settles: satisfied by this configuration")
    assert "evidence, not a proof of the statement" in out
    assert json.loads((tmp_path / "out.json").read_text())["status"] == "satisfied"


def test_the_held_out_statements_are_listed_and_runnable_by_name(tmp_path, capsys):
    assert main(["conjecture", "list", "--json", str(tmp_path / "list.json")]) == 0
    listed = json.loads((tmp_path / "list.json").read_text())
    from verify.experiments.conjectures import HELD_OUT

    assert {e["name"] for e in listed if e["group"] == "held-out"} == set(HELD_OUT)
    capsys.readouterr()
    status = main(["conjecture", "run", "heldout", "--name", "heldout_norm_never_decreases_nonsymmetric",
                   "--examples", "100", "--results-dir", str(tmp_path)])
    assert status == 0 and "COUNTEREXAMPLE, as expected" in capsys.readouterr().out
