"""The campaign file: what a campaign runs (:class:`CampaignSpec`), its embedded defaults, CAMPAIGN.toml.

Every problem with a campaign file is an :class:`~verify.core.numbers.InputError` naming the key.
"""

from __future__ import annotations

import os
import sys
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping

from verify.core.families import FAMILIES, MATRIX_KINDS, MAX_D, MAX_N
from verify.core.io import read_text
from verify.core.limits import MAX_LAYER_BUDGET
from verify.core.numbers import InputError, rational_to_str, to_rational
from verify.core.text import describe_value

__all__ = ["FamilySpec", "CampaignSpec", "DEFAULT_SPEC", "default_spec", "parse_campaign", "load_campaign",
           "check_outside"]


@dataclass(frozen=True)
class FamilySpec:
    """One family of generated configurations and the ranges its tasks draw from.

    ``share`` is a relative weight: the campaign's ``examples`` are split between families in
    proportion to it. ``n`` is an inclusive range, ``d`` and ``alpha`` lists to draw from.
    ``options`` are passed on to :func:`verify.core.families.generate` unchanged.
    """

    name: str
    share: int = 1
    n: tuple[int, int] = (4, 16)
    d: tuple[int, ...] = (2, 3, 4)
    alpha: tuple[str, ...] = ("1/10", "1/2", "2", "10")
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class CampaignSpec:
    """What a campaign runs. ``examples`` counts the generated configurations (worked ones come on top)."""

    examples: int
    layer_budget: int
    worked: bool
    float_check: bool
    shrink: bool
    families: tuple[FamilySpec, ...]
    source: str = "embedded defaults"
    outside_hypotheses: bool = False  # allow families outside the theorem's hypotheses (recorded per example)
    time_budget: float | None = None  # wall-clock seconds per configuration (None: none; makes results machine-dependent)

    def to_json_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["families"] = [
            {"name": f.name, "share": f.share, "n": list(f.n), "d": list(f.d), "alpha": list(f.alpha),
             "options": {k: v for k, v in f.options}} for f in self.families]
        return data


# The default campaign: sized to finish within a few minutes on 2 cores (measured, docs/report.md).
DEFAULT_SPEC = CampaignSpec(
    examples=144,
    layer_budget=200,
    worked=True,
    float_check=True,
    shrink=True,
    families=(
        FamilySpec("generic", share=2, n=(4, 32)),          # A = I
        FamilySpec("diagonal", share=1, n=(4, 24)),
        FamilySpec("dense_spd", share=1, n=(4, 24)),
        FamilySpec("ill_conditioned", share=1, n=(4, 16)),
        FamilySpec("mirror_ties", share=1, n=(4, 16)),      # persistent ties, non-vertex limits (T4)
        FamilySpec("sphere_ties", share=1, n=(4, 16)),      # persistent ties on edge midpoints
        FamilySpec("collinear", share=1, n=(4, 16)),
        FamilySpec("coplanar", share=1, n=(4, 16), d=(3, 4)),
        FamilySpec("hull_edges", share=1, n=(4, 16)),       # tokens on edges of the hull
        FamilySpec("near_origin", share=1, n=(4, 16)),
        FamilySpec("close_pairs", share=1, n=(4, 16)),
    ),
)


def default_spec(*, examples: int | None = None) -> CampaignSpec:
    """The embedded default campaign (``examples`` generated configurations if given)."""
    if examples is None:
        return DEFAULT_SPEC
    return CampaignSpec(**{**_spec_fields(DEFAULT_SPEC), "examples": examples})


def _spec_fields(spec: CampaignSpec) -> dict[str, Any]:
    return {name: getattr(spec, name) for name in spec.__dataclass_fields__}


_CAMPAIGN_KEYS = {"examples", "layer_budget", "time_budget", "worked", "float_check", "shrink", "outside_hypotheses"}
MAX_TIME_BUDGET = 1e9
_FAMILY_KEYS = {"name", "share", "n", "d", "alpha", "options"}
MAX_EXAMPLES = 1_000_000


def _int(value: Any, key: str, *, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(key, f"expected an integer, got {describe_value(value)}")
    if not low <= value <= high:
        raise InputError(key, f"expected an integer in [{low}, {high}], got {value}")
    return value


def _bool(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(key, f"expected true or false, got {describe_value(value)}")
    return value


def parse_campaign(data: Mapping[str, Any], *, source: str = "campaign", outside_hypotheses: bool = False) -> CampaignSpec:
    """Validate a decoded CAMPAIGN.toml; every problem is an :class:`InputError` naming the key.

    Layout (every key optional; missing keys keep the embedded defaults)::

        [campaign]
        examples = 48          # generated configurations, split between families by share
        layer_budget = 200     # layers the claim checks may run per configuration
        time_budget = 30       # wall-clock seconds per configuration (default: none; results then depend on speed)
        worked = true          # include the four worked configurations of docs/theory.md section 4
        float_check = true     # compare the float dynamics with the exact ones
        shrink = true          # shrink counterexamples before reporting them
        outside_hypotheses = false  # allow families outside the theorem's hypotheses (or --outside-hypotheses)

        [[family]]             # repeat per family; when present, replaces the default list
        name = "generic"       # a name registered in verify.core.families.FAMILIES (generic: A = I)
        share = 2
        n = [4, 32]            # inclusive range of token counts
        d = [2, 3, 4]
        alpha = ["1/10", "1/2", "2", "10"]
        options = {}           # passed to verify.core.families.generate
    """
    unknown = sorted(set(data) - {"campaign", "family"})
    if unknown:
        raise InputError(f"{source}: {unknown[0]}", "unknown table (expected [campaign] and [[family]])")
    fields = _spec_fields(default_spec())
    fields["source"] = source
    fields["outside_hypotheses"] = outside_hypotheses
    table = data.get("campaign", {})
    if not isinstance(table, Mapping):
        raise InputError(f"{source}: campaign", "expected a table [campaign]")
    for key in sorted(set(table) - _CAMPAIGN_KEYS):
        raise InputError(f"{source}: campaign.{key}", f"unknown key (expected one of: {', '.join(sorted(_CAMPAIGN_KEYS))})")
    if "examples" in table:
        fields["examples"] = _int(table["examples"], f"{source}: campaign.examples", low=0, high=MAX_EXAMPLES)
    if "layer_budget" in table:
        fields["layer_budget"] = _int(table["layer_budget"], f"{source}: campaign.layer_budget", low=1,
                                      high=MAX_LAYER_BUDGET)
    if "time_budget" in table:
        value = table["time_budget"]
        where = f"{source}: campaign.time_budget"
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(where, f"expected a number of seconds, got {describe_value(value)}")
        if not 0 < value <= MAX_TIME_BUDGET:  # also refuses nan and inf
            raise InputError(where, f"expected seconds in (0, {MAX_TIME_BUDGET:g}], got {value}")
        fields["time_budget"] = float(value)
    for key in ("worked", "float_check", "shrink", "outside_hypotheses"):
        if key in table:
            fields[key] = _bool(table[key], f"{source}: campaign.{key}")
    # Either the flag or the file suffices (project convention).
    fields["outside_hypotheses"] = fields["outside_hypotheses"] or outside_hypotheses

    if "family" in data:
        entries = data["family"]
        if not isinstance(entries, list) or not entries:
            raise InputError(f"{source}: family", "expected one or more [[family]] tables")
        families = []
        for index, entry in enumerate(entries):
            where = f"{source}: family[{index}]"
            if not isinstance(entry, Mapping):
                raise InputError(where, "expected a table")
            for key in sorted(set(entry) - _FAMILY_KEYS):
                raise InputError(f"{where}.{key}", f"unknown key (expected one of: {', '.join(sorted(_FAMILY_KEYS))})")
            families.append(_parse_family(entry, where))
        names = [f.name for f in families]
        if len(set(names)) != len(names):
            raise InputError(f"{source}: family", "each family may appear once")
        fields["families"] = tuple(families)
    spec = CampaignSpec(**fields)
    check_outside(spec, where=f"{source}: family")
    if spec.examples and not spec.families:
        raise InputError(f"{source}: family", "no family to generate examples from")
    return spec


def check_outside(spec: CampaignSpec, *, where: str = "family") -> None:
    """Refuse families outside the theorem's hypotheses unless the campaign allows them explicitly.

    The project's convention: ``--outside-hypotheses`` or ``outside_hypotheses = true`` (in
    [campaign]) says the user means it; the examples then carry ``outside_hypotheses`` and
    the report lists them as such.
    """
    if spec.outside_hypotheses:
        return
    for index, family in enumerate(spec.families):
        known = FAMILIES.get(family.name)
        if known is not None and known.outside:
            raise InputError(f"{where}[{index}].name",
                             f"family {family.name!r} lies outside the theorem's hypotheses; pass "
                             "--outside-hypotheses or set outside_hypotheses = true in [campaign] to study it")


def _parse_family(entry: Mapping[str, Any], where: str) -> FamilySpec:
    if "name" not in entry or not isinstance(entry["name"], str):
        raise InputError(f"{where}.name", "expected the family's name as a string")
    name = entry["name"]
    if name not in FAMILIES:
        raise InputError(f"{where}.name", f"unknown family {name!r} (known: {', '.join(sorted(FAMILIES))})")
    base = FamilySpec(name)
    share = _int(entry.get("share", base.share), f"{where}.share", low=0, high=MAX_EXAMPLES)
    family = FAMILIES[name]
    min_n, min_d = family.min_n, family.min_d
    max_n, max_d = MAX_N, MAX_D
    n = entry.get("n", list(base.n))
    if not isinstance(n, list) or len(n) != 2:
        raise InputError(f"{where}.n", f"expected an inclusive range [low, high], got {describe_value(n)}")
    n_low = _int(n[0], f"{where}.n", low=min_n, high=max_n)
    n_high = _int(n[1], f"{where}.n", low=n_low, high=max_n)
    d = entry.get("d", [x for x in base.d if min_d <= x <= max_d])
    if not isinstance(d, list) or not d:
        raise InputError(f"{where}.d", f"expected a non-empty list of dimensions, got {describe_value(d)}")
    dims = tuple(_int(x, f"{where}.d", low=min_d, high=max_d) for x in d)
    alphas = entry.get("alpha", list(base.alpha))
    if not isinstance(alphas, list) or not alphas:
        raise InputError(f"{where}.alpha", f"expected a non-empty list of numbers, got {describe_value(alphas)}")
    alpha_text = []
    for x in alphas:
        value = to_rational(x if not isinstance(x, float) else repr(x), field=f"{where}.alpha")
        if value <= 0:
            raise InputError(f"{where}.alpha", f"expected alpha > 0, got {describe_value(value)}")
        text = rational_to_str(value)
        # Tasks carry alpha as "p/q" text and read it back: a value whose exact text is beyond the
        # number parser's limits ("1e5000" has 5001 digits) is refused here, not in every task.
        try:
            to_rational(text, field=f"{where}.alpha")
        except InputError as error:
            raise InputError(f"{where}.alpha", f"{describe_value(x)} written exactly is {len(text):,} characters: "
                                               f"{error.message}") from None
        alpha_text.append(text)
    options = entry.get("options", {})
    if not isinstance(options, Mapping):
        raise InputError(f"{where}.options", "expected a table of keyword arguments")
    for key in sorted(set(options) - {"matrix"}):
        raise InputError(f"{where}.options.{key}", "unknown option (expected: matrix)")
    if "matrix" in options and options["matrix"] not in MATRIX_KINDS:
        raise InputError(f"{where}.options.matrix",
                         f"expected one of {', '.join(MATRIX_KINDS)}, got {describe_value(options['matrix'])}")
    return FamilySpec(name, share, (n_low, n_high), dims, tuple(alpha_text), tuple(sorted(options.items())))


def load_campaign(path: str | os.PathLike[str], *, outside_hypotheses: bool = False) -> CampaignSpec:
    """Read CAMPAIGN.toml; a missing, unreadable or malformed file is an :class:`InputError`."""
    path = Path(path)
    text = read_text(path, expected="a CAMPAIGN.toml file")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InputError(str(path), f"malformed TOML: {error}") from None
    except RecursionError:
        raise InputError(str(path), "malformed TOML: nested too deeply") from None
    except ValueError as error:  # tomllib reads integers with int(): Python's digit limit
        if "digits" not in str(error):
            raise
        raise InputError(str(path), f"an integer has too many digits (limit {sys.get_int_max_str_digits()})") from None
    return parse_campaign(data, source=str(path), outside_hypotheses=outside_hypotheses)
