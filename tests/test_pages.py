"""The built pages read as a book, not a lab notebook: no talk of how the book was made
(issue numbers, versions before, commit hashes, run dates, allocator settings), no seed
range outside the methods appendix, no sentence over 60 words, and each page within its
length. Read from the built
HTML's article text: prose, tables and figure captions, not code."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from conftest import HTML

PAGES = sorted((HTML / "book").glob("*.html"))
METHODS = "methods.html"
MAX_WORDS = {"06_act_ut.html": 4500, METHODS: 2500}  # every other page: 5,000

PROCESS_TALK = {
    "an issue number": r"\bissues? \d+\b",
    "a version before": r"\b(?:the )?(?:version|recipe|procedure) before\b"
    r"|\bearlier (?:version|recipe)\b|\bas it was before\b",
    "a change told as history": r"\bfound late\b|\bnow trains\b|\bat this commit\b"
    r"|\bbefore the (?:rings|held-back carries)\b|\bwas added (?:before|after)\b",
    "a round of work": r"\b(?:eleventh|twelfth|thirteenth|fourteenth) round\b",
    "a commit hash": r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b",
    "a run date": r"\b20\d\d-\d\d-\d\d\b|\b\d{1,2} (?:November|December) 20\d\d\b",
    "an allocator setting": r"\bglibc\b|\bheap threshold\b|\bmalloc\b",
    "the word moonshot": r"\bmoonshot\b",
}
MAX_SENTENCE = 60  # words
SEED_RANGE = r"\bseeds? \d+ ?(?:to|-|–) ?\d+\b"


class _ArticleText(HTMLParser):
    """The text inside <article>, without scripts, styles and code cells' inputs."""

    SKIP = {"script", "style"}

    def __init__(self):
        super().__init__()
        self.depth, self.skipping, self.parts = 0, 0, []

    def handle_starttag(self, tag, attrs):
        if tag == "article":
            self.depth += 1
        classes = dict(attrs).get("class") or ""
        if tag in self.SKIP or "cell_input" in classes:
            self.skipping += 1 if tag in ("script", "style", "div") else 0

    def handle_endtag(self, tag):
        if tag == "article":
            self.depth -= 1
        if self.skipping and tag in ("script", "style"):
            self.skipping -= 1

    def handle_data(self, data):
        if self.depth and not self.skipping:
            self.parts.append(data)


def article_text(html: str) -> str:
    """The prose a reader sees: the article without scripts, styles, the inputs of
    code cells or code listings (<pre>: code, not sentences to read)."""
    html = re.sub(r'<div class="cell_input.*?</div>\s*</div>', " ", html, flags=re.S)
    html = re.sub(r"<pre\b.*?</pre>", " ", html, flags=re.S)
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    parser = _ArticleText()
    parser.feed(html)
    return re.sub(r"\s+", " ", " ".join(parser.parts)).strip()


def _prose(page) -> str:
    return article_text(page.read_text())


class _Paragraphs(HTMLParser):
    """The text of each paragraph, list item, definition and caption, one string each:
    a sentence ends inside one of these, never across a table or a heading."""

    BLOCKS = {"p", "li", "dd", "figcaption", "caption"}

    def __init__(self):
        super().__init__()
        self.open, self.paragraphs = [], []

    def handle_starttag(self, tag, attrs):
        if tag in self.BLOCKS:
            self.open.append([])

    def handle_endtag(self, tag):
        if tag in self.BLOCKS and self.open:
            self.paragraphs.append(" ".join("".join(self.open.pop()).split()))

    def handle_data(self, data):
        if self.open:
            self.open[-1].append(data)


def sentences(html: str) -> list[str]:
    """The sentences of a page's paragraphs (code listings and scripts left out)."""
    html = re.sub(r"<(pre|script|style)\b.*?</\1>", " ", html, flags=re.S)
    parser = _Paragraphs()
    parser.feed(html)
    end = r"(?<=[.!?])\s+(?=[A-Z(“\"\\])"  # a stop, then a capital, a bracket or math
    return [s for p in parser.paragraphs for s in re.split(end, p) if s]


def test_the_book_was_built():
    assert len(PAGES) > 5, "run make book first"


# The Performance page shows the date of each benchmark run, read from its file.
DATED = {"performance.html": "a run date"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_process_talk(page):
    text = _prose(page)
    talk = {k: v for k, v in PROCESS_TALK.items() if DATED.get(page.name) != k}
    found = {what: m.group(0) for what, pattern in talk.items()
             if (m := re.search(pattern, text, re.I))}  # fmt: skip
    assert not found, found


@pytest.mark.parametrize(
    "page", [p for p in PAGES if p.name != METHODS], ids=lambda p: p.name
)
def test_seed_ranges_only_in_the_methods_appendix(page):
    match = re.search(SEED_RANGE, _prose(page), re.I)
    assert not match, match.group(0)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_pages_are_not_too_long(page):
    words = len(_prose(page).split())
    assert words <= MAX_WORDS.get(page.name, 5000), words


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_sentence_over_60_words(page):
    long = [s for s in sentences(page.read_text()) if len(s.split()) > MAX_SENTENCE]
    assert not long, long


def test_the_sentence_check_sees_a_long_sentence():
    words = "Sixty-one " + " ".join(["words"] * 60)
    found = sentences(f"<p>Short one. {words}. (Another.)</p><table><td>x</td></table>")
    assert [len(s.split()) for s in found] == [2, 61, 1]
    assert len(sentences("<ul><li>A b.</li><li>C d.</li></ul>")) == 2


def test_the_checks_see_planted_talk():
    planted = "<article><p>As in issue 16, the version before failed.</p></article>"
    text = article_text(planted)
    assert re.search(PROCESS_TALK["an issue number"], text)
    assert re.search(PROCESS_TALK["a version before"], text)
    code = '<div class="cell_input"><div>issue 16</div></div><p>x</p>'
    assert "issue" not in article_text(f"<article>{code}</article>")
    assert re.search(PROCESS_TALK["a commit hash"], "at 63d7d5d")
    assert not re.search(PROCESS_TALK["a commit hash"], "deadbeef")  # no digit: a word
    assert re.search(SEED_RANGE, "on seeds 600 to 619")
    assert article_text("<article><pre>a b c</pre><p>d</p></article>") == "d"
