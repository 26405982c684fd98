"""Code from a user's Python file (a conjecture file, a sweep's measurement), run without touching the package.

Every way the file can be wrong (missing, not a regular file, not Python, raising on import,
exiting) becomes one :class:`~verify.core.numbers.InputError`, which the CLI prints as one line
with exit status 2; so does anything its code raises later while it runs (:func:`user_code`).

**A user file is code.** Loading it runs it with the user's rights, like ``python FILE.py``:
load only files you would run.
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


__all__ = ["import_user_file", "looks_like_file", "user_code"]


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
            raise OSError(f"{path}: only the user's file itself is read")  # the bytecode cache: none
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
