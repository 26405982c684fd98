"""A child interpreter that says when the command's stop handlers are in, for tests that send it signals.

verify.app.cli.run() installs the handlers (verify.app.interrupts.install) as its first step; a signal
before then meets Python's default action, whose outcome is Python's business, not the suite's. The code
below wraps install() so that the marker is printed from inside run(), right after it: a test that waits
for the marker and then signals tests the command's own stop, from its first moment on.
"""

from __future__ import annotations

__all__ = ["announcing"]


def announcing(marker: str) -> str:
    """Python source that imports verify.app.cli and arranges for ``marker`` (a line on standard error) to be
    printed once the command's handlers are installed; the caller appends ``verify.app.cli.run()``."""
    return (
        "import sys, verify.app.cli, verify.app.interrupts\n"
        "def _install_then_announce(install=verify.app.interrupts.install):\n"
        "    install()\n"
        f"    sys.stderr.write({marker + chr(10)!r})\n"
        "    sys.stderr.flush()\n"
        "verify.app.interrupts.install = _install_then_announce\n"
    )
