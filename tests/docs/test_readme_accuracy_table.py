"""The README's sentiment accuracy table says what the committed evaluation files say.

Each row names a run; ``runs/sentiment/evaluate-<run>.json`` is the output of
``hardmax-verify sentiment evaluate --json`` on ``models/sentiment-<run>``. The table must
quote those numbers, cover every committed evaluation, and mark as "chosen" exactly one run per
d: the one the experiment's selection rule chooses (``chosen_on_validation``: the best validation
accuracy, choosing by the test number would select on test), the rule the report applies.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from verify.experiments.sentiment import AUTHORS_SOFTMAX_TEST_ACCURACY
from verify.experiments.sentiment.report_section import chosen_on_validation

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| (\d+) \| `([^`]+)` \| (.+) \|$")


def _readme_rows() -> dict[str, tuple[int, list[str]]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## The sentiment experiment"):]
    section = section[:section.index("\n## ", 1)]
    rows = {}
    for line in section.splitlines():
        match = ROW.match(line)
        if match:
            rows[match.group(2)] = (int(match.group(1)), [c.strip() for c in match.group(3).split(" | ")])
    return rows


def _number(cell: str) -> str:
    return re.search(r"\d\.\d{4}", cell).group(0)


def test_readme_accuracy_table_quotes_the_committed_evaluations():
    rows = _readme_rows()
    files = {p.name[len("evaluate-"):-len(".json")]: p for p in (ROOT / "runs" / "sentiment").glob("evaluate-*.json")}
    assert files, "no committed evaluations"
    assert set(rows) == set(files), "README rows and runs/sentiment/evaluate-*.json differ"
    records = [json.loads(path.read_text(encoding="utf-8")) for path in files.values()]
    chosen_runs = {r["checkpoint"] for r in chosen_on_validation(records)}
    assert len(chosen_runs) == len({(r["d"], r["protocol"]) for r in records})  # one per (d, protocol)
    for run, (d, cells) in rows.items():
        record = json.loads(files[run].read_text(encoding="utf-8"))
        authors, like, honest, validation, exact = cells
        assert record["d"] == d and record["checkpoint"] == f"models/sentiment-{run}", run
        assert _number(authors) == f"{AUTHORS_SOFTMAX_TEST_ACCURACY[d]:.4f}", run
        assert _number(like) == f"{record['softmax_best_test_epoch']['test_acc']:.4f}", run
        assert _number(honest) == f"{record['hardmax_accuracy']:.4f}", run
        assert _number(validation) == f"{record['validation_accuracy']:.4f}", run
        assert ("chosen" in validation) == (record["checkpoint"] in chosen_runs), run
        assert exact == str(record["exact_path"]), run
