"""``python -m verify.certcheck FILE`` (or ``python -m certcheck FILE`` for the folder copied on its own)."""

from __future__ import annotations

import sys

from .cli import main

sys.exit(main())
