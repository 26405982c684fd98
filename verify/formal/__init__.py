"""The bridge to the Coq development in ``formal/``: certificates written as Coq terms and checked by Coq's kernel.

Untrusted by design. This package writes a configuration and its D7 or D9 certificate as Coq terms,
runs ``coqc`` and reads back what the kernel said; a wrong term can only make the kernel reject
(or prove a statement about another configuration, which the statement's own evaluation of the
model exposes: docs/formal.md). What a kernel-checked verdict trusts is ``formal/Statement.v``,
Coq's kernel and its bytecode evaluator (``vm_compute``), nothing in Python.

* :mod:`.library`: the Coq sources, the statement's sha256, finding ``coqc``, building the
  library once into a cache keyed by the sources;
* :mod:`.terms`: exact numbers, vectors, configurations and fates as Coq terms;
* :mod:`.tasks`: what a claims report or results.json record asks of the kernel, claim by claim;
* :mod:`.kernel`: running the kernel over many configurations, bounded in time and memory;
* :mod:`.evaluate`: the statement's model evaluated inside Coq, to compare with the exact engine.

Part ``formal`` of docs/architecture.md: it may import the core and the claims.
"""

from .library import CoqUnavailable, coq_version, statement_sha256
from .tasks import COVERED_CLAIMS, ClaimOutcome, KernelTask, RecordPlan, plan_record
from .kernel import KernelRun, check_tasks

__all__ = ["CoqUnavailable", "coq_version", "statement_sha256", "COVERED_CLAIMS", "ClaimOutcome", "KernelTask",
           "RecordPlan", "plan_record", "KernelRun", "check_tasks"]
