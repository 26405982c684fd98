"""verify/app/campaign/run.py: a task's claim-check time (environment.claim_check_seconds of the report) is
the checking, not the one-off imports a worker's first tasks pay (the T4 cross-check's solver, cvxpy)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# In a fresh interpreter (nothing imported yet): the checker must start with cvxpy already loaded, and
# the timed checks must not import it.
SCRIPT = """
import sys
from verify.app.campaign import default_spec, plan_tasks
from verify.app.campaign import run
from verify.claims import check_configuration

seen = []
def timed_check(config, **budgets):
    seen.append("cvxpy" in sys.modules)
    return check_configuration(config, **budgets)

run.check_configuration = timed_check
task = next(t for t in plan_tasks(default_spec(), seed=0) if t.kind == "worked")
assert "cvxpy" not in sys.modules
timings = {}
run.run_task(task, timings=timings)
print(seen, timings["claim_checks"] > 0)
"""


def test_the_solver_is_imported_before_the_claim_checks_are_timed() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[True] True"
