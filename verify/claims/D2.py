"""D2 (docs/theory.md §3): the A-norm of a token never decreases.

Certified with every token's exact squared A-norm at every layer run, where D2's proof covers
every later layer: A symmetric positive semidefinite and the rule of §1 (V = alpha I). Elsewhere
a decrease within the layers run fails it, and no decrease proves nothing about later layers.
"""

from __future__ import annotations

from verify.claims import registry
from verify.claims.run import ClaimRun, make_verdict, q, value_matrix_is_the_plain_model
from verify.claims.verdicts import Verdict
from verify.core.linalg import is_positive_semidefinite, is_symmetric_positive_definite


def check_D2(run: ClaimRun) -> Verdict:
    """D2: the A-norm of every token never decreases (A symmetric positive semidefinite, V = alpha I)."""
    norms = [[d.score(i, i) for i in range(run.n)] for d in run.data]
    spd = is_symmetric_positive_definite(run.A)
    for k in range(1, len(norms)):
        for i in range(run.n):
            if norms[k][i] < norms[k - 1][i]:
                return make_verdict("D2", "failed", f"token {i}'s squared A-norm decreases from layer {k - 1} to {k}", run,
                                layer=k, token=i, lhs=q(norms[k][i]), rhs=q(norms[k - 1][i]),
                                compared=f"||z_{i}^{k}||_A^2 vs ||z_{i}^{k - 1}||_A^2",
                                A_symmetric_positive_definite=spd)
    if not value_matrix_is_the_plain_model(run.config):
        return make_verdict("D2", "inconclusive", f"no squared A-norm decreases within layers 0..{run.last_layer}, but "
                            "D2 is proved for V = alpha I only: later layers are not decided", run)
    if not (spd or is_positive_semidefinite(run.A)):  # positive definite already decided: no second elimination
        return make_verdict("D2", "inconclusive", f"no squared A-norm decreases within layers 0..{run.last_layer}, but "
                            "D2 is proved for A symmetric positive semidefinite only: later layers are not decided", run)
    cert = {"last_layer": run.last_layer, "norms": [[q(x) for x in row] for row in norms]}
    note = "" if spd else " (A is positive semidefinite but singular: z^T A z is a seminorm)"
    return make_verdict("D2", "certified", f"squared A-norms nondecreasing over layers 0..{run.last_layer}{note}", run,
                    certificate=cert, A_symmetric_positive_definite=spd)


CLAIM = registry.register(registry.Claim(
    "D2", "the A-norm of a token never decreases", "check",
    assumption="A symmetric positive semidefinite and V = alpha I (D2's proof); otherwise only a decrease decides",
    certificate="D2", check=check_D2))
