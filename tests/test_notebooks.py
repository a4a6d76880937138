"""House rules for the committed notebooks (read as files; nbval runs them)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
NOTEBOOKS = sorted(BOOK.glob("[0-9][0-9]_*.ipynb"))
CHECK = "# NBVAL_CHECK_OUTPUT"


def code_cells(path):
    cells = json.loads(path.read_text())["cells"]
    return [c for c in cells if c["cell_type"] == "code"]


def test_chapters_exist_and_are_in_the_toc():
    toc = (BOOK.parent / "_toc.yml").read_text()
    assert NOTEBOOKS
    for path in NOTEBOOKS:
        assert f"book/{path.stem}" in toc


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_only_checked_cells_keep_outputs(path):
    for cell in code_cells(path):
        source = "".join(cell["source"])
        if not source.startswith(CHECK):
            assert cell["outputs"] == [], (
                f"stored output in unchecked cell: {source[:60]}"
            )
        else:
            assert cell["outputs"], f"checked cell without stored output: {source[:60]}"
            assert all(o["output_type"] != "error" for o in cell["outputs"])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_cells_are_thin(path):
    for cell in code_cells(path):
        source = "".join(cell["source"])
        lines = [x for x in source.splitlines() if x.strip() and not x.startswith("#")]
        assert len(lines) <= 10, f"cell too long ({len(lines)} lines): {source[:60]}"
        assert not re.search(r"^\s*(class |def )", source, re.M), "define it in src/"
