"""``python -m eval.bench``: the bench without the CLI, and the entry of its fresh-process workers (``_worker``)."""

from __future__ import annotations

import sys

from .runner import main

if __name__ == "__main__":
    sys.exit(main())
