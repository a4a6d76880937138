"""Shared fixtures: the built book served on localhost, and a Debian Chromium driven by
Playwright. The browser tests need `make book` to have run (``make test`` does it)."""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import tempfile
import threading
from pathlib import Path

import pytest

import recur  # noqa: F401  (first: it pins the CPU's numerics before torch starts)
from fake_accelerator import PretendDevice
from recur.core.chromium import (
    CHROMIUM_FLAGS,  # noqa: F401  (the browser tests read it from here)
    QuietHandler,
    QuietServer,
    chromium_path,
)

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"


def load_script(name: str):
    """A script of benchmarks/ as a module (its folder importable while it loads)."""
    path = ROOT / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a dataclass of the script looks its module up here
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


@pytest.fixture(scope="session")
def site():
    """Base URL of ``_build/html`` served on 127.0.0.1."""
    if not (HTML / "book" / "intro.html").exists():
        pytest.fail("_build/html is missing: run `make book` first (`make test` does)")
    handler = functools.partial(QuietHandler, directory=str(HTML))
    server = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    """Debian Chromium through Playwright (it cannot download a browser here)."""
    exe = chromium_path()
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (apt-get install chromium)")
        pytest.skip(
            "chromium is not installed (apt-get install chromium): browser tests"
            " skipped"
        )
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile,
            executable_path=exe,
            args=CHROMIUM_FLAGS,
            headless=True,
            viewport={"width": 1280, "height": 900},
        )
        yield context
        context.close()


@pytest.fixture
def page(browser, site):
    """A fresh tab that may only reach the local server: the book works offline."""
    tab = browser.new_page()
    tab.errors = []  # uncaught exceptions and console errors (failed loads included)
    tab.on("pageerror", lambda exc: tab.errors.append(str(exc)))
    tab.on(
        "console",
        lambda msg: (
            tab.errors.append(f"console: {msg.text}") if msg.type == "error" else None
        ),
    )
    tab.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(site)
            or route.request.url.startswith("data:")
            else route.abort()
        ),
    )
    yield tab
    tab.close()


@pytest.fixture(autouse=True)
def pretend_accelerator(request, monkeypatch):
    """Every test runs with the pretend accelerator as the default device:
    whatever picks the device itself (``train``, ``pick_device("auto")``) puts its
    model there, and any measurement that forgets to move its inputs, or reads a
    result without ``.cpu()``, fails as it would on a GPU, in functions nobody listed.
    Tests about device choice and threads opt out with ``@pytest.mark.real_devices``;
    ``RECUR_REAL_DEVICE=1`` (``make gpu-check``) runs every test on the real device."""
    real = os.environ.get("RECUR_REAL_DEVICE")  # make gpu-check: the real GPU
    if real or request.node.get_closest_marker("real_devices"):
        yield
        return
    with PretendDevice(monkeypatch):
        yield


NBVAL_OUTPUT_TIMEOUT = 120  # seconds


def pytest_collection_modifyitems(items):
    """nbval waits only 5 s for a cell's output messages once the cell has finished.
    On a busy 2-core machine (two test workers and anything else) the kernel can take
    longer to send them, and a finished cell then fails as a timeout; the cell's own
    time limit (``--nbval-cell-timeout``) is unchanged."""
    for item in items:
        if hasattr(item, "output_timeout"):
            item.output_timeout = NBVAL_OUTPUT_TIMEOUT
