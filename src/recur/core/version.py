"""The book's version, as ``pyproject.toml`` states it (``tests/test_citation.py``
checks that the two agree)."""

VERSION = "0.2.0"
