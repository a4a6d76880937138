"""The built pages read as a book, not a lab notebook: no talk of how the book was made
(issue numbers, versions before, commit hashes, run dates, memory settings), no seed
range outside the methods appendix, no sentence over 60 words, and each page within its
length. Read from the built
HTML's article text: prose, tables and figure captions, not code."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from conftest import HTML
from test_code_talk import HASH, ISSUE

PAGES = sorted((HTML / "book").glob("*.html"))
METHODS = "methods.html"
# the methods appendix prints every table's machine record: most of its words
MAX_WORDS = {"07_fixed_points.html": 3650, METHODS: 4350}
# every other page: 5,000

PROCESS_TALK = {
    "an issue number": r"\bissues? \d+\b",
    "a version before": r"\b(?:the )?(?:version|recipe|procedure) before\b"
    r"|\bearlier (?:version|recipe)\b|\bas it was before\b",
    "a change told as history": r"\bfound late\b|\bnow trains\b|\bat this commit\b"
    r"|\bbefore the (?:rings|held-back carries)\b|\bwas added (?:before|after)\b",
    "a round of work": r"\b(?:eleventh|twelfth|thirteenth|fourteenth) round\b",
    "a commit hash": r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b",
    "a run date": r"\b20\d\d-\d\d-\d\d\b|\b\d{1,2} (?:November|December) 20\d\d\b",
    "a memory setting": r"\bglibc\b|\bheap threshold\b|\bmalloc\b",
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


class _Blocks(HTMLParser):
    """The page's paragraphs, list items, definitions, captions and display equations,
    one string each and in order, with ``None`` for each code cell or listing between
    them: a sentence ends inside a block, never across a table or a heading."""

    BLOCKS = {"p", "li", "dd", "figcaption", "caption"}
    CODE = ("cell_input", "cell_output", "highlight")

    def __init__(self):
        super().__init__()
        self.open, self.divs, self.blocks = [], [], []

    def handle_starttag(self, tag, attrs):
        classes = dict(attrs).get("class") or ""
        if tag == "div":
            math = classes.startswith("math")
            self.divs.append(math)
            if math:
                self.open.append([])
            elif any(kind in classes for kind in self.CODE):
                self.blocks.append(None)
        if tag in self.BLOCKS:
            self.open.append([])

    def handle_endtag(self, tag):
        math = tag == "div" and self.divs and self.divs.pop()
        if (tag in self.BLOCKS or math) and self.open:
            self.blocks.append(" ".join("".join(self.open.pop()).split()))

    def handle_data(self, data):
        if self.open:
            self.open[-1].append(data)


def _joined(blocks: list[str | None]) -> list[str]:
    """A block that ends with a colon goes on into the next one, across code: a reader
    takes "Train it:" and the sentence after the listing as one."""
    paragraphs, lead = [], ""
    for block in blocks:
        if block is None:
            continue
        text = f"{lead} {block}".strip()
        lead = text if text.endswith(":") else ""
        if not lead:
            paragraphs.append(text)
    return paragraphs + ([lead] if lead else [])


def sentences(html: str) -> list[str]:
    """The sentences of a page's prose (code listings and scripts left out)."""
    html = re.sub(r"<(pre|script|style)\b.*?</\1>", " ", html, flags=re.S)
    parser = _Blocks()
    parser.feed(html)
    end = r"(?<=[.!?])[)”\"]?\s+(?=[A-Z(“\"\\])"  # a stop, then a capital or bracket
    return [s for p in _joined(parser.blocks) for s in re.split(end, p) if s]


def test_the_book_was_built():
    assert len(PAGES) > 5, "run make book first"


# The Performance page shows the date of each benchmark run, read from its file, the
# methods appendix the date in each table's machine record, and the introduction the
# release date a citation names (recur.pages.citation).
DATED = {
    "performance.html": "a run date",
    METHODS: "a run date",
    "intro.html": "a run date",
}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_process_talk(page):
    text = _prose(page)
    talk = {k: v for k, v in PROCESS_TALK.items() if DATED.get(page.name) != k}
    found = {
        what: m.group(0)
        for what, pattern in talk.items()
        if (m := re.search(pattern, text, re.I))
    }
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
    lead = "<p>" + " ".join(["word"] * 30) + ":</p>"
    code = '<div class="cell_input"><pre>x = 1</pre></div>'
    found = sentences(lead + code + "<p>" + " ".join(["more"] * 31) + ". Next.</p>")
    assert [len(s.split()) for s in found] == [61, 1]
    assert len(sentences('<p>A b:</p><div class="math">x = y</div>')) == 1


def test_the_checks_see_planted_talk():
    before = "the version " + "before"  # from parts, so this file holds no such talk
    planted = f"<article><p>As in issue {ISSUE}, {before} failed.</p>"
    planted += "</article>"
    text = article_text(planted)
    assert re.search(PROCESS_TALK["an issue number"], text)
    assert re.search(PROCESS_TALK["a version before"], text)
    code = f'<div class="cell_input"><div>issue {ISSUE}</div></div><p>x</p>'
    assert "issue" not in article_text(f"<article>{code}</article>")
    assert re.search(PROCESS_TALK["a commit hash"], f"at {HASH}")
    assert not re.search(PROCESS_TALK["a commit hash"], "deadbeef")  # no digit: a word
    assert re.search(SEED_RANGE, "on seeds 600 to 619")
    assert article_text("<article><pre>a b c</pre><p>d</p></article>") == "d"
