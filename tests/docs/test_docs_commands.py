"""Every command in the README and docs runs as written.

The shell commands of the user docs' code blocks are read from the files themselves. For every
command, each file it reads must exist in the repository or be written by an earlier command
of the same page. The cheap ones (check, simulate, certcheck, the conjecture lab's list and
check, help texts, a documented error) are run as written, page by page in order, in a
folder of their own holding a copy of examples/, with ``hardmax-verify`` running this
checkout; they must not end in a usage error or a crash (exit 2 or 4), unless the page
shows that error. A plain ``hardmax-verify ...`` line (no shell syntax) runs in this process
through ``verify.app.cli.main``, the function the console script calls; the rest (``python``,
redirections) in a shell.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from verify.app.cli import main

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", REPO / "reports" / "README.md", REPO / "tests" / "README.md",
         *sorted(p for p in (REPO / "docs").glob("*.md") if p.name != "theory.md")]
SHELL_LANGUAGES = {"", "bash", "sh", "shell", "console"}
PROGRAMS = ("hardmax-verify", "python", "bash", "dask", "HYPOTHESIS_PROFILE=")
OUTPUT_OPTIONS = {"--out", "--json", "--results-dir", "--models", "--figure", "--write-coq"}  # --models: where protocol collect publishes
# A network address (tcp://, tls://, ws://...) is not a file.
ADDRESS = re.compile(r"^[a-z][a-z0-9+.-]*://")
INPUT_SUFFIXES = (".json", ".toml", ".py", ".sh", ".csv", ".gz", ".npz", ".txt")
# Run as written: cheap and self-contained (no campaign, no training, no cluster).
CHEAP = re.compile(r"^(hardmax-verify (check|simulate|softmax|certcheck|prove|control|conjecture (list|check)|classify (build|check)"
                   r"|examples (list|copy))\b"
                   r"|hardmax-verify [a-z]+ --help$|python -m verify\.(certcheck|experiments\.classify\.checker)\b|python -c\b"
                   r"|hardmax-verify report --scheduler tcp://127\.0\.0\.1:1\b)")


@dataclass
class Command:
    page: Path
    text: str
    shown_error: str | None = None  # the "error: ..." line the page prints below the command
    reads: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)


def _blocks(text: str) -> list[str]:
    return [m.group(2) for m in re.finditer(r"^```([a-z]*)\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
            if m.group(1) in SHELL_LANGUAGES]


def _split_paths(command: str) -> tuple[list[str], list[str]]:
    """(files read, files written) named by one command line."""
    words = shlex.split(command, comments=True)
    reads, writes = [], []
    for i, word in enumerate(words):
        previous = words[i - 1] if i else ""
        if previous in OUTPUT_OPTIONS or previous == ">":
            writes.append(word)
            continue
        if word.startswith(("-", "python", "HYPOTHESIS_PROFILE=")) or ADDRESS.match(word) or "=" in word or "(" in word:
            continue
        if "/" in word or word.endswith(INPUT_SUFFIXES):
            reads.append(word)
    if words[:2] == ["hardmax-verify", "report"] and "--out" not in words:
        writes.append("reports/latest")
    return reads, writes


def documented_commands() -> list[Command]:
    commands = []
    for page in PAGES:
        for block in _blocks(page.read_text(encoding="utf-8")):
            lines = block.replace("\\\n", " ").splitlines()
            for number, raw in enumerate(lines):
                line = raw.strip().removeprefix("$ ")
                if not line.startswith(PROGRAMS):
                    continue
                following = lines[number + 1].strip() if number + 1 < len(lines) else ""
                for part in line.split("&&"):
                    part = part.split(" #")[0].strip().rstrip("&").strip()
                    command = Command(page, part, following if following.startswith("error: ") else None)
                    command.reads, command.writes = _split_paths(part)
                    commands.append(command)
    return commands


COMMANDS = documented_commands()


def _produced(path: str, written: list[str]) -> bool:
    return any(path == out or path.startswith(out.rstrip("/") + "/") for out in written)


def test_the_docs_have_commands_to_check():
    pages = {c.page.name for c in COMMANDS}
    assert {"README.md", "certcheck.md", "claims.md", "conjectures.md", "report.md"} <= pages
    assert len(COMMANDS) > 40


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_file_a_command_reads_exists(page):
    written: list[str] = []
    missing = []
    for command in (c for c in COMMANDS if c.page == page):
        for path in command.reads:
            if not (REPO / path).exists() and not _produced(path, written):
                missing.append(f"{command.text!r}: {path}")
        written += command.writes
    assert not missing, "\n".join(missing)


def test_addresses_are_not_files_but_paths_still_are():
    reads, writes = _split_paths("hardmax-verify report --scheduler tls://10.0.0.5:8786 --tls-ca-file ca.pem "
                                 "--config examples/missing.json other/missing-folder --out reports/x")
    assert reads == ["examples/missing.json", "other/missing-folder"] and writes == ["reports/x"]
    assert _split_paths("dask worker ws://host:8786 tcp://127.0.0.1:1")[0] == []


def test_the_classify_example_data_is_the_shipped_file():
    page = (REPO / "docs" / "classify.md").read_text(encoding="utf-8")
    shown = re.search(r"`examples/classify\.data\.json`\):\n\n```json\n(.*?)```", page, flags=re.DOTALL)
    assert shown is not None
    assert json.loads(shown.group(1)) == json.loads((REPO / "examples" / "classify.data.json").read_text(encoding="utf-8"))


def test_the_readme_example_configuration_is_the_shipped_file():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"```json\n(.*?)```", readme, flags=re.DOTALL)
    assert shown is not None
    assert json.loads(shown.group(1)) == json.loads((REPO / "examples" / "example.json").read_text(encoding="utf-8"))


def _plan(page: Path) -> list[tuple[Command, bool]]:
    """The page's commands in order, each with whether it is run: cheap, and every file it reads is
    shipped in examples/ or written by an earlier command that is run."""
    produced_by_run: list[str] = []
    plan = []
    for command in (c for c in COMMANDS if c.page == page):
        ready = all((REPO / p).exists() and p.startswith("examples/") or _produced(p, produced_by_run)
                    for p in command.reads)
        run = bool(CHEAP.match(command.text)) and ready
        if run:
            produced_by_run += command.writes
        plan.append((command, run))
    return plan


# Shell syntax: a line with any of these runs in bash, not in-process.
SHELL_SYNTAX = set("|&;<>$`*?(){}'\"\\")


def _in_process_words(text: str) -> list[str] | None:
    """The arguments of a plain ``hardmax-verify`` line (None: it needs a shell or another program)."""
    if SHELL_SYNTAX & set(text):
        return None
    words = shlex.split(text)
    return words[1:] if words[0] == "hardmax-verify" else None


RUNNABLE_PAGES = [page for page in PAGES if any(run for _, run in _plan(page))]


def test_most_pages_have_commands_that_run():
    assert len(RUNNABLE_PAGES) >= 6 and sum(run for page in PAGES for _, run in _plan(page)) >= 15


@pytest.mark.slow
@pytest.mark.parametrize("page", RUNNABLE_PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_cheap_commands_run_as_written(page, tmp_path, monkeypatch, capsys):
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(REPO / "examples", work / "examples")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "hardmax-verify"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m verify "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    (bin_dir / "python").symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(REPO), COLUMNS="120")
    monkeypatch.chdir(work)
    monkeypatch.setenv("COLUMNS", "120")
    ran_in_process = 0
    for command, run in _plan(page):
        if not run:
            continue
        words = _in_process_words(command.text)
        if words is not None:
            capsys.readouterr()
            returncode = main(words)
            stderr = capsys.readouterr().err
            ran_in_process += 1
        else:
            completed = subprocess.run(["bash", "-c", command.text], cwd=work, env=env, capture_output=True,
                                       text=True, timeout=600)
            returncode, stderr = completed.returncode, completed.stderr
        if command.shown_error is not None:
            # The page quotes the whole message: it must be the one the command prints.
            assert returncode == 2, (command.text, stderr)
            assert stderr.strip().splitlines()[0] == command.shown_error, (command.text, stderr)
        else:
            assert returncode in (0, 1, 3), (command.text, returncode, stderr)
            for written in command.writes:
                assert (work / written).exists() or Path(written).is_absolute(), (command.text, written)
    assert ran_in_process or all(_in_process_words(c.text) is None for c, run in _plan(page) if run)


def test_every_documented_module_exists_and_the_standalone_checkers_run():
    # A module the docs run with ``python -m`` exists here; the classification checker's line is run.
    import importlib.util

    modules = {m.group(1) for c in COMMANDS for m in re.finditer(r"python -m (verify[\w.]*)", c.text)}
    assert "verify.certcheck.classify" in modules
    assert [m for m in sorted(modules) if importlib.util.find_spec(m) is None] == []
    ran = {c.text.split()[2] for page in PAGES for c, run in _plan(page) if run and c.text.startswith("python -m")}
    assert {"verify.certcheck", "verify.certcheck.classify"} <= ran


def test_plain_command_lines_run_in_process_and_shell_lines_in_a_shell():
    assert _in_process_words("hardmax-verify check examples/CONFIG.json --json claims.json") == [
        "check", "examples/CONFIG.json", "--json", "claims.json"]
    for shell_line in ("python -m verify.certcheck claims.json", "hardmax-verify check x.json > out.txt",
                       "hardmax-verify check $FILE", 'python -c "print(1)" > ties.json'):
        assert _in_process_words(shell_line) is None, shell_line
