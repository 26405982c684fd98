"""Files in and out: bounded reads of regular files, atomic writes, locked atomic folders, safe names.

Inputs (:func:`read_input`): only regular files are read (a FIFO, a device such as
``/dev/zero`` or a socket is refused before it is opened for a blocking read), and at most
:data:`MAX_INPUT_BYTES` (or the caller's ``limit``); anything else is an
:class:`~verify.core.numbers.InputError` naming the file (exit 2). :func:`read_json` reads a JSON
file so, strictly (a repeated key, NaN and Infinity refused). Inputs too large to hold in memory
(review archives) are streamed from :func:`open_input`, opened and checked the same way;
:func:`sha256_file` hashes through it.

Outputs: every output path a command takes is checked before any work
(:func:`check_writable`: the nearest existing folder must be a folder this process can create
files in), so a typo in ``--json`` does not cost a campaign. A file is written to a temporary
beside it and renamed into place (:func:`atomic_write_bytes`); a folder is assembled beside its target and swapped in with a
single atomic rename (:func:`atomic_directory`), under a lock that makes a second run into
the same folder refuse (:func:`directory_lock`, :class:`~verify.core.exitcodes.OutputBusy`, exit
4). An error while writing (a full disk, a file-size limit) names the user's path, never the
temporary's. Files and folders get the usual permissions (0666 / 0777 less the umask). JSON outputs are
made by :func:`json_text`: NaN and Infinity are refused when the text is made (JSON has no such
numbers and the readers above refuse them), with an error naming the field, so that no file is
written that its own reader then cannot read.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import math
import os
import re
import secrets
import shutil
import stat
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator, TypeVar

from .exitcodes import CouldNotComplete, OutputBusy
from .numbers import InputError, parse_json

T = TypeVar("T")

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: folders are not locked
    fcntl = None  # type: ignore[assignment]

__all__ = ["MAX_INPUT_BYTES", "UnwritableOutput", "check_writable", "read_input", "read_text", "read_json", "json_from_bytes", "open_input",
           "json_text", "NonFiniteJSON", "atomic_write_text", "canonical_json",
           "canonical_sha256", "atomic_write_bytes", "atomic_directory",
           "directory_lock", "safe_name", "sha256_file"]

# Input files (configurations, campaigns, conjecture files) are at most this large. The largest
# real ones are a few hundred kilobytes (128 tokens of 16 coordinates); 16 MiB of JSON parses in
# a few seconds within a few hundred megabytes.
MAX_INPUT_BYTES = 16 * 2**20


# --------------------------------------------------------------------------- input

def _kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def _open_regular(path: str | os.PathLike[str], *, expected: str, limit: int | None) -> int:
    """A descriptor of the regular file ``path``, opened without waiting and checked once open.

    Opened non-blocking, so that a FIFO put at ``path`` (even after a look at it said a regular
    file) is never waited on; then ``fstat``: anything but a regular file, and a file larger than
    ``limit`` (when given), is refused. The descriptor is blocking again when returned.
    """
    where = os.fsdecode(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise InputError(where, "file not found") from None
    except OSError as error:
        raise InputError(where, f"cannot be read: {error.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(where, f"is {_kind_of(info.st_mode)}, not a regular file (expected {expected})")
        if limit is not None and info.st_size > limit:
            raise InputError(where, f"is {info.st_size:,} bytes, more than the {limit:,} bytes an input file may have")
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(fd, True)
    except OSError as error:
        os.close(fd)
        raise InputError(where, f"cannot be read: {error.strerror}") from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_input(path: str | os.PathLike[str], *, expected: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    ``expected`` names what the file should be ("a JSON configuration file"), for the message.
    A missing or unreadable file, a directory, FIFO, device or socket, and a file larger than
    ``limit`` are refused with an :class:`InputError` naming the file, without blocking: the
    file is opened non-blocking and checked with ``fstat`` before anything is read.
    """
    where = os.fsdecode(path)
    fd = _open_regular(path, expected=expected, limit=limit)
    try:
        chunks = []
        remaining = limit + 1  # one byte more than allowed: a file that grew while read is caught
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as error:
        raise InputError(where, f"cannot be read: {error.strerror}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise InputError(where, f"is more than the {limit:,} bytes an input file may have")
    return data


def open_input(path: str | os.PathLike[str], *, expected: str, limit: int | None = None) -> BinaryIO:
    """The regular file ``path`` opened for reading as a binary stream, for inputs read as they stream.

    Refused as :func:`read_input` refuses (missing, unreadable, a directory, FIFO, device or
    socket, larger than ``limit`` when given), with an :class:`InputError` naming the file and
    without blocking. What is read from the stream is the caller's to bound (a file may grow).
    """
    return os.fdopen(_open_regular(path, expected=expected, limit=limit), "rb")


def read_text(path: str | os.PathLike[str], *, expected: str, limit: int = MAX_INPUT_BYTES) -> str:
    """:func:`read_input` decoded as UTF-8; text that is not UTF-8 is an :class:`InputError` naming the file."""
    try:
        return read_input(path, expected=expected, limit=limit).decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(os.fsdecode(path), f"is not UTF-8 text, expected {expected}") from None


def read_json(path: str | os.PathLike[str], *, expected: str, limit: int = MAX_INPUT_BYTES,
              parse_float: Callable[[str], Any] = float) -> Any:
    """The JSON of the regular file ``path`` (:func:`read_input`, then :func:`json_from_bytes`).

    The reader of the files the suite saved and reads back (evaluation records, checkpoint.json,
    results files): a key repeated within one object, NaN and Infinity are refused, as the
    independent checker (``certcheck``) refuses them, so that the two never read one file two
    ways. Every refusal is an :class:`InputError` naming the file (exit status 2). Numbers with a
    fraction or an exponent are read by ``parse_float`` (floats by default, as they were written).
    """
    return json_from_bytes(read_input(path, expected=expected, limit=limit), source=os.fsdecode(path),
                           expected=expected, parse_float=parse_float)


def json_from_bytes(raw: bytes, *, source: str, expected: str, parse_float: Callable[[str], Any] = float) -> Any:
    """The JSON of ``raw``, the bytes of the file ``source`` already read (to be hashed too), as
    :func:`read_json` reads it: UTF-8, strict (:func:`~verify.core.numbers.parse_json`), or an
    :class:`InputError` naming ``source``."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(source, f"is not UTF-8 text, expected {expected}") from None
    return parse_json(text, source=source, parse_float=parse_float)


class NonFiniteJSON(CouldNotComplete, ValueError):
    """A value to be written as JSON holds NaN or an infinity, which JSON cannot hold (exit status 4).

    ``field`` is where, as ``history[3].train_running_loss``; nothing has been written.
    """

    def __init__(self, where: str, field: str, value: float) -> None:
        self.where, self.field, self.value = where, field, value
        super().__init__(f"{where}: {field or '(the value itself)'} is {value!r}, which JSON cannot hold "
                         "(its readers refuse NaN and Infinity); nothing was written")


def _non_finite_field(value: Any, default: Callable[[Any], Any] | None, field: str = "",
                      depth: int = 0) -> tuple[str, float] | None:
    """Where the first non-finite float in ``value`` is (as json.dumps walks it), and the float."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (field, value)
    if depth > 10_000 or isinstance(value, (str, int)) or value is None:
        return None
    if isinstance(value, dict):
        items: Any = ((f"{field}.{key}" if field else str(key), item) for key, item in value.items())
    elif isinstance(value, (list, tuple)):
        items = ((f"{field}[{index}]", item) for index, item in enumerate(value))
    elif default is not None:
        try:
            converted = default(value)
        except Exception:  # noqa: BLE001 - json.dumps reports it; here only the non-finite value is looked for
            return None
        return _non_finite_field(converted, default, field, depth + 1)
    else:
        return None
    for key, item in items:
        found = _non_finite_field(item, default, key, depth + 1)
        if found is not None:
            return found
    return None


def json_text(value: Any, *, where: str, indent: int | None = 1, sort_keys: bool = False,
              separators: tuple[str, str] | None = None, ensure_ascii: bool = True,
              default: Callable[[Any], Any] | None = None, newline: bool = True) -> str:
    """The JSON text of ``value``, as every JSON file the suite writes is made (``json.dumps``'s options).

    NaN and the infinities are refused (``allow_nan=False``): JSON has no such numbers, and
    :func:`read_json` and the independent checkers refuse them, so a file holding one could be
    written and never read back. The refusal is a :class:`NonFiniteJSON` naming ``where`` (the file)
    and the field. A writer whose values may legitimately be non-finite encodes them itself first
    (as a string, or null with the reason beside it, as its format says). ``newline``: end with one.
    """
    try:
        text = json.dumps(value, indent=indent, sort_keys=sort_keys, separators=separators,
                          ensure_ascii=ensure_ascii, default=default, allow_nan=False)
    except ValueError:
        found = _non_finite_field(value, default)
        if found is None:
            raise
        raise NonFiniteJSON(where, *found) from None
    return text + "\n" if newline else text


# --------------------------------------------------------------------------- files

def canonical_json(value: Any) -> str:
    """The canonical text of a JSON value: keys sorted, no whitespace, non-ASCII kept, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical_sha256(value: Any) -> str:
    """The sha256 (hex) of :func:`canonical_json` encoded as UTF-8."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def _ensure_folder(folder: Path) -> None:
    """Create ``folder`` and its parents; a path on the way that is a file is named in the error."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), folder)
        raise NotADirectoryError(errno.ENOTDIR, "exists and is not a folder", str(blocker)) from None


def _fsync_folder(folder: Path) -> None:
    """Make a rename durable (best effort: not every platform can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _unique_token() -> str:
    """A name part no other process uses (its id) and this one uses once (a random part)."""
    return f"{os.getpid()}.{secrets.token_hex(4)}"


def _make_new(path: Path, make: Callable[[Path], T]) -> T | None:
    """``make(path)``, which creates ``path`` exclusively, or None if ``path`` already exists.

    An interrupt can land once ``path`` is made, before what ``make`` returned is kept; then
    ``path`` is removed before the interrupt goes on. So ``path`` must be this process's alone:
    named with :func:`_unique_token`, or made under a lock this process holds.
    """
    try:
        return make(path)
    except FileExistsError:
        return None
    except OSError:
        raise
    except BaseException:
        _remove(path)
        raise


def _new_file(path: Path, mode: int) -> int | None:
    """A descriptor of the file ``path``, created now (:func:`_make_new`), or None if it exists."""
    return _make_new(path, lambda new: os.open(new, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode))


def _new_folder(path: Path) -> bool:
    """True if the folder ``path`` was created now (:func:`_make_new`; the umask applies), False if it exists."""
    def make(new: Path) -> bool:
        new.mkdir(0o777)
        return True
    return _make_new(path, make) is not None


def _probe(folder: Path) -> None:
    """Create and remove an empty file in ``folder``: the one test of writability that holds for root too."""
    while True:
        probe = folder / f".hardmax-verify-probe.{_unique_token()}"
        fd = _new_file(probe, 0o600)
        if fd is not None:
            break
    try:
        os.close(fd)
    finally:
        probe.unlink(missing_ok=True)


class UnwritableOutput(CouldNotComplete):
    """An output path refused before any work (exit status 4): the message names it and says why."""


def check_writable(path: str | os.PathLike[str], *, folder: bool = False, replaced: bool = False) -> None:
    """Refuse, before any work, an output path that cannot be written: :class:`UnwritableOutput` naming ``path``.

    ``folder``: ``path`` is an output folder, whose files are written into it, or, with
    ``replaced``, which is replaced whole (assembled beside it, :func:`atomic_directory`);
    otherwise a file (written beside itself and renamed into place, or in place when it is a
    device or a FIFO such as ``/dev/stdout``). What is checked: that ``path`` is of the expected
    kind if it exists, that the nearest existing folder on its way is a folder, not a file, and
    that a file can be created where the output will be made (an empty probe, created and
    removed at once). Nothing is left behind and no folder is created.
    """
    target = Path(path)

    def refuse(reason: str) -> UnwritableOutput:
        return UnwritableOutput(f"{os.fspath(path)}: {reason}; nothing was run")

    try:
        mode: int | None = os.stat(target).st_mode
    except (FileNotFoundError, NotADirectoryError):  # missing, or a file on the way (found below)
        mode = None
    except OSError as error:
        raise refuse(f"cannot be written ({error.strerror})") from None
    if mode is not None:
        if folder and not stat.S_ISDIR(mode):
            raise refuse("exists and is not a folder")
        if not folder and stat.S_ISDIR(mode):
            raise refuse("is a folder, not a file")
        if not folder and not stat.S_ISREG(mode):  # a device or a FIFO: written in place
            if not os.access(target, os.W_OK):
                raise refuse("cannot be written (permission denied)")
            return
    if folder and mode is not None and not replaced:
        parent = target.absolute()  # written into: the folder itself must take new files
    else:
        parent = target.absolute().parent
    while not os.path.lexists(parent) and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise refuse(f"{parent} exists and is not a folder")
    try:
        _probe(parent)
    except OSError as error:
        raise refuse(f"no file can be created in {parent} ({error.strerror})") from None


def _naming(error: OSError, path: Path) -> OSError:
    """``error`` (of its own kind) naming ``path``, the user's output, instead of a temporary beside it."""
    if error.errno is None:
        return error
    return OSError(error.errno, error.strerror or str(error), os.fspath(path))


def atomic_write_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary file in the same folder and an atomic rename.

    The file gets the permissions of any new file (0666 less the umask). On any error, Ctrl-C
    included, ``path`` keeps its previous content and the temporary is removed; an I/O error
    names ``path``, not the temporary.
    """
    path = Path(path)
    _ensure_folder(path.parent)
    while True:
        tmp = path.with_name(f".{path.name}.{_unique_token()}.tmp")
        try:
            fd = _new_file(tmp, 0o666)  # mode 0o666: the kernel applies the umask
        except OSError as error:
            raise _naming(error, path) from None
        if fd is not None:
            break
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise _naming(error, path) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def atomic_write_text(path: Path, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


# --------------------------------------------------------------------------- folders

_held: dict[str, list[int]] = {}  # lock file -> [descriptor, depth]: the locks this process holds
_held_guard = threading.Lock()


def _partial_pattern(name: str) -> re.Pattern[str]:
    # The random part has a fixed length, so a staging folder belongs to exactly one target name.
    return re.compile(rf"\.{re.escape(name)}\.[a-z0-9_]{{8}}\.partial")


def _backup_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(name)}\.old-[0-9]+")


def _remove(path: Path) -> None:
    if path.is_symlink() or not path.is_dir():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)


def _clean_leftovers(target: Path) -> None:
    """Remove what runs killed mid-way left beside ``target`` (called with its lock held, so none is live).

    Staging folders (``.NAME.xxxxxxxx.partial``) go. A backup (``.NAME.old-PID``, from the
    two-rename fallback of :func:`atomic_directory`) is put back if ``target`` is missing,
    otherwise removed.
    """
    partial, backup = _partial_pattern(target.name), _backup_pattern(target.name)
    try:
        entries = list(target.parent.iterdir())
    except OSError:
        return
    backups = sorted((p for p in entries if backup.fullmatch(p.name)), key=lambda p: p.lstat().st_mtime)
    if backups and not os.path.lexists(target):
        os.replace(backups.pop(), target)
    for path in backups + [p for p in entries if partial.fullmatch(p.name)]:
        _remove(path)


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""
    return f" (pid {text})" if text.isdigit() else ""


@contextmanager
def directory_lock(target: Path) -> Iterator[None]:
    """Hold the lock of the output folder ``target`` (a hidden ``.NAME.lock`` beside it).

    A second process asking for it gets :class:`OutputBusy` at once (exit status 4): two runs
    writing one folder would race. The lock is an ``flock``, so it dies with its process
    (even on SIGKILL); taking it cleans up what killed runs left (:func:`_clean_leftovers`).
    The same process may take it again (reentrant); the lock file is removed on release.
    """
    target = Path(target)
    _ensure_folder(target.parent)
    lock_path = target.parent / f".{target.name}.lock"
    key = os.path.abspath(lock_path)
    with _held_guard:
        if key in _held:
            _held[key][1] += 1
            reentered = True
        else:
            reentered = False
    if reentered:
        try:
            yield
        finally:
            with _held_guard:
                _held[key][1] -= 1
        return
    fd = _acquire(lock_path, target)
    try:
        with _held_guard:
            _held[key] = [fd, 1]
        _clean_leftovers(target)
        yield
    finally:
        with _held_guard:
            _held.pop(key, None)
        _release(lock_path, fd)


def _release(lock_path: Path, fd: int) -> None:
    try:
        lock_path.unlink(missing_ok=True)  # before closing: a waiter that opened it retries on a fresh file
    finally:
        os.close(fd)


def _acquire(lock_path: Path, target: Path) -> int:
    """Open and flock the lock file; on any interruption (Ctrl-C included) nothing is left held or behind."""
    if fcntl is None:  # pragma: no cover
        return os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666)
    while True:
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as error:
            # The lock file is ours, not the user's: name the folder they asked for.
            raise type(error)(error.errno, f"cannot write a folder there ({error.strerror})", str(target)) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise OutputBusy(f"{target}: another run{holder} is writing this folder; wait for it to finish "
                             "or write somewhere else") from None
        except BaseException:
            os.close(fd)
            raise
        same = False
        try:
            try:
                same = os.fstat(fd).st_ino == os.stat(lock_path).st_ino
            except FileNotFoundError:
                pass
            if same:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
                return fd
        except BaseException:
            if same:
                _release(lock_path, fd)  # ours: the flock is held on the file at that path
            else:
                os.close(fd)
            raise
        os.close(fd)  # the file was removed by the holder that just released it: take the new one


_RENAME_EXCHANGE = 2  # linux/fs.h


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one atomic step (Linux renameat2 RENAME_EXCHANGE); False where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # a C library without renameat2 (glibc < 2.28, some others)
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EXDEV):  # the file system cannot
        return False
    raise OSError(code, os.strerror(code), os.fspath(b))


def _swap_in(staging: Path, target: Path) -> None:
    """Put the complete folder ``staging`` at ``target`` in one atomic rename; the old one goes."""
    if not os.path.lexists(target):
        os.rename(staging, target)
    elif not target.is_dir():
        raise CouldNotComplete(f"{target}: exists and is not a folder; it is not replaced")
    elif _exchange(staging, target):
        _fsync_folder(target.parent)
        _remove(staging)  # now the previous folder
        return
    else:
        # No atomic exchange on this file system: two renames. A crash between them leaves the
        # previous folder as .NAME.old-PID, which the next run puts back (_clean_leftovers).
        backup = target.with_name(f".{target.name}.old-{os.getpid()}")
        _remove(backup)
        os.replace(target, backup)
        try:
            os.replace(staging, target)
        except BaseException:
            os.replace(backup, target)  # the previous folder goes back
            raise
        _remove(backup)
    _fsync_folder(target.parent)


# Errors of a write itself, which name the output even when the error names no file.
_WRITE_ERRORS = frozenset(code for code in (errno.ENOSPC, errno.EFBIG, errno.EIO, errno.EROFS,
                                            getattr(errno, "EDQUOT", None)) if code is not None)


def _in_target(error: OSError, staging: Path, target: Path) -> OSError:
    """An error met while assembling ``target`` in ``staging``, naming the file as the user will see it.

    ``reports/.latest.1a2b3c4d.partial/figures/x.png: No space left on device`` becomes
    ``reports/latest/figures/x.png: ...``; an error naming no file names the folder.
    """
    if error.errno is None:
        return error
    name = os.fsdecode(error.filename) if isinstance(error.filename, (str, bytes, os.PathLike)) else None
    staged = os.fspath(staging)
    if name is None:
        if error.errno not in _WRITE_ERRORS:  # not about writing (a lost connection): no file to name
            return error
        shown = os.fspath(target)
    elif name == staged or name.startswith(staged + os.sep):
        shown = os.fspath(target) + name[len(staged):]
    else:
        return error
    return OSError(error.errno, error.strerror or str(error), shown)


@contextmanager
def atomic_directory(target: Path) -> Iterator[Path]:
    """Yield a fresh folder beside ``target``; on success it replaces ``target`` whole, atomically.

    The folder's lock (:func:`directory_lock`) is held throughout: a concurrent run into the
    same target is refused. On any exception (Ctrl-C included) the temporary folder is removed
    and ``target`` is left exactly as it was; after a SIGKILL the next run removes it.
    """
    target = Path(target)
    with directory_lock(target):
        while True:
            staging = target.with_name(f".{target.name}.{secrets.token_hex(4)}.partial")
            if _new_folder(staging):  # only the lock's holder makes these folders
                break
        try:
            yield staging
            _swap_in(staging, target)
        except OSError as error:
            _remove(staging)
            raise _in_target(error, staging, target) from None
        except BaseException:
            _remove(staging)
            raise


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str, *, fallback: str = "item", max_length: int = 80) -> str:
    """A file name derived from user data that cannot escape its folder (no separators, no dot-dot)."""
    cleaned = _UNSAFE.sub("_", name).strip("._-")[:max_length]
    return cleaned or fallback


def sha256_file(path: str | os.PathLike[str], *, expected: str = "a regular file") -> str:
    """Hex sha256 of a file, read in 1 MiB blocks (inputs are recorded by hash for provenance).

    Opened as every input is (:func:`open_input`): a missing file, a directory, FIFO or device
    is an :class:`InputError` naming the file, never a read that blocks or never ends.
    """
    digest = hashlib.sha256()
    with open_input(path, expected=expected) as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
