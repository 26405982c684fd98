"""Independent checker of leader-control results (docs/theory.md D10): the standard library and Fractions only.

It re-verifies a ``hardmax-verify control --json`` result (format ``hardmax-verify/control-v1``)
without trusting any of the suite's code: like the rest of the checker package it imports nothing
from the code it checks (from the package it shares only the JSON reader, the number reader, the
work units and the count with its noun, :mod:`.jsontext`, :mod:`.numbers`, :mod:`.meter` and
:func:`.common.counted`, and the exact positive-semidefinite test), recomputes every score,
margin, pivot and matrix from the tokens and the certificate, and compares them with what the
file states.

* **realised**: A symmetric with every LDL^T pivot positive (and equal to the stated pivots);
  for every token, its stated target (itself for a leader), closest rival and margin equal to the
  recomputed ones, every margin positive; the target map covers exactly the other tokens, keeps
  every requested target and sends each token to a listed leader; every stated limit is the
  target's position.
* **impossible**: weights y >= 0, not all zero, each on a constraint of the system (a listed
  leader against a rival; a token with a requested target, that target against a rival);
  S = -sum_c y_c M(m; t, k) equal to the stated S and positive semidefinite by symmetric
  elimination with diagonal pivoting.
* **inconclusive**: the A under which the listed tokens lead, when given, checked like a design.
* **leader sets**: the hull certified (a strictly separating direction per vertex, convex
  weights per other token), every design's leader set recomputed, every certificate checked,
  every nonempty subset of the vertices listed once, each realisable one inside its design's
  leader set, each impossible one containing its certificate's tokens, each inconclusive one
  covered by none of the file's certificates; counts and the maximal / minimal families
  recomputed.

Entry point: :func:`check_control` (a decoded JSON result -> :class:`ControlCheck`), and
:func:`check_control_file` for a path. ``python -m verify.certcheck.control FILE`` exits 0 when
the result verifies (realised, inconclusive, or every subset's answer), 1 when something is
rejected or when the verified result says the statement is false (impossible), 2 when the file
is not a readable control result or exceeds a limit (checked before any loop: a number longer
than MAX_DIGITS is refused, never rejected), 4 when the check could not complete.

Work is bounded before the loops, in the claims checker's units (:mod:`.meter`: one unit a
multiply-add of integers of up to 512 bits, a product of b-bit integers (b/512)^1.6 units beyond
that): per matrix n d^2 + n^2 d products for its scores (computed once per design) and d^3 for its
pivots, per certificate weight d^2, at the sizes of the tokens' and the matrix's integers over
their common denominators. The hull's size is checked (2^h - 1 <= MAX_SUBSETS subsets, all
listed) before any design; designs are reduced to their distinct leader sets and certificates to
their distinct cores, and the subsets are compared with them through their downward and upward
closures over the h vertices (h 2^h steps), not pair by pair.
"""

from __future__ import annotations

import math
import operator
import re
import sys
from fractions import Fraction
from typing import Any, NamedTuple

from ..jsontext import UnreadableJSON, decode_json, read_bounded, read_json_file
from ..kernel import CHECKED, Items, Obj, Unchecked, cost, counted, read_digits
from ..kernel import positive_semidefinite as is_positive_semidefinite
from ..kernel import problem as _schema_problem

__all__ = ["FORMAT", "MAX_TOKENS", "MAX_DIMENSION", "MAX_DIGITS", "MAX_SUBSETS", "MAX_WORK", "MAX_BYTES",
           "BadInput", "ControlCheck", "Item", "check_control", "check_control_file", "read_control_file", "load_if_control", "is_control_result",
           "is_positive_semidefinite", "realised_problem", "RESULTS", "REASONS", "expected_reason", "main"]

FORMAT = "hardmax-verify/control-v1"
MAX_TOKENS = 256
MAX_DIMENSION = 32
MAX_DIGITS = 10_000        # longest integer in a number string
MAX_SUBSETS = 2 ** 16
MAX_WORK = 200_000_000     # score-table and elimination work of one file (work units), checked before the loops
MAX_BYTES = 256 * 2 ** 20  # the largest file read
OUTCOMES = ("realised", "impossible", "inconclusive")
STEPS = ("zero_constraint", "hull", "lambda_min", "facial", "lp")
_NUMBER = re.compile(r"^-?[0-9]+(/[0-9]+)?$")
FRACTION_OPERATION = 8     # work units of one Fraction operation (a reduction by gcd) on numbers of WORK_BITS bits
# Python refuses int <-> decimal text conversions of more than about 4300 digits; numbers are read
# in chunks below it, up to MAX_DIGITS, by the claims checker's reader (.numbers.read_digits).


_LABEL = "a name for a reader: it states nothing the checks use"
_PAIR = Obj({"token": CHECKED, "target": CHECKED}, name="a token and its target")
_CONFIGURATION = Obj({"name": Unchecked(_LABEL), "tokens": CHECKED,
                      "alpha": Unchecked("the configuration's alpha: a D10 answer holds for every alpha > 0")},
                     optional=("name",), name="a control result's configuration")
_REPLACED = Unchecked("the configuration's own A, which the result replaces: nothing the result states rests on it")
_INFEASIBILITY = Obj({"step": CHECKED, "weights": Items(Obj({"token": CHECKED, "attends_to": CHECKED,
                                                              "rival": CHECKED, "y": CHECKED}, name="a weight")),
                      "S": CHECKED}, name="an infeasibility certificate")
_DESIGN = Obj({"A": CHECKED, "pivots": CHECKED,
               "denominator": Unchecked("the denominator the solver's A was rounded to before any projection (0: a "
                                        "design of the target search): provenance; the design's A itself is checked"),
               "source": Unchecked("which solver or search proposed the design: provenance"),
               "margins": Items(Obj({"token": CHECKED, "attends_to": CHECKED, "closest_rival": CHECKED,
                                     "margin": CHECKED}, name="a margin"))}, name="a design")
_LOG = "the producer's log of what it tried (solver outcomes and searches): nothing a certificate rests on"
RESULTS: dict[str, Obj] = {
    "control": Obj({
        "format": CHECKED, "kind": CHECKED, "configuration": _CONFIGURATION, "replaced_A": _REPLACED,
        "leaders": CHECKED, "requested_targets": Items(_PAIR), "outcome": CHECKED, "exit_status": CHECKED,
        "proves": CHECKED, "does_not_prove": CHECKED, "reason": CHECKED, "targets": Items(_PAIR), "design": _DESIGN,
        "limits": CHECKED, "infeasibility": _INFEASIBILITY, "leading": _DESIGN, "tried": Unchecked(_LOG),
        "search": Unchecked("the target search's settings and the maps it tried (its log)",
                            Obj({"seed": CHECKED, "max_tries": CHECKED, "max_programs": CHECKED,
                                 "target_maps": CHECKED})),
        "solver_runs": Unchecked("the solvers' runs (floats): evidence that never decides, which the exact "
                                 "certificates do"),
    }, optional=("targets", "design", "limits", "infeasibility", "leading", "tried", "search", "solver_runs"),
        name="a control result"),
    "leader_sets": Obj({
        "format": CHECKED, "kind": CHECKED, "configuration": _CONFIGURATION, "replaced_A": _REPLACED,
        "hull": Obj({"vertices": Items(Obj({"token": CHECKED, "direction": CHECKED}, name="a hull vertex")),
                     "inside": Items(Obj({"token": CHECKED, "weights": Items(Obj({"token": CHECKED, "weight": CHECKED},
                                                                                 name="a weight"))},
                                         name="a token inside the hull"))}, name="the hull"),
        "designs": Items(Obj({"A": CHECKED, "pivots": CHECKED, "leaders": CHECKED}, name="a design")),
        "certificates": Items(_INFEASIBILITY),
        "subsets": Items(Obj({"leaders": CHECKED, "outcome": CHECKED, "by": CHECKED, "tried": Unchecked(_LOG)},
                             optional=("by", "tried"), name="a subset")),
        "counts": CHECKED, "maximal_realisable": CHECKED, "minimal_impossible": CHECKED,
        "programs": Unchecked("how many design programs the producer solved (its log)"),
        "exit_status": CHECKED, "proves": CHECKED, "does_not_prove": CHECKED,
    }, name="a leader-sets result"),
}
# Why a control result stopped where it did (verify/experiments/control/design.py's reasons, typed here a second
# time; a test compares them): by outcome, and for an inconclusive one by whether an A making L lead is given.
REASONS = {
    "realised": "",
    "impossible": "no symmetric positive definite A makes every listed token lead at layer 0",
    "inconclusive": "the solvers' answers could not be turned into an exact certificate either way",
    "inconclusive, one leader given an A": "the listed token can lead at layer 0 (an exact A is given), but the only "
                                           "target map, every other token onto it, has no exact design",
    "inconclusive, given an A": "every listed token can lead at layer 0 (an exact A is given), but no target map "
                                "locking every other token onto a leader was found",
}


def expected_reason(outcome: str, leaders: list, requested: dict, leading: bool) -> str:
    """The reason a control result of ``outcome`` gives."""
    if outcome == "impossible":
        return REASONS["impossible"] + (" with the requested targets" if requested else "")
    if outcome == "inconclusive" and leading:
        return REASONS["inconclusive, one leader given an A" if len(leaders) == 1 else "inconclusive, given an A"]
    return REASONS[outcome]


class BadInput(Exception):
    """Not a control result this checker can read, or beyond a limit (exit status 2)."""


class Rejected(Exception):
    """Something in the result does not verify."""


class Item(NamedTuple):
    """One finding: ``status`` verified / failed (a verified certificate that the statement is false) /
    inconclusive / rejected, with ``what`` it is about."""

    what: str
    status: str
    reason: str


class ControlCheck(NamedTuple):
    """The check of one result: ``status`` verified or rejected, the file's ``outcome``, and every item."""

    status: str
    outcome: str
    items: tuple[Item, ...]

    @property
    def reasons(self) -> list[str]:
        return [f"{i.what}: {i.reason}" for i in self.items if i.status == "rejected"]

    @property
    def exit_status(self) -> int:
        statuses = {i.status for i in self.items}
        return 1 if statuses & {"rejected", "failed"} else 0


# --------------------------------------------------------------------------- reading


def _need(condition: bool, message: str) -> None:
    if not condition:
        raise Rejected(message)


def _get(obj: Any, key: str, where: str) -> Any:
    _need(isinstance(obj, dict) and key in obj, f"{where}: missing {key!r}")
    return obj[key]


def _beyond_digits(where: str) -> BadInput:
    # Beyond the checker's limit is not wrong: refused (exit 2), never rejected.
    return BadInput(f"{where}: a number of more than {MAX_DIGITS} digits, beyond the checker's limit")


def _number(x: Any, where: str) -> Fraction:
    if isinstance(x, bool):
        raise Rejected(f"{where}: expected a number, got a boolean")
    if isinstance(x, int):
        if x.bit_length() > MAX_DIGITS * 3.33:
            raise _beyond_digits(where)
        return Fraction(x)
    _need(isinstance(x, str) and bool(_NUMBER.match(x)), f"{where}: expected an integer or 'p/q' string, got "
                                                        f"{str(x)[:40]!r}")
    top, _, bottom = x.partition("/")
    if len(top.lstrip("-")) > MAX_DIGITS or len(bottom) > MAX_DIGITS:
        raise _beyond_digits(where)
    denominator = read_digits(bottom) if bottom else 1
    _need(denominator != 0, f"{where}: zero denominator")
    numerator = read_digits(top.lstrip("-"))
    return Fraction(-numerator if top.startswith("-") else numerator, denominator)


def _short(x: Fraction) -> str:
    """A fraction for a message: exact when short, else its size (printing a long one is slow, and refused)."""
    if max(abs(x.numerator).bit_length(), x.denominator.bit_length()) <= 256:
        return str(x)
    return f"about 10^{math.log10(abs(x.numerator)) - math.log10(x.denominator):.4f}" if x else "0"


def _index(x: Any, n: int, where: str) -> int:
    _need(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n, f"{where}: expected a token index 0..{n - 1}")
    return x


def _list(x: Any, where: str, *, limit: int) -> list:
    _need(isinstance(x, list), f"{where}: expected a list")
    _need(len(x) <= limit, f"{where}: more than {counted(limit, 'entry', 'entries')}")
    return x


def _vector(x: Any, d: int, where: str) -> tuple:
    row = _list(x, where, limit=d)
    _need(len(row) == d, f"{where}: expected {counted(d, 'number')}")
    return tuple(_number(v, f"{where}[{c}]") for c, v in enumerate(row))


def _matrix(x: Any, d: int, where: str) -> list:
    rows = _list(x, where, limit=d)
    _need(len(rows) == d, f"{where}: expected {counted(d, 'row')}")
    return [list(_vector(r, d, f"{where}[{i}]")) for i, r in enumerate(rows)]


def _shape(data: Any) -> tuple[list, int, int]:
    """The tokens (checked against the limits before any number is read)."""
    config = data.get("configuration") if isinstance(data, dict) else None
    raw = config.get("tokens") if isinstance(config, dict) else None
    if not isinstance(raw, list) or not raw or not isinstance(raw[0], list):
        raise BadInput("configuration.tokens: expected a nonempty list of coordinate lists")
    n, d = len(raw), len(raw[0])
    if n > MAX_TOKENS or not 1 <= d <= MAX_DIMENSION:
        raise BadInput(f"configuration.tokens: {n} tokens in dimension {d}, beyond the checker's limits "
                       f"({MAX_TOKENS} tokens, dimension 1..{MAX_DIMENSION})")
    return raw, n, d


def _tokens(raw: list, d: int) -> list[tuple]:
    tokens = [_vector(t, d, f"configuration.tokens[{i}]") for i, t in enumerate(raw)]
    _need(len(set(tokens)) == len(tokens), "configuration.tokens: two tokens are equal (D10 needs distinct tokens)")
    _need(all(any(x != 0 for x in t) for t in tokens), "configuration.tokens: a token is the origin")
    return tokens


# --------------------------------------------------------------------------- exact linear algebra of its own


def _common_bits(numbers: Any) -> int:
    """At least the bits of the common denominator of ``numbers`` plus their largest numerator: the size of the
    integers they become over it. Exact while the denominator is below 2^16 bits; past that, each further
    denominator's bits are added (an upper bound, without the gcds that would cost more than the scores)."""
    denominator, extra, numerator = 1, 0, 0
    for x in numbers:
        if extra or denominator.bit_length() > 1 << 16:
            extra += x.denominator.bit_length()
        else:
            denominator = math.lcm(denominator, x.denominator)
        numerator = max(numerator, abs(x.numerator).bit_length())
        if denominator.bit_length() + extra + numerator > 1 << 24:
            break
    return denominator.bit_length() + extra + numerator


class _Scores(NamedTuple):
    """s[i][j] = z_i^T A z_j = rows[i][j] / scale: integers over one positive scale."""

    rows: list[list[int]]
    scale: int

    def at(self, i: int, j: int) -> Fraction:
        return Fraction(self.rows[i][j], self.scale)


def _scores(tokens: list[tuple], A: list) -> _Scores:
    """Every score z_i^T A z_j, as integers over one common denominator: A z once per token, then dot products."""
    den = math.lcm(*(x.denominator for t in tokens for x in t))
    a_den = math.lcm(*(x.denominator for row in A for x in row))
    Z = [[x.numerator * (den // x.denominator) for x in t] for t in tokens]
    Ai = [[x.numerator * (a_den // x.denominator) for x in row] for row in A]
    AZ = [[sum(map(operator.mul, row, z)) for row in Ai] for z in Z]
    return _Scores([[sum(map(operator.mul, z, w)) for w in AZ] for z in Z], den * den * a_den)


def _pivots(A: list) -> list[Fraction] | None:
    """The LDL^T pivots without pivoting (None at a zero pivot): all positive iff A is positive definite."""
    d = len(A)
    L = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]
    D: list[Fraction] = []
    for j in range(d):
        pivot = A[j][j] - sum((L[j][k] ** 2 * D[k] for k in range(j)), Fraction(0))
        if pivot == 0:
            return None
        D.append(pivot)
        for i in range(j + 1, d):
            L[i][j] = (A[i][j] - sum((L[i][k] * L[j][k] * D[k] for k in range(j)), Fraction(0))) / pivot
    return D


def _combination(tokens: list[tuple], weights: list[tuple[int, int, int, Fraction]]) -> list[list[Fraction]]:
    """S = -sum y (z_m w^T + w z_m^T) / 2 with w = z_t - z_k."""
    d = len(tokens[0])
    S = [[Fraction(0)] * d for _ in range(d)]
    for m, t, k, y in weights:
        z = tokens[m]
        w = [a - b for a, b in zip(tokens[t], tokens[k])]
        for r in range(d):
            for c in range(d):
                S[r][c] -= y * (z[r] * w[c] + w[r] * z[c]) / 2
    return S


# --------------------------------------------------------------------------- the certificates


def _check_design(block: Any, tokens: list[tuple], roles: dict[int, int], where: str) -> _Scores:
    """A design: symmetric, pivots positive and as stated, every token of ``roles`` with its stated closest rival and
    positive margin, recomputed. Returns its scores (computed once)."""
    n, d = len(tokens), len(tokens[0])
    A = _matrix(_get(block, "A", where), d, f"{where}.A")
    _need(all(A[i][j] == A[j][i] for i in range(d) for j in range(i)), f"{where}.A: not symmetric")
    pivots = _pivots(A)
    _need(pivots is not None and all(p > 0 for p in pivots), f"{where}.A: not positive definite (an LDL^T pivot <= 0)")
    stated = [_number(p, f"{where}.pivots[{i}]") for i, p in enumerate(_list(_get(block, "pivots", where),
                                                                              f"{where}.pivots", limit=d))]
    _need(stated == pivots, f"{where}.pivots: not the LDL^T pivots of A")
    if "denominator" in block:
        denominator = block["denominator"]
        _need(isinstance(denominator, int) and not isinstance(denominator, bool) and denominator >= 0,
              f"{where}.denominator: expected a non-negative integer")
    s = _scores(tokens, A)
    entries = _list(_get(block, "margins", where), f"{where}.margins", limit=n)
    seen: set[int] = set()
    for e, entry in enumerate(entries):
        at = f"{where}.margins[{e}]"
        m = _index(_get(entry, "token", at), n, f"{at}.token")
        _need(m not in seen, f"{at}: token {m} listed twice")
        seen.add(m)
        t = _index(_get(entry, "attends_to", at), n, f"{at}.attends_to")
        _need(roles.get(m) == t, f"{at}: token {m} attends to {t}, but the result's leaders and targets say "
                                 f"{roles.get(m)}")
        row = s.rows[m]
        gap, rival = min((row[t] - row[k], k) for k in range(n) if k != t)
        margin = Fraction(gap, s.scale)
        _need(margin > 0, f"{at}: token {m} scores token {rival} at least as high as {t} (margin {_short(margin)})")
        _need(_get(entry, "closest_rival", at) == rival, f"{at}.closest_rival: the closest rival is token {rival}")
        _need(_number(_get(entry, "margin", at), f"{at}.margin") == margin, f"{at}.margin: the margin is {_short(margin)}")
    _need(seen == set(roles), f"{where}.margins: expected exactly the tokens {sorted(roles)}")
    return s


def _check_infeasibility(block: Any, tokens: list[tuple], leaders: set[int], targets: dict[int, int], where: str
                         ) -> set[int]:
    """y >= 0, not all zero, on constraints of the system; S recomputed, as stated, PSD. Returns the tokens used."""
    n, d = len(tokens), len(tokens[0])
    step = _get(block, "step", where)
    _need(step in STEPS, f"{where}.step: expected one of {', '.join(STEPS)}")
    raw = _list(_get(block, "weights", where), f"{where}.weights", limit=n * (n - 1))
    weights = []
    seen = set()
    for e, entry in enumerate(raw):
        at = f"{where}.weights[{e}]"
        m = _index(_get(entry, "token", at), n, f"{at}.token")
        t = _index(_get(entry, "attends_to", at), n, f"{at}.attends_to")
        k = _index(_get(entry, "rival", at), n, f"{at}.rival")
        y = _number(_get(entry, "y", at), f"{at}.y")
        _need(k != t, f"{at}: the rival is the token attended to")
        if m in leaders:
            _need(t == m, f"{at}: a leader's constraint must have attends_to = token")
        else:
            _need(targets.get(m) == t, f"{at}: token {m} is neither a listed leader nor a token with target {t}")
        _need((m, t, k) not in seen, f"{at}: constraint listed twice")
        seen.add((m, t, k))
        _need(y >= 0, f"{at}.y: negative weight")
        weights.append((m, t, k, y))
    _need(any(y > 0 for *_, y in weights), f"{where}.weights: every weight is zero")
    S = _combination(tokens, weights)
    _need(_matrix(_get(block, "S", where), d, f"{where}.S") == S, f"{where}.S: not -sum_c y_c M_c")
    _need(is_positive_semidefinite(S), f"{where}.S: not positive semidefinite")
    if step in ("zero_constraint", "hull", "lp"):
        _need(all(x == 0 for r in S for x in r), f"{where}: step {step} gives S = 0, but S is not zero")
    return {m for m, _t, _k, y in weights if y > 0}


# What each outcome proves and what it does not, as a result must state it: the checker's own copy
# of the statements of docs/theory.md D10 (a test compares it with the command's), so that a file
# cannot claim more than its certificate shows.
STATEMENTS: dict[str, tuple[str, str]] = {
    "realised": ("under A, exactly the listed tokens lead from layer 0 on and every other token attends only to its "
                 "target leader at every layer, converging to it geometrically; so for every alpha > 0 the leader set "
                 "is exactly L and every limit is its target's position (docs/theory.md D10)",
                 "anything about the dynamics under another A, the configuration's own included"),
    "impossible": ("no symmetric positive definite A makes every listed token lead at layer 0",
                   "a listed token may still emerge as a leader at a later layer under some A, so L may still be the "
                   "final leader set (docs/theory.md D10, 'What it does not say')"),
    "inconclusive": ("nothing beyond the certificates included (an A under which L leads at layer 0, when given)",
                     "neither that L can be realised nor that it cannot"),
    "leader_sets": ("each realisable subset leads at layer 0 under the design named (every subset of the tokens "
                    "leading under an A leads under it); each impossible subset contains the tokens of a certificate "
                    "that no symmetric positive definite A makes them all lead at layer 0",
                    "a token outside a realisable set may also lead under that design; nothing about leaders "
                    "that emerge after layer 0"),
}


def _check_statements(data: dict, key: str, requested: dict[int, int]) -> None:
    proves, not_proved = STATEMENTS[key]
    if key == "impossible" and requested:
        proves += (" with the requested tokens attending only to their targets at layer 0 ("
                   + ",".join(f"{m}:{t}" for m, t in sorted(requested.items())) + ")")
    _need(data.get("proves") == proves, "proves: not what this outcome proves (docs/theory.md D10)")
    _need(data.get("does_not_prove") == not_proved, "does_not_prove: not what this outcome leaves unproved")


def _leaders_and_targets(data: dict, n: int) -> tuple[list[int], dict[int, int]]:
    leaders = [_index(x, n, "leaders[]") for x in _list(_get(data, "leaders", "result"), "leaders", limit=n)]
    _need(bool(leaders), "leaders: empty")
    _need(len(set(leaders)) == len(leaders), "leaders: a token listed twice")
    requested: dict[int, int] = {}
    for e, entry in enumerate(_list(_get(data, "requested_targets", "result"), "requested_targets", limit=n)):
        m = _index(_get(entry, "token", f"requested_targets[{e}]"), n, f"requested_targets[{e}].token")
        t = _index(_get(entry, "target", f"requested_targets[{e}]"), n, f"requested_targets[{e}].target")
        _need(m not in leaders and t in leaders and m not in requested,
              f"requested_targets[{e}]: token {m} -> {t} is not a non-leader sent to a listed leader, once")
        requested[m] = t
    return leaders, requested


def _work(n: int, d: int, matrices: int, weights: int) -> int:
    return matrices * (n * n * d + d ** 3) + weights * d * d


def _check_one(data: dict, tokens: list[tuple]) -> list[Item]:
    n = len(tokens)
    leaders, requested = _leaders_and_targets(data, n)
    outcome = _get(data, "outcome", "result")
    _need(outcome in OUTCOMES, f"outcome: expected one of {', '.join(OUTCOMES)}")
    _need(data.get("exit_status") == {"realised": 0, "impossible": 1, "inconclusive": 3}[outcome],
          f"exit_status: not the status of an {outcome} result")
    present = {key for key in ("design", "targets", "limits", "infeasibility", "leading") if key in data}
    expected = {"realised": {"design", "targets", "limits"}, "impossible": {"infeasibility"},
                "inconclusive": present & {"leading"}}[outcome]
    _need(present == expected, f"outcome {outcome}: expected the blocks {sorted(expected)}, found {sorted(present)}")
    _check_statements(data, outcome, requested)
    _need(data.get("reason") == expected_reason(outcome, leaders, requested, "leading" in data),
          f"reason: not what a{'n' if outcome[0] in 'aeiou' else ''} {outcome} result says "
          f"({expected_reason(outcome, leaders, requested, 'leading' in data)!r})")
    if outcome == "realised":
        targets: dict[int, int] = {}
        for e, entry in enumerate(_list(data["targets"], "targets", limit=n)):
            m = _index(_get(entry, "token", f"targets[{e}]"), n, f"targets[{e}].token")
            t = _index(_get(entry, "target", f"targets[{e}]"), n, f"targets[{e}].target")
            _need(m not in targets, f"targets[{e}]: token {m} listed twice")
            targets[m] = t
        _need(set(targets) == set(range(n)) - set(leaders), "targets: not exactly the tokens outside the leaders")
        _need(all(t in leaders for t in targets.values()), "targets: a target is not a listed leader")
        _need(all(targets[m] == t for m, t in requested.items()), "targets: a requested target was changed")
        roles = {**{i: i for i in leaders}, **targets}
        _check_design(data["design"], tokens, roles, "design")
        limits = [_vector(p, len(tokens[0]), f"limits[{i}]") for i, p in
                  enumerate(_list(data["limits"], "limits", limit=n))]
        _need(limits == [tokens[roles[i]] for i in range(n)], "limits: not every token's target position")
        return [Item("D10", "verified", f"A realises leaders {sorted(leaders)} with every other token locked")]
    if outcome == "impossible":
        used = _check_infeasibility(data["infeasibility"], tokens, set(leaders), requested, "infeasibility")
        return [Item("D10", "failed", f"the certificate verifies (tokens {sorted(used)}): no SPD A makes the listed "
                                      "tokens lead at layer 0, as stated")]
    if "leading" in data:
        _check_design(data["leading"], tokens, {**{i: i for i in leaders}, **requested}, "leading")
        return [Item("D10", "inconclusive", "the A under which the listed tokens lead at layer 0 verifies; "
                                            "nothing more is claimed")]
    return [Item("D10", "inconclusive", "no certificate is claimed")]


def realised_problem(raw_tokens: Any, raw_A: Any, raw_leaders: Any, raw_targets: Any, where: str) -> str | None:
    """Why ``raw_A`` does not realise ``raw_leaders`` with every other token attending only to its target
    (``raw_targets``: [{token, target}]) from layer 0 on (docs/theory.md D10), or None when it does: A
    symmetric positive definite, each leader scoring itself strictly highest, each other token its target.
    What a saved study's designs state (its figure shows them), re-verified as a control result's design is."""
    try:
        if not isinstance(raw_tokens, list) or not raw_tokens or not isinstance(raw_tokens[0], list):
            raise Rejected(f"{where}.tokens: expected a list of points")
        n, d = len(raw_tokens), len(raw_tokens[0])
        if n > MAX_TOKENS or not 1 <= d <= MAX_DIMENSION:
            raise Rejected(f"{where}.tokens: {n} tokens in dimension {d}, beyond the checker's limits")
        tokens = _tokens(raw_tokens, d)
        leaders = [_index(x, n, f"{where}.leaders[]") for x in _list(raw_leaders, f"{where}.leaders", limit=n)]
        _need(bool(leaders) and len(set(leaders)) == len(leaders), f"{where}.leaders: empty or a token listed twice")
        targets: dict[int, int] = {}
        for e, entry in enumerate(_list(raw_targets, f"{where}.targets", limit=n)):
            m = _index(_get(entry, "token", f"{where}.targets[{e}]"), n, f"{where}.targets[{e}].token")
            t = _index(_get(entry, "target", f"{where}.targets[{e}]"), n, f"{where}.targets[{e}].target")
            _need(m not in targets and t in leaders, f"{where}.targets[{e}]: token {m} -> {t} twice, or not to a leader")
            targets[m] = t
        _need(set(targets) == set(range(n)) - set(leaders), f"{where}.targets: not exactly the tokens outside the leaders")
        A = _matrix(raw_A, d, f"{where}.A")
        _need(all(A[i][j] == A[j][i] for i in range(d) for j in range(i)), f"{where}.A: not symmetric")
        pivots = _pivots(A)
        _need(pivots is not None and all(p > 0 for p in pivots), f"{where}.A: not positive definite")
        s = _scores(tokens, A)
        roles = {**{i: i for i in leaders}, **targets}
        for m in range(n):
            row, t = s.rows[m], roles[m]
            _need(all(row[t] > row[k] for k in range(n) if k != t),
                  f"{where}: under A, token {m} does not attend only to {'itself' if t == m else f'token {t}'} at layer 0")
    except (Rejected, BadInput) as error:
        return str(error)
    return None


def _leaders_under(s: _Scores) -> set[int]:
    return {i for i, row in enumerate(s.rows) if all(row[i] > x for j, x in enumerate(row) if j != i)}


def _mask(members: Any, bit: dict[int, int]) -> int:
    return sum(bit[v] for v in members)


def _closures(tops: list[int], bottoms: list[int], h: int) -> tuple[bytearray, bytearray]:
    """(below, above) over the 2^h bitmasks: below[m] when m lies inside one of ``tops``, above[m] when m contains
    one of ``bottoms``; h 2^h steps whatever the numbers of sets."""
    below, above = bytearray(1 << h), bytearray(1 << h)
    for top in tops:
        below[top] = 1
    for bottom in bottoms:
        above[bottom] = 1
    for b in range(h):
        flag = 1 << b
        for m in range(1 << h):
            if m & flag:
                if below[m]:
                    below[m ^ flag] = 1
                if above[m ^ flag]:
                    above[m] = 1
    return below, above


def _check_sets(data: dict, tokens: list[tuple]) -> list[Item]:
    n, d = len(tokens), len(tokens[0])
    _check_statements(data, "leader_sets", {})
    hull = _get(data, "hull", "result")
    listed = _list(_get(hull, "vertices", "hull"), "hull.vertices", limit=n)
    # The number of subsets before anything else: all 2^h - 1 must be listed (h > 16 never fits).
    h = len(listed)
    _need(2 ** h - 1 <= MAX_SUBSETS, f"hull: {h} vertices have 2^{h} - 1 nonempty subsets, more than the limit of "
                                     f"{MAX_SUBSETS} a leader-sets result may list")
    expected_count = 2 ** h - 1
    subsets = _list(_get(data, "subsets", "result"), "subsets", limit=MAX_SUBSETS)
    _need(len(subsets) == expected_count, f"subsets: expected {counted(expected_count, 'nonempty subset')} of {counted(h, 'vertex', 'vertices')}")
    vertices = []
    for e, entry in enumerate(listed):
        at = f"hull.vertices[{e}]"
        v = _index(_get(entry, "token", at), n, f"{at}.token")
        c = _vector(_get(entry, "direction", at), d, f"{at}.direction")
        score = [sum((a * b for a, b in zip(c, t)), Fraction(0)) for t in tokens]
        _need(all(score[v] > score[j] for j in range(n) if j != v), f"{at}: the direction does not expose token {v}")
        vertices.append(v)
    _need(len(set(vertices)) == len(vertices) and bool(vertices), "hull.vertices: empty or a token listed twice")
    inside = set()
    for e, entry in enumerate(_list(_get(hull, "inside", "hull"), "hull.inside", limit=n)):
        at = f"hull.inside[{e}]"
        j = _index(_get(entry, "token", at), n, f"{at}.token")
        ws = [(_index(_get(w, "token", at), n, f"{at}.weights"), _number(_get(w, "weight", at), f"{at}.weight"))
              for w in _list(_get(entry, "weights", at), f"{at}.weights", limit=n)]
        _need(all(k != j and w >= 0 for k, w in ws) and sum(w for _, w in ws) == 1, f"{at}: not convex weights of "
                                                                                    "other tokens")
        _need(all(sum((w * tokens[k][c] for k, w in ws), Fraction(0)) == tokens[j][c] for c in range(d)),
              f"{at}: the weights do not reproduce token {j}")
        inside.add(j)
    _need(set(vertices).isdisjoint(inside) and set(vertices) | inside == set(range(n)),
          "hull: vertices and inside tokens do not split the tokens")
    designs = _list(_get(data, "designs", "result"), "designs", limit=MAX_SUBSETS)
    certificates = _list(_get(data, "certificates", "result"), "certificates", limit=MAX_SUBSETS)
    led: list[frozenset] = []
    for e, block in enumerate(designs):
        _need(isinstance(block, dict), f"designs[{e}]: expected an object")
        scores = _check_design({**block, "margins": []}, tokens, {}, f"designs[{e}]")
        lead = frozenset(_leaders_under(scores))
        stated = _list(_get(block, "leaders", f"designs[{e}]"), f"designs[{e}].leaders", limit=n)
        _need(sorted(lead) == stated, f"designs[{e}].leaders: the tokens leading under A are {sorted(lead)}")
        led.append(lead)
    cores: list[frozenset] = []
    vertex_set = set(vertices)
    for e, block in enumerate(certificates):
        cores.append(frozenset(_check_infeasibility(block, tokens, vertex_set, {}, f"certificates[{e}]")))
    # Every subset a design decides lies below one of the designs' leader sets, and every subset a
    # certificate decides lies above one of the cores: closures over the vertices' bitmasks.
    bit = {v: 1 << b for b, v in enumerate(vertices)}
    below, above = _closures([_mask(lead & vertex_set, bit) for lead in set(led)],
                             [_mask(core, bit) for core in set(cores) if core <= vertex_set], h)
    seen: set[frozenset] = set()
    items = []
    kinds = {"realisable": 0, "impossible": 0, "inconclusive": 0}
    by_kind: dict[str, list[frozenset]] = {"realisable": [], "impossible": []}
    for e, entry in enumerate(subsets):
        at = f"subsets[{e}]"
        members = frozenset(_index(x, n, f"{at}.leaders") for x in _list(_get(entry, "leaders", at), at, limit=h))
        _need(bool(members) and members <= vertex_set and members not in seen,
              f"{at}: not a new nonempty subset of the hull vertices")
        seen.add(members)
        outcome = _get(entry, "outcome", at)
        _need(outcome in kinds, f"{at}.outcome: expected realisable, impossible or inconclusive")
        kinds[outcome] += 1
        if outcome == "realisable":
            i = _get(entry, "by", at)
            _need(isinstance(i, int) and 0 <= i < len(led) and members <= led[i],
                  f"{at}: design {i} does not make these tokens lead")
            by_kind["realisable"].append(members)
            items.append(Item("D10", "verified", ""))
        elif outcome == "impossible":
            i = _get(entry, "by", at)
            _need(isinstance(i, int) and 0 <= i < len(cores) and cores[i] <= members,
                  f"{at}: certificate {i} does not cover these tokens")
            by_kind["impossible"].append(members)
            items.append(Item("D10", "verified", ""))
        else:
            _need("by" not in entry, f"{at}: an inconclusive subset names no design or certificate")
            mask = _mask(members, bit)
            _need(not below[mask] and not above[mask],
                  f"{at}: inconclusive, but a certificate of the file decides it (a downgraded answer)")
            items.append(Item("D10", "inconclusive", "no certificate"))
    counts = _get(data, "counts", "result")
    _need(counts == {"subsets": expected_count, **kinds}, "counts: not the subsets' outcomes")
    # Maximal and minimal through the same closures (h 2^h steps, not a comparison of every pair):
    # m lies strictly inside a realisable t iff m lies inside t minus one of its vertices, and
    # strictly contains an impossible t iff it contains t plus one vertex outside t.
    realisable = [_mask(x, bit) for x in by_kind["realisable"]]
    impossible = [_mask(x, bit) for x in by_kind["impossible"]]
    strictly_inside, strictly_containing = _closures(
        [m ^ b for m in realisable for b in bit.values() if m & b],
        [m | b for m in impossible for b in bit.values() if not m & b], h)
    maximal = sorted((sorted(x) for x, m in zip(by_kind["realisable"], realisable) if not strictly_inside[m]),
                     key=lambda s: (-len(s), s))
    minimal = sorted((sorted(x) for x, m in zip(by_kind["impossible"], impossible) if not strictly_containing[m]),
                     key=lambda s: (len(s), s))
    _need(data.get("maximal_realisable") == maximal, "maximal_realisable: not the maximal realisable subsets")
    _need(data.get("minimal_impossible") == minimal, "minimal_impossible: not the minimal impossible subsets")
    _need(data.get("exit_status") == (3 if kinds["inconclusive"] else 0), "exit_status: not the subsets' status")
    return [Item("hull", "verified", f"{h} vertices, {n - h} tokens inside")] + items


def _string_bits(x: Any) -> int:
    return int(len(x) * 3.33) + 1 if isinstance(x, str) else 64


def sized_work(data: dict, kind: str, tokens: list[tuple]) -> float:
    """The work of checking ``data`` in work units, at the sizes of its integers (read before any loop).

    Per matrix (a design's A): n d^2 + n^2 d products for its scores, at the sizes of the tokens'
    and A's integers over their common denominators, and d^3 fraction operations for its pivots;
    per infeasibility certificate: d^2 per weight for S and d^3 for the PSD test; for leader sets
    also the hull (n^2 d) and the subsets (h 2^h closure steps, each subset read).
    """
    n, d = len(tokens), len(tokens[0])
    token_bits = _common_bits(x for t in tokens for x in t)
    blocks: list[Any]
    certificates: list[Any]
    if kind == "control":
        blocks = [data.get(key) for key in ("design", "leading")]
        certificates = [data.get("infeasibility")]
    else:
        blocks = data["designs"] if isinstance(data.get("designs"), list) else []
        certificates = data["certificates"] if isinstance(data.get("certificates"), list) else []
    work = 0.0
    for e, block in enumerate(blocks):
        if isinstance(block, dict) and "A" in block:
            A = _matrix(block["A"], d, f"designs[{e}].A" if kind != "control" else "A")
            a_bits = _common_bits(x for row in A for x in row)
            work += (cost(n * d * d, token_bits, a_bits) + cost(n * n * d, token_bits + a_bits, token_bits)
                     + FRACTION_OPERATION * cost(d ** 3, a_bits, a_bits))
            if work > MAX_WORK:
                break
    for block in certificates:
        weights = block.get("weights") if isinstance(block, dict) else None
        if isinstance(weights, list):
            y_bits = max((_string_bits(w.get("y")) for w in weights if isinstance(w, dict)), default=1)
            entry_bits = 2 * token_bits + y_bits
            work += FRACTION_OPERATION * (cost(len(weights) * d * d, entry_bits, entry_bits)
                                          + cost(d ** 3, d * entry_bits, d * entry_bits))
    if kind != "control":
        subsets = data.get("subsets")
        work += FRACTION_OPERATION * cost(n * n * d, token_bits, token_bits)
        work += 17 * (len(subsets) if isinstance(subsets, list) else 0)
    return work


def _admit_sizes(data: dict, kind: str, tokens: list[tuple]) -> None:
    work = sized_work(data, kind, tokens)
    if work > MAX_WORK:
        raise BadInput(f"the check would take {work:.3g} units of work at the sizes of the file's numbers, more than "
                       f"the limit of {MAX_WORK:,} (n = {len(tokens)}, d = {len(tokens[0])})")


def check_control(data: Any) -> ControlCheck:
    """Re-verify a decoded control result. Raises :class:`BadInput` for what is not a control result or beyond a
    limit (before any loop); everything else is a verdict: ``verified`` or ``rejected`` with reasons."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BadInput(f"format: expected {FORMAT!r}")
    kind = data.get("kind")
    if kind not in ("control", "leader_sets"):
        raise BadInput("kind: expected 'control' or 'leader_sets'")
    shape = _schema_problem({**data, "configuration": None}, Obj({**RESULTS[kind].fields, "configuration": CHECKED},
                                                                 optional=RESULTS[kind].optional))
    config_shape = _schema_problem(data.get("configuration"), RESULTS[kind].fields["configuration"], "configuration")
    if config_shape is not None:
        raise BadInput(config_shape)
    raw, n, d = _shape(data)
    if kind == "control":
        blocks = 2
        weights = len(data.get("infeasibility", {}).get("weights", [])) if isinstance(data.get("infeasibility"), dict) \
            else 0
    else:
        designs, certificates = data.get("designs"), data.get("certificates")
        blocks = (len(designs) if isinstance(designs, list) else 0) + 1
        weights = sum(len(c.get("weights", [])) for c in certificates if isinstance(c, dict)) \
            if isinstance(certificates, list) else 0
        subsets = data.get("subsets")
        if isinstance(subsets, list) and len(subsets) > MAX_SUBSETS:
            raise BadInput(f"subsets: {len(subsets)} entries, more than the limit of {MAX_SUBSETS}")
    if _work(n, d, blocks, weights) > MAX_WORK:
        raise BadInput(f"the check would take more than {MAX_WORK:,} units of work (n = {n}, d = {d}, "
                       f"{blocks} matrices, {weights} weights)")
    try:
        _need(shape is None, str(shape))
        tokens = _tokens(raw, d)
        _admit_sizes(data, kind, tokens)
        items = _check_one(data, tokens) if kind == "control" else _check_sets(data, tokens)
    except Rejected as error:
        return ControlCheck("rejected", str(data.get("outcome", kind)), (Item("D10", "rejected", str(error)),))
    return ControlCheck("verified", str(data.get("outcome", kind)), tuple(items))


# --------------------------------------------------------------------------- files


def _bad_input(error: UnreadableJSON) -> BadInput:
    return BadInput(f"{error.path}: {error.reason}")


def read_control_file(path: str, *, max_bytes: int = MAX_BYTES) -> Any:
    """The decoded JSON of a regular file of at most ``max_bytes`` (repeated keys and NaN refused), or BadInput:
    the checker's one reader (:mod:`.jsontext`)."""
    try:
        # parse_float=str: a decimal (solver evidence) is kept as its text; certificates hold exact strings.
        return read_json_file(path, max_bytes=max_bytes, parse_float=str)
    except UnreadableJSON as error:
        raise _bad_input(error) from None


def load_if_control(path: str, *, max_bytes: int = MAX_BYTES) -> Any | None:
    """The decoded result when ``path`` is a readable control result, else None (without parsing other JSON files:
    a file that does not even contain the format's name is not decoded). A control result that cannot be read
    raises BadInput."""
    try:
        raw = read_bounded(path, max_bytes)
    except (UnreadableJSON, OSError):
        return None
    if FORMAT.encode() not in raw:
        return None
    try:
        data = decode_json(raw, path, parse_float=str)
    except UnreadableJSON as error:
        raise _bad_input(error) from None
    return data if is_control_result(data) else None


def is_control_result(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == FORMAT


def check_control_file(path: str, *, max_bytes: int = MAX_BYTES) -> ControlCheck:
    """Read and re-verify a control result file (BadInput when it is not one, or beyond a limit)."""
    return check_control(read_control_file(path, max_bytes=max_bytes))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python -m verify.certcheck.control RESULT.json", file=sys.stderr)
        return 2
    try:
        result = check_control_file(args[0])
    except BadInput as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # noqa: BLE001 - a crash must never look like a verdict
        print(f"error: could not complete: {type(error).__name__}: {error}", file=sys.stderr)
        return 4
    for reason in result.reasons:
        print(f"rejected: {reason}")
    counts: dict[str, int] = {}
    for item in result.items:
        counts[f"{item.what} {item.status}"] = counts.get(f"{item.what} {item.status}", 0) + 1
    print(f"{args[0]}: {result.status} ({result.outcome}): " + ", ".join(f"{k} x{v}" for k, v in sorted(counts.items())))
    return result.exit_status

