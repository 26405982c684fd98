"""Root pytest configuration: the Hypothesis profile, and a private user folder for the session."""

import os

import pytest

from verify.locations import HOME_VARIABLE
from verify.profiles import load_profile

load_profile()


@pytest.fixture(autouse=True, scope="session")
def _private_user_folder(tmp_path_factory: pytest.TempPathFactory):
    """Commands that write into the user folder by default (``conjecture run``) write here, never in ~."""
    previous = os.environ.get(HOME_VARIABLE)
    os.environ[HOME_VARIABLE] = str(tmp_path_factory.mktemp("user-folder"))
    yield
    if previous is None:
        os.environ.pop(HOME_VARIABLE, None)
    else:
        os.environ[HOME_VARIABLE] = previous
