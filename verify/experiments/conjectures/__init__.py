"""The conjecture lab: statements beyond the theorem's hypotheses, searched with Hypothesis within a budget.

Public API for your own conjecture files (``hardmax-verify conjecture run my_conj.py``)::

    from verify.experiments.conjectures import Conjecture, Observation
    from verify.strategies import configurations       # or outside_configurations, ...
    from verify.claims import check_configuration      # the exact claim checks and D7 fates

A search rotates through the families of verify.core.families with growing sizes until a
counterexample or its budget (:mod:`verify.experiments.conjectures.search`); without a counterexample the
outcome is "not refuted", with what was covered. The catalogue of known-false statements
(:mod:`verify.experiments.conjectures.catalogue`) and the held-out ones written before the search ran on
them (:mod:`verify.experiments.conjectures.heldout`) measure the search's power. See docs/conjectures.md
and examples/my_conjecture.py.
"""

import importlib
from typing import TYPE_CHECKING, Any

# The public names load on first use (PEP 562): the report reads saved runs through its section
# modules without importing the lab, and with it Hypothesis.
_HOME = {"Conjecture": "base", "ConjectureResult": "base", "Observation": "base", "SearchProgress": "base",
         "family_of": "base", "recheck_file": "base", "run_conjecture": "base",
         "BUILTIN_CONJECTURES": "builtin", "get_conjecture": "builtin", "CATALOGUE": "catalogue",
         "HELD_OUT": "heldout", "load_conjectures": "loader", "Branch": "search", "Budget": "search"}

if TYPE_CHECKING:
    from .base import Conjecture, ConjectureResult, Observation, SearchProgress, family_of, recheck_file, run_conjecture
    from .builtin import BUILTIN_CONJECTURES, get_conjecture
    from .catalogue import CATALOGUE
    from .heldout import HELD_OUT
    from .loader import load_conjectures
    from .search import Branch, Budget


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "BUILTIN_CONJECTURES",
    "CATALOGUE",
    "HELD_OUT",
    "Branch",
    "Budget",
    "Conjecture",
    "ConjectureResult",
    "Observation",
    "SearchProgress",
    "family_of",
    "get_conjecture",
    "load_conjectures",
    "recheck_file",
    "run_conjecture",
]
