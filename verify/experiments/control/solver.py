"""The float programs of leader control (docs/theory.md D10): what a solver proposes, never what decides.

* :func:`design_program`: minimise trace A over {A >= I, <Mhat_c, A> >= 1 for every c}, which
  has a solution iff the strict homogeneous system {A > 0, <M_c, A> > 0} has one (scale).
* :func:`lambda_min_program`: maximise lambda_min(S), S = -sum_c y_c Mhat_c, over y >= 0,
  sum y = 1 (the first step of the infeasibility certificate).

Both run cvxpy with Clarabel and fall back to SCS when Clarabel errs or ends without an answer.
Every run is returned as a :class:`SolverRun`, the evidence the result records (solver, status,
objective rounded to 6 significant digits, and the answer for the exact rounding that follows).
cvxpy is imported inside the functions: it takes seconds to import, and no other command needs it.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["SolverRun", "SOLVERS", "design_program", "lambda_min_program", "rounded"]

SOLVERS: tuple[str, ...] = ("CLARABEL", "SCS")
# Statuses after which the next solver is not tried: an answer, or a definite "no".
_DEFINITE = {"optimal", "infeasible"}


@dataclass(frozen=True)
class SolverRun:
    """One solver run: ``status`` is cvxpy's status, or ``error`` with ``message``."""

    program: str
    solver: str
    status: str
    objective: float | None = None
    message: str = ""
    answer: np.ndarray | None = field(default=None, compare=False, repr=False)
    seconds: float = field(default=0.0, compare=False)  # CPU time of building and solving (bench/control.py)

    def to_json_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"program": self.program, "solver": self.solver, "status": self.status}
        if self.objective is not None:
            data["objective"] = rounded(self.objective)
        if self.message:
            data["message"] = self.message
        return data


def rounded(x: float) -> float:
    """6 significant digits: solver output recorded as evidence, without its low-order noise."""
    return float(f"{x:.6g}")


def _finite(value: Any) -> np.ndarray | None:
    if value is None:
        return None
    array = np.asarray(value, dtype=float)
    return array if np.all(np.isfinite(array)) else None


def _run(program: str, build: Any, solver: str) -> tuple[SolverRun, Any]:
    import cvxpy as cp  # heavy: imported by the control command only

    start = time.process_time()
    problem, variable = build(cp)
    try:
        with warnings.catch_warnings():
            # "Solution may be inaccurate": the status says so too, and it is recorded as evidence.
            warnings.simplefilter("ignore", UserWarning)
            problem.solve(solver=getattr(cp, solver))
    except Exception as error:  # a solver failure is evidence, not a crash
        return SolverRun(program, solver, "error", message=f"{type(error).__name__}: {error}"[:300],
                         seconds=time.process_time() - start), None
    status = str(problem.status)
    value = problem.value
    objective = float(value) if isinstance(value, (int, float)) and np.isfinite(value) else None
    return SolverRun(program, solver, status, objective, seconds=time.process_time() - start), variable


def _solve(program: str, build: Any, extract: Any, solvers: tuple[str, ...] = SOLVERS) -> list[SolverRun]:
    runs: list[SolverRun] = []
    for solver in solvers:
        run, variable = _run(program, build, solver)
        answer = extract(variable) if variable is not None and run.status.startswith("optimal") else None
        runs.append(SolverRun(run.program, run.solver, run.status, run.objective, run.message, answer, run.seconds))
        if run.status in _DEFINITE and (answer is not None or run.status == "infeasible"):
            break
    return runs


def design_program(rows: np.ndarray, *, objective: np.ndarray | None = None, equalities: np.ndarray | None = None,
                   solvers: tuple[str, ...] = SOLVERS) -> list[SolverRun]:
    """Solver runs for min <C, A> s.t. A >= I, <rows_c, A> >= 1, <equalities_e, A> = 0 (C = I unless ``objective``
    is given, an SPD matrix); each optimal run carries its A (d x d). ``solvers`` in the order tried."""
    count, d, _ = rows.shape
    flat = rows.reshape(count, d * d)
    weight = np.eye(d) if objective is None else objective

    def build(cp: Any) -> tuple[Any, Any]:
        A = cp.Variable((d, d), symmetric=True)
        constraints = [A >> np.eye(d)]
        if count:
            constraints.append(flat @ cp.vec(A, order="C") >= 1)
        if equalities is not None and len(equalities):
            constraints.append(equalities.reshape(len(equalities), d * d) @ cp.vec(A, order="C") == 0)
        return cp.Problem(cp.Minimize(cp.trace(weight @ A)), constraints), A

    def extract(A: Any) -> np.ndarray | None:
        value = _finite(A.value)
        return None if value is None else (value + value.T) / 2

    return _solve("design", build, extract, solvers)


def lambda_min_program(rows: np.ndarray) -> list[SolverRun]:
    """Solver runs for max t s.t. -sum_c y_c rows_c - t I >= 0, y >= 0, sum y = 1; each optimal run carries y."""
    count, d, _ = rows.shape
    flat = rows.reshape(count, d * d)

    def build(cp: Any) -> tuple[Any, Any]:
        y = cp.Variable(count, nonneg=True)
        t = cp.Variable()
        combined = cp.reshape(flat.T @ y, (d, d), order="C")
        S = -(combined + combined.T) / 2
        problem = cp.Problem(cp.Maximize(t), [cp.sum(y) == 1, S - t * np.eye(d) >> 0])
        return problem, y

    def extract(y: Any) -> np.ndarray | None:
        return _finite(y.value)

    return _solve("lambda_min", build, extract)
