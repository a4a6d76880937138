"""A figure's alt text and caption are typed beside code that draws from a run or a
table; a number typed there goes stale when the run moves. So a number in either must
be a setting the page's own code states (a width, a count of sums, a threshold), or be
listed below with why it cannot move. An observation (a peak, a share, a mean) belongs
in a glued sentence, or in words the run cannot break."""

from __future__ import annotations

import re

import nbformat
import pytest

from conftest import ROOT

NOTEBOOKS = sorted((ROOT / "book").glob("*.ipynb"))
NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?:e-?\d+)?")

# Numbers that are facts of a worked example or of the definitions, not of a run.
FIXED = {
    "05_act.ipynb": {"0.6", "0.99", "0.60", "3.60", "0"},  # Graves's worked example
    "06_act_ut.ipynb": {"4", "0.99", "6"},  # bit 4 of 0111 + 0001; 1 - eps; Chapter 6
    "06_pieces.ipynb": {"0.99", "64"},  # ACT's 1 - eps; the hardest sums' widest width
    "intro.ipynb": {"4,096"},  # the widths axis, the code writes 4096
    "performance.ipynb": {"1"},  # the book's local window of one
}


def _numbers(text: str) -> list[str]:
    return NUMBER.findall(text)


def _settings(nb) -> set[str]:
    """Every number literal in the notebook's code cells."""
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    return set(_numbers(code))


def typed_numbers(nb, fixed: set[str]) -> list[str]:
    """Each number in a figure's alt text or caption that the page's code does not
    state, with the text it stands in."""
    settings = _settings(nb) | fixed
    found = []
    for cell in nb.cells:
        shown = cell.metadata.get("mystnb", {})
        texts = (
            shown.get("image", {}).get("alt", ""),
            shown.get("figure", {}).get("caption", ""),
        )
        for text in texts:
            found += [
                f"{n} in: {text[:80]}"
                for n in _numbers(text)
                if n not in settings and n.replace(",", "") not in settings
            ]
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_observation_is_typed_into_an_alt_text_or_caption(path):
    nb = nbformat.read(path, as_version=4)
    typed = typed_numbers(nb, FIXED.get(path.name, set()))
    assert not typed, typed


def test_the_check_sees_a_typed_observation():
    """The finding that started it: a figure's alt text said PonderNet's halting
    probability was about 1e-4, which no code of the page states."""
    nb = nbformat.v4.new_notebook()
    figure = nbformat.v4.new_code_cell("plot(curves, bits=32)")
    figure.metadata["mystnb"] = {
        "image": {"alt": "PonderNet's probability is about 1e-4 at 32 bits."}
    }
    nb.cells.append(figure)
    assert typed_numbers(nb, set()) == [
        "1e-4 in: PonderNet's probability is about 1e-4 at 32 bits."
    ]
