"""``python -m verify.certcheck.control FILE``: the leader-control checker on its own (docs/control.md)."""

from __future__ import annotations

import sys

from . import main

sys.exit(main())
