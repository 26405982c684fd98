"""One campaign, three executors, the same results.json; failing tasks are retried, then reported (issue 9).

The executors (verify.app.campaign.executors) run the same task function in this process, on a
forkserver process pool and on a Dask LocalCluster of two worker processes over loopback.
The deterministic part of results.json (everything before the environment block) must be
byte-identical across them. A checker that raises is retried once and then recorded as an
error record while the rest of the campaign completes; one that fails only on its first
attempt must succeed on the retry (the attempt is marked by a file, so it is visible across
processes).
"""

from __future__ import annotations

import json
import os
import socketserver
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from verify.core import exitcodes
from verify.app.cli import main
from verify.claims import check_configuration
from verify.app.campaign import CampaignSpec, FamilySpec, plan_tasks, run_tasks
from verify.app.campaign.executors import DaskExecutor, InProcessExecutor, ProcessPoolExecutorBackend, make_executor
from verify.app.report import build as report_build
from verify.app.report.schema import deterministic_part
from verify.core.numbers import InputError

distributed = pytest.importorskip("distributed")

pytestmark = [
    pytest.mark.slow,
    # distributed's nanny and comm layers may warn while a LocalCluster shuts down (workers
    # closing their streams before the scheduler); these say nothing about the campaign.
    pytest.mark.filterwarnings("ignore:.*[Cc]losing.*:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:Port .* is already in use:UserWarning"),
]

SPEC = CampaignSpec(examples=3, layer_budget=20, worked=False, float_check=False, shrink=False,
                    families=(FamilySpec("generic", n=(4, 5), d=(2,)),))
ALWAYS = "generic-seed1-"  # configuration names start with the family and the task seed
FLAKY = "generic-seed2-"


class FailingChecker:
    """check_configuration, except that one configuration always raises and one raises on its first attempt only."""

    def __init__(self, marker_dir: Path) -> None:
        self.marker_dir = marker_dir

    def __call__(self, config, *, layer_budget):
        name = config.name or ""
        if name.startswith(ALWAYS):
            (self.marker_dir / f"always-{name}-{len(list(self.marker_dir.glob('always-*')))}").touch()
            raise RuntimeError("deliberate failure")
        if name.startswith(FLAKY):
            marker = self.marker_dir / f"flaky-{name}"
            if not marker.exists():
                marker.touch()
                raise RuntimeError("deliberate transient failure")
        return check_configuration(config, layer_budget=layer_budget)


def _report(tmp: Path, name: str, *executor_args: str) -> str:
    out = tmp / name
    status = main(["report", "--out", str(out), "--examples", "2", "--seed", "3", "--runs", str(tmp / "none"),
                   *executor_args])
    assert status == exitcodes.SUCCESS
    return (out / "results.json").read_text(encoding="utf-8")


@pytest.mark.slow
def test_three_executors_give_identical_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The figures are drawn in this process from the merged records, whichever executor ran the
    # tasks: left out here (the other report tests draw them), so that each run costs its campaign.
    monkeypatch.setattr(report_build, "write_figures", lambda records, out_dir, **_: [])
    texts = {args: _report(tmp_path, args.replace(" ", "").strip("-"), *args.split())
             for args in ("--jobs 1", "--jobs 2", "--dask-local 2")}
    parts = {args: deterministic_part(text) for args, text in texts.items()}
    assert len(set(parts.values())) == 1, "results differ between executors"
    reference = parts["--jobs 1"]
    assert len(reference) > 0.9 * len(texts["--jobs 1"])  # the environment block is a small tail
    examples = json.loads(texts["--dask-local 2"])["examples"]
    assert len(examples) == 4 + 2 and all(r["status"] == "certified" for r in examples)
    assert "--dask-local 2" in json.loads(texts["--dask-local 2"])["environment"]["command_line"]


@pytest.fixture(scope="module")
def dask_cluster():
    executor = DaskExecutor(local_workers=2).start()
    yield executor
    executor.close()


def _check_failure_handling(records: list[dict], marker_dir: Path) -> None:
    tasks = plan_tasks(SPEC, seed=0)
    assert [r["task"]["name"] for r in records] == [t.name for t in tasks]  # none dropped, canonical order
    by_prefix = {r["configuration"]["name"][:len(ALWAYS)] if "configuration" in r else r["task"]["name"]: r
                 for r in records}
    failed = by_prefix["generic-1"]
    assert failed["status"] == "error" and failed["attempts"] == 2
    assert failed["error"] == "RuntimeError: deliberate failure"
    assert len(list(marker_dir.glob("always-*"))) == 2  # tried, then retried once
    flaky = by_prefix[FLAKY]
    assert flaky["status"] == "certified"  # its first attempt raised, the retry succeeded
    assert (marker_dir / f"flaky-{flaky['configuration']['name']}").exists()
    assert sum(r["status"] == "certified" for r in records) == len(tasks) - 1


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["in-process", "process pool", "dask"])
def test_failing_task_is_retried_then_reported(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    executor = {"in-process": InProcessExecutor, "process pool": lambda: ProcessPoolExecutorBackend(2),
                "dask": lambda: request.getfixturevalue("dask_cluster")}[kind]()
    seen = []
    records = run_tasks(plan_tasks(SPEC, seed=0), checker=FailingChecker(tmp_path), executor=executor,
                        progress=lambda task, record: seen.append(task.name))
    if kind == "process pool":
        executor.close()
    assert sorted(seen) == sorted(r["task"]["name"] for r in records)  # progress once per task
    _check_failure_handling(records, tmp_path)


@pytest.mark.slow
def test_interrupt_cancels_and_closes_the_cluster() -> None:
    executor = DaskExecutor(local_workers=1).start()
    cluster = executor._cluster

    def stop(task, record) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tasks(plan_tasks(SPEC, seed=0), executor=executor, progress=stop)
    assert executor._client is None and executor._cluster is None
    assert cluster.status.name == "closed"


def test_bad_scheduler_address_is_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the default output folder of its own: another test may be writing the clone's
    status = main(["report", "--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "1", "--examples", "0"])
    assert status == exitcodes.BAD_INPUT
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --scheduler: cannot connect to tcp://127.0.0.1:1")
    assert main(["report", "--scheduler", "foo://x"]) == exitcodes.BAD_INPUT
    with pytest.raises(InputError):
        make_executor(jobs=2, dask_local=2)
    with pytest.raises(InputError):
        make_executor(scheduler="  ")
    assert isinstance(make_executor(jobs=1), InProcessExecutor)
    assert isinstance(make_executor(jobs=2), ProcessPoolExecutorBackend)  # not started: no workers yet


class _NotDask(socketserver.BaseRequestHandler):
    """A service that answers every connection with a web page: not a Dask scheduler."""

    def handle(self) -> None:
        try:
            self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" * 64)
            self.request.recv(1 << 16)
        except OSError:
            pass


@pytest.mark.parametrize("reply", ["web page", "silence"])
def test_a_service_that_is_not_a_dask_scheduler_could_not_complete_in_one_line(tmp_path: Path, reply: str) -> None:
    """Exit 4, one line naming HOST:PORT, no traceback at exit; not left waiting for --connect-timeout.

    The connect timeout is 60 s and the command must end within the subprocess limit: a run that
    waited out the timeout, or the Client's finaliser after it, would exceed it. A silent service
    gets the connect timeout to answer, so it is tested with a short one.
    """
    handler = _NotDask if reply == "web page" else socketserver.BaseRequestHandler  # silence: accepts, never answers
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler) as server:
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        port = server.server_address[1]
        try:
            completed = subprocess.run(
                [sys.executable, "-m", "verify", "report", "--scheduler", f"tcp://127.0.0.1:{port}",
                 "--connect-timeout", "60" if reply == "web page" else "1", "--examples", "0", "--out",
                 str(tmp_path / "out")],
                cwd=tmp_path, capture_output=True, text=True, timeout=50,
                env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
        finally:
            server.shutdown()
    assert completed.returncode == exitcodes.COULD_NOT_COMPLETE, completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1, completed.stderr
    assert lines[0].startswith(f"error: could not complete: 127.0.0.1:{port} does not speak the Dask protocol (")
    assert not (tmp_path / "out").exists()


def test_without_the_extra_dask_options_are_bad_input(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # the default output folder of its own: another test may be writing the clone's
    monkeypatch.setitem(__import__("sys").modules, "distributed", None)  # import distributed -> ImportError
    assert main(["report", "--dask-local", "2", "--examples", "0"]) == exitcodes.BAD_INPUT
    assert "needs Dask distributed" in capsys.readouterr().err


class KillingChecker:
    """check_configuration, except that one configuration kills its worker process outright."""

    def __call__(self, config, *, layer_budget):
        if (config.name or "").startswith(ALWAYS):
            __import__("os")._exit(3)
        return check_configuration(config, layer_budget=layer_budget)


def test_dask_task_whose_worker_dies_is_recorded(dask_cluster) -> None:
    scheduler = dask_cluster._cluster.scheduler  # LocalCluster: the scheduler lives in this process
    previous, scheduler.allowed_failures = scheduler.allowed_failures, 0  # give up after one death (default 3)
    try:
        records = run_tasks(plan_tasks(SPEC, seed=0), checker=KillingChecker(), executor=dask_cluster)
    finally:
        scheduler.allowed_failures = previous
    assert len(records) == 3  # nothing dropped
    by_name = {r["task"]["name"]: r for r in records}
    killer = by_name["generic-1"]
    assert killer["status"] == "error" and killer["attempts"] == 0 and "KilledWorker" in killer["error"]
    # Tasks queued on the same worker when it died count that death too (Dask's rule), so with
    # allowed_failures = 0 a bystander may also be recorded as lost; it must never vanish.
    for name in ("generic-0", "generic-2"):
        record = by_name[name]
        assert record["status"] == "certified" or "KilledWorker" in record["error"]


# A forkserver whose preload takes seconds (a busy machine), and a Ctrl-C that lands while the
# pool waits for it to fork the workers: every launched worker must be stopped with the pool.
_LAUNCH_INTERRUPTED = """
import os, signal, sys, threading, time
import verify.app.campaign.executors as executors

signal.signal(signal.SIGINT, signal.default_int_handler)  # a background test run may have it ignored

executors.WARM_MODULES = executors.WARM_MODULES + ("slow_preload",)
backend = executors.ProcessPoolExecutorBackend(2)
threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
started = time.monotonic()
try:
    with backend:  # as the report command holds it: an interrupted start must stop the pool itself
        print("not interrupted")
except KeyboardInterrupt:
    import concurrent.futures.process as futures_process
    import multiprocessing
    print(f"interrupted after {time.monotonic() - started:.1f} s", flush=True)
    # Nothing left running at exit: no pool, no worker, no manager thread for Python's exit hook to wake.
    print("pool:", backend._pool, "workers:", len(multiprocessing.active_children()),
          "managers:", len(futures_process._threads_wakeups), flush=True)
"""


@pytest.mark.slow
def test_an_interrupt_while_workers_launch_stops_every_worker_quietly(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "slow_preload.py").write_text("import time\ntime.sleep(3)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2]), str(tmp_path)])}
    done = subprocess.run([sys.executable, "-c", _LAUNCH_INTERRUPTED], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)  # returns once every holder of the pipes (any orphan) is gone
    # An orphaned worker would print a FileNotFoundError traceback from the forkserver.
    assert "Traceback" not in done.stderr and "leaked" not in done.stderr, done.stderr
    # The interrupt is acted on once both workers are launched, i.e. after the 3 s preload.
    assert done.stdout.startswith("interrupted after"), done.stdout + done.stderr
    assert float(done.stdout.split()[2]) >= 2.5, done.stdout
    assert "pool: None workers: 0 managers: 0" in done.stdout, done.stdout


def test_a_held_interrupt_is_raised_when_the_launch_ends_and_a_second_one_at_once() -> None:
    import signal

    from verify.app.campaign.executors import _interrupts_deferred

    # Ctrl-C as an interactive run has it, whatever this test runner was started with.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with _interrupts_deferred():
                os.kill(os.getpid(), signal.SIGINT)
                reached_the_end_of_the_block = True
        assert reached_the_end_of_the_block
        with pytest.raises(KeyboardInterrupt):
            with _interrupts_deferred():
                os.kill(os.getpid(), signal.SIGINT)
                os.kill(os.getpid(), signal.SIGINT)
                pytest.fail("a second Ctrl-C must not wait for the launch")
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


# A Ctrl-C while the campaign's results come in. Any wait that first takes the lock of every
# future in a Python loop (concurrent.futures.as_completed and wait do) gets it at the worst
# moment here: half the locks taken, never released, the pool's manager thread blocked on them
# and the interpreter's exit waiting for that thread for ever.
_INTERRUPTED_WHILE_RESULTS_COME_IN = """
import os, signal, sys, threading, time
import concurrent.futures._base as base
import concurrent.futures.process as futures_process
import multiprocessing
import verify.app.campaign.executors as executors
from verify.app.campaign import CampaignSpec, FamilySpec, plan_tasks

signal.signal(signal.SIGINT, signal.default_int_handler)  # a background test run may have it ignored

def enter_then_interrupted(self):
    futures = list(self.futures)
    for future in futures[: len(futures) // 2]:
        future._condition.acquire()
    raise KeyboardInterrupt
base._AcquireFutures.__enter__ = enter_then_interrupted

spec = CampaignSpec(examples=400, layer_budget=20, worked=False, float_check=False, shrink=False,
                    families=(FamilySpec("generic", n=(4, 5), d=(2,)),))
tasks = plan_tasks(spec, seed=0)
backend = executors.ProcessPoolExecutorBackend(2).start()
done = []
def progress(task, record):
    done.append(record)
    if len(done) == 3:
        os.kill(os.getpid(), signal.SIGINT)
try:
    backend.run(tasks, progress=progress)
    print("not interrupted", flush=True)
except KeyboardInterrupt:
    print("interrupted after", len(done), "results", flush=True)
print("pool:", backend._pool, "workers:", len(multiprocessing.active_children()),
      "managers:", len(futures_process._threads_wakeups), flush=True)
"""


def test_an_interrupt_while_results_come_in_ends_the_run_and_the_process() -> None:
    done = subprocess.run([sys.executable, "-c", _INTERRUPTED_WHILE_RESULTS_COME_IN],
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
                          capture_output=True, text=True, timeout=90)  # a hang at exit fails here
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "leaked" not in done.stderr, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("interrupted after") and int(lines[0].split()[2]) >= 3, done.stdout
    assert lines[1] == "pool: None workers: 0 managers: 0", done.stdout
