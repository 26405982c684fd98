"""Reading exact numbers from a file, and the small exact arithmetic every check shares.

A number is read only as ``p``, ``p/q`` or a plain decimal of at most MAX_DIGITS characters
(exponents are refused: ``"1e999999999"`` would hang a reader), also beyond the 4,300 digits
``int()`` converts (:func:`read_digits` reads in chunks); a boolean or a float is never a number.
Indices, sets of indices, points and multipliers are read with their bounds, and anything else
is :class:`~.common.Rejected`. Messages show an exact number in full up to about a thousand
digits, else its size. Inner products, means, the inverse and the positive-definiteness test are
exact (fractions, or integers over one common denominator).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from .common import Point, Rejected, require
from .limits import MAX_DIGITS, MAX_LAYER, NUMBER_COST
from .meter import charge, cost, gcd_cost


def read_number(x: Any, where: str) -> Fraction:
    # bool is an int in Python; a float's binary value is not the exact number it was meant to be.
    if isinstance(x, (int, Fraction)) and not isinstance(x, bool):
        charge(NUMBER_COST // 4)
        return Fraction(x)
    # Only "p", "p/q" or a plain decimal: Fraction would also take "1e999999999", a denial of service.
    if isinstance(x, str) and len(x) <= MAX_DIGITS and _plain(x):
        charge(NUMBER_COST - 1 + gcd_cost(1, int(len(x) * 1.67)))
        try:
            return Fraction(x) if len(x) <= _CF_CHUNK else _long_number(x)
        except (ZeroDivisionError, ValueError):
            pass
    if isinstance(x, str) and len(x) > MAX_DIGITS and _plain(x):  # a number, but too long to read
        raise Rejected(f"{where}: a number of {len(x):,} characters, more than the {MAX_DIGITS:,} the checker reads")
    raise Rejected(f"{where}: not an exact number: {x!r}"[:300])


def _long_number(text: str) -> Fraction:
    """A plain number ("p", "p/q" or a decimal, checked by :func:`_plain`) of more digits than int() converts
    (Python refuses more than 4300), read in chunks: within MAX_DIGITS a long number is read, never rejected."""
    sign = -1 if text[:1] == "-" else 1
    body = text[1:] if text[:1] in "+-" else text
    head, slash, tail = body.partition("/")
    if slash:
        return sign * Fraction(read_digits(head), read_digits(tail))  # ZeroDivisionError for q = 0
    whole, _, fraction = head.partition(".")
    return sign * Fraction(read_digits(whole + fraction), power_of_ten(len(fraction)))


def int_text(n: int) -> str:
    """str(n) for an integer of any size (str() refuses more than 4300 digits): halves, each padded."""
    if n < 0:
        return "-" + int_text(-n)
    if n.bit_length() <= 13_000:
        return str(n)
    half = max(1, int(n.bit_length() * 0.30103) // 2)
    high, low = divmod(n, power_of_ten(half))
    return int_text(high) + int_text(low).rjust(half, "0")


def _plain(text: str) -> bool:
    body = text[1:] if text[:1] in "+-" else text
    head, slash, tail = body.partition("/")
    if slash:
        return head.isdigit() and tail.isdigit() and head.isascii() and tail.isascii()
    whole, dot, fraction = head.partition(".")
    return (whole + fraction).isdigit() and (whole + fraction).isascii()


def _get(obj: Any, key: str, where: str) -> Any:
    require(isinstance(obj, dict) and key in obj, lambda: f"{where}: missing {key!r}")
    return obj[key]


def _int(x: Any, where: str, *, low: int = 0, high: int = MAX_LAYER) -> int:
    require(isinstance(x, int) and not isinstance(x, bool) and low <= x <= high,
             f"{where}: expected an integer in {low}..{high}, got {x!r}")
    return x


def _point(x: Any, d: int, where: str) -> Point:
    require(isinstance(x, list) and len(x) == d, lambda: f"{where}: expected a point with {d} coordinates")
    return tuple(read_number(c, f"{where}[{r}]") for r, c in enumerate(x))


def _index_set(x: Any, n: int, where: str) -> frozenset:
    require(isinstance(x, list), lambda: f"{where}: expected a sorted list of token indices")
    items = [_int(j, where, high=n - 1) for j in x]
    require(items == sorted(set(items)), lambda: f"{where}: expected a sorted list of distinct token indices")
    return frozenset(items)


def _key_index(key: Any) -> int | None:
    """A JSON key holding a non-negative integer in canonical form ("0", "17"), else None.

    ASCII digits only ("²" and other scripts' digits pass str.isdigit), and short: a
    5,000-digit key is not an index.
    """
    if isinstance(key, str) and 0 < len(key) <= 9 and key.isascii() and key.isdigit() and key == str(int(key)):
        return int(key)
    return None


def _weights(x: Any, n: int, where: str) -> dict[int, Fraction]:
    """Multipliers {"token": "lambda"}: keys are token indices as strings."""
    require(isinstance(x, dict) and all(_key_index(k) is not None for k in x),
             f"{where}: expected an object keyed by token indices")
    return {_int(_key_index(k), where, high=n - 1): read_number(v, f"{where}[{k}]") for k, v in x.items()}


def _show(p: Any) -> str:
    if isinstance(p, (Fraction, int)):
        return _q(p)
    if isinstance(p, (frozenset, set)):
        return "{" + ", ".join(map(str, sorted(p)[:50])) + (", ..." if len(p) > 50 else "") + "}"
    return "(" + ", ".join(_q(c) if isinstance(c, (Fraction, int)) else str(c)[:100] for c in p) + ")"


def _q(x: Any) -> str:
    """An exact number for a message: in full up to about a thousand digits, else its size and leading digits
    (longer integers cannot even be printed: Python refuses more than 4300 digits)."""
    if isinstance(x, bool) or not isinstance(x, (int, Fraction)):
        return str(x)[:200]
    x = Fraction(x)
    if max(abs(x.numerator).bit_length(), x.denominator.bit_length()) <= 3300:
        return str(x)
    digits = [math.floor(v.bit_length() * 0.30103) + 1 for v in (abs(x.numerator), x.denominator)]
    return f"{'-' if x < 0 else ''}(a {digits[0]}-digit integer)/(a {digits[1]}-digit integer)"


def _dot(x: Point, y: Point) -> Fraction:
    return sum((a * b for a, b in zip(x, y)), Fraction(0))


def _mean(points: list) -> Point:
    return tuple(sum(col, Fraction(0)) / len(points) for col in zip(*points))


def _matvec(M: list, x: Point) -> Point:
    return tuple(_dot(row, x) for row in M)


def integer_rows(points: list) -> tuple[list[list[int]], int]:
    """(N, D) with points[i][r] = N[i][r] / D, D > 0 the common denominator: comparisons of inner
    products with integer vectors then need no fraction arithmetic."""
    D = math.lcm(*(x.denominator for p in points for x in p)) if points else 1
    return [[x.numerator * (D // x.denominator) for x in p] for p in points], D


def bits_of(rows: list) -> int:
    """The largest bit length among integer ``rows`` (a list of lists, or one list)."""
    flat = [x for row in rows for x in row] if rows and isinstance(rows[0], list) else rows
    return max((abs(x).bit_length() for x in flat), default=0)


_CF_CHUNK = 4000


def read_digits(text):
    """int(text) for a string of ASCII digits of any length (int() refuses more than ~4300 digits).

    Divide and conquer (high half times a power of ten plus the low half), so that a number of
    MAX_CHAIN_DIGITS digits costs a few products of its size, not a pass per chunk (quadratic)."""
    if len(text) <= _CF_CHUNK:
        return int(text)
    low = len(text) // 2
    return read_digits(text[:-low]) * power_of_ten(low) + read_digits(text[-low:])


_POWERS_OF_TEN: dict[int, int] = {}


def power_of_ten(k: int) -> int:
    if k not in _POWERS_OF_TEN:
        if len(_POWERS_OF_TEN) >= 64:
            _POWERS_OF_TEN.clear()
        _POWERS_OF_TEN[k] = 10 ** k
    return _POWERS_OF_TEN[k]


def elimination_work(d: int, bits: int, columns: int | None = None) -> float:
    """Work units of a fraction-free elimination of a d x ``columns`` integer matrix (default d) whose entries have
    at most ``bits`` bits: d^2 columns products of integers of at most d (bits + log2 d) bits (Hadamard's bound
    on the minors the elimination's entries are)."""
    size = d * (max(bits, 1) + d.bit_length())
    return cost(d * d * (columns if columns is not None else d), size, size)


def inverse(M: list) -> list | None:
    """The inverse of a square rational matrix, None when singular: fraction-free Gauss-Jordan in integers
    (every division exact), paid for before it runs (:func:`elimination_work`)."""
    N, D = integer_rows(M)
    d = len(N)
    charge(elimination_work(d, bits_of(N), 2 * d) + gcd_cost(d * d, d * (bits_of(N) + d.bit_length())))
    A = [row + [int(r == c) for c in range(d)] for r, row in enumerate(N)]
    previous = 1
    for k in range(d):
        pivot_row = next((r for r in range(k, d) if A[r][k] != 0), None)
        if pivot_row is None:
            return None
        A[k], A[pivot_row] = A[pivot_row], A[k]
        pivot, row_k = A[k][k], A[k]
        for i in range(d):
            if i != k:  # every other row, also one with a zero here: its scale follows the pivots
                f, row_i = A[i][k], A[i]
                A[i] = [(x * pivot - f * y) // previous for x, y in zip(row_i, row_k)]
        previous = pivot
    # The left block is now det * I (up to sign, row by row), the right det * N^-1: M^-1 = D N^-1.
    return [[Fraction(A[i][d + j] * D, A[i][i]) for j in range(d)] for i in range(d)]


def positive_definite(S: list) -> bool:
    """Symmetric rational S is positive definite iff every leading principal minor is positive (Sylvester):
    fraction-free (Bareiss) elimination in integers without pivoting, each pivot the next leading minor, paid
    for before it runs (:func:`elimination_work`)."""
    N, _ = integer_rows(S)  # a positive scale changes no minor's sign
    d = len(N)
    charge(elimination_work(d, bits_of(N)))
    M = [list(row) for row in N]
    previous = 1
    for k in range(d):
        pivot = M[k][k]
        if pivot <= 0:
            return False
        row_k = M[k]
        for i in range(k + 1, d):
            f, row_i = M[i][k], M[i]
            M[i] = row_i[:k + 1] + [(row_i[j] * pivot - f * row_k[j]) // previous for j in range(k + 1, d)]
        previous = pivot
    return True


def positive_semidefinite(S: list) -> bool:
    """Symmetric rational S is positive semidefinite: symmetric elimination with diagonal pivoting. A negative
    diagonal entry refutes it (e_p^T S e_p < 0); when every remaining diagonal entry is zero, S is PSD exactly when
    what remains is zero (a zero diagonal entry beside a nonzero entry of its row makes a 2 x 2 principal minor
    negative); a positive pivot is eliminated, and S is PSD iff its Schur complement is. Each entry of a Schur
    complement is a ratio of minors of S, so its cost is that of :func:`elimination_work`'s integers, times the
    fraction reductions (measured at about four times the fraction-free elimination's time per unit), paid before."""
    rows = [[Fraction(x) for x in row] for row in S]
    if any(rows[i][j] != rows[j][i] for i in range(len(rows)) for j in range(i)):
        return False
    charge(8 * elimination_work(len(rows), bits_of(integer_rows(rows)[0])) if rows else 0)
    while rows:
        diagonal = [rows[i][i] for i in range(len(rows))]
        if min(diagonal) < 0:
            return False
        top = max(diagonal)
        if top == 0:
            return all(x == 0 for row in rows for x in row)
        p = diagonal.index(top)
        pivot_row = rows[p]
        rows = [[rows[i][j] - pivot_row[i] * pivot_row[j] / top for j in range(len(rows)) if j != p]
                for i in range(len(rows)) if i != p]
    return True


def _text(x: Fraction) -> str:
    return int_text(x.numerator) if x.denominator == 1 else f"{int_text(x.numerator)}/{int_text(x.denominator)}"
