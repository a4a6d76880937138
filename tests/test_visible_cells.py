"""A visible code cell runs as shown: a reader who copies the code cells a page shows,
in order, gets no NameError. Jupyter Book takes a cell's code off the page with the
tags ``remove-input`` and ``remove-cell``; ``hide-input`` and ``hide-cell`` keep it on
the page behind a toggle, so their code counts as shown. A visible cell must not use a
name that only a cell taken off the page defines."""

from __future__ import annotations

import ast
import builtins
import json
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))
OFF_THE_PAGE = {"remove-input", "remove-cell"}  # the code is not on the page


def _python(source: str) -> ast.Module:
    """A cell's code without IPython's magics and shell lines."""
    lines = [
        "" if line.lstrip().startswith(("%", "!")) else line
        for line in source.splitlines()
    ]
    return ast.parse("\n".join(lines))


def defined_names(tree: ast.AST) -> set[str]:
    """Every name a cell binds: assignments, loop and with targets, imports,
    functions, classes and their arguments, comprehension variables."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def used_names(tree: ast.AST) -> set[str]:
    """Every name a cell reads (``ss`` of ``ss.TEST_SUMS`` included)."""
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


def hidden_names(cells: list[dict]) -> list[tuple[int, str]]:
    """(cell number, name) for each name a visible code cell uses that no visible
    cell up to it (itself included) defines but a cell off the page does."""
    shown, hidden, found = set(dir(builtins)), set(), []
    for number, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        tree = _python("".join(cell["source"]))
        if OFF_THE_PAGE & set(cell.get("metadata", {}).get("tags", [])):
            hidden |= defined_names(tree)
            continue
        shown |= defined_names(tree)
        found += [(number, name) for name in sorted(used_names(tree) & hidden - shown)]
    return found


def _cell(source: str, tags=()) -> dict:
    return {"cell_type": "code", "source": source, "metadata": {"tags": list(tags)}}


def test_a_name_only_a_hidden_cell_defines_is_found():
    cells = [
        _cell("from x import ss\nKILL = 'k'", tags=["remove-cell"]),
        _cell("import pandas as pd\nrows = [n for n in range(3)]"),
        _cell("pd.DataFrame(rows)[KILL]\nss.TEST_SUMS\nprint(len(rows))"),
        _cell("def f(a):\n    return a\nf(1)"),
    ]
    assert hidden_names(cells) == [(2, "KILL"), (2, "ss")]
    cells.insert(2, _cell("KILL = 'k'\nfrom x import ss"))  # now shown first
    assert hidden_names(cells) == []
    cells[2] = _cell("KILL = 'k'", tags=["hide-input"])  # behind a toggle: shown
    assert hidden_names(cells) == [(3, "ss")]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_visible_cell_uses_only_names_the_page_shows(path):
    cells = json.loads(path.read_text())["cells"]
    found = hidden_names(cells)
    assert not found, f"visible cells use names only hidden cells define: {found}"


GLUE_CALLS = {"glue", "glue_all"}  # myst-nb's and recur.pages.glue's


def glue_calls(source: str) -> list[str]:
    """The glue calls in a cell's code (by the called name, ``page.glue_all`` too)."""
    calls = []
    for node in ast.walk(_python(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = (
                func.attr
                if isinstance(func, ast.Attribute)
                else getattr(func, "id", "")
            )
            calls += [name] if name in GLUE_CALLS else []
    return calls


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_cell_a_reader_reads_glues_nothing(path):
    """Glued numbers come from the tested functions of ``recur.pages``, glued in cells
    taken off the page: a cell a reader reads is about the idea, not the prose."""
    cells = json.loads(path.read_text())["cells"]
    shown = [
        "".join(c["source"])
        for c in cells
        if c["cell_type"] == "code"
        and not OFF_THE_PAGE & set(c.get("metadata", {}).get("tags", []))
    ]
    gluing = [source[:60] for source in shown if glue_calls(source)]
    assert not gluing, f"cells a reader reads glue: {gluing}"


def test_the_glue_check_sees_both_ways_of_gluing():
    assert glue_calls('glue("x", 1, display=False)') == ["glue"]
    assert glue_calls("page.glue_all(page.code_values())") == ["glue_all"]
    assert glue_calls("plot(x)") == []
