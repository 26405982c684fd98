"""Running Coq's kernel over many configurations, bounded in time and memory.

Tasks are written into batch files, one Coq module per configuration, each ending in

    Theorem outcome : Outcome cfg fates limits K ZK.
    Proof. apply certificate_sound. vm_cast_no_check (eq_refl true). Qed.

so that the kernel alone evaluates the checker (``vm_compute``, once, at ``Qed``). coqc stops
at the first error: the modules before it were checked, the failing one is rejected (and a
second, untrusted evaluation of ``first_failure`` says why), the rest are run again.
"""

from __future__ import annotations

import re
import resource
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
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

_HEADER = (f"From {LIBRARY} Require Import Statement Checker Polytope Norms.\n"
           "From Coq Require Import QArith List.\nImport ListNotations.\nOpen Scope Q_scope.\n\n")


@dataclass(frozen=True)
class KernelVerdict:
    status: str          # kernel-checked | rejected | not kernel-checked
    reason: str
    seconds: float       # the kernel's time at this configuration's Qed (coqc -time), or the run's share


@dataclass
class KernelRun:
    """What the kernel said about each task, and what it rests on."""

    verdicts: dict[str, KernelVerdict]
    coq_version: str
    statement_sha256: str
    seconds: float

    def count(self, status: str) -> int:
        return sum(1 for v in self.verdicts.values() if v.status == status)


def _module(index: int, task: KernelTask) -> str:
    return f"Module M{index}.\n(* {task.name} *)\n{task.definitions()}{task.theorems()}End M{index}.\n\n"


def standalone_text(task: KernelTask) -> str:
    """One configuration's proof as a file to check by hand (docs/formal.md): coqc -Q BUILD HardmaxVerify FILE."""
    return (f"(* {task.name}: checked by Coq's kernel against formal/Statement.v (sha256 {statement_sha256()}) *)\n"
            + _HEADER + task.definitions() + "\n" + task.theorems()
            + "".join(f"Print Assumptions {name}.\n" for name in task.theorem_names()) + "\n"
              "(* The statement's model, evaluated: the positions (numerator, denominator) and the attention\n"
              "   sets of layer 1. *)\n"
              "Require Import HardmaxVerify.Diagnose.\n"
              "Eval vm_compute in exact_form (layers cfg 1).\n"
              "Eval vm_compute in attention_sets cfg (layers cfg 1).\n")


def batch_text(tasks: Sequence[KernelTask]) -> str:
    """The Coq file that checks these tasks (also what ``prove --write-coq`` saves).

    It ends by printing the assumptions of all its theorems together (one pass over their
    dependencies): "Closed under the global context", or the file does not count as checked.
    """
    every = ", ".join(f"M{i}.{name}" for i, t in enumerate(tasks) for name in t.theorem_names())
    return (_HEADER + "".join(_module(i, t) for i, t in enumerate(tasks))
            + f"Definition all_outcomes := ({every}).\nPrint Assumptions all_outcomes.\n")


def _limits(memory: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
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


_POLYTOPE_FAILURE = re.compile(r"=\s*(None|Some\s+(\d+)%nat)")
_BOOL = re.compile(r"=\s*(true|false)\s*:\s*bool")


def _diagnose(task: KernelTask, folder: Path, *, time_limit: float, memory_limit: int) -> str:
    """Why the checker rejects ``task``: evaluate the untrusted ``first_failure``,
    ``polytope_failure``, ``t4_failure`` and ``check_gram`` (Diagnose.v)."""
    text = (_HEADER.replace("Statement Checker", "Statement Checker Diagnose") + task.definitions()
            + "Eval vm_compute in first_failure cfg fates limits K ZK.\n"
            + ("Eval vm_compute in polytope_failure fates limits dirs mults.\n" if task.directions is not None else "")
            + ("Eval vm_compute in t4_failure (A cfg) fates limits faces.\n" if task.faces is not None else "")
            + ("Eval vm_compute in check_gram (A cfg) ds vs.\n" if task.gram is not None else ""))
    status, output, _ = _run_coqc(text, folder, "diagnose", time_limit=time_limit, memory_limit=memory_limit)
    found = _FAILURE.search(output) if status == 0 else None
    if found is None:
        return "the kernel rejected the certificate"
    if found.group(1) == "NoFailure":
        rest = output[found.end():]
        answers = _POLYTOPE_FAILURE.findall(rest)
        if task.directions is not None and answers and answers[0][1]:
            return (f"token {answers[0][1]}: its limit is not where T2 and T3 say (a direction that does "
                    "not separate or support, or multipliers that do not give the limit)")
        if task.faces is not None and len(answers) > (task.directions is not None) and answers[-1][1]:
            return (f"token {answers[-1][1]}: its limit does not minimise the A-norm over the face its "
                    "direction exposes")
        gram = _BOOL.search(rest) if task.gram is not None else None
        if gram is not None and gram.group(1) == "false":
            return "A is not the sum of d_i v_i v_i^T the certificate gives (with every d_i >= 0)"
    word = found.group(1).split()[0]
    if word == "TokenFails":
        return (f"token {found.group(3)} at layer {found.group(2)}: the conditions of its fate do not hold "
                "in the model's own layers")
    if word == "TokenNotFirst":
        return (f"token {found.group(3)}: its fate's condition holds already at layer {found.group(2)}, "
                "before the layer the certificate names")
    return {"NoFailure": "the kernel rejected the proof although the checker accepts (report this)",
            "AlphaNotPositive": "alpha is not positive",
            "FateCount": "the fates are not one per token",
            "LimitCount": "the limits are not one per token",
            "NoLeader": "no token has the fate leader",
            "ReplayFails": f"the positions of layer {found.group(4)} are not the model's"}[word]


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
    while pending:
        text = batch_text(pending)
        status, output, seconds = _run_coqc(text, folder, "batch", time_limit=time_limit, memory_limit=memory_limit,
                                            timed=True)
        share = seconds / len(pending)
        if status is None:  # out of time: alone, each task gets the whole limit
            if len(pending) == 1:
                verdicts[pending[0].name] = KernelVerdict(NOT_KERNEL_CHECKED,
                                                          f"the kernel did not finish within {time_limit:g} s", seconds)
                return verdicts
            for task in pending:
                verdicts.update(_check_batch([task], folder, time_limit=time_limit, memory_limit=memory_limit))
            return verdicts
        if status == 0 and CLOSED in output:
            for task, kernel in zip(pending, _kernel_seconds(text, output, len(pending))):
                verdicts[task.name] = KernelVerdict(KERNEL_CHECKED, "", kernel)
            return verdicts
        line = _ERROR_LINE.search(output)
        failing = _failing_module(text, int(line.group(1))) if line else None
        if status == 0 or failing is None or failing >= len(pending):
            reason = "coqc did not check the file" + (f" ({' '.join(output.split()[:12])})" if output else "")
            if "Out of memory" in output or status == -9 or status == 137:
                reason = f"the kernel ran out of memory ({memory_limit >> 20} MiB)"
            for task in pending:
                verdicts[task.name] = KernelVerdict(NOT_KERNEL_CHECKED, reason, share)
            return verdicts
        rejected = pending[failing]
        verdicts[rejected.name] = KernelVerdict(
            REJECTED, _diagnose(rejected, folder, time_limit=time_limit, memory_limit=memory_limit), share)
        # The modules before it passed their Qed; they run again so that their assumptions are printed too.
        pending = pending[:failing] + pending[failing + 1:]
    return verdicts


def _failing_module(text: str, line: int) -> int | None:
    """The index of the module whose text holds ``line`` (1-based)."""
    index = None
    for content in text.splitlines()[:line]:
        found = re.match(r"Module M(\d+)\.", content)
        if found:
            index = int(found.group(1))
    return index


def check_tasks(tasks: Sequence[KernelTask], *, jobs: int = 1, time_limit: float = DEFAULT_TIME_LIMIT,
                memory_limit: int = DEFAULT_MEMORY_LIMIT, progress: Callable[[int, int], None] | None = None) -> KernelRun:
    """The kernel's verdict on every task (tasks need distinct names).

    Raises :class:`~verify.formal.library.CoqUnavailable` when coqc is missing and
    :class:`CouldNotComplete` when the library does not build.
    """
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
