"""Where a notebook runs: for the static book (``make book`` sets
:data:`STATIC_PAGE`), no kernel will answer a reader, so the views show their fields
read-only and training shows no progress bar (a finished bar with its rate says nothing
on a page); run in Jupyter, both are live."""

from __future__ import annotations

import os

STATIC_PAGE = "RECUR_STATIC_PAGE"


def static_page() -> bool:
    """Whether the notebook runs for the static book (``RECUR_STATIC_PAGE=1``)."""
    return os.environ.get(STATIC_PAGE) == "1"
