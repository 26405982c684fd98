"""verify.experiments.imdb.data: the three IMDb formats, bad files named in the error, the split protocols."""

from __future__ import annotations

import csv
import gzip
import io

import numpy as np
import pytest

from verify.core.numbers import InputError
from verify.experiments.imdb.data import carve_validation, detect_format, load_reviews, official_split, paper_split

ROWS = [
    ("A fine film, <br />truly great.", "positive", "train"),
    ("Awful. A waste of time", "negative", "train"),
    ('He said "wow", twice', "positive", "test"),
    ("boring, boring, boring", "negative", "test"),
]


def _csv_bytes(rows, header=("review", "sentiment", "split")) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def test_project_csv_gz_is_read_with_labels_and_splits(tmp_path):
    path = tmp_path / "reviews.csv.gz"
    path.write_bytes(gzip.compress(_csv_bytes(ROWS)))
    reviews = load_reviews(path)
    assert reviews.format == "csv"
    assert reviews.texts == tuple(r[0] for r in ROWS)
    assert reviews.labels.tolist() == [1, 0, 1, 0]
    assert reviews.splits == ("train", "train", "test", "test")


def test_kaggle_csv_has_no_split_and_official_split_is_refused(tmp_path):
    path = tmp_path / "IMDB Dataset.csv"
    path.write_bytes(_csv_bytes([r[:2] for r in ROWS], header=("review", "sentiment")))
    assert detect_format(path) == "kaggle"
    reviews = load_reviews(path)
    assert reviews.splits is None and reviews.labels.tolist() == [1, 0, 1, 0]
    with pytest.raises(InputError, match="no split column"):
        official_split(reviews)


def test_aclimdb_tree_in_csv_order_ids_rising(tmp_path):
    root = tmp_path / "aclImdb"
    for split in ("train", "test"):
        for folder in ("pos", "neg"):
            (root / split / folder).mkdir(parents=True)
    # ids 10 and 2 in train/pos: numeric order (2 before 10), not text order.
    (root / "train" / "pos" / "10_9.txt").write_text("ten", encoding="utf-8")
    (root / "train" / "pos" / "2_8.txt").write_text("two", encoding="utf-8")
    (root / "train" / "neg" / "0_1.txt").write_text("bad", encoding="utf-8")
    (root / "test" / "neg" / "0_2.txt").write_text("worse", encoding="utf-8")
    (root / "test" / "neg" / "README").write_text("not a review", encoding="utf-8")
    for path in (root, tmp_path):  # the folder itself or its parent
        reviews = load_reviews(path)
        assert reviews.texts == ("two", "ten", "bad", "worse")
        assert reviews.labels.tolist() == [1, 1, 0, 0]
        assert reviews.splits == ("train", "train", "train", "test")


@pytest.mark.parametrize("content, expected", [
    (b"", "empty"),
    (_csv_bytes([("x", "positive")], header=("text", "label")), "missing columns review, sentiment in the header"),
    (_csv_bytes([("x", "positive")], header=("review", "label")), "missing column sentiment in the header"),
    (_csv_bytes([("x", "great", "train")]), "line 2: sentiment 'great'"),
    (_csv_bytes([("x", "positive", "dev")]), "line 2: split 'dev'"),
    (_csv_bytes([]), "no reviews"),
    (b"review,sentiment,split\nonly one field\n", "line 2: expected 3 fields"),
    (b"review,sentiment,split\n\xff\xfe,positive,train\n", "UTF-8"),
])
def test_bad_csv_names_the_file_and_the_problem(tmp_path, content, expected):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(InputError, match=expected) as info:
        load_reviews(path)
    assert info.value.field == str(path)


def test_truncated_gzip_is_an_input_error(tmp_path):
    path = tmp_path / "reviews.csv.gz"
    whole = gzip.compress(_csv_bytes(ROWS * 50))
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(InputError, match="truncated or corrupt") as info:
        load_reviews(path, format="csv")
    assert info.value.field == str(path)


def test_gz_name_without_gzip_content_and_missing_paths(tmp_path):
    fake = tmp_path / "reviews.csv.gz"
    fake.write_bytes(_csv_bytes(ROWS))
    with pytest.raises(InputError, match="not gzip"):
        load_reviews(fake)
    with pytest.raises(InputError, match="no such file"):
        load_reviews(tmp_path / "absent.csv")
    (tmp_path / "empty_dir").mkdir()
    with pytest.raises(InputError, match="not an aclImdb folder"):
        load_reviews(tmp_path / "empty_dir")
    with pytest.raises(InputError, match="format"):
        load_reviews(fake, format="parquet")


def test_paper_split_is_a_seeded_70_30_partition():
    train, test = paper_split(1000, seed=0)
    assert len(train) == 700 and len(test) == 300
    assert np.array_equal(np.sort(np.concatenate([train, test])), np.arange(1000))
    again, _ = paper_split(1000, seed=0)
    other, _ = paper_split(1000, seed=1)
    assert np.array_equal(train, again) and not np.array_equal(train, other)
    # Not the first 700 rows: the project CSV is ordered by label, the shuffle is the point.
    assert not np.array_equal(train, np.arange(700))


def test_validation_is_carved_from_train_only():
    train, test = paper_split(1000, seed=0)
    kept, validation = carve_validation(train, fraction=0.1, seed=0)
    assert len(validation) == 70 and len(kept) == 630
    assert set(kept) | set(validation) == set(train)
    assert not set(validation) & set(test)
    with pytest.raises(InputError):
        carve_validation(train, fraction=1.5, seed=0)
