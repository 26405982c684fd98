"""The fast paths of leader control (docs/theory.md D10) decide what the plain ones decide.

Integer LDL^T pivots against the Fraction decomposition, the short-circuit margin test against
the full design check, the remembered token integers against fresh ones, the design program
with generated rows against the whole program, and leaders closer than the solver resolves.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from verify.core import linalg
from verify.core.geometry import convex_hull_vertices
from verify.core.worked import WORKED_CONFIGURATIONS
from verify.experiments.control import solver
from verify.experiments.control.constraints import (check_design, integer_scores, margins_positive, solver_rows,
                                                    system)
from verify.experiments.control.design import decide_system, equal_norm_pairs

EMERGING = WORKED_CONFIGURATIONS["emerging_leader"].tokens


def _random_symmetric(rng: np.random.Generator, d: int) -> list[list[F]]:
    M = [[F(0)] * d for _ in range(d)]
    for i in range(d):
        for j in range(i, d):
            M[i][j] = M[j][i] = F(int(rng.integers(-3, 4)), int(rng.choice([1, 2, 3, 7, 10])))
    return M


def _random_tokens(rng: np.random.Generator, n: int, d: int) -> list[tuple[F, ...]]:
    found: list[tuple[F, ...]] = []
    while len(found) < n:
        z = tuple(F(int(x), 16) for x in rng.integers(-16, 17, size=d))
        if any(z) and z not in found:
            found.append(z)
    return found


def test_integer_pivots_are_the_ldl_pivots() -> None:
    rng = np.random.default_rng(0)
    zero_pivots = 0
    for _ in range(2000):
        M = _random_symmetric(rng, int(rng.integers(1, 7)))
        plain = linalg.ldl_decomposition(M)
        fast = linalg.ldl_pivots(M)
        assert (plain is None) == (fast is None)
        zero_pivots += plain is None
        if plain is not None:
            assert fast == plain[1]
    assert zero_pivots > 0  # the sample reaches the zero-pivot case
    assert linalg.ldl_pivots([[2, 1], [1, 2]]) == [F(2), F(3, 2)]  # plain integers too


def test_the_short_circuit_margin_test_is_the_design_checks() -> None:
    rng = np.random.default_rng(1)
    tokens = _random_tokens(rng, 9, 3)
    agreed = {True: 0, False: 0}
    for _ in range(300):
        A = _random_symmetric(rng, 3)
        leaders = sorted(int(i) for i in rng.choice(9, size=2, replace=False))
        targets = {m: leaders[int(rng.integers(2))] for m in range(9) if m not in leaders and rng.random() < 0.5}
        constraints = system(9, leaders, targets)
        s, _ = integer_scores(tokens, A)
        decided = margins_positive(s, constraints)
        assert decided == check_design(tokens, A, constraints).margins_positive
        agreed[decided] += 1
    assert agreed[False] > 0
    # Leaders alone: often positive under a random A, so both answers are exercised.
    hits = sum(margins_positive(integer_scores(tokens, A)[0], system(9, [i], {}))
               for A in (_random_symmetric(rng, 3) for _ in range(200)) for i in range(9))
    assert hits > 0


def test_remembered_token_integers_are_never_stale() -> None:
    A = [[F(3), F(-1, 2)], [F(-1, 2), F(7, 5)]]
    first = integer_scores(EMERGING, A)
    moved = list(EMERGING)
    moved[3] = (F(1, 7), F(2, 9))  # a new point object: the cached integers must not be reused
    rows, scale = integer_scores(moved, A)
    expected = [[sum((moved[i][r] * A[r][c] * moved[j][c] for r in range(2) for c in range(2)), F(0))
                 for j in range(len(moved))] for i in range(len(moved))]
    assert [[F(x, scale) for x in row] for row in rows] == expected
    as_lists = [list(z) for z in EMERGING]  # points as lists are computed afresh
    assert integer_scores(as_lists, A) == first  # type: ignore[arg-type]
    assert integer_scores(list(EMERGING), A) == first


def test_solver_rows_vectorised_match_the_integer_differences() -> None:
    # Tokens 2^60 apart in one coordinate force the integer path; a plain configuration takes the vectorised one.
    tokens = [(F(1), F(2)), (F(1) + F(1, 2 ** 60), F(2)), (F(-1), F(3))]
    constraints = system(3, [0, 1], {2: 0})
    rows, exponents = solver_rows(tokens, constraints)
    assert np.all(np.isfinite(rows)) and rows.shape == (len(constraints), 2, 2)
    assert np.all(np.abs(rows).reshape(len(constraints), -1).max(axis=1) < 1)
    small, _ = solver_rows(EMERGING, system(8, [0, 2, 5], {}))
    for row, c in zip(small, system(8, [0, 2, 5], {})):
        z, w = np.array([float(x) for x in EMERGING[c.token]]), np.array(
            [float(a - b) for a, b in zip(EMERGING[c.attends_to], EMERGING[c.rival])])
        exact = (np.outer(z, w) + np.outer(w, z)) / 2
        assert np.allclose(row / np.abs(row).max(), exact / np.abs(exact).max())


def _program_rows(tokens: list, leaders: list[int], targets: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    constraints = system(len(tokens), leaders, targets)
    rows, _ = solver_rows(tokens, constraints)
    return rows, np.array([c.token for c in constraints], dtype=np.int64)


def test_generated_rows_reach_the_whole_programs_optimum(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(2)
    tokens = _random_tokens(rng, 40, 3)
    leaders = sorted(convex_hull_vertices(tokens))[:2]
    rows, groups = _program_rows(tokens, leaders, {})
    sizes: list[int] = []
    original = solver._clarabel_design

    def counting(coefficients: np.ndarray, *args: object) -> object:
        sizes.append(len(coefficients))
        return original(coefficients, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(solver, "_clarabel_design", counting)
    generated = solver.design_program(rows, groups=groups, solvers=("CLARABEL",))[0]
    assert sizes[0] < len(rows)  # the first round saw only some of the rows
    whole = solver.design_program(rows, solvers=("CLARABEL",))[0]
    assert sizes[-1] == len(rows)
    assert generated.status.startswith("optimal") and whole.status.startswith("optimal")
    assert generated.answer is not None and whole.answer is not None
    values = np.einsum("cij,ij->c", rows, generated.answer)
    assert values.min() >= 1 - 1e-6  # every row, not only those solved
    assert np.linalg.eigvalsh(generated.answer).min() >= 1 - 1e-6
    assert generated.objective == pytest.approx(whole.objective, rel=1e-5)
    assert generated.objective == pytest.approx(float(np.trace(generated.answer)), rel=1e-9)


def test_an_infeasible_subset_reports_the_program_infeasible() -> None:
    # Token 1 of the emerging-leader configuration lies inside the hull of the others: it cannot lead.
    rows, groups = _program_rows(list(EMERGING), [0, 1, 2], {})
    runs = solver.design_program(rows, groups=groups, solvers=("CLARABEL",))
    assert [r.status for r in runs] == ["infeasible"] and runs[0].answer is None
    assert runs[0].to_json_dict() == {"program": "design", "solver": "CLARABEL", "status": "infeasible"}


def test_close_leaders_get_equal_norms_and_an_exact_design() -> None:
    tokens = [(F(1), F(0)), (F(1), F(1, 10 ** 8)), (F(-1), F(1)), (F(0), F(-1)), (F(-1, 4), F(0))]
    assert equal_norm_pairs(tokens, [0, 1, 2]) == [(0, 1)]
    assert equal_norm_pairs(tokens, [0, 2]) == []
    decision = decide_system(tokens, [0, 1, 2], {})
    assert decision.kind == "feasible" and decision.design is not None and decision.design.check.holds
    A = decision.design.A
    norm = [sum((z[r] * A[r][c] * z[c] for r in range(2) for c in range(2)), F(0)) for z in tokens[:2]]
    assert norm[0] == norm[1]  # projected exactly onto the equality
