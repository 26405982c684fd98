"""D0 (docs/theory.md §3): a token of largest A-norm is a leader at layer 0.

A testing assertion: :func:`verify.testing.assert_largest_norm_token_leads` checks it in the
properties (``properties/test_D0.py``); T0's check decides it too, so ``check`` reproduces a
counterexample.
"""

from __future__ import annotations

from verify.claims import registry

CLAIM = registry.register(registry.Claim("D0", "a token of largest A-norm is a leader at layer 0", "assertion"))
