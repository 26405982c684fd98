"""A user's own property file, written from the README's snippet, works in any folder.

The package's pytest plugin (entry point ``pytest11``) registers and loads the project's
Hypothesis profiles, so the user's folder needs no conftest.py, and no example is stopped by
Hypothesis's default 200 ms deadline. The assertion helpers hide their frames: a failure shows
the user's line and the helper's message, not the helper's source.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

PROFILE_CHECK = '''

from hypothesis import settings


def test_the_profile_is_the_projects():
    assert settings.default.deadline is None
    assert settings.default.max_examples == 25  # the ci profile
'''


def _readme_snippet() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
    snippets = [block for block in blocks if "@given(configurations(" in block]
    assert len(snippets) == 1, "the README's property-test snippet is gone or duplicated"
    return snippets[0]


def _plugin_is_installed() -> bool:
    return any(ep.name == "hardmax_verify" and ep.value == "verify.pytest_plugin"
               for ep in metadata.entry_points(group="pytest11"))


def _pytest(folder: Path, *args: str, profile: str | None = "ci") -> subprocess.CompletedProcess[str]:
    """A fresh pytest in ``folder``, as a user starts it (none of this run's PYTEST_* variables).

    The package comes from this checkout (PYTHONPATH); the plugin from its entry point when the
    installed metadata has it, else named with -p (a development checkout not reinstalled yet).
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HYPOTHESIS_"))}
    env.pop("CI", None)
    env["PYTHONPATH"] = str(REPO)
    env["HARDMAX_COUNTEREXAMPLE_DIR"] = str(folder / "counterexamples")
    if profile is not None:
        env["HYPOTHESIS_PROFILE"] = profile
    plugin = [] if _plugin_is_installed() or "no:hardmax_verify" in args else ["-p", "verify.pytest_plugin"]
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *plugin, *args],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=900)


def test_pyproject_declares_the_plugin_entry_point():
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'\[project\.entry-points\.pytest11\]\s*\nhardmax_verify = "verify\.pytest_plugin"', text)


@pytest.mark.slow
def test_the_readme_snippet_passes_in_a_folder_of_its_own(tmp_path):
    (tmp_path / "test_mine.py").write_text(_readme_snippet() + PROFILE_CHECK, encoding="utf-8")
    completed = _pytest(tmp_path, "-q", "test_mine.py")
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output
    assert "2 passed" in output and "DeadlineExceeded" not in output


@pytest.mark.slow
def test_without_the_plugin_hypothesis_would_use_its_own_defaults(tmp_path):
    # The control: the same profile check fails without the plugin, so the plugin is what sets it.
    (tmp_path / "test_mine.py").write_text(PROFILE_CHECK, encoding="utf-8")
    completed = _pytest(tmp_path, "-q", "-p", "no:hardmax_verify", "test_mine.py")
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "deadline" in completed.stdout


@pytest.mark.slow
def test_the_dev_profile_is_the_default_and_named_in_the_header(tmp_path):
    (tmp_path / "test_header.py").write_text(
        "from hypothesis import settings\n\n\ndef test_dev():\n    assert settings.default.max_examples == 60\n",
        encoding="utf-8")
    completed = _pytest(tmp_path, "test_header.py", profile=None)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "hardmax-verify: Hypothesis profile 'dev'" in completed.stdout


FAILING_USER_TEST = '''
from fractions import Fraction

from verify.core.config import parse_configuration
from verify.testing import assert_norms_nondecreasing


def test_my_own_claim():
    config = parse_configuration({"tokens": [[2, 0], [0, 1]], "alpha": 1})
    before = [(Fraction(2), Fraction(0)), (Fraction(0), Fraction(1))]
    after = [(Fraction(1), Fraction(0)), (Fraction(0), Fraction(1))]
    assert_norms_nondecreasing(before, after, config=config, layer=1)  # the user's line
'''


@pytest.mark.slow
@pytest.mark.parametrize("traceback", ["auto", "long", "short"])
def test_a_failing_helper_shows_the_users_line_not_the_helpers_source(tmp_path, traceback):
    (tmp_path / "test_fails.py").write_text(FAILING_USER_TEST, encoding="utf-8")
    completed = _pytest(tmp_path, f"--tb={traceback}", "test_fails.py")
    output = completed.stdout
    assert completed.returncode == 1, output + completed.stderr
    assert "# the user's line" in output
    assert "D2 (the A-norm of a token never decreases) failed: token 0's squared A-norm decreases" in output
    assert "reproduce with: hardmax-verify check" in output
    for helper_source in ("fail_claim(", "raise ClaimFailure", "def assert_norms_nondecreasing", "verify/testing.py"):
        assert helper_source not in output, helper_source
