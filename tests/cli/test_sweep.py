"""`hardmax-verify sweep`: exit statuses, bad input named, byte-identical reruns, resume, certified extremes re-checked.

The extremes' certificates are claims reports (T1's records the first leading layer of every
leader, docs/theory.md T1, D3); the independent checker re-verifies them and refuses a tampered one.
"""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from verify.app.cli import main
from tests.common.first_leading import first_leading_layers
from verify.experiments.conjectures import sweep as sweep_module

# A small grid with a late leader in its n = 4 cell (seed 1): the extreme's value is 1, not 0.
GRID = ["--n", "3,4", "--d", "2", "--alpha", "1", "--samples", "20", "--seed", "1"]
OUTPUTS = ("sweep.json", "sweep.md", "sweep.csv")


def run_sweep(out: Path, *extra: str, measurement: str = "last_leader_layer") -> int:
    return main(["sweep", measurement, "--out", str(out), *GRID, *extra])


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_sweep_certifies_every_extreme_and_writes_the_tables(tmp_path, capsys):
    out = tmp_path / "out"
    assert run_sweep(out, "--json", str(tmp_path / "record.json")) == 0
    record = json.loads((out / "sweep.json").read_text())
    assert json.loads((tmp_path / "record.json").read_text()) == record  # --json FILE: the same record
    assert record["format"] == "hardmax-verify/sweep-v1" and record["measurement"] == "last_leader_layer"
    results = [cell["result"] for cell in record["cells"]]
    assert [r["status"] for r in results] == ["certified", "certified"]
    for result in results:
        assert result["samples"] == 20 and result["defined"] + result["undefined"] == 20
        assert result["min"] <= result["q50"] <= result["q90"] <= result["q99"] <= result["max"]
        assert result["extreme"]["certified"] is True
        assert result["extreme"]["certified_value"] == result["max"]
    assert "| generic | 4 | 2 | 1 | 20 |" in (out / "sweep.md").read_text()
    csv_lines = (out / "sweep.csv").read_text().splitlines()
    assert csv_lines[0].startswith("family,n,d,alpha") and len(csv_lines) == 3
    assert "cell 2/2" in capsys.readouterr().err  # progress on standard error


def test_a_certified_extreme_is_recomputed_independently_and_its_certificate_verifies(tmp_path, capsys):
    out = tmp_path / "out"
    assert run_sweep(out) == 0
    record = json.loads((out / "sweep.json").read_text())
    late = [c["result"] for c in record["cells"] if c["cell"]["n"] == 4][0]
    extreme = late["extreme"]
    assert extreme["certified_value"] == 1  # the late leader this grid is chosen for
    assert max(first_leading_layers(extreme["config"]).values()) == extreme["certified_value"]
    certificate = out / extreme["certificate"]
    capsys.readouterr()
    assert main(["certcheck", str(certificate)]) == 0

    # Tampered: the late leader's first leading layer moved to 0 in T1's certificate.
    report = json.loads(certificate.read_text())
    leaders = report["verdicts"]["T1"]["certificate"]["leaders"]
    late_leader = next(entry for entry in leaders if entry["first_layer"] == 1)
    late_leader["first_layer"] = 0
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(report))
    assert main(["certcheck", str(tampered)]) == 1


def test_the_optimisers_best_is_certified_its_certificate_verifies_and_a_tampered_one_is_refused(tmp_path, capsys):
    out = tmp_path / "out"
    grid = ["--families", "emerging_leader", "--n", "3", "--alpha", "1/64", "--samples", "6", "--seed", "2"]
    assert main(["sweep", "last_leader_layer", "--out", str(out), *grid, "--optimise", "80"]) == 0
    record = json.loads((out / "sweep.json").read_text())
    assert record["grid"]["optimise"] == 80
    result = record["cells"][0]["result"]
    best = result["optimised"]
    # The n = 3 transient of docs/theory.md §6: near a tie the last leader emerges later than in the samples.
    assert best["certified"] is True and best["improves"] is True
    assert best["certified_value"] > result["extreme"]["certified_value"] == result["max"]
    assert max(first_leading_layers(best["config"], layers=200).values()) == best["certified_value"]
    md = (out / "sweep.md").read_text()
    assert "| extreme | optimised | status |" in md and f"| {best['certified_value']} certified (improves) |" in md
    assert (out / "sweep.csv").read_text().splitlines()[0].endswith(",extreme,optimised,status")
    certificate = out / best["certificate"]
    assert certificate.name == "last_leader_layer-emerging_leader-n3-d2-alpha1_64-optimised.json"
    capsys.readouterr()
    assert main(["certcheck", str(certificate)]) == 0

    # Tampered: the last leader's first leading layer (the certified value) moved earlier in T1's certificate
    # (a leader by D7 in its leaders, or by a D9 closed form in its chain's).
    report = json.loads(certificate.read_text())
    t1 = report["verdicts"]["T1"]["certificate"]
    leaders = t1["leaders"] + (t1.get("closed_form") or {}).get("leaders", [])
    last = max(leaders, key=lambda entry: entry["first_layer"])
    assert last["first_layer"] == best["certified_value"]
    last["first_layer"] -= 1
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(report))
    assert main(["certcheck", str(tampered)]) == 1
    # Tampered: one coordinate of the best configuration moved (its replayed layers are no longer the report's).
    report = json.loads(certificate.read_text())
    token = report["config"]["tokens"][0]
    token[0] = str(Fraction(token[0]) + Fraction(1, 3))
    tampered.write_text(json.dumps(report))
    assert main(["certcheck", str(tampered)]) == 1


def test_a_cell_saved_without_the_optimiser_is_recomputed_with_it(tmp_path, capsys):
    out = tmp_path / "out"
    assert run_sweep(out) == 0
    without = files_of(out)
    assert "optimise" not in json.loads(without["sweep.json"])["grid"]
    capsys.readouterr()
    assert run_sweep(out, "--optimise", "5") == 0
    assert "skipped" not in capsys.readouterr().err
    cells = json.loads((out / "sweep.json").read_text())["cells"]
    assert all(c["result"]["optimised"]["probes"] == 5 for c in cells)
    assert run_sweep(out, "--optimise", "5") == 0  # with it: done, skipped
    assert capsys.readouterr().err.count("done in an earlier run, skipped") == 2
    assert run_sweep(out) == 0  # and without it again: recomputed, the files of a sweep that never had it
    assert "skipped" not in capsys.readouterr().err
    assert {k: v for k, v in files_of(out).items() if "-optimised" not in k} == without


def test_same_seed_gives_byte_identical_files(tmp_path):
    assert run_sweep(tmp_path / "a") == 0
    assert run_sweep(tmp_path / "b") == 0
    assert files_of(tmp_path / "a") == files_of(tmp_path / "b")
    assert run_sweep(tmp_path / "c", "--seed", "2") == 0  # the last --seed wins: another draw
    assert files_of(tmp_path / "c")["sweep.json"] != files_of(tmp_path / "a")["sweep.json"]


def test_an_interrupted_sweep_resumes_and_ends_as_an_uninterrupted_one(tmp_path, monkeypatch, capsys):
    assert run_sweep(tmp_path / "fresh") == 0
    real = sweep_module.measure_cell
    calls = []

    def stopped_on_the_second_cell(*args, **kwargs):
        calls.append(args[1])
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr("verify.app.commands.sweep.measure_cell", stopped_on_the_second_cell)
    out = tmp_path / "out"
    assert run_sweep(out) == 130
    left = files_of(out)
    assert [name for name in left if name.startswith("cells/")] == ["cells/last_leader_layer-generic-n3-d2-alpha1_1.json"]
    assert not any(name in left for name in OUTPUTS)  # no table from a half-done sweep
    assert not [p for p in tmp_path.rglob("*") if ".partial" in p.name or p.name.endswith(".lock")]

    monkeypatch.setattr("verify.app.commands.sweep.measure_cell", real)
    capsys.readouterr()
    assert run_sweep(out) == 0
    assert "cell 1/2 last_leader_layer-generic-n3-d2-alpha1_1: done in an earlier run, skipped" in capsys.readouterr().err
    assert files_of(out) == files_of(tmp_path / "fresh")


def test_a_saved_cell_of_other_parameters_is_recomputed(tmp_path, capsys):
    out = tmp_path / "out"
    assert run_sweep(out) == 0
    capsys.readouterr()
    assert main(["sweep", "last_leader_layer", "--out", str(out), *GRID[:-4], "--samples", "5", "--seed", "1"]) == 0
    assert "skipped" not in capsys.readouterr().err
    assert json.loads((out / "sweep.json").read_text())["cells"][0]["result"]["samples"] == 5


@pytest.mark.parametrize("args, field", [
    (["--n", "0"], "--n"),
    (["--n", "3,x"], "--n"),
    (["--alpha", "-1/2"], "--alpha"),
    (["--alpha", "abc"], "--alpha"),
    (["--samples", "0"], "--samples"),
    (["--families", "nonesuch"], "--families"),
    (["--families", "duplicates"], "--families"),  # outside the hypotheses
    (["--layers", "many"], "--layers"),
    (["--optimise", "-1"], "--optimise"),
    (["--optimise", "some"], "--optimise"),
    (["--optimise", "100001"], "--optimise"),
])
def test_bad_input_names_the_field(tmp_path, capsys, args, field):
    assert main(["sweep", "last_leader_layer", "--out", str(tmp_path / "out"), *args]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and error[0].startswith(f"error: {field}: ")
    assert not (tmp_path / "out").exists()


def test_unknown_measurement_and_grid_file(tmp_path, capsys):
    assert main(["sweep", "nonesuch", "--out", str(tmp_path / "o")]) == 2
    assert "error: MEASUREMENT: unknown measurement 'nonesuch'" in capsys.readouterr().err
    grid = tmp_path / "grid.toml"
    grid.write_text('n = [3]\nd = [2]\nalpha = ["1"]\nsamples = 4\nseeds = 3\n')
    assert main(["sweep", "leader_count", "--out", str(tmp_path / "o"), "--grid", str(grid)]) == 2
    assert f"error: {grid}: seeds: unknown key" in capsys.readouterr().err
    grid.write_text('n = [3]\nd = [2]\nalpha = ["1"]\nsamples = 4\noptimise = "many"\n')
    assert main(["sweep", "leader_count", "--out", str(tmp_path / "o"), "--grid", str(grid)]) == 2
    assert f"error: {grid}: optimise: expected an integer, got 'many'" in capsys.readouterr().err
    grid.write_text('n = [3]\nd = [2]\nalpha = ["1"]\nsamples = 4\n')
    assert main(["sweep", "leader_count", "--out", str(tmp_path / "o"), "--grid", str(grid), "--n", "4"]) == 2
    assert "error: --grid: give the grid in the file or as options, not both" in capsys.readouterr().err


def test_grid_file_equals_the_same_options(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text('n = [3, 4]\nd = [2]\nalpha = ["1"]\nsamples = 20\nseed = 1\n')
    assert main(["sweep", "last_leader_layer", "--out", str(tmp_path / "toml"), "--grid", str(grid)]) == 0
    assert run_sweep(tmp_path / "options") == 0
    assert files_of(tmp_path / "toml") == files_of(tmp_path / "options")


def test_optimise_beside_a_grid_file_equals_the_grid_key_and_the_options(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text('n = [3]\nd = [2]\nalpha = ["1"]\nsamples = 3\nseed = 1\n')
    assert main(["sweep", "last_leader_layer", "--out", str(tmp_path / "beside"), "--grid", str(grid),
                 "--optimise", "3"]) == 0
    grid.write_text('n = [3]\nd = [2]\nalpha = ["1"]\nsamples = 3\nseed = 1\noptimise = 3\n')
    assert main(["sweep", "last_leader_layer", "--out", str(tmp_path / "key"), "--grid", str(grid)]) == 0
    assert main(["sweep", "last_leader_layer", "--out", str(tmp_path / "options"), "--n", "3", "--d", "2",
                 "--alpha", "1", "--samples", "3", "--seed", "1", "--optimise", "3"]) == 0
    assert files_of(tmp_path / "beside") == files_of(tmp_path / "key") == files_of(tmp_path / "options")


def test_output_that_cannot_be_written_is_status_4(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert run_sweep(blocker / "out") == 4
    assert "error: could not complete" in capsys.readouterr().err


MEASUREMENT_FILE = '''
from verify import Measurement

def token_count(run):
    return {value}

COUNT = Measurement("token_count", "the number of tokens (a test measurement)", token_count)
'''


def test_a_users_measurement_file(tmp_path, capsys):
    path = tmp_path / "mine.py"
    path.write_text(MEASUREMENT_FILE.format(value="run.config.n"))
    out = tmp_path / "out"
    assert main(["sweep", str(path), "--out", str(out), "--n", "3", "--samples", "3"]) == 0
    result = json.loads((out / "sweep.json").read_text())["cells"][0]["result"]
    assert (result["min"], result["max"], result["extreme"]["certified_value"]) == (3, 3, 3)
    assert result["measured_exactly"] == 3  # no screen: every sample measured on the exact run

    path.write_text(MEASUREMENT_FILE.format(value="None"))  # never defined: nothing to certify, inconclusive
    assert main(["sweep", str(path), "--out", str(tmp_path / "none"), "--n", "3", "--samples", "3"]) == 3
    assert json.loads((tmp_path / "none" / "sweep.json").read_text())["cells"][0]["result"]["extreme"] is None

    path.write_text(MEASUREMENT_FILE.format(value="1 / 0"))  # the file's own error: bad input naming it
    capsys.readouterr()
    assert main(["sweep", str(path), "--out", str(tmp_path / "err"), "--n", "3", "--samples", "3"]) == 2
    assert f"error: {path}: raised ZeroDivisionError" in capsys.readouterr().err


def test_an_uncertified_extreme_is_never_called_certified(tmp_path, monkeypatch):
    # The exact check of the extreme comes back inconclusive (a layer budget too small to settle): status 3.
    real = sweep_module.check_configuration
    monkeypatch.setattr(sweep_module, "check_configuration",
                        lambda config, **kw: real(config, **{**kw, "layer_budget": 1, "closed_form_search": False}))
    out = tmp_path / "out"
    status = main(["sweep", "settling_layer", "--out", str(out), "--n", "6", "--samples", "3", "--alpha", "1/16",
                   "--families", "emerging_leader"])
    record = json.loads((out / "sweep.json").read_text())
    extreme = record["cells"][0]["result"]["extreme"]
    assert extreme["claims_status"] == "inconclusive"  # the family's leader emerges only at layer 1 or later
    assert status == 3
    assert extreme["certified"] is False and extreme["certified_value"] is None
    assert "not certified" in (out / "sweep.md").read_text()


def test_a_failed_claim_on_an_extreme_is_status_1(tmp_path, monkeypatch):
    # The extreme checked on a wrong engine (the self-test's wrong normalisation): the replay catches it.
    from verify.app.selftest.mutants import wrong_normalisation
    real = sweep_module.check_configuration
    monkeypatch.setattr(sweep_module, "check_configuration",
                        lambda config, **kw: real(config, **{**kw, "dynamics": wrong_normalisation}))
    out = tmp_path / "out"
    assert main(["sweep", "leader_count", "--out", str(out), "--n", "4", "--samples", "3"]) == 1
    result = json.loads((out / "sweep.json").read_text())["cells"][0]["result"]
    assert result["status"] == "failed" and result["extreme"]["certified"] is False
    assert result["reason"].startswith("a claim came out false in the exact check: ")


def test_the_figures_are_pngs_drawn_from_the_record_byte_for_byte_the_same(tmp_path):
    from verify.core.figure_text import png_size
    from verify.experiments.conjectures.sweep_figures import write_sweep_figures

    out = tmp_path / "out"
    assert main(["sweep", "last_leader_layer", "--out", str(out), "--n", "3,4", "--d", "2", "--alpha", "1/4,1",
                 "--samples", "4", "--seed", "1"]) == 0
    figures = sorted(p.name for p in (out / "figures").iterdir())
    assert figures == ["curves-generic.png", "heatmap-generic.png"]
    for name in figures:
        size = png_size((out / "figures" / name).read_bytes())
        assert size is not None and size[0] > 300 and size[1] > 200
    # Drawn again from the saved record, elsewhere: the same bytes (no date, no software field).
    record = json.loads((out / "sweep.json").read_text())
    assert write_sweep_figures(record, tmp_path / "again") == [f"figures/{n}" for n in ("heatmap-generic.png",
                                                                                        "curves-generic.png")]
    for name in figures:
        assert (tmp_path / "again" / "figures" / name).read_bytes() == (out / "figures" / name).read_bytes()


def test_one_alpha_draws_a_heatmap_and_no_curve(tmp_path):
    out = tmp_path / "out"
    assert main(["sweep", "leader_count", "--out", str(out), "--n", "3", "--samples", "3"]) == 0
    assert sorted(p.name for p in (out / "figures").iterdir()) == ["heatmap-generic.png"]


def test_cells_measured_on_dask_workers_give_the_serial_files(tmp_path, capsys, monkeypatch):
    pytest.importorskip("distributed")
    assert run_sweep(tmp_path / "serial") == 0
    assert run_sweep(tmp_path / "dask", "--dask-local", "2") == 0
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "serial")  # certificates and figures included
    # With the optimiser stage: its best's certificate comes back from the worker too.
    assert run_sweep(tmp_path / "serial-opt", "--optimise", "4") == 0
    assert run_sweep(tmp_path / "dask-opt", "--optimise", "4", "--dask-local", "2") == 0
    assert files_of(tmp_path / "dask-opt") == files_of(tmp_path / "serial-opt")
    assert sum("-optimised" in name for name in files_of(tmp_path / "dask-opt")) == 2

    # A user's file is loaded again on the worker; what it raises there is bad input naming it as written.
    monkeypatch.chdir(tmp_path)
    Path("mine.py").write_text(MEASUREMENT_FILE.format(value="1 // (run.config.n - 4)"))
    capsys.readouterr()
    assert main(["sweep", "mine.py", "--out", "err", *GRID, "--dask-local", "1"]) == 2
    assert "error: mine.py: raised ZeroDivisionError while running (line 5)" in capsys.readouterr().err
    assert not Path("err/sweep.json").exists()


def test_one_executor_only(tmp_path, capsys):
    assert main(["sweep", "leader_count", "--out", str(tmp_path / "o"), "--scheduler", "tcp://127.0.0.1:1",
                 "--dask-local", "1"]) == 2
    assert "error: --dask-local: choose one executor" in capsys.readouterr().err
