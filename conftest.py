"""Root pytest configuration: the Hypothesis profile is chosen here for every test folder."""

from verify.profiles import load_profile

load_profile()
