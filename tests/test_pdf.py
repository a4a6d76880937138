"""The whole-book PDF (``make pdf``, which ``make book`` runs): it holds every page of
``_toc.yml`` in order, each found by its title, a title page and contents, page
numbers, and at least as many images as the pages have figures."""

from __future__ import annotations

import importlib.util
import re

import pytest

from conftest import HTML, ROOT

pypdf = pytest.importorskip("pypdf")
PDF = HTML / "one-more-round.pdf"


def _maker():
    spec = importlib.util.spec_from_file_location(
        "make_pdf", ROOT / "book" / "_ext" / "make_pdf.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture(scope="module")
def pdf_pages() -> list[str]:
    if not PDF.exists():
        pytest.fail("no PDF: make book writes it (Chromium needed)")
    return [_flat(page.extract_text()) for page in pypdf.PdfReader(PDF).pages]


def test_every_page_of_the_book_is_in_the_pdf_in_order(pdf_pages):
    maker = _maker()
    titles = [maker.article(page)[0] for page in maker.toc_pages()]
    assert len(titles) == 14  # intro, Chapters 1 to 7, 6's pieces, ending, 4 back pages
    body = " ".join(pdf_pages[2:])  # after the title page and the contents
    at = -1
    for title in titles:  # each after the one before: the book's order
        at = body.find(_flat(title), at + 1)
        assert at >= 0, title
    assert "Contents" in pdf_pages[1] and all(t in pdf_pages[1] for t in titles[1:4])


def test_the_pdf_has_a_title_page_and_page_numbers(pdf_pages):
    import recur

    assert pdf_pages[0].startswith("One More Round")
    assert f"Version {recur.__version__}" in pdf_pages[0]
    total = len(pdf_pages)
    assert all(page.endswith(f"{k + 1} / {total}") for k, page in enumerate(pdf_pages))


def test_the_pdf_has_every_figure():
    maker = _maker()
    figures = sum(
        len([i for i in re.findall(r"<img[^>]*>", maker.article(page)[1])
             if "_anim_img" not in i])
        for page in maker.toc_pages()
    )  # fmt: skip
    images = sum(len(page.images) for page in pypdf.PdfReader(PDF).pages)
    assert figures >= 25 and images >= figures, (images, figures)


def test_the_introduction_links_the_pdf():
    intro = (HTML / "book" / "intro.html").read_text()
    assert 'href="../one-more-round.pdf"' in intro
