"""T0 (docs/theory.md §2): the set of leaders is nonempty; D0: already at layer 0, a token of largest A-norm leads.

Outside the hypotheses T0 can fail: a run with no leader whose layers repeat up to a similarity
(docs/theory.md D11) has no leader at any layer; the failed verdict carries that certificate.

Certified with the first layer at which some token has C_i = {i} and those tokens (with their
positions when the run is small); within the hypotheses, a token of largest A-norm must lead at
layer 0 (D0), and a failure names it with the two exact scores compared.
"""

from __future__ import annotations

from typing import Any

from verify.claims import registry
from verify.claims.run import ClaimRun, first_leading, make_verdict, named_tokens, q, similarity_evidence
from verify.core.formatting import counted
from verify.claims.verdicts import Verdict


# ---------------------------------------------------------------------------------------------
# The claims


def check_T0(run: ClaimRun) -> Verdict:
    """T0: the set of leaders is nonempty (D0: already at layer 0, the token of largest A-norm)."""
    first = first_leading(run)
    if not first and run.similarity is not None:
        # D11: no leader at layers 0..k+p-1 and Z^{k+p} = M P Z^k with M^T A M = s A, so none at any layer.
        sim = run.similarity
        layers = "layer 0" if sim.end == 1 else f"layers 0..{sim.end - 1}"
        return make_verdict("T0", "failed", f"no token is ever a leader: none at {layers} and "
                            f"{sim.describe()}, so the attention pattern repeats for ever", run,
                            **similarity_evidence(run))
    if not first:
        return make_verdict("T0", "inconclusive", f"no token satisfies C_i = {{i}} within layers 0..{run.last_layer}", run)
    k = min(first.values())
    leaders = sorted(i for i, layer in first.items() if layer == k)
    d0 = run.data[0]
    norms = [d0.score(i, i) for i in range(run.n)]
    top = max(norms)
    biggest = [i for i in range(run.n) if norms[i] == top]
    evidence: dict[str, Any] = {"first_layer": k, "leaders": leaders, "largest_A_norm_tokens": biggest,
                                "largest_A_norm_squared": q(top)}
    if not run.outside:
        # D0 (a proven fact under the hypotheses): a token of largest A-norm leads at layer 0.
        if k != 0 or not any(i in leaders for i in biggest):
            i = biggest[0]
            C = sorted(d0.attention[i])
            j = next((j for j in C if j != i), i)
            detail: dict[str, Any] = {"token": i, "attention": C, "lhs": q(d0.score(i, j)), "rhs": q(d0.score(i, i)),
                      "compared": f"<A z_{i}, z_{j}> vs <A z_{i}, z_{i}> at layer 0"}
            return make_verdict("T0", "failed", f"D0 violated: token {i} of largest A-norm does not lead at layer 0",
                            run, **evidence, **detail)
    cert = {"layer": k, "leaders": leaders}
    lp = run.layer_positions([k])
    if lp is not None:
        cert["layer_positions"] = lp
    return make_verdict("T0", "certified", f"{counted(len(leaders), 'leader')} at layer {k}: {named_tokens(leaders)}", run,
                    certificate=cert, **evidence)


CLAIM = registry.register(registry.Claim(
    "T0", "the set of leaders is nonempty", "check", role="theorem",
    assumption="none (exact scores at the certificate's layer)", certificate="T0", check=check_T0))
