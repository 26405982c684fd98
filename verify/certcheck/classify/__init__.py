"""The independent check of a classification network: replay it on every sequence, exactly.

Like the rest of the checker package it imports nothing outside the standard library and nothing from the
code it checks (from the package it shares the JSON reader and writer, the long-number reader and the
schema language: :mod:`..jsontext`, :mod:`..numbers`, :mod:`..schema`). It reads the network file and
DATA.json itself, as strictly as every other checker (a key repeated in one object, NaN and Infinity are
refused, as is a file that is not regular or larger than :data:`MAX_BYTES`, and a key the network's
schema does not have), replays every block with :class:`fractions.Fraction`
(feed-forward x + W relu(U x + b); hardmax attention x_i -> rho x_i + V mean_{C_i} x_j with
C_i = argmax_j (query . x_i)(key . x_j), ties averaged over positions, B = 0 meaning every token
attends to the whole sequence; docs/theory.md §7), and says for every sequence whether all its final
tokens have the label as first coordinate. Nothing the construction wrote is trusted: the
per-sequence outputs in the network file are only compared with the replay.

Usage::

    python -m verify.certcheck.classify NET.json DATA.json [--json [FILE|-]]

Exit status: 0 every sequence classified as its label, 1 some sequence is not (or a recorded
output, or a count of the construction's record, disagrees with the replay), 2 bad input (one line naming the field), 4 could not complete
(the JSON could not be written, an internal error; one line).

How it stays fast without trusting anything: a sequence is kept as its distinct token values
with multiplicities; feed-forward units with one direction are sorted by kink so that the active
ones are read from prefix sums after one binary search; and in a run of feed-forward layers that
all have one and the same direction v, the points are kept sorted by v.x, so a layer only visits
the points strictly inside the interval where it can change anything (outside it, no unit is
active, or all are and their contributions cancel exactly, as for a "hat").
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import json
import re
import sys
import time
from fractions import Fraction
from typing import Any, Callable, NoReturn

from ..jsontext import UnreadableJSON, read_json_file, write_text
from ..kernel import CHECKED, Either, Items, Obj, Row, Unchecked, int_text, read_digits, unchecked
from ..kernel import problem as _schema_problem

__all__ = ["FORMAT", "MAX_BYTES", "NETWORK", "BadInput", "CheckResult", "check_files", "check_objects", "main"]

FORMAT = "hardmax-verify/classify-network"
VERSION = 1
MAX_DIGITS = 100_000     # longest number text read
MAX_EXPONENT = 10_000    # |exponent| of a decimal such as "1e-3"
MAX_BYTES = 1 << 28      # largest file read (a network of 10,000 sequences is about 5 MB)
SHOWN = 10               # misclassified sequences listed by name

_FRACTION = re.compile(r"^\s*([+-]?\d+)\s*/\s*([+-]?\d+)\s*$", re.ASCII)
_DECIMAL = re.compile(r"^\s*([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?\s*$", re.ASCII)


_LOG = "the construction's own record of how it built the network (its log): nothing the replay rests on"
CONSTRUCTION = Obj({
    "variant": CHECKED, "width_cap": Unchecked("the builder's width cap: the network's widths are checked to be within "
                                               "it, and the variant to say whether there is one"),
    "seed": Unchecked("the builder's seed (its genericity draws): any seed gives a network the replay decides"),
    "sequences": CHECKED, "tokens": CHECKED, "dataset_fingerprint": CHECKED,
    "blocks": Obj({"separate": CHECKED, "collapse": CHECKED, "read_out": CHECKED, "total": CHECKED}),
    "parameters": CHECKED, "max_width": CHECKED, "thresholds": Unchecked(_LOG), "separation": Unchecked(_LOG),
    "collapse": Unchecked(_LOG), "read_out": Unchecked(_LOG), "redraws": Unchecked(_LOG),
    "exact_point_layers": Unchecked(_LOG), "point_layers": Unchecked(_LOG),
    "certified_by": Unchecked("a sentence saying how the builder checked its network"),
}, name="the construction's record")
_FEEDFORWARD = Obj({"U": CHECKED, "b": CHECKED, "W": CHECKED}, name="a feed-forward layer")
_ATTENTION = Obj({"rho": CHECKED, "V": CHECKED, "B": Either(Obj({"key": CHECKED, "query": CHECKED}), none=True)},
                 name="an attention layer")
NETWORK = Obj({
    "format": CHECKED, "version": CHECKED, "d": CHECKED,
    "blocks": Items(Obj({"feedforward": Either(_FEEDFORWARD, none=True), "attention": Either(_ATTENTION, none=True)},
                        name="a block")),
    "construction": CONSTRUCTION,
    "classification": Obj({"dataset_fingerprint": CHECKED, "outputs": CHECKED}, name="the recorded classification"),
}, optional=("construction", "classification"), name="a classification network")


class BadInput(Exception):
    """The files cannot be checked (exit status 2)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


# ------------------------------------------------------------------------------- reading

def _digits(text: str) -> int:
    """int(text) for ASCII digits of any length up to MAX_DIGITS (int() refuses more than about 4300), by the
    checker package's long-number reader."""
    sign = -1 if text[:1] == "-" else 1
    return sign * read_digits(text.lstrip("+-"))


def _number(x: Any, where: str) -> Fraction:
    if isinstance(x, bool):
        raise BadInput(where, "expected a number, got a boolean")
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, str) and len(x) <= MAX_DIGITS:
        match = _FRACTION.match(x)
        if match:
            denominator = _digits(match.group(2))
            if denominator == 0:
                raise BadInput(where, f"denominator is zero in {x[:40]!r}")
            return Fraction(_digits(match.group(1)), denominator)
        match = _DECIMAL.match(x)
        if match:
            exponent = int(match.group(3) or 0)
            if abs(exponent) > MAX_EXPONENT:
                raise BadInput(where, f"exponent out of range in {x[:40]!r}")
            whole, _, fraction = match.group(2).partition(".")
            value = Fraction(_digits((whole + fraction) or "0"), 10 ** len(fraction))
            value *= Fraction(10) ** exponent
            return -value if match.group(1) == "-" else value
    raise BadInput(where, f"expected an exact number (integer, 'p/q' or decimal), got {str(x)[:40]!r}")


def _json_int(text: str) -> int:
    """A JSON integer, read exactly however long it is within MAX_DIGITS (longer: refused)."""
    if len(text) > MAX_DIGITS:
        raise ValueError(f"an integer of {len(text)} digits, more than the {MAX_DIGITS} this checker reads")
    return _digits(text)


def _read_json(path: str, max_bytes: int = MAX_BYTES) -> Any:
    """The JSON of the regular file ``path`` of at most ``max_bytes`` bytes, by the checker package's one reader
    (:mod:`..jsontext`): a repeated key, NaN or Infinity refused, decimals kept as their text, integers read
    exactly; opened without waiting (a FIFO would block a read for ever), never read beyond the limit."""
    try:
        return read_json_file(str(path), max_bytes=max_bytes, parse_float=str, parse_int=_json_int)
    except UnreadableJSON as error:
        raise BadInput(error.path, error.reason) from None
    except ValueError as error:  # an integer past MAX_DIGITS
        raise BadInput(str(path), str(error)) from None


class Data:
    """DATA.json: distinct tokens, sequences as index lists, labels."""

    def __init__(self, obj: Any) -> None:
        if not isinstance(obj, dict):
            raise BadInput("data", "expected an object with 'sequences' and 'labels'")
        extra = set(obj) - {"sequences", "labels", "name"}
        if extra:
            raise BadInput(sorted(extra)[0], "unknown field")
        sequences, labels = obj.get("sequences"), obj.get("labels")
        if not isinstance(sequences, list) or not sequences:
            raise BadInput("sequences", "expected a non-empty list of sequences")
        if not isinstance(labels, list) or len(labels) != len(sequences):
            raise BadInput("labels", "expected a list with one label per sequence")
        self.labels = [_number(y, f"labels[{n}]") for n, y in enumerate(labels)]
        self.tokens: list[tuple] = []
        self.sequences: list[list[int]] = []
        index_of: dict[tuple, int] = {}
        seen_text: dict[tuple, int] = {}
        self.d = 0
        bare = None
        for n, raw in enumerate(sequences):
            if not isinstance(raw, list) or not raw:
                raise BadInput(f"sequences[{n}]", "expected a non-empty list of tokens")
            row = []
            for i, token in enumerate(raw):
                where = f"sequences[{n}][{i}]"
                is_bare = not isinstance(token, list)
                if bare is None:
                    bare = is_bare
                elif bare != is_bare:
                    raise BadInput(where, "mixes bare numbers and lists")
                text = tuple(token) if isinstance(token, list) else (token,)
                try:
                    known = seen_text.get(tuple((type(c).__name__, c) for c in text))
                except TypeError:  # a nested list: not hashable, read below and refused
                    known = None
                if known is None:
                    if not text:
                        raise BadInput(where, "expected a list of numbers, got an empty list")
                    value = tuple(_number(c, f"{where}[{j}]" if isinstance(token, list) else where)
                                  for j, c in enumerate(text))
                    if self.d == 0:
                        self.d = len(value)
                    elif len(value) != self.d:
                        raise BadInput(where, f"expected {self.d} numbers, got {len(value)}")
                    known = index_of.setdefault(value, len(self.tokens))
                    if known == len(self.tokens):
                        self.tokens.append(value)
                    seen_text[tuple((type(c).__name__, c) for c in text)] = known
                row.append(known)
            self.sequences.append(row)

    def fingerprint(self) -> str:
        """sha256 of: "d=<d>\\n", then per sequence "label:x,y;x,y;...\\n", numbers as "p/q" or "p"."""
        digest = hashlib.sha256()
        digest.update(f"d={self.d}\n".encode("ascii"))
        texts = [",".join(_text(c) for c in token) for token in self.tokens]
        for row, label in zip(self.sequences, self.labels):
            digest.update((_text(label) + ":" + ";".join(texts[t] for t in row) + "\n").encode("ascii"))
        return digest.hexdigest()


def _text(q: Fraction) -> str:
    return int_text(q.numerator) if q.denominator == 1 else f"{int_text(q.numerator)}/{int_text(q.denominator)}"


def _vector(raw: Any, d: int, where: str) -> tuple:
    if not isinstance(raw, list) or len(raw) != d:
        raise BadInput(where, f"expected a list of {d} numbers")
    return tuple(_number(c, f"{where}[{j}]") for j, c in enumerate(raw))


def _matrix(raw: Any, rows: int | None, cols: int, where: str) -> list[tuple]:
    if not isinstance(raw, list) or (rows is not None and len(raw) != rows) or not raw:
        raise BadInput(where, f"expected a list of {rows if rows is not None else 'one or more'} rows")
    return [_vector(row, cols, f"{where}[{r}]") for r, row in enumerate(raw)]


class Network:
    """The layers of a network file, in order: ("ff", FeedForward) and ("attention", Attention)."""

    def __init__(self, obj: Any) -> None:
        if not isinstance(obj, dict) or obj.get("format") != FORMAT:
            raise BadInput("format", f"not a classification network (expected format {FORMAT!r})")
        shape = _schema_problem(obj, NETWORK)
        if shape is not None:
            field, _, why = shape.partition(": ")
            raise BadInput(field, why)
        if obj.get("version") != VERSION:
            raise BadInput("version", f"expected {VERSION}")
        d = obj.get("d")
        if not isinstance(d, int) or isinstance(d, bool) or d < 1:
            raise BadInput("d", "expected a positive integer")
        self.d = d
        blocks = obj.get("blocks")
        if not isinstance(blocks, list):
            raise BadInput("blocks", "expected a list")
        self.layers: list[tuple[str, Any]] = []
        self.parameters = 0
        self.widths: list[int] = []  # each block's feed-forward units (0 without one), as the construction counts them
        for i, block in enumerate(blocks):
            where = f"blocks[{i}]"
            if not isinstance(block, dict) or set(block) - {"feedforward", "attention"}:
                raise BadInput(where, "expected an object with 'feedforward' and 'attention'")
            ff, att = block.get("feedforward"), block.get("attention")
            if ff is not None:
                if not isinstance(ff, dict) or set(ff) != {"U", "b", "W"}:
                    raise BadInput(f"{where}.feedforward", "expected 'U', 'b' and 'W'")
                U = _matrix(ff["U"], None, d, f"{where}.feedforward.U")
                h = len(U)
                if not isinstance(ff["b"], list) or len(ff["b"]) != h:
                    raise BadInput(f"{where}.feedforward.b", f"expected {h} numbers")
                b = [_number(x, f"{where}.feedforward.b[{k}]") for k, x in enumerate(ff["b"])]
                W = _matrix(ff["W"], d, h, f"{where}.feedforward.W")
                self.layers.append(("ff", FeedForward(U, b, W)))
                self.parameters += h * (2 * d + 1)
            self.widths.append(h if ff is not None else 0)
            if att is not None:
                if not isinstance(att, dict) or set(att) != {"rho", "V", "B"}:
                    raise BadInput(f"{where}.attention", "expected 'rho', 'V' and 'B'")
                rho = _number(att["rho"], f"{where}.attention.rho")
                V = _matrix(att["V"], d, d, f"{where}.attention.V")
                B = att["B"]
                if B is None:
                    key = query = None
                elif isinstance(B, dict) and set(B) == {"key", "query"}:
                    key = _vector(B["key"], d, f"{where}.attention.B.key")
                    query = _vector(B["query"], d, f"{where}.attention.B.query")
                else:
                    raise BadInput(f"{where}.attention.B", "expected null or {'key': [...], 'query': [...]}")
                self.layers.append(("attention", Attention(rho, V, key, query)))
                self.parameters += 1 + d * d + (0 if key is None else 2 * d)
        self.blocks = len(blocks)
        self.construction = obj.get("construction")
        self.outputs = None
        self.recorded_fingerprint = None
        recorded = obj.get("classification")
        if isinstance(recorded, dict):
            outputs = recorded.get("outputs")
            if not isinstance(outputs, list):
                raise BadInput("classification.outputs", "expected a list of points")
            self.recorded_fingerprint = recorded.get("dataset_fingerprint")
            self.outputs = [_vector(p, d, f"classification.outputs[{n}]") for n, p in enumerate(outputs)]


# ------------------------------------------------------------------------------- layers

def _dot(u: tuple, x: tuple) -> Fraction:
    total = Fraction(0)
    for a, b in zip(u, x):
        if a:
            total += a * b
    return total


class FeedForward:
    """x + sum over units of W_k relu(U_k . x + b_k), units grouped by direction U_k."""

    def __init__(self, U: list[tuple], b: list[Fraction], W: list[tuple]) -> None:
        d = len(W)
        by_direction: dict[tuple, list[tuple[Fraction, tuple]]] = {}
        for k, direction in enumerate(U):
            column = tuple(W[r][k] for r in range(d))
            if any(column):
                by_direction.setdefault(direction, []).append((-b[k], column))
        self.groups = []
        for direction, units in by_direction.items():
            units.sort(key=lambda unit: unit[0])
            kinks = [kink for kink, _ in units]
            slope, offset = [tuple([Fraction(0)] * d)], [tuple([Fraction(0)] * d)]
            for kink, column in units:
                # An active unit adds column * (U.x - kink).
                slope.append(tuple(s + c for s, c in zip(slope[-1], column)))
                offset.append(tuple(o - c * kink for o, c in zip(offset[-1], column)))
            self.groups.append((direction, kinks, slope, offset))

    def apply(self, x: tuple) -> tuple:
        out = list(x)
        for direction, kinks, slope, offset in self.groups:
            p = _dot(direction, x)
            active = bisect.bisect_left(kinks, p)      # units with kink < p
            if active:
                s, o = slope[active], offset[active]
                for r in range(len(out)):
                    if s[r] or o[r]:
                        out[r] += s[r] * p + o[r]
        return tuple(out)

    def single_direction(self) -> tuple | None:
        """(direction, lower, upper) when all units share one nonzero direction: the layer changes
        x only where lower < direction . x < upper (upper None: unbounded)."""
        if len(self.groups) != 1 or not any(self.groups[0][0]):
            return None
        direction, kinks, slope, offset = self.groups[0]
        upper = kinks[-1] if not any(slope[-1]) and not any(offset[-1]) else None
        return direction, kinks[0], upper


class Attention:
    def __init__(self, rho: Fraction, V: list[tuple], key: tuple | None, query: tuple | None) -> None:
        self.rho, self.V, self.key, self.query = rho, V, key, query

    def apply(self, xs: list[tuple], counts: list[int]) -> tuple[list[tuple], list[int]]:
        """New values of one sequence's distinct tokens (with their multiplicities)."""
        n = len(xs)
        if self.key is None:
            sets = [0] * n
            members = {0: list(range(n))}
        else:
            assert self.query is not None  # key and query are read together (B null: both None)
            k = [_dot(self.key, x) for x in xs]
            q = [_dot(self.query, x) for x in xs]
            high, low = max(k), min(k)
            sets = [1 if qi > 0 else (2 if qi < 0 else 0) for qi in q]
            members = {0: list(range(n)), 1: [j for j in range(n) if k[j] == high],
                       2: [j for j in range(n) if k[j] == low]}
        images = {}
        for s in set(sets):
            total = sum(counts[j] for j in members[s])
            mean = tuple(sum((counts[j] * xs[j][r] for j in members[s]), Fraction(0)) / total
                         for r in range(len(xs[0])))
            images[s] = tuple(_dot(row, mean) for row in self.V)
        if self.rho == 0:
            # Then a token's new value depends only on its attention set: one point per set.
            merged: dict[int, int] = {}
            for i, s in enumerate(sets):
                merged[s] = merged.get(s, 0) + counts[i]
            return [images[s] for s in merged], list(merged.values())
        return ([tuple(self.rho * a + b for a, b in zip(x, images[s])) for x, s in zip(xs, sets)], list(counts))


# ------------------------------------------------------------------------------- replay

Progress = Callable[[str, int, int], None]


def replay(network: Network, data: Data, progress: Progress | None = None) -> list[list[tuple[tuple, int]]]:
    """Every sequence's final distinct tokens with multiplicities."""
    if data.d != network.d:
        raise BadInput("d", f"the network is for d = {network.d}, the data have d = {data.d}")
    points = list(data.tokens)
    rows = []
    for sequence in data.sequences:
        counts: dict[int, int] = {}
        for t in sequence:
            counts[t] = counts.get(t, 0) + 1
        rows.append([list(item) for item in counts.items()])
    layers = network.layers
    i = 0
    while i < len(layers):
        kind, layer = layers[i]
        if kind == "attention":
            points, rows = _attend(layer, points, rows)
            i += 1
        else:
            run = [layer]
            shape = layer.single_direction()
            while (shape is not None and i + len(run) < len(layers) and layers[i + len(run)][0] == "ff"
                   and (following := layers[i + len(run)][1].single_direction()) is not None
                   and following[0] == shape[0]):
                run.append(layers[i + len(run)][1])
            if len(run) > 1:
                _sweep(run, shape[0], points)
            else:
                for p, x in enumerate(points):
                    points[p] = layer.apply(x)
            i += len(run)
        if progress is not None:
            progress("replay", i, len(layers))
    return [[(points[p], c) for p, c in row] for row in rows]


def _attend(layer: Attention, points: list[tuple], rows: list[list[list[int]]]) -> tuple[list, list]:
    new_points: list[tuple] = []
    new_rows = []
    for row in rows:
        values, counts = layer.apply([points[p] for p, _ in row], [c for _, c in row])
        new_rows.append([[len(new_points) + j, c] for j, c in enumerate(counts)])
        new_points.extend(values)
    return new_points, new_rows


def _sweep(run: list[FeedForward], direction: tuple, points: list[tuple]) -> None:
    """Layers sharing one direction v, on points kept sorted by v.x: each layer visits only the
    points strictly between its lower and upper kink (everything else is provably unchanged)."""
    keyed = sorted((_dot(direction, x), p) for p, x in enumerate(points))
    keys = [k for k, _ in keyed]
    ids = [p for _, p in keyed]
    for layer in run:
        shape = layer.single_direction()
        assert shape is not None  # _sweep is given runs of single-direction layers only
        _, lower, upper = shape
        start = bisect.bisect_right(keys, lower)
        stop = len(keys) if upper is None else bisect.bisect_left(keys, upper)
        if start >= stop:
            continue
        visited = ids[start:stop]
        del keys[start:stop], ids[start:stop]
        for p in visited:
            points[p] = layer.apply(points[p])
            key = _dot(direction, points[p])
            at = bisect.bisect_right(keys, key)
            keys.insert(at, key)
            ids.insert(at, p)


# ------------------------------------------------------------------------------- verdict

class CheckResult:
    def __init__(self, *, sequences: int, misclassified: list[tuple[int, Fraction, Fraction]],
                 mismatches: list[int], fingerprint: str, recorded_fingerprint: Any, blocks: int,
                 parameters: int, d: int, seconds: float, problems: list[str] | None = None,
                 unchecked: list[Row] | None = None) -> None:
        self.sequences = sequences
        self.misclassified = misclassified            # (sequence, label, a first coordinate that differs)
        self.mismatches = mismatches                  # sequences whose recorded output differs from the replay
        self.fingerprint = fingerprint
        self.recorded_fingerprint = recorded_fingerprint
        self.blocks, self.parameters, self.d, self.seconds = blocks, parameters, d, seconds
        self.problems = list(problems or [])          # what the construction's record states that the replay does not
        self.unchecked = list(unchecked or [])        # the network file's fields that are not checked (schema.Row)

    def unchecked_lines(self) -> list[str]:
        """One line naming the network file's fields that are not checked (docs/classify.md)."""
        if not self.unchecked:
            return []
        return ["not checked (the construction's log; docs/classify.md): " + ", ".join(r.pattern for r in self.unchecked)]

    @property
    def recorded_outputs(self) -> bool:
        return self.recorded_fingerprint is not None

    @property
    def compared_outputs(self) -> bool:
        return self.recorded_fingerprint == self.fingerprint

    @property
    def exit_status(self) -> int:
        return 1 if self.misclassified or self.mismatches or self.problems else 0

    def summary(self) -> str:
        if self.misclassified:
            n, label, value = self.misclassified[0]
            return (f"sequences[{n}] misclassified: label {_text(label)}, a final token has first coordinate "
                    f"{_text(value)} ({len(self.misclassified)} of {self.sequences} sequences misclassified)")
        if self.mismatches:
            return (f"sequences[{self.mismatches[0]}]: the network file's recorded output differs from the replay "
                    f"({len(self.mismatches)} sequences)")
        if self.problems:
            return f"the network file's construction record disagrees with the network and the data: {self.problems[0]}"
        return (f"all {self.sequences} sequences classified exactly as their labels "
                f"(independent replay in exact arithmetic, {self.blocks} blocks, {self.parameters} parameters)")

    def to_json_dict(self) -> dict:
        return {
            "status": "certified" if self.exit_status == 0 else "failed",
            "summary": self.summary(),
            "sequences": self.sequences,
            "correct": self.sequences - len(self.misclassified),
            "misclassified": [{"sequence": n, "label": _text(y), "first_coordinate": _text(v)}
                              for n, y, v in self.misclassified[:SHOWN]],
            "misclassified_count": len(self.misclassified),
            "recorded_outputs_compared": self.compared_outputs,
            "recorded_output_mismatches": self.mismatches[:SHOWN],
            "recorded_output_mismatch_count": len(self.mismatches),
            "dataset_fingerprint": self.fingerprint,
            "construction_problems": self.problems[:SHOWN],
            "not_checked": [{"field": row.pattern, "why": row.reason} for row in self.unchecked],
            "d": self.d, "blocks": self.blocks, "parameters": self.parameters,
            "seconds": round(self.seconds, 3),
        }


def check_objects(network_obj: Any, data_obj: Any, *, progress: Progress | None = None) -> CheckResult:
    started = time.perf_counter()
    network = Network(network_obj)
    data = Data(data_obj)
    finals = replay(network, data, progress)
    misclassified = []
    for n, (tokens, label) in enumerate(zip(finals, data.labels)):
        wrong = next((x[0] for x, _ in tokens if x[0] != label), None)
        if wrong is not None:
            misclassified.append((n, label, wrong))
    fingerprint = data.fingerprint()
    recorded = network.recorded_fingerprint
    mismatches = []
    if network.outputs is not None and recorded == fingerprint:
        if len(network.outputs) != len(finals):
            raise BadInput("classification.outputs", f"expected {len(finals)} points, one per sequence")
        mismatches = [n for n, (tokens, claimed) in enumerate(zip(finals, network.outputs))
                      if any(x != claimed for x, _ in tokens)]
    same_data = recorded is None or recorded == fingerprint
    rows = unchecked(network_obj, NETWORK)
    if not same_data:
        rows.append(Row("classification", "the recorded outputs are for another dataset (their fingerprint is not "
                                          "DATA.json's): not compared"))
    construction = network_obj.get("construction")
    problems = _construction_problems(construction, network, data, fingerprint) if construction is not None else []
    if construction is not None and construction.get("dataset_fingerprint") != fingerprint and not problems:
        rows.append(Row("construction.sequences", "the construction's record is of another dataset (its fingerprint "
                                                  "is not DATA.json's): its sequences and tokens are not compared"))
    return CheckResult(sequences=len(finals), misclassified=misclassified, mismatches=mismatches,
                       fingerprint=fingerprint, recorded_fingerprint=recorded, blocks=network.blocks,
                       parameters=network.parameters, d=network.d, seconds=time.perf_counter() - started,
                       problems=problems, unchecked=rows)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _construction_problems(record: dict, network: Network, data: Data, fingerprint: str) -> list[str]:
    """What the construction's record states about the network and its dataset, against them: the blocks and
    their kinds' total, the parameters, the largest width (within the width cap, whose presence the variant
    says), and, when the record is of this DATA.json (its fingerprint), the sequences and tokens."""
    problems = []
    blocks = record["blocks"]
    parts = [_count(blocks.get(k)) for k in ("separate", "collapse", "read_out")]
    if _count(blocks.get("total")) != network.blocks or None in parts or sum(parts) != network.blocks:  # type: ignore[arg-type]
        problems.append(f"construction.blocks: {json.dumps(blocks)[:100]}, the network has {network.blocks} blocks")
    if _count(record.get("parameters")) != network.parameters:
        problems.append(f"construction.parameters is {str(record.get('parameters'))[:20]}, the network has "
                        f"{network.parameters}")
    widest = max(network.widths, default=0)
    if _count(record.get("max_width")) != widest:
        problems.append(f"construction.max_width is {str(record.get('max_width'))[:20]}, the widest layer has {widest} units")
    cap = record.get("width_cap")
    if record.get("variant") != ("wide" if cap is None else "narrow") or (cap is not None and (
            _count(cap) is None or widest > cap)):
        problems.append(f"construction: variant {str(record.get('variant'))[:20]!r} with width cap {str(cap)[:20]}, "
                        f"but the widest layer has {widest} units")
    if record.get("dataset_fingerprint") == fingerprint:
        if _count(record.get("sequences")) != len(data.sequences):
            problems.append(f"construction.sequences is {str(record.get('sequences'))[:20]}, DATA.json has "
                            f"{len(data.sequences)}")
        tokens = sum(len(sequence) for sequence in data.sequences)
        if _count(record.get("tokens")) != tokens:
            problems.append(f"construction.tokens is {str(record.get('tokens'))[:20]}, DATA.json has {tokens}")
    elif network.recorded_fingerprint == fingerprint or not isinstance(record.get("dataset_fingerprint"), str):
        problems.append("construction.dataset_fingerprint is not the fingerprint of the data the network records "
                        "its outputs for")
    return problems


def check_files(network_path: str, data_path: str, *, progress: Progress | None = None) -> CheckResult:
    return check_objects(_read_json(str(network_path)), _read_json(str(data_path)), progress=progress)


class _OneLineParser(argparse.ArgumentParser):
    """Bad usage is one line naming what is wrong (exit status 2), not argparse's usage block."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {' '.join(message.split())}", file=sys.stderr)
        raise SystemExit(2)


def main(argv: list[str] | None = None) -> int:
    parser = _OneLineParser(prog="python -m verify.certcheck.classify", description=__doc__.split("\n\n")[0])
    parser.add_argument("network", help="the network file written by 'hardmax-verify classify build'")
    parser.add_argument("data", help="DATA.json")
    parser.add_argument("--json", nargs="?", const="-", default=None, metavar="FILE|-",
                        help="write the outcome as JSON to FILE, whole or not at all, or to standard output with - "
                             "or no value (the summary then goes to standard error)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # 0 for --help, 2 for bad usage
        return int(exit_.code or 0)
    try:
        result = check_files(args.network, args.data)
        print("\n".join([result.summary(), *result.unchecked_lines()]), file=sys.stderr if args.json == "-" else sys.stdout)
        if args.json is not None:
            _write_json(json.dumps(result.to_json_dict(), indent=1, allow_nan=False) + "\n", args.json)
    except BadInput as error:
        print(f"checker: error: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # noqa: BLE001 - an I/O error or a bug is "could not complete", never a verdict
        print(f"checker: could not complete: {type(error).__name__}: {error}"[:500], file=sys.stderr)
        return 4
    return result.exit_status


def _write_json(text: str, destination: str) -> None:
    """``text`` to standard output ("-") or to the file ``destination``, whole or not at all (the checkers' one
    writer, :func:`..jsontext.write_text`)."""
    write_text(text, destination)


