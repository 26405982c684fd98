"""Independent checker of leader-control results (docs/theory.md D10): the standard library and Fractions only.

It re-verifies a ``hardmax-verify control --json`` result (format ``hardmax-verify/control-v1``)
without trusting any of the suite's code: it imports nothing from the package, recomputes every
score, margin, pivot and matrix from the tokens and the certificate, and compares them with
what the file states.

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
:func:`check_control_file` for a path. ``python -m verify._checker_control FILE`` exits 0 when
the result verifies (realised, inconclusive, or every subset's answer), 1 when something is
rejected or when the verified result says the statement is false (impossible), 2 when the file
is not a readable control result or exceeds a limit (checked before any loop), 4 when the
check could not complete.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from fractions import Fraction
from typing import Any, NamedTuple

__all__ = ["FORMAT", "MAX_TOKENS", "MAX_DIMENSION", "MAX_DIGITS", "MAX_SUBSETS", "MAX_WORK", "MAX_BYTES",
           "BadInput", "ControlCheck", "Item", "check_control", "check_control_file", "read_control_file", "load_if_control", "is_control_result",
           "is_positive_semidefinite", "main"]

FORMAT = "hardmax-verify/control-v1"
MAX_TOKENS = 256
MAX_DIMENSION = 32
MAX_DIGITS = 10_000        # longest integer in a number string
MAX_SUBSETS = 2 ** 16
MAX_WORK = 200_000_000     # score-table and elimination work of one file (integer products), checked before the loops
MAX_BYTES = 256 * 2 ** 20  # the largest file read
OUTCOMES = ("realised", "impossible", "inconclusive")
STEPS = ("zero_constraint", "hull", "lambda_min", "facial", "lp")
_NUMBER = re.compile(r"^-?[0-9]+(/[0-9]+)?$")


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


def _number(x: Any, where: str) -> Fraction:
    if isinstance(x, bool):
        raise Rejected(f"{where}: expected a number, got a boolean")
    if isinstance(x, int):
        _need(len(str(abs(x))) <= MAX_DIGITS, f"{where}: more than {MAX_DIGITS} digits")
        return Fraction(x)
    _need(isinstance(x, str) and len(x) <= 2 * MAX_DIGITS + 2 and bool(_NUMBER.match(x)),
          f"{where}: expected an integer or 'p/q' string, got {str(x)[:40]!r}")
    top, _, bottom = x.partition("/")
    _need(len(top.lstrip("-")) <= MAX_DIGITS and len(bottom) <= MAX_DIGITS, f"{where}: more than {MAX_DIGITS} digits")
    _need(not bottom or int(bottom) != 0, f"{where}: zero denominator")
    return Fraction(int(top), int(bottom) if bottom else 1)


def _index(x: Any, n: int, where: str) -> int:
    _need(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n, f"{where}: expected a token index 0..{n - 1}")
    return x


def _list(x: Any, where: str, *, limit: int) -> list:
    _need(isinstance(x, list), f"{where}: expected a list")
    _need(len(x) <= limit, f"{where}: more than {limit} entries")
    return x


def _vector(x: Any, d: int, where: str) -> tuple:
    row = _list(x, where, limit=d)
    _need(len(row) == d, f"{where}: expected {d} numbers")
    return tuple(_number(v, f"{where}[{c}]") for c, v in enumerate(row))


def _matrix(x: Any, d: int, where: str) -> list:
    rows = _list(x, where, limit=d)
    _need(len(rows) == d, f"{where}: expected {d} rows")
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


def _scores(tokens: list[tuple], A: list) -> list[list[Fraction]]:
    """s[i][j] = z_i^T A z_j, with integers over one common denominator."""
    d = len(A)
    den = 1
    for t in tokens:
        for x in t:
            den = den * x.denominator // _gcd(den, x.denominator)
    a_den = 1
    for row in A:
        for x in row:
            a_den = a_den * x.denominator // _gcd(a_den, x.denominator)
    Z = [[int(x * den) for x in t] for t in tokens]
    Ai = [[int(x * a_den) for x in row] for row in A]
    AZ = [[sum(Ai[r][c] * z[c] for c in range(d)) for r in range(d)] for z in Z]
    scale = Fraction(1, den * den * a_den)
    return [[sum(a * b for a, b in zip(z, w)) * scale for w in AZ] for z in Z]


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


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


def is_positive_semidefinite(S: list) -> bool:
    """Symmetric elimination with diagonal pivoting: a negative diagonal entry, or a zero diagonal with a nonzero
    entry left, refutes it; a positive pivot is eliminated (Schur complement)."""
    rows = [list(r) for r in S]
    if any(rows[i][j] != rows[j][i] for i in range(len(rows)) for j in range(i)):
        return False
    while rows:
        diagonal = [rows[i][i] for i in range(len(rows))]
        if min(diagonal) < 0:
            return False
        top = max(diagonal)
        if top == 0:
            return all(x == 0 for r in rows for x in r)
        p = diagonal.index(top)
        pr = rows[p]
        rows = [[rows[i][j] - pr[i] * pr[j] / top for j in range(len(rows)) if j != p]
                for i in range(len(rows)) if i != p]
    return True


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


def _check_design(block: Any, tokens: list[tuple], roles: dict[int, int], where: str) -> list:
    """A design: symmetric, pivots positive and as stated, every token of ``roles`` with its stated closest rival and
    positive margin, recomputed. Returns A."""
    n, d = len(tokens), len(tokens[0])
    A = _matrix(_get(block, "A", where), d, f"{where}.A")
    _need(all(A[i][j] == A[j][i] for i in range(d) for j in range(i)), f"{where}.A: not symmetric")
    pivots = _pivots(A)
    _need(pivots is not None and all(p > 0 for p in pivots), f"{where}.A: not positive definite (an LDL^T pivot <= 0)")
    stated = [_number(p, f"{where}.pivots[{i}]") for i, p in enumerate(_list(_get(block, "pivots", where),
                                                                              f"{where}.pivots", limit=d))]
    _need(stated == pivots, f"{where}.pivots: not the LDL^T pivots of A")
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
        rivals = [(s[m][t] - s[m][k], k) for k in range(n) if k != t]
        margin, rival = min(rivals)
        _need(margin > 0, f"{at}: token {m} scores token {rival} at least as high as {t} (margin {margin})")
        _need(_get(entry, "closest_rival", at) == rival, f"{at}.closest_rival: the closest rival is token {rival}")
        _need(_number(_get(entry, "margin", at), f"{at}.margin") == margin, f"{at}.margin: the margin is {margin}")
    _need(seen == set(roles), f"{where}.margins: expected exactly the tokens {sorted(roles)}")
    return A


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


def _leaders_under(s: list[list[Fraction]]) -> set[int]:
    return {i for i, row in enumerate(s) if all(row[i] > x for j, x in enumerate(row) if j != i)}


def _check_sets(data: dict, tokens: list[tuple]) -> list[Item]:
    n, d = len(tokens), len(tokens[0])
    hull = _get(data, "hull", "result")
    vertices = []
    for e, entry in enumerate(_list(_get(hull, "vertices", "hull"), "hull.vertices", limit=n)):
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
        A = _check_design({**block, "margins": []}, tokens, {}, f"designs[{e}]") if isinstance(block, dict) else None
        _need(A is not None, f"designs[{e}]: expected an object")
        lead = frozenset(_leaders_under(_scores(tokens, A)))  # type: ignore[arg-type]
        stated = _list(_get(block, "leaders", f"designs[{e}]"), f"designs[{e}].leaders", limit=n)
        _need(sorted(lead) == stated, f"designs[{e}].leaders: the tokens leading under A are {sorted(lead)}")
        led.append(lead)
    cores: list[frozenset] = []
    vertex_set = set(vertices)
    for e, block in enumerate(certificates):
        cores.append(frozenset(_check_infeasibility(block, tokens, vertex_set, {}, f"certificates[{e}]")))
    h = len(vertices)
    expected_count = 2 ** h - 1
    subsets = _list(_get(data, "subsets", "result"), "subsets", limit=MAX_SUBSETS)
    _need(len(subsets) == expected_count, f"subsets: expected {expected_count} nonempty subsets of {h} vertices")
    seen: set[frozenset] = set()
    items = []
    kinds = {"realisable": 0, "impossible": 0, "inconclusive": 0}
    by_kind: dict[str, list[frozenset]] = {"realisable": [], "impossible": []}
    for e, entry in enumerate(subsets):
        at = f"subsets[{e}]"
        members = frozenset(_index(x, n, f"{at}.leaders") for x in _list(_get(entry, "leaders", at), at, limit=n))
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
            _need(not any(members <= lead for lead in led) and not any(core <= members for core in cores),
                  f"{at}: inconclusive, but a certificate of the file decides it (a downgraded answer)")
            items.append(Item("D10", "inconclusive", "no certificate"))
    counts = _get(data, "counts", "result")
    _need(counts == {"subsets": expected_count, **kinds}, "counts: not the subsets' outcomes")
    maximal = sorted((sorted(s) for s in by_kind["realisable"] if not any(s < t for t in by_kind["realisable"])),
                     key=lambda s: (-len(s), s))
    minimal = sorted((sorted(s) for s in by_kind["impossible"] if not any(t < s for t in by_kind["impossible"])),
                     key=lambda s: (len(s), s))
    _need(data.get("maximal_realisable") == maximal, "maximal_realisable: not the maximal realisable subsets")
    _need(data.get("minimal_impossible") == minimal, "minimal_impossible: not the minimal impossible subsets")
    _need(data.get("exit_status") == (3 if kinds["inconclusive"] else 0), "exit_status: not the subsets' status")
    return [Item("hull", "verified", f"{h} vertices, {n - h} tokens inside")] + items


def check_control(data: Any) -> ControlCheck:
    """Re-verify a decoded control result. Raises :class:`BadInput` for what is not a control result or beyond a
    limit (before any loop); everything else is a verdict: ``verified`` or ``rejected`` with reasons."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BadInput(f"format: expected {FORMAT!r}")
    kind = data.get("kind")
    if kind not in ("control", "leader_sets"):
        raise BadInput("kind: expected 'control' or 'leader_sets'")
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
        tokens = _tokens(raw, d)
        items = _check_one(data, tokens) if kind == "control" else _check_sets(data, tokens)
    except Rejected as error:
        return ControlCheck("rejected", str(data.get("outcome", kind)), (Item("D10", "rejected", str(error)),))
    return ControlCheck("verified", str(data.get("outcome", kind)), tuple(items))


# --------------------------------------------------------------------------- files


def _unique(pairs: list) -> dict:
    data = dict(pairs)
    if len(data) != len(pairs):
        raise BadInput("a key appears twice in one object")
    return data


def _refuse_constant(name: str) -> Any:
    raise BadInput(f"{name} is not a JSON number")


def read_control_file(path: str, *, max_bytes: int = MAX_BYTES) -> Any:
    """The decoded JSON of a regular file of at most ``max_bytes`` (repeated keys and NaN refused), or BadInput."""
    try:
        info = os.stat(path)
    except OSError as error:
        raise BadInput(f"{path}: {error.strerror or error}") from None
    if not stat.S_ISREG(info.st_mode):
        raise BadInput(f"{path}: not a regular file")
    if info.st_size > max_bytes:
        raise BadInput(f"{path}: {info.st_size} bytes, more than the limit of {max_bytes}")
    with open(path, "rb") as handle:
        raw = handle.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise BadInput(f"{path}: more than the limit of {max_bytes} bytes")
    try:
        # parse_float=str: a decimal (solver evidence) is kept as its text; certificates hold exact strings.
        return json.loads(raw.decode("utf-8"), object_pairs_hook=_unique, parse_constant=_refuse_constant,
                          parse_float=str)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise BadInput(f"{path}: not valid UTF-8 JSON ({str(error)[:120]})") from None


def load_if_control(path: str, *, max_bytes: int = MAX_BYTES) -> Any | None:
    """The decoded result when ``path`` is a readable control result, else None (without parsing other JSON files:
    a file that does not even contain the format's name is not decoded). A control result that cannot be read
    raises BadInput."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        with open(path, "rb") as handle:
            head = handle.read(max_bytes + 1)
    except OSError:
        return None
    if FORMAT.encode() not in head:
        return None
    data = read_control_file(path, max_bytes=max_bytes)
    return data if is_control_result(data) else None


def is_control_result(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == FORMAT


def check_control_file(path: str, *, max_bytes: int = MAX_BYTES) -> ControlCheck:
    """Read and re-verify a control result file (BadInput when it is not one, or beyond a limit)."""
    return check_control(read_control_file(path, max_bytes=max_bytes))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python -m verify._checker_control RESULT.json", file=sys.stderr)
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


if __name__ == "__main__":
    sys.exit(main())
