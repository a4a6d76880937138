"""The code says what is and why, never how it came to be: no issue numbers, work
rounds, commit hashes or run dates in the library, the tests, the benchmarks, the
page's scripts, the Makefile or CI (the commit messages keep that history)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATTERNS = ("src/recur/**/*.py", "tests/*.py", "benchmarks/*.py", "book/_ext/*.py",
            "book/_extra/_static/*.js", "Makefile", ".ci/run")  # fmt: skip
FILES = sorted(p for pattern in PATTERNS for p in ROOT.glob(pattern))
# The examples each check must find are built from parts, so that no file holds them.
ISSUE, HASH, MONTH = 16, "63d7" + "d5d", "Dec" + "ember"
TALK = {
    "an issue number": r"\b[Ii]ssues?\s+\d+",
    "a round of work": r"\b(?:tenth|eleventh|twelfth|thirteenth|fourteenth) round",
    "a commit hash": r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b",
    "a run date": r"\b20\d\d-\d\d-\d\d\b|\b\d{1,2} (?:November|December)\b",
}


# A date that is a fact of the book, not of its history: the release a citation names.
DATED = {"src/recur/pages/citation.py": "a run date"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_history_in_the_code(path):
    text = path.read_text()
    allowed = DATED.get(str(path.relative_to(ROOT)))
    found = {what: m.group(0) for what, pattern in TALK.items()
             if what != allowed and (m := re.search(pattern, text))}  # fmt: skip
    assert not found, found


def test_the_patterns_see_what_they_guard_against():
    examples = {
        "an issue number": f"since issue {ISSUE}",
        "a commit hash": f"at {HASH}",
        "a round of work": "its twelfth " + "round's",
        "a run date": f"on 2 {MONTH}",
    }
    for what, example in examples.items():
        assert re.search(TALK[what], example), what
    assert not re.search(TALK["a commit hash"], '("10101010", "01010101")')  # binary
