"""The Coq sources of ``formal/``, their build, and the facts a kernel-checked result records.

The library is built once per set of sources and Coq version into a cache folder
(``$XDG_CACHE_HOME/hardmax-verify/formal/<key>``, else ``~/.cache/...``), under a lock so that
parallel runs build it once; ``scripts/setup.sh`` builds it ahead.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

from verify.core.exitcodes import CouldNotComplete

__all__ = ["LIBRARY", "MODULES", "STATEMENT", "CoqUnavailable", "coqc_path", "coq_version", "sources_folder",
           "statement_sha256", "built_library", "SETUP_HINT"]

# The logical name the development is compiled under (coqc -Q DIR HardmaxVerify).
LIBRARY = "HardmaxVerify"
# In dependency order; Statement.v is the trusted statement.
MODULES = ("Statement", "Algebra", "Dynamics", "Checker", "Similarity", "ExpPoly", "Paths", "Fast", "Polytope", "Norms", "Diagnose")
STATEMENT = "Statement.v"
SETUP_HINT = "install Coq with scripts/setup.sh (Debian's coq, libcoq-stdlib and libcoq-bignums)"
BUILD_SECONDS = 600


class CoqUnavailable(CouldNotComplete):
    """``coqc`` is not installed (exit status 4, one line naming scripts/setup.sh)."""


def sources_folder() -> Path:
    """The folder holding the .v files: ``formal/`` of the clone (the package links to it)."""
    return Path(__file__).resolve().parent / "coq"


def _read_source(name: str) -> bytes:
    try:
        return (sources_folder() / name).read_bytes()
    except OSError as error:
        raise CouldNotComplete(f"the Coq sources are missing ({name}: {error.strerror})") from None


def statement_sha256() -> str:
    """sha256 of formal/Statement.v: recorded beside every result that says kernel-checked."""
    return hashlib.sha256(_read_source(STATEMENT)).hexdigest()


def coqc_path() -> str:
    path = os.environ.get("HARDMAX_VERIFY_COQC") or shutil.which("coqc")
    if not path:
        raise CoqUnavailable(f"coqc not found: {SETUP_HINT}")
    return path


@lru_cache(maxsize=4)
def _version_of(coqc: str) -> str:
    try:
        out = subprocess.run([coqc, "--print-version"], capture_output=True, text=True, timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError) as error:
        raise CoqUnavailable(f"{coqc} does not run ({error}): {SETUP_HINT}") from None
    return out.split()[0] if out.split() else "unknown"


def coq_version() -> str:
    """The version of the coqc that checks, e.g. ``8.16.1``."""
    return _version_of(coqc_path())


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base).expanduser() if base else Path.home() / ".cache") / "hardmax-verify" / "formal"


def _library_key(coqc: str) -> str:
    digest = hashlib.sha256(_version_of(coqc).encode())
    for name in MODULES:
        digest.update(name.encode() + b"\0" + _read_source(f"{name}.v") + b"\0")
    return digest.hexdigest()[:16]


def built_library() -> Path:
    """The folder of the compiled library (built on first use); pass it as ``-Q FOLDER HardmaxVerify``."""
    coqc = coqc_path()
    root = _cache_root()
    target = root / _library_key(coqc)
    if (target / "Diagnose.vo").is_file():
        return target
    try:
        root.mkdir(parents=True, exist_ok=True)
        with open(root / ".build.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another run building the same sources: wait for it
            if (target / "Diagnose.vo").is_file():
                return target
            staging = root / f".{target.name}.{os.getpid()}.partial"
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir()
            try:
                for name in MODULES:
                    (staging / f"{name}.v").write_bytes(_read_source(f"{name}.v"))
                for name in MODULES:
                    done = subprocess.run([coqc, "-q", "-Q", ".", LIBRARY, f"{name}.v"], cwd=staging,
                                          capture_output=True, text=True, timeout=BUILD_SECONDS)
                    if done.returncode != 0:
                        first = (done.stderr or done.stdout).strip().splitlines()
                        raise CouldNotComplete(f"the Coq library does not build ({name}.v: "
                                               f"{' '.join(first[:3]) if first else 'coqc failed'})")
                os.rename(staging, target)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
    except subprocess.TimeoutExpired:
        raise CouldNotComplete(f"building the Coq library took more than {BUILD_SECONDS} s") from None
    except OSError as error:
        raise CouldNotComplete(f"cannot build the Coq library in {root} ({error.strerror or error})") from None
    return target
