"""Hypothesis settings profiles, registered in one place and chosen by HYPOTHESIS_PROFILE.

* ``ci``: fast and derandomised, no example database (registered under the name ``ci`` on
  purpose: Hypothesis auto-loads a profile of that name when the CI variable is set);
* ``dev``: the default for local runs;
* ``thorough``: many examples, for overnight runs.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_SLOW_DATA = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile("ci", max_examples=25, derandomize=True, database=None, deadline=None,
                          print_blob=True, suppress_health_check=_SLOW_DATA)
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=_SLOW_DATA)
settings.register_profile("thorough", max_examples=2000, deadline=None, suppress_health_check=_SLOW_DATA)


def load_profile() -> str:
    """Load HYPOTHESIS_PROFILE (default ``ci`` when CI is set, else ``dev``) and return its name."""
    name = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
    settings.load_profile(name)
    return name
