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

import hashlib
import importlib.machinery
import importlib.util
import sys
import traceback
import warnings
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Callable, Iterator

from verify.core.io import read_input
from verify.core.numbers import InputError
from verify.core.text import shorten
from .base import Conjecture
from .builtin import BUILTIN_CONJECTURES
from .catalogue import CATALOGUE
from .heldout import HELD_OUT

__all__ = ["import_user_file", "load_conjectures", "looks_like_file", "user_code"]


def looks_like_file(target: str) -> bool:
    """A command-line target names a file (rather than a built-in conjecture) when it ends in .py or has a slash."""
    return target.endswith(".py") or "/" in target or "\\" in target


class _ReadSource(importlib.machinery.SourceFileLoader):
    """Import a file from the bytes already read (bounded, regular file): exactly those bytes run.

    No bytecode cache is read or written beside the user's file.
    """

    def __init__(self, fullname: str, path: str, source: bytes) -> None:
        super().__init__(fullname, path)
        self._source = source

    def get_data(self, path: str) -> bytes:
        if path != self.path:
            raise OSError(f"{path}: only the conjecture file itself is read")  # the bytecode cache: none
        return self._source

    def set_data(self, path: str, data: bytes,  # type: ignore[override]  # stubs say Buffer; bytes is what reaches it
                 *, _mode: int = 0o666) -> None:
        """Write no bytecode cache."""


def import_user_file(path: str | Path, *, expected: str,
                     on_warning: Callable[[warnings.WarningMessage], None] | None = None) -> ModuleType:
    """Import the user's Python file ``path`` (a conjecture file, a sweep's measurement file) and return the module.

    The one way a user file is run: read once, bounded, regular files only; executed as a module
    named after a hash of its absolute path; whatever it raises or exits with on import is bad
    input naming the file (:func:`user_code`); its warnings go to ``on_warning``.
    """
    path = Path(path)
    where = str(path)
    if path.suffix != ".py" and not path.is_dir():
        raise InputError(where, "expected a Python file ending in .py")
    # Read once, bounded, regular files only (a FIFO or /dev/zero would hang the import); the
    # code executed is exactly these bytes.
    source = read_input(path, expected=expected)
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    module_name = f"hardmax_user_conjectures_{digest}"
    loader = _ReadSource(module_name, str(path), source)
    spec = importlib.util.spec_from_file_location(module_name, path, loader=loader)
    if spec is None:
        raise InputError(where, "cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    # Registered before execution: dataclasses and pickling look the module up by name.
    sys.modules[module_name] = module
    try:
        with user_code(where, "on import"), warnings.catch_warnings(record=True) as caught:
            # Deprecations are always recorded; other warnings follow the filters in force.
            warnings.filterwarnings("always", category=DeprecationWarning)
            try:
                loader.exec_module(module)
            except SyntaxError as error:
                if error.filename not in (where, None):  # raised by code the file imports: that code's failure
                    raise
                at = f" at line {error.lineno}" if error.lineno else ""
                raise InputError(where, f"syntax error{at}: {error.msg}") from None
            except ValueError as error:  # older Pythons: a NUL byte in the source
                if "null bytes" not in str(error):
                    raise
                raise InputError(where, f"syntax error: {error}") from None
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    for warning in caught:
        if on_warning is not None:
            on_warning(warning)
        else:
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)

    return module


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


@contextmanager
def user_code(where: str, when: str = "while running") -> Iterator[None]:
    """Run code from a conjecture file: whatever it raises or exits with is bad input (exit 2), said in one line.

    ``sys.exit(0)`` in a user file must not end ``conjecture run`` with status 0 ("held")
    having run nothing; ``SystemExit`` and every other exception (``BaseException`` included)
    become an :class:`InputError` naming the file and, when the traceback passes through it,
    the line. An exception whose traceback does not pass through the file (writing the
    results on a full disk, say) is the tool's, not the file's, and propagates (exit 4) -
    except on import, where everything that happens is the file's doing. Ctrl-C stays Ctrl-C.
    """
    try:
        yield
    except (KeyboardInterrupt, InputError):
        raise
    except BaseException as error:  # noqa: BLE001 - any failure of user code is bad input, said in one line
        frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == where]
        if not frames and isinstance(error, Exception) and when != "on import":
            raise
        line = f" (line {frames[-1].lineno})" if frames else ""
        if isinstance(error, SystemExit):
            what = f"called sys.exit({shorten(repr(error.code))}) {when}{line}"
        else:
            what = f"raised {type(error).__name__} {when}{line}: {shorten(str(error), 200)}"
        raise InputError(where, what) from None
