"""The float programs of leader control (docs/theory.md D10): what a solver proposes, never what decides.

* :func:`design_program`: minimise trace A over {A >= I, <Mhat_c, A> >= 1 for every c}, which
  has a solution iff the strict homogeneous system {A > 0, <M_c, A> > 0} has one (scale).
* :func:`lambda_min_program`: maximise lambda_min(S), S = -sum_c y_c Mhat_c, over y >= 0,
  sum y = 1 (the first step of the infeasibility certificate).

Both try Clarabel first and fall back to SCS when Clarabel errs or ends without an answer. The
design program, solved once per target map the search tries, calls Clarabel directly with
pre-assembled matrices and generates its rows in rounds (:func:`_clarabel_run`); everything
else goes through cvxpy. Statuses are named as cvxpy names them either way. Every run is
returned as a :class:`SolverRun`, the evidence the result records (solver, status, objective
rounded to 6 significant digits, and the answer for the exact rounding that follows). The
solvers are imported inside the functions: cvxpy takes seconds to import, and no other command
needs it.
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


# Clarabel's statuses as cvxpy names them (cvxpy.reductions.solvers.conic_solvers.clarabel_conif), so that a run
# recorded from the direct call reads the same as one through cvxpy; anything else is a solver error.
_CLARABEL_STATUS = {"Solved": "optimal", "PrimalInfeasible": "infeasible", "DualInfeasible": "unbounded",
                    "AlmostSolved": "optimal_inaccurate", "AlmostPrimalInfeasible": "infeasible_inaccurate",
                    "AlmostDualInfeasible": "unbounded_inaccurate", "MaxIterations": "user_limit",
                    "MaxTime": "user_limit"}
# Row generation (design program): the rows per token solved first, and, when the reference A is a design of the
# rows, those with a value below 1 + NEAR there; rounds before the whole program is solved; how far below 1 a row left
# out may be before it counts as violated (Clarabel's own feasibility tolerance is 1e-8). Tuned on bench/control.py.
START_ROWS = 4
NEAR = 1.0
MAX_ROUNDS = 6
VIOLATION = 1e-9


def _upper(d: int) -> list[tuple[int, int]]:
    """The upper triangle column by column: the order of Clarabel's PSD triangle cone (and of the variables here)."""
    return [(r, s) for s in range(d) for r in range(s + 1)]


def _coefficients(matrices: np.ndarray) -> np.ndarray:
    """Rows of <M, A> in the variables a_rs (r <= s, :func:`_upper` order) for symmetric M (k x d x d -> k x v)."""
    d = matrices.shape[1]
    upper = _upper(d)
    rows = np.array([r for r, _ in upper])
    cols = np.array([s for _, s in upper])
    off = (rows != cols).astype(float)
    return matrices[:, rows, cols] + off * matrices[:, cols, rows]


def _clarabel_design(coefficients: np.ndarray, weight: np.ndarray, equalities: np.ndarray | None, d: int
                     ) -> tuple[str, float | None, np.ndarray | None, str]:
    """One Clarabel solve of min <C, A> s.t. A - I in the PSD cone, G a >= 1, E a = 0 (a: A's upper triangle).

    Returns cvxpy's status name, the objective, A (d x d) when optimal, and a message for an error.
    """
    import clarabel
    from scipy import sparse

    upper = _upper(d)
    v = len(upper)
    root2 = np.sqrt(2.0)
    # s = b - M a in the cone: the PSD block is svec(A) - svec(I), off-diagonals scaled by sqrt(2) as Clarabel expects.
    psd = -np.diag([1.0 if r == s else root2 for r, s in upper])
    blocks, rhs, cones = [], [], []
    if equalities is not None and len(equalities):
        blocks.append(equalities)
        rhs.append(np.zeros(len(equalities)))
        cones.append(clarabel.ZeroConeT(len(equalities)))
    if len(coefficients):
        blocks.append(-coefficients)
        rhs.append(-np.ones(len(coefficients)))
        cones.append(clarabel.NonnegativeConeT(len(coefficients)))
    blocks.append(psd)
    rhs.append(np.array([-1.0 if r == s else 0.0 for r, s in upper]))
    cones.append(clarabel.PSDTriangleConeT(d))
    q = np.array([weight[r, s] if r == s else weight[r, s] + weight[s, r] for r, s in upper])
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.max_threads = 1  # one core: CPU time is what the budget counts, and the answer does not vary with threads
    solver = clarabel.DefaultSolver(sparse.csc_matrix((v, v)), q, sparse.csc_matrix(np.vstack(blocks)),
                                    np.concatenate(rhs), cones, settings)
    solution = solver.solve()
    raw = str(solution.status)
    status = _CLARABEL_STATUS.get(raw)
    if status is None:
        return "error", None, None, f"SolverError: Clarabel ended with {raw}"
    if not status.startswith("optimal"):
        return status, None, None, ""
    x = np.asarray(solution.x, dtype=float)
    A = np.zeros((d, d))
    for value, (r, s) in zip(x, upper):
        A[r, s] = A[s, r] = value
    objective = float(solution.obj_val)
    return status, objective if np.isfinite(objective) else None, _finite(A), ""


def _upper_entries(A: np.ndarray) -> np.ndarray:
    """A's upper triangle in :func:`_upper` order: the variables a with <M, A> = coefficients(M) @ a."""
    return np.array([A[r, s] for r, s in _upper(A.shape[0])])


def _first_rows(values: np.ndarray, groups: np.ndarray, near: bool) -> np.ndarray:
    """The rows solved first: for each group (token), the START_ROWS with the smallest value at the reference, and,
    when the reference is a design the search found (``near``: its rows have values >= 1 there), every row with a
    value below 1 + NEAR: the rows tight at the last optimum, and the new token's."""
    chosen = [np.flatnonzero(values < 1 + NEAR)] if near else []
    for group in np.unique(groups):
        members = np.flatnonzero(groups == group)
        chosen.append(members[np.argsort(values[members], kind="stable")[:START_ROWS]])
    return np.unique(np.concatenate(chosen))


def _clarabel_run(flat: np.ndarray, weight: np.ndarray, equalities: np.ndarray | None, d: int,
                  groups: np.ndarray | None, reference: np.ndarray | None) -> SolverRun:
    """The design program with Clarabel called directly, its rows generated in rounds.

    With rows (or tokens) in the hundreds, almost all of them are slack at the optimum. So the
    program is first solved with the few rows per token that are tightest at ``reference`` (the
    identity unless given); every row it violates is added and the program solved again, until
    the optimum satisfies every row; after MAX_ROUNDS rounds the full program is solved. An
    optimum of a subset of the rows that satisfies them all is an optimum of the full program;
    a subset without a solution means the full program has none either.
    """
    start_time = time.process_time()
    coefficients = _coefficients(flat.reshape(len(flat), d, d))
    eq = _coefficients(equalities.reshape(len(equalities), d, d)) if equalities is not None and len(equalities) else None
    count = len(coefficients)
    rounds = 0
    active: np.ndarray | None = None
    if groups is not None and count > START_ROWS * len(np.unique(groups)):
        start = _upper_entries(np.eye(d) if reference is None else reference)
        active = _first_rows(coefficients @ start, groups, reference is not None)
    while True:
        rows = coefficients if active is None else coefficients[active]
        try:
            status, objective, A, message = _clarabel_design(rows, weight, eq, d)
        except Exception as error:  # a solver failure is evidence, not a crash
            status, objective, A, message = "error", None, None, f"{type(error).__name__}: {error}"[:300]
        rounds += 1
        if active is None or A is None:
            # An error on a subset: the full program decides; "infeasible" on a subset holds for the full program.
            if active is not None and status != "infeasible":
                active = None
                continue
            break
        values = coefficients @ _upper_entries(A)
        outside = np.ones(count, dtype=bool)
        outside[active] = False
        violated = np.flatnonzero(outside & (values < 1 - VIOLATION))
        if not len(violated):
            break
        active = None if rounds >= MAX_ROUNDS else np.union1d(active, violated)
    return SolverRun("design", "CLARABEL", status, objective, message, A, seconds=time.process_time() - start_time)


def design_program(rows: np.ndarray, *, objective: np.ndarray | None = None, equalities: np.ndarray | None = None,
                   solvers: tuple[str, ...] = SOLVERS, groups: np.ndarray | None = None,
                   reference: np.ndarray | None = None) -> list[SolverRun]:
    """Solver runs for min <C, A> s.t. A >= I, <rows_c, A> >= 1, <equalities_e, A> = 0 (C = I unless ``objective``
    is given, an SPD matrix); each optimal run carries its A (d x d). ``solvers`` in the order tried.

    Clarabel is called directly with its rows generated in rounds (``groups``: the token of each
    row; ``reference``: the A at which the tightest rows are picked first), see :func:`_clarabel_run`;
    SCS, the fallback, sees the whole program through cvxpy.
    """
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

    runs: list[SolverRun] = []
    for solver in solvers:
        if solver == "CLARABEL":
            run = _clarabel_run(flat, weight, equalities, d, groups, reference)
        else:
            run = _solve("design", build, extract, (solver,))[0]
        runs.append(run)
        if run.status in _DEFINITE and (run.answer is not None or run.status == "infeasible"):
            break
    return runs


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
