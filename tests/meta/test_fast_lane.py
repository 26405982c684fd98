"""The fast lane (``pytest -m "not slow"``) still tests every claim, the checker and the exit statuses.

The fast lane leaves out the tests marked slow. It must keep at least one test of every claim's
property module (docs/theory.md T0..T4, D0..D9: a broken update rule or claim check then still
fails the fast lane), and of every module of ``tests/unit`` (the exact dynamics, the independent
checker certcheck), ``tests/cli`` (each command's exit statuses) and ``tests/hostile`` (one-line
refusals, exit 2 and 4). A module whose every test is marked slow would silently drop out of it.

Selection is read from the tests pytest collects (marks on functions, classes, modules and
parameters included), as ``-m "not slow"`` reads it, whatever this run itself selected.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from verify.claims import registry

REPO = Path(__file__).resolve().parents[2]
PROPERTIES = REPO / "properties"
# Folders whose every module keeps a test in the fast lane.
KEPT_FOLDERS = ("properties", "tests/unit", "tests/cli", "tests/hostile")


def _items(node: pytest.Collector) -> Iterator[pytest.Item]:
    for child in node.collect():
        if isinstance(child, pytest.Item):
            yield child
        elif isinstance(child, pytest.Collector):
            yield from _items(child)


def fast_lane_tests(session: pytest.Session, path: Path) -> list[str]:
    """Node ids of the tests of module ``path`` that ``-m "not slow"`` selects."""
    module = pytest.Module.from_parent(session, path=path)
    return [item.nodeid for item in _items(module) if item.get_closest_marker("slow") is None]


def _modules() -> list[Path]:
    return sorted(path for folder in KEPT_FOLDERS for path in (REPO / folder).glob("test_*.py"))


@pytest.mark.parametrize("claim", registry.claims(), ids=lambda c: c.id)
def test_the_fast_lane_keeps_a_test_of_every_claim(request: pytest.FixtureRequest, claim: registry.Claim) -> None:
    path = PROPERTIES / f"{claim.property_module}.py"
    assert fast_lane_tests(request.session, path), f"claim {claim.id}: every test of {path.name} is marked slow"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_the_fast_lane_keeps_a_test_of_every_module(request: pytest.FixtureRequest, path: Path) -> None:
    assert fast_lane_tests(request.session, path), f"{path.relative_to(REPO)}: every test is marked slow"


def test_the_selection_sees_marks_on_tests_and_on_parameters(request: pytest.FixtureRequest) -> None:
    # A module whose tests are all slow, and one whose parametrized cases are slow but a few.
    assert fast_lane_tests(request.session, REPO / "tests" / "integration" / "test_install.py") == []
    kept = fast_lane_tests(request.session, REPO / "tests" / "hostile" / "test_hostile_conjectures.py")
    raising = [node for node in kept if "test_whatever_a_conjecture_file_raises_or_exits_with_is_bad_input[" in node]
    assert len(raising) == 2, kept
