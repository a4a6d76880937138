"""How to cite the book: ``CITATION.cff`` is what ``recur.pages.citation`` writes,
its fields parse and agree with the package's version, the introduction shows the
BibTeX entry, and every built page's footer names the licences."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tomllib
import yaml

import recur
from conftest import HTML
from recur.pages import citation

ROOT = Path(__file__).resolve().parents[1]


def test_citation_file_is_the_librarys():
    assert (ROOT / "CITATION.cff").read_text() == citation.cff_text()


def test_citation_fields():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert cff["cff-version"] == "1.2.0"
    assert cff["version"] == recur.__version__ == project["version"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", cff["date-released"])
    assert cff["license"] == ["MIT", "CC-BY-4.0"]
    assert cff["authors"] and cff["title"].startswith("One More Round")


def test_bibtex_entry_by_hand():
    entry = citation.bibtex()
    assert entry.startswith("@book{onemoreround2026,\n")
    assert entry.count("{") == entry.count("}")
    assert f"version = {{{recur.__version__}}}" in entry
    assert "year    = {2026}" in entry


def test_the_introduction_shows_how_to_cite():
    page = (HTML / "book" / "intro.html").read_text()
    assert 'id="how-to-cite"' in page
    assert "@book{onemoreround2026," in page
    assert recur.__version__ in page and citation.DATE in page


@pytest.mark.parametrize(
    "page", sorted((HTML / "book").glob("*.html")), ids=lambda p: p.name
)
def test_every_page_names_the_licences(page):
    footer = page.read_text().split("bd-footer-content", 1)[-1]
    assert "MIT License" in footer and "CC BY 4.0" in footer


def test_repository_url_from_the_config(tmp_path):
    config = tmp_path / "_config.yml"
    config.write_text("title: x\nrepository:\n  branch: main\nhtml:\n  url: no\n")
    assert citation.repository_url(str(config)) == ""  # html's url is not the repo's
    config.write_text(
        "repository:\n  url: https://example.org/omr  # the home\n  branch: main\n"
    )
    assert citation.repository_url(str(config)) == "https://example.org/omr"
    assert citation.repository_url(str(tmp_path / "missing.yml")) == ""
    assert citation.get_the_code_words("https://example.org/omr") == (
        "clone the repository (https://example.org/omr)"
    )
    assert "no public address" in citation.get_the_code_words("")


def test_the_books_config_has_no_repository_yet():
    """The intro's words follow _config.yml: today it names no address, and says so."""
    assert citation.repository_url(str(ROOT / "_config.yml")) == ""
    page = (HTML / "book" / "intro.html").read_text()
    assert "clone the repository" not in page
