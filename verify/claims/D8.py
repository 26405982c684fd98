"""D8 (docs/theory.md §3): distinct tokens never merge (A positive definite).

A testing assertion: :func:`verify.testing.assert_tokens_never_merge` checks it in the properties
(``properties/test_D8.py``); ``simulate`` reproduces a counterexample.
"""

from __future__ import annotations

from verify.claims import registry

CLAIM = registry.register(registry.Claim("D8", "distinct tokens never merge (A positive definite)", "assertion",
                                         reproduce="simulate"))
