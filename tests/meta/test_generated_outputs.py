"""What the commands write by default is not tracked by git, unless it is a published result on purpose.

Every command option that names an output path with a default is listed here, either as
**scratch** (ignored by ``.gitignore``, nothing tracked under it: running the README's commands
leaves ``git status`` clean) or as **published** (the small result files that the project
commits on purpose, refreshed by the documented commands). A new default output must be put in
one of the two lists, so it cannot start showing up in ``git status`` unnoticed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import click
import pytest

from verify.app import cli
from verify.experiments.sentiment import DEFAULT_RUNS_DIR

REPO = Path(__file__).resolve().parents[2]

# (command path, option): default outputs that must be ignored by git.
SCRATCH = {
    ("report", "--out"),                      # reports/latest: the README's main command
    ("classify imdb", "--cache-dir"),
}
# Default outputs committed on purpose: the saved results the default report includes.
PUBLISHED = {
    ("sentiment analyze", "--out"),           # runs/sentiment/analysis
    ("sentiment protocol collect", "--results"),
    ("sentiment protocol collect", "--models"),
    ("sentiment summarize", "--out"),         # runs/sentiment/summary: the reproduction's section
    ("classify imdb", "--out"),               # runs/classify/imdb.json: the classification section
}
# Default inputs (read, never written).
INPUTS = {
    ("sentiment summarize", "--protocol"), ("sentiment summarize", "--results"),
    ("sentiment protocol collect", "--protocol"), ("sentiment protocol status", "--protocol"),
    ("sentiment protocol run", "--protocol"), ("sentiment protocol run", "--results"),
    ("sentiment protocol status", "--results"), ("sentiment summarize", "--models"),
}
# Written where no option names it: a training run's checkpoint folder (sentiment train).
UNNAMED_SCRATCH = [f"{DEFAULT_RUNS_DIR}/d2-paper/checkpoint.json", ".hypothesis/examples/x",
                   "verify/__pycache__/float_kernel.layer_kernel-25.py311.nbi", "build/lib/x.py",
                   "hardmax_verify.egg-info/PKG-INFO", "reports/.latest.lock", "reports/.latest.partial/report.md",
                   "reports/.latest.old-123/report.md"]


def _default_paths() -> dict[tuple[str, str], Path]:
    """(command path, option) -> default of every path-typed option that has one."""
    cli._register_commands()
    found: dict[tuple[str, str], Path] = {}
    stack: list[tuple[str, click.Command]] = [("", cli.cli)]
    while stack:
        path, command = stack.pop()
        for param in command.params:
            if isinstance(param, click.Option) and isinstance(param.type, click.Path) \
                    and isinstance(param.default, (str, Path)):
                found[(path, param.opts[0])] = Path(param.default)
        if isinstance(command, click.Group):
            stack.extend((f"{path} {name}".strip(), sub) for name, sub in command.commands.items())
    return found


DEFAULTS = _default_paths()


def _ignored(relative: str) -> bool:
    return subprocess.run(["git", "check-ignore", "-q", "--no-index", relative], cwd=REPO).returncode == 0


def _tracked_under(relative: str) -> list[str]:
    return subprocess.run(["git", "ls-files", "--", relative], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout.split()


def test_every_default_output_is_classified():
    assert set(DEFAULTS) == SCRATCH | PUBLISHED | INPUTS, sorted(set(DEFAULTS) ^ (SCRATCH | PUBLISHED | INPUTS))


@pytest.mark.parametrize("where", sorted(SCRATCH), ids=" ".join)
def test_scratch_outputs_are_ignored_and_untracked(where: tuple[str, str]):
    default = DEFAULTS[where].as_posix()
    assert _ignored(f"{default}/inside") or _ignored(default), f"{' '.join(where)} writes {default}, which git tracks"
    assert _tracked_under(default) == []


@pytest.mark.parametrize("relative", UNNAMED_SCRATCH)
def test_other_generated_files_are_ignored(relative: str):
    assert _ignored(relative), relative


@pytest.mark.parametrize("where", sorted(PUBLISHED), ids=" ".join)
def test_published_outputs_are_committed(where: tuple[str, str]):
    default = DEFAULTS[where].as_posix()
    written = default if DEFAULTS[where].suffix else f"{default}/results.json"  # a file, or a folder of files
    assert not _ignored(written), default


def test_the_check_can_fail():
    assert not _ignored("verify/app/cli.py") and _tracked_under("verify/app/cli.py") == ["verify/app/cli.py"]
