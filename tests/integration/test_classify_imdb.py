"""The IMDb demonstration on a small fixture made here: reviews with inseparable twins, an
embedding shorter than the vocabulary; the results file, resuming it, and the report section
built from it."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import numpy as np
import pytest

from verify.experiments.classify import report_section
from verify.experiments.classify.imdb import embedded_reviews
from verify.app.cli import main

WORDS = ["great", "awful", "film", "plot", "actor", "scene", "story", "music", "ending", "camera", "boring", "superb"]


def _write_csv(path: Path, *, reviews: int = 80, seed: int = 0) -> None:
    """Reviews of a few words; every fifth review is followed by its words in another order with
    the other label, an inseparable twin (equal empirical distribution after padding to 128)."""
    rng = np.random.default_rng(seed)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["review", "sentiment", "split"])
    rows = []
    while len(rows) < reviews:
        words = [str(w) for w in rng.choice(WORDS, size=int(rng.integers(2, 9)))]
        label = int(rng.integers(0, 2))
        rows.append((" ".join(words), label))
        if len(rows) % 5 == 1:
            rows.append((" ".join(reversed(words)), 1 - label))
    for r, (text, label) in enumerate(rows):
        writer.writerow([text + ".", "positive" if label else "negative", "train" if r % 2 else "test"])
    path.write_bytes(gzip.compress(buffer.getvalue().encode("utf-8"), mtime=0))


@pytest.fixture
def fixture(tmp_path: Path) -> tuple[Path, Path]:
    data = tmp_path / "reviews.csv.gz"
    _write_csv(data)
    reference = tmp_path / "embedding.npz"
    # Fewer rows than words: the rarest words share the last row.
    E = np.random.default_rng(1).normal(size=(9, 2)).astype(np.float32)
    np.savez(reference, E=E)
    return data, reference


def test_reviews_are_embedded_exactly_and_padded_to_128(fixture, tmp_path: Path) -> None:
    data, reference = fixture
    reviews = embedded_reviews(data, reference, train_size=20, cache_dir=tmp_path / "cache")
    assert len(reviews.train) == 20 and all(len(s) == 128 for s in reviews.train.sequences)
    assert reviews.info["tokens_beyond_table"] > 0
    E = np.load(reference)["E"]
    padding = tuple(float(x) for x in E[0])
    assert all(tuple(float(c) for c in reviews.train.tokens[s[-1]]) == padding for s in reviews.train.sequences)
    assert len(set(reviews.train.tokens)) == len(reviews.train.tokens)   # one token per distinct value


def test_imdb_command_certifies_every_kept_review_and_reports_the_rest(fixture, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    data, reference = fixture
    out = tmp_path / "imdb.json"
    status = main(["classify", "imdb", "--data", str(data), "--reference", str(reference), "--sizes", "40",
                   "--seeds", "0,1", "--out", str(out), "--cache-dir", str(tmp_path / "cache"),
                   "--networks", str(tmp_path / "nets"), "--quiet", "--json", str(tmp_path / "record.json")])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    results = json.loads(out.read_text())
    # --json FILE: the record in FILE, the summary on standard output.
    assert json.loads((tmp_path / "record.json").read_text()) == results
    assert captured.out.startswith(f"{out}: 4 runs, every kept review certified")
    sample = results["samples"][0]
    assert sample["removed"] >= 2 and sample["inseparable_groups"]
    assert sample["kept"] + sample["removed"] == 40
    for group in sample["inseparable_groups"]:
        assert len({m["label"] for m in group}) == 2
    assert len(results["runs"]) == 4
    for run in results["runs"]:
        assert run["checker_status"] == "certified" and run["certified_by_checker"] == run["sequences"] == sample["kept"]
        assert 0 <= run["test_accuracy"] <= 1
    # The written files check on their own too.
    capsys.readouterr()
    assert main(["classify", "check", str(tmp_path / "nets" / "imdb-N40-narrow-seed1.net.json"),
                 str(tmp_path / "nets" / "imdb-N40.data.json"), "--quiet"]) == 0
    section = report_section.section({"files": [{"path": "runs/classify/imdb.json",
                                                 "imdb": report_section.read_imdb(results)}]})
    (table, groups) = section.tables
    assert [row[1] for row in table.rows] == ["wide", "narrow"]
    assert all(row[4] == f"{sample['kept']} of {sample['kept']}, every seed" for row in table.rows)
    assert "± " in table.rows[0][9]
    assert len(groups.rows) == len(sample["inseparable_groups"])
    assert "every kept review is classified exactly by all 4 networks" in section.summary


def _without_times(path: Path) -> dict:
    results = json.loads(path.read_text())
    for run in results["runs"]:
        run.pop("cpu_seconds")
    return results


@pytest.mark.slow
def test_resume_keeps_the_runs_done_and_gives_what_one_run_gives(fixture, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    data, reference = fixture
    common = ["classify", "imdb", "--data", str(data), "--reference", str(reference), "--sizes", "30,40",
              "--cache-dir", str(tmp_path / "cache"), "--quiet"]
    assert main([*common, "--seeds", "0,1", "--out", str(tmp_path / "whole.json")]) == 0
    part = tmp_path / "part.json"
    assert main([*common, "--seeds", "1", "--variants", "narrow", "--out", str(part)]) == 0
    capsys.readouterr()
    assert main([*common, "--seeds", "0,1", "--out", str(part), "--resume"]) == 0
    err = capsys.readouterr().err
    assert "resuming" in err and "2 runs already done" in err
    assert err.count("certified by the checker") == 6          # only the runs not done before
    assert _without_times(part) == _without_times(tmp_path / "whole.json")
    # Without --resume the file is started afresh.
    assert main([*common, "--sizes", "30", "--seeds", "0", "--variants", "wide", "--out", str(part)]) == 0
    assert len(json.loads(part.read_text())["runs"]) == 1


@pytest.mark.slow
def test_resume_refuses_a_file_made_otherwise(fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, reference = fixture
    out = tmp_path / "r.json"
    common = ["classify", "imdb", "--data", str(data), "--reference", str(reference), "--sizes", "30",
              "--variants", "wide", "--cache-dir", str(tmp_path / "cache"), "--out", str(out), "--quiet"]
    assert main(common) == 0
    before = out.read_bytes()
    capsys.readouterr()
    assert main([*common, "--resume", "--test-reviews", "5"]) == 2
    assert "test_size: cannot resume" in capsys.readouterr().err
    other = tmp_path / "other.npz"
    np.savez(other, E=np.random.default_rng(2).normal(size=(9, 2)).astype(np.float32))
    assert main([*common, "--resume", "--seeds", "1", "--reference", str(other)]) == 2
    assert "source.reference: cannot resume" in capsys.readouterr().err
    out.write_text(json.dumps({"format": "something else"}))
    assert main([*common, "--resume"]) == 2
    assert "format: cannot resume" in capsys.readouterr().err
    out.write_bytes(before)
    assert main([*common, "--resume"]) == 0 and out.read_bytes() == before   # nothing left to do


def test_missing_reference_is_bad_input(fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, _ = fixture
    assert main(["classify", "imdb", "--data", str(data), "--reference", str(tmp_path / "none.npz"),
                 "--sizes", "10", "--out", str(tmp_path / "r.json"), "--quiet"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["classify", "imdb", "--data", str(data), "--reference", str(tmp_path / "none.npz"),
                 "--sizes", "ten", "--quiet"]) == 2


def test_a_reference_that_is_not_a_file_is_named_as_such(tmp_path: Path) -> None:
    from verify.core.numbers import InputError
    from verify.experiments.classify.imdb import load_embedding

    with pytest.raises(InputError, match="no such file"):
        load_embedding(tmp_path / "none.npz")
    with pytest.raises(InputError, match="not a regular file") as caught:  # a folder exists: not "no such file"
        load_embedding(tmp_path)
    assert "no such file" not in str(caught.value)
