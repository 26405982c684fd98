"""Old import paths keep working: a module that moved is found at its old name, with a DeprecationWarning.

Conjecture files, property tests and scripts written against an earlier layout (``from
verify.conjectures import Conjecture``, ``from verify.config import Configuration``) still run:
importing an old name imports the module where it lives now and binds the old name to that same
module object (one module, one set of classes, never a second copy), and warns, once per
process, at the line of the import, naming the new place and the stable public module
``verify`` (docs/api.md), which is the import path that does not move.

:data:`MOVED` is the table (old dotted name -> current one), each entry one move recorded in the
repository's history; a package's entry also covers any of its submodules not listed (``old.x``
-> ``new.x``). The finder sits first in ``sys.meta_path`` so that a submodule of a moved
package is never loaded a second time under its old name.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType
from typing import Sequence

__all__ = ["MOVED", "MovedModuleFinder", "current_name", "install"]

# Old name -> where the module is now. Modules moved twice point at their last place.
MOVED: dict[str, str] = {
    # the layered layout: core
    "verify.closed_form": "verify.core.closed_form",
    "verify.config": "verify.core.config",
    "verify.exact_dynamics": "verify.core.exact_dynamics",
    "verify.exitcodes": "verify.core.exitcodes",
    "verify.families": "verify.core.families",
    "verify.float_dynamics": "verify.core.float_dynamics",
    "verify.float_kernel": "verify.core.float_kernel",
    "verify.geometry": "verify.core.geometry",
    "verify.io": "verify.core.io",
    "verify.limits": "verify.core.limits",
    "verify.linalg": "verify.core.linalg",
    "verify.numbers": "verify.core.numbers",
    "verify.oracle": "verify.core.oracle",
    "verify.profiles": "verify.core.profiles",
    "verify.text": "verify.core.text",
    "verify.trajectory": "verify.core.trajectory",
    "verify.worked": "verify.core.worked",
    # claims
    "verify.registry": "verify.claims.registry",
    "verify.verdicts": "verify.claims.verdicts",
    "verify.claims.checks": "verify.claims.run",
    # experiments
    "verify.sections": "verify.experiments.sections",
    "verify.conjectures": "verify.experiments.conjectures",
    "verify.classify": "verify.experiments.classify",
    "verify.sentiment": "verify.experiments.sentiment",
    "verify.sentiment.corpus": "verify.experiments.imdb.corpus",
    "verify.sentiment.data": "verify.experiments.imdb.data",
    "verify.sentiment.preprocess": "verify.experiments.imdb.preprocess",
    "verify.experiments.sentiment.corpus": "verify.experiments.imdb.corpus",
    "verify.experiments.sentiment.data": "verify.experiments.imdb.data",
    "verify.experiments.sentiment.preprocess": "verify.experiments.imdb.preprocess",
    # app
    "verify.campaign": "verify.app.campaign",
    "verify.cli": "verify.app.cli",
    "verify.commands": "verify.app.commands",
    "verify.interrupts": "verify.app.interrupts",
    "verify.locations": "verify.app.locations",
    "verify.report": "verify.app.report",
    "verify.report.formatting": "verify.core.formatting",
    "verify.app.report.formatting": "verify.core.formatting",
    "verify.selftest": "verify.app.selftest",
    # the independent checkers: the classification checker joins them; their kernel and the results auditor
    "verify.experiments.classify.checker": "verify.certcheck.classify",
    "verify.classify.checker": "verify.certcheck.classify",
    **{f"verify.certcheck.{name}": f"verify.certcheck.kernel.{name}" for name in (
        "limits", "common", "meter", "estimate", "numbers", "model", "fates", "closed_form", "statuses", "run",
        "jsonvalues", "claims", "similarity")},
    **{f"verify.certcheck.{name}": f"verify.certcheck.results.{name}" for name in (
        "campaign", "sections", "reproduction", "glance")},
    "verify.certcheck.kernel_block": "verify.certcheck.results.kernel_pass",
}


def current_name(old: str) -> str | None:
    """Where the module once imported as ``old`` is now (None: ``old`` never moved).

    An exact entry of :data:`MOVED` first; else the longest moved package that ``old`` lies in.
    """
    if old in MOVED:
        return MOVED[old]
    parts = old.split(".")
    for cut in range(len(parts) - 1, 1, -1):
        package = ".".join(parts[:cut])
        if package in MOVED:
            return ".".join([MOVED[package], *parts[cut:]])
    return None


def _message(old: str, new: str) -> str:
    return (f"{old} has moved to {new}: import it from there, or better from the public module verify, whose names "
            "do not move (docs/api.md); the old name will be removed in a later release")


class _Alias(importlib.abc.Loader):
    """Loads ``old`` by importing ``new`` and putting that module in ``sys.modules`` under the old name too."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None  # a placeholder the import system discards: exec_module puts the real module in its place

    def exec_module(self, module: ModuleType) -> None:
        # stacklevel 2: the frame of the user's import statement (the import system's own frames are skipped).
        warnings.warn(_message(self.old, self.new), DeprecationWarning, stacklevel=2)
        target = importlib.import_module(self.new)
        # The import system returns whatever sys.modules holds under the old name once this returns.
        sys.modules[self.old] = target


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the modules of :data:`MOVED` under their old names (and nothing else)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("verify."):
            return None
        new = current_name(fullname)
        if new is None or importlib.util.find_spec(new) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(fullname, new))


_FINDER = MovedModuleFinder()


def install() -> None:
    """Put the finder first in ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _FINDER)
