"""The whole book as one PDF (``make pdf``): every page of ``_toc.yml``, in its order,
printed by the same headless Chromium the tests use.

The built pages' articles go into one page, ``_build/html/print/book.html``, after a
title page (the title, the version and date of ``recur.pages.citation``) and a list of
contents that links to each part; it keeps the book's styles and scripts, so the maths
is typeset and the figures are the HTML book's. Chromium prints it to
``_build/html/one-more-round.pdf`` with a page number at the foot of every page, and the
introduction links that file.

Run: ``.venv/bin/python book/_ext/make_pdf.py`` after ``make book`` (Debian's Chromium).
"""

from __future__ import annotations

import functools
import html
import re
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
from recur.core.chromium import (  # noqa: E402
    CHROMIUM_FLAGS,
    QuietHandler,
    QuietServer,
    chromium_path,
)

HTML = ROOT / "_build" / "html"
PRINT = HTML / "print" / "book.html"  # beside book/: the same relative paths
PDF = HTML / "one-more-round.pdf"
MARGIN = {"top": "18mm", "bottom": "18mm", "left": "15mm", "right": "15mm"}
# Printed pages: the article, without the parts that only work on screen
STYLE = """
<style>
  .bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-footer,
  .prev-next-footer, .header-article, .explore-reveal { display: none !important; }
  .pdf-part { break-before: page; }
  .pdf-title { text-align: center; margin-top: 30vh; }
  .pdf-contents li { margin: 0.3em 0; }
  article img { max-width: 100% !important; min-width: 0 !important; }
  div.cell_input { break-inside: avoid; }
</style>
"""


def toc_pages() -> list[str]:
    """The pages of ``_toc.yml`` in reading order, as ``book/NAME`` without suffix."""
    text = (ROOT / "_toc.yml").read_text()
    return re.findall(r"^(?:root|\s*- file):\s*(\S+)", text, re.M)


def article(page: str) -> tuple[str, str]:
    """The built page's title (its first heading) and its article's HTML."""
    text = (HTML / f"{page}.html").read_text()
    body = re.search(r"<article[^>]*>(.*?)</article>", text, re.S)
    if body is None:
        raise SystemExit(f"{page}.html has no article: build the book first")
    title = re.search(r"<h1[^>]*>(.*?)</h1>", body.group(1), re.S)
    words = re.sub(r"<[^>]+>", "", title.group(1)) if title else page
    return html.unescape(words).replace("#", "").strip(), body.group(1)


def print_page() -> str:
    """The one page Chromium prints: the intro's head, a title page, the contents and
    every page's article, each from a new sheet."""
    sys.path.insert(0, str(ROOT / "src"))
    from recur.core.version import VERSION
    from recur.pages.citation import DATE, TITLE

    pages = toc_pages()
    head = re.search(r"<head>(.*?)</head>", (HTML / "book" / "intro.html").read_text(),
                     re.S).group(1)  # fmt: skip
    parts = [article(page) for page in pages]
    contents = "".join(
        f'<li><a href="#part-{k}">{html.escape(title)}</a></li>'
        for k, (title, _) in enumerate(parts)
    )
    name, _, subtitle = TITLE.partition(": ")
    body = (
        f'<section class="pdf-title"><h1>{html.escape(name)}</h1>'
        f"<p><em>{html.escape(subtitle.capitalize())}</em></p>"
        f"<p>Version {VERSION}, {DATE}</p></section>"
        f'<section class="pdf-part pdf-contents"><h2>Contents</h2><ol>{contents}</ol>'
        "</section>"
    )
    body += "".join(
        f'<section class="pdf-part" id="part-{k}"><article class="bd-article">{text}'
        "</article></section>"
        for k, (_, text) in enumerate(parts)
    )
    return f"<!DOCTYPE html><html><head>{head}{STYLE}</head><body>{body}</body></html>"


def serve(folder: Path) -> tuple[QuietServer, str]:
    """``folder`` on 127.0.0.1, as the tests serve the book."""
    server = QuietServer(
        ("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(folder))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def main() -> None:
    chromium = chromium_path()
    if chromium is None:  # make book goes on without the PDF
        print("no PDF: chromium is not installed (apt-get install chromium)")
        return
    from playwright.sync_api import sync_playwright

    PRINT.parent.mkdir(exist_ok=True)
    PRINT.write_text(print_page())
    server, address = serve(HTML)
    footer = (
        '<div style="font-size:9px;width:100%;text-align:center">'
        '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
    )
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
            page = browser.new_page()
            page.goto(f"{address}/print/book.html", wait_until="load")
            page.wait_for_function(
                "() => !window.MathJax || !MathJax.startup || MathJax.startup.promise"
            )
            page.evaluate("async () => { if (window.MathJax?.startup) "
                          "await MathJax.startup.promise; }")  # fmt: skip
            page.pdf(
                path=str(PDF), format="A4", print_background=True,
                display_header_footer=True, header_template="<div></div>",
                footer_template=footer,
                margin=MARGIN,
            )  # fmt: skip
            browser.close()
    finally:
        server.shutdown()
    print(f"wrote {PDF.relative_to(ROOT)} ({PDF.stat().st_size / 2**20:.1f} MiB)")


if __name__ == "__main__":
    main()
