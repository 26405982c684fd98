"""pytest plugin, registered by the ``pytest11`` entry point of the installed package.

It registers the Hypothesis profiles ``ci``, ``dev`` and ``thorough`` (:mod:`verify.core.profiles`)
and loads the one chosen by ``HYPOTHESIS_PROFILE`` (default ``ci`` when ``CI`` is set, else
``dev``), so that a property test written against :mod:`verify.strategies` works in any folder,
with the project's settings (no per-example deadline: exact checks of a large configuration
take seconds).

The profile is loaded when the plugin is imported, before any ``conftest.py``: a profile that
a conftest loads, or Hypothesis's own ``--hypothesis-profile NAME``, still wins. As with every
plugin, ``pytest -p no:hardmax_verify`` turns it off.
"""

from __future__ import annotations

from verify.core.profiles import load_profile

PROFILE = load_profile()


def pytest_report_header(config: object) -> str:  # pytest.Config; pytest is not a runtime dependency
    return f"hardmax-verify: Hypothesis profile {PROFILE!r} (HYPOTHESIS_PROFILE=ci|dev|thorough)"
