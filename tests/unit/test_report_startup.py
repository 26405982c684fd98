"""The report's parent process starts without the libraries only its workers or the lab need.

Hypothesis (the conjecture lab's search) and numba (the float kernel, run in the workers) take about
a second together to import; the report's parent reads saved runs and draws figures, so neither may
be loaded by importing the report, its section providers or the campaign's executors.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from verify.experiments import conjectures


def _loaded_after(module: str) -> set[str]:
    script = (f"import sys, {module}\n"
              "print(' '.join(sorted(name for name in ('hypothesis', 'numba') if name in sys.modules)))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(result.stdout.split())


@pytest.mark.parametrize("module", ["verify.app.report.build", "verify.experiments.registry",
                                    "verify.app.campaign.executors", "verify.experiments.conjectures.sweep"])
def test_importing_the_report_loads_neither_hypothesis_nor_numba(module: str) -> None:
    assert _loaded_after(module) == set()


def test_the_lab_loads_when_its_names_are_used() -> None:
    assert conjectures.Conjecture.__module__ == "verify.experiments.conjectures.base"
    assert set(conjectures.__all__) == set(conjectures._HOME)
    with pytest.raises(AttributeError, match="no attribute 'Conjectures'"):
        conjectures.Conjectures  # noqa: B018 - the attribute access is the test
