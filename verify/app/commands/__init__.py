"""CLI subcommands, one module each; :mod:`verify.app.cli` imports a command's module only when it runs.

:data:`COMMANDS` is the static table of commands: ``hardmax-verify --help`` lists them from it,
with their one-line summaries, without importing a single command module (those import numba,
matplotlib, Hypothesis: seconds). tests/meta/test_cli_help.py holds each summary to the first
sentence of its command's own help text, and the table to the modules.
"""

from __future__ import annotations

from typing import NamedTuple


class CommandEntry(NamedTuple):
    module: str      # module under verify.app.commands (also the command's name)
    attribute: str   # the click command or group in it
    summary: str     # the first sentence of its help text, as `--help` lists it


COMMANDS: list[CommandEntry] = [
    CommandEntry("simulate", "simulate", "Simulate the hardmax dynamics of a configuration file."),
    CommandEntry("selftest", "selftest", "Run the suite's checks against deliberately wrong implementations of the dynamics."),
    CommandEntry("sentiment", "sentiment", "The IMDb sentiment experiment: train, certified hardmax evaluation, analyses."),
    CommandEntry("check", "check", "Check claims T0..T4, facts D1..D3 and the one-step replay on CONFIG.json, exactly."),
    CommandEntry("report", "report",
                 "Run the verification campaign and write report.md, report.html, results.json and figures/."),
    CommandEntry("conjecture", "conjecture",
                 "Test conjectures beyond the theorem's hypotheses (docs/theory.md §3 D4, D5, D8 and §6)."),
    CommandEntry("certcheck", "certcheck",
                 "Re-verify the certificates of a claims report, a verification report's results.json, a softmax "
                 "record or a control result."),
    CommandEntry("prove", "prove", "Check the certified claims of FILE with Coq's kernel (formal/, docs/formal.md)."),
    CommandEntry("classify", "classify",
                 "Exact sequence classification: build a hardmax transformer for a labelled dataset, check it."),
    CommandEntry("control", "control",
                 "Choose A so that the listed tokens lead, with exact certificates both ways (docs/theory.md D10)."),
    CommandEntry("softmax", "softmax",
                 "Certify how far softmax attention at inverse temperature B can be from hardmax, layer by layer."),
    CommandEntry("sweep", "sweep",
                 "Measure a quantity over a grid of seeded families, with each cell's extreme certified exactly."),
    CommandEntry("examples", "examples",
                 "The example files the README and docs/ use, shipped with the package: list them, or copy them out."),
]
