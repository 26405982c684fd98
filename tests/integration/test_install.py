"""`pip install .` (not editable) into a fresh virtual environment works on its own.

The environment sees the machine's packages (``--system-site-packages``: no download of torch
and friends; ``--without-pip``: the machine's pip and setuptools install into it) but gets its
own non-editable copy of this checkout, built without network (``--no-deps
--no-build-isolation``). From an unrelated folder, ``hardmax-verify report``
runs, writes its report there, and says plainly that it skipped the optional sections (an
installed copy has no saved results); the pytest plugin is found through its entry point.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def _env(**extra: str) -> dict[str, str]:
    """The machine's environment without anything that points Python at this checkout."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "CI", "VIRTUAL_ENV") and not k.startswith(("PYTEST_", "HYPOTHESIS_"))}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(root)], check=True, timeout=300)
    python = root / "bin" / "python"
    # A copy of the checkout's tracked and working files, so that the build's own build/ and
    # egg-info folders land in the copy and never in the checkout.
    source = tmp_path_factory.mktemp("source")
    listing = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                             check=True, capture_output=True).stdout.decode("utf-8").split("\0")
    for name in listing:
        if not name or not (name.startswith(("verify/", "examples/")) or name in ("pyproject.toml", "README.md")):
            continue
        target = source / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (REPO / name).is_symlink():  # verify/examples: the link that ships examples/ as package data
            target.symlink_to(os.readlink(REPO / name))
        elif (REPO / name).is_file():
            target.write_bytes((REPO / name).read_bytes())
    completed = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                "--no-deps", "--no-build-isolation", str(source)],
                               env=_env(), capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return root


def test_the_installed_package_is_a_copy_not_the_checkout(venv, tmp_path):
    probe = "import verify, verify.app.locations as l; print(verify.__file__); print(l.project_folder())"
    completed = subprocess.run([str(venv / "bin" / "python"), "-c", probe], cwd=tmp_path, env=_env(),
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    location, project = completed.stdout.split("\n")[:2]
    assert location.startswith(str(venv)) and project == "None"


def test_report_from_an_unrelated_folder(venv, tmp_path):
    completed = subprocess.run([str(venv / "bin" / "hardmax-verify"), "report", "--examples", "2", "--jobs", "1"],
                               cwd=tmp_path, env=_env(HOME=str(tmp_path)), capture_output=True, text=True, timeout=900)
    assert completed.returncode == 0, completed.stderr
    for section in ("sentiment", "conjectures"):
        assert f"skipped the optional {section} section: no saved results to read" in completed.stdout
    results = json.loads((tmp_path / "reports" / "latest" / "results.json").read_text(encoding="utf-8"))
    assert results["summary"]["overall"] == "certified" and len(results["examples"]) == 6
    versions = results["environment"]["versions"]
    assert versions["hardmax-verify"] == "0.1.0" and "torch" in versions
    assert "## Optional sections skipped" in (tmp_path / "reports" / "latest" / "report.md").read_text(encoding="utf-8")


def test_the_plugin_is_found_through_its_entry_point(venv, tmp_path):
    (tmp_path / "test_profile.py").write_text(
        "from hypothesis import settings\n\n\ndef test_ci():\n    assert settings.default.deadline is None\n"
        "    assert settings.default.max_examples == 25\n", encoding="utf-8")
    completed = subprocess.run([str(venv / "bin" / "python"), "-m", "pytest", "-p", "no:cacheprovider", "test_profile.py"],
                               cwd=tmp_path, env=_env(HYPOTHESIS_PROFILE="ci"), capture_output=True, text=True,
                               timeout=600)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "hardmax-verify: Hypothesis profile 'ci'" in completed.stdout


def test_the_installed_package_holds_its_data_files(venv, tmp_path):
    # Every file of verify/ that is not Python source (the shipped stopword list, ...) must be in
    # the wheel, read as the package reads it: through importlib.resources.
    listed = subprocess.run(["git", "ls-files", "verify"], cwd=REPO, capture_output=True, text=True,
                            check=True).stdout.split()
    data = [name for name in listed if not name.endswith(".py") and not (REPO / name).is_symlink()]
    # The examples, shipped through the link verify/examples -> examples/, Python files included.
    data += [f"verify/examples/{path.name}" for path in sorted((REPO / "examples").iterdir()) if path.is_file()]
    assert data, "no data file found: the listing is wrong"
    probe = ("import sys\nfrom importlib import resources\n"
             "for name in sys.argv[1:]:\n"
             "    package, _, leaf = name.rpartition('/')\n"
             "    print(name, resources.files(package.replace('/', '.')).joinpath(leaf).is_file())\n")
    completed = subprocess.run([str(venv / "bin" / "python"), "-c", probe, *data], cwd=tmp_path, env=_env(),
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split("\n")[:-1] == [f"{name} True" for name in data]


def test_the_readme_commands_run_on_the_shipped_examples_outside_the_clone(venv, tmp_path):
    """README's `hardmax-verify check examples/...` after `pip install .`: `examples copy` brings the files."""
    command = str(venv / "bin" / "hardmax-verify")
    copied = subprocess.run([command, "examples", "copy"], cwd=tmp_path, env=_env(HOME=str(tmp_path)),
                            capture_output=True, text=True, timeout=300)
    assert copied.returncode == 0, copied.stderr
    assert sorted(p.name for p in (tmp_path / "examples").iterdir()) == sorted(
        p.name for p in (REPO / "examples").iterdir() if p.is_file())
    for args in (["simulate", "examples/example.json", "--layers", "3"], ["check", "examples/example.json"],
                 ["check", "examples/CONFIG.json", "--no-cross-check"]):
        completed = subprocess.run([command, *args], cwd=tmp_path, env=_env(HOME=str(tmp_path)), capture_output=True,
                                   text=True, timeout=600)
        assert completed.returncode == 0, (args, completed.stderr)
