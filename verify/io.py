"""Atomic file output and safe names: nothing half-written, nothing outside the chosen folder."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

__all__ = ["atomic_write_text", "atomic_write_bytes", "atomic_directory", "safe_name", "sha256_file"]


def atomic_write_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary file in the same folder and an atomic rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        # Includes KeyboardInterrupt: the target keeps its previous content, the temporary goes.
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def atomic_write_text(path: Path, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


@contextmanager
def atomic_directory(target: Path) -> Iterator[Path]:
    """Yield a fresh temporary folder beside ``target``; on success it replaces ``target`` whole.

    On any exception (Ctrl-C included) the temporary folder is removed and ``target`` is
    left exactly as it was.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
    try:
        yield staging
        backup = None
        if target.exists():
            backup = target.with_name(f".{target.name}.old-{os.getpid()}")
            if backup.exists():
                shutil.rmtree(backup)
            os.replace(target, backup)
        os.replace(staging, target)
        if backup is not None:
            shutil.rmtree(backup, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str, *, fallback: str = "item", max_length: int = 80) -> str:
    """A file name derived from user data that cannot escape its folder (no separators, no dot-dot)."""
    cleaned = _UNSAFE.sub("_", name).strip("._-")[:max_length]
    return cleaned or fallback


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks (inputs are recorded by hash for provenance)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
