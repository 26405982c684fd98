"""Ctrl-C and SIGTERM as one clean stop: a KeyboardInterrupt, never raised where it would be lost.

Every command stops the same way on either signal (exit status 130): atomic writes remove
their temporaries, process pools are stopped, earlier output stays intact.
"""

from __future__ import annotations

import _thread
import os
import signal
import sys
import threading
import time
from types import FrameType
from typing import Any, Callable

__all__ = ["raise_interrupt", "install", "forget_unhandled"]

# Frames of importlib's own code carry this file name (frozen modules).
_IMPORT_MACHINERY = "<frozen importlib"
# The frames under which a compiled module (a C extension: Cython's numpy.random, scipy) initialises.
_COMPILED_MODULE_LOADING = frozenset({"ExtensionFileLoader.create_module", "ExtensionFileLoader.exec_module"})
# threading.Condition's own frames that take or give back its lock: raised there, after the lock is
# taken or before it is given back, the interrupt leaves the lock held for good (a future's condition:
# the process pool's manager thread then waits for it for ever, and so does the interpreter's exit).
_LOCK_HANDOVER = frozenset({"Condition.__enter__", "Condition.__exit__"})
# How soon an interrupt that landed where it could be lost is delivered again.
_RETRY_SECONDS = 0.01
# How long an interrupt waits for such a place to be left: past this, an import that does not end
# (a deadlock) is interrupted all the same. Loading a compiled module takes milliseconds.
_IMPORT_PATIENCE_SECONDS = 10.0

_deferred_since: float | None = None  # when the interrupt now being sent again first arrived
_redelivery_writer: int | None = None  # signal numbers written here are sent again after _RETRY_SECONDS
# The last interrupt raised and its signal, to recognise it if Python reports it as ignored.
_raised: tuple[int, KeyboardInterrupt] | None = None


def raise_interrupt(signum: int, frame: FrameType | None) -> None:
    """Signal handler: raise KeyboardInterrupt, unless the signal landed where the exception would be lost.

    Three such places. In importlib's own code the exception can land between taking the import
    lock and the ``try`` that releases it (the callback that drops a module's lock, for one):
    Python reports it as "ignored", so the stop is lost, and the lock is never released, so the
    next import in another thread hangs. In ``threading.Condition.__enter__`` / ``__exit__`` it can
    land just after the lock is taken or just before it is given back: the lock stays held, and a
    process pool's manager thread cancelling the futures waits for it for ever (so does the exit).
    While a compiled module initialises, it meets code that swallows every exception:
    Cython-compiled modules (numpy.random, scipy) register their types with ``collections.abc``
    under a bare ``except: pass`` as they load, and the command then ran to its end as if no
    signal had come. There the signal is sent again a moment later instead, until that place is
    left (at most :data:`_IMPORT_PATIENCE_SECONDS`).
    """
    global _deferred_since, _raised
    if _would_be_lost(frame):
        now = time.monotonic()
        if _deferred_since is None:
            _deferred_since = now
        if now - _deferred_since < _IMPORT_PATIENCE_SECONDS:
            _deliver_again(signum)
            return
    _deferred_since = None
    interrupt = KeyboardInterrupt()
    _raised = (signum, interrupt)
    raise interrupt


def _would_be_lost(frame: Any) -> bool:
    """True when ``frame`` runs importlib's code or hands a Condition's lock over, or runs under the
    initialisation of a compiled module."""
    if frame is not None and frame.f_code.co_filename.startswith(_IMPORT_MACHINERY):
        return True
    if (frame is not None and frame.f_code.co_filename == threading.__file__
            and frame.f_code.co_qualname in _LOCK_HANDOVER):
        return True
    while frame is not None:
        if frame.f_code.co_qualname in _COMPILED_MODULE_LOADING:
            return True
        frame = frame.f_back
    return False


def _deliver_again(signum: int) -> None:
    """Send ``signum`` to this process again after :data:`_RETRY_SECONDS`, from the redelivery thread.

    The handler only writes a byte to a pipe and never waits: a wait here (``threading.Timer``'s
    start waits for its thread to run) is where the redelivered signal could land, back in the
    place it was sent away from.
    """
    writer = _redelivery_writer if _redelivery_writer is not None else _start_redelivery()
    try:
        os.write(writer, bytes((signum,)))
    except OSError:  # pipe full: redeliveries are already queued
        pass


def _start_redelivery() -> int:
    """Start the thread that sends signals again (once per process); returns the pipe's writing end."""
    global _redelivery_writer
    if _redelivery_writer is not None:
        return _redelivery_writer
    reader, writer = os.pipe()
    os.set_blocking(writer, False)
    _redelivery_writer = writer  # before the thread starts: a signal during the start queues its byte
    # The low-level call returns without waiting for the thread to run (threading's start waits:
    # at a command's start, under load, long enough for a signal to find no handler installed).
    _thread.start_new_thread(_redeliver, (reader, threading.main_thread().ident))
    return writer


def _forget_redelivery() -> None:
    global _redelivery_writer
    _redelivery_writer = None  # a forked child has the pipe but not the thread that reads it


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_redelivery)


def _redeliver(reader: int, main: int | None) -> None:
    # The signals are for the main thread, which runs the handlers: one taken by another thread
    # (this one, or a thread of a native library) would not wake a main thread that sleeps or waits.
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    while True:
        signum = os.read(reader, 1)
        if not signum:
            return
        time.sleep(_RETRY_SECONDS)
        if main is not None and hasattr(signal, "pthread_kill"):
            signal.pthread_kill(main, signum[0])
        else:  # pragma: no cover - not POSIX
            os.kill(os.getpid(), signum[0])


def _redeliver_when_swallowed(unraisable: Any) -> None:
    """``sys.unraisablehook``: an interrupt raised inside a finaliser or a weakref callback is sent again.

    Python cannot propagate an exception from there; it would print "Exception ignored" and go on.
    """
    raised = _raised
    if raised is not None and unraisable.exc_value is raised[1]:
        _deliver_again(raised[0])
        return
    _previous_unraisablehook(unraisable)


_previous_unraisablehook: Callable[[Any], Any] = sys.unraisablehook


def install() -> None:
    """Handle SIGTERM and Ctrl-C with :func:`raise_interrupt` (from the main thread only).

    SIGTERM (kill, a CI timeout, a scheduler) gets the same clean stop as Ctrl-C. A SIGINT that
    the caller ignores (a shell's background job) stays ignored. An interrupt that Python reports
    as ignored (raised inside a finaliser) is sent again.
    """
    global _previous_unraisablehook
    # The hook before the handlers (an interrupt they raise inside a finaliser is then sent again, not
    # lost), the handlers before the redelivery thread: starting it can hand it the interpreter for a
    # while, and a SIGTERM then would still find the default action (death by signal, not a clean stop).
    if sys.unraisablehook is not _redeliver_when_swallowed:
        _previous_unraisablehook, sys.unraisablehook = sys.unraisablehook, _redeliver_when_swallowed
    signal.signal(signal.SIGTERM, raise_interrupt)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, raise_interrupt)
    _start_redelivery()


def forget_unhandled() -> None:
    """Tell CPython that the interrupt was handled, so that the exit status stays 130.

    An interrupt that passed through ``exec`` of a string (dataclasses make their methods so, as
    modules are imported) sets CPython's "unhandled KeyboardInterrupt" flag even when it is caught
    further up. Under ``python -m`` the interpreter then ends by killing itself with SIGINT (status
    -2, not 130) after a clean stop. Executing a string clears the flag.
    """
    exec("pass")
