"""Leader control (docs/theory.md D10): choose A so that chosen tokens lead, with exact certificates both ways.

Given tokens z_1..z_n and a set L of tokens, decide whether some symmetric positive definite A
makes every token of L lead at layer 0 and every other token attend to one leader from layer 0
on (then the leaders are exactly L and every limit is known exactly, for every alpha > 0).
Three outcomes, each with what backs it:

* **realised**: a rational A, with its exact LDL^T pivots and every margin exactly positive;
* **impossible at layer 0**: rational y >= 0, not all zero, with S = -sum_c y_c M_c positive
  semidefinite, checked by exact symmetric elimination (Gordan's alternative);
* **inconclusive**: the solver's answer could not be turned into either exact certificate, or no
  target map was found although L itself can lead; the result says what was tried.

A solver (cvxpy: Clarabel, SCS as fallback) only proposes; exact checks decide. Modules:
:mod:`.constraints` (the matrices M(m; t, k), margins, the exact checks), :mod:`.solver` (the
semidefinite and linear programs, float evidence), :mod:`.design` (rounding, certificates, the
target-map search and the outcome), :mod:`.leader_sets` (every subset of the hull vertices),
:mod:`.result` (the JSON form the independent checker ``verify.certcheck.control`` re-verifies),
:mod:`.study` and :mod:`.report_section` (the report's study). Functions for the conjecture
lab: :func:`realisable`, :func:`all_hull_vertices_lead`.
"""

from __future__ import annotations

from .design import Outcome, control, realisable
from .leader_sets import all_hull_vertices_lead, decide_leader_sets

__all__ = ["Outcome", "control", "realisable", "decide_leader_sets", "all_hull_vertices_lead"]
