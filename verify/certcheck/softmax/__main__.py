"""``python -m verify.certcheck.softmax FILE``: the softmax checker on its own (docs/softmax.md)."""

from __future__ import annotations

import sys

from . import main

sys.exit(main())
