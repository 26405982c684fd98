"""Strict JSON from a bounded regular file, and text written whole or not at all: the one reader and the one writer of every checker.

A file must say one thing to every reader. ``json.loads`` keeps the last of two equal keys in one
object where another reader keeps the first, and it accepts ``NaN`` and ``Infinity``, which are
not JSON numbers: both are refused here, never read. Only a regular file is read (a FIFO or a
device would hang, a directory is not a file), and never more than its byte limit, even when it
grows after it was looked at. Text that is not UTF-8, not JSON, or nested more deeply than
:data:`~.kernel.MAX_JSON_DEPTH` levels is refused the same way, as an :class:`UnreadableJSON` naming the path,
why, and which of the :data:`KINDS` of refusal it is; no traceback of the decoder escapes.

The callers differ only in how numbers are kept (``parse_float``: a decimal as its text;
``parse_int``: a reader of long integers, which may refuse one by raising :class:`Refused`) and in
the byte limit. Each translates :class:`UnreadableJSON` into its own error and wording.
:func:`read_json_file` reads a path; :func:`decode_json` decodes bytes already read (a saved file
that is hashed and parsed from the same bytes). :func:`read_bounded` gives a file's bytes, and
:func:`open_bounded` the file itself, opened the same way, for a reader that goes through it in
pieces (a file hashed without being kept) or reads a file that is not JSON.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import sys
import tempfile
from typing import Any, BinaryIO, Callable

from .kernel import MAX_JSON_DEPTH

__all__ = ["UnreadableJSON", "Refused", "read_json_file", "read_bounded", "open_bounded", "decode_json", "write_text",
           "KINDS",
           "NOT_FOUND", "CANNOT_OPEN", "NOT_REGULAR", "TOO_LARGE", "NOT_UTF8", "REPEATED_KEY", "NOT_A_NUMBER",
           "REFUSED", "NOT_JSON"]

# The kinds of refusal (UnreadableJSON.kind): how a caller tells them apart without parsing a message.
NOT_FOUND = "not found"
CANNOT_OPEN = "cannot open"          # stat or open failed otherwise (permission, a name too long, ...)
NOT_REGULAR = "not a regular file"   # a directory, FIFO, socket or device
TOO_LARGE = "too large"              # more than the byte limit
NOT_UTF8 = "not UTF-8"
REPEATED_KEY = "repeated key"        # a key twice in one object
NOT_A_NUMBER = "not a number"        # NaN, Infinity or -Infinity
REFUSED = "refused"                  # a number parse_int or parse_float refused (Refused)
NOT_JSON = "not JSON"                # a syntax error, or nesting too deep to decode
KINDS = (NOT_FOUND, CANNOT_OPEN, NOT_REGULAR, TOO_LARGE, NOT_UTF8, REPEATED_KEY, NOT_A_NUMBER, REFUSED, NOT_JSON)
AMBIGUOUS = frozenset({REPEATED_KEY, NOT_A_NUMBER})  # JSON that does not say one thing to every reader


class UnreadableJSON(Exception):
    """A file, or its text, that is not read as JSON: ``path``, ``reason`` (for a message) and ``kind`` (:data:`KINDS`)."""

    def __init__(self, path: str, reason: str, kind: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason, self.kind = str(path), reason, kind


class Refused(Exception):
    """Raised by a ``parse_int`` or ``parse_float`` for a number it does not read (a digit limit): the
    file is refused with this message as the reason (kind :data:`REFUSED`)."""


class _Ambiguous(Exception):
    def __init__(self, reason: str, kind: str) -> None:
        super().__init__(reason)
        self.kind = kind


def _unique_keys(pairs: list) -> dict:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set = set()
        for key, _ in pairs:
            if key in seen:
                raise _Ambiguous(f"the key {json.dumps(key)[:60]} appears twice in one object", REPEATED_KEY)
            seen.add(key)
    return data


def _refuse_constant(name: str) -> Any:
    raise _Ambiguous(f"{name} is not a JSON number", NOT_A_NUMBER)


def _stat_error(path: str, error: OSError) -> UnreadableJSON:
    if isinstance(error, FileNotFoundError):
        return UnreadableJSON(path, "file not found", NOT_FOUND)
    return UnreadableJSON(path, error.strerror or str(error), CANNOT_OPEN)


def _not_regular(path: str) -> UnreadableJSON:
    return UnreadableJSON(path, "not a regular file (a directory, FIFO or device is not read)", NOT_REGULAR)


def open_bounded(path: str, max_bytes: int) -> BinaryIO:
    """The regular file ``path`` of at most ``max_bytes`` bytes, open for reading in binary.

    Looked at before it is opened (a FIFO or a device is never opened, a file larger than the limit
    never opened), and again once open, without blocking, in case it was replaced in between. The
    caller reads it in a ``with`` block and bounds what it reads (the file may grow once open):
    :func:`read_bounded` reads at most one byte beyond the limit.

    Raises
    ------
    UnreadableJSON
        Not found, not a regular file, more than ``max_bytes`` bytes, or it could not be opened.
    """
    path = str(path)
    try:
        info = os.stat(path)
    except OSError as error:
        raise _stat_error(path, error) from None
    if not stat.S_ISREG(info.st_mode):
        raise _not_regular(path)
    if info.st_size > max_bytes:
        raise UnreadableJSON(path, f"{info.st_size} bytes, more than the limit of {max_bytes}", TOO_LARGE)
    try:
        # O_NONBLOCK: a FIFO put in its place since the stat above is opened without waiting for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as error:
        if isinstance(error, IsADirectoryError):
            raise _not_regular(path) from None
        raise _stat_error(path, error) from None
    handle = os.fdopen(fd, "rb")
    try:
        regular = stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
    except BaseException:
        handle.close()
        raise
    if not regular:
        handle.close()
        raise _not_regular(path)
    return handle


def read_bounded(path: str, max_bytes: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes`` of them (:func:`open_bounded`).

    Raises
    ------
    UnreadableJSON
        Not found, not a regular file, more than ``max_bytes`` bytes, or it could not be opened.
    OSError
        Reading failed after the file was opened.
    """
    with open_bounded(path, max_bytes) as handle:
        raw = handle.read(max_bytes + 1)  # bounded even if the file grew after it was looked at
    if len(raw) > max_bytes:
        raise UnreadableJSON(str(path), f"more than the limit of {max_bytes} bytes", TOO_LARGE)
    return raw


def decode_json(raw: bytes, path: str, *, parse_float: Callable[[str], Any] = str,
                parse_int: Callable[[str], Any] | None = None) -> Any:
    """The strict JSON of ``raw`` (UTF-8): a repeated key, NaN or Infinity refused; decimals read by
    ``parse_float`` (by default kept as their text), integers by ``parse_int`` (by default int).

    Raises
    ------
    UnreadableJSON
        Not UTF-8, not JSON, nested too deeply, ambiguous (:data:`AMBIGUOUS`), or a number the
        parsers refused; ``path`` names the file in the error.
    """
    path = str(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UnreadableJSON(path, "not UTF-8 text", NOT_UTF8) from None
    try:
        value = json.loads(text, parse_float=parse_float, parse_int=parse_int, parse_constant=_refuse_constant,
                           object_pairs_hook=_unique_keys)
    except _Ambiguous as error:
        raise UnreadableJSON(path, str(error), error.kind) from None
    except Refused as error:
        raise UnreadableJSON(path, str(error), REFUSED) from None
    except RecursionError:
        raise UnreadableJSON(path, "not valid JSON (nested more deeply than the reader can decode)", NOT_JSON) from None
    except ValueError as error:
        raise UnreadableJSON(path, f"not valid JSON ({str(error)[:200]})", NOT_JSON) from None
    if _nesting_depth(value) > MAX_JSON_DEPTH:
        # Every file this checker reads is a few levels deep; a deeper one would exhaust the recursion of what
        # reads it later (json.dumps of a field, the schema walk) and end as a crash instead of bad input.
        raise UnreadableJSON(path, f"nested more deeply than {MAX_JSON_DEPTH} levels", NOT_JSON)
    return value



def _nesting_depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (0 for a scalar), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest


def read_json_file(path: str, *, max_bytes: int, parse_float: Callable[[str], Any] = str,
                   parse_int: Callable[[str], Any] | None = None) -> Any:
    """The strict JSON of the regular file ``path`` of at most ``max_bytes`` bytes
    (:func:`read_bounded`, then :func:`decode_json`).

    Raises
    ------
    UnreadableJSON
        Not a regular file within ``max_bytes``, not UTF-8, not strict JSON, or a refused number.
    OSError
        Reading failed after the file was opened.
    """
    return decode_json(read_bounded(path, max_bytes), path, parse_float=parse_float, parse_int=parse_int)


def write_text(text: str, destination: str) -> None:
    """Write ``text`` to ``destination`` ("-": standard output) whole or not at all: a temporary file in the same
    folder, renamed into place, so that a full disk or an interruption leaves no half-written file. A device or
    FIFO there (/dev/stdout, a pipe) is written in place, never replaced by a rename.

    Raises
    ------
    OSError
        The folder is missing or not writable, the disk is full (the temporary file is removed).
    """
    if destination == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    if os.path.exists(destination) and not os.path.isfile(destination):
        with open(destination, "w", encoding="utf-8") as handle:
            handle.write(text)
        return
    directory = os.path.dirname(os.path.abspath(destination))
    blocker = directory
    while blocker and not os.path.isdir(blocker):
        if os.path.exists(blocker):  # a file where a folder must be: name it, not the temporary file
            raise NotADirectoryError(errno.ENOTDIR, "exists and is not a folder", blocker)
        parent = os.path.dirname(blocker)
        blocker = "" if parent == blocker else parent
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".certcheck.", suffix=".partial")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, destination)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
