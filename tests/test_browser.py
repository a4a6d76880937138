"""Open every page of the built book in a real browser, with no internet, and check
what a reader would see: no error output, figures loaded with alt text, maths typeset,
widgets drawn, and animations that play."""

from __future__ import annotations

import re

import pytest

from conftest import HTML, SHOTS

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


@pytest.mark.parametrize("name", PAGES)
def test_page_has_no_errors_and_loaded_figures(page, site, name):
    open_page(page, site, name)
    body = page.inner_text("article")
    assert not BAD_TEXT.search(body), BAD_TEXT.search(body)
    assert "NBVAL" not in body  # nbval's markers are cell tags, not page text
    assert page.locator(".output.error, .output.traceback, .output.stderr").count() == 0
    images = page.eval_on_selector_all(
        "article img",
        "els => els.map(e => [e.currentSrc, e.complete && e.naturalWidth, e.alt])",
    )
    for src, width, alt in images:
        assert width, f"image did not load: {src[:80]}"
        assert alt.strip(), f"image without alt text: {src[:80]}"
    assert not page.errors, page.errors  # no exception, no console error
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name.replace('/', '_')}.png"), full_page=True)


@pytest.mark.parametrize(
    "name", [p for p in PAGES if "intro" not in p and "references" not in p]
)
def test_maths_is_typeset(page, site, name):
    open_page(page, site, name)
    n_math = page.locator("article .math").count()
    if n_math == 0:
        pytest.skip("no maths on this page")
    page.wait_for_function(
        f"document.querySelectorAll('article mjx-container').length >= {n_math}",
        timeout=15000,
    )


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
    page.wait_for_selector(".widget-tab", timeout=15000)
    shown = page.locator(
        ".widget-html-content:visible", has_text="longest chain:"
    ).first
    assert "after 0 of 4 rounds" in shown.inner_text()
    page.locator(".lm-TabBar-tab", has_text="round 3").first.click()
    page.wait_for_timeout(300)
    shown = page.locator(
        ".widget-html-content:visible", has_text="longest chain:"
    ).first
    assert "after 3 of 4 rounds" in shown.inner_text()


def test_chapter2_learned_explorer_steps_without_kernel(page, site):
    open_page(page, site, "book/02_shared_update.html")
    page.wait_for_selector(".widget-tab", timeout=15000)
    page.locator(".lm-TabBar-tab", has_text=re.compile(r"^5$")).first.click()
    page.wait_for_timeout(300)
    note = "differs from the true sum"
    shown = page.locator(".widget-html-content:visible", has_text=note).first
    assert "after 5 of 18 rounds" in shown.inner_text()


@pytest.mark.parametrize("name", PAGES)
def test_no_field_takes_typing_that_nothing_reads(page, site, name):
    """The static page has no kernel: a text field in a widget must be read-only
    (issue 19: Chapters 1 and 2 took `2x` and showed nothing)."""
    open_page(page, site, name)
    if page.locator("article .widget-text").count():
        page.wait_for_selector("article .widget-text input", timeout=15000)
    typable = page.locator("article input[type=text]:not([disabled])").count()
    assert typable == 0, f"{typable} text fields take typing on a page with no kernel"


@pytest.mark.parametrize("name", [p for p in PAGES if "/0" in p])
def test_every_figure_opens_at_full_size(page, site, name):
    """Shrunk into the column (or a phone), a figure links to its full-size image
    (issue 19), which loads; the players' frames are left alone."""
    open_page(page, site, name)
    figures = page.eval_on_selector_all(
        "article img:not([id^=_anim_img])",
        "els => els.map(e => [e.getAttribute('src'), e.closest('a')?.href || ''])",
    )
    for src, href in figures:
        assert href.endswith(src.split("/")[-1]), f"no full-size link: {src[:60]}"
        assert page.request.get(href).ok, href


def test_chapter_5_shows_no_sliders_whose_numbers_cannot_update():
    """The halting explorer needs a kernel; the static page must not show its sliders
    next to a result that cannot follow them (issue 9)."""
    from conftest import HTML

    page_html = (HTML / "book" / "05_act.html").read_text()
    assert "widget-view+json" not in page_html


@pytest.mark.parametrize("name", PAGES)
def test_display_maths_fits_the_page_at_desktop_width(page, site, name):
    """No equation wider than the text column at 1280 px (issue 9: Chapter 1's
    annotations were cut off). Screenshots at phone width (420 px) go next to the
    desktop ones for a reader to look at."""
    open_page(page, site, name)
    if page.locator("article mjx-container[display='true']").count():
        page.wait_for_function(
            "() => !document.querySelector('article .math:not(:has(mjx-container))')",
            timeout=15000,
        )
    too_wide = page.eval_on_selector_all(
        "article mjx-container[display='true']",
        "els => els.filter(e => e.scrollWidth > e.parentElement.clientWidth + 1)"
        ".map(e => e.textContent.slice(0, 60))",
    )
    assert not too_wide, too_wide
    page.set_viewport_size({"width": 420, "height": 900})
    page.wait_for_timeout(300)
    SHOTS.mkdir(parents=True, exist_ok=True)
    phone = f"{name.replace('/', '_')}.420px.png"
    page.screenshot(path=str(SHOTS / phone), full_page=True)


def test_the_intro_offers_a_bundle_that_can_run(page, site):
    """Issue 19: a chapter's .ipynb alone cannot run; the download holds the
    notebooks, the library and the data they read."""
    import io
    import zipfile

    open_page(page, site, "book/intro.html")
    href = page.locator("a[download]").first.get_attribute("href")
    response = page.request.get(f"{site}/book/{href}")
    assert response.ok, href
    names = zipfile.ZipFile(io.BytesIO(response.body())).namelist()
    for needed in ("book/06_act_ut.ipynb", "src/recur/ut.py", "book/data/act_seeds.csv",
                   "requirements.txt", "pyproject.toml", "HOW-TO-RUN.txt"):  # fmt: skip
        assert f"one-more-round/{needed}" in names, needed
