"""D9 (docs/theory.md §3): "closed-form certificates: the whole future in finitely many exact checks. [...]
Then z_j^{k+t} = zhat_j(t) and C_j(Z^{k+t}) = F_j for all t >= 0 [...] a certificate at layer k
exists if and only if every attention set is constant from layer k on; only (iii) can fail."

Checked on the structure D9 was written for (a token at the mean of a face whose other members,
leaders and lockers, move in symmetric pairs; 2-D and 3-D; A = I and general SPD A through
z = L^{-T} y; the centre in its own set or not) and on every inside family: the jump search
(:func:`verify.core.closed_form.certify`) gives exact positions and attention sets equal to the
exact engine's at every layer up to its final layer and beyond, the independent checker
verifies its JSON, and no solving order is ever missing (distinct tokens, SPD A). A chain left
unsettled by a budget is recorded as a candidate for docs/theory.md §6, never as a refutation.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from verify import certcheck as checker
from verify.core.closed_form import ExpPoly, certify, chain_to_json
from verify.core.exact_dynamics import exact_layers
from verify.core.families import TIE_FAMILIES
from verify.core.families import CENTRE_KINDS, generate_face_mean_ties
from verify.strategies import alphas, configurations, outside_configurations
from verify.testing import record_event

BEYOND = 3  # layers checked past the one from which the certificate holds, and past its threshold
THRESHOLD_CAP = 60  # ... up to this far (the exact engine's layers grow)


@st.composite
def face_mean_configurations(draw, *, max_n: int = 10):
    """The D9 structure of :func:`verify.core.families.face_mean_ties`: seed, size, matrix kind and centre drawn (they shrink)."""
    d = draw(st.integers(2, 3))
    n = draw(st.integers(5, max_n))
    matrix = draw(st.sampled_from(("identity", "diagonal", "dense", "ill_conditioned", "scalar")))
    centre = draw(st.sampled_from(CENTRE_KINDS))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return generate_face_mean_ties(seed, n=n, d=d, alpha=draw(alphas()), matrix=matrix, centre=centre), centre


def assert_chain_is_the_dynamics(chain, config) -> None:
    """Positions and sets of every layer the chain gives equal the exact engine's (D9's conclusion)."""
    known = chain.known_until()
    hint = min(chain.final.threshold or 0, THRESHOLD_CAP) if chain.certified else 0
    last = chain.layer + hint + BEYOND if known is None else known
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A):
        k = layer.index
        assert chain.positions_at(k) == tuple(tuple(p) for p in layer.positions()), \
            f"{config.name}: layer {k}, the closed form's positions differ from the exact engine's"
        if known is None or k < known:
            assert chain.sets_at(k) == tuple(frozenset(s) for s in layer.attention_sets()), \
                f"{config.name}: layer {k}, the certificate's attention sets differ from the exact engine's"
        for segment in chain.segments:  # a jump's own paths at its end give this layer too
            if segment.status == "jump" and segment.layer + segment.until == k:
                assert tuple(p.at(segment.until) for p in segment.paths) == tuple(tuple(p) for p in layer.positions()), \
                    f"{config.name}: layer {k}, the jump's paths at its end differ from the exact engine"
        if k == last:
            break


def moving_members(chain) -> list[int]:
    """Tokens whose final set keeps another token with a non-constant path (where D7 cannot settle them)."""
    final = chain.final
    moving = {v for v, path in enumerate(final.paths) if path != ExpPoly.constant(path.at(0))}
    return [j for j, members in enumerate(final.sets) if moving & (members - {j})]


@given(face_mean_configurations())
def test_face_mean_ties_are_certified_for_ever(drawn):
    config, centre = drawn
    chain = certify(config.tokens, alpha=config.alpha, A=config.A)
    assert chain.certified, f"{config.name}: {chain.reason}"
    assert moving_members(chain), f"{config.name}: no set keeps a moving token, D7 would have settled it"
    record_event(f"centre {centre}")
    record_event("jumped" if chain.jumps else "certified at layer 0")
    record_event("t-power term" if chain.power_terms() else "no t-power term")
    assert_chain_is_the_dynamics(chain, config)
    summary = checker.verify_closed_form(chain_to_json(chain), positions=config.tokens, alpha=config.alpha,
                                         A=config.A)
    assert summary["final_layer"] == chain.layer


@given(configurations(family=TIE_FAMILIES + ("hull_edges", "diagonal", "generic", "collinear"), max_n=9, max_d=3))
def test_jump_search_follows_the_dynamics_on_every_family(config):
    chain = certify(config.tokens, alpha=config.alpha, A=config.A, max_segments=40)
    assert not chain.reason.startswith("mutual membership"), \
        f"{config.name}: no solving order although the tokens are distinct and A is SPD (docs/theory.md D9)"
    if not chain.certified:
        record_event(f"candidate for docs/theory.md §6 (unsettled: {chain.reason.partition(':')[0]})")
    else:
        record_event("needs D9 beyond D7" if moving_members(chain) else "D7 fates suffice")
        record_event("jumped" if chain.jumps else "certified at layer 0")
    assert_chain_is_the_dynamics(chain, config)
    checker.verify_closed_form(chain_to_json(chain), positions=config.tokens, alpha=config.alpha, A=config.A)


@given(st.integers(1, 4), st.sampled_from((Fraction(1, 50), Fraction(1, 20), Fraction(1, 8))))
def test_late_overshoot_is_jumped_to_exactly(steps, alpha):
    # Leaders (1/2, +-1), lockers (3/5, +-3/4); a token at (x, 0) with x = 1/2 - steps/10 ties with
    # itself exactly at t = (steps + 1)/alpha (its gap to the lockers is r^t (steps + 1 - alpha t)/10).
    x = Fraction(1, 2) - Fraction(steps, 10)
    tokens = [(Fraction(1, 2), Fraction(1)), (Fraction(1, 2), Fraction(-1)), (Fraction(3, 5), Fraction(3, 4)),
              (Fraction(3, 5), Fraction(-3, 4)), (x, Fraction(0))]
    chain = certify(tokens, alpha=alpha)
    tie = (steps + 1) / alpha
    assert tie.denominator == 1
    assert [(s.layer, s.until) for s in chain.segments] == [(0, int(tie)), (int(tie), 1), (int(tie) + 1, None)]
    assert chain.leaders()[4] == int(tie) + 1


@given(outside_configurations(kind="nonsymmetric_pd", max_n=8))
def test_no_two_tokens_are_in_each_others_sets_when_A_is_positive_definite(config):
    # Outside docs/theory.md D9's hypotheses (A not symmetric), its "mutual membership" needs a cycle
    # of at least three: w in C_j and j in C_w give <A z_j, z_w - z_j> >= 0 and
    # <A z_w, z_j - z_w> >= 0, whose sum is -<A (z_j - z_w), z_j - z_w> >= 0, so z_j = z_w.
    chain = certify(config.tokens, alpha=config.alpha, A=config.A, max_segments=10)
    for segment in chain.segments:
        for j, members in enumerate(segment.sets):
            for w in members - {j}:
                assert j not in segment.sets[w] or segment.positions[j] == segment.positions[w], \
                    f"{config.name}: layer {segment.layer}, tokens {j} and {w} are in each other's sets"
    record_event("mutual membership (a cycle of 3 or more)" if chain.reason.startswith("mutual") else chain.status)
