"""Where a campaign's tasks run: in this process, on a local process pool, or on Dask distributed.

Three executors behind one interface (:class:`Executor`): ``start()`` (optional: bring the
workers up early, e.g. while the campaign is planned), ``run(tasks, checker=, progress=)``
returning the merged records, and ``close()``. All three call the same task function,
:func:`attempt_task`, which runs :func:`verify.app.campaign.run.run_task` and retries a task
that raises once; a task that fails twice becomes an *error record* (``status: "error"``),
which the report counts as inconclusive. A task lost to the executor itself (a worker that
died, a task that cannot be sent) also becomes an error record: nothing is dropped.

Records are merged with :func:`verify.app.campaign.merge.merge_records` (sorted by kind, family
and seed), so results.json is the same byte for byte whichever executor ran the campaign and
in whatever order the tasks finished.

Stopping: Ctrl-C (and SIGTERM, which ``hardmax-verify report`` turns into Ctrl-C) cancels the
outstanding tasks, stops the workers (pool) or cancels the futures and closes the client and
any cluster it started (Dask), then propagates; the caller's atomic directory leaves no
partial report.

Workers never outlive the command: each pool worker watches the command's process and exits
when it is gone (even after a SIGKILL, which no handler sees), and a worker told to stop
releases what it holds (the semaphores numba creates) before exiting, so nothing is leaked.

Dask is imported lazily, so the package works without the ``distributed`` extra.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import multiprocessing
import multiprocessing.forkserver
import multiprocessing.resource_tracker
import multiprocessing.util
import os
import queue
import select
import signal
import threading
import time
import uuid
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import process as futures_process
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Collection, Iterator, Sequence


from verify.core.exitcodes import CouldNotComplete
from verify.core.numbers import InputError
from .merge import merge_records
from .run import Checker, run_task
from .tasks import Task

__all__ = ["Executor", "InProcessExecutor", "ProcessPoolExecutorBackend", "DaskExecutor", "make_executor",
           "run_tasks", "attempt_task", "error_record", "DEFAULT_CONNECT_TIMEOUT", "Progress", "TLSFiles",
           "CLAIM_CHECK_SECONDS"]

Progress = Callable[[Task, dict[str, Any]], None]

DEFAULT_CONNECT_TIMEOUT = 10.0  # seconds to reach a --scheduler before giving up with exit status 2
ATTEMPTS = 2  # a task that raises is run once more, then recorded as an error
# The wall time of a task's claim checks travels with its record under this key from the worker
# back to run_tasks, which takes it out: records stay a function of their task alone.
CLAIM_CHECK_SECONDS = "_claim_check_seconds"

# Imported by every worker before its first task (pool initializer, Dask task function):
# the start-up cost is then paid while the workers wait, not inside the first task's timing.
# cvxpy (imported lazily by verify.core.geometry for the T4 cross-check, ~0.8 CPU s in each worker's
# first task) is deliberately not preloaded: it would lengthen the forkserver's start-up, which
# every pool start waits for (and holds a Ctrl-C for, see _interrupts_deferred).
WARM_MODULES = ("verify.claims", "verify.core.families", "verify.core.float_dynamics", "verify.core.float_kernel",
                "verify.core.exact_dynamics", "verify.core.worked", "verify.certcheck", "verify.app.campaign.run")


# --------------------------------------------------------------------------- the task function

def error_record(task: Task, error: str, *, attempts: int) -> dict[str, Any]:
    """The record of a task that could not be checked (counted as inconclusive, listed in the report)."""
    return {"task": task.describe(), "status": "error", "error": error, "attempts": attempts}


def attempt_task(task: Task, checker: Checker | None = None) -> dict[str, Any]:
    """THE task function of every executor: run the task, retry once, else return an error record.

    Deterministic errors (a bug, a checker that raises) fail twice and are recorded with the
    exception's type and message; a transient one (memory pressure, a flaky import) gets its
    second chance. KeyboardInterrupt and SystemExit propagate: they stop the campaign.
    The record carries the wall time of its claim checks under :data:`CLAIM_CHECK_SECONDS`,
    which :func:`run_tasks` removes.
    """
    # One configuration is far too little work for a numba thread team (see
    # _set_float_threads); set per call because numba's setting is per thread and a
    # Dask worker may run tasks on several threads.
    _set_float_threads(1)
    error: BaseException | None = None
    for _ in range(ATTEMPTS):
        try:
            timings: dict[str, float] = {}
            record = run_task(task, checker=checker, timings=timings)
            record[CLAIM_CHECK_SECONDS] = timings["claim_checks"]
            return record
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as caught:  # noqa: BLE001 - recorded in the report, see docstring
            error = caught
    return error_record(task, f"{type(error).__name__}: {error}", attempts=ATTEMPTS)


def _set_float_threads(count: int | None) -> int:
    """Set numba's thread count (the float kernel's), returning the previous one.

    One configuration per call is far too little work for a thread team: with several threads
    each float layer pays for waking them (measured: 0.75 s against ~4 s for 34 float runs on a
    busy 2-core machine), and a process pool would oversubscribe the cores.
    """
    import numba  # about 0.5 s: a pool's parent never needs it

    previous = numba.get_num_threads()
    if count is not None:
        numba.set_num_threads(max(1, min(count, numba.config.NUMBA_NUM_THREADS)))
    return previous


def _warm() -> int:
    """Import the modules a task needs (run once per worker); returns the worker's pid."""
    for name in WARM_MODULES:
        importlib.import_module(name)
    return os.getpid()


def _cost_order(tasks: Sequence[Task]) -> list[Task]:
    """Submission order for parallel executors: the expensive tasks first (longest-first scheduling).

    Cost grows with n and d (measured: the 30-token, 4-dimensional configurations of the
    default campaign take ~0.8 s, the median task 0.06 s); the worked configurations come
    first because two of them are among the slowest. Starting the long tasks first keeps one
    worker from finishing alone at the end. The order of the *records* is unaffected
    (merge_records sorts them).
    """
    def key(item: tuple[int, Task]) -> tuple:
        index, task = item
        return (0 if task.kind == "worked" else 1, -(task.n * max(task.d, 1)), index)
    return [task for _, task in sorted(enumerate(tasks), key=key)]


# --------------------------------------------------------------------------- the interface

class Executor:
    """Runs campaign tasks. Use as a context manager or call :meth:`close`."""

    name = "executor"

    def start(self) -> "Executor":
        """Bring the workers up now (optional; :meth:`run` starts them when needed)."""
        return self

    def run(self, tasks: Sequence[Task], *, checker: Checker | None = None,
            progress: Progress | None = None) -> list[dict[str, Any]]:
        """Run every task with :func:`attempt_task`; return the merged records (one per task)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the workers (idempotent)."""

    def describe(self) -> str:
        return self.name

    def __enter__(self) -> "Executor":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


class InProcessExecutor(Executor):
    """Every task in this process, in the given order (for debugging: breakpoints and tracebacks work)."""

    name = "in-process"

    def run(self, tasks: Sequence[Task], *, checker: Checker | None = None,
            progress: Progress | None = None) -> list[dict[str, Any]]:
        previous = _set_float_threads(1)
        records = []
        try:
            for task in tasks:
                record = attempt_task(task, checker)
                records.append(record)
                if progress is not None:
                    progress(task, record)
        finally:
            _set_float_threads(previous)
        return merge_records(records)


def _exit_worker(status: int) -> None:
    """End this worker now, after releasing what it registered (numba's semaphore, for one).

    A worker killed by a bare SIGTERM never unregisters its semaphores, and the resource
    tracker then warns of "leaked semaphore objects" when the command exits.
    """
    try:
        # The finalizers a normal exit runs (a private function, absent from the type stubs).
        multiprocessing.util._exit_function()  # type: ignore[attr-defined]
    finally:
        os._exit(status)


def _on_sigterm(signum: int, frame: Any) -> None:
    # A second SIGTERM comes when the pool, seeing this worker's sibling gone, stops the rest: if
    # this worker is already running its finalizers, ending it now would leave one half-done.
    if multiprocessing.util.is_exiting():
        return
    if _in_finalizer(frame):  # one finalizer cut short is never run again: exit once it is done
        threading.Timer(_FINALIZER_GRACE_SECONDS, os.kill, (os.getpid(), signum)).start()
        return
    _exit_worker(128 + signum)


# How soon a SIGTERM that arrived during a finalizer is acted on (a finalizer takes microseconds).
_FINALIZER_GRACE_SECONDS = 0.05


def _in_finalizer(frame: Any) -> bool:
    """True when ``frame`` runs under one of multiprocessing's finalizers (a semaphore's release, for one)."""
    while frame is not None:
        code = frame.f_code
        if code.co_qualname == "Finalize.__call__" and code.co_filename == multiprocessing.util.__file__:
            return True
        frame = frame.f_back
    return False


def _watch_parent(parent: int) -> None:
    """Exit when process ``parent`` (the command) has gone, however it went (a daemon thread of each worker).

    The pool's workers are children of the forkserver, not of the command, and hold the
    forkserver's liveness pipe open: if the command is killed, nothing else would end them.
    """
    try:
        handle = os.pidfd_open(parent)
    except (AttributeError, OSError):  # no pidfd (old kernel, not Linux): poll
        while True:
            time.sleep(1.0)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                break
            except PermissionError:
                continue
    else:
        select.select([handle], [], [])  # readable once the process has exited
    _exit_worker(1)


def _worker_init(parent: int | None = None) -> None:
    # Ctrl-C in a terminal reaches the whole process group: only the parent handles it (it
    # terminates the pool), so workers ignore it instead of printing one traceback each.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The pool stops its workers with SIGTERM: exit at once, releasing what the worker holds.
    signal.signal(signal.SIGTERM, _on_sigterm)
    if parent is not None:
        threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()
    _warm()
    _set_float_threads(1)


def _pool_context() -> multiprocessing.context.BaseContext:
    """Workers start from a clean process, never a fork of the caller.

    A plain fork copies the caller's threads' locks: after an in-process float run the
    OpenMP runtime behind the numba kernel is live, and a forked worker can hang forever
    in it (seen in the test suite). forkserver forks from a fresh single-threaded server.

    The server imports :data:`WARM_MODULES` once (preload), so each worker is forked with
    them loaded instead of importing them itself: the imports (~1-2 s of CPU) are paid once,
    not once per worker (measured in bench/campaign.py). Importing runs no numba kernel, so
    the OpenMP runtime is not live in the server when it forks. The preload list only takes
    effect when the server starts, i.e. for the first forkserver pool of the process.
    """
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(WARM_MODULES))
    _start_forkserver_deaf_to_ctrl_c()
    return context


def _start_forkserver_deaf_to_ctrl_c() -> None:
    """Start the forkserver with SIGINT blocked, so that every worker forked from it has it blocked too.

    Ctrl-C in a terminal reaches the whole process group. The workers ignore SIGINT once their
    initializer has run, but a worker still starting would print its own KeyboardInterrupt
    traceback. A blocked signal mask is inherited by the server (exec keeps it) and by each fork;
    the command alone handles Ctrl-C and stops the pool. A Ctrl-C during these few milliseconds
    stays pending and is raised here once SIGINT is unblocked.
    """
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not POSIX
        return
    # The resource tracker first: starting it unblocks SIGINT when done (it blocks the signal for
    # its own start-up), which would undo the mask below.
    multiprocessing.resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold a Ctrl-C or SIGTERM while workers are launched and act on it as the block ends.

    Launching a worker waits for the forkserver to fork it (seconds while the server is still
    importing its preload on a busy machine). An interrupt raised inside that wait leaves a worker
    forked but unknown to the pool: the stop cannot terminate it, the queues' semaphores go away
    with the pool, and the orphan prints a FileNotFoundError traceback as it starts. Held until
    the block ends, the interrupt finds every launched worker registered and stops them all.
    The Python handlers are swapped, not the signal mask: a mask is per thread, and any other
    thread (a progress display) would take the signal and interrupt the launch all the same.
    A second signal while one is held acts at once: a hung launch can still be stopped.
    """
    if threading.current_thread() is not threading.main_thread():  # handlers can be set only there
        yield
        return
    held: list[int] = []

    def hold(signum: int, frame: Any) -> None:
        if held:
            _act_on(signum, previous[signum], frame)
        held.append(signum)

    previous: dict[int, Any] = {signum: signal.signal(signum, hold) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if held:
            _act_on(held[0], previous[held[0]], None)


def _act_on(signum: int, handler: Any, frame: Any) -> None:
    """Do what ``handler`` (as :func:`signal.signal` returned it) would have done with ``signum``."""
    if callable(handler):
        handler(signum, frame)
    elif handler == signal.SIG_DFL:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    # SIG_IGN, or None (a handler not installed from Python): nothing to do


def _in_completion_order(futures: Collection[Future]) -> Iterator[Future]:
    """The futures as they finish, each handed over by its own done-callback.

    Not ``concurrent.futures.as_completed``: it first takes the lock of every future in one
    Python loop, and a Ctrl-C landing inside that loop leaves the locks taken so far held by
    this thread for good. The pool's manager thread then waits for ever to mark those futures
    done, and the interpreter's exit waits for it. A callback takes one future's lock at a time,
    inside a ``with`` block: the window in which a stop can leave a lock held is one instruction
    of one future, not a loop over all of them.
    """
    finished: queue.SimpleQueue[Future] = queue.SimpleQueue()
    for future in futures:
        future.add_done_callback(finished.put)
    for _ in range(len(futures)):
        yield finished.get()


class ProcessPoolExecutorBackend(Executor):
    """A local pool of ``jobs`` worker processes (the default executor: all cores)."""

    name = "process pool"

    def __init__(self, jobs: int) -> None:
        if jobs < 1:
            raise InputError("--jobs", f"expected at least 1 worker, got {jobs}")
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = None

    def describe(self) -> str:
        return f"process pool ({self.jobs} workers)"

    def start(self) -> "ProcessPoolExecutorBackend":
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=_pool_context(),
                                             initializer=_worker_init, initargs=(os.getpid(),))
            # concurrent.futures starts workers as work arrives; one no-op per worker brings
            # them all up (and through their imports) now, e.g. while the campaign is planned.
            try:
                with _interrupts_deferred():
                    for _ in range(self.jobs):
                        self._pool.submit(os.getpid)
            except BaseException:
                # Raised from ``with executor:`` the exit method never runs: stop the pool here, or
                # its workers and manager thread would race the interpreter's exit (tracebacks).
                self._stop()
                raise
        return self

    def run(self, tasks: Sequence[Task], *, checker: Checker | None = None,
            progress: Progress | None = None) -> list[dict[str, Any]]:
        pool = self.start()._pool
        assert pool is not None
        records: list[dict[str, Any]] = []
        try:
            futures: dict[Future, Task] = {pool.submit(attempt_task, task, checker): task
                                           for task in _cost_order(tasks)}
            for future in _in_completion_order(futures):
                task = futures[future]
                try:
                    record = future.result()
                except (KeyboardInterrupt, SystemExit):
                    raise
                except Exception as error:  # noqa: BLE001 - e.g. the checker cannot be pickled
                    # Not an exception of the task itself (attempt_task catches those): the pool
                    # could not run it. Recorded, never dropped. A broken pool (a worker killed)
                    # fails every outstanding future the same way.
                    record = error_record(task, f"{type(error).__name__}: {error}", attempts=0)
                records.append(record)
                if progress is not None:
                    progress(task, record)
        except BaseException:
            # Ctrl-C, SIGTERM (see verify.app.commands.report): stop the workers now, whatever they
            # are running, so that none outlives the campaign.
            self._stop()
            raise
        return merge_records(records)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def __exit__(self, *exc: object) -> None:
        # Leaving on an exception (Ctrl-C while the campaign is planned or written): stop the
        # workers now rather than wait for whatever they run.
        if exc[0] is not None:
            self._stop()
        else:
            self.close()

    def _stop(self) -> None:
        """Cancel queued tasks and terminate the workers (concurrent.futures has no public call for the latter)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        processes = list((getattr(pool, "_processes", None) or {}).values())
        manager = getattr(pool, "_executor_manager_thread", None)
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():  # stuck in native code past its SIGTERM: no leftovers either way
                process.kill()
                process.join(timeout=10)
        # The manager thread notices the dead workers and ends; join it here (shutdown(wait=False)
        # above forgot it, so a second shutdown would not), then drop it from the interpreter's
        # exit hook (concurrent.futures.process._python_exit), which would otherwise write to its
        # already closed wake-up pipe and print an OSError traceback at exit.
        if manager is not None:
            manager.join(timeout=30)
        try:
            futures_process._threads_wakeups.pop(manager, None)
        except (AttributeError, TypeError):  # another Python version: at worst the traceback returns
            pass


@dataclass(frozen=True)
class TLSFiles:
    """The TLS files of a ``tls://`` scheduler address (Dask's ``Security`` for a client).

    ``ca_file`` is the certificate authority that signed the scheduler's certificate (Dask
    checks the chain, not the host name); ``cert`` and ``key`` are this client's certificate and
    key (``key`` may be inside ``cert``): Dask's TLS is mutual, the scheduler checks the client too.
    """

    ca_file: Path | None = None
    cert: Path | None = None
    key: Path | None = None

    def given(self) -> bool:
        return any(path is not None for path in (self.ca_file, self.cert, self.key))

    def options(self) -> dict[str, Path | None]:
        """The command-line options that give these files (for the report's equivalent command)."""
        return {"--tls-ca-file": self.ca_file, "--tls-cert": self.cert, "--tls-key": self.key}

    def security(self, distributed: Any) -> Any:
        """A ``distributed.Security`` requiring encryption; files not given come from Dask's configuration."""
        given = {name: str(path) for name, path in (("tls_ca_file", self.ca_file), ("tls_client_cert", self.cert),
                                                    ("tls_client_key", self.key)) if path is not None}
        security = distributed.Security(require_encryption=True, **given)
        if security.tls_ca_file is None:
            raise InputError("--tls-ca-file", "a tls:// scheduler needs the CA certificate that signed the "
                                              "scheduler's certificate (or distributed.comm.tls.ca-file in Dask's "
                                              "configuration)")
        if security.tls_client_cert is None:
            raise InputError("--tls-cert", "a tls:// scheduler needs this client's certificate, signed by a CA the "
                                           "scheduler trusts (or distributed.comm.tls.client.cert in Dask's "
                                           "configuration)")
        return security


class DaskExecutor(Executor):
    """Dask distributed: an existing cluster (``scheduler``) or a LocalCluster of ``local_workers`` processes.

    Parameters
    ----------
    scheduler
        Address of a running scheduler, e.g. ``tcp://10.0.0.5:8786`` (``dask scheduler``).
    local_workers
        Start a :class:`distributed.LocalCluster` of this many single-threaded worker
        processes listening on the loopback interface only.
    connect_timeout
        Seconds to reach the scheduler; an unreachable or malformed address is an
        :class:`InputError` (exit status 2).
    tls
        The CA, certificate and key files of a ``tls://`` scheduler address.
    """

    def __init__(self, *, scheduler: str | None = None, local_workers: int | None = None,
                 connect_timeout: float = DEFAULT_CONNECT_TIMEOUT, tls: TLSFiles | None = None) -> None:
        if (scheduler is None) == (local_workers is None):
            raise InputError("--scheduler", "give either a scheduler address or a number of local workers")
        if local_workers is not None and local_workers < 1:
            raise InputError("--dask-local", f"expected at least 1 worker, got {local_workers}")
        self.scheduler = scheduler
        self.local_workers = local_workers
        self.connect_timeout = connect_timeout
        self.tls = tls or TLSFiles()
        self._cluster: Any = None
        self._client: Any = None

    @property
    def name(self) -> str:  # type: ignore[override]
        return "dask"

    def describe(self) -> str:
        if self.scheduler is not None:
            return f"dask distributed (scheduler {self.scheduler})"
        return f"dask distributed (LocalCluster, {self.local_workers} workers on loopback)"

    def start(self) -> "DaskExecutor":
        if self._client is not None:
            return self
        distributed = _import_distributed("--scheduler" if self.scheduler is not None else "--dask-local")
        if self.scheduler is not None:
            self._client = _connect(distributed, self.scheduler, self.connect_timeout, self.tls)
        else:
            try:
                self._cluster = distributed.LocalCluster(
                    n_workers=self.local_workers, threads_per_worker=1, processes=True,
                    host="127.0.0.1",           # loopback only: nothing is exposed to the network
                    scheduler_port=0, dashboard_address=None,  # free ports; no dashboard (needs bokeh)
                    # The scheduler still serves /health on HTTP, by default on port 8787: a second
                    # cluster then collides, and distributed leaks the failed socket. A free
                    # loopback port instead.
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                    silence_logs=logging.ERROR)
                self._client = distributed.Client(self._cluster, set_as_default=False)
            except BaseException:
                self.close()
                raise
        return self

    def run(self, tasks: Sequence[Task], *, checker: Checker | None = None,
            progress: Progress | None = None) -> list[dict[str, Any]]:
        distributed = _import_distributed("--scheduler")
        client = self.start()._client
        records: list[dict[str, Any]] = []
        futures: list[Any] = []
        try:
            ordered = _cost_order(tasks)
            run = uuid.uuid4().hex
            # pure=False: a re-run is a new computation, never a cached result of another
            # campaign; retries=0: attempt_task retries in the worker, and the scheduler
            # already reschedules tasks whose worker died (distributed.scheduler.allowed-failures).
            futures = client.map(attempt_task, ordered, checker=checker, pure=False, retries=0,
                                 # Fresh keys per run: a key the scheduler still remembers from an
                                 # earlier run (another checker, say) would return that run's result.
                                 key=[f"hardmax-task-{run}-{i}" for i in range(len(ordered))],
                                 batch_size=1024)
            by_key = {future.key: task for future, task in zip(futures, ordered)}
            for future in distributed.as_completed(futures, loop=client.loop):
                task = by_key[future.key]
                if future.status == "finished":
                    try:
                        record = future.result()
                    except Exception as error:  # noqa: BLE001 - lost between finish and fetch
                        record = error_record(task, f"{type(error).__name__}: {error}", attempts=0)
                else:
                    # The task never returned: its worker died repeatedly (KilledWorker), or it
                    # could not be deserialised on the worker. Recorded, never dropped.
                    failure = future.exception()
                    record = error_record(task, f"{type(failure).__name__}: {failure}", attempts=0)
                future.release()
                records.append(record)
                if progress is not None:
                    progress(task, record)
        except BaseException:
            self._abandon(client, futures)
            raise
        return merge_records(records)

    def map_unordered(self, function: Callable[[Any], Any], items: Sequence[Any], *,
                      name: str = "hardmax-call") -> Iterator[tuple[int, Any]]:
        """``function(item)`` for every item on the cluster: (index, result) pairs in completion order.

        What ``function`` raises is raised here (the rest cancelled); a worker lost for good is
        :class:`CouldNotComplete`. ``function`` and the items must pickle (module-level functions).
        """
        distributed = _import_distributed("--scheduler" if self.scheduler is not None else "--dask-local")
        client = self.start()._client
        run = uuid.uuid4().hex
        # pure=False and fresh keys per run, as for the campaign's tasks (run above).
        futures = client.map(function, list(items), pure=False, retries=0,
                             key=[f"{name}-{run}-{i}" for i in range(len(items))])
        index = {future.key: i for i, future in enumerate(futures)}
        try:
            for future in distributed.as_completed(futures, loop=client.loop):
                try:
                    result = future.result()
                except distributed.KilledWorker as error:
                    raise CouldNotComplete(f"a Dask worker was lost running {future.key}: {error}") from None
                future.release()
                yield index[future.key], result
        except BaseException:
            self._abandon(client, futures)
            raise

    def _abandon(self, client: Any, futures: list[Any]) -> None:
        """On an error or an interrupt: cancel what is still running, then close the cluster."""
        if futures:
            try:
                client.cancel(futures, force=True)
            except Exception:  # noqa: BLE001 - the client may already be gone; close() follows
                pass
        self.close()

    def close(self) -> None:
        client, cluster = self._client, self._cluster
        self._client = self._cluster = None
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


def _import_distributed(option: str) -> Any:
    try:
        import distributed  # heavy optional dependency (the ``distributed`` extra): imported when asked for
    except ImportError:
        raise InputError(option, "needs Dask distributed: pip install 'hardmax-verify[distributed]'") from None
    return distributed


def _connect(distributed: Any, address: str, timeout: float, tls: TLSFiles | None = None) -> Any:
    """A client of the scheduler at ``address``; unreachable or malformed -> InputError (exit 2)."""
    if "://" not in address:
        address = f"tcp://{address}"  # dask's own default protocol, as `dask worker HOST:PORT` accepts
    tls = tls or TLSFiles()
    if address.startswith("tls://"):
        security = tls.security(distributed)
    elif tls.given():
        raise InputError("--scheduler", f"the TLS options need a tls://HOST:PORT address, got {address!r}")
    else:
        security = None
    # A malformed address is refused before a Client exists: a Client that failed inside its
    # constructor later times out in its finaliser and prints a traceback at exit.
    try:
        # the optional ``distributed`` extra, imported with the client (see _import_distributed)
        from distributed.comm.addressing import parse_address
        from distributed.comm.registry import get_backend

        scheme, location = parse_address(address)
        get_backend(scheme)
        if not location or ":" not in location.rsplit("]", 1)[-1] and scheme in ("tcp", "tls"):
            raise ValueError("expected HOST:PORT after the scheme")
    except (ValueError, TypeError) as error:
        raise InputError("--scheduler", f"{address!r} is not a scheduler address: {error}") from None
    if scheme in ("tcp", "tls"):
        _speaks_dask(address, location, timeout, security)
    try:
        return distributed.Client(address, timeout=timeout, set_as_default=False, security=security)
    except (OSError, ValueError, TypeError) as error:  # TimeoutError is an OSError; ssl.SSLError too
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise InputError("--scheduler", f"cannot connect to {address} within {timeout:g} s: {message}") from None


# Beyond --connect-timeout (which bounds the connection itself), how long a service that
# accepted the connection may take to answer Dask's handshake.
HANDSHAKE_GRACE = 2.0


def _speaks_dask(address: str, location: str, timeout: float, security: Any) -> None:
    """Refuse, in one line, a service at ``address`` that answers but not as a Dask scheduler.

    A Client pointed at, say, a web server reads its reply as Dask frames: a length of exabytes
    (MemoryError), then a finaliser that times out and prints a traceback at exit. So the
    handshake is tried first with Dask's own comm layer, no Client made: a service that accepts
    the connection and answers anything but the handshake could not be used (exit 4). An
    address nobody answers at, or a TLS peer that refuses this client or closes the connection
    during the handshake, is bad input (exit 2).
    """
    from distributed.comm import connect  # the optional ``distributed`` extra, as in _connect

    async def handshake() -> None:
        comm = await connect(address, timeout=timeout,
                             **(security.get_connection_args("client") if security is not None else {}))
        await comm.close()

    try:
        asyncio.run(asyncio.wait_for(handshake(), timeout + HANDSHAKE_GRACE))
    except OSError as error:
        text = str(error).splitlines()[0] if str(error) else type(error).__name__
        if text.startswith("Timed out trying to connect"):  # the connection itself failed (refused, TLS, ...)
            raise InputError("--scheduler", f"cannot connect to {address} within {timeout:g} s: {text}") from None
        if isinstance(error, TimeoutError):
            raise CouldNotComplete(f"{location} does not speak the Dask protocol (no handshake within "
                                   f"{timeout + HANDSHAKE_GRACE:g} s)") from None
        if security is not None:
            # Under TLS 1.3 a server that rejects the client's certificate may close the connection
            # after the client has finished its half of the handshake, so the refusal arrives as
            # a closed stream rather than an ssl error: the certificates, not the service, are
            # the likelier cause, and they are the user's input.
            raise InputError("--scheduler", f"cannot connect to {address}: the TLS peer closed the connection "
                             "during the handshake (does it accept this client's certificate, and is it a "
                             "Dask scheduler?)") from None
        raise CouldNotComplete(f"{location} does not speak the Dask protocol (the connection ended during the "
                               "handshake)") from None
    except (MemoryError, Exception):  # noqa: BLE001 - whatever the reply decodes to (an exabyte frame), it is not Dask
        raise CouldNotComplete(f"{location} does not speak the Dask protocol (its reply is not a Dask "
                               "handshake)") from None


def make_executor(*, jobs: int | None = None, scheduler: str | None = None, dask_local: int | None = None,
                  connect_timeout: float = DEFAULT_CONNECT_TIMEOUT, tls: TLSFiles | None = None) -> Executor:
    """The executor a command line asks for: ``--scheduler``, ``--dask-local`` or ``--jobs`` (at most one of them).

    ``jobs`` None means all cores; ``jobs == 1`` runs in this process. ``tls`` only goes with
    a ``tls://`` scheduler address.
    """
    given = [name for name, value in (("--jobs", jobs), ("--scheduler", scheduler), ("--dask-local", dask_local))
             if value is not None]
    if len(given) > 1:
        raise InputError(given[1], f"choose one executor: {' or '.join(given)}")
    tls = tls or TLSFiles()
    if tls.key is not None and tls.cert is None:
        raise InputError("--tls-key", "goes with --tls-cert (the certificate the key belongs to)")
    if tls.given() and scheduler is None:
        option = next(option for option, path in tls.options().items() if path is not None)
        raise InputError(option, "only goes with a tls:// --scheduler address")
    if scheduler is not None:
        if not scheduler.strip():
            raise InputError("--scheduler", "expected an address such as tcp://HOST:8786")
        # Whether the address and the TLS options agree is checked where the address is read (_connect).
        return DaskExecutor(scheduler=scheduler.strip(), connect_timeout=connect_timeout, tls=tls)
    if dask_local is not None:
        return DaskExecutor(local_workers=dask_local, connect_timeout=connect_timeout)
    jobs = jobs or os.cpu_count() or 1
    return InProcessExecutor() if jobs <= 1 else ProcessPoolExecutorBackend(jobs)


def run_tasks(tasks: Sequence[Task], *, jobs: int = 1, checker: Checker | None = None,
              progress: Callable[[Task, dict[str, Any]], None] | None = None,
              executor: Any = None, timings: dict[str, float] | None = None) -> list[dict[str, Any]]:
    """Run the tasks and return the merged records (one per task, errors included).

    ``executor`` is an :class:`Executor` (in-process, process pool or
    Dask); without one, ``jobs == 1`` runs in this process and more runs a process pool of
    ``jobs`` workers that is closed afterwards. ``progress`` is called once per finished task,
    in completion order. Ctrl-C cancels the outstanding tasks and propagates (the caller's
    atomic directory then leaves nothing). ``timings``, when given, receives the wall time of
    each checked task's claim checks in seconds, by task name (not part of the records, which
    depend on their task only).
    """
    if executor is not None:
        records = executor.run(tasks, checker=checker, progress=progress)
    else:
        own = InProcessExecutor() if jobs <= 1 or len(tasks) <= 1 else ProcessPoolExecutorBackend(jobs)
        with own:
            records = own.run(tasks, checker=checker, progress=progress)
    for record in records:
        seconds = record.pop(CLAIM_CHECK_SECONDS, None)
        if timings is not None and seconds is not None:
            timings[record["task"]["name"]] = seconds
    return records
