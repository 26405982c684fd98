"""``hardmax-verify examples list | copy``: the docs' example files, shipped with the package."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verify.core import exitcodes
from verify.app.cli import main
from verify.app.commands.examples import DESCRIPTIONS, shipped_examples

REPO = Path(__file__).resolve().parents[2]


def test_the_shipped_examples_are_the_repositorys_examples_folder() -> None:
    """verify/examples is the link that ships examples/ as package data: the same files, byte for byte."""
    shipped = {item.name: item.read_bytes() for item in shipped_examples()}
    assert shipped == {path.name: path.read_bytes() for path in (REPO / "examples").iterdir() if path.is_file()}
    assert set(shipped) == set(DESCRIPTIONS), "every shipped example needs its line in DESCRIPTIONS"


def test_list_names_every_file_with_its_description(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["examples", "list", "--json"]) == exitcodes.SUCCESS
    rows = json.loads(capsys.readouterr().out)
    assert {row["name"]: row["description"] for row in rows} == DESCRIPTIONS


def test_copy_writes_the_files_where_the_readme_commands_expect_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["examples", "copy"]) == exitcodes.SUCCESS
    assert capsys.readouterr().out.startswith(f"examples: {len(DESCRIPTIONS)} example files written")
    for name in DESCRIPTIONS:
        assert (tmp_path / "examples" / name).read_bytes() == (REPO / "examples" / name).read_bytes()
    # The README's command, from this unrelated folder.
    assert main(["check", "examples/example.json", "--no-cross-check"]) == exitcodes.SUCCESS
    capsys.readouterr()
    # Again: nothing to write. A file changed by the user is never overwritten.
    assert main(["examples", "copy", "--json"]) == exitcodes.SUCCESS
    assert json.loads(capsys.readouterr().out)["written"] == []
    (tmp_path / "examples" / "example.json").write_text("{}", encoding="utf-8")
    (tmp_path / "examples" / "campaign.toml").unlink()
    assert main(["examples", "copy"]) == exitcodes.BAD_INPUT
    err = capsys.readouterr().err.strip()
    assert err == ("error: examples/example.json: exists and differs from the shipped example; move it away or copy "
                   "into another folder")
    assert not (tmp_path / "examples" / "campaign.toml").exists()  # nothing written
    assert main(["examples", "copy", "elsewhere"]) == exitcodes.SUCCESS
    assert sorted(p.name for p in (tmp_path / "elsewhere").iterdir()) == sorted(DESCRIPTIONS)
