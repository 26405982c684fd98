"""An independent reading of T1's quantity for the sweep's tests: each token's first leading layer, from the exact
engine's layers alone (no claim code, no sweep code)."""

from __future__ import annotations

from typing import Any

from verify.core.config import parse_configuration
from verify.core.exact_dynamics import exact_layers


def first_leading_layers(config_json: dict[str, Any], layers: int = 60) -> dict[int, int]:
    """token -> the first layer (within ``layers``) at which it leads (C_i = {i})."""
    config = parse_configuration(config_json)
    first: dict[int, int] = {}
    for layer in exact_layers(config.tokens, alpha=config.alpha, A=config.A):
        for i in layer.leaders():
            first.setdefault(i, layer.index)
        if layer.index == layers:
            break
    return first
