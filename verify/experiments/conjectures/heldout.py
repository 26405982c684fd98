"""Held-out statements: false statements written, with a counterexample found by hand, before the lab searched them.

The catalogue (:mod:`verify.experiments.conjectures.catalogue`) was written alongside the
families the search draws from, so refuting it measures the families on statements they were
built for. These statements were written the other way round: each is what a researcher might
plausibly guess, stated with the public API as a user would write it (the strategies of
:mod:`verify.strategies`, the exact runs of :mod:`verify.claims`, :func:`verify.core.closed_form.certify`,
no hint about where it fails), each paired with a counterexample found by hand and checked
exactly (``KNOWN``; ``tests/unit/test_heldout.py`` re-checks every one), and committed before
the lab's search was run on any of them. The repository's history is the record of that order.
How many of them the default search refutes, in how many examples and seconds, is the held-out
part of the power table (``bench/conjecture_power.py``, docs/conjectures.md, the report).

The statements are never changed to suit the search: a statement the search fails to refute
stays in the table as a miss, with the blind spot it shows listed in docs/conjectures.md.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from hypothesis import assume
from hypothesis import strategies as st

from verify.claims import check_configuration, run_configuration
from verify.core.closed_form import certify
from verify.core.config import Configuration, make_configuration, parse_configuration
from verify.core.exact_dynamics import exact_layers
from verify.core.geometry import convex_hull_vertices, point_in_hull_weights
from verify.strategies import configurations, outside_configurations, spd_matrices, token_configurations, vectors
from .base import Conjecture, Observation

__all__ = ["HELD_OUT", "KNOWN", "get_held_out"]

LAYER_BUDGET = 60   # exact layers for the fates (verify.claims); an example that does not settle is undecided
FINITE_LAYERS = 30  # layers of a finite-horizon statement


def _norm_never_decreases(config: Configuration) -> Observation:
    """The A-norm x^T A x of every token never decreases over the first FINITE_LAYERS layers (D2 beyond symmetric A)."""
    A = config.A_matrix
    previous = None
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A):
        norms = [sum(z[r] * A[r][c] * z[c] for r in range(config.d) for c in range(config.d)) for z in layer.positions()]
        if previous is not None:
            for i, (old, new) in enumerate(zip(previous, norms)):
                if new < old:
                    return Observation.failed(f"token {i}'s A-norm drops from {old} to {new} at layer {layer.index}",
                                              evidence={"token": i, "layer": layer.index})
        if layer.index == FINITE_LAYERS:
            return Observation.held()
        previous = norms
    raise AssertionError("unreachable")


def _some_token_leads(config: Configuration) -> Observation:
    """T0 as the claim checks decide it: certified, failed or not decided within the layer budget."""
    verdict = check_configuration(config, layer_budget=LAYER_BUDGET, cross_check=False).verdicts["T0"]
    if verdict.status == "certified":
        return Observation.held()
    if verdict.status == "failed":
        return Observation.failed(verdict.summary)
    return Observation.undecided(verdict.summary)


def _leaders_by_layer_n(config: Configuration) -> Observation:
    """Every final leader leads already at layer n (decided by the D9 jump search from layer 0)."""
    chain = certify(config.tokens, alpha=config.alpha, A=config.A)
    if not chain.certified:
        return Observation.undecided(f"the jump search did not settle: {chain.reason}")
    first = chain.leaders()
    last = max(first.values())
    if last > config.n:
        token = max(first, key=lambda t: first[t])
        return Observation.failed(f"token {token} first leads at layer {last}, after layer n = {config.n}",
                                  last_leader_layer=last)
    return Observation.held(last_leader_layer=last)


def _on_segment(p: tuple[Fraction, ...], a: tuple[Fraction, ...], b: tuple[Fraction, ...]) -> bool:
    """p lies on the closed segment [a, b] (exactly)."""
    direction = [y - x for x, y in zip(a, b)]
    offset = [y - x for x, y in zip(a, p)]
    length = sum(c * c for c in direction)
    if length == 0:
        return p == a
    t = sum(c * o for c, o in zip(direction, offset)) / length
    return 0 <= t <= 1 and all(x + t * c == y for x, c, y in zip(a, direction, p))


def _limits_on_leader_segments(config: Configuration) -> Observation:
    """Every token converges to a leader's limit or to a point of a segment between two leaders' limits."""
    run = run_configuration(config, layer_budget=LAYER_BUDGET)
    if run.settled_layer is None:
        return Observation.undecided(f"not every token has a fate within {LAYER_BUDGET} layers")
    leaders = [f.limit for f in run.fates
               if f.limit is not None and (f.kind == "leader" or (f.kind == "path" and f.attention == {f.token}))]
    for fate in run.fates:
        p = fate.limit
        if p is None or p in leaders:
            continue
        if not any(_on_segment(p, a, b) for i, a in enumerate(leaders) for b in leaders[i + 1:]):
            return Observation.failed(f"token {fate.token} converges to {tuple(str(x) for x in p)}, on no segment "
                                      "between two leaders' limits")
    return Observation.held(leaders=len(leaders))


@st.composite
def _rank_one_value_configurations(draw: st.DrawFn) -> Configuration:
    """Tokens with a rank-one value matrix V = u v^T (I + V invertible: 1 + v.u != 0), A symmetric positive definite."""
    d = draw(st.integers(1, 2))
    u = draw(vectors(d).filter(any))
    v = draw(vectors(d).filter(any))
    assume(1 + sum(a * b for a, b in zip(u, v)) != 0)
    tokens = draw(token_configurations(min_n=2, max_n=5, d=d))
    A = draw(spd_matrices(d))
    return parse_configuration({"name": f"rank_one_value_d{d}", "tokens": [list(t) for t in tokens], "alpha": 1,
                                "A": [list(r) for r in A], "V": [[a * b for b in v] for a in u],
                                "outside_hypotheses": True})


def _hull_never_grows(config: Configuration) -> Observation:
    """Every token of each layer lies in the convex hull of the layer before (D1), over FINITE_LAYERS layers."""
    previous = None
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A, V=config.V):
        positions = layer.positions()
        if previous is not None:
            for i, p in enumerate(positions):
                if point_in_hull_weights(p, previous) is None:
                    return Observation.failed(f"token {i} of layer {layer.index} is outside the hull of layer "
                                              f"{layer.index - 1}")
        if layer.index == FINITE_LAYERS:
            return Observation.held()
        previous = positions
    raise AssertionError("unreachable")


def _pattern_constant_from_2n(config: Configuration) -> Observation:
    """Every attention set is constant from layer 2n on (decided by the D9 jump search)."""
    chain = certify(config.tokens, alpha=config.alpha, A=config.A)
    if not chain.certified:
        return Observation.undecided(f"the jump search did not settle: {chain.reason}")
    if chain.layer > 2 * config.n:
        return Observation.failed(f"the attention pattern changes at layer {chain.layer}, after layer 2n = "
                                  f"{2 * config.n}", settling_layer=chain.layer)
    return Observation.held(settling_layer=chain.layer)


def _halving_alpha_keeps_leaders(config: Configuration) -> Observation:
    """Every final leader for alpha is a final leader for alpha / 2 too."""
    chains = [certify(config.tokens, alpha=a, A=config.A) for a in (config.alpha, config.alpha / 2)]
    if not all(chain.certified for chain in chains):
        return Observation.undecided("the jump search did not settle for alpha or alpha / 2")
    lost = sorted(set(chains[0].leaders()) - set(chains[1].leaders()))
    if lost:
        return Observation.failed(f"token {lost[0]} leads for alpha = {config.alpha} but never for alpha / 2")
    return Observation.held(leaders=len(chains[0].leaders()))


def _convex_position_all_lead(config: Configuration) -> Observation:
    """When every token is a vertex of the initial convex hull, every token is eventually a leader."""
    vertices = convex_hull_vertices(config.tokens)
    if len(vertices) < config.n:
        return Observation.held(convex_position=0)
    chain = certify(config.tokens, alpha=config.alpha, A=config.A)
    if not chain.certified:
        return Observation.undecided(f"the jump search did not settle: {chain.reason}")
    never = sorted(set(range(config.n)) - set(chain.leaders()))
    if never:
        return Observation.failed(f"every token is a hull vertex, but token {never[0]} never leads", convex_position=1)
    return Observation.held(convex_position=1)


def _statement(name: str, statement: str, strategy: object, predicate: Callable[[Configuration], Observation],
               scope: str, target: str | None = None) -> Conjecture:
    return Conjecture(name=name, statement=statement, strategy=strategy, predicate=predicate,  # type: ignore[arg-type]
                      scope=scope, expected="refuted", target=target)


_F = Fraction
_ROTATING_SQUARE_A = [[1, -2], [2, 1]]
# (statement, its counterexample found by hand)
_ENTRIES: list[tuple[Conjecture, Configuration]] = [
    (_statement("heldout_norm_never_decreases_nonsymmetric",
                "For A positive definite but not symmetric, no token's A-norm x^T A x ever decreases (D2 beyond "
                "symmetric A).",
                outside_configurations("nonsymmetric_pd", max_n=6), _norm_never_decreases,
                f"A = S + K (S symmetric positive definite, K skew), exact, first {FINITE_LAYERS} layers."),
     make_configuration([[1, 0], [0, 1], [-1, 0], [0, -1]], alpha=1, A=_ROTATING_SQUARE_A, outside_hypotheses=True,
                        name="the rotating square: every norm halves at layer 1")),
    (_statement("heldout_some_token_leads_nonsymmetric_d3",
                "For A positive definite but not symmetric in d = 3, some token is a leader at some layer (T0).",
                outside_configurations("nonsymmetric_pd", min_d=3, max_d=3, max_n=6), _some_token_leads,
                f"A = S + K in d = 3; T0 as verify.claims.check_configuration decides it within {LAYER_BUDGET} "
                "layers (not decided: undecided)."),
     make_configuration([[1, 0, 0], [0, 1, 0], [-1, 0, 0], [0, -1, 0]], alpha=1,
                        A=[[1, -2, 0], [2, 1, 0], [0, 0, 1]], outside_hypotheses=True,
                        name="the rotating square in the plane x3 = 0: Z^2 = M Z^0 with M = diag(J/2, 1/2), "
                             "M^T A M = A/4, no leader at layers 0 and 1")),
    (_statement("heldout_leaders_by_layer_n",
                "Every leader is a leader by layer n (n tokens), for alpha = 1/2, 1/4, ..., 1/256.",
                [configurations(alpha=_F(1, 2 ** k), max_n=8, max_d=2) for k in range(1, 9)], _leaders_by_layer_n,
                "Inside the hypotheses, n <= 8, d <= 2, alpha = 2^-k for k = 1..8; the final leaders by the D9 "
                "jump search.", target="last_leader_layer"),
     make_configuration([["-27/64", "5/32"], ["-1/2", "1/64"], ["-17/32", "-55/64"]], alpha="1/64",
                        name="docs/theory.md §6: token 0 first leads at layer 13")),
    (_statement("heldout_limits_on_leader_segments",
                "Every token converges to a leader's limit or to a point of a segment between two leaders' limits.",
                configurations(max_n=8), _limits_on_leader_segments,
                f"Inside the hypotheses, n <= 8, d <= 3; fates of verify.claims within {LAYER_BUDGET} layers."),
     make_configuration([[1, 0, 0], [0, 1, 0], [0, 0, 1], ["1/3", "1/3", "1/3"]], alpha="1/2",
                        name="the centroid of a triangle face: fixed from layer 0, on no segment between leaders")),
    (_statement("heldout_value_matrix_hull_never_grows",
                "With a rank-one value matrix V = u v^T (I + V invertible), the convex hull of the tokens never "
                "grows (D1 beyond V = alpha I).",
                _rank_one_value_configurations(), _hull_never_grows,
                f"d <= 2, u and v rational in [-1, 1]^d, A symmetric positive definite, exact, first {FINITE_LAYERS} "
                "layers."),
     parse_configuration({"tokens": [[1], [2]], "alpha": 1, "V": [["-1/2"]], "outside_hypotheses": True,
                          "name": "d = 1, V = -1/2: z' = 2 z - m, token 0 moves from 1 to 0"})),
    (_statement("heldout_pattern_constant_from_2n",
                "Every attention set is constant from layer 2n on (n tokens).",
                configurations(max_n=8), _pattern_constant_from_2n,
                "Inside the hypotheses, n <= 8, d <= 3; decided by the D9 jump search from layer 0.",
                target="settling_layer"),
     make_configuration([["-3/16", "-13/16"], ["3/16", "-7/16"], ["-1/2", "-3/4"]], alpha="1/8",
                        name="three tokens, alpha = 1/8: the pattern last changes at layer 9")),
    (_statement("heldout_halving_alpha_keeps_leaders",
                "Halving alpha never removes a leader: every final leader for alpha is one for alpha / 2.",
                configurations(max_n=6, max_d=2), _halving_alpha_keeps_leaders,
                "Inside the hypotheses, n <= 6, d <= 2; both leader sets by the D9 jump search."),
     make_configuration([["-3/8", "-1/4"], ["-3/4", "3/4"], ["-1/2", "-1/8"], ["5/8", "1/4"], ["1/4", -1]],
                        alpha="1/3", name="token 0 leads from layer 1 for alpha = 1/3, never for alpha = 1/6")),
    (_statement("heldout_convex_position_all_lead",
                "When every token is a vertex of the initial convex hull, every token is eventually a leader.",
                configurations(max_n=8), _convex_position_all_lead,
                "Inside the hypotheses, n <= 8, d <= 3; hull vertices exactly, leaders by the D9 jump search."),
     make_configuration([["1/8", 0], [1, 1], [1, -1]], alpha="1/2",
                        name="a thin triangle: (1/8, 0) ties between the other two and locks onto them")),
]

HELD_OUT: dict[str, Conjecture] = {c.name: c for c, _ in _ENTRIES}
KNOWN: dict[str, Configuration] = {c.name: known for c, known in _ENTRIES}


def get_held_out(name: str) -> Conjecture | None:
    return HELD_OUT.get(name)
