"""The IMDb demonstration on a small fixture made here: reviews with inseparable twins, an
embedding shorter than the vocabulary; the results file and the report section built from it."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import numpy as np
import pytest

from verify.classify.experiment import report_section
from verify.classify.imdb import embedded_reviews
from verify.cli import main

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
                   "--networks", str(tmp_path / "nets"), "--quiet"])
    assert status == 0, capsys.readouterr().err
    results = json.loads(out.read_text())
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
    section = report_section(out)
    assert section["title"] == "Exact sequence classification"
    assert section["summary"].startswith("Every training review left after removing")
    first = section["tables"][0]
    assert [row[1] for row in first["rows"]] == ["wide", "narrow"]
    assert all(row[4] == "100%" for row in first["rows"])
    assert "± " in first["rows"][0][8]
    assert len(section["tables"][1]["rows"]) == len(sample["inseparable_groups"])


def test_report_section_draws_the_scaling_figure(fixture, tmp_path: Path) -> None:
    results = {"sizes": [10], "variants": ["wide"], "samples": [{"N": 10, "removed": 0, "inseparable_groups": [],
                                                                  "majority_test": 0.5}],
               "runs": [{"N": 10, "variant": "wide", "sequences": 10, "checker_status": "failed",
                         "certified_by_checker": 9, "blocks": 3, "parameters": 30, "thresholds": 0,
                         "test_accuracy": 0.5}]}
    bench = {"by_size": [{"N": n, "variant": v, "tokens": 10 * n, "blocks": 3, "parameters": 7 * n,
                          "build_s": 0.01 * n, "check_s": 0.02 * n} for n in (10, 100) for v in ("wide", "narrow")]}
    section = report_section(results, bench, figure_dir=tmp_path / "fig")
    assert section["summary"].startswith("Some built network was NOT certified")
    assert section["tables"][0]["rows"][0][4] == "NO"
    assert Path(section["figures"][0]).is_file() and len(section["tables"]) == 3


def test_missing_reference_is_bad_input(fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, _ = fixture
    assert main(["classify", "imdb", "--data", str(data), "--reference", str(tmp_path / "none.npz"),
                 "--sizes", "10", "--out", str(tmp_path / "r.json"), "--quiet"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["classify", "imdb", "--data", str(data), "--reference", str(tmp_path / "none.npz"),
                 "--sizes", "ten", "--quiet"]) == 2
