"""The exact engine's float prefilter (``verify/core/exact_dynamics.py``, "The prefilter's bound")
changes nothing: :func:`~verify.core.exact_dynamics.exact_layers` yields the same layers with it
as with every attention set decided on the integers (``prefilter=False``): the same numerators
and denominator, the same attention sets, the same groups and the same exact scores.

Not a claim of docs/theory.md but the condition under which the prefilter may stand in for the
integer comparisons at all. The draws cover every family inside the hypotheses (the persistent
ties of ``mirror_ties``, ``sphere_ties``, ``symmetric_polygons``, ``face_mean_ties`` and
``tie_chains`` among them, where rows must reach the integers), the configurations outside them
(duplicates, non-symmetric and indefinite A, a value matrix V), and the same configurations
rescaled by 2^k for |k| up to 4000, whole or token by token, so that numerators of thousands of
bits beside tiny ones test the bound's scaling.
"""

from dataclasses import replace
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from verify.core.config import Configuration
from verify.core.exact_dynamics import ExactLayer, exact_layers, prefilter_candidates
from verify.strategies import configurations, outside_configurations, value_matrices
from verify.testing import fail_claim, record_event

LAYERS = 12
TIE_HEAVY = ("mirror_ties", "sphere_ties", "symmetric_polygons", "face_mean_ties", "tie_chains")


def _rows_left_to_integers(layer: ExactLayer) -> int:
    """Rows of a prefiltered layer that kept more than one candidate (for the statistics only)."""
    form = layer.score_form
    assert form is not None
    d = len(layer.numerators[0])
    entries = [int(x) for x in form.entries()]
    rows = [entries[u * d:(u + 1) * d] for u in range(len(layer.numerators))]
    return sum(len(c) > 1 for c in prefilter_candidates(rows, layer.numerators))


def assert_prefilter_changes_nothing(config: Configuration, layers: int = LAYERS) -> None:
    """Layers 0..layers of the prefiltered engine equal those of the exact-only path, field by field."""
    __tracebackhide__ = True
    V = None if config.V is None else [list(row) for row in config.V]
    fast = exact_layers(config.tokens, alpha=config.alpha, A=config.A, V=V)
    slow = exact_layers(config.tokens, alpha=config.alpha, A=config.A, V=V, prefilter=False)
    exact_rows = 0
    for a, b in zip(fast, slow):
        for name in ("numerators", "denominator", "attention", "groups", "score_scale"):
            if getattr(a, name) != getattr(b, name):
                fail_claim("prefilter", config, f"the prefiltered layer's {name} differs from the exact-only path's",
                           layer=a.index, prefiltered=getattr(a, name), exact=getattr(b, name))
        exact_rows += _rows_left_to_integers(a)
        if a.index == layers:
            if a.scores != b.scores:
                fail_claim("prefilter", config, "the lazily computed scores differ from the exact-only path's",
                           layer=a.index)
            break
    record_event("rows left to the integers: " + ("none" if exact_rows == 0 else "some"))


@st.composite
def rescaled(draw, base: st.SearchStrategy[Configuration]) -> Configuration:
    """``base`` with every token times 2^k (one k) or each token times its own 2^k_i, |k| <= 4000."""
    config = draw(base)
    exponents = st.integers(-4000, 4000)
    if draw(st.booleans()):
        factors = [Fraction(2) ** draw(exponents)] * config.n
    else:
        factors = [Fraction(2) ** draw(exponents) for _ in range(config.n)]
    tokens = tuple(tuple(f * x for x in t) for f, t in zip(factors, config.tokens))
    return replace(config, tokens=tokens, name=f"{config.name} rescaled", outside_hypotheses=True)


@given(configurations(max_n=10, max_d=3))
def test_prefilter_changes_nothing_inside_the_hypotheses(config):
    assert_prefilter_changes_nothing(config)


@given(configurations(family=TIE_HEAVY, max_n=12, max_d=3))
def test_prefilter_changes_nothing_on_persistent_ties(config):
    assert_prefilter_changes_nothing(config)


@given(outside_configurations(max_n=10, max_d=3))
def test_prefilter_changes_nothing_outside_the_hypotheses(config):
    assert_prefilter_changes_nothing(config)


@given(st.data())
def test_prefilter_changes_nothing_with_a_value_matrix(data):
    config = data.draw(configurations(max_n=8, max_d=3))
    V = data.draw(value_matrices(config.d))
    assert_prefilter_changes_nothing(replace(config, V=tuple(tuple(row) for row in V), outside_hypotheses=True))


@given(rescaled(configurations(family=("generic", "close_pairs", "near_origin", "symmetric_polygons", "mirror_ties"),
                               max_n=8, max_d=3)))
def test_prefilter_changes_nothing_at_huge_and_tiny_magnitudes(config):
    assert_prefilter_changes_nothing(config, layers=6)
