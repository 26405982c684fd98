"""Assertion helpers named after the claims, for property tests (``properties/``) and your own tests.

Each helper checks one claim or fact of docs/theory.md exactly and, when it fails, raises
:class:`ClaimFailure` (an ``AssertionError``) whose message gives what a mathematician needs:
the claim, the configuration, the layer, the token and the two exact numbers compared. The
configuration is also written as a CONFIG.json that ``hardmax-verify check`` reproduces (or
``hardmax-verify simulate`` for the facts D5, D8 and the float bound, which ``check`` does not
cover), into ``$HARDMAX_COUNTEREXAMPLE_DIR`` or ``.hypothesis/counterexamples/``; the message
says where and gives the command.
Inside a Hypothesis test the file is written only for the final (shrunk) example.

The helpers hide their own frames from pytest's tracebacks (``__tracebackhide__``): a failure
shows the line of your test that called the helper and the message above, not the helper's
source.

Inconclusive verdicts (a token that did not lock within the layer budget, docs/theory.md D7) are
not failures: :func:`assert_claim_certified` records them with ``hypothesis.event`` (so the
statistics show how often they happen) and, by default, rejects the example with
``hypothesis.assume``.

The helpers that do not take a :class:`~verify.claims.ClaimReport` recompute what they check
from exact positions with their own few lines (scores, norms, hull membership through
pycddlib's exact GMP backend), so they do not trust the engine they are checking.
"""

from __future__ import annotations

import hashlib
import json
import os
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn, Sequence

from verify.claims import registry
from verify.core.config import Configuration
from verify.core.io import atomic_write_text, json_text, safe_name
from verify.core.numbers import rational_to_str

__all__ = [
    "ClaimFailure",
    "counterexample_dir",
    "save_counterexample",
    "fail_claim",
    "record_event",
    "assert_claim_certified",
    "assert_claims_not_failed",
    "assert_largest_norm_token_leads",
    "assert_hull_shrinks",
    "assert_norms_nondecreasing",
    "assert_leaders_stay_fixed",
    "assert_duplicates_stay_equal",
    "assert_tokens_never_merge",
    "assert_float_within_bound",
]

Point = Sequence[Fraction]

ENV_DIR = "HARDMAX_COUNTEREXAMPLE_DIR"


class ClaimFailure(AssertionError):
    """A claim checked exactly came out false; ``path`` is the CONFIG.json written (or None)."""

    def __init__(self, message: str, *, claim: str, path: Path | None) -> None:
        super().__init__(message)
        self.claim = claim
        self.path = path


# ----------------------------------------------------------------------------- Hypothesis context

def _hypothesis_context() -> Any:
    """The current Hypothesis build context, or None outside a Hypothesis test."""
    try:
        from hypothesis.control import current_build_context, currently_in_test_context
    except ImportError:  # pragma: no cover - hypothesis is a dependency
        return None
    if not currently_in_test_context():
        return None
    return current_build_context()


def record_event(value: str) -> None:
    """``hypothesis.event(value)`` inside a Hypothesis test (statistics), nothing elsewhere."""
    if _hypothesis_context() is not None:
        from hypothesis import event

        event(value)


def _is_final_example() -> bool:
    """True outside Hypothesis and for Hypothesis's final replay of the shrunk example."""
    context = _hypothesis_context()
    # ``is_final`` marks the replay whose exception Hypothesis reports; during shrinking it is False.
    return context is None or bool(getattr(context, "is_final", True))


# ----------------------------------------------------------------------------- counterexamples

def counterexample_dir() -> Path:
    """``$HARDMAX_COUNTEREXAMPLE_DIR`` if set, else ``.hypothesis/counterexamples`` (relative to the cwd)."""
    return Path(os.environ.get(ENV_DIR) or Path(".hypothesis") / "counterexamples")


def save_counterexample(config: Configuration, *, claim: str, directory: Path | None = None) -> Path:
    """Write ``config`` as a CONFIG.json that ``hardmax-verify check`` reads; returns its path.

    The name is ``<claim>-<first 12 hex digits of the file's sha256>.json``: the same
    configuration always lands in the same file, and nothing is half-written (atomic rename).
    """
    text = json_text(config.to_json_dict(), where=f"a {claim} counterexample", indent=2)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    path = (directory or counterexample_dir()) / f"{safe_name(claim)}-{digest}.json"
    return atomic_write_text(path, text)


def _configuration_text(config: Configuration) -> str:
    return json.dumps(config.to_json_dict(), separators=(", ", ": "))


def _show(value: Any) -> str:
    if isinstance(value, Fraction):
        return rational_to_str(value)
    if isinstance(value, (list, tuple)) and value and all(isinstance(x, Fraction) for x in value):
        return "(" + ", ".join(rational_to_str(x) for x in value) + ")"
    return str(value)


def _reproduce_command(claim: str, path: Path, config: Configuration, layer: Any) -> str:
    """The registry's ``reproduce``: ``check`` re-decides what verify.claims decides (T0 includes D0);
    the other facts are properties of the trajectory, which ``simulate`` prints exactly."""
    flag = " --outside-hypotheses" if config.outside_hypotheses else ""
    record = registry.find(claim)
    if record is not None and record.reproduce == "check":
        return f"hardmax-verify check {path}{flag}"
    layers = f" --layers {layer}" if isinstance(layer, int) else ""
    arithmetic = " --arithmetic float" if claim == "float" else ""
    return f"hardmax-verify simulate {path}{layers}{arithmetic}{flag}"


def fail_claim(claim: str, config: Configuration, summary: str, **context: Any) -> NoReturn:
    """Raise :class:`ClaimFailure` for ``claim`` with its context, writing the counterexample file.

    ``context`` keys are printed in order (layer, token, compared, lhs, rhs, ...); Fractions are
    shown as exact ``p/q``. Inside Hypothesis, the file is written only for the final example.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's source
    record = registry.find(claim)
    lines = [f"{claim} ({record.statement if record else 'claim'}) failed: {summary}",
             f"  configuration: {_configuration_text(config)}"]
    if config.outside_hypotheses:
        lines.append("  (outside the theorem's hypotheses)")
    for key, value in context.items():
        lines.append(f"  {key}: {_show(value)}")
    path = None
    if _is_final_example():
        try:
            path = save_counterexample(config, claim=claim)
        except OSError as error:  # the failure itself matters more than the file
            lines.append(f"  (could not write the counterexample: {error})")
        else:
            lines.append(f"  counterexample written to {path}")
            lines.append(f"  reproduce with: {_reproduce_command(claim, path, config, context.get('layer'))}")
    raise ClaimFailure("\n".join(lines), claim=claim, path=path)


# ----------------------------------------------------------------------------- claim reports

_EVIDENCE_KEYS = ("layer", "token", "tokens", "compared", "lhs", "rhs", "limit", "face", "attention", "what")


def assert_claim_certified(report: Any, claim: str, *, allow_inconclusive: bool = True,
                           reject_inconclusive: bool = True) -> Any:
    """The verdict of ``claim`` in a :class:`~verify.claims.ClaimReport` is certified; returns it.

    A failed verdict raises :class:`ClaimFailure` with the verdict's evidence (layer, token,
    the two exact numbers). An inconclusive verdict is recorded with ``hypothesis.event``; it
    raises only when ``allow_inconclusive`` is False, and otherwise, inside Hypothesis and when
    ``reject_inconclusive`` is True, rejects the example with ``hypothesis.assume(False)``.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's source
    verdict = report.verdicts[claim]
    if verdict.status == "failed":
        evidence = dict(verdict.evidence)
        # The first recorded failure of a list (violations / failures) carries the exact numbers.
        for key in ("violations", "failures"):
            if isinstance(evidence.get(key), list) and evidence[key]:
                evidence = {**evidence, **evidence[key][0]}
        context = {key: evidence[key] for key in _EVIDENCE_KEYS if key in evidence}
        context["evidence"] = json.dumps(verdict.evidence, default=str)[:2000]
        fail_claim(claim, report.config, verdict.summary, **context)
    if verdict.status == "inconclusive":
        record_event(f"{claim}: inconclusive")
        if not allow_inconclusive:
            fail_claim(claim, report.config, f"inconclusive, expected certified: {verdict.summary}")
        if reject_inconclusive and _hypothesis_context() is not None:
            from hypothesis import assume

            assume(False)
        return verdict
    record_event(f"{claim}: certified")
    return verdict


def assert_claims_not_failed(report: Any, claims: Sequence[str] | None = None) -> None:
    """No verdict of ``claims`` (default: every verdict of the report) is failed; inconclusive ones are recorded."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's source
    for claim in claims or list(report.verdicts):
        assert_claim_certified(report, claim, reject_inconclusive=False)


# ----------------------------------------------------------------------------- facts, checked directly

def _score(A: Sequence[Sequence[Fraction]], x: Point, y: Point) -> Fraction:
    """<A x, y> = sum_r (A x)_r y_r, written out (no engine code)."""
    d = len(x)
    return sum((A[r][c] * x[c] * y[r] for r in range(d) for c in range(d)), Fraction(0))


def assert_largest_norm_token_leads(config: Configuration, attention: Sequence[frozenset[int]]) -> None:
    """D0: every token of largest A-norm has C_i = {i} at layer 0 (``attention`` = the engine's layer-0 sets).

    Also recomputes C_i of those tokens from the exact scores, so a wrong engine and a wrong
    fact are told apart in the message.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's source
    A = config.A_matrix
    tokens = config.tokens
    norms = [_score(A, z, z) for z in tokens]
    top = max(norms)
    for i, norm in enumerate(norms):
        if norm != top:
            continue
        scores = [_score(A, tokens[i], z) for z in tokens]
        best = max(scores)
        recomputed = frozenset(j for j, s in enumerate(scores) if s == best)
        if recomputed != {i}:
            j = next(j for j in sorted(recomputed) if j != i)
            fail_claim("D0", config, f"token {i} has the largest A-norm but C_{i} = {sorted(recomputed)} at layer 0",
                       layer=0, token=i, compared=f"<A z_{i}, z_{j}> vs <A z_{i}, z_{i}>",
                       lhs=scores[j], rhs=scores[i])
        if attention[i] != {i}:
            fail_claim("D0", config,
                       f"the engine's C_{i} at layer 0 is {sorted(attention[i])}, but exact scores give {{{i}}}",
                       layer=0, token=i, compared="engine attention set vs recomputed",
                       lhs=sorted(attention[i]), rhs=[i])


def _outside_hull_certificate(point: Point, hull: Sequence[Point]) -> list[Fraction] | None:
    """None if ``point`` is in conv(hull); else (z0, z) with z0 + <z, point> < 0 <= z0 + <z, v> for every v.

    The halfspace is re-checked exactly here before it is returned.
    """
    import cdd
    import cdd.gmp as cdd_gmp

    rows = [[Fraction(1), *v] for v in hull] + [[Fraction(1), *point]]
    matrix = cdd_gmp.matrix_from_array(rows, rep_type=cdd.RepType.GENERATOR)
    certificate = cdd_gmp.redundant(matrix, len(rows) - 1)
    if certificate is None:
        return None
    cert = [Fraction(x) for x in certificate]
    # cdd's answer is a claim; the separating halfspace is re-checked exactly before it is believed.
    value = cert[0] + sum((a * b for a, b in zip(cert[1:], point)), Fraction(0))
    if value < 0 and all(cert[0] + sum((a * b for a, b in zip(cert[1:], v)), Fraction(0)) >= 0 for v in hull):
        return cert
    raise RuntimeError("pycddlib returned a separating halfspace that does not separate: cannot decide D1")


def assert_hull_shrinks(before: Sequence[Point], after: Sequence[Point], *, config: Configuration, layer: int) -> None:
    """D1: every token of layer ``layer`` (``after``) lies in the convex hull of layer ``layer - 1`` (``before``).

    Decided exactly: membership is pycddlib's exact (GMP) redundancy test, and a point outside
    comes with a separating halfspace that is re-checked here in rationals.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's source
    for i, p in enumerate(after):
        certificate = _outside_hull_certificate(p, before)
        if certificate is None:
            continue
        z0, z = certificate[0], certificate[1:]
        lhs = z0 + sum((a * b for a, b in zip(z, p)), Fraction(0))
        rhs = min(z0 + sum((a * b for a, b in zip(z, v)), Fraction(0)) for v in before)
        fail_claim("D1", config, f"token {i} of layer {layer} lies outside conv(layer {layer - 1})", layer=layer,
                   token=i, position=tuple(p),
                   compared=f"z0 + <z, z_{i}^{layer}> vs min over layer {layer - 1} of z0 + <z, v>",
                   lhs=lhs, rhs=rhs, separating_halfspace=tuple(certificate))


def assert_norms_nondecreasing(before: Sequence[Point], after: Sequence[Point], *, config: Configuration,
                               layer: int) -> None:
    """D2: ||z_i^{layer}||_A^2 >= ||z_i^{layer-1}||_A^2 for every token, exactly."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's source
    A = config.A_matrix
    for i, (x, y) in enumerate(zip(before, after)):
        old, new = _score(A, x, x), _score(A, y, y)
        if new < old:
            fail_claim("D2", config, f"token {i}'s squared A-norm decreases from layer {layer - 1} to {layer}",
                       layer=layer, token=i, compared=f"||z_{i}^{layer}||_A^2 vs ||z_{i}^{layer - 1}||_A^2",
                       lhs=new, rhs=old)


def assert_leaders_stay_fixed(positions: Sequence[Sequence[Point]], attention: Sequence[Sequence[frozenset[int]]], *,
                              config: Configuration) -> None:
    """D3: once C_i = {i} at layer k, token i keeps C_i = {i} and the same position at every later layer given."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's source
    first: dict[int, int] = {}
    for k, sets in enumerate(attention):
        for i, C in enumerate(sets):
            if i in first:
                start = first[i]
                if positions[k][i] != positions[start][i]:
                    c = next(c for c, (a, b) in enumerate(zip(positions[k][i], positions[start][i])) if a != b)
                    fail_claim("D3", config, f"leader {i} (from layer {start}) moved at layer {k}", layer=k, token=i,
                               compared=f"z_{i}^{k}[{c}] vs z_{i}^{start}[{c}]", lhs=positions[k][i][c],
                               rhs=positions[start][i][c])
                if C != {i}:
                    fail_claim("D3", config, f"leader {i} (from layer {start}) has C_{i} = {sorted(C)} at layer {k}",
                               layer=k, token=i, compared="attention set vs {i}", lhs=sorted(C), rhs=[i])
            elif C == {i}:
                first[i] = k


def assert_duplicates_stay_equal(positions: Sequence[Sequence[Point]], *, config: Configuration) -> None:
    """D5: tokens equal at layer 0 are equal at every layer given (``positions[k][i]``)."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's source
    initial = positions[0]
    for k, layer in enumerate(positions):
        for i in range(len(initial)):
            for j in range(i + 1, len(initial)):
                if initial[i] == initial[j] and layer[i] != layer[j]:
                    c = next(c for c, (a, b) in enumerate(zip(layer[i], layer[j])) if a != b)
                    fail_claim("D5", config, f"tokens {i} and {j} start equal but differ at layer {k}", layer=k,
                               token=(i, j), compared=f"z_{i}^{k}[{c}] vs z_{j}^{k}[{c}]",
                               lhs=layer[i][c], rhs=layer[j][c])


def assert_tokens_never_merge(positions: Sequence[Sequence[Point]], *, config: Configuration) -> None:
    """D8: tokens distinct at layer 0 are distinct at every layer given (A positive definite)."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's source
    initial = positions[0]
    for k, layer in enumerate(positions):
        seen: dict[tuple[Fraction, ...], int] = {}
        for i, p in enumerate(layer):
            key = tuple(p)
            j = seen.setdefault(key, i)
            if j != i and initial[i] != initial[j]:
                fail_claim("D8", config, f"distinct tokens {j} and {i} merge at layer {k}", layer=k, token=(j, i),
                           compared=f"z_{j}^{k} vs z_{i}^{k}", lhs=tuple(layer[j]), rhs=tuple(p))


def assert_float_within_bound(exact: Sequence[Point], approximate: Any, bound: float, *, config: Configuration,
                              layer: int) -> None:
    """Every float coordinate is within ``bound`` of the exact one: |float - exact| <= bound, decided exactly.

    The float value is converted to the rational it stores, so the comparison itself does not round.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's source
    limit = Fraction(bound)
    for i, p in enumerate(exact):
        for c, x in enumerate(p):
            stored = Fraction(float(approximate[i][c]))
            if abs(stored - x) > limit:
                fail_claim("float", config, f"token {i}, coordinate {c} at layer {layer} is outside the proven bound",
                           layer=layer, token=i, compared=f"|float z_{i}[{c}] - exact z_{i}[{c}]| vs bound",
                           lhs=float(abs(stored - x)), rhs=bound, exact=x, float_value=float(approximate[i][c]))
