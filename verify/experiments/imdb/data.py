"""Loading IMDb reviews from the formats people have, and the two split protocols.

Formats (detected from the path, or named with ``format=``):

* ``csv``: the project's file, header ``review,sentiment,split`` (``.csv`` or ``.csv.gz``);
* ``kaggle``: the popular ``IMDB Dataset.csv``, header ``review,sentiment`` (no split column);
* ``aclimdb``: the original ``aclImdb/`` tree, ``{train,test}/{pos,neg}/<id>_<rating>.txt``
  (the path may be the ``aclImdb`` folder or its parent);
* ``aclimdb-tar``: the official archive ``aclImdb_v1.tar.gz`` (or any tar, compressed or not,
  holding that tree), read as a stream without extracting it.

All formats give the reviews in one order (train/pos, train/neg, test/pos, test/neg, file ids
rising), so the same reviews give the same vocabulary and split from any of them.
:func:`content_sha256` identifies the reviews whatever the format: the sha256 of the project
CSV they would be written as (uncompressed).

Limits (refused with an InputError naming the file, before the memory is spent): an input
may hold, or decompress to, at most :data:`MAX_DECOMPRESSED_BYTES` (1 GiB; the official
archive holds about 0.3 GiB) and a single review may hold at most :data:`MAX_REVIEW_BYTES`
(1 MiB; the longest IMDb review has 14 kB). Files are opened by :func:`verify.core.io.open_input`
and :func:`verify.core.io.read_input`: only regular files are read, and a FIFO put in a file's
place is refused, never waited on.

Every problem with a file (missing, not gzip, truncated, wrong header, bad label, empty)
raises :class:`verify.core.numbers.InputError` whose field is the file's path.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import os
import re
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from verify.core.formatting import noun_for
from verify.core.io import open_input, read_input
from verify.core.io import sha256_file as file_sha256  # the name the IMDb and sentiment modules use
from verify.core.numbers import InputError

__all__ = ["Reviews", "load_reviews", "detect_format", "paper_split", "official_split",
           "carve_validation", "file_sha256", "FORMATS", "MAX_DECOMPRESSED_BYTES", "MAX_REVIEW_BYTES",
           "BoundedReader", "open_bounded", "canonical_csv_bytes", "content_sha256"]

FORMATS = ("auto", "csv", "kaggle", "aclimdb", "aclimdb-tar")
MAX_DECOMPRESSED_BYTES = 1 << 30
MAX_REVIEW_BYTES = 1 << 20
_ACL_MEMBER = re.compile(r"^(?:\./)?(?:[^/]+/)?(train|test)/(pos|neg)/(\d+)_(\d+)\.txt$")
_LABELS = {"positive": 1, "negative": 0, "pos": 1, "neg": 0, "1": 1, "0": 0}
_ACL_NAME = re.compile(r"^(\d+)_(\d+)\.txt$")


@dataclass(frozen=True)
class Reviews:
    """Labelled reviews in file order.

    ``splits`` holds ``"train"``/``"test"`` per review when the source has the official split,
    else None (Kaggle CSV).
    """

    texts: tuple[str, ...]
    labels: np.ndarray            # (N,) int8, 1 = positive
    splits: tuple[str, ...] | None
    source: str                   # the path read
    format: str

    def __len__(self) -> int:
        return len(self.texts)


class BoundedReader(io.RawIOBase):
    """A binary stream that raises InputError(``where``) once more than ``limit`` bytes were read.

    Wraps a decompressing stream, so that a small file inflating to gigabytes (a decompression
    bomb) is refused after ``limit`` bytes instead of filling the memory.
    """

    def __init__(self, raw: io.BufferedIOBase | BinaryIO, *, limit: int, where: str, what: str = "the decompressed data",
                 source: BinaryIO | None = None) -> None:
        super().__init__()
        self._raw, self._limit, self._where, self._what = raw, limit, where, what
        self._source = source  # the file ``raw`` reads from, when closing ``raw`` does not close it
        self.consumed = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        chunk = self._raw.read(len(buffer))
        self.consumed += len(chunk)
        if self.consumed > self._limit:
            raise InputError(self._where, f"{self._what} exceeds the limit of {self._limit:,} bytes "
                                          "(a corrupt or hostile file?)")
        buffer[:len(chunk)] = chunk
        return len(chunk)

    def close(self) -> None:
        try:
            try:
                self._raw.close()
            finally:
                if self._source is not None:
                    self._source.close()
        finally:
            super().close()


def open_bounded(path: Path, *, limit: int | None = None, what: str = "the decompressed data",
                 expected: str = "a file of reviews") -> BinaryIO:
    """``path`` as a binary stream, gunzipped if it is gzip-compressed, refused past ``limit`` bytes
    (default :data:`MAX_DECOMPRESSED_BYTES`) of what it gives.

    Opened by :func:`verify.core.io.open_input`: a missing file, a folder, FIFO, device or socket is
    an InputError naming the file (``expected`` says what it should be), without waiting on a FIFO.
    """
    path = Path(path)
    limit = MAX_DECOMPRESSED_BYTES if limit is None else limit
    handle = open_input(path, expected=expected)
    try:
        if handle.read(2) == b"\x1f\x8b":
            handle.seek(0)
            stream = gzip.GzipFile(fileobj=handle, mode="rb")
            return io.BufferedReader(BoundedReader(stream, limit=limit, where=str(path), what=what, source=handle))
        if path.suffix == ".gz":
            raise InputError(str(path), "the name ends in .gz but the file is not gzip-compressed")
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise InputError(str(path), f"{size:,} bytes, more than the limit of {limit:,} (a corrupt or hostile file?)")
        handle.seek(0)
        return io.BufferedReader(BoundedReader(handle, limit=limit, where=str(path), what="the file"))
    except BaseException:
        handle.close()
        raise


def _is_tar(path: Path) -> bool:
    if path.name.endswith((".tar", ".tar.gz", ".tgz")):
        return True
    try:
        with open_bounded(path, limit=1 << 16) as stream:
            block = stream.read(512)
    except (InputError, OSError, EOFError, zlib.error):
        return False
    return len(block) == 512 and block[257:262] == b"ustar"


def detect_format(path: Path) -> str:
    """The format of ``path``: ``aclimdb`` for a folder, ``aclimdb-tar`` for a tar, else from the CSV header."""
    path = Path(path)
    if not path.exists():
        raise InputError(str(path), "no such file or folder")
    if path.is_dir():
        return "aclimdb"
    if _is_tar(path):
        return "aclimdb-tar"
    header = _read_header(path)
    return "csv" if "split" in header else "kaggle"


def _open_text(path: Path):
    return io.TextIOWrapper(open_bounded(path), encoding="utf-8", newline="")


def _read_header(path: Path) -> list[str]:
    try:
        with _open_text(path) as handle:
            row = next(csv.reader(handle), None)
    except UnicodeDecodeError as error:
        raise InputError(str(path), f"not valid UTF-8 ({error})") from None
    except (EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise InputError(str(path), f"the compressed file is truncated or corrupt ({error})") from None
    except csv.Error as error:
        raise InputError(str(path), f"not a valid CSV file ({error})") from None
    except OSError as error:
        raise InputError(str(path), f"cannot read the file ({error})") from None
    if not row:
        raise InputError(str(path), "the file is empty (expected a header such as review,sentiment,split)")
    return [c.strip().lower() for c in row]


def load_reviews(path: Path | str, *, format: str = "auto", limit: int | None = None) -> Reviews:
    """Read labelled reviews.

    Parameters
    ----------
    path
        A CSV (optionally gzip-compressed) or an ``aclImdb`` folder.
    format
        One of :data:`FORMATS`; ``auto`` detects it.
    limit
        Read at most this many reviews (a quick look; for CSVs the first rows of the file).
    """
    path = Path(path)
    if format not in FORMATS:
        raise InputError("format", f"expected one of {', '.join(FORMATS)}, got {format!r}")
    if not path.exists():
        raise InputError(str(path), "no such file or folder")
    if format == "auto":
        format = detect_format(path)
    if format == "aclimdb":
        return _load_aclimdb(path, limit=limit)
    if format == "aclimdb-tar":
        return _load_aclimdb_tar(path, limit=limit)
    return _load_csv(path, format=format, limit=limit)


def _load_csv(path: Path, *, format: str, limit: int | None) -> Reviews:
    if path.is_dir():
        raise InputError(str(path), f"expected a CSV file for format {format!r}, got a folder")
    required = ["review", "sentiment"] + (["split"] if format == "csv" else [])
    texts: list[str] = []
    labels: list[int] = []
    splits: list[str] = []
    csv.field_size_limit(MAX_REVIEW_BYTES)
    try:
        with _open_text(path) as handle:
            reader = csv.reader(handle)
            header = next(reader, None)
            if not header:
                raise InputError(str(path), "the file is empty (expected a header "
                                            f"{','.join(required)})")
            names = [c.strip().lower() for c in header]
            missing = [c for c in required if c not in names]
            if missing:
                raise InputError(str(path), f"missing {noun_for(len(missing), 'column')} {', '.join(missing)} in the header "
                                            f"{','.join(header)} (expected {','.join(required)})")
            column = {name: names.index(name) for name in required}
            for line, row in enumerate(reader, start=2):
                if limit is not None and len(texts) >= limit:
                    break
                if not row:
                    continue
                if len(row) != len(names):
                    raise InputError(str(path), f"line {line}: expected {len(names)} fields, got {len(row)} "
                                                "(truncated or badly quoted file?)")
                label = _LABELS.get(row[column["sentiment"]].strip().lower())
                if label is None:
                    raise InputError(str(path), f"line {line}: sentiment {row[column['sentiment']]!r} is not "
                                                "positive/negative")
                texts.append(row[column["review"]])
                labels.append(label)
                if format == "csv":
                    split = row[column["split"]].strip().lower()
                    if split not in ("train", "test"):
                        raise InputError(str(path), f"line {line}: split {split!r} is not train/test")
                    splits.append(split)
    except (EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise InputError(str(path), f"the compressed file is truncated or corrupt ({error})") from None
    except UnicodeDecodeError as error:
        raise InputError(str(path), f"not valid UTF-8 ({error})") from None
    except csv.Error as error:
        raise InputError(str(path), f"not a valid CSV file ({error})") from None
    except OSError as error:
        raise InputError(str(path), f"cannot read the file ({error})") from None
    if not texts:
        raise InputError(str(path), "the file has a header but no reviews")
    return Reviews(tuple(texts), np.array(labels, dtype=np.int8), tuple(splits) if format == "csv" else None,
                   str(path), format)


def _load_aclimdb(path: Path, *, limit: int | None) -> Reviews:
    root = path
    if not (root / "train").is_dir() and (root / "aclImdb").is_dir():
        root = root / "aclImdb"
    texts: list[str] = []
    labels: list[int] = []
    splits: list[str] = []
    found_any = False
    # Same order as the project CSV: train/pos, train/neg, test/pos, test/neg, ids rising.
    for split in ("train", "test"):
        for folder, label in (("pos", 1), ("neg", 0)):
            directory = root / split / folder
            if not directory.is_dir():
                continue
            found_any = True
            files = []
            for entry in directory.iterdir():
                match = _ACL_NAME.match(entry.name)
                if match:
                    files.append((int(match.group(1)), entry))
            for _, entry in sorted(files):
                if limit is not None and len(texts) >= limit:
                    break
                raw = read_input(entry, expected="a review (a text file)", limit=MAX_REVIEW_BYTES)
                try:
                    texts.append(raw.decode("utf-8"))
                except UnicodeDecodeError as error:
                    raise InputError(str(entry), f"not valid UTF-8 ({error})") from None
                labels.append(label)
                splits.append(split)
    if not found_any:
        raise InputError(str(path), "not an aclImdb folder: expected train/pos, train/neg, test/pos, test/neg")
    if not texts:
        raise InputError(str(path), "the aclImdb folder holds no <id>_<rating>.txt reviews")
    return Reviews(tuple(texts), np.array(labels, dtype=np.int8), tuple(splits), str(path), "aclimdb")


def _load_aclimdb_tar(path: Path, *, limit: int | None) -> Reviews:
    found: dict[tuple[int, int, int], str] = {}
    try:
        with open_bounded(path, what="the unpacked archive") as stream, tarfile.open(fileobj=stream, mode="r|") as tar:
            for member in tar:
                match = _ACL_MEMBER.match(member.name)
                if not match or not member.isfile():
                    continue
                if member.size > MAX_REVIEW_BYTES:
                    raise InputError(str(path), f"{member.name}: {member.size:,} bytes, more than the "
                                                f"{MAX_REVIEW_BYTES:,} a review may hold")
                split, folder, number = match.group(1), match.group(2), int(match.group(3))
                key = (0 if split == "train" else 1, 0 if folder == "pos" else 1, number)
                if key in found:
                    raise InputError(str(path), f"{member.name} appears twice in the archive")
                handle = tar.extractfile(member)
                found[key] = handle.read().decode("utf-8") if handle is not None else ""
    except UnicodeDecodeError as error:
        raise InputError(str(path), f"a review is not valid UTF-8 ({error})") from None
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise InputError(str(path), f"not a readable tar archive, or truncated ({error})") from None
    except OSError as error:
        raise InputError(str(path), f"cannot read the file ({error})") from None
    if not found:
        raise InputError(str(path), "the archive holds no aclImdb/{train,test}/{pos,neg}/<id>_<rating>.txt reviews")
    keys = sorted(found)[:limit] if limit is not None else sorted(found)
    return Reviews(tuple(found[k] for k in keys), np.array([1 - k[1] for k in keys], dtype=np.int8),
                   tuple("train" if k[0] == 0 else "test" for k in keys), str(path), "aclimdb-tar")


def canonical_csv_bytes(reviews: Reviews) -> bytes:
    """The reviews as the project CSV (header ``review,sentiment[,split]``, minimal quoting, LF), uncompressed."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    splits = reviews.splits
    writer.writerow(["review", "sentiment", "split"] if splits is not None else ["review", "sentiment"])
    for r, text in enumerate(reviews.texts):
        row = [text, "positive" if reviews.labels[r] == 1 else "negative"]
        writer.writerow(row + [splits[r]] if splits is not None else row)
    return buffer.getvalue().encode("utf-8")


def content_sha256(reviews: Reviews) -> str:
    """sha256 of :func:`canonical_csv_bytes`: the same reviews give the same digest in any format."""
    return hashlib.sha256(canonical_csv_bytes(reviews)).hexdigest()


def paper_split(count: int, *, seed: int = 0, train_fraction: float = 0.7) -> tuple[np.ndarray, np.ndarray]:
    """The paper's protocol (docs/theory.md §5): shuffle all reviews with a fixed seed, first 70% train.

    The authors' file was already in random order; the project's CSV is ordered by split and
    label, so the shuffle is what makes the first 70% a fair sample.
    """
    order = np.random.default_rng(seed).permutation(count)
    cut = int(count * train_fraction)
    return np.sort(order[:cut]), np.sort(order[cut:])


def official_split(reviews: Reviews) -> tuple[np.ndarray, np.ndarray]:
    """The official 25k/25k split of the source (needs a source with a split column/folder)."""
    if reviews.splits is None:
        raise InputError(reviews.source, "this file has no split column, so the official split is unknown; "
                                         "use the paper protocol")
    splits = np.array(reviews.splits)
    return np.flatnonzero(splits == "train"), np.flatnonzero(splits == "test")


def carve_validation(train: np.ndarray, *, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Split ``train`` into (train, validation) by a seeded shuffle: model selection never sees the test set."""
    if not 0 <= fraction < 1:
        raise InputError("validation_fraction", f"expected a number in [0, 1), got {fraction}")
    order = np.random.default_rng([seed, 1]).permutation(train)
    cut = len(train) - int(round(len(train) * fraction))
    return np.sort(order[:cut]), np.sort(order[cut:])
