"""verify.core.versions: the commit the code runs from, whether its tree is clean, and the package's version."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import verify
from verify.core import versions



def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=folder, check=True,
                          capture_output=True, text=True).stdout.strip()


def _repository(folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    _git(folder, "init", "-q")
    (folder / "tracked.txt").write_text("one\n")
    _git(folder, "add", "tracked.txt")
    _git(folder, "commit", "-q", "-m", "first")
    return _git(folder, "rev-parse", "HEAD")


def test_a_clean_tree_then_a_changed_one(tmp_path: Path) -> None:
    head = _repository(tmp_path / "repo")
    assert versions.source_state(tmp_path / "repo") == versions.SourceState(head, True)
    assert versions.git_commit(tmp_path / "repo") == head
    (tmp_path / "repo" / "untracked.txt").write_text("not part of the tree\n")  # untracked files do not count
    assert versions.source_state(tmp_path / "repo").clean is True
    (tmp_path / "repo" / "tracked.txt").write_text("two\n")
    assert versions.source_state(tmp_path / "repo") == versions.SourceState(head, False)
    assert versions.git_commit(tmp_path / "repo") == head + "+dirty"
    assert "uncommitted changes" in versions.source_state(tmp_path / "repo").describe()


def test_outside_a_clone_there_is_no_commit(tmp_path: Path) -> None:
    assert versions.source_state(tmp_path) == versions.SourceState(None, None)
    assert versions.git_commit(tmp_path) is None
    assert "commit unknown" in versions.SourceState(None, None).describe()


def test_an_installed_copy_inside_someone_elses_repository_has_no_commit(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A virtual environment inside a user's project: git would answer with the user's commit, which is not ours."""
    _repository(tmp_path / "project")
    copy = tmp_path / "project" / "venv" / "site-packages" / "verify" / "core" / "versions.py"
    copy.parent.mkdir(parents=True)
    copy.write_text(Path(versions.__file__).read_text(encoding="utf-8"))
    spec = importlib.util.spec_from_file_location("copied_versions", copy)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "copied_versions", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    assert module.source_state() == module.SourceState(None, None)


def test_the_version_is_written_once() -> None:
    assert verify.__version__ == versions.VERSION
    # A result records the version of the code that ran, not whatever pip installed last.
    assert versions.dependency_versions(["hardmax-verify"])["hardmax-verify"] == versions.VERSION
