"""D5 (docs/theory.md §3): equal tokens stay equal forever.

A testing assertion: :func:`verify.testing.assert_duplicates_stay_equal` checks it in the
properties (``properties/test_D5.py``); ``simulate`` reproduces a counterexample.
"""

from __future__ import annotations

from verify.claims import registry

CLAIM = registry.register(registry.Claim("D5", "equal tokens stay equal forever", "assertion", reproduce="simulate"))
