"""Running a read that might block for ever (on a FIFO) without letting it hang the test."""

from __future__ import annotations

import threading
from typing import Any, Callable


def within_seconds(call: Callable[..., Any], *args: Any, seconds: float = 20) -> Any:
    """call(*args) in a daemon thread: what it returned or raised, or a failure if it is still blocked."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(call(*args))
        except BaseException as error:  # noqa: BLE001 - handed back to the test
            outcome.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the reader blocked (on a FIFO?)"
    return outcome[0]
