"""The claims layer: the claim registry, one module per claim, and the run they share.

registry holds the table of claims every consumer reads; verdicts the verdict type with its
exact certificate; run the exact run of one configuration that every claim check decides on,
and :func:`check_configuration`, which decides every registered claim check. Every other module
of this package is one claim of docs/theory.md (``T0`` ... ``T4``, ``D0`` ... ``D8``, ``replay``,
``float``): its record, ``CLAIM``, registered in the registry, and for a claim check its check.
Importing this package imports them all, in the order of docs/theory.md: the theorem's
statements T0..T4, then the derived facts D0, D1, ..., then the suite's own checks by name; that
order is the order of every table. A new claim is a new module here, found by that import:
nothing else in the package names it. Modules here may import the core layer and the
independent checker ``verify.certcheck``, never the experiments or app layers, nor the public
modules ``verify.testing`` (built on this layer) and ``verify.strategies`` (Hypothesis: claims are
decided without it). docs/architecture.md has the table of what imports what.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from verify.claims.run import (ClaimReport, ClaimRun, LayerData, TokenFate, check_configuration, layer_limit,
                               leader_layers, run_configuration)

__all__ = ["ClaimReport", "ClaimRun", "LayerData", "TokenFate", "check_configuration", "layer_limit", "leader_layers",
           "run_configuration", "SHARED_MODULES", "claim_modules"]

# The modules of this package that are not claims.
SHARED_MODULES = ("registry", "verdicts", "run")
_NUMBERED = re.compile(r"([TD])(\d+)")


def _theory_order(name: str) -> tuple[int, int, str]:
    """T0..T4 (docs/theory.md §2), then D0, D1, ... (§3), then the suite's own checks by name."""
    numbered = _NUMBERED.fullmatch(name)
    if numbered is None:
        return (2, 0, name.lower())
    return ("TD".index(numbered[1]), int(numbered[2]), "")


def claim_modules() -> tuple[str, ...]:
    """The names of this package's claim modules, in the order they are registered."""
    names = (module.name for module in pkgutil.iter_modules(__path__))
    return tuple(sorted((name for name in names if name not in SHARED_MODULES and not name.startswith("_")),
                        key=_theory_order))


# The one dynamic import of the layer: every claim registers itself, so none is named here.
for _name in claim_modules():
    importlib.import_module(f"{__name__}.{_name}")
