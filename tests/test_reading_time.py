"""``book/_ext/reading_time.py``: the introduction's reading times come from what a
built page shows (prose and visible code, not outputs or collapsed code), and follow a
page that changes while the introduction does not."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import reading_time  # noqa: E402


def words(n: int) -> str:
    return " ".join(["word"] * n)


def test_minutes_by_hand():
    assert reading_time.minutes(0, 200) == 5  # at least 5
    assert reading_time.minutes(1000, 200) == 5  # 5 minutes at 200 words a minute
    assert reading_time.minutes(1001, 200) == 10  # rounded up to a multiple of 5
    assert reading_time.minutes(4900, 200) == 25
    with pytest.raises(ValueError, match="per_minute"):
        reading_time.minutes(10, 0)


def _chapter(prose: int, code: int, hidden: int, output: int) -> nbformat.NotebookNode:
    """A notebook with ``prose`` words of Markdown, a visible code cell of ``code``
    words, a hide-input cell of ``hidden`` words and a printed output of ``output``."""
    shown = nbformat.v4.new_code_cell(f"# {words(code - 1)}")
    printed = nbformat.v4.new_output("stream", name="stdout", text=words(output))
    shown.outputs = [printed]
    hidden_cell = nbformat.v4.new_code_cell(f"# {words(hidden - 1)}")
    hidden_cell.metadata["tags"] = ["hide-input"]
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell(f"# Page\n\n{words(prose)} $x + y = z$"),
        shown, hidden_cell,
    ])  # fmt: skip
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}  # fmt: skip
    return notebook


def _build(src: Path, out: Path) -> str:
    from sphinx.application import Sphinx

    app = Sphinx(str(src), str(src), str(out), str(out / ".doctrees"), "html",
                 status=None, warning=None, freshenv=False)  # fmt: skip
    app.build()
    return (out / "index.html").read_text()


def _minutes_shown(html: str) -> str:
    return html.split("reads in ")[1].split(" minutes")[0]


def test_a_built_page_reads_in_what_it_shows_and_follows_its_changes(tmp_path):
    """Prose 1,800 words + the heading + one formula + visible code 200 words: about
    2,002 words, 15 minutes at 200 a minute. Counting the collapsed code (2,000 more)
    or the output (3,000 more) would give 25 or 30. Then the chapter alone grows by
    2,000 words of prose and the index, unchanged, reads 25."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'book' / '_ext')!r})\n"
        "extensions = ['myst_nb', 'reading_time']\nnb_execution_mode = 'off'\n"
        "myst_enable_extensions = ['dollarmath']\n"
        "exclude_patterns = ['out']\n"
    )
    (src / "index.md").write_text(  # no toctree: a parent is written again anyway
        "# Index\n\nThe chapter reads in {reading-minutes}`chapter` minutes.\n"
    )
    nbformat.write(_chapter(1800, 200, 2000, 3000), src / "chapter.ipynb")
    assert _minutes_shown(_build(src, tmp_path / "out")) == "15"
    nbformat.write(_chapter(3800, 200, 2000, 3000), src / "chapter.ipynb")
    assert _minutes_shown(_build(src, tmp_path / "out")) == "25"
