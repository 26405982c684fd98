"""Where the sentiment data comes from: ``--data``, an environment variable, or ``sentiment fetch``.

Nothing here names a path of a particular machine. The IMDb reviews are found, in order, at

1. the path given with ``--data``;
2. the path in the environment variable ``HARDMAX_VERIFY_IMDB``;
3. the file ``sentiment fetch`` writes: ``<cache>/imdb/imdb_reviews.csv.gz``;

and the authors' trained d = 2 model (arrays E, alpha, w, b) at ``--reference``,
``HARDMAX_VERIFY_REFERENCE`` or ``<cache>/reference/authors_d2_epoch100.npz`` (written by
``sentiment fetch-reference``). ``<cache>`` is ``HARDMAX_VERIFY_CACHE``, else
``$XDG_CACHE_HOME/hardmax-verify``, else ``~/.cache/hardmax-verify``.

``fetch`` downloads the official Large Movie Review Dataset archive, checks its sha256, and
converts it once to the project CSV (the same reviews in the same order as the archive, so
checkpoints evaluate identically from either). ``fetch_reference`` downloads the authors'
saved PyTorch model from their repository and reads it with torch's weights-only loader
(which refuses to run code from the file), keeping only the four arrays.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tempfile
import urllib.request
from pathlib import Path
from typing import Callable

import numpy as np

from verify.core.exitcodes import CouldNotComplete
from verify.core.io import atomic_write_bytes, read_input, sha256_file
from verify.core.numbers import InputError
from verify.experiments.imdb.data import canonical_csv_bytes, load_reviews

__all__ = ["DATA_ENV", "REFERENCE_ENV", "CACHE_ENV", "cache_root", "resolve_data", "resolve_reference", "fetch",
           "fetch_reference", "convert_reference", "IMDB_URL", "IMDB_SHA256", "REFERENCE_URL", "MAX_DOWNLOAD_BYTES"]

DATA_ENV = "HARDMAX_VERIFY_IMDB"
REFERENCE_ENV = "HARDMAX_VERIFY_REFERENCE"
CACHE_ENV = "HARDMAX_VERIFY_CACHE"
IMDB_URL = "https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz"
IMDB_SHA256 = "c40f74a18d3b61f90feba1e17730e0d38e8b97c05fde7008942e91923d1658fe"
# The authors' d = 2 model at the commit behind the paper's results.
REFERENCE_URL = ("https://github.com/DCN-FAU-AvH/clustering-hardmax-transformers/raw/"
                 "214785d/saved/model_d=2_epoch=100.pth")
# The archive has 84 MB and the model about 1 MB: a download past this is refused.
MAX_DOWNLOAD_BYTES = 256 << 20

GET_DATA = ("give --data PATH (the official aclImdb_v1.tar.gz, its extracted aclImdb folder, or a CSV(.gz) with "
            f"columns review,sentiment[,split]), set {DATA_ENV}, or run `hardmax-verify sentiment fetch`")
GET_REFERENCE = (f"give --reference PATH (arrays E, alpha, w, b as .npz), set {REFERENCE_ENV}, or run "
                 "`hardmax-verify sentiment fetch-reference`")


def cache_root() -> Path:
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hardmax-verify"


def fetched_data_path() -> Path:
    return cache_root() / "imdb" / "imdb_reviews.csv.gz"


def fetched_reference_path() -> Path:
    return cache_root() / "reference" / "authors_d2_epoch100.npz"


def _from_environment(variable: str, what: str) -> Path:
    """The path an environment variable names; a missing one is refused naming the variable, which the
    user set, rather than an option they did not give."""
    path = Path(os.environ[variable])
    if not path.exists():
        raise InputError(variable, f"{path}: no such file or folder (set it to {what}, or unset it)")
    return path


def resolve_data(data: Path | str | None) -> Path:
    """The IMDb data to use (see the module docstring); InputError saying how to get it when there is none."""
    if data is not None:
        return Path(data)
    if os.environ.get(DATA_ENV):
        return _from_environment(DATA_ENV, "the IMDb data")
    if fetched_data_path().exists():
        return fetched_data_path()
    raise InputError("--data", f"no IMDb data found: {GET_DATA}")


def resolve_reference(reference: Path | str | None, *, required: bool = True) -> Path | None:
    """The authors' model arrays to use, or None when none is available and ``required`` is false."""
    if reference is not None:
        return Path(reference)
    if os.environ.get(REFERENCE_ENV):
        return _from_environment(REFERENCE_ENV, "the authors' model arrays")
    if fetched_reference_path().exists():
        return fetched_reference_path()
    if required:
        raise InputError("--reference", f"the authors' model is not available: {GET_REFERENCE}")
    return None


def download(url: str, destination: Path, *, sha256: str | None,
             progress: Callable[[int, int], None] | None = None) -> str:
    """Download ``url`` to ``destination`` (atomically), refusing past MAX_DOWNLOAD_BYTES; returns the sha256.

    With ``sha256`` given, a file with another digest is refused (and not kept).
    """
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    fd, tmp = tempfile.mkstemp(prefix=f".{destination.name}.", suffix=".partial", dir=destination.parent)
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=60) as response:
            total = int(response.headers.get("Content-Length") or 0)
            done = 0
            while chunk := response.read(1 << 20):
                done += len(chunk)
                if done > MAX_DOWNLOAD_BYTES:
                    raise InputError(url, f"more than {MAX_DOWNLOAD_BYTES:,} bytes: not the expected file")
                digest.update(chunk)
                out.write(chunk)
                if progress is not None:
                    progress(done, max(total, done))
        if sha256 is not None and digest.hexdigest() != sha256:
            raise InputError(url, f"sha256 {digest.hexdigest()} differs from the expected {sha256} "
                                  "(a changed or damaged download; nothing was kept)")
        os.replace(tmp, destination)
    except OSError as error:
        # An unreachable source, a dropped connection or a full disk: the command could not
        # complete (exit 4), the address itself may be right.
        reason = getattr(error, "reason", None) or error.strerror or error
        raise CouldNotComplete(f"could not download {url}: {reason}") from None
    finally:
        Path(tmp).unlink(missing_ok=True)
    return digest.hexdigest()


def convert_to_csv(source: Path, destination: Path) -> Path:
    """Write the reviews of ``source`` (any supported format) as the project CSV, gzip-compressed, atomically."""
    reviews = load_reviews(source)
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="", compresslevel=9) as handle:
        handle.write(canonical_csv_bytes(reviews))
    return atomic_write_bytes(destination, buffer.getvalue())


def fetch(*, url: str | None = None, sha256: str | None = None, keep_archive: bool = True,
          progress: Callable[[int, int], None] | None = None) -> Path:
    """Download the official archive into the cache, check it, convert it once; returns the CSV's path."""
    url = url or IMDB_URL
    sha256 = sha256 or IMDB_SHA256
    target = fetched_data_path()
    archive = target.parent / "aclImdb_v1.tar.gz"
    if not archive.exists() or sha256_file(archive, expected="the downloaded IMDb archive") != sha256:
        download(url, archive, sha256=sha256, progress=progress)
    convert_to_csv(archive, target)
    if not keep_archive:
        archive.unlink()
    return target


def convert_reference(pth: Path, destination: Path) -> Path:
    """The authors' saved model (a pickled torch module) -> ``.npz`` with E, alpha, w, b, via weights-only loading.

    torch's weights-only unpickler builds only tensors and containers, never runs code from the
    file. The module classes the pickle names (the authors' ``TClassifier`` and
    ``CustomSelfAttention``, torch's layers) are admitted as plain attribute holders: their
    parameters are read from the holders' ``_parameters``.
    """
    import torch  # heavy optional dependency, only for this conversion

    holder_names = ["utils.models.TClassifier", "utils.models.CustomSelfAttention",
                    "torch.nn.modules.sparse.Embedding", "torch.nn.modules.linear.Linear",
                    "torch.nn.modules.activation.Sigmoid"]
    holders = [(type(name.rsplit(".", 1)[1], (_Holder,), {}), name) for name in holder_names]
    # Read as every input is (a regular file, bounded; a FIFO is refused, not waited on).
    saved = io.BytesIO(read_input(pth, expected="the authors' saved model (.pth)", limit=MAX_DOWNLOAD_BYTES))
    try:
        with torch.serialization.safe_globals(holders + [set]):
            module = torch.load(saved, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises UnpicklingError/RuntimeError/... for files it will not load
        raise InputError(str(pth), f"not a model the weights-only loader accepts ({str(error).splitlines()[0]})") from None

    def parameter(owner: object, *path: str) -> np.ndarray:
        node = owner
        for step in path[:-1]:
            node = getattr(node, "__dict__", {}).get("_modules", {}).get(step)
        value = getattr(node, "__dict__", {}).get("_parameters", {}).get(path[-1])
        if value is None:
            raise InputError(str(pth), f"no parameter {'.'.join(path)} (not the authors' TClassifier?)")
        return value.detach().cpu().numpy().astype(np.float32)

    arrays = {"E": parameter(module, "encoder", "weight"), "alpha": parameter(module, "attention", "alpha").reshape(1),
              "w": parameter(module, "decoder", "weight").reshape(1, -1), "b": parameter(module, "decoder", "bias").reshape(1)}
    if arrays["E"].ndim != 2 or arrays["w"].shape[1] != arrays["E"].shape[1]:
        raise InputError(str(pth), f"unexpected shapes: encoder {arrays['E'].shape}, decoder {arrays['w'].shape}")
    buffer = io.BytesIO()
    np.savez(buffer, E=arrays["E"], alpha=arrays["alpha"], w=arrays["w"], b=arrays["b"])
    return atomic_write_bytes(destination, buffer.getvalue())


class _Holder:
    """Receives a pickled module's attributes (weights-only loading sets ``__dict__``; no method runs)."""

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)


def fetch_reference(*, url: str | None = None, progress: Callable[[int, int], None] | None = None) -> Path:
    """Download the authors' d = 2 model into the cache and convert it to arrays; returns the .npz path."""
    target = fetched_reference_path()
    with tempfile.TemporaryDirectory() as tmp:
        pth = Path(tmp) / "model_d=2_epoch=100.pth"
        download(url or REFERENCE_URL, pth, sha256=None, progress=progress)
        convert_reference(pth, target)
    return target
