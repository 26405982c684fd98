"""``python -m verify.certcheck.classify NET.json DATA.json``: the classification checker on its own (docs/classify.md)."""

from __future__ import annotations

import sys

from . import main

sys.exit(main())
