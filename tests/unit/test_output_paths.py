"""verify.core.io: output paths are checked before any work, and write errors name the user's path.

``check_writable`` refuses what cannot be written (a file where a folder must be, a folder
where a file must be, a folder nobody can create files in) and leaves nothing behind; a write
that fails half-way (a full disk, a file-size limit) says which output, not which temporary.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from verify.core import io
from verify.core.io import UnwritableOutput, atomic_directory, atomic_write_text, check_writable

NO_FILES_HERE = Path("/sys")  # no file can be created there, not even by root


def _listing(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def test_a_new_file_in_new_folders_is_accepted_and_nothing_is_created(tmp_path: Path) -> None:
    check_writable(tmp_path / "a" / "b" / "out.json")
    check_writable(tmp_path / "report", folder=True, replaced=True)
    assert _listing(tmp_path) == []


@pytest.mark.parametrize("path, folder, reason", [
    ("blocker/out.json", False, "blocker exists and is not a folder"),
    ("blocker/deeper/out.json", False, "blocker exists and is not a folder"),
    ("blocker", True, "exists and is not a folder"),
    ("folder", False, "is a folder, not a file"),
])
def test_the_wrong_kind_of_path_is_refused_naming_it(tmp_path: Path, path: str, folder: bool, reason: str) -> None:
    (tmp_path / "blocker").write_text("a file\n")
    (tmp_path / "folder").mkdir()
    with pytest.raises(UnwritableOutput) as refused:
        check_writable(tmp_path / path, folder=folder)
    assert str(refused.value).startswith(f"{tmp_path / path}: ") and reason in str(refused.value)
    assert str(refused.value).endswith("; nothing was run")


def test_a_folder_where_no_file_can_be_created_is_refused() -> None:
    with pytest.raises(UnwritableOutput, match=r"^/sys/out\.json: no file can be created in /sys "):
        check_writable(NO_FILES_HERE / "out.json")
    with pytest.raises(UnwritableOutput, match="no file can be created in /sys"):
        check_writable(NO_FILES_HERE / "latest", folder=True, replaced=True)


def test_a_folder_written_into_must_take_files_itself(tmp_path: Path) -> None:
    check_writable(tmp_path, folder=True)  # conjecture results, checkpoints: files go inside it
    with pytest.raises(UnwritableOutput, match="no file can be created in /sys"):
        check_writable(NO_FILES_HERE, folder=True)


def test_a_device_is_written_in_place() -> None:
    check_writable(os.devnull)


def test_a_full_disk_names_the_file_not_its_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.json"

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as failed:
        atomic_write_text(target, "{}\n")
    assert failed.value.errno == errno.ENOSPC and failed.value.filename == str(target)
    assert _listing(tmp_path) == []


def test_a_full_disk_in_a_report_folder_names_the_report_folder(tmp_path: Path) -> None:
    target = tmp_path / "latest"
    with pytest.raises(OSError) as failed, atomic_directory(target) as staging:
        (staging / "figures").mkdir()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(staging / "figures" / "x.png"))
    assert failed.value.filename == str(target / "figures" / "x.png")
    with pytest.raises(OSError) as failed, atomic_directory(target):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # naming no file: the folder
    assert failed.value.filename == str(target)
    with pytest.raises(OSError) as failed, atomic_directory(target):
        raise OSError(errno.ECONNREFUSED, os.strerror(errno.ECONNREFUSED))  # not about writing: untouched
    assert failed.value.filename is None
    assert _listing(tmp_path) == []


def test_the_probe_leaves_nothing(tmp_path: Path) -> None:
    io._probe(tmp_path)
    assert _listing(tmp_path) == []


def _interrupted_once_created(monkeypatch: pytest.MonkeyPatch, call: str) -> list[str]:
    """``os.<call>`` (open or mkdir) makes its file or folder, then a Ctrl-C lands before its result is kept."""
    real, made = getattr(os, call), []

    def make_then_interrupt(path: str | os.PathLike[str], *args: Any) -> Any:
        result = real(path, *args)
        if call == "open":
            os.close(result)
        made.append(os.fspath(path))
        raise KeyboardInterrupt

    monkeypatch.setattr(os, call, make_then_interrupt)
    return made


@pytest.mark.parametrize("what", ["the writability probe", "an atomic write's temporary", "a staging folder"])
def test_an_interrupt_just_after_a_file_is_made_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               what: str) -> None:
    made = _interrupted_once_created(monkeypatch, "mkdir" if what == "a staging folder" else "open")
    with pytest.raises(KeyboardInterrupt):
        if what == "the writability probe":
            check_writable(tmp_path / "report", folder=True, replaced=True)
        elif what == "an atomic write's temporary":
            atomic_write_text(tmp_path / "out.json", "{}\n")
        else:
            with atomic_directory(tmp_path / "report"):
                pass
    assert len(made) == 1
    if what != "a staging folder":  # named for this process alone, so it is safe to remove
        assert str(os.getpid()) in Path(made[0]).name
    assert _listing(tmp_path) == []
