"""The conjecture lab: statements beyond the theorem's hypotheses, tested with Hypothesis.

Public API for your own conjecture files (``hardmax-verify conjecture run my_conj.py``)::

    from verify.experiments.conjectures import Conjecture, Observation
    from verify.strategies import configurations       # or outside_configurations, ...
    from verify.claims import check_configuration      # the exact claim checks and D7 fates

See docs/conjectures.md and examples/my_conjecture.py.
"""

from .base import Conjecture, ConjectureResult, Observation, family_of, recheck_file, run_conjecture
from .builtin import BUILTIN_CONJECTURES, get_conjecture
from .loader import load_conjectures

__all__ = [
    "BUILTIN_CONJECTURES",
    "Conjecture",
    "ConjectureResult",
    "Observation",
    "family_of",
    "get_conjecture",
    "load_conjectures",
    "recheck_file",
    "run_conjecture",
]
