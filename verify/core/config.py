"""Token configurations: the exact input of every command, parsed and validated.

A configuration file is JSON::

    {"tokens": [["1", "1/3"], [-1, "0.25"]], "alpha": "1/2",
     "A": [["1", "0"], ["0", "1"]],            # optional, identity when absent
     "outside_hypotheses": false,               # optional, see below
     "name": "...", "description": "...",       # optional, free text
     "V": [[...]], "beta": "1000"}              # optional model variants (conjecture lab)

Numbers are JSON numbers (read from their decimal text: 0.1 is 1/10) or strings holding an
integer, a fraction "p/q" or a decimal. The theorem's hypotheses (docs/theory.md §2: nonzero,
distinct tokens; A symmetric positive definite) are checked exactly; a configuration that
violates them is refused unless ``outside_hypotheses`` is set in the file or by the caller.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping, Sequence

from .io import atomic_write_text, json_text, read_text
from .linalg import identity, is_symmetric, is_symmetric_positive_definite
from .numbers import InputError, parse_json, rational_matrix, rational_to_str, to_rational
from .text import describe_value

__all__ = [
    "Configuration",
    "HypothesisViolation",
    "parse_configuration",
    "load_configuration",
    "hypothesis_violations",
    "save_configuration",
]

Vector = tuple[Fraction, ...]
KNOWN_FIELDS = ("tokens", "alpha", "A", "outside_hypotheses", "name", "description", "V", "beta", "layers")
# Large enough for real embeddings (n = 128 tokens per review, d = 16), small enough that a
# mistyped file cannot ask the exact engine for hours of work.
MAX_TOKENS = 4096
MAX_DIMENSION = 64


class HypothesisViolation(InputError):
    """The configuration is well formed but outside the theorem's hypotheses (docs/theory.md §2)."""


@dataclass(frozen=True)
class Configuration:
    """Exact tokens z_1..z_n in Q^d, the step parameter alpha > 0 and the matrix A (None = identity)."""

    tokens: tuple[Vector, ...]
    alpha: Fraction
    A: tuple[Vector, ...] | None = None
    outside_hypotheses: bool = False
    name: str | None = None
    description: str | None = None
    V: tuple[Vector, ...] | None = None
    beta: Fraction | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def n(self) -> int:
        return len(self.tokens)

    @property
    def d(self) -> int:
        return len(self.tokens[0])

    @property
    def A_matrix(self) -> list[list[Fraction]]:
        return [list(row) for row in self.A] if self.A is not None else identity(self.d)

    def with_outside_hypotheses(self, allowed: bool = True) -> "Configuration":
        return replace(self, outside_hypotheses=allowed)

    def to_json_dict(self) -> dict[str, Any]:
        """The file form, exact numbers as "p/q" strings, so that loading it gives this configuration back."""
        data: dict[str, Any] = {}
        if self.name is not None:
            data["name"] = self.name
        if self.description is not None:
            data["description"] = self.description
        data["tokens"] = [[rational_to_str(x) for x in token] for token in self.tokens]
        data["alpha"] = rational_to_str(self.alpha)
        if self.A is not None:
            data["A"] = [[rational_to_str(x) for x in row] for row in self.A]
        if self.V is not None:
            data["V"] = [[rational_to_str(x) for x in row] for row in self.V]
        if self.beta is not None:
            data["beta"] = rational_to_str(self.beta)
        if self.outside_hypotheses:
            data["outside_hypotheses"] = True
        return data


def _text_field(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(key, f"expected a string, got {describe_value(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:  # JSON's "\ud800" escape: a lone surrogate, not text
        bad = value[error.start]
        raise InputError(key, f"is not valid Unicode text (lone surrogate \\u{ord(bad):04x} at character "
                              f"{error.start})") from None
    return value


def parse_configuration(data: Any, *, outside_hypotheses: bool = False, source: str = "configuration") -> Configuration:
    """Validate a decoded JSON object into a :class:`Configuration`.

    Raises :class:`InputError` naming the offending field, or :class:`HypothesisViolation`
    when the theorem's hypotheses fail and neither ``outside_hypotheses`` (the caller's flag)
    nor the file's ``"outside_hypotheses": true`` allows it.
    """
    if not isinstance(data, dict):
        raise InputError(source, f"expected a JSON object with a 'tokens' field, got {describe_value(data)}")
    unknown = sorted(set(data) - set(KNOWN_FIELDS))
    if unknown:
        raise InputError(unknown[0], f"unknown field (expected one of: {', '.join(KNOWN_FIELDS)})")
    if "tokens" not in data:
        raise InputError("tokens", "missing: expected a list of token coordinates such as [[\"1\", \"1/3\"], [\"-1\", \"0\"]]")
    if "alpha" not in data:
        raise InputError("alpha", "missing: expected a positive number such as \"1/2\"")

    raw_tokens = data["tokens"]
    if isinstance(raw_tokens, list) and len(raw_tokens) > MAX_TOKENS:
        raise InputError("tokens", f"expected at most {MAX_TOKENS} tokens, got {len(raw_tokens)}")
    # The limits are checked on the shape before any number is converted.
    if isinstance(raw_tokens, list) and raw_tokens and isinstance(raw_tokens[0], list) \
            and len(raw_tokens[0]) > MAX_DIMENSION:
        raise InputError("tokens[0]", f"expected dimension d <= {MAX_DIMENSION}, got {len(raw_tokens[0])}")
    tokens = rational_matrix(raw_tokens, field="tokens")
    d = len(tokens[0])
    if d > MAX_DIMENSION:
        raise InputError("tokens[0]", f"expected dimension d <= {MAX_DIMENSION}, got {d}")

    alpha = to_rational(data["alpha"], field="alpha")
    if alpha <= 0:
        raise InputError("alpha", f"expected a positive number (alpha > 0), got {rational_to_str(alpha)}")

    A = None
    if data.get("A") is not None:
        A = rational_matrix(data["A"], field="A", rows=d, cols=d)
    V = None
    if data.get("V") is not None:
        V = rational_matrix(data["V"], field="V", rows=d, cols=d)
    beta = None
    if data.get("beta") is not None:
        beta = to_rational(data["beta"], field="beta")
        if beta <= 0:
            raise InputError("beta", f"expected a positive inverse temperature, got {rational_to_str(beta)}")

    flag = data.get("outside_hypotheses", False)
    if not isinstance(flag, bool):
        raise InputError("outside_hypotheses", f"expected true or false, got {describe_value(flag)}")

    extra = {}
    if "layers" in data:
        layers = data["layers"]
        if isinstance(layers, bool) or not isinstance(layers, int) or layers < 0:
            raise InputError("layers", f"expected a non-negative integer, got {describe_value(layers)}")
        extra["layers"] = layers

    config = Configuration(
        tokens=tuple(tuple(t) for t in tokens),
        alpha=alpha,
        A=tuple(tuple(r) for r in A) if A is not None else None,
        outside_hypotheses=flag or outside_hypotheses,
        name=_text_field(data, "name"),
        description=_text_field(data, "description"),
        V=tuple(tuple(r) for r in V) if V is not None else None,
        beta=beta,
        extra=extra,
    )
    if not config.outside_hypotheses:
        violations = hypothesis_violations(config)
        if violations:
            field_name, message = violations[0]
            more = f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""
            raise HypothesisViolation(
                field_name,
                f"{message}{more}; this is outside the theorem's hypotheses (docs/theory.md §2). "
                "Pass --outside-hypotheses or set \"outside_hypotheses\": true to study it anyway",
            )
    return config


def hypothesis_violations(config: Configuration) -> list[tuple[str, str]]:
    """Every way the configuration violates the theorem's hypotheses, as (field, message) pairs.

    Decided exactly: a zero token, two equal tokens (docs/theory.md D4, D5), an A that is not
    symmetric positive definite (exact LDL^T pivots), and the model variants V / beta, which
    are not the theorem's model.
    """
    violations: list[tuple[str, str]] = []
    seen: dict[Vector, int] = {}
    for i, token in enumerate(config.tokens):
        if all(x == 0 for x in token):
            violations.append((f"tokens[{i}]", "token is the origin (the theorem needs nonzero tokens, docs/theory.md D4)"))
        if token in seen:
            violations.append((f"tokens[{i}]", f"token equals tokens[{seen[token]}] (the theorem needs distinct tokens, docs/theory.md D5)"))
        else:
            seen[token] = i
    if config.A is not None:
        A = config.A_matrix
        if not is_symmetric(A):
            violations.append(("A", "A is not symmetric (the theorem needs A symmetric positive definite)"))
        elif not is_symmetric_positive_definite(A):
            violations.append(("A", "A is not positive definite: an exact LDL^T pivot is <= 0"))
    if config.V is not None:
        violations.append(("V", "a value matrix V is a variant of the theorem's model"))
    if config.beta is not None:
        violations.append(("beta", "softmax attention (beta) is a variant of the theorem's hardmax model"))
    return violations


def load_configuration(path: str | os.PathLike[str], *, outside_hypotheses: bool = False) -> Configuration:
    """Read and validate a CONFIG.json file; every problem is an :class:`InputError` naming the file and field."""
    path = Path(path)
    text = read_text(path, expected="a JSON configuration file")
    data = parse_json(text, source=str(path))
    try:
        return parse_configuration(data, outside_hypotheses=outside_hypotheses, source=str(path))
    except HypothesisViolation as error:
        raise HypothesisViolation(f"{path}: {error.field}", error.message) from None
    except InputError as error:
        where = f"{path}: {error.field}" if error.field and error.field != str(path) else str(path)
        raise InputError(where, error.message) from None


def save_configuration(config: Configuration, path: str | os.PathLike[str]) -> Path:
    """Write the configuration atomically (temporary file, then rename)."""
    return atomic_write_text(Path(path), json_text(config.to_json_dict(), where=os.fspath(path), indent=2))


def make_configuration(tokens: Sequence[Sequence[Any]], *, alpha: Any, A: Any = None,
                       outside_hypotheses: bool = False, name: str | None = None) -> Configuration:
    """Build a configuration from Python values (ints, Fractions, strings, floats), validated as a file would be."""
    data: dict[str, Any] = {"tokens": [list(t) for t in tokens], "alpha": alpha}
    if A is not None:
        data["A"] = [list(r) for r in A]
    if name is not None:
        data["name"] = name
    return parse_configuration(data, outside_hypotheses=outside_hypotheses)


def finite_float(x: Fraction) -> float:
    value = float(x)
    if not math.isfinite(value):
        raise InputError("value", f"{rational_to_str(x)} does not fit in a float64")
    return value
