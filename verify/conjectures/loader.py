"""Load user conjectures from a Python file, without touching the package.

The file defines :class:`~verify.conjectures.Conjecture` objects at module level (or a list
``CONJECTURES``); ``hardmax-verify conjecture run my_conj.py`` runs them all. Every way the
file can be wrong (missing, not Python, raising on import, defining no conjecture) becomes
one :class:`~verify.numbers.InputError`, which the CLI prints as one line with exit status 2.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from pathlib import Path

from ..numbers import InputError
from .base import Conjecture

__all__ = ["load_conjectures", "looks_like_file"]


def looks_like_file(target: str) -> bool:
    """A command-line target names a file (rather than a built-in conjecture) when it ends in .py or has a slash."""
    return target.endswith(".py") or "/" in target or "\\" in target


def load_conjectures(path: str | Path) -> list[Conjecture]:
    """Import ``path`` with importlib and return its conjectures, in definition order.

    Parameters
    ----------
    path
        A ``.py`` file. It is executed as a module named after a hash of its absolute path,
        so two user files with the same name do not collide.
    """
    path = Path(path)
    where = str(path)
    if not path.exists():
        raise InputError(where, "file not found")
    if path.is_dir():
        raise InputError(where, "is a directory, expected a Python file defining Conjecture objects")
    if path.suffix != ".py":
        raise InputError(where, "expected a Python file ending in .py")
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    module_name = f"hardmax_user_conjectures_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise InputError(where, "cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    # Registered before execution: dataclasses and pickling look the module up by name.
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        sys.modules.pop(module_name, None)
        raise InputError(where, f"syntax error at line {error.lineno}: {error.msg}") from None
    except Exception as error:  # noqa: BLE001 - any failure of user code is bad input, said in one line
        sys.modules.pop(module_name, None)
        frames = [f for f in traceback.extract_tb(error.__traceback__) if Path(f.filename) == path]
        line = f" (line {frames[-1].lineno})" if frames else ""
        raise InputError(where, f"raised {type(error).__name__} on import{line}: {error}") from None

    declared = getattr(module, "CONJECTURES", None)
    if declared is not None:
        if not isinstance(declared, (list, tuple)) or not all(isinstance(c, Conjecture) for c in declared):
            raise InputError(where, "CONJECTURES must be a list of verify.conjectures.Conjecture objects")
        conjectures = list(declared)
    else:
        conjectures = [value for value in vars(module).values() if isinstance(value, Conjecture)]
    if not conjectures:
        raise InputError(where, "defines no Conjecture (create verify.conjectures.Conjecture objects at module level "
                                "or list them in CONJECTURES)")
    names = [c.name for c in conjectures]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise InputError(where, f"two conjectures share the name {duplicates[0]!r}")
    return conjectures
