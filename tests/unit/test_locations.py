"""Where saved results are found (the clone) and where a user's own runs go (the user folder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verify.app.cli import main
from verify.app.locations import HOME_VARIABLE, project_folder, project_runs, user_folder

ROOT = Path(__file__).resolve().parents[2]


def test_the_clone_is_found_from_the_package_not_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert project_folder() == ROOT
    assert project_runs() == ROOT / "runs"


@pytest.mark.parametrize("pyproject", [None, '[project]\nname = "someone-else"\n', "not toml ["])
def test_an_installed_copy_has_no_project_folder(tmp_path, pyproject):
    # site-packages/verify: the folder above is not this project's clone.
    package = tmp_path / "site-packages" / "verify"
    package.mkdir(parents=True)
    (package.parent / "runs").mkdir()
    if pyproject is not None:
        (package.parent / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    assert project_folder(package) is None and project_runs(package) is None


def test_user_folder_precedence(tmp_path, monkeypatch):
    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert user_folder("conjectures") == tmp_path / "home" / "conjectures"
    monkeypatch.delenv(HOME_VARIABLE)
    assert user_folder() == tmp_path / "xdg" / "hardmax-verify"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    assert user_folder() == tmp_path / "me" / ".local" / "share" / "hardmax-verify"


def test_conjecture_run_writes_to_the_user_folder_not_the_projects_runs(tmp_path, monkeypatch):
    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path / "home"))
    monkeypatch.chdir(ROOT)
    before = sorted(p.name for p in (ROOT / "runs" / "conjectures").iterdir())
    status = main(["conjecture", "run", "d8_beyond_pd", "--examples", "2"])
    result = json.loads((tmp_path / "home" / "conjectures" / "d8_beyond_pd.json").read_text(encoding="utf-8"))
    assert result["conjecture"] == "d8_beyond_pd"
    assert status == result["exit_status"]  # 2 examples may miss the expected refutation: then a surprise, 1
    assert sorted(p.name for p in (ROOT / "runs" / "conjectures").iterdir()) == before
