"""Known-false statements of graded difficulty: the measure of the lab's search power.

Each entry is a statement a researcher might plausibly guess about the dynamics inside the
theorem's hypotheses, written the way a user would write it (a :class:`Conjecture` over
:func:`verify.strategies.configurations`, no hint about where it fails), declared
``expected="refuted"``, and paired with a counterexample known in advance (``KNOWN``, checked by
the tests). How many examples and seconds the default search needs to refute each one is
measured by ``bench/conjecture_power.py`` and shown in docs/conjectures.md and in the report:
a search that fails to refute one of them under its default budget is too weak.

Difficulty grows with how rare the refuting structure is among random tokens: a square
(4 leaders in the plane) is common once the families include symmetric polygons; a leader that
emerges only at layer 2 is rare even among them.

The statements are about D7/D9 fates (docs/theory.md §3), decided exactly by
:func:`verify.claims.run_configuration` and :func:`verify.core.closed_form.certify`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from verify.claims import ClaimRun, leader_layers, run_configuration
from verify.core.closed_form import certify
from verify.core.config import Configuration, make_configuration
from verify.core.formatting import counted
from verify.strategies import configurations
from .base import Conjecture, Observation
from .builtin import CLAIMS_BUDGET

__all__ = ["CATALOGUE", "KNOWN", "EASY", "get_catalogued"]

SCOPE = (f"Inside the hypotheses, every family of verify.core.families, n <= 10, d <= 3 (verify.strategies.configurations()); "
         f"fates by D7 and D9 within {CLAIMS_BUDGET} layers (an example that does not settle is undecided).")


def _settled(config: Configuration) -> ClaimRun | None:
    """The exact run with every token's fate (D7, then D9), or None when it does not settle within the budget."""
    run = run_configuration(config, layer_budget=CLAIMS_BUDGET)
    return run if run.settled_layer is not None else None


UNSETTLED = f"not every token has a fate (D7, or a closed-form path by D9) within {CLAIMS_BUDGET} layers"


def _leaders_at_most(bound: Callable[[Configuration], int], words: str) -> Callable[[Configuration], Observation]:
    """The number of final leaders is at most ``bound(config)``."""
    def predicate(config: Configuration) -> Observation:
        run = _settled(config)
        if run is None:
            return Observation.undecided(UNSETTLED)
        leaders = sorted(leader_layers(run) or {})
        if len(leaders) > bound(config):
            return Observation.failed(f"{len(leaders)} leaders {leaders} in d = {config.d}, more than {words}",
                                      evidence={"leaders": leaders}, leaders=len(leaders))
        return Observation.held(leaders=len(leaders))
    return predicate


def _emerged_by(layer: int) -> Callable[[Configuration], Observation]:
    """Every final leader leads already at layer ``layer`` (docs/theory.md §4: leaders may emerge late)."""
    def predicate(config: Configuration) -> Observation:
        run = _settled(config)
        if run is None:
            return Observation.undecided(UNSETTLED)
        first = leader_layers(run) or {}
        last = max(first.values(), default=0)
        late = sorted(token for token, at in first.items() if at > layer)
        if late:
            return Observation.failed(f"token {late[0]} first leads at layer {first[late[0]]}, after layer {layer}",
                                      evidence={"leaders": {str(t): at for t, at in sorted(first.items())}},
                                      last_leader_layer=last)
        return Observation.held(last_leader_layer=last, leaders=len(first))
    return predicate


def _ends_at_leaders(config: Configuration) -> Observation:
    """Every token's limit is the limit of a leader: no token ends on a persistent tie (docs/theory.md T4)."""
    run = _settled(config)
    if run is None:
        return Observation.undecided(UNSETTLED)
    leaders = leader_layers(run) or {}
    leader_limits = {run.fates[t].limit for t in leaders}
    elsewhere = [f for f in run.fates if f.limit not in leader_limits]
    distinct = len({f.limit for f in run.fates})
    if elsewhere:
        f = elsewhere[0]
        return Observation.failed(f"token {f.token} ({f.kind}) converges to a point that is no leader's limit",
                                  evidence={"token": f.token, "fate": f.to_json_dict()},
                                  distinct_limits=distinct, leaders=len(leaders))
    return Observation.held(distinct_limits=distinct, leaders=len(leaders))


def _fixed_tokens_lead(config: Configuration) -> Observation:
    """A token that is fixed (never moves from some layer on, D7) is a leader."""
    run = _settled(config)
    if run is None:
        return Observation.undecided(UNSETTLED)
    fixed = [f for f in run.fates if f.kind == "fixed"]
    if fixed:
        f = fixed[0]
        return Observation.failed(f"token {f.token} is fixed from layer {f.layer} with C = {sorted(f.attention or ())}: "
                                  "it never moves, yet never leads", evidence={"fate": f.to_json_dict()},
                                  fixed_non_leaders=len(fixed))
    return Observation.held(fixed_non_leaders=0)


def _ties_are_pairs(config: Configuration) -> Observation:
    """A persistent tie is between two tokens: a locked or fixed token's final attention set has at most 2 members."""
    run = _settled(config)
    if run is None:
        return Observation.undecided(UNSETTLED)
    sizes = [len(f.attention or ()) - (f.token in (f.attention or ())) for f in run.fates if f.kind != "leader"]
    largest = max(sizes, default=0)
    if largest > 2:
        f = next(f for f, size in zip([f for f in run.fates if f.kind != "leader"], sizes) if size == largest)
        return Observation.failed(f"token {f.token} ({f.kind}) ties for ever with {largest} other tokens "
                                  f"{sorted(set(f.attention or ()) - {f.token})}", evidence={"fate": f.to_json_dict()},
                                  largest_tie=largest)
    return Observation.held(largest_tie=largest)


def _pattern_constant_from(layer: int) -> Callable[[Configuration], Observation]:
    """Every attention set is constant from layer ``layer`` on (decided by the D9 jump search, docs/theory.md §6)."""
    def predicate(config: Configuration) -> Observation:
        chain = certify(config.tokens, alpha=config.alpha, A=config.A)
        if not chain.certified:
            return Observation.undecided(f"the D9 jump search did not settle: {chain.reason}")
        if chain.layer > layer:
            return Observation.failed(f"the attention pattern changes at layer {chain.layer}, after layer {layer} "
                                      f"({counted(chain.jumps, 'jump')} of the D9 search)", evidence={"last_change": chain.layer},
                                      settling_layer=chain.layer)
        return Observation.held(settling_layer=chain.layer)
    return predicate


def _statement(name: str, statement: str, predicate: Callable[[Configuration], Observation], target: str) -> Conjecture:
    return Conjecture(name=name, statement=statement, strategy=configurations(), predicate=predicate,
                      scope=SCOPE, families=("every family of verify.core.families inside the hypotheses",),
                      expected="refuted", target=target)


def _known(tokens: list[list[object]], alpha: object = "1/2", name: str = "") -> Configuration:
    return make_configuration(tokens, alpha=alpha, name=name)


_F = Fraction
# The catalogue, roughly from easy to hard (the power table measures the order).
_ENTRIES: list[tuple[Conjecture, Configuration]] = [
    (_statement("at_most_d_plus_one_leaders", "There are at most d + 1 leaders (as many as a simplex has vertices).",
                _leaders_at_most(lambda c: c.d + 1, "d + 1"), "leaders"),
     _known([[1, 1], [1, -1], [-1, 1], [-1, -1]], name="the square: 4 leaders in d = 2")),
    (_statement("at_most_2d_leaders", "There are at most 2d leaders (as many as the cross-polytope has vertices).",
                _leaders_at_most(lambda c: 2 * c.d, "2d"), "leaders"),
     _known([[1, 0], [0, 1], [-1, 0], [0, -1], ["3/5", "4/5"]], name="5 points of the unit circle: 5 leaders in d = 2")),
    (_statement("every_token_ends_at_a_leader", "Every token converges to the limit of some leader.",
                _ends_at_leaders, "distinct_limits"),
     _known([[1, 1], [1, -1], ["1/2", 0]],
            name="docs/theory.md §2: the third token ties between the two leaders and converges to (1, 0)")),
    (_statement("fixed_tokens_lead", "A token that stops moving for ever is a leader.", _fixed_tokens_lead,
                "fixed_non_leaders"),
     _known([[1, 0], [0, 1], ["1/2", "1/2"]], name="docs/theory.md D7: the three-way tie, (1/2, 1/2) is fixed")),
    (_statement("leaders_lead_from_layer_0", "Every leader is a leader already at layer 0.", _emerged_by(0),
                "last_leader_layer"),
     _known([[1, "1/3"], ["-1/12", "1/12"], [-1, -1], [0, "1/4"], ["-3/10", "-7/10"], ["-3/5", "-9/10"],
             ["4/5", "1/10"], ["3/5", "3/20"]], name="docs/theory.md §4, the emerging leader: token 1 leads from layer 1")),
    (_statement("ties_are_pairs", "A token that ties for ever ties with at most two other tokens.", _ties_are_pairs,
                "largest_tie"),
     _known([[1, 1, 1], [1, 1, -1], [1, -1, 1], [1, -1, -1], ["1/2", 0, 0]],
            name="a face of the cube: (1/2, 0, 0) ties with its four vertices for ever")),
    (_statement("pattern_constant_from_layer_2", "Every attention set is constant from layer 2 on.",
                _pattern_constant_from(2), "settling_layer"),
     _known([["1/8", -1], ["-1/8", "-1/4"], [0, -1]], alpha="1/3",
            name="a chain of self-ties: the attention pattern last changes at layer 5")),
    (_statement("at_most_8_leaders", "There are at most 8 leaders (d <= 3).", _leaders_at_most(lambda c: 8, "8"),
                "leaders"),
     _known([[1, 0], ["4/5", "3/5"], ["3/5", "4/5"], [0, 1], [-1, 0], [0, -1], ["-4/5", "-3/5"], ["-3/5", "4/5"],
             ["4/5", "-3/5"]], name="9 points of the unit circle: 9 leaders in d = 2")),
    (_statement("leaders_lead_from_layer_1", "Every leader is a leader by layer 1.", _emerged_by(1),
                "last_leader_layer"),
     _known([[0, 1], [-1, 1], ["1/2", "1/2"]], alpha="1/3",
            name="a chain of self-ties: token 2 first leads at layer 2")),
    (_statement("pattern_constant_from_layer_5", "Every attention set is constant from layer 5 on.",
                _pattern_constant_from(5), "settling_layer"),
     _known([[1, 0], [1, "-1/8"], ["1/2", "1/2"]], alpha="1/2",
            name="a chain of self-ties: the attention pattern last changes at layer 6")),
]

CATALOGUE: dict[str, Conjecture] = {c.name: c for c, _ in _ENTRIES}
KNOWN: dict[str, Configuration] = {c.name: known for c, known in _ENTRIES}
# The part of the catalogue the test suite refutes on every run (each in a few hundred examples).
EASY: tuple[str, ...] = ("at_most_d_plus_one_leaders", "at_most_2d_leaders", "every_token_ends_at_a_leader",
                         "fixed_tokens_lead", "leaders_lead_from_layer_0")


def get_catalogued(name: str) -> Conjecture | None:
    return CATALOGUE.get(name)
