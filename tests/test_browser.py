"""Open every page of the built book in a real browser, with no internet, and check
what a reader would see: no error output, figures loaded with alt text, maths typeset,
widgets drawn, and animations that play."""

from __future__ import annotations

import os
import re

import pytest

from conftest import HTML, ROOT, SHOTS

PAGES = sorted(str(p.relative_to(HTML)) for p in (HTML / "book").glob("*.html")) or [
    "missing"
]
BAD_TEXT = re.compile(
    r"Traceback \(most recent call last\)|\w+Error: |NameError|Exception:"
)


def open_page(page, site, name):
    page.goto(f"{site}/{name}", wait_until="load")
    page.wait_for_timeout(300)
    return page


def test_every_chapter_in_toc_was_built():
    names = {p.split("/")[-1] for p in PAGES}
    assert {"intro.html", "01_parallel_carry.html", "references.html"} <= names


def test_chapter1_animation_plays(page, site):
    open_page(page, site, "book/01_parallel_carry.html")
    img = page.locator("img[id^=_anim_img]").first
    first = img.get_attribute("src")
    page.locator("button[onclick*='next_frame']").first.click()
    assert img.get_attribute("src") != first, "the step button did not change the frame"
    page.locator("button[onclick*='first_frame']").first.click()
    assert img.get_attribute("src") == first
    page.locator("button[onclick*='play_animation']").first.click()
    page.wait_for_timeout(2500)
    assert img.get_attribute("src") != first, "play did not advance the frames"


def test_chapter1_explorer_steps_through_rounds_without_kernel(page, site):
    open_page(page, site, "book/01_parallel_carry.html")
    explorer = page.locator(".carry-explorer").first
    assert "after 0 of 4 rounds" in explorer.inner_text()
    explorer.locator(".carry-tab", has_text="round 3").click()
    assert "after 3 of 4 rounds" in explorer.inner_text()


def _js_traces(page, pairs):
    return page.evaluate(
        """pairs => pairs.map(([a, b]) => {
            const t = parallelAdd(a, b);
            return [t.carries, result(t), roundsToSettle(t), longestChainSpan(t)];
        })""",
        pairs,
    )


def test_chapter1_javascript_twin_equals_the_library(page, site):
    """The static page's carry rule (carry.js) against recur.core.carry on 200
    random pairs and 200 with long chains, 1 to 48 bits: every carry of every round,
    the sum, the rounds to settle and the longest chain."""
    import numpy as np

    from recur.core.carry import longest_chain_span, parallel_add

    rng = np.random.default_rng(20)
    pairs = []
    for k in range(400):
        n = int(rng.integers(1, 49))
        a = "".join(rng.choice(["0", "1"], n))
        if k % 2:  # a long chain: b is a's complement but for a generating bit 0
            b = "".join("1" if c == "0" else "0" for c in a[:-1]) + "1"
            a = a[:-1] + "1"
        else:
            b = "".join(rng.choice(["0", "1"], int(rng.integers(1, n + 1))))
        pairs.append((a, b))
    open_page(page, site, "book/01_parallel_carry.html")
    for (a, b), (carries, total, settle, span) in zip(
        pairs, _js_traces(page, pairs), strict=True
    ):
        trace = parallel_add(a, b)
        assert carries == trace.carries.tolist(), (a, b)
        assert (total, settle) == (trace.result, trace.rounds_to_settle), (a, b)
        want = longest_chain_span(trace)
        assert span == (list(want) if want else None), (a, b)


def test_chapter1_explorer_computes_typed_numbers_and_reports_bad_input(page, site):
    """Typing in the static page: the sum and the rounds as the library gives them;
    bad input gets the library's own message, and the last good sum stays."""
    from recur.core.carry import parallel_add
    from recur.views.widgets import MAX_BITS

    open_page(page, site, "book/01_parallel_carry.html")
    explorer = page.locator(".carry-explorer").first
    explorer.locator(".carry-a").fill("1111")
    trace = parallel_add("1111", "0001")
    assert (
        f"sum {trace.result} = 16; settles after {trace.rounds_to_settle} rounds"
        in (explorer.inner_text())
    )
    assert explorer.locator(".carry-tab").count() == trace.n_rounds + 1
    explorer.locator(".carry-b").fill("2x")
    with pytest.raises(ValueError) as err:
        parallel_add("1111", "2x")
    assert "⚠ " + str(err.value) in explorer.inner_text()
    assert explorer.locator(".carry-tab").count() == trace.n_rounds + 1  # still there
    explorer.locator(".carry-b").fill("")
    assert "b is empty" in explorer.inner_text()
    explorer.locator(".carry-b").fill("1" * (MAX_BITS + 1))
    assert f"up to {MAX_BITS} bits" in explorer.inner_text()
    explorer.locator(".carry-b").fill("1")
    assert "sum 10000 = 16" in explorer.inner_text()  # and it keeps working
    assert not page.errors, page.errors


def test_chapter2_learned_explorer_steps_without_kernel(page, site):
    """The static page runs the trained cell in the browser; its slider
    steps through the 2 (n + 1) rounds."""
    open_page(page, site, "book/02_shared_update.html")
    explorer = page.locator('.cell-explorer[data-model="ch2_cell"]')
    explorer.locator(".explore-message").wait_for()
    explorer.locator(".explore-round").fill("5")
    assert explorer.locator(".explore-round-value").inner_text() == "5 of 18"
    assert "differs from the true sum" in explorer.inner_text()


def test_chapter_5_halting_twin_equals_the_library(page, site):
    """Halting.js's haltingWeights against recur.models.act.halting_weights on 300
    random h (1 to 8 steps, some summing past 1 - eps, some never) and eps: N equal,
    R and every weight within 1e-12."""
    import numpy as np
    import torch

    from recur.models.act import halting_weights

    rng = np.random.default_rng(5)
    cases = []
    for _ in range(300):
        h = rng.random(int(rng.integers(1, 9))) * rng.choice([0.2, 0.6, 1.0])
        cases.append((h.round(2).tolist(), float(rng.choice([0.01, 0.05, 0.1, 0.3]))))
    open_page(page, site, "book/05_act.html")
    js = page.evaluate(
        "cases => cases.map(([h, eps]) => haltingWeights(h, eps))", cases
    )
    for (h, eps), got in zip(cases, js, strict=True):
        want = halting_weights(torch.tensor(h, dtype=torch.float64), eps)
        assert got["nSteps"] == int(want.n_steps), (h, eps)
        assert got["remainder"] == pytest.approx(float(want.remainder), abs=1e-12)
        assert got["weights"] == pytest.approx(want.weights.tolist(), abs=1e-12)


def test_chapter_5_halting_explorer_follows_its_sliders(page, site):
    """Moving h_3 to 1 in the static page: N, R and the ponder cost as the library
    computes them (0.1, 0.3, 1.0: N = 3, R = 0.6)."""
    open_page(page, site, "book/05_act.html")
    explorer = page.locator(".halting-explorer").first
    explorer.locator(".halt-h3").fill("1")
    text = explorer.locator(".halt-result").inner_text()
    assert "N = 3, R = 0.60" in text and "N + R = 3.60" in text
    assert "p = [0.10, 0.30, 0.60, 0.00, 0.00]" in text
    assert not page.errors, page.errors


def test_the_intro_offers_a_bundle_that_can_run(page, site):
    """A chapter's .ipynb alone cannot run; the download holds the
    notebooks, the library and the data they read."""
    import io
    import zipfile

    open_page(page, site, "book/intro.html")
    href = page.locator("a[download]").first.get_attribute("href")
    response = page.request.get(f"{site}/book/{href}")
    assert response.ok, href
    names = zipfile.ZipFile(io.BytesIO(response.body())).namelist()
    # the pins come with the library; the methods appendix reads data/'s subfolders
    for needed in ("book/06_act_ut.ipynb", "src/recur/models/ut.py",
                   "src/recur/core/numerics.py", "book/data/act_seeds.csv",
                   "book/data/act_seeds.machine.json",
                   "book/data/other_cpu/live_seeds.csv",
                   "book/data/unpinned/act_tau.csv", "requirements.txt",
                   "pyproject.toml", "HOW-TO-RUN.txt"):  # fmt: skip
        assert f"one-more-round/{needed}" in names, needed


def test_search_snippets_show_no_raw_tex(page, site):
    """Search results quoted raw TeX ("\\(R = 1 - ...\\)"); the snippets
    now read "R = 1 - (0.1 + 0.3) = 0.6" and "ρ = N + R"."""
    page.goto(f"{site}/search.html?q=remainder", wait_until="load")
    page.wait_for_selector("ul.search li p.context", timeout=30000)
    page.wait_for_timeout(1500)  # the snippets arrive one page at a time
    snippets = " ".join(page.locator("ul.search li p.context").all_inner_texts())
    assert "R = 1 - (0.1 + 0.3) = 0.6" in snippets, snippets[:300]
    assert "\\(" not in snippets and "\\rho" not in snippets, snippets[:300]


AXE = ROOT / ".venv" / "npm" / "node_modules" / "axe-core" / "axe.min.js"  # make test


# What a new user's tools check: axe-core's WCAG 2.0 and 2.1 rules at levels A and AA,
# and its best-practice rules (headings in order, every piece of content in a landmark,
# landmarks with distinct names, tables' headers with text).
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
# Best-practice rules the book does not follow, each with the reason. None today: the
# theme's gaps are mended by access.js, the notebooks' outputs by offline_page.py.
AXE_ALLOWED: dict[str, str] = {}


def _axe_violations(page) -> list:
    """axe-core's rules (AXE_TAGS) on the open page: each rule broken, with its impact
    and how many elements break it, less the allowed ones (AXE_ALLOWED)."""
    if not AXE.exists():
        if os.environ.get("CI"):
            pytest.fail(f"axe-core is not installed at {AXE} (make test installs it)")
        pytest.skip("axe-core is not installed (make test installs it)")
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", AXE_TAGS
    )
    return [
        (v["id"], v["impact"], len(v["nodes"]))
        for v in result["violations"]
        if v["id"] not in AXE_ALLOWED
    ]


def test_the_accessibility_check_sees_a_nameless_slider(page, site):
    open_page(page, site, "book/01_parallel_carry.html")
    page.evaluate(
        "() => document.querySelectorAll('input[type=range]')"
        ".forEach(e => e.removeAttribute('aria-label'))"
    )
    assert any(rule == "label" for rule, _, _ in _axe_violations(page))


def test_the_accessibility_check_sees_wcag21_and_the_phone(page, site):
    """The check reads the WCAG 2.1 rules (a button named "Search" that shows
    "Search Ctrl+K": label in name) and, at 420 px, a table that scrolls sideways but
    takes no keyboard focus; and the book's own pages give neither."""
    open_page(page, site, "book/02_shared_update.html")
    page.evaluate(
        "() => document.querySelector('.search-button-field')"
        ".setAttribute('aria-label', 'Search')"
    )
    assert any(r == "label-content-name-mismatch" for r, _, _ in _axe_violations(page))
    page.set_viewport_size({"width": 420, "height": 900})
    open_page(page, site, "book/02_shared_update.html")
    scrolling = "article div.cell_output table[tabindex]"
    assert page.locator(scrolling).count(), "no table scrolls sideways at 420 px"
    page.evaluate(
        f"() => document.querySelectorAll('{scrolling}')"
        ".forEach(e => e.removeAttribute('tabindex'))"
    )
    assert any(r == "scrollable-region-focusable" for r, _, _ in _axe_violations(page))


# The checks of one page as a reader sees it, each on the page loaded once at its width.
# Each returns what it found wrong (empty: nothing), so that one load reports them all.


def _no_errors_and_loaded_figures(page, name) -> list[str]:
    body = page.inner_text("article")
    wrong = [f"error text: {m.group(0)}" for m in [BAD_TEXT.search(body)] if m]
    wrong += ["nbval's markers shown"] if "NBVAL" in body else []
    errors = ".output.error, .output.traceback, .output.stderr"
    wrong += ["an error output"] if page.locator(errors).count() else []
    images = page.eval_on_selector_all(
        "article img",
        "els => els.map(e => [e.currentSrc, e.complete && e.naturalWidth, e.alt])",
    )
    wrong += [
        f"image did not load: {src[:80]}" for src, width, _ in images if not width
    ]
    wrong += [f"no alt text: {src[:80]}" for src, _, alt in images if not alt.strip()]
    wrong += [f"browser: {e}" for e in page.errors]  # exceptions, console errors
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name.replace('/', '_')}.png"), full_page=True)
    return wrong


def _maths_is_typeset(page, name) -> list[str]:
    n_math = page.locator("article .math").count()
    if n_math:
        page.wait_for_function(
            f"document.querySelectorAll('article mjx-container').length >= {n_math}",
            timeout=15000,
        )
    return []


def _no_field_takes_typing_that_nothing_reads(page, name) -> list[str]:
    """The static page has no kernel: a text field in a widget must be read-only."""
    if page.locator("article .widget-text").count():
        page.wait_for_selector("article .widget-text input", timeout=15000)
    fields = "article input[type=text]:not([disabled])"
    read = ("carry", "cell", "act", "deq")  # carry.js and explorers.js read these
    # and cell_train.js and act_train.js read the trainers' seeds
    readers = [f".{kind}-explorer" for kind in read] + [".cell-trainer", ".act-trainer"]
    inert = page.locator(
        fields + "".join(f":not({reader} input)" for reader in readers)
    ).count()
    return [f"{inert} text fields take typing that nothing reads"] if inert else []


def _every_figure_opens_at_full_size(page, name) -> list[str]:
    """Shrunk into the column (or a phone), a figure links to its full-size image,
    which loads; the players' frames are left alone."""
    figures = page.eval_on_selector_all(
        "article img:not([id^=_anim_img])",
        "els => els.map(e => [e.getAttribute('src'), e.closest('a')?.href || ''])",
    )
    wrong = [
        f"no full-size link: {src[:60]}"
        for src, href in figures
        if not href.endswith(src.split("/")[-1])
    ]
    return wrong + [f"{href} does not load" for _, href in figures
                    if href and not page.request.get(href).ok]  # fmt: skip


def _display_maths_fits(page, name) -> list[str]:
    """No equation wider than the text column at 1280 px."""
    too_wide = page.eval_on_selector_all(
        "article mjx-container[display='true']",
        "els => els.filter(e => e.scrollWidth > e.parentElement.clientWidth + 1)"
        ".map(e => e.textContent.slice(0, 60))",
    )
    return [f"equation too wide: {t}" for t in too_wide]


def _one_search_field(page, name) -> list[str]:
    """One search field in sight (the sidebar's), not a second one in a bar above."""
    shown = page.eval_on_selector_all(
        ".search-button-field",
        "els => els.filter(e => e.getBoundingClientRect().width > 0).length",
    )
    return [f"{shown} search fields in sight"] if shown != 1 else []


def _figures_keep_their_shape(page, name) -> list[str]:
    """Every image shown (figures and the players' frames) keeps its own shape: its
    width over its height on the page within 2% of its pixels' (an inline height
    kept while the column narrows the width squashes a figure sideways)."""
    shapes = page.eval_on_selector_all(
        "article img",
        """els => els.map(e => [(e.getAttribute('src') || '').slice(-20),
            e.naturalWidth / e.naturalHeight, e.getBoundingClientRect()])
            .filter(([, own, box]) => own && box.width && box.height)
            .map(([src, own, box]) => [src, own, box.width / box.height])""",
    )
    return [
        f"{src} shown at width/height {shown:.2f}, its image {own:.2f}"
        for src, own, shown in shapes
        if abs(shown / own - 1) > 0.02
    ]


def _code_lines_do_not_wrap(page, name) -> list[str]:
    """At 1280 px every line of a code cell fits its box: a line that wraps breaks
    the code's shape (``book/ruff.toml`` keeps the notebooks' lines to 79)."""
    wrapped = page.eval_on_selector_all(
        "div.cell_input pre",
        """els => els.map(pre => {
            const style = getComputedStyle(pre);
            const inner = pre.clientHeight - parseFloat(style.paddingTop)
                - parseFloat(style.paddingBottom);
            const lines = pre.textContent.replace(/\\n$/, '').split('\\n');
            return [lines.length, Math.round(inner / parseFloat(style.lineHeight)),
                    lines.reduce((a, b) => (b.length > a.length ? b : a), '')];
        }).filter(([written, shown]) => shown > written)""",
    )
    return [f"{shown} lines shown for {n}, the longest: {longest}"
            for n, shown, longest in wrapped]  # fmt: skip


def _passes_the_accessibility_check(page, name) -> list[str]:
    return [f"axe: {v}" for v in _axe_violations(page)]


DESKTOP = (
    _no_errors_and_loaded_figures,
    _maths_is_typeset,
    _no_field_takes_typing_that_nothing_reads,
    _every_figure_opens_at_full_size,
    _display_maths_fits,
    _one_search_field,
    _figures_keep_their_shape,
    _code_lines_do_not_wrap,
    _passes_the_accessibility_check,  # last: it adds axe-core's script to the page
)


def _nothing_widens_the_page(page, name) -> list[str]:
    """At 420 px no sentence or table pushes the page wider than the screen; wide
    tables scroll inside the column."""
    width = page.evaluate("document.documentElement.scrollWidth")
    return [f"{width} px wide at 420 px"] if width > 420 else []


PHONE_TEXT_PX = 8  # the smallest letters a phone may show


def _drawn_text_px(path, shown_width: float) -> float:
    """How large the smallest letters of the PNG at ``path`` are drawn, in CSS px, when
    it is shown ``shown_width`` px wide: its size in points (recorded in the PNG by
    ``figure_png``) at the image's own dots per inch, scaled to its width shown."""
    from PIL import Image

    from recur.views.style import TEXT_KEY

    with Image.open(path) as image:
        points = float(image.text.get(TEXT_KEY, "nan"))  # nan: no size recorded
        dots_per_inch = image.info["dpi"][0]
        return points / 72 * dots_per_inch * shown_width / image.width


def _figures_fit_and_read(page, name) -> list[str]:
    """At 420 px every figure and animation fits its column (no sideways scroll) and a
    figure's smallest letters are drawn at least :data:`PHONE_TEXT_PX` px tall (an
    animation's frames are data URLs that record no text size: they are checked for
    fit only)."""
    shown = page.eval_on_selector_all(
        "article img",
        """els => els.map(e => {
            const article = e.closest('article'), style = getComputedStyle(article);
            const column = article.clientWidth - parseFloat(style.paddingLeft)
                - parseFloat(style.paddingRight);  // the text's width, inside padding
            return [new URL(e.src).pathname, e.getBoundingClientRect().width, column];
        })""",
    )
    wrong = []
    for path, width, column in shown:
        short = path.rsplit("/", 1)[-1][-20:]
        if width > column + 1:
            wrong.append(f"{short} is {width:.0f} px in a {column:.0f} px column")
        if not path.endswith(".png"):
            continue  # an animation's frame
        letters = _drawn_text_px(HTML / path.lstrip("/"), width)
        if not letters >= PHONE_TEXT_PX:  # also when no size was recorded (nan)
            wrong.append(f"{short}: its smallest letters are {letters:.1f} px")
    return wrong


def _phone_screenshot(page, name) -> list[str]:
    """Beside the desktop screenshots, for a reader to look at."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    phone = f"{name.replace('/', '_')}.420px.png"
    page.screenshot(path=str(SHOTS / phone), full_page=True)
    return []


PHONE = (
    _nothing_widens_the_page,
    _figures_fit_and_read,
    _figures_keep_their_shape,
    _phone_screenshot,
    _passes_the_accessibility_check,  # last: it adds axe-core's script to the page
)


def _run_checks(page, name, checks) -> None:
    wrong = [f"{check.__name__}: {w}" for check in checks for w in check(page, name)]
    assert not wrong, wrong


@pytest.mark.parametrize("name", PAGES)
def test_a_page_at_desktop_width(page, site, name):
    """Loaded once at 1280 px: no error or traceback, every figure loaded with alt
    text and a full-size link and at its own shape, maths typeset and no wider than
    the column, no field that takes typing nothing reads, one search field in sight,
    no line of code wrapped, the accessibility check passed."""
    open_page(page, site, name)
    _run_checks(page, name, DESKTOP)


@pytest.mark.parametrize("name", PAGES)
def test_a_page_on_a_phone(page, site, name):
    """Loaded once at 420 px: nothing widens the page, figures stay legible and at
    their own shape, the accessibility check passed."""
    page.set_viewport_size({"width": 420, "height": 900})
    open_page(page, site, name)
    _run_checks(page, name, PHONE)


def test_each_check_of_a_page_can_fail(page, site):
    """A broken page goes red in the combined tests: an image without alt text, an
    inert field, a second search field, a figure squashed sideways at 1280 and 420 px,
    a line of code too long for its box, a page too wide on a phone, a figure wider
    than a phone's column, and one whose letters are drawn too small."""
    open_page(page, site, "book/05_act.html")
    page.evaluate(
        """() => {
        const article = document.querySelector('article');
        article.querySelector('img').setAttribute('alt', '');
        article.insertAdjacentHTML('beforeend', '<input type=text>');
        const wide = document.createElement('div');
        wide.style.width = '3000px';
        wide.textContent = 'x';
        article.append(wide);
        const search = document.querySelector('.search-button-field');
        article.prepend(search.cloneNode(true));
        // the squashed figure: an inline height that outranks the book's style sheet,
        // beside an inline width that the column (or a phone's minimum) overrides
        const figure = article.querySelector('img:not([id^=_anim_img])');
        figure.style.setProperty('width', '2000px');
        figure.style.setProperty('height', '329px', 'important');
        const code = article.querySelector('div.cell_input pre');
        code.append('\\nx = 1  # ' + 'a comment far too long '.repeat(4));
        }"""
    )
    found = {check.__name__: check(page, "planted") for check in DESKTOP[:3]}
    assert any("no alt text" in w for w in found["_no_errors_and_loaded_figures"])
    assert found["_no_field_takes_typing_that_nothing_reads"]
    assert _one_search_field(page, "planted") == ["2 search fields in sight"]
    assert len(_figures_keep_their_shape(page, "planted")) == 1
    assert len(_code_lines_do_not_wrap(page, "planted")) == 1
    page.set_viewport_size({"width": 420, "height": 900})
    assert _nothing_widens_the_page(page, "planted")
    assert len(_figures_keep_their_shape(page, "planted")) == 1
    page.evaluate(
        """() => {
        // one figure wider than the column, one shrunk until its letters are tiny
        const figures = 'article img:not([id^=_anim_img])';
        const wide = document.querySelector(figures), tiny = wide.cloneNode();
        wide.style.setProperty('max-width', 'none');
        tiny.style.setProperty('width', '60px');
        document.querySelector('article').append(tiny);
        }"""
    )
    unfit = _figures_fit_and_read(page, "planted")
    assert len([w for w in unfit if "px column" in w]) == 1, unfit
    assert len([w for w in unfit if "smallest letters" in w]) == 1, unfit


def test_chapter2_wide_sums_come_in_blocks_that_fit_a_phone(page, site):
    """A 64-bit sum at 420 px: the explorer's rows are cut into blocks that fit the
    box, each block holding the rule's, the cell's and the true sum's bits of the
    same positions; the blocks put back together give the whole rows, and nothing
    scrolls sideways."""
    from recur.core.carry import parallel_add

    page.set_viewport_size({"width": 420, "height": 900})
    open_page(page, site, "book/02_shared_update.html")
    explorer = page.locator('.cell-explorer[data-model="ch2_cell"]')
    explorer.locator(".explore-message").wait_for()
    a, b = "1" * 64, "0" * 63 + "1"
    explorer.locator(".explore-a").fill(a)
    explorer.locator(".explore-b").fill(b)
    view = explorer.locator(".explore-view")
    heads = view.locator("th", has_text="positions").all_inner_texts()
    assert len(heads) > 1 and heads[0].startswith("positions 64 to ")
    assert heads[-1].endswith(" to 0")
    rows = view.locator("tr").all()
    texts: dict[str, str] = {}
    for row in rows:
        name = row.locator("th").first.inner_text()
        cells = row.locator("td").all_inner_texts()
        if cells:
            texts[name] = texts.get(name, "") + cells[0].replace("\n", "")
    assert texts["true sum"] == parallel_add(a, b).true_sum.zfill(65)
    assert len(texts["learned"]) == len(texts["exact rule"]) == 65
    overflow = view.evaluate("v => v.scrollWidth - v.clientWidth")
    assert overflow <= 0, overflow
    assert not page.errors, page.errors


def test_glued_numbers_are_not_bold(page, site):
    """myst-nb bolds every glued value; the book's style does not, so that bold
    marks the few things the prose marks."""
    open_page(page, site, "book/intro.html")
    weights = page.evaluate(
        "() => [...document.querySelectorAll('article p > span.pasted-text')]"
        ".map((s) => getComputedStyle(s).fontWeight)"
    )
    assert weights and set(weights) == {"400"}, weights
