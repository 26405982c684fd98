"""Load user conjectures from a Python file, without touching the package.

The file defines :class:`~verify.experiments.conjectures.Conjecture` objects at module level (or a list
``CONJECTURES``); ``hardmax-verify conjecture run my_conj.py`` runs them all. Every way the
file can be wrong (missing, not a regular file, not Python, raising on import, exiting, defining
no conjecture, reusing the name of a built-in conjecture or of a catalogued or held-out statement) becomes one
:class:`~verify.core.numbers.InputError`, which the CLI prints as one line with exit status 2; so
does anything its code raises later while it runs (:func:`user_code`).

**A conjecture file is code.** Loading it runs it with the user's rights, like ``python
FILE.py``: load only files you would run.

A file written against an import path that has moved (``from verify.conjectures import
Conjecture``) still loads: the old path warns (DeprecationWarning, naming the new one), and the
warnings the file's import raises are handed to the caller (``on_warning``), which the command
line prints as one ``warning:`` line each, since Python hides DeprecationWarnings outside
``__main__``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable
import warnings

from verify.core.numbers import InputError
from verify.core.text import shorten
from .base import Conjecture
from .builtin import BUILTIN_CONJECTURES
from .catalogue import CATALOGUE
from .heldout import HELD_OUT
from .user_files import import_user_file, looks_like_file, user_code

__all__ = ["import_user_file", "load_conjectures", "looks_like_file", "user_code"]


def load_conjectures(path: str | Path, *,
                     on_warning: Callable[[warnings.WarningMessage], None] | None = None) -> list[Conjecture]:
    """Import ``path`` with importlib and return its conjectures, in definition order.

    Parameters
    ----------
    path
        A ``.py`` file. It is executed as a module named after a hash of its absolute path,
        so two user files with the same name do not collide.
    on_warning
        Called with each warning raised while the file is imported, DeprecationWarnings
        included (an import path that has moved, :mod:`verify._moved`). Without it they are
        issued again as warnings, under the filters in force.
    """
    where = str(path)
    module = import_user_file(path, expected="a Python file defining Conjecture objects", on_warning=on_warning)
    declared = getattr(module, "CONJECTURES", None)
    if declared is not None:
        if not isinstance(declared, (list, tuple)) or not all(isinstance(c, Conjecture) for c in declared):
            raise InputError(where, "CONJECTURES must be a list of verify.Conjecture objects")
        conjectures = list(declared)
    else:
        conjectures = [value for value in vars(module).values() if isinstance(value, Conjecture)]
    if not conjectures:
        raise InputError(where, "defines no Conjecture (create verify.Conjecture objects at module level "
                                "or list them in CONJECTURES)")
    names = [c.name for c in conjectures]
    if not all(isinstance(name, str) and name.strip() for name in names):
        raise InputError(where, "a conjecture's name must be a non-empty string")
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise InputError(where, f"two conjectures share the name \"{shorten(duplicates[0])}\"")
    for name in names:
        if name in BUILTIN_CONJECTURES or name in CATALOGUE or name in HELD_OUT:
            # Its results would land in the built-in's result file and be read as the built-in's.
            what = ("a built-in conjecture" if name in BUILTIN_CONJECTURES else
                    "a catalogued statement" if name in CATALOGUE else "a held-out statement")
            raise InputError(where, f"the conjecture \"{shorten(name)}\" has the name of {what}; give it another name")
    return conjectures
