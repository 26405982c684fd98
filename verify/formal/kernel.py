"""Running Coq's kernel over many configurations, bounded in time and memory.

Tasks are written into batch files, one Coq module per configuration, each with its theorems
(``Theorem outcome : HardmaxVerify.Statement.Outcome cfg fates limits K ZK.`` and the others of
:class:`~verify.formal.tasks.KernelTask`), every one closed by ``vm_cast_no_check (eq_refl true)``
so that the kernel alone evaluates the checker, once, at ``Qed``. The file imports Statement.v
only (the proof files are required, not imported, and every name is written in full), so nothing
of the input or of the proofs can change what a statement means; no text of the input is written
into it but numbers. It ends by printing the assumptions of every theorem it proves, with D1, D2
and D3: "Closed under the global context", or nothing in it counts as checked.

coqc stops at the first error. An error at a theorem's ``Qed`` is a rejection of that theorem (a
second, untrusted evaluation in Diagnose.v says why); the file is then run again without it, so
that the rest is still checked. Running out of time or memory makes the batch's configurations
not kernel-checked, never rejected.
"""

from __future__ import annotations

import re
import resource
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from verify.core.exitcodes import CouldNotComplete
from verify.core.limits import KERNEL_MEMORY_LIMIT, KERNEL_TIME_LIMIT

from .library import LIBRARY, built_library, coq_version, coqc_path, statement_sha256
from .tasks import KERNEL_CHECKED, NOT_KERNEL_CHECKED, REJECTED, KernelTask

__all__ = ["KernelVerdict", "KernelRun", "check_tasks", "DEFAULT_TIME_LIMIT", "DEFAULT_MEMORY_LIMIT", "batch_text",
           "standalone_text"]

DEFAULT_TIME_LIMIT = KERNEL_TIME_LIMIT        # seconds of wall time for one coqc run
DEFAULT_MEMORY_LIMIT = KERNEL_MEMORY_LIMIT    # bytes of address space for one coqc run
BATCH_SIZE = 4000                     # tokens x layers written into one coqc run, at most (one task at least)
CLOSED = "Closed under the global context"
# What Print Assumptions lists for the fast replay (formal/Fast.v): Coq's primitive 63-bit integers,
# implemented by the kernel, and the standard library's statements of what their operations compute.
# A kernel-checked result rests on these and on nothing else (docs/formal.md, the trusted base).
PRIMITIVE_INTEGERS = frozenset(
    [f"PrimInt63.{op}" for op in ("add", "addc", "addcarryc", "addmuldiv", "compare", "div", "diveucl", "diveucl_21",
                                   "eqb", "head0", "int", "land", "leb", "lor", "lsl", "lsr", "ltb", "lxor", "mod",
                                   "mul", "mulc", "sub", "subc", "subcarryc", "tail0")]
    + [f"Uint63.{spec}" for spec in ("add_spec", "addc_def_spec", "addcarryc_def_spec", "addmuldiv_def_spec",
                                      "compare_def_spec", "div_spec", "diveucl_21_spec", "diveucl_def_spec",
                                      "eqb_correct", "eqb_refl", "head0_spec", "land_spec", "leb_spec", "lor_spec",
                                      "lsl_spec", "lsr_spec", "ltb_spec", "lxor_spec", "mod_spec", "mul_spec",
                                      "mulc_spec", "of_to_Z", "sub_spec", "subc_def_spec", "subcarryc_def_spec",
                                      "tail0_spec")])
# Proved once for every configuration; their assumptions are printed with every batch's.
GENERIC = ("HardmaxVerify.Checker.D1", "HardmaxVerify.Checker.D3", "HardmaxVerify.Norms.D2")

_HEADER = (f"From {LIBRARY} Require Import Statement.\n"
           f"From {LIBRARY} Require Checker Similarity Paths Fast Polytope Norms.\n"
           "From Coq Require Import QArith List.\nImport ListNotations.\nOpen Scope Q_scope.\n\n")


@dataclass(frozen=True)
class KernelVerdict:
    status: str          # kernel-checked | not kernel-checked: the task's theorems that were not refused
    reason: str
    seconds: float       # the kernel's time at this configuration's Qeds (coqc -time), or the run's share
    rejected: dict[str, str] = field(default_factory=dict)   # theorem -> why the kernel refused it

    @property
    def summary(self) -> str:
        """rejected when a theorem was refused, else the status."""
        return REJECTED if self.rejected else self.status


@dataclass
class KernelRun:
    """What the kernel said about each task, and what it rests on."""

    verdicts: dict[str, KernelVerdict]
    coq_version: str
    statement_sha256: str
    seconds: float

    def count(self, status: str) -> int:
        return sum(1 for v in self.verdicts.values() if v.summary == status)


def _module(index: int, task: KernelTask) -> str:
    return f"Module M{index}.\n{task.definitions()}{task.theorems()}End M{index}.\n\n"


def _assumptions(names: Sequence[str]) -> str:
    return f"Definition all_outcomes := ({', '.join([*names, *GENERIC])}).\nPrint Assumptions all_outcomes.\n"


def standalone_text(task: KernelTask, title: str = "") -> str:
    """One configuration's proof as a file to check by hand (docs/formal.md): coqc -Q BUILD HardmaxVerify FILE."""
    shown = re.sub(r"[^A-Za-z0-9 _.,-]", "_", title)[:80]  # nothing of the input can close the comment
    return (f"(* {shown}: checked by Coq's kernel against formal/Statement.v (sha256 {statement_sha256()}) *)\n"
            + _HEADER + task.definitions() + "\n" + task.theorems() + _assumptions(task.theorem_names()) + "\n"
            "(* The statement's model, evaluated: the positions (numerator, denominator) and the attention\n"
            "   sets of layer 1. *)\n"
            "Require Import HardmaxVerify.Diagnose.\n"
            "Eval vm_compute in exact_form (layers cfg 1).\n"
            "Eval vm_compute in attention_sets cfg (layers cfg 1).\n")


def batch_text(tasks: Sequence[KernelTask]) -> str:
    """The Coq file that checks these tasks: their modules, then the assumptions of every theorem."""
    return (_HEADER + "".join(_module(i, t) for i, t in enumerate(tasks))
            + _assumptions([f"M{i}.{name}" for i, t in enumerate(tasks) for name in t.theorem_names()]))


def _limits(memory: int) -> Callable[[], None]:
    """Cap coqc's address space at ``memory``, or at the limit this process already runs under
    when that is lower (a process may lower its limit, never raise it)."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = memory if hard == resource.RLIM_INFINITY else min(memory, hard)

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    return apply


def _run_coqc(text: str, folder: Path, name: str, *, time_limit: float, memory_limit: int,
              timed: bool = False) -> tuple[int | None, str, float]:
    """(exit status or None on time-out, output, seconds) of coqc on ``text``; ``timed``: with the
    time of every command (coqc -time), for the kernel's time at each Qed."""
    path = folder / f"{name}.v"
    path.write_text(text, encoding="utf-8")
    start = time.monotonic()
    try:
        done = subprocess.run([coqc_path(), "-q", *(["-time"] if timed else []), "-Q", str(built_library()), LIBRARY,
                               path.name], cwd=folder,
                              capture_output=True, text=True, timeout=time_limit, preexec_fn=_limits(memory_limit))
    except subprocess.TimeoutExpired:
        return None, "", time.monotonic() - start
    except OSError as error:
        raise CouldNotComplete(f"cannot run coqc ({error.strerror or error})") from None
    return done.returncode, done.stdout + done.stderr, time.monotonic() - start


_ERROR_LINE = re.compile(r'File "[^"]*", line (\d+)')
_FAILURE = re.compile(r"=\s*(NoFailure|AlphaNotPositive|FateCount|LimitCount|NoLeader|"
                      r"(?:TokenFails|TokenNotFirst)\s+(\d+)\s+(\d+)|ReplayFails\s+(\d+))")
_FOUND = re.compile(r"=\s*(None|Some\s+(\d+)%nat)")
_BOOL = re.compile(r"=\s*(true|false)\s*:\s*bool")
# How coqc says that it ran out of memory or stack (the kernel did not finish: nothing is refused).
_RESOURCE = re.compile(r"Out of memory|Stack overflow|Cannot allocate|memory exhausted", re.I)

_DIAGNOSIS = {
    "outcome": "Eval vm_compute in first_failure cfg fates limits K ZK.\n",
    "segment": ("Eval vm_compute in segment_failure cfg seg.\n"
                "Eval vm_compute in check_path_fates fates limits seg.\n"),
    "polytope": "Eval vm_compute in polytope_failure (dim cfg) fates limits dirs mults.\n",
    "spsd": "Eval vm_compute in check_gram (A cfg) ds vs.\n",
    "projections": "Eval vm_compute in t4_failure (A cfg) fates limits faces.\n",
    "no_leader": ("Eval vm_compute in (negb (Qle_bool sims 0), Nat.ltb 0 simp, similar_entries (A cfg) simM sims (dim cfg),\n"
                  "  Nat.eqb (length simP) (ntokens cfg) && forallb (fun j => Nat.ltb j (length simP)) simP && nodupb simP,\n"
                  "  veqb_all (layers cfg (simk + simp)) (map (fun j => matvec simM (nth j (layers cfg simk) [])) simP),\n"
                  "  no_leader_run cfg (simk + simp) (tokens cfg)).\n"),
}
# The parts of check_similarity, in order, and what each one's failure means.
_SIMILARITY_PARTS = ("the scale s is not positive", "the period p is not positive",
                     "M^T A M = s A does not hold entry by entry (or M, A have entries past the dimension)",
                     "the relabelling P is not a permutation of the tokens",
                     "the positions of layer k + p are not M times those of layer k (relabelled by P)",
                     "a token leads at a layer before k + p")


def _diagnose(task: KernelTask, theorem: str, folder: Path, *, time_limit: float, memory_limit: int) -> str:
    """Why the kernel refused ``theorem`` of ``task``: an untrusted evaluation in Diagnose.v."""
    if theorem not in _DIAGNOSIS:
        return f"the kernel refused its {theorem} theorem"
    text = ("Require Import HardmaxVerify.Statement HardmaxVerify.Checker HardmaxVerify.Paths HardmaxVerify.Polytope "
            "HardmaxVerify.Norms HardmaxVerify.Similarity HardmaxVerify.Diagnose.\n"
            "From Coq Require Import QArith List.\nImport ListNotations.\nOpen Scope Q_scope.\n"
            + task.definitions() + _DIAGNOSIS[theorem])
    status, output, _ = _run_coqc(text, folder, "diagnose", time_limit=time_limit, memory_limit=memory_limit)
    if status != 0:
        return f"the kernel refused its {theorem} theorem"
    if theorem == "outcome":
        found = _FAILURE.search(output)
        word = found.group(1).split()[0] if found else ""
        if word == "NoFailure" and task.segment is not None:
            return _diagnose(task, "segment", folder, time_limit=time_limit, memory_limit=memory_limit)
        if found is None:
            return "the kernel refused the certificate"
        if word == "TokenFails":
            return (f"token {found.group(3)} at layer {found.group(2)}: the conditions of its fate do not hold "
                    "in the model's own layers")
        if word == "TokenNotFirst":
            return (f"token {found.group(3)}: its fate's condition holds already at layer {found.group(2)}, "
                    "before the layer the certificate names")
        return {"NoFailure": "the kernel refused the proof although the checker accepts (report this)",
                "AlphaNotPositive": "alpha is not positive",
                "FateCount": "the fates are not one per token",
                "LimitCount": "the limits are not one per token",
                "NoLeader": "no token has the fate leader",
                "ReplayFails": f"the positions of layer {found.group(4) if found else '?'} are not the model's"}.get(
            word, "the kernel refused the certificate")
    if theorem == "no_leader":
        found = re.search(r"=\s*\(([a-z,\s]+)\)", output)
        parts = [w.strip() for w in found.group(1).split(",")] if found else []
        failing = [why for why, value in zip(_SIMILARITY_PARTS, parts) if value == "false"]
        return f"the D11 certificate: {failing[0]}" if failing else "the kernel refused the D11 certificate"
    if theorem == "spsd":
        return "A is not the sum of d_i v_i v_i^T the certificate gives (with every d_i >= 0)"
    if theorem == "segment":
        found = _FOUND.search(output)
        if found and found.group(2):
            return (f"token {found.group(2)}: its closed-form path does not hold (its start, the update rule, "
                    "its ties or a strict score for every t)")
        return "a path token's fate or limit is not the closed-form segment's"
    found = _FOUND.search(output)
    token = found.group(2) if found and found.group(2) else "?"
    if theorem == "polytope":
        return (f"token {token}: its limit is not where T2 and T3 say (a direction that does not separate or "
                "support, or multipliers that do not give the limit)")
    return f"token {token}: its limit does not minimise the A-norm over the face its direction exposes"


_QED_TIME = re.compile(r"Chars (\d+) - \d+ \[Qed\.\] ([0-9.]+) secs")


def _kernel_seconds(text: str, output: str, count: int) -> list[float]:
    """Each module's time at its Qeds (coqc -time reports a command by its byte offset in the file)."""
    data = text.encode("utf-8")
    starts = [data.find(f"Module M{i}.".encode()) for i in range(count)]
    seconds = [0.0] * count
    for offset, value in _QED_TIME.findall(output):
        module = max((i for i, start in enumerate(starts) if 0 <= start <= int(offset)), default=None)
        if module is not None:
            seconds[module] += float(value)
    return seconds


def _batches(tasks: Sequence[KernelTask], jobs: int = 1) -> list[list[KernelTask]]:
    """Consecutive tasks in batches of at most BATCH_SIZE, and at least ``jobs`` batches when there are enough tasks."""
    limit = max(1, min(BATCH_SIZE, -(-sum(t.size for t in tasks) // max(jobs, 1))))
    batches: list[list[KernelTask]] = []
    size = 0
    for task in tasks:
        if batches and size + task.size <= limit:
            batches[-1].append(task)
            size += task.size
        else:
            batches.append([task])
            size = task.size
    return batches


def _check_batch(batch: list[KernelTask], folder: Path, *, time_limit: float, memory_limit: int) -> dict[str, KernelVerdict]:
    verdicts: dict[str, KernelVerdict] = {}
    pending = list(batch)
    refused: dict[str, dict[str, str]] = {t.name: {} for t in batch}
    while pending:
        text = batch_text(pending)
        status, output, seconds = _run_coqc(text, folder, "batch", time_limit=time_limit, memory_limit=memory_limit,
                                            timed=True)
        share = seconds / len(pending)
        if status is None:  # out of time: alone, each task gets the whole limit
            if len(pending) == 1:
                verdicts[pending[0].name] = KernelVerdict(NOT_KERNEL_CHECKED,
                                                          f"the kernel did not finish within {time_limit:g} s", seconds,
                                                          refused[pending[0].name])
                return verdicts
            for task in pending:
                one = _check_batch([task], folder, time_limit=time_limit, memory_limit=memory_limit)[task.name]
                verdicts[task.name] = KernelVerdict(one.status, one.reason, one.seconds,
                                                    {**refused[task.name], **one.rejected})
            return verdicts
        if status == 0 and assumptions_accepted(output):
            for task, kernel in zip(pending, _kernel_seconds(text, output, len(pending))):
                verdicts[task.name] = KernelVerdict(KERNEL_CHECKED, "", kernel, refused[task.name])
            return verdicts
        line = _ERROR_LINE.search(output)
        where = _failing_theorem(text, int(line.group(1))) if line else None
        if status < 0 or _RESOURCE.search(output) or where is None or status == 0:
            if status < 0 or _RESOURCE.search(output):
                reason = f"the kernel ran out of memory or stack (at most {memory_limit >> 20} MiB)"
            else:
                reason = "coqc did not check the file it was given (the bridge wrote terms it refuses)"
            for task in pending:
                verdicts[task.name] = KernelVerdict(NOT_KERNEL_CHECKED, reason, share, refused[task.name])
            return verdicts
        index, theorem = where
        task = pending[index]
        if index >= len(pending) or theorem not in task.theorem_names() or theorem in refused[task.name]:
            for other in pending:  # an error this loop cannot place: say so, never loop
                verdicts[other.name] = KernelVerdict(NOT_KERNEL_CHECKED, "coqc failed where no theorem was checked",
                                                     share, refused[other.name])
            return verdicts
        refused[task.name][theorem] = _diagnose(task, theorem, folder, time_limit=time_limit, memory_limit=memory_limit)
        # Run again without it: the modules before it print their assumptions, the rest is checked.
        pending[index] = task.without(theorem)
    return verdicts


def assumptions_accepted(output: str) -> bool:
    """Print Assumptions (the last command of a file) names nothing but the primitive integers."""
    if CLOSED in output:
        return True
    _, found, listed = ("\n" + output).rpartition("\nAxioms:\n")
    if not found:
        return False
    names = []
    for line in listed.splitlines():
        if line.startswith("Chars "):   # coqc -time's line for the command itself
            break
        if line and not line[0].isspace():
            names.append(re.split(r"\s", line, maxsplit=1)[0])
    return bool(names) and all(name in PRIMITIVE_INTEGERS for name in names)


def _failing_theorem(text: str, line: int) -> tuple[int, str] | None:
    """(module index, theorem) whose text holds ``line`` (1-based), or None outside any theorem."""
    index, theorem = None, None
    for content in text.splitlines()[:line]:
        found = re.match(r"Module M(\d+)\.", content)
        if found:
            index, theorem = int(found.group(1)), None
        found = re.match(r"Theorem (\w+) :", content)
        if found:
            theorem = found.group(1)
        if content.startswith("Definition "):
            theorem = None
    return (index, theorem) if index is not None and theorem is not None else None


def check_tasks(tasks: Sequence[KernelTask], *, jobs: int = 1, time_limit: float = DEFAULT_TIME_LIMIT,
                memory_limit: int = DEFAULT_MEMORY_LIMIT, progress: Callable[[int, int], None] | None = None) -> KernelRun:
    """The kernel's verdict on every task.

    Raises :class:`~verify.formal.library.CoqUnavailable` when coqc is missing,
    :class:`CouldNotComplete` when the library does not build, and ValueError for two tasks of
    one name (their verdicts would be one).
    """
    if len({t.name for t in tasks}) != len(tasks):
        raise ValueError("check_tasks: every task needs a name of its own")
    start = time.monotonic()
    version, sha = coq_version(), statement_sha256()
    built_library()
    verdicts: dict[str, KernelVerdict] = {}
    batches = _batches(tasks, jobs)
    done = 0
    with tempfile.TemporaryDirectory(prefix="hardmax-kernel-") as tmp:
        folders = []
        for i in range(len(batches)):
            folders.append(Path(tmp) / f"b{i}")
            folders[-1].mkdir()
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [pool.submit(_check_batch, b, f, time_limit=time_limit, memory_limit=memory_limit)
                       for b, f in zip(batches, folders)]
            for future, batch in zip(futures, batches):
                verdicts.update(future.result())
                done += len(batch)
                if progress is not None:
                    progress(done, len(tasks))
    return KernelRun(verdicts={t.name: verdicts[t.name] for t in tasks}, coq_version=version, statement_sha256=sha,
                     seconds=time.monotonic() - start)
