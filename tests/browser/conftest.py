"""The browser tests' Chromium: one headless browser per session, a clear failure when it is missing."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from page_checks import missing_browser, open_chromium


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    reason = missing_browser()
    if reason is not None:
        # Never a skip: CI installs the browser with scripts/setup.sh, so its absence is a defect.
        pytest.fail(reason, pytrace=False)
    with open_chromium() as driver:
        yield driver
