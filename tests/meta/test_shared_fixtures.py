"""The suite's shared fixtures do what they promise: built once, read-only, grouped on one worker.

The small report of tests/common/reports.py is shared by every test that only reads a report,
so it must not be writable (a test writing into it would change what the next test reads) and
its copy must be a faithful, writable one. Under ``-n`` the root conftest keeps the tests of a
module with a module-scoped fixture on one worker; which tests those are is read from the
fixtures each test uses.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.common.reports import SMALL_SEED, SMALL_SPEC, folder_digest
from tests.common.xdist_groups import group_of, shares_a_module_fixture

REPO = Path(__file__).resolve().parents[2]


def _items(session: pytest.Session, relative: str) -> list[pytest.Item]:
    module = pytest.Module.from_parent(session, path=REPO / relative)
    found: list[pytest.Item] = []
    pending: list[pytest.Collector | pytest.Item] = [module]
    while pending:
        node = pending.pop()
        if isinstance(node, pytest.Item):
            found.append(node)
        else:
            pending.extend(node.collect())
    return found


def test_tests_sharing_a_module_fixture_are_told_apart(request: pytest.FixtureRequest) -> None:
    # test_report_closed_form.py: every test reads the report its module-scoped fixture builds.
    grouped = _items(request.session, "tests/integration/test_report_closed_form.py")
    assert grouped and all(shares_a_module_fixture(item) for item in grouped)
    assert {group_of(item) for item in grouped} == {"tests/integration/test_report_closed_form.py"}
    # test_number_text.py: plain unit tests, no fixture beyond the test's own.
    plain = _items(request.session, "tests/unit/test_number_text.py")
    assert plain and not any(shares_a_module_fixture(item) for item in plain)


def test_the_shared_report_is_guarded_and_its_copy_is_faithful(small_report: Path, small_report_copy: Path) -> None:
    results = small_report / "results.json"
    assert results.is_file() and f'"seed": {SMALL_SEED}' in results.read_text(encoding="utf-8")
    assert SMALL_SPEC.worked and SMALL_SPEC.examples == 3
    assert not results.stat().st_mode & 0o222  # read-only for everyone but root
    original = folder_digest(small_report)
    assert folder_digest(small_report_copy) == original and len(original) >= 4
    # The session's end compares the digest: a change to any file, here to the copy, is seen.
    (small_report_copy / "results.json").write_text("{}", encoding="utf-8")
    changed = folder_digest(small_report_copy)
    assert changed != original and [k for k in original if changed[k] != original[k]] == ["results.json"]
