"""The public API does not move: the names of ``verify`` stay, and old import paths keep working.

``verify`` is the one module users write against (docs/api.md). This test lists its names: a
name that disappears (renamed, moved away, dropped from ``verify/__init__.py``'s table) fails
here. New names may be added (and then belong in this list). A module that moved
(``verify.conjectures`` -> ``verify.experiments.conjectures``) is still importable under its old
name (verify/_moved.py), warns with a DeprecationWarning naming the new place, and is the very
same module object, so classes and isinstance checks agree.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import verify
from verify import _moved

REPO = Path(__file__).resolve().parents[2]

# What users write against (docs/api.md); never remove a name from this list without a release note.
PUBLIC_NAMES = {
    "simulate", "Trajectory", "simulate_batch", "BatchResult",
    "Configuration", "load_configuration", "parse_configuration", "HypothesisViolation", "InputError",
    "check_configuration", "run_configuration", "ClaimReport", "TokenFate", "WORKED_CONFIGURATIONS",
    "configurations", "outside_configurations", "token_configurations", "float_stress_configurations",
    "spd_matrices", "nonsymmetric_pd_matrices", "psd_low_rank_matrices", "indefinite_matrices", "alphas",
    "rationals", "positive_rationals", "vectors", "OUTSIDE_KINDS",
    "assert_claim_certified", "assert_claims_not_failed", "ClaimFailure",
    "Conjecture", "Observation", "ConjectureResult", "run_conjecture", "InternalError", "BUILTIN_CONJECTURES",
    "convex_hull_vertices", "faces", "project_origin_exact",
    "control", "realisable", "all_hull_vertices_lead", "decide_leader_sets",
    "softmax_certificate",
    "make_dataset", "load_dataset", "build_network",
    "__version__",
}

# Import paths the docs of earlier layouts told users to write (README, docs/conjectures.md,
# docs/properties.md, examples/my_conjecture.py before the layered layout).
OLD_PATHS = {
    "verify.conjectures": "verify.experiments.conjectures",
    "verify.config": "verify.core.config",
    "verify.geometry": "verify.core.geometry",
    "verify.worked": "verify.core.worked",
    "verify.families": "verify.core.families",
    "verify.conjectures.base": "verify.experiments.conjectures.base",
    "verify.campaign": "verify.app.campaign",
    "verify.report.build": "verify.app.report.build",
}


def test_every_public_name_is_still_there() -> None:
    missing = sorted(PUBLIC_NAMES - set(verify.__all__))
    assert missing == [], f"public names gone from verify: {missing} (docs/api.md promises them)"


@pytest.mark.parametrize("name", sorted(PUBLIC_NAMES))
def test_a_public_name_resolves_to_the_object_its_module_defines(name: str) -> None:
    value = getattr(verify, name)
    if name == "__version__":
        assert isinstance(value, str) and value
        return
    home = importlib.import_module(f"verify.{verify._PUBLIC[name]}")  # type: ignore[attr-defined]
    assert getattr(home, name) is value


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'conjectures_lab'"):
        verify.conjectures_lab  # noqa: B018 - the attribute access is what is tested


def test_the_list_would_catch_a_name_that_disappears(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verify, "__all__", [n for n in verify.__all__ if n != "Conjecture"])
    with pytest.raises(AssertionError, match="Conjecture"):
        test_every_public_name_is_still_there()


def _forget(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``name`` (and its moved parents) be imported afresh, as in a new process."""
    for module in list(sys.modules):
        if module in _moved.MOVED or _moved.current_name(module) is not None:
            monkeypatch.delitem(sys.modules, module)
    for parent_attr in ("conjectures", "config", "geometry", "worked", "families", "campaign", "report"):
        if parent_attr in vars(verify) and parent_attr not in verify._PUBLIC:  # type: ignore[attr-defined]
            monkeypatch.delattr(verify, parent_attr)


@pytest.mark.parametrize("old, new", sorted(OLD_PATHS.items()))
def test_an_old_import_path_warns_and_gives_the_same_module(old: str, new: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _forget(old, monkeypatch)
    with pytest.warns(DeprecationWarning) as caught:  # a moved package's submodule warns for the package too
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert any(str(w.message).startswith(f"{old} has moved to {new}: ") and "docs/api.md" in str(w.message)
               for w in caught), [str(w.message) for w in caught]


def test_a_moved_package_serves_its_submodules_without_loading_them_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    _forget("verify.conjectures.search", monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from verify.conjectures.search import Budget
    from verify.experiments.conjectures.search import Budget as Current
    assert Budget is Current


def test_every_entry_of_the_table_names_a_module_that_exists() -> None:
    missing = [f"{old} -> {new}" for old, new in _moved.MOVED.items() if importlib.util.find_spec(new) is None]
    assert missing == []
    assert _moved.current_name("verify.core.config") is None  # a module that did not move is not touched
    assert _moved.current_name("verify.conjectures.loader") == "verify.experiments.conjectures.loader"


def test_the_warning_points_at_the_users_import_line(tmp_path: Path) -> None:
    """In a fresh interpreter (nothing imported before), the warning names the file and line of the old import."""
    script = tmp_path / "old_layout.py"
    script.write_text("import warnings\nwarnings.simplefilter('always')\n"
                      "from verify.conjectures import Conjecture, Observation\n"
                      "from verify import Conjecture as Public\nassert Conjecture is Public\nprint('ran')\n")
    completed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                               env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "ran"
    assert f"{script}:3: DeprecationWarning: verify.conjectures has moved to verify.experiments.conjectures" \
        in completed.stderr
