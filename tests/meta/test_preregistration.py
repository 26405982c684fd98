"""The committed protocol is the preregistered one: every collected run recorded its sha256 (docs/theory.md §5)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RECORDS = sorted(p for p in (REPO / "runs" / "sentiment" / "protocol").glob("*.json")
                 if not p.name.endswith(".interpret.json"))


@pytest.mark.skipif(not RECORDS, reason="no protocol run has been collected into runs/sentiment/protocol")
@pytest.mark.parametrize("record_path", RECORDS, ids=[p.stem for p in RECORDS])
def test_each_collected_run_names_the_protocol_file_as_committed(record_path):
    record = json.loads(record_path.read_text(encoding="utf-8"))
    protocol = REPO / record["protocol_file"]
    assert hashlib.sha256(protocol.read_bytes()).hexdigest() == record["protocol_sha256"], (
        f"{record['protocol_file']} changed after run {record['run']} started; restore the preregistered file")
