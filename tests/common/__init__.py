"""Helpers every test folder shares (the claim conformance kit, ...); import them as ``tests.common.<module>``."""
