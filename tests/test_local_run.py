"""The README's way to run the notebooks locally works: JupyterLab from the project's
environment opens a chapter, runs its cells in a real kernel, and a live widget answers
typed input (Chapter 1's carry explorer)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time

import pytest

from conftest import ROOT

JUPYTER = ROOT / ".venv" / "bin" / "jupyter-lab"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    """JupyterLab on 127.0.0.1, no token, on a copy of book/ (JupyterLab saves the
    notebooks it runs, outputs and all: never the repository's own); its URL."""
    if not JUPYTER.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{JUPYTER} is missing: requirements.txt installs jupyterlab")
        pytest.skip("jupyterlab is not installed in .venv")
    shutil.copytree(ROOT / "book", tmp_path / "book", ignore=shutil.ignore_patterns(
        "_extra", "_ext", ".ipynb_checkpoints"))  # fmt: skip
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "RECUR_STATIC_PAGE"}
    command = [str(JUPYTER), "--no-browser", f"--port={port}", "--ip=127.0.0.1",
               "--IdentityProvider.token=", "--allow-root",
               f"--notebook-dir={tmp_path}"]  # fmt: skip
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        for _ in range(120):
            try:
                socket.create_connection(("127.0.0.1", port), 1).close()
                break
            except OSError:
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(20)


def test_a_chapter_runs_in_jupyterlab_and_its_widget_answers(browser, lab):
    chapter = ROOT / "book" / "01_parallel_carry.ipynb"
    before = chapter.read_bytes()  # the repository's copy must stay as committed
    tab = browser.new_page()
    tab.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
        lab) else route.abort())  # fmt: skip
    try:
        tab.goto(f"{lab}/lab/tree/book/01_parallel_carry.ipynb")
        tab.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
        tab.wait_for_timeout(3000)  # the kernel starts
        tab.click("text=Run", timeout=20_000)
        tab.click("text=Run All Cells", timeout=20_000)
        message = tab.locator(".widget-html-content", has_text="settles after").first
        message.wait_for(timeout=180_000)
        assert message.inner_text().startswith("sum 1000 = 8; settles after 3 rounds")
        box = message.locator("xpath=ancestor::div[contains(@class,'widget-vbox')][1]")
        box.locator("input[type=text]").nth(0).fill("1111")  # 1111 + 0001
        answer = box.locator(".widget-html-content", has_text="settles after 4").first
        answer.wait_for(timeout=30_000)  # the kernel computed it
        assert answer.inner_text().startswith("sum 10000 = 16")
    finally:
        tab.close()
    assert chapter.read_bytes() == before
