"""Ctrl-C and SIGTERM as one clean stop: a KeyboardInterrupt, never raised inside the import machinery.

Every command stops the same way on either signal (exit status 130): atomic writes remove
their temporaries, process pools are stopped, earlier output stays intact.
"""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType

__all__ = ["raise_interrupt", "install"]

# Frames of importlib's own code carry this file name (frozen modules).
_IMPORT_MACHINERY = "<frozen importlib"
# How soon an interrupt that landed inside the import machinery is delivered again.
_RETRY_SECONDS = 0.01


def raise_interrupt(signum: int, frame: FrameType | None) -> None:
    """Signal handler: raise KeyboardInterrupt, unless the signal landed in importlib's own code.

    There an exception can land between taking the import lock and the ``try`` that releases it
    (the callback that drops a module's lock, for one): Python reports it as "ignored", so the
    stop is lost, and the lock is never released, so the next import in another thread hangs.
    The signal is sent again a moment later instead, when the import has moved on.
    """
    if frame is not None and frame.f_code.co_filename.startswith(_IMPORT_MACHINERY):
        retry = threading.Timer(_RETRY_SECONDS, os.kill, (os.getpid(), signum))
        retry.daemon = True
        retry.start()
        return
    raise KeyboardInterrupt


def install() -> None:
    """Handle SIGTERM and Ctrl-C with :func:`raise_interrupt` (from the main thread only).

    SIGTERM (kill, a CI timeout, a scheduler) gets the same clean stop as Ctrl-C. A SIGINT that
    the caller ignores (a shell's background job) stays ignored.
    """
    signal.signal(signal.SIGTERM, raise_interrupt)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, raise_interrupt)
