"""How to cite the book: its title, authors, version and date in one place. The
top-level ``CITATION.cff`` is :func:`cff_text` (``tests/test_citation.py`` checks it),
and the introduction prints :func:`bibtex`."""

from __future__ import annotations

import re

from recur.core.version import VERSION

TITLE = "One More Round: why running the same update rule for more rounds computes more"
AUTHORS = "The One More Round authors"
DATE = "2026-12-06"  # the release the version names
LICENSES = ("MIT", "CC-BY-4.0")  # the code, and the text and figures
KEY = "onemoreround2026"


def citation_values(config: str = "../_config.yml") -> dict:
    """What the introduction glues: the version, the date and how to get the code."""
    return {
        "cite_version": VERSION,
        "cite_date": DATE,
        "get_the_code": get_the_code_words(repository_url(config)),
    }


def bibtex() -> str:
    """The book as a BibTeX ``@book`` entry."""
    year = DATE[:4]
    return (
        f"@book{{{KEY},\n"
        f"  title   = {{{TITLE}}},\n"
        f"  author  = {{{{{AUTHORS}}}}},\n"
        f"  year    = {{{year}}},\n"
        f"  version = {{{VERSION}}},\n"
        f"  note    = {{Interactive book with its library \\texttt{{recur}}; "
        f"released {DATE}}},\n"
        "}"
    )


def cff_text() -> str:
    """The text of ``CITATION.cff`` (Citation File Format 1.2.0)."""
    licenses = "\n".join(f"  - {name}" for name in LICENSES)
    return (
        "# Written from recur.pages.citation (tests/test_citation.py checks it)\n"
        "cff-version: 1.2.0\n"
        'message: "If you use this book or its code, please cite it as below."\n'
        "type: software\n"
        f'title: "{TITLE}"\n'
        "authors:\n"
        f'  - name: "{AUTHORS}"\n'
        f'version: "{VERSION}"\n'
        f'date-released: "{DATE}"\n'
        f"license:\n{licenses}\n"
    )


def repository_url(config: str = "../_config.yml") -> str:
    """The book's public repository, ``repository.url`` in Jupyter Book's
    ``_config.yml`` ("" while it has none, or where the file is not there, as in the
    downloaded notebooks)."""
    try:
        text = open(config, encoding="utf-8").read()
    except OSError:
        return ""
    block = re.search(r"^repository:\n((?:[ \t]+.*\n?)*)", text, re.M)
    found = block and re.search(r"^\s+url:\s*[\"']?([^\"'\s#]+)", block.group(1), re.M)
    return found.group(1) if found else ""


def get_the_code_words(url: str) -> str:
    """How the introduction tells a reader to get the code: clone the repository at its
    address, or, while it has none, copy it from whoever gave them the book."""
    if url:
        return f"clone the repository ({url})"
    return (
        "take a copy of the repository from whoever gave you the book (it has no "
        "public address yet)"
    )
