"""The notation page writes Chapter 7's formulas in Chapter 7's letters: a fixed point
is s* = F(E, s*) and PonderNet's halting distribution q_r, in both places."""

from __future__ import annotations

import nbformat
import pytest

from conftest import ROOT

NOTATION = ROOT / "book" / "notation.md"
CHAPTER_7 = ROOT / "book" / "07_fixed_points.ipynb"

# Formulas both pages write, and the papers' letters the notation page must not use
# for them
SHARED = ("s^* = F(E, s^*)", r"q_r = \lambda_r \prod_{j<r}", "u = J^\\top u + g")
NOT_OURS = ("z^* = f(x, z^*)", r"p_r = \lambda_r", "$f$ at $z^*$")


def _prose(path) -> str:
    notebook = nbformat.read(path, as_version=4)
    return "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")


@pytest.mark.parametrize("formula", SHARED)
def test_the_notation_page_and_chapter_7_share_the_formula(formula):
    assert formula in _prose(CHAPTER_7), "Chapter 7 changed its letters: follow it"
    assert formula in " ".join(NOTATION.read_text().split()), formula


@pytest.mark.parametrize("formula", NOT_OURS)
def test_the_notation_page_does_not_use_the_papers_letters(formula):
    assert formula not in NOTATION.read_text()


def test_the_halting_budget_is_in_the_glossary():
    glossary = NOTATION.read_text().split("```{glossary}")[1]
    assert "\nhalting budget\n" in glossary
