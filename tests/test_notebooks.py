"""House rules for the committed notebooks (read as files; nbval runs them)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))
CHECK = "nbval-check-output"  # the cell tag nbval reads


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
        if CHECK not in cell.get("metadata", {}).get("tags", []):
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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_cell_has_its_own_id(path):
    """nbformat 4.5 cells carry an id; one missing is a warning in every build now and
    an error in later nbformat versions, and two alike confuse the execution cache."""
    ids = [cell.get("id") for cell in json.loads(path.read_text())["cells"]]
    assert None not in ids, f"a cell without an id (cell {ids.index(None)})"
    assert len(set(ids)) == len(ids), "two cells share an id"


def _markdown() -> str:
    """All prose of the book: every notebook's markdown cells and the .md pages."""
    texts = [page.read_text() for page in sorted(BOOK.glob("*.md"))]
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text())["cells"]
        texts += ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    return "\n".join(texts)


def test_every_reference_is_cited():
    """An uncited bibliography entry does not render: each one must be cited."""
    keys = re.findall(r"^@\w+\{([^,]+),", (BOOK / "references.bib").read_text(), re.M)
    cited = set()
    for group in re.findall(r"\{cite:\w+\}`([^`]+)`", _markdown()):
        cited |= {key.strip() for key in group.split(",")}
    assert keys and set(keys) <= cited, set(keys) - cited
    assert cited <= set(keys), cited - set(keys)


def test_every_glue_reference_is_glued():
    """Each {glue:text}`key` in a chapter's prose is glued by a code cell of it."""
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text())["cells"]
        prose = "".join(
            "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
        )
        code = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        code += _page_sources(code)  # the keys a recur.pages module glues for it
        for key in set(re.findall(r"\{glue:\w+\}`([^`:]+)", prose)):
            literal = f'"{key}"' in code
            made = any(  # keys built from a prefix: glue(f"pos_{key}_...") etc.
                prefix and key.startswith(prefix) for prefix in _glue_prefixes(code)
            )
            assert literal or made, f"{path.name}: {key} is never glued"


def test_glued_shares_follow_the_tables_rule():
    """One rounding rule for tables and prose (the notation page): a glued share
    shown as a per cent never reads 100% (or 100.0%) unless it is 1, as in
    :func:`recur.views.text.percent_text`. Checked against the CPU build's glued
    values."""
    values = json.loads((BOOK / "data" / "glue_cpu.json").read_text())
    for path in NOTEBOOKS:
        glued = values.get(path.stem, {})
        prose = "".join(
            "".join(c["source"])
            for c in json.loads(path.read_text())["cells"]
            if c["cell_type"] == "markdown"
        )
        for key, spec in re.findall(r"\{glue:text\}`([^`:]+):([^`]*%)`", prose):
            if key not in glued:
                continue
            value = float(glued[key])
            shown = format(value, spec)
            assert value == 1 or float(shown.rstrip("%")) < 100, (path.name, key, shown)


def _page_sources(code: str) -> str:
    """The source of each ``recur.pages`` module the notebook's ``code`` imports."""
    pages = BOOK.parent / "src" / "recur" / "pages"
    names = set(re.findall(r"from recur\.pages import (\w+)", code))
    names |= set(re.findall(r"from recur\.pages\.(\w+) import", code))
    return "".join(
        (pages / f"{name}.py").read_text()
        for name in sorted(names)
        if (pages / f"{name}.py").exists()
    )


def _glue_prefixes(code: str) -> set[str]:
    prefixes = set(re.findall(r'f"([a-z0-9_]*)\{', code))  # f-string keys
    called = r'prefixed\(f?"([a-z0-9_]*)'  # prefixed("pos", ...)
    prefixes |= {p + "_" for p in re.findall(called, code)}
    prefixes |= {word + "_" for word in re.findall(r'"([a-z]+)"', code)}  # loop keys
    return {p for p in prefixes if p}


def test_chapter_6_trains_the_book_model():
    """``train_book_act(seed=s)``, the procedure the seeds study and the
    benchmark measure, is exactly what Chapter 6 trains."""
    code = "".join("".join(c["source"]) for c in code_cells(BOOK / "06_act_ut.ipynb"))
    assert "train_book_act(seed=0)" in code


PLAYERS = re.compile(
    r"\b(trace_player|carry_explorer|learned_explorer|halting_player)\("
)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_player_comes_with_a_predict_prompt(path):
    """Next to every player and explorer, the reader is asked to predict."""
    cells = json.loads(path.read_text())["cells"]
    for k, cell in enumerate(cells):
        source = "".join(cell["source"])
        if cell["cell_type"] != "code" or not PLAYERS.search(source):
            continue
        before = "".join(cells[k - 1]["source"]) if k else ""
        assert "Predict" in before, f"no prompt before: {source[:60]}"


def test_the_closing_page_comes_after_every_chapter():
    """The ending gathers every chapter's result, so it follows Chapter 7 and comes
    before only the back matter."""
    toc = (BOOK.parent / "_toc.yml").read_text()
    files = re.findall(r"file: book/(\S+)", toc)
    chapters = [f for f in files if f[:2].isdigit()]
    assert files.index("ending") == files.index(chapters[-1]) + 1


def _pages():
    for page in sorted(BOOK.glob("*.md")):
        yield page.name, page.read_text()
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text())["cells"]
        yield (
            path.name,
            "\n\n".join(
                "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
            ),
        )
