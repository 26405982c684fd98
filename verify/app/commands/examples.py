"""``hardmax-verify examples list | copy [FOLDER]``: the example files the docs use, shipped with the package.

The files are the repository's ``examples/`` folder, installed as package data
(``verify/examples``), so that the README's commands (``hardmax-verify check
examples/example.json``, ...) work after ``pip install .`` in any folder once ``examples copy``
has written them there.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import click

from verify.core import exitcodes
from verify.core.io import atomic_write_bytes
from verify.core.numbers import InputError
from .output import echo_summary, emit_json, json_option

# What each shipped file is, for `examples list` (a file without a line here fails the tests).
DESCRIPTIONS = {
    "example.json": "a four-token configuration in d = 2 (README: simulate, check)",
    "CONFIG.json": "the worked configuration non_leader_clusters of docs/theory.md §4 (check, simulate)",
    "campaign.toml": "a small campaign with every key explained (report --config)",
    "classify.data.json": "a labelled dataset of two sequences (classify build, classify check)",
    "control.json": "eight tokens for leader control: choose A so that given tokens lead (control, docs/control.md)",
    "softmax.json": "the triangle with beta and layers, for the softmax-against-hardmax bound (softmax, docs/softmax.md)",
    "rotating_square.json": "docs/theory.md §6: A positive definite, not symmetric, and no token ever leads (check: T0 "
                            "fails with a D11 certificate, certcheck re-verifies it)",
    "my_conjecture.py": "a user conjecture for the lab (conjecture run); it is code, run only what you trust",
    "my_measurement.py": "a user measurement for a sweep (sweep FILE.py); it is code, run only what you trust",
    "test_user_example.py": "a property test on the public API (pytest)",
}


def shipped_examples() -> list[Traversable]:
    """The example files of the package, sorted by name."""
    folder = resources.files("verify") / "examples"
    return sorted((item for item in folder.iterdir() if item.is_file() and not item.name.startswith(".")),
                  key=lambda item: item.name.lower())


@click.group("examples")
def examples() -> None:
    """The example files the README and docs/ use, shipped with the package: list them, or copy them out."""


@examples.command("list")
@json_option("the name, size and description of every example file")
def list_command(json_to: str | None) -> int:
    """List the shipped example files."""
    rows: list[dict[str, str | int]] = [
        {"name": item.name, "bytes": len(item.read_bytes()), "description": DESCRIPTIONS.get(item.name, "")}
        for item in shipped_examples()]
    width = max((len(str(row["name"])) for row in rows), default=0)
    echo_summary("\n".join(f"{row['name']:<{width}}  {row['description']}" for row in rows)
                 + "\n(hardmax-verify examples copy writes them into ./examples)", json_to)
    emit_json(rows, json_to)
    return exitcodes.SUCCESS


@examples.command("copy")
@click.argument("folder", metavar="[FOLDER]", required=False, default="examples",
                type=click.Path(file_okay=False, path_type=Path))
@json_option("the files written and those already there")
def copy_command(folder: Path, json_to: str | None) -> int:
    """Copy every example file into FOLDER (default: ./examples), so the docs' commands run as written.

    A file already there with the same content is left as it is; one with other content is
    refused (exit status 2, naming it) and nothing is written.
    """
    items = shipped_examples()
    different = [folder / item.name for item in items
                 if (folder / item.name).exists() and
                 (not (folder / item.name).is_file() or (folder / item.name).read_bytes() != item.read_bytes())]
    if different:
        raise InputError(str(different[0]), "exists and differs from the shipped example; move it away or copy "
                                            "into another folder")
    written, present = [], []
    for item in items:
        target = folder / item.name
        if target.exists():
            present.append(str(target))
        else:
            atomic_write_bytes(target, item.read_bytes())
            written.append(str(target))
    echo_summary(f"{folder}: {len(written)} example files written"
                 + (f", {len(present)} already there" if present else "")
                 + f" (try: hardmax-verify check {folder / 'example.json'})", json_to)
    emit_json({"folder": str(folder), "written": written, "already_there": present}, json_to)
    return exitcodes.SUCCESS
