"""A user conjecture for the lab: run it with ``hardmax-verify conjecture run examples/my_conjecture.py``.

Statement: there are never more leaders than vertices of the initial convex hull. Leaders of
layer 0 are exposed vertices of conv(Z^0), but a leader may emerge later (docs/theory.md §4,
"emerging leader"), and a polytope inside another can have more vertices, so this is open.

The file only defines Conjecture objects; nothing in the package is touched. It imports only
from ``verify``, the public module whose names do not move (docs/api.md).
"""

from verify import Configuration, Conjecture, Observation, check_configuration, configurations, convex_hull_vertices

LAYER_BUDGET = 60


def at_most_hull_vertices(config: Configuration) -> Observation:
    """Decide one configuration exactly: the certified final leader set against the exact hull vertices."""
    report = check_configuration(config, layer_budget=LAYER_BUDGET, cross_check=False)
    # Token -> first leading layer, for every final leader: D7 leader fates and the tokens whose D9
    # closed-form path ends leading; None until every token has a fate (a later leader may still emerge).
    first_leading = report.leader_layers()
    if first_leading is None:
        return Observation.undecided(f"not every token has a fate (D7 or D9) within {LAYER_BUDGET} layers")
    leaders = sorted(first_leading)
    vertices = convex_hull_vertices(config.tokens)
    if len(leaders) > len(vertices):
        return Observation.failed(f"{len(leaders)} leaders {leaders} but {len(vertices)} hull vertices {vertices}")
    return Observation.held(leaders=len(leaders), hull_vertices=len(vertices),
                            last_leader_layer=max(first_leading.values(), default=0))


LEADERS_AT_MOST_HULL_VERTICES = Conjecture(
    name="leaders_at_most_hull_vertices",
    statement="The number of leaders is at most the number of vertices of the initial convex hull.",
    strategy=configurations(min_n=2, max_n=8, max_d=2),
    predicate=at_most_hull_vertices,
    scope=f"Inside the hypotheses (every family of verify.core.families), d <= 2, n <= 8, {LAYER_BUDGET}-layer budget.",
    families=("every family of verify.core.families inside the hypotheses",),
)
