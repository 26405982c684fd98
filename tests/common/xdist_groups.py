"""Which tests pytest-xdist keeps together on one worker (used by the root ``conftest.py``).

Under ``-n`` the root conftest switches xdist's default distribution, ``load``, to ``loadgroup``
and puts into one group, named after their module, the tests that use a fixture set up once
per module or class: spread over two workers, such a fixture (a report, a campaign, a trained
model) would be built once on each.
"""

from __future__ import annotations

import pytest


def shares_a_module_fixture(item: pytest.Item) -> bool:
    """True for a test that uses a fixture set up once per module (or class): a report, a campaign, a server."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(definitions and definitions[-1].scope in ("module", "class", "package")
               for definitions in info.name2fixturedefs.values())


def group_of(item: pytest.Item) -> str:
    """The xdist group of a test that shares a module fixture: its module's path."""
    return item.nodeid.split("::")[0]
