"""The built-in conjectures of the lab (docs/theory.md §3 D4, D5, D8, D10 and §6).

Each conjecture draws :class:`~verify.core.config.Configuration` objects from a Hypothesis strategy
(family label in ``Configuration.name``) and decides them exactly:

* hardmax runs use :func:`verify.core.exact_dynamics.exact_layers` (the one exact engine);
* the theorem's claims and the fates (D7, and closed-form paths by D9) come from
  :func:`verify.claims.check_configuration` (its float cross-checks are switched off: they never decide);
* whether the attention pattern is eventually constant is decided by the D9 jump search
  (:func:`verify.core.closed_form.certify`);
* softmax uses :mod:`verify.experiments.conjectures.softmax` (arb balls, a different rule), beside
  the certified bound of docs/theory.md §6 (:func:`verify.core.softmax_bound.softmax_certificate`);
* leader control (D10) uses :mod:`verify.experiments.conjectures.leader_control`: a solver
  proposes, exact certificates decide, and an impossibility certificate is re-verified by the
  independent checker before it refutes anything.

Every predicate is exact, so the runner's re-check of a counterexample from its saved file is
the same exact computation on the reloaded numbers (the softmax one re-checks at a higher
arb precision; the D10 subset one also shrinks the impossible subset to a minimal one).
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping, Sequence

from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from verify import certcheck
from verify.claims import check_configuration, leader_layers, registry, run_configuration
from verify.core.closed_form import certify
from verify.core.config import Configuration, make_configuration
from verify.core.exact_dynamics import exact_layers, group_tokens
from verify.core.families import FAMILIES, INSIDE_FAMILIES
from verify.core.formatting import counted
from verify.core.geometry import convex_hull_vertices
from verify.core.linalg import identity, matmul, transpose
from verify.core.linalg import rank as matrix_rank
from verify.strategies import (alphas, configurations, indefinite_matrices, nonsymmetric_pd_matrices,
                          outside_configurations, spd_matrices, token_configurations)
from verify.core.numbers import InputError, rational_to_str
from verify.core.softmax_bound import SoftmaxCertificate, decimal_text, softmax_certificate
from verify.core.worked import WORKED_CONFIGURATIONS
from .base import Conjecture, Expectation, InternalError, Observation, StrategyInput
from .leader_control import all_hull_vertices_lead_together, hull_vertex_subsets_confirm, hull_vertex_subsets_realisable
from .search import Branch
from .softmax import Enclosure, compare_resolved, layer_deviations, overall_deviation

__all__ = ["BUILTIN_CONJECTURES", "get_conjecture", "claims_report"]

# Layer budgets: enough for the small sizes drawn here to settle (docs/theory.md D7: 200 random
# configurations with n <= 12 locked within 30 layers), small enough for CI on two cores.
CLAIMS_BUDGET = 60
FINITE_LAYERS = 30
SOFTMAX_LAYERS = 6
SOFTMAX_BETAS: tuple[Fraction, ...] = (Fraction(1), Fraction(10), Fraction(100), Fraction(1000))

Matrix = tuple[tuple[Fraction, ...], ...]


# --------------------------------------------------------------------------- strategies
# Built on the public strategies of verify.strategies; the lab adds the families it alone
# needs (exact-rank PSD and NSD matrices, the rank-one value matrix) and labels each draw with
# its family in Configuration.name, which the runner counts.

def _matrix(rows: Sequence[Sequence[Fraction | int]]) -> Matrix:
    return tuple(tuple(Fraction(x) for x in row) for row in rows)


@st.composite
def _low_rank(draw: st.DrawFn, d: int, rank: int, sign: int) -> Matrix:
    """sign * B B^T with B of exact rank ``rank`` (PSD for sign 1, NSD for sign -1)."""
    B = [[Fraction(draw(st.integers(-2, 2))) for _ in range(rank)] for _ in range(d)]
    assume(matrix_rank(B) == rank)
    return _matrix([[sign * x for x in row] for row in matmul(B, transpose(B))])


def _config(family: str, tokens: Iterable[Sequence[Fraction]], alpha: Fraction, A: Matrix | None = None,
            **variants: Any) -> Configuration:
    if A is not None and A == _matrix(identity(len(A))):
        A = None
    return Configuration(tokens=tuple(tuple(t) for t in tokens), alpha=alpha, A=A, outside_hypotheses=True,
                         name=family, **variants)


@st.composite
def _with_A(draw: st.DrawFn, family: str, d: int, matrices: st.SearchStrategy[Matrix], *,
            max_n: int = 6, alpha: st.SearchStrategy[Fraction] | None = None) -> Configuration:
    tokens = draw(token_configurations(min_n=2, max_n=max_n, d=d))
    return _config(family, tokens, draw(alpha if alpha is not None else alphas()), draw(matrices))


def _inside(*, max_n: int = 6, max_d: int = 3) -> st.SearchStrategy[Configuration]:
    """Inside the hypotheses, every family of verify.core.families (ties, collinear, hull edges...)."""
    return configurations(min_n=2, max_n=max_n, max_d=max_d)


@st.composite
def _rank_one_value(draw: st.DrawFn) -> Configuration:
    d = draw(st.sampled_from((1, 2, 3)))
    u = draw(st.tuples(*[st.integers(-2, 2)] * d).filter(any))
    v = draw(st.tuples(*[st.integers(-2, 2)] * d).filter(any))
    # det(I + u v^T) = 1 + v.u: the update is defined only when it is nonzero.
    assume(1 + sum(a * b for a, b in zip(u, v)) != 0)
    V = _matrix([[a * b for b in v] for a in u])
    A = draw(spd_matrices(d))
    return _config(f"rank_one_value_d{d}", draw(token_configurations(min_n=2, max_n=5, d=d)), Fraction(1), A, V=V)


def _sized(family: str, d: int, matrices: st.SearchStrategy[Matrix], *, cap: int,
           alpha: st.SearchStrategy[Fraction] | None = None) -> Branch:
    """A branch of the search (verify.experiments.conjectures.search): tokens in d dimensions with A from ``matrices``,
    n growing with the search's size level up to ``cap``."""
    return Branch(family, lambda max_n, _max_d: _with_A(family, d, matrices, max_n=max(2, min(cap, max_n)), alpha=alpha))


def _nonsym_family() -> list[SearchStrategy[Configuration] | Branch]:
    """Symmetric configurations under a non-symmetric A first (rotating polygons, cyclic simplices: docs/theory.md
    §6), then free tokens under A = S + K in d = 2, 3."""
    return [outside_configurations(("rotating_polygons", "cyclic_simplices"), min_n=2, max_n=6, min_d=2, max_d=3),
            *[_sized(f"nonsymmetric_pd_d{d}", d, nonsymmetric_pd_matrices(d), cap=6) for d in (2, 3)]]


def _psd_family(alpha: st.SearchStrategy[Fraction] | None = None) -> list[Branch]:
    return [_sized(f"psd_rank{r}_d{d}", d, _low_rank(d, r, 1), cap=5, alpha=alpha) for r in (1, 2) for d in (3, 4)]


@st.composite
def _psd_kernel_twins(draw: st.DrawFn, d: int, rank: int) -> Configuration:
    """A = B B^T of rank ``rank`` with a kernel vector k, and tokens in pairs b, b + c k.

    The two tokens of a pair have the same image under A (A-twins): for symmetric A they
    score alike against everything, so neither can ever have C_i = {i}. The plain PSD
    families reach this only by luck (a few in a thousand draws).
    """
    k = draw(st.tuples(*[st.integers(-2, 2)] * d).filter(any))
    kk = sum(x * x for x in k)
    columns = []
    for _ in range(rank):
        u = draw(st.tuples(*[st.integers(-2, 2)] * d))
        uk = sum(a * b for a, b in zip(u, k))
        columns.append([Fraction(kk * a - uk * b) for a, b in zip(u, k)])  # orthogonal to k
    B = [[columns[c][i] for c in range(rank)] for i in range(d)]
    assume(matrix_rank(B) == rank)
    A = _matrix(matmul(B, transpose(B)))
    bases = draw(token_configurations(min_n=1, max_n=3, d=d))
    tokens = []
    for base in bases:
        c = draw(st.sampled_from((Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(2))))
        tokens += [tuple(base), tuple(b + c * x for b, x in zip(base, k))]
    assume(len(set(tokens)) == len(tokens) and all(any(t) for t in tokens))
    return _config(f"psd_kernel_twins_rank{rank}_d{d}", tokens, draw(alphas()), A)


def _indefinite_family(alpha: st.SearchStrategy[Fraction] | None = None) -> list[Branch]:
    return [_sized(f"indefinite_d{d}", d, indefinite_matrices(d), cap=6, alpha=alpha) for d in (2, 3)]


def _negated(matrices: st.SearchStrategy[Matrix]) -> st.SearchStrategy[Matrix]:
    return matrices.map(lambda M: tuple(tuple(-x for x in row) for row in M))


def _nsd_family(alpha: st.SearchStrategy[Fraction] | None = None) -> list[Branch]:
    # Negative definite (-SPD) and singular negative semidefinite (-PSD of rank < d).
    return [*[_sized(f"negative_definite_d{d}", d, _negated(spd_matrices(d)), cap=6, alpha=alpha) for d in (1, 2, 3)],
            *[_sized(f"nsd_rank{r}_d{d}", d, _low_rank(d, r, -1), cap=6, alpha=alpha) for d in (2, 3) for r in range(1, d)]]


def _outside(kind: str) -> st.SearchStrategy[Configuration]:
    return outside_configurations(kind, min_n=2, max_n=6)


@st.composite
def _symmetric_with_origin(draw: st.DrawFn) -> Configuration:
    """Tokens +-v plus the origin: the mean stays 0 by symmetry, so the origin token never moves (docs/theory.md D4)."""
    d = draw(st.integers(1, 3))
    half = draw(token_configurations(min_n=1, max_n=3, d=d))
    tokens = list(dict.fromkeys([*half, *(tuple(-x for x in v) for v in half)]))
    tokens.insert(draw(st.integers(0, len(tokens))), tuple(Fraction(0) for _ in range(d)))
    return _config(f"origin_symmetric_d{d}", tokens, draw(alphas()), draw(spd_matrices(d)))


# --------------------------------------------------------------------------- exact helpers

def claims_report(config: Configuration, *, layer_budget: int = CLAIMS_BUDGET) -> dict[str, Any]:
    """The claim report of :func:`verify.claims.check_configuration` as JSON (float cross-checks off: they never decide)."""
    return check_configuration(config, layer_budget=layer_budget, cross_check=False).to_json_dict()


def _fates(config: Configuration, budget: int) -> tuple[str, dict[str, Any]]:
    """('settled', report) when every token has a fate (verify.claims: D7, or a closed-form path by D9)
    within the budget, else the reason."""
    report = claims_report(config, layer_budget=budget)
    if report.get("settled_layer") is None:
        return (f"not every token has a fate (leader, fixed or locked by D7, or a closed-form path by D9) within "
                f"{budget} layers", report)
    return "settled", report


def _leads(fate: Mapping[str, Any]) -> bool:
    """A leader fate, or a closed-form path whose final set is the token itself (it leads from some layer on)."""
    return fate["kind"] == "leader" or (fate["kind"] == "path" and fate["set"] == [fate["token"]])


def _claims_of_role(role: registry.Role) -> tuple[str, ...]:
    """The registry's claim checks of ``role``: "theorem" (T0..T4), "engine" (the replay)."""
    return tuple(claim.id for claim in registry.claims("check") if claim.role == role)


def no_leader_certificate(config: Configuration, budget: int) -> dict[str, Any] | None:
    """An exact proof that no token is ever a leader (T0 false) beyond the claim checks' own, or None.

    The claim checks already prove it when the layers repeat up to a similarity (docs/theory.md
    D11: T0 fails with the certificate). Two more finite certificates, each checked on the exact
    layers 0..k, none of which has a leader:

    * *all merged*: at layer k every position is shared by two or more tokens. Equal tokens
      stay equal and always tie (D5 holds for every A), so no C_i = {i} ever again.
    * *A-twins* (A symmetric, no value matrix): at layer k every token i has a twin j != i with
      A z_i = A z_j. Twins have equal score rows, hence equal attention sets and means, so
      A(z_i - z_j) shrinks by 1/(1+alpha) and stays 0: twins forever. And
      <A z_i, z_j> = <z_i, A z_j> = <A z_i, z_i>, so j ties with i in row i: C_i != {i}.
      (Duplicates, D5, are the case A = I.)
    """
    A = config.A_matrix
    symmetric = config.V is None and all(A[r][c] == A[c][r] for r in range(config.d) for c in range(config.d))
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A, V=config.V):
        if layer.leaders():
            return None
        positions = layer.positions()
        counts = Counter(positions)
        if config.n >= 2 and all(c >= 2 for c in counts.values()):
            return {"kind": "all merged", "layer": layer.index,
                    "positions": [[rational_to_str(x) for x in p] for p in positions]}
        if symmetric and config.n >= 2:
            images = Counter(tuple(sum((A[r][c] * p[c] for c in range(config.d)), Fraction(0)) for r in range(config.d))
                             for p in positions)
            if all(count >= 2 for count in images.values()):
                return {"kind": "A-twins", "layer": layer.index,
                        "positions": [[rational_to_str(x) for x in p] for p in positions]}
        if layer.index >= budget:
            return None
    raise AssertionError("unreachable")


def _similarity_rechecked(report: Mapping[str, Any]) -> None:
    """A T0 refuted by a similarity certificate (docs/theory.md D11) is re-verified by the independent checker first.

    The claim checks found and checked the certificate; the checker (verify/certcheck) re-derives the
    layers and checks it again with its own arithmetic. A disagreement is a bug of the suite.
    """
    outcome = next((o for o in certcheck.check_report(copy.deepcopy(dict(report))).outcomes
                    if o.claim == "T0"), None)
    if outcome is None or outcome.status != "failed" or not outcome.reason.startswith(certcheck.SIMILARITY_VERIFIED):
        raise InternalError("the independent checker does not re-verify the similarity certificate of T0: "
                            + (outcome.reason if outcome is not None else "no T0 outcome"))


def _theorem_claims(budget: int = CLAIMS_BUDGET) -> Callable[[Configuration], Observation]:
    """T0..T4 decide; the derived facts D1..D3 (proved for A SPD only) are recorded, not decisive.

    A failed one-step replay would be an engine defect and is reported as a failure too.
    """
    def predicate(config: Configuration) -> Observation:
        groups = group_tokens(config.tokens)
        if all(len(m) > 1 for m in groups.members):
            # D5: equal tokens stay equal and tie forever, so no token ever has C_i = {i}.
            return Observation.failed(
                "T0: every token is duplicated (groups " + ", ".join(str(list(m)) for m in groups.members)
                + "); by D5 duplicates stay equal and always tie, so no token ever has C_i = {i}: no leader",
                evidence={"claim": "T0", "duplicate_groups": [list(m) for m in groups.members]},
                failed_claims="T0")
        report = claims_report(config, layer_budget=budget)
        verdicts = report["verdicts"]
        theorem, engine = _claims_of_role("theorem"), _claims_of_role("engine")
        facts_failed = sorted(cid for cid, v in verdicts.items() if cid not in theorem and cid not in engine
                              and v["status"] == "failed")
        extra = {"derived_facts_failed": ", ".join(facts_failed) or "none"}
        failed = sorted(cid for cid in (*theorem, *engine) if verdicts[cid]["status"] == "failed")
        if "similarity" in verdicts["T0"].get("evidence", {}) and verdicts["T0"]["status"] == "failed":
            _similarity_rechecked(report)
        if failed:
            summary = "; ".join(f"{cid}: {verdicts[cid]['summary']}" for cid in failed)
            return Observation.failed(summary, evidence={cid: verdicts[cid].get("evidence", {}) for cid in failed},
                                      failed_claims=", ".join(failed), **extra)
        open_claims = sorted(cid for cid in theorem if verdicts[cid]["status"] == "inconclusive")
        if "T0" in open_claims:
            certificate = no_leader_certificate(config, budget)
            if certificate is not None:
                where = certificate["layer"]
                how = {"all merged": "every position is shared by two or more tokens (D5)",
                       "A-twins": "every token has a twin with the same image under the symmetric A, and twins "
                                  "tie with each other forever"}[certificate["kind"]]
                return Observation.failed(f"T0: no token leads at layers 0..{where} and {how}, so no token is ever "
                                          "a leader", evidence={"claim": "T0", "certificate": certificate},
                                          failed_claims="T0", **extra)
        if open_claims:
            return Observation.undecided(f"{', '.join(open_claims)} inconclusive within {budget} layers", **extra)
        return Observation.held("T0..T4 certified", settled_layer=report.get("settled_layer"), **extra)
    return predicate


def _leader_emergence(config: Configuration) -> Observation:
    run = run_configuration(config, layer_budget=CLAIMS_BUDGET)
    leaders = leader_layers(run)
    if leaders is None or not leaders:
        return Observation.undecided(f"not every token has a fate (D7, or a closed-form path by D9) within "
                                     f"{CLAIMS_BUDGET} layers")
    last = max(leaders.values())
    return Observation.held(f"final leader set {sorted(leaders)} complete at layer {last}",
                            last_leader_layer=last, leaders=len(leaders))


def _settling(config: Configuration) -> Observation:
    status, report = _fates(config, CLAIMS_BUDGET)
    if status != "settled":
        return Observation.undecided(status)
    kinds = [f["kind"] for f in report["fates"]]
    return Observation.held(f"every token has a fate by layer {report['settled_layer']}",
                            settled_layer=report["settled_layer"], locked=kinds.count("locked"),
                            fixed=kinds.count("fixed"), leaders=kinds.count("leader"), paths=kinds.count("path"))


def ends_at_leader_or_tie(fates: Sequence[Mapping[str, Any]]) -> Observation:
    """Decide the statement from a complete list of D7 fates (entries of the claim report).

    A leader ends at itself; a fixed token (C = G u {i} forever) or a token locked onto |F| > 1
    ends on a persistent tie; a token locked onto a single token must be locked onto a leader.
    """
    kind = {f["token"]: ("leader" if _leads(f) else f["kind"]) for f in fates}
    ties = 0
    for fate in fates:
        members = fate["set"]
        if fate["kind"] == "path":
            # D9: the final set is kept for ever: itself (a leader), two or more tokens (a persistent
            # tie), or one other token, which must then be a leader.
            if len(members) > 1:
                ties += 1
            elif members != [fate["token"]] and kind[members[0]] != "leader":
                return Observation.failed(
                    f"token {fate['token']} follows a closed-form path attending for ever to the single non-leader "
                    f"token {members[0]} without a tie of its own", evidence={"fate": dict(fate)})
        elif fate["kind"] == "fixed" or (fate["kind"] == "locked" and len(members) > 1):
            ties += 1
        elif fate["kind"] == "locked" and kind[members[0]] != "leader":
            return Observation.failed(
                f"token {fate['token']} locks at layer {fate['layer']} onto the single non-leader "
                f"token {members[0]} (a {kind[members[0]]} token) without a tie of its own",
                evidence={"fate": dict(fate)})
        elif fate["kind"] not in ("leader", "locked"):
            return Observation.undecided(f"token {fate['token']} has no D7 fate")
    return Observation.held(f"{ties} tokens end on a persistent tie, the others at leaders", persistent_ties=ties)


def _leader_or_tie(config: Configuration) -> Observation:
    status, report = _fates(config, CLAIMS_BUDGET)
    if status != "settled":
        return Observation.undecided(status)
    return ends_at_leader_or_tie(report["fates"])


def _leaders_vs_hull(config: Configuration) -> Observation:
    status, report = _fates(config, CLAIMS_BUDGET)
    if status != "settled":
        return Observation.undecided(status)
    leaders = sorted(f["token"] for f in report["fates"] if _leads(f))
    vertices = convex_hull_vertices(config.tokens)
    evidence = {"leaders": leaders, "initial_hull_vertices": vertices, "settled_layer": report["settled_layer"]}
    if len(leaders) != len(vertices):
        return Observation.failed(
            f"{counted(len(leaders), 'leader')} {leaders} (final: every token has a D7 fate by layer "
            f"{report['settled_layer']}) but {counted(len(vertices), 'vertex', 'vertices')} {vertices} of the initial hull",
            evidence=evidence,
            leaders=len(leaders), hull_vertices=len(vertices))
    return Observation.held("equal counts", leaders=len(leaders), hull_vertices=len(vertices))


def _pattern_settles(config: Configuration) -> Observation:
    """docs/theory.md §6 by the D9 jump search from layer 0: held with the layer from which every attention
    set is constant; a chain left unsettled by a budget is a candidate, never a refutation."""
    chain = certify(config.tokens, alpha=config.alpha, A=config.A)
    if not chain.certified:
        return Observation.undecided(f"candidate for docs/theory.md §6 (attention pattern not shown constant): {chain.reason}",
                                     searched_to_layer=chain.layer)
    return Observation.held(f"every attention set is constant from layer {chain.layer} on ({counted(chain.jumps, 'jump')})",
                            settling_layer=chain.layer, jumps=chain.jumps)


# docs/theory.md D9: the five-token example that refutes "every token becomes a leader, fixed or locked".
D9_C = Fraction(-7, 8)
D9_EXAMPLE = make_configuration([[D9_C, Fraction(-1, 2)], [D9_C, Fraction(1, 2)], [D9_C, 0], [D9_C, Fraction(1, 4)],
                                 [D9_C, Fraction(-1, 4)]], alpha="1/2", name="theory_D9_example")


def _no_merge(config: Configuration) -> Observation:
    """D8 over the first FINITE_LAYERS layers: distinct points never become equal (exact)."""
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A_matrix, V=config.V):
        seen: dict[tuple[int, ...], int] = {}
        for u, row in enumerate(layer.numerators):
            if row in seen:
                i, j = layer.groups.members[seen[row]][0], layer.groups.members[u][0]
                point = [rational_to_str(x) for x in layer.point(u)]
                return Observation.failed(
                    f"distinct tokens {i} and {j} merge at layer {layer.index} at ({', '.join(point)})",
                    evidence={"tokens": [i, j], "layer": layer.index, "position": point}, merge_layer=layer.index)
            seen[row] = u
        if layer.index == FINITE_LAYERS:
            return Observation.held(f"no merge within {FINITE_LAYERS} layers")
    raise AssertionError("unreachable")  # exact_layers never ends


def _value_matrix_facts(config: Configuration) -> Observation:
    """D2 and D3 for the rank-one value matrix, over the first FINITE_LAYERS layers (exact)."""
    A = config.A_matrix
    previous = None
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A, V=config.V):
        positions = layer.positions()
        norms = [sum(z[r] * A[r][c] * z[c] for r in range(config.d) for c in range(config.d)) for z in positions]
        if previous is not None:
            prev_norms, prev_leaders = previous
            for i, (old, new) in enumerate(zip(prev_norms, norms)):
                if new < old:
                    return Observation.failed(
                        f"D2 fails: ||z_{i}||_A^2 drops from {rational_to_str(old)} at layer {layer.index - 1} "
                        f"to {rational_to_str(new)} at layer {layer.index}",
                        evidence={"claim": "D2", "token": i, "layer": layer.index,
                                  "before": rational_to_str(old), "after": rational_to_str(new)})
            current = layer.attention_sets()
            for i in prev_leaders:
                if current[i] != frozenset({i}):
                    return Observation.failed(
                        f"D3 fails: token {i} leads at layer {layer.index - 1} but C_{i} = {sorted(current[i])} "
                        f"at layer {layer.index}",
                        evidence={"claim": "D3", "token": i, "layer": layer.index, "attention": sorted(current[i])})
        if layer.index == FINITE_LAYERS:
            return Observation.held(f"D2 and D3 hold over {FINITE_LAYERS} layers")
        previous = (norms, layer.leaders())
    raise AssertionError("unreachable")


def _float_above(x: Fraction) -> float:
    """The smallest float >= x, so that a stored upper bound stays an upper bound (no underflow to 0)."""
    value = float(x)
    return value if Fraction(value) >= x else math.nextafter(value, math.inf)


def _certificates(config: Configuration, layers: int) -> dict[Fraction, SoftmaxCertificate]:
    """The certified bound of docs/theory.md §6 for each beta of the grid (exact hardmax margins; no softmax run)."""
    return {b: softmax_certificate(config.tokens, alpha=config.alpha, beta=b, layers=layers, A=config.A)
            for b in SOFTMAX_BETAS}


def _certified(config: Configuration, layers: int, precision: int,
               certificates: Mapping[Fraction, SoftmaxCertificate]
               ) -> tuple[dict[Fraction, Enclosure], dict[str, Any], dict[str, Any]]:
    """Per beta: the measured deviation over layers 0..K, checked against the certified bound at every layer the
    bound reaches (a measured deviation above it raises InternalError; where the balls at ``precision`` straddle
    eps_k the comparison is redone finer, up to 8192 bits); the measurements and evidence of both."""
    enclosures: dict[Fraction, Enclosure] = {}
    measurements: dict[str, Any] = {}
    evidence: dict[str, Any] = {}
    for b in SOFTMAX_BETAS:
        deviations = layer_deviations(config.tokens, alpha=config.alpha, beta=b, A=config.A, layers=layers,
                                      precision=precision)
        comparison = compare_resolved(config.tokens, alpha=config.alpha, beta=b, A=config.A, layers=layers,
                                      certificate=certificates[b], deviations=deviations, precision=precision)
        enclosures[b] = overall_deviation(deviations)
        measurements[f"deviation_upper_beta_{b}"] = _float_above(enclosures[b].upper)
        measurements[f"certified_bound_beta_{b}"] = (_float_above(comparison.bound) if comparison.certificate.holds
                                                     else None)
        measurements[f"certified_through_beta_{b}"] = comparison.certificate.certified_through
        evidence[f"beta={b}"] = {**enclosures[b].to_json_dict(), "certified_bound": comparison.to_json_dict()}
    return enclosures, measurements, evidence


def _softmax_decision(config: Configuration, layers: int, precision: int,
                      certificates: Mapping[Fraction, SoftmaxCertificate]) -> Observation:
    enclosures, measurements, evidence = _certified(config, layers, precision, certificates)
    evidence["precision_bits"] = precision
    for b1, b2 in zip(SOFTMAX_BETAS, SOFTMAX_BETAS[1:]):
        e1, e2 = enclosures[b1], enclosures[b2]
        if e2.certainly_greater(e1):
            return Observation("failed",
                               f"the deviation over {layers} layers grows from at most {float(e1.upper):.6g} "
                               f"(beta={b1}) to at least {float(e2.lower):.6g} (beta={b2}) (arb enclosures)",
                               measurements, evidence)
        if e2.upper > e1.lower:
            return Observation("undecided", "arb enclosures of consecutive deviations overlap", measurements, evidence)
    return Observation("held", "deviation decreases along the beta grid", measurements, evidence)


def _softmax_check(precision: int, max_precision: int = 8192) -> Callable[[Configuration], Observation]:
    """Decide with arb balls, raising the precision while two enclosures overlap.

    The softmax deviation at beta = 1000 can be as small as exp(-1000 * gap); resolving it
    against the positions needs about beta * gap / ln 2 bits, so the precision adapts. At every
    precision the measured deviation is checked against the certified bound of docs/theory.md §6
    wherever that bound holds (the evidence quotes it per beta, or says where it stops).
    """
    def predicate(config: Configuration) -> Observation:
        layers = int(config.extra.get("layers", SOFTMAX_LAYERS))
        certificates = _certificates(config, layers)
        bits = precision
        while True:
            observation = _softmax_decision(config, layers, bits, certificates)
            if observation.status != "undecided" or bits >= max_precision:
                return observation
            bits *= 4
    return predicate


def _softmax_measure(config: Configuration) -> Observation:
    """Rigorous upper bounds of the largest deviation, one per beta of the grid (a measurement), beside the certified
    bound eps_K(beta) of docs/theory.md §6 where it holds (and the layer it reaches)."""
    layers = int(config.extra.get("layers", SOFTMAX_LAYERS))
    certificates = _certificates(config, layers)
    _, measurements, _ = _certified(config, layers, 256, certificates)
    reached = ", ".join(f"beta={b}: " + (f"eps_{layers} <= {decimal_text(c.records[-1].bound, rounding='up')}" if c.holds
                                         else f"stops at layer {c.certified_through}")
                        for b, c in certificates.items())
    return Observation.held(f"deviation bounds over {layers} layers; certified bound {reached}", **measurements)


SOFTMAX_MAX_N, SOFTMAX_MAX_D = 4, 2


def _as_softmax(config: Configuration) -> Configuration:
    """The same tokens, alpha and A under softmax attention (beta of the grid's end; the deviation runs the grid)."""
    return replace(config, beta=SOFTMAX_BETAS[-1], outside_hypotheses=True, extra={"layers": SOFTMAX_LAYERS})


def _softmax_family() -> list[Branch]:
    """Every family of verify.core.families inside the hypotheses (near-origin tokens, ties, spheres...), n <= 4, d <= 2,
    turned into softmax configurations: the search rotates through them like any other."""
    def branch(family: str) -> Branch:
        return Branch(family, lambda max_n, max_d: configurations(
            family=family, min_n=2, max_n=min(SOFTMAX_MAX_N, max_n), max_d=min(SOFTMAX_MAX_D, max_d)).map(_as_softmax))
    return [branch(family) for family in INSIDE_FAMILIES
            if FAMILIES[family].min_n <= SOFTMAX_MAX_N and FAMILIES[family].min_d <= SOFTMAX_MAX_D]


# --------------------------------------------------------------------------- registry

def _claims_conjecture(name: str, family: str, strategy: StrategyInput, families: tuple[str, ...],
                       expected: Expectation) -> Conjecture:
    return Conjecture(
        name=name,
        statement=f"The theorem's claims T0..T4 hold {family}.",
        strategy=strategy, predicate=_theorem_claims(), families=families, expected=expected,
        scope=f"verify.claims.check_configuration with a {CLAIMS_BUDGET}-layer budget; a claim not decided "
              "within it makes the example undecided (never held). Failures of the derived facts D1..D3 "
              "(proved for A SPD only) are counted in the measurement derived_facts_failed, not as refutations.",
    )


def _worked() -> tuple[Configuration, ...]:
    """The paper's worked configurations (docs/theory.md §4), tried first by the measurement conjectures."""

    return tuple(replace(c, name=f"worked_{name}") for name, c in WORKED_CONFIGURATIONS.items())


# Leader control (D10): one semidefinite program per example (about 0.05-2 s); n <= 8 keeps a search of
# a thousand examples within minutes.
D10_MAX_N = 8

# Two tokens attending to each other merge exactly when alpha = 1 ((z + w)/2 both), so the D8
# search weights alpha = 1 alongside two other values.
MERGE_ALPHAS = st.sampled_from((Fraction(1), Fraction(1, 2), Fraction(2)))


def _build() -> dict[str, Conjecture]:
    conjectures = [
        _claims_conjecture("theorem_nonsymmetric_pd", "for A positive definite but not symmetric (x^T A x > 0)",
                           _nonsym_family(), ("rotating_polygons", "cyclic_simplices", "nonsymmetric_pd_d2",
                                              "nonsymmetric_pd_d3"), expected="refuted"),
        _claims_conjecture("theorem_psd_low_rank", "for A positive semidefinite of rank 1 or 2 in d = 3, 4",
                           [*_psd_family(), *[_psd_kernel_twins(d, r) for r in (1, 2) for d in (3, 4)]],
                           (*(f"psd_rank{r}_d{d}" for r in (1, 2) for d in (3, 4)), "psd_kernel_twins_rank{1,2}_d{3,4}"),
                           expected="refuted"),
        _claims_conjecture("theorem_indefinite", "for A indefinite (docs/theory.md §6: [FW] does not transfer)",
                           _indefinite_family(), ("indefinite_d2", "indefinite_d3"), expected="refuted"),
        _claims_conjecture("theorem_negative_semidefinite", "for A negative semidefinite (docs/theory.md §6)",
                           _nsd_family(), ("negative_definite_d{1,2,3}", "nsd_rank{r}_d{2,3}"), expected="refuted"),
        _claims_conjecture("theorem_duplicate_tokens", "when some tokens are duplicated (docs/theory.md D5)",
                           _outside("duplicates"), ("duplicates",), expected="refuted"),
        _claims_conjecture("theorem_origin_token", "when one token is the origin (docs/theory.md D4)",
                           [_outside("origin_token"), _symmetric_with_origin()],
                           ("origin_token", "origin_symmetric_d{1,2,3}"), expected="refuted"),
        Conjecture(
            name="value_matrix_rank_one",
            statement="With the value matrix V = u v^T, z -> (I + V)^{-1}(z + V mean_{C_i} z_j), the facts D2 "
                      "(A-norm never decreases) and D3 (a leader stays a fixed leader) survive.",
            strategy=_rank_one_value(), predicate=_value_matrix_facts, families=("rank_one_value",),
            scope=f"u, v integer in [-2, 2]^d, 1 + v.u != 0, A = I or SPD, exact, first {FINITE_LAYERS} layers.",
            expected="refuted",
        ),
        Conjecture(
            name="ends_at_leader_or_tie",
            statement="Every token ends at a leader unless a tie persists (its attention set stays a fixed set of "
                      "two or more tokens forever).",
            strategy=_inside(), predicate=_leader_or_tie, families=("every family of verify.core.families inside the hypotheses",), expected="held",
            scope=f"Inside the hypotheses; decided by the D7 fates of verify.claims within {CLAIMS_BUDGET} layers.",
        ),
        Conjecture(
            name="leaders_equal_hull_vertices",
            statement="The number of leaders equals the number of vertices of the initial convex hull.",
            strategy=_inside(), predicate=_leaders_vs_hull, families=("every family of verify.core.families inside the hypotheses",),
            expected="refuted",
            scope=f"Inside the hypotheses; the final leader set from D7 fates within {CLAIMS_BUDGET} layers; "
                  "hull vertices exactly by pycddlib (gmp).",
        ),
        Conjecture(
            name="leader_emergence_layer",
            statement="Measurement: the layer by which every leader has emerged, against n, d, alpha "
                      "(held = measured exactly on every example).",
            strategy=_inside(max_n=8), predicate=_leader_emergence, families=("every family of verify.core.families inside the hypotheses",),
            kind="measurement", target="last_leader_layer", explicit=_worked(), expected="held",
            scope=f"Final leader set certified by D7 fates within {CLAIMS_BUDGET} layers; Hypothesis targets the "
                  "largest layer.",
        ),
        Conjecture(
            name="every_token_settles",
            statement="Every token gets a certified fate: it becomes a leader, fixed or locked (docs/theory.md D7), or "
                      "follows a closed-form path that keeps its attention set for ever (D9); measurement: the layer "
                      "by which that happens, against n, d, alpha. As first stated (leader, fixed or locked only) "
                      "it is false: in the five-token example of docs/theory.md D9, (c, -1/2), (c, 1/2), (c, 0), "
                      "(c, 1/4), (c, -1/4) with c = -7/8, alpha = 1/2, A = I, the token (c, 0) ties with all five "
                      "for ever and never moves, yet is neither fixed nor locked.",
            strategy=_inside(max_n=8), predicate=_settling, families=("every family of verify.core.families inside the hypotheses",),
            kind="measurement", target="settled_layer", expected="held", explicit=(D9_EXAMPLE, *_worked()),
            scope=f"Fates of verify.claims within {CLAIMS_BUDGET} layers (D7, then the D9 closed form once D7 stops "
                  "progressing); Hypothesis targets the largest layer; the D9 example is tried first.",
        ),
        Conjecture(
            name="attention_pattern_eventually_constant",
            statement="The attention pattern of every configuration inside the hypotheses is eventually constant "
                      "(docs/theory.md §6); measurement: the layer from which every attention set is constant.",
            strategy=_inside(max_n=8), predicate=_pattern_settles,
            families=("every family of verify.core.families inside the hypotheses",),
            kind="measurement", target="settling_layer", expected="held", explicit=(D9_EXAMPLE, *_worked()),
            scope="Decided by the D9 jump search from layer 0 (verify.core.closed_form.certify, its default segment, layer "
                  "and threshold budgets): a certified chain proves the pattern constant from its final layer on. "
                  "A configuration the search leaves unsettled is a candidate for the open question (undecided), "
                  "never a refutation. Hypothesis targets the largest settling layer.",
        ),
        Conjecture(
            name="d8_beyond_pd",
            statement="D8 beyond positive definite A: two distinct tokens never merge, for A positive "
                      "semidefinite of low rank, indefinite or negative semidefinite.",
            strategy=[*_psd_family(MERGE_ALPHAS), *_indefinite_family(MERGE_ALPHAS), *_nsd_family(MERGE_ALPHAS)],
            predicate=_no_merge,
            families=("psd_rank{1,2}_d{3,4}", "indefinite_d{2,3}", "negative_definite_d{1,2,3}", "nsd_rank{r}_d{2,3}"), expected="refuted",
            scope=f"Exact, first {FINITE_LAYERS} layers (a merge is final: merged tokens stay equal, D5); "
                  "alpha in {1, 1/2, 2}.",
        ),
        Conjecture(
            name="hull_vertex_subsets_realisable",
            statement="Every subset of the vertices of the tokens' convex hull is realisable at layer 0: for each "
                      "set L of hull vertices some symmetric positive definite A makes every token of L lead at "
                      "layer 0 (docs/theory.md D10).",
            strategy=_inside(max_n=D10_MAX_N), predicate=hull_vertex_subsets_realisable,
            confirm=hull_vertex_subsets_confirm,
            families=("every family of verify.core.families inside the hypotheses",), expected="refuted",
            scope=f"Inside the hypotheses, n <= {D10_MAX_N}, d <= 3; the configuration's own A plays no part. One "
                  "layer-0 system per configuration decides every subset at once (the realisable sets are closed "
                  "under subsets; a certificate for a subset is one for every superset): all hull vertices "
                  "(verify.experiments.control.realisable, a solver proposing and exact checks deciding). Refuted "
                  "only by an exact impossibility certificate that the independent checker "
                  "(verify/certcheck/control/) re-verifies; the re-check shrinks the impossible subset to a minimal "
                  "one (one system per vertex). Neither certificate found: undecided.",
        ),
        Conjecture(
            name="all_hull_vertices_lead_together",
            statement="All the vertices of the tokens' convex hull can lead together: some symmetric positive "
                      "definite A makes every hull vertex lead at layer 0 (docs/theory.md D10).",
            strategy=_inside(max_n=D10_MAX_N), predicate=all_hull_vertices_lead_together,
            families=("every family of verify.core.families inside the hypotheses",), expected="refuted",
            scope=f"Inside the hypotheses, n <= {D10_MAX_N}, d <= 3; the configuration's own A plays no part. One "
                  "layer-0 system per configuration (verify.experiments.control.realisable on the hull vertices); "
                  "refuted only by an exact impossibility certificate that the independent checker "
                  "(verify/certcheck/control/) re-verifies. For one configuration this says the same as "
                  "hull_vertex_subsets_realisable. Neither certificate found: undecided.",
        ),
        Conjecture(
            name="softmax_tracks_hardmax",
            statement="Softmax attention at inverse temperature beta tracks the hardmax trajectory better as beta "
                      "grows: the largest deviation over K layers does not increase along beta = 1, 10, 100, 1000.",
            strategy=_softmax_family(), predicate=_softmax_check(128), confirm=_softmax_check(512, 32768),
            families=("every family of verify.core.families inside the hypotheses",), kind="claim", expected="refuted",
            scope=f"K = {SOFTMAX_LAYERS} layers, d <= 2, n <= 4; softmax in arb balls (128 bits raised up to 8192 while "
                  "enclosures overlap; re-checked from 512 bits), hardmax exact; a comparison whose enclosures overlap is "
                  "undecided. Per beta, the evidence quotes the certified bound of docs/theory.md §6 "
                  "(verify.core.softmax_bound: deviation <= eps_k through layer k) or where it stops; a measured "
                  "deviation certainly above a certified bound is an internal error (exit 4), never a counterexample.",
        ),
        Conjecture(
            name="softmax_deviation_vs_beta",
            statement="Measurement: the largest deviation between softmax attention at inverse temperature beta and "
                      f"the hardmax trajectory over K = {SOFTMAX_LAYERS} layers, for beta = 1, 10, 100, 1000, beside the "
                      "certified bound eps_K(beta) of docs/theory.md §6 where it holds and the layer it reaches.",
            strategy=_softmax_family(), predicate=_softmax_measure, kind="measurement",
            target=f"deviation_upper_beta_{SOFTMAX_BETAS[-1]}",
            families=("every family of verify.core.families inside the hypotheses",), expected="held",
            scope="Upper ends of arb enclosures (256 bits) rounded up to a float; hardmax exact; d <= 2, n <= 4. "
                  "certified_bound_beta_B: eps_K of verify.core.softmax_bound rounded up to a float, where the bound "
                  "reaches layer K; certified_through_beta_B: the layer it reaches. Every measured deviation is "
                  "checked against it (one above it is an internal error, exit 4).",
        ),
    ]
    return {c.name: c for c in conjectures}


BUILTIN_CONJECTURES: dict[str, Conjecture] = _build()


def get_conjecture(name: str) -> Conjecture:
    try:
        return BUILTIN_CONJECTURES[name]
    except KeyError:
        raise InputError("conjecture", f"unknown conjecture {name!r}; `hardmax-verify conjecture list` shows the "
                                       "built-in ones, or pass a .py file") from None
