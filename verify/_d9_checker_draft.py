"""Draft of the independent checker for closed-form certificates (THEORY.md D9), standard library only.

To be merged into the certificate checker, which imports nothing from the package: so this file
imports only ``fractions``, ``json``, ``math`` and ``re``, and shares no code with
``verify/closed_form.py`` (which builds the certificates). It is an oracle for that module.

A certificate (format ``hardmax-verify/closed-form-v1``) is a chain of segments. For segment s,
starting at layer ``k_s`` with sets ``F_j`` and paths ``zhat_j(t)`` (exponential polynomials,
sums of ``c t^a b^t``), the checker verifies, exactly:

(i)   the start: ``zhat_j(0)`` is the caller's position of token j at the chain's first layer for
      s = 0, and the previous segment's ``zhat_j(until)`` later, with ``k_s = k_(s-1) + until``;
(ii)  ``zhat_j(t+1) = r zhat_j(t) + gamma mean_{v in F_j} zhat_v(t)`` as an identity: both
      sides expanded into coefficients of ``t^a b^t`` (``(t+1)^a`` by the binomial theorem) and
      compared (these functions are linearly independent on the integers t >= 0);
(iii) for every j, with ``s_jv(t) = <A zhat_j(t), zhat_v(t)>``: ``s_jv - s_jv'`` vanishes for
      v, v' in F_j, and ``s_jv - s_jw > 0`` for w outside F_j, at every integer t in
      ``[0, until)``, or every t >= 0 for the last segment of a certified chain.

Signs for every t >= 0 use a threshold computed here, never read from the certificate: with
``c t^a b^t`` the leading term (largest b, then largest a) and ``R_i(t) = |c_i/c| t^(a_i-a)
(b_i/b)^t`` for every other term whose coefficient has the sign opposite to c, each R_i is
nonincreasing for ``t >= t_i = max(1, ceil((a_i - a)/(1 - b_i/b)))`` (THEORY.md D9), so from
the first T in t_0, 2 t_0, 4 t_0, ... with ``sum R_i(T) < 1`` on, ``|opposite terms| <
|c| t^a b^t`` and f has the sign of c (terms of c's sign only add to it for t >= 1). Below T
every t is evaluated exactly. A tie that is not identical is nonzero somewhere in any M
consecutive integers (M = sum over distinct b of 1 + highest power), which bounds the work.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction

FORMAT = "hardmax-verify/closed-form-v1"
MAX_DIGITS = 2_000_000  # positions after a jump of t layers have about t log10(1 + 1/alpha) digits
_CHUNK = 4000
MAX_THRESHOLD = 200_000  # largest sign threshold scanned; beyond it the certificate is not checkable here
MAX_SEGMENTS = 10_000

_RATIONAL = re.compile(r"^-?[0-9]+(/[0-9]+)?$")


class Rejected(Exception):
    """The certificate is malformed, or one of its conditions fails."""


class TooExpensive(Exception):
    """A condition needs a scan beyond :data:`MAX_THRESHOLD`: neither verified nor rejected."""


# ----------------------------------------------------------------------------- reading


def _digits(text):
    """int(text) for a string of ASCII digits of any length (int() refuses more than ~4300 digits)."""
    value = 0
    for start in range(0, len(text), _CHUNK):
        chunk = text[start:start + _CHUNK]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


def _number(value, where):
    if isinstance(value, bool):
        raise Rejected(f"{where}: expected a rational, got a boolean")
    if isinstance(value, int):
        return Fraction(value)
    if not isinstance(value, str) or len(value) > MAX_DIGITS or not _RATIONAL.match(value):
        raise Rejected(f"{where}: expected a rational 'p/q', got {str(value)[:40]!r}")
    numerator, _, denominator = value.partition("/")
    sign = -1 if numerator.startswith("-") else 1
    denominator = _digits(denominator) if denominator else 1
    if denominator == 0:
        raise Rejected(f"{where}: zero denominator")
    return Fraction(sign * _digits(numerator.lstrip("-")), denominator)


def _count(value, where, low):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise Rejected(f"{where}: expected an integer >= {low}, got {value!r}")
    return value


def _read_path(data, d, where):
    """{(base, power): [coefficient vector]} with zero vectors dropped and equal keys summed."""
    if not isinstance(data, list):
        raise Rejected(f"{where}: expected a list of terms")
    path = {}
    for i, term in enumerate(data):
        here = f"{where}[{i}]"
        if not isinstance(term, dict):
            raise Rejected(f"{here}: expected an object")
        base = _number(term.get("base"), here + ".base")
        if base <= 0 or base > 1:
            raise Rejected(f"{here}.base: must satisfy 0 < base <= 1, got {base}")
        power = _count(term.get("power"), here + ".power", 0)
        vector = term.get("coefficient")
        if not isinstance(vector, list) or len(vector) != d:
            raise Rejected(f"{here}.coefficient: expected {d} numbers")
        coefficient = [_number(x, f"{here}.coefficient[{c}]") for c, x in enumerate(vector)]
        old = path.get((base, power), [Fraction(0)] * d)
        path[(base, power)] = [x + y for x, y in zip(old, coefficient)]
    return {key: c for key, c in path.items() if any(c)}


def _read_sets(data, n, where):
    if not isinstance(data, list) or len(data) != n:
        raise Rejected(f"{where}: expected {n} sets")
    sets = []
    for j, members in enumerate(data):
        if not isinstance(members, list) or not members:
            raise Rejected(f"{where}[{j}]: expected a non-empty list of tokens")
        chosen = set()
        for v in members:
            if _count(v, f"{where}[{j}]", 0) >= n:
                raise Rejected(f"{where}[{j}]: token {v} out of range")
            chosen.add(v)
        sets.append(chosen)
    return sets


# ----------------------------------------------------------------------------- exponential polynomials


def _value(path, t, d):
    """The exact vector zhat(t)."""
    total = [Fraction(0)] * d
    for (base, power), c in path.items():
        weight = Fraction(t) ** power * base ** t
        total = [x + weight * y for x, y in zip(total, c)]
    return total


def _next(path, d):
    """zhat(t + 1) as coefficients: c (t+1)^a b^(t+1) = sum_i c b binom(a, i) t^i b^t."""
    out = {}
    for (base, power), c in path.items():
        for i in range(power + 1):
            factor = base * math.comb(power, i)
            old = out.get((base, i), [Fraction(0)] * d)
            out[(base, i)] = [x + factor * y for x, y in zip(old, c)]
    return {key: c for key, c in out.items() if any(c)}


def _rule(path_j, members, paths, r, gamma, d):
    """r zhat_j(t) + gamma mean_{v in F_j} zhat_v(t) as coefficients."""
    out = {key: [r * x for x in c] for key, c in path_j.items()}
    weight = gamma / len(members)
    for v in members:
        for key, c in paths[v].items():
            old = out.get(key, [Fraction(0)] * d)
            out[key] = [x + weight * y for x, y in zip(old, c)]
    return {key: c for key, c in out.items() if any(c)}


class _SegmentScores:
    """The scores <A zhat_j(t), zhat_v(t)> of one segment, times a positive constant.

    Every coefficient is multiplied by one common denominator (and A by its own), so the
    arithmetic is on integers; bases are numbered, and a score is {(base pair, power): integer}.
    A positive constant changes no sign and no identity. :meth:`scalar` turns a difference of
    two scores back into {(base, power): Fraction} for the sign checks.
    """

    def __init__(self, paths, matrix):
        bases = sorted({b for path in paths for b, _ in path})
        number = {b: i for i, b in enumerate(bases)}
        self.bases = sorted({b * c for b in bases for c in bases})  # products of two path bases
        product_number = {b: i for i, b in enumerate(self.bases)}
        self.products = {(i, k): product_number[b * c] for i, b in enumerate(bases) for k, c in enumerate(bases)}
        scale = math.lcm(*(x.denominator for path in paths for c in path.values() for x in c))
        a_scale = math.lcm(*(x.denominator for row in matrix for x in row))
        whole = [[int(x * a_scale) for x in row] for row in matrix]
        self.right = [[(number[b], a, [int(x * scale) for x in c]) for (b, a), c in path.items()] for path in paths]
        self.left = [[(i, a, [sum(m * x for m, x in zip(row, c)) for row in whole]) for i, a, c in terms]
                     for terms in self.right]

    def score(self, j, v):
        out = {}
        for i, a1, c1 in self.left[j]:
            for k, a2, c2 in self.right[v]:
                x = sum(p * q for p, q in zip(c1, c2))
                if x:
                    key = (self.products[(i, k)], a1 + a2)
                    out[key] = out.get(key, 0) + x
        return out

    def scalar(self, score_p, score_q):
        """score_p - score_q as {(base, power): Fraction}, zero coefficients dropped."""
        out = dict(score_p)
        for key, x in score_q.items():
            out[key] = out.get(key, 0) - x
        return {(self.bases[b], a): Fraction(x) for (b, a), x in out.items() if x}


def _scalar_signs(f, start, stop):
    """(t, N(t)) for t = start .. stop - 1 with N(t) = f(t) D L^t an integer (D, L > 0): N(t) has
    the sign of f(t). L is the common denominator of the bases, D of the coefficients."""
    L = math.lcm(*(b.denominator for b, _ in f))
    D = math.lcm(*(x.denominator for x in f.values()))
    by_base = {}
    for (b, a), x in f.items():
        by_base.setdefault(b.numerator * (L // b.denominator), []).append((a, x.numerator * (D // x.denominator)))
    powers = {P: P ** start for P in by_base}
    for t in range(start, stop):
        yield t, sum(sum(c * t ** a for a, c in terms) * powers[P] for P, terms in by_base.items())
        for P in powers:
            powers[P] *= P


def _threshold(f):
    """T with sign f(t) = sign of the leading coefficient for every t >= T (see the module docstring)."""
    lead_key = max(f)
    b, a = lead_key
    c = f[lead_key]
    against = [(key, x) for key, x in f.items() if key != lead_key and (x > 0) != (c > 0)]
    t0 = 1
    for (bi, ai), _ in against:
        q = bi / b
        if q < 1 and ai > a:
            t0 = max(t0, math.ceil((ai - a) / (1 - q)))
    # sum R_i(T) < 1  iff  |c| T^a b^T - sum |c_i| T^(a_i) b_i^T > 0: the sign of one more exp-poly at T.
    margin = {lead_key: abs(c)}
    for key, x in against:
        margin[key] = -abs(x)
    T = t0
    while True:
        if T > MAX_THRESHOLD:
            raise TooExpensive(f"a sign needs a scan beyond t = {MAX_THRESHOLD}")
        for _, value in _scalar_signs(margin, T, T + 1):
            if value > 0:
                return T
        T *= 2


def _distinct_base_bound(f):
    highest = {}
    for b, a in f:
        highest[b] = max(highest.get(b, 0), a)
    return sum(1 + a for a in highest.values())


def _check_tie(f, until, what):
    """f = 0 at every t < until (until None: identically, by coefficients)."""
    if not f:
        return
    if until is None:
        raise Rejected(f"{what}: the tie is not an identity (nonzero coefficients)")
    # A nonzero f vanishes at no more than M - 1 integers: among min(until, M) values a nonzero
    # shows exactly when the tie breaks before until.
    for t, value in _scalar_signs(f, 0, min(until, _distinct_base_bound(f))):
        if value != 0:
            raise Rejected(f"{what}: the tie breaks at t = {t}")


def _check_positive(f, until, what):
    """f > 0 at every t < until (until None: every t >= 0); returns the threshold used (0 if none)."""
    if not f:
        raise Rejected(f"{what}: the difference vanishes identically")
    if all(x > 0 for x in f.values()):
        # Every term is positive for t >= 1; at t = 0 only the terms without a power of t remain.
        if sum((x for (_, a), x in f.items() if a == 0), Fraction(0)) <= 0:
            raise Rejected(f"{what}: fails at t = 0")
        return 1
    lead = f[max(f)]
    if until is None and lead < 0:
        raise Rejected(f"{what}: the leading coefficient is negative, so it fails for large t")
    try:
        T = _threshold(f)
    except TooExpensive:
        if until is None or until > MAX_THRESHOLD:
            raise
        T = until
    stop = min(until, T) if until is not None and lead > 0 else (until if until is not None else T)
    for t, value in _scalar_signs(f, 0, stop):
        if value <= 0:
            raise Rejected(f"{what}: fails at t = {t} ({'zero' if value == 0 else 'negative'})")
    return T if lead > 0 else 0


# ----------------------------------------------------------------------------- the chain


def verify_closed_form(certificate, *, positions, alpha, A=None):
    """Verify a closed-form certificate against the caller's exact data; raise :class:`Rejected`.

    ``positions``: the exact positions (Fractions) of every token at the chain's first layer,
    from a trusted source (the configuration, or the checker's own replay); ``alpha`` > 0;
    ``A``: the d x d matrix (None: identity). Returns a summary: the segments' layers, the
    layer from which the last segment holds, the largest threshold used, and for a certified
    chain the limits and the leaders with their first layers (checked against the
    certificate's claims when it makes them).
    """
    if not isinstance(certificate, dict) or certificate.get("format") != FORMAT:
        raise Rejected(f"format: expected {FORMAT!r}")
    n = len(positions)
    d = len(positions[0])
    start = [[Fraction(x) for x in p] for p in positions]
    alpha = Fraction(alpha)
    if alpha <= 0:
        raise Rejected("alpha: must be positive")
    r = 1 / (1 + alpha)
    gamma = 1 - r
    matrix = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)] if A is None else \
        [[Fraction(x) for x in row] for row in A]
    status = certificate.get("status")
    if status not in ("certified", "unsettled"):
        raise Rejected(f"status: expected certified or unsettled, got {status!r}")
    segments = certificate.get("segments")
    if not isinstance(segments, list) or not segments or len(segments) > MAX_SEGMENTS:
        raise Rejected("segments: expected a non-empty list")
    layer = _count(certificate.get("start_layer"), "start_layer", 0)
    layers = []
    all_sets = []
    largest = 0
    previous_paths = None
    sets = paths = None
    for s, segment in enumerate(segments):
        where = f"segments[{s}]"
        if not isinstance(segment, dict):
            raise Rejected(f"{where}: expected an object")
        if _count(segment.get("layer"), where + ".layer", 0) != layer:
            raise Rejected(f"{where}.layer: expected {layer}, got {segment.get('layer')!r}")
        last = s == len(segments) - 1
        sets = _read_sets(segment.get("sets"), n, where + ".sets")
        all_sets.append((layer, sets))
        if segment.get("paths") is None:
            # Only an unsettled chain may end without paths; it then states where it stopped.
            if not last or status != "unsettled":
                raise Rejected(f"{where}.paths: missing")
            stated = segment.get("positions")
            if not isinstance(stated, list) or len(stated) != n:
                raise Rejected(f"{where}.positions: expected {n} positions")
            for j, p in enumerate(stated):
                if not isinstance(p, list) or [_number(x, f"{where}.positions[{j}]") for x in p] != start[j]:
                    raise Rejected(f"{where}.positions[{j}]: not the position reached at layer {layer}")
            layers.append(layer)
            paths = None
            break
        raw = segment.get("paths")
        if not isinstance(raw, list) or len(raw) != n:
            raise Rejected(f"{where}.paths: expected {n} paths")
        paths = [_read_path(p, d, f"{where}.paths[{j}]") for j, p in enumerate(raw)]
        until = segment.get("until")
        if until is not None:
            until = _count(until, where + ".until", 1)
        if last and status == "certified" and until is not None:
            raise Rejected(f"{where}.until: the last segment of a certified chain must hold for every t (null)")
        if until is None and not (last and status == "certified"):
            raise Rejected(f"{where}.until: only the last segment of a certified chain may hold for every t")
        # (i)
        for j in range(n):
            if _value(paths[j], 0, d) != start[j]:
                raise Rejected(f"{where}: (i) token {j} does not start at its position of layer {layer}")
        # (ii)
        for j in range(n):
            if _next(paths[j], d) != _rule(paths[j], sets[j], paths, r, gamma, d):
                raise Rejected(f"{where}: (ii) token {j}'s path does not satisfy the update rule identically")
        # (iii)
        table = _SegmentScores(paths, matrix)
        for j in range(n):
            members = sorted(sets[j])
            scores = [table.score(j, v) for v in range(n)]
            first = members[0]
            for v in members[1:]:
                _check_tie(table.scalar(scores[v], scores[first]), until,
                           f"{where}: (iii) token {j}, members {first} and {v}")
            for w in range(n):
                if w not in sets[j]:
                    largest = max(largest, _check_positive(table.scalar(scores[first], scores[w]), until,
                                                           f"{where}: (iii) token {j}, member {first} over {w}"))
        layers.append(layer)
        if until is not None:
            start = [_value(paths[j], until, d) for j in range(n)]
            layer += until
        previous_paths = paths
    summary = {"layers": layers, "final_layer": layers[-1], "largest_threshold": largest}
    if status != "certified":
        summary["reached_layer"] = layer
        return summary
    assert paths is not None and previous_paths is paths
    limits = []
    for j, path in enumerate(paths):
        if any(base == 1 and power > 0 for base, power in path):
            raise Rejected(f"token {j}: the final path grows without bound")
        limits.append(path.get((Fraction(1), 0), [Fraction(0)] * d))
    leaders = {}
    for start_layer, sets in all_sets:
        for j, members in enumerate(sets):
            if members == {j} and j not in leaders:
                leaders[j] = start_layer
    if "limits" in certificate:
        stated = certificate["limits"]
        if not isinstance(stated, list) or len(stated) != n or any(
                not isinstance(p, list) or [_number(x, f"limits[{j}]") for x in p] != limits[j]
                for j, p in enumerate(stated)):
            raise Rejected("limits: not the constant terms of the final paths")
    if "leaders" in certificate:
        stated = certificate["leaders"]
        if not isinstance(stated, list) or not all(isinstance(x, dict) for x in stated) or \
                {(x.get("token"), x.get("first_layer")) for x in stated} != set(leaders.items()) or \
                len(stated) != len(leaders):
            raise Rejected("leaders: not the tokens with F_j = {j} at their first segment")
    summary["limits"] = limits
    summary["leaders"] = leaders
    return summary


def verify_file(path, *, positions, alpha, A=None):
    """Read a certificate file (JSON) and verify it; see :func:`verify_closed_form`."""
    with open(path, encoding="utf-8") as handle:
        return verify_closed_form(json.load(handle), positions=positions, alpha=alpha, A=A)
