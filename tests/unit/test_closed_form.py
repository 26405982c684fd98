"""verify.core.closed_form (docs/theory.md D9): exponential polynomials, exact signs, segments and the jump.

Known answers are computed by hand (the formulas are in the comments); agreement with the exact
engine is checked layer by layer, positions and attention sets.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify.core import closed_form
from verify.core.closed_form import (
    Chain,
    ExpPoly,
    ThresholdTooLarge,
    build_segment,
    certify,
    chain_from_json,
    chain_to_json,
    decide_positive,
    exppoly_from_json,
    exppoly_to_json,
    first_nonzero,
    sign_threshold,
    solve_recurrence,
)
from verify.core.exact_dynamics import exact_layers
from verify.core.families import generate
from verify.core.families import generate_face_mean_ties
from verify.core.numbers import InputError
from verify.strategies import configurations

# docs/theory.md D9's example: (c, -1/2), (c, 1/2), (c, 0), (c, 1/4), (c, -1/4), c = -7/8, A = I, alpha = 1/2.
C = F(-7, 8)
D9_EXAMPLE = [(C, F(-1, 2)), (C, F(1, 2)), (C, F(0)), (C, F(1, 4)), (C, F(-1, 4))]
# A token overshooting its set: leaders (1/2, +-1), lockers (3/5, +-3/4) onto them, and (2/5, 0)
# attending to the two lockers. With a'(t) = 1/2 + r^t/10 the lockers' first coordinate and
# x(t) = 1/2 - r^t/10 + alpha t r^t/10 the token's, a'(t) - x(t) = r^t (2 - alpha t)/10: the token
# ties with itself exactly at t = 2/alpha, and leads from the next layer on.
OVERSHOOT = [(F(1, 2), F(1)), (F(1, 2), F(-1)), (F(3, 5), F(3, 4)), (F(3, 5), F(-3, 4)), (F(2, 5), F(0))]
# A token attending to a token locked onto a leader: its path has the t r^t term, and its set
# changes once the leader outscores the locker (after about 0.5/alpha layers).
CHAIN_OF_LOCKS = [(F(1), F(0)), (F(3, 5), F(2, 5)), (F(0), F(1, 4))]


def exp_poly(*terms, dim=None):
    return ExpPoly(terms, dim=dim)


def random_exp_poly(rng: random.Random, *, dim=None, terms=4, bases=(F(1), F(1, 2), F(2, 3), F(9, 10), F(1, 3))):
    def coefficient():
        value = F(rng.randint(-9, 9), rng.randint(1, 4))
        return value if dim is None else tuple(F(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(dim))
    return ExpPoly([(coefficient(), rng.randint(0, 2), rng.choice(bases)) for _ in range(terms)], dim=dim)


def simulated(tokens, alpha, A=None, *, layers):
    """Positions and attention sets of layers 0..layers from the exact engine."""
    out = []
    for layer in exact_layers(tokens, alpha=alpha, A=A):
        out.append((tuple(tuple(p) for p in layer.positions()), tuple(frozenset(s) for s in layer.attention_sets())))
        if layer.index == layers:
            return out


def assert_chain_matches_engine(chain: Chain, tokens, alpha, A=None, *, beyond: int = 5):
    """Every layer the chain gives (up to its last layer + beyond) equals the exact engine's."""
    known = chain.known_until()
    last = chain.layer + min(chain.final.threshold or 0, 60) + beyond if known is None else known
    layers = simulated(tokens, alpha, A, layers=last)
    for k, (positions, sets) in enumerate(layers):
        assert chain.positions_at(k) == positions, f"layer {k}: positions differ"
        if known is None or k < known:
            assert chain.sets_at(k) == sets, f"layer {k}: attention sets differ"
    for segment in chain.segments:  # each jump's own paths at its end, not the next segment's start
        if segment.status == "jump":
            assert tuple(p.at(segment.until) for p in segment.paths) == layers[segment.layer + segment.until][0]


# ----------------------------------------------------------------------------- exp-poly algebra


def test_terms_are_merged_zero_terms_dropped_and_sorted_by_base_then_power():
    f = exp_poly((F(1), 1, F(1, 2)), (F(2), 0, 1), (F(3), 1, F(1, 2)), (F(5), 0, F(1, 3)), (F(-5), 0, F(1, 3)))
    assert [(t.coefficient, t.power, t.base) for t in f.terms] == [(4, 1, F(1, 2)), (2, 0, 1)]
    assert f.leading_term().base == 1
    assert f == exp_poly((F(2), 0, 1), (F(4), 1, F(1, 2)))


@pytest.mark.parametrize("term, field", [((1, 0, 0), "base"), ((1, 0, F(3, 2)), "base"), ((1, -1, F(1, 2)), "power"),
                                         ((1, 1.0, F(1, 2)), "power")])
def test_bad_terms_are_refused_naming_the_field(term, field):
    with pytest.raises(InputError, match=field):
        ExpPoly([term])


def test_shift_expands_the_binomial():
    # (t+1)^2 (1/2)^(t+1) = (1/2) t^2 (1/2)^t + t (1/2)^t + (1/2) (1/2)^t
    f = exp_poly((F(1), 2, F(1, 2)))
    assert f.shift() == exp_poly((F(1, 2), 2, F(1, 2)), (F(1), 1, F(1, 2)), (F(1, 2), 0, F(1, 2)))


@pytest.mark.parametrize("seed", range(6))
def test_algebra_agrees_with_evaluation(seed):
    rng = random.Random(seed)
    f, g = random_exp_poly(rng), random_exp_poly(rng)
    x, y = random_exp_poly(rng, dim=2), random_exp_poly(rng, dim=2)
    A = [[F(2), F(1, 3)], [F(-1), F(1, 2)]]
    for t in range(7):
        assert (f + g).at(t) == f.at(t) + g.at(t)
        assert (f - g).scaled(F(3, 7)).at(t) == F(3, 7) * (f.at(t) - g.at(t))
        assert f.times(g).at(t) == f.at(t) * g.at(t)
        assert f.shift().at(t) == f.at(t + 1)
        assert x.shift().at(t) == x.at(t + 1)
        Ax = [A[0][0] * x.at(t)[0] + A[0][1] * x.at(t)[1], A[1][0] * x.at(t)[0] + A[1][1] * x.at(t)[1]]
        assert x.inner(y, A).at(t) == Ax[0] * y.at(t)[0] + Ax[1] * y.at(t)[1]
        assert x.component(1).at(t) == x.at(t)[1]
    assert list(f.values(3, 12)) == [f.at(t) for t in range(3, 12)]


def test_identically_zero_is_decided_by_coefficients_not_by_values():
    # t (1 - t) 2^-t vanishes at t = 0 and t = 1 but not identically; M = 3 bounds its zeros by 2.
    f = exp_poly((F(1), 1, F(1, 2)), (F(-1), 2, F(1, 2)))
    assert f.at(0) == 0 and f.at(1) == 0 and not f.is_zero()
    assert f.zero_bound() == 3
    assert first_nonzero(f) == 2
    assert first_nonzero(f, start=2) == 2
    assert (f - f).is_zero() and first_nonzero(f - f) is None
    # Two bases, one root each side: (t - 1) - (t - 1) (1/2)^t = (t - 1)(1 - 2^-t) is zero at t = 0 and 1.
    g = exp_poly((F(1), 1, 1), (F(-1), 0, 1), (F(-1), 1, F(1, 2)), (F(1), 0, F(1, 2)))
    assert g.at(0) == 0 and g.at(1) == 0 and first_nonzero(g) == 2 and g.zero_bound() == 4


def test_json_form_is_exact_text_in_canonical_order():
    f = exp_poly(((F(1, 3), F(-2)), 1, F(100, 101)), ((F(7, 8), F(0)), 0, 1), dim=2)
    data = exppoly_to_json(f)
    assert data == [{"coefficient": ["1/3", "-2"], "power": 1, "base": "100/101"},
                    {"coefficient": ["7/8", "0"], "power": 0, "base": "1"}]
    assert exppoly_from_json(json.loads(json.dumps(data)), dim=2) == f
    with pytest.raises(InputError, match=r"exppoly\[0\]\.base"):
        exppoly_from_json([{"coefficient": ["1", "0"], "power": 0, "base": "3/2"}], dim=2)


# ----------------------------------------------------------------------------- the recurrence


@pytest.mark.parametrize("seed", range(8))
def test_solution_satisfies_the_recurrence_identically(seed):
    rng = random.Random(seed)
    lam = rng.choice([F(1), F(2, 3), F(1, 2), F(9, 10)])
    g = random_exp_poly(rng, dim=2, bases=(F(2, 3), F(1, 2), F(9, 10)) + ((F(1),) if lam != 1 else ()))
    z0 = (F(rng.randint(-5, 5), 3), F(rng.randint(-5, 5), 7))
    z = solve_recurrence(lam, g, z0)
    assert z.at(0) == z0
    assert z.shift() == z.scaled(lam) + g  # by coefficients
    for t in range(5):
        assert z.at(t + 1) == tuple(lam * a + b for a, b in zip(z.at(t), g.at(t)))


def test_repeated_base_raises_the_degree_without_constant_term():
    # z(t+1) = (1/2) z(t) + t^2 (1/2)^t: p(t) (1/2)^t with (1/2)(p(t+1) - p(t)) = t^2, so
    # p(t) = 2 (t^3/3 - t^2/2 + t/6) and z = p(t) (1/2)^t (z0 = 0, p(0) = 0).
    z = solve_recurrence(F(1, 2), exp_poly((F(1), 2, F(1, 2))), F(0))
    assert z == exp_poly((F(2, 3), 3, F(1, 2)), (F(-1), 2, F(1, 2)), (F(1, 3), 1, F(1, 2)))


def test_special_case_token_outside_its_set():
    # docs/theory.md D9: j not in F_j, members' mean P + r^t Q: P + r^t (z0 - P) + gamma t r^(t-1) Q.
    alpha = F(1, 3)
    r, gamma = 1 / (1 + alpha), alpha / (1 + alpha)
    P, Q, z0 = (F(1), F(2)), (F(-3, 4), F(1, 5)), (F(1, 7), F(-2))
    mean = exp_poly((P, 0, 1), (Q, 0, r), dim=2)
    z = solve_recurrence(r, mean.scaled(gamma), z0)
    expected = exp_poly((P, 0, 1), (tuple(a - b for a, b in zip(z0, P)), 0, r),
                        (tuple(gamma / r * q for q in Q), 1, r), dim=2)
    assert z == expected


def test_special_case_token_in_its_set():
    # j in F_j, f = |F_j|, other members' mean P + r^t Q:
    # P - (f-1) r^t Q + rho^t (z0 - P + (f-1) Q), rho = r + gamma/f.
    alpha, f = F(1, 2), 5
    r, gamma = 1 / (1 + alpha), alpha / (1 + alpha)
    rho = r + gamma / f
    P, Q, z0 = (F(-7, 8), F(0)), (F(1, 4), F(-1, 3)), (F(2), F(1, 9))
    others = exp_poly((P, 0, 1), (Q, 0, r), dim=2)
    z = solve_recurrence(rho, others.scaled(gamma * (f - 1) / f), z0)
    expected = exp_poly((P, 0, 1), (tuple(-(f - 1) * q for q in Q), 0, r),
                        (tuple(a - p + (f - 1) * q for a, p, q in zip(z0, P, Q)), 0, rho), dim=2)
    assert z == expected


def test_d7_fates_are_the_special_cases():
    # Leaders: constant; locked onto a fixed set: m_F + r^t (z - m_F); three-way tie (D7 (b)): constant.
    alpha = F(1, 2)
    r = 1 / (1 + alpha)
    segment = build_segment([(F(1), F(0)), (F(0), F(1)), (F(1, 2), F(1, 2)), (F(1, 4), F(1, 4))], alpha=alpha)
    assert segment.status == "certified"
    assert segment.paths[0] == ExpPoly.constant((F(1), F(0)))
    assert segment.paths[2] == ExpPoly.constant((F(1, 2), F(1, 2)))  # fixed by D7 (b)
    assert segment.sets[3] == {0, 1, 2}
    m = (F(1, 2), F(1, 2))
    assert segment.paths[3] == exp_poly((m, 0, 1), ((F(-1, 4), F(-1, 4)), 0, r), dim=2)  # locked


# ----------------------------------------------------------------------------- signs for every t


def test_sign_with_a_huge_coefficient_ratio():
    # 1 - 10^30 2^-t: negative while 2^t < 10^30, i.e. t <= 99 (2^99 < 10^30 < 2^100).
    f = exp_poly((F(1), 0, 1), (F(-10 ** 30), 0, F(1, 2)))
    decision = decide_positive(f)
    assert not decision.positive and decision.first_failure == 0
    assert sign_threshold(f) == 100  # the least T with 10^30 2^-T < 1
    assert decide_positive(f, start=99).first_failure == 99
    assert decide_positive(f, start=100).positive


def test_sign_with_a_ratio_of_bases_close_to_one():
    # f = (999/1000)^t - (1/2) t (998/1000)^t is negative iff t 998^t > 2 * 999^t (integers).
    f = exp_poly((F(1), 0, F(999, 1000)), (F(-1, 2), 1, F(998, 1000)))
    decision = decide_positive(f)
    negative, low, high = [], 1, 2
    for t in range(decision.threshold + 50):
        if t * low > high:
            negative.append(t)
        low, high = low * 998, high * 999
    assert negative == list(range(3, 8321))  # one interval, ending at t = 8320
    assert not decision.positive and decision.first_failure == 3
    assert decision.threshold == 8321  # the least T with (T/2) (998/999)^T < 1: tight here
    assert decide_positive(f, start=8321).positive
    assert decide_positive(f, start=8320).first_failure == 8320


@pytest.mark.parametrize("seed", range(30))
def test_threshold_is_a_threshold(seed):
    # Beyond T, f(t) has the sign of the leading coefficient: checked exactly well beyond T.
    rng = random.Random(seed)
    f = random_exp_poly(rng, terms=5, bases=(F(1), F(9, 10), F(19, 20), F(1, 2), F(2, 3)))
    if f.is_zero():
        return
    T = sign_threshold(f)
    lead = f.leading_term().coefficient
    for t in list(range(T, T + 40)) + [2 * T, 5 * T, 10 * T, 100 * T]:
        value = f.at(t)
        assert value != 0 and (value > 0) == (lead > 0), (str(f), T, t)
    decision = decide_positive(f)
    brute = next((t for t in range(T + 40) if f.at(t) <= 0), None)
    assert decision.first_failure == brute
    assert decision.positive == (brute is None)


@pytest.mark.parametrize("seed", range(12))
def test_bounded_bisection_finds_the_same_first_failure_as_a_scan(seed):
    # Long ranges are cut into intervals bounded by the unimodal ratios R_i; the answer must be
    # the plain exact scan's.
    rng = random.Random(seed)
    for _ in range(20):
        f = ExpPoly([(F(rng.randint(-9, 9), rng.randint(1, 4)) * 10 ** rng.choice((0, 0, 3, 8)), rng.randint(0, 3),
                      rng.choice((F(1), F(99, 100), F(999, 1000), F(9, 10), F(1, 2))))
                     for _ in range(rng.randint(1, 5))])
        if f.is_zero():
            continue
        start = rng.randint(0, 40)
        stop = start + rng.randint(100, 4000)
        assert closed_form._first_at_most_zero(f, start, stop) == closed_form._scan(f, start, stop), (str(f), start)


def test_threshold_beyond_the_limit_is_refused():
    f = exp_poly((F(1), 0, 1), (F(-10 ** 30), 0, F(1, 2)))
    with pytest.raises(ThresholdTooLarge):
        sign_threshold(f, max_threshold=50)
    with pytest.raises(ThresholdTooLarge):
        decide_positive(f, max_threshold=50)


def test_only_terms_of_the_opposite_sign_enter_the_threshold():
    # 1 + 10^6 t (1/2)^t has no term against the leading one: positive for t >= 1 whatever the size.
    assert sign_threshold(exp_poly((F(1), 0, 1), (F(10 ** 6), 1, F(1, 2)))) == 1


# ----------------------------------------------------------------------------- segments and chains


def test_d9_example_is_certified_at_layer_0():
    alpha = F(1, 2)
    chain = certify(D9_EXAMPLE, alpha=alpha)
    assert chain.certified and chain.layer == 0 and len(chain.segments) == 1
    segment = chain.final
    assert segment.sets[2] == {0, 1, 2, 3, 4}
    assert segment.paths[2] == ExpPoly.constant((C, F(0)))  # never moves
    r = 1 / (1 + alpha)
    assert segment.paths[3] == exp_poly(((C, F(1, 2)), 0, 1), ((F(0), F(-1, 4)), 0, r), dim=2)
    assert chain.leaders() == {0: 0, 1: 0}
    assert chain.limits()[2] == (C, F(0)) and chain.limits()[3] == (C, F(1, 2))
    assert_chain_matches_engine(chain, D9_EXAMPLE, alpha, beyond=12)


def test_d9_example_is_left_unsettled_by_d7():
    # The reason D9 exists: the D7 fates leave token 2 unsettled however many layers run.
    from verify.claims import run_configuration  # the D7 fates live with the claim checks
    from verify.core.config import parse_configuration

    config = parse_configuration({"tokens": [list(t) for t in D9_EXAMPLE], "alpha": "1/2"})
    run = run_configuration(config, layer_budget=40, closed_form_search=False)
    assert not run.settled and [f.token for f in run.fates if f.kind == "unsettled"] == [2]


def test_chain_of_locks_needs_the_t_r_t_term_and_jumps():
    alpha = F(1, 10)
    chain = certify(CHAIN_OF_LOCKS, alpha=alpha)
    first = chain.segments[0]
    r = 1 / (1 + alpha)
    # zhat_2 = l + r^t (z_2 - l) + gamma t r^(t-1) (z_1 - l), l = (1, 0): gamma / r = alpha.
    assert first.paths[2] == exp_poly(((F(1), F(0)), 0, 1), ((F(-1), F(1, 4)), 0, r),
                                      ((F(-1, 25), F(1, 25)), 1, r), dim=2)
    assert first.status == "jump" and first.failing.kind == "strict" and first.failing.w == 0
    assert chain.certified and chain.jumps == 1 and chain.final.sets[2] == {0}
    assert chain.power_terms()
    assert_chain_matches_engine(chain, CHAIN_OF_LOCKS, alpha, beyond=10)


@pytest.mark.parametrize("probe", [0, 4, 8])
def test_late_overshoot_is_reached_by_one_jump_without_simulating_the_layers_between(monkeypatch, probe):
    drawn = []

    def counting_layers(tokens, **kwargs):
        for layer in exact_layers(tokens, **kwargs):
            drawn.append(layer.index)
            yield layer

    monkeypatch.setattr(closed_form, "exact_layers", counting_layers)
    alpha = F(1, 1000)
    chain = certify(OVERSHOOT, alpha=alpha, probe_layers=probe)
    # Per segment: its layer-0 attention sets, and the probe's layers (the second segment changes at once).
    assert drawn == list(range(probe + 1)) + list(range(min(probe, 1) + 1)) + list(range(probe + 1))
    assert [(s.layer, s.until) for s in chain.segments] == [(0, 2000), (2000, 1), (2001, None)]
    assert chain.segments[0].failing.kind == "strict" and chain.segments[0].failing.w == 4  # its own score
    assert chain.segments[1].sets[4] == {2, 3, 4}  # tied with itself at layer 2000
    assert chain.final.sets[4] == {4} and chain.leaders() == {0: 0, 1: 0, 4: 2001}  # leads from layer 2001
    assert chain.certified


def test_a_leader_emerges_as_late_as_we_like_for_a_fixed_alpha():
    # The lockers 1/100000 beyond the leaders' level: the token ties with itself at layer
    # (1 + (1/10) / 10^-5) / alpha = 20002 for alpha = 1/2, and leads from layer 20003. So the
    # layer at which every leader has emerged is not bounded by n, d and alpha (docs/theory.md §6).
    delta = F(1, 10 ** 5)
    tokens = [(F(1, 2), F(1)), (F(1, 2), F(-1)), (F(1, 2) + delta, F(3, 4)), (F(1, 2) + delta, F(-3, 4)),
              (F(2, 5), F(0))]
    chain = certify(tokens, alpha=F(1, 2), max_threshold=50_000)
    assert [(s.layer, s.until) for s in chain.segments] == [(0, 20002), (20002, 1), (20003, None)]
    assert chain.leaders() == {0: 0, 1: 0, 4: 20003}


def test_late_overshoot_agrees_with_the_engine():
    alpha = F(1, 100)
    chain = certify(OVERSHOOT, alpha=alpha)
    assert [(s.layer, s.until) for s in chain.segments] == [(0, 200), (200, 1), (201, None)]
    assert_chain_matches_engine(chain, OVERSHOOT, alpha, beyond=4)


@pytest.mark.parametrize("tokens, alpha, family", [
    (OVERSHOOT, F(1, 20), None), (CHAIN_OF_LOCKS, F(1, 3), None), (D9_EXAMPLE, F(1, 2), None),
    (None, None, ("generic", 9, 10, 2)), (None, None, ("diagonal", 3, 12, 2)), (None, None, ("hull_edges", 4, 15, 2))])
def test_the_probe_changes_nothing_but_the_speed(tokens, alpha, family):
    A = None
    if family is not None:
        config = generate(family[0], family[1], n=family[2], d=family[3])
        tokens, alpha, A = config.tokens, config.alpha, config.A
    with_probe = certify(tokens, alpha=alpha, A=A)
    closed_only = certify(tokens, alpha=alpha, A=A, probe_layers=0)
    assert [(s.layer, s.until, s.status, s.sets, s.paths) for s in with_probe.segments] == \
        [(s.layer, s.until, s.status, s.sets, s.paths) for s in closed_only.segments]


def test_leadership_starts_only_at_a_segment_start_and_lasts():
    chain = certify(OVERSHOOT, alpha=F(1, 100))
    for j, first in chain.leaders().items():
        for segment in chain.segments:
            assert (segment.sets[j] == {j}) == (segment.layer >= first)


@pytest.mark.parametrize("family, seed, n, d", [
    ("mirror_ties", 3, 9, 3), ("sphere_ties", 5, 8, 2), ("hull_edges", 0, 8, 3), ("diagonal", 3, 12, 2),
    ("generic", 9, 10, 2), ("collinear", 4, 7, 2), ("dense_spd", 2, 8, 3), ("hull_edges", 4, 15, 2)])
def test_family_configurations_agree_with_the_engine(family, seed, n, d):
    config = generate(family, seed, n=n, d=d)
    chain = certify(config.tokens, alpha=config.alpha, A=config.A)
    assert chain.certified
    assert_chain_matches_engine(chain, config.tokens, config.alpha, config.A)


@pytest.mark.parametrize("family, seed, n, d", [("generic", 29, 6, 2), ("diagonal", 25, 6, 2), ("generic", 32, 8, 3)])
def test_certificates_with_a_sign_threshold_agree_with_the_engine_beyond_it(family, seed, n, d):
    # Final segments where some strict condition has a term against its leading one (threshold > 1).
    config = generate(family, seed, n=n, d=d, alpha=F(1, 10))
    chain = certify(config.tokens, alpha=config.alpha, A=config.A)
    assert chain.certified and chain.final.threshold > 4
    assert_chain_matches_engine(chain, config.tokens, config.alpha, config.A, beyond=10)


@pytest.mark.parametrize("seed, n, d, matrix", [(0, 5, 2, "identity"), (1, 8, 3, "dense"), (2, 9, 2, "diagonal"),
                                                (3, 11, 3, "ill_conditioned")])
def test_face_mean_ties_need_d9_and_agree_with_the_engine(seed, n, d, matrix):
    config = generate_face_mean_ties(seed, n=n, d=d, matrix=matrix)
    chain = certify(config.tokens, alpha=config.alpha, A=config.A)
    assert chain.certified
    final = chain.final
    moving = [v for v in range(config.n) if final.paths[v] != ExpPoly.constant(final.paths[v].at(0))]
    assert any(set(moving) & (final.sets[j] - {j}) for j in range(config.n)), "no set keeps a moving token"
    assert_chain_matches_engine(chain, config.tokens, config.alpha, config.A)


def test_duplicated_tokens_are_solved_as_groups():
    # Outside the hypotheses: two copies of a token attend to the leader and to each other.
    tokens = [(F(1), F(0)), (F(1, 2), F(1, 4)), (F(1, 2), F(1, 4)), (F(0), F(1)), (F(0), F(1))]
    chain = certify(tokens, alpha=F(1, 2))
    assert chain.certified
    assert chain.final.paths[1] == chain.final.paths[2]
    assert_chain_matches_engine(chain, tokens, F(1, 2))
    assert chain.leaders() == {0: 0}  # a duplicated token is never a leader (D5)


def test_mutual_membership_is_unsettled_with_its_reason():
    # Outside the hypotheses (A not symmetric): A z_1 exposes z_2 and A z_2 exposes z_1.
    A = [[F(0), F(-1)], [F(1), F(0)]]
    tokens = [(F(1), F(0)), (F(0), F(1)), (F(-1), F(-1))]
    segment = build_segment(tokens, alpha=F(1, 2), A=A)
    assert segment.status == "unsettled" and segment.reason.startswith("mutual membership")
    chain = certify(tokens, alpha=F(1, 2), A=A)
    assert not chain.certified and chain.reason.startswith("mutual membership")
    assert chain.positions_at(0) == tuple(tokens)
    with pytest.raises(ValueError):
        chain.limits()


def test_a_cycle_of_three_with_a_positive_definite_but_not_symmetric_A():
    # Outside the hypotheses (A = I + 2 J, J the quarter turn: x^T A x = |x|^2 > 0, not symmetric):
    # each token of a near-regular triangle attends to the next one, so no solving order exists.
    # For positive definite A no two tokens can be in each other's sets (adding the two
    # inequalities gives <A(z - w), z - w> <= 0), so cycles have length at least 3.
    A = [[F(1), F(-2)], [F(2), F(1)]]
    tokens = [(F(1), F(0)), (F(-1, 2), F(7, 8)), (F(-1, 2), F(-7, 8))]
    segment = build_segment(tokens, alpha=F(1, 2), A=A)
    assert [sorted(s) for s in segment.sets] == [[1], [2], [0]]
    assert segment.status == "unsettled" and segment.reason.startswith("mutual membership: tokens 0, 1, 2")


def test_budgets_stop_the_jump_with_their_reason():
    chain = certify(OVERSHOOT, alpha=F(1, 100), max_segments=1)
    assert not chain.certified and chain.reason.startswith("segment budget")
    assert chain.known_until() == 200
    assert chain.positions_at(200) == simulated(OVERSHOOT, F(1, 100), layers=200)[200][0]
    chain = certify(OVERSHOOT, alpha=F(1, 100), max_layer=150)
    assert chain.reason.startswith("layer budget") and chain.known_until() == 200
    chain = certify(OVERSHOOT, alpha=F(1, 100), max_threshold=100)
    assert chain.reason.startswith("threshold too large")
    with pytest.raises(InputError, match="max_segments"):
        certify(OVERSHOOT, alpha=1, max_segments=0)


@pytest.mark.parametrize("tokens, expected", [(1, r"expected 1 path, one per token$"),
                                             (5, r"expected 5 paths, one per token$")])
def test_a_chain_without_a_path_per_token_counts_the_paths_expected(tokens, expected):
    data = json.loads(json.dumps(chain_to_json(certify(OVERSHOOT, alpha=F(1, 100)))))
    segment = data["segments"][0]
    segment["sets"] = [[0]] if tokens == 1 else segment["sets"]   # the sets count the tokens
    segment["paths"] = segment["paths"][:tokens + 1] if tokens == 1 else segment["paths"][:tokens - 1]
    with pytest.raises(InputError, match=expected):
        chain_from_json(data)


def test_chain_json_round_trip():
    chain = certify(OVERSHOOT, alpha=F(1, 100))
    data = json.loads(json.dumps(chain_to_json(chain)))
    assert data["format"] == closed_form.FORMAT
    assert data["leaders"] == [{"token": 0, "first_layer": 0}, {"token": 1, "first_layer": 0},
                               {"token": 4, "first_layer": 201}]
    # The emerged leader stays where it was at layer 201 (D3), just beyond the lockers' level.
    assert data["limits"][4] == [closed_form.rational_to_str(x) for x in chain.positions_at(201)[4]]
    again = chain_from_json(data)
    assert again.segments == chain.segments and again.status == chain.status
    # Numbers beyond the 4300 digits int() reads from text (a 2000-layer jump) come back exactly.
    long_chain = certify(OVERSHOOT, alpha=F(1, 1000))
    data = json.loads(json.dumps(chain_to_json(long_chain)))
    assert max(len(x) for p in data["segments"][1]["paths"] for term in p for x in term["coefficient"]) > 4300
    assert chain_from_json(data).segments == long_chain.segments
    with pytest.raises(InputError, match="format"):
        chain_from_json({**data, "format": "other"})


# ----------------------------------------------------------------------------- strict conditions in blocks


def chain_facts(chain: Chain) -> str:
    """Everything a chain says, written out: its JSON and each segment's until, threshold, failing condition, reason."""
    return json.dumps(chain_to_json(chain)) + repr([(s.until, s.threshold, s.failing, s.reason) for s in chain.segments])


def certify_in_blocks_of_one_row(tokens, **kwargs) -> Chain:
    """The jump search with the all-pairs scores taken one row at a time (each row its own block)."""
    saved = closed_form._BLOCK_ENTRIES
    closed_form._BLOCK_ENTRIES = 1
    try:
        return certify(tokens, **kwargs)
    finally:
        closed_form._BLOCK_ENTRIES = saved


def certify_one_by_one(tokens, **kwargs) -> Chain:
    """The jump search with every strict condition decided on its own, on Python integers (no bulk decision, no int64)."""
    saved = closed_form._FLOAT_TERMS, closed_form._INT64_SAFE
    closed_form._FLOAT_TERMS, closed_form._INT64_SAFE = 0, -1
    try:
        return certify(tokens, **kwargs)
    finally:
        closed_form._FLOAT_TERMS, closed_form._INT64_SAFE = saved


def reference_threshold(segment, A) -> int:
    """docs/theory.md D9's threshold of a certified segment, from the paths alone (Fraction exp-poly algebra, not the
    integer scores): the largest sign threshold of a strict condition s_jv - s_jw (v in F_j, w not) that has a
    negative coefficient; 1 when none has."""
    paths, sets = segment.paths, segment.sets
    largest = 1
    for j, members in enumerate(sets):
        v = min(members)
        own = paths[j].inner(paths[v], A)
        for w in range(len(paths)):
            if w not in members:
                f = own - paths[j].inner(paths[w], A)
                if any(t.coefficient < 0 for t in f.terms):
                    largest = max(largest, sign_threshold(f))
    return largest


@given(st.one_of(configurations(min_n=2, max_n=9, max_d=3), configurations("face_mean_ties", max_n=9, max_d=3)),
       st.sampled_from((0, 1, 4)))
def test_conditions_decided_in_blocks_give_the_chain_of_one_by_one_decisions(config, probe):
    kwargs = {"alpha": config.alpha, "A": config.A, "probe_layers": probe, "max_segments": 8}
    chain = certify(config.tokens, **kwargs)
    assert chain_facts(chain) == chain_facts(certify_one_by_one(config.tokens, **kwargs))
    assert chain_facts(chain) == chain_facts(certify_in_blocks_of_one_row(config.tokens, **kwargs))
    if chain.certified:
        A = config.A if config.A is not None else [[F(int(r == c)) for c in range(config.d)] for r in range(config.d)]
        assert chain.final.threshold == reference_threshold(chain.final, A)


@pytest.mark.parametrize("family, seed, n, d", [("generic", 29, 6, 2), ("diagonal", 25, 6, 2), ("generic", 32, 8, 3),
                                                ("generic", 1, 32, 2), ("hull_edges", 4, 15, 2)])
def test_thresholds_decided_in_bulk_are_the_one_by_one_thresholds(family, seed, n, d):
    config = generate(family, seed, n=n, d=d, alpha=F(1, 10))
    chain = certify(config.tokens, alpha=config.alpha, A=config.A)
    assert chain.certified
    assert chain_facts(chain) == chain_facts(certify_one_by_one(config.tokens, alpha=config.alpha, A=config.A))
    assert chain_facts(chain) == chain_facts(certify_in_blocks_of_one_row(config.tokens, alpha=config.alpha, A=config.A))
    A = config.A if config.A is not None else [[F(int(r == c)) for c in range(d)] for r in range(d)]
    assert chain.final.threshold == reference_threshold(chain.final, A)


def test_bulk_decisions_leave_only_the_conditions_a_scan_must_decide():
    # 32 generic tokens: most strict conditions have a threshold within the probe and are decided in bulk; each
    # one left to its own decision is one the bulk test could not settle, each one decided in bulk has T <= first.
    config = generate("generic", 1, n=32, d=2, alpha=F(1, 2))
    segment = certify(config.tokens, alpha=config.alpha).final
    paths = list(segment.paths)
    sets = tuple(tuple(sorted(s)) for s in segment.sets)
    scores = closed_form._Scores(paths, None)
    first = closed_form.DEFAULT_PROBE_LAYERS + 1
    bulk = closed_form._strict_conditions(scores, sets, list(range(len(paths))), first=first, bulk=True)
    exact = closed_form._strict_conditions(scores, sets, list(range(len(paths))), first=first, bulk=False)
    pairs = lambda side: list(zip(*(x.tolist() for x in side)))  # noqa: E731
    assert pairs(bulk.negative) == pairs(exact.negative)
    left, everything = pairs(bulk.positive), pairs(exact.positive)
    assert exact.bulk_threshold is None and bulk.bulk_threshold is not None
    assert len(left) < len(everything) // 2 and set(left) <= set(everything)
    assert left == [p for p in everything if p in set(left)]  # the enumeration order is kept
    decided = [closed_form._threshold_or_none(scores.exp_poly(scores.difference(u, sets[u][0], w)), first + 1)
               for u, w in everything if (u, w) not in set(left)]
    assert None not in decided and max(decided) == bulk.bulk_threshold


def test_large_numbers_take_python_integers_and_give_the_scaled_chain():
    # A = I: scaling every token by c > 0 scales every layer by c and keeps every attention set (scores scale by c^2),
    # so the chain is the same up to the scale; at c = 10^40 the scores overflow int64 and Python integers are used.
    config = generate("generic", 29, n=6, d=2, alpha=F(1, 10))
    c = F(10) ** 40
    small = certify(config.tokens, alpha=config.alpha)
    large = certify([tuple(c * x for x in p) for p in config.tokens], alpha=config.alpha)
    assert [(s.layer, s.status, s.until, s.threshold, s.failing, s.sets) for s in large.segments] == \
        [(s.layer, s.status, s.until, s.threshold, s.failing, s.sets) for s in small.segments]
    assert large.final.threshold > 4
    assert large.limits() == tuple(tuple(c * x for x in p) for p in small.limits())


def test_an_identically_vanishing_strict_condition_is_still_an_error():
    # Two points with one path each but a set that leaves the other out, and every coefficient zero: impossible
    # for sets computed from the positions (the condition holds at t = 0), so an assertion, named by its tokens.
    paths = [ExpPoly.constant((F(1), F(0))), ExpPoly.constant((F(0), F(0)))]
    scores = closed_form._Scores(paths, None)
    with pytest.raises(AssertionError, match="token 1: the strict condition over 0 vanishes identically"):
        closed_form._strict_conditions(scores, ((0,), (1,)), [0, 1], first=5, bulk=True)


@pytest.mark.parametrize("family, seed, n, d, expected", [
    # (layer, until, failing condition (kind, token, v, w)) per jump: known answers of the one-list implementation
    ("emerging_leader", 5, 6, 2, [(0, 2, ("strict", 5, 3, 2))]),
    ("tie_chains", 2, 9, 3, [(0, 1, ("tie", 3, 1, 3)), (1, 1, ("strict", 6, 3, 1)), (2, 1, ("strict", 5, 3, 1))])])
def test_conditions_with_a_negative_leading_coefficient_are_decided_first(family, seed, n, d, expected):
    # Without the probe two strict conditions fail at the same t; the one named is the first of the negative
    # leading coefficients (they fail for sure), before any positive one, in the order (token, other token).
    config = generate(family, seed, n=n, d=d)
    chain = certify(config.tokens, alpha=config.alpha, A=config.A, probe_layers=0)
    assert chain.certified
    assert [(s.layer, s.until, (s.failing.kind, s.failing.token, s.failing.v, s.failing.w))
            for s in chain.segments if s.status == "jump"] == expected


def one_dimensional_scores(*paths):
    """_Scores of 1-D paths given as [(coefficient, power, base), ...] each (A = I)."""
    return closed_form._Scores([ExpPoly([((F(c),), a, F(b)) for c, a, b in terms], dim=1) for terms in paths], None)


@pytest.mark.parametrize("far, power, decided", [
    # point 0 = 1, point 1 = 3 (the set of both), point 2 = far t^power (1/2)^t (its own set):
    # s_01 - s_02 = 3 - far t^power (1/2)^t, and s_11 - s_12 is three times it
    (5, 0, 1),     # 3 > 5/2 at t = 1: T = 1, decided in bulk
    (6, 0, None),  # 3 = 6/2 at t = 1, not below it: T = 2, the floats cannot tell, left to the exact decision
    (5, 1, None),  # a power of t: T = 2 (t 5/2^t is 5/2 at t = 1 and t = 2), never decided in bulk
])
def test_bulk_decides_a_threshold_only_when_the_floats_prove_it(far, power, decided):
    scores = one_dimensional_scores([(1, 0, 1)], [(3, 0, 1)], [(far, power, F(1, 2))])
    pairs = closed_form._strict_conditions(scores, ((1,), (1,), (2,)), [0, 1, 2], first=5, bulk=True)
    exact = closed_form._strict_conditions(scores, ((1,), (1,), (2,)), [0, 1, 2], first=5, bulk=False)
    left = list(zip(*(x.tolist() for x in pairs.positive)))
    assert pairs.bulk_threshold == decided
    assert left == ([] if decided else [(0, 2), (1, 2)])
    assert list(zip(*(x.tolist() for x in exact.positive))) == [(0, 2), (1, 2)]
    T = closed_form._threshold_or_none(scores.exp_poly(scores.difference(0, 1, 2)), 6)
    assert T == (1 if decided else 2)
