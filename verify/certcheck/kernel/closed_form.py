"""Closed-form chains (docs/theory.md D9), verified exactly; a run's certified chain read from its verdicts.

A chain (format hardmax-verify/closed-form-v1) is a list of segments. For segment s, starting at
layer k_s with sets F_j and paths zhat_j(t) (exponential polynomials, sums of c t^a b^t), it is
verified exactly:

(i)   zhat_j(0) is the replay's position of token j at the chain's first layer for s = 0, and the
      previous segment's zhat_j(until) later, with k_s = k_(s-1) + until;
(ii)  zhat_j(t+1) = r zhat_j(t) + gamma mean_{v in F_j} zhat_v(t) as an identity: both sides
      expanded into coefficients of t^a b^t ((t+1)^a by the binomial theorem) and compared (these
      functions are linearly independent on the integers t >= 0);
(iii) with s_jv(t) = <A zhat_j(t), zhat_v(t)>: s_jv - s_jv' vanishes for v, v' in F_j, and
      s_jv - s_jw > 0 for w outside F_j, at every integer t in [0, until), or every t >= 0 for the
      last segment of a certified chain; not needed for a token whose attention set is F_j at
      every layer from the segment's on by a D7 fate (leader, fixed, locked) the caller verified
      on the replay by the chain's first layer (D9: the induction takes those sets from D7). Over a
      jump of at most _DIRECT_SCAN layers it is checked at each t from the positions zhat(t).

Signs for every t >= 0 use a threshold computed here, never read from the chain (none when a
leading c b^t outweighs the negative terms, all without a power of t, together): with c t^a b^t
the leading term (largest b, then largest a) and R_i(t) = |c_i/c| t^(a_i-a) (b_i/b)^t for every
other term whose coefficient has the sign opposite to c, each R_i is nonincreasing for
t >= t_i = max(1, ceil((a_i - a)/(1 - b_i/b))), so from the first T in t_0, 2 t_0, 4 t_0, ...
with sum R_i(T) < 1 on, f has the sign of c. Below T every t is evaluated exactly. A tie that is
not identical is nonzero somewhere among any M consecutive integers (M = sum over distinct b of
1 + highest power), which bounds that work. Numbers of a chain may be longer than int() reads
from text (positions after a jump of t layers have about t log10(1 + 1/alpha) digits): they are
read here in chunks, up to MAX_CHAIN_DIGITS; every other number of a file keeps MAX_DIGITS.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from typing import Any, NamedTuple

from .common import Rejected, counted
from .limits import MAX_CHAIN_DIGITS, MAX_CHAIN_SEGMENTS, MAX_CHAIN_THRESHOLD
from .meter import charge, cost, gcd_cost
from .fates import _search_fates, fate_attention_sets
from .model import Chain, Model
from .numbers import bits_of, integer_rows, read_digits, _q


CLOSED_FORM_FORMAT = "hardmax-verify/closed-form-v1"
# MAX_CHAIN_THRESHOLD (.limits) is the largest t the checker scans a sign up to or evaluates a path
# at (a sign threshold, a segment's `until`); a chain that needs more is not checkable here: neither
# verified nor rejected.
# Over a jump of at most this many layers every t is evaluated: fewer values than a threshold's search.
_DIRECT_SCAN = 16
_SEGMENT_KINDS = {"unsettled": "without paths", "jump": "that ends at its until", "certified": "that holds for every t"}
_CF_RATIONAL = re.compile(r"\A-?[0-9]+(/[0-9]+)?\Z", re.ASCII)


class TooExpensive(Exception):
    """A chain needs a scan or an evaluation beyond :data:`MAX_CHAIN_THRESHOLD`: neither verified nor rejected.

    A limit of this checker, not a fault of the chain: what rests on the chain is *unsupported*
    (exit status 3), never rejected. Raised only after every other condition the checker can
    reach has held, so a chain that is also wrong somewhere it can check is rejected instead.
    """


def _cf_number(value, where):
    if isinstance(value, bool):
        raise Rejected(f"{where}: expected a rational, got a boolean")
    if isinstance(value, int):
        return Fraction(value)
    if not isinstance(value, str) or len(value) > MAX_CHAIN_DIGITS or not _CF_RATIONAL.match(value):
        raise Rejected(f"{where}: expected a rational 'p/q', got {str(value)[:40]!r}")
    numerator, _, denominator = value.partition("/")
    sign = -1 if numerator.startswith("-") else 1
    bits = int(len(value) * 3.33) + 1
    charge(cost(2, bits, bits) + gcd_cost(1, bits))  # the digits' conversion, then the reduction
    denominator = read_digits(denominator) if denominator else 1
    if denominator == 0:
        raise Rejected(f"{where}: zero denominator")
    return Fraction(sign * read_digits(numerator.lstrip("-")), denominator)


def _cf_bits(paths) -> int:
    """The largest bit size among the bases and coefficients of exponential polynomials."""
    return max((max(x.numerator.bit_length(), x.denominator.bit_length())
                for path in paths for (base, _), c in path.items() for x in (base, *c)), default=1)


def _cf_jordan_problem(paths, n) -> str | None:
    """Why ``paths`` cannot satisfy the update rule of n tokens, by the size of their terms (None: they may).

    The rule zhat(t+1) = M zhat(t) (M the n x n matrix r I + gamma W of the segment's sets) is a
    linear recurrence: by coordinate and base b, the coefficient polynomials q satisfy
    b q(t+1) = M q(t), so a term t^a b^t with a nonzero coefficient needs a Jordan chain of M of
    length a + 1 at the eigenvalue b. Over all bases, sum (1 + highest power) <= n. A chain that
    states more is rejected before any term is expanded (this bounds every power, and the number
    of terms of a path, by n).
    """
    highest: dict = {}
    for path in paths:
        for base, power in path:
            highest[base] = max(highest.get(base, 0), power)
    needed = sum(1 + a for a in highest.values())
    if needed > n:
        return (f"its terms need {needed} independent solutions of the update rule (sum over the bases of 1 + the "
                f"highest power), but {n} tokens have at most {n} (D9: powers below the Jordan chains of the rule)")
    return None


def _cf_count(value, where, low):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise Rejected(f"{where}: expected an integer >= {low}, got {value!r}")
    return value


def _cf_read_path(data, d, where):
    """{(base, power): [coefficient vector]} with zero vectors dropped and equal keys summed."""
    if not isinstance(data, list):
        raise Rejected(f"{where}: expected a list of terms")
    path = {}
    for i, term in enumerate(data):
        here = f"{where}[{i}]"
        if not isinstance(term, dict):
            raise Rejected(f"{here}: expected an object")
        base = _cf_number(term.get("base"), here + ".base")
        if base <= 0 or base > 1:
            raise Rejected(f"{here}.base: must satisfy 0 < base <= 1, got {_q(base)}")
        power = _cf_count(term.get("power"), here + ".power", 0)
        vector = term.get("coefficient")
        if not isinstance(vector, list) or len(vector) != d:
            raise Rejected(f"{here}.coefficient: expected {counted(d, 'number')}")
        coefficient = [_cf_number(x, f"{here}.coefficient[{c}]") for c, x in enumerate(vector)]
        old = path.get((base, power), [Fraction(0)] * d)
        path[(base, power)] = [x + y for x, y in zip(old, coefficient)]
    return {key: c for key, c in path.items() if any(c)}


def _cf_read_sets(data, n, where):
    if not isinstance(data, list) or len(data) != n:
        raise Rejected(f"{where}: expected {counted(n, 'set')}")
    sets = []
    for j, members in enumerate(data):
        if not isinstance(members, list) or not members:
            raise Rejected(f"{where}[{j}]: expected a non-empty list of tokens")
        chosen = set()
        for v in members:
            if _cf_count(v, f"{where}[{j}]", 0) >= n:
                raise Rejected(f"{where}[{j}]: token {v} out of range")
            chosen.add(v)
        sets.append(chosen)
    return sets


# ----------------------------------------------------------------------------- exponential polynomials


def _cf_value(path, t, d):
    """The exact vector zhat(t)."""
    total = [Fraction(0)] * d
    bits = _cf_bits([path])
    for (base, power), c in path.items():
        size = t * max(base.numerator.bit_length(), base.denominator.bit_length()) + power * t.bit_length() + bits
        charge(gcd_cost(d + 1, size))
        weight = Fraction(t) ** power * base ** t
        total = [x + weight * y for x, y in zip(total, c)]
    return total


def _cf_next(path, d):
    """zhat(t + 1) as coefficients: c (t+1)^a b^(t+1) = sum_i c b binom(a, i) t^i b^t."""
    out = {}
    for (base, power), c in path.items():
        for i in range(power + 1):
            factor = base * math.comb(power, i)
            old = out.get((base, i), [Fraction(0)] * d)
            out[(base, i)] = [x + factor * y for x, y in zip(old, c)]
    return {key: c for key, c in out.items() if any(c)}


def _cf_rule(path_j, members, paths, r, gamma, d):
    """r zhat_j(t) + gamma mean_{v in F_j} zhat_v(t) as coefficients."""
    out = {key: [r * x for x in c] for key, c in path_j.items()}
    weight = gamma / len(members)
    for v in members:
        for key, c in paths[v].items():
            old = out.get(key, [Fraction(0)] * d)
            out[key] = [x + weight * y for x, y in zip(old, c)]
    return {key: c for key, c in out.items() if any(c)}


class _CFScores:
    """The scores <A zhat_j(t), zhat_v(t)> of one segment, times a positive constant.

    Every coefficient is multiplied by one common denominator (and A by its own), so the
    arithmetic is on integers; bases are numbered, and a score is {(base pair, power): integer}.
    A positive constant changes no sign and no identity. Base number i stands for P[i] / L, with
    integers P increasing with the base (L the bases' common denominator).
    """

    def __init__(self, paths, matrix):
        bases = sorted({b for path in paths for b, _ in path})
        number = {b: i for i, b in enumerate(bases)}
        self.bases = sorted({b * c for b in bases for c in bases})  # products of two path bases
        product_number = {b: i for i, b in enumerate(self.bases)}
        L = math.lcm(*(b.denominator for b in self.bases))
        self.P = [b.numerator * (L // b.denominator) for b in self.bases]
        self.products = {(i, k): product_number[b * c] for i, b in enumerate(bases) for k, c in enumerate(bases)}
        denominators = [x.denominator for path in paths for c in path.values() for x in c]
        bits = _cf_bits(paths)
        # The common denominator (at most the sum of the sizes), then A times every scaled coefficient;
        # the scores themselves are paid for row by row (:meth:`charge_row`), as only some rows are checked.
        scale_bits = min(sum(x.bit_length() for x in denominators), len(denominators) * bits) + 1
        charge(cost(len(denominators), scale_bits, bits))
        scale = math.lcm(*denominators)
        self.total_terms = sum(len(path) for path in paths)
        self.d = len(matrix)
        self.size = size = scale.bit_length() + bits
        self.a_bits = a_bits = max(max(x.numerator.bit_length(), x.denominator.bit_length()) for row in matrix for x in row)
        charge(cost(self.total_terms * self.d * self.d, size, a_bits))
        a_scale = math.lcm(*(x.denominator for row in matrix for x in row))
        whole = [[int(x * a_scale) for x in row] for row in matrix]
        self.right = [[(number[b], a, [int(x * scale) for x in c]) for (b, a), c in path.items()] for path in paths]
        self.left = [[(i, a, [sum(m * x for m, x in zip(row, c)) for row in whole]) for i, a, c in terms]
                     for terms in self.right]

    def charge_row(self, j):
        """Pay for the scores of row j against every token: |T_j| |T_v| d products of scaled integers for each v."""
        charge(cost(len(self.left[j]) * self.total_terms * self.d, self.size + self.a_bits, self.size))

    def score(self, j, v):
        out = {}
        for i, a1, c1 in self.left[j]:
            for k, a2, c2 in self.right[v]:
                x = sum(p * q for p, q in zip(c1, c2))
                if x:
                    key = (self.products[(i, k)], a1 + a2)
                    out[key] = out.get(key, 0) + x
        return out

    def difference(self, score_p, score_q):
        """score_p - score_q as {(base number, power): integer}, zero coefficients dropped (see :func:`_cf_signs`)."""
        out = dict(score_p)
        for key, x in score_q.items():
            out[key] = out.get(key, 0) - x
        return {key: x for key, x in out.items() if x}


def _cf_signs(f, P, start, stop):
    """(t, N(t)) for t = start .. stop - 1, f = {(i, a): integer c} standing for sum c t^a (P[i] / L)^t with
    integers P[i], L > 0: N(t) = f(t) L^t is an integer with the sign of f(t)."""
    by_base = {}
    for (i, a), c in f.items():
        by_base.setdefault(P[i], []).append((a, c))
    coefficient_bits = max(abs(c).bit_length() + a * max(stop, 1).bit_length() for terms in by_base.values()
                           for a, c in terms)
    charge(cost(max(stop - start, 0) * len(f), coefficient_bits,
                  max(stop, 1) * max(base.bit_length() for base in by_base)))
    powers = {base: base ** start for base in by_base}
    for t in range(start, stop):
        yield t, sum(sum(c * t ** a for a, c in terms) * powers[base] for base, terms in by_base.items())
        for base in powers:
            powers[base] *= base


def _cf_threshold(f, P):
    """T with sign f(t) = sign of the leading coefficient for every t >= T (see the module docstring)."""
    lead_key = max(f)  # base numbers increase with the base
    i, a = lead_key
    c = f[lead_key]
    against = [(key, x) for key, x in f.items() if key != lead_key and (x > 0) != (c > 0)]
    t0 = 1
    for (k, ak), _ in against:
        if P[k] < P[i] and ak > a:  # t_k = ceil((a_k - a) / (1 - P[k] / P[i]))
            t0 = max(t0, -(-(ak - a) * P[i] // (P[i] - P[k])))
    # sum R_i(T) < 1  iff  |c| T^a b^T - sum |c_i| T^(a_i) b_i^T > 0: the sign of one more exp-poly at T.
    margin = {lead_key: abs(c)}
    for key, x in against:
        margin[key] = -abs(x)
    T = t0
    while True:
        if T > MAX_CHAIN_THRESHOLD:
            raise TooExpensive(f"a sign needs a scan beyond t = {MAX_CHAIN_THRESHOLD}")
        for _, value in _cf_signs(margin, P, T, T + 1):
            if value > 0:
                return T
        T *= 2


def _cf_zero_bound(f):
    highest = {}
    for i, a in f:
        highest[i] = max(highest.get(i, 0), a)
    return sum(1 + a for a in highest.values())


def _cf_check_tie(f, P, until, what):
    """f = 0 at every t < until (until None: identically, by coefficients); f as in :func:`_cf_signs`."""
    if not f:
        return
    if until is None:
        raise Rejected(f"{what}: the tie is not an identity (nonzero coefficients)")
    # A nonzero f vanishes at no more than M - 1 integers: among min(until, M) values a nonzero
    # shows exactly when the tie breaks before until.
    for t, value in _cf_signs(f, P, 0, min(until, _cf_zero_bound(f))):
        if value != 0:
            raise Rejected(f"{what}: the tie breaks at t = {t}")


def _cf_check_positive(f, P, until, what):
    """f > 0 at every t < until (until None: every t >= 0), f as in :func:`_cf_signs`; returns the threshold
    used (0 if none)."""
    if not f:
        raise Rejected(f"{what}: the difference vanishes identically")
    if all(x > 0 for x in f.values()):
        # Every term is positive for t >= 1; at t = 0 only the terms without a power of t remain.
        if sum(x for (_, a), x in f.items() if a == 0) <= 0:
            raise Rejected(f"{what}: fails at t = 0")
        return 1
    lead_key = max(f)
    lead = f[lead_key]
    if until is None and lead < 0:
        raise Rejected(f"{what}: the leading coefficient is negative, so it fails for large t")
    if lead_key[1] == 0 and all(a == 0 for (_, a), x in f.items() if x < 0) and \
            lead > -sum(x for x in f.values() if x < 0):
        return 1  # the lead c b^t outweighs the negative c_i b_i^t (b_i <= b) together at every t >= 0
    try:
        T = _cf_threshold(f, P)
    except TooExpensive:
        if until is None or until > MAX_CHAIN_THRESHOLD:
            raise
        T = until
    # From T on, f has its leading coefficient's sign: positive, nothing past T can fail; negative, f(T) < 0
    # fails (when T < until), so the scan need not go past T either way.
    stop = T if until is None else min(until, T) if lead > 0 else min(until, T + 1)
    for t, value in _cf_signs(f, P, 0, stop):
        if value <= 0:
            raise Rejected(f"{what}: fails at t = {t} ({'zero' if value == 0 else 'negative'})")
    return T if lead > 0 else 0


def _cf_check_sets(paths, sets, rows, matrix, until, where, largest, beyond_limit):
    """(iii) for the rows given, at every t < until (None: every t >= 0), by the exp-polys of the score
    differences; returns the largest threshold used and the first sign beyond the checker's limits."""
    table = _CFScores(paths, matrix)
    for j in rows:
        table.charge_row(j)
        members = sorted(sets[j])
        scores = [table.score(j, v) for v in range(len(paths))]
        first = members[0]
        for v in members[1:]:
            _cf_check_tie(table.difference(scores[v], scores[first]), table.P, until,
                          f"{where}: (iii) token {j}, members {first} and {v}")
        for w in range(len(paths)):
            if w not in sets[j]:
                what = f"{where}: (iii) token {j}, member {first} over {w}"
                try:
                    largest = max(largest, _cf_check_positive(table.difference(scores[first], scores[w]), table.P,
                                                              until, what))
                except TooExpensive as error:
                    beyond_limit = beyond_limit or f"{what}: {error}"
    return largest, beyond_limit


def _cf_check_sets_at(paths, sets, rows, matrix, until, where):
    """(iii) for the rows given at each t < until, from the positions zhat(t) as integer rows: a row's scores
    are n inner products, its set must be the tokens of the highest. A failure is reported as
    :func:`_cf_check_sets` reports it (by row, then ties, then the tokens outside, then t)."""
    d = len(matrix)
    whole, _ = integer_rows(matrix)
    rights = []
    for t in range(until):
        points = [_cf_value(path, t, d) for path in paths]
        size = max(max(x.numerator.bit_length(), x.denominator.bit_length()) for p in points for x in p)
        charge(cost(len(points) * d, min(sum(x.denominator.bit_length() for p in points for x in p),
                                         len(points) * d * size) + 1, size))  # the common denominator, times each
        rights.append(integer_rows(points)[0])
        size = bits_of(rights[-1])
        charge(cost(len(rows) * (len(points) + d) * d, size + bits_of(whole), size))
    for j in rows:
        scores = []
        for right in rights:
            left = [sum(m * x for m, x in zip(row, right[j])) for row in whole]
            scores.append([sum(p * q for p, q in zip(left, z)) for z in right])
        first, *others = sorted(sets[j])
        if all(max(row) == row[first] and row.count(row[first]) == 1 + len(others) and
               all(row[v] == row[first] for v in others) for row in scores):
            continue  # F_j holds the highest score, which no other token has
        for t, v in ((t, v) for v in others for t, row in enumerate(scores) if row[v] != row[first]):
            raise Rejected(f"{where}: (iii) token {j}, members {first} and {v}: the tie breaks at t = {t}")
        for t, w in ((t, w) for w in range(len(paths)) if w not in sets[j] for t, row in enumerate(scores)
                     if row[w] >= row[first]):
            raise Rejected(f"{where}: (iii) token {j}, member {first} over {w}: fails at t = {t} "
                           f"({'zero' if scores[t][w] == scores[t][first] else 'negative'})")


# ----------------------------------------------------------------------------- the chain


def verify_closed_form(certificate, *, positions, alpha, A=None, fated=None):
    """Verify a closed-form certificate against the caller's exact data; raise :class:`Rejected`, or
    :class:`TooExpensive` when a condition is beyond this checker's limits and every other one holds.

    ``positions``: the exact positions (Fractions) of every token at the chain's first layer,
    from a trusted source (the configuration, or the checker's own replay); ``alpha`` > 0;
    ``A``: the d x d matrix (None: identity); ``fated``: {token: its attention set} for the tokens
    with a D7 fate the caller verified on the replay by the chain's first layer (leader {j}, fixed
    G + {j}, locked F), whose sets stay so forever: in a segment that gives such a token that set,
    its row of (iii) is not checked (docs/theory.md D9). Returns a summary: the segments' layers, the
    layer from which the last segment holds, the largest threshold used, and for a certified
    chain the limits and the leaders with their first layers (checked against the
    certificate's claims when it makes them).
    """
    if not isinstance(certificate, dict) or certificate.get("format") != CLOSED_FORM_FORMAT:
        raise Rejected(f"format: expected {CLOSED_FORM_FORMAT!r}")
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
    if not isinstance(segments, list) or not segments or len(segments) > MAX_CHAIN_SEGMENTS:
        raise Rejected("segments: expected a non-empty list")
    layer = _cf_count(certificate.get("start_layer"), "start_layer", 0)
    layers = []
    all_sets = []
    largest = 0
    beyond_limit = None  # the first sign the checker could not scan (raised once everything else held)
    previous_paths = None
    sets = paths = None
    for s, segment in enumerate(segments):
        where = f"segments[{s}]"
        if not isinstance(segment, dict):
            raise Rejected(f"{where}: expected an object")
        if _cf_count(segment.get("layer"), where + ".layer", 0) != layer:
            raise Rejected(f"{where}.layer: expected {layer}, got {segment.get('layer')!r}")
        last = s == len(segments) - 1
        kind = "unsettled" if segment.get("paths") is None else "jump" if segment.get("until") is not None else "certified"
        if segment.get("status") != kind:
            raise Rejected(f"{where}.status: expected {kind!r} for a segment {_SEGMENT_KINDS[kind]}, got "
                           f"{str(segment.get('status'))[:20]!r}")
        sets = _cf_read_sets(segment.get("sets"), n, where + ".sets")
        all_sets.append((layer, sets))
        if segment.get("paths") is None:
            # Only an unsettled chain may end without paths; it then states where it stopped.
            if not last or status != "unsettled":
                raise Rejected(f"{where}.paths: missing")
            stated = segment.get("positions")
            if not isinstance(stated, list) or len(stated) != n:
                raise Rejected(f"{where}.positions: expected {counted(n, 'position')}")
            for j, p in enumerate(stated):
                if not isinstance(p, list) or ([_cf_number(x, f"{where}.positions[{j}]") for x in p] != start[j]
                                               if start is not None else len(p) != d):
                    raise Rejected(f"{where}.positions[{j}]: not the position reached at layer {layer}")
            layers.append(layer)
            paths = None
            break
        raw = segment.get("paths")
        if not isinstance(raw, list) or len(raw) != n:
            raise Rejected(f"{where}.paths: expected {counted(n, 'path')}")
        paths = [_cf_read_path(p, d, f"{where}.paths[{j}]") for j, p in enumerate(raw)]
        until = segment.get("until")
        if until is not None:
            until = _cf_count(until, where + ".until", 1)
        if last and status == "certified" and until is not None:
            raise Rejected(f"{where}.until: the last segment of a certified chain must hold for every t (null)")
        if until is None and not (last and status == "certified"):
            raise Rejected(f"{where}.until: only the last segment of a certified chain may hold for every t")
        # (i), unless the segment starts beyond the last t this checker evaluates a path at (start is None)
        for j in range(n if start is not None else 0):
            if _cf_value(paths[j], 0, d) != start[j]:
                raise Rejected(f"{where}: (i) token {j} does not start at its position of layer {layer}")
        # (ii), paid for first: the expansions of (t+1)^a and the rule's sums, fraction by fraction
        jordan = _cf_jordan_problem(paths, n)
        if jordan is not None:
            raise Rejected(f"{where}: (ii) {jordan}")
        bits = _cf_bits(paths) + _cf_bits([{(Fraction(1), 0): [r, gamma]}])
        terms = [len(path) for path in paths]
        charge(gcd_cost(d * sum(sum(a + 1 for _, a in path) + len(path) + sum(terms[v] for v in sets[j])
                                  for j, path in enumerate(paths)), 2 * bits + 64))
        for j in range(n):
            if _cf_next(paths[j], d) != _cf_rule(paths[j], sets[j], paths, r, gamma, d):
                raise Rejected(f"{where}: (ii) token {j}'s path does not satisfy the update rule identically")
        # (iii): over a short jump at each t from the positions, else for every t from the scores' exp-polys
        rows = [j for j in range(n) if fated is None or fated.get(j) != sets[j]]  # fated: C_j = F_j by D7 from here
        if until is not None and until <= _DIRECT_SCAN:
            _cf_check_sets_at(paths, sets, rows, matrix, until, where)
        else:
            largest, beyond_limit = _cf_check_sets(paths, sets, rows, matrix, until, where, largest, beyond_limit)
        layers.append(layer)
        if until is not None:
            if until > MAX_CHAIN_THRESHOLD or start is None:
                # Evaluating the paths at t = until (the next segment's start) is the expensive part. The later
                # segments are still checked in full but for (i), and the reason says so.
                if start is not None:
                    beyond_limit = beyond_limit or (
                        f"{where}.until: {until} is beyond t = {MAX_CHAIN_THRESHOLD}, the last t this checker "
                        "evaluates a path at, so condition (i) of the later segments (their starting positions) "
                        "is not checked")
                start = None
            else:
                start = [_cf_value(paths[j], until, d) for j in range(n)]
            layer += until
        previous_paths = paths
    summary = {"layers": layers, "final_layer": layers[-1], "largest_threshold": largest}
    if status != "certified":
        if beyond_limit:
            raise TooExpensive(beyond_limit)
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
                not isinstance(p, list) or [_cf_number(x, f"limits[{j}]") for x in p] != limits[j]
                for j, p in enumerate(stated)):
            raise Rejected("limits: not the constant terms of the final paths")
    if "leaders" in certificate:
        stated = certificate["leaders"]
        if not isinstance(stated, list) or not all(isinstance(x, dict) for x in stated) or \
                {(x.get("token"), x.get("first_layer")) for x in stated} != set(leaders.items()) or \
                len(stated) != len(leaders):
            raise Rejected("leaders: not the tokens with F_j = {j} at their first segment")
    if beyond_limit:
        raise TooExpensive(beyond_limit)
    summary["limits"] = limits
    summary["leaders"] = leaders
    summary["final_sets"] = [frozenset(members) for members in sets]
    return summary


def _stated_chain(certificate, *, n, d):
    """What a certified chain states, read but NOT verified: (final sets, limits, leaders).

    For a chain beyond this checker's limits (:class:`TooExpensive`): the rest of the run is
    still checked against what the chain says, so that only the chain itself stays unverified.
    Nothing read here is ever reported verified. Raises :class:`Rejected` when malformed.
    """
    segments = certificate.get("segments") if isinstance(certificate, dict) else None
    if not isinstance(segments, list) or not segments:
        raise Rejected("segments: expected a non-empty list")
    leaders = {}
    sets = []
    for s, segment in enumerate(segments):
        where = f"segments[{s}]"
        if not isinstance(segment, dict):
            raise Rejected(f"{where}: expected an object")
        layer = _cf_count(segment.get("layer"), where + ".layer", 0)
        sets = _cf_read_sets(segment.get("sets"), n, where + ".sets")
        for j, members in enumerate(sets):
            if members == {j} and j not in leaders:
                leaders[j] = layer
    raw = segments[-1].get("paths")
    if not isinstance(raw, list) or len(raw) != n:
        raise Rejected(f"segments[{len(segments) - 1}].paths: expected {counted(n, 'path')}")
    limits = []
    for j, data in enumerate(raw):
        path = _cf_read_path(data, d, f"segments[{len(segments) - 1}].paths[{j}]")
        if any(base == 1 and power > 0 for base, power in path):
            raise Rejected(f"token {j}: the final path grows without bound")
        limits.append(path.get((Fraction(1), 0), [Fraction(0)] * d))
    return [frozenset(members) for members in sets], limits, leaders


# --------------------------------------------------------------------------- a run's chain


class ChainReading(NamedTuple):
    """The run's certified closed-form chain as far as the checker gets with it.

    ``chain``: verified; ``problem``: why it is rejected; ``beyond_limits``: why it could not be
    checked within the checker's limits (then ``stated`` holds what it says, unverified, when
    that can be read), which is neither a verification nor a rejection.
    """

    chain: Chain | None = None
    problem: str | None = None
    beyond_limits: str | None = None
    stated: Chain | None = None


def _run_chain(verdicts: dict, m: Model) -> ChainReading:
    """The run's certified closed-form chain (docs/theory.md D9), verified here, or what is wrong with it.

    Verdicts that rely on a chain carry it under "closed_form" in their certificate or evidence;
    every one must carry the same chain. It is verified from the replay's positions at its first
    layer (a layer of the run). Unsettled chains settle nothing and are not read.
    """
    found: dict[str, Any] = {}
    for verdict in verdicts.values():
        if not isinstance(verdict, dict):
            continue
        for part in ("certificate", "evidence"):
            holder = verdict.get(part)
            data = holder.get("closed_form") if isinstance(holder, dict) else None
            if isinstance(data, dict) and data.get("status") == "certified":
                found.setdefault(json.dumps(data, sort_keys=True), data)
    if not found:
        return ChainReading()
    if len(found) > 1:
        return ChainReading(problem=f"the verdicts carry {len(found)} different certified closed-form chains")
    data = next(iter(found.values()))
    if m.V is not None:
        return ChainReading(problem="a closed-form chain (D9) is checked for the rule with alpha only, not with a "
                                    "value matrix V")
    start = data.get("start_layer")
    if isinstance(start, bool) or not isinstance(start, int) or not 0 <= start <= m.last:
        return ChainReading(problem=f"closed_form.start_layer is {str(start)[:20]}, not a layer of the run (0..{m.last})")
    # D7 fates the replay establishes by the chain's first layer (what Facts starts from, too): their sets
    # hold at every later layer (docs/theory.md D7), so the chain's (iii) is not needed for them.
    fated = fate_attention_sets(_search_fates(m, start)[0])
    try:
        summary = verify_closed_form(data, positions=m.layer(start), alpha=m.alpha, A=m.A, fated=fated)
    except Rejected as error:
        return ChainReading(problem=f"closed-form chain (D9) rejected: {str(error)[:300]}")
    except TooExpensive as error:
        try:
            sets, limits, leaders = _stated_chain(data, n=m.n, d=m.d)
        except Rejected as malformed:  # beyond the limits, and malformed where it was not reached
            return ChainReading(problem=f"closed-form chain (D9) rejected: {str(malformed)[:300]}")
        reason = f"closed-form chain (D9) beyond the checker's limits: {str(error)[:300]}"
        stated = _chain(start, sets, limits, leaders)
        if isinstance(stated, str):
            return ChainReading(problem=stated)
        return ChainReading(beyond_limits=reason, stated=stated)
    chain = _chain(start, summary["final_sets"], summary["limits"], summary["leaders"])
    return ChainReading(problem=chain) if isinstance(chain, str) else ChainReading(chain=chain)


def _chain(start: int, sets: list, limits: list, leaders: dict) -> Chain | str:
    """The chain's outcome as the fates use it, or why it cannot become fate entries."""
    points = [tuple(p) for p in limits]
    # A limit becomes a fate entry, whose numbers are read with MAX_DIGITS and written by str(int).
    if any(max(abs(x.numerator), x.denominator).bit_length() > 13_000 for p in points for x in p):
        return "a closed-form limit has more digits than a fate entry may hold (about 4000)"
    return Chain(start, sets, points, leaders)
