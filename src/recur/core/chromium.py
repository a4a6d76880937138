"""The headless Chromium that the browser tests, the page-training studies and the PDF
use: where it is, the flags it runs with (no network, no GPU), and a quiet local web
server for the built book."""

from __future__ import annotations

import os
import shutil
import sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    """The Chromium to run: ``$CHROMIUM``, else ``chromium`` or ``chromium-browser`` on
    the path; None if there is none."""
    return (
        os.environ.get("CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )


class QuietHandler(SimpleHTTPRequestHandler):
    """Serves files without a log line per request."""

    def log_message(self, *args) -> None:
        pass


class QuietServer(ThreadingHTTPServer):
    """A threaded server that takes a page closing its connection mid-download as
    normal, not as an error."""

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


# The page's scripts each in-browser trainer needs, in the order the page loads them
# (_config.yml's html_js_files), for a blank page or a study that runs a trainer alone.
CELL_TRAINER_SCRIPTS = (
    "exact_math.js",
    "train_kit.js",
    "cell_model.js",
    "cell_train.js",
)
ACT_TRAINER_SCRIPTS = ("exact_math.js", "train_kit.js", "act_tape.js", "act_model.js",
                       "act_sums.js", "act_check.js", "act_train.js")  # fmt: skip
