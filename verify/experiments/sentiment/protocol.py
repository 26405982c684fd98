"""Preregistered run protocols: a committed TOML file fixes the grid, the seeds and the rules; this runs it.

A protocol file (``protocols/reproduction.toml``) has ``[common]`` training settings, the
``[selection]`` and ``[report]`` rules (text, recorded in every output), and ``[[study]]``
tables, each a grid of ``d`` x ``layers`` x ``seeds`` (and optionally ``fixed_alpha``) with a
``phase``. :func:`expand` turns it into the queue of runs, in phase order, then by seed, d,
K from largest and alpha; a run that two studies share (same settings) appears once.

:func:`run_queue` works through the queue in one process, one run at a time:

* a run whose ``evaluation.json`` exists is finished and skipped, and so is a run already
  collected into the results folder (``<results>/<run>.json`` recording this protocol's sha256),
  so that a fresh runs folder on another machine continues the queue where the committed
  results end;
* otherwise it trains, resuming after the last completed epoch if the run folder holds a
  checkpoint (an interrupted run loses at most the epoch in progress), and keeps every
  epoch's weights for the like-for-like measurement;
* after training (the last epoch or early stopping) it evaluates the test reviews once and
  writes ``evaluation.json`` atomically; that file marks the run finished;
* a finished run with K >= 1 then gets ``interpretation.json`` (:mod:`.interpret`: certified
  group leaders, deletion test, matched polarity, leader vote, clustering measures), once.

Several runners may work in the same folder at once (one per core, say): each run is claimed
with a lock file (``<runs-dir>/.locks/<run>.lock``) for as long as a runner works on it, and a
runner skips the runs another holds. Progress goes to ``protocol.log`` in the runs folder (one
line per event, flushed, naming the runner's process id).

Run folders: ``<runs-dir>/<run>/checkpoint`` (the resumable checkpoint), ``<run>/epochs``
(one weights file per epoch), ``<run>/evaluation.json``.

Besides the test numbers, ``evaluation.json`` records how the run was trained, summed over every
stretch of training however often it resumed (:func:`.model.training_record`, from the
checkpoint's epoch history): ``training_step`` ("compiled", "reference" or "mixed") with
``step_implementations`` (which epochs each implementation trained), ``code_commits`` (the
package's git commit per stretch of epochs), ``training_wall_seconds`` and
``training_cpu_seconds`` (sums over the epochs). ``wall_seconds`` is the wall-clock time of the
runner that finished the run only: its stretch of training plus the test evaluation.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, NoReturn

from verify.core.io import (atomic_directory, atomic_write_bytes, atomic_write_text, json_from_bytes, json_text,
                            read_input, read_json, sha256_file)
from verify.core.numbers import InputError
from verify.core.text import one_line
from verify.experiments.imdb.corpus import MAX_VOCABULARY_BYTES
from verify.experiments.imdb.preprocess import PreprocessOptions
from . import steps
from .checkpoints import COMPACT_BEST, MAX_META_BYTES, MAX_WEIGHTS_BYTES, compact_best_weights, expand_compact_weights
from .interpret import interpret_checkpoint
from .model import DEFAULT_STEP, TrainingSettings, training_record

__all__ = ["Protocol", "PlannedRun", "load_protocol", "expand", "run_queue", "queue_status", "run_name",
           "collected_record"]

_COMMON_KEYS = {"protocol": str, "split_seed": int, "validation_fraction": float, "cleaning": str, "lemmas": str,
                "stopwords": str, "lowercase": bool, "epochs": int, "patience": int, "learning_rate": float,
                "batch_size": int, "beta": float, "alpha_init": float, "attention_over": str,
                "bucket_batches": int, "threads": int}
_STUDY_KEYS = {"name", "phase", "d", "layers", "seeds", "fixed_alpha"}
MAX_RUNS = 1000
MAX_PROTOCOL_BYTES = 1 << 20
# The files of a finished run's checkpoint that define its selected model; its evaluation
# records their sha256, and each is read (to be published) within its limit.
_PUBLISHED_LIMITS = {"checkpoint.json": MAX_META_BYTES, "vocab.txt.gz": MAX_VOCABULARY_BYTES,
                     "best.safetensors": MAX_WEIGHTS_BYTES}
RECORDED_FILES = tuple(_PUBLISHED_LIMITS)


@dataclass(frozen=True)
class PlannedRun:
    """One run of a protocol: its name (also its folder) and what defines it."""

    name: str
    d: int
    layers: int
    seed: int
    fixed_alpha: float | None
    phase: int
    studies: tuple[str, ...]


@dataclass
class Protocol:
    path: Path
    name: str
    title: str
    common: dict
    selection: dict
    report: dict
    studies: list[dict]
    sha256: str = ""
    runs: list[PlannedRun] = field(default_factory=list)


def run_name(d: int, layers: int, seed: int, fixed_alpha: float | None) -> str:
    alpha = "" if fixed_alpha is None else f"-alpha{fixed_alpha:g}"
    return f"d{d}-K{layers}{alpha}-s{seed}"


def _fail(path: Path, field_name: str, message: str) -> NoReturn:
    raise InputError(f"{path}: {field_name}", message)


def load_protocol(path: Path | str) -> Protocol:
    """Read and check a protocol file; every problem is a one-line InputError naming the field."""
    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), "no such protocol file" + (
            f" (a relative path, the default among them, is read from the current folder {one_line(str(Path.cwd()))}: "
            "run from the repository's root or give the path)" if not path.is_absolute() else ""))
    raw = read_input(path, expected="a protocol file (TOML)", limit=MAX_PROTOCOL_BYTES)
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError, ValueError) as error:
        raise InputError(str(path), f"not valid TOML ({str(error)[:200]})") from None
    for key in ("name", "title"):
        if not isinstance(document.get(key), str):
            _fail(path, key, "expected a string")
    common = document.get("common")
    if not isinstance(common, dict):
        _fail(path, "common", "expected a table of training settings")
    for key, value in common.items():
        if key not in _COMMON_KEYS:
            _fail(path, f"common.{key}", f"unknown setting (known: {', '.join(sorted(_COMMON_KEYS))})")
        expected = _COMMON_KEYS[key]
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) if expected is float else (
            isinstance(value, expected) and (expected is bool or not isinstance(value, bool)))
        if not ok:
            _fail(path, f"common.{key}", f"expected {expected.__name__}, got {value!r}")
    missing = sorted(set(_COMMON_KEYS) - set(common))
    if missing:
        _fail(path, "common", f"missing {', '.join(missing)}")
    studies = document.get("study")
    if not isinstance(studies, list) or not studies:
        _fail(path, "study", "expected one or more [[study]] tables")
    protocol = Protocol(path, document["name"], document["title"], common, dict(document.get("selection") or {}),
                        dict(document.get("report") or {}), studies, hashlib.sha256(raw).hexdigest())
    protocol.runs = expand(protocol)
    return protocol


def _int_list(path: Path, where: str, value: object, *, low: int, high: int) -> list[int]:
    if not (isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        _fail(path, where, "expected a non-empty list of integers")
    if any(not low <= v <= high for v in value):
        _fail(path, where, f"expected integers in [{low}, {high}]")
    return list(value)


def expand(protocol: Protocol) -> list[PlannedRun]:
    """The queue of runs, in order, each once."""
    path = protocol.path
    runs: dict[str, PlannedRun] = {}
    for index, study in enumerate(protocol.studies):
        where = f"study[{index}]"
        if not isinstance(study, dict):
            _fail(path, where, "expected a table")
        unknown = sorted(set(study) - _STUDY_KEYS)
        if unknown:
            _fail(path, f"{where}.{unknown[0]}", f"unknown key (known: {', '.join(sorted(_STUDY_KEYS))})")
        name = study.get("name")
        if not isinstance(name, str) or not name:
            _fail(path, f"{where}.name", "expected a non-empty string")
        phase = study.get("phase", 1)
        if not isinstance(phase, int) or isinstance(phase, bool):
            _fail(path, f"{where}.phase", "expected an integer")
        dims = _int_list(path, f"{where}.d", study.get("d"), low=1, high=1024)
        layers = _int_list(path, f"{where}.layers", study.get("layers"), low=0, high=64)
        seeds = _int_list(path, f"{where}.seeds", study.get("seeds"), low=0, high=2**31)
        alphas = study.get("fixed_alpha", [None])
        if alphas != [None] and not (isinstance(alphas, list) and alphas and all(
                isinstance(a, (int, float)) and not isinstance(a, bool) and 0 < a < 1e6 for a in alphas)):
            _fail(path, f"{where}.fixed_alpha", "expected a non-empty list of numbers in (0, 1e6)")
        for d in dims:
            for k in layers:
                for seed in seeds:
                    for alpha in alphas:
                        alpha = None if alpha is None else float(alpha)
                        key = run_name(d, k, seed, alpha)
                        previous = runs.get(key)
                        studies = (previous.studies if previous else ()) + (name,)
                        run_phase = min(phase, previous.phase) if previous else phase
                        runs[key] = PlannedRun(key, d, k, seed, alpha, run_phase, studies)
                        if len(runs) > MAX_RUNS:
                            _fail(path, "study", f"more than {MAX_RUNS} runs")
    return sorted(runs.values(), key=lambda r: (r.phase, r.seed, r.d, -r.layers,
                                                 -1.0 if r.fixed_alpha is None else r.fixed_alpha))


def training_settings(protocol: Protocol, run: PlannedRun):
    """The TrainingSettings of one run (torch is not needed to build them)."""
    common = protocol.common
    return TrainingSettings(
        d=run.d, layers=run.layers, beta=float(common["beta"]), learning_rate=float(common["learning_rate"]),
        batch_size=common["batch_size"], seed=run.seed,
        alpha_init=float(run.fixed_alpha if run.fixed_alpha is not None else common["alpha_init"]),
        train_alpha=run.fixed_alpha is None, merged_tokens=common["attention_over"] == "distinct",
        bucket_batches=common["bucket_batches"])


def preprocess_options(protocol: Protocol):
    common = protocol.common
    return PreprocessOptions(lowercase=common["lowercase"], stopwords=common["stopwords"], lemmas=common["lemmas"],
                             cleaning=common["cleaning"])


def regenerate_command(protocol: Protocol, run: PlannedRun) -> str:
    return (f"hardmax-verify sentiment protocol run --protocol {protocol.path.as_posix()} --runs-dir RUNS "
            f"--only {run.name}")


class _Log:
    """Append-only progress log, one line per event, flushed (and echoed to ``echo``)."""

    def __init__(self, path: Path, echo: Callable[[str], None] | None, runner: int | None = None) -> None:
        self.path, self.echo = path, echo
        # Several runners may share the log: each line names its runner.
        self.prefix = "" if runner is None else f"[runner {runner}] "

    def __call__(self, text: str) -> None:
        line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {self.prefix}{text}"
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
        if self.echo is not None:
            self.echo(line)


def collected_record(protocol: Protocol, results_dir: Path | None, name: str) -> bool:
    """Whether run ``name`` is already collected into ``results_dir`` under this very protocol file."""
    if results_dir is None:
        return False
    path = Path(results_dir) / f"{name}.json"
    if not path.exists():
        return False
    record = read_json(path, expected="an evaluation record")
    return isinstance(record, dict) and record.get("protocol_sha256") == protocol.sha256


def queue_status(protocol: Protocol, runs_dir: Path, *, results_dir: Path | None = None) -> list[dict]:
    """One record per planned run: finished / collected / in progress (epochs so far) / not started.

    "collected": finished on an earlier machine, its record already in ``results_dir``.
    """
    status = []
    for run in protocol.runs:
        folder = Path(runs_dir) / run.name
        record: dict = {"run": run.name, "studies": list(run.studies), "phase": run.phase}
        evaluation = folder / "evaluation.json"
        checkpoint = folder / "checkpoint" / "checkpoint.json"
        if evaluation.exists():
            record["state"] = "finished"
        elif collected_record(protocol, results_dir, run.name):
            record["state"] = "collected"
        elif checkpoint.exists():
            record["state"] = "in progress"
        else:
            record["state"] = "not started"
        if checkpoint.exists():
            try:
                meta = read_json(checkpoint, expected="a checkpoint.json", limit=MAX_META_BYTES)
                best = meta.get("best") or {}
                record.update(epochs=meta.get("epochs_completed"), best_epoch=best.get("epoch"),
                              validation_accuracy=best.get("val_acc"),
                              alpha=(meta.get("history") or [{}])[-1].get("alpha"))
                record.update(_training_summary(meta.get("history") or []))
            except (InputError, AttributeError, KeyError, TypeError):
                record["note"] = "checkpoint.json unreadable"
        status.append(record)
    return status


def _training_summary(history: list[dict]) -> dict:
    """Which step implementations trained a run, by epoch, and its summed training time (:func:`.model.training_record`)."""
    return training_record(history)


def run_queue(protocol: Protocol, runs_dir: Path, *, data: Path | None, cache_dir: Path | None,
              only: tuple[str, ...] = (), results_dir: Path | None = None,
              echo: Callable[[str], None] | None = None, step: str | None = None,
              train_run: Callable[..., dict] | None = None,
              evaluate_run: Callable[..., dict] | None = None,
              interpret_run: Callable[..., dict] | None = None) -> list[str]:
    """Work through the queue (see the module docstring); returns the names of the runs finished now.

    ``results_dir``: where ``collect`` puts finished runs' records; a run collected there under this
    protocol is not trained again. ``step``: the training step's implementation (:data:`.model.STEPS`,
    default :data:`.model.DEFAULT_STEP`). ``train_run``, ``evaluate_run`` and ``interpret_run``
    default to the package's functions (injectable for tests).
    """
    step = DEFAULT_STEP if step is None else step
    train: Callable[..., dict] = train_run or steps.train_run
    evaluate: Callable[..., dict] = evaluate_run or steps.evaluate_checkpoint
    interpret: Callable[..., dict] = interpret_run or interpret_checkpoint
    runs_dir = Path(runs_dir)
    runs_dir.mkdir(parents=True, exist_ok=True)
    known = {run.name for run in protocol.runs}
    unknown = [name for name in only if name not in known]
    if unknown:
        raise InputError("--only", f"{unknown[0]} is not a run of {protocol.path} (e.g. {protocol.runs[0].name})")
    log = _Log(runs_dir / "protocol.log", echo, runner=os.getpid())
    finished: list[str] = []
    left_to_others: list[str] = []
    queue = [run for run in protocol.runs if not only or run.name in only]
    log(f"protocol {protocol.name} ({protocol.path}, sha256 {protocol.sha256[:16]}): {len(queue)} runs queued")
    for position, run in enumerate(queue, start=1):
        if results_dir is not None and collected_record(protocol, results_dir, run.name):
            log(f"[{position}/{len(queue)}] {run.name}: already collected in {Path(results_dir).as_posix()}, skipped")
            continue
        with _claim(runs_dir, run.name) as claimed:
            if not claimed:
                log(f"[{position}/{len(queue)}] {run.name}: another runner is working on it, skipped")
                left_to_others.append(run.name)
                continue
            folder = runs_dir / run.name
            if (folder / "evaluation.json").exists():
                _interpret(run, folder, interpret, data=data, cache_dir=cache_dir, log=log)
                continue
            log(f"[{position}/{len(queue)}] {run.name}: training ({', '.join(run.studies)}), {step} step")
            started = time.time()
            meta = train(settings=training_settings(protocol, run), options=preprocess_options(protocol),
                         data=data, out_dir=folder / "checkpoint", epochs=protocol.common["epochs"],
                         cache_dir=cache_dir, protocol=protocol.common["protocol"],
                         validation_fraction=float(protocol.common["validation_fraction"]),
                         split_seed=protocol.common["split_seed"], patience=protocol.common["patience"],
                         epoch_weights=folder / "epochs", threads=protocol.common["threads"], step=step,
                         log=lambda text, name=run.name: log(f"{name}: {text}"))
            best = meta.get("best") or {}
            log(f"{run.name}: trained, {meta.get('epochs_completed')} epochs, validation accuracy "
                f"{best.get('val_acc')} at epoch {best.get('epoch')}; evaluating the test reviews once")
            record = evaluate(folder / "checkpoint", which="best", split_name="test", data=data,
                              cache_dir=cache_dir, softmax=True, epoch_weights=folder / "epochs")
            validation = evaluate(folder / "checkpoint", which="best", split_name="validation", data=data,
                                  cache_dir=cache_dir, softmax=False)
            record.update(run=run.name, studies=list(run.studies), layers=run.layers, seed=run.seed,
                          fixed_alpha=run.fixed_alpha, protocol_file=protocol.path.as_posix(),
                          protocol_sha256=protocol.sha256, epochs_completed=meta.get("epochs_completed"),
                          hardmax_validation_accuracy=validation["hardmax_accuracy"],
                          checkpoint_sha256=_checkpoint_digest(folder / "checkpoint"),
                          command=regenerate_command(protocol, run),
                          wall_seconds=round(time.time() - started, 1),
                          **_training_summary(meta.get("history") or []))
            atomic_write_text(folder / "evaluation.json",
                              json_text(record, where=str(folder / "evaluation.json"), sort_keys=True))
            _interpret(run, folder, interpret, data=data, cache_dir=cache_dir, log=log)
            log(f"{run.name}: finished")
            finished.append(run.name)
    done = "queue done" if not only else f"done: {', '.join(only)}"
    if left_to_others:
        done += f" (left to other runners: {', '.join(left_to_others)})"
    log(done)
    return finished


@contextlib.contextmanager
def _claim(runs_dir: Path, name: str) -> Iterator[bool]:
    """Hold run ``name`` for this runner while the block runs; yields False if another runner holds it.

    An flock on ``<runs-dir>/.locks/<name>.lock``: the kernel releases it when its holder ends,
    however it ends, so a killed runner never leaves a run claimed.
    """
    locks = runs_dir / ".locks"
    locks.mkdir(exist_ok=True)
    with open(locks / f"{name}.lock", "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _interpret(run: PlannedRun, folder: Path, interpret_run: Callable[..., dict], *, data, cache_dir, log) -> None:
    """The interpretability tests and clustering measures of a finished run (K >= 1), once."""
    target = folder / "interpretation.json"
    if run.layers == 0 or target.exists():
        return
    log(f"{run.name}: interpretability tests and clustering measures")
    record = interpret_run(folder / "checkpoint", data=data, cache_dir=cache_dir)
    record["run"] = run.name
    atomic_write_text(target, json_text(record, where=str(target), sort_keys=True))


def _checkpoint_digest(folder: Path) -> dict:
    """sha256 of the files that define the selected model (weights, record, vocabulary)."""
    return {name: sha256_file(folder / name) for name in RECORDED_FILES
            if (folder / name).exists()}


PUBLISHED_FILES = (COMPACT_BEST, "checkpoint.json", "vocab.txt.gz")
# The published checkpoints, in all: identical files (every run's vocabulary is the same) count
# once, as git stores them once.
MODELS_BUDGET_BYTES = 100_000_000


def published_bytes(models_dir: Path) -> dict[str, int]:
    """Size of each distinct published file under ``models_dir`` (``<run>/<file>``), by its sha256."""
    sizes: dict[str, int] = {}
    for path in sorted(Path(models_dir).glob("*/*")):
        if path.name in PUBLISHED_FILES and path.is_file():
            sizes[sha256_file(path)] = path.stat().st_size
    return sizes


def _published_files(run_name: str, source: Path, target: Path, record: dict) -> dict[str, bytes]:
    """The files that publish a finished run: its checkpoint.json and vocabulary as they are, its
    selected weights in their compact form (reused from ``target`` when that still gives them back)."""
    files = {}
    for name in RECORDED_FILES:
        data = read_input(source / name, expected=f"the finished run's {name}", limit=_PUBLISHED_LIMITS[name])
        if hashlib.sha256(data).hexdigest() != record["checkpoint_sha256"].get(name):
            raise InputError(str(source / name), "differs from the file the evaluation recorded (sha256)")
        files[name] = data
    meta = json_from_bytes(files["checkpoint.json"], source=str(source / "checkpoint.json"), expected="a checkpoint.json")
    try:
        published = read_input(target / COMPACT_BEST, expected=f"a published {COMPACT_BEST}", limit=MAX_WEIGHTS_BYTES)
        if expand_compact_weights(published, meta, where=str(target / COMPACT_BEST)) == files["best.safetensors"]:
            files[COMPACT_BEST] = published
    except InputError:  # not published yet, or not as it should be: made again
        pass
    if COMPACT_BEST not in files:
        files[COMPACT_BEST] = compact_best_weights(files["best.safetensors"], meta,
                                                   where=f"{run_name}: best.safetensors")
    return {name: files[name] for name in PUBLISHED_FILES}


def _evaluation_record(path: Path) -> dict:
    """A finished run's evaluation.json, with the fields collect relies on checked."""
    try:
        record = read_json(path, expected="an evaluation record")
    except InputError as error:
        raise InputError(str(path), f"not a readable evaluation record ({error.message[:200]})") from None
    digests = record.get("checkpoint_sha256") if isinstance(record, dict) else None
    if not isinstance(digests, dict) or not all(isinstance(digests.get(name), str) for name in RECORDED_FILES):
        raise InputError(str(path), "expected an object whose checkpoint_sha256 gives the sha256 of "
                                    + ", ".join(RECORDED_FILES[:-1]) + f" and {RECORDED_FILES[-1]}")
    return record


def collect(protocol: Protocol, runs_dir: Path, *, results_dir: Path, models_dir: Path,
            publish: tuple[str, ...] | None = None, budget_bytes: int = MODELS_BUDGET_BYTES) -> list[str]:
    """Copy finished runs' records into ``results_dir``; publish the checkpoints of the ``publish`` studies.

    A published checkpoint holds the selected weights only (enough to evaluate and analyse, not
    to resume), in their compact form (``best.from-init.xz``, checked to give back the file whose
    sha256 the evaluation recorded), beside the run's checkpoint.json and vocabulary. ``publish``:
    the studies whose runs are published (None: every study), in the protocol's order, as long as
    the published files stay within ``budget_bytes`` (distinct files counted once). Each record's
    ``checkpoint`` then names the published folder, else it keeps the sha256, says why it was not
    published and gives the command that regenerates the checkpoint. A published folder is replaced
    whole, atomically, and holds these three files only.
    """

    records = {run.name: _evaluation_record(evaluation) for run in protocol.runs
               if (evaluation := Path(runs_dir) / run.name / "evaluation.json").exists()}
    for name, recorded in records.items():  # all checked before anything is written
        if recorded.get("protocol_sha256") != protocol.sha256:
            # A preregistered protocol must not change under its runs; a different file is a different protocol.
            raise InputError(str(protocol.path), f"its sha256 {protocol.sha256[:16]} differs from the "
                             f"{str(recorded.get('protocol_sha256'))[:16]} that run {name} recorded")
    copied = []
    held = published_bytes(models_dir)
    for run in protocol.runs:
        if run.name not in records:
            continue
        folder = Path(runs_dir) / run.name
        target = Path(models_dir) / run.name
        record = records[run.name]
        chosen = publish is None or any(study in publish for study in run.studies)
        files = _published_files(run.name, folder / "checkpoint", target, record) if chosen else {}
        adds = {digest: len(data) for data in files.values()
                if (digest := hashlib.sha256(data).hexdigest()) not in held}
        fits = sum(held.values()) + sum(adds.values()) <= budget_bytes
        if chosen and fits:
            held.update(adds)
            # The folder is replaced whole: an interruption leaves the previous one as it was, and
            # nothing else stays in it (such as the plain best.safetensors of an earlier publication).
            with atomic_directory(target) as staging:
                for name, data in files.items():
                    atomic_write_bytes(staging / name, data)
            record["checkpoint"] = target.as_posix()
            record["published"] = True
        else:
            why = "" if not chosen else (f" (the published checkpoints would exceed their budget of "
                                         f"{budget_bytes / 1e6:g} MB)")
            record["checkpoint"] = f"not published{why}; regenerate with: {record.get('command')}"
            record["published"] = False
        collected = Path(results_dir) / f"{run.name}.json"
        atomic_write_text(collected, json_text(record, where=str(collected), sort_keys=True))
        interpretation = folder / "interpretation.json"
        if interpretation.exists():
            atomic_write_bytes(Path(results_dir) / f"{run.name}.interpret.json",
                               read_input(interpretation, expected="an interpretation.json"))
        copied.append(run.name)
    return copied
